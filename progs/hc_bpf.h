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

/*
 * The rule set (hc_logic.h's hc_set_find): the loader sizes each map
 * before load (1 when its kind is unused) and fills it before attach.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct hc_tuple);
	__type(value, __u32);
} hc_set_tuple SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct hc_lpm4);
	__type(value, __u32);
} hc_set_src4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct hc_lpm6);
	__type(value, __u32);
} hc_set_src6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} hc_set_host4 SEC(".maps");

struct hc_addr6 {
	__u32 a[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct hc_addr6);
	__type(value, __u32);
} hc_set_host6 SEC(".maps");

struct hc_pkt;

static __always_inline int hc_set_find(struct hc_pkt *p, __u32 kind,
				       const void *key)
{
	const struct hc_lpm4 *k4 = key;
	const struct hc_lpm6 *k6 = key;
	__u32 *v = NULL;

	/* hc_conf is read-only: the verifier drops the lookups not made */
	if (kind == HC_SET_TUPLE) {
		v = bpf_map_lookup_elem(&hc_set_tuple, key);
	} else if (kind == HC_SET_SRC4) {
		if (hc_conf.sets & HC_SET_HOST_BIT(HC_SET_SRC4))
			v = bpf_map_lookup_elem(&hc_set_host4, &k4->addr);
		if (!v && (hc_conf.sets & HC_SET_BIT(HC_SET_SRC4)))
			v = bpf_map_lookup_elem(&hc_set_src4, key);
	} else {
		if (hc_conf.sets & HC_SET_HOST_BIT(HC_SET_SRC6))
			v = bpf_map_lookup_elem(&hc_set_host6, k6->addr);
		if (!v && (hc_conf.sets & HC_SET_BIT(HC_SET_SRC6)))
			v = bpf_map_lookup_elem(&hc_set_src6, key);
	}
	return v && *v < HC_NR_VERDICTS ? (int)*v : -1;
}

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
