# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The lwt hook's netns tests, sourced by tests/netns.sh.

# lwt: the logic on a route to a test prefix out of DEV; it sees what the
# kernel forwards along that route, DEV's forwarding on for the run.
lwt_fwd() { ip netns exec "$D" cat "/proc/sys/net/ipv4/conf/$DEV/forwarding"; }
lwt_route() { ip -n "$D" -j route show 198.51.100.0/24 | jq -r '.[0].encap // empty'; }
test_lwt() {
	local name="lwt" mac
	topo_up || { fail "$name: topology"; return; }
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	snapshot >"$T/before"
	check_eq "$name: forwarding off before" "$(lwt_fwd)" 0
	expect_table "$name" "-n $D" <<EOF
2;--hook lwt cannot redirect;--hook lwt -a redirect --redirect lo $DEV
2;--prefix '1.2.3.4/24': expected an IPv4 network, A.B.C.D/LEN;--hook lwt --prefix 1.2.3.4/24 $DEV
EOF
	# A route of another's at the prefix: busy, said, and left as it was.
	ip -n "$D" route add 198.51.100.0/24 dev "$DEV"
	expect_table "$name, the prefix taken" "-n $D" <<EOF
5;a route to --prefix 198.51.100.0/24 is there already;--hook lwt $DEV
EOF
	check_eq "$name, the prefix taken: the route left as it was" \
		"$(ip -n "$D" route show 198.51.100.0/24 | sed "s/ *$//")" "198.51.100.0/24 dev $DEV scope link"
	check_eq "$name, the prefix taken: forwarding off again" "$(lwt_fwd)" 0
	ip -n "$D" route del 198.51.100.0/24
	for action in drop pass; do
		if hc_start -n "$D" --hook lwt -a "$action" -j -i 0 "$DEV"; then
			check_eq "$name $action: the route carries the run's name" \
				"$(ip -n "$D" route show 198.51.100.0/24 | grep -o "encap bpf in hookcmp\.$HCPID\.[0-9]*" | cut -d. -f1)" \
				"encap bpf in hookcmp"
			check_eq "$name $action: forwarding on while it runs" "$(lwt_fwd)" 1
			# shellcheck disable=SC2086
			"$SEND" -n "$G" --dst-mac "$mac" --dst4 198.51.100.7 hcg $MIX 2>/dev/null
			sleep 0.3
			hc_stop INT
			check_eq "$name $action: exit status after SIGINT" "$HCRC" 130
			# The IPv4 frames ip_rcv lets by (netfilter's, before it):
			# not the tagged, cut or bad ones; IPv6 has another route.
			if [ "$action" = drop ]; then
				check_eq "$name $action: per-class counts" "$(class_counts)" \
					"udp4:5:5:0 tcp4:4:4:0 icmp4:3:3:0"
			else
				check_eq "$name $action: per-class counts" "$(class_counts)" \
					"udp4:5:0:5 tcp4:4:0:4 icmp4:3:0:3"
			fi
			check_eq "$name $action: summary says where" \
				"$(summary | jq -c '[.hook, .mode, .attach]')" '["lwt","in","route"]'
		else
			fail "$name $action: hookcmp did not attach"
		fi
		check_eq "$name $action: no route left" "$(lwt_route)" ""
		check_eq "$name $action: forwarding off again" "$(lwt_fwd)" 0
	done
	# kill -9: the route and the setting stay, journalled; cleanup undoes
	# them only while the route carries the run's name.
	if hc_start -n "$D" --hook lwt -i 0 "$DEV"; then
		kill -KILL "$HCPID"
		wait "$HCPID"
		HCPID=
		check "$name: status after kill -9 names the route" \
			grep -q "^lwt route 198.51.100.0/24 (hookcmp\.[0-9.]*) on $DEV in netns '$D': STALE" <("$HC" status 2>&1)
		check "$name: cleanup deletes it" \
			grep -q "^lwt route .* on $DEV in netns '$D': deleted; forwarding off again" <("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check_eq "$name: no route after cleanup" "$(lwt_route)" ""
		check_eq "$name: forwarding off after cleanup" "$(lwt_fwd)" 0
	fi
	if hc_start -n "$D" --hook lwt -i 0 "$DEV"; then
		kill -KILL "$HCPID"
		wait "$HCPID"
		HCPID=
		ip -n "$D" route replace 198.51.100.0/24 dev "$DEV"
		check "$name: cleanup leaves another's route in its place" \
			grep -q "^lwt route .*: not ours any more: left alone" <("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check_eq "$name: ... and it is still there" \
			"$(ip -n "$D" route show 198.51.100.0/24 | sed "s/ *$//")" "198.51.100.0/24 dev $DEV scope link"
		ip -n "$D" route del 198.51.100.0/24
	fi
	check_state_same "$name"
	topo_down
}
