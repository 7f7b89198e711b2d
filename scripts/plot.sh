#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Charts of a hookcmp bench run, as PNG and SVG, with gnuplot:
#   scripts/plot.sh BENCH.json|BENCH.csv [OUTDIR]
# mpps:  Mpps per row, median with min/max whiskers
# cost:  each row's cost per packet, with its 95% interval
# ns:    each row's cost per packet over the baseline, paired per round,
#        with its 95% interval
# steps: for parse and rules, ns/pkt per hook against depth or rule count,
#        with its 95% interval
# Paths reach gnuplot as arguments (gnuplot -c), never inside its script.
set -eu
in=${1:?usage: plot.sh BENCH.json|BENCH.csv [OUTDIR]}
out=${2:-$(dirname -- "$in")}
gp=$(dirname -- "$0")/plot.gp
command -v gnuplot >/dev/null || { echo "plot.sh: needs gnuplot (Debian: gnuplot-nox)" >&2; exit 3; }
mkdir -p -- "$out"
data=$(mktemp)
trap 'rm -f "$data" "$data.steps"' EXIT

# One line per valid row:
# name mpps min max ns ns_lo ns_hi delta delta_lo delta_hi generator
case $in in
*.json)
	command -v jq >/dev/null || { echo "plot.sh: needs jq for JSON" >&2; exit 3; }
	scenario=$(jq -r .scenario "$in")
	mode=$(jq -r .cpu_mode "$in")
	baseline=$(jq -r .baseline "$in")
	jq -r '.rows[] | select(.valid) |
		[.name, .mpps.median, .mpps.min, .mpps.max, .ns.median, .ns.ci[0], .ns.ci[1],
		 .delta_ns.median, .delta_ns.ci[0], .delta_ns.ci[1],
		 (if (.flags | index("generator")) then 1 else 0 end)] |
		map(. // "NaN" | tostring) | join(" ")' "$in" >"$data"
	;;
*.csv)
	scenario=csv
	mode=unknown
	baseline="the baseline"
	# Columns by their names in the header; a valid row's reason is empty,
	# so no quoted comma shifts them.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["valid"] == "true" {
			gsub(/"/, "")
			n = split("name mpps_median mpps_min mpps_max ns_median ns_ci_lo ns_ci_hi delta_ns_median delta_ns_ci_lo delta_ns_ci_hi", k, " ")
			for (i = 1; i <= n; i++) printf "%s ", ($c[k[i]] == "" ? "NaN" : $c[k[i]])
			print ($c["flags"] ~ /generator/ ? 1 : 0) }' "$in" >"$data"
	;;
*)
	echo "plot.sh: $in: want a .json or .csv from hookcmp bench" >&2
	exit 2
	;;
esac
[ -s "$data" ] || { echo "plot.sh: no valid rows in $in" >&2; exit 1; }
title="hookcmp bench: $scenario ($mode CPU mode)"

plot() {	# plot KIND DATA
	for t in png svg; do
		gnuplot -c "$gp" "$1" "$2" "$out/$1.$t" "$t" "$title" "$baseline"
	done
}
plot mpps "$data"
plot cost "$data"
plot ns "$data"

# parse and rules: rows are HOOK-LEVEL; one line per hook over its levels.
if [ "$scenario" = parse ] || [ "$scenario" = rules ]; then
	awk '$11 == 0 { n = split($1, p, "-"); lvl = p[n]; hook = substr($1, 1, length($1) - length(lvl) - 1)
	       if (hook != last) { if (last != "") printf "\n\n"; print hook; last = hook }
	       print hook, lvl, $5, $6, $7 }' "$data" >"$data.steps"
	plot steps "$data.steps"
fi
ls -- "$out"/*.png
