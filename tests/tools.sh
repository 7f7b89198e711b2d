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
fi
missing=
for o in $(for c in "" gen bench prog-run cleanup status; do "$HC" $c --help 2>/dev/null; done |
	grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
	grep -q -- "\*\*$o\*\*" doc/hookcmp.8.rst || missing="$missing $o"
done
check_eq "man page documents every option of every command" "$missing" ""

# Completion, from the help the option tables generate.
check_eq "completion: commands" "$(comp hookcmp be)" "bench"
check_eq "completion: an option's choices" "$(comp hookcmp --hook '')" "xdp tc socket xsk"
check_eq "completion: verdicts" "$(comp hookcmp --action '')" "pass drop redirect"
check_eq "completion: redirect modes" "$(comp hookcmp --redirect-mode '')" "map ifindex"
check_eq "completion: a command's options" "$(comp hookcmp bench --sc)" "--scenario"
check_eq "completion: bench scenarios" "$(comp hookcmp bench --scenario '')" \
	"hooks static-key parse rules size aa forward"
check_eq "completion: files after bench -o" "$(comp hookcmp bench -o Makef)" "Makefile"

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
	for f in mpps cost ns steps; do
		check "bench --plot: $f.png is a PNG" is_png "$P/$f.png"
		check "bench --plot: $f.svg is SVG" grep -q "<svg" "$P/$f.svg"
	done
	check "bench --plot: the ns chart draws interval whiskers" grep -q "95% CI" "$P/ns.svg"
	scripts/plot.sh "$T/b.csv" "$T/csvplots" >/dev/null 2>&1
	check_eq "plot.sh from CSV: exit status" "$?" 0
	check "plot.sh from CSV: mpps.png is a PNG" is_png "$T/csvplots/mpps.png"
fi

if need perf "perf-profile.sh and perf-stat.sh"; then
	# perf scripts, software events where the hardware has none; perf counts
	# only inside the chosen row's timed windows.
	RESULTS=$T/res scripts/perf-profile.sh xdp-native --rounds 2 --packets 20000 >"$T/prof" 2>&1
	check_eq "perf-profile.sh: exit status" "$?" 0
	check "perf-profile.sh: prints top symbols" grep -qE '^ *[0-9.]+% +\[[k.]\]' "$T/prof"
	check "perf-profile.sh: keeps perf.data and a report" \
		test -s "$(ls -d "$T"/res/perf-xdp-native-*)/perf.data" -a -s "$(ls -d "$T"/res/perf-xdp-native-*)/report.txt"
	check "perf-profile.sh: says how many samples fell in the row's windows" \
		grep -qE '^perf-profile: [1-9][0-9]* [a-z-]+ samples on CPU 0, all inside 2 timed windows of xdp-native \(40000 packets\)' "$T/prof"
	if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
		check "perf-profile.sh: says it fell back to cpu-clock" \
			grep -q "not supported here; sampling cpu-clock" "$T/prof"
	fi
	PACKETS=20000 ROUNDS=2 RESULTS=$T/res scripts/perf-stat.sh xdp-native tcx >"$T/stat" 2>&1
	check_eq "perf-stat.sh: exit status" "$?" 0
	check "perf-stat.sh: a per-packet row per hook and the generator" \
		test "$(grep -cE '^(xdp-native|tcx|gen-only) +[0-9.]+ ' "$T/stat")" = 3
	check "perf-stat.sh: JSON counts the windows' packets only" jq_true \
		'length == 3 and all(.[]; .task_ns_per_pkt > 0 and .packets == 40000)' \
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
"$T/inst/sbin/hookcmp" bench --hooks tcx --no-bare --rounds 1 --packets 5000 \
	--plot "$T/instplots" >/dev/null 2>&1
need gnuplot "installed hookcmp bench --plot" &&
	check "installed hookcmp bench --plot finds the installed plot.sh" is_png "$T/instplots/mpps.png"
