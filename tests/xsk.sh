#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The xsk hook as root: the known mix through AF_XDP sockets must count per
# class exactly as at the other hooks, in native and generic XDP, on one
# queue and on two; ring drops are accounted for; bad input, faults,
# signals and kill -9 + cleanup leave the DUT as it was.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

MQ="numtxqueues 2 numrxqueues 2"
MIX_L4_TWICE="udp4:18:18:0 tcp4:8:8:0 icmp4:6:6:0 udp6:16:16:0 tcp6:18:18:0 icmp6:2:2:0 arp:4:4:0 l2-other:4:4:0 malformed:10:10:0"

# The DUT runs our program, as ip sees it.
xdp_attached() {
	[ "$(ip -n "$D" -d -j link show dev "$DEV" | jq '.[0].xdp.prog.id')" = "$(prog_id)" ]
}

# AF_XDP sockets open in the DUT's namespace.
xsk_sockets() {
	ip netns exec "$D" awk '$1 == "XDP" { print $3 }' /proc/net/protocols
}

# xsk_run NAME TOPO EXPECTED JQ ARGS...: the mix through --hook xsk ARGS;
# JQ is a check on the JSON summary.
xsk_run() {
	local name=$1 topo=$2 want=$3 jqcheck=$4 nq
	shift 4
	topo_up "$topo" || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if hc_start -n "$D" --hook xsk "$@" -j -i 0 "$DEV"; then
		check "$name: the DUT runs our XDP program" xdp_attached
		nq=1
		[[ " $* " == *" --all-queues "* ]] && nq=2
		check_eq "$name: one AF_XDP socket per queue" "$(xsk_sockets)" "$nq"
		if [ -n "$topo" ]; then
			# XPS: what is sent from CPU N leaves by tx queue N and
			# lands on the peer's rx queue N.
			ip netns exec "$G" sh -c 'echo 1 >/sys/class/net/hcg/queues/tx-0/xps_cpus;
				echo 2 >/sys/class/net/hcg/queues/tx-1/xps_cpus'
			# shellcheck disable=SC2086
			taskset -c 0 "$SEND" -n "$G" hcg $MIX 2>/dev/null
			# shellcheck disable=SC2086
			taskset -c 1 "$SEND" -n "$G" hcg $MIX 2>/dev/null
			sleep 0.3
		else
			send_mix
		fi
		hc_stop INT
		check_eq "$name: exit status after SIGINT" "$HCRC" 130
		check_eq "$name: per-class counts" "$(class_counts)" "$want"
		check "$name: summary ($jqcheck)" jq_true "$jqcheck" <<<"$(summary)"
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	topo_down
}

COPY='.hook == "xsk" and .xsk.mode == "copy" and .xsk.dropped_before == 0'

# The mix through one socket, in each mode.
test_one_queue() {
	xsk_run "xsk native" "" "$MIX_L4" "$COPY and .mode == \"native\" and .attach == \"netlink\""
	xsk_run "xsk generic" "" "$MIX_L4" "$COPY and .mode == \"generic\"" \
		--xdp-mode generic
	xsk_run "xsk native rules" "" \
		"udp4:9:9:0 tcp4:4:4:0 icmp4:3:3:0 udp6:8:6:2 tcp6:9:0:9 icmp6:1:1:0 arp:2:2:0 l2-other:2:2:0 malformed:5:5:0" \
		"$COPY" -r "udp dport 53 pass" -r "tcp sport 2000 dport 443 pass"
	xsk_run "xsk parse none (rx_drop)" "" "all:43:43:0" "$COPY" --parse none
	xsk_run "xsk busy poll" "" "$MIX_L4" "$COPY and .xsk.busy_poll == 1" --busy-poll
	xsk_run "xsk xdp link" "" "$MIX_L4" "$COPY" --xdp-attach link
}

# The mix through a socket per queue of two: a CPU steered to each.
test_two_queues() {
	if [ "$(nproc)" -lt 2 ]; then
		echo "SKIP xsk on two queues: it steers a CPU to each, and there is one CPU"
		return
	fi
	xsk_run "xsk native, two queues" "$MQ" "$MIX_L4_TWICE" \
		"$COPY and [.xsk.queues[] | [.queue, .packets]] == [[0,43],[1,43]]" \
		--all-queues
	# Generic XDP runs on skbs that veth gives no rx queue: all are on 0.
	xsk_run "xsk generic, two queues" "$MQ" "$MIX_L4_TWICE" \
		"$COPY and [.xsk.queues[] | [.queue, .packets]] == [[0,86],[1,0]]" \
		--all-queues --xdp-mode generic
	xsk_run "xsk native, queue 1 of two" "$MQ" "$MIX_L4" \
		"$COPY and .xsk.not_redirected == 43 and .xsk.queues[0].queue == 1" \
		--queue 1
}

# A full ring: the thread holds off while 12000 frames come; the ring takes
# what it holds, the rest is dropped before the hook and counted.
# rx_settled: the DUT's receive counters stayed the same for 0.3 s (its
# NAPI has taken what was queued to it).
rx_settled() {
	local a b
	a=$(ip -n "$D" -s -j link show "$DEV" | jq -c '.[0].stats64.rx')
	sleep 0.3
	b=$(ip -n "$D" -s -j link show "$DEV" | jq -c '.[0].stats64.rx')
	[ "$a" = "$b" ]
}

