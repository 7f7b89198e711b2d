# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The cgroup hook's netns tests, sourced by tests/netns.sh.

# cg_observed PID ID: program ID runs at inet ingress of the cgroup that
# hookcmp PID made, and that cgroup holds no process.
cg_observed() {
	local cg procs
	cg=$(hc_cgroups | grep "/hookcmp\.$1\.[0-9]*\.[0-9]*$") || return 1
	bpftool -j cgroup show "$cg" | jq -e --argjson id "$2" \
		'any(.[]; .id == $id and .attach_type == "cgroup_inet_ingress")' >/dev/null &&
		procs=$(cat "$cg/cgroup.procs") && [ -z "$procs" ]
}

# BPF at cgroup ingress: a cgroup_skb/ingress program on a cgroup hookcmp
# makes below its own, holding only its UDP socket: it counts what that
# socket is sent, as the socket filter does. hookcmp itself goes back to
# its own cgroup; the cgroup goes with hookcmp (after kill -9, with
# cleanup). With no cgroup2 mount in sight it mounts one of its own that
# nothing else sees.
test_cgroup() {
	local name="cgroup" mac id home n0
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
	ip -n "$D" addr add 2001:db8::2/64 dev "$DEV" nodad
	mac=$(ip -n "$D" -j link show dev "$DEV" | jq -r '.[0].address')
	home=$(grep '^0::' /proc/self/cgroup)
	snapshot >"$T/before"
	check_eq "$name: completion offers it" "$(comp hookcmp --hook '' | grep -ow cgroup)" cgroup
	expect_table "$name" "-n $D" <<EOF
2;--hook cgroup cannot redirect;--hook cgroup -a redirect --redirect lo $DEV
2;--port '0': expected a number from 1 to 65535;--hook cgroup --port 0 $DEV
2;--socket goes with --hook socket, not --hook cgroup;--hook cgroup --socket packet $DEV
EOF
	for action in drop pass; do
		if hc_start -n "$D" --hook cgroup -a "$action" -j -i 0 "$DEV"; then
			id=$(prog_id)
			check "$name $action: kernel shows the program on hookcmp's cgroup, which holds no process" \
				cg_observed "$HCPID" "$id"
			check "$name $action: kernel shows the socket" observed udp
			check_eq "$name $action: hookcmp is back in its own cgroup" \
				"$(grep '^0::' "/proc/$HCPID/cgroup")" "$home"
			udp_mix "$name $action" "$mac" "$action"
			check_eq "$name $action: summary says where" \
				"$(summary | jq -c '[.hook, .mode, .attach, .prog_id]')" "[\"cgroup\",\"ingress\",\"link\",$id]"
		else
			fail "$name $action: hookcmp did not attach"
		fi
	done
	check_eq "$name: no cgroup left" "$(hc_cgroups)" ""
	# kill -9: the cgroup stays, journalled; cleanup proves it by inode.
	if hc_start -n "$D" --hook cgroup -i 0 "$DEV"; then
		kill -KILL "$HCPID"
		wait "$HCPID"
		HCPID=
		check "$name: status after kill -9 names the cgroup" \
			grep -q "^cgroup /.*hookcmp\.[0-9.]* on $DEV in netns '$D': STALE" <(
				"$HC" status 2>&1)
		check "$name: cleanup removes it" \
			grep -q "^cgroup /.*hookcmp\.[0-9.]* on $DEV in netns '$D': deleted" <(
				"$HC" -n "$D" cleanup "$DEV" 2>&1)
		check_eq "$name: none left after cleanup" "$(hc_cgroups)" ""
	fi
	# A record whose cgroup is not the one it made: left alone.
	if hc_start -n "$D" --hook cgroup -i 0 "$DEV"; then
		local cg
		cg=$(hc_cgroups | grep "/hookcmp\.$HCPID\.[0-9]*\.[0-9]*$")
		kill -KILL "$HCPID"
		wait "$HCPID"
		HCPID=
		rmdir "$cg" && mkdir "$cg"
		check "$name: cleanup leaves a cgroup of that name it did not make" \
			grep -q "^cgroup /.*: not proven ours: left alone" <("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check "$name: ... and it is still there" test -d "$cg"
		rmdir "$cg"
	fi
	# No cgroup2 mount in hookcmp's sight: one of its own, seen by nobody.
	: >"$T/err"
	unshare --mount --propagation private sh -c \
		'umount "$(findmnt -rn -t cgroup2 -o TARGET | head -n 1)" && exec "$@"' sh \
		"$HC" -n "$D" --hook cgroup -j -i 0 "$DEV" >"$T/out" 2>"$T/err" &
	HCPID=$!
	if wait_for "attached to" "$T/err"; then
		check "$name: without a cgroup2 mount: its cgroup all the same" \
			cg_observed "$HCPID" "$(prog_id)"
		n0=$(udp_delivered)
		"$SEND" -n "$G" --dst-mac "$mac" --dst4 192.0.2.2 hcg udp4:3 tcp4:2 2>/dev/null
		wait_until grown udp_delivered "$n0" 3
		hc_stop TERM
		check_eq "$name: without a cgroup2 mount: counts" "$(class_counts)" "udp4:3:3:0"
	else
		fail "$name: without a cgroup2 mount: did not attach"
		sed 's/^/  /' "$T/err"
	fi
	check_state_same "$name"
	topo_down
}
