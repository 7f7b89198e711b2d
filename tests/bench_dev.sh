#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hookcmp bench --dev as root: a "real device" played by a veth pair with
# two queues each way between two namespaces made here, threaded NAPI on
# the DUT side, one NAPI kthread per CPU. Traffic from hookcmp gen in the
# other namespace, through --gen-cmd or running on its own (--external).
# No test here asserts a timing; rows are checked for their accounting,
# the device for being as it was, and bad input for its exit and words.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP bench --dev tests: they need root"
	exit 0
fi
need ethtool "bench --dev tests (GRO, channels, ethtool -S)" || exit 0

HC=$PWD/hookcmp
# Not hcd: the veth bench's split mode pins every "napi/hcd-*" kthread it
# finds on the machine. Short enough that "napi/$DEV-" fits in a comm.
DEV=hq$(($$ % 10000))
# For a duration, not a count: a fast machine sends any count in a few samples.
GEN="ip netns exec $G $HC gen hcg --threads 2 --duration 0.6 --allow-drops --dst-mac \$HC_DST_MAC \${HC_DST_IP:+--dst \$HC_DST_IP} -j"
SHORT="--rounds 2"
# A tc row for tests that need one: tcx from Linux 6.6, else clsact's.
if kernel_has 6.6; then TC=tcx; else TC=tc-clsact; fi

# The multi-queue pair; GRO on, so that the veth takes live frames for
# the rows without XDP; threaded NAPI, a kthread on each CPU.
mq_up() {
	ip netns add "$G" && ip netns add "$D" &&
	ip link add hcg netns "$G" numtxqueues 2 numrxqueues 2 type veth \
		peer name "$DEV" netns "$D" numtxqueues 2 numrxqueues 2 &&
	ip -n "$G" link set hcg addrgenmode none &&
	ip -n "$D" link set "$DEV" addrgenmode none &&
	ip -n "$G" link set hcg up && ip -n "$D" link set "$DEV" up &&
	ip -n "$D" link set lo up &&
	ip -n "$D" addr add 198.18.0.2/15 dev "$DEV" &&
	ip netns exec "$D" ethtool -K "$DEV" gro on &&
	ip netns exec "$D" sh -c "echo 1 >/sys/class/net/$DEV/threaded" &&
		pin_napi
}

# One NAPI kthread per CPU, as IRQ affinity would spread a NIC's queues.
# The kernel makes new ones when NAPI comes back (--tune): pinned again.
pin_napi() {
	local i=0 p
	for p in $(pgrep "^napi/$DEV-"); do
		taskset -pc $((i % $(nproc))) "$p" >/dev/null
		i=$((i + 1))
	done
	[ "$i" -eq 2 ]
}

# Everything bench could change in the DUT's namespace: XDP, qdiscs,
# filters, GRO, threaded NAPI, channels, iptables, ipset sets, nftables,
# links, the journal, and hookcmp's programs held here.
dut_state() {
	ip -n "$D" -d -j link show | jq -c '[.[] | {ifname, xdp}]'
	tc -n "$D" -j qdisc show dev "$DEV" | jq -c '[.[] | {kind, handle}]'
	tc -n "$D" -j filter show dev "$DEV" ingress | jq -c '[.[] | {pref, kind}]'
	ip netns exec "$D" ethtool -k "$DEV" | grep generic-receive-offload
	ip netns exec "$D" cat "/sys/class/net/$DEV/threaded"
	ip netns exec "$D" ethtool -l "$DEV" | tail -n 5
	ip netns exec "$D" iptables -t raw -S
	ip netns exec "$D" ipset list -n 2>/dev/null
	ip netns exec "$D" nft list ruleset 2>/dev/null
	ls /run/hookcmp 2>/dev/null
	hc_prog_ids
	pgrep -f "$HC gen" >/dev/null && echo "a generator still runs"
	return 0
}
check_dut_same() { state_same "$1: the DUT is as it was" dut_state "$T/dut" 30; }

# Rows that add up within 0.1% of what was generated (or, with nothing to
# say what was sent, of the device's rx_packets) are valid; others are
# unverified; none claims more.
CLOSES='def closes: (if .generated == null then .device.rx_packets else .generated end) as $w |
	(($w - .seen - .dropped_before) | fabs) <= 0.001 * $w;'

mq_up || { fail "bench --dev: cannot build the multi-queue veth pair"; exit 1; }
# name.sh PID: what bench run PID names its nft table, iptables chain and
# comment, and ipset set (hc_run_name): hcPID-PIDNS-START, in hex.
cat >"$T/name.sh" <<'EOF2'
#!/bin/sh
printf 'hc%x-%x-%x' "$1" "$(stat -L -c %i "/proc/$1/ns/pid")" "$(cut -d' ' -f22 "/proc/$1/stat")"
EOF2
chmod +x "$T/name.sh"
dut_state >"$T/dut"
MAC=$(ip -n "$D" -j link show "$DEV" | jq -r '.[0].address')

