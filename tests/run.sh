#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs every test, or the named suites (the first word of run's NAME, and
# valgrind), or tests of a suite by name: netns:cgroup runs test_cgroup,
# which tests/netns.sh has from tests/hooks/cgroup.sh, a hook's own file
# (the suites that run tests/lib.sh's run_tests: netns, bench, bench-dev),
# or a suite but some of its tests: bench:-runs. Each prints PASS/FAIL/SKIP
# lines, its checks, counted here into the one summary line; its tests are
# its "# test NAME" functions (a suite without them is one). Exits
# non-zero if anything failed.
cd "$(dirname "$0")/.." || exit 1

# What only a plain build can test, or the sanitizers add nothing to:
# valgrind, which cannot run beside ASan; mutate, which tests the tests
# (under ASan its mutants took 274 s in CI, plain 186); and the suites
# that time what they run: under ASan, bench's, bench --dev's and the
# demo's windows would time its userspace too (the AF_XDP consumer, the
# generator's threads, the stage's AF_PACKET sender) and load the
# machine as no user's bench does. Of bench, the tests that are the only
# short runs of their code (--runs, env, --max-time, --variant) are the
# sanitizers' instead. `tests/run.sh plain` (make check SUITES=plain)
# runs this alone; under SANITIZE=1 (make check SANITIZE=1) a run that
# names no suite runs everything else. CI runs both: every test once
# (.ci/run).
PLAIN="valgrind mutate bench:-runs bench:-env bench:-target bench:-variant bench-dev demo"
# shellcheck disable=SC2086
[ "$*" = plain ] && set -- $PLAIN
SUITES=" "
LEFT=" " # suites left out of a run that names none
declare -A PICK # suite: its tests named, for run_tests
for a in "$@"; do
	s=${a%%:*}
	SUITES="$SUITES$s "
	[ "$a" = "$s" ] || PICK[$s]="${PICK[$s]} ${a#*:}"
done
if [ "$SUITES" = " " ] && [ "${SANITIZE:-}" = 1 ]; then
	for a in $PLAIN; do
		s=${a%%:*}
		if [ "$a" = "$s" ]; then
			LEFT="$LEFT$s "
		else
			PICK[$s]="${PICK[$s]} ${a#*:-}"
		fi
	done
fi

# want SUITE: true when it was named, or none was (and the run does not
# leave it out).
want() { { [ "$SUITES" = " " ] && [[ $LEFT != *" $1 "* ]]; } || [[ $SUITES == *" $1 "* ]]; }
# named SUITE: true when it was named: suites that make check leaves out.
named() { [[ $SUITES == *" $1 "* ]]; }

. tests/sandbox.sh
if [ "$LEFT" != " " ]; then
	# shellcheck disable=SC2086
	said=$(printf ' %s,' $LEFT; for s in "${!PICK[@]}"; do printf ' %s but%s,' "$s" "${PICK[$s]}"; done)
	echo "# under the sanitizers: left to a plain build (tests/run.sh plain):${said%,}"
fi

pass=0 failed=0 skipped=0 tests=0
TIMES=() T0=$SECONDS STAMP=$(mktemp) out='' churn='' churn_pid=''
# However this script ends (killed, or a reader gone: SIGPIPE), its files
# and the other BPF user (below) go with it.
trap '[ -z "$churn_pid" ] || kill -TERM $churn_pid 2>/dev/null; rm -f "$STAMP" "$out" "$churn"' EXIT

# run NAME COMMAND...: a command that dies without saying FAIL still fails.
run() {
	local name=$1 line rc out n=0
	shift
	want "${name%% *}" || return 0
	local t0=$SECONDS
	out=$(mktemp)
	# shellcheck disable=SC2086
	"$@" ${PICK[$name]} >"$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		echo "$line"
		case $line in
		PASS*) pass=$((pass + 1)) ;;
		FAIL*) failed=$((failed + 1)) ;;
		SKIP*) skipped=$((skipped + 1)) ;;
		"# test "*) n=$((n + 1)) ;;
		esac
	done <"$out"
	tests=$((tests + (n ? n : 1)))
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out"; then
		echo "FAIL $name exited with status $rc"
		failed=$((failed + 1))
	fi
	# Where CI's time goes: here, and again at the end.
	echo "# $name: $((SECONDS - t0)) s"
	TIMES+=("$name $((SECONDS - t0))")
	rm -f "$out"
}

