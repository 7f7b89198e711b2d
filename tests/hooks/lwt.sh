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
			check "$name $action: the route carries the run's name" \
				grep -q "encap bpf in $(printf 'hc%x-' "$HCPID")[0-9a-f]*-[0-9a-f]* " \
				<(ip -n "$D" route show 198.51.100.0/24)
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
			grep -q "^lwt route 198.51.100.0/24 (hc[0-9a-f-]*) on $DEV in netns '$D': STALE" <("$HC" status 2>&1)
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

# DEV's forwarding is shared like a clsact: two lwt runs on one device
# (the second on another prefix); the last live one puts it back.
lwt_pair_start() {
	: >"$T/a"
	: >"$T/b"
	"$HC" -n "$D" --hook lwt -i 0 "$DEV" >/dev/null 2>"$T/a" &
	LWT_A=$!
	wait_for "attached to" "$T/a" || return 1
	"$HC" -n "$D" --hook lwt --prefix 203.0.113.0/24 -i 0 "$DEV" >/dev/null 2>"$T/b" &
	LWT_B=$!
	wait_for "attached to" "$T/b"
}
lwt_pair_stop() {
	kill -INT "$LWT_B" 2>/dev/null
	wait "$LWT_B" 2>/dev/null
	kill -INT "$LWT_A" 2>/dev/null
	wait "$LWT_A" 2>/dev/null
}
lwt_route_b() { ip -n "$D" -j route show 203.0.113.0/24 | jq -r '.[0].encap // empty'; }

test_lwt_shared() {
	local name first stop last
	topo_up || { fail "lwt, two runs: topology"; return; }
	snapshot >"$T/before"
	for first in a b; do
		name="lwt, two runs, $first stops first"
		if lwt_pair_start; then
			check "$name: the second says whose forwarding it shares" \
				grep -q "net.ipv4.conf.$DEV.forwarding is hookcmp $LWT_A's too" "$T/b"
			if [ $first = a ]; then stop=$LWT_A last=$LWT_B; else stop=$LWT_B last=$LWT_A; fi
			kill -INT "$stop"
			wait "$stop"
			check "$name: it says for whom forwarding stays" \
				grep -q "net.ipv4.conf.$DEV.forwarding stays on for hookcmp $last" "$T/$first"
			if [ $first = a ]; then
				check_eq "$name: the other's route is there" "$(lwt_route_b)" bpf
			else
				check_eq "$name: the other's route is there" "$(lwt_route)" bpf
			fi
			check_eq "$name: forwarding stays on for the other" "$(lwt_fwd)" 1
			kill -INT "$last"
			wait "$last"
			check_eq "$name: the last puts it back" "$(lwt_fwd)" 0
		else
			fail "$name: hookcmp did not attach"
		fi
		lwt_pair_stop
		check_state_same "$name"
	done
	# Both at once: the decision and the record's end are under one lock,
	# so they cannot both leave it on for each other.
	name="lwt, two runs stop at once"
	if lwt_pair_start; then
		kill -INT "$LWT_A" "$LWT_B"
		wait "$LWT_A" "$LWT_B"
		check_eq "$name: forwarding off again" "$(lwt_fwd)" 0
	else
		fail "$name: hookcmp did not attach"
	fi
	lwt_pair_stop
	check_state_same "$name"
	topo_down
}