test_gen_cmd() {
	local s json name missing= tool
	# gen without live frames sends by AF_PACKET, whose frames a veth
	# with native XDP loses in its ring before any counter: unverified
	need_live "bench --dev --gen-cmd: every scenario's rows valid" || return 0
	for tool in iptables nft; do
		command -v $tool >/dev/null && continue
		echo "SKIP bench --dev hooks: the $tool row (not installed)"
		missing="$missing|cannot run $tool"
	done
	if [ $TC != tcx ]; then
		echo "SKIP bench --dev hooks: the tcx rows (tcx needs Linux 6.6, this kernel is $(uname -r))"
		missing="$missing|tcx links need Linux 6.6"
	fi
	for s in hooks static-key; do
		name="bench --dev --gen-cmd --scenario $s"
		json=$T/gen-$s.json
		# shellcheck disable=SC2086
		"$HC" -n "$D" bench --dev "$DEV" --scenario "$s" $SHORT --per-cpu \
			--gen-cmd "$GEN" -o "$json" >"$T/out" 2>"$T/err"; cat "$T/out"
		check_eq "$name: exit status" "$?" 0 "$T/err"
		# AF_XDP rows bind one socket, on queue 0: the other queue's
		# frames reach no socket, and the sum cannot close.
		load_skips "$name" "$json"
		check_eq "$name: every row valid" "$(jq -c --arg m "${missing#|}" --arg load "$LOAD_REASON" '[.rows[] |
			select(.name | startswith("xsk-") | not) |
			select(.status != "valid") | select($m == "" or (.reason | test($m) | not)) |
			select(.reason // "" | test($load) | not) |
			{name, status, reason}]' "$json")" "[]"
		check "$name: AF_XDP rows on one of two queues are unverified" jq_true \
			'all(.rows[] | select(.name | startswith("xsk-")); .status == "unverified")' "$json"
		# The receive CPUs sampled whole: every row that ran proved its path.
		check "$name: every row that ran had its path checked (or too few samples, above), and passed" \
			jq_true --arg few "$LOAD_UNCHECKED" \
			'any(.rows[]; .path.checked) and
			 all(.rows[]; .path.checked or (.valid | not) or (.path.why // "" | test($few))) and
			 all(.rows[] | select(.path.checked); .path.missing == [] and .path.unexpected == [])' "$json"
		check "$name: every row ran every round, no generator row" jq_true \
			'(.rows | length) >= 5 and all(.rows[]; [.rounds[].round] == [1, 2] and
			 (.flags | index("generator") | not))' "$json"
		check "$name: every round accounted for by the device's counters" jq_true \
			"$CLOSES"' all(.rows[] | select(.name | startswith("xsk-") | not) | .rounds[];
			 .generated > 0 and closes and
			 .dropped_before == .device.rx_dropped + .device.rx_missed_errors +
			 .device.rx_fifo_errors + .device.rx_over_errors)' "$json"
		# A round with no frame in its steady part (a receive side the
		# load kept from running) has no rate to add up or divide.
		check "$name: per-CPU rates add up to the row's" jq_true \
			'[.rows[] | select(.rounds[0].cpus) | all(.rounds[] | select(.mpps);
			 ([.cpus[].mpps] | add) as $sum | (($sum - .mpps) | fabs) <= 1e-4 * .mpps)] |
			 length >= 3 and all' "$json"
		# A NAPI thread the load kept from running for a whole window
		# leaves its CPU out of that round: some row must show both.
		if jq_true '[.rows[] | select(.rounds[0].cpus) | any(.rounds[]; (.cpus | length) == 2)] |
			length >= 3 and any' "$json"; then
			pass "$name: per-CPU rates show both CPUs"
		else
			fail "$name: per-CPU rates show both CPUs"
			grep "receive work" "$T/err"
			jq -c '.rows[] | select(.rounds[0].cpus) | [.name, [.rounds[].cpus]]' "$json"
		fi
		check "$name: the rate from steady samples inside the window" jq_true \
			'all(.rows[].rounds[]; (.samples | length) >= 4 and
			 ([.samples[].t] | . == sort) and .steady[0] > 0 and
			 .steady[1] < .samples[-1].t and .secs > 0 and
			 (.secs - (.steady[1] - .steady[0]) | fabs) < 1e-4)' "$json"
		# Two NAPI kthreads, one on each CPU: nothing to spare for bench.
		check "$name: the cost is the receive CPUs' busy time per packet" jq_true \
			'.device.rx_cpus_counted == "0-1" and .device.pinned_cpus == "" and
			 all(.rows[].rounds[] | select(.mpps); . as $r | ($r.samples | map(.t)) as $t |
				$r.samples[$t | indices($r.steady[0])[0]] as $f |
				$r.samples[$t | indices($r.steady[1])[0]] as $l |
				.cpu_ns > 0 and ((.cpu_ns - ($l.cpu_ns - $f.cpu_ns)) | fabs) <= 1e-3 * .cpu_ns and
				.pkt_ns > 0)' "$json"
		check "$name: no CPU to spare, said" \
			grep -qF "Warning: no CPU to spare from the receive CPUs (0-1)" "$T/err"
		if [ "$s" = hooks ] && [ -z "$missing" ]; then
			check "$name: iptables and nft counters read at the windows' edges only" jq_true \
				'[.rows[] | select(.name == "iptables-raw" or .name == "nft-ingress") | .rounds[] |
				 (.samples[1:-1] | all(.seen == 0)) and .samples[-1].seen > 0] | length == 4 and all' "$json"
		fi
		check "$name: device recorded" jq_true --arg mac "$MAC" \
			'.topology == "dev" and .cpu_mode == null and .device.driver == "veth" and
			 .device.rx_queues == 2 and .device.dst_mac == $mac and
			 .device.dst_ip == "198.18.0.2" and .device.rx_cpus_seen == 2' "$json"
		check_eq "$name: every ethtool statistic, by name" \
			"$(jq -c '.rows[0].rounds[0].ethtool | keys_unsorted' "$json")" \
			"$(ip netns exec "$D" ethtool -S "$DEV" | tail -n +2 |
				sed 's/^ *\([^:]*\):.*/\1/' | jq -Rsc 'split("\n") | map(select(length > 0))')"
		check "$name: the table shows the device's counters" \
			grep -qE "^  [a-z].* rx_queue_1_xdp_packets [0-9]+" "$T/out"
		check "$name: the header: queues, where NAPI runs, where to send" \
			grep -qF "2 RX queues, GRO on, threaded NAPI on; receive work on napi/$DEV" "$T/err"
		check "$name: the header names the destination" \
			grep -qF "send to dst MAC $MAC, dst IP 198.18.0.2, UDP dport 9" "$T/err"
		check_dut_same "$name"
	done
	check "bench --dev hooks: rows that need frames addressed to the DUT are named" \
		grep -qF "(socket-udp, iptables-raw, socket-udp-bare see only frames addressed so)" \
		<("$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks socket-udp,iptables-raw \
			--gen-cmd true -j 2>&1 >/dev/null)
	check "bench --dev static-key: no second device left" not grep -q hcx <(ip -n "$D" -o link)
}

# Traffic that runs on its own; the rows measure a window of it each.
# dut_rx: frames that reached the DUT, taken or dropped.
dut_rx() {
	ip netns exec "$D" sh -c "cd /sys/class/net/$DEV/statistics && echo \$((\$(cat rx_packets) + \$(cat rx_dropped)))"
}

