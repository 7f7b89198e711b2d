#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What hookcmp never touches, and what cleanup puts back (doc/safety.md):
# recycled names and ifindexes, --replace, shared qdiscs, PID namespaces,
# devices that move, a hardened journal, names and numbers, privileges.
# Each test builds what it needs and checks that hookcmp changed nothing
# it did not create.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
[ "$(id -u)" -ne 0 ] || check_mounts

kill9() {
	kill -KILL "$HCPID" 2>/dev/null
	wait "$HCPID" 2>/dev/null
	HCPID=
}

journal_empty() { [ -z "$(ls -A /run/hookcmp 2>/dev/null)" ]; }

# qdisc_kinds NS DEV: the device's qdiscs, by kind.
qdisc_kinds() { tc -n "$1" -j qdisc show dev "$2" | jq -c '[.[].kind] | sort'; }
xdp_id() { ip -n "$1" -d -j link show dev "$2" | jq '.[0].xdp.prog.id // 0'; }

# A namespace recreated under the same name, a device recreated at the
# same ifindex, someone else's qdisc on it: cleanup leaves it alone.
test_recycled() {
	local name q A=hct$$a idx out rc
	for q in clsact ingress; do
		name="recycled netns name ($q)"
		ip netns add "$A" && ip -n "$A" link add d0 type veth peer name d1 &&
			ip -n "$A" link set d0 up || { fail "$name: setup"; continue; }
		idx=$(ip -n "$A" -j link show d0 | jq '.[0].ifindex')
		if hc_start -n "$A" --hook tc --qdisc "$q" -i 0 d0; then
			kill9
			ip netns del "$A"
			ip netns add "$A"
			ip -n "$A" link add d0 type veth peer name d1
			check_eq "$name: the new d0 has the old ifindex" \
				"$(ip -n "$A" -j link show d0 | jq '.[0].ifindex')" "$idx"
			tc -n "$A" qdisc add dev d0 "$q"
			out=$("$HC" cleanup --all 2>&1)
			rc=$?
			check_eq "$name: cleanup exit" "$rc" 0
			check "$name: says the namespace went" grep -q "network namespace is gone" <<<"$out"
			check_eq "$name: their $q is still there" "$(qdisc_kinds "$A" d0 | jq -c 'index("'"$q"'") != null')" true
			check "$name: the records are gone" journal_empty
		else
			fail "$name: did not attach"
		fi
		ip netns del "$A"

		name="recycled ifindex ($q)"
		topo_up || { fail "$name: topology"; return; }
		ip -n "$D" link add hcr index 77 type veth peer name hcs &&
			ip -n "$D" link set hcr up
		if hc_start -n "$D" --hook tc --qdisc "$q" -i 0 hcr; then
			kill9
			ip -n "$D" link del hcr
			ip -n "$D" link add hcr index 77 type veth peer name hcs
			tc -n "$D" qdisc add dev hcr "$q"
			out=$("$HC" cleanup --all 2>&1)
			check_eq "$name: cleanup exit" "$?" 0
			check "$name: the filter is gone, the qdisc left alone" \
				grep -q "qdisc $q on hcr.*left alone" <<<"$out"
			check_eq "$name: their $q is still there" "$(qdisc_kinds "$D" hcr | jq -c 'index("'"$q"'") != null')" true
			check "$name: the records are gone" journal_empty
		else
			fail "$name: did not attach"
		fi
		topo_down
	done
}

# nsfs gives a freed namespace's inode to the next one made: a dead run's
# record must not take the new namespace for its own, neither at cleanup
# (their clsact stays) nor when a new run there ends (its clsact goes,
# shared with no one).
test_reused_inode() {
	local name="netns inode reused" A=hct$$r ino i out
	ip netns add "$A" && ip -n "$A" link add d0 type veth peer name d1 &&
		ip -n "$A" link set d0 up || { fail "$name: setup"; return; }
	ino=$(stat -L -c %i "/run/netns/$A")
	if ! hc_start -n "$A" --hook tc -i 0 d0; then
		fail "$name: did not attach"
		ip netns del "$A"
		return
	fi
	kill9
	ip netns del "$A"
	# The old namespace is freed in the background: until then its
	# inode is not free.
	for i in $(seq "$WAIT_TICKS"); do
		ip netns add "$A"
		[ "$(stat -L -c %i "/run/netns/$A")" = "$ino" ] && break
		ip netns del "$A"
		sleep 0.1
	done
	if [ "$(stat -L -c %i "/run/netns/$A" 2>/dev/null)" != "$ino" ]; then
		echo "SKIP $name: no new namespace got inode $ino in $WAIT_TICKS tries: nothing to mistake"
		"$HC" cleanup --all >/dev/null 2>&1
		ip netns del "$A" 2>/dev/null
		return
	fi
	ip -n "$A" link add d0 type veth peer name d1 && ip -n "$A" link set d0 up
	"$HC" -n "$A" --hook tc -d 0.3 -i 0 d0 >/dev/null 2>"$T/err"
	check_eq "$name: a new run there: exit" "$?" 0 "$T/err"
	check "$name: a new run there: shares its clsact with no one" \
		not grep -q "which shares it" "$T/err"
	check_eq "$name: a new run there: its clsact went" "$(qdisc_kinds "$A" d0)" '["noqueue"]'
	# Theirs now, whatever the run left.
	tc -n "$A" qdisc del dev d0 clsact 2>/dev/null
	plant "$name" tc -n "$A" qdisc add dev d0 clsact
	out=$("$HC" cleanup --all 2>&1)
	check_eq "$name: cleanup exit" "$?" 0
	check "$name: cleanup says the namespace went" grep -q "network namespace is gone" <<<"$out"
	check_eq "$name: their clsact is still there" "$(qdisc_kinds "$A" d0)" '["clsact","noqueue"]'
	check "$name: the records are gone" journal_empty
	ip netns del "$A"
}

# The cgroup hook's cgroup: found by its id from outside the cgroup
# namespace it was made in, named so that runs in two PID namespaces do
# not collide, and removed after a kill -9 at any step.
test_cgroup_identity() {
	local name="cgroup" cg=/sys/fs/cgroup/hct$$ p1 p2 step
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" addr add 192.0.2.2/24 dev "$DEV"
	snapshot >"$T/before"

	# Its cgroup namespace's root is below the host's: the path its
	# record keeps is not the host's.
	name="cgroup made in a cgroup namespace"
	if plant "$name" mkdir "$cg"; then
		: >"$T/err"
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec unshare --cgroup "$@"' \
			sh "$cg" "$HC" -n "$D" --hook cgroup -i 0 "$DEV" >/dev/null 2>"$T/err" &
		HCPID=$!
		if wait_for "attached to" "$T/err"; then
			kill9
			check_eq "$name: its cgroup stays after kill -9" "$(hc_cgroups | grep -c "^$cg/hookcmp\.")" 1
			"$HC" cleanup --all >"$T/out" 2>&1
			check_eq "$name: the host's cleanup removes it" \
				"$(grep -c "^cgroup .*: deleted$" "$T/out")" 1 "$T/out"
			check_eq "$name: none left" "$(hc_cgroups)" ""
			check "$name: no record left" journal_empty
		else
			fail "$name: did not attach"
			sed 's/^/  /' "$T/err"
			kill9
		fi
		"$HC" cleanup --all >/dev/null 2>&1
		# What a failed cleanup left, too.
		find "$cg" -depth -type d -exec rmdir {} \;
	fi

	# Both are pid 1 in there.
	name="cgroup runs in two PID namespaces"
	: >"$T/err1"
	: >"$T/err2"
	unshare --pid --fork --mount-proc --kill-child=KILL \
		"$HC" -n "$D" --hook cgroup --port 9 -i 0 "$DEV" >/dev/null 2>"$T/err1" &
	p1=$!
	unshare --pid --fork --mount-proc --kill-child=KILL \
		"$HC" -n "$D" --hook cgroup --port 10 -i 0 "$DEV" >/dev/null 2>"$T/err2" &
	p2=$!
	check "$name: the first attaches" wait_for "attached to" "$T/err1"
	check "$name: the second attaches too" wait_for "attached to" "$T/err2" ||
		sed 's/^/  /' "$T/err2"
	check_eq "$name: a cgroup each" "$(hc_cgroups | wc -l)" 2
	kill -KILL "$p1" "$p2"
	wait "$p1" "$p2" 2>/dev/null
	# --kill-child: hookcmp in there dies with unshare, not at once.
	wait_until sh -c "! \"$HC\" status 2>&1 | grep -q 'attached by'"
	"$HC" cleanup --all >"$T/out" 2>&1
	check_eq "$name: cleanup removes both" "$(grep -c "^cgroup .*: deleted$" "$T/out")" 2 "$T/out"
	check_eq "$name: none left" "$(hc_cgroups)" ""

	# Killed at every step: cleanup leaves nothing.
	for step in load cgroup cgroup-made cgroup-socket run detach; do
		name="cgroup killed at $step"
		: >"$T/err"
		HOOKCMP_PAUSE_AT=$step "$HC" -n "$D" --hook cgroup -i 0 "$DEV" >/dev/null 2>"$T/err" &
		HCPID=$!
		if [ "$step" = detach ]; then
			wait_for "attached to" "$T/err"
			kill -INT "$HCPID"
		fi
		if ! wait_for "paused at step '$step'" "$T/err"; then
			fail "$name: never paused there"
			sed 's/^/  /' "$T/err"
		fi
		kill9
		"$HC" cleanup --all >"$T/out" 2>&1
		check_eq "$name: no cgroup left after cleanup" "$(hc_cgroups)" "" "$T/out"
		check "$name: no record left" journal_empty
	done
	check_state_same "$name"
	topo_down
}

