#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/demo.sh [--rounds N] [--out DIR]
#   Every hook's live counts of one traffic mix on a veth pair between two
#   namespaces it creates, then the comparison: the hooks matrix (each
#   hook's cost per packet with intervals) and the static-key ladder on
#   the inject topology (on the stage where live XDP frames are refused),
#   charts in DIR (default build/demo).
# scripts/demo.sh --dev [BENCH OPTIONS]
#   bench --dev rehearsed on one host: a veth pair it creates stands in
#   for the NIC, hookcmp gen in the other namespace for box A
#   (doc/two-hosts.md). Options go to bench (default --rounds 3).
# Everything it creates is removed on exit, also on Ctrl-C.
# Exit status: 0 done; 1 a failure (a count, the sender, which it checks
# before and after each count, bench); 2 usage; 3 not root (permission);
# bench's own codes as bench exits (4 unsupported, 5 busy, 128+N; not 7,
# no row valid for the load, after which it goes on).
# For tests: HC_DEMO_SENDER is the sender's binary (default build/hc-send).
set -u
cd "$(dirname "$0")/.." || exit 1

ROUNDS=10 OUT=build/demo DEV_MODE=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2:?--rounds needs N}; shift 2 ;;
	--out) OUT=${2:?--out needs DIR}; shift 2 ;;
	--dev) DEV_MODE=1; shift; break ;;
	*) echo "demo: unknown option '$1' (--rounds N, --out DIR, --dev [BENCH OPTIONS])" >&2
	   exit 2 ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root (it creates network namespaces)" >&2
	exit 3
fi

G=hcdemo$$g
D=hcdemo$$d
SEND=${HC_DEMO_SENDER:-./build/hc-send}
SENDER='' ERR=$(mktemp) SEND_ERR=$(mktemp) SEND_RC=$(mktemp)

cleanup() {
	[ -n "$SENDER" ] && kill "$SENDER" 2>/dev/null && wait "$SENDER" 2>/dev/null
	SENDER=
	ip netns del "$G" 2>/dev/null
	ip netns del "$D" 2>/dev/null
}
trap 'cleanup; rm -f "$ERR" "$SEND_ERR" "$SEND_RC"' EXIT
trap 'exit 130' INT TERM

# GRO on: a veth without XDP takes frames into NAPI only so.
ip netns add "$G" && ip netns add "$D" &&
ip link add hcg netns "$G" type veth peer name hcd netns "$D" &&
ip -n "$G" link set hcg up && ip -n "$D" link set hcd up &&
ip -n "$D" link set lo up &&
ip -n "$D" addr add 192.0.2.2/24 dev hcd &&
ip -n "$D" addr add 2001:db8::2/64 dev hcd nodad &&
ip netns exec "$D" ethtool -K hcd gro on >/dev/null || exit 1
MAC=$(ip -n "$D" -j link show dev hcd | jq -r '.[0].address')

