#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unprivileged command-line checks: help, version, and usage errors, which
# must all come before anything touches the system.
cd "$(dirname "$0")/.." || exit 1
HC=./hookcmp
# The hooks, as the table lists them (the usage line is built from it).
HOOKS=$("$HC" --help 2>&1 | sed -n 's/.*--hook \([a-z|]*\) \[OPTIONS\].*/\1/p' | head -n 1)

t() {	# t NAME WANT_RC WANT_TEXT ARGS...
	local name=$1 want=$2 say=$3 out rc
	shift 3
	out=$("$HC" "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$say" <<<"$out"; then
		echo "PASS cli: $name"
	else
		echo "FAIL cli: $name: exit $rc, wanted $want and '$say'"
		echo "$out" | sed 's/^/  /' | head -5
	fi
}

t "--help" 0 "Usage: hookcmp" --help
t "help lists every option group" 0 "--tc-attach qdisc|tcx" --help
t "help command" 0 "Exit status: 0 ok" help
t "--version" 0 "hookcmp 0." --version
t "version command" 0 "(libbpf v1." version
t "prog-run help: why xsk has no row" 0 "xsk has no row: its cost is the" prog-run --help
out=$("$HC" version 2>&1 >/dev/full)
rc=$?
if [ "$rc" = 1 ] && grep -q "writing the output: No space left on device" <<<"$out"; then
	echo "PASS cli: output that cannot be written: exit 1, and why"
else
	echo "FAIL cli: output that cannot be written: exit $rc, wanted 1 and why"
	echo "$out" | sed 's/^/  /' | head -5
fi
t "missing --hook" 2 "--hook $HOOKS is required" eth0
t "bad --hook" 2 "--hook 'ebpf': expected one of $HOOKS" --hook ebpf eth0
t "no device" 2 "name one device" --hook tc
t "two devices" 2 "unexpected argument 'eth1'" --hook tc eth0 eth1
t "option missing its argument" 2 "option '--prio' needs an argument" --hook tc eth0 --prio
t "prio out of range" 2 "--prio '70000': expected a number from 1 to 65535" --hook tc --prio 70000 eth0
t "too long a device name" 2 "is too long" --hook tc abcdefghijklmnopqrstuvwxyz
t "bad rule" 2 "rule 1 'tcp dport x pass'" --hook tc -r 'tcp dport x pass' eth0
t "65 rules" 2 "at most 64 rules" --hook tc $(for i in $(seq 65); do printf -- "-r drop "; done) eth0
t "json usage error" 2 "{\"type\":\"error\",\"error\":\"--hook $HOOKS is required\",\"exit\":2}" --json eth0

# Global options before the command, as with ip, tc and bpftool, and after
# it too: the command's own table takes them (the unknown option is then
# what it complains about, in JSON).
bogus='{"type":"error","error":"unknown option '"'"'--bogus'"'"'","exit":2}'
for c in run gen bench prog-run status cleanup; do
	t "global -n -j before $c" 2 "$bogus" -n x -j "$c" --bogus
	t "global --netns=x --json before $c" 2 "$bogus" --netns=x --json "$c" --bogus
	t "-n -j after $c" 2 "$bogus" "$c" -n x -j --bogus
done
t "global options without a command: run" 2 "\"error\":\"--hook $HOOKS is required\"" -n x -j

# No option takes an empty value, no list an empty item: a slip (an
# unset variable, a stray comma) is refused, not read as something else.
t "empty --journal: run" 2 "--journal '': expected DIR, found an empty string" --journal '' --hook tc eth0
t "empty --journal: status" 2 "--journal '': expected DIR, found an empty string" status --journal ''
t "empty --gen-cmd" 2 "--gen-cmd '': expected CMD, found an empty string" bench --dev eth0 --gen-cmd ''
t "empty --rules-file" 2 "--rules-file '': expected FILE, found an empty string" prog-run --rules-file ''
t "--sizes with an empty item" 2 "--sizes '1,,2': expected a comma-separated list, found item 2 empty" bench --scenario scale --sizes 1,,2
t "--sizes ending in a comma" 2 "--sizes '1,2,': expected a comma-separated list, found item 3 empty" bench --scenario scale --sizes 1,2,
t "--hooks starting with a comma" 2 "--hooks ',xdp': expected a comma-separated list, found item 1 empty" bench --hooks ,xdp
t "--tune with an empty item" 2 "--tune 'gro=on,,threaded=off': expected a comma-separated list, found item 2 empty" bench --tune gro=on,,threaded=off
t "compare --rows with an empty item" 2 "--rows 'a,,b': expected a comma-separated list, found item 2 empty" bench compare --rows a,,b x y

# One strict parser for every number: decimal only (0x where documented),
# no sign, no space; the message names the option and its range.
t "prio with a leading space and a sign" 2 "--prio ' -18446744073709551614': expected a number from 1 to 65535 (decimal)" \
	--hook tc --prio " -18446744073709551614" eth0
t "prio 08 is decimal, in range" 2 "no device 'hcnodev0'" --hook tc --prio 08 hcnodev0
t "port 010 is ten, not eight" 2 "--port '010x'" --hook socket --port 010x eth0
t "handle takes 0x" 2 "no device 'hcnodev0'" --hook tc --handle 0x10 hcnodev0
t "handle's message says 0x" 2 "(decimal, or 0x hex)" --hook tc --handle 1x eth0
t "prio does not take 0x" 2 "--prio '0x10'" --hook tc --prio 0x10 eth0
t "seconds: no exponent" 2 "--duration '1e9': expected seconds over 0 to 10000000" --hook tc -d 1e9 eth0
t "--duration 0 is not forever" 2 "--duration '0': expected seconds over 0" --hook tc -d 0 eth0
t "gen --duration 0" 2 "--duration '0': expected seconds over 0" gen -d 0 eth0
t "seconds: no inf" 2 "--interval 'inf': expected seconds" --hook tc -i inf eth0
t "MAC: no spaces" 2 "not a MAC address" --hook xdp -a redirect --redirect x --redirect-dmac " 2:0:0:0:0:1" eth0
long=$(printf 'n%.0s' $(seq 249))
t "a netns name is never cut short" 2 "network namespace '$long': No such file" -n "$long" --hook tc eth0
long=$(printf 'n%.0s' $(seq 256))
t "a netns name over the kernel's limit" 2 "network namespace name of 256 characters: the limit is 255" -n "$long" --hook tc eth0
t "a netns name that is a path" 2 "bad network namespace name '..'" -n .. --hook tc eth0

# Options that do not apply are refused, naming where they belong (from the
# table's scopes, which --help shows too); none is given twice.
t "--bare with a rule" 2 "--rule goes with a program that classifies (no --bare), not --hook xdp --bare" --hook xdp --bare -r 'udp pass' eth0
t "--qdisc with xdp" 2 "--qdisc goes with --hook tc --tc-attach qdisc, not --hook xdp" --hook xdp --qdisc ingress eth0
t "--xdp-mode with tc" 2 "--xdp-mode goes with --hook xdp or --hook xsk, not --hook tc" --hook tc --xdp-mode generic eth0
t "--prio with tcx" 2 "--prio goes with --hook tc --tc-attach qdisc, not --hook tc --tc-attach tcx" --hook tc --tc-attach tcx --prio 5 eth0
t "--qdisc with tcx" 2 "--qdisc goes with --hook tc --tc-attach qdisc, not --hook tc --tc-attach tcx" --hook tc --tc-attach tcx --qdisc ingress eth0
t "--busy-poll with xdp" 2 "--busy-poll goes with --hook xsk, not --hook xdp" --hook xdp --busy-poll eth0
t "--queue with socket" 2 "--queue goes with --hook xsk, not --hook socket" --hook socket --queue 3 eth0
t "--port with packet" 2 "--port goes with --hook socket --socket udp or --hook cgroup, not --hook socket --socket packet" --hook socket --socket packet --port 5 eth0
t "--hook twice" 2 "--hook given twice" --hook xdp --hook tc eth0
# --per-cpu reads the per-CPU map: not xsk's counters (its sockets'),
# nor a bare program's (none), nor a run without intervals.
t "--per-cpu with xsk" 2 "--per-cpu goes with a program that counts per CPU (no --bare, nor a hook counting elsewhere), not --hook xsk" --hook xsk --per-cpu eth0
t "--per-cpu with --bare" 2 "--per-cpu goes with a program that counts per CPU (no --bare, nor a hook counting elsewhere), not --hook tc --bare" --hook tc --bare --per-cpu eth0
t "--per-cpu with -i 0" 2 "--per-cpu is each interval's rate per CPU: not with --interval 0" --hook xdp -i 0 --per-cpu eth0
for h in ${HOOKS//|/ }; do
	[ "$h" = xsk ] && continue
	out=$("$HC" --hook "$h" --per-cpu hc-no-such-dev 2>&1)
	if grep -q -- "--per-cpu" <<<"$out"; then
		echo "FAIL cli: --per-cpu with --hook $h: refused, but it counts per CPU"
		echo "$out" | sed 's/^/  /' | head -5
	else
		echo "PASS cli: --per-cpu with --hook $h: accepted"
	fi
done
t "--max-rounds without --target-ci" 2 "--max-rounds goes with --target-ci, not a fixed number of --rounds" bench --max-rounds 3
t "help shows where an option goes" 0 "[--hook xsk]" --help

# A typo of a command is said to be one, with the command it meant.
t "unknown command" 2 "unknown command 'staus'; did you mean 'status'?" staus
t "unknown command, swapped letters" 2 "unknown command 'bnech'; did you mean 'bench'?" bnech --rounds 1
t "a device, not a command" 2 "--hook $HOOKS is required" eth0
t "--interval has a floor" 2 "--interval 0.001: at least 0.01 s, or 0 for the summary only" --hook xdp -i 0.001 eth0

# The exit codes: hookcmp --help, doc/hookcmp.md's table and the man
# page's EXIT STATUS name the same ones (hookcmp.h's enum, and 128+N).
codes() { tr ';,' '\n\n' | sed -n 's/^ *\([0-9]\{1,3\}\(+N\)\{0,1\}\)\( .*\)\{0,1\}$/\1/p' | sort -u | tr '\n' ' '; }
want=$("$HC" --help | sed -n '/^Exit status:/,$p' | sed 's/^Exit status://' | tr '\n' ' ' | codes)
for f in doc/hookcmp.md doc/hookcmp.8.rst; do
	if [ "$f" = doc/hookcmp.md ]; then
		got=$(sed -n '/^## Exit status/,/^Numbers are/p' "$f" | sed -n 's/^| \([0-9+N]*\) |.*/\1/p' | codes)
	else
		got=$(sed -n '/^EXIT STATUS/,/^FILES/p' "$f" | sed '1,2d' | tr '\n' ' ' | sed 's/\\ //g; s/\*//g' | codes)
	fi
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		echo "PASS cli: $f names the exit codes hookcmp --help does"
	else
		echo "FAIL cli: $f names the exit codes hookcmp --help does"
		echo "  --help: $want"
		echo "  $f: $got"
	fi
done

# bench's scenarios as its --help lists them (from the table): the
# README's usage line and the synopses of doc/hookcmp.md and the man page
# list the same, in the same order, so that a new one cannot be left out.
scen=$("$HC" bench --help | sed -n 's/^ *--scenario \([a-z|-]*\)$/\1/p')
for f in README.md doc/hookcmp.md doc/hookcmp.8.rst; do
	got=$(sed -n -e 's/.*hookcmp bench \[--scenario \([a-z|-]*\)\].*/\1/p' \
		-e 's/^\*\*--scenario\*\* \(.*\)$/\1/p' "$f" | head -n 1 | sed 's/\\|\\ /|/g; s/\*//g')
	if [ -n "$scen" ] && [ "$got" = "$scen" ]; then
		echo "PASS cli: $f lists bench's scenarios as bench --help does"
	else
		echo "FAIL cli: $f lists bench's scenarios as bench --help does"
		echo "  expected: $scen"
		echo "  got:      $got"
	fi
done

# JSON as bpftool has it: -j for every command, -p pretty; --parse has no -p.
t "-j version" 0 '{"type":"version","version":"' -j version
t "-p version pretty-prints" 0 '  "type": "version",' -p version
t "-p before the command" 0 '  "type": "version",' -p version
t "-p is not --parse" 2 "  \"error\": \"--hook $HOOKS is required\"," -p eth0
t "--parse takes no -p" 0 "--parse none|l2|l3|l4" --help

# bench compare on documents written here: rows base (its own baseline), a
# and b (against base), gen-only; 12 rounds, +-1% of deterministic noise.
# doc FILE SCENARIO FRAME A_SCALE SHIFT SEED
CT=$(mktemp -d)
trap 'rm -rf "$CT"' EXIT
doc() {
	awk -v scen="$2" -v frame="$3" -v as="$4" -v shift="$5" -v seed="$6" 'BEGIN {
		srand(seed)
		split("base a b gen-only", name, " "); split("100 200 300 50", cost, " ")
		printf "{\"type\":\"bench\",\"scenario\":\"%s\",\"topology\":\"veth\",\"cpu_mode\":\"inline\",\"rounds\":12,\"env\":{\"kernel\":\"test\"},\"rows\":[", scen
		for (i = 1; i <= 4; i++) {
			printf "%s{\"name\":\"%s\",\"status\":\"valid\",\"reason\":null,\"frame_bytes\":%d,\"baseline\":%s,\"rounds\":[",
				(i > 1 ? "," : ""), name[i], frame, (i < 4 ? "\"base\"" : "null")
			for (k = 1; k <= 12; k++)
				printf "%s{\"round\":%d,\"ns\":%.4f}", (k > 1 ? "," : ""), k,
					cost[i] * shift * (i == 2 ? as : 1) * (1 + (rand() - 0.5) / 50)
			printf "]}"
		}
		print "]}" }' >"$1"
}
for i in 1 2 3; do
	doc "$CT/old$i.json" hooks 60 1 1 $i
	doc "$CT/slow$i.json" hooks 60 1.05 1 $((i + 10))
	doc "$CT/shift$i.json" hooks 60 1 1.2 $((i + 20))
done
cp "$CT/old1.json" "$CT/old.json"
doc "$CT/rules.json" rules 60 1 1 4
doc "$CT/big.json" hooks 1500 1 1 5
OLD="$CT/old1.json $CT/old2.json $CT/old3.json"
t "bench compare: one run a side: no verdict, and why" 0 "one run a side: the run-to-run variance is unknown" \
	bench compare "$CT/old1.json" "$CT/slow1.json"
# shellcheck disable=SC2086
t "bench compare: three runs a side, a 5% slower row, --threshold 2" 1 "threshold 2%: 1 row slower past it" \
	bench compare --threshold 2 $OLD -- "$CT/slow1.json" "$CT/slow2.json" "$CT/slow3.json"
# shellcheck disable=SC2086
t "bench compare: options after --" 0 "threshold 10%: 0 rows slower past it" \
	bench compare $OLD -- "$CT/slow1.json" "$CT/slow2.json" "$CT/slow3.json" --threshold 10
# shellcheck disable=SC2086
t "bench compare: a shift of the machine fails no threshold" 0 "threshold 2%: 0 rows" \
	bench compare --threshold 2 $OLD -- "$CT/shift1.json" "$CT/shift2.json" "$CT/shift3.json"
# Every column of the table has a header over it, the last (why) too.
out=$("$HC" bench compare "$CT/old1.json" "$CT/slow1.json" 2>&1)
head=$(grep -m1 '^row ' <<<"$out")
row=$(grep -m1 '^a ' <<<"$out")
at=$(awk -v s="$row" 'BEGIN { print index(s, "one run a side") }')
if [ "$at" -gt 1 ] && [ "${head:$((at - 1))}" = why ]; then
	echo "PASS cli: bench compare: the why column has its header"
else
	echo "FAIL cli: bench compare: the why column (at $at) has no header 'why':"
	printf '  %s\n' "$head" "$row"
fi
t "bench compare: another scenario refused" 2 "OLD's scenario is hooks, NEW's is rules; --allow-mismatch compares them anyway" \
	bench compare "$CT/old.json" "$CT/rules.json"
t "bench compare: another scenario among NEW's runs refused" 2 "OLD run 1's scenario is hooks, NEW run 2's is rules" \
	bench compare "$CT/old1.json" "$CT/old2.json" -- "$CT/old3.json" "$CT/rules.json"
t "bench compare: another frame size refused" 2 "row base: OLD's frames are 60 bytes, NEW's 1500" \
	bench compare "$CT/old.json" "$CT/big.json"
t "bench compare: --allow-mismatch" 0 "Warning: the runs differ (--allow-mismatch): OLD's scenario is hooks" \
	bench compare --allow-mismatch "$CT/old.json" "$CT/rules.json"
t "bench compare: a file that is not there" 2 "bench compare: $CT/none.json: No such file or directory" \
	bench compare "$CT/old.json" "$CT/none.json"
echo '{"type":"bench","rows":[' >"$CT/cut.json"
t "bench compare: not JSON" 2 "bench compare: $CT/cut.json: not JSON: byte 25: " \
	bench compare "$CT/cut.json" "$CT/old.json"
echo '{"type":"run"}' >"$CT/run.json"
t "bench compare: a document of another command" 2 "OLD is not a bench document" \
	bench compare "$CT/run.json" "$CT/old.json"
t "bench compare: one file" 2 "needs OLD.json NEW.json, or OLD.json... -- NEW.json..." bench compare "$CT/old.json"
t "bench compare: three files without --" 2 "needs OLD.json NEW.json, or OLD.json... -- NEW.json..." \
	bench compare "$CT/old1.json" "$CT/old2.json" "$CT/old3.json"
t "bench compare: nothing after --" 2 "needs OLD.json NEW.json" bench compare "$CT/old1.json" --
t "bench compare: JSON errors" 2 '{"type":"error","error":"bench compare: OLD' -j bench compare "$CT/run.json" "$CT/old.json"
t "bench compare --help" 0 "Usage: hookcmp bench compare" bench compare --help
t "bench compare: --calibration of another kind" 2 "--calibration $CT/old.json: not a document of bench calibrate" \
	bench compare --calibration "$CT/old.json" "$CT/old1.json" "$CT/slow1.json"
# shellcheck disable=SC2086
"$HC" bench calibrate -j $OLD >"$CT/cal.json" 2>"$CT/cal.err"
t "bench calibrate: one run" 2 "needs two or more runs of one kernel, 1 given" bench calibrate "$CT/old1.json"
t "bench calibrate: runs of two scenarios" 2 "RUN run 1's scenario is hooks, RUN run 2's is rules" \
	bench calibrate "$CT/old1.json" "$CT/rules.json"
t "bench --runs with --csv" 2 "--runs writes one JSON document (-o); --csv goes with a single run" \
	bench --runs 2 --csv "$CT/x.csv"
t "bench --runs 1" 2 "--runs '1': expected a number from 2 to 64" bench --runs 1
t "bench calibrate --help" 0 "Usage: hookcmp bench calibrate" bench calibrate --help
t "bench compare --calibration: one run a side judged" 1 "threshold 2%: 1 row slower past it" \
	bench compare --threshold 2 --calibration "$CT/cal.json" "$CT/old1.json" "$CT/slow1.json"
jq '.rows |= map(select(.name != "a"))' "$CT/cal.json" >"$CT/cal-a.json"
t "bench compare --calibration without a row: says so" 0 "--calibration has no between-run variance of this row" \
	bench compare --calibration "$CT/cal-a.json" "$CT/old1.json" "$CT/slow1.json"
jqt() {	# jqt NAME FILTER FILE
	if jq -e "$2" "$3" >/dev/null 2>&1; then echo "PASS cli: $1"; else
		echo "FAIL cli: $1: $2"; head -c 600 "$3" | sed 's/^/  /'; fi
}
# shellcheck disable=SC2086
"$HC" bench compare -j $OLD -- "$CT/slow1.json" "$CT/slow2.json" "$CT/slow3.json" >"$CT/c.json" 2>/dev/null
jqt "bench compare -j: the contract" '.type == "compare" and (.old.files | length) == 3 and .new.runs == 3 and
	.new.scenario == "hooks" and .correction == "holm" and .margin_pct == 1 and
	(.rows | length) == 4 and all(.rows[]; (.name | type) == "string" and (.old_ns | type) == "number" and
	(.new_ns | type) == "number" and (.change.ci | length) == 2 and .runs_old == 3 and .runs_new == 3 and
	.interval_from == "runs" and (.p_holm | type) == "number" and (.p_holm >= .p) and
	(.verdict | IN("same", "slower", "faster", "inconclusive", "no verdict", "n/a", "invalid", "old only", "new only")) and
	(.verdict_from | IN("baseline", "raw")) and (.mde_pct | type) == "number")' "$CT/c.json"
jqt "bench compare -j: the slower row slower, against its baseline" \
	'(.rows[] | select(.name == "a") | .verdict == "slower" and .verdict_from == "baseline" and
	  .change_vs_baseline.ci[0] > 1.02) and (.rows[] | select(.name == "b") | .verdict == "same")' "$CT/c.json"
