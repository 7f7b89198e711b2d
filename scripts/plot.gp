# SPDX-License-Identifier: GPL-2.0
# One chart of a hookcmp bench run; scripts/plot.sh calls it as
#   gnuplot -c plot.gp KIND DATA OUTFILE png|svg TITLE BASELINE
# Every path and name arrives as an argument, so none is parsed as script.
kind = ARG1
data = ARG2
if (ARG4 eq "png") {
	set terminal pngcairo size 1000,560 font ",10" noenhanced
} else {
	set terminal svg size 1000,560 font ",10" noenhanced
}
set output ARG3
set title ARG5
set datafile missing "NaN"
set grid ytics
set xtics rotate by -40 left
set style fill solid 0.6 border -1
set boxwidth 0.7
set rmargin 10
set bmargin 7
set key off
if (kind eq "mpps") {
	set yrange [0:*]
	set ylabel "Mpps (median, min-max)"
	plot data using 0:2:xtic(1) with boxes lc rgb '#4878a8', \
		'' using 0:2:3:4 with yerrorbars lc rgb 'black' pt 0
}
if (kind eq "cost") {
	set yrange [0:*]
	set ylabel "ns/pkt (median, 95% CI)"
	plot data using 0:($11 == 0 ? $5 : NaN):xtic(1) with boxes lc rgb '#58a868', \
		'' using 0:($11 == 0 ? $5 : NaN):6:7 with yerrorbars lc rgb 'black' pt 0
}
if (kind eq "ns") {
	set ylabel sprintf("ns/pkt over %s (median, 95%% CI)", ARG6)
	plot data using 0:($11 == 0 ? $8 : NaN):xtic(1) with boxes lc rgb '#a85848', \
		'' using 0:($11 == 0 ? $8 : NaN):9:10 with yerrorbars lc rgb 'black' pt 0
}
if (kind eq "steps") {
	set key top left
	set offsets 0.3, 0.3, 0, 0
	set ylabel "ns/pkt (median, 95% CI)"
	plot for [i=0:*] data index i using 0:3:4:5:xtic(2) \
		with yerrorlines lw 2 title columnheader(1)
}
