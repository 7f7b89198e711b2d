/* SPDX-License-Identifier: GPL-2.0 */
/* What every BPF wrapper shares besides the logic: config and counters. */
#ifndef HC_BPF_H
#define HC_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "hc_shared.h"

const volatile struct hc_conf hc_conf = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HC_NR_STATS);
	__type(key, __u32);
	__type(value, struct hc_counter);
} hc_stats SEC(".maps");

static __always_inline void hc_count(__u32 cls, __u32 verdict, __u64 bytes)
{
	__u32 key = cls * HC_NR_VERDICTS + verdict;
	struct hc_counter *c = bpf_map_lookup_elem(&hc_stats, &key);

	if (c) {
		c->packets++;
		c->bytes += bytes;
	}
}

/*
 * Bytes count the frame as it arrived, from the Ethernet header, VLAN tags
 * included: at tc and an AF_PACKET socket the skb starts at the MAC header
 * but the kernel may have taken the outer tag out of the data.
 */
static __always_inline __u64 hc_skb_frame_len(const struct __sk_buff *skb)
{
	return skb->len + (skb->vlan_present ? 4 : 0);
}

#endif
