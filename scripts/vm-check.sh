#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-dependent tests inside another kernel: Debian's kernel package
# booted under qemu, this machine's root mounted read-only over virtio-9p,
# tmpfs where something must be written, and the binaries built here.
# KVM where it works, TCG otherwise; a hard timeout either way.
#
#   scripts/vm-check.sh [--kernel 6.1|6.12|DEB-PACKAGE|PATH] [--fetch] [-- COMMAND...]
#   scripts/vm-check.sh --kernel K1 --kernel K2 ...   (their suites, all at once)
#
# 6.1 (the default) is the newest Debian 12 linux-image-6.1.*-amd64 that
# apt-get can download; 6.12 the newest Debian 13 linux-image-6.12.*-amd64,
# fetched through an apt configuration of its own under build/vm (the
# machine's sources stay as they are). --fetch only downloads and unpacks
# it. A COMMAND runs in the tree's copy instead of the suites.
cd "$(dirname "$0")/.." || exit 1
TREE=$PWD
VM=$TREE/build/vm
# Where the guest finds its results share, the tree (a share of its own:
# the guest's tmpfs hides the host's /tmp and /run, where a clone may be)
# and its writable copy of the tree.
GUEST_RES=/tmp/vm-results
GUEST_SRC=/tmp/hookcmp-src
GUEST_TREE=/tmp/hookcmp
# The tests of tests/run.sh whose outcome the kernel decides
# (doc/kernels.md), in every guest: 6.1's refusals and fallbacks differ
# from the host's, and Debian 13's 6.12 has the hooks 6.1 lacks (tcx, BPF
# at netfilter), which run there for real. Not cli (usage errors, found
# before anything asks the kernel); of netns not bad_input (its kernel
# rows are xsk's), duration, faults, signals or cleanup_netns: hookcmp's
# own timers, undo steps, signal handling and journal, whose kernel calls
# the other tests make; of redirect not usage or bad_target; of xsk not
# text or faults_signals. Not bench-dev-short: under TCG, 6.1's threaded
# NAPI on the two-queue veth locked up a CPU in one of two runs. Of the
# bench suite, the longest under TCG, the tests whose outcome the kernel
# decides and the host cannot check without live frames: the scenarios
# (with the path check, whose names differ by kernel) and inject.
pick() {
	local s=$1 t
	shift
	for t; do printf '%s:%s ' "$s" "$t"; done
}
SUITES="prog-run $(pick netns hooks tcx_refused socket_udp cgroup netfilter \
	foreign_clsact foreign_xdp from_zero bytes inject gen device_trouble \
	default_route cleanup bench_here jit_off)$(pick redirect forward mixed dmac \
	no_napi refresh)$(pick xsk one_queue two_queues ring_full bad_input cleanup \
	device_gone)$(pick bench scenarios inject)"
TIMEOUT=${VM_TIMEOUT:-3000}

usage() {
	echo "Usage: $0 [--kernel 6.1|6.12|DEB-PACKAGE|PATH] [--fetch] [-- COMMAND...]" >&$(($1 ? 2 : 1))
	exit "$1"
}

# --guest KDIR: PID 1 in the guest, on this machine's root: run the suites
# from a writable copy of the tree, leave the results, power off. KDIR is
# the unpacked kernel package, relative to the tree.
guest() {
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/tmp
	# Which CPU the tests run on: qemu's TCG emulates it.
	HOOKCMP_VM_ACCEL=$(cat "$GUEST_RES/accel")
	export HOOKCMP_VM_ACCEL
	trap 'sync; busybox poweroff -f' EXIT
	# The kernel loads modules on demand from the unpacked package.
	printf '#!/bin/sh\nexec modprobe -d %s "$@"\n' "$TREE/$1" >/tmp/vm-modprobe
	chmod +x /tmp/vm-modprobe
	echo /tmp/vm-modprobe >/proc/sys/kernel/modprobe
	mkdir -p "$GUEST_TREE"
	# Not the guests' kernels, nor CI's logs and sanitizer clone
	# (.ci/run), which is being built as the guests start.
	tar -C "$TREE" --exclude=./build/vm --exclude=./build/ci --exclude=./.git -cf - . |
		tar -C "$GUEST_TREE" -xf -
	cd "$GUEST_TREE" || exit 1
	{
		echo "guest kernel: $(uname -r)"
		if [ -f "$GUEST_RES/cmd" ]; then
			bash "$GUEST_RES/cmd"
		else
			# shellcheck disable=SC2086
			tests/run.sh $(cat "$GUEST_RES/suites")
		fi
		echo $? >"$GUEST_RES/rc"
	} >"$GUEST_RES/log" 2>&1
	dmesg >"$GUEST_RES/dmesg"
}

