#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hookcmp bench as root, on short runs (no test here asserts a timing):
# every scenario runs and adds up, the JSON document keeps its contract,
# every exit code of the table is reached, and nothing is left behind
# however bench ends.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP bench tests: they need root"
	exit 0
fi

SHORT="--rounds 2 --packets 20000"
# The tests about something else than the topology take inject's short
# path; where the kernel refuses its live frames, the veth topology's,
# fed by the stage. A run a signal lands in: 50 rounds of about a second
# each. SHORT's windows: 1000 packets, 1024 on the stage (whole copies
# of 64).
INJECT="--topology inject" LIVE=true LONG="--rounds 50 --packets 2000000" WP=1000
if [ -n "${HC_NO_LIVE:-}" ]; then
	INJECT='' LIVE=false WP=1024
	echo "# live XDP frames refused: the tests run on inject run on veth"
fi
# Where a test is about something else than the rows' paths (exit codes,
# signals, the contract's shape), it leaves out the path check's pass.
QUICK="$SHORT --no-path-check"
# Under TCG (the guests) sampling is dear: only the tests of the paths
# (scenarios, path, inject) sample there; the rest leave the pass out.
NOPATH=
[ "${HOOKCMP_VM_ACCEL:-}" = tcg ] && NOPATH=--no-path-check
# tcx links came with Linux 6.6: before, bench marks its tcx rows INVALID,
# saying so, and runs the rest. Tests that need a tc row take clsact's.
if kernel_has 6.6; then TCX=true TC=tcx; else TCX=false TC=tc-clsact; fi

# What bench could leave where it runs: named namespaces, its devices,
# hookcmp's programs held here, cgroups, ipset sets and the journal. Its
# own namespaces have no names; everything in them (programs, links,
# qdiscs, scale's ipset set) goes with them; cgroup-udp's cgroup does
# not, so it is journalled. Programs: those held here now that were not
# before ($PROGS_BEFORE): bench cannot let go of another process's, and
# one that a process before it was still letting go of (under TCG, past
# 5 s in a CI run) goes when it goes.
PROGS_BEFORE=[]
root_state() {
	ip netns list
	ip -o link show | grep -cE ': hc[gdzwxyosfr][@:]'
	hc_prog_ids | jq -c --argjson b "$PROGS_BEFORE" '. - $b'
	hc_cgroups
	ipset list -n 2>/dev/null
	ls /run/hookcmp 2>/dev/null
}

# Namespaces die after their last user, asynchronously: up to 5 s.
root_state_same() { state_same "$1" root_state "$T/root-before" 50; }
# A program a process here is still letting go of (the suite before's
# last): up to 5 s for it to go, then it counts as there before.
for _ in $(seq 50); do
	[ "$(hc_prog_ids)" = "[]" ] && break
	sleep 0.1
done
PROGS_BEFORE=$(hc_prog_ids)
root_state >"$T/root-before"

# aligned FILE: the table's columns fit their cells: every row's last
# column (valid) starts where the header's does.
aligned() {
	awk '/^row / { h = index($0, " valid"); on = 1; next }
		on && /^$/ { exit }
		on && (substr($0, h, 1) != " " || substr($0, h + 1, 1) == " ") { bad = 1 }
		END { exit bad || !h }' "$1"
}

# jq: this row is INVALID because its hook saw too few of the frames.
SAW_FEW='(.reason // "" | test("the hook saw [0-9]+ of [0-9]+ frames"))'
# jq, with $emu bound to .env.emulated: on an emulated CPU, that is no
# failure of the test (its receiver fell behind, even inline).
EMU_BEHIND='($emu and '"$SAW_FEW"')'

# emu_exit FILE: bench's exit status, 0, but 1 where an emulated CPU
# left no hook's row valid (each fell behind, or cannot run there).
emu_exit() {
	jq -r 'if .env.emulated and all(.rows[] | select(.flags | index("generator") | not); .valid | not)
		then 1 else 0 end' "$1"
}

# A row is valid, or INVALID because its hook saw under 95% of the frames
# (split mode, where the generator outruns it; inline, AF_XDP's ring).
SEEN_OK='all(.rows[]; .valid or (.reason | test("^round [0-9]+: the hook saw [0-9]+ of [0-9]+ frames [(][0-9]+ dropped before it(: [^)]+)?[)], under 95%, too few for a cost$")))'

# Every round of every row adds up; the generator alone reaches nothing.
ACCOUNTED='all(.rows[]; . as $row | all(.rounds[]; .generated > 0 and
	(if ($row.flags | index("generator")) then .seen == 0
	 else .generated == .seen + .dropped_before + .dropped_dut end)))'

# What rows say where this machine lacks a tool or tcx, as one regex.
MISSING=
for tool in iptables nft; do
	command -v $tool >/dev/null || MISSING="$MISSING|cannot run $tool"
done
[ $TCX = false ] && MISSING="$MISSING|tcx links need Linux 6.6"
kernel_has 6.4 || MISSING="$MISSING|BPF netfilter links need Linux 6.4"
MISSING=${MISSING#|}
# The INVALID rows not explained by MISSING ($m), by a reason in $ok, on
# an emulated CPU by a receiver that fell behind its sender even inline
# (the DUT's stack, or the sink's NAPI deferred to ksoftirqd), or by an
# AF_XDP consumer held off past its ring (the host took CPU 1's vCPU for
# milliseconds, as CI's machine once did: 4672 of 20000 frames; ACCOUNTED
# checks that they were counted).
UNEXPECTED='.env.emulated as $emu | [.rows[] | select(.valid | not) |
	select($m == "" or (.reason | test($m) | not)) |
	select(.reason | test($load) | not) |
	select(.reason as $r | $ok | index($r) | not) |
	select((.name | startswith("xsk-")) and '"$SAW_FEW"' | not) |
	select('"$EMU_BEHIND"' or ($emu and (.reason | test(": [0-9]+ dropped at the DUT [(]"))) | not) |
	{name, reason}]'

# path_opt SCENARIO: parse, rules, size and aa run the hooks scenario's
# rows with other options, on its paths, which hooks checks: they run with
# --no-path-check.
path_opt() { case $1 in parse | rules | size | aa) echo --no-path-check ;; esac; }

test_scenarios() {
	local s rows invalid tool nopath
	for tool in iptables nft; do
		command -v $tool >/dev/null ||
			echo "SKIP bench hooks: the $tool row (not installed)"
	done
	[ $TCX = false ] &&
		echo "SKIP bench: the tcx rows (tcx needs Linux 6.6, this kernel is $(uname -r))"
	local scens="hooks static-key parse rules size aa forward"
	# parse, rules, size and aa run the hooks' rows with other options:
	# no path of their own to check in a guest's limited time; forward's
	# redirects are the redirect suite's there
	under_tcg "bench parse, rules, size, aa, forward" "they run on the host" &&
		scens="hooks static-key"
	for s in $scens; do
		nopath=$(path_opt "$s")
		# shellcheck disable=SC2086
		"$HC" bench --scenario "$s" $SHORT $nopath -o "$T/b.json" >"$T/out" 2>"$T/err"
		check_eq "bench $s: exit status" "$?" 0 "$T/err"
		rows=$(jq '.rows | length' "$T/b.json")
		invalid=$(jq -c --arg m "$MISSING" --arg load "$LOAD_REASON" --argjson ok '[]' \
			"$UNEXPECTED" "$T/b.json")
		load_skips "bench $s" "$T/b.json"
		check "bench $s: rows ran ($rows)" [ "${rows:-0}" -ge 3 ]
		check_eq "bench $s: every row valid" "$invalid" "[]"
		check "bench $s: every row ran every round" jq_true \
			'.rounds == 2 and all(.rows[] | select(.valid); [.rounds[].round] == [1, 2])' "$T/b.json"
		check "bench $s: every round accounted for" jq_true "$ACCOUNTED" "$T/b.json"
		check "bench $s: environment recorded" jq_true --argjson tcx $TCX --argjson live "$LIVE" \
			'.env | .bpf_jit and .live_frames == $live and .tcx == $tcx and .cpus >= 1' "$T/b.json"
		check "bench $s: the table names the baseline" \
			grep -q "against $(jq -r .baseline "$T/b.json"), paired per round" "$T/out"
		# 2 rounds: too few for a 95% interval of a median.
		check "bench $s: no resolution from 2 rounds" not grep -q "^resolution" "$T/out"
		check "bench $s: intervals and sig n/a, and why" \
			grep -qE '^intervals and sig: n/a for [0-9]+ rows? with fewer than 6 rounds: a 95% interval of a median needs 6 ' "$T/out"
		# A measured estimate prints "[n/a]" after it, sig "n/a"; a row the
		# host left without a cost (slow in every round, or its baseline)
		# "-", so "[n/a] n/a" need not appear.
		check "bench $s: the table prints n/a" jq_true --rawfile t "$T/out" \
			'($t | test("[0-9] \\[n/a\\] ")) and ($t | test(" n/a +[0-9-]")) and
			 all(.rows[]; .ns.ci == [null, null] and .significant == null)' "$T/b.json"
		check "bench $s: every column fits its cells" aligned "$T/out"
		if [ -n "$nopath" ]; then
			check "bench $s: no path checked, saying why" jq_true \
				'all(.rows[]; .path.checked == false and .path.why == "--no-path-check")' "$T/b.json"
			continue
		fi
		check "bench $s: every row that ran had its path checked (or too few samples, above), and passed" \
			jq_true --arg few "$LOAD_UNCHECKED" \
			'any(.rows[]; .path.checked) and
			 all(.rows[]; .path.checked or (.valid | not) or (.path.why // "" | test($few))) and
			 all(.rows[] | select(.path.checked); .path.missing == [] and .path.unexpected == []
			     and .path.samples >= 200)' "$T/b.json"
		check "bench $s: the table's path column" grep -qE '^row .* path +valid$' "$T/out"
		# a bare program may show in no sample: its run count stands in
		check "bench $s: each row's program counted runs in the path check" jq_true \
			'all(.rows[] | select(.valid and (.path.declared | test("bpf_prog_"))
						and (.name | test("^xsk") | not));
			     .path.prog_runs > 0)' "$T/b.json"
	done
	# Which rows bench builds is its own logic, the same on any kernel:
	# under TCG the host has checked it.
	if [ "${HOOKCMP_VM_ACCEL:-}" != tcg ]; then
		check_eq "bench hooks: row names" \
			"$("$HC" bench --rounds 1 --packets 2000 --no-path-check -j 2>/dev/null | jq -c '[.rows[].name]')" \
			'["xdp-native","xdp-generic","tc-clsact","tc-ingress","tcx","socket-udp","socket-packet","xsk-l4","netfilter-raw","cgroup-udp","lwt","iptables-raw","nft-ingress","stack","xdp-native-bare","xdp-generic-bare","tc-clsact-bare","tcx-bare","socket-udp-bare","lwt-bare","xsk-none","gen-only"]'
		# --hooks takes every name the table shows: rows, hooks, families, the
		# baseline; the rows a row is compared with come along.
		while IFS=';' read -r args want; do
			# shellcheck disable=SC2086
			check_eq "bench --hooks: $args" \
				"$("$HC" bench $args --rounds 1 --packets 2000 --no-path-check -j 2>/dev/null |
					jq -c '[.rows[] | select(.flags | index("generator") | not) | .name]')" "$want"
		done <<EOF
--hooks tcx-bare;["xdp-native","tcx-bare"]
--scenario static-key --hooks nothing;["nothing"]
--scenario static-key --hooks tc;["nothing","tc-clsact-pass","tcx-pass"]
--scenario parse --hooks tcx-l4;["tcx-none","tcx-l4"]
--scenario parse --hooks tcx;["tcx-none","tcx-l2","tcx-l3","tcx-l4"]
EOF
		check_eq "bench size: a generator row per frame size" \
			"$("$HC" bench --scenario size --hooks tcx --rounds 1 --packets 2000 --no-path-check -j 2>/dev/null |
				jq -c '[.rows[] | select(.flags | index("generator")) | .name]')" \
			'["gen-only-60","gen-only-512","gen-only-1500"]'
	fi
	# split: the DUT's NAPI on CPU 1, its kthread's CPU time per packet.
	# shellcheck disable=SC2086
	"$HC" bench --scenario static-key --hooks ingress,$TC --cpu-mode split $SHORT \
		-o "$T/s.json" >"$T/s.out" 2>&1
	check_eq "bench split: exit status (1 when every hook's row is INVALID)" "$?" \
		"$(jq 'if any(.rows[]; .valid and (.flags | index("generator") | not)) then 0 else 1 end' "$T/s.json")"
	check "bench split: valid or under 95% seen, and accounted for" jq_true \
		"$SEEN_OK and $ACCOUNTED" "$T/s.json"
	check "bench split: dropped before, per row" jq_true \
		'all(.rows[]; if (.flags | index("generator")) then .dropped_before_pct == null else
		 (.dropped_before_pct - 100 * ([.rounds[].dropped_before] | add) / ([.rounds[].generated] | add) |
		  fabs) < 0.001 end)' "$T/s.json"
	check "bench split: the table shows dropped before" grep -qE "^row +Mpps +dropped before % " "$T/s.out"
	check "bench split: the NAPI kthread's time counted" jq_true \
		'.cpu_mode == "split" and all(.rows[].rounds[]; .cpu_ns > 0)' "$T/s.json"
	# AF_XDP: the consumer thread's CPU time is in the rows' cost, in
	# both modes; no other row has threads of its own.
	for mode in inline split; do
		# shellcheck disable=SC2086
		"$HC" bench --hooks xsk-l4,xsk-none --cpu-mode $mode $SHORT \
			-o "$T/x.json" >/dev/null 2>&1
		check_eq "bench xsk $mode: exit status" "$?" \
			"$(jq 'if any(.rows[]; .valid and (.flags | index("generator") | not)) then 0 else 1 end' "$T/x.json")"
		check "bench xsk $mode: valid, accounted, the consumer's time counted" jq_true \
			"$SEEN_OK and $ACCOUNTED and
			all(.rows[]; (.name | startswith(\"xsk-\")) as \$x |
				all(.rounds[]; if \$x then .own_ns > 0 and .own_ns < .cpu_ns
					else .own_ns == 0 end))" "$T/x.json"
	done
	root_state_same "bench: nothing left behind by the scenarios"
}

# The JSON document is a contract: every key there, of its type.
# The path check: a row whose program is where no frame goes (a fault
# the tests inject: the DUT namespace's loopback) is INVALID, naming what
# it never ran; symbols that read as 0 leave every row unchecked, saying
# why; --no-path-check checks nothing and says so.
test_path() {
	local f="$T/path.json" ks="$T/kallsyms"
	# shellcheck disable=SC2086
	HOOKCMP_FAIL_AT=bench-elsewhere-$TC "$HC" bench --hooks $TC $SHORT -o "$f" >"$T/path.out" 2>&1
	check "bench path: the misplaced row is INVALID for its path" jq_true --arg tc $TC \
		'.rows[] | select(.name == $tc) | .valid == false and .path.checked and
		 (.reason | test("^path: never ran [a-z_]+.* in [0-9,]+ samples$")) and
		 (.path.missing | length > 0) and .path.prog_runs == 0' "$f"
	load_skips "bench path" "$f"
	check "bench path: the others pass theirs" jq_true --arg tc $TC --arg few "$LOAD_UNCHECKED" \
		'all(.rows[] | select(.name != $tc); (.path.checked and .path.missing == []) or
		     (.path.checked == false and (.path.why // "" | test($few))))' "$f"
	check "bench path: the table says MISSING" grep -qE "^$TC .* MISSING [a-z_]+" "$T/path.out"
	# (a round the host held slow, the row's or gen-only's, has no cost)
	check "bench path: the INVALID row has no estimates (null), its rounds their costs" jq_true --arg tc $TC \
		'[.rows[] | select(.name == "gen-only") | .rounds[] | select(.contended) | .round] as $slow |
		 .rows[] | select(.name == $tc) | .ns.median == null and .delta_ns.median == null and
		 .ratio.median == null and .mpps.median == null and .mde_ns == null and
		 (.rounds | length) > 0 and
		 all(.rounds[]; .ns != null or .contended or (.round as $r | $slow | index($r)))' "$f"
	check "bench path: the table prints - for them" grep -qE "^$TC +- +- +- +- +- " "$T/path.out"
	# What a FAIL line shows of a document it judged (tests/lib.sh).
	local ev
	ev=$(check "judged" jq_true --arg tc $TC '.rows[] | select(.name == $tc) | .valid' "$f")
	check "bench path: a FAIL line shows the failing row, its reason, path and rounds" \
		grep -qE "^  row $TC: valid=false status=invalid reason=path: never ran .* path=[{]checked=true samples=[0-9]+ prog_runs=0 missing=\[.+\] .* rounds=1:[0-9]+/" <<<"$ev"
	awk '{ $1 = "0000000000000000"; print }' /proc/kallsyms >"$ks"
	# shellcheck disable=SC2086
	unshare -m sh -c 'mount --bind "$1" /proc/kallsyms && shift && exec "$@"' sh "$ks" \
		"$HC" bench --hooks $TC $SHORT -o "$f" >"$T/path.out" 2>&1
	check_eq "bench path: unreadable symbols: exit status" "$?" 0 "$T/path.out"
	check "bench path: unreadable symbols: every row unchecked, saying why" jq_true \
		'all(.rows[]; .valid and .path.checked == false and
		     (.path.why | test("every address as 0 [(]kernel.kptr_restrict")))' "$f"
	check "bench path: the table says unchecked" grep -qE "^$TC .* unchecked " "$T/path.out"
	# shellcheck disable=SC2086
	"$HC" bench --hooks $TC $SHORT --no-path-check -o "$f" >"$T/path.out" 2>&1
	check "bench path: --no-path-check" jq_true \
		'all(.rows[]; .path.checked == false and .path.why == "--no-path-check")' "$f"
	check "bench path: --no-path-check said" grep -q '^path: not checked (--no-path-check)' "$T/path.out"
	root_state_same "bench path: nothing left behind"
}

# --profile: each row's functions by cost, the top N, with deltas to the
# baseline, its path functions among them; the text's sections.
test_profile() {
	local f="$T/prof.json"
	"$HC" bench --hooks $TC --rounds 3 --packets 20000 --profile --profile-top 5 \
		-o "$f" >"$T/prof.out" 2>&1
	check_eq "bench --profile: exit status" "$?" 0 "$T/prof.out"
	check "bench --profile: JSON shape" jq_true \
		'all(.rows[]; (.profile | length) > 0 and (.profile | length) <= 5 and
		  all(.profile[]; (.sym | type) == "string" and (.ns | type) == "number" and
		      (.ci | length) == 2 and (.path | type) == "boolean") and
		  ([.profile[].ns] == ([.profile[].ns] | sort | reverse)) and
		  (.profile_ns > 0) and (.profile_clock_ns > 0) and (.profile_timed_ns > 0))' "$f"
	check "bench --profile: deltas against the baseline" jq_true --arg tc $TC \
		'.rows[] | select(.name == $tc) | all(.profile[]; .delta_ns | type == "number")' "$f"
	"$HC" bench --hooks $TC --rounds 3 --packets 20000 --profile --profile-top 40 -o "$f" >"$T/prof.out" 2>&1
	# Self time: a bare program (a few instructions) is under its row's
	# top 40; the hooks' own programs and classifiers are not (on the
	# stage a drop program's few ns beside the skb's build can fall
	# under the 15th).
	check "bench --profile: a path function among each hook row's top 40" jq_true \
		'all(.rows[] | select((.flags | index("generator") | not) and (.name | endswith("-bare") | not));
		     any(.profile[]; .path))' "$f"
	check "bench --profile: a section per row" grep -qE "^profile $TC: [0-9.]+ ns/pkt in its samples" "$T/prof.out"
	check "bench --profile: the differential view" grep -q "^  against xdp-native, the largest differences:" "$T/prof.out"
	check "bench --profile: no nan in the text" not grep -qiw "nan" "$T/prof.out"
	check "bench --profile: the baseline's section has no delta" \
		not grep -q delta <(grep -A1 "^profile xdp-native:" "$T/prof.out")
	check_eq "bench --profile-top without --profile" \
		"$("$HC" bench --profile-top 3 >/dev/null 2>&1; echo $?)" 2
	root_state_same "bench --profile: nothing left behind"
}