test_external() {
	local name="bench --dev --external" json=$T/ext.json n
	# Traffic until the last window is over (SIGINT below): longer than
	# bench takes, also under an emulated CPU.
	ip netns exec "$G" "$HC" gen hcg --threads 2 --duration 900 --allow-drops --dst-mac "$MAC" -j >"$T/bg.json" &
	local bg=$! rx0
	# The first row's warm-up must see traffic: wait until it flows (a
	# slow machine takes a while to start the generator's threads).
	rx0=$(dut_rx)
	for n in $(seq "$WAIT_TICKS"); do
		[ "$(dut_rx)" -gt $((rx0 + 1000)) ] && break
		sleep 0.1
	done
	"$HC" -n "$D" bench --dev "$DEV" --external --settle 0.2 --window 0.5 --rounds 2 \
		--hooks xdp-native,$TC,stack --per-cpu -o "$json" >"$T/out" 2>"$T/err"; cat "$T/out"
	check_eq "$name: exit status" "$?" 0 "$T/err"
	kill -INT "$bg"
	wait "$bg"
	check "$name: nothing says what was sent" jq_true \
		'.device.traffic == "external" and .device.window_s == 0.5 and
		 all(.rows[]; .rounds | length == 2) and
		 all(.rows[].rounds[]; .generated == null and .device.rx_packets + .dropped_before > 0)' "$json"
	check "$name: the window: 0.5 s of 100 ms samples" jq_true \
		'all(.rows[].rounds[]; (.samples | length) >= 5 and .samples[-1].t >= 0.5 and
		 .steady[0] == 0)' "$json"
	check "$name: rows whose counters close are valid, the others unverified" jq_true \
		"$CLOSES"' all(.rows[]; .status == (if all(.rounds[]; closes) then "valid" else "unverified" end)
		 and ((.status == "unverified") == (.reason // "" | test("^round [0-9]+: rx_packets [0-9]+ != seen [0-9]+ \\+ dropped before [0-9]+$"))))' "$json"
	n=$(jq '[.rows[].rounds[] | select(.dropped_before > 0)] | length' "$json")
	if [ "$n" -gt 0 ]; then
		check "$name: drops before the hook leave a veth row unverified, numbers shown" jq_true \
			'all(.rows[]; if any(.rounds[]; .dropped_before > 0) then .status == "unverified" and
			 (.valid | not) and (.flags | index("unverified")) else true end)' "$json"
	else
		echo "SKIP $name: no drops before the hook this time, so nothing to leave unverified"
	fi
	check_dut_same "$name"

	"$HC" -n "$D" bench --dev "$DEV" --external --window 0.3 --rounds 1 --hooks $TC \
		-o "$json" >/dev/null 2>&1
	check_eq "$name without traffic: exit status (every row INVALID)" "$?" 1
	check_eq "$name without traffic: INVALID, no packets" \
		"$(jq -c '[.rows[] | .reason] | unique' "$json")" '["round 1: no packets in the window"]'
}

test_bad_input() {
	local name out json=$T/bad.json
	name="bench --dev: a --gen-cmd that fails or says no count"
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks tc-ingress,stack,tc-clsact -o "$json" \
		--gen-cmd 'case $HC_ROW in tc-ingress) echo first >&2; echo oops >&2; exit 3;; stack) echo hello;; *) '"$GEN"';; esac' \
		>/dev/null 2>&1
	check_eq "$name: exit status" "$?" 0
	check_eq "$name: those rows INVALID, saying why" \
		"$(jq -c '[.rows[] | select(.status == "invalid") | {name, reason}]' "$json")" \
		'[{"name":"tc-ingress","reason":"warm-up round: --gen-cmd failed (exit 3), saying: oops"},{"name":"stack","reason":"warm-up round: --gen-cmd printed no count (a hookcmp gen -j summary'"'"'s \"packets\", or a line \"packets N\")"}]'
	check "$name: the other rows ran" jq_true \
		'[.rows[] | select(.status != "invalid") | .name] == ["xdp-native","tc-clsact","tc-clsact-bare"]
		 and all(.rows[] | select(.status != "invalid"); (.rounds | length) == 1)' "$json" ||
		jq -c '.rows[] | [.name, .status, .reason]' "$json"
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks $TC --gen-cmd "$GEN >/dev/null; echo packets 1234" \
		-o "$json" >/dev/null 2>&1
	check "bench --dev: 'packets N' is a count too (and 1234 is not what was sent)" jq_true \
		'all(.rows[].rounds[]; .generated == 1234) and all(.rows[]; .status == "unverified")' "$json"

	# A burst that ends within a sample or two: no steady rate in it.
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks $TC -o "$json" \
		--gen-cmd "${GEN/--duration 0.6/--count 100}" >/dev/null 2>&1
	check_eq "bench --dev: a burst too short for three samples: exit status" "$?" 1
	check "bench --dev: a burst too short: the window it measured and how to lengthen it" jq_true \
		'all(.rows[]; .reason | test("^warm-up round: traffic for [0-9.]+ s, under three 0.1 s samples: too short for a steady rate [(]make --gen-cmd send for longer, e.g. hookcmp gen --duration 1[)]$"))' "$json"

	# A frame, a second of nothing, a frame: none in the steady part
	# (under load, a receive side that did not run): no rate, not 0, and
	# no cost.
	local one=${GEN/--duration 0.6/--count 1}
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks $TC -o "$json" \
		--gen-cmd "$one >/dev/null; sleep 1; $one >/dev/null; echo packets 2" >/dev/null 2>&1
	check_eq "bench --dev: two frames a second apart: exit status" "$?" 0
	check "bench --dev: two frames a second apart: no rate and no cost, for the rounds and the row" jq_true \
		'all(.rows[]; .mpps.median == null and .ns.median == null and
		 all(.rounds[]; .seen == 2 and .mpps == null and .pkt_ns == null and (has("cpus") | not)))' "$json"

	# A device without native XDP: a macvlan on the DUT's veth.
	name="bench --dev on a macvlan"
	if ip -n "$D" link add link "$DEV" name hcm type macvlan mode passthru 2>/dev/null &&
		ip -n "$D" link set hcm up; then
		"$HC" -n "$D" bench --dev hcm --rounds 1 --hooks xdp-native,xdp-generic,$TC \
			--gen-cmd "$GEN" -o "$json" >/dev/null 2>&1
		check_eq "$name: exit status" "$?" 0
		check "$name: xdp-native rows INVALID with the kernel's words" jq_true \
			'[.rows[] | select(.name | startswith("xdp-native"))] | length == 2 and
			 all(.[]; .status == "invalid" and
			 (.reason | test("^setup: xdp \\(native\\).*Kernel: .*native")))' "$json"
		# Unverified: frames the lower veth dropped are not the macvlan's.
		check "$name: the rest ran" jq_true \
			'[.rows[] | select(.name | startswith("xdp-native") | not) |
			 select(.status == "invalid" or (.rounds | length) != 1)] == []' "$json"
		ip -n "$D" link del hcm
	else
		echo "SKIP $name: no macvlan here"
	fi

	expect_table "bench --dev usage" bench <<EOF
