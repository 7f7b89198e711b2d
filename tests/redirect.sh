#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Redirect: a known mix goes in on DEV, the hook redirects it to OUT, and a
# counter at the far end of OUT, in a third (sink) namespace, must count
# every frame of every class. Then the destination MAC rewrite, a target
# that drops, and bad input.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

S=hct$$s	# the sink namespace: OUT's peer lives there
OUT=hco
SINK=hcs
SINKPIDS=
# The counter at the sink end's tc ingress, which every way of redirecting
# passes, bpf_redirect_peer too: a tcx link, or a cls_bpf filter on
# clsact before Linux 6.6.
SINK_TC="--hook tc --tc-attach tcx"
kernel_has 6.6 || SINK_TC="--hook tc"

# 35 frames, and what each class must count at parse l4.
RMIX="udp4:5 tcp4:4 icmp4:3 arp:2 udp6:6 tcp6:3 icmp6:1 lldp:2 vlan-udp4:3
qinq-tcp6:2 udp4-cut:1 ip6-cut:1 ext6-udp:2"
RMIX_L4="udp4:8 tcp4:4 icmp4:3 udp6:8 tcp6:5 icmp6:1 arp:2 l2-other:2 malformed:2"

# Usage errors come before anything touches the system: no root needed.
test_usage() {
	expect_table "redirect usage" "" <<EOF
2;--hook socket cannot redirect: it only keeps or drops what reaches it;--hook socket -a redirect --redirect eth1 eth0
2;--hook socket cannot redirect;--hook socket --socket packet -r 'udp redirect' --redirect eth1 eth0
2;'redirect' needs --redirect DEV;--hook xdp -a redirect eth0
2;'redirect' needs --redirect DEV;--hook tc -r 'tcp dport 80 redirect' eth0
2;the --redirect options need a redirect verdict;--hook xdp --redirect eth1 eth0
2;the --redirect options need a redirect verdict;--hook tc -r 'udp pass' --redirect-dmac 02:00:00:00:00:01 eth0
2;--redirect-peer goes with --hook tc, not --hook xdp;--hook xdp -a redirect --redirect eth1 --redirect-peer eth0
2;--redirect-mode goes with --hook xdp, not --hook tc;--hook tc -a redirect --redirect eth1 --redirect-mode map eth0
2;--redirect-mode 'devmap': expected one of map|ifindex;--hook xdp -a redirect --redirect eth1 --redirect-mode devmap eth0
2;--redirect-dmac '02:00:00:00:00': not a MAC address;--hook tc -a redirect --redirect eth1 --redirect-dmac 02:00:00:00:00 eth0
2;--action goes with a program that classifies (no --bare), not --hook xdp --bare;--hook xdp --bare -a redirect --redirect eth1 eth0
2;--action 'forward': expected one of pass|drop|redirect;--hook xdp -a forward eth0
2;--raw is one fixed live frame: no --method packet or stage, no --flows, no --refresh;gen --raw --refresh eth0
2;"error":"--hook socket cannot redirect;-j --hook socket -a redirect --redirect eth1 eth0
EOF
}

# The rest needs root: without it, only test_usage runs.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP redirect netns tests: they need root"
	run_tests usage
	exit 0
fi

rd_up() {
	topo_up && ip netns add "$S" &&
	ip link add "$OUT" netns "$D" type veth peer name "$SINK" netns "$S" &&
	ip -n "$D" link set "$OUT" addrgenmode none &&
	ip -n "$S" link set "$SINK" addrgenmode none &&
	ip -n "$D" link set "$OUT" up && ip -n "$S" link set "$SINK" up
}

rd_down() {
	local pid
	for pid in $SINKPIDS; do
		kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	SINKPIDS=
	topo_down
	ip netns del "$S" 2>/dev/null
	return 0
}
trap 'rd_down; cleanup_all' EXIT

# lib.sh's snapshot, and OUT: redirecting must not touch it either.
rd_snapshot() {
	snapshot
	ip -n "$D" -d -j link show dev "$OUT" | jq -c '.[0].xdp // null'
	tc -n "$D" -j qdisc show dev "$OUT" | jq -c '[.[] | {kind, handle}]'
}

rd_state_same() { state_same "$1: device and BPF state restored" rd_snapshot "$T/before"; }

# sink_start NAME ARGS...: hookcmp ARGS on the sink end, output in $T/NAME.
sink_start() {
	local name=$1
	shift
	: >"$T/$name.err" # not the last run's "attached to"
	"$HC" -n "$S" "$@" -j -i 0 "$SINK" >"$T/$name.out" 2>"$T/$name.err" &
	SINKPIDS="$SINKPIDS $!"
	wait_for "attached to" "$T/$name.err" || sed 's/^/  /' "$T/$name.err"
}