# apt_13 apt-get|apt-cache ARGS...: against Debian 13's archive alone,
# with lists and cache of its own; the keys are debian-archive-keyring's.
APT13=$VM/apt-trixie
apt_13() {
	local tool=$1
	shift
	mkdir -p "$APT13/sources" "$APT13/lists/partial" "$APT13/cache/archives/partial"
	[ -f "$APT13/sources/trixie.sources" ] || cat >"$APT13/sources/trixie.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-trixie-stable.gpg /usr/share/keyrings/debian-archive-trixie-automatic.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-trixie-security-automatic.gpg
EOF
	"$tool" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APT13/sources" \
		-o Dir::State::Lists="$APT13/lists" -o Dir::Cache="$APT13/cache" \
		-o Dir::State::status=/dev/null "$@"
}
apt_12() { "$@"; }

# newest APT REGEX: the newest package of that name apt knows, after an
# update if it knows none.
newest() {
	local pkg
	pkg=$("$1" apt-cache search --names-only "$2" | cut -d' ' -f1 | sort -V | tail -n 1)
	[ -n "$pkg" ] || pkg=$("$1" apt-get update -qq && "$1" apt-cache search --names-only "$2" |
		cut -d' ' -f1 | sort -V | tail -n 1)
	echo "$pkg"
}

# fetch 6.1|6.12|PACKAGE|PATH: unpacks the kernel package into
# $VM/VERSION once and sets KDIR and KVER.
fetch() {
	local deb=$1 pkg apt=apt_12 re=
	case $deb in
	'' | 6.1) re='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) re='^linux-image-6\.12\.[0-9]+\+deb13-amd64$' apt=apt_13 ;;
	esac
	if [ -n "$re" ]; then
		deb=$(newest $apt "$re")
		if [ -z "$deb" ]; then
			echo "Error: apt knows no package like $re; name a kernel with --kernel" >&2
			exit 1
		fi
	fi
	mkdir -p "$VM/debs"
	case $deb in
	*/* | *.deb)
		[ -f "$deb" ] || { echo "Error: no kernel package file '$deb'" >&2 && exit 2; } ;;
	esac
	if [ ! -f "$deb" ]; then
		pkg=$deb
		deb=$(find "$VM/debs" -name "${pkg}_*.deb")
		if [ -z "$deb" ]; then
			(cd "$VM/debs" && $apt apt-get download -q "$pkg" 2>&1 | grep -v unsandboxed) >&2
			deb=$(find "$VM/debs" -name "${pkg}_*.deb")
		fi
		if [ -z "$deb" ]; then
			echo "Error: could not download kernel package '$pkg'" >&2
			exit 2
		fi
	fi
	KVER=$(dpkg-deb --fsys-tarfile "$deb" | tar -t --wildcards './boot/vmlinuz-*' 2>/dev/null |
		sed -n 's|^\./boot/vmlinuz-||p' | head -n 1)
	if [ -z "$KVER" ]; then
		echo "Error: $deb holds no /boot/vmlinuz-*" >&2
		exit 2
	fi
	KDIR=$VM/$KVER
	if [ ! -f "$KDIR/.done" ]; then
		rm -rf "$KDIR"
		# Debian 13's packages keep their modules in /usr/lib: depmod
		# and modprobe -d look in lib/.
		dpkg-deb -x "$deb" "$KDIR" &&
			{ [ -e "$KDIR/lib" ] || ln -s usr/lib "$KDIR/lib"; } &&
			depmod -b "$KDIR" "$KVER" &&
			touch "$KDIR/.done" || exit 1
	fi
}

# initramfs: busybox, the modules that reach the 9p root, and an init that
# mounts it and hands over to guest().
initramfs() {
	local d=$RUN/initramfs m b mods=
	rm -rf "$d"
	mkdir -p "$d"/{bin,dev,root,mod}
	cp "$(command -v busybox)" "$d/bin/busybox" || exit 1
	ln -s busybox "$d/bin/sh"
	for m in $(modprobe -a -d "$KDIR" -S "$KVER" --show-depends virtio_pci 9pnet_virtio 9p |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		# Debian 13's modules are xz-compressed; busybox's insmod
		# takes them plain.
		b=${m##*/}
		case $m in
		*.xz) xz -dc "$m" >"$d/mod/${b%.xz}" || exit 1 ;;
		*) cp "$m" "$d/mod/" || exit 1 ;;
		esac
		mods="$mods ${b%.xz}"
	done
	cat >"$d/init" <<EOF