# bench compare on real runs: two runs of the rules scenario compare
# without error, one run a side with no verdict (the run-to-run variance
# unknown); with both runs a side, and in NEW's one row's rounds costing
# 3x what they measured (a change made on purpose, its baseline as it
# ran), that row is slower against its baseline and fails --threshold.
test_compare() {
	local a="$T/cmp-a.json" b="$T/cmp-b.json" c="$T/cmp-c.json" d="$T/cmp-d.json" out="$T/cmp.json"
	local f rc n pairs= few=
	# rounds until the intervals are narrow, not a count: contended
	# rounds have no cost, and this VM's share of them varies
	"$HC" bench --scenario rules --hooks $TC --target-ci 10 --max-rounds 60 \
		--packets 20000 --no-path-check -o "$a" >/dev/null 2>&1
	check_eq "bench compare: a rules run: exit status" "$(bench_rc $? "$a")" 0
	# the second with the first's plan: compare refuses unlike windows
	"$HC" bench --plan "$a" --target-ci 10 --max-rounds 60 --no-path-check -o "$b" >/dev/null 2>"$T/cmp.err"
	check_eq "bench --plan: a run of the first's plan: exit status" "$(bench_rc $? "$b")" 0 "$T/cmp.err"
	check "bench --plan: the same rows and windows" jq_true --slurpfile a "$a" '.plan == $a[0].plan' "$b"
	"$HC" bench --plan "$a" --scenario hooks >/dev/null 2>"$T/cmp.err"
	check_eq "bench --plan: it decides the scenario: exit status" "$?" 2 "$T/cmp.err"
	check "bench --plan: and says so" grep -q -- "--plan decides --scenario" "$T/cmp.err"
	jq '.plan.window_packets[.plan.rows[0]] += 1' "$b" >"$c"
	"$HC" bench compare "$a" "$c" >/dev/null 2>"$T/cmp.err"
	check_eq "bench compare: runs of unlike plans refused: exit status" "$?" 2 "$T/cmp.err"
	check "bench compare: naming the row and its windows" grep -q "the plans differ: row .*'s windows are" "$T/cmp.err"
	"$HC" bench compare -j "$a" "$b" >"$out" 2>"$T/cmp.err"
	check_eq "bench compare: two runs: exit status" "$?" 0 "$T/cmp.err"
	# or INVALID where the host's slow state left a side too few rounds
	check "bench compare: one run a side: every row compared, none judged" jq_true --slurpfile r "$a" \
		'(.rows | length) == ($r[0].rows | length) and
		 all(.rows[]; (.verdict | IN("inconclusive", "n/a")) or (.verdict == "invalid" and
			(.why // "" | test("^(OLD|NEW): valid in [0-9]+ of [0-9]+ rounds, fewer than the [0-9]+ an interval needs$"))))' "$out"
	"$HC" bench calibrate -j "$a" "$b" >"$T/cal.json" 2>"$T/cmp.err"
	check_eq "bench calibrate: two real runs: exit status" "$?" 0 "$T/cmp.err"
	# NEW's -1rules row made 3x as costly, its baseline left as it ran
	for f in "$a" "$b"; do
		jq --arg tc $TC '.rows |= map(if .name == $tc + "-1rules" then
			.rounds |= map(if .ns then .ns *= 3 else . end) else . end)' "$f" \
			>"$([ "$f" = "$a" ] && echo "$c" || echo "$d")"
	done
	"$HC" bench compare -j --threshold 2 "$a" "$b" -- "$c" "$d" >"$out" 2>"$T/cmp.err"
	rc=$?
	# compare's interval needs 3 rounds in each run where the row and its
	# baseline both have a cost; on a machine busy throughout, the
	# generator's rounds are contended and no row has one.
	for f in "$a" "$b"; do
		n=$(jq --arg r "$TC-1rules" '(.rows[] | select(.name == $r)) as $x |
			(.rows[] | select(.name == $x.baseline)) as $b |
			[$x.rounds[] | select(.ns != null) | .round as $k |
				select(any($b.rounds[]; .round == $k and (.ns // 0) > 0))] | length' "$f")
		pairs="$pairs${pairs:+ and }$n"
		[ "$n" -ge 3 ] || few=1
	done
	if [ -n "$few" ]; then
		echo "SKIP bench compare: a row changed on purpose: $pairs of $(jq '.rows[0].rounds | length' "$a") rounds with a cost beside the baseline's, fewer than 3 (the machine's load, not hookcmp's doing)"
		return
	fi
	check_eq "bench compare: a row changed on purpose: exit 1 past --threshold 2" "$rc" 1 "$T/cmp.err" "$out"
	check "bench compare: the changed row is slower against its baseline" jq_true --arg tc $TC \
		'.rows[] | select(.name == $tc + "-1rules") | .verdict == "slower" and
		 .verdict_from == "baseline" and .change_vs_baseline.ci[0] > 1.02' "$out"
	check "bench compare: and the report says which" jq_true --arg tc $TC \
		'.regressed >= 1 and ([.rows[] | select(.verdict == "slower") | .name] | index($tc + "-1rules") != null)' "$out"
}

# A state of the machine that moves rows' costs (a foreign clsact turns
# the ingress static key on for every device) differing between the sides,
# or appearing during a run, takes those rows' verdicts: compare says
# "confounded", naming it, and exits 6. A run that failed is left out.
test_confounded() {
	local ns=hc-cf-$$ name="bench compare: confounded" rc pid
	local l="clsact qdisc on ea \\((netns '$ns'|a netns mounted at /run/netns/$ns)\\)"
	# two rounds: no interval, so no row the host's slow state can void
	# shellcheck disable=SC2086
	"$HC" bench $INJECT --scenario static-key --hooks ingress,clsact $QUICK -o "$T/cf-a.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: a run: exit status" "$?" 0 "$T/cf.err"
	"$HC" bench --plan "$T/cf-a.json" --rounds 2 --no-path-check -o "$T/cf-b.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: a second: exit status" "$?" 0 "$T/cf.err"
	# a foreign clsact appears during a run, which is then stopped
	"$HC" bench --plan "$T/cf-a.json" --rounds 1000 --no-path-check -o "$T/cf-w.json" >/dev/null 2>"$T/cf-w.err" &
	pid=$!
	wait_for "^round 2/" "$T/cf-w.err"
	plant "$name: a namespace" ip netns add $ns &&
		plant "$name: a veth pair there" ip -n $ns link add ea type veth peer name eb &&
		plant "$name: a clsact on ea" tc -n $ns qdisc add dev ea clsact
	wait_until grep -Eq "new: $l: it may have moved" "$T/cf-w.err"
	kill -INT $pid
	wait $pid
	check_eq "$name: a run it appeared in, stopped: exit status" "$?" 130 "$T/cf-w.err"
	check "$name: bench says when it appeared and which rows it may have moved" grep -Eq \
		"^  round [0-9]+: new: $l: it may have moved nothing, ingress, clsact" "$T/cf-w.err"
	check "$name: and records it" jq_true --arg l "$l" \
		'any(.env.changed_during_run[]; test("^round [0-9]+: new: " + $l + "$"))' "$T/cf-w.json"
	"$HC" bench --plan "$T/cf-a.json" --rounds 2 --no-path-check -o "$T/cf-c.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: a run with it there: exit status" "$?" 0 "$T/cf.err"
	ip netns del $ns
	"$HC" bench compare -j "$T/cf-a.json" "$T/cf-b.json" -- "$T/cf-c.json" >"$T/cf.json" 2>"$T/cf.err"
	check_eq "$name: a side with a foreign clsact: exit 6" "$?" 6 "$T/cf.err" "$T/cf.json"
	# (the first state each row names: the qdisc, or one of another
	# user's that the machine had too)
	check "$name: every static-key row confounded, the qdisc named" jq_true -s --arg l "^NEW: outside: new: $l$" '
		.[0] | .confounded == (.rows | length) and
		all(.rows[]; .verdict == "confounded" and (.why | test("^(OLD|NEW)[ a-z0-9]*: "))) and
		any(.states[]; (.state | test($l)) and .moves == "skb")' "$T/cf.json"
	check "$name: and says what to do" grep -q "rows confounded: a state of the machine .* --allow-env-change" "$T/cf.err"
	"$HC" bench compare -j --allow-env-change "$T/cf-a.json" "$T/cf-b.json" -- "$T/cf-c.json" >"$T/cf.json" 2>"$T/cf.err"
	check_eq "$name: --allow-env-change: judged: exit status" "$?" 0 "$T/cf.err" "$T/cf.json"
	check "$name: --allow-env-change: no row confounded" jq_true \
		'.confounded == 0 and all(.rows[]; .verdict != "confounded")' "$T/cf.json"
	"$HC" bench compare -j "$T/cf-a.json" -- "$T/cf-w.json" >"$T/cf.json" 2>"$T/cf.err"
	check_eq "$name: a run it appeared in: exit 6" "$?" 6 "$T/cf.err" "$T/cf.json"
	check "$name: naming the run and the round" jq_true -s --arg l "^NEW: changed during the run: round [0-9]+: new: $l$" \
		'.[0] | all(.rows[]; .verdict == "confounded") and any(.states[]; .state | test($l))' "$T/cf.json"
	# a run whose every window the host's slow state took is left out
	HOOKCMP_FAIL_AT=bench-excluded "$HC" bench --plan "$T/cf-a.json" --rounds 6 --no-path-check \
		-o "$T/cf-e.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: a run the load left no row valid: exit 7" "$?" 7 "$T/cf.err"
	check "$name: saying so" grep -q "no row valid: the machine's load" "$T/cf.err"
	"$HC" bench compare -j "$T/cf-a.json" -- "$T/cf-b.json" "$T/cf-e.json" >"$T/cf.json" 2>"$T/cf.err"
	check_eq "$name: a failed run: compared without it: exit status" "$?" 0 "$T/cf.err" "$T/cf.json"
	check "$name: the failed run left out, saying why, no row invalid for it" jq_true '
		(.left_out | length) == 1 and (.left_out[0] | test("^NEW run 2: left out: [0-9]+ of its [0-9]+ windows excluded")) and
		all(.rows[]; .runs_new <= 1 and .verdict != "invalid")' "$T/cf.json"
	check "$name: its rows flagged too-few-rounds" jq_true \
		'all(.rows[]; .status == "invalid" and (.flags | index("too-few-rounds")))' "$T/cf-e.json"
	# a row INVALID for the load alone in one run: that run left out for it
	jq '.rows |= map(if .name == "ingress" then .status = "invalid" | .valid = false |
		.reason = "valid in 2 of 6 rounds, fewer than the 6 an interval needs" | .flags += ["too-few-rounds"] else . end)' \
		"$T/cf-b.json" >"$T/cf-f.json"
	"$HC" bench compare -j "$T/cf-a.json" -- "$T/cf-b.json" "$T/cf-f.json" >"$T/cf.json" 2>"$T/cf.err"
	check "$name: a row too few rounds in one run: judged on the others" jq_true \
		'.rows[] | select(.name == "ingress") | .runs_new == 1 and .verdict != "invalid"' "$T/cf.json"
	jq '.rows |= map(if .name == "ingress" then .status = "invalid" | .valid = false |
		.reason = "path: never ran tcf_classify in 2000 samples" else . end)' "$T/cf-b.json" >"$T/cf-f.json"
	"$HC" bench compare -j "$T/cf-a.json" -- "$T/cf-b.json" "$T/cf-f.json" >"$T/cf.json" 2>"$T/cf.err"
	check "$name: a row INVALID for another reason in one run: invalid, naming it" jq_true \
		'.rows[] | select(.name == "ingress") | .verdict == "invalid" and (.why | test("^NEW run 2: path: never ran"))' "$T/cf.json"
	"$HC" bench compare --threshold 2 "$T/cf-a.json" "$T/cf-e.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: --threshold with no row judged: exit 7" "$?" 7 "$T/cf.err"
	check "$name: saying so" grep -q "threshold 2%: no row could be judged" "$T/cf.err"
	"$HC" bench compare --rows ingress "$T/cf-a.json" "$T/cf-e.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: --rows: a row named with no verdict: exit 7" "$?" 7 "$T/cf.err"
	check "$name: naming it and why" grep -q "row ingress: n/a: every run of NEW with the row was left out (failed" "$T/cf.err"
	"$HC" bench compare --rows ingress,nosuch "$T/cf-a.json" "$T/cf-b.json" >/dev/null 2>"$T/cf.err"
	check_eq "$name: --rows: a row no run has: usage" "$?" 2 "$T/cf.err"
	check "$name: naming it" grep -q "no row 'nosuch' in the runs" "$T/cf.err"
	root_state_same "$name: nothing left behind"
}

# doc/kernel-patch.md's A/A on one boot, its commands as written, on two
# rows and six rounds: every run keeps the first's plan, compare takes
# them all, and its table is the one the doc shows.
test_aa_recipe() {
	local name="doc/kernel-patch.md: the A/A recipe" dir="$T/aa" rc
	mkdir -p "$dir"
	sed -n '/^# A\/A on one boot/,/^```$/p' doc/kernel-patch.md | grep -v '^```' |
		sed -e 's|--scenario static-key --rounds 10|--scenario static-key --hooks ingress --rounds 6 --packets 20000 --no-path-check|' \
			-e 's|--plan a1.json --rounds 10|--plan a1.json --rounds 6 --no-path-check|' >"$dir/recipe.sh"
	check "$name: the doc has it" grep -q "hookcmp bench compare a1.json a2.json a3.json -- b1.json b2.json b3.json" "$dir/recipe.sh"
	local hc
	hc=$(realpath "$HC")
	(cd "$dir" && hookcmp() { "$hc" "$@"; } && . ./recipe.sh) >"$dir/out" 2>"$dir/err"
	rc=$?
	check "$name: compare judged or said why not (exit $rc)" eval \
		'[ $rc = 0 ] || { [ $rc = 6 ] && grep -q "^States that move rows" "$dir/out"; }'
	check "$name: six runs of one plan" jq_true -s '[.[].plan] | length == 6 and (unique | length) == 1' \
		"$dir"/a1.json "$dir"/a2.json "$dir"/a3.json "$dir"/b1.json "$dir"/b2.json "$dir"/b3.json
	# (the columns as wide as their widest cell: compared by name)
	check_eq "$name: the doc's table header" "$(grep -m1 '^row .*old ns/pkt' "$dir/out" | tr -s ' ')" \
		"$(sed -n '/^## An A\/A on one boot/,/^## /p' doc/kernel-patch.md | grep -m1 '^row .*old ns/pkt' | tr -s ' ')"
	root_state_same "$name: nothing left behind"
}

# --variant: a row ROW+NAME for each row, ROW with the user's change made
# by --setup in the DUT's namespace and undone by --undo, every visit.
test_variant() {
	local name="bench --variant" v pid i old rc
	# A change of nothing: a valid row, compared with its own row.
	"$HC" bench --scenario aa --variant same --setup true $QUICK \
		-o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check_eq "$name, no change: exit status" "$?" 0 "$T/v.err"
	check_eq "$name, no change: a row per row" \
		"$(jq -c '[.rows[].name]' "$T/v.json")" \
		'["nothing-a","nothing-b","nothing-a+same","nothing-b+same","gen-only"]'
	check "$name, no change: each compared with its own row, and the baseline" jq_true \
		'all(.rows[] | select(.name | test("[+]")); .valid and
		 .variant_of == (.name | sub("[+]same$"; "")) and .baseline == "nothing-a" and
		 (.variant_delta_ns.median | type) == "number" and .variant_failed_rounds == 0) and
		 all(.rows[] | select(.name | test("[+]") | not); .variant_of == null)' "$T/v.json"
	check "$name, no change: the table's columns" \
		grep -qE "^row .* sig variant of +delta ns vs it mde ns sig left out .* valid$" "$T/v.out"

	# --plan repeats the variants; it decides them, as it does the rows.
	cp "$T/v.json" "$T/vplan.json"
	"$HC" bench --plan "$T/vplan.json" --rounds 1 --no-path-check -o "$T/v.json" >/dev/null 2>"$T/v.err"
	check_eq "$name, --plan: exit status" "$?" 0 "$T/v.err"
	check_eq "$name, --plan: the same rows and variants" \
		"$(jq -c '[.plan.rows, .plan.variants]' "$T/v.json")" \
		"$(jq -c '[.plan.rows, .plan.variants]' "$T/vplan.json")"
	"$HC" bench --plan "$T/vplan.json" --variant x --setup true >"$T/v.out" 2>&1
	check_eq "$name, --plan with --variant: exit 2" "$?" 2 "$T/v.out"

	# What the commands see: the topology, the row and round; the DUT's
	# namespace, with its own sysfs.
	rm -f "$T"/venv.*
	"$HC" bench --scenario aa --hooks nothing-b --variant look \
		--setup "{ env; readlink /proc/self/ns/net; readlink \$HC_NETNS; ls /sys/class/net; } >$T/venv.\$HC_ROW.\$HC_ROUND" \
		$QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check_eq "$name, its environment: exit status" "$?" 0 "$T/v.err"
	for v in "HC_VARIANT=look" "HC_ROW=nothing-b[+]look" "HC_BASE_ROW=nothing-b" "HC_ROUND=1" \
		"HC_DEV=hcd" "HC_PEER=hcg" "HC_DUT_MAC=([0-9a-f]{2}:){5}[0-9a-f]{2}" \
		"HC_DUT_IP=[0-9.]+" "HC_NETNS=/proc/[0-9]+/fd/[0-9]+"; do
		check "$name, its environment: $v" grep -qxE "$v" "$T/venv.nothing-b+look.1"
	done
	check "$name, its environment: run in the DUT's netns" \
		[ "$(grep '^net:' "$T/venv.nothing-b+look.1" | sort -u | wc -l)" = 1 -a \
			"$(grep -c '^net:' "$T/venv.nothing-b+look.1")" = 2 ]
	check "$name, its environment: not in ours" \
		not grep -qx "$(readlink /proc/self/ns/net)" "$T/venv.nothing-b+look.1"
	check "$name, its environment: sysfs of the DUT's netns" grep -qx hcd "$T/venv.nothing-b+look.1"

	# 64 rules that match nothing, run before the row's own DROP rule:
	# the row's own path, dearer, and the path check sees the rules run.
	if command -v iptables >/dev/null && command -v iptables-restore >/dev/null; then
		"$HC" bench --hooks iptables-raw --variant rules64 \
			--setup '{ echo "*raw"; echo ":hcv - [0:0]"; for i in $(seq 64); do
				echo "-A hcv -s 203.0.113.$i/32 -j DROP"; done
				echo "-I PREROUTING 1 -j hcv"; echo COMMIT; } | iptables-restore -n' \
			--undo 'iptables -t raw -D PREROUTING -j hcv && iptables -t raw -F hcv && iptables -t raw -X hcv' \
			--variant-path 'ipt_do_table|nft_do_chain' $SHORT $NOPATH \
			-o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
		check_eq "$name, 64 rules: exit status" "$?" 0 "$T/v.err"
		check "$name, 64 rules: dearer than its row, paired" jq_true \
			'.rows[] | select(.name == "iptables-raw+rules64") | .valid and
			 .variant_of == "iptables-raw" and .variant_delta_ns.median > 0' "$T/v.json" ||
			jq -c '.rows[] | {name, reason, variant_delta_ns}' "$T/v.json"
		check "$name, 64 rules: the rules' group declared once (its row's already)" jq_true \
			'.rows[] | select(.name == "iptables-raw+rules64") |
			 .path.declared | [scan("ipt_do_table[|]nft_do_chain")] | length == 1' "$T/v.json"
		[ -z "$NOPATH" ] && check "$name, 64 rules: its path checked, with the rules" jq_true \
			'.rows[] | select(.name == "iptables-raw+rules64") | .path.checked and
			 (.path.declared | test("ipt_do_table[|]nft_do_chain")) and .path.missing == []' "$T/v.json"
	else
		echo "SKIP $name, 64 rules: no iptables"
	fi

	# A --setup failing in one round: that round left out, saying why.
	"$HC" bench --scenario aa --hooks nothing-a --variant some \
		--setup '[ "$HC_ROUND" != 2 ] || { echo no luck >&2; exit 3; }' \
		--rounds 3 --packets 20000 --no-path-check -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check_eq "$name, --setup failing once: exit status" "$?" 0 "$T/v.err"
	check "$name, --setup failing once: round 2 left out, why kept" jq_true \
		'.rows[] | select(.name == "nothing-a+some") | .valid and .variant_failed_rounds == 1 and
		 ([.rounds[].round] == [1, 3]) and (.flags | index("setup-failed")) and
		 (.variant_why | test("^round 2: --setup of some failed [(]exit 3[)], saying: no luck$"))' \
		"$T/v.json" ||
		jq -c '.rows[] | select(.name == "nothing-a+some") | {variant_failed_rounds, variant_why, flags}' "$T/v.json"

	# Failing always, or hanging: the row INVALID, the others stand.
	"$HC" bench --scenario aa --hooks nothing-a --variant bad --setup 'echo boom >&2; exit 1' \
		$QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check "$name, --setup failing: the row INVALID, saying why; its own row valid" jq_true \
		'(.rows[] | select(.name == "nothing-a+bad") | (.valid | not) and
		  (.reason | test("^its --setup failed in every round [(]round 0: --setup of bad failed [(]exit 1[)], saying: boom[)]$"))) and
		 (.rows[] | select(.name == "nothing-a") | .valid)' "$T/v.json" ||
		jq -c '.rows[] | {name, reason}' "$T/v.json"
	"$HC" bench --scenario aa --hooks nothing-a --variant slow --setup "echo \$\$ >$T/slow.pid; exec sleep 60" \
		--variant-timeout 0.5 $QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check "$name, --setup hanging: the row INVALID for the time" jq_true \
		'.rows[] | select(.name == "nothing-a+slow") | (.valid | not) and
		 (.reason | test("--setup of slow: still running after 0.5 s [(]--variant-timeout[)]"))' "$T/v.json" ||
		jq -c '.rows[] | {name, reason}' "$T/v.json"
	check "$name, --setup hanging: stopped" not kill -0 "$(cat "$T/slow.pid")"

	# --undo failing ends the run: exit 1, saying what may remain.
	"$HC" bench --scenario aa --hooks nothing-a --variant stuck --setup true --undo 'exit 4' \
		$QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check_eq "$name, --undo failing: exit 1" "$?" 1 "$T/v.err"
	check "$name, --undo failing: says what may remain" grep -qE \
		"nothing-a[+]stuck, round 0: --undo of stuck failed [(]exit 4[)]; what its --setup did may remain in hcd's namespace" "$T/v.err"

	# A command's every line of stderr, not its last only (nft's is a
	# caret): one cell's line, " / " between them.
	"$HC" bench --scenario aa --hooks nothing-a --variant three \
		--setup 'echo "Error: first" >&2; echo "  add rule x " >&2; echo "      ^^^" >&2; exit 1' \
		$QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check_eq "$name, --setup saying three lines: exit status" "$?" 0 "$T/v.err"
	check_eq "$name, --setup saying three lines: all of them kept" \
		"$(jq -r '.rows[] | select(.name == "nothing-a+three") | .variant_why' "$T/v.json")" \
		"round 0: --setup of three failed (exit 1), saying: Error: first / add rule x / ^^^"
	# Too much of it: bounded, its first line and its end, cut said.
	"$HC" bench --scenario aa --hooks nothing-a --variant many \
		--setup 'echo "Error: first" >&2; for i in $(seq 25); do echo "line $i of a long error" >&2; done; exit 1' \
		--rounds 1 --packets 20000 --no-path-check -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check "$name, --setup saying 26 lines: its first, [cut], its end" jq_true \
		'.rows[] | select(.name == "nothing-a+many") | .variant_why |
		 test("^round 0: --setup of many failed [(]exit 1[)], saying: Error: first / [[]cut[]] / (line [0-9]+ of a long error / )+line 25 of a long error$") and
		 length < 520' "$T/v.json"
	# --setup failing, then its --undo too: the run ends, exit 1, naming
	# the row, the round and what the --undo said.
	"$HC" bench --scenario aa --hooks nothing-a --variant both \
		--setup 'echo half done >&2; exit 1' --undo 'echo "cannot undo" >&2; echo "at all" >&2; exit 4' \
		$QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	check_eq "$name, --setup and then --undo failing: exit 1" "$?" 1 "$T/v.err"
	check "$name, --setup and then --undo failing: says so, naming row and round" grep -qxF \
		"Error: bench: measuring: nothing-a+both, round 0: --undo of both failed (exit 4), saying: cannot undo / at all; what its --setup did may remain in hcd's namespace: Input/output error" \
		"$T/v.err"

	# A machine-wide setting its --undo did not put back: the run ends,
	# naming it.
	old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	"$HC" bench --scenario aa --hooks nothing-a --variant leaky \
		--setup "echo $((1 - old)) >/proc/sys/kernel/bpf_stats_enabled" --undo true \
		$QUICK -o "$T/v.json" >"$T/v.out" 2>"$T/v.err"
	rc=$?
	echo "$old" >/proc/sys/kernel/bpf_stats_enabled
	check_eq "$name, a setting left changed: exit 1" "$rc" 1 "$T/v.err"
	check "$name, a setting left changed: says which" grep -qF \
		"nothing-a+leaky, round 0: --undo of leaky left bpf_stats_enabled at $((1 - old)) ($old before its --setup); put it back yourself" \
		"$T/v.err"

	# SIGINT in a round: the pending --undo runs.
	rm -f "$T/mark"
	"$HC" bench --scenario aa --hooks nothing-a --variant held --setup "touch $T/mark" --undo "rm $T/mark" \
		$LONG --no-path-check -o "$T/v.json" >/dev/null 2>"$T/v.err" &
	pid=$!
	for i in $(seq "$WAIT_TICKS"); do
		grep -q "^round 1/" "$T/v.err" && break
		sleep 0.1
	done
	for i in $(seq "$WAIT_TICKS"); do
		[ -e "$T/mark" ] && break
		sleep 0.02
	done
	kill -INT "$pid"
	wait "$pid"
	check_eq "$name, SIGINT: exit status" "$?" 130
	check "$name, SIGINT: its --undo ran" not test -e "$T/mark"

	# kill -9 between --setup and --undo: the --undo was journalled, and
	# cleanup runs it once, in an empty network namespace.
	rm -f "$T/mark" "$T/undone"
	"$HC" bench --journal "$T/vj" --scenario aa --hooks nothing-a --variant killed \
		--setup "touch $T/mark; kill -9 \$PPID" \
		--undo "{ echo \$HC_VARIANT \$HC_CLEANUP; ls /sys/class/net; } >>$T/undone; rm $T/mark" \
		$QUICK -o "$T/v.json" >/dev/null 2>"$T/v.err"
	check_eq "$name, kill -9: killed" "$?" 137 "$T/v.err"
	check "$name, kill -9: its --setup ran, its --undo did not" \
		[ -e "$T/mark" -a ! -e "$T/undone" ]
	check_eq "$name, kill -9: the --undo journalled" "$(ls "$T/vj" | grep -c -- '-variant-')" 1
	"$HC" cleanup --journal "$T/vj" --all >"$T/v.out" 2>&1
	check_eq "$name, kill -9: cleanup's exit status" "$?" 0 "$T/v.out"
	check "$name, kill -9: cleanup says it ran the --undo once" grep -qF \
		"variant killed on hcd: ran its --undo '{ echo" "$T/v.out"
	check "$name, kill -9: it ran, in an empty netns, with its name" \
		[ "$(cat "$T/undone")" = "$(printf 'killed 1\nlo')" -a ! -e "$T/mark" ]
	"$HC" cleanup --journal "$T/vj" --all >"$T/v.out" 2>&1
	check "$name, kill -9: once only" [ "$(wc -l <"$T/undone")" = 2 ]
	check_eq "$name, kill -9: the journal empty" "$(ls "$T/vj")" ""

	# Usage: each mistake refused before anything runs.
	while IFS=';' read -r what args; do
		# shellcheck disable=SC2086
		"$HC" bench $args >"$T/v.out" 2>&1
		check_eq "$name usage, $what: exit 2" "$?" 2 "$T/v.out"
	done <<EOF
--setup before --variant;--setup true --variant x
no --setup;--variant x
a name with a plus;--variant a+b --setup true
twice;--variant x --setup true --variant x --setup true
--undo twice;--variant x --setup true --undo true --undo true
--undo too long to journal;--variant x --setup true --undo $(printf '%01024d' 0)
no time at all;--variant x --setup true --variant-timeout 0
EOF
	root_state_same "$name: nothing left behind"
}

# A variant's --undo left by kill -9, and 8 cleanups at once: one of them
# runs it, the others say so; all agree, none fails.
test_variant_race() {
	local name="bench --variant, 8 cleanups at once" i pids=() bad=0
	rm -rf "$T/vr" "$T/vr.undone" "$T"/vr.out.*
	"$HC" bench --journal "$T/vr" --scenario aa --hooks nothing-a --variant raced \
		--setup "kill -9 \$PPID" --undo "echo \$\$ >>$T/vr.undone" \
		$QUICK -o "$T/vr.json" >/dev/null 2>"$T/vr.err"
	check_eq "$name: killed" "$?" 137 "$T/vr.err"
	check_eq "$name: the --undo journalled" "$(ls "$T/vr" | grep -c -- '-variant-')" 1
	for i in $(seq 8); do
		"$HC" cleanup --journal "$T/vr" --all >"$T/vr.out.$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || bad=$((bad + 1))
	done
	check_eq "$name: every cleanup's exit status 0" "$bad" 0 "$T"/vr.out.*
	check_eq "$name: its --undo ran once" "$(wc -l <"$T/vr.undone")" 1
	check_eq "$name: one cleanup says it ran it" \
		"$(cat "$T"/vr.out.* | grep -c "^variant raced on hcd: ran its --undo ")" 1 "$T"/vr.out.*
	check_eq "$name: the others, that another ran it, or nothing to do" \
		"$(cat "$T"/vr.out.* | grep -cxE "variant raced on hcd: its --undo '.*' is run, or was, by another cleanup: not again|nothing to clean up")" \
		7 "$T"/vr.out.*
	check_eq "$name: the journal empty" "$(ls "$T/vr")" ""
}

# A --setup that ignores SIGTERM, past --variant-timeout: SIGKILL to its
# whole process group after the grace; nothing of it runs on.
test_variant_stubborn() {
	local name="bench --variant, a --setup ignoring SIGTERM" pg left=""
	rm -f "$T/vs.log" "$T/vs.pgids"
	"$HC" bench --scenario aa --hooks nothing-a --variant stubborn \
		--setup "trap '' TERM; echo \$\$ >>$T/vs.pgids; sleep 4; echo survived >>$T/vs.log" \
		--variant-timeout 1 $QUICK -o "$T/vs.json" >"$T/vs.out" 2>"$T/vs.err"
	check_eq "$name: exit status" "$?" 0 "$T/vs.err"
	check "$name: the row INVALID for the time" jq_true \
		'.rows[] | select(.name == "nothing-a+stubborn") | (.valid | not) and
		 (.reason | test("--setup of stubborn: still running after 1 s"))' "$T/vs.json"
	# Longer than its sleep, after the last one started.
	sleep 6
	check "$name: it never went on to write" not test -e "$T/vs.log"
	for pg in $(cat "$T/vs.pgids"); do
		pgrep -g "$pg" >/dev/null && left="$left $pg"
	done
	check_eq "$name: nothing of it remains" "$left" ""
	check "$name: it ran" test -s "$T/vs.pgids"
}

# What --setup or --undo left running outside bench's reach (setsid -f):
# named by pid, on stderr and in the row's report, and left alone.
test_variant_daemon() {
	local name="bench --variant, a daemon left running" pid upid p
	local tag="37.$$" utag="38.$$"
	rm -f "$T/vd.once"
	"$HC" bench --scenario aa --hooks nothing-a --variant daemon \
		--setup "[ -e $T/vd.once ] || { touch $T/vd.once; setsid -f sleep $tag; }" \
		$QUICK -o "$T/vd.json" >"$T/vd.out" 2>"$T/vd.err"
	check_eq "$name: exit status" "$?" 0 "$T/vd.err"
	pid=$(pgrep -xf "sleep $tag")
	check "$name: the daemon runs on" test -n "$pid"
	# (its name: sleep, or setsid's still, before its exec)
	check "$name: stderr names its pid" grep -qxE \
		"Warning: --setup of daemon [(]nothing-a[+]daemon, round 0[)] left running pid $pid [(](sleep|setsid)[)]: bench leaves it alone" \
		"$T/vd.err"
	check "$name: the row's report names it; the row valid" jq_true \
		'.rows[] | select(.name == "nothing-a+daemon") | .valid and .variant_failed_rounds == 0 and
		 .variant_left_pids == ['"${pid:-0}"'] and (.flags | index("left-running")) and
		 (.variant_left | test("^round 0: --setup of daemon left running pid '"${pid:-0}"' [(](sleep|setsid)[)]$"))' "$T/vd.json"
	for p in $pid; do kill "$p"; done

	# cleanup's run of an --undo journalled before a kill -9.
	rm -rf "$T/vdj"
	"$HC" bench --journal "$T/vdj" --scenario aa --hooks nothing-a --variant dkill \
		--setup "kill -9 \$PPID" --undo "setsid -f sleep $utag" \
		$QUICK -o "$T/vdj.json" >/dev/null 2>"$T/vdj.err"
	check_eq "$name, cleanup: bench killed" "$?" 137 "$T/vdj.err"
	"$HC" cleanup --journal "$T/vdj" --all >"$T/vdj.out" 2>&1
	check_eq "$name, cleanup: exit status" "$?" 0 "$T/vdj.out"
	upid=$(pgrep -xf "sleep $utag")
	check "$name, cleanup: the daemon runs on" test -n "$upid"
	check "$name, cleanup: says its pid" grep -qE \
		"ran its --undo 'setsid -f sleep $utag' once, in an empty network namespace; it left running pid $upid [(](sleep|setsid)[)]$" \
		"$T/vdj.out"
	for p in $upid; do kill "$p"; done
	root_state_same "$name: nothing left behind"
}

# bench --runs killed -9 while a run goes on: the runs' documents are
# nowhere in /tmp (a /tmp of its own, bound over the host's for it).
runs_killed() {
	local name="bench --runs 2, kill -9 during a run" tmp=/run/hct$$-runs pid child
	mkdir -p "$tmp"
	: >"$T/runs.err"
	# shellcheck disable=SC2086,SC2016 # $INJECT: words; the inner sh's $0, $@
	HOOKCMP_PAUSE_AT=bench-row unshare --mount --propagation private -- \
		sh -c 'mount --bind "$0" /tmp && exec "$@"' "$tmp" \
		"$HC" bench --runs 2 $INJECT --scenario static-key --hooks ingress --rounds 2 \
		--packets 20000 --no-path-check >/dev/null 2>"$T/runs.err" &
	pid=$!
	if wait_for "paused at step 'bench-row'" "$T/runs.err"; then
		child=$(pgrep -P "$pid")
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		# the run itself goes on to its end, its document written
		[ -z "$child" ] || kill -USR1 "$child"
		wait_until not kill -0 "$child" 2>/dev/null
		check_eq "$name: no file of the runs left in /tmp" "$(ls -A "$tmp")" ""
	else
		fail "$name: the run never reached its first row"
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
	fi
	"$HC" cleanup --all >/dev/null 2>&1
	rm -rf "$tmp"
}

# bench --runs: K runs, each a bench of its own, one document with each
# row's spread between them; compare takes it as its runs.
test_runs() {
	local f="$T/runs.json" out="$T/runs-cmp.json" left
	"$HC" bench --runs 2 $INJECT --scenario static-key --hooks ingress --rounds 6 \
		--packets 20000 --seed 7 --no-path-check -o "$f" >"$T/runs.out" 2>"$T/runs.err"
	check_eq "bench --runs 2: exit status" "$(bench_rc $? "$f")" 0 "$T/runs.err"
	# every row over both, but for a run the load left it too few rounds
	check "bench --runs 2: one document of two runs, every row over both" jq_true \
		'.type == "bench-runs" and (.runs | length) == 2 and all(.runs[]; .type == "bench") and
		 (.rows | length) == (.runs[0].rows | length) and
		 [.runs[] | [.rows[] | select(.flags | index("too-few-rounds") | not) | .name]] as $ok |
		 all(.rows[]; .name as $n | .runs == ([$ok[] | select(index($n))] | length))' "$f"
	check "bench --runs 2: each run its own seed (--seed 7: 7 and 8)" jq_true \
		'[.runs[].seed] == [7, 8]' "$f"
	check "bench --runs 2: the second run with the first's plan" jq_true \
		'.runs[0].plan == .runs[1].plan' "$f"
	check "bench --runs 2: the table of the rows' spread on stdout" \
		grep -q "disagreeing runs" "$T/runs.out"
	left=$(ls -d /tmp/hookcmp-runs.* 2>/dev/null)
	check_eq "bench --runs 2: its temporary files gone" "$left" ""
	runs_killed
	"$HC" bench --runs 2 $INJECT --scenario static-key --rounds 6 \
		-o "$T/no/such/dir/runs.json" >"$T/runs.out" 2>"$T/runs.err"
	check_eq "bench --runs 2 -o into no directory: exit status (usage)" "$?" 2 "$T/runs.err"
	check "bench --runs 2 -o into no directory: refused before any run" \
		not grep -q "run 1 of 2" "$T/runs.err"
	# /dev/stdout, our stdout a file: the document after the table (a
	# link of our own, as /dev/stdout is, so that a bench renaming over
	# it breaks no /dev)
	ln -s /proc/self/fd/1 "$T/stdout"
	"$HC" bench --runs 2 $INJECT --scenario static-key --hooks ingress --rounds 2 \
		--packets 20000 --no-path-check -o "$T/stdout" >"$T/runs.out" 2>"$T/runs.err"
	check_eq "bench --runs 2 -o /dev/stdout: exit status" "$?" 0 "$T/runs.err"
	check "bench --runs 2 -o /dev/stdout: the table first" grep -q "disagreeing runs" "$T/runs.out"
	tail -n 1 "$T/runs.out" >"$T/runs-last.json"
	check "bench --runs 2 -o /dev/stdout: the document after the table" jq_true \
		'.type == "bench-runs" and (.runs | length) == 2' "$T/runs-last.json"
	# a link the user made stays theirs: written through, not replaced
	echo old >"$T/real.json"
	ln -sf real.json "$T/link.json"
	"$HC" bench $INJECT --scenario static-key --hooks ingress --rounds 2 \
		--packets 20000 --no-path-check -o "$T/link.json" >/dev/null 2>"$T/runs.err"
	check_eq "bench -o LINK: exit status" "$?" 0 "$T/runs.err"
	check "bench -o LINK: the link stays, its file holds the document" jq_true \
		'.type == "bench"' "$T/real.json"
	check "bench -o LINK: still a link" test -L "$T/link.json"
	"$HC" bench compare -j "$f" -- "$f" >"$out" 2>"$T/runs.err"
	check_eq "bench compare: a --runs document: exit status" "$?" 0 "$T/runs.err"
	# A run whose rows the load left short of rounds is left out: right,
	# and no count of the document's runs to check then.
	if jq -e --slurpfile r "$f" '(.left_out | length) > 0 and
		all($r[0].runs[].rows[]; .valid or (.reason | test("fewer than the [0-9]+ an interval needs")))' \
		"$out" >/dev/null; then
		echo "SKIP bench compare: a --runs document counts as its runs: $(jq -r '.left_out | join("; ")' "$out") (the machine's load)"
	else
		check "bench compare: a --runs document counts as its runs" jq_true --slurpfile r "$f" \
			'.old.runs == 2 and .new.runs == 2 and (.old.files[1] | endswith("runs.json run 2")) and
			 all(.rows[]; .name as $n | .runs_old == ($r[0].rows[] | select(.name == $n) | .runs) and
				.runs_old == .runs_new)' "$out"
	fi
}

# env: what sits on the receive path outside the bench, in any namespace,
# is recorded and warned about: a clsact qdisc and a generic XDP program
# planted in a namespace of their own, which the caller's never sees.
test_env() {
	local ns=hc-env-$$ f="$T/env.json" name="bench env" pids=() p
	if plant "$name: a namespace" ip netns add $ns &&
		plant "$name: a veth pair there" ip -n $ns link add ea type veth peer name eb &&
		plant "$name: eb up" ip -n $ns link set eb up &&
		plant "$name: a clsact on ea" tc -n $ns qdisc add dev ea clsact &&
		plant "$name: generic XDP on eb" ip -n $ns link set dev eb xdpgeneric obj build/xdp.bpf.o sec xdp; then
		# A tcx link on eb and netfilter links there, another hookcmp's:
		# named by attach point, device and namespace, in words.
		for p in tcx netfilter; do
			[ $p = tcx ] && ! kernel_has 6.6 && continue
			[ $p = netfilter ] && ! kernel_has 6.4 && continue
			if [ $p = tcx ]; then
				"$HC" -n $ns --hook tc --tc-attach tcx -i 0 eb >/dev/null 2>"$T/env-$p.err" &
			else
				"$HC" -n $ns --hook netfilter -i 0 eb >/dev/null 2>"$T/env-$p.err" &
			fi
			pids+=($!)
			wait_for "attached to" "$T/env-$p.err" ||
				fail "$name: hookcmp --hook $p in $ns did not attach: $(cat "$T/env-$p.err")"
		done
		"$HC" bench $INJECT --scenario static-key --hooks ingress --rounds 2 \
			--packets 20000 --no-path-check -o "$f" >/dev/null 2>"$T/env.err"
		check_eq "$name: exit status" "$?" 0 "$T/env.err"
		if kernel_has 6.6; then
			check "$name: a tcx link by its attach point, device and namespace" jq_true \
				--arg l "tcx ingress link on eb (netns '$ns')" '.env.outside | index($l) != null' "$f"
		fi
		if kernel_has 6.4; then
			check "$name: netfilter links by family and hook, in words" jq_true \
				'.env.outside | index("netfilter link (ipv4 prerouting, priority -300)") != null and
				 index("netfilter link (ipv6 prerouting, priority -300)") != null' "$f"
		fi
		check "$name: no raw attach type or hook number left" jq_true \
			'all(.env.outside[]; test("attach type|, hook [0-9]") | not)' "$f"
		check "$name: the lines sorted, each once" jq_true \
			'.env.outside == (.env.outside | unique)' "$f"
		for p in "${pids[@]}"; do
			kill -INT "$p"
			wait "$p"
		done
		check "$name: the clsact in another namespace is recorded" jq_true --arg l "clsact qdisc on ea (netns '$ns')" \
			'.env.outside | index($l) != null' "$f"
		check "$name: the generic XDP program there too" jq_true --arg l "generic XDP on eb (netns '$ns')" \
			'.env.outside | index($l) != null' "$f"
		check "$name: static-key warns, naming the device and the namespace" \
			grep -q "clsact qdisc on ea (netns '$ns')" "$T/env.err"
		check "$name: the BPF and JIT settings, the CPU, the kernel's command line, the version" jq_true \
			'.env.settings | has("bpf_stats_enabled") and has("bpf_jit_harden") and has("bpf_jit_kallsyms") and
			 (.cmdline | type) == "string"' "$f"
		check "$name: and the rest of the machine's state" jq_true \
			'.env | (.cpu_model | type) == "string" and (.mitigations | type) == "array" and
			 has("kernel_config_fnv1a") and (.hookcmp_version | type) == "string" and
			 (.changed_during_run | type) == "array"' "$f"
	fi
	ip netns del $ns 2>/dev/null
}

test_contract() {
	local name="bench JSON contract"
	# shellcheck disable=SC2086
	"$HC" bench --scenario static-key --hooks ingress,$TC --rounds 6 --packets 20000 --seed 42 $NOPATH -j \
		-o "$T/c.json" --csv "$T/c.csv" >"$T/c.out" 2>"$T/c.err"
	check_eq "$name: exit status" "$(bench_rc $? "$T/c.json")" 0 "$T/c.err"
	check_eq "$name: -j prints one document on stdout" "$(jq -s length "$T/c.out")" 1
	check "$name: progress goes to stderr" grep -q "^round 6/6" "$T/c.err"
	check "$name: -o writes the same document" cmp -s "$T/c.out" "$T/c.json"
	check "$name: top level" jq_true '
		.type == "bench" and .scenario == "static-key" and .cpu_mode == "inline" and
		.rounds == 6 and .seed == 42 and .baseline == "nothing" and
		# null only when no row has the 6 pairs an interval needs
		((.resolution_ns | type) == "number" or
		 ((.resolution_ns == null) and all(.rows[]; .mde_ns == null))) and (.env | type) == "object" and
		(.rows | type) == "array"' "$T/c.json"
	check "$name: env" jq_true '.env |
		(.cpus | type) == "number" and (.bpf_jit | type) == "boolean" and
		(.live_frames | type) == "boolean" and (.tcx | type) == "boolean" and
		(.emulated | type) == "boolean" and (.hypervisor | type) == "string" and
		(.kernel | type) == "string" and .windows == 20 and .window_packets == '"$WP"' and
		.clock == "task-clock"' "$T/c.json"
	check "$name: every row's keys and types" jq_true '
		def num: type == "number";
		def est(n): (.median | n) and (.ci | type) == "array" and (.ci | length) == 2 and
			all(.ci[]; n) and .ci[0] <= .median and .median <= .ci[1];
		def est_null: .median == null and .ci == [null, null];
		# A contended round has no cost: pairs with a baseline left under 6
		# give a delta without an interval (n/a); a row left under 6 rounds
		# with a cost of its 6 has no estimates and is INVALID, saying so.
		def est_k(k): if k >= 6 then est(num) elif k == 0 then est_null
			else (.median | num) and .ci == [null, null] end;
		def costed: [.rounds[] | select(.ns != null) | .round];
		(.rows[0] | costed) as $base |
		all(.rows[]; costed as $k | [$k[] | select(. as $r | any($base[]; . == $r))] as $p |
			(.name | type) == "string" and (.valid | type) == "boolean" and
			(.flags | type) == "array" and all(.flags[]; type == "string") and
			(if ($k | length) < 6 then .status == "invalid" and
				(.reason == "valid in \($k | length) of 6 rounds, fewer than the 6 an interval needs") and
				(.ns | est_null) and (.delta_ns | est_null) and (.ratio | est_null) and
				.mpps.median == null and .significant == null and .mde_ns == null
			else (.reason == null) and
			(.mpps | (.median | num) and (.min | num) and (.max | num) and .min <= .median and .median <= .max) and
			(.ns | est_k($k | length)) and (.excluded_windows | num) and
			(if (.flags | index("generator")) then (.delta_ns | est_null) and (.ratio | est_null) and .significant == null and
				.delta_median == null and .mde_ns == null
			 else (.delta_ns | est_k($p | length)) and (.ratio | est_k($p | length)) and
				(.significant | type) == (if ($p | length) >= 6 then "boolean" else "null" end) and
				(.delta_median | if ($p | length) > 0 then num else . == null end) end) and
			(if (.flags | index("generator")) or (.flags | index("baseline")) or ($p | length) < 6
			 then .mde_ns == null and .mde_pct == null
			 else (.mde_ns | num) and .mde_ns >= 0 and (.mde_pct | num) end) end) and
			(.rounds | type) == "array" and
			all(.rounds[]; (.round | num) and (.order | num) and (.generated | num) and
				(.seen | num) and (.dropped_before | num) and (.dropped_dut | num) and (.mpps | num) and
				(.ns == null or (.ns | num)) and (.contended | type) == "boolean" and
				(if .excluded == null then .excluded_windows == 0
				 else (.excluded | type) == "string" and .excluded_windows > 0 end) and
				(.outlier | type) == "boolean" and
				(.cpu_ns | num) and .cpu_ns > 0 and (.own_ns | num) and (.pkt_ns | num)))' "$T/c.json"
	# The fastest window that stands is the round's: never over the mean.
	# Under TCG the guest's task clock can miss a 1 ms window altogether.
	check "$name: every round has its --windows from its 2 visits, which add up to what it sent" jq_true '
		def abs: if . < 0 then -. else . end;
		.env.emulated as $emu |
		all(.rows[]; .window_packets == '"$WP"' and
			((.ns_loaded | type) == "number" or .status == "invalid") and
			all(.rounds[]; .visits == 2 and (.windows | length) == 20 and
				([.windows[].packets] | add) == .generated and
				all(.windows[]; .packets == '"$WP"' and .secs > 0 and (.cpu_ns > 0 or ($emu and .cpu_ns == 0))) and
				([.windows[] | select(.excluded) ] | length) == .excluded_windows and
				if .excluded_windows == 20 then .pkt_ns == null else
				(.pkt_ns - ([.windows[] | select(.excluded | not) | .cpu_ns / .packets] | min) | abs) <= 1e-4 * .pkt_ns and
				.pkt_ns <= .pkt_ns_loaded * (1 + 1e-5) end))' "$T/c.json"
	check_eq "$name: rows" "$(jq -c '[.rows[].name]' "$T/c.json")" \
		'["nothing","ingress","'$TC'-pass","gen-only"]'
	check "$name: the baseline is flagged and compared with itself" jq_true '
		.rows[0] | ([.rounds[] | select(.ns != null)] | length) as $k |
		(.flags | index("baseline")) and
		if $k >= 6 then .delta_ns.median == 0 and .ratio.median == 1 and
			.delta_ns.ci == [0,0] and .ratio.ci == [1,1] and (.significant | not)
		else .delta_ns.median == null and .ratio.median == null and
			.delta_ns.ci == [null,null] and .significant == null end' "$T/c.json"
	check "$name: each round's order is a shuffle of the rows" jq_true '
		[.rows[].rounds[] | {round, order}] | group_by(.round) |
		all(.[]; ([.[].order] | sort) == [0, 1, 2, 3])' "$T/c.json"
	check_eq "$name: CSV header" "$(head -n 1 "$T/c.csv")" \
		"name,valid,status,reason,flags,mpps_median,mpps_min,mpps_max,ns_median,ns_ci_lo,ns_ci_hi,delta_ns_median,delta_ns_ci_lo,delta_ns_ci_hi,delta_median,mde_ns,mde_pct,ratio_median,ratio_ci_lo,ratio_ci_hi,significant,ns_loaded,window_packets,path_checked,path_samples,path_prog_runs,path_missing,path_unexpected,path_why,path_declared"
	check_eq "$name: CSV lines per row" "$(tail -n +2 "$T/c.csv" | cut -d, -f1 | tr '\n' ' ')" \
		'"nothing" "ingress" "'$TC'-pass" "gen-only" '
	# The same numbers, to the JSON's 6 significant digits.
	check "$name: CSV and JSON agree" awk -F'[, ]' '
		NR == FNR { if (FNR > 1) { ns[FNR - 1] = $9; ratio[FNR - 1] = $18 }; next }
		function off(a, b) { return (a - b > 0 ? a - b : b - a) > 1e-5 * (a > 0 ? a : -a) + 1e-9 }
		off($1, ns[FNR]) || ($2 != "null" && off($2, ratio[FNR])) { bad = 1 }
		END { exit bad || FNR != 4 }' "$T/c.csv" \
		<(jq -r '.rows[] | "\(.ns.median) \(.ratio.median)"' "$T/c.json")

	# shellcheck disable=SC2086
	"$HC" bench --scenario static-key --hooks ingress,$TC --rounds 6 --packets 20000 --seed 42 $NOPATH -j >"$T/c2.json" 2>/dev/null
	check_eq "$name: the same seed, the same orders" \
		"$(jq -c '[.rows[].rounds[].order]' "$T/c2.json")" "$(jq -c '[.rows[].rounds[].order]' "$T/c.json")"
	# shellcheck disable=SC2086
	HOOKCMP_HYPERVISOR=KVMKVMKVM "$HC" bench --scenario static-key --hooks ingress,$TC $QUICK -j \
		>"$T/c3.json" 2>"$T/c3.err"
	check "$name: without --seed, a seed is printed and recorded" \
		grep -q "seed $(jq .seed "$T/c3.json")\$" "$T/c3.err"
	check "$name: 2 rounds: medians, no intervals, no sig" jq_true '
		.resolution_ns == null and all(.rows[]; ((.ns.median | type) == "number" or all(.rounds[]; .ns == null)) and
		.ns.ci == [null, null] and .significant == null and
		if (.flags | index("generator")) then true else .delta_ns.ci == [null, null] end)' "$T/c3.json"

	# An emulated CPU (qemu TCG, as CPUID says) marks every row.
	HOOKCMP_HYPERVISOR=TCGTCGTCGTCG "$HC" bench --scenario aa $QUICK -j \
		>"$T/e.json" 2>"$T/e.err"
	check "$name: emulated CPU recorded" jq_true \
		'.env.emulated and .env.hypervisor == "TCGTCGTCGTCG" and all(.rows[]; .flags | index("emulated"))' \
		"$T/e.json"
	check "$name: emulated CPU said up front" grep -q "the CPU is emulated (TCGTCGTCGTCG)" "$T/e.err"
	check "$name: a KVM guest is not emulated" jq_true \
		'(.env.emulated | not) and all(.rows[]; .flags | index("emulated") | not)' "$T/c3.json"
}

# forward: every frame of every round at the far end, whichever way it
# went; no NAPI at the sink makes the XDP rows INVALID, saying why.
test_forward() {
	local name="bench forward" out invalid='[]'
	# shellcheck disable=SC2086
	"$HC" bench --scenario forward $SHORT $NOPATH -o "$T/fw.json" >/dev/null 2>&1
	check_eq "$name: exit status" "$?" "$(emu_exit "$T/fw.json")"
	check_eq "$name: row names" "$(jq -c '[.rows[].name]' "$T/fw.json")" \
		'["xdp-redirect-map","xdp-redirect","tc-redirect","tcx-redirect","tc-redirect-peer","stack-forward","nft-fwd","gen-only"]'
	# Before 6.6 the sink counts with a cls_bpf filter; only the tcx row
	# cannot run.
	[ $TCX = false ] && invalid='["tcx-redirect: setup: tc (tcx): tcx links need Linux 6.6 or newer: Operation not supported"]'
	# On an emulated CPU a row whose DUT fell behind is INVALID for that.
	check_eq "$name: INVALID rows" \
		"$(jq -c '.env.emulated as $emu | [.rows[] | select(.valid | not) |
			select('"$EMU_BEHIND"' | not) |
			"\(.name): \(.reason)"]' "$T/fw.json")" "$invalid"
	# An emulated CPU's DUT can fall behind its generator even inline: what
	# its veth's ring refused is dropped before it, and counted so.
	check "$name: every frame counted at the sink, none dropped on the way" jq_true \
		'.env.emulated as $emu | all(.rows[] | select((.flags | index("generator") | not) and .valid) | .rounds[];
			.seen + .dropped_before == .generated and ($emu or .dropped_before == 0) and .dropped_dut == 0)' "$T/fw.json"
	check_eq "$name: against stack-forward" "$(jq -r .baseline "$T/fw.json")" stack-forward
	# Split, the generator can outrun the DUT and fill its veth's ring: the
	# veth counts each such frame at both ends (the generator's tx_dropped,
	# the DUT's rx_dropped), and a round adds up only if it counts once.
	"$HC" bench --scenario forward --hooks stack-forward --cpu-mode split \
		--rounds 2 --packets 200000 -o "$T/fs.json" >/dev/null 2>&1
	if jq_true 'any(.rows[].rounds[]; .dropped_before > 0)' "$T/fs.json"; then
		check "$name, a full ring: every round accounted for" jq_true "$ACCOUNTED" "$T/fs.json"
		check "$name, a full ring: the drops before the DUT are not the DUT's" jq_true \
			'all(.rows[].rounds[]; .dropped_dut == 0)' "$T/fs.json"
	else
		echo "SKIP $name, a full ring: the generator never outran the DUT here"
	fi
	# shellcheck disable=SC2086
	out=$(HOOKCMP_FAIL_AT=bench-sink-gro "$HC" bench --scenario forward $SHORT $NOPATH -o "$T/fw.json" 2>&1)
	check_eq "$name without NAPI at the sink: exit status" "$?" "$(emu_exit "$T/fw.json")"
	check "$name without NAPI at the sink: says so" grep -q \
		"Warning: no NAPI on hcs (GRO on: fault injected at step 'bench-sink-gro'): the XDP rows will be INVALID" <<<"$out"
	check_eq "$name without NAPI at the sink: the XDP rows INVALID, with the cause" \
		"$(jq -c '.env.emulated as $emu | [.rows[] | select(.valid | not) |
			select('"$EMU_BEHIND"' | not) |
			.name] - ["tcx-redirect"]' "$T/fw.json")" '["xdp-redirect-map","xdp-redirect"]'
	# run's check reads the target's XDP features (Linux 6.3); before,
	# the kernel drops the frames at hco, and the accounting says so.
	if kernel_has 6.3; then
		reason='"^setup: hco takes no XDP frames: its veth peer runs no NAPI [(]no XDP program there, GRO off[)], so the kernel drops what is redirected to it: Operation not supported$"'
	else
		# as many as reached hcd: on an emulated CPU, not all did
		reason='"round 1: [0-9]+ dropped at the DUT [(]hcd rx_dropped, hco tx_dropped, the program'"'"'s drops[)]$"'
	fi
	check "$name without NAPI at the sink: the reason" jq_true \
		"all(.rows[] | select(.valid | not) | select(.name | startswith(\"xdp\")); .reason | test($reason))" \
		"$T/fw.json"
	root_state_same "$name: nothing left behind"
}

