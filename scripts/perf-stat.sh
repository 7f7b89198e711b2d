#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf stat on the DUT's CPU during each hook's bench row, per packet:
# task-clock ns always; cycles, instructions and LLC loads where the
# machine has hardware counters.
#   scripts/perf-stat.sh [ROW...]            default: every BPF hook row
#   PACKETS=N scripts/perf-stat.sh ...       packets per row (default 2000000)
# Writes results/perf-stat-TIME.json beside each row's bench JSON.
set -eu
cd "$(dirname "$0")/.."
HC=${HC:-./hookcmp}
command -v perf >/dev/null || { echo "perf-stat: needs perf (Debian: linux-perf)" >&2; exit 3; }
rows=${*:-xdp-native xdp-generic tc-clsact tc-ingress tcx socket-udp socket-packet}
packets=${PACKETS:-2000000}
out=${RESULTS:-results}/perf-stat-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

events=task-clock
for e in cycles instructions LLC-loads; do
	perf stat -e "$e" true 2>&1 | grep -q "not supported" || events="$events,$e"
done
[ "$events" = task-clock ] &&
	echo "perf-stat: no hardware counters here; task-clock only"

printf '%-16s %12s %12s %12s %12s\n' row task-ns/pkt cycles/pkt instr/pkt LLC-loads/pkt
echo "[" >"$out/perf-stat.json"
sep=
for row in $rows; do
	perf stat -x, -e "$events" -C 0 -o "$out/$row.stat" -- \
		"$HC" bench --hooks "$row" --no-bare --reps 1 --packets "$packets" \
		--json "$out/$row.json" >"$out/$row.txt" 2>&1 ||
		{ cat "$out/$row.txt" >&2; exit 1; }
	# Every frame the run sent: the row's and the generator-alone pass.
	n=$(jq '([.rows[].reps[].generated] | add) + .env.packets_per_rep' "$out/$row.json")
	line=$(awk -F, -v n="$n" '
		$3 == "task-clock" { t = $1 * 1e6 / n }	# msec -> ns
		$3 == "cycles" && $1 ~ /^[0-9.]+$/ { c = $1 / n }
		$3 == "instructions" && $1 ~ /^[0-9.]+$/ { i = $1 / n }
		$3 == "LLC-loads" && $1 ~ /^[0-9.]+$/ { l = $1 / n }
		function f(v) { return v == "" ? "null" : sprintf("%.2f", v) }
		END { print f(t), f(c), f(i), f(l) }' "$out/$row.stat")
	set -- $line
	printf '%-16s %12s %12s %12s %12s\n' "$row" "$1" "$2" "$3" "$4"
	printf '%s{"row":"%s","packets":%s,"task_ns_per_pkt":%s,"cycles_per_pkt":%s,"instructions_per_pkt":%s,"llc_loads_per_pkt":%s,"bench":"%s"}\n' \
		"$sep" "$row" "$n" "$1" "$2" "$3" "$4" "$row.json" >>"$out/perf-stat.json"
	sep=,
done
echo "]" >>"$out/perf-stat.json"
echo "perf-stat: per packet of each row's whole bench run (its frames and the generator-alone pass); JSON in $out/perf-stat.json"
