#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where a hook spends its time: perf samples the DUT's CPU with call
# graphs, only inside the timed windows of one bench row (bench drives
# perf's control channel: enabled as the window opens, disabled as it
# closes), then prints the top symbols the way the kernel developers read
# them (perf report --no-children).
#   scripts/perf-profile.sh ROW [bench options]     e.g. xdp-native --rounds 3
# Results: results/perf-ROW-TIME/{perf.data,report.txt,bench.json,bench.txt}
set -eu
row=${1:?usage: perf-profile.sh ROW [hookcmp bench options]}
shift
cd "$(dirname "$0")/.."
HC=${HC:-./hookcmp}
command -v perf >/dev/null || { echo "perf-profile: needs perf (Debian: linux-perf)" >&2; exit 3; }
out=${RESULTS:-results}/perf-$row-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
mkfifo "$out/ctl" "$out/ack"
trap 'rm -f "$out/ctl" "$out/ack"' EXIT

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

# perf samples the whole CPU inside the windows: whatever else ran there
# (another process, the idle loop) is sampled too, and left out below. A
# shell that execs bench says its pid first.
perf record -q -D -1 --control "fifo:$out/ctl,$out/ack" -e "$event" -g -C "$cpu" \
	-o "$out/perf.data" -- \
	sh -c 'echo $$ >"$0"; exec "$@"' "$out/bench.pid" \
	"$HC" bench --hooks "$row" --no-bare --perf-ctl "$out/ctl,$out/ack" \
	--perf-row "$row" -o "$out/bench.json" "$@" \
	>"$out/bench.txt" 2>&1 || { cat "$out/bench.txt" >&2; exit 1; }
# bench's own work: its threads, ksoftirqd of the CPU (softirqs it
# defers), the NAPI kthreads of its devices (napi/hc...): the tasks whose
# time bench's own clock counts.
pid=$(cat "$out/bench.pid")
perf script -i "$out/perf.data" -F pid,tid,comm 2>/dev/null |
	awk -v pid="$pid" -v cpu="$cpu" '{ split($NF, t, "/"); comm = $1
		for (i = 2; i < NF; i++) comm = comm " " $i
		own = t[1] == pid || comm == "ksoftirqd/" cpu || comm ~ /^napi\/hc/
		n[own]++; if (own) tids[t[2]] = 1 }
		END { for (k in tids) list = list (list == "" ? "" : ",") k
		      print n[1] + 0, n[0] + 0, list }' >"$out/own"
read -r own others tids <"$out/own"
[ "$own" -gt 0 ] || { echo "perf-profile: no sample of bench's own threads on CPU $cpu" >&2; exit 1; }
perf report -i "$out/perf.data" --tid="$tids" --no-children --stdio --sort symbol \
	>"$out/report.txt" 2>/dev/null
grep -E '^ *[0-9.]+%' "$out/report.txt" | head -n "${TOP:-25}"
rounds=$(jq --arg r "$row" '[.rows[] | select(.name == $r) | .rounds[]] | length' "$out/bench.json")
windows=$(jq --arg r "$row" '[.rows[] | select(.name == $r) | .rounds[].windows[]] | length' "$out/bench.json")
packets=$(jq --arg r "$row" '[.rows[] | select(.name == $r) | .rounds[].generated] | add' "$out/bench.json")
echo "perf-profile: $((own + others)) $event samples on CPU $cpu inside $windows timed windows ($rounds rounds) of $row ($packets packets): $own of bench's threads and kthreads, in the report; $others ($(awk -v o="$others" -v a="$((own + others))" 'BEGIN { printf "%.1f", 100 * o / a }')%) of other tasks, left out; all in $out"