# --topology inject: the frames enter hcd's receive path from bench's own
# thread. Every scenario runs; the rows that cannot say the frames reached
# their hook are INVALID at setup, saying why.
test_inject() {
	local name="bench inject" s invalid sig pid i rc nopath
	local bare='setup: inject: a bare program counts nothing, and no driver counts what hcd received: nothing would say the frames reached the hook: Operation not supported'
	local ok
	need_live "$name" || return 0
	ok=$(jq -nc --arg bare "$bare" '[$bare]')
	# Under TCG (make check-vm) the whole set would take the guest past
	# its time limit: the topology's own paths there, the rest here.
	local scens="hooks static-key parse rules size aa forward" tcg=false
	under_tcg "$name: parse, rules, size, aa, forward, the signals and NET_RX on CPU 1" \
		"they run on the host" && tcg=true scens="hooks static-key"
	for s in $scens; do
		nopath=$(path_opt "$s")
		# shellcheck disable=SC2086
		"$HC" bench --topology inject --scenario "$s" $SHORT $nopath -o "$T/inj-$s.json" >"$T/out" 2>"$T/err"
		check_eq "$name $s: exit status" "$?" 0 "$T/err"
		check "$name $s: the topology and where the work ran, recorded" jq_true \
			'.topology == "inject" and .cpu_mode == "inline" and .env.work_in_bench_thread' "$T/inj-$s.json"
		invalid=$(jq -c --arg m "$MISSING" --arg load "$LOAD_REASON" --argjson ok "$ok" \
			"$UNEXPECTED" "$T/inj-$s.json")
		load_skips "$name $s" "$T/inj-$s.json"
		check_eq "$name $s: every row valid but those that cannot be" "$invalid" "[]"
		check "$name $s: every round accounted for" jq_true "$ACCOUNTED" "$T/inj-$s.json"
		check "$name $s: the table says how the frames came" \
			grep -q "^frames injected into hcd's receive path from bench's thread (live frames, XDP_PASS), no driver: the xdp-native and xsk rows' programs run by the live loop; " "$T/out"
	done
	# (bench hooks' row names, checked above, say which rows are bare)
	check_eq "$name hooks: the bare rows INVALID" \
		"$(jq -c '[.rows[] | select(.reason == $bare) | .name]' --arg bare "$bare" "$T/inj-hooks.json")" \
		"$(jq -c '[.rows[] | select(.name | endswith("-bare")) | .name]' "$T/inj-hooks.json")"
	# native XDP is the logic run by the live loop, and so is the AF_XDP
	# rows' program, redirecting to the socket on queue 0: every frame,
	# but what the socket's ring refused while the host held its consumer
	# off (counted, and the row INVALID, as UNEXPECTED says).
	check "$name hooks: xdp-native and AF_XDP, run by the loop, saw every frame" jq_true \
		'[.rows[] | select(.name | test("^(xdp-native|xsk-l4|xsk-none)$")) |
		  . as $row | select((.valid or .name != "xdp-native") and all(.rounds[]; .dropped_dut == 0 and
			if $row.valid then .seen == .generated else .seen + .dropped_before == .generated end))] |
		 length == 3' \
		"$T/inj-hooks.json"
	# No driver counts them: the stack's drop of what is not ours does.
	check "$name static-key: the ladder's rows, each frame seen where ip_rcv drops it" jq_true \
		'([.rows[].name] - ["ingress-other-dev", "ingress", "clsact", "ingress+u32"] | length) == (.rows | length) - 4 and
		 all(.rows[] | select(.flags | index("generator") | not) | .rounds[]; .seen == .generated)' \
		"$T/inj-static-key.json"
	# forward: the stack, tc and the logic run by the loop take every frame
	# from hcd to the sink.
	$tcg || check "$name forward: every frame at the sink, none dropped" jq_true \
		'.env.emulated as $emu | all(.rows[] | select((.flags | index("generator") | not) and .valid) | .rounds[];
			.seen + .dropped_before + .dropped_dut == .generated and
			($emu or (.dropped_before == 0 and .dropped_dut == 0)))' \
		"$T/inj-forward.json"
	check "$name static-key: the floor sends into nothing" jq_true \
		'.rows[] | select(.name == "gen-only") | .valid and all(.rounds[]; .seen == 0 and .generated > 0)' \
		"$T/inj-static-key.json"
	root_state_same "$name: nothing left behind"
	expect_table "$name usage" bench <<EOF