2;--dev needs --gen-cmd CMD (bench runs it for every window) or --external;--dev $DEV
2;--dev needs --gen-cmd CMD;--dev $DEV --external --gen-cmd true
2;--gen-cmd goes with --dev DEV;--gen-cmd true
2;--external goes with --dev DEV;--external
2;--tune goes with --dev DEV;--tune gro=on
2;--window and --settle go with --external;-n $D --dev $DEV --gen-cmd true --window 1
2;--cpu-mode is the veth bench's;-n $D --dev $DEV --gen-cmd true --cpu-mode split
2;--scenario forward needs bench's own topology;-n $D --dev $DEV --gen-cmd true --scenario forward
2;--tune 'gro=maybe': expected on or off;-n $D --dev $DEV --gen-cmd true --tune gro=maybe
2;--tune 'mtu=9000': expected gro=on|off;-n $D --dev $DEV --gen-cmd true --tune mtu=9000
2;--tune 'channels=0': expected a count of 1 or more;-n $D --dev $DEV --gen-cmd true --tune channels=0
2;network namespace 'hcnope$$': No such file or directory;-n hcnope$$ --dev $DEV --gen-cmd true
2;no device 'hcnope' in network namespace '$D';-n $D --dev hcnope --gen-cmd true
2;no device 'hcg' in this network namespace, but in network namespace '$G' (hookcmp -n NAME bench --dev hcg);--dev hcg --gen-cmd true
2;--other-dev $DEV is the device under test;-n $D --dev $DEV --gen-cmd true --other-dev $DEV
EOF

	# The default-route device, from inside its namespace as run refuses it.
	ip -n "$D" route add default via 198.18.0.1 dev "$DEV"
	out=$(ip netns exec "$D" "$HC" bench --dev "$DEV" --rounds 1 --hooks $TC --gen-cmd "$GEN" 2>&1)
	check_eq "bench --dev on the default-route device: exit 2" "$?" 2
	check "bench --dev on the default-route device: says so" \
		grep -qF "$DEV holds this namespace's default route" <<<"$out"
	out=$(ip netns exec "$D" "$HC" bench --dev "$DEV" --rounds 1 --hooks $TC --gen-cmd "$GEN" \
		--force -j 2>/dev/null)
	check "bench --dev --force on the default-route device: measures it" jq_true \
		'all(.rows[]; .status != "invalid" and (.rounds | length) == 1)' <<<"$out"
	ip -n "$D" route del default
	check_dut_same "bench --dev bad input"
}

# --tune changes what it says for the run, and puts it back. A veth's XDP
# wants as many RX queues as its peer has TX queues, and without GRO or
# XDP it has no NAPI: GRO is tuned with an XDP row, channels with a tc row.
test_tune() {
	local name="bench --dev --tune" json=$T/tune.json
	local look="ip netns exec $D sh -c 'ethtool -k $DEV; ethtool -l $DEV; cat /sys/class/net/$DEV/threaded' >>$T/seen"
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks xdp-native --tune threaded=off,gro=off \
		--gen-cmd "$look; $GEN" -o "$json" >/dev/null 2>&1
	check_eq "$name threaded=off,gro=off: exit status" "$?" 0
	check "$name: GRO off during the windows" grep -q "generic-receive-offload: off" "$T/seen"
	check "$name: threaded NAPI off during the windows" grep -qx 0 "$T/seen"
	check "$name: recorded" jq_true '.device.tune == "threaded=off,gro=off"' "$json"
	check_eq "$name: rows not valid" "$(jq -c '[.rows[] | select(.status != "valid") |
		{name, status, reason}]' "$json")" "[]"
	check_dut_same "$name threaded=off,gro=off"
	: >"$T/seen"
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks $TC --tune channels=1 \
		--gen-cmd "$look; $GEN" -o "$json" >/dev/null 2>&1
	check_eq "$name channels=1: exit status" "$?" 0
	check_eq "$name: one RX channel during the windows" \
		"$(grep -A 5 'Current hardware' "$T/seen" | grep -m1 '^RX:' | tr -d '\t ')" "RX:1"
	check_dut_same "$name channels=1"
	# Without --tune none of it changes, during the run either.
	: >"$T/seen"
	"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks xdp-native \
		--gen-cmd "$look; $GEN" >/dev/null 2>&1
	check "bench --dev without --tune: GRO stays on" \
		grep -q "generic-receive-offload: on" "$T/seen"
	check "bench --dev without --tune: threaded NAPI stays on" grep -qx 1 "$T/seen"
	check_eq "bench --dev without --tune: two RX channels stay" \
		"$(grep -A 5 'Current hardware' "$T/seen" | grep -m1 '^RX:' | tr -d '\t ')" "RX:2"
	pin_napi
}

# hookcmp run --per-cpu, live.
test_run_per_cpu() {
	local name="hookcmp run --per-cpu"
	ip netns exec "$G" "$HC" gen hcg --threads 2 --duration 30 --dst-mac "$MAC" >/dev/null 2>&1 &
	local bg=$!
	"$HC" -n "$D" --hook xdp --per-cpu -j -i 0.5 -d 2.2 "$DEV" >"$T/run.json" 2>/dev/null
	check_eq "$name: exit status" "$?" 0
	"$HC" -n "$D" --hook xdp --per-cpu -i 0.5 -d 1.2 "$DEV" >"$T/run.txt" 2>/dev/null
	kill -INT "$bg"
	wait "$bg"
	check "$name: JSON intervals with both CPUs" jq_true -s \
		'[.[] | select(.type == "interval")] | length >= 3 and
		 all(.[]; (.cpus | length) == 2 and all(.cpus[]; .pps > 0) and
		 ((([.cpus[].pps] | add) - .total.pps) | fabs) <= 2)' "$T/run.json"
	check "$name: text lines per CPU" grep -qE "^cpu 1 +[0-9,]+ pps$" "$T/run.txt"
	check_dut_same "$name"
}

