#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hookcmp gen against its own raw live-frames loop and against netsniff-ng's
# trafgen, on the same veth in the same run, counted where they arrive: an
# XDP program that drops everything on the far end (which gives the veth
# NAPI, so live frames are taken at all). A generator whose frames did not
# all arrive (gen's exit 1, trafgen's count against the receiver's) makes
# the comparison refused: rates of frames that vanished say nothing.
# Prints one line per generator and the ratios the targets are about.
#   scripts/gen-vs-trafgen.sh [SECONDS]   (each of 5 interleaved rounds)
# NO_RECEIVER=1 leaves the far end without its program: nothing arrives,
# and the comparison is refused (what the tests check).
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-2}
G=hcgen$$g
D=hcgen$$d

[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 3; }
rx=''
trap '[ -n "$rx" ] && kill -INT $rx && wait $rx
	ip netns del $G 2>/dev/null; ip netns del $D 2>/dev/null; rm -f /tmp/hcgen$$.*' EXIT
ip netns add "$G" && ip netns add "$D" &&
	ip link add hcg netns "$G" type veth peer name hcd netns "$D" &&
	ip -n "$G" link set hcg up && ip -n "$D" link set hcd up || exit 1

# The receiver: every frame counted and dropped at XDP on hcd.
if [ -z "${NO_RECEIVER:-}" ]; then
	./hookcmp -n "$D" --hook xdp -i 0 hcd >/dev/null 2>"/tmp/hcgen$$.rx" &
	rx=$!
	for i in $(seq 100); do grep -q "attached to" "/tmp/hcgen$$.rx" && break; sleep 0.1; done
	grep -q "attached to" "/tmp/hcgen$$.rx" || { cat "/tmp/hcgen$$.rx" >&2; exit 1; }
fi
received() { ip -n "$D" -j -s link show hcd | jq '.[0].stats64.rx.packets'; }
refuse() { echo "gen-vs-trafgen: refused: $*" >&2; exit 1; }

# The rate that arrived; gen itself refuses (exit 1) when frames did not
# leave, and what left must have arrived.
gen() {
	local r0 r1 out
	r0=$(received)
	out=$(./hookcmp gen -n "$G" hcg -d "$secs" -j "$@" 2>"/tmp/hcgen$$.err") ||
		refuse "gen $*: $(tail -n 1 "/tmp/hcgen$$.err")"
	r1=$(received)
	jq -e --argjson n $((r1 - r0)) '(.packets - $n | fabs) <= 0.001 * .packets' <<<"$out" >/dev/null ||
		refuse "gen $*: $(jq .packets <<<"$out") left hcg, $((r1 - r0)) arrived"
	jq -r --argjson n $((r1 - r0)) '$n / .duration_s | floor' <<<"$out"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Interleaved rounds, medians: this machine's noise is larger than the gaps.
for round in 1 2 3 4 5; do
	v=$(gen --raw) || exit 1
	echo "raw $v"
	v=$(gen --flows 1) || exit 1
	echo "one $v"
	v=$(gen --flows 64) || exit 1
	echo "many $v"
done >"/tmp/hcgen$$.runs"
raw=$(awk '$1 == "raw" { print $2 }' "/tmp/hcgen$$.runs" | median)
one=$(awk '$1 == "one" { print $2 }' "/tmp/hcgen$$.runs" | median)
many=$(awk '$1 == "many" { print $2 }' "/tmp/hcgen$$.runs" | median)
rm -f "/tmp/hcgen$$.runs"
# trafgen: one 60-byte UDP frame, as fast as it goes, one CPU. The netns
# cannot tune the global socket memory, hence --no-sock-mem.
cat >"/tmp/hcgen$$.cfg" <<'CFG'
{ 0x02,0,0,0,0,0x02, 0x02,0,0,0,0,0x01, 0x08,0x00,
  0x45,0,0,46, 0,0,0x40,0, 64,17, csumip(14, 33),
  198,18,0,1, 198,18,0,2,
  0x04,0x00, 0,9, 0,26, 0,0,
  fill(0, 18) }
CFG
command -v trafgen >/dev/null ||
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq netsniff-ng; }
r0=$(received)
tg=$(ip netns exec "$G" timeout -s INT "$secs" trafgen -o hcg -i "/tmp/hcgen$$.cfg" \
	--no-sock-mem --cpus 1 2>&1 | tr -d '\r' | sed -n 's/^ *\([0-9]*\) packets outgoing.*/\1/p')
sleep 0.2
r1=$(received)
[ -n "$tg" ] && [ "$tg" -gt 0 ] || refuse "trafgen said nothing of what it sent"
[ $(((tg - (r1 - r0)) * 1000)) -le "$tg" ] || refuse "trafgen: $tg outgoing, $((r1 - r0)) arrived"
tg_pps=$(awk -v n=$((r1 - r0)) -v s="$secs" 'BEGIN { printf "%d", n / s }')

printf '%-28s %12s pps\n' "gen --raw (ceiling)" "$raw" "gen --flows 1" "$one" \
	"gen --flows 64" "$many" "trafgen (netsniff-ng)" "$tg_pps"
awk -v r="$raw" -v o="$one" -v m="$many" -v t="$tg_pps" 'BEGIN {
	printf "flows 1:  %.1f%% of raw, %.1fx trafgen\n", 100 * o / r, t ? o / t : 0
	printf "flows 64: %.1f%% of raw, %.1fx trafgen\n", 100 * m / r, t ? m / t : 0
}'