if [ -n "$DEV_MODE" ]; then
	[ $# -gt 0 ] || set -- --rounds 3
	echo "== hookcmp -n $D bench --dev hcd --gen-cmd 'hookcmp -n $G gen hcg ...' $*"
	./hookcmp -n "$D" bench --dev hcd "$@" --gen-cmd \
		"$PWD/hookcmp -n $G gen hcg --duration 0.6 --allow-drops --dst-mac \$HC_DST_MAC \${HC_DST_IP:+--dst \$HC_DST_IP} --size \$HC_SIZE -j"
	exit
fi

# A steady mix from the generator side, addressed to the DUT (UDP to port
# 9, so the UDP socket and cgroup see it too; some to lwt's default
# prefix, routed through the lwt hook), until the counts are done. Each
# send's errors replace the last's: a failing one's stay, with its exit
# status in SEND_RC, for sender_check to show.
sender() {
	local rc=0
	while [ "$rc" = 0 ]; do
		"$SEND" -n "$G" --dst-mac "$MAC" --dst4 192.0.2.2 \
			--dst6 2001:db8::2 hcg udp4:4000 tcp4:2000 udp6:2000 tcp6:1000 \
			icmp4:200 arp:50 vlan-udp4:500 ip4-ihl4:10 2>"$SEND_ERR" || { rc=$?; break; }
		"$SEND" -n "$G" --dst-mac "$MAC" --dst4 198.51.100.2 \
			hcg udp4:500 2>"$SEND_ERR" || rc=$?
	done
	echo "$rc" >"$SEND_RC"
	exit "$rc"
}
sender &
SENDER=$!

# sender_check WHEN: exit 1, with the sender's own words, once it died: a
# table of zeros would look like hooks that saw nothing.
sender_check() {
	local rc
	rc=$(cat "$SEND_RC")
	[ -z "$rc" ] && kill -0 "$SENDER" 2>/dev/null && return 0
	echo "demo: the sender ($SEND in $G) died $1 (${rc:+exit }${rc:-killed}):" >&2
	tail -n 20 "$SEND_ERR" | sed 's/^/  /' >&2
	exit 1
}

# Traffic on hcd before the first count: up to 10 s, unless the sender died.
rx() { ip -n "$D" -j -s link show dev hcd | jq '.[0].stats64.rx.packets'; }
rx0=$(rx)
for _ in $(seq 100); do
	sender_check "before the first count"
	[ "$(rx)" -gt "$rx0" ] && break
	sleep 0.1
done
if [ "$(rx)" -le "$rx0" ]; then
	echo "demo: the sender ($SEND in $G) runs, but hcd received nothing in 10 s" >&2
	exit 1
fi

echo "== live counts: each hook on hcd for 1 s, the same traffic mix (hookcmp -j --hook HOOK -d 1 hcd)"
printf '%-34s %10s %10s %10s %10s\n' hook packets drop pass redirect
for hook in "xdp" "xdp --xdp-mode generic" "tc" "tc --qdisc ingress" \
	"tc --tc-attach tcx" "socket --socket packet" "socket --socket udp" \
	"xsk" "netfilter" "cgroup" "lwt"; do
	# shellcheck disable=SC2086
	sum=$(./hookcmp -n "$D" -j --hook $hook -r 'tcp dport 80 pass' \
		-i 0 -d 1 hcd 2>"$ERR" | jq -c 'select(.type == "summary")')
	sender_check "by the end of --hook $hook's count"
	if [ -z "$sum" ]; then
		echo "demo: hookcmp --hook $hook hcd failed:" >&2
		cat "$ERR" >&2
		exit 1
	fi
	read -r seen drop pass redir < <(jq -r \
		'.total | [.packets, .drop, .pass, .redirect] | @tsv' <<<"$sum")
	# The mix reaches every hook: a zero is a failure, not a result.
	if [ "$seen" -eq 0 ]; then
		echo "demo: --hook $hook on hcd counted no packet in 1 s while the sender ran" >&2
		exit 1
	fi
	printf '%-34s %10s %10s %10s %10s\n' "$hook" "$seen" "$drop" "$pass" "$redir"
done
cleanup

mkdir -p "$OUT"
echo
echo "== the comparison: hookcmp bench --rounds $ROUNDS (a veth pair of its own)"
# bench's 7 is the host's load leaving no row enough rounds: the table
# says so, and the demo goes on.
bench() {
	./hookcmp bench "$@"
	local rc=$?
	[ "$rc" = 7 ] || return "$rc"
}
bench --rounds "$ROUNDS" --plot "$OUT/hooks" || exit
echo
# inject: live frames into hcd's receive path; where the kernel refuses
# them, the stage's XDP frames, made skbs by hcd's veth (bench says so).
echo "== an ingress qdisc's static key: hookcmp bench --scenario static-key --topology inject --rounds $ROUNDS"
bench --scenario static-key --topology inject --rounds "$ROUNDS" \
	--plot "$OUT/static-key" || exit
echo
echo "charts: $OUT/hooks/{ns,delta,mpps}.png, $OUT/static-key/ (each with bench.json and bench.csv)"
