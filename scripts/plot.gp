# SPDX-License-Identifier: GPL-2.0
# One chart of a hookcmp bench run; scripts/plot.sh calls it as
#   gnuplot -c plot.gp KIND DATA OUTFILE png|svg TITLE BASELINE INVALID CI EMPTY
# Every path and name arrives as an argument, so none is parsed as script:
# the plots below name them only by variable.
# DATA's columns: name mpps min max ns lo hi delta lo hi generator valid;
# INVALID is the legend's text for the rows marked x (empty: none); CI is
# 1 when the rows have intervals (enough rounds), else 0. EMPTY, "N WHY"
# when no row has a value for this chart: WHY is drawn instead, on an axis
# of N places (gnuplot cannot range a chart with no point); else empty.
kind = ARG1
data = ARG2
invalid = ARG7
ci = ARG8 eq "1"
empty = ARG9
if (strlen(empty)) {
	set xrange [-0.5:word(empty, 1) - 0.5]
	set label 1 empty[strlen(word(empty, 1)) + 2:] at graph 0.5, 0.5 center
}
if (ARG4 eq "png") {
	set terminal pngcairo size 1000,600 font ",10" noenhanced
} else {
	set terminal svg size 1000,600 font ",10" noenhanced
}
set output ARG3
set title ARG5
set datafile missing "NaN"
set grid ytics
set xtics rotate by -40 left
set style fill solid 0.6 border -1
set boxwidth 0.7
set rmargin 10
set key below left Left reverse maxcols 1
what = ci ? "median, 95% CI" : "median; too few rounds for a 95% CI"
# An INVALID row: a red x on the axis where its bar would be.
mark(v) = v == 0 ? 0 : NaN
marks = strlen(invalid) ? \
	", data using 0:(mark($12)) with points pt 2 ps 2 lw 2 lc rgb 'red' title invalid" : ""
# Bars of column c (not the generator's), whiskers lo..hi.
bars(c, lo, hi, color, whiskers) = strlen(empty) ? "NaN notitle" . marks : \
	sprintf("data using 0:($11 == 0 ? $%d : NaN):xtic(1) with boxes lc rgb '%s' notitle", c, color) . \
	(whiskers ? sprintf(", '' using 0:($11 == 0 ? $%d : NaN):%d:%d with yerrorbars lc rgb 'black' pt 0 notitle", c, lo, hi) : "") . \
	marks
if (strlen(empty)) {
	set yrange [0:1]
	unset xtics
	unset ytics
} else {
	set yrange [0:*]
}
if (kind eq "mpps") {
	set ylabel "Mpps (median, min-max)"
	eval "plot " . bars(2, 3, 4, "#4878a8", 1)
}
if (kind eq "ns") {
	set ylabel sprintf("ns/pkt (%s)", what)
	eval "plot " . bars(5, 6, 7, "#58a868", ci)
}
if (kind eq "delta") {
	if (!strlen(empty)) {
		set yrange [*:*]
	}
	set ylabel sprintf("ns/pkt over %s, paired per round (%s)", ARG6, what)
	eval "plot " . bars(8, 9, 10, "#a85848", ci)
}
# DATA here: "name change lo hi verdict" a line, tab-separated, percent.
if (kind eq "compare") {
	set datafile separator "\t"
	set yrange [*:*]
	set xzeroaxis lt -1
	set ylabel "change of ns/pkt, NEW over OLD, % (95% CI over runs)"
	set key top left
	# column 6: 1 a change against the row's baseline, 0 a raw one
	plot data using 0:($6 == 1 ? $2 : NaN):xtic(1) with boxes lc rgb "#4878a8" \
			title "vs its baseline row (a shift of the machine cancels)", \
		'' using 0:($6 == 0 ? $2 : NaN) with boxes lc rgb "#c8a048" \
			title "raw NEW/OLD (moves with the machine too)", \
		'' using 0:2:3:4 with yerrorbars lc rgb "black" pt 0 notitle
}
# DATA here: a header "row FUNCTION... other", then a row's ns per
# function a line, tab-separated: one stacked bar per row.
if (kind eq "profile") {
	set datafile separator "\t"
	set style data histograms
	set style histogram rowstacked
	set key outside right top vertical Left reverse maxrows 40
	set rmargin 40
	set ylabel "ns/pkt in the profiled windows, by function (self samples)"
	plot for [i=2:*] data using i:xtic(1) title columnheader(i)
}
# DATA here: blocks "HOOK", then "HOOK LEVEL ns lo hi valid x" lines;
# a NaN level, undefined, leaves a gap in its hook's line.
if (kind eq "steps") {
	unset datafile missing
	set offsets 0.3, 0.3, 0, 0
	set ylabel sprintf("ns/pkt (%s)", what)
	# scale: costs from hundreds of ns to tens of us, O(1) beside linear
	# (an INVALID row's mark then sits at 1 ns, the axis' floor)
	if (strstrt(ARG5, "bench: scale (") && !strlen(empty)) {
		set logscale y
		set yrange [1:*]
		mark(v) = v == 0 ? 1 : NaN
		set ylabel sprintf("ns/pkt (%s), log scale", what)
	}
	eval "plot " . (strlen(empty) ? "NaN notitle" : \
		"for [i=0:*] data index i using 7:3:xtic(2) with linespoints lw 2 title columnheader(1)" . \
		(ci ? ", for [i=0:*] data index i using 7:3:4:5 with yerrorbars lc rgb 'black' pt 0 notitle" : "")) . \
		(strlen(invalid) ? ", for [i=0:*] data index i using 7:(mark($6)) with points pt 2 ps 2 lw 2 lc rgb 'red' title (i == 0 ? invalid : '')" : "")
}