2;--cpu-mode split and --topology inject: inject runs the whole receive path in bench's thread, inline;--topology inject --cpu-mode split
2;--topology and --dev: a device of yours is the third topology;--topology inject --dev lo --external
2;--topology 'nope';--topology nope
EOF
	$tcg && return

	# NET_RX on CPU 1 during the windows (a veth of the suite's own, its
	# generator pinned there) is receive work not in bench's thread: the
	# windows it falls in are excluded, saying so.
	if [ "$(nproc)" -ge 2 ] && topo_up && ip netns exec "$D" ethtool -K "$DEV" gro on >/dev/null; then
		taskset -c 1 "$HC" -n "$G" gen -d 600 --allow-drops hcg >/dev/null 2>&1 &
		pid=$!
		for i in $(seq "$WAIT_TICKS"); do
			[ "$(ip -n "$D" -j -s link show "$DEV" | jq '.[0].stats64.rx.packets')" -gt 1000 ] && break
			sleep 0.1
		done
		"$HC" bench --topology inject --scenario static-key --hooks nothing $SHORT -o "$T/inj-rx.json" >/dev/null 2>&1
		kill "$pid"
		wait "$pid" 2>/dev/null
		check "$name, NET_RX on CPU 1: windows excluded, saying why" jq_true \
			'([.rows[].excluded_windows] | add) > 0 and
			 any(.rows[].rounds[]; .excluded // "" | test("NET_RX softirqs on CPU 1, which is not counted"))' \
			"$T/inj-rx.json"
	else
		echo "SKIP $name, NET_RX on CPU 1: needs 2 CPUs and a veth pair"
	fi
	topo_down
	root_state_same "$name, NET_RX on CPU 1: nothing left behind"

	# Signals and kill -9 once the rounds run: nothing left behind.
	signal_runs "$name" --topology inject
}