# Signals end a --dev run with the report so far; kill -9 leaves what a
# row attached, and hookcmp cleanup takes it away (and puts --tune back).
test_signals() {
	local sig rc row scen pid i
	for sig in INT TERM; do
		"$HC" -n "$D" bench --dev "$DEV" --rounds 50 --gen-cmd "$GEN" -o "$T/s.json" \
			>/dev/null 2>&1 &
		pid=$!
		sleep 4
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		check_eq "bench --dev SIG$sig: exit status" "$rc" "$([ $sig = INT ] && echo 130 || echo 143)"
		check_dut_same "bench --dev SIG$sig"
	done
	while read -r scen row; do
		rm -f "$T/mark"
		"$HC" -n "$D" bench --dev "$DEV" --scenario "$scen" --hooks "$row" --rounds 1 \
			--tune threaded=off,gro=off \
			--gen-cmd "if [ \"\$HC_ROW\" = $row ]; then touch $T/mark; exec sleep 30; fi; $GEN" \
			>/dev/null 2>&1 &
		pid=$!
		for i in $(seq 600); do
			[ -e "$T/mark" ] && break
			sleep 0.1
		done
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		check "bench --dev kill -9 during $row: something was left" \
			not wait_same dut_state "$T/dut" 1
		"$HC" -n "$D" cleanup "$DEV" >"$T/clean" 2>&1
		check_eq "bench --dev kill -9 during $row: cleanup's exit" "$?" 0
		# The second device is another device: cleanup --all takes it.
		"$HC" cleanup --all >>"$T/clean" 2>&1
		check_dut_same "bench --dev kill -9 during $row, then cleanup"
	done <<EOF
hooks xdp-native
hooks tc-clsact
hooks iptables-raw
hooks nft-ingress
static-key ingress-other-dev
static-key ingress+u32
scale xdp-native-set-10
scale nft-set-10
scale nft-rules-10
scale iptables-rules-10
scale ipset-10
EOF
}

# scale's ipset row names its set by bench's tag (name.sh). A set of
# that name that bench did not make (planted by --gen-cmd in another
# row's first window, the warm-up's, as a killed run with the same pid
# would have left it) fails the row's later setups, saying why, and bench
# leaves it and what it holds alone.
test_ipset_not_ours() {
	local name="bench --dev ipset, a set not bench's" json=$T/ipset.json set rc
	need ipset "$name" || return 0
	rm -f "$T/planted"
	"$HC" -n "$D" bench --dev "$DEV" --scenario scale --sizes 1 --hooks nft-set,iptables-ipset \
		$SHORT --no-path-check -o "$json" --gen-cmd "if [ \"\$HC_ROW\" = nft-set-1 ] && [ ! -e $T/planted ]; then
			n=\$($T/name.sh \$PPID) && ip netns exec $D ipset -exist create \$n hash:net &&
			ip netns exec $D ipset -exist add \$n 192.0.2.0/24 &&
			echo \$n >$T/planted; fi; $GEN" >"$T/out" 2>"$T/err"
	rc=$?
	# 5: a row's name was taken, whatever became of the others
	check_eq "$name: exit 5" "$rc" 5 "$T/err"
	check "$name: says which row, and why" grep -q "^Error: bench: ipset-1: setup: ipset: a set named" "$T/err"
	set=$(cat "$T/planted" 2>/dev/null)
	check "$name: --gen-cmd planted bench's name (${set:-none})" test -n "$set"
	check "$name: the row INVALID, saying why" jq_true --arg set "$set" '
		[.rows[] | select(.mechanism == "iptables-ipset")] | length == 1 and
		all(.[]; (.valid | not) and .reason ==
			"setup: ipset: a set named \($set) is there already, not this run'"'"'s: File exists")' "$json"
	check "$name: the set and its entry stay" grep -qx "192.0.2.0/24" \
		<(ip netns exec "$D" ipset list "${set:-none}" 2>/dev/null)
	[ -z "$set" ] || ip netns exec "$D" ipset destroy "$set"
	check_dut_same "$name"
}

# What bench judges by a table's whole content: no objects of its name,
# no rule with its comment, nothing in the journal.
nothing_ours() {
	! ip netns exec "$D" iptables-save -t raw | grep -qE "hc[0-9a-f]+-|hookcmp" &&
		! ip netns exec "$D" nft list tables | grep -qE "netdev (hc[0-9a-f]+-|hookcmp)" &&
		[ "$("$HC" -j status)" = "[]" ]
}

quiet() { "$@" >/dev/null 2>&1; }

# plant.sh BENCH_PID: in the nft-hash row's window, a chain of someone
# else's in bench's netdev table; in the iptables-rules row's, a set in
# the raw table iptables-nft made for bench. Once each.
plant_foreign() {
	cat >"$T/plant.sh" <<EOF2
#!/bin/sh
case \$HC_ROW in
iptables-rules-1) [ -e $T/planted1 ] || { ip netns exec $D nft add set ip raw hcforeign '{ type ipv4_addr; }' && touch $T/planted1; } ;;
nft-hash-1) [ -e $T/planted2 ] || { t=\$(ip netns exec $D nft -j list tables netdev | jq -r '.nftables[].table.name // empty' | head -n 1) &&
	ip netns exec $D nft add chain netdev "\$t" hcforeign && echo "\$t" >$T/planted2; } ;;
esac
exit 0
EOF2
	chmod +x "$T/plant.sh"
	rm -f "$T/planted1" "$T/planted2"
}