#!/bin/sh
export PATH=/bin
/bin/busybox --install -s /bin
die() { echo "vm init: \$*"; poweroff -f; }
for m in $mods; do insmod /mod/\$m || die "insmod \$m"; done
o=trans=virtio,version=9p2000.L,msize=262144
# The guest only reads the host's root (and copies the tree): cache it.
mount -t 9p -o \$o,ro,cache=loose hcroot /root || die "no 9p root"
mount -t tmpfs tmpfs /root/run && mount -t tmpfs tmpfs /root/tmp &&
	mkdir /root$GUEST_RES && mount -t 9p -o \$o hcres /root$GUEST_RES &&
	mkdir /root$GUEST_SRC && mount -t 9p -o \$o,ro,cache=loose hctree /root$GUEST_SRC &&
	mount -t proc proc /root/proc && mount -t sysfs sysfs /root/sys &&
	mount -t devtmpfs devtmpfs /root/dev && mkdir /root/dev/shm /root/dev/pts &&
	ln -s /proc/self/fd /root/dev/fd && ln -s fd/0 /root/dev/stdin &&
	ln -s fd/1 /root/dev/stdout && ln -s fd/2 /root/dev/stderr &&
	mount -t tmpfs tmpfs /root/dev/shm && mount -t devpts devpts /root/dev/pts ||
	die "mounts"
# The 9p root becomes the root of the mount namespace, which is what the
# kernel's module loader and nsenter --mount see.
exec switch_root /root /bin/bash $GUEST_SRC/scripts/vm-check.sh --guest ${KDIR#"$TREE"/}
EOF
	chmod +x "$d/init"
	(cd "$d" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$RUN/initramfs.gz"
}

# together KERNEL...: one guest per kernel, all at once (each is one
# qemu process; under TCG the two of CI share the host's two CPUs), each
# one's log printed whole, in turn, with its time (to its log's last
# line) and exit status, then one count line for all.
together() {
	local k pids=() rc=0 r t0
	t0=$(date +%s)
	mkdir -p "$VM"
	for k in "$@"; do
		VM_RUN= "$0" --kernel "$k" >"$VM/check-$k.log" 2>&1 &
		pids+=($!)
	done
	trap 'kill "${pids[@]}" 2>/dev/null; wait; exit 130' INT
	trap 'kill "${pids[@]}" 2>/dev/null; wait; exit 143' TERM
	for k in "$@"; do
		wait "${pids[0]}"
		r=$?
		[ "$r" -eq 0 ] || rc=1
		pids=("${pids[@]:1}")
		echo "== guest $k: ended after $(($(stat -c %Y "$VM/check-$k.log") - t0)) s, exit $r =="
		cat "$VM/check-$k.log"
	done
	printf "$VM/check-%s.log\n" "$@" | xargs cat | awk '/^PASS/ { p++ } /^FAIL/ { f++ } /^SKIP/ { s++ }
		END { printf "guests: %d passed, %d failed, %d skipped\n", p, f, s }'
	return $rc
}

kernel='' kernels=() fetch_only=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel)
		[ $# -ge 2 ] || usage 2
		kernel=$2
		kernels+=("$2")
		shift 2
		;;
	--fetch) fetch_only=1 && shift ;;
	--guest) guest "$2" && exit ;;
	-h | --help) usage 0 ;;
	--) shift && break ;;
	*) usage 2 ;;
	esac
done

