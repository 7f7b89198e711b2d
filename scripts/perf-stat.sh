#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf stat of bench's own work, counting only inside each row's timed
# windows (bench drives perf's control channel), per packet: task-clock
# ns always; cycles, instructions and LLC loads where the machine has
# hardware counters. perf counts the bench process and every thread it
# starts (the workload, inherited), nothing else that runs on the CPU;
# bench's own clock (its threads, and the ksoftirqd and NAPI kthreads that
# do its packets' work) is the column beside it. Inline, the generator
# shares bench's thread: the gen-only line is its own share, to subtract.
#   scripts/perf-stat.sh [ROW...]            default: every BPF hook row
#   PACKETS=N ROUNDS=N scripts/perf-stat.sh  per window, and windows per row
# Writes results/perf-stat-TIME/perf-stat.json beside each row's bench JSON.
set -eu
cd "$(dirname "$0")/.."
HC=${HC:-./hookcmp}
command -v perf >/dev/null || { echo "perf-stat: needs perf (Debian: linux-perf)" >&2; exit 3; }
rows=${*:-xdp-native xdp-generic tc-clsact tc-ingress tcx socket-udp socket-packet}
packets=${PACKETS:-1000000}
rounds=${ROUNDS:-3}
out=${RESULTS:-results}/perf-stat-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
mkfifo "$out/ctl" "$out/ack"
trap 'rm -f "$out/ctl" "$out/ack"' EXIT

events=task-clock
for e in cycles instructions LLC-loads; do
	perf stat -e "$e" true 2>&1 | grep -q "not supported" || events="$events,$e"
done
[ "$events" = task-clock ] &&
	echo "perf-stat: no hardware counters here; task-clock only"

printf '%-16s %12s %13s %12s %12s %13s\n' row task-ns/pkt bench-ns/pkt cycles/pkt instr/pkt LLC-loads/pkt
echo "[" >"$out/perf-stat.json"
sep=
# gen-only comes with every hook's rows; xdp-native's run measures it.
for row in $rows gen-only; do
	hooks=$row
	[ "$row" = gen-only ] && hooks=xdp-native
	perf stat -D -1 --control "fifo:$out/ctl,$out/ack" -x, -e "$events" \
		-o "$out/$row.stat" -- \
		"$HC" bench --hooks "$hooks" --no-bare --rounds "$rounds" --packets "$packets" \
		--perf-ctl "$out/ctl,$out/ack" --perf-row "$row" -o "$out/$row.json" \
		>"$out/$row.txt" 2>&1 || { cat "$out/$row.txt" >&2; exit 1; }
	# The frames of the row's measured windows: all perf counted.
	n=$(jq --arg r "$row" '[.rows[] | select(.name == $r) | .rounds[].generated] | add' "$out/$row.json")
	# bench's clock over the windows that stand (scope checks).
	own=$(jq --arg r "$row" '[.rows[] | select(.name == $r) | .rounds[].windows[] | select(.excluded | not)] |
		([.[].cpu_ns] | add) / ([.[].packets] | add) * 100 | round / 100' "$out/$row.json")
	line=$(awk -F, -v n="$n" '
		$3 == "task-clock" { t = $1 * 1e6 / n }	# msec -> ns
		$3 == "cycles" && $1 ~ /^[0-9.]+$/ { c = $1 / n }
		$3 == "instructions" && $1 ~ /^[0-9.]+$/ { i = $1 / n }
		$3 == "LLC-loads" && $1 ~ /^[0-9.]+$/ { l = $1 / n }
		function f(v) { return v == "" ? "null" : sprintf("%.2f", v) }
		END { print f(t), f(c), f(i), f(l) }' "$out/$row.stat")
	set -- $line
	printf '%-16s %12s %13s %12s %12s %13s\n' "$row" "$1" "$own" "$2" "$3" "$4"
	printf '%s{"row":"%s","packets":%s,"task_ns_per_pkt":%s,"bench_ns_per_pkt":%s,"cycles_per_pkt":%s,"instructions_per_pkt":%s,"llc_loads_per_pkt":%s,"bench":"%s"}\n' \
		"$sep" "$row" "$n" "$1" "$own" "$2" "$3" "$4" "$row.json" >>"$out/perf-stat.json"
	sep=,
done
echo "]" >>"$out/perf-stat.json"
echo "perf-stat: per packet of each row's timed windows only ($rounds of $packets packets); task-ns: perf's count of bench's threads; bench-ns: bench's own clock, with its kthreads; JSON in $out/perf-stat.json"
