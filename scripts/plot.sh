#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Charts of a hookcmp bench run, as PNG and SVG, with gnuplot:
#   scripts/plot.sh BENCH.json|BENCH.csv [OUTDIR]
# mpps:   Mpps per row, median with min/max whiskers
# ns:     each row's cost per packet, with its 95% interval
# delta:  each row's cost over the baseline, paired per round, with its
#         95% interval
# steps:  for parse, rules and scale, ns/pkt per hook (scale: mechanism)
#         against depth, rule count or N, with its 95% interval; scale's
#         sizes one step apart each, so that its decades make a log axis
# compare: from bench compare's JSON (its --plot), each row's change in
#         percent with its 95% interval, the one its verdict takes: against
#         its baseline row or raw, in two colours with a legend
# profile: with bench --profile, each row's ns/pkt stacked by function:
#         the rows' top 5 each, the rest as "other"
# An INVALID row is a marked gap, its reason in the legend; an interval
# that too few rounds leave out (n/a) is left out of the chart too.
# Paths reach gnuplot as arguments (gnuplot -c), never inside its script.
set -eu
in=${1:?usage: plot.sh BENCH.json|BENCH.csv [OUTDIR]}
out=${2:-$(dirname -- "$in")}
gp=$(dirname -- "$0")/plot.gp
command -v gnuplot >/dev/null || { echo "plot.sh: needs gnuplot (Debian: gnuplot-nox)" >&2; exit 3; }
mkdir -p -- "$out"
data=$(mktemp)
trap 'rm -f "$data" "$data.why" "$data.steps" "$data.prof"' EXIT
touch "$data.why"

# bench compare's document: one chart, of the changes.
if [ "${in##*.}" = json ] && [ "$(jq -r .type "$in" 2>/dev/null)" = compare ]; then
	jq -r '.rows[] |
		(if .verdict_from == "baseline" then .change_vs_baseline else .change end) as $c |
		select($c.median != null) |
		[.name, (($c.median - 1) * 100), (if $c.ci[0] then ($c.ci[0] - 1) * 100 else "NaN" end),
		 (if $c.ci[1] then ($c.ci[1] - 1) * 100 else "NaN" end), .verdict,
		 (if .verdict_from == "baseline" then 1 else 0 end)] |
		map(tostring) | join("\t")' "$in" >"$data"
	[ -s "$data" ] || { echo "plot.sh: no row in $in has a change" >&2; exit 1; }
	title="hookcmp bench compare: $(jq -r '"\(.old.files[0]) (\(.old.runs) runs) -> \(.new.files[0]) (\(.new.runs)) (\(.old.scenario))"' "$in")"
	for t in png svg; do
		gnuplot -c "$gp" compare "$data" "$out/compare.$t" "$t" "$title" "" "" 1 ""
	done
	ls -- "$out"/compare.png
	exit 0
fi

# One line per row:
# name mpps min max ns ns_lo ns_hi delta delta_lo delta_hi generator valid
# and for each INVALID row a line "name: reason" in $data.why.
case $in in
*.json)
	command -v jq >/dev/null || { echo "plot.sh: needs jq for JSON" >&2; exit 3; }
	scenario=$(jq -r .scenario "$in")
	mode=$(jq -r .cpu_mode "$in")
	# How frames reached the DUT, in the title: what the rows' costs mean.
	feed=$(jq -r '{ live: "live XDP frames", stage: "XDP frames from the stage",
		packet: "AF_PACKET skbs, converted by native XDP" }[.env.feed // ""] //
		"the generator of --dev"' "$in")
	baseline=$(jq -r .baseline "$in")
	jq -r '.rows[] | (.status != "invalid") as $ok |
		[.name, .mpps.median, .mpps.min, .mpps.max, .ns.median, .ns.ci[0], .ns.ci[1],
		 .delta_ns.median, .delta_ns.ci[0], .delta_ns.ci[1],
		 (if (.flags | index("generator")) then 1 else 0 end), (if $ok then 1 else 0 end)] |
		map(. // "NaN" | tostring) |
		if $ok then . else .[0:1] + (.[1:10] | map("NaN")) + .[10:] end | join(" ")' \
		"$in" >"$data"
	jq -r '.rows[] | select(.status == "invalid") | "\(.name): \(.reason)"' "$in" >"$data.why"
	;;
*.csv)
	scenario=csv
	mode=unknown feed="a feed the CSV does not name"
	baseline="the baseline"
	# Columns by their names in the header, with a quoted field's commas
	# kept inside it.
	awk 'function fields(line,   n, q, c, i, f) {
			n = 0; q = 0; f = ""
			for (i = 1; i <= length(line); i++) {
				c = substr(line, i, 1)
				if (c == "\"") { q = !q; continue }
				if (c == "," && !q) { v[++n] = f; f = ""; continue }
				f = f c
			}
			v[++n] = f
			return n
		}
		NR == 1 { n = fields($0); for (i = 1; i <= n; i++) c[v[i]] = i; next }
		{
			fields($0)
			ok = v[c["status"]] != "invalid"
			k = split("name mpps_median mpps_min mpps_max ns_median ns_ci_lo ns_ci_hi delta_ns_median delta_ns_ci_lo delta_ns_ci_hi", key, " ")
			printf "%s", v[c["name"]]
			for (i = 2; i <= k; i++)
				printf " %s", (!ok || v[c[key[i]]] == "" ? "NaN" : v[c[key[i]]])
			print " " (v[c["flags"]] ~ /generator/ ? 1 : 0) " " ok
			if (!ok)
				print v[c["name"]] ": " v[c["reason"]] >why
		}' why="$data.why" "$in" >"$data"
	;;