sink_stop() {
	local pid
	for pid in $SINKPIDS; do
		kill -INT "$pid"
		wait "$pid"
	done
	SINKPIDS=
}

# counts FILE: "name:packets:drop:pass:redirect" per class.
counts() {
	tail -n 1 "$1" | jq -r '.classes | map("\(.name):\(.packets):\(.drop):\(.pass):\(.redirect)") | join(" ")'
}

# seen FILE: "name:packets" per class.
seen() { tail -n 1 "$1" | jq -r '.classes | map("\(.name):\(.packets)") | join(" ")'; }

# The mix's classes, every frame redirected.
all_redirected() { tr ' ' '\n' <<<"$RMIX_L4" | sed 's/:\(.*\)/:\1:0:0:\1/' | paste -sd' '; }

# What the kernel dropped of the redirected frames: at DEV (rx_dropped)
# where it refuses the redirect, as Linux 6.3+ does from the target's XDP
# features, or at OUT (tx_dropped) where it cannot hand them over.
dropped() {
	echo $(($(ip -n "$D" -s -j link show dev "$DEV" | jq '.[0].stats64.rx.dropped') +
		$(ip -n "$D" -s -j link show dev "$OUT" | jq '.[0].stats64.tx.dropped')))
}

# forward NAME NAPI ARGS...: hookcmp ARGS on DEV redirects the mix to
# OUT; the counter on the sink end counts it. NAPI=napi also puts an XDP
# program there: native XDP hands OUT xdp_frames, which a veth takes only
# while its peer runs NAPI.
forward() {
	local name=$1 napi=$2
	shift 2
	kernel_lacks "$name" "$@" && return
	rd_up || { fail "$name: topology"; return; }
	rd_snapshot >"$T/before"
	# shellcheck disable=SC2086
	sink_start sink $SINK_TC
	[ "$napi" = napi ] && sink_start napi --hook xdp -a pass
	if hc_start -n "$D" "$@" -a redirect --redirect "$OUT" -j -i 0 "$DEV"; then
		# shellcheck disable=SC2086
		"$SEND" -n "$G" hcg $RMIX 2>/dev/null
		sleep 0.3
		hc_stop INT
		sink_stop
		check_eq "$name: exit status after SIGINT" "$HCRC" 130
		check_eq "$name: no warning" "$(grep Warning "$T/err")" ""
		check_eq "$name: every class redirected at DEV" \
			"$(counts "$T/out")" "$(all_redirected)"
		check_eq "$name: total" \
			"$(tail -n 1 "$T/out" | jq -c '.total | [.packets, .redirect]')" '[35,35]'
		check_eq "$name: counted at the sink, per class" \
			"$(seen "$T/sink.out")" "$RMIX_L4"
	else
		fail "$name: hookcmp did not attach"
	fi
	rd_state_same "$name"
	rd_down
}

test_forward() {
	forward "xdp native devmap" napi --hook xdp
	forward "xdp native ifindex" napi --hook xdp --redirect-mode ifindex
	forward "xdp generic devmap" none --hook xdp --xdp-mode generic
	forward "tc clsact egress" none --hook tc
	forward "tcx egress" none --hook tc --tc-attach tcx
	forward "tc clsact peer" none --hook tc --redirect-peer
	forward "tcx peer" none --hook tc --tc-attach tcx --redirect-peer
	# the same redirects, attached or found another way
	under_tcg "forward: xdp native link, xdp generic ifindex, tc ingress" \
		"each a redirect the cases above make, attached or found as netns' hooks do" && return
	forward "xdp native link devmap" napi --hook xdp --xdp-attach link
	forward "xdp generic ifindex" none --hook xdp --xdp-mode generic --redirect-mode ifindex
	forward "tc ingress egress" none --hook tc --qdisc ingress
}