# check_foreign NAME [ROW]: what plant.sh made (in ROW's window, or in
# both rows') stays, bench's own is gone.
check_foreign() {
	local t
	t=$(cat "$T/planted2" 2>/dev/null)
	[ "$2" = nft-hash-1 ] ||
		check "$1: the set in ip raw stays" quiet ip netns exec "$D" nft list set ip raw hcforeign
	[ "$2" = iptables-rules-1 ] ||
		check_eq "$1: bench's netdev table (${t:-none}) holds the foreign chain, and only that" \
			"$(ip netns exec "$D" nft -j list table netdev "${t:-none}" 2>/dev/null |
				jq -c '[.nftables[] | keys[0] as $k | select($k != "metainfo" and $k != "table") | [$k, .[$k].name]]')" \
			'[["chain","hcforeign"]]'
	ip netns exec "$D" nft delete table ip raw 2>/dev/null
	[ -z "$t" ] || ip netns exec "$D" nft delete table netdev "$t" 2>/dev/null
	check "$1: nothing of bench's left" nothing_ours
}

# A set of someone else's in the raw table iptables-nft made for bench,
# and a chain of someone else's in bench's own netdev table: the tables
# stay with them (bench deletes only its own, and says so), at the end of
# a run and after kill -9 and cleanup --all.
test_raw_foreign() {
	local name="bench --dev scale, foreign objects in its tables" row pid
	need nft "$name" || return 0
	check "$name: no raw table to begin with" not ip netns exec "$D" nft list table ip raw 2>/dev/null
	plant_foreign
	"$HC" -n "$D" bench --dev "$DEV" --scenario scale --sizes 1 --hooks iptables-rules-1,nft-hash-1 \
		$SHORT --no-path-check -o "$T/rf.json" --gen-cmd "$T/plant.sh; $GEN" >"$T/out" 2>"$T/err"
	check "$name: said why ip raw stays" \
		grep -qF "Warning: iptables-rules-1: left table ip raw: it holds set hcforeign, not hookcmp's" "$T/err"
	check "$name: said why its netdev table stays" grep -qE \
		"^Warning: nft-hash-1: left table netdev [^ ]+: it holds chain hcforeign, not hookcmp's; deleted only hookcmp's own in it$" "$T/err"
	check_foreign "$name"
	for row in iptables-rules-1 nft-hash-1; do
		plant_foreign
		rm -f "$T/mark"
		"$HC" -n "$D" bench --dev "$DEV" --scenario scale --sizes 1 --hooks "$row" --rounds 1 \
			--no-path-check --gen-cmd "$T/plant.sh; touch $T/mark; exec sleep 30" >/dev/null 2>&1 &
		pid=$!
		wait_until test -e "$T/mark"
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		"$HC" cleanup --all >"$T/clean" 2>&1
		check_eq "$name, kill -9 during $row: cleanup's exit" "$?" 0 "$T/clean"
		check "$name, kill -9 during $row: cleanup says what stays" \
			grep -qE "left table (ip raw|netdev [^ ]+): it holds (set|chain) hcforeign, not hookcmp's" "$T/clean"
		check_foreign "$name, kill -9 during $row, then cleanup" "$row"
	done
	check_dut_same "$name"
}