# shellcheck disable=SC2086
"$HC" bench compare -j $OLD -- "$CT/shift1.json" "$CT/shift2.json" "$CT/shift3.json" >"$CT/c.json" 2>/dev/null
jqt "bench compare -j: a shift: changes, the same against the baseline" \
	'all(.rows[] | select(.name == "a" or .name == "b"); .change.ci[0] > 1.15 and .verdict == "same")' "$CT/c.json"
# shellcheck disable=SC2086
"$HC" bench compare -j $OLD -- $OLD >"$CT/c.json" 2>/dev/null
jqt "bench compare -j: runs against themselves: every row same" 'all(.rows[]; .verdict == "same")' "$CT/c.json"
jq '.env.settings = {"bpf_stats_enabled": "1"} | .env.outside = ["generic XDP on veth3 (netns '"'x'"')"]' \
	"$CT/old1.json" >"$CT/envdiff.json"
t "bench compare: how the machines differ, first" 6 "NEW: bpf_stats_enabled (none) -> 1" \
	bench compare "$CT/old1.json" "$CT/envdiff.json"
t "bench compare: a list's new member" 6 "NEW: outside: new: generic XDP on veth3 (netns 'x')" \
	bench compare "$CT/old1.json" "$CT/envdiff.json"
t "bench compare: OLD's second run against its first" 6 "OLD run 2: outside: gone: generic XDP on veth3" \
	bench compare "$CT/envdiff.json" "$CT/old1.json" -- "$CT/old2.json"
