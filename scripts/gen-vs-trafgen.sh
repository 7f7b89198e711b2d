#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hookcmp gen against its own raw live-frames loop and against netsniff-ng's
# trafgen, on the same veth in the same run, nothing receiving. Prints one
# line per generator and the ratios the performance targets are about.
#   scripts/gen-vs-trafgen.sh [SECONDS]   (each of 5 interleaved rounds)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-2}
G=hcgen$$g
D=hcgen$$d

[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 3; }
command -v trafgen >/dev/null ||
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq netsniff-ng; }
trap 'ip netns del $G 2>/dev/null; ip netns del $D 2>/dev/null' EXIT
ip netns add "$G" && ip netns add "$D" &&
	ip link add hcg netns "$G" type veth peer name hcd netns "$D" &&
	ip -n "$G" link set hcg up && ip -n "$D" link set hcd up || exit 1

gen() { ./hookcmp gen -n "$G" hcg -d "$secs" -j "$@" 2>/dev/null | jq -r .pps; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Interleaved rounds, medians: this machine's noise is larger than the gaps.
for round in 1 2 3 4 5; do
	echo "raw $(gen --raw)"
	echo "one $(gen --flows 1)"
	echo "many $(gen --flows 64)"
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
tg=$(ip netns exec "$G" timeout -s INT "$secs" trafgen -o hcg -i "/tmp/hcgen$$.cfg" \
	--no-sock-mem --cpus 1 2>&1 | tr -d '\r' | sed -n 's/^ *\([0-9]*\) packets outgoing.*/\1/p')
rm -f "/tmp/hcgen$$.cfg"
tg_pps=$(( ${tg:-0} / secs ))

printf '%-28s %12s pps\n' "gen --raw (ceiling)" "$raw" "gen --flows 1" "$one" \
	"gen --flows 64" "$many" "trafgen (netsniff-ng)" "$tg_pps"
awk -v r="$raw" -v o="$one" -v m="$many" -v t="$tg_pps" 'BEGIN {
	printf "flows 1:  %.1f%% of raw, %.1fx trafgen\n", 100 * o / r, t ? o / t : 0
	printf "flows 64: %.1f%% of raw, %.1fx trafgen\n", 100 * m / r, t ? m / t : 0
}'
