# SPDX-License-Identifier: GPL-2.0
# Helpers for the netns tests: a fresh namespace pair per test, state
# snapshots, and checks that print one PASS/FAIL line each.
. tests/sandbox.sh

HC=${HC:-./hookcmp}
SEND=${SEND:-./build/hc-send}
T=$(mktemp -d "${TMPDIR:-/tmp}/hookcmp-test.XXXXXX")
G=hct$$g	# generator side
D=hct$$d	# device under test side
DEV=hcd
HCPID=

# Failures keep their evidence: the last document jq_true judged false is
# summed up under the FAIL line (each row's name, validity, reason and
# path), and the test's files are kept under build/test-failures/.
HC_DOC=
HC_FAILED=
KEEP=${KEEP:-$PWD/build/test-failures}
pass() {
	HC_DOC=
	echo "PASS $*"
}
fail() {
	echo "FAIL $*"
	[ -n "$HC_DOC" ] && doc_evidence "$HC_DOC"
	HC_DOC=
	HC_FAILED=1
}

# doc_evidence FILE: what a person reads first in a document a check
# judged: a bench or compare document's rows, one line each (a round as
# ROUND:GENERATED/SEEN/DROPPED_BEFORE/DROPPED_DUT@NS), or its head.
doc_evidence() {
	[ -s "$1" ] || { echo "  evidence: ${1#"$T/"} is missing or empty"; return; }
	echo "  evidence from ${1#"$T/"}:"
	jq -r 'if type == "object" and .type == "compare" then .rows[] |
		"  row \(.name): verdict=\(.verdict) from=\(.verdict_from) old_ns=\(.old_ns)" +
		" new_ns=\(.new_ns) change=\(.change_vs_baseline // .change | tojson) why=\(.why // "-")"
		elif type == "object" and has("rows") then .rows[] |
		"  row \(.name): valid=\(.valid) status=\(.status // "-") reason=\(.reason // "-")" +
		(if .path then " path={checked=\(.path.checked) samples=\(.path.samples)" +
			" prog_runs=\(.path.prog_runs) missing=\(.path.missing | tojson)" +
			" unexpected=\(.path.unexpected | tojson) why=\(.path.why // "-")}"
		 else "" end) +
		" rounds=\([.rounds[]? | "\(.round):\(.generated)/\(.seen)/\(.dropped_before)/\(.dropped_dut)@\(.ns // "-" | if type == "number" then round else . end)"] | join(","))"
		else "  " + (tojson | .[0:600]) end' "$1" 2>/dev/null | head -n 40 ||
		head -c 2000 "$1" | sed 's/^/  /'
}

# keep_failed DIR: after a failure, the test's files (its JSON documents,
# the output and errors of its commands) go to $KEEP/DIR, for CI's log to
# name; after a success, that folder goes.
keep_failed() {
	rm -rf "${KEEP:?}/$1"
	[ -n "$HC_FAILED" ] || return 0
	HC_FAILED=
	mkdir -p "$KEEP/$1" &&
		find "$T" -maxdepth 1 -type f -size -8M -exec cp {} "$KEEP/$1/" \; &&
		echo "# kept for the failure: $KEEP/$1"
}

# check NAME COMMAND...: PASS when COMMAND succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; return 1; fi
}

not() { ! "$@"; }

# plant NAME COMMAND...: someone else's state, set up for a test to judge
# hookcmp against (ip or tc loading a BPF object, a qdisc). When it cannot
# be set up, that is a FAIL of the setup, saying so, and false: the caller
# judges nothing.
plant() {
	local name=$1 out
	shift
	out=$("$@" 2>&1) && return 0
	fail "$name: setup failed (not hookcmp's doing): $*"
	sed 's/^/  /' <<<"$out"
	return 1
}

# How long (in tenths of a second) to wait for something that should come
# soon: long enough for an emulated CPU or a loaded machine, and only a
# failing test waits it out.
WAIT_TICKS=${WAIT_TICKS:-300}