# --force is only about the default route; --replace takes an XDP slot
# and gives it back, after a normal exit, a signal, and kill -9 + cleanup.
test_replace() {
	local name mode flag id out rc sig
	topo_up || { fail "replace: topology"; return; }
	for mode in generic native; do
		name="--replace ($mode)"
		flag=xdpgeneric
		[ $mode = native ] && flag=xdpdrv
		plant "$name" ip -n "$D" link set dev "$DEV" $flag obj build/xdp.bpf.o sec xdp || continue
		id=$(xdp_id "$D" "$DEV")
		snapshot >"$T/before"
		out=$("$HC" -n "$D" --hook xdp --xdp-mode $mode -f "$DEV" -d 0.3 -i 0 2>&1)
		check_eq "$name: -f alone is busy" "$?" 5
		check "$name: -f alone says to use --replace" grep -q "\-\-replace takes its place" <<<"$out"
		check_eq "$name: -f alone: theirs stays" "$(xdp_id "$D" "$DEV")" "$id"
		for sig in none TERM; do
			if hc_start -n "$D" --hook xdp --xdp-mode $mode --replace -i 0 "$DEV"; then
				check "$name: warns, naming their id" grep -q "XDP program $id gave its place on $DEV" "$T/err"
				check "$name: ours runs meanwhile" not test "$(xdp_id "$D" "$DEV")" = "$id"
				check "$name: status says whose place it took" \
					grep -q "in place of $id" <<<"$("$HC" status)"
				[ $sig = none ] && hc_stop INT || hc_stop "$sig"
				check "$name ($sig): says it is back" grep -q "XDP program $id is back on $DEV" "$T/err"
				check_state_same "$name (SIG$sig)"
				check "$name ($sig): no pin left" test ! -e /sys/fs/bpf/hookcmp
			else
				fail "$name: did not attach"
			fi
		done
		if hc_start -n "$D" --hook xdp --xdp-mode $mode --replace -i 0 "$DEV"; then
			kill9
			check "$name: kill -9 leaves ours on the slot" not test "$(xdp_id "$D" "$DEV")" = "$id"
			out=$("$HC" cleanup --all 2>&1)
			check_eq "$name: cleanup exit" "$?" 0
			check "$name: cleanup puts theirs back" grep -q "XDP program $id put back" <<<"$out"
			check_state_same "$name (kill -9, cleanup)"
			check "$name: no pin left after cleanup" test ! -e /sys/fs/bpf/hookcmp
		else
			fail "$name: did not attach"
		fi
		# Theirs goes back from the fd the run holds, not from its pin.
		if hc_start -n "$D" --hook xdp --xdp-mode $mode --replace -i 0 "$DEV"; then
			rm -f /sys/fs/bpf/hookcmp/xdp-*
			hc_stop INT
			check_eq "$name, its pin removed mid-run: theirs is back" \
				"$(xdp_id "$D" "$DEV")" "$id" "$T/err"
			check "$name, its pin removed mid-run: says so" \
				grep -q "XDP program $id is back on $DEV" "$T/err"
			check_state_same "$name (pin removed mid-run)"
			check "$name, its pin removed mid-run: no pin directory left" \
				test ! -e /sys/fs/bpf/hookcmp
		else
			fail "$name: did not attach"
		fi
		# Under ip netns exec the pin is in a bpffs of hookcmp's own mount
		# namespace: kill -9 loses it, and theirs with it when nothing
		# else holds it. cleanup says so, never "put back".
		: >"$T/err"
		ip netns exec "$D" "$HC" --hook xdp --xdp-mode $mode --replace -i 0 "$DEV" \
			>/dev/null 2>"$T/err" &
		HCPID=$!
		if wait_for "attached to" "$T/err"; then
			kill9
			wait_until sh -c "! bpftool prog show id $id >/dev/null 2>&1"
			out=$("$HC" cleanup --all 2>&1)
			check_eq "$name, pin lost with kill -9: cleanup exit" "$?" 0
			check "$name, pin lost with kill -9: cleanup says theirs was lost" \
				grep -q "XDP program $id that hookcmp had replaced was lost" <<<"$out"
			check "$name, pin lost with kill -9: never says put back" \
				not grep -q "put back" <<<"$out"
			check_eq "$name, pin lost with kill -9: the slot is empty" "$(xdp_id "$D" "$DEV")" 0
			check "$name, pin lost with kill -9: no record left" journal_empty
		else
			fail "$name: under ip netns exec: did not attach"
			sed 's/^/  /' "$T/err"
			kill9
		fi
		ip -n "$D" link set dev "$DEV" $flag off
	done
	expect_table "replace" "" <<EOF
2;--replace goes with --hook xdp --xdp-attach netlink or --hook xsk --xdp-attach netlink, not --hook tc;-n $D --hook tc --replace $DEV
2;--replace goes with --hook xdp --xdp-attach netlink or --hook xsk --xdp-attach netlink, not --hook xdp --xdp-attach link;-n $D --hook xdp --xdp-attach link --replace $DEV
EOF
	topo_down
}

# Two tc runs share a clsact in both exit orders: the last one removes it,
# and neither suggests deleting it while the other's filter is on it.
test_shared_qdisc() {
	local name first second pa pb out
	topo_up || { fail "shared qdisc: topology"; return; }
	snapshot >"$T/before"
	for first in a b; do
		name="two tc runs, $first stops first"
		: >"$T/a" # not the last round's "attached to"
		: >"$T/b"
		"$HC" -n "$D" --hook tc --prio 1 -i 0 "$DEV" >/dev/null 2>"$T/a" &
		pa=$!
		wait_for "attached to" "$T/a"
		"$HC" -n "$D" --hook tc --prio 2 -i 0 "$DEV" >/dev/null 2>"$T/b" &
		pb=$!
		wait_for "attached to" "$T/b"
		check "$name: the second says whose clsact it shares" \
			grep -q "the clsact on $DEV is hookcmp $pa's too" "$T/b"
		if [ $first = a ]; then
			second=$pb
			kill -INT $pa
			wait $pa
		else
			second=$pa
			kill -INT $pb
			wait $pb
		fi
		check_eq "$name: the clsact stays for the other" "$(qdisc_kinds "$D" "$DEV")" '["clsact","noqueue"]'
		check "$name: and says why" grep -q "stays for hookcmp $second, which shares it" "$T/$first"
		check "$name: no hint to delete it" not grep -q "qdisc del" "$T/$first"
		kill -INT $second
		wait $second
		check_state_same "$name"
	done
	name="a second XDP run"
	if hc_start -n "$D" --hook xdp -i 0 "$DEV"; then
		out=$("$HC" -n "$D" --hook xdp -d 0.2 -i 0 "$DEV" 2>&1)
		check_eq "$name: busy" "$?" 5
		check "$name: says whose it is" grep -q "is hookcmp $HCPID's, which still runs" <<<"$out"
		hc_stop INT
	else
		fail "$name: the first did not attach"
	fi
	check_state_same "$name"
	topo_down
}