# Live XDP frames (BPF_PROG_RUN): a kernel or a sandbox may refuse them
# (EPERM, seen on a VM whose root lacks CAP_SYS_RESOURCE). The tests that
# need them then skip, saying so (tests/lib.sh's need_live).
# Only that refusal skips: gen failing for any other reason fails tests.
HC_NO_LIVE=
if [ "$(id -u)" -eq 0 ] && [ -x ./hookcmp ]; then
	HC_NO_LIVE=$(./hookcmp gen lo --method live -c 1 2>&1 >/dev/null |
		grep -m 1 "live XDP frames .* not usable here")
fi
if [ -n "$HC_NO_LIVE" ]; then
	export HC_NO_LIVE
	echo "# live XDP frames refused here: $HC_NO_LIVE"
else
	unset HC_NO_LIVE
fi
run unit build/test_unit
run bench-unit build/test_bench
# The folders' layers and bench/'s files, from the objects: no circle.
run layers sh -c 'scripts/layers.py --selftest && scripts/layers.py build'
# Mutations of the statistics that build/test_bench must catch.
run mutate tests/mutate.sh
# A sanitizer report fails the run it happens in.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# Under ASan valgrind cannot run; otherwise the unit tests must be clean.
if ! want valgrind || [ "${SANITIZE:-}" = 1 ]; then
	:
elif command -v valgrind >/dev/null; then
	if valgrind -q --error-exitcode=99 --leak-check=full build/test_unit >/dev/null 2>"${TMPDIR:-/tmp}/hc-vg.$$"; then
		echo "PASS valgrind memcheck: unit tests clean"
		pass=$((pass + 1))
	else
		echo "FAIL valgrind memcheck: unit tests"
		sed 's/^/  /' "${TMPDIR:-/tmp}/hc-vg.$$" | head -30
		failed=$((failed + 1))
	fi
	rm -f "${TMPDIR:-/tmp}/hc-vg.$$"
else
	echo "SKIP valgrind memcheck: valgrind is not installed"
	skipped=$((skipped + 1))
fi
run cli tests/cli.sh
run tools tests/tools.sh
run redirect tests/redirect.sh
for t in rules classify netlink journal; do
	run "fuzz regressions ($t)" sh -c \
		"build/replay_$t tests/fuzz/regress/$t/* && echo 'PASS fuzz regressions ($t) replay cleanly'"
done
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP prog-run and netns tests: they need root (CI runs them as root)"
	skipped=$((skipped + 1))
else
	run prog-run build/test_progrun
fi
# The netns suite runs while another process on the host loads and
# unloads BPF objects with hookcmp's names: the snapshots must not
# mistake them for ours.
if [ "$(id -u)" -eq 0 ] && { want netns || want sets || want safety || want bench || want xsk || want bench-dev || want demo || named bench-dev-short; }; then
	churn=$(mktemp)
	nsenter --mount=/proc/$$/fd/8 --net=/proc/$$/fd/9 "$PWD/build/bpf-churn" >"$churn" &
	churn_pid=$!
	# netns under the mounts of a Debian host (a bpffs with a pin, cgroup
	# v1 beside cgroup2), the others under the plain ones
	# (tests/sandbox.sh): hookcmp and the tools it is tested against
	# must work with both.
	run netns in_mounts host tests/netns.sh
	run sets tests/sets.sh
	run safety tests/safety.sh
	run bench tests/bench.sh
	run xsk tests/xsk.sh
	run bench-dev tests/bench_dev.sh
	run demo tests/demo.sh
	# What scripts/vm-check.sh runs of it under an emulated CPU, where the
	# other tests take over half an hour.
	named bench-dev-short && run bench-dev-short tests/bench_dev.sh \
		test_bad_input test_external test_run_per_cpu test_tune
	kill -TERM "$churn_pid"
	wait "$churn_pid"
	churn_pid=
	if [ "$(cat "$churn")" -gt 0 ] 2>/dev/null; then
		echo "PASS netns suite ran beside another BPF user ($(cat "$churn") programs and maps loaded and unloaded)"
		pass=$((pass + 1))
	else
		echo "FAIL netns suite: the other BPF user did not run"
		failed=$((failed + 1))
	fi
fi

named vm && run vm tests/vm.sh

# A selection that matched nothing is no pass.
if [ $((pass + failed)) -eq 0 ]; then
	echo "FAIL tests/run.sh: no test ran (suites:$SUITES)"
	failed=1
fi
# The budget, at a glance (doc/kernels.md: CI's time).
printf '# suite times:'
printf ' %s s,' "${TIMES[@]}" | sed 's/,$//'
echo
echo "# total: $((SECONDS - T0)) s"
echo "# $tests tests, $((pass + failed + skipped)) checks"
[ -d build/test-failures ] && find build/test-failures -mindepth 1 -maxdepth 1 -newer "$STAMP" |
	sed 's/^/# kept for a failure: /'
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