# wait_until COMMAND...: up to WAIT_TICKS for COMMAND to succeed.
wait_until() {
	local i
	for i in $(seq "$WAIT_TICKS"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# wait_for TEXT FILE: up to WAIT_TICKS for TEXT to show up in FILE.
wait_for() { wait_until grep -q "$1" "$2"; }

# grown FN N0 N: the count FN prints is at least N past N0.
grown() { [ $(($("$1") - $2)) -ge "$3" ]; }

# jq_true ARGS... [FILE]: jq -e, quietly; for use with check. When it is
# false, fail() shows the document (FILE, or what came on stdin).
jq_true() {
	local doc=${!#}
	HC_DOC=
	# A path that is not there (a command that wrote nothing) is jq's
	# to refuse, not a cue to read stdin.
	if [[ ! -f $doc && ($doc != */* || $doc == *[[:space:]]*) ]]; then
		doc=$T/stdin.json
		cat >"$doc"
		jq -e "$@" "$doc" >/dev/null && return 0
	else
		jq -e "$@" >/dev/null && return 0
	fi
	HC_DOC=$doc
	return 1
}

# check_eq NAME GOT WANT [FILE...]: true when they are equal; when not,
# both and the tail of each FILE (the errors of the command judged).
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1"
		echo "  expected: $3"
		echo "  got:      $2"
		local f
		for f in "${@:4}"; do
			echo "  ${f#"$T/"}, its end:"
			tail -n 8 "$f" 2>/dev/null | sed 's/^/    /'
		done
		return 1
	fi
}

# Why a bench row can be INVALID, or its path unchecked, for the machine's
# load and not for hookcmp (jq regexes): its hook saw too few of the
# frames (a receiver the machine left behind its sender), frames dropped
# at a busy DUT, too few rounds the host left uncontended for an
# interval; a path check that got too few samples in its 10 s. A
# test that needs such a row valid or checked says so in a SKIP line and
# judges the rest; a row INVALID for any other reason still fails.
LOAD_REASON='the hook saw [0-9]+ of [0-9]+ frames [(][0-9]+ dropped before it(: [^)]+)?[)], under 95%|: [0-9]+ dropped at the DUT [(]|^valid in [0-9]+ of [0-9]+ rounds, fewer than the [0-9]+ an interval needs$'
LOAD_UNCHECKED='^[0-9]+ samples, fewer than [0-9]+$'

# load_skips NAME FILE: a SKIP line for each row of bench document FILE
# that is INVALID, or unchecked, for the machine's load.
load_skips() {
	jq -r --arg load "$LOAD_REASON" --arg few "$LOAD_UNCHECKED" '.rows[] |
		if (.valid | not) and (.reason // "" | test($load)) then "\(.name): \(.reason)"
		elif .valid and .path.checked == false and (.path.why // "" | test($few)) then
			"\(.name): path unchecked, \(.path.why)"
		else empty end' "$2" |
		while IFS= read -r l; do
			echo "SKIP $1: $l (the machine's load, not hookcmp's doing)"
		done
}

# bench_rc RC FILE: bench's exit status RC, 0 where it is 7 because the
# machine's load left every row of bench document FILE (or of each run
# of a bench --runs document) too few valid rounds: hookcmp being right.
bench_rc() {
	if [ "$1" = 7 ] && jq -e --arg load "$LOAD_REASON" '
		[if .type == "bench-runs" then .runs[] else . end | .rows[] |
		 select(.flags | index("generator") | not)] as $r |
		($r | length) > 0 and all($r[]; (.valid | not) and (.reason // "" | test($load)))' \
		"$2" >/dev/null 2>&1; then
		echo "SKIP exit 7 of $2: no row valid for the machine's load, not hookcmp's doing" >&2
		echo 0
	else
		echo "$1"
	fi
}

# 43 frames: what each class must count at parse l4.
MIX="udp4:5 tcp4:4 icmp4:3 arp:2 udp6:6 tcp6:7 icmp6:1 lldp:2 vlan-udp4:3
qinq-tcp6:2 ip4-ihl4:2 udp4-cut:1 ip4-cut:1 ip6-cut:1 frag4-later:1 ext6-udp:2"
MIX_L4="udp4:9:9:0 tcp4:4:4:0 icmp4:3:3:0 udp6:8:8:0 tcp6:9:9:0 icmp6:1:1:0 arp:2:2:0 l2-other:2:2:0 malformed:5:5:0"

send_mix() {
	# shellcheck disable=SC2086
	"$SEND" -n "$G" hcg $MIX 2>/dev/null
	sleep 0.3
}

# topo_up [ARGS]: ARGS go to both ends of the veth (numrxqueues 2 ...).
# Three ip processes in batch mode, not eight: under an emulated CPU
# (make check-vm) each costs 0.1-0.2 s to start, and every test pays it.
topo_up() {
	printf 'netns add %s\nnetns add %s\nlink add hcg netns %s %s type veth peer name %s netns %s %s\n' \
		"$G" "$D" "$G" "$1" "$DEV" "$D" "$1" | ip -b - &&
	# No IPv6 link-local addresses: nothing but our frames on the wire.
	printf 'link set hcg addrgenmode none\nlink set hcg up\n' | ip -n "$G" -b - &&
	printf 'link set %s addrgenmode none\nlink set %s up\nlink set lo up\n' \
		"$DEV" "$DEV" | ip -n "$D" -b -
}

topo_down() {
	[ -n "$HCPID" ] && kill -KILL "$HCPID" 2>/dev/null && wait "$HCPID" 2>/dev/null
	HCPID=
	# -force: the second goes even when the first is gone already.
	printf 'netns del %s\nnetns del %s\n' "$G" "$D" | ip -force -b - 2>/dev/null
	return 0
}

# What hookcmp could have made, and nothing else, so that other tools (or
# another hookcmp) loading BPF on the host cannot make the suite flaky:
# the BPF programs, maps and links that processes of this sandbox hold,
# what is attached in the sandbox's namespaces (bpftool net), the DUT's
# qdiscs and filters, the namespaces, the journal and hookcmp's pins (the
# only other way to keep a BPF object alive; --replace pins in
# /sys/fs/bpf/hookcmp).
# held_here: {"prog":[ids],"map":[ids],"link":[ids]} from the fds of the
# processes in this mount namespace, unsorted and with repeats.
held_here() {
	local p fds=()
	for p in /proc/[0-9]*; do
		[ "$p/ns/mnt" -ef /proc/$$/ns/mnt ] && fds+=("$p"/fdinfo/*)
	done
	# One cat for all: a process that went meanwhile is no error.
	cat "${fds[@]}" 2>/dev/null |
		awk '$1 ~ /^(prog|map|link)_id:$/ { id[$1] = id[$1] sep[$1] $2; sep[$1] = "," }
		END { printf "{\"prog\":[%s],\"map\":[%s],\"link\":[%s]}\n",
			id["prog_id:"], id["map_id:"], id["link_id:"] }'
}
# From bpftool's program list, the ids of hookcmp's programs (hc_*) that
# are held here ($h, from held_here).
# What is held here is read before bpftool runs: bpftool holds every
# program it shows, and its own iterator's program, map and link, while
# it runs.
HC_PROGS='[.[] | select(.name | startswith("hc_")) | .id] - ([.[].id] - $h.prog)'
hc_prog_ids() {
	local h
	h=$(held_here)
	bpftool -j prog show | jq -c --argjson h "$h" "$HC_PROGS"
}
# json COMMAND...: its JSON, or [] when it printed none (a device gone).
json() {
	local out
	out=$("$@" 2>/dev/null)
	echo "${out:-[]}"
}
# One jq, one tc and one bpftool for all of it, and globs where a
# listing will do: under an emulated CPU (make check-vm) each process
# takes 0.1-0.2 s to start (jq a third of a second), and every test takes
# two snapshots at least.
snapshot() {
	local ns tcs h
	h=$(held_here)
	{
		json ip -n "$D" -d -j link show dev "$DEV"
		# A batch stops at its first error: [] for each where DEV is gone.
		mapfile -t tcs < <(printf '%s show dev %s\n' qdisc "$DEV" filter "$DEV ingress" \
			filter "$DEV egress" | tc -n "$D" -j -b - 2>/dev/null)
		[ "${#tcs[@]}" = 3 ] || tcs=('[]' '[]' '[]')
		printf '%s\n' "${tcs[@]}"
		# [{"command": ..., "output": ...}] for the programs, then what is
		# attached in this namespace.
		json bpftool -j batch file - <<<$'prog show\nnet'
		for ns in /run/netns/*; do
			[ -e "$ns" ] || continue
			echo "\"${ns##*/}\""
			json nsenter --net="$ns" bpftool -j net
		done
	} | jq -c -s --argjson h "$h" '
		.[0][0].xdp // null, [.[1][] | {kind, handle}],
		[.[2][] | {pref, kind, protocol, options}], [.[3][] | {pref, kind}],
		(.[4][0].output // [] | '"$HC_PROGS"'), ($h.map | unique), ($h.link | unique),
		.[4][1].output, (range(5; length; 2) as $i | {(.[$i]): .[$i + 1]})'
	# The named namespaces, the journal, hookcmp's pins.
	(
		shopt -s nullglob globstar dotglob
		printf '%s\n' /run/netns/* /run/hookcmp/* /sys/fs/bpf/hookcmp/**/*
	)
	hc_cgroups
	nsenter --net="/run/netns/$D" awk '$1 == "XDP" { print "AF_XDP sockets", $3 }' \
		/proc/net/protocols 2>/dev/null
}

# run_tests [NAME...]: the suite's tests: every function test_* its script
# (then its HC_TEST_FILES) defines, in that order, or the NAMEs given
# ("cgroup" is test_cgroup), but for the -NAMEs given (every other:
# tests/run.sh plain), each between setup_test and teardown_test where the
# suite has them. A NAME the suite does not have is a FAIL, with the names
# it has.
HC_PER_TEST=
run_tests() {
	local t all named='' left=' '
	HC_PER_TEST=1
	keep_failed "$(basename "$0" .sh).setup"
	# shellcheck disable=SC2086
	all=$(sed -n 's/^\(test_[a-z0-9_]*\)() {$/\1/p' "$0" $HC_TEST_FILES)
	for t; do
		case $t in
		-*) t=${t#-} && left+="test_${t#test_} " ;;
		*) named+=" $t" ;;
		esac
	done
	for t in $left; do
		grep -qx "$t" <<<"$all" || fail "$0: no test $t to leave out; it has $(echo $all)"
	done
	for t in ${named:-$all}; do
		t=test_${t#test_}
		[[ $left == *" $t "* ]] && continue
		if ! grep -qx "$t" <<<"$all"; then
			fail "$0: no test $t; it has $(echo $all)"
			continue
		fi
		local t0=$SECONDS
		! declare -F setup_test >/dev/null || setup_test
		"$t"
		! declare -F teardown_test >/dev/null || teardown_test
		keep_failed "$(basename "$0" .sh).${t#test_}"
		# Where a suite's time goes, for CI's budget (doc/kernels.md).
		echo "# test ${t#test_}: $((SECONDS - t0)) s"
	done
}

# check_mounts: at a suite's start, the mounts under /sys are those of the
# layout it runs under (tests/sandbox.sh), so both are really tested.
check_mounts() {
	local got want
	got=$(findmnt -rn -o TARGET,FSTYPE | awk '$1 ~ "^/sys/fs/(bpf|cgroup)" { print $1 "=" $2 }' |
		LC_ALL=C sort | tr '\n' ' ')
	case $HOOKCMP_MOUNTS in
	plain) want='/sys/fs/cgroup=cgroup2 ' ;;
	host) want='/sys/fs/bpf=bpf /sys/fs/cgroup=tmpfs '
		want+=$(findmnt -rn /sys/fs/cgroup/hctest >/dev/null && echo '/sys/fs/cgroup/hctest=cgroup ')
		want+='/sys/fs/cgroup/unified=cgroup2 '
		[ -e /sys/fs/bpf/someones_map ] || want+='(and /sys/fs/bpf/someones_map) ' ;;
	esac
	want=$(tr ' ' '\n' <<<"$want" | LC_ALL=C sort | tr '\n' ' ')
	check_eq "$(basename "$0" .sh) runs under the $HOOKCMP_MOUNTS mounts" "${got# }" "${want# }"
}

# hookcmp's cgroups (--hook cgroup), wherever they are in the hierarchy
# (tests/sandbox.sh mounts it at /sys/fs/cgroup or /sys/fs/cgroup/unified).
# A glob, not find: no process to start.
hc_cgroups() {
	local d
	(
		shopt -s nullglob globstar
		for d in /sys/fs/cgroup/**/hookcmp.*/; do echo "${d%/}"; done
	)
}

# set_sysctl KEY VALUE: the old value comes back when the test exits,
# however it exits. A key that only the initial network namespace has
# (net.core.bpf_jit_enable) is set there.
SYSCTLS=()
set_sysctl() {
	local old at=
	sysctl -n "$1" >/dev/null 2>&1 || at="nsenter --net=/proc/$$/fd/9"
	old=$($at sysctl -n "$1") || return 1
	$at sysctl -qw "$1=$2" 2>/dev/null || return 1
	SYSCTLS+=("$at;$1=$old")
}
restore_sysctls() {
	local kv
	for kv in "${SYSCTLS[@]}"; do
		${kv%%;*} sysctl -qw "${kv#*;}"
	done
	SYSCTLS=()
}

# need TOOL WHY: 0 when TOOL is installed, else a SKIP line with WHY.
need() {
	command -v "$1" >/dev/null && return 0
	echo "SKIP $2: $1 is not installed"
	return 1
}

# need_live NAME: false, saying SKIP, where the kernel refuses live XDP
# frames (tests/run.sh's HC_NO_LIVE): bench's own topologies and gen's
# live method have no other way in.
need_live() {
	[ -z "${HC_NO_LIVE:-}" ] && return 0
	echo "SKIP $1: this machine refuses live XDP frames (${HC_NO_LIVE#Error: }), which it needs"
	return 1
}

# The hooks, as the table lists them, SEP between.
hook_list() { "$HC" --help 2>&1 | sed -n "s/.*--hook \([a-z|]*\) \[OPTIONS\].*/\1/p" | head -n 1 | tr '|' "$1"; }

# kernel_has VERSION: the running kernel is VERSION (e.g. 6.6) or newer.
kernel_has() {
	local r
	r=$(uname -r)
	[ "$(printf '%s\n' "$1" "${r%%-*}" | sort -V | head -n 1)" = "$1" ]
}

# kernel_lacks NAME ARGS...: true, with a SKIP line for NAME, when ARGS ask
# for what the kernel predates: a tcx link (Linux 6.6), BPF at netfilter
# (6.4).
kernel_lacks() {
	local name=$1
	shift
	if [[ " $* " == *" --tc-attach tcx "* ]] && ! kernel_has 6.6; then
		echo "SKIP $name: tcx needs Linux 6.6, this kernel is $(uname -r)"
	elif [[ " $* " == *" --hook netfilter "* ]] && ! kernel_has 6.4; then
		echo "SKIP $name: BPF netfilter links need Linux 6.4, this kernel is $(uname -r)"
	else
		return 1
	fi
}

# under_tcg NAME WHY: true, with a SKIP line for NAME, in a guest under
# TCG (make check-vm), whose time limit leaves NAME to the host and to
# the guest's other tests: WHY says which.
under_tcg() {
	[ "${HOOKCMP_VM_ACCEL:-}" = tcg ] || return 1
	echo "SKIP $1: under TCG (the guest's time limit; $2)"
}

# comp WORDS...: what bash completion offers for the last word.
comp() {
	PATH=$PWD:$PATH bash -c 'source scripts/hookcmp.bash-completion
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hookcmp; echo "${COMPREPLY[*]}"' _ "$@"
}

# wait_same FN FILE TRIES: reruns FN into FILE.after, every 0.1 s, until
# it matches FILE. The kernel frees programs, links and namespaces
# asynchronously.
wait_same() {
	local i
	for i in $(seq "$3"); do
		"$1" >"$2.after"
		cmp -s "$2" "$2.after" && return 0
		sleep 0.1
	done
	return 1
}

# state_same NAME FN FILE [TRIES]: what FN prints comes back to FILE's
# (every 0.1 s, 2 s unless TRIES say): PASS NAME, else FAIL NAME and how
# they differ. The one state comparison of every suite.
state_same() {
	if wait_same "$2" "$3" "${4:-20}"; then
		pass "$1"
	else
		fail "$1"
		diff "$3" "$3.after" | sed 's/^/  /'
	fi
}
check_state_same() { state_same "$1: device and BPF state restored" snapshot "$T/before"; }

# hc_start ARGS...: runs hookcmp in the background until it has attached.
hc_start() {
	: >"$T/out"
	: >"$T/err"
	"$HC" "$@" >"$T/out" 2>"$T/err" &
	HCPID=$!
	local i
	for i in $(seq "$WAIT_TICKS"); do
		grep -q "attached to" "$T/err" && return 0
		kill -0 "$HCPID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/err" | sed 's/^/  /'
	return 1
}

# hc_stop [SIGNAL]: stops it and sets HCRC.
hc_stop() {
	kill -"${1:-INT}" "$HCPID"
	wait "$HCPID"
	HCRC=$?
	HCPID=
}

summary() { tail -n 1 "$T/out"; }

prog_id() { sed -n 's/.*prog id \([0-9]*\).*/\1/p' "$T/err"; }

# class_counts: "name:packets:drop:pass" per class, from the JSON summary.
class_counts() {
	summary | jq -r '.classes | map("\(.name):\(.packets):\(.drop):\(.pass)") | join(" ")'
}

# expect_table NAME PREFIX: stdin has "EXIT;TEXT;ARGS" lines; each runs
# hookcmp PREFIX ARGS and must exit EXIT with TEXT in its output.
expect_table() {
	local name=$1 prefix=$2 want say args out rc
	while IFS=';' read -r want say args; do
		# shellcheck disable=SC2086
		out=$(eval "$HC" $prefix $args 2>&1)
		rc=$?
		if [ "$rc" = "$want" ] && grep -qF -- "$say" <<<"$out"; then
			pass "$name: hookcmp $prefix $args -> exit $rc"
		else
			fail "$name: hookcmp $prefix $args -> exit $rc, wanted $want and '$say'"
			echo "$out" | sed 's/^/  /'
		fi
	done
}

# fault_table NAME: stdin has "STEP ARGS" lines; hookcmp -n $D ARGS $DEV
# with step STEP failing must exit 1 naming it and leave $T/before's state.
fault_table() {
	local name=$1 step args out rc
	while read -r step args; do
		# The tcx step fails before it asks the kernel: any kernel.
		[ "$step" != tcx ] && kernel_lacks "$name at $step ($args)" $args && continue
		# shellcheck disable=SC2086
		out=$(HOOKCMP_FAIL_AT=$step "$HC" -n "$D" $args -d 5 "$DEV" 2>&1)
		rc=$?
		if [ "$rc" = 1 ] && grep -q "fault injected at step '$step'" <<<"$out"; then
			pass "$name at $step ($args): exit 1 with the step named"
		else
			fail "$name at $step ($args): exit $rc"
			echo "$out" | sed 's/^/  /'
		fi
		check_state_same "$name at $step ($args)"
	done
}

# signal_table NAME: stdin has "STEP SIGNAL ARGS" lines; hookcmp -n $D ARGS
# $DEV held at step STEP gets SIGNAL there, must exit 128+N and leave
# $T/before's state. At detach, a second Ctrl-C lands while it detaches;
# the exit status stays that of the signal that stopped it.
signal_table() {
	local name=$1 step sig args rc want
	while read -r step sig args; do
		kernel_lacks "$name $sig at $step ($args)" $args && continue
		: >"$T/err"
		# shellcheck disable=SC2086
		HOOKCMP_PAUSE_AT=$step "$HC" -n "$D" $args -i 0 "$DEV" >"$T/out" 2>"$T/err" &
		HCPID=$!
		want=$((128 + $(kill -l "$sig")))
		if [ "$step" = detach ]; then
			wait_for "attached to" "$T/err"
			kill -"$sig" "$HCPID"
			sig=INT
		fi
		wait_for "paused at step '$step'" "$T/err"
		kill -"$sig" "$HCPID"
		wait "$HCPID"
		rc=$?
		HCPID=
		check_eq "$name $sig at $step ($args): exit status" "$rc" "$want"
		check_state_same "$name $sig at $step ($args)"
	done
}

cleanup_all() {
	# Suites that do not run_tests keep their files whole.
	[ -n "$HC_PER_TEST" ] || keep_failed "$(basename "$0" .sh)"
	restore_sysctls
	topo_down
	rm -rf "$T"
}
trap cleanup_all EXIT