# A dead run's clsact with a live run's filter on it (it came after the
# death, so it did not share): that filter is hookcmp's, not someone
# else's, and the record waits for that run to end.
test_dead_qdisc_live_filter() {
	local name="a dead run's clsact, a live run's filter" out live
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		kill9
		if hc_start -n "$D" --hook tc --prio 2 -i 0 "$DEV"; then
			live=$HCPID
			out=$("$HC" -n "$D" cleanup "$DEV" 2>&1)
			check "$name: never called someone else's" not grep -q "someone else" <<<"$out"
			check "$name: cleanup says it waits for that run" \
				grep -q "left for now: the filter of hookcmp $live, which still runs" <<<"$out"
			check_eq "$name: the live run's filter stays" \
				"$(tc -n "$D" -j filter show dev "$DEV" ingress | jq '[.[] | select(.options.handle)] | length')" 1
			hc_stop INT
			out=$("$HC" cleanup --all 2>&1)
			check_eq "$name: after it ended: cleanup exit" "$?" 0
			check "$name: after it ended: the clsact goes" grep -q "qdisc clsact.*deleted" <<<"$out"
		else
			fail "$name: the second did not attach"
		fi
	else
		fail "$name: the first did not attach"
	fi
	check_state_same "$name"
	check "$name: no record left" journal_empty
	topo_down
}

# A run inside its own PID namespace is alive to the host's cleanup, and
# stale once it is dead.
test_pidns() {
	local name="pid namespace" out id pid inner i
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	: >"$T/err"
	unshare --pid --fork --mount-proc --kill-child=KILL \
		"$HC" -n "$D" --hook xdp --xdp-mode generic -i 0 "$DEV" >/dev/null 2>"$T/err" &
	pid=$!
	if wait_for "attached to" "$T/err"; then
		id=$(xdp_id "$D" "$DEV")
		check_eq "$name: it records its pid in there" \
			"$("$HC" -j status | jq -c 'map(.pid)')" "[1]"
		out=$("$HC" cleanup --all 2>&1)
		check "$name: the host's cleanup sees it alive" grep -q "still runs it" <<<"$out"
		check_eq "$name: its program stays" "$(xdp_id "$D" "$DEV")" "$id"
		check "$name: status says attached" grep -q "attached by hookcmp 1" <<<"$("$HC" status)"
		# --kill-child: kill -9 of unshare is kill -9 of hookcmp in there.
		inner=$(pgrep -P "$pid")
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		for i in $(seq "$WAIT_TICKS"); do
			[ -e "/proc/$inner" ] || break
			sleep 0.1
		done
		check "$name: once dead, it is stale" grep -q STALE <<<"$("$HC" status)"
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check "$name: cleanup detaches it" grep -q "detached" <<<"$out"
	else
		fail "$name: did not attach"
		sed 's/^/  /' "$T/err"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	# The other way round: killed here, seen from a PID namespace below,
	# which cannot see this one's processes, dead or alive: it may run.
	if hc_start -n "$D" --hook xdp --xdp-mode generic -i 0 "$DEV"; then
		id=$(xdp_id "$D" "$DEV")
		pid=$HCPID
		kill9
		out=$(unshare --pid --fork --mount-proc "$HC" cleanup --all 2>&1)
		check "$name: killed here, a cleanup below says it may still run" \
			grep -qF "hookcmp $pid may still run (its PID namespace is not visible from here)" <<<"$out" ||
			sed 's/^/  /' <<<"$out"
		check "$name: killed here, a cleanup below does not say it runs" \
			not grep -q "still runs it" <<<"$out"
		check "$name: killed here, status below says it may run" \
			grep -qF "which may still run" <<<"$(unshare --pid --fork --mount-proc "$HC" status 2>&1)"
		check_eq "$name: killed here, a cleanup below leaves its program" "$(xdp_id "$D" "$DEV")" "$id"
		out=$("$HC" cleanup --all 2>&1)
		check "$name: killed here, the cleanup here detaches it" grep -q "detached" <<<"$out"
	else
		fail "$name: did not attach here"
	fi
	check_state_same "$name"
	topo_down
}