# The first killed, cleanup --all while the second runs: its route goes,
# the forwarding stays for the second.
test_lwt_shared_cleanup() {
	local name="lwt, two runs, the first killed" out
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if lwt_pair_start; then
		kill -KILL "$LWT_A"
		wait "$LWT_A" 2>/dev/null
		out=$("$HC" cleanup --all 2>&1)
		check "$name: cleanup deletes its route, says for whom forwarding stays" \
			grep -q "^lwt route 198.51.100.0/24 .* on $DEV in netns '$D': deleted; forwarding stays on for hookcmp $LWT_B" <<<"$out"
		check_eq "$name: its route is gone" "$(lwt_route)" ""
		check_eq "$name: the second's route is there" "$(lwt_route_b)" bpf
		check_eq "$name: forwarding stays on for the second" "$(lwt_fwd)" 1
		kill -INT "$LWT_B"
		wait "$LWT_B"
		check_eq "$name: the last puts it back" "$(lwt_fwd)" 0
	else
		fail "$name: hookcmp did not attach"
	fi
	lwt_pair_stop
	check_state_same "$name"
	# Killed before the second came: the second shares it all the same.
	name="lwt, a run killed, then another"
	if hc_start -n "$D" --hook lwt -i 0 "$DEV"; then
		LWT_A=$HCPID
		kill -KILL "$HCPID"
		wait "$HCPID" 2>/dev/null
		if hc_start -n "$D" --hook lwt --prefix 203.0.113.0/24 -i 0 "$DEV"; then
			check "$name: the second says it shares the dead one's forwarding" \
				grep -q "net.ipv4.conf.$DEV.forwarding is on from hookcmp $LWT_A, which died" "$T/err"
			out=$("$HC" cleanup --all 2>&1)
			check "$name: cleanup says for whom forwarding stays" \
				grep -q "^lwt route 198.51.100.0/24 .*: deleted; forwarding stays on for hookcmp $HCPID" <<<"$out"
			check_eq "$name: forwarding stays on for the second" "$(lwt_fwd)" 1
			hc_stop INT
			check_eq "$name: the last puts it back" "$(lwt_fwd)" 0
		else
			fail "$name: the second did not attach"
		fi
	fi
	check_state_same "$name"
	topo_down
}

# A killed run's device replaced by another at its ifindex, forwarding on:
# not ours, left alone.
test_lwt_same_ifindex() {
	local name="lwt, another device at its ifindex" ifindex out
	topo_up || { fail "$name: topology"; return; }
	if hc_start -n "$D" --hook lwt -i 0 "$DEV"; then
		kill -KILL "$HCPID"
		wait "$HCPID" 2>/dev/null
		HCPID=
		ifindex=$(ip -n "$D" -j link show dev "$DEV" | jq '.[0].ifindex')
		ip -n "$D" link del "$DEV"
		ip -n "$D" link add hcr index "$ifindex" type veth peer name hcr netns "$G" &&
			ip netns exec "$D" sysctl -qw net.ipv4.conf.hcr.forwarding=1
		out=$("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check "$name: cleanup leaves its forwarding alone" \
			grep -q "^lwt route .* on $DEV in netns '$D': .*forwarding not ours any more: left alone; ifindex $ifindex is hcr" <<<"$out"
		check "$name: ... and does not say it turned it off" \
			not grep -q "forwarding off again" <<<"$out"
		check_eq "$name: hcr's forwarding stays on" \
			"$(ip netns exec "$D" cat /proc/sys/net/ipv4/conf/hcr/forwarding)" 1
		check_eq "$name: nothing left in the journal" "$(ls /run/hookcmp 2>/dev/null)" ""
	else
		fail "$name: hookcmp did not attach"
	fi
	topo_down
}

# Forwarding on before: on after, however the run ends, and the route
# carries the run's name with its PID namespace.
test_lwt_fwd_on() {
	local name="lwt, forwarding on before" pidns
	topo_up || { fail "$name: topology"; return; }
	ip netns exec "$D" sysctl -qw "net.ipv4.conf.$DEV.forwarding=1"
	snapshot >"$T/before"
	if hc_start -n "$D" --hook lwt -i 0 "$DEV"; then
		pidns=$(stat -L -c %i "/proc/$HCPID/ns/pid")
		check "$name: the route's name is the run's, hcPID-PIDNS-START" \
			grep -q "encap bpf in $(printf 'hc%x-%x-' "$HCPID" "$pidns")[0-9a-f]* " \
			<(ip -n "$D" route show 198.51.100.0/24)
		check "$name: shares with no one" not grep -q "forwarding is hookcmp" "$T/err"
		hc_stop INT
		check_eq "$name: on after the run" "$(lwt_fwd)" 1
	else
		fail "$name: hookcmp did not attach"
	fi
	if hc_start -n "$D" --hook lwt -i 0 "$DEV"; then
		kill -KILL "$HCPID"
		wait "$HCPID" 2>/dev/null
		HCPID=
		check "$name: cleanup does not turn it off" \
			not grep -q "forwarding off again" <("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check_eq "$name: on after cleanup" "$(lwt_fwd)" 1
	fi
	check_state_same "$name"
	topo_down
}
