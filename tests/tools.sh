#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The man page, completion, plots, perf scripts and make install, each in a
# short mode on a tiny bench.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
HC=$PWD/hookcmp

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# The man page: renders without a warning, and names every option.
if need man "man page renders without warnings"; then
	out=$(man -l --warnings build/hookcmp.8 2>&1 >/dev/null)
	check_eq "man page renders without warnings" "$out" ""
	# rst that did not parse is left as it was: "+-PCT*%", "*--max-rounds**"
	out=$(MANWIDTH=200 man -l build/hookcmp.8 2>/dev/null | grep -nE '[^[:space:]]\*|\*[^[:space:]]')
	check_eq "man page: no stray * or ** markup in the rendered text" "$out" ""
	check "man page: why prog-run has no xsk row" grep -qF \
		"xsk has no row: its cost is the AF_XDP ring" <(man -l build/hookcmp.8 2>/dev/null | tr -s ' \n' ' ')
fi
missing=
for o in $(for c in "" gen bench "bench compare" "bench calibrate" prog-run cleanup status; do "$HC" $c --help 2>/dev/null; done |
	grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
	grep -q -- "\*\*$o\*\*" doc/hookcmp.8.rst || missing="$missing $o"
done
check_eq "man page documents every option of every command" "$missing" ""

# Completion, from the help the option tables generate.
check_eq "completion: commands" "$(comp hookcmp be)" "bench"
check_eq "completion: an option's choices" "$(comp hookcmp --xdp-mode '')" "native generic"
check_eq "completion: verdicts" "$(comp hookcmp --action '')" "pass drop redirect"
check_eq "completion: redirect modes" "$(comp hookcmp --redirect-mode '')" "map ifindex"
check_eq "completion: a command's options" "$(comp hookcmp bench --sc)" "--scenario"
# bench --help's scenarios, from its table
scen=$("$HC" bench --help | sed -n '/^Scenarios:/,$s/^  \([a-z][a-z-]*\) .*/\1/p' | tr '\n' ' ')
check "completion: bench --help lists the scenarios" grep -q "^hooks static-key .* scale flows $" <<<"$scen"
check_eq "completion: bench scenarios" "$(comp hookcmp bench --scenario '')" "${scen% }"
check_eq "completion: files after bench -o" "$(comp hookcmp bench -o Makef)" "Makefile"
check_eq "completion: files after --rules-file" "$(comp hookcmp --hook xdp --rules-file Makef)" "Makefile"
# Global options first, as the docs write them.
check_eq "completion: -n NS gen --d" "$(comp hookcmp -n nons gen --d)" \
	"--dport --dst --dst-mac --duration"
check_eq "completion: -j bench --sc" "$(comp hookcmp -j bench --sc)" "--scenario"
check_eq "completion: -n NS bench --scenario" "$(comp hookcmp -n nons bench --scenario '')" \
	"${scen% }"
check_eq "completion: -p --journal D status" "$(comp hookcmp -p --journal /tmp status --j)" \
	"--journal --json"
check "completion: bench --hooks offers rows" grep -qw tcx-bare <<<"$(comp hookcmp bench --hooks '')"
check_eq "completion: --hooks, the scenario's, after a comma" \
	"$(comp hookcmp bench --scenario static-key --hooks nothing,ingress)" \
	"nothing,ingress-other-dev nothing,ingress nothing,ingress+u32"
check_eq "completion: only the hook's options" "$(comp hookcmp --hook tc --q)" "--qdisc"
check_eq "completion: xsk's own" "$(comp hookcmp --hook xsk --q)" "--queue"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP plots, perf scripts and install: they run bench, which needs root"
	exit 0
fi

if need gnuplot "bench --plot and plot.sh"; then
	# Plots from a tiny bench, from its JSON and from its CSV; a quote in the
	# directory's name is just a character (gnuplot gets paths as arguments).
	P="$T/plots 'q\"uote"
	"$HC" bench --scenario parse --hooks xdp-native,tcx --rounds 2 --packets 20000 \
		-o "$T/b.json" --csv "$T/b.csv" --plot "$P" >"$T/out" 2>&1
	check_eq "bench --plot: exit status" "$?" 0
	for f in mpps ns delta steps; do
		check "bench --plot: $f.png is a PNG" is_png "$P/$f.png"
		check "bench --plot: $f.svg is SVG" grep -q "<svg" "$P/$f.svg"
	done
	check "bench --plot: 2 rounds, no intervals, and the charts say so" \
		grep -q "ns/pkt over HOOK-none, paired per round (median; too few rounds for a 95% CI)" "$P/delta.svg"
	check "bench --plot: no profile chart without --profile" not test -e "$P/profile.png"
	# The charts the README shows and doc/hookcmp.md names are the files
	# --plot writes, by those names.
	imgs=$(grep -o 'doc/img/[a-z-]*\.png' README.md | sed 's|^doc/img/||')
	named=$(sed -n '/`--plot DIR` charts through/,/its interval/p' doc/hookcmp.md |
		grep -o '`[a-z]*`' | tr -d '`')
	check "bench --plot: the README and doc/hookcmp.md name charts" test -n "$imgs" -a -n "$named"
	for f in $imgs; do
		check "bench --plot: README's doc/img/$f is a file --plot writes" test -e "$P/$f"
	done
	for f in $named; do
		check "bench --plot: doc/hookcmp.md's $f chart is written as $f.png" test -e "$P/$f.png"
	done
	# scale: cost against N, a line per mechanism
	"$HC" bench --scenario scale --sizes 1,100 --rounds 2 --packets 20000 --no-path-check \
		--plot "$T/splots" >/dev/null 2>&1
	check_eq "bench scale --plot: exit status" "$?" 0
	check "bench scale --plot: steps.png is a PNG" is_png "$T/splots/steps.png"
	check "bench scale --plot: cost on a log axis (hundreds of ns beside tens of us)" \
		grep -q "log scale" "$T/splots/steps.svg"
	check "bench parse --plot: cost on a linear one" not grep -q "log scale" "$P/steps.svg"
	# a row the host held slow has no cost, no point, and no label; nor
	# an INVALID one (flower without cls_flower)
	if jq -e 'all(.rows[] | select(.valid); .ns.median != null)' "$T/splots/bench.json" >/dev/null; then
		check "bench scale --plot: a line per mechanism, N on its axis" jq_true --rawfile svg "$T/splots/steps.svg" \
			'all("xdp-native-set", "tcx-set", "nft-set", "nft-rules", "iptables-rules", "ipset", ">100<";
				. as $s | $svg | contains($s))' "$T/splots/bench.json"
	else
		echo "SKIP bench scale --plot: the chart's lines: rows without a cost (the machine's load): $(jq -c '[.rows[] | select(.valid and .ns.median == null) | .name]' "$T/splots/bench.json")"
	fi
	"$HC" bench --hooks tcx --rounds 2 --packets 20000 --profile --plot "$T/pplots" >/dev/null 2>&1
	check_eq "bench --profile --plot: exit status" "$?" 0
	check "bench --profile --plot: profile.png is a PNG" is_png "$T/pplots/profile.png"
	check "bench --profile --plot: the chart stacks functions, the rest as other" jq_true \
		--rawfile svg "$T/pplots/profile.svg" \
		'($svg | contains(">other<")) and all(.rows[]; .profile[0].sym as $s | $svg | contains(">" + $s + "<"))' \
		"$T/pplots/bench.json"
	# Intervals where the rounds give them, an INVALID row a marked gap.
	jq 'def ci: if .median then .ci = [.median - 1, .median + 1] else . end;
		.rows |= map((.ns |= ci) | (.delta_ns |= ci)) |
		.rows[1] |= (.status = "invalid" | .valid = false | .reason = "round 1: hc test reason")' \
		"$T/b.json" >"$T/bi.json"
	scripts/plot.sh "$T/bi.json" "$T/iplots" >/dev/null 2>"$T/plot.err"
	check_eq "plot.sh with an INVALID row: exit status" "$?" 0
	# gnuplot finds too little room for the labels of a chart of one or
	# two bars: rows the machine's load left without a cost
	if jq -e '[.rows[] | select(.valid and .delta_ns.median == null and (.flags | index("generator") | not))] | length > 0' \
		"$T/bi.json" >/dev/null; then
		echo "SKIP plot.sh: gnuplot had nothing to warn of: rows without a delta (the machine's load, not hookcmp's doing)"
	else
		check_eq "plot.sh: gnuplot had nothing to warn of" "$(cat "$T/plot.err")" ""
	fi
	for f in ns delta steps; do
		check "plot.sh: the $f chart draws intervals" grep -q "(median, 95% CI)" "$T/iplots/$f.svg"
		check "plot.sh: the $f chart names the INVALID row and why" \
			grep -q "INVALID $(jq -r '.rows[1].name' "$T/b.json"): round 1: hc test reason" "$T/iplots/$f.svg"
	done
	# A baseline the host held slow in every round: no cost, so no row has
	# a delta; the delta chart says so, the others draw (gnuplot alone
	# refuses a chart with no point).
	jq '.rows[0].ns.median = null | .rows[].delta_ns.median = null' "$T/b.json" >"$T/bn.json"
	scripts/plot.sh "$T/bn.json" "$T/nplots" >/dev/null 2>"$T/plot.err"
	check_eq "plot.sh, no row with a delta: exit status" "$?" 0
	check_eq "plot.sh, no row with a delta: gnuplot had nothing to warn of" "$(cat "$T/plot.err")" ""
	check "plot.sh, no row with a delta: the delta chart says why it is empty" \
		grep -q "no delta to draw: no row has one" "$T/nplots/delta.svg"
	check "plot.sh, no row with a delta: the ns chart draws" \
		not grep -q "to draw: no row has one" "$T/nplots/ns.svg"
	scripts/plot.sh "$T/b.csv" "$T/csvplots" >/dev/null 2>&1
	check_eq "plot.sh from CSV: exit status" "$?" 0
	check "plot.sh from CSV: mpps.png is a PNG" is_png "$T/csvplots/mpps.png"
