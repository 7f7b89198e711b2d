#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Rule sets (--rules-file) as root: a set of 1,000 source prefixes (IPv4
# and IPv6, some nested) and two 5-tuples, a known mix of frames that
# hit and miss it, and exact per-class, per-verdict counts at every hook
# the usage lists (AF_XDP's userspace logic too); bad files refused with
# nothing attached; 100,000 entries loaded; gen --hit-rate's hits exact,
# spread over the set, with checksums a stack takes.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
[ "$(id -u)" -ne 0 ] || check_mounts

# 500 IPv4 and 500 IPv6 prefixes, pass, with a longer drop nested in one
# of each and a full-length one (the maps' hash, not their trie) in
# another; a tuple that passes a source no prefix holds, and one that
# drops a source a prefix passes.
set_file() {
	local j
	{
		echo "# tests/sets.sh: 1,000 prefixes and 2 tuples"
		for j in $(seq 0 249); do echo "10.0.$j.0/24 pass"; done
		for j in $(seq 0 247); do echo "10.1.$j.0/24 pass"; done
		echo "10.0.9.128/25 drop"
		echo "10.0.7.5 drop"
		echo
		for j in $(seq 0 497); do printf 'src 2001:db8:0:%x::/64 pass\n' "$j"; done
		echo "2001:db8:0:7::5/128 drop"
		echo "2001:db8:0:9:8000::/65 drop # nested in 2001:db8:0:9::/64"
		echo "udp 172.16.0.2:1000 192.0.2.2:9 pass"
		echo "tcp [2001:db8:0:7::2]:2000 [2001:db8::2]:443 drop"
	} >"$1"
}

# The mix, by source (with the default -a drop):
#   10.0.7.1, 2001:db8:0:7::1        a prefix: pass
#   10.0.9.200, 2001:db8:0:9:8000::1 the longer, nested prefix: drop
#   10.0.7.5, 2001:db8:0:7::5        a full-length entry: drop
#   172.16.0.1, 2001:db8:ffff::1     no entry: the default, drop
#   172.16.0.2, 2001:db8:0:7::2      the tuples (udp4 pass, tcp6 drop),
#                                    else the prefix or the default
send_set_mix() {
	local mac=$1
	"$SEND" -n "$G" --dst-mac "$mac" --src4 10.0.7.1 --src6 2001:db8:0:7::1 \
		hcg udp4:3 tcp4:2 icmp4:1 udp6:3 tcp6:2 icmp6:1 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 10.0.9.200 --src6 2001:db8:0:9:8000::1 \
			hcg udp4:2 udp6:2 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 10.0.7.5 --src6 2001:db8:0:7::5 \
			hcg udp4:2 tcp4:1 udp6:2 tcp6:1 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 172.16.0.1 --src6 2001:db8:ffff::1 \
			hcg udp4:4 tcp4:1 udp6:4 tcp6:1 2>/dev/null &&
		"$SEND" -n "$G" --dst-mac "$mac" --src4 172.16.0.2 --src6 2001:db8:0:7::2 \
			hcg udp4:2 tcp4:1 udp6:1 tcp6:2 2>/dev/null
}
# name:packets:drop:pass per class, of all of it, and of what a hook sees
# of it: the UDP datagrams to its local port, or IPv4 only (lwt's route).
SET_ALL="udp4:13:8:5 tcp4:5:3:2 icmp4:1:0:1 udp6:12:8:4 tcp6:6:4:2 icmp6:1:0:1"
SET_UDP="udp4:13:8:5 udp6:12:8:4"
SET_V4="udp4:13:8:5 tcp4:5:3:2 icmp4:1:0:1"

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
			wait_until grown udp_delivered "$n0" 25
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
	printf '10.0.0.0/8\0 drop\n' >"$T/nul"
	mkfifo "$T/fifo"
	# timeout: a FIFO waited on fails, not hangs.
	HC="timeout 60 $HC" expect_table "$name" "-n $D" <<EOF