# A run and a cleanup in time namespaces of their own (a boottime a day
# ahead shifts the start time /proc shows): the live run stays live both
# ways, and a dead one is still dead.
test_timens() {
	local name="time namespace" id out T1="unshare -T --boottime 86400"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	: >"$T/err"
	$T1 "$HC" -n "$D" --hook xdp -i 0 "$DEV" >/dev/null 2>"$T/err" &
	HCPID=$!
	if wait_for "attached to" "$T/err"; then
		id=$(xdp_id "$D" "$DEV")
		check "$name: a run in one: status from the host says attached" \
			grep -q "attached by hookcmp $HCPID" <<<"$("$HC" status 2>&1)"
		out=$("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check "$name: a run in one: cleanup from the host sees it alive" \
			grep -q "still runs it" <<<"$out"
		check_eq "$name: a run in one: its program stays" "$(xdp_id "$D" "$DEV")" "$id"
		kill9
		out=$("$HC" -n "$D" cleanup "$DEV" 2>&1)
		check "$name: a run in one, killed: cleanup from the host detaches it" \
			grep -q "detached" <<<"$out"
	else
		fail "$name: a run in one did not attach"
		sed 's/^/  /' "$T/err"
		kill9
	fi
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		id=$(tc -n "$D" -j filter show dev "$DEV" ingress | jq '[.[].options.prog.id // empty][0]')
		out=$($T1 "$HC" cleanup --all 2>&1)
		check "$name: cleanup in one sees the host's run alive" grep -q "still runs it" <<<"$out"
		check_eq "$name: cleanup in one leaves its filter" \
			"$(tc -n "$D" -j filter show dev "$DEV" ingress | jq '[.[].options.prog.id // empty][0]')" "$id"
		hc_stop
		check_eq "$name: the host's run then ends as usual" "$HCRC" 130
	else
		fail "$name: a run on the host did not attach"
	fi
	check_state_same "$name"
	topo_down
}

# Every netlink answer in turn lost (eio) or the run killed right after it
# (kill), then cleanup: nothing left at any point, each point a line.
test_nl_sweep() {
	local args how n out name
	topo_up || { fail "netlink sweep: topology"; return; }
	snapshot >"$T/before"
	for args in "--hook tc" "--hook tc --tc-attach qdisc --qdisc ingress" \
		"--hook xdp --xdp-mode generic"; do
		for how in eio kill; do
			name="netlink sweep ($args, $how)"
			for n in $(seq 100); do
				# shellcheck disable=SC2086
				out=$(HOOKCMP_NL_FAULT=$n:$how "$HC" -n "$D" $args -d 0.2 -i 0 "$DEV" 2>&1)
				grep -q "fault injected at answer $n " <<<"$out" || break
				"$HC" cleanup --all >"$T/cleanup" 2>&1
				if wait_same snapshot "$T/before" 20; then
					pass "$name at answer $n: nothing left"
				else
					fail "$name at answer $n: something was left"
					sed 's/^/  run: /' <<<"$out"
					sed 's/^/  cleanup: /' "$T/cleanup"
					diff "$T/before" "$T/before.after" | sed 's/^/  /' | head -20
					tc -n "$D" qdisc del dev "$DEV" clsact 2>/dev/null
					tc -n "$D" qdisc del dev "$DEV" ingress 2>/dev/null
					ip -n "$D" link set dev "$DEV" xdpgeneric off
					rm -rf /run/hookcmp
				fi
			done
			check "$name: swept $((n - 1)) answers to the run's end" test "$n" -gt 3 -a "$n" -lt 100
		done
	done
	topo_down
}

# A device that moves or is renamed, a namespace unmounted while a process
# holds it: what hookcmp attached is followed and undone where it is.
test_follow() {
	local name M=hct$$m N=hct$$n out rc args sleeper
	topo_up || { fail "follow: topology"; return; }
	for args in "--hook xdp --xdp-mode generic" "--hook xdp" "--hook tc"; do
		name="device moved mid-run ($args)"
		ip netns add "$M"
		# shellcheck disable=SC2086
		if hc_start -n "$D" $args -i 0 "$DEV"; then
			ip -n "$D" link set "$DEV" netns "$M"
			wait "$HCPID"
			rc=$?
			HCPID=
			check_eq "$name: exit 1" "$rc" 1
			check "$name: says it disappeared" grep -q "disappeared" "$T/err"
			if [ "$args" = "--hook tc" ]; then
				check "$name: the move took qdisc and filter" grep -q "already gone" "$T/err"
			else
				check "$name: detached where it went" grep -q "detached.*found in netns '$M'" "$T/err"
			fi
			check_eq "$name: nothing on it in $M" "$(xdp_id "$M" "$DEV") $(qdisc_kinds "$M" "$DEV")" '0 []'
			check "$name: no record left" journal_empty
		else
			fail "$name: did not attach"
		fi
		ip netns del "$M"
		topo_down
		topo_up || { fail "follow: topology"; return; }
	done

	for args in "--hook xdp --xdp-mode generic" "--hook tc"; do
		name="renamed, then kill -9 ($args)"
		snapshot >"$T/before"
		# shellcheck disable=SC2086
		if hc_start -n "$D" $args -i 0 "$DEV"; then
			kill9
			ip -n "$D" link set "$DEV" down
			ip -n "$D" link set "$DEV" name hcz
			out=$("$HC" cleanup --all 2>&1)
			check_eq "$name: cleanup exit" "$?" 0
			check "$name: undone on the new name" grep -q "called hcz now" <<<"$out"
			ip -n "$D" link set hcz name "$DEV"
			ip -n "$D" link set "$DEV" up
			check_state_same "$name"
		else
			fail "$name: did not attach"
		fi
	done
	topo_down

	name="netns unmounted, held by a process"
	ip netns add "$N" && ip -n "$N" link add x0 type veth peer name x1 &&
		ip -n "$N" link set x0 up
	ip netns exec "$N" sleep 600 &
	sleeper=$!
	if hc_start -n "$N" --hook xdp --xdp-mode generic -i 0 x0; then
		kill9
		ip netns del "$N"
		check "$name: the program stays in there" \
			test "$(nsenter --net=/proc/$sleeper/ns/net ip -d -j link show x0 | jq '.[0].xdp.prog.id // 0')" != 0
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check "$name: found through the process" grep -q "detached" <<<"$out"
		check_eq "$name: nothing left on x0" \
			"$(nsenter --net=/proc/$sleeper/ns/net ip -d -j link show x0 | jq '.[0].xdp.prog.id // 0')" 0
		check "$name: no record left" journal_empty
	else
		fail "$name: did not attach"
	fi
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	ip netns del "$N" 2>/dev/null
}

# The device moved away and another made at its ifindex while the run
# looked elsewhere (stopped): its stop finds the slot there not ours, and
# follows its program to where the device went.
test_moved_replaced() {
	local name M=hct$$m mode idx i rc
	# 20 tries in all: the race it once lost was 2 of 4.
	for mode in generic native; do
		for i in $(seq 10); do
			name="moved, another at its ifindex ($mode, $i)"
			topo_up && ip netns add "$M" || { fail "$name: topology"; return; }
			if hc_start -n "$D" --hook xdp --xdp-mode $mode -i 0 "$DEV"; then
				idx=$(ip -n "$D" -j link show dev "$DEV" | jq '.[0].ifindex')
				kill -STOP "$HCPID"
				ip -n "$D" link set "$DEV" netns "$M"
				ip -n "$D" link add "$DEV" index "$idx" type veth peer name hcq
				kill -INT "$HCPID"
				kill -CONT "$HCPID"
				wait "$HCPID"
				rc=$?
				HCPID=
				check_eq "$name: exit status" "$rc" 130 "$T/err"
				check "$name: detached where it went" \
					grep -q "detached.*found in netns '$M'" "$T/err"
				check_eq "$name: nothing on it in $M" "$(xdp_id "$M" "$DEV")" 0
				check "$name: no record left" journal_empty
			else
				fail "$name: did not attach"
			fi
			ip netns del "$M"
			topo_down
		done
	done
}

# Our filter deleted under a running hookcmp: the run ends well, its
# records go, cleanup has nothing to do; our qdisc deleted and someone's
# made: cleanup leaves theirs.
test_vanished() {
	local name="filter deleted mid-run" out rc i
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		tc -n "$D" filter del dev "$DEV" ingress pref 1
		hc_stop INT
		check_eq "$name: exit status" "$HCRC" 130
		check "$name: says the filter went" grep -q "filter (prio 1 handle 0x1) was deleted while it ran" "$T/err"
		check "$name: the clsact stays, with how to remove it" \
			grep -q "Hint: if nobody else uses it: tc -n $D qdisc del dev $DEV clsact" "$T/err"
		check "$name: no record left" journal_empty
		for i in 1 2; do
			out=$("$HC" cleanup --all 2>&1)
			check_eq "$name: cleanup $i exit" "$?" 0
			check "$name: cleanup $i has nothing to do" grep -q "nothing to clean up" <<<"$out"
		done
		tc -n "$D" qdisc del dev "$DEV" clsact
	else
		fail "$name: did not attach"
	fi
	check_state_same "$name"

	name="qdisc deleted, someone's made"
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		kill9
		tc -n "$D" qdisc del dev "$DEV" clsact
		tc -n "$D" qdisc add dev "$DEV" clsact
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check "$name: theirs is left alone" grep -q "qdisc clsact.*left alone" <<<"$out"
		check_eq "$name: theirs is still there" "$(qdisc_kinds "$D" "$DEV")" '["clsact","noqueue"]'
		check "$name: no record left" journal_empty
		tc -n "$D" qdisc del dev "$DEV" clsact
	else
		fail "$name: did not attach"
	fi
	topo_down
}

# bench --dev --tune LIST on DEV in $D, killed -9 in its first window.
bench_killed() {
	local pid
	rm -f "$T/mark"
	"$HC" -n "$D" bench --dev "$1" --rounds 1 --hooks xdp-native --tune "$2" \
		--gen-cmd "touch $T/mark; exec sleep 30" >/dev/null 2>"$T/bench.err" &
	pid=$!
	wait_until test -e "$T/mark"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	[ -e "$T/mark" ]
}

gro() { ip netns exec "$D" ethtool -k "$1" | awk '/generic-receive-offload/ { print $2 }'; }
threaded() { ip netns exec "$D" cat "/sys/class/net/$1/threaded"; }

# --tune is undone last change first, with the value from before any
# bench changed it, and only on the device it was changed on.
test_tune() {
	local name="--tune undo order" out
	need ethtool "$name" || return
	topo_up || { fail "$name: topology"; return; }
	check_eq "$name: a veth starts with GRO and threaded NAPI off" "$(gro "$DEV") $(threaded "$DEV")" "off 0"
	if bench_killed "$DEV" gro=on,threaded=on; then
		check_eq "$name: killed with both on" "$(gro "$DEV") $(threaded "$DEV")" "on 1"
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check_eq "$name: threaded NAPI put back before GRO" \
			"$(grep -o "^[a-z]* (was" <<<"$out" | tr '\n' ' ')" "threaded (was gro (was "
		check_eq "$name: both off again" "$(gro "$DEV") $(threaded "$DEV")" "off 0"
		check "$name: no record left" journal_empty
	else
		fail "$name: bench did not reach its window"
		sed 's/^/  /' "$T/bench.err"
	fi

	name="--tune after a killed one"
	if bench_killed "$DEV" gro=on; then
		"$HC" -n "$D" bench --dev "$DEV" --rounds 1 --hooks xdp-native --tune gro=on \
			--gen-cmd "exec sleep 0.5" >/dev/null 2>&1
		check_eq "$name: the second puts back what was there before the first" "$(gro "$DEV")" off
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check_eq "$name: still off" "$(gro "$DEV")" off
		check "$name: no record left" journal_empty
	else
		fail "$name: bench did not reach its window"
	fi

	name="--tune on a recycled ifindex"
	ip -n "$D" link add hcr index 78 type veth peer name hcs &&
		ip -n "$D" link set hcr up && ip netns exec "$D" ethtool -K hcr gro on
	if bench_killed hcr gro=off; then
		ip -n "$D" link del hcr
		ip -n "$D" link add hcr index 78 type veth peer name hcs
		check_eq "$name: the new device's GRO is off" "$(gro hcr)" off
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check "$name: not ours any more" grep -q "gro.*not ours any more: left alone" <<<"$out"
		check_eq "$name: the new device's GRO is left off" "$(gro hcr)" off
		check "$name: no record left" journal_empty
	else
		fail "$name: bench did not reach its window"
	fi
	topo_down
}

# Namespace names with a space, or of 200+ characters, are kept whole:
# cleanup goes into that namespace, not into one of a similar name.
test_names() {
	local name ns trap out long
	long=hct$$$(printf 'n%.0s' $(seq 220))
	for ns in "hct$$ x" "$long"; do
		name="netns name '${ns:0:12}...' (${#ns} characters)"
		# The trap: where a name read back cut short (%63s) would lead.
		if [ ${#ns} -gt 100 ]; then trap=${ns:0:63}; else trap=${ns%% *}; fi
		ip netns add "$trap" && ip -n "$trap" link add d0 type veth peer name d1 &&
			tc -n "$trap" qdisc add dev d0 clsact
		ip netns add "$ns" && ip -n "$ns" link add d0 type veth peer name d1 &&
			ip -n "$ns" link set d0 up || { fail "$name: setup"; continue; }
		if hc_start -n "$ns" --hook tc -i 0 d0; then
			kill9
			out=$("$HC" -n "$ns" cleanup d0 2>&1)
			check_eq "$name: cleanup exit" "$?" 0
			check "$name: names it whole" grep -qF "in netns '$ns'" <<<"$out"
			check_eq "$name: its clsact is gone" "$(qdisc_kinds "$ns" d0 | jq -c 'index("clsact")')" null
			check_eq "$name: the other namespace's clsact stays" \
				"$(qdisc_kinds "$trap" d0 | jq -c 'index("clsact") != null')" true
			check "$name: no record left" journal_empty
		else
			fail "$name: did not attach"
		fi
		ip netns del "$ns"
		ip netns del "$trap"
	done
	# A device named with terminal escapes: text shows them as \xHH.
	local esc=$'\e]0;X\a\e[2J'
	name="a device named with escapes"
	topo_up || { fail "$name: topology"; return; }
	ip -n "$D" link add "$esc" type veth peer name hcq && ip -n "$D" link set "$esc" up ||
		{ fail "$name: setup"; topo_down; return; }
	if hc_start -n "$D" --hook tc -i 0 "$esc"; then
		kill9
		{ "$HC" status; "$HC" -n "$D" cleanup "$esc"; "$HC" -n "$D" cleanup "$esc"; } \
			>"$T/out" 2>&1
		check "$name: status and cleanup send no control character" \
			not grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/out" "$T/err"
		check "$name: they show it escaped" grep -qF 'on \x1b]0;X\x07\x1b[2J' "$T/out"
		check "$name: no record left" journal_empty
	else
		fail "$name: did not attach"
	fi
	topo_down
}

# The journal's directory: made 0700, refused when it is not a real
# directory of root's that only root can write; what in it is not a
# record is skipped, not followed and not waited on.
test_journal() {
	local name="journal" out rc setup say
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	if hc_start -n "$D" --hook xdp -i 0 "$DEV"; then
		check_eq "$name: made 0700, root's" "$(stat -c '%a %U' /run/hookcmp)" "700 root"
		hc_stop INT
		check "$name: goes with its last record" test ! -e /run/hookcmp
	else
		fail "$name: did not attach"
	fi

	mkdir -m 0700 /run/hookcmp
	mkfifo /run/hookcmp/fifo
	ln -s /etc/passwd-hc-not-there "/run/hookcmp/00000000000000000099-xdp-1"
	printf 'junk\n' >/run/hookcmp/junk
	out=$(timeout 20 "$HC" status 2>&1)
	rc=$?
	check_eq "$name: status with a FIFO, a symlink and junk in it: exit" "$rc" 0
	check "$name: says the FIFO is skipped" grep -q "fifo: not a regular file, skipped" <<<"$out"
	check "$name: says the symlink is skipped" grep -q "00000000000000000099-xdp-1: a symbolic link, skipped" <<<"$out"
	check "$name: says the junk is skipped" grep -q "junk: not a hookcmp record, skipped" <<<"$out"
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		kill9
		out=$(timeout 20 "$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup beside them: exit" "$?" 0
		check "$name: cleanup beside them: undone" grep -q "deleted" <<<"$out"
	else
		fail "$name: did not attach beside a FIFO"
	fi
	check "$name: the symlink's target was never made" test ! -e /etc/passwd-hc-not-there
	rm -f /run/hookcmp/fifo /run/hookcmp/junk /run/hookcmp/00000000000000000099-xdp-1
	check_state_same "$name: FIFO, symlink"

	# A stray file named past the last number: the next record's number
	# neither wraps nor is taken from it.
	mkdir -p -m 0700 /run/hookcmp
	touch /run/hookcmp/99999999999999999999
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		kill9
		check "$name: beside a stray number: the record is numbered 1" \
			test -e "$(ls -d /run/hookcmp/00000000000000000001-* 2>/dev/null | head -n 1)"
		check "$name: beside a stray number: status sees it" \
			grep -q "STALE" <<<"$("$HC" status 2>&1)"
		out=$("$HC" cleanup --all 2>&1)
		check "$name: beside a stray number: cleanup undoes it" grep -q "deleted" <<<"$out"
	else
		fail "$name: did not attach beside a stray number"
	fi
	rm -f /run/hookcmp/99999999999999999999
	check_state_same "$name: a stray number"

	# A record's pin outside hookcmp's own directory is never unlinked.
	if hc_start -n "$D" --hook xdp --xdp-mode generic -i 0 "$DEV"; then
		kill9
		ip -n "$D" link set dev "$DEV" xdpgeneric off
		touch "$T/x"
		sed -i -e "s|^pin=.*|pin=/sys/fs/bpf/hookcmp/../../../..$T/x|" \
			-e 's|^prog_id=.*|prog_id=4294967295|' \
			-e 's|^foreign_id=.*|foreign_id=4294967294|' /run/hookcmp/*-xdp-*
		"$HC" cleanup --all >"$T/out" 2>&1
		check "$name: a pin outside /sys/fs/bpf/hookcmp stays" test -e "$T/x"
		check "$name: a pin outside: the record goes" journal_empty
	else
		fail "$name: did not attach for a pin outside"
	fi
	rm -f "$T/x"
	check_state_same "$name: a pin outside"

	# A symbolic link anywhere in the path is refused, a trailing slash's too.
	rm -rf /run/hookcmp
	mkdir -m 0700 /run/hc-elsewhere && ln -s /run/hc-elsewhere /run/hc-link
	out=$(HOOKCMP_JOURNAL=/run/hc-link/ "$HC" -n "$D" --hook xdp -d 0.1 -i 0 "$DEV" 2>&1)
	check_eq "$name: a symbolic link with a trailing slash: exit" "$?" 2
	check "$name: a symbolic link with a trailing slash: says why" \
		grep -qF "the journal /run/hc-link/ has a symbolic link in its path: refused" <<<"$out"
	mkdir -m 0700 /run/hc-elsewhere/j
	out=$(HOOKCMP_JOURNAL=/run/hc-link/j "$HC" -n "$D" --hook xdp -d 0.1 -i 0 "$DEV" 2>&1)
	check_eq "$name: a symbolic link in the path: exit" "$?" 2
	check_eq "$name: a symbolic link in the path: nothing attached" "$(xdp_id "$D" "$DEV")" 0
	rm -rf /run/hc-link /run/hc-elsewhere

	# Records as earlier versions wrote them (tests/journal/FORMAT-WHAT):
	# formats 2 and 3 are read, the fields added since taking their old
	# meaning; format 1's are skipped, saying why.
	local f rec
	for f in tests/journal/*; do
		rm -rf /run/hookcmp && mkdir -m 0700 /run/hookcmp
		rec=$(printf '%020d-%s-17019' "$(sed -n 's/^seq=//p' "$f")" \
			"$(sed -n 's/^kind=//p' "$f")")
		cp "$f" "/run/hookcmp/$rec"
		out=$("$HC" cleanup --all 2>&1)
		case ${f##*/} in
		1-*) check "$name: an earlier record (${f##*/}): skipped, saying why" \
			grep -q "an older hookcmp's format 1, too little proof to act on, skipped" <<<"$out" ;;
		2-first-*)
			# No /proc/net inode: where the kernel hides a process's
			# namespace, a namespace not found may live there.
			check "$name: an earlier record (${f##*/}): read and judged" \
				grep -qE "in netns 'A x': .*(gone|the record stays)" <<<"$out" ;;
		*) check "$name: an earlier record (${f##*/}): read" not grep -q "skipped" <<<"$out"
		   check "$name: an earlier record (${f##*/}): cleanup acts on it" \
			grep -q "in netns 'A x': .*gone" <<<"$out"
		   check "$name: an earlier record (${f##*/}): and it goes" journal_empty ;;
		esac
	done
	# A record another user owns: cleanup would act on it, a variant's
	# --undo run, with our privilege. Skipped, saying why.
	rm -rf /run/hookcmp && mkdir -m 0700 /run/hookcmp
	cp tests/journal/4-qdisc /run/hookcmp/00000000000000000004-qdisc-17019
	chown 65534 /run/hookcmp/00000000000000000004-qdisc-17019
	out=$("$HC" cleanup --all 2>&1)
	check "$name: a record of another user's: skipped, saying why" \
		grep -q "00000000000000000004-qdisc-17019: owned by uid 65534, skipped" <<<"$out"
	rm -rf /run/hookcmp
	# A live one, rewritten as format 2's first records were: undone.
	if hc_start -n "$D" --hook tc -i 0 "$DEV"; then
		kill9
		sed -i '1s/ [0-9]$/ 2/; /^netns_proc=/d; /^netns_cookie=/d; /^cgroup/d; /^proof=/d; /^cmd=/d' /run/hookcmp/*
		out=$("$HC" cleanup --all 2>&1)
		check "$name: format 2's first records: undone" grep -q "deleted" <<<"$out"
		check "$name: format 2's first records: none left" journal_empty
	else
		fail "$name: did not attach for format 2's first records"
	fi
	check_state_same "$name: earlier records"

	# A read-only journal: the permission exit, its reason said once.
	mkdir "$T/ro" && mount -t tmpfs -o ro tmpfs "$T/ro"
	out=$(HOOKCMP_JOURNAL=$T/ro/j "$HC" -n "$D" --hook tc -d 0.1 -i 0 "$DEV" 2>&1)
	check_eq "$name: read-only: exit 3" "$?" 3
	check_eq "$name: read-only: says why, once" \
		"$(grep -c "Read-only file system" <<<"$out") $(grep -c "cannot create the journal $T/ro/j: Read-only file system$" <<<"$out")" "1 1"
	check_eq "$name: read-only: nothing attached" "$(qdisc_kinds "$D" "$DEV")" '["noqueue"]'
	umount "$T/ro"

	while IFS=';' read -r setup say; do
		rm -rf /run/hookcmp
		eval "$setup"
		out=$("$HC" -n "$D" --hook xdp -d 0.1 -i 0 "$DEV" 2>&1)
		check_eq "$name: $setup: refused with exit 3" "$?" 3
		check "$name: $setup: says why" grep -qF -- "$say" <<<"$out"
		check_eq "$name: $setup: nothing attached" "$(xdp_id "$D" "$DEV")" 0
		"$HC" status >/dev/null 2>&1
		check_eq "$name: $setup: status refuses too" "$?" 3
	done <<EOF
mkdir -m 0700 /run/hookcmp && chown 65534 /run/hookcmp;the journal /run/hookcmp belongs to uid 65534, not to root: refused
mkdir -m 0770 /run/hookcmp;the journal /run/hookcmp can be written by others (mode 0770): refused
mkdir -m 0700 /run/hc-elsewhere && ln -s /run/hc-elsewhere /run/hookcmp;the journal /run/hookcmp is a symbolic link: refused
touch /run/hookcmp;the journal /run/hookcmp is not a directory: refused
EOF
	rm -rf /run/hookcmp /run/hc-elsewhere
	topo_down
}

# --journal DIR is an option: a directory it would refuse is a usage
# error (exit 2) found before anything is attached, for run and bench.
test_journal_option() {
	local name="--journal DIR refused" j=$T/j out rc
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	mkdir -m 1777 "$j"
	out=$("$HC" -n "$D" --hook xdp -d 0.1 -i 0 --journal "$j" "$DEV" 2>&1)
	rc=$?
	check_eq "$name: writable by others: run's exit" "$rc" 2
	check "$name: run names it and why" grep -qF \
		"the journal $j can be written by others (mode 1777): refused" <<<"$out" || echo "  got: $out"
	check "$name: run attached nothing" not grep -q "attach failed" <<<"$out" || echo "  got: $out"
	check_eq "$name: run: no record in it" "$(ls -A "$j")" ""
	out=$("$HC" -n "$D" bench --dev "$DEV" --external --rounds 1 --hooks xdp-native \
		--journal "$j" -o "$T/b.json" 2>&1)
	rc=$?
	check_eq "$name: writable by others: bench's exit" "$rc" 2
	check "$name: bench names it and why" grep -qF \
		"the journal $j can be written by others (mode 1777): refused" <<<"$out" || echo "  got: $out"
	check "$name: bench wrote no report" test ! -e "$T/b.json"
	check_eq "$name: bench: no record in it" "$(ls -A "$j")" ""
	out=$("$HC" -n "$D" --hook tc -d 0.1 -i 0 --journal "$j/no/such" "$DEV" 2>&1)
	check_eq "$name: a parent missing: run's exit" "$?" 2
	check "$name: a parent missing: says so" grep -qF \
		"cannot create the journal $j/no/such: No such file or directory" <<<"$out" || echo "  got: $out"
	rmdir "$j"
	check_state_same "$name"
	topo_down
}

# A dead anonymous namespace's records: gone, with what was in it; a live
# one is reached through a process in it.
test_anonymous() {
	local name="anonymous netns gone" out pid hc
	: >"$T/err"
	unshare --net sh -c "ip link add a0 type veth peer name a1 && ip link set a0 up &&
		exec $HC --hook xdp --xdp-mode generic -i 0 a0" >/dev/null 2>"$T/err" &
	pid=$!
	if wait_for "attached to" "$T/err"; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		check "$name: status shows it stale" grep -q STALE <<<"$("$HC" status)"
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check "$name: says it went with its namespace" grep -q "network namespace is gone" <<<"$out"
		check "$name: status shows nothing" grep -q "nothing attached" <<<"$("$HC" status)"
	else
		fail "$name: did not attach"
	fi

	name="anonymous netns held by a process"
	: >"$T/err"
	unshare --net sh -c "ip link add a0 type veth peer name a1 && ip link set a0 up &&
		{ $HC --hook xdp --xdp-mode generic -i 0 a0 2>$T/err & echo \$! >$T/hcpid; } && exec sleep 600" \
		>/dev/null 2>&1 &
	pid=$!
	if wait_for "attached to" "$T/err"; then
		kill -KILL "$(cat "$T/hcpid")"
		for hc in $(seq "$WAIT_TICKS"); do
			[ -e "/proc/$(cat "$T/hcpid")" ] || break
			sleep 0.1
		done
		out=$("$HC" cleanup --all 2>&1)
		check_eq "$name: cleanup exit" "$?" 0
		check "$name: found through the process and detached" grep -q "detached" <<<"$out"
		check_eq "$name: nothing on a0" \
			"$(nsenter --net=/proc/$pid/ns/net ip -d -j link show a0 | jq '.[0].xdp.prog.id // 0')" 0
	else
		fail "$name: did not attach"
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null
	check "$name: no record left" journal_empty
}

# stdin, stdout or stderr closed: they become /dev/null, not the next
# socket hookcmp opens (the text would go into rtnetlink).
test_fds() {
	local name fd pid i
	topo_up || { fail "closed fds: topology"; return; }
	snapshot >"$T/before"
	for fd in 0 1 2; do
		name="fd $fd closed"
		case $fd in
		0) "$HC" -n "$D" --hook tc -i 0.1 "$DEV" <&- >/dev/null 2>&1 & ;;
		1) "$HC" -n "$D" --hook tc -i 0.1 "$DEV" >&- 2>/dev/null & ;;
		2) "$HC" -n "$D" --hook tc -i 0.1 "$DEV" >/dev/null 2>&- & ;;
		esac
		pid=$!
		for i in $(seq "$WAIT_TICKS"); do
			tc -n "$D" filter show dev "$DEV" ingress | grep -q hookcmp && break
			sleep 0.1
		done
		check_eq "$name: it is /dev/null" "$(readlink "/proc/$pid/fd/$fd")" /dev/null
		kill -INT "$pid"
		wait "$pid"
		check_eq "$name: exit status" "$?" 130
		check_state_same "$name"
	done
	topo_down
}

# Numbers are decimal (0x for --handle), never signed or octal; a tc
# conflict of any kind is busy; JSON stays JSON for bytes that are not
# UTF-8.
test_numbers() {
	local name="numbers" out
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	expect_table "$name" "-n $D" <<EOF
2;--prio ' -18446744073709551614': expected a number from 1 to 65535;--hook tc --prio ' -18446744073709551614' -d 0.3 -i 0 $DEV
2;--port '0x10': expected a number;--hook socket --port 0x10 -d 0.3 -i 0 $DEV
EOF
	check_state_same "$name: refused"
	if hc_start -n "$D" --hook tc --prio 08 --handle 0x10 -d 30 -i 0 "$DEV"; then
		check_eq "$name: --prio 08 is prio 8, --handle 0x10 is 16" \
			"$(tc -n "$D" -j filter show dev "$DEV" ingress | jq -c '[.[] | select(.options.handle) | [.pref, .options.handle]]')" \
			'[[8,"0x10"]]'
		hc_stop INT
	else
		fail "$name: --prio 08 did not attach"
	fi
	if hc_start -n "$D" --hook socket --port 010 -d 30 -i 0 "$DEV"; then
		check "$name: --port 010 binds port 10" \
			grep -q ":10 " <<<"$(ip netns exec "$D" ss -Hlun)"
		hc_stop INT
	else
		fail "$name: --port 010 did not bind"
	fi
	check_state_same "$name"

	if plant "$name" tc -n "$D" qdisc add dev "$DEV" clsact &&
		plant "$name" tc -n "$D" filter add dev "$DEV" ingress prio 1 handle 1 \
			protocol ip bpf da obj build/tc.bpf.o sec tc; then
		snapshot >"$T/before"
		out=$("$HC" -n "$D" --hook tc -d 0.2 -i 0 "$DEV" 2>&1)
		check_eq "$name: a filter of another protocol at our prio: busy" "$?" 5
		check "$name: and says so" grep -q "a bpf filter of protocol 0x0800 holds prio 1 already" <<<"$out"
		check_state_same "$name: protocol conflict"
	fi
	tc -n "$D" qdisc del dev "$DEV" clsact 2>/dev/null

	out=$("$HC" -j -n "$(printf 'hc\377x')" --hook xdp "$DEV" 2>/dev/null)
	check "$name: a name that is not UTF-8 in JSON" jq_true -e \
		'.error | test("hc\u00ffx")' <<<"$out"
	topo_down
}

# The least privilege each hook needs, as a user that is not root.
test_privileges() {
	local name args caps want out j
	topo_up || { fail "privileges: topology"; return; }
	# Where that user can reach it: $T is root's alone.
	j=$(mktemp -d "${TMPDIR:-/tmp}/hookcmp-journal.XXXXXX") && chown 65534 "$j"
	snapshot >"$T/before"
	# want: exit and words without --journal, then with it.
	while IFS=';' read -r caps want args; do
		name="least privilege: --hook $args with $caps"
		# shellcheck disable=SC2086
		out=$(ip netns exec "$D" setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps="$caps" --ambient-caps="$caps" \
			"$HC" --hook $args --journal "$j" -d 0.2 -i 0 "$DEV" 2>&1)
		check_eq "$name: exit" "$?" "${want%%:*}"
		check "$name: says '${want#*:}'" grep -qF -- "${want#*:}" <<<"$out"
		check_state_same "$name"
	done <<EOF
+bpf,+net_admin;3:missing: CAP_PERFMON;xdp
+bpf,+net_admin,+perfmon;0:attached to;xdp
+bpf,+net_admin,+perfmon;0:attached to;xdp --xdp-mode generic
+bpf,+net_admin,+perfmon;0:attached to;tc
+bpf,+net_admin,+perfmon;0:attached to;tc --qdisc ingress
+bpf,+net_admin,+perfmon;3:missing: CAP_NET_BIND_SERVICE;socket
+bpf,+net_admin,+perfmon;0:attached to;socket --port 5000
+bpf,+net_admin,+perfmon,+net_bind_service;0:attached to;socket
+bpf,+net_admin,+perfmon;3:missing: CAP_NET_RAW;socket --socket packet
+bpf,+net_admin,+perfmon,+net_raw;0:attached to;socket --socket packet
+bpf,+net_admin,+perfmon,+net_raw;3:missing: CAP_IPC_LOCK;xsk
+bpf,+net_admin,+perfmon,+net_raw,+ipc_lock;0:attached to;xsk
+bpf,+net_admin,+perfmon;3:missing: CAP_SYS_ADMIN;xdp --replace
EOF
	if kernel_has 6.6; then
		out=$(ip netns exec "$D" setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=+bpf,+net_admin,+perfmon --ambient-caps=+bpf,+net_admin,+perfmon \
			"$HC" --hook tc --tc-attach tcx -d 0.2 -i 0 "$DEV" 2>&1)
		check_eq "least privilege: tcx needs no journal: exit" "$?" 0
	fi
	if kernel_has 6.4; then
		out=$(ip netns exec "$D" setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=+bpf,+net_admin,+perfmon --ambient-caps=+bpf,+net_admin,+perfmon \
			"$HC" --hook netfilter -d 0.2 -i 0 "$DEV" 2>&1)
		check_eq "least privilege: netfilter needs no more, nor a journal: exit" "$?" 0
		check_state_same "least privilege: netfilter"
	fi
	out=$(ip netns exec "$D" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+bpf,+net_admin,+perfmon --ambient-caps=+bpf,+net_admin,+perfmon \
		"$HC" --hook xdp -d 0.2 -i 0 "$DEV" 2>&1)
	check_eq "least privilege: without --journal: exit" "$?" 3
	check "least privilege: the error names the journal" \
		grep -q "the journal /run/hookcmp: Permission denied$" <<<"$out"
	check "least privilege: the hint names --journal" \
		grep -q "^Hint: --journal DIR keeps it elsewhere" <<<"$out"
	rm -rf "$j"
	check_state_same "least privilege: without --journal"
	if hc_start -n "$D" --hook xdp -i 0 "$DEV"; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$HC" status 2>&1)
		check_eq "status without permission: exit 3" "$?" 3
		check "status without permission: names the journal" grep -q "the journal /run/hookcmp: Permission denied" <<<"$out"
		hc_stop INT
	else
		fail "privileges: did not attach"
	fi
	topo_down
}

# A killed bench leaves no half-written output: files appear whole, at
# the end.
test_outputs() {
	local name="bench outputs" pid
	: >"$T/bench.err"
	HOOKCMP_PAUSE_AT=bench-row "$HC" bench --scenario aa --rounds 1 --packets 2000 \
		-o "$T/b.json" --csv "$T/b.csv" >/dev/null 2>"$T/bench.err" &
	pid=$!
	if wait_for "paused at step 'bench-row'" "$T/bench.err"; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		check "$name: kill -9 leaves neither file" test ! -e "$T/b.json" -a ! -e "$T/b.csv"
		check_eq "$name: nor a temporary one" "$(ls -A "$T" | grep -c 'b\.')" 0
	else
		fail "$name: bench did not reach its first row"
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
	fi
	"$HC" bench --scenario aa --rounds 1 --packets 2000 -o "$T/b.json" --csv "$T/b.csv" \
		>/dev/null 2>&1
	check_eq "$name: a run to its end: exit" "$?" 0
	check "$name: writes the JSON whole" jq_true '.rows | length > 0' "$T/b.json"
	check "$name: writes the CSV" test -s "$T/b.csv"
}

# The sweeps' own /tmp (S/tmp, bound over /tmp for hookcmp and all it
# runs): what they leave there is theirs, whatever other tests leave in
# the host's. S is under the sandbox's private /run, so that the tools'
# stand-ins in S/bin stay in sight.
# An array, not a function: "${IN_TMP[@]}" hookcmp ... & is hookcmp's pid.
S=/run/hct$$
# shellcheck disable=SC2016 # the inner sh's $0 and $@
IN_TMP=(unshare --mount --propagation private --
	sh -c 'mount --bind "$0" /tmp && exec "$@"' "$S/tmp")

# What bench's nft, iptables and ipset kinds could leave, or change of
# someone else's, byte for byte; and the journal, /tmp and namespaces.
sweep_state() {
	# stderr: iptables-nft's tables, "managed by iptables-nft"
	ip netns exec "$D" nft list ruleset 2>/dev/null
	ip netns exec "$D" iptables-save -t raw | grep -v '^#'
	ip netns exec "$D" ipset save
	ls -A /run/hookcmp 2>/dev/null
	ls -A "$S/tmp"
	ip netns list
}

# The DUT, with someone else's nft table, iptables raw rule and ipset set.
sweep_up() {
	topo_up && ip -n "$D" addr add 198.18.0.2/15 dev "$DEV" &&
		ip netns exec "$D" nft -f - <<-EOF &&
			table inet foreign {
				set peers { type ipv4_addr; elements = { 192.0.2.1 } }
				chain pre {
					type filter hook prerouting priority -300;
					ip saddr @peers counter accept
				}
			}
		EOF
		ip netns exec "$D" ipset create foreign hash:ip &&
		ip netns exec "$D" ipset add foreign 192.0.2.1 &&
		# both chains: as sweep_reset's iptables-restore leaves them
		ip netns exec "$D" iptables-restore <<-EOF &&
			*raw
			:PREROUTING ACCEPT [0:0]
			:OUTPUT ACCEPT [0:0]
			-A PREROUTING -i $DEV -m set --match-set foreign src -m comment --comment foreign -j ACCEPT
			COMMIT
		EOF
		mkdir -p "$S/tmp" "$S/bin"
}

# H1: a kill -9 while nft -f, iptables-restore or ipset restore loads a
# big script leaves no script file in /tmp. The tools' stand-ins hold a
# big one, as a long load would, and say how much of it they could read.
test_script_kill() {
	local name tool real row size pid
	sweep_up || { fail "script files: setup"; topo_down; return; }
	sweep_state >"$T/sweep"
	for tool in nft iptables-restore ipset; do
		real=$(command -v "$tool") || { fail "script files: no $tool"; return; }
		cat >"$S/bin/$tool" <<-EOF
			#!/bin/sh
			for f; do :; done
			n=\$({ wc -c <"\$f"; } 2>/dev/null)
			if [ "\${n:-0}" -gt 100000 ]; then
				echo "\$n" >"$S/read"
				exec sleep 30
			fi
			exec $real "\$@"
		EOF
		chmod +x "$S/bin/$tool"
	done
	while read -r row size; do
		name="kill -9 while $row loads $size entries"
		rm -f "$S/read"
		PATH=$S/bin:$PATH "${IN_TMP[@]}" "$HC" -n "$D" bench --dev "$DEV" --scenario scale \
			--sizes "1,$size" --hooks "$row" --rounds 1 --gen-cmd "echo packets 0" \
			--no-path-check >/dev/null 2>"$T/err" &
		pid=$!
		if wait_until test -s "$S/read"; then
			kill -KILL "$pid"
			wait "$pid" 2>/dev/null
			pass "$name: the tool had its script ($(cat "$S/read") bytes)"
			"${IN_TMP[@]}" "$HC" cleanup --all >"$T/cleanup" 2>&1
			check_eq "$name, then cleanup --all: no script file left in /tmp" \
				"$(ls -A "$S/tmp")" ""
		else
			fail "$name: the tool never had its script"
			sed 's/^/  /' "$T/err"
			kill -KILL "$pid"
			wait "$pid" 2>/dev/null
			"$HC" cleanup --all >"$T/cleanup" 2>&1
		fi
		rm -f "$S/tmp/"*
		state_same "$name, then cleanup: nothing else left, nothing else touched" \
			sweep_state "$T/sweep"
	done <<-EOF
		nft-set-100k 100000
		ipset-100k 100000
		iptables-rules-10k 10000
	EOF
	rm -rf "$S"
	topo_down
}

# sweep_reset: back to sweep_up's state after a kill point that left
# something: everything flushed, then someone else's put back.
sweep_reset() {
	ip netns exec "$D" nft flush ruleset
	ip netns exec "$D" ipset destroy
	ip netns exec "$D" nft -f "$T/sweep.nft"
	ip netns exec "$D" ipset restore <"$T/sweep.ipset"
	ip netns exec "$D" iptables-restore <"$T/sweep.ipt"
	rm -rf /run/hookcmp "$S/tmp/"*
}

# sweep_kinds BENCH-ARGS...: kill -9 at kill point N (HOOKCMP_KILL_AT:
# before and after every program bench runs, every journal write), for
# N = 1, 2, ... until a run ends before it; after each, cleanup --all
# leaves nothing and has touched nothing of someone else's.
SWEPT=0
SWEPT_OK=0
sweep_kinds() {
	local n at name="scale sweep (${*: -1})"
	for n in $(seq 1000); do
		# in the background: no "Killed" line from this shell
		HOOKCMP_KILL_AT=$n "${IN_TMP[@]}" "$HC" -n "$D" bench --dev "$DEV" --rounds 2 \
			--gen-cmd "echo packets 0" --no-path-check "$@" >/dev/null 2>"$T/err" &
		wait $! 2>/dev/null
		at=$(sed -n "s/^hookcmp: killed at kill point $n (\(.*\))$/\1/p" "$T/err")
		[ -n "$at" ] || break
		"${IN_TMP[@]}" "$HC" cleanup --all >"$T/cleanup" 2>&1
		SWEPT=$((SWEPT + 1))
		if wait_same sweep_state "$T/sweep" 20; then
			SWEPT_OK=$((SWEPT_OK + 1))
		else
			fail "$name: kill point $n ($at): something left or touched"
			grep -v "^round\|^hookcmp: killed" "$T/err" | tail -n 3 | sed 's/^/  run: /'
			sed 's/^/  cleanup: /' "$T/cleanup"
			diff "$T/sweep" "$T/sweep.after" | sed 's/^/  /' | head -20
			sweep_reset
		fi
	done
	check "$name: swept $((n - 1)) kill points to the run's end" test "$n" -gt 10 -a "$n" -lt 1000
}

# Kill points in bench's nft, iptables and ipset kinds' setup and
# teardown, each round's.
test_scale_sweep() {
	sweep_up || { fail "scale sweep: setup"; topo_down; return; }
	ip netns exec "$D" nft list table inet foreign >"$T/sweep.nft"
	ip netns exec "$D" ipset save >"$T/sweep.ipset"
	ip netns exec "$D" iptables-save -t raw >"$T/sweep.ipt"
	sweep_state >"$T/sweep"
	SWEPT=0
	SWEPT_OK=0
	sweep_kinds --scenario scale --sizes 1 --hooks nft-set-1,nft-hash-1,nft-rules-1
	sweep_kinds --scenario scale --sizes 1 --hooks iptables-rules-1,ipset-1
	sweep_kinds --scenario hooks --hooks nft-ingress,iptables-raw
	check_eq "sweep: $SWEPT_OK of $SWEPT kill points left nothing" "$SWEPT_OK" "$SWEPT"
	rm -rf "$S"
	topo_down
}

# tests/safety.sh [NAME...]: these tests, or all of them (tests/lib.sh).
run_tests "$@"