# The stage: AF_PACKET on hcf, native XDP on its peer hcr redirecting to
# hcg, so that hcd takes XDP frames, as from a driver, where live frames
# are refused (the default there; --feed stage on any machine). Its
# driver rows prove the frame path in their samples, and a feed of skbs
# while the report says the stage (a fault of the tests') makes them
# INVALID, naming both; every frame is accounted for, gen-only's too;
# inject without live frames runs on it; each step of its setup, killed,
# leaves nothing.
test_stage() {
	local name="bench --feed stage" want=stage invalid feeds sig pid rc i
	local drv='xdp-native xdp-native-bare xsk-l4 xsk-none'
	$LIVE && want=live
	# shellcheck disable=SC2086
	"$HC" bench --hooks xdp-native,tc-clsact,xsk-l4 $SHORT -o "$T/st0.json" >"$T/out" 2>"$T/err"
	check_eq "bench's default feed: exit status" "$?" 0 "$T/err"
	check "bench's default feed: $want, in the JSON" jq_true \
		".env.feed == \"$want\" and .env.live_frames == $LIVE and
		 (.env.live_refused != null) == ($LIVE | not)" "$T/st0.json"
	check_eq "bench's default feed: the stage named in the report where live frames are refused" \
		"$(grep -c "^frames sent by AF_PACKET on hcf and redirected as XDP frames to hcg by the stage's native XDP on hcr (live XDP frames refused here): hcd's NAPI takes XDP frames, as from a driver; " "$T/out")" \
		"$($LIVE && echo 0 || echo 1)" "$T/out"

	# shellcheck disable=SC2086
	"$HC" bench --feed stage --hooks xdp-native,tc-clsact,xsk-l4 $SHORT $NOPATH \
		-o "$T/st.json" >"$T/out" 2>"$T/err"
	check_eq "$name: exit status" "$?" 0 "$T/err"
	invalid=$(jq -c --arg m "$MISSING" --arg load "$LOAD_REASON" --argjson ok '[]' \
		"$UNEXPECTED" "$T/st.json")
	load_skips "$name" "$T/st.json"
	check_eq "$name: every row valid" "$invalid" "[]"
	check "$name: every round accounted for, 64 frames to hcd a frame sent" jq_true \
		"$ACCOUNTED and .env.feed == \"stage\" and .env.stage_copies == 64 and
		 all(.rows[].rounds[]; .generated % 64 == 0)" "$T/st.json"
	check "$name: the driver's rows declare the frame path, the skb conversion ruled out" jq_true \
		--arg drv "$drv" '[.rows[] | select(.name as $n | $drv | split(" ") | index($n)) |
			.path.declared | test("veth_xdp_rcv_one !veth_xdp_rcv_skb>bpf_prog_hc_xdp")] |
		 length == 4 and all' "$T/st.json"
	check "$name: gen-only made every copy and dropped it before hcd's NAPI" jq_true \
		--arg load "$LOAD_REASON" '.rows[] | select(.name == "gen-only") |
		 (.valid or (.reason | test($load))) and
		 (.path.declared | test("dev_map_enqueue_multi.* !veth_xdp_rcv_one")) and
		 all(.rounds[]; .seen == 0 and .dropped_before == .generated)' "$T/st.json"
	if [ -z "$NOPATH" ] && jq_true '.rows[] | select(.name == "xdp-native") | .path.checked' "$T/st.json"; then
		# shellcheck disable=SC2086
		HOOKCMP_FAIL_AT=bench-skbs "$HC" bench --feed stage --hooks xdp-native,tc-clsact,xsk-l4 \
			--no-bare $SHORT -o "$T/sk.json" >/dev/null 2>"$T/err"
		check_eq "$name, fed skbs: exit status" "$?" 0 "$T/err"
		check "$name, fed skbs: the driver's rows INVALID, naming the path they missed and the one they ran" jq_true \
			'[.rows[] | select(.name == "xdp-native" or .name == "xsk-l4") | .valid == false and
			  (.reason | test("^path: never ran veth_xdp_rcv_one in [0-9,]+ samples; ran veth_xdp_rcv_skb>bpf_prog_hc_x"))] |
			 length == 2 and all' "$T/sk.json" || jq -c '.rows[] | {name, reason}' "$T/sk.json"
		check "$name, fed skbs: tc's row is no driver's, and valid" jq_true \
			'.rows[] | select(.name == "tc-clsact") | .valid' "$T/sk.json"
	else
		echo "SKIP $name, fed skbs: the path check does not run here"
	fi

	# shellcheck disable=SC2086
	"$HC" bench --feed packet --hooks xdp-native,tc-clsact --no-bare $SHORT $NOPATH \
		-o "$T/pk.json" >"$T/out" 2>"$T/err"
	check_eq "bench --feed packet: exit status" "$?" 0 "$T/err"
	check "bench --feed packet: hcd takes skbs, said in the report" grep -q \
		"^frames sent on hcg by AF_PACKET\( (live XDP frames refused here)\)\?: hcd takes skbs, which native XDP converts, not a driver's path; " "$T/out"
	check "bench --feed packet: xdp-native declares the conversion, and ran it" jq_true \
		'.env.feed == "packet" and (.rows[] | select(.name == "xdp-native") |
		 (.path.declared | test("veth_xdp_rcv_skb !veth_xdp_rcv_one")) and .valid)' "$T/pk.json"

	# A plan of windows that are no whole copies: another feed's.
	"$HC" bench --feed stage --plan "$T/pk.json" --rounds 1 >/dev/null 2>"$T/err"
	check_eq "bench --feed stage --plan of the packet feed's: exit status" "$?" 2 "$T/err"
	check "bench --feed stage --plan of the packet feed's: says why" grep -q \
		"windows are 1000 packets, and the stage sends 64 copies of each frame" "$T/err"
	if $LIVE; then
		echo "SKIP bench inject on the stage: live frames run inject here"
	else
		# shellcheck disable=SC2086
		"$HC" bench --topology inject --scenario static-key $SHORT $NOPATH \
			-o "$T/is.json" >"$T/out" 2>"$T/err"
		check_eq "bench inject without live frames: on the stage, exit status" "$?" 0 "$T/err"
		invalid=$(jq -c --arg m "$MISSING" --arg load "$LOAD_REASON" --argjson ok '[]' \
			"$UNEXPECTED" "$T/is.json")
		check_eq "bench inject on the stage: every row valid" "$invalid" "[]"
		check "bench inject on the stage: said in the report" grep -qF \
			"(inject on the stage: with no XDP program of a row's, skbs built from them enter its receive path)" "$T/out"
		check "bench inject on the stage: the ladder's rows, each frame seen" jq_true \
			'.env.feed == "stage" and
			 all(.rows[] | select(.flags | index("generator") | not) | .rounds[]; .seen == .generated)' "$T/is.json"
	fi
	root_state_same "$name: nothing left behind"

	feeds="2;--stage-copies 3: a power of 2, up to 64;--stage-copies 3
