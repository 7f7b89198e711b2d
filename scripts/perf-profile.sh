#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where a hook spends its time: runs one bench row while perf samples the
# DUT's CPU with call graphs, then prints the top symbols the way the
# kernel developers read them (perf report --no-children).
#   scripts/perf-profile.sh ROW [bench options]     e.g. xdp-native --reps 1
# Results: results/perf-ROW-TIME/{perf.data,report.txt,bench.json,bench.txt}
set -eu
row=${1:?usage: perf-profile.sh ROW [hookcmp bench options]}
shift
cd "$(dirname "$0")/.."
HC=${HC:-./hookcmp}
command -v perf >/dev/null || { echo "perf-profile: needs perf (Debian: linux-perf)" >&2; exit 3; }
out=${RESULTS:-results}/perf-$row-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

# Many VMs have no hardware counters: sample the software clock instead.
event=cycles
if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
	event=cpu-clock
	echo "perf-profile: hardware events are not supported here; sampling $event"
fi
# bench runs the generator on CPU 0; the DUT's NAPI is there too (inline)
# or on CPU 1 (split).
cpu=0
case " $* " in *" split "*|*"--cpu-mode=split"*) cpu=1 ;; esac

perf record -q -e "$event" -g -C "$cpu" -o "$out/perf.data" -- \
	"$HC" bench --hooks "$row" --no-bare --json "$out/bench.json" "$@" \
	>"$out/bench.txt" 2>&1 || { cat "$out/bench.txt" >&2; exit 1; }
perf report -i "$out/perf.data" --no-children --stdio --sort symbol \
	>"$out/report.txt" 2>/dev/null
grep -E '^ *[0-9.]+%' "$out/report.txt" | head -n "${TOP:-25}"
echo "perf-profile: $event samples on CPU $cpu for bench row $row; all in $out"