# Rules that redirect some classes, pass and drop others; text output has
# the redirect column.
test_mixed() {
	local name="mixed verdicts"
	rd_up || { fail "$name: topology"; return; }
	rd_snapshot >"$T/before"
	# shellcheck disable=SC2086
	sink_start sink $SINK_TC
	if hc_start -n "$D" --hook tc -r 'udp redirect' -r 'ip6 pass' -j -i 0 \
		--redirect "$OUT" "$DEV"; then
		# shellcheck disable=SC2086
		"$SEND" -n "$G" hcg $RMIX 2>/dev/null
		sleep 0.3
		hc_stop INT
		sink_stop
		check_eq "$name: per class at DEV" "$(counts "$T/out")" \
			"udp4:8:0:0:8 tcp4:4:4:0:0 icmp4:3:3:0:0 udp6:8:0:0:8 tcp6:5:0:5:0 icmp6:1:0:1:0 arp:2:2:0:0 l2-other:2:2:0:0 malformed:2:2:0:0"
		check_eq "$name: only UDP at the sink" "$(seen "$T/sink.out")" \
			"udp4:8 udp6:8"
	else
		fail "$name: hookcmp did not attach"
	fi
	"$HC" -n "$D" --hook xdp --xdp-mode generic -a redirect --redirect "$OUT" \
		-i 0.2 -d 0.5 "$DEV" >"$T/out" 2>"$T/err"
	check "$name: text intervals have redirect pps" grep -q "^receive total .* redirect pps$" "$T/out"
	check "$name: text summary has the redirect column" \
		grep -qE "^class +packets +bytes +drop +pass +redirect$" "$T/out"
	rd_state_same "$name"
	rd_down
}

# The destination MAC: unchanged unless --redirect-dmac, then the sink's
# own, which its stack takes: a UDP socket there counts only then. Into
# the peer, the kernel marks every frame for the host, whatever its MAC.
test_dmac() {
	local name="dmac" mac args want
	rd_up || { fail "$name: topology"; return; }
	ip -n "$S" addr add 192.0.2.2/24 dev "$SINK"
	mac=$(ip -n "$S" -j link show dev "$SINK" | jq -r '.[0].address')
	rd_snapshot >"$T/before"
	while IFS=';' read -r want args; do
		kernel_lacks "$name: $args" $args && continue
		sink_start sink --hook socket
		sink_start napi --hook xdp -a pass
		# shellcheck disable=SC2086
		if hc_start -n "$D" ${args/MAC/$mac} -a redirect --redirect "$OUT" -j -i 0 "$DEV"; then
			"$SEND" -n "$G" --dst4 192.0.2.2 hcg udp4:5 2>/dev/null
			sleep 0.3
			hc_stop INT
			sink_stop
			check_eq "$name: $args: what the sink's UDP socket got" \
				"$(seen "$T/sink.out")" "$want"
		else
			fail "$name: $args: hookcmp did not attach"
			sink_stop
		fi
	done <<EOF
;--hook tc
;--hook xdp
udp4:5;--hook tc --redirect-dmac MAC
udp4:5;--hook tc --tc-attach tcx --redirect-dmac MAC
udp4:5;--hook xdp --redirect-dmac MAC
udp4:5;--hook xdp --redirect-mode ifindex --redirect-dmac MAC
udp4:5;--hook tc --redirect-peer
EOF
	rd_state_same "$name"
	rd_down
}

# Native XDP to a veth whose peer runs no NAPI: run says so before it
# starts (from the XDP features the kernel reports since Linux 6.3), and
# the kernel drops every frame.
test_no_napi() {
	local name="no napi" before
	rd_up || { fail "$name: topology"; return; }
	rd_snapshot >"$T/before"
	# shellcheck disable=SC2086
	sink_start sink $SINK_TC
	before=$(dropped)
	if hc_start -n "$D" --hook xdp -a redirect --redirect "$OUT" -j -i 0 "$DEV"; then
		if kernel_has 6.3; then
			check "$name: warns, naming the cause" grep -q \
				"Warning: $OUT takes no XDP frames: its veth peer runs no NAPI (no XDP program there, GRO off)" "$T/err"
		else
			echo "SKIP $name: the warning: the kernel reports XDP features from Linux 6.3, this is $(uname -r)"
		fi
		# shellcheck disable=SC2086
		"$SEND" -n "$G" hcg $RMIX 2>/dev/null
		sleep 0.3
		hc_stop INT
		sink_stop
		check_eq "$name: the program still redirected all" \
			"$(tail -n 1 "$T/out" | jq .total.redirect)" 35
		check_eq "$name: the sink got none" "$(seen "$T/sink.out")" ""
		check_eq "$name: the kernel counts them dropped" "$(($(dropped) - before))" 35
	else
		fail "$name: hookcmp did not attach"
	fi
	ip -n "$D" link set "$OUT" down
	"$HC" -n "$D" --hook tc -a redirect --redirect "$OUT" -d 0.1 -i 0 "$DEV" >/dev/null 2>"$T/err"
	check "$name: a target that is down is named" grep -q \
		"Warning: $OUT is down: the kernel drops what is redirected to it" "$T/err"
	rd_state_same "$name"
	rd_down
}

