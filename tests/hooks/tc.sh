# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The tc hook's netns tests, sourced by tests/netns.sh.

# tcx links came with Linux 6.6. Before, completion leaves them out and
# asking for one exits 4 naming the version, in text and JSON, having
# changed nothing.
test_tcx_refused() {
	local name="tcx on $(uname -r)"
	if kernel_has 6.6; then
		check_eq "$name: completion offers it" "$(comp hookcmp --tc-attach '')" "qdisc tcx"
		return
	fi
	check_eq "$name: completion leaves it out" "$(comp hookcmp --tc-attach '')" "qdisc"
	topo_up || { fail "$name: topology"; return; }
	snapshot >"$T/before"
	expect_table "$name" "-n $D" <<EOF
4;tcx links need Linux 6.6 or newer: Operation not supported;--hook tc --tc-attach tcx $DEV
4;"message":"tcx links need Linux 6.6 or newer";-j --hook tc --tc-attach tcx $DEV
EOF
	check_state_same "$name"
	topo_down
}

# Someone else's clsact and filter were there before: both survive.
test_foreign_clsact() {
	local name="foreign clsact"
	topo_up || { fail "$name: topology"; return; }
	tc -n "$D" qdisc add dev "$DEV" clsact
	tc -n "$D" filter add dev "$DEV" ingress prio 100 protocol all u32 \
		match u32 0 0 classid 1:1
	snapshot >"$T/before"
	if hc_start -n "$D" --hook tc -j -i 0 "$DEV"; then
		check "$name: ours attached beside theirs" observed tc
		send_mix
		hc_stop INT
		check_eq "$name: per-class counts" "$(class_counts)" "$MIX_L4"
	else
		fail "$name: hookcmp did not attach"
	fi
	check_state_same "$name"
	check_eq "$name: their u32 filter is still there" \
		"$(tc -n "$D" -j filter show dev "$DEV" ingress | jq -c '[.[] | select(.kind == "u32") | .pref] | unique')" '[100]'

	# A filter someone adds to our clsact while we run keeps the clsact.
	tc -n "$D" qdisc del dev "$DEV" clsact
	snapshot >"$T/before"
	if hc_start -n "$D" --hook tc -j -i 0 "$DEV"; then
		tc -n "$D" filter add dev "$DEV" ingress prio 200 protocol all u32 \
			match u32 0 0 classid 1:1
		hc_stop INT
		check_eq "$name: clsact we created stays for a filter added meanwhile" \
			"$(tc -n "$D" -j filter show dev "$DEV" ingress | jq -c '[.[] | .kind] | unique')" '["u32"]'
		check "$name: says why the clsact stays" grep -q "someone else" "$T/err"
		tc -n "$D" qdisc del dev "$DEV" clsact
	else
		fail "$name: hookcmp did not attach to a fresh clsact"
	fi
	check_state_same "$name (after removing the added filter)"
	topo_down
}