2;--rules-file $T/nul:1: expected text, found a NUL byte at column 11;--hook xsk --rules-file $T/nul $DEV
2;--rules-file $T/fifo: a FIFO, not a regular file;--hook socket --socket packet --rules-file $T/fifo $DEV
2;--rules-file $T: Is a directory;--hook tc --rules-file $T $DEV
2;--rules-file $T/fifo: a FIFO, not a regular file;gen --rules-file $T/fifo --hit-rate 0.5 -c 10 hcg
2;--rules-file $T/fifo: a FIFO, not a regular file;prog-run --rules-file $T/fifo
EOF
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

# gen_set_file FILE [STEP]: 1,000 IPv4 and 1,000 IPv6 prefixes that
# drop, or every STEP-th of them.
gen_set_file() {
	awk -v step="${2:-1}" 'BEGIN {
		for (i = 0; i < 1000; i += step)
			printf "10.%d.%d.0/24 drop\n", int(i / 256), i % 256
		for (i = 0; i < 1000; i += step)
			printf "2001:db8:%x::/48 drop\n", i }' >"$1"
}

# gen_hits NAME ARGS...: gen's frames with ARGS into the DUT ($mac);
# appends "offered hits prefixes" to $T/hits, or returns 1 when frames
# did not all leave (a receiver the machine left behind: a SKIP, said).
gen_hits() {
	local name=$1 out
	shift
	out=$("$HC" gen -n "$G" hcg --dst-mac "$mac" --rate 20000 --allow-drops -j "$@" 2>"$T/gen.err")
	if [ "$(jq '.packets == .offered' <<<"$out")" != true ]; then
		echo "SKIP $name: gen $*: $(jq -r '.warning // .error // "no JSON"' <<<"${out:-null}") (the machine's load, not hookcmp's doing)"
		return 1
	fi
	jq -r '"\(.offered) \(.hits) \(.hit_prefixes)"' <<<"$out" >>"$T/hits"
}

# gen --hit-rate: the hits gen says it sent are exactly round(C/4) of
# its C frames (per thread), and exactly what a DUT holding the set
# drops, IPv4 and IPv6, live and AF_PACKET; none at rate 0. Spread: a
# DUT holding one prefix in 10 drops one hit in 10, exactly (each of the
# 1,000 prefixes is hit once per 4,000 frames); hits from one prefix, or
# a few, would give 0 or far more.
test_set_gen() {
	local name="set gen --hit-rate" mac ok=1
	# A queue per CPU: two live threads do not share one ring.
	topo_up "numrxqueues 2 numtxqueues 2" || { fail "$name: topology"; return; }
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	gen_set_file "$T/gset"
	gen_set_file "$T/gset10" 10
	snapshot >"$T/before"
	: >"$T/hits"
	if hc_start -n "$D" --hook xdp --rules-file "$T/gset" -a pass -j -i 0 "$DEV"; then
		gen_hits "$name" -c 8001 --rules-file "$T/gset" --hit-rate 0.25 &&
			gen_hits "$name" -c 8002 -6 --rules-file "$T/gset" --hit-rate 25% --method packet &&
			gen_hits "$name" -c 4002 -6 --rules-file "$T/gset" --hit-rate 0.25 --threads 2 &&
			gen_hits "$name" -c 3000 --rules-file "$T/gset" --hit-rate 0 || ok=0
		sleep 0.3
		hc_stop INT
		if [ $ok = 1 ]; then
			check_eq "$name: gen's offered, hits, prefixes hit" "$(paste -sd' ' "$T/hits")" \
				"8001 2000 1000 8002 2001 1000 4002 1000 500 3000 0 0"
			# 2000 of 8001 and 0 of 3000 IPv4; 2001 of 8002 and
			# 500 + 500 of 2001 + 2001 IPv6 (not 1001 of 4002):
			# each thread from the table's start.
			check_eq "$name: drops at the DUT are gen's hits" "$(class_counts)" \
				"udp4:11001:2000:9001 udp6:12004:3001:9003" "$T/err" "$T/gen.err"
		fi
	else
		fail "$name: hookcmp did not attach"
	fi
	: >"$T/hits"
	ok=1
	if hc_start -n "$D" --hook xdp --rules-file "$T/gset10" -a pass -j -i 0 "$DEV"; then
		gen_hits "$name" -c 8000 --rules-file "$T/gset" --hit-rate 0.25 &&
			gen_hits "$name" -c 8000 -6 --rules-file "$T/gset" --hit-rate 0.25 --method packet || ok=0
		sleep 0.3
		hc_stop INT
		[ $ok = 1 ] && check_eq "$name: spread, 1 prefix in 10 held: 1 hit in 10 dropped" \
			"$(class_counts)" "udp4:8000:200:7800 udp6:8000:200:7800" "$T/err" "$T/gen.err"
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	topo_down
}