t "bench compare: a state that moves rows: its rows confounded, naming it" 6 "confounded      -      -         - NEW: bpf_stats_enabled (none) -> 1 (and more: the machine's differences)" \
	bench compare "$CT/old1.json" "$CT/envdiff.json"
jq '.plan = {"windows": 20, "visits": 2, "rows": ["a", "b"], "window_packets": {"base": 5000, "a": 4000}}' \
	"$CT/old1.json" >"$CT/plan1.json"
jq '.plan = {"windows": 20, "visits": 2, "rows": ["a", "b"], "window_packets": {"base": 5000, "a": 4100}}' \
	"$CT/old2.json" >"$CT/plan2.json"
t "bench compare: unlike plans refused" 2 "the plans differ: row a's windows are 4000 packets in OLD, 4100 in NEW" \
	bench compare "$CT/plan1.json" "$CT/plan2.json"
t "bench compare: unlike plans, --allow-mismatch" 0 "Warning: the runs differ (--allow-mismatch): the plans differ" \
	bench compare --allow-mismatch "$CT/plan1.json" "$CT/plan2.json"
jq '.plan.visits = 4' "$CT/plan1.json" >"$CT/plan3.json"
t "bench compare: unlike visits refused" 2 "the plans differ: OLD's visits are 2, NEW's 4" \
	bench compare "$CT/plan1.json" "$CT/plan3.json"
jqt "bench calibrate -j: every row, its between-run variance" '.type == "calibration" and .runs == 3 and .df == 2 and
	(.rows | length) == 4 and all(.rows[]; (.raw.tau2 | type) == "number" and .runs == 3) and
	(.rows[] | select(.name == "a") | (.vs_baseline.tau2 | type) == "number")' "$CT/cal.json"