fi

# gen-vs-trafgen.sh: rates of what arrived, or no comparison at all.
NO_RECEIVER=1 scripts/gen-vs-trafgen.sh 0.3 >"$T/gvt" 2>&1
check_eq "gen-vs-trafgen.sh, nothing receiving: exit 1" "$?" 1
need_live "gen-vs-trafgen.sh, nothing receiving: refused, saying why" &&
	check "gen-vs-trafgen.sh, nothing receiving: refused, saying why" \
		grep -q "^gen-vs-trafgen: refused: gen --raw: Error: gen on hcg: only [0-9]* of [0-9]* frames offered left hcg" "$T/gvt"
check "gen-vs-trafgen.sh, nothing receiving: no namespace left" \
	not grep -q "^hcgen" <(ip netns list)
if command -v trafgen >/dev/null; then
	# A loaded machine's receiver may fall behind: then the comparison is
	# refused, saying which side lost what.
	scripts/gen-vs-trafgen.sh 0.3 >"$T/gvt" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q "^gen-vs-trafgen: refused: " "$T/gvt"; then
		echo "SKIP gen-vs-trafgen.sh against trafgen: the receiver lost frames this time: $(tail -n 1 "$T/gvt")"
	else
		check_eq "gen-vs-trafgen.sh: exit status" "$rc" 0
		check "gen-vs-trafgen.sh: a rate per generator, of what arrived" \
			test "$(grep -cE '^(gen --raw \(ceiling\)|gen --flows 1|gen --flows 64|trafgen \(netsniff-ng\)) +[1-9][0-9]* pps$' "$T/gvt")" = 4
	fi
	check "gen-vs-trafgen.sh: no namespace left" not grep -q "^hcgen" <(ip netns list)