# Two runs in two PID namespaces, both pid 1, on two devices of one
# network namespace, the second inside the first's window: each its own
# table and chain, neither deletes the other's.
test_names_pidns() {
	local name="bench --dev in two PID namespaces" a b
	need nft "$name" || return 0
	ip link add hcg2 netns "$G" type veth peer name "${DEV}b" netns "$D" &&
		ip -n "$G" link set hcg2 up && ip -n "$D" link set "${DEV}b" up &&
		ip netns exec "$D" ethtool -K "${DEV}b" gro on >/dev/null ||
		{ fail "$name: cannot build the second pair"; return; }
	local gen2=${GEN/ hcg / hcg2 } inner
	inner="[ -e $T/b.rc ] || { unshare -p -f --mount-proc $HC -n $D bench --dev ${DEV}b --scenario scale --sizes 1 --hooks nft-hash-1,iptables-rules-1 --rounds 1 --no-path-check -o $T/pb.json --gen-cmd '$gen2' >/dev/null 2>$T/pb.err; echo \$? >$T/b.rc; }"
	rm -f "$T/b.rc"
	unshare -p -f --mount-proc "$HC" -n "$D" bench --dev "$DEV" --scenario scale --sizes 1 \
		--hooks nft-hash-1,iptables-rules-1 $SHORT --no-path-check -o "$T/pa.json" \
		--gen-cmd "$inner; $GEN" >/dev/null 2>"$T/pa.err"
	check "$name: the second ran inside the first's window" test -e "$T/b.rc"
	for a in pa pb; do
		check "$name ($a): every row set up and read, valid or INVALID for the load only" jq_true \
			--arg load "$LOAD_REASON" '(.rows | length) == 2 and
			 all(.rows[]; .status == "valid" or (.reason // "" | test($load)))' "$T/$a.json"
	done
	ip link del "${DEV}b" netns "$D" 2>/dev/null || ip -n "$D" link del "${DEV}b"
	check "$name: nothing of bench's left" nothing_ours
	check_dut_same "$name"
}

# Objects with the names bench would give its own, there before it runs
# (a wrapper that plants them, then execs bench: same pid, same start):
# those rows INVALID, saying why, and the objects left exactly as they
# were; so are objects named as older hookcmp named them, hookcmp_PID.
test_names_exist() {
	local name="bench --dev, its names taken already" n
	need nft "$name" || return 0
	cat >"$T/exist.sh" <<EOF2
#!/bin/sh
n=\$($T/name.sh \$\$)
for t in \$n hookcmp_\$\$; do
	ip netns exec $D nft add table netdev \$t &&
	ip netns exec $D nft add chain netdev \$t theirs &&
	ip netns exec $D nft add rule netdev \$t theirs ip saddr 192.0.2.9 drop || exit 99
done
for c in \$n hookcmp-\$\$; do
	ip netns exec $D iptables -t raw -N \$c &&
	ip netns exec $D iptables -t raw -A \$c -s 192.0.2.9 -j ACCEPT || exit 99
done
echo \$n >$T/exist.name
{ ip netns exec $D nft list ruleset; ip netns exec $D iptables -t raw -S; } >$T/exist.before
exec "\$@"
EOF2
	chmod +x "$T/exist.sh"
	"$T/exist.sh" "$HC" -n "$D" bench --dev "$DEV" --scenario scale --sizes 1 \
		--hooks nft-hash-1,iptables-rules-1 $SHORT --no-path-check -o "$T/ex.json" \
		--gen-cmd "$GEN" >/dev/null 2>"$T/err"
	check_eq "$name: exit 5" "$?" 5 "$T/err"
	n=$(cat "$T/exist.name")
	check_eq "$name: the rows INVALID, saying why" \
		"$(jq -c '[.rows[] | .reason]' "$T/ex.json")" \
		"[\"setup: nft: a table netdev $n is there already, not this run's: File exists\",\"setup: iptables: a chain named $n is in table raw already, not this run's: File exists\"]"
	check_eq "$name: theirs left as they were" \
		"$({ ip netns exec "$D" nft list ruleset; ip netns exec "$D" iptables -t raw -S; } | diff "$T/exist.before" - && echo same)" same
	ip netns exec "$D" nft list tables netdev | while read -r _ _ t; do ip netns exec "$D" nft delete table netdev "$t"; done
	for c in $(ip netns exec "$D" iptables -t raw -S | sed -n 's/^-N //p'); do
		ip netns exec "$D" iptables -t raw -F "$c"
		ip netns exec "$D" iptables -t raw -X "$c"
	done
	ip netns exec "$D" nft delete table ip raw 2>/dev/null
	check_dut_same "$name"
}

# Device names with every character the kernel allows and a shell, nft
# or iptables-restore reads: each carried whole to nft and iptables, and
# nothing left; where the tool cannot carry it, refused before anything.
test_dev_quotes() {
	local name="bench --dev, odd device names" dev i=0 out
	need nft "$name" || return 0
	for dev in 'hq"q' "hq'q" 'hq\q' 'hq#;$' 'hq{}*' 'hq(|)!' 'hq=,&@' 'hq+x'; do
		i=$((i + 1))
		ip -n "$D" link add "$dev" type veth peer name "hqp$i" ||
			{ fail "$name: cannot make $dev"; continue; }
		ip -n "$D" link set "$dev" up
		"$HC" -n "$D" bench --dev "$dev" --scenario scale --sizes 1 --hooks iptables-rules-1,ipset-1 \
			--rounds 1 --no-path-check --gen-cmd 'echo packets 0' -o "$T/q.json" >/dev/null 2>"$T/err"
		check "$name '$dev', iptables: every row set up" jq_true \
			'(.rows | length) == 2 and all(.rows[]; .reason // "" | startswith("setup") | not)' "$T/q.json"
		case $dev in
		*'"'*)
			out=$("$HC" -n "$D" bench --dev "$dev" --scenario scale --sizes 1 --hooks nft-hash-1 \
				--rounds 1 --gen-cmd true 2>&1)
			check_eq "$name '$dev', nft: exit 2" "$?" 2
			check_eq "$name '$dev', nft: says why" "$(head -n 1 <<<"$out")" \
				"Error: --dev '$dev': row nft-hash-1: nft cannot quote a '\"' in a device name" ;;
		*)
			"$HC" -n "$D" bench --dev "$dev" --scenario scale --sizes 1 --hooks nft-hash-1 \
				--rounds 1 --no-path-check --gen-cmd 'echo packets 0' -o "$T/q.json" >/dev/null 2>"$T/err"
			check "$name '$dev', nft: the row set up" jq_true \
				'.rows[0].reason // "" | startswith("setup") | not' "$T/q.json" ;;
		esac
		check "$name '$dev': nothing of bench's left" nothing_ours
		ip -n "$D" link del "$dev"
	done
	ip -n "$D" link add 'hq+' type veth peer name hqp0 && ip -n "$D" link set 'hq+' up
	out=$("$HC" -n "$D" bench --dev 'hq+' --scenario scale --sizes 1 --hooks iptables-rules-1 \
		--rounds 1 --gen-cmd true 2>&1)
	check_eq "$name 'hq+', iptables: exit 2" "$?" 2
	check_eq "$name 'hq+', iptables: says why" "$(head -n 1 <<<"$out")" \
		"Error: --dev 'hq+': row iptables-rules-1: iptables reads a name ending in '+' as a wildcard (every device of that prefix)"
	ip -n "$D" link del 'hq+'
	ip netns exec "$D" nft delete table ip raw 2>/dev/null
	check_dut_same "$name"
}

# Both NAPI kthreads on CPU 0: bench, and what it runs, go to CPU 1.
test_pin() {
	local name="bench --dev pinned away" json=$T/pin.json p
	for p in $(pgrep "^napi/$DEV-"); do
		taskset -pc 0 "$p" >/dev/null
	done
	: >"$T/aff"
	"$HC" -n "$D" bench --dev "$DEV" --hooks xdp-native --rounds 1 \
		--gen-cmd "grep Cpus_allowed_list /proc/self/status >>$T/aff; $GEN" \
		-o "$json" >"$T/out" 2>"$T/err"
	check_eq "$name: exit status" "$?" 0 "$T/err"
	check "$name: said" grep -qF "bench, --gen-cmd, iptables and nft pinned to CPU 1, away from the receive CPUs (0)" "$T/err"
	check "$name: recorded" jq_true '.device.rx_cpus_counted == "0" and .device.pinned_cpus == "1"' "$json"
	check_eq "$name: --gen-cmd ran on CPU 1, every window" "$(sort -u "$T/aff" | tr -d '[:space:]')" "Cpus_allowed_list:1"
	check "$name: the kthreads put back one per CPU" pin_napi
	check_dut_same "$name"
}