# The DUT stack's counters gen_csum judges: UDP datagrams to no port,
# TCP segments, ICMP echo requests in, and every checksum or header
# error. Echo requests, not every ICMP message: a reply or error the DUT
# sends to a source on its subnet waits for a neighbour that never
# answers, and comes back to it as a host unreachable 3 s later, within
# the count on a slow machine (in a guest under TCG: up to 300 of them).
csum_counters() {
	ip netns exec "$D" awk '$1 == "Udp:" && u++ { n += $3; e += $7 }
		$1 == "Tcp:" && t++ { seg += $11; e += $16 }
		$1 == "Icmp:" && i++ { icmp += $10; e += $4 }
		$1 == "Ip:" && p++ { e += $5 }
		$1 == "Udp6NoPorts" { n += $2 }
		$1 == "Icmp6InEchos" { icmp += $2 }
		$1 ~ /^(Udp6InCsumErrors|Icmp6InCsumErrors|Ip6InHdrErrors)$/ { e += $2 }
		END { print n + 0, seg + 0, icmp + 0, e + 0 }' /proc/net/snmp /proc/net/snmp6
}

# The checksums gen mends as it writes each source (IPv4 header, the
# pseudo-header of UDP, TCP and ICMPv6; live, --refresh and AF_PACKET):
# the DUT's stack takes every frame, none with a checksum error.
test_set_gen_csum() {
	local name="set gen checksums" mac ok=1 c0 a
	need_live "$name: live, --refresh and AF_PACKET" || return 0
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 198.18.0.2/15 dev "$DEV"
	ip -n "$D" addr add 2001:2::2/64 dev "$DEV" nodad
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	gen_set_file "$T/gset"
	: >"$T/hits"
	# XDP pass gives the veth NAPI: live frames reach the stack.
	if hc_start -n "$D" --hook xdp -a pass -j -i 0 "$DEV"; then
		c0=$(csum_counters)
		for a in "" "-6 --refresh" "--method packet" "--proto tcp" \
			"-6 --proto tcp --refresh" "--proto tcp --method packet" \
			"--proto icmp" "-6 --proto icmp --method packet"; do
			# shellcheck disable=SC2086
			gen_hits "$name" -c 1000 --rules-file "$T/gset" --hit-rate 0.3 $a || ok=0
		done
		sleep 0.3
		hc_stop INT
		[ $ok = 1 ] && check_eq "$name: UDP, TCP, ICMP in, checksum errors" \
			"$(echo "$c0" "$(csum_counters)" | awk '{ print $5 - $1, $6 - $2, $7 - $3, $8 - $4 }')" \
			"3000 3000 2000 0" "$T/gen.err"
	else
		fail "$name: hookcmp did not attach"
	fi
	topo_down
}

