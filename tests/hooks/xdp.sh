# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The xdp hook's netns tests, sourced by tests/netns.sh.

# Someone else's XDP program: exit 5 and their program untouched.
test_foreign_xdp() {
	local name="foreign xdp" id out rc
	topo_up || { fail "$name: topology"; return; }
	plant "$name" ip -n "$D" link set dev "$DEV" xdpgeneric obj build/xdp.bpf.o sec xdp ||
		{ topo_down; return; }
	id=$(ip -n "$D" -d -j link show dev "$DEV" | jq '.[0].xdp.prog.id')
	snapshot >"$T/before"
	for mode in generic native; do
		out=$("$HC" -n "$D" --hook xdp --xdp-mode $mode "$DEV" -d 1 2>&1)
		rc=$?
		check_eq "$name ($mode): exit status" "$rc" 5
		check "$name ($mode): message names the kernel's reason and their id" \
			grep -q "Kernel: .*\(already attached\|at the same time\).*" <<<"$out"
		check "$name ($mode): message gives their program id" \
			grep -q "id $id is attached already" <<<"$out"
		check_eq "$name ($mode): their program is still attached" \
			"$(ip -n "$D" -d -j link show dev "$DEV" | jq '.[0].xdp.prog.id')" "$id"
	done
	check_state_same "$name"
	ip -n "$D" link set dev "$DEV" xdpgeneric off
	topo_down
}