# A veth with GRO off and no native XDP program runs no NAPI and takes
# no live frames: a tc row sees nothing. Said before the first window,
# and the row is INVALID for the frames lost, with the cause and the fix
# (not for its window's length); with that fix it is valid.
test_no_napi() {
	local name="bench --dev, GRO off" json=$T/nonapi.json reason rc
	need_live "$name: live frames need NAPI" || return 0
	ip netns exec "$D" ethtool -K "$DEV" gro off
	dut_state >"$T/dut.nonapi"
	"$HC" -n "$D" bench --dev "$DEV" --hooks "$TC" --rounds 2 --gen-cmd "$GEN" \
		-o "$json" >"$T/out" 2>"$T/err"
	rc=$?
	load_skips "$name" "$json"
	# The baseline row decides the exit status; the machine's load may
	# leave it INVALID (said above), never for another reason.
	if jq_true '.rows[] | select(.name == "xdp-native") | .status == "valid"' "$json"; then
		check_eq "$name: exit status (the baseline row is valid)" "$rc" 0 "$T/err"
	else
		check "$name: xdp-native valid, or INVALID for the machine's load" jq_true \
			--arg load "$LOAD_REASON" '.rows[] | select(.name == "xdp-native") | .reason | test($load)' "$json"
	fi
	check "$name: said before the first window" awk -v row="$TC" '
		index($0, "Warning: " row ": " dev " is a veth with GRO off and no native XDP program here") { w = NR }
		/^round 1\// { r = NR } END { exit !(w && r && w < r) }' dev="$DEV" "$T/err"
	check_eq "$name: said once for the row" "$(grep -c "^Warning: $TC: " "$T/err")" 1
	check_eq "$name: xdp-native, which runs NAPI, is not warned of" \
		"$(grep -c "^Warning: xdp-native: " "$T/err")" 0
	reason=$(jq -r --arg r "$TC" '.rows[] | select(.name == $r) | .reason' "$json")
	check "$name: $TC INVALID for the frames lost, in the warm-up, with the cause and the fix" \
		grep -qE "^warm-up round: [0-9,]+ offered by the generator, none of them left its device, 0 seen at the hook, 0 dropped before it: the frames were lost where no counter on $DEV sees them; a veth runs NAPI only with GRO on or a native XDP program: --tune gro=on\$" <<<"$reason"
	check "$name: not for its window's length" not grep -q "too short" <<<"$reason"
	check "$name: the table says so" grep -qF "INVALID: warm-up round: " "$T/out"
	"$HC" -n "$D" bench --dev "$DEV" --hooks "$TC" --rounds 2 --gen-cmd "$GEN" --tune gro=on \
		-o "$json" >"$T/out" 2>"$T/err"
	rc=$?
	load_skips "$name, --tune gro=on" "$json"
	if jq_true 'all(.rows[]; .status == "valid")' "$json"; then
		check_eq "$name, --tune gro=on: exit status" "$rc" 0 "$T/err"
	fi
	check "$name, --tune gro=on: $TC and the baseline valid (or INVALID for the machine's load)" \
		jq_true --arg r "$TC" --arg load "$LOAD_REASON" 'any(.rows[]; .name == $r) and
		all(.rows[]; (.status == "valid" and .reason == null) or (.reason // "" | test($load)))' "$json"
	check_eq "$name, --tune gro=on: no warning" "$(grep -c "is a veth with GRO off" "$T/err")" 0
	state_same "$name: the DUT is as it was (GRO off)" dut_state "$T/dut.nonapi" 30
	ip netns exec "$D" ethtool -K "$DEV" gro on
	check_dut_same "$name"
}

# env: in the DUT's namespace, an nftables table and RPS on the device's
# first queue are what sits on its receive path, recorded as such.
test_env() {
	local name="bench --dev env" t=hc_env$$
	if ! command -v nft >/dev/null; then
		echo "SKIP $name: the nftables table (nft not installed)"
	elif plant "$name: an nftables table" ip netns exec "$D" nft add table inet $t &&
		plant "$name: RPS on $DEV rx-0" ip netns exec "$D" \
			sh -c "echo 1 >/sys/class/net/$DEV/queues/rx-0/rps_cpus"; then
		"$HC" -n "$D" bench --dev "$DEV" --hooks xdp-native $SHORT --no-path-check \
			--gen-cmd "$GEN" -o "$T/env.json" >/dev/null 2>"$T/err"
		check_eq "$name: exit status" "$?" 0 "$T/err"
		check "$name: the table, in the DUT's namespace" jq_true --arg l "nftables table inet $t (the DUT's netns)" \
			'.env.outside | index($l) != null' "$T/env.json"
		check "$name: RPS on the device" jq_true --arg l "rps_cpus 1 on $DEV rx-0" \
			'.env.outside | index($l) != null' "$T/env.json"
		# the plan of a --dev run is its windows' time: what they hold
		# is the device's doing, and two runs compare
		check "$name: the plan, in seconds" jq_true \
			'.plan.window_s > 0 and .plan.settle_s >= 0 and .plan.window_packets == null' "$T/env.json"
		"$HC" -n "$D" bench --dev "$DEV" --hooks xdp-native $SHORT --no-path-check \
			--gen-cmd "$GEN" -o "$T/env2.json" >/dev/null 2>"$T/err"
		"$HC" bench compare "$T/env.json" -- "$T/env2.json" >"$T/out" 2>"$T/err"
		check_eq "$name: two --dev runs compare (exit 0)" "$?" 0 "$T/err"
	fi
	ip netns exec "$D" nft delete table inet $t 2>/dev/null
	ip netns exec "$D" sh -c "echo 0 >/sys/class/net/$DEV/queues/rx-0/rps_cpus"
	check_dut_same "$name"
}

# tests/bench_dev.sh [NAME...]: these tests, or all of them (tests/lib.sh).
# The device deleted mid-run (by --gen-cmd in round 2): what bench made
# on it, its rows' programs and --tune's GRO, went with it; bench says so
# and keeps no record of them. The pair is built again for what follows.
test_device_gone() {
	local name="bench --dev, the device deleted mid-run"
	"$HC" -n "$D" bench --dev "$DEV" --rounds 3 --hooks xdp-native,"$TC" --tune gro=off \
		--gen-cmd "[ \"\$HC_ROUND\" = 2 ] && ip -n $D link del $DEV; $GEN" \
		-o "$T/gone.json" >"$T/out" 2>"$T/err"
	check_eq "$name: exit 1" "$?" 1 "$T/err"
	check "$name: says what went with it" \
		grep -q "^hookcmp: gro (was on) on $DEV in netns '$D': already gone, with its device$" "$T/err"
	check_eq "$name: no record left" "$("$HC" -j status)" "[]"
	ip netns del "$G"
	ip netns del "$D"
	mq_up || { fail "$name: cannot build the pair again"; return; }
	dut_state >"$T/dut"
}

run_tests "$@"