if [ ${#kernels[@]} -gt 1 ]; then
	[ $# -eq 0 ] && [ -z "$fetch_only" ] || usage 2
	together "${kernels[@]}"
	exit
fi
# One fetch at a time: CI's guests and the host's vm tests start together
# on a fresh build/vm, and two unpackings of one kernel undo each other.
mkdir -p "$VM"
exec 9>"$VM/fetch.lock"
flock 9
fetch "$kernel"
exec 9>&-
[ -n "$fetch_only" ] && exit 0
# Each kernel's guest in a folder of its own (or VM_RUN): guests of two
# kernels run at once (make check-vm).
RUN=${VM_RUN:-$VM/run-$KVER}
mkdir -p "$RUN"
initramfs

qemu=(qemu-system-x86_64 -nodefaults -nographic -no-reboot -m 2048 -smp 2
	-kernel "$KDIR/boot/vmlinuz-$KVER")

# Nested KVM can hang in the guest's first instructions: KVM counts as
# working when a guest kernel boots to its panic within the timeout.
accel=tcg cpu=max
if [ -w /dev/kvm ] &&
	timeout -k 2 10 "${qemu[@]}" -accel kvm -cpu host -serial stdio \
		-append "console=ttyS0 panic=-1 rdinit=/none" 2>/dev/null |
	grep -q "Kernel panic"; then
	accel=kvm cpu=host
fi

res=$RUN/results
rm -rf "$res"
mkdir -p "$res"
: >"$res/log"
echo "$accel" >"$res/accel"
[ $# -gt 0 ] && printf '%q ' "$@" >"$res/cmd"
echo "$SUITES" >"$res/suites"
echo "vm: $KVER under $accel, timeout ${TIMEOUT}s" >&2

# timeout runs qemu in a process group of its own, which a signal to ours
# (make's, a terminal's) does not reach: stop the guest ourselves when we
# are stopped, and when our parent goes away (a killed make).
parent=$PPID qpid='' tpid=''
stop_guest() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null && wait "$qpid"
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	echo "vm: $1: the guest is stopped" >&2
	exit "$2"
}
trap 'stop_guest SIGINT 130' INT
trap 'stop_guest SIGTERM 143' TERM
trap 'stop_guest SIGHUP 129' HUP

console() {
	tail -n 20 "$RUN/console.log" | awk '{ gsub(/\033(\[[0-9;?]*[a-zA-Z]|c)|\r/, ""); print "  " $0 }'
}

# A kernel that panics before the guest's suites begin (it happened once
# to 6.12 under TCG, in sched_clock_cpu during boot) is booted once more;
# VM_APPEND adds to its command line (the tests make it panic so).
for boot in 1 2; do
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" -accel "$accel" -cpu "$cpu" \
		-serial "file:$RUN/console.log" -initrd "$RUN/initramfs.gz" \
		-append "console=ttyS0 panic=-1 quiet ${VM_APPEND:-}" \
		-virtfs local,path=/,mount_tag=hcroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$TREE,mount_tag=hctree,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$res,mount_tag=hcres,security_model=none" &
	qpid=$!
	tail -n +1 -f --pid=$qpid "$res/log" &
	tpid=$!
	# Short sleeps in the foreground: traps run between them.
	while kill -0 "$qpid" 2>/dev/null; do
		[ "$(ps -o ppid= -p $$ | tr -d ' ')" = "$parent" ] || stop_guest "its parent went away" 1
		sleep 0.5
	done
	wait "$qpid"
	qrc=$?
	wait "$tpid"
	qpid='' tpid=''
	[ -f "$res/rc" ] && exit "$(cat "$res/rc")"
	[ "$boot" = 1 ] && [ "$qrc" != 124 ] && [ ! -s "$res/log" ] &&
		grep -q "Kernel panic" "$RUN/console.log" || break
	echo "vm: the guest's kernel panicked before its suites began; booting it once more:"
	console
done
# The guest never finished: its console says why.
if [ "$qrc" = 124 ]; then
	echo "FAIL vm: no result within ${TIMEOUT}s"
else
	echo "FAIL vm: the guest stopped without a result (qemu exit $qrc)"
fi
console
awk '/^PASS/ { p++ } /^FAIL/ { f++ } /^SKIP/ { s++ }
	END { printf "%d passed, %d failed, %d skipped\n", p, f + 1, s }' "$res/log"
exit 1
