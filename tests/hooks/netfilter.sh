# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The netfilter hook's netns tests, sourced by tests/netns.sh.

# ip_rcv's and ipv6_rcv's count in $D of what they passed on to
# PRE_ROUTING: received, less bad or cut headers.
ip_passed() {
	ip netns exec "$D" cat /proc/net/snmp /proc/net/snmp6 /proc/net/netstat | awk '
		$1 == "Ip:" || $1 == "IpExt:" {
			if (!h[$1]++) { for (i = 2; i <= NF; i++) k[$1, i] = $i; next }
			for (i = 2; i <= NF; i++) v[$1 k[$1, i]] = $i
			next
		}
		$1 ~ /^Ip6In/ { v[$1] = $2 }
		END { print v["Ip:InReceives"] - v["Ip:InHdrErrors"] - v["IpExt:InTruncatedPkts"] + \
			v["Ip6InReceives"] - v["Ip6InHdrErrors"] - v["Ip6InTruncatedPkts"] }'
}

# UDP datagrams to no socket in $D.
udp_noports() {
	ip netns exec "$D" awk '$1 == "Udp:" && h++ { print $3 }' /proc/net/snmp
}

# nf_progrun NAME ROWS [ENV...]: prog-run in $D: its netfilter rows' parse
# depths (none: left out, saying why), the other hooks' rows alike.
nf_progrun() {
	local name=$1 want=$2 out
	shift 2
	out=$(env "$@" "$HC" -n "$D" prog-run --repeat 1000 -j 2>"$T/pr.err")
	check_eq "$name: exit status" "$?" 0 "$T/pr.err"
	check_eq "$name: the netfilter rows" \
		"$(jq -c '[.[] | select(.program == "netfilter") | .parse]' <<<"$out")" "$want"
	check "$name: the other hooks' rows" jq_true \
		'[.[] | select(.program == "xdp")] | length == 5' <<<"$out"
	[ "$want" = "[]" ] && check "$name: says why it has none" grep -qF \
		"prog-run netfilter: left out: BPF netfilter links need Linux 6.4 or newer" "$T/pr.err"
}

