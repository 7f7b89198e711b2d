# SPDX-License-Identifier: GPL-2.0
# Sourced first by tests/run.sh and by every privileged suite: as root, the
# script re-executes itself in private network and mount namespaces with a
# private /run (the journal, named namespaces, the tests' files) and /sys (with cgroup2 at
# /sys/fs/cgroup), as xdp-tools' test runner does, so no test can see or
# change the host's interfaces, journal or mounts. BPF objects are global:
# tests/lib.sh snapshots only hookcmp's. The caller has changed to the top
# of the tree.
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

# sandbox_mounts plain|host: what is mounted under /sys for the tests.
# plain: cgroup2 at /sys/fs/cgroup and nothing else (no bpffs: iproute2
# and hookcmp's --replace mount one of their own when they need it).
# host: as systemd leaves a Debian host: a bpffs at /sys/fs/bpf holding
# someone's pin, and cgroup2 at /sys/fs/cgroup/unified beside a cgroup v1
# hierarchy (a kernel without v1 leaves it out). Nothing outlives the
# mount namespace: a bpffs goes, and its pins with it, with its last mount.
sandbox_mounts() {
	case $1 in
	plain) mount -t cgroup2 cgroup2 /sys/fs/cgroup ;;
	host)
		mount -t bpf bpf /sys/fs/bpf &&
			bpftool map create /sys/fs/bpf/someones_map type array key 4 \
				value 4 entries 1 name someones_map &&
			mount -t tmpfs -o mode=0755 cgroup /sys/fs/cgroup &&
			mkdir /sys/fs/cgroup/unified /sys/fs/cgroup/hctest &&
			mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified || return 1
		mount -t cgroup -o none,name=hctest cgroup /sys/fs/cgroup/hctest 2>/dev/null ||
			rmdir /sys/fs/cgroup/hctest
		;;
	*) return 1 ;;
	esac
}

# in_mounts plain|host COMMAND...: COMMAND in a mount namespace of its own
# with those mounts under a fresh /sys.
in_mounts() {
	unshare --mount --propagation private -- "$BASH" -c '
		. tests/sandbox.sh
		umount -l /sys && mount -t sysfs sysfs /sys && sandbox_mounts "$0" ||
			{ echo "FAIL sandbox: cannot mount the $0 layout under /sys"; exit 1; }
		HOOKCMP_MOUNTS=$0 exec "$@"' "$@"
}

if [ "${HOOKCMP_SANDBOX:-}" = "$$" ]; then
	# unshare exec'd us in place: set up once, here. The host's mounts
	# under /sys go first, whatever they are: a sysfs mounted over them
	# would hide them but leave them in /proc/mounts, where iproute2 takes
	# the host's bpffs and then fails to make its folders in the new /sys.
	if ! mount -t tmpfs -o mode=0755 hookcmp-run /run ||
		! umount -l /sys || ! mount -t sysfs sysfs /sys ||
		! sandbox_mounts plain || ! ip link set lo up; then
		echo "FAIL sandbox: cannot set up the private /run, /sys, /sys/fs/cgroup or lo"
		exit 1
	fi
	# The tests' files in the private /run too: they go with the
	# namespace, however the run ends (a killed runner keeps no trap).
	mkdir -m 1777 /run/tmp
	HOOKCMP_SANDBOX=ready HOOKCMP_MOUNTS=plain TMPDIR=/run/tmp
	export HOOKCMP_MOUNTS TMPDIR
fi
