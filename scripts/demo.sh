#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds a veth pair between two fresh network namespaces, sends a mix of
# traffic from one side and runs hookcmp on each hook of the other side in
# turn. Everything it creates is removed on exit, also on Ctrl-C.
set -u
cd "$(dirname "$0")/.." || exit 1

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root (it creates network namespaces)" >&2
	exit 3
fi

G=hcdemo$$g
D=hcdemo$$d
SENDER=

cleanup() {
	[ -n "$SENDER" ] && kill "$SENDER" 2>/dev/null && wait "$SENDER" 2>/dev/null
	ip netns del "$G" 2>/dev/null
	ip netns del "$D" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$G" && ip netns add "$D" &&
ip link add hcg netns "$G" type veth peer name hcd netns "$D" &&
ip -n "$G" link set hcg up && ip -n "$D" link set hcd up &&
ip -n "$D" addr add 192.0.2.2/24 dev hcd &&
ip -n "$D" addr add 2001:db8::2/64 dev hcd nodad || exit 1
MAC=$(ip -n "$D" -j link show dev hcd | jq -r '.[0].address')

# A steady mix from the generator side, addressed to the DUT (UDP to port 9,
# so the UDP socket sees it too), until the demo ends.
(while :; do
	./build/hc-send -n "$G" --dst-mac "$MAC" --dst4 192.0.2.2 \
		--dst6 2001:db8::2 hcg udp4:4000 tcp4:2000 udp6:2000 tcp6:1000 \
		icmp4:200 arp:50 vlan-udp4:500 ip4-ihl4:10 2>/dev/null || exit
done) &
SENDER=$!

for hook in "xdp" "xdp --xdp-mode generic" "tc" "tc --qdisc ingress" \
	"tc --tc-attach tcx" "socket --socket packet" "socket --socket udp" \
	"netfilter"; do
	echo "== hookcmp --hook $hook hcd"
	# shellcheck disable=SC2086
	./hookcmp -n "$D" --hook $hook -r 'tcp dport 80 pass' -d 2.5 hcd ||
		exit $?
	echo
done