# A router edits what it forwards in place (MACs, TTL), and live frames
# come back to the generator recycled with those edits (Linux 6.4+: skbs
# built from XDP frames go back to their page pool): only gen --refresh,
# which writes the headers into every frame again, gets them all through.
# rx_settled NS DEV: until DEV's received count holds for half a second (a
# slow machine is still taking what the generator left in its queue).
rx_settled() {
	local a b i
	b=$(ip -n "$1" -s -j link show dev "$2" | jq '.[0].stats64.rx.packets')
	for i in $(seq "$WAIT_TICKS"); do
		sleep 0.5
		a=$b
		b=$(ip -n "$1" -s -j link show dev "$2" | jq '.[0].stats64.rx.packets')
		[ "$a" = "$b" ] && return 0
	done
	return 1
}

test_refresh() {
	local name="gen through a router" mac smac n
	rd_up || { fail "$name: topology"; return; }
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	smac=$(ip -n "$S" -j link show dev "$SINK" | jq -r '.[0].address')
	ip -n "$D" addr add 198.18.0.2/15 dev "$DEV"
	ip -n "$D" route add 198.51.100.0/24 dev "$OUT"
	ip -n "$D" neigh add 198.51.100.2 lladdr "$smac" dev "$OUT" nud permanent
	ip netns exec "$D" sysctl -qw net.ipv4.ip_forward=1
	rd_snapshot >"$T/before"
	for args in "--refresh" ""; do
		# shellcheck disable=SC2086
		sink_start sink $SINK_TC
		# XDP on DEV: its NAPI takes live frames.
		if hc_start -n "$D" --hook xdp -a pass -j -i 0 "$DEV"; then
			# shellcheck disable=SC2086
			# What left hcg: a slow machine (TCG) may drop some at
			# DEV's full queue, which is not what this tests.
			"$HC" gen -n "$G" hcg --dst-mac "$mac" --dst 198.51.100.2 \
				-c 20000 --flows 8 --allow-drops -j $args >"$T/gen.json" 2>/dev/null
			n=$(jq -s '.[-1].packets // 0' "$T/gen.json")
			rx_settled "$D" "$DEV"
			hc_stop INT
			sink_stop
			check "$name ${args:-without --refresh}: frames left hcg ($n of 20000)" \
				[ "$n" -gt 0 ]
			check_eq "$name ${args:-without --refresh}: DEV passed all it was sent to the stack" \
				"$(tail -n 1 "$T/out" | jq .total.pass)" "$n"
			if [ -n "$args" ]; then
				check_eq "$name --refresh: forwarded, all at the sink" \
					"$(seen "$T/sink.out")" "udp4:$n"
			elif ! need_live "$name without --refresh: fewer at the sink"; then
				: # AF_PACKET's frames are not recycled
			elif kernel_has 6.4; then
				check "$name without --refresh: fewer at the sink (the router's MACs came back)" \
					[ "$(tail -n 1 "$T/sink.out" | jq .total.packets)" -lt "$n" ]
			else
				# An skb built from an XDP frame left its page pool.
				check_eq "$name without --refresh: all at the sink too (before Linux 6.4 forwarded frames are not recycled)" \
					"$(seen "$T/sink.out")" "udp4:$n"
			fi
		else
			fail "$name ${args:-without --refresh}: hookcmp did not attach"
			sink_stop
		fi
	done
	rd_state_same "$name"
	rd_down
}

# Targets the kernel would drop everything for: exit 2, nothing changed.
test_bad_target() {
	local name="bad target"
	rd_up || { fail "$name: topology"; return; }
	ip -n "$D" link add hcx type bridge
	ip -n "$D" link add hcv0 type veth peer name hcv1
	rd_snapshot >"$T/before"
	expect_table "$name" "-n $D" <<EOF
2;no redirect target 'nosuch0' in network namespace '$D': it must be in the namespace of $DEV;--hook xdp -a redirect --redirect nosuch0 $DEV
2;no redirect target '$SINK' in network namespace '$D';--hook tc -a redirect --redirect $SINK $DEV
2;--redirect-peer needs a veth or netkit target: hcx is a bridge;--hook tc -a redirect --redirect-peer --redirect hcx $DEV
2;--redirect-peer needs a veth or netkit target: lo is a device without a peer;--hook tc --tc-attach tcx -a redirect --redirect-peer --redirect lo $DEV
2;the peer of hcv0 is in this namespace too;--hook tc -a redirect --redirect-peer --redirect hcv0 $DEV
2;"error":"no redirect target 'nosuch0';-j --hook tc -a redirect --redirect nosuch0 $DEV
EOF
	rd_state_same "$name"
	rd_down
}

run_tests "$@"