*)
	echo "plot.sh: $in: want a .json or .csv from hookcmp bench" >&2
	exit 2
	;;
esac
[ -s "$data" ] || { echo "plot.sh: no rows in $in" >&2; exit 1; }
grep -q ' 1$' "$data" || { echo "plot.sh: no valid rows in $in" >&2; exit 1; }
# The legend's words for the INVALID rows' marks, one line each.
why=$(cut -c 1-90 "$data.why" | sed 's/^/INVALID /')
# Intervals, unless too few rounds left every one n/a.
ci=$(awk '$6 != "NaN" { ci = 1 } END { print ci + 0 }' "$data")
title="hookcmp bench: $scenario ($mode CPU mode, $feed)"

# A chart whose column no row has a value in (a row the host held slow in
# every round has no cost) says so instead; N places on its axis.
plot() {	# plot KIND DATA COLUMN
	empty=$(awk -v c="$3" 'NF == 12 && $11 == 0 && $c != "NaN" || NF == 7 && $c != "NaN" { v = 1 }
		NF > 1 { n++ } END { if (!v) print n }' "$2")
	for t in png svg; do
		gnuplot -c "$gp" "$1" "$2" "$out/$1.$t" "$t" "$title" "$baseline" "$why" "$ci" \
			"${empty:+$empty no $1 to draw: no row has one
(a row the host held slow in every round has no cost,
nor a delta over such a baseline: see the run's table)}"
	done
}
plot mpps "$data" 2
plot ns "$data" 5
plot delta "$data" 8

# parse, rules, scale: rows are HOOK-LEVEL; one line per hook over its levels.
if [ "$scenario" = parse ] || [ "$scenario" = rules ] || [ "$scenario" = scale ]; then
	awk '$11 == 0 { n = split($1, p, "-"); lvl = p[n]; hook = substr($1, 1, length($1) - length(lvl) - 1)
	       if (hook != last) { if (last != "") printf "\n\n"; print hook; last = hook; x = 0 }
	       print hook, lvl, $5, $6, $7, $12, x++ }' "$data" >"$data.steps"
	plot steps "$data.steps" 3
fi
# --profile: one column per function among the rows' top 5, tab-separated
# (a header line of names), and what the rest of each row's samples cost.
case $in in
*.json)
	if jq -e 'any(.rows[]; .profile)' "$in" >/dev/null; then
		jq -r '([.rows[] | .profile // [] | .[0:5][].sym] | unique) as $f |
			(["row"] + $f + ["other"] | join("\t")),
			(.rows[] | select(.profile) | . as $r |
			 [$f[] as $s | ($r.profile | map(select(.sym == $s)) | .[0].ns // 0)] as $v |
			 [$r.name] + ($v | map(tostring)) +
			 [((($r.profile_ns // 0) - ($v | add // 0)) | if . < 0 then 0 else . end) | tostring] |
			 join("\t"))' "$in" >"$data.prof"
		for t in png svg; do
			gnuplot -c "$gp" profile "$data.prof" "$out/profile.$t" "$t" "$title" "$baseline" "" "$ci" ""
		done
	fi
	;;
esac
ls -- "$out"/*.png
