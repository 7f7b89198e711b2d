#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Rule sets (--rules-file) as root: a set of 1,000 source prefixes (IPv4
# and IPv6, some nested) and two 5-tuples, a known mix of frames that
# hit and miss it, and exact per-class, per-verdict counts at every hook
# the usage lists (AF_XDP's userspace logic too); bad files refused with
# nothing attached; 100,000 entries loaded.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
[ "$(id -u)" -ne 0 ] || check_mounts

# 500 IPv4 and 500 IPv6 prefixes, pass, with a longer drop nested in one
# of each; a tuple that passes a source no prefix holds, and one that
# drops a source a prefix passes.
set_file() {
	local j
	{
		echo "# tests/sets.sh: 1,000 prefixes and 2 tuples"
		for j in $(seq 0 249); do echo "10.0.$j.0/24 pass"; done
		for j in $(seq 0 248); do echo "10.1.$j.0/24 pass"; done
		echo "10.0.9.128/25 drop"
		echo
		for j in $(seq 0 498); do printf 'src 2001:db8:0:%x::/64 pass\n' "$j"; done
		echo "2001:db8:0:9:8000::/65 drop # nested in 2001:db8:0:9::/64"
		echo "udp 172.16.0.2:1000 192.0.2.2:9 pass"
		echo "tcp [2001:db8:0:7::2]:2000 [2001:db8::2]:443 drop"
	} >"$1"
}

# The mix, by source (with the default -a drop):
#   10.0.7.1, 2001:db8:0:7::1        a prefix: pass
#   10.0.9.200, 2001:db8:0:9:8000::1 the longer, nested prefix: drop
#   172.16.0.1, 2001:db8:ffff::1     no entry: the default, drop
#   172.16.0.2, 2001:db8:0:7::2      the tuples (udp4 pass, tcp6 drop),
#                                    else the prefix or the default
send_set_mix() {
	local mac=$1
	"$SEND" -n "$G" --dst-mac "$mac" --src4 10.0.7.1 --src6 2001:db8:0:7::1 \
		hcg udp4:3 tcp4:2 icmp4:1 udp6:3 tcp6:2 icmp6:1 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 10.0.9.200 --src6 2001:db8:0:9:8000::1 \
			hcg udp4:2 udp6:2 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 172.16.0.1 --src6 2001:db8:ffff::1 \
			hcg udp4:4 tcp4:1 udp6:4 tcp6:1 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 172.16.0.2 --src6 2001:db8:0:7::2 \
			hcg udp4:2 tcp4:1 udp6:1 tcp6:2 2>/dev/null
}
# name:packets:drop:pass per class, of all of it, and of what a hook sees
# of it: the UDP datagrams to its local port, or IPv4 only (lwt's route).
SET_ALL="udp4:11:6:5 tcp4:4:2:2 icmp4:1:0:1 udp6:10:6:4 tcp6:5:3:2 icmp6:1:0:1"
SET_UDP="udp4:11:6:5 udp6:10:6:4"
SET_V4="udp4:11:6:5 tcp4:4:2:2 icmp4:1:0:1"

# UDP datagrams the sockets of $D took or refused (netns.sh's).
udp_delivered() {
	ip netns exec "$D" awk '$1 == "Udp:" && h++ { n += $2 + $4 }
		$1 == "Udp6InDatagrams" || $1 == "Udp6InErrors" { n += $2 }
		END { print n + 0 }' /proc/net/snmp /proc/net/snmp6
}

# set_case HOOK: the mix through HOOK with the set, its counts exact.
set_case() {
	local h=$1 name="set at $1" want args="" n0 mac
	case $h in
	xdp | tc | xsk | netfilter) want=$SET_ALL ;;
	socket | cgroup) want=$SET_UDP ;;
	lwt) want=$SET_V4 args="--prefix 192.0.2.0/24" ;;
	*)
		fail "$name: which frames does it see? (tests/sets.sh set_case)"
		return
		;;
	esac
	kernel_lacks "$name" --hook "$h" && return
	topo_up || { fail "$name: topology"; return; }
	if [ "$want" = "$SET_UDP" ]; then
		ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
		ip -n "$D" addr add 2001:db8::2/64 dev "$DEV" nodad
	fi
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	snapshot >"$T/before"
	# shellcheck disable=SC2086
	if hc_start -n "$D" --hook "$h" $args --rules-file "$T/set" -a drop -j -i 0 "$DEV"; then
		n0=$(udp_delivered)
		check "$name: the mix sent" send_set_mix "$mac"
		if [ "$want" = "$SET_UDP" ]; then
			wait_until grown udp_delivered "$n0" 21
		else
			sleep 0.3
		fi
		hc_stop INT
		check_eq "$name: exit status after SIGINT" "$HCRC" 130
		check_eq "$name: per-class counts" "$(class_counts)" "$want" "$T/err"
		check_eq "$name: the set's entries in the summary" \
			"$(summary | jq -c .set)" '{"tuple":2,"src4":500,"src6":500}'
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	topo_down
}

