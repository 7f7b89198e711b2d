# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The socket hook's netns tests, sourced by tests/netns.sh.

# The UDP socket sees only datagrams to its port on a local address.
test_socket_udp() {
	local name="socket udp" mac
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
	ip -n "$D" addr add 2001:db8::2/64 dev "$DEV" nodad
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	snapshot >"$T/before"
	for action in drop pass; do
		if hc_start -n "$D" --hook socket -a "$action" -j -i 0 "$DEV"; then
			check "$name $action: kernel shows the socket" observed udp
			udp_mix "$name $action" "$mac" "$action"
		else
			fail "$name $action: hookcmp did not attach"
		fi
	done
	# Nothing addressed to the socket: after 3 s it says what it needs.
	if hc_start -n "$D" --hook socket -j -i 0 "$DEV"; then
		"$SEND" -n "$G" --dst-mac "$mac" --dst4 192.0.2.2 hcg udp4:3 2>/dev/null
		# The hint comes at 3 s of the run's clock: past it, none came.
		sleep 5
		check "$name: counting something, no hint" not grep -q "Hint:" "$T/err"
		hc_stop TERM
	fi
	if hc_start -n "$D" --hook socket --port 4242 -j -i 0 "$DEV"; then
		check "$name: counting nothing: a hint with its MAC, address, port and a gen command" \
			wait_for "^Hint: nothing reached the UDP socket on $DEV in 3 s: it sees only frames to $mac, 192.0.2.2, UDP port 4242: hookcmp gen PEER --dst-mac $mac --dst 192.0.2.2 --dport 4242 " "$T/err"
		hc_stop TERM
	fi
	check_state_same "$name"
	topo_down
}