2;give a multiple of 64;--feed stage --window-packets 1000
2;--stage-copies is the stage's, and the feed is packet;--feed packet --stage-copies 4
2;--topology inject and --feed packet;--topology inject --feed packet
2;--feed and --dev;--dev lo --external --feed stage
2;--feed 'nope': expected one of auto|live|packet|stage;--feed nope"
	$LIVE || feeds="$feeds
4;bench: --feed live: live XDP frames (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18+) not usable here;--feed live"
	expect_table "$name usage" bench <<<"$feeds"

	# Killed at each step of the stage's setup: its veth pair and the
	# program are in bench's namespaces, and go with them.
	for step in bench-stage gen-stage; do
		for sig in INT TERM KILL; do
			: >"$T/err"
			HOOKCMP_PAUSE_AT=$step "$HC" bench --feed stage $QUICK >/dev/null 2>"$T/err" &
			pid=$!
			for i in $(seq "$WAIT_TICKS"); do
				grep -q "paused at step '$step'" "$T/err" && break
				sleep 0.1
			done
			check "$name killed at $step: it got there" grep -q "paused at step '$step'" "$T/err"
			kill -"$sig" "$pid"
			wait "$pid" 2>/dev/null
			rc=$?
			check_eq "$name SIG$sig at $step: exit status" "$rc" $((128 + $(kill -l "$sig")))
			root_state_same "$name SIG$sig at $step: nothing left behind"
		done
	done
}

# --target-ci: more rounds until the widest interval is narrow enough, or
# it says it gave up; either way the rounds stay within the bounds.
test_target() {
	local n
	"$HC" bench --scenario aa --rounds 2 --max-rounds 4 --target-ci 0.0001 --packets 20000 $NOPATH \
		-o "$T/t.json" >"$T/t.out" 2>"$T/t.err"
	check_eq "bench --target-ci: exit status" "$?" 0 "$T/t.err"
	n=$(jq .rounds "$T/t.json")
	check "bench --target-ci: between --rounds and --max-rounds ($n)" [ "$n" -ge 2 -a "$n" -le 4 ]
	check "bench --target-ci: says how it ended" \
		grep -qE "^target-ci 0.0001%: (reached|gave up) after $n rounds" "$T/t.out"
	check "bench --target-ci: progress gives the time left to --max-rounds" \
		grep -qE "^round 1: [0-9.]+ s, at most ~([0-9]+h)?([0-9]+m)?[0-9.]+s left$" "$T/t.err" ||
		grep "^round" "$T/t.err"
	check "bench --target-ci: recorded" jq_true \
		'.env.target_ci_pct == 0.0001 and (.env.target_reached | type) == "boolean"' "$T/t.json"
	# Windows sized in the warm-up: one size, gen-only's too, a multiple
	# of the bulk queue's 16 and the live frames' batch of 64.
	"$HC" bench --scenario aa --rounds 1 $NOPATH -o "$T/t.json" >"$T/t.out" 2>"$T/t.err"
	check_eq "bench windows sized: exit status" "$?" 0 "$T/t.err"
	check "bench windows sized: one size for every row, a multiple of 64" jq_true \
		'[.rows[].window_packets] | unique | length == 1 and .[0] % 64 == 0 and .[0] >= 1024' \
		"$T/t.json" || jq -c '[.rows[] | {name, window_packets}]' "$T/t.json"
	# --max-time: a target out of reach ends when the rounds took SECS
	"$HC" bench $INJECT --scenario static-key --hooks ingress --rounds 2 \
		--max-rounds 1000 --target-ci 0.0001 --max-time 1 --packets 20000 $NOPATH \
		-o "$T/t.json" >"$T/t.out" 2>"$T/t.err"
	check_eq "bench --max-time: exit status" "$(bench_rc $? "$T/t.json")" 0 "$T/t.err"
	n=$(jq .rounds "$T/t.json")
	check "bench --max-time: gave up for the time, not the rounds ($n)" \
		grep -qE "^target-ci 0.0001%: gave up after $n rounds [(]--max-time[)]" "$T/t.out"
	check "bench --max-time: recorded" jq_true \
		'.env.max_time_s == 1 and .env.target_reached == false and .rounds < 1000' "$T/t.json"
	# ingress's interval, or where the host's slow state left a row too
	# few rounds with a cost (CI's sanitizer run beside two guests), that
	# row's: the baseline's or gen-only's too.
	check "bench --max-time: says how close it came (the widest interval's row, its +-%, the target)" \
		grep -qE "^  widest delta interval: (ingress's, [+]-[0-9.]+% of its cost, against the target's [+]-0.0001%|(ingress|nothing|gen-only)'s, too few rounds for one)$" \
		"$T/t.out" || grep -A1 "^target-ci" "$T/t.out"
	check "bench --max-time: the widest interval recorded" jq_true \
		'.env.widest_ci_row as $r | ($r == "ingress" and .env.widest_ci_pct > 0.0001) or
		 (($r == "ingress" or $r == "nothing" or $r == "gen-only") and .env.widest_ci_pct == null)' \
		"$T/t.json" || jq -c '.env | {widest_ci_row, widest_ci_pct}' "$T/t.json"
	# static-key's own target where no --rounds or --target-ci is given
	"$HC" bench $INJECT --scenario static-key --hooks ingress --max-time 1 \
		--packets 20000 $NOPATH -o "$T/t.json" >"$T/t.out" 2>"$T/t.err"
	check_eq "bench static-key, its own target: exit status" "$(bench_rc $? "$T/t.json")" 0 "$T/t.err"
	check "bench static-key, its own target: +-1%, from 30 rounds, recorded" jq_true \
		'.env.target_ci_pct == 1 and .env.max_time_s == 1 and .env.min_rounds == 30 and .rounds >= 30' \
		"$T/t.json"
	"$HC" bench $INJECT --scenario static-key --hooks ingress --rounds 3 \
		--packets 20000 $NOPATH -o "$T/t.json" >"$T/t.out" 2>"$T/t.err"
	check "bench static-key --rounds 3: a fixed number of rounds, no target" jq_true \
		'.env.target_ci_pct == null and .rounds == 3' "$T/t.json"
	"$HC" bench --scenario static-key --rounds 3 --max-time 5 >"$T/t.out" 2>"$T/t.err"
	check_eq "bench --max-time without a target: usage (exit 2)" "$?" 2 "$T/t.err"
}

# SIGINT after a round: the partial table and JSON say how far the
# rounds got, exit 130, nothing left behind.
test_interrupt() {
	local name="bench SIGINT" pid i n
	: >"$T/int.err"
	"$HC" bench --scenario aa $NOPATH $LONG \
		-o "$T/int.json" >"$T/int.out" 2>"$T/int.err" &
	pid=$!
	for i in $(seq $((WAIT_TICKS * 4))); do
		grep -q "^round 1/" "$T/int.err" && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
	check_eq "$name: exit status" "$?" 130 "$T/int.err"
	check "bench progress: the time left at the rounds' pace" \
		grep -qE "^round 1/50: [0-9.]+ s, ~([0-9]+h)?([0-9]+m)?[0-9.]+s left$" "$T/int.err" ||
		grep "^round" "$T/int.err"
	n=$(jq '.env.interrupted.after_round' "$T/int.json")
	check "$name: the JSON says after which round of 50 ($n)" jq_true \
		'.env.interrupted.of == 50 and .env.interrupted.after_round >= 1 and
		 .env.interrupted.after_round < 50 and .rounds == .env.interrupted.after_round' \
		"$T/int.json" || jq -c .env.interrupted "$T/int.json"
	check "$name: the table says it: interrupted after round $n of 50" \
		grep -q "^interrupted after round $n of 50$" "$T/int.out"
	root_state_same "$name: nothing left behind"
	"$HC" bench --scenario aa --rounds 1 --packets 20000 $NOPATH -o "$T/int.json" >"$T/int.out" 2>&1
	check "bench not interrupted: JSON null" jq_true '.env.interrupted == null' "$T/int.json"
	check "bench not interrupted: no line" not grep -q "^interrupted" "$T/int.out"
}

# perf's control channel: enable and disable around each timed window of
# the chosen row, acknowledged, never in the warm-up.
test_perf_ctl() {
	local name="bench --perf-ctl"
	mkfifo "$T/ctl" "$T/ack"
	(
		exec 3<>"$T/ctl" 4<>"$T/ack"
		while read -r cmd <&3; do
			echo "$cmd" >>"$T/cmds"
			echo ack >&4
		done
	) &
	local reader=$!
	sleep 0.2
	# shellcheck disable=SC2086
	"$HC" bench --scenario aa $QUICK --perf-ctl "$T/ctl,$T/ack" --perf-row nothing-b \
		-o "$T/p.json" >/dev/null 2>&1
	check_eq "$name: exit status" "$?" 0
	# Two rounds of two visits each, never in the warm-up.
	check_eq "$name: enable/disable around each measured visit's windows" \
		"$(tr '\n' ' ' <"$T/cmds")" "enable disable enable disable enable disable enable disable "

	# Without an ACK FIFO bench does not wait for one.
	: >"$T/cmds"
	# shellcheck disable=SC2086
	timeout 20 "$HC" bench --scenario aa $QUICK --perf-ctl "$T/ctl" --perf-row nothing-b \
		>/dev/null 2>&1
	check_eq "$name CTL alone: exit status" "$?" 0
	sleep 0.2
	check_eq "$name CTL alone: the same commands" \
		"$(tr '\n' ' ' <"$T/cmds")" "enable disable enable disable enable disable enable disable "
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
	rm -f "$T/ctl" "$T/ack"
}

# Every exit of the table, each before or after rows ran, and the machine
# as it was afterwards. Usage errors come before anything is touched.
test_exits() {
	local want say args out rc step
	expect_table "bench usage" bench <<EOF
2;-n/--netns goes with --dev;-n foo
2;--hooks 'nope' selects no row of hooks;--hooks nope
2;--hooks 'tcx-pass' selects no row of parse;--scenario parse --hooks xdp-native,tcx-pass
2;families: xdp, tc, socket;--hooks bogus
2;cannot write $T/nodir/x.json: No such file or directory;-o $T/nodir/x.json
2;cannot write $T/nodir/x.csv;--csv $T/nodir/x.csv
2;--plot /proc/hcnope: No such file or directory;--plot /proc/hcnope
2;--perf-ctl $T/nofifo: No such file or directory;--perf-ctl $T/nofifo
2;--perf-row goes with --perf-ctl;--perf-row gen-only
2;--perf-row 'nope' is not a row of hooks;--perf-ctl $T/nofifo --perf-row nope
2;--target-ci '0': expected a percent;--target-ci 0
2;--seed '-1': expected a number;--seed -1
2;--max-rounds 3 is less than --rounds 5;--rounds 5 --max-rounds 3 --target-ci 1
2;unknown option '--json-file';--json-file x
2;unexpected argument 'eth0';eth0
2;--packets and --window-packets say the same twice: give one;--packets 20000 --window-packets 1000
2;--visits 5 is more than --windows 4: every visit needs a window;--windows 4 --visits 5
2;--windows is the veth bench's: with --dev a window is --gen-cmd's run or --window;--dev hcd --external --windows 5
EOF
	check "bench usage: no output file left" not test -e "$T/nodir"
	for args in "bench -j -n foo" "-j -n foo bench"; do
		# shellcheck disable=SC2086
		out=$("$HC" $args 2>/dev/null)
		check "bench usage: hookcmp $args: a JSON error" jq_true \
			'.type == "error" and .exit == 2 and (.error | test("goes with --dev"))' <<<"$out"
	done

	# Not root: exit 3, before anything.
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$HC" bench $QUICK 2>&1)
	check_eq "bench without privileges: exit 3" "$?" 3
	check "bench without privileges: says which" grep -q "CAP_NET_ADMIN" <<<"$out"

	# A step that fails: its exit code and its name, and nothing left.
	# The test shell holds the FIFO open as perf would.
	mkfifo "$T/ctl"
	exec 5<>"$T/ctl"
	while IFS=';' read -r step want say args; do
		# shellcheck disable=SC2086
		out=$(HOOKCMP_FAIL_AT=$step "$HC" bench $QUICK -o "$T/f.json" $args 2>&1)
		rc=$?
		if [ "$rc" = "$want" ] && grep -qF -- "$say" <<<"$out"; then
			pass "bench fault at $step $args: exit $rc"
		else
			fail "bench fault at $step $args: exit $rc, wanted $want and '$say'"
			echo "$out" | sed 's/^/  /' | tail -5
		fi
		case $step in
		bench-netns* | bench-veth* | bench-addr | bench-up | bench-gen* | bench-stage | gen-stage | bench-cpu | bench-send)
			check "bench fault at $step $args: no -o file left" not test -e "$T/f.json" ;;
		esac
		rm -f "$T/f.json"
		root_state_same "bench fault at $step $args: nothing left behind"
	done <<EOF