test_ring_full() {
	local name="xsk ring full"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if HOOKCMP_PAUSE_AT=xsk-rx hc_start -n "$D" --hook xsk -j -i 0 "$DEV"; then
		# What did not leave hcg (its peer's queue full: a slow DUT)
		# never reached the hook: gen says how many (tx_dropped).
		"$HC" gen -n "$G" hcg -c 12000 -j >"$T/gen" 2>"$T/gen.err"
		wait_until rx_settled
		hc_stop INT
		check "$name: the ring dropped some ($(summary | jq -c .xsk.dropped_before))" \
			jq_true '.xsk.rx_ring_full > 0 and .xsk.dropped_before == .xsk.rx_ring_full + .xsk.rx_dropped' <<<"$(summary)"
		check_eq "$name: seen + dropped before the hook + not sent = 12000" \
			"$(summary | jq --slurpfile g "$T/gen" '.total.packets + .xsk.dropped_before + $g[0].tx_dropped')" \
			12000 "$T/gen" "$T/gen.err"
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	topo_down
}

test_text() {
	local name="xsk text"
	topo_up || { fail "$name: topology"; return; }
	"$HC" -n "$D" --hook xsk -i 0.2 -d 0.7 "$DEV" >"$T/out" 2>"$T/err"
	check_eq "$name: exit status" "$?" 0 "$T/err"
	check "$name: summary header" grep -q "^Summary: xsk (native) on $DEV" "$T/out"
	check "$name: the mode and the ring counters under it" \
		grep -q "^AF_XDP: copy mode, queue 0; dropped before the hook 0 (rx_dropped 0, rx_ring_full 0); rx_fill_ring_empty_descs [0-9]*, rx_invalid_descs 0" "$T/out"
	check "$name: interval lines" grep -q "^receive total" "$T/out"
	topo_down
}

test_bad_input() {
	local name="xsk bad input"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	expect_table "$name" "-n $D --hook xsk" <<EOF
2;$DEV has 1 rx queue, so no queue 1;--queue 1 $DEV
2;--queue and --all-queues exclude each other;--queue 0 --all-queues $DEV
2;--hook xsk has no bare program;--bare $DEV
2;--xsk-mode 'zc': expected one of auto|copy|zerocopy;--xsk-mode zc $DEV
4;Kernel: bind(AF_XDP, queue 0, XDP_ZEROCOPY): Operation not supported;--xsk-mode zerocopy $DEV
4;Kernel: bind(AF_XDP, queue 0, XDP_ZEROCOPY): Operation not supported;--xsk-mode zerocopy --xdp-mode generic $DEV
4;Underlying driver does not support XDP in native mode;lo
EOF
	check_state_same "$name"
	# Another AF_XDP socket on the queue: exit 5, and it keeps running.
	if hc_start -n "$D" --hook xsk -i 0 "$DEV"; then
		expect_table "$name" "-n $D --hook xsk" <<EOF
5;another AF_XDP socket holds queue 0 of $DEV;--xdp-mode generic $DEV
EOF
		check "$name: the first one still runs" kill -0 "$HCPID"
		hc_stop INT
	else
		fail "$name: the first hookcmp did not attach"
	fi
	check_state_same "$name (queue busy)"
	topo_down
	topo_up "$MQ" || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	expect_table "$name" "-n $D --hook xsk" <<EOF
2;$DEV has 2 rx queues, so no queue 2;--queue 2 $DEV
EOF
	check_state_same "$name (two queues)"
	topo_down
}

# A step that fails halfway, and a signal at each step: nothing left.
test_faults_signals() {
	local name="xsk"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	fault_table "$name fault" <<EOF
load --hook xsk
xsk --hook xsk --all-queues
xdp --hook xsk
xdp --hook xsk --xdp-mode generic
run --hook xsk
EOF
	signal_table "$name" <<EOF
load INT --hook xsk
xsk TERM --hook xsk
xdp HUP --hook xsk --xdp-mode generic
xsk-rx INT --hook xsk
detach TERM --hook xsk
EOF
	topo_down
}

# kill -9: the sockets and the XSKMAP die with the process; the XDP
# program was journalled, and cleanup removes it.
test_cleanup() {
	local name="xsk cleanup" args out
	topo_up "$MQ" || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	for args in "" "--xdp-mode generic --all-queues"; do
		# shellcheck disable=SC2086
		if ! hc_start -n "$D" --hook xsk $args -i 0 "$DEV"; then
			fail "$name ($args): did not attach"
			continue
		fi
		kill -KILL "$HCPID"
		wait "$HCPID" 2>/dev/null
		HCPID=
		check_eq "$name ($args): the sockets went with the process" "$(xsk_sockets)" 0
		check "$name ($args): the XDP program stayed" xdp_attached
		check "$name ($args): status calls it stale" \
			grep -q "STALE" <<<"$("$HC" status "$DEV")"
		out=$("$HC" cleanup "$DEV")
		check_eq "$name ($args): cleanup exit status" "$?" 0
		check "$name ($args): cleanup says it detached it" grep -q "detached$" <<<"$out"
		check_state_same "$name ($args)"
	done
	topo_down
}

# The device goes while hookcmp runs: exit 1, the counts so far, no journal.
test_device_gone() {
	local name="xsk device gone" rc
	topo_up || { fail "$name: topology"; return; }
	if hc_start -n "$D" --hook xsk -j -i 0 "$DEV"; then
		"$SEND" -n "$G" hcg udp4:7 2>/dev/null
		sleep 0.2
		ip -n "$D" link del "$DEV"
		wait "$HCPID"
		rc=$?
		HCPID=
		check_eq "$name: exit 1" "$rc" 1
		check "$name: says so" grep -q "$DEV (xsk native) disappeared" "$T/err"
		check_eq "$name: the summary counts what it saw" "$(class_counts)" "udp4:7:7:0"
		check_eq "$name: no journal entry left" "$(ls /run/hookcmp 2>/dev/null)" ""
	else
		fail "$name: did not attach"
	fi
	topo_down
}

run_tests "$@"