# BPF at netfilter: two links (IPv4, IPv6) at PRE_ROUTING, at --nf-prio.
# Of the mix sent to the DUT's MAC it counts exactly what the stack let
# through to PRE_ROUTING (by the kernel's own counters: not the tagged
# frames, nor those with cut or bad headers), and only what came in on
# DEV: lo's traffic in the same namespace passes, uncounted. Before 6.4:
# exit 4 naming the version, having changed nothing.
test_netfilter() {
	local name="netfilter" mac id want p0 p1 u0 args out prio
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if ! kernel_has 6.4; then
		check_eq "$name on $(uname -r): completion leaves it out" \
			"$(comp hookcmp --hook '')" "$(hook_list ' ' | sed 's/ netfilter//')"
		expect_table "$name on $(uname -r)" "-n $D" <<EOF
4;BPF netfilter links need Linux 6.4 or newer: Operation not supported;--hook netfilter $DEV
4;"message":"BPF netfilter links need Linux 6.4 or newer";-j --hook netfilter $DEV
EOF
		nf_progrun "$name prog-run on $(uname -r)" "[]"
		check_state_same "$name on $(uname -r)"
		topo_down
		return
	fi
	nf_progrun "$name prog-run" '["bare","none","l2","l3","l4"]'
	nf_progrun "$name prog-run, a kernel without it" "[]" HOOKCMP_FAIL_AT=netfilter-probe:22
	check_eq "$name: completion offers it" "$(comp hookcmp --hook '')" "$(hook_list ' ')"
	out=$(HOOKCMP_FAIL_AT=netfilter-probe:22 "$HC" -n "$D" --hook netfilter "$DEV" 2>&1)
	check_eq "$name, a kernel without it: exit status" "$?" 4
	check "$name, a kernel without it: says which it needs" grep -qF \
		"BPF netfilter links need Linux 6.4 or newer: Operation not supported" <<<"$out"
	expect_table "$name" "-n $D" <<EOF
2;--hook netfilter cannot redirect;--hook netfilter -a redirect --redirect lo $DEV
2;--nf-prio '-2147483648': expected a number from -2147483647 to 2147483646;--hook netfilter --nf-prio -2147483648 $DEV
2;--nf-prio '2147483647': expected a number from -2147483647 to 2147483646;--hook netfilter --nf-prio 2147483647 $DEV
2;--nf-prio '+5': expected a number;--hook netfilter --nf-prio +5 $DEV
2;--nf-prio goes with --hook netfilter, not --hook tc;--hook tc --nf-prio 5 $DEV
EOF
	ip -n "$D" link set lo up
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	want="udp4:5:5:0 tcp4:4:4:0 icmp4:3:3:0 udp6:8:8:0 tcp6:7:7:0 icmp6:1:1:0"
	for args in "" "--nf-prio -450" "--bare"; do
		# shellcheck disable=SC2086
		if ! hc_start -n "$D" --hook netfilter $args -j -i 0 "$DEV"; then
			fail "$name $args: hookcmp did not attach"
			sed 's/^/  /' "$T/err"
			continue
		fi
		id=$(prog_id)
		check_eq "$name $args: the kernel has two links of its program" \
			"$(bpftool -j link show | jq "[.[] | select(.prog_id == $id)] | length")" 2
		p0=$(ip_passed)
		# shellcheck disable=SC2086
		"$SEND" -n "$G" --dst-mac "$mac" hcg $MIX 2>/dev/null
		wait_until grown ip_passed "$p0" 28
		p1=$(ip_passed)
		# Three datagrams to a closed port on lo: delivered (the stack
		# counts them NoPorts), so not dropped, and not counted below.
		u0=$(udp_noports)
		ip netns exec "$D" bash -c 'for i in 1 2 3; do echo x >/dev/udp/127.0.0.1/9; done'
		wait_until grown udp_noports "$u0" 3
		check_eq "$name $args: lo's traffic passes" $(($(udp_noports) - u0)) 3
		hc_stop INT
		check_eq "$name $args: exit status after SIGINT" "$HCRC" 130
		if [ "$args" = --bare ]; then
			check_eq "$name $args: counts nothing" "$(summary | jq .total.packets)" 0
			continue
		fi
		check_eq "$name $args: per-class counts" "$(class_counts)" "$want"
		check_eq "$name $args: what the stack passed to PRE_ROUTING, exactly" \
			"$(summary | jq .total.packets)" $((p1 - p0))
		check_eq "$name $args: attached as" \
			"$(summary | jq -c '[.hook, .mode, .attach]')" '["netfilter","prerouting","link"]'
		prio=${args#--nf-prio }
		check_eq "$name $args: the kernel's links: IPv4 and IPv6 at PRE_ROUTING, priority ${prio:--300}" \
			"$(summary | jq -c '[.netfilter[] | [.pf, .hooknum, .priority]]')" \
			"[[\"ipv4\",0,${prio:--300}],[\"ipv6\",0,${prio:--300}]]"
	done
	# The links die with the process: kill -9 leaves nothing.
	if hc_start -n "$D" --hook netfilter -j -i 0 "$DEV"; then
		hc_stop KILL
		check_eq "$name: exit status after SIGKILL" "$HCRC" 137
	else
		fail "$name: hookcmp did not attach (kill -9)"
	fi
	check_state_same "$name"
	topo_down
}

# The kernel refuses a BPF hook at the priority of any other hook on the
# same hook point: EBUSY. iptables' raw table sits at -300, the default,
# from when it is loaded in the namespace, even empty (iptables-legacy
# -L loads it; iptables-nft makes it with its first rule). Exit 5,
# naming the priority, the family and the raw table, the hint the next
# priority; that priority attaches and counts.
test_netfilter_busy() {
	local name="netfilter beside iptables' raw table" mac p0 p1 out ipt ip6t
	kernel_lacks "$name" --hook netfilter && return
	if command -v iptables-legacy >/dev/null && command -v ip6tables-legacy >/dev/null; then
		ipt="iptables-legacy -t raw -L" ip6t="ip6tables-legacy -t raw -L"
	elif command -v iptables >/dev/null && command -v ip6tables >/dev/null; then
		ipt="iptables -t raw -A PREROUTING -i lo -j ACCEPT"
		ip6t="ip6tables -t raw -A PREROUTING -i lo -j ACCEPT"
	else
		echo "SKIP $name: neither iptables-legacy nor iptables (with ip6tables) is installed"
		return
	fi
	topo_up || { fail "$name: topology"; return; }
	# IPv6's alone: the IPv4 link made first goes with the failure.
	# shellcheck disable=SC2086
	plant "$name" ip netns exec "$D" $ip6t || { topo_down; return; }
	snapshot >"$T/before"
	out=$("$HC" -n "$D" --hook netfilter -d 2 -i 0 "$DEV" 2>&1)
	check_eq "$name (ip6tables): exit status" "$?" 5 || echo "  got: $out"
	check "$name (ip6tables): names the priority, the family and the table" grep -qF \
		"priority -300 at PRE_ROUTING (ipv6) is taken by another hook, such as iptables' raw table (there from when it is loaded, even empty): Device or resource busy" \
		<<<"$out" || echo "  got: $out"
	check_state_same "$name (ip6tables): nothing left attached"
	# shellcheck disable=SC2086
	plant "$name" ip netns exec "$D" $ipt || { topo_down; return; }
	snapshot >"$T/before"
	out=$("$HC" -n "$D" --hook netfilter -j -d 2 -i 0 "$DEV" 2>/dev/null)
	check_eq "$name: exit status" "$?" 5 || echo "  got: $out"
	check_eq "$name: the error in JSON" "$(jq -c '[.message, .hint]' <<<"$out")" \
		"[\"priority -300 at PRE_ROUTING (ipv4) is taken by another hook, such as iptables' raw table (there from when it is loaded, even empty)\",\"--nf-prio -299 attaches right after it\"]"
	check_state_same "$name: nothing left attached"
	if hc_start -n "$D" --hook netfilter --nf-prio -299 -j -i 0 "$DEV"; then
		mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
		p0=$(ip_passed)
		# shellcheck disable=SC2086
		"$SEND" -n "$G" --dst-mac "$mac" hcg $MIX 2>/dev/null
		wait_until grown ip_passed "$p0" 28
		p1=$(ip_passed)
		hc_stop INT
		check_eq "$name: --nf-prio -299: counts what reached PRE_ROUTING" \
			"$(summary | jq -c '[.total.packets, [.netfilter[].priority]]')" "[$((p1 - p0)),[-299,-299]]"
	else
		fail "$name: --nf-prio -299 did not attach"
	fi
	check_state_same "$name: --nf-prio -299"
	topo_down
}
