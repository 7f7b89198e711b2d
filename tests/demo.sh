#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The README's `make demo` as root (scripts/demo.sh, with fewer
# rounds): every hook's live counts, then the comparison table and the
# static-key ladder in inject with their charts; its --dev rehearsal;
# nothing left behind.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP demo tests: they need root"
	exit 0
fi

# What the demo could leave: namespaces, hookcmp's programs, cgroups,
# the journal.
demo_state() {
	ip netns list
	hc_prog_ids
	hc_cgroups
	ls /run/hookcmp 2>/dev/null
}

# A bench document none of whose rows (the generator's aside) is valid,
# each for the machine's load: bench then exits 7 (no verdict), rightly.
all_load() {
	jq -e --arg load "$LOAD_REASON" '[.rows[] |
		select(.flags | index("generator") | not)] |
		all(.[]; (.valid | not) and (.reason // "" | test($load)))' \
		"$1" >/dev/null 2>&1
}

# demo NAME ARGS...: scripts/demo.sh ARGS into $T/out and $T/err; FAIL
# with its tail when it did not exit 0, unless a bench it ran found
# every row INVALID for the load (SKIP lines, naming them).
demo() {
	local name=$1 rc doc
	shift
	demo_state >"$T/before"
	scripts/demo.sh "$@" >"$T/out" 2>"$T/err"
	rc=$?
	state_same "$name: nothing left behind" demo_state "$T/before" 50
	[ "$rc" -eq 0 ] && return 0
	for doc in "$T"/charts/*/bench.json; do
		if [ -f "$doc" ] && all_load "$doc"; then
			load_skips "$name ${doc%/bench.json}" "$doc"
			return 1
		fi
	done
	fail "$name: exit $rc"
	tail -n 20 "$T/err" | sed 's/^/  /'
	return 1
}

# test demo: each hook's line of live counts adds up and saw traffic; the
# hooks table and the static-key ladder follow, with their charts.
test_demo() {
	local name="make demo" h line seen drop pass redir f topo bad=''
	demo "$name" --rounds 8 --out "$T/charts" || return
	# Every hook usage lists is in the demo (a new hook must be added).
	for h in $(hook_list ' '); do
		grep -q "^$h " "$T/out" || bad="$bad $h(missing)"
	done
	# The live counts' lines: the hook in 34 columns, then its counts.
	while IFS= read -r line; do
		h=${line:0:34} h=${h%%  *}
		read -r seen drop pass redir <<<"${line:34}"
		[ "$seen" -gt 0 ] && [ $((drop + pass + redir)) -eq "$seen" ] ||
			bad="$bad '$h' ($seen: $drop+$pass+$redir)"
	done < <(sed -n '/^== live counts/,/^$/p' "$T/out" | sed '1,2d;/^$/d')
	check "$name: every hook counted traffic, its verdicts adding up${bad:+:$bad}" \
		test -z "$bad"
	check "$name: the hooks table, every hook against xdp-native" \
		jq_true '.scenario == "hooks" and (.rows | length) >= 20 and
			.baseline == "xdp-native"' \
		"$T/charts/hooks/bench.json"
	# inject on live frames; without them on the stage's XDP frames.
	feed=live
	[ -n "${HC_NO_LIVE:-}" ] && feed=stage
	check "$name: the static-key ladder in inject, fed $feed" \
		jq_true --arg f $feed '.scenario == "static-key" and .topology == "inject" and
			.env.feed == $f and any(.rows[]; .name == "ingress-other-dev")' \
		"$T/charts/static-key/bench.json"
	check "$name: the hooks table fed $feed" \
		jq_true --arg f $feed '.env.feed == $f' "$T/charts/hooks/bench.json"
	check "$name: the tables printed, and where the charts are" \
		grep -q "^charts: $T/charts/hooks/" "$T/out"
	for f in ns delta mpps; do
		check "$name: chart $f.png" test -s "$T/charts/hooks/$f.png"
	done
	load_skips "$name hooks" "$T/charts/hooks/bench.json"
}

# test demo_dev: bench --dev rehearsed on a veth pair the demo builds.
test_demo_dev() {
	local name="scripts/demo.sh --dev"
	demo "$name" --dev --rounds 1 --hooks xdp-native --no-path-check \
		-o "$T/dev.json" || return
	check "$name: bench --dev ran on the demo's veth, frames generated and seen" \
		jq_true '.device.name == "hcd" and (.rows | length) == 2 and
			all(.rows[].rounds[]; .generated > 0 and .seen > 0)' "$T/dev.json"
	load_skips "$name" "$T/dev.json"
}

# test demo_sender: a sender that dies stops the demo, exit 1, with the
# sender's own error: before the first count, and in the middle of them
# (a table of zeros is no result); nothing left behind.
test_demo_sender() {
	local name="demo, its sender dead" rc pid
	# hc-send, until $T/die is there; then an error as hc-send's own.
	printf '%s\n' '#!/bin/sh' \
		"if [ -e '$T/die' ]; then" \
		'	echo "hc-send: sendmmsg on hcg: No buffer space available" >&2' \
		'	exit 1' \
		'fi' \
		"exec '$PWD/build/hc-send' \"\$@\"" >"$T/send"
	chmod +x "$T/send"
	demo_state >"$T/before"
	touch "$T/die"
	HC_DEMO_SENDER=$T/send scripts/demo.sh --rounds 1 --out "$T/charts" >"$T/out" 2>"$T/err"
	check_eq "$name at once: exit 1" "$?" 1 "$T/err"
	check "$name at once: said before any count" grep -qx \
		"demo: the sender ($T/send in hcdemo[0-9]*g) died before the first count (exit 1):" "$T/err"
	check "$name at once: its error shown" grep -qxF \
		"  hc-send: sendmmsg on hcg: No buffer space available" "$T/err"
	state_same "$name at once: nothing left behind" demo_state "$T/before" 50

	rm -f "$T/die"
	HC_DEMO_SENDER=$T/send scripts/demo.sh --rounds 1 --out "$T/charts" >"$T/out" 2>"$T/err" &
	pid=$!
	wait_until grep -q "^tc " "$T/out"
	touch "$T/die"
	wait "$pid"
	rc=$?
	check_eq "$name while counting: exit 1" "$rc" 1 "$T/err"
	check "$name while counting: said, naming the count" grep -qx \
		"demo: the sender ($T/send in hcdemo[0-9]*g) died by the end of --hook .*'s count (exit 1):" "$T/err"
	check "$name while counting: its error shown" grep -qxF \
		"  hc-send: sendmmsg on hcg: No buffer space available" "$T/err"
	check "$name while counting: no comparison after it" not grep -q "^== the comparison" "$T/out"
	state_same "$name while counting: nothing left behind" demo_state "$T/before" 50
}

# test demo_bad: a bad option changes nothing.
test_demo_bad() {
	local rc
	demo_state >"$T/before"
	scripts/demo.sh --frob >/dev/null 2>"$T/err"
	rc=$?
	check "demo: an unknown option is exit 2, saying so" \
		test "$rc" -eq 2 -a "$(grep -c "unknown option '--frob'" "$T/err")" -eq 1
	state_same "demo: an unknown option changes nothing" demo_state "$T/before"
}

run_tests "$@"
rm -rf "$T"
