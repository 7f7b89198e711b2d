#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/vm-check.sh itself, on the host (make check-vm runs this first):
# bad arguments change nothing, a guest's failure is the run's failure, and
# the hard timeout ends a guest that never finishes.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

VMC=scripts/vm-check.sh
# Its guests in a folder of their own, known by it: these tests run beside
# CI's guests (.ci/run), whose qemu they must neither see nor stop.
export VM_RUN=$PWD/build/vm/run-selftest
QEMU="qemu-system-x86_64 .*-initrd $VM_RUN/initramfs"
qemu_up() { pgrep -f "$QEMU" >/dev/null; }
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP vm-check tests: qemu's 9p root export needs root"
	exit 0
fi
need qemu-system-x86_64 "vm-check tests (make deps-vm installs it)" || exit 0

expect_vmc() {
	local name=$1 want=$2 text=$3 rc
	shift 3
	"$VMC" "$@" >"$T/out" 2>&1
	rc=$?
	check_eq "vm-check $name: exit status" "$rc" "$want"
	check "vm-check $name: says '$text'" grep -qF -- "$text" "$T/out" ||
		tail -n 15 "$T/out" | sed 's/^/  | /'
}

expect_vmc "bad option" 2 "Usage:" --bogus
expect_vmc "no such file" 2 "Error: no kernel package file '/nonexistent/k.deb'" \
	--kernel /nonexistent/k.deb
expect_vmc "no such package" 2 "Error: could not download kernel package 'linux-image-hcnope'" \
	--kernel linux-image-hcnope

# The default kernel, named by its file: the guest runs it, not the host's.
"$VMC" --fetch >"$T/out" 2>&1 || { fail "vm-check --fetch: $(tail -n 1 "$T/out")"; exit 0; }
deb=$(find build/vm/debs -name 'linux-image-6.1.*.deb' | sort -V | tail -n 1)
expect_vmc "a failing guest" 1 "FAIL from the guest" --kernel "$deb" -- \
	sh -c 'echo "PASS guest kernel is not the host'\''s"; echo "FAIL from the guest"; exit 1'
check "vm-check a failing guest: its kernel first" \
	grep -qx "guest kernel: 6\.1\..*" <(grep -m1 "guest kernel" "$T/out")
check_eq "vm-check a failing guest: the host's kernel is another" \
	"$(grep -c "guest kernel: $(uname -r)$" "$T/out")" 0
check_eq "vm-check a failing guest: its lines as they came" \
	"$(grep -c '^PASS guest kernel is not the host' "$T/out")" 1

# A guest that never finishes: the hard timeout, and the console's tail
# (booted or not by then: the limit holds either way).
VM_TIMEOUT=20 expect_vmc "timeout" 1 "FAIL vm: no result within 20s" -- sleep 600
check_eq "vm-check timeout: the count line last" "$(tail -n 1 "$T/out")" \
	"0 passed, 1 failed, 0 skipped"
check "vm-check timeout: no qemu left" not qemu_up

# A kernel that panics before the guest's suites begin is booted once
# more, and no more: then the failure, with the console's panic.
VM_APPEND=rdinit=/nonexistent expect_vmc "a kernel that panics at boot" 1 "booting it once more" -- true
check_eq "vm-check a kernel that panics at boot: booted twice" "$(grep -c 'booting it once more' "$T/out")" 1
check "vm-check a kernel that panics at boot: then fails, saying so" \
	grep -qF "FAIL vm: the guest stopped without a result" "$T/out"
check "vm-check a kernel that panics at boot: the console's panic shown" grep -q "Kernel panic" "$T/out"

# Stopped from outside, the guest goes with it: SIGTERM, SIGINT (a signal
# a background job ignores unless told otherwise: env resets it), and a
# parent that is killed (make, under timeout).
for how in TERM INT parent; do
	if [ $how = parent ]; then
		bash -c '"$0" -- sleep 600 >"$1" 2>&1 & wait' "$VMC" "$T/out" &
	else
		env --default-signal=INT "$VMC" -- sleep 600 >"$T/out" 2>&1 &
	fi
	outer=$!
	for i in $(seq "$WAIT_TICKS"); do
		qemu_up && break
		sleep 0.1
	done
	if ! qemu_up; then
		fail "vm-check stopped by $how: the guest never started"
		kill -KILL $outer
		continue
	fi
	if [ $how = parent ]; then
		kill -KILL $outer
		wait $outer 2>/dev/null
	else
		kill -$how $outer
		wait $outer
		check_eq "vm-check stopped by SIG$how: exit status" "$?" "$([ $how = INT ] && echo 130 || echo 143)"
	fi
	for i in $(seq "$WAIT_TICKS"); do
		qemu_up || break
		sleep 0.1
	done
	check "vm-check stopped by $how: no qemu left" not qemu_up
	check "vm-check stopped by $how: says so" wait_for "^vm: .*: the guest is stopped$" "$T/out"
	pkill -f "$QEMU" || true
done
exit 0