bench-netns;1;bench: topology: fault injected at step 'bench-netns': Input/output error;
bench-netns:1;3;bench: topology: fault injected at step 'bench-netns': Operation not permitted;
bench-veth;1;bench: topology: fault injected at step 'bench-veth';
bench-veth:16;5;bench: topology: fault injected at step 'bench-veth': Device or resource busy;
bench-addr;1;fault injected at step 'bench-addr';
bench-up;1;fault injected at step 'bench-up';
bench-gen;1;bench: generator on hcg: fault injected at step 'bench-gen';
bench-gen:95;4;bench: generator on hcg: fault injected at step 'bench-gen': Operation not supported;
bench-stage;1;bench: generator on hcg: fault injected at step 'bench-stage';--feed stage
gen-stage;1;bench: generator on hcg: fault injected at step 'gen-stage';--feed stage
bench-cpu;1;bench: cannot set up inline mode: fault injected;
bench-cpu;1;bench: cannot set up split mode: fault injected;--cpu-mode split
bench-perf;1;bench: measuring: fault injected at step 'bench-perf';--scenario aa --perf-ctl $T/ctl
bench-send;1;bench: measuring: fault injected at step 'bench-send';--scenario aa
bench-output;1;writing $T/f.json: Input/output error;--scenario aa
bench-plot;1;fault injected at step 'bench-plot';--scenario aa --plot $T/plots
bench-row;1;INVALID: setup: fault injected at step 'bench-row';--scenario aa
bench-read;1;INVALID: reading its counters: fault injected at step 'bench-read';--scenario aa
EOF
	exec 5>&-

	# perf that never acknowledges: bench waits 5 s, then gives up.
	mkfifo "$T/ack"
	exec 5<>"$T/ctl" 6<>"$T/ack"
	# shellcheck disable=SC2086
	out=$("$HC" bench --scenario aa $QUICK --perf-ctl "$T/ctl,$T/ack" 2>&1)
	check_eq "bench --perf-ctl without an ack: exit status" "$?" 1
	check "bench --perf-ctl without an ack: says so" \
		grep -q "perf's control channel: Connection timed out" <<<"$out"
	exec 5>&- 6>&-
	root_state_same "bench --perf-ctl without an ack: nothing left behind"

	# No task-clock counters (perf_event_open refused): the wall clock.
	# shellcheck disable=SC2086
	out=$(HOOKCMP_FAIL_AT=bench-clock "$HC" bench --scenario aa $QUICK -j 2>"$T/w.err")
	check_eq "bench without task-clock counters: exit status" "$?" 0 "$T/w.err"
	# An emulated CPU's receiver may fall behind (UNEXPECTED); a round
	# whose every window was excluded has no time at all.
	check "bench without task-clock counters: the wall clock, said and recorded" jq_true \
		'.env.clock == "wall" and .env.emulated as $emu | all(.rows[];
			(.valid or '"$EMU_BEHIND"') and
			all(.rounds[]; .cpu_ns == null and (.pkt_ns > 0 or (.pkt_ns == null and .excluded_windows == 20))))' \
		<<<"$out"
	check "bench without task-clock counters: a warning" grep -q "no task-clock counters" "$T/w.err"

	# The issue's own example: no iptables, nft or gnuplot on the PATH.
	out=$(PATH=/nonexistent "$HC" bench --hooks iptables-raw,nft-ingress $QUICK -j 2>/dev/null)
	check_eq "bench without iptables/nft: exit status" "$?" 0
	check_eq "bench without iptables/nft: those rows are INVALID, saying why" \
		"$(jq -c '[.rows[] | select(.valid | not) | .reason]' <<<"$out")" \
		'["setup: cannot run iptables: No such file or directory","setup: cannot run nft: No such file or directory"]'
	out=$(PATH=/nonexistent "$HC" bench --scenario aa $QUICK --plot "$T/np" 2>&1)
	check_eq "bench --plot without gnuplot: exit 1 before any row" "$?:$(test -e "$T/np"; echo $?)" "1:1"
	check "bench --plot without gnuplot: says so" grep -q "needs gnuplot" <<<"$out"

	# static-key's default, as --help states it, is what a run without
	# --rounds or --target-ci does (its document, after round 1 and a
	# SIGINT, says): they cannot drift apart again.
	local said got pid
	said=$("$HC" bench --help | sed -n 's/^ *without --rounds or --target-ci: rounds until every delta interval is within +-\([0-9.]*\)%, from \([0-9]*\) to \([0-9]*\) rounds or \([0-9.]*\) s of them$/\1 \2 \3 \4/p' |
		head -n 1)
	"$HC" bench $INJECT --scenario static-key --hooks ingress --no-path-check \
		-o "$T/sk.json" >/dev/null 2>"$T/sk.err" &
	pid=$!
	wait_for "^round 1:" "$T/sk.err"
	kill -INT "$pid"
	wait "$pid"
	got=$(jq -r '.env | "\(.target_ci_pct) \(.min_rounds) \(.max_rounds) \(.max_time_s)"' "$T/sk.json")
	check_eq "bench static-key's default: as --help says it (+-PCT%, from, to rounds, SECS)" \
		"$got" "${said:-(no such line in bench --help)}" "$T/sk.err"

	# --journal DIR without --dev, global or the command's: cgroup-udp's
	# cgroup outlives bench's namespaces, so it is journalled, in DIR and
	# nowhere else; killed with it made, cleanup --journal DIR removes it.
	local jd cg i where cmd
	for where in global command; do
		jd=$T/bj-$where cg=
		ls /run/hookcmp >"$T/run-journal" 2>/dev/null
		if [ $where = global ]; then
			cmd=(--journal "$jd" bench)
		else
			cmd=(bench --journal "$jd")
		fi
		# shellcheck disable=SC2086
		HOOKCMP_PAUSE_AT=cgroup-socket "$HC" "${cmd[@]}" --hooks cgroup-udp $QUICK \
			-o "$T/j.json" >/dev/null 2>"$T/j.err" &
		pid=$!
		for i in $(seq $((WAIT_TICKS * 4))); do
			grep -q "paused at step 'cgroup-socket'" "$T/j.err" && cg=$(hc_cgroups) && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		check "bench --journal DIR ($where): accepted, its cgroup made ($cg)" test -n "$cg" ||
			sed 's/^/  /' "$T/j.err"
		check_eq "bench --journal DIR ($where): the cgroup's record there" \
			"$(ls "$jd" 2>/dev/null | grep -c -- "-cgroup-$pid\$")" 1
		check_eq "bench --journal DIR ($where): none in the default journal" \
			"$(ls /run/hookcmp 2>/dev/null)" "$(cat "$T/run-journal")"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		out=$("$HC" --journal "$jd" cleanup --all 2>&1)
		check_eq "bench --journal DIR ($where): cleanup --journal DIR's exit status" "$?" 0
		check "bench --journal DIR ($where): cleanup there removes the cgroup" \
			grep -q "^cgroup /.*hookcmp\.$pid\.[0-9.]* on hcd.*: deleted" <<<"$out"
		check_eq "bench --journal DIR ($where): that journal empty" "$(ls "$jd")" ""
		root_state_same "bench --journal DIR ($where): nothing left behind"
	done

	# Signals once the rounds run: 128+N; its namespaces have no names, so
	# even kill -9 leaves nothing.
	signal_runs bench
}

# signal_runs NAME [BENCH-ARGS]: bench killed by SIGINT, SIGTERM and
# SIGKILL once its first round has begun: 128+N and nothing left behind.
signal_runs() {
	local name=$1 sig pid rc i
	shift
	for sig in INT TERM KILL; do
		: >"$T/err"
		"$HC" bench "$@" $NOPATH $LONG -o "$T/s.json" >/dev/null 2>"$T/err" &
		pid=$!
		for i in $(seq "$WAIT_TICKS"); do
			grep -q "^warm-up round: " "$T/err" && break
			sleep 0.1
		done
		kill -"$sig" "$pid"
		wait "$pid" 2>/dev/null
		rc=$?
		check_eq "$name SIG$sig: exit status" "$rc" $((128 + $(kill -l "$sig")))
		# kill -9 in cgroup-udp's visit leaves its cgroup, journalled.
		[ "$sig" = KILL ] && check "$name SIGKILL: cleanup --all" "$HC" cleanup --all
		root_state_same "$name SIG$sig: nothing left behind"
	done
}

# cgroup-udp: a cgroup outlives bench's namespaces, so bench journals it;
# killed with it made, the journal names it and cleanup removes it.
test_cgroup_kill() {
	local name="bench cgroup-udp kill -9" pid i cg=
	HOOKCMP_PAUSE_AT=cgroup-socket "$HC" bench --hooks cgroup-udp $QUICK \
		-o "$T/cg.json" >/dev/null 2>"$T/cg.err" &
	pid=$!
	for i in $(seq $((WAIT_TICKS * 4))); do
		grep -q "paused at step 'cgroup-socket'" "$T/cg.err" && cg=$(hc_cgroups) && break
		sleep 0.1
	done
	check "$name: bench made its cgroup ($cg)" test -n "$cg"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	check "$name: the cgroup stays" test -d "$cg"
	check "$name: status names it, stale" \
		grep -q "^cgroup /.*hookcmp\.$pid\.[0-9.]* on hcd.*: STALE" <("$HC" status 2>&1)
	check "$name: cleanup removes it" \
		grep -q "^cgroup /.*hookcmp\.$pid\.[0-9.]* on hcd.*: deleted" <("$HC" cleanup --all 2>&1)
	root_state_same "$name: nothing left behind"
	# Its row valid, or INVALID for the load (the 6.1 guest under TCG
	# once gave one no valid round here).
	"$HC" bench --hooks cgroup-udp $QUICK -o "$T/cg.json" >/dev/null 2>&1
	check_eq "$name: a bench that ends keeps no record" "$(hc_cgroups)$(ls /run/hookcmp 2>/dev/null)" ""
	check "$name: a bench that ends: its row ran" jq_true --arg load "$LOAD_REASON" \
		'.env.emulated as $emu | .rows[] | select(.name == "cgroup-udp") |
		 .valid or (.reason | test($load)) or '"$EMU_BEHIND" "$T/cg.json" ||
		jq -r '.rows[] | "  \(.name): \(.reason)"' "$T/cg.json"
}