# gen's usage with a set: exit 2 with the reason, and nothing sent.
test_set_gen_usage() {
	local name="set gen usage" tx0
	topo_up || { fail "$name: topology"; return; }
	gen_set_file "$T/gset"
	grep -v : "$T/gset" >"$T/gset4"
	printf '10.0.0.0/8 drop\n10.0.0.1 dorp\n' >"$T/gbad"
	tx0=$(ip -n "$G" -j -s link show dev hcg | jq '.[0].stats64.tx.packets')
	expect_table "$name" "gen -n $G" <<EOF
2;--hit-rate aims at a set: give its --rules-file;--hit-rate 0.5 -c 10 hcg
2;--hit-rate '1.5': not a fraction from 0 to 1 (0.25) or a percent (25%);--rules-file $T/gset --hit-rate 1.5 -c 10 hcg
2;--hit-rate 'x': not a fraction;--rules-file $T/gset --hit-rate x -c 10 hcg
2;--rules-file $T/gset4: the set has no IPv6 source prefix for the hits of --hit-rate;-6 --rules-file $T/gset4 --hit-rate 0.1 -c 10 hcg
2;--rules-file $T/gbad:2: expected 'drop' or 'pass' after '10.0.0.1', found 'dorp';--rules-file $T/gbad --hit-rate 0.1 -c 10 hcg
2;--rules-file $T/gset: no source near 10.0.0.1 is outside the set, for the misses: --src elsewhere;--src 10.0.0.1 --rules-file $T/gset --hit-rate 0.1 -c 10 hcg
2;--raw is one fixed frame: no --rules-file;--raw --rules-file $T/gset -c 10 hcg
2;"error":"--hit-rate aims at a set;-j --hit-rate 0.5 -c 10 hcg
EOF
	check_eq "$name: nothing sent" \
		"$(ip -n "$G" -j -s link show dev hcg | jq '.[0].stats64.tx.packets')" "$tx0"
	topo_down
}

# prog-run --rules-file: every program with the set, at the depths that
# can evaluate it; the frame's source (198.18.0.1) in its hash passes or
# drops as its entry says, a tuple set starts at l4; a bad file is exit 2.
test_set_progrun() {
	local name="prog-run with a set" v
	for v in pass drop; do
		echo "198.18.0.1 $v" >"$T/pr-$v"
		"$HC" prog-run --rules-file "$T/pr-$v" --repeat 100 -j >"$T/pr.json" 2>"$T/pr.err"
		check_eq "$name ($v): exit status" "$?" 0 "$T/pr.err"
		check_eq "$name ($v): xdp's and tc's rows, l3 and l4, and what they returned" \
			"$(jq -c '[.[] | select(.program == "xdp" or .program == "tc") | [.program, .parse, .retval]]' "$T/pr.json")" \
			"$(if [ $v = pass ]; then echo '[["xdp","l3",2],["xdp","l4",2],["tc","l3",0],["tc","l4",0]]'; else echo '[["xdp","l3",1],["xdp","l4",1],["tc","l3",2],["tc","l4",2]]'; fi)"
	done
	printf 'udp 198.18.0.1:1024 198.18.0.2:9 pass\n' >"$T/pr-tuple"
	check_eq "$name: a tuple set: l4 rows only" \
		"$("$HC" prog-run --rules-file "$T/pr-tuple" --repeat 100 -j 2>/dev/null | jq -c '[.[].parse] | unique')" '["l4"]'
	printf '10.0.0.0/8 drop\n10.1.0.0/16 block\n' >"$T/pr-bad"
	"$HC" prog-run --rules-file "$T/pr-bad" >/dev/null 2>"$T/pr.err"
	check_eq "$name: a bad line: usage" "$?" 2
	check "$name: and says where and what" grep -qF \
		"Error: --rules-file $T/pr-bad:2: expected 'drop' or 'pass' after '10.1.0.0/16', found 'block'" "$T/pr.err"
}

# tests/sets.sh [NAME...]: these tests, or all of them (tests/lib.sh).
run_tests "$@"