else
	echo "SKIP gen-vs-trafgen.sh against trafgen: netsniff-ng is not installed (the script installs it)"
fi

# 2 rounds of 20 windows of 1000 packets: 1024 on the stage (whole copies).
PK=40000
[ -n "${HC_NO_LIVE:-}" ] && PK=40960
if need perf "perf-profile.sh and perf-stat.sh"; then
	# perf scripts, software events where the hardware has none; perf counts
	# only inside the chosen row's timed windows.
	RESULTS=$T/res scripts/perf-profile.sh xdp-native --rounds 2 --packets 20000 >"$T/prof" 2>&1
	check_eq "perf-profile.sh: exit status" "$?" 0
	check "perf-profile.sh: prints top symbols" grep -qE '^ *[0-9.]+% +\[[k.]\]' "$T/prof"
	check "perf-profile.sh: keeps perf.data and a report" \
		test -s "$(ls -d "$T"/res/perf-xdp-native-*)/perf.data" -a -s "$(ls -d "$T"/res/perf-xdp-native-*)/report.txt"
	check "perf-profile.sh: says how many samples fell in the row's windows, and whose" \
		grep -qE "^perf-profile: [1-9][0-9]* [a-z-]+ samples on CPU 0 inside 40 timed windows \(2 rounds\) of xdp-native \($PK packets\): [1-9][0-9]* of bench's threads and kthreads, in the report; [0-9]+ \([0-9.]+%\) of other tasks, left out" "$T/prof"
	# Another task busy on the CPU: sampled, counted as another's, and
	# not in the report. Windows long enough for the scheduler to run it
	# in them; whether it ran there is its business, so only then are
	# its samples checked.
	taskset -c 0 sh -c 'while :; do :; done' &
	busy=$!
	RESULTS=$T/res2 scripts/perf-profile.sh xdp-native --rounds 2 --packets 400000 >"$T/prof2" 2>&1
	check_eq "perf-profile.sh beside a busy task: exit status" "$?" 0
	kill $busy
	wait $busy 2>/dev/null
	d=$(ls -d "$T"/res2/perf-xdp-native-*)
	# The tasks a report shows, as "tid" lines.
	tids_in() { perf report -i "$d/perf.data" "$@" --stdio -g none --sort pid 2>/dev/null |
		sed -n 's/^ *[0-9.]*% *[0-9.]*% *\([0-9]*\):.*/\1/p' | sort -u; }
	if [ -n "$(comm -23 <(tids_in) <(tr , '\n' <<<"$(cut -d' ' -f3 "$d/own")" | sort -u))" ]; then
		check "perf-profile.sh beside a busy task: others' samples counted as others'" \
			grep -qE "; [1-9][0-9]* \([0-9.]+%\) of other tasks, left out" "$T/prof2"
	else
		echo "SKIP perf-profile.sh beside a busy task: no other task was sampled in the windows this time"
	fi
	check "perf-profile.sh beside a busy task: the report has bench's tasks only" \
		test -z "$(comm -23 <(tids_in --tid="$(cut -d' ' -f3 "$d/own")") \
			<(tr , '\n' <<<"$(cut -d' ' -f3 "$d/own")" | sort -u))"
	if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
		check "perf-profile.sh: says it fell back to cpu-clock" \
			grep -q "not supported here; sampling cpu-clock" "$T/prof"
	fi
	PACKETS=20000 ROUNDS=2 RESULTS=$T/res scripts/perf-stat.sh xdp-native tcx >"$T/stat" 2>&1
	check_eq "perf-stat.sh: exit status" "$?" 0
	check "perf-stat.sh: a per-packet row per hook and the generator" \
		test "$(grep -cE '^(xdp-native|tcx|gen-only) +[0-9.]+ ' "$T/stat")" = 3
	check "perf-stat.sh: JSON counts the windows' packets only, by perf and by bench" jq_true \
		"length == 3 and all(.[]; .task_ns_per_pkt > 0 and .bench_ns_per_pkt > 0 and .packets == $PK)" \
		"$(ls "$T"/res/perf-stat-*/perf-stat.json)"