# Every hook the usage lists, with the same set and the same mix.
test_set_hooks() {
	local h
	set_file "$T/set"
	for h in $(hook_list ' '); do
		set_case "$h"
	done
}

# A bad file: FILE:LINE, what was expected and found, exit 2, nothing
# attached; a good one beside it is read (the table's last line).
test_set_bad_file() {
	local name="set bad file"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	printf '# a set\n10.0.0.0/8 drop\n\n10.1.0.0/16 block\n' >"$T/bad1"
	printf '10.0.0.0/8 drop\nudp 10.0.0.1:1 10.0.0.2 pass\n' >"$T/bad2"
	printf '2001:db8::/32 drop\n2001:db8::/32 pass\n' >"$T/bad3"
	printf '10.0.0.1/8 drop\n' >"$T/bad4"
	printf 'udp 10.0.0.1:1 10.0.0.2:2 pass\n' >"$T/tuple"
	expect_table "$name" "-n $D" <<EOF
2;--rules-file $T/bad1:4: expected 'drop' or 'pass' after '10.1.0.0/16', found 'block';--hook xdp --rules-file $T/bad1 $DEV
2;--rules-file $T/bad2:2: expected the destination as ADDR:PORT (10.0.0.1:53 or [2001:db8::1]:53), found '10.0.0.2';--hook tc --rules-file $T/bad2 $DEV
2;--rules-file $T/bad3:2: expected a new entry, found '2001:db8::/32 pass', given on line 1 already;--hook xsk --rules-file $T/bad3 $DEV
2;--rules-file $T/bad4:1: expected a prefix without host bits beyond its length, found '10.0.0.1/8';--hook socket --socket packet --rules-file $T/bad4 $DEV
2;"error":"--rules-file $T/bad1:4: expected;-j --hook xdp --rules-file $T/bad1 $DEV
2;--rules-file $T/nothere: No such file or directory;--hook xdp --rules-file $T/nothere $DEV
2;--rules-file $T/tuple: its 5-tuples need --parse l4 or deeper (have l3);--hook xdp --parse l3 --rules-file $T/tuple $DEV
2;--rules-file goes with a program that classifies (no --bare), not --hook xdp --bare;--hook xdp --bare --rules-file $T/tuple $DEV
EOF
	check_state_same "$name"
	topo_down
}

# 100,000 entries, the scale issue 37 measures: loaded, and looked up.
test_set_100k() {
	local name="set of 100,000" t0
	topo_up || { fail "$name: topology"; return; }
	awk 'BEGIN { for (i = 0; i < 50000; i++)
		printf "10.%d.%d.0/24 %s\n", int(i / 256), i % 256, i == 7 ? "pass" : "drop"
		for (i = 0; i < 49999; i++) printf "2001:db8:%x:%x::/64 drop\n", int(i / 65536), i % 65536
		print "udp 172.16.0.2:1000 192.0.2.2:9 pass" }' >"$T/set100k"
	snapshot >"$T/before"
	t0=$(date +%s%N)
	if hc_start -n "$D" --hook tc --rules-file "$T/set100k" -a pass -j -i 0 "$DEV"; then
		echo "# $name: read, loaded and attached in $((($(date +%s%N) - t0) / 1000000)) ms"
		"$SEND" -n "$G" --src4 10.0.7.9 --src6 2001:db8:0:7::1 hcg udp4:2 udp6:3 2>/dev/null
		"$SEND" -n "$G" --src4 10.195.79.1 --src6 2001:db8:0:c34f::1 hcg udp4:4 udp6:5 2>/dev/null
		"$SEND" -n "$G" --src4 172.16.0.2 --src6 2001:db8:1::1 hcg udp4:1 tcp4:1 udp6:6 2>/dev/null
		sleep 0.3
		hc_stop INT
		# 10.0.7.0/24 passes, 10.195.79.0/24 (the last) drops,
		# 2001:db8:0:7::/64 drops, 2001:db8:0:c34f:: and 2001:db8:1::
		# are past the last: the default; 172.16.0.2's udp4 is the
		# tuple's pass, its tcp4 the default.
		check_eq "$name: per-class counts" "$(class_counts)" \
			"udp4:7:4:3 tcp4:1:0:1 udp6:14:3:11" "$T/err"
		check_eq "$name: the set's entries in the summary" \
			"$(summary | jq -c .set)" '{"tuple":1,"src4":50000,"src6":49999}'
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	topo_down
}

# tests/sets.sh [NAME...]: these tests, or all of them (tests/lib.sh).
run_tests "$@"