# in_dut PID CMD: sh -c CMD in bench PID's DUT namespace with a sysfs of
# it; 1 with DUT_NS empty if there is none. bench's namespaces have no
# names: the DUT's is the fd that has hcd.
in_dut() {
	local pid=$1 fd
	DUT_NS=
	for fd in /proc/"$pid"/fd/*; do
		[[ $(readlink "$fd") == net:* ]] || continue
		nsenter --net="$fd" ip link show hcd >/dev/null 2>&1 || continue
		DUT_NS=$fd
		nsenter --net="$fd" unshare --mount --propagation private \
			sh -c "mount -t sysfs sysfs /sys && $2"
		return
	done
	return 1
}

# scope_run NAME STEP CMD ARGS...: bench ARGS held at each STEP it
# reaches, with CMD run in its DUT's namespace at every hold (SIGUSR1 then
# ends the hold, which would last 5 s), the JSON into $T/scope.json and
# its stderr into $T/scope.err. A hold where the kernel refuses CMD is
# said, with its message, and not counted.
scope_run() {
	local name=$1 step=$2 cmd=$3 pid i n=0 held=0 changed=0
	shift 3
	: >"$T/scope.err"
	rm -f "$T/scope.json"
	HOOKCMP_PAUSE_AT=$step "$HC" bench "$@" $NOPATH -o "$T/scope.json" >/dev/null 2>"$T/scope.err" &
	pid=$!
	for i in $(seq $((WAIT_TICKS * 4))); do
		kill -0 "$pid" 2>/dev/null || break
		n=$(grep -c "paused at step '$step'" "$T/scope.err")
		if [ "$n" -gt "$held" ]; then
			if in_dut "$pid" "$cmd" 2>"$T/scope.cmd"; then
				changed=$((changed + 1))
			elif ! kill -0 "$pid" 2>/dev/null; then
				# a hold lasts 5 s: a slow machine (TCG) may get here after
				echo "# $name: hold $n: bench had ended before it was reached"
			elif [ -z "$DUT_NS" ]; then
				fail "$name: hold $n: no DUT namespace to change"
			else
				echo "# $name: hold $n: the DUT refused it: $(tr '\n' ' ' <"$T/scope.cmd")"
			fi
			held=$n
			kill -USR1 "$pid" 2>/dev/null
		fi
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	SCOPE_RC=$?
	check "$name: changed the DUT at bench's holds ($changed of $held)" [ "$changed" -ge 1 ]
}

# The scope checks: RPS or threaded NAPI turned on from outside, the NAPI
# kthreads of a split run made anew, each make the rows INVALID with a
# reason that names the device, the setting and the CPU.
test_scope() {
	local name="bench scope" rps="echo 1 >/sys/class/net/hcd/queues/rx-0/rps_cpus"
	local q='after setup: RPS on for hcd rx-0 [(]rps_cpus 0*1[)]: its receive work goes to those CPUs, which are not counted'
	scope_run "$name: RPS inline" bench-row "$rps" --scenario static-key --hooks nothing --rounds 1 --packets 20000
	check_eq "$name: RPS inline: exit 1, every row INVALID" "$SCOPE_RC" 1
	check "$name: RPS inline: every row INVALID for RPS on hcd rx-0" jq_true --arg q "$q" \
		'(.rows | length) == 2 and all(.rows[]; (.valid | not) and (.reason | test("^" + $q + "$")))' "$T/scope.json"

	# inject: RPS would move the receive path to CPU 1's backlog.
	if need_live "$name: RPS inject"; then
		scope_run "$name: RPS inject" bench-row "$rps" --topology inject --scenario static-key --hooks nothing --rounds 1 --packets 20000
		check "$name: RPS inject: every row but the floor INVALID for RPS on hcd rx-0" jq_true --arg q "$q" \
			'all(.rows[] | select(.name != "gen-only"); (.valid | not) and (.reason | test("^" + $q + "$")))' "$T/scope.json"
	fi

	scope_run "$name: RPS split" bench-row "$rps" --scenario static-key --hooks nothing --rounds 1 --packets 20000 --cpu-mode split
	check "$name: RPS split: every row INVALID for RPS on hcd rx-0" jq_true --arg q "$q" \
		'all(.rows[]; (.valid | not) and (.reason | test("^" + $q + "$")))' "$T/scope.json"

	scope_run "$name: threaded inline" bench-row "echo 1 >/sys/class/net/hcd/threaded" \
		--scenario static-key --hooks nothing --rounds 1 --packets 20000
	check "$name: threaded NAPI on inline: every row INVALID, saying so" jq_true \
		'all(.rows[]; (.valid | not) and .reason == "after setup: threaded NAPI on for hcd (threaded 1): its receive work left CPU 0, the one counted, for a kthread")' \
		"$T/scope.json"

	# threaded off and on: newer kernels stop the kthreads and start new
	# ones; older ones (6.1) keep them, and there is nothing to detect.
	rm -f "$T/napi.before" "$T/napi.after"
	scope_run "$name: new NAPI kthreads" bench-row \
		"pgrep '^napi/hcd-' >>$T/napi.before; echo 0 >/sys/class/net/hcd/threaded && echo 1 >/sys/class/net/hcd/threaded; pgrep '^napi/hcd-' >>$T/napi.after" \
		--scenario static-key --hooks nothing --rounds 1 --packets 20000 --cpu-mode split
	if cmp -s "$T/napi.before" "$T/napi.after"; then
		echo "SKIP $name: new NAPI kthreads: threaded off and on keeps the same kthreads on $(uname -r): nothing to detect"
	elif jq_true '.env.emulated and (.rows[] | select(.name == "nothing") |
			'"$SAW_FEW"')' "$T/scope.json"; then
		echo "SKIP $name: new NAPI kthreads: on this emulated CPU the row was INVALID first for the frames its hook did not see"
	else
		check "$name: new NAPI kthreads: the hook's row INVALID, naming the pids" jq_true \
			'.rows[] | select(.name == "nothing") | (.valid | not) and (.reason |
			 test("^after setup: the NAPI kthreads counted on CPU 1 [(]pids [0-9 ]+[)] are not hcd.s current ones [(][0-9 ]+[)]: NAPI or threaded NAPI was switched off and on$"))' \
			"$T/scope.json" || jq -r '.rows[] | "  \(.name): \(.reason)"' "$T/scope.json"
	fi
	check "$name: new NAPI kthreads: gen-only, which counts no kthread, stands" jq_true \
		'.rows[] | select(.name == "gen-only") | .valid' "$T/scope.json"

	# Before any row: bench refuses a topology it did not get as it made it.
	scope_run "$name: RPS before the run" bench-cpu "$rps" --scenario aa --rounds 1 --packets 20000
	check_eq "$name: RPS before the run: exit 1" "$SCOPE_RC" 1
	check "$name: RPS before the run: refused, saying why" grep -q \
		"^Error: bench: measuring: before any row: RPS on for hcd rx-0 (rps_cpus 0*1): its receive work goes to those CPUs, which are not counted: Invalid argument$" \
		"$T/scope.err"
	check "$name: RPS before the run: no report" not test -e "$T/scope.json"

	# Every window says whether it stands; a round with one excluded says
	# why, and the counts add up (a round keeps the cost of the others).
	"$HC" bench --scenario aa --rounds 2 --packets 20000 $NOPATH -o "$T/scope.json" >"$T/scope.out" 2>&1
	check "$name: windows: each excluded or not, and the count per round and row" jq_true \
		'all(.rows[]; (.excluded_windows | type) == "number" and
		 .excluded_windows == ([.rounds[].excluded_windows] | add) and
		 all(.rounds[]; .excluded_windows == ([.windows[] | select(.excluded)] | length) and
		     (.excluded_windows > 0) == ((.excluded | type) == "string") and
		     (.excluded_windows < (.windows | length) or .ns == null)))' \
		"$T/scope.json" || sed 's/^/  /' "$T/scope.out"
	root_state_same "$name: nothing left behind"
}

# xsk_held OUT DELAY ARGS...: bench ARGS with each AF_XDP consumer held
# off at its thread's start (the tests' pause) and let go DELAY seconds
# after it says so; the JSON document into OUT.
xsk_held() {
	local out=$1 delay=$2 pid n=0 k
	shift 2
	HOOKCMP_PAUSE_AT=xsk-rx "$HC" bench "$@" -o "$out" >"$T/xsk.out" 2>"$T/xsk.err" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		k=$(grep -c "paused at step 'xsk-rx'" "$T/xsk.err")
		if [ "$k" -gt "$n" ]; then
			sleep "$delay"
			kill -USR1 $pid 2>/dev/null
			n=$k
		fi
		sleep 0.01
	done
	wait $pid
}

# AF_XDP's rings: a consumer held off while the first window comes loses
# nothing, as bench waits for it before the next (1 s at most); held off
# past that, the windows after overflow its rx ring, which the row's
# reason names, with the count.
test_xsk_rings() {
	local name="bench xsk rings" f="$T/xsk.json"
	xsk_held "$f" 0.3 --hooks xsk-l4 --rounds 2 --window-packets 4096 --no-path-check
	check "$name: held off 0.3 s: every frame at the hook, none dropped before it" jq_true \
		'.rows[] | select(.name == "xsk-l4") | .valid and
		 all(.rounds[]; .dropped_before == 0 and .seen == .generated)' "$f"
	xsk_held "$f" 2 --hooks xsk-l4 --rounds 1 --visits 1 --window-packets 4096 --no-path-check
	check "$name: held off 2 s: INVALID, naming the rx ring and its drops" jq_true \
		'.rows[] | select(.name == "xsk-l4") | (.valid | not) and .rounds[0].dropped_before > 0 and
		 (.reason | test("^round 1: .*dropped before[^:]*: [0-9]+ with AF_XDP.s rx ring full([),]|$)")) and
		 (.reason | capture("(?<n>[0-9]+) with AF_XDP").n | tonumber) == .rounds[0].dropped_before' "$f"
	root_state_same "$name: nothing left behind"
}

# Whether this kernel takes a tc flower filter that drops (cls_flower
# and act_gact): tried on lo, in a namespace of its own.
flower_probe() {
	unshare --net sh -c 'tc qdisc add dev lo clsact && tc filter add dev lo ingress \
		protocol ip flower src_ip 198.18.0.1 action drop' >/dev/null 2>&1
}
# A flower row's reason where the kernel has no flower, or no drop for it.
NO_FLOWER='tc flower: this kernel has no (cls_flower [(]CONFIG_NET_CLS_FLOWER[)]|act_gact [(]CONFIG_NET_ACT_GACT[)])'

# scale with small sets: a row per mechanism and N, each with its set's
# fields and load time, its trie's lookup on its path, the growth fitted
# per mechanism, --sizes checked, nothing left behind.
test_scale() {
	local name="bench scale" f="$T/scale.json" flower=true m=$MISSING here
	flower_probe || flower=false
	$flower || m="${m:+$m|}$NO_FLOWER"
	here=$(tc qdisc show; tc filter show dev lo ingress)
	# shellcheck disable=SC2086
	"$HC" bench --scenario scale --sizes 1,100 $SHORT $NOPATH -o "$f" >"$T/scale.out" 2>"$T/scale.err"
	check_eq "$name: exit status" "$?" 0 "$T/scale.err"
	load_skips "$name" "$f"
	check_eq "$name: rows per mechanism and N" "$(jq -c '[.rows[].name]' "$f")" \
		'["xdp-native-set-1","xdp-native-set-100","tcx-set-1","tcx-set-100","nft-set-1","nft-set-100","nft-hash-1","nft-hash-100","nft-rules-1","nft-rules-100","iptables-rules-1","iptables-rules-100","ipset-1","ipset-100","flower-1","flower-100","gen-only"]'
	check_eq "$name: every row valid" "$(jq -c --arg m "$m" --arg load "$LOAD_REASON" \
		--argjson ok '[]' "$UNEXPECTED" "$f")" "[]"
	# (its entries pass: a hit would make its row INVALID, above)
	check "$name: every round accounted for" jq_true "$ACCOUNTED" "$f"
	# a row never set up (tcx before 6.6, flower without cls_flower) has
	# no load time
	check "$name: each row's mechanism, entries, hit rate and load time" jq_true '
		[.rows[] | select(.flags | index("generator") | not) |
		 [.mechanism, .entries, .hit_rate]] ==
		[["bpf-hash-xdp-native", 1, 0], ["bpf-hash-xdp-native", 100, 0],
		 ["bpf-hash-tcx", 1, 0], ["bpf-hash-tcx", 100, 0],
		 ["nft-set", 1, 0], ["nft-set", 100, 0],
		 ["nft-hash-set", 1, 0], ["nft-hash-set", 100, 0],
		 ["nft-rules", 1, 0], ["nft-rules", 100, 0],
		 ["iptables-raw-rules", 1, 0], ["iptables-raw-rules", 100, 0],
		 ["iptables-ipset", 1, 0], ["iptables-ipset", 100, 0],
		 ["tc-flower", 1, 0], ["tc-flower", 100, 0]] and
		all(.rows[] | select(.mechanism); (.load_ms | type) ==
			if .rounds == [] then "null" else "number" end) and
		all(.rows[] | select(.valid and .mechanism); .load_ms > 0) and
		all(.rows[] | select(.flags | index("generator")); .mechanism == null)' "$f"
	check "$name: each row compared with its mechanism's smallest N" jq_true \
		'.baseline == "its smallest N" and all(.rows[] | select(.mechanism);
			.baseline == (.name | sub("-[0-9k]+$"; "-1")))' "$f"
	# 2 rounds: a slope each, no interval, no verdict
	check "$name: the growth of each mechanism" jq_true '
		[.growth[] | [.mechanism, .rows, .verdict, .ns_per_doubling.ci]] ==
		[["bpf-hash-xdp-native", 2, null, [null, null]], ["bpf-hash-tcx", 2, null, [null, null]],
		 ["nft-set", 2, null, [null, null]], ["nft-hash-set", 2, null, [null, null]],
		 ["nft-rules", 2, null, [null, null]],
		 ["iptables-raw-rules", 2, null, [null, null]], ["iptables-ipset", 2, null, [null, null]],
		 ["tc-flower", 2, null, [null, null]]] and
		all(.growth[]; (.ns_per_doubling.median | type == "number" or . == null) and
			(.ns_per_entry.median | type == "number" or . == null) and .ns_per_entry.ci == [null, null])' "$f"
	check "$name: the text's growth, a line per mechanism" grep -qE \
		'^  nft-rules +(-|[-+0-9.]+ \[n/a\]) +n/a +per entry (-|[-+0-9.]+ \[n/a\]) load N=1 [0-9.]+ N=100 [0-9.]+$' "$T/scale.out"
	# tc flower: where the kernel has it, its rows count every frame its
	# filters let through; where not, they are INVALID, saying which
	# module is missing, with no cost, found by one setup for both.
	if $flower; then
		check "$name: flower rows valid, every frame counted past the filters" jq_true \
			--arg load "$LOAD_REASON" '[.rows[] | select(.mechanism == "tc-flower")] |
			length == 2 and all(.[]; (.valid or (.reason | test($load))) and .rounds != [] and
				all(.rounds[]; .seen > 0 and .generated == .seen + .dropped_before))' "$f"
	else
		check "$name: no flower here: its rows INVALID, saying why, without a cost" jq_true \
			--arg no "$NO_FLOWER" '[.rows[] | select(.mechanism == "tc-flower")] |
			length == 2 and all(.[]; (.valid | not) and .ns.median == null and
				.load_ms == null and .rounds == [] and (.reason | test($no))) and
			([.[] | select(.reason | startswith("setup: "))] | length) == 1 and
			([.[] | select(.reason | test("^not set up [(]flower-[0-9]+.s setup found[)]: "))] |
				length) == 1' "$f"
		check "$name: no flower here: its table rows show no cost" \
			test "$(grep -cE '^flower-1(00)? +- +- ' "$T/scale.out")" = 2
		check "$name: no flower here: nor its growth and load" grep -qE \
			'^  tc-flower +- +n/a +per entry - load N=1 - N=100 -$' "$T/scale.out"
	fi
	check_eq "$name: nothing of tc's left here" "$(tc qdisc show; tc filter show dev lo ingress)" "$here"
	if [ -z "$NOPATH" ]; then
		check "$name: each row declares its lookup, and ran its path" jq_true '
			all(.rows[] | select(.mechanism | . != null and startswith("bpf-hash"));
				.path.declared | test("__htab_map_lookup_elem")) and
			all(.rows[] | select(.mechanism == "nft-set"); .path.declared | test("nft_lookup_eval")) and
			all(.rows[] | select(.mechanism == "nft-hash-set"); .path.declared | test("nft_r?hash_")) and
			all(.rows[] | select(.mechanism == "nft-rules"); .path.declared | test("nft_do_chain")) and
			all(.rows[] | select(.mechanism == "iptables-raw-rules");
				.path.declared | test("ipt_do_table[|]nft_do_chain")) and
			all(.rows[] | select(.mechanism == "iptables-ipset");
				.path.declared | test("ipt_do_table[|]nft_do_chain .*ip_set_test .*hash_net4_")) and
			all(.rows[] | select(.mechanism == "tc-flower"); .path.declared | test("fl_classify")) and
			all(.rows[] | select(.path.checked); .path.missing == [] and .path.unexpected == [])' "$f"
	fi
	check "$name: every column fits its cells" aligned "$T/scale.out"
	# Hit rate 0 is checked: a set holding the traffic's source makes
	# every row INVALID, the BPF rows for what passed, the peers for what
	# their counters never saw.
	HOOKCMP_FAIL_AT=bench-scale-hit "$HC" bench --scenario scale --sizes 1,10 --rounds 1 \
		--packets 4000 --no-path-check -o "$T/hit.json" >/dev/null 2>"$T/hit.err"
	check_eq "$name: a set the traffic hits: exit status" "$?" 1 "$T/hit.err"
	check "$name: a set the traffic hits: every mechanism's rows INVALID, saying why" jq_true --arg m "$m" '
		([.rows[] | select(.mechanism) | .mechanism] | unique) ==
		["bpf-hash-tcx", "bpf-hash-xdp-native", "iptables-ipset", "iptables-raw-rules", "nft-hash-set", "nft-rules", "nft-set", "tc-flower"] and
		all(.rows[] | select(.mechanism); .mechanism as $k |
			(.valid | not) and (($m != "" and (.reason | test($m))) or (.reason | test(
				if ($k | startswith("bpf-hash")) then "packets passed a drop row.s hook"
				else "generated [0-9]+ != seen 0 [+]" end))))' "$T/hit.json"
	check_eq "$name: --hooks takes a mechanism" \
		"$("$HC" bench --scenario scale --sizes 1,10 --hooks nft-set,bpf-hash-tcx --rounds 1 \
			--packets 2000 --no-path-check -j 2>/dev/null | jq -c '[.rows[].name]')" \
		'["tcx-set-1","tcx-set-10","nft-set-1","nft-set-10","gen-only"]'
	# the default sizes, as --hooks lists them when it selects none
	"$HC" bench --scenario scale --hooks none --rounds 1 >/dev/null 2>"$T/scale.err"
	check "$name: default sizes 1 to 100k, linear rules to 10k, ipset's to 100k" grep -qF \
		"its rows: xdp-native-set-{1,10,100,1k,10k,100k}, tcx-set-{1,10,100,1k,10k,100k}, nft-set-{1,10,100,1k,10k,100k}, nft-hash-{1,10,100,1k,10k,100k}, nft-rules-{1,10,100,1k,10k}, iptables-rules-{1,10,100,1k,10k}, ipset-{1,10,100,1k,10k,100k}, flower-{1,10,100,1k,10k}; hooks:" "$T/scale.err"
	"$HC" bench --scenario scale --sizes 100,1 --rounds 1 >/dev/null 2>"$T/scale.err"
	check_eq "$name: --sizes descending: usage" "$?" 2 "$T/scale.err"
	check "$name: and says what it expected" grep -q "^Error: --sizes '100,1': expected up to 8 ascending entry counts" "$T/scale.err"
	"$HC" bench --scenario rules --sizes 1 --rounds 1 >/dev/null 2>"$T/scale.err"
	check_eq "$name: --sizes elsewhere: usage" "$?" 2 "$T/scale.err"
	check "$name: and says whose it is" grep -q "sizes is the scale scenario's, not rules's" "$T/scale.err"
	root_state_same "$name: nothing left behind"
}

# flows at two counts: a row per path and count, each with its flows, a
# gen-only at each count, the growth fitted per path, --flows checked,
# nothing left behind.
test_flows() {
	local name="bench flows" f="$T/flows.json" m=$MISSING
	# shellcheck disable=SC2086
	"$HC" bench --scenario flows --flows 1,4096 --hooks xdp-native,tc-clsact,stack,iptables-raw \
		$SHORT $NOPATH -o "$f" >"$T/flows.out" 2>"$T/flows.err"
	check_eq "$name: exit status" "$?" 0 "$T/flows.err"
	load_skips "$name" "$f"
	check_eq "$name: rows per path and count, gen-only at each count" "$(jq -c '[.rows[].name]' "$f")" \
		'["xdp-native-1flow","xdp-native-4096flows","tc-clsact-1flow","tc-clsact-4096flows","stack-1flow","stack-4096flows","iptables-raw-1flow","iptables-raw-4096flows","gen-only","gen-only-4096flows"]'
	check_eq "$name: every row valid" "$(jq -c --arg m "$m" --arg load "$LOAD_REASON" \
		--argjson ok '[]' "$UNEXPECTED" "$f")" "[]"
	check "$name: every round accounted for" jq_true "$ACCOUNTED" "$f"
	check "$name: each row's flows" jq_true \
		'[.rows[] | .flows] == [1, 4096, 1, 4096, 1, 4096, 1, 4096, 1, 4096]' "$f"
	check "$name: each row compared with its path's fewest flows" jq_true \
		'.baseline == "its fewest flows" and
		all(.rows[] | select(.flags | index("generator") | not);
			.baseline == (.name | sub("-[0-9]+flows?$"; "-1flow")))' "$f"
	check "$name: the growth of each path" jq_true '
		[.growth[] | [.path, .rows, .verdict]] ==
		[["xdp-native", 2, null], ["tc-clsact", 2, null], ["stack", 2, null],
		 ["iptables-raw", 2, null]] and
		all(.growth[]; (.ns_per_doubling.median | type == "number" or . == null) and
			(.ns_per_flow.median | type == "number" or . == null))' "$f"
	check "$name: the text's growth, a line per path" grep -qE \
		'^  tc-clsact +(-|[-+0-9.]+ \[n/a\]) +n/a +per flow (-|[-+0-9.]+ \[n/a\])$' "$T/flows.out"
	check "$name: every column fits its cells" aligned "$T/flows.out"
	"$HC" bench --scenario flows --hooks none --rounds 1 >/dev/null 2>"$T/flows.err"
	check "$name: default counts 1 to 65,536" grep -qF \
		"xdp-native-{1flow,16flows,256flows,4096flows,65536flows}" "$T/flows.err"
	"$HC" bench --scenario flows --flows 16,1 --rounds 1 >/dev/null 2>"$T/flows.err"
	check_eq "$name: --flows descending: usage" "$?" 2 "$T/flows.err"
	check "$name: and says what it expected" grep -q "^Error: --flows '16,1': expected up to 8 ascending flow counts from 1 to 65536" "$T/flows.err"
	"$HC" bench --flows 16 --rounds 1 >/dev/null 2>"$T/flows.err"
	check_eq "$name: --flows elsewhere: usage" "$?" 2 "$T/flows.err"
	check "$name: and says whose it is" grep -q "flows is the flows scenario's, not hooks's" "$T/flows.err"
	root_state_same "$name: nothing left behind"
}

# tests/bench.sh [NAME...]: these tests, or all of them (tests/lib.sh).
run_tests "$@"
