#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Integration tests as root: each test gets a fresh namespace pair joined by
# a veth, sends a known mix from the generator side, and checks hookcmp's
# JSON summary, what ip/tc/bpftool saw, and that the DUT is as before.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
[ "$(id -u)" -ne 0 ] || check_mounts
# A hook's own tests, in its file: run_tests finds them there too.
HC_TEST_FILES=$(ls tests/hooks/*.sh 2>/dev/null)
for f in $HC_TEST_FILES; do
	# shellcheck source=/dev/null
	. "$f"
done

# Did the kernel really attach it? Asked of ip, tc and bpftool, not hookcmp.
observed() {
	local kind=$1 id
	id=$(prog_id)
	case $kind in
	xdp) [ "$(ip -n "$D" -d -j link show dev "$DEV" | jq '.[0].xdp.prog.id')" = "$id" ] ;;
	tc) [ "$(tc -n "$D" -j filter show dev "$DEV" ingress |
		jq '[.[] | select(.options.bpf_name == "hookcmp") | .options.prog.id][0]')" = "$id" ] ;;
	tcx) bpftool -j link show | jq -e "any(.[]; .prog_id == $id)" >/dev/null ;;
	packet) ip netns exec "$D" ss -0 -n -p | grep -q "hookcmp" ;;
	udp) ip netns exec "$D" ss -u -l -n -p | grep -q "%$DEV:9 .*hookcmp" ;;
	esac
}

# hook_case NAME OBSERVER EXPECTED ARGS...: one hook variant end to end.
hook_case() {
	local name=$1 obs=$2 want=$3
	shift 3
	kernel_lacks "$name" "$@" && return
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if hc_start -n "$D" "$@" -j -i 0 "$DEV"; then
		check "$name: kernel shows it attached ($obs)" observed "$obs"
		send_mix
		hc_stop INT
		check_eq "$name: exit status after SIGINT" "$HCRC" 130
		check_eq "$name: per-class counts" "$(class_counts)" "$want"
		check_eq "$name: summary total" \
			"$(summary | jq -c '[.total.packets, .type]')" '[43,"summary"]'
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	topo_down
}

test_hooks() {
	hook_case "xdp native" xdp "$MIX_L4" --hook xdp
	hook_case "xdp generic" xdp "$MIX_L4" --hook xdp --xdp-mode generic
	hook_case "xdp native link" xdp "$MIX_L4" --hook xdp --xdp-attach link
	hook_case "xdp generic link" xdp "$MIX_L4" --hook xdp --xdp-mode generic --xdp-attach link
	hook_case "tc clsact" tc "$MIX_L4" --hook tc
	hook_case "tc ingress" tc "$MIX_L4" --hook tc --qdisc ingress
	hook_case "tcx" tcx "$MIX_L4" --hook tc --tc-attach tcx
	hook_case "socket packet" packet "$MIX_L4" --hook socket --socket packet
	under_tcg "netns hooks: rules and --parse" \
		"prog-run checks the logic against its reference on this kernel" && return
	hook_case "tc clsact rules" tc \
		"udp4:9:0:9 tcp4:4:0:4 icmp4:3:0:3 udp6:8:8:0 tcp6:9:9:0 icmp6:1:1:0 arp:2:0:2 l2-other:2:0:2 malformed:5:0:5" \
		--hook tc -a pass -r "ip6 drop"
	hook_case "xdp generic rules" xdp \
		"udp4:9:9:0 tcp4:4:4:0 icmp4:3:3:0 udp6:8:6:2 tcp6:9:0:9 icmp6:1:1:0 arp:2:2:0 l2-other:2:2:0 malformed:5:5:0" \
		--hook xdp --xdp-mode generic -r "udp dport 53 pass" -r "tcp sport 2000 dport 443 pass"
	hook_case "xdp native parse l2" xdp "ip4:20:20:0 ip6:19:19:0 arp:2:2:0 l2-other:2:2:0" \
		--hook xdp --parse l2
	hook_case "tcx parse none" tcx "all:43:43:0" --hook tc --tc-attach tcx --parse none
}

# UDP datagrams the sockets of $D took or refused (a filter's or a
# cgroup's drop is an InErrors), IPv4 and IPv6.
udp_delivered() {
	ip netns exec "$D" awk '$1 == "Udp:" && h++ { n += $2 + $4 }
		$1 == "Udp6InDatagrams" || $1 == "Udp6InErrors" { n += $2 }
		END { print n + 0 }' /proc/net/snmp /proc/net/snmp6
}

# udp_mix NAME MAC ACTION: the mix to the UDP socket of a running
# hookcmp, which then stops: 9 datagrams to its port counted, by ACTION,
# and the 3 TCP segments not.
udp_mix() {
	local n0
	n0=$(udp_delivered)
	"$SEND" -n "$G" --dst-mac "$2" --dst4 192.0.2.2 \
		--dst6 2001:db8::2 hcg udp4:5 udp6:4 tcp4:3 2>/dev/null
	wait_until grown udp_delivered "$n0" 9
	hc_stop TERM
	check_eq "$1: exit status after SIGTERM" "$HCRC" 143
	if [ "$3" = drop ]; then
		check_eq "$1: per-class counts" "$(class_counts)" "udp4:5:5:0 udp6:4:4:0"
	else
		check_eq "$1: per-class counts" "$(class_counts)" "udp4:5:0:5 udp6:4:0:4"
	fi
}

# Bad input: a clear message, its exit status, and nothing changed.
test_bad_input() {
	local name="bad input"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	expect_table "$name" "" <<EOF
2;--hook 'bpf': expected one of $(hook_list '|');--hook bpf $DEV
2;--hook $(hook_list '|') is required;$DEV
2;name one device;--hook xdp
2;unexpected argument;--hook xdp $DEV other
2;unknown option '--frobnicate';--hook xdp --frobnicate $DEV
2;no device 'nosuchdev0' in network namespace '$D';-n $D --hook xdp nosuchdev0
2;no device '$DEV' in this network namespace, but in network namespace '$D' (hookcmp -n NAME --hook xdp $DEV);--hook xdp $DEV
2;network namespace 'nosuchns': No such file;-n nosuchns --hook xdp $DEV
2;rule 1 'udp dport 99999 drop': 'dport' needs a port;-n $D --hook tc -r 'udp dport 99999 drop' $DEV
2;rule 2 'frob drop': unknown word 'frob';-n $D --hook tc -r 'udp pass' -r 'frob drop' $DEV
2;needs --parse l4 or deeper (have l3);-n $D --hook tc --parse l3 -r 'udp dport 53 pass' $DEV
2;--port '0': expected a number from 1 to 65535;-n $D --hook socket --port 0 $DEV
2;--interval 'x': expected seconds;-n $D --hook xdp -i x $DEV
2;--xdp-mode 'hw': expected one of native|generic;-n $D --hook xdp --xdp-mode hw $DEV
4;try --xdp-mode generic;-n $D --hook xdp lo
2;"type":"error";-j --hook bpf $DEV
EOF
	# Input that is no rules, no document or nothing at all (issue 51):
	# refused before anything is read whole, waited on or attached, the
	# file and why named. timeout: a FIFO waited on fails, not hangs.
	mkfifo "$T/fifo"
	mkdir "$T/dir"
	printf '10.0.0.0/8 drop\n10.1.0.0/16 drop\0 10.2.0.0/16 pass\n' >"$T/nul"
	truncate -s 300M "$T/big"
	HC="timeout 60 $HC" expect_table "$name" "" <<EOF
2;--rules-file $T/fifo: a FIFO, not a regular file;-n $D --hook xdp --rules-file $T/fifo -d 0.3 -i 0 $DEV
2;--rules-file $T/dir: Is a directory;-n $D --hook xdp --rules-file $T/dir -d 0.3 -i 0 $DEV
2;--rules-file $T/nul:2: expected text, found a NUL byte at column 17;-n $D --hook xdp --rules-file $T/nul -d 0.3 -i 0 $DEV
2;--rules-file $T/big: 314572800 bytes, over the limit of 256 MiB;-n $D --hook tc --rules-file $T/big -d 0.3 -i 0 $DEV
2;bench compare: $T/fifo: a FIFO, not a regular file;bench compare $T/fifo $T/fifo
2;bench compare: $T/dir: Is a directory;bench compare $T/dir $T/dir
2;--plan $T/fifo: a FIFO, not a regular file;bench --plan $T/fifo
2;--journal '': expected DIR, found an empty string;-n $D --journal '' --hook xdp --xdp-mode generic -d 0.3 -i 0 $DEV
2;--journal '': expected DIR, found an empty string;bench -n $D --dev $DEV --gen-cmd true --rounds 1 --hooks xdp-native --journal ''
2;--journal '': expected DIR, found an empty string;cleanup --journal '' --all
2;--gen-cmd '': expected CMD, found an empty string;bench -n $D --dev $DEV --rounds 1 --hooks xdp-native --gen-cmd ''
2;--sizes '1,,2': expected a comma-separated list, found item 2 empty;bench --scenario scale --sizes 1,,2 --external
2;--hooks 'xdp-native,': expected a comma-separated list, found item 2 empty;bench --hooks xdp-native, --external
EOF
	HC="HOOKCMP_JOURNAL=$T/nodir/j timeout 60 $HC" expect_table "$name" "" <<EOF
2;HOOKCMP_JOURNAL: cannot create the journal $T/nodir/j: No such file;-n $D --hook xdp --xdp-mode generic -d 0.3 -i 0 $DEV
2;HOOKCMP_JOURNAL: cannot create the journal $T/nodir/j: No such file;status
EOF
	# Without the limit these would take the machine's memory. ASan
	# reserves terabytes of address space: there, no limit (a refusal
	# before any read is what is tested).
	(
		[ "${SANITIZE:-}" = 1 ] || ulimit -v 1000000
		HC="timeout 60 $HC" expect_table "$name (ulimit -v 1000000)" "" <<EOF
2;--rules-file /dev/zero: a character device, not a regular file;-n $D --hook xdp --rules-file /dev/zero -d 0.3 -i 0 $DEV
2;bench compare: /dev/zero: a character device, not a regular file;bench compare /dev/zero /dev/zero
EOF
	)
	rm -f "$T/big"
	check_state_same "$name: files and lists"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$HC" -n "$D" --hook xdp "$DEV" 2>&1)
	rc=$?
	check_eq "$name: unprivileged run exits 3" "$rc" 3
	check "$name: unprivileged run names the capabilities" \
		grep -q "needs root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN" <<<"$out"
	check_state_same "$name"

	# Someone else's tc state in the way: exit 5, theirs untouched.
	while IFS=';' read -r setup say args; do
		plant "$name" eval "$setup" || continue
		snapshot >"$T/before"
		# shellcheck disable=SC2086
		out=$("$HC" -n "$D" $args -d 0.3 -i 0 "$DEV" 2>&1)
		rc=$?
		check_eq "$name: $setup -> exit" "$rc" 5
		check "$name: $setup -> says '$say'" grep -qF -- "$say" <<<"$out"
		check_state_same "$name: $setup"
		tc -n "$D" qdisc del dev "$DEV" ingress 2>/dev/null
		tc -n "$D" qdisc del dev "$DEV" clsact 2>/dev/null
	done <<EOF
tc -n $D qdisc add dev $DEV ingress;qdisc 'ingress' holds the ingress side already;--hook tc
tc -n $D qdisc add dev $DEV clsact;qdisc 'clsact' holds the ingress side already;--hook tc --qdisc ingress
tc -n $D qdisc add dev $DEV clsact && tc -n $D filter add dev $DEV ingress prio 1 handle 1 bpf da obj build/tc.bpf.o sec tc;a filter holds prio 1 handle 0x1 already;--hook tc
tc -n $D qdisc add dev $DEV clsact && tc -n $D filter add dev $DEV ingress prio 3 protocol all u32 match u32 0 0 classid 1:1;a u32 filter holds prio 3 already;--hook tc --prio 3
EOF
	topo_down
}

# --duration ends the run by itself, with interval lines before the summary.
test_duration() {
	local name="duration" out
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	"$HC" -n "$D" --hook xdp -j -i 0.2 -d 1.1 "$DEV" >"$T/out" 2>"$T/err"
	check_eq "$name: exit status" "$?" 0 "$T/err"
	check "$name: at least 4 interval lines" \
		[ "$(jq -s '[.[] | select(.type == "interval")] | length' "$T/out")" -ge 4 ]
	check_eq "$name: last line is the summary" "$(summary | jq -r .type)" summary
	check "$name: interval keys" jq_true -s 'all(.[] | select(.type == "interval");
		(.t | type) == "number" and (.total | keys) == ["bps","drop_pps","pass_pps","pps","redirect_pps"])' "$T/out"
	"$HC" -n "$D" --hook tc -i 0.3 -d 0.7 "$DEV" >"$T/out" 2>"$T/err"
	check "$name: text output has the receive total line" grep -q "^receive total" "$T/out"
	check "$name: text summary" grep -q "^Summary: tc (clsact) on $DEV" "$T/out"
	# Stopped past its end (a stalled VM), the run still prints the
	# interval that fell due.
	"$HC" -n "$D" --hook xdp -i 1 -d 1.2 "$DEV" >"$T/out" 2>"$T/err" &
	local pid=$!
	wait_until sh -c "ip -n $D link show dev $DEV | grep -q xdp"
	kill -STOP "$pid"
	sleep 2.5
	kill -CONT "$pid"
	wait "$pid"
	check_eq "$name: stopped past its end: exit status" "$?" 0 "$T/err"
	check "$name: stopped past its end: the interval due is printed" \
		grep -q "^receive total" "$T/out"
	"$HC" -n "$D" -j --hook xdp -i 0.1 -d 0.3 "$DEV" >/dev/full 2>"$T/err"
	check_eq "$name: output that cannot be written: exit 1" "$?" 1 "$T/err"
	check "$name: output that cannot be written: says why" \
		grep -q "writing the output: No space left on device" "$T/err"
	check_state_same "$name"
	topo_down
}

# The summary counts from the program's zero state: what arrives between
# attach and the first look at the counters is in it too.
test_from_zero() {
	local name="summary from zero" args
	for args in "--hook xdp" "--hook tc" "--hook socket --socket packet" "--hook xsk"; do
		topo_up || { fail "$name: topology"; return; }
		# Emptied here, not by the child's redirection: that may come
		# after wait_for has read the last hook's "paused" and the mix
		# gone out before this hookcmp even started.
		: >"$T/err"
		# shellcheck disable=SC2086
		HOOKCMP_PAUSE_AT=run "$HC" -n "$D" $args -j -i 0 "$DEV" >"$T/out" 2>"$T/err" &
		HCPID=$!
		if ! wait_for "paused at step 'run'" "$T/err"; then
			hc_stop INT
			fail "$name ($args): never paused after attach"
			topo_down
			continue
		fi
		send_mix
		wait_for "attached to" "$T/err"
		hc_stop INT
		check_eq "$name ($args): the mix sent right after attach is counted" \
			"$(summary | jq .total.packets)" 43 || {
			sed 's/^/  /' "$T/err"
			ip -n "$D" -s link show "$DEV" | sed 's/^/  /'
		}
		topo_down
	done
}

# bytes are the frame as it arrived, from the Ethernet header with its
# VLAN tag, at every hook: frames of known sizes give the same totals.
test_bytes() {
	local name="bytes" mac args want
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
	ip -n "$D" addr add 2001:db8::2/64 dev "$DEV" nodad
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	while read -r args; do
		kernel_lacks "$name ($args)" $args && continue
		hc_start -n "$D" $args -j -i 0 "$DEV" || { fail "$name ($args): did not attach"; continue; }
		# AF_PACKET: live frames need NAPI or XDP on the receiving veth.
		gen() { "$HC" gen -n "$G" hcg --method packet --dst-mac "$mac" -c 10 "$@" >/dev/null 2>&1; }
		gen -s 64 --dst 192.0.2.2 && gen -s 1000 --dst 192.0.2.2 &&
			gen -6 -s 200 --dst 2001:db8::2 && gen -s 1514 --dst 192.0.2.2
		want=$((10 * (64 + 1000 + 200 + 1514)))
		# A UDP socket (or its cgroup) or PRE_ROUTING never sees a tagged frame on an
		# untagged device.
		if [[ ! "$args" =~ ^--hook\ (socket|netfilter|cgroup)$ ]]; then
			gen -s 128 --vlan 7 --dst 192.0.2.2
			want=$((want + 10 * 128))
		fi
		sleep 0.3
		hc_stop INT
		check_eq "$name ($args): total bytes of frames of known sizes" \
			"$(summary | jq .total.bytes)" "$want" || sed 's/^/  /' "$T/err"
	done <<EOF2
--hook xdp
--hook xdp --xdp-mode generic
--hook tc
--hook tc --qdisc ingress
--hook tc --tc-attach tcx
--hook socket --socket packet
--hook socket
--hook xsk
--hook xsk --xdp-mode generic
--hook netfilter
--hook cgroup
EOF2
	topo_down
}

# gen --inject: frames enter the DUT's receive path from gen's own thread,
# as pktgen's netif_receive mode does. Every hook from generic XDP on
# counts them exactly; native XDP, a driver's hook, sees none.
test_inject() {
	local name="gen --inject" mac args want bytes out first=
	need_live "$name" || return 0
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	inj() { "$HC" -n "$D" gen --inject "$@" "$DEV" >/dev/null 2>&1; }
	while IFS=';' read -r want args; do
		kernel_lacks "$name ($args)" $args && continue
		# shellcheck disable=SC2086
		hc_start -n "$D" $args -j -i 0 "$DEV" || { fail "$name ($args): did not attach"; continue; }
		if [ "$args" = "--hook socket" ]; then
			inj -c 100 --dst-mac "$mac" --dst 192.0.2.2
		else
			inj -c 100 && inj -c 50 --proto tcp && inj -c 25 -6 --proto icmp -s 200 &&
				inj -c 10 --vlan 7 -s 128
		fi
		sleep 0.3
		hc_stop INT
		check_eq "$name ($args): per-class counts" \
			"$(summary | jq -r '[.classes[] | select(.packets > 0) | "\(.name):\(.packets)"] | join(" ")')" "$want"
		# The same frames, the same bytes, at every hook that saw the mix.
		bytes=$(summary | jq .total.bytes)
		if [ "$want" = "udp4:110 tcp4:50 icmp6:25" ]; then
			check_eq "$name ($args): bytes as at the first hook" "$bytes" "${first:-$bytes}"
			first=$bytes
		fi
	done <<EOF2
udp4:110 tcp4:50 icmp6:25;--hook xdp --xdp-mode generic
udp4:110 tcp4:50 icmp6:25;--hook tc
udp4:110 tcp4:50 icmp6:25;--hook tc --qdisc ingress
udp4:110 tcp4:50 icmp6:25;--hook tc --tc-attach tcx
udp4:110 tcp4:50 icmp6:25;--hook socket --socket packet
udp4:100;--hook socket
;--hook xdp
EOF2
	check_eq "$name: JSON" "$("$HC" -n "$D" gen --inject -c 1000 -j "$DEV" 2>/dev/null |
		jq -c '[.type, .method, .packets, .offered, .queue]')" '["gen","inject",1000,1000,0]'
	expect_table "$name usage" "-n $D gen" <<EOF2
2;--queue goes with --inject;--queue 1 $DEV
2;--inject is live frames into DEV's receive path: no --method packet;--inject --method packet $DEV
2;live XDP frames on RX queue 99 refused: the device has no such queue;--inject --queue 99 -c 1 $DEV
EOF2
	expect_table "$name usage" gen <<EOF2
2;no device '$DEV' in this network namespace, but in network namespace '$D' (hookcmp -n NAME gen $DEV);--inject -c 1 $DEV
EOF2
	# Every device of 6.18 takes live frames; before 5.18 none does, and
	# the kernel's EINVAL stands in for that here.
	out=$(HOOKCMP_FAIL_AT=gen-live:22 "$HC" -n "$D" gen --inject -c 1 "$DEV" 2>&1)
	check_eq "$name into a device the kernel refuses: exit 4 (unsupported)" "$?" 4
	check "$name into a device the kernel refuses: says so, naming it" grep -qF \
		"gen on $DEV: live XDP frames (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18+) not usable here" <<<"$out"
	topo_down
}

# A step that fails halfway: what was attached so far is undone.
test_faults() {
	local name="fault"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	fault_table "$name" <<EOF2
load --hook xdp
xdp --hook xdp
run --hook xdp
run --hook xdp --xdp-mode generic
qdisc --hook tc
filter --hook tc
run --hook tc
filter --hook tc --qdisc ingress
run --hook tc --qdisc ingress
tcx --hook tc --tc-attach tcx
run --hook tc --tc-attach tcx
socket --hook socket
run --hook socket
socket --hook socket --socket packet
run --hook socket --socket packet
netfilter --hook netfilter
run --hook netfilter
cgroup --hook cgroup
run --hook cgroup
EOF2
	topo_down
}

# hookcmp gen: exact counts at receiver hooks, and frames a stack accepts.
test_gen() {
	local name="gen" mac out rc before udp4 udp6 echos syns args
	need_live "$name" || return 0
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 198.18.0.2/15 dev "$DEV"
	ip -n "$D" addr add 2001:2::2/64 dev "$DEV" nodad
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	snapshot >"$T/before"

	# Not for us (other MAC): counted at XDP, dropped there. A receiver
	# slower than gen (an emulated CPU) lets the veth's ring overflow:
	# then gen says so, and what left is what XDP counts.
	if hc_start -n "$D" --hook xdp -j -i 0 "$DEV"; then
		local u4 t4 i6
		out=$("$HC" gen -n "$G" hcg -c 54321 --flows 64 -j 2>/dev/null)
		check_eq "$name live: offered, and what did not leave said" \
			"$(jq -c '[.offered, .method, .packets == .offered or (.error | length > 0)]' <<<"$out")" \
			'[54321,"live",true]'
		u4=$(jq '.packets' <<<"$out")
		t4=$("$HC" gen -n "$G" hcg -c 4321 --method packet --vlan 7 --proto tcp -j 2>/dev/null | jq '.packets')
		i6=$("$HC" gen -n "$G" hcg -c 777 --ipv6 --proto icmp --size 1514 -j 2>/dev/null | jq '.packets')
		sleep 0.2
		hc_stop INT
		check_eq "$name: exact counts at an XDP receiver" "$(class_counts)" \
			"udp4:$u4:$u4:0 tcp4:$t4:$t4:0 icmp6:$i6:$i6:0"
	else
		fail "$name: receiver did not attach"
	fi

	# To the DUT: the UDP socket checks UDP checksums before its filter
	# runs, so counts there equal to what reached the DUT mean every
	# checksum was right, also the ones the generator patches per flow.
	# What reached it is gen's TX count: a receiver slower than the
	# generator (an emulated CPU) lets the veth's ring overflow, and the
	# veth counts those as dropped. XDP pass gives the veth NAPI.
	"$HC" -n "$D" --hook xdp -a pass -i 0 "$DEV" >/dev/null 2>&1 &
	local xdp=$!
	sleep 0.5
	if hc_start -n "$D" --hook socket -j -i 0 "$DEV"; then
		before=$(ip netns exec "$D" nstat -az IcmpInEchos IcmpInCsumErrors TcpInCsumErrors TcpOutRsts UdpInCsumErrors -j)
		sent() { "$HC" gen -n "$G" hcg --dst-mac "$mac" --allow-drops -j "$@" 2>/dev/null | jq '.packets // 0'; }
		udp4=$(($(sent -c 20000 --flows 64) + $(sent -c 5000 --flows 5 --method packet)))
		udp6=$(sent -c 10000 --flows 7 --ipv6)
		echos=$(sent -c 300 --flows 3 --proto icmp)
		syns=$(sent -c 200 --flows 10 --proto tcp --dport 7)
		sleep 0.3
		hc_stop INT
		check_eq "$name: exact counts at a UDP socket (valid checksums)" \
			"$(class_counts)" "udp4:$udp4:$udp4:0 udp6:$udp6:$udp6:0"
		check_eq "$name: ICMP echos answered, TCP SYNs reset, no checksum errors" \
			"$(ip netns exec "$D" nstat -az -j IcmpInEchos IcmpInCsumErrors TcpInCsumErrors TcpOutRsts UdpInCsumErrors |
				jq -c --argjson b "$before" '.kernel as $k | [$k.IcmpInEchos - $b.kernel.IcmpInEchos, $k.TcpOutRsts - $b.kernel.TcpOutRsts, $k.IcmpInCsumErrors, $k.TcpInCsumErrors, $k.UdpInCsumErrors]')" \
			"[$echos,$syns,0,0,0]"
	else
		fail "$name: socket receiver did not attach"
	fi
	kill -INT "$xdp"
	wait "$xdp"

	# A receiver's stack that untags VLAN frames edits the live frames in
	# place, and they come back so: --vlan turns --refresh on, saying so
	# and what it costs, and every frame arrives as built (a tc receiver
	# counts them all in the one class), also while the stack untags them.
	ip -n "$D" link add link "$DEV" name hcv5 type vlan id 5
	ip -n "$D" link set hcv5 up
	"$HC" -n "$D" --hook xdp -a pass -i 0 "$DEV" >/dev/null 2>&1 &
	xdp=$!
	sleep 0.5
	for args in "" "--refresh"; do
		if ! hc_start -n "$D" --hook tc -j -i 0 "$DEV"; then
			fail "$name --vlan $args: tc receiver did not attach"
			continue
		fi
		# shellcheck disable=SC2086
		out=$("$HC" gen -n "$G" hcg --vlan 5 --dst-mac "$mac" -c 20000 $args --allow-drops -j 2>"$T/gen.err")
		sleep 0.3
		hc_stop INT
		check_eq "$name --vlan $args: every frame as sent, in one class" \
			"$(summary | jq -c '[.classes | length, .[0].name, .[0].packets]')" \
			"[1,\"udp4\",$(jq .packets <<<"$out")]" || sed 's/^/  /' "$T/gen.err"
		check "$name --vlan $args: nothing came back edited" not grep -q "edited by a receiver" "$T/gen.err"
	done
	check "$name --vlan: --refresh turned on, and its cost said, in one line" grep -q \
		"^hookcmp gen: --vlan turns --refresh on (a receiver that untags the tag edits live frames in place): each frame's headers are rewritten before it is sent, about 6-10% fewer frames per second$" \
		<("$HC" gen -n "$G" hcg --vlan 5 --dst-mac "$mac" -c 1000 --allow-drops 2>&1 >/dev/null)
	kill -INT "$xdp"
	wait "$xdp"
	ip -n "$D" link del hcv5

	# What did not leave: no NAPI at the peer (no XDP, GRO off) takes no
	# live frame; gen counts what left, says why, exits 1.
	ip netns exec "$D" ethtool -K "$DEV" gro off
	out=$("$HC" gen -n "$G" hcg -d 0.3 -j 2>"$T/gen.err")
	check_eq "$name: no NAPI at the peer: exit 1" "$?" 1
	check "$name: no NAPI at the peer: packets is what left, offered what was sent" jq_true \
		'.packets * 1000 < .offered and (.pps - .packets / .duration_s | fabs) <= 1' <<<"$out"
	check_eq "$name: no NAPI at the peer: one JSON document, saying why" \
		"$(jq -sc '[length, (.[0].error | test("^only [0-9]+ of [0-9]+ frames offered left hcg"))]' <<<"$out")" '[1,true]'
	check "$name: no NAPI at the peer: says so" grep -q \
		"^Error: gen on hcg: only [0-9]* of [0-9]* frames offered left hcg (TX counter): its peer takes XDP frames (live, or the stage.s) only when it runs NAPI" "$T/gen.err"
	"$HC" gen -n "$G" hcg -d 0.3 --allow-drops >/dev/null 2>"$T/gen.err"
	check_eq "$name: --allow-drops: exit 0" "$?" 0
	check "$name: --allow-drops: a warning" grep -q "^Warning: only [0-9]* of [0-9]* frames offered left hcg" "$T/gen.err"
	# GRO on: NAPI, through the stack; two threads outrun it, and the ring
	# says so with its drops.
	ip netns exec "$D" ethtool -K "$DEV" gro on
	out=$("$HC" gen -n "$G" hcg -d 0.5 -t 2 -j 2>"$T/gen.err")
	rc=$?
	if [ $rc = 0 ] && jq_true '.packets == .offered' <<<"$out"; then
		echo "SKIP $name: a full ring: the receiver kept up with two threads this time"
	else
		check_eq "$name: a full ring: exit 1" "$rc" 1
		check "$name: a full ring: says so, with the drops" grep -q \
			"^Error: gen on hcg: only [0-9]* of [0-9]* frames offered left hcg (TX counter): a full ring, tx_dropped rose by [1-9]" "$T/gen.err"
		check "$name: a full ring: left and dropped make what was offered" jq_true \
			'(.packets + .tx_dropped - .offered | fabs) <= 0.001 * .offered' <<<"$out" ||
			echo "  $out"
	fi
	ip netns exec "$D" ethtool -K "$DEV" gro off

	expect_table "$name" gen <<EOF2
2;--size '59': expected a number from 60 to 9234;-n $G hcg --size 59
2;--count and --duration exclude each other;-n $G hcg -c 5 -d 1
2;no device 'nosuch0';-n $G nosuch0 -c 1
2;no device 'hcg' in this network namespace, but in network namespace '$G' (hookcmp -n NAME gen hcg);hcg -c 1
2;--dst '1.2.3.4': not an IPv6 address;-n $G hcg --ipv6 --dst 1.2.3.4 -c 1
2;--raw is one fixed live frame;-n $G hcg --raw --flows 2 -c 1
2;--dst-mac '02:00:00:00:00:02x': not a MAC address;-n $G hcg --dst-mac 02:00:00:00:00:02x -c 1
EOF2
	check_state_same "$name"
	topo_down
}

# A device too big for native XDP, and a device that goes away mid-run.
test_device_trouble() {
	local name="device" out rc
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	ip -n "$G" link set hcg mtu 9000
	ip -n "$D" link set "$DEV" mtu 9000
	out=$("$HC" -n "$D" --hook xdp "$DEV" -d 1 2>&1)
	rc=$?
	check_eq "$name: MTU too large for native XDP exits 4" "$rc" 4
	check "$name: with the kernel's own words" grep -q "Kernel: .*MTU is too large" <<<"$out"
	ip -n "$G" link set hcg mtu 1500
	ip -n "$D" link set "$DEV" mtu 1500
	check_state_same "$name: MTU refusal"

	for args in "--hook xdp" "--hook tc" "--hook tc --tc-attach tcx" "--hook socket --socket packet"; do
		kernel_lacks "$name: $args" $args && continue
		# shellcheck disable=SC2086
		if hc_start -n "$D" $args -j -i 0 "$DEV"; then
			"$SEND" -n "$G" hcg udp4:7 2>/dev/null
			sleep 0.2
			ip -n "$D" link del "$DEV"
			wait "$HCPID"
			rc=$?
			HCPID=
			check_eq "$name: $args: exit 1 when the device goes" "$rc" 1
			check "$name: $args: says the device disappeared" \
				grep -q "$DEV ($(cut -d' ' -f2 <<<"$args") .*) disappeared" "$T/err"
			check_eq "$name: $args: summary still counts what it saw" \
				"$(class_counts)" "udp4:7:7:0"
			check_eq "$name: $args: no journal entry left" \
				"$(ls /run/hookcmp 2>/dev/null)" ""
		else
			fail "$name: $args: did not attach"
		fi
		topo_down
		topo_up || { fail "$name: topology"; return; }
	done
	topo_down
}

# The device that carries the default route is refused without --force.
test_default_route() {
	local name="default route" dev=hcdr$$ out rc before
	# The suite's own namespace stands in for the caller's: a device
	# there that holds the default route.
	if ip link add "$dev" type veth peer name "${dev}p" && ip link set "$dev" up &&
		ip addr add 192.0.2.9/24 dev "$dev" &&
		ip route add default via 192.0.2.1 dev "$dev"; then
		before=$(tc -j qdisc show dev "$dev"; ip -d -j link show dev "$dev" | jq -c '.[0].xdp')
		out=$("$HC" --hook tc "$dev" -d 0.1 2>&1)
		rc=$?
		check_eq "$name: refused on $dev" "$rc" 2
		check "$name: says why and how to go on" \
			grep -q "$dev holds this namespace's default route.*--force" <<<"$out"
		out=$("$HC" gen "$dev" -c 1 2>&1)
		check_eq "$name: gen refuses to flood $dev" "$?" 2
		check "$name: gen says why" grep -q "would flood a real network" <<<"$out"
		check_eq "$name: $dev untouched" \
			"$(tc -j qdisc show dev "$dev"; ip -d -j link show dev "$dev" | jq -c '.[0].xdp')" "$before"
	else
		fail "$name: a dummy device with the default route"
	fi
	ip link del "$dev" 2>/dev/null
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
	ip -n "$D" route add default via 192.0.2.1 dev "$DEV"
	snapshot >"$T/before"
	ip netns exec "$D" "$HC" --hook tc "$DEV" -d 0.2 -i 0 >/dev/null 2>&1
	check_eq "$name: refused inside a namespace too" "$?" 2
	ip netns exec "$D" "$HC" --hook tc --force "$DEV" -d 0.2 -i 0 >/dev/null 2>&1
	check_eq "$name: --force attaches" "$?" 0
	check_state_same "$name"
	topo_down
}

# kill -9 leaves netlink-attached state; the journal and cleanup undo it,
# and only what is still ours.
test_cleanup() {
	local name="cleanup" args out rc id
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	for args in "--hook xdp" "--hook xdp --xdp-mode generic" "--hook tc" \
		"--hook tc --qdisc ingress"; do
		# shellcheck disable=SC2086
		if ! hc_start -n "$D" $args -i 0 "$DEV"; then
			fail "$name ($args): did not attach"
			continue
		fi
		out=$("$HC" cleanup --all)
		check "$name ($args): a running hookcmp's state is not touched" \
			grep -q "still runs it" <<<"$out"
		kill -KILL "$HCPID"
		wait "$HCPID" 2>/dev/null
		HCPID=
		snapshot >"$T/killed"
		check "$name ($args): kill -9 left state behind" \
			not cmp -s "$T/before" "$T/killed"
		check "$name ($args): status calls it stale" \
			grep -q "STALE" <<<"$("$HC" status "$DEV")"
		# shellcheck disable=SC2086
		"$HC" -n "$D" --hook socket --socket packet -d 0.1 -i 0 "$DEV" >/dev/null 2>"$T/err"
		check "$name ($args): a new run says to clean up, with -n" \
			grep -q "run: hookcmp -n $D cleanup $DEV" "$T/err"
		out=$("$HC" cleanup "$DEV")
		rc=$?
		check_eq "$name ($args): cleanup exit status" "$rc" 0
		check "$name ($args): cleanup says what it removed" \
			grep -qE "(detached|deleted)$" <<<"$out"
		check_state_same "$name ($args)"
	done

	# Not ours any more: someone replaced our XDP program.
	if hc_start -n "$D" --hook xdp --xdp-mode generic -i 0 "$DEV"; then
		kill -KILL "$HCPID"
		wait "$HCPID" 2>/dev/null
		HCPID=
		ip -n "$D" link set dev "$DEV" xdpgeneric off
		if plant "$name" ip -n "$D" link set dev "$DEV" xdpgeneric obj build/xdp.bpf.o sec xdp; then
			id=$(ip -n "$D" -d -j link show dev "$DEV" | jq '.[0].xdp.prog.id')
			out=$("$HC" cleanup --all)
			check "$name: a program that is not ours is left alone and reported" \
				grep -q "left alone, the device runs program $id" <<<"$out"
			check_eq "$name: theirs is still attached" \
				"$(ip -n "$D" -d -j link show dev "$DEV" | jq '.[0].xdp.prog.id')" "$id"
			ip -n "$D" link set dev "$DEV" xdpgeneric off
		fi
	else
		fail "$name: did not attach"
	fi
	check_state_same "$name (replaced program)"
	# A bpf_link needs no cleanup: it dies with the process.
	for args in "--hook xdp --xdp-attach link" "--hook tc --tc-attach tcx"; do
		kernel_lacks "$name ($args)" $args && continue
		# shellcheck disable=SC2086
		if hc_start -n "$D" $args -i 0 "$DEV"; then
			kill -KILL "$HCPID"
			wait "$HCPID" 2>/dev/null
			HCPID=
			check_state_same "$name ($args): kill -9 leaves nothing, no cleanup needed"
		else
			fail "$name ($args): did not attach"
		fi
	done
	out=$("$HC" cleanup 2>&1)
	check_eq "$name: needs DEV or --all" "$?" 2
	topo_down
}

# The same device name in two namespaces: -n picks one, before or after
# the command; without -n cleanup refuses to guess. status -j has one
# object per record.
test_cleanup_netns() {
	local name="cleanup -n" D2=hct$$e out rc pid1 pid2
	topo_up || { fail "$name: topology"; return; }
	ip netns add "$D2" && ip -n "$D2" link add "$DEV" type veth peer name hcp &&
		ip -n "$D2" link set "$DEV" up || { fail "$name: second namespace"; topo_down; return; }
	snapshot >"$T/before"
	hc_start -n "$D" --hook tc -i 0 "$DEV" && pid1=$HCPID
	hc_start --hook xdp -i 0 "$DEV" -n "$D2" && pid2=$HCPID
	HCPID=
	kill -KILL $pid1 $pid2
	wait $pid1 $pid2 2>/dev/null
	out=$("$HC" -j status)
	check "$name: status -j: one document, a typed object per record" jq_true -s \
		'length == 1 and (.[0] | length == 3 and all(.[]; .type == "record" and
			.state == "stale" and .dev == "hcd" and (.pid | type) == "number" and
			(.kind | type) == "string"))' <<<"$out"
	check_eq "$name: status -j -n: only that namespace's" \
		"$("$HC" status -j -n "$D2" | jq -c 'map(.kind)')" '["xdp"]'
	out=$("$HC" cleanup "$DEV" 2>&1)
	rc=$?
	check_eq "$name: cleanup DEV in two namespaces: exit status" "$rc" 2
	check "$name: cleanup DEV names both namespaces" \
		grep -q "in 2 network namespaces ('$D', '$D2')\|in 2 network namespaces ('$D2', '$D')" <<<"$out"
	check_eq "$name: refused, so nothing removed" "$("$HC" -j status | jq length)" 3
	out=$("$HC" -n "$D" cleanup "$DEV")
	check_eq "$name: -n NS cleanup DEV: exit status" "$?" 0
	check_eq "$name: $D's clsact and filter are gone" \
		"$(tc -n "$D" -j qdisc show dev "$DEV" | jq -c 'map(.kind)')" '["noqueue"]'
	check_eq "$name: $D2's record is left" "$("$HC" -j status | jq -c 'map([.netns, .kind])')" \
		"[[\"$D2\",\"xdp\"]]"
	check_eq "$name: $D2's program is still attached" \
		"$(ip -n "$D2" -j link show dev "$DEV" | jq '.[0].xdp.mode')" 1
	out=$("$HC" cleanup "$DEV" -j)
	check_eq "$name: cleanup DEV -j: exit status" "$?" 0
	check "$name: cleanup -j says what became of it" jq_true -s \
		'length == 1 and (.[0] | length == 1 and .[0].state == "detached" and
			.[0].netns == "'"$D2"'")' <<<"$out"
	check_eq "$name: status -j with nothing: an empty array" "$("$HC" -j status)" "[]"
	check_state_same "$name"
	ip netns del "$D2"
	topo_down
}

# A signal in every phase: load, each attach step, running, detach (also
# a second Ctrl-C during detach). The device ends as it was, exit 128+N.
test_signals() {
	local name="signal"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	signal_table "$name" <<EOF2
load INT --hook xdp
xdp TERM --hook xdp
qdisc HUP --hook tc
filter INT --hook tc
filter TERM --hook tc --qdisc ingress
tcx INT --hook tc --tc-attach tcx
socket TERM --hook socket
cgroup INT --hook cgroup
run HUP --hook xdp --xdp-mode generic
detach INT --hook tc
detach TERM --hook xdp
EOF2
	topo_down
}

# bench's generator: live frames where the kernel takes them; where it
# refuses them, the stage (AF_PACKET made XDP frames by a redirect), said
# in the report and the JSON; nothing left.
test_bench_gen() {
	local name="bench's generator" live=true feed=live
	[ -n "${HC_NO_LIVE:-}" ] && live=false feed=stage
	snapshot >"$T/before"
	"$HC" bench --scenario static-key --hooks tcx --rounds 1 --packets 2000 \
		-o "$T/gen.json" >"$T/out" 2>"$T/err"
	check_eq "$name: exit status" "$?" 0 "$T/err"
	check "$name: live frames in the JSON as the kernel has them ($live), feed $feed" \
		jq_true ".env.live_frames == $live and .env.feed == \"$feed\"" "$T/gen.json"
	check "$name: the generator's row ran its own path" jq_true \
		'.rows[] | select(.name == "gen-only") | .valid' "$T/gen.json"
	check_eq "$name: the report names the stage only where live frames are refused" \
		"$(grep -c "^frames sent by AF_PACKET on hcf and redirected as XDP frames to hcg by the stage's native XDP on hcr (live XDP frames refused here)" "$T/out")" \
		"$([ $live = true ] && echo 0 || echo 1)" "$T/out"
	check_state_same "$name"
}

# gen --method stage: AF_PACKET on a veth pair of gen's own, in a
# namespace only gen holds, whose peer redirects every frame to DEV in
# native XDP: DEV's peer takes XDP frames, on any machine, counted
# exactly there; the pair goes with gen however it ends, kill -9 too.
test_gen_stage() {
	local name="gen --method stage" out links sig
	topo_up || { fail "$name: topology"; return; }
	links=$(ip -n "$G" -o link show | wc -l)
	snapshot >"$T/before"
	if hc_start -n "$D" --hook xdp -j -i 0 "$DEV"; then
		out=$("$HC" gen -n "$G" hcg --method stage -c 6400 --flows 8 -j 2>"$T/gen.err")
		check_eq "$name: exit status" "$?" 0 "$T/gen.err"
		check_eq "$name: every frame offered left hcg, by the stage" \
			"$(jq -c '[.method, .offered, .packets]' <<<"$out")" '["stage",6400,6400]'
		sleep 0.2
		hc_stop INT
		check_eq "$name: exact counts at the XDP receiver" "$(class_counts)" "udp4:6400:6400:0"
	else
		fail "$name: receiver did not attach"
	fi
	check_eq "$name: no device of gen's left in its namespace" \
		"$(ip -n "$G" -o link show | wc -l)" "$links"
	# auto, where live frames are refused: AF_PACKET, saying why.
	if [ -n "${HC_NO_LIVE:-}" ]; then
		"$HC" gen -n "$G" hcg -c 10 --allow-drops >/dev/null 2>"$T/gen.err"
		check "gen auto without live frames: AF_PACKET, and why" grep -q \
			"^hookcmp gen: live XDP frames (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18+) not usable here; using AF_PACKET$" "$T/gen.err"
	fi
	for sig in INT KILL; do
		"$HC" gen -n "$G" hcg --method stage -d 20 --allow-drops >/dev/null 2>&1 &
		local pid=$! i
		for i in $(seq "$WAIT_TICKS"); do
			[ "$(ip -n "$G" -j -s link show hcg | jq '.[0].stats64.tx.packets + .[0].stats64.tx.dropped')" -gt 1000 ] && break
			sleep 0.1
		done
		kill -"$sig" "$pid"
		wait "$pid" 2>/dev/null
		check_eq "$name SIG$sig: no device of gen's left" \
			"$(ip -n "$G" -o link show | wc -l)" "$links"
	done
	check_state_same "$name"
	expect_table "$name usage" "-n $G gen" <<EOF2
2;--inject is live frames into DEV's receive path: no --method packet or stage;--method stage --inject hcg
2;--raw is one fixed live frame: no --method packet or stage;--method stage --raw hcg
EOF2
	topo_down
}

# Live frames refused (HOOKCMP_FAIL_AT makes any kernel refuse them, as
# this VM's does, EPERM): unsupported, exit 4, saying what to ask for
# instead and what that costs the comparison; nothing sent, nothing left.
test_live_refused() {
	local name="live frames refused" want say args out
	local stage="the stage (AF_PACKET through a veth pair whose peer redirects in native XDP) hands a device XDP frames without them, one hop more on the sending side; AF_PACKET alone hands it skbs, which native XDP converts: not a driver's path"
	local gen="Error: gen on hcg: live XDP frames (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18+) not usable here: Operation not permitted; "
	local bench="Error: bench: --feed live: live XDP frames (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18+) not usable here: Operation not permitted; "
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	while IFS='|' read -r want say args; do
		# shellcheck disable=SC2086
		out=$(HOOKCMP_FAIL_AT=gen-live:1 "$HC" $args 2>&1 >/dev/null)
		check_eq "$name: hookcmp $args: exit $want" "$?" "$want"
		check_eq "$name: hookcmp $args: what instead, and its cost" "$out" "$say"
	done <<EOF
4|${gen}--method stage or packet instead: $stage|-n $G gen --method live -c 1 hcg
4|${gen}--raw is the live loop's own ceiling: --method stage or packet instead: $stage|-n $G gen --raw -c 1 hcg
4|${gen}--inject has no other way into hcg's receive path: send from its veth peer instead (hookcmp gen PEER --method stage or packet): $stage|-n $G gen --inject -c 1 hcg
4|${bench}--feed stage (auto's choice here) hands the DUT XDP frames without them, through one veth hop more, the generator's cost, which gen-only measures apart from every row; --feed packet hands it skbs, which native XDP converts: the xdp-native and AF_XDP rows then run no driver's path|bench --feed live --rounds 1
4|${bench}without them inject runs on the stage (--feed auto or stage): hcd's NAPI takes XDP frames from its veth peer, one veth hop more, the generator's cost, which gen-only measures apart from every row|bench --topology inject --feed live --rounds 1
EOF
	# JSON: the same words, and the code, in the error object.
	check "$name: gen -j: one JSON error, exit 4, the same words" jq_true \
		--arg s "${gen#Error: }--method stage or packet instead: $stage" \
		'.type == "error" and .exit == 4 and .error == $s' \
		<<<"$(HOOKCMP_FAIL_AT=gen-live:1 "$HC" -n "$G" gen -j --method live -c 1 hcg 2>/dev/null)"
	check_eq "$name: nothing sent" "$(ip -n "$G" -j -s link show hcg | jq '.[0].stats64.tx.packets')" 0
	check_state_same "$name"
	topo_down
}

# A short bench on this kernel and CPU: where there are no tcx links the
# tcx row says it needs Linux 6.6 and the others run; under qemu's TCG
# every row is marked emulated, under KVM none (make check-vm says which).
test_bench_here() {
	local name="bench on $(uname -r)" emulated
	"$HC" bench --scenario static-key --hooks ingress,tcx --rounds 1 --packets 2000 \
		-o "$T/bench.json" >"$T/bench.txt" 2>&1
	check_eq "$name: exit status" "$?" 0 "$T/bench.txt"
	if kernel_has 6.6; then
		check "$name: the tcx row ran" jq_true \
			'.rows[] | select(.name == "tcx-pass") | .valid' "$T/bench.json"
	else
		check "$name: the tcx row is INVALID, needing Linux 6.6" jq_true \
			'.rows[] | select(.name == "tcx-pass") |
			(.valid | not) and (.reason | test("tcx links need Linux 6.6"))' "$T/bench.json"
	fi
	check "$name: the other rows ran" jq_true \
		'all(.rows[] | select(.name != "tcx-pass"); .valid)' "$T/bench.json"
	case ${HOOKCMP_VM_ACCEL:-} in
	tcg) emulated=true ;;
	kvm) emulated=false ;;
	*) emulated='.env.emulated' ;;
	esac
	check "$name: rows marked emulated as the CPU is (${HOOKCMP_VM_ACCEL:-not in make check-vm})" \
		jq_true "($emulated) as \$e | .env.emulated == \$e and
		all(.rows[]; (.flags | index(\"emulated\") != null) == \$e)" "$T/bench.json"
	check_eq "$name: the table warns as the CPU is" \
		"$(grep -c "^Warning: an emulated CPU (hypervisor signature TCGTCGTCGTCG, qemu TCG)" "$T/bench.txt")" \
		"$(jq 'if .env.emulated then 1 else 0 end' "$T/bench.json")"
}

# JIT off: say that the numbers are the interpreter's.
test_jit_off() {
	if ! set_sysctl net.core.bpf_jit_enable 0; then
		echo "SKIP jit off: this kernel keeps the BPF JIT always on"
		return
	fi
	topo_up || { fail "jit off: topology"; restore_sysctls; return; }
	"$HC" -n "$D" --hook xdp -d 0.2 -i 0 "$DEV" >/dev/null 2>"$T/err"
	restore_sysctls
	check "jit off: warned" grep -q "BPF JIT is off" "$T/err"
	topo_down
}

# gen -s above 1514, up to the MTU: a live frame holds about 3.4 KB (a
# page less headroom and skb_shared_info), so a jumbo frame goes by
# AF_PACKET, said; above the MTU gen refuses, naming device and MTU, and
# sends nothing.
test_gen_jumbo() {
	local name="gen jumbo" live tx
	need_live "$name" || return 0
	topo_up "mtu 9000" || { fail "$name: topology"; return; }
	# GRO on: NAPI at the peer, which takes live frames (XDP would refuse
	# this MTU).
	ip netns exec "$D" ethtool -K "$DEV" gro on >/dev/null
	snapshot >"$T/before"
	if hc_start -n "$D" --hook tc -j -i 0 "$DEV"; then
		live=$("$HC" gen -n "$G" hcg -s 3000 -c 100 -j 2>/dev/null | jq -c '[.method, .packets]')
		"$HC" gen -n "$G" hcg -s 9014 -c 100 2>"$T/gen.err" >/dev/null
		check_eq "$name: 9014 bytes at MTU 9000: exit 0" "$?" 0
		sleep 0.3
		hc_stop INT
		check_eq "$name: 3000 bytes: live" "$live" '["live",100]'
		check_eq "$name: every frame received at its size" \
			"$(summary | jq -c '[.total.packets, .total.bytes]')" "[200,$((100 * 3000 + 100 * 9014))]"
		check "$name: 9014 bytes: AF_PACKET, and why" grep -q \
			"^hookcmp gen: a 9014-byte frame is more than a live XDP frame holds: [0-9]* bytes here (a [0-9]*-byte page less XDP headroom, BPF_PROG_RUN's page head and skb_shared_info); using AF_PACKET$" \
			"$T/gen.err"
	else
		fail "$name: receiver did not attach"
	fi
	tx=$(ip -n "$G" -j -s link show hcg | jq '.[0].stats64.tx.packets')
	expect_table "$name" "gen -n $G" <<EOF2
2;--size 9015: more than hcg's MTU 9000 takes (9014-byte frames): ip -n $G link set dev hcg mtu 9001 raises it;hcg -s 9015 -c 1
2;--size 9019: more than hcg's MTU 9000 takes (9018-byte frames with the tag): ip -n $G link set dev hcg mtu 9001 raises it;hcg -s 9019 --vlan 5 -c 1
2;gen on hcg: a 9014-byte frame is more than a live XDP frame holds: ;hcg -s 9014 --method live -c 1
2;gen on hcg: a 9014-byte frame is more than a live XDP frame holds: ;hcg -s 9014 --inject -c 1
EOF2
	ip -n "$G" link set hcg mtu 1500
	expect_table "$name" "gen -n $G" <<EOF2
2;--size 1515: more than hcg's MTU 1500 takes (1514-byte frames): ip -n $G link set dev hcg mtu 1501 raises it;hcg -s 1515 -c 1
EOF2
	check_eq "$name: refused, nothing sent" "$(ip -n "$G" -j -s link show hcg | jq '.[0].stats64.tx.packets')" "$tx"
	check_state_same "$name"
	topo_down
}

# gen's progress line: on stderr once a second, rewritten in place with
# \r and ended by a newline, when stderr is a terminal or with
# --progress; never in the JSON (stdout), nor by itself with -j.
test_gen_progress() {
	local name="gen progress" lines
	topo_up || { fail "$name: topology"; return; }
	# AF_PACKET: the peer needs no NAPI. 3.5 s: at least two lines.
	"$HC" gen -n "$G" hcg --method packet -d 3.5 --progress -j >"$T/gen.out" 2>"$T/gen.err"
	lines=$(tr '\r' '\n' <"$T/gen.err" | grep -cE '^gen: [0-9]+ sent, [0-9]+ pps, [0-9]+ s left *$')
	check "$name --progress: a line a second, rewritten in place ($lines)" test "$lines" -ge 2 ||
		od -c "$T/gen.err" | head -5
	check "$name --progress: one line, ended by a newline" test "$(wc -l <"$T/gen.err")" = 1
	# shellcheck disable=SC2016
	check "$name --progress: never more sent than offered" jq_true --argjson last \
		"$(tr '\r' '\n' <"$T/gen.err" | sed -n 's/^gen: \([0-9]*\) sent.*/\1/p' | tail -n 1)" \
		'.offered >= $last' "$T/gen.out"
	check_eq "$name --progress -j: the JSON alone on stdout" \
		"$(jq -sc 'length' "$T/gen.out"):$(grep -c $'\r' "$T/gen.out")" "1:0"
	"$HC" gen -n "$G" hcg --method packet -d 1.5 >/dev/null 2>"$T/gen.err"
	check "$name: stderr no terminal: none" not grep -q "sent," "$T/gen.err"
	# A terminal (script(1)): shown without -j, not with it.
	if command -v script >/dev/null; then
		script -qec "$HC gen -n $G hcg --method packet -d 1.5" /dev/null >"$T/tty.out"
		check "$name: stderr a terminal: shown" grep -qE $'\rgen: [0-9]+ sent, ' "$T/tty.out"
		script -qec "$HC gen -n $G hcg --method packet -d 1.5 -j" /dev/null >"$T/tty.out"
		check "$name: stderr a terminal, -j: none" not grep -q "sent," "$T/tty.out"
	else
		echo "SKIP $name on a terminal: no script(1)"
	fi
	topo_down
}

# tests/netns.sh [NAME...]: these tests, or all of them (tests/lib.sh).
run_tests "$@"
