# SPDX-License-Identifier: GPL-2.0
# Sourced first by tests/run.sh and by every privileged suite: as root, the
# script re-executes itself in private network and mount namespaces with a
# private /run (the journal, named namespaces) and /sys (with cgroup2 at
# /sys/fs/cgroup), as xdp-tools' test
# runner does, so no test can see or change the host's interfaces, journal
# or mounts. BPF objects are global: tests/lib.sh snapshots only hookcmp's.
# The caller has changed to the top of the tree.
if [ "$(id -u)" -eq 0 ] && [ -z "${HOOKCMP_SANDBOX:-}" ]; then
	if ! command -v unshare >/dev/null; then
		echo "FAIL sandbox: unshare (util-linux) is missing"
		exit 1
	fi
	# fds 8 and 9 keep the host's mount and network namespaces: for the
	# sysctls that only the initial one has (tests/lib.sh: set_sysctl),
	# and for tests/run.sh's other BPF user on the host.
	exec 8</proc/self/ns/mnt 9</proc/self/ns/net
	exec env HOOKCMP_SANDBOX=$$ unshare --net --mount --propagation private \
		-- "$BASH" "tests/${0##*/}" "$@"
fi
if [ "${HOOKCMP_SANDBOX:-}" = "$$" ]; then
	# unshare exec'd us in place: set up once, here.
	if ! mount -t tmpfs -o mode=0755 hookcmp-run /run ||
		! mount -t sysfs sysfs /sys ||
		! mount -t cgroup2 cgroup2 /sys/fs/cgroup || ! ip link set lo up; then
		echo "FAIL sandbox: cannot set up the private /run, /sys, /sys/fs/cgroup or lo"
		exit 1
	fi
	HOOKCMP_SANDBOX=ready
fi