fi

# make install puts everything where it belongs, and the installed
# binary finds its scripts.
make -s install PREFIX="$T/inst" >/dev/null 2>&1
check_eq "make install: exit status" "$?" 0
for f in sbin/hookcmp share/man/man8/hookcmp.8 share/bash-completion/completions/hookcmp \
	share/hookcmp/scripts/plot.sh share/hookcmp/scripts/plot.gp share/hookcmp/scripts/perf-profile.sh \
	share/hookcmp/scripts/perf-stat.sh; do
	check "make install: $f" test -s "$T/inst/$f"
done
if need gnuplot "installed hookcmp bench --plot"; then
	"$T/inst/sbin/hookcmp" bench --hooks tcx --no-bare --rounds 1 --packets 5000 \
		--plot "$T/instplots" >/dev/null 2>&1
	check "installed hookcmp bench --plot finds the installed plot.sh" is_png "$T/instplots/mpps.png"
fi

# .ci/run on a tree of stubs whose every stage passes, the first after a
# second, each saying what it was asked: every test once (sanitized, then
# what only a plain build tests), both guests; past CI_BUDGET it fails,
# saying so; within it, it passes.
ci_stubbed() {
	local t=$T/ci f
	rm -rf "$t"
	mkdir -p "$t/.ci" "$t/bin" "$t/scripts" "$t/tests" "$t/build"
	cp .ci/run "$t/.ci/run"
	printf '#!/bin/sh\necho "make $*" >>"%s/asked"\n[ "$1" != deps-vm ] || sleep 1\n' \
		"$t" >"$t/bin/make"
	for f in scripts/vm-check.sh tests/run.sh; do
		printf '#!/bin/sh\necho "%s $*" >>"%s/asked"\necho "1 passed, 0 failed"\n' \
			"$f" "$t" >"$t/$f"
	done
	printf '#!/bin/sh\n' >"$t/hookcmp"
	echo man >"$t/build/hookcmp.8"
	chmod +x "$t/bin/make" "$t/scripts/vm-check.sh" "$t/tests/run.sh" "$t/hookcmp"
	(cd "$t" && PATH="$t/bin:$PATH" CI_BUDGET=$1 bash .ci/run 2>&1)
}
out=$(ci_stubbed 0)
check_eq ".ci/run past its budget: exit status" "$?" 1
check ".ci/run past its budget: says so, with the budget" \
	grep -qE '^FAIL ci: [0-9]+ s \(0 min\), over the budget of 0 s' <<<"$out"
check ".ci/run past its budget: the stage times first" \
	grep -qE '^  plain [0-9]+ s \(exit 0\)' <<<"$out"
out=$(ci_stubbed 600)
check_eq ".ci/run within its budget: exit status" "$?" 0
check_eq ".ci/run: every test once, both guests" \
	"$(grep -E 'check|vm-check' "$T/ci/asked" | sed 's/^make -C [^ ]* /make /' | sort)" \
	"make check SANITIZE=1
make check SUITES=plain
scripts/vm-check.sh --kernel 6.1 --kernel 6.12"
check ".ci/run within its budget: the total against it" \
	grep -qE '^=== ci: total [0-9]+ s of a 600 s budget, exit 0$' <<<"$out"
