#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Charts of a hookcmp bench run, as PNG and SVG, with gnuplot:
#   scripts/plot.sh BENCH.json|BENCH.csv [OUTDIR]
# mpps:  Mpps per row, median with min/max whiskers
# ns:    ns/pkt of each row over the scenario's first row
# steps: for parse and rules, ns/pkt per hook against depth or rule count
set -eu
in=${1:?usage: plot.sh BENCH.json|BENCH.csv [OUTDIR]}
out=${2:-$(dirname "$in")}
command -v gnuplot >/dev/null || { echo "plot.sh: needs gnuplot (Debian: gnuplot-nox)" >&2; exit 3; }
mkdir -p "$out"
data=$(mktemp)
trap 'rm -f "$data" "$data.steps"' EXIT

# One line per row: name mpps min max ns_per_pkt
case $in in
*.json)
	command -v jq >/dev/null || { echo "plot.sh: needs jq for JSON" >&2; exit 3; }
	scenario=$(jq -r .scenario "$in")
	mode=$(jq -r .cpu_mode "$in")
	jq -r '.rows[] | select(.valid == 1) |
		"\(.name) \(.mpps) \(.mpps_min) \(.mpps_max) \(.ns_per_pkt)"' "$in" >"$data"
	;;
*.csv)
	scenario=csv
	mode=unknown
	awk -F, 'NR > 1 && $7 == "true" { print $1, $2, $3, $4, $5 }' "$in" >"$data"
	;;
*)
	echo "plot.sh: $in: want a .json or .csv from hookcmp bench" >&2
	exit 2
	;;
esac
[ -s "$data" ] || { echo "plot.sh: no valid rows in $in" >&2; exit 1; }

base=$(awk 'NR == 1 { print $5 }' "$data")

plot() {	# plot NAME TERMINAL EXT
	gnuplot <<GP
set terminal $2 size 1000,560 font ",10"
set output "$out/$1.$3"
set grid ytics
set xtics rotate by -40 left
set style fill solid 0.6 border -1
set boxwidth 0.7
set rmargin 10
set bmargin 7
set key off
set title "hookcmp bench: $scenario ($mode CPU mode)"
$(case $1 in
mpps) printf '%s\n' 'set yrange [0:*]' 'set ylabel "Mpps (median, min-max)"' \
	"plot '$data' using 0:2:xtic(1) with boxes lc rgb '#4878a8', '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt 0" ;;
ns) printf '%s\n' "set ylabel \"ns/pkt over $(awk 'NR == 1 { print $1 }' "$data")\"" \
	"plot '$data' using 0:(\$5 - $base):xtic(1) with boxes lc rgb '#a85848'" ;;
steps) printf '%s\n' 'set key top left' 'set ylabel "ns/pkt"' \
	"plot for [i=0:*] '$data.steps' index i using 0:3:xtic(2) with linespoints lw 2 title columnheader(1)" ;;
esac)
GP
}

for t in "pngcairo png" "svg svg"; do
	set -- $t
	plot mpps "$1" "$2"
	plot ns "$1" "$2"
done

# parse and rules: rows are HOOK-LEVEL; one line per hook over its levels.
if [ "$scenario" = parse ] || [ "$scenario" = rules ]; then
	awk '{ n = split($1, p, "-"); lvl = p[n]; hook = substr($1, 1, length($1) - length(lvl) - 1)
	       if (hook != last) { if (last != "") printf "\n\n"; print hook; last = hook }
	       print hook, lvl, $5 }' "$data" >"$data.steps"
	for t in "pngcairo png" "svg svg"; do
		set -- $t
		plot steps "$1" "$2"
	done
fi
ls "$out"/*.png
