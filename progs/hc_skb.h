/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet access for the hooks that cannot read packet memory directly
 * (socket filters; cgroup skb programs, when that hook lands): bytes come
 * through bpf_skb_load_bytes_relative(), from the MAC header or, for an
 * skb that starts past the IP header, from the network header with the
 * ethertype taken from the skb.
 */
#ifndef HC_SKB_H
#define HC_SKB_H

#include "hc_bpf.h"
#include <bpf/bpf_endian.h>

struct hc_pkt {
	struct __sk_buff *skb;
	__u32 start;
	__u16 l3_proto;
	__u8 at_l3;
	__u8 vlans;
};

static __always_inline int hc_load(struct hc_pkt *p, __u32 off, void *dst,
				   __u32 len)
{
	return bpf_skb_load_bytes_relative(p->skb, off, dst, len, p->start);
}

#include "hc_logic.h"

/* An skb read from its network header, as a UDP socket or a cgroup sees it. */
static __always_inline struct hc_pkt hc_skb_at_l3(struct __sk_buff *skb)
{
	return (struct hc_pkt){
		.skb = skb,
		.start = BPF_HDR_START_NET,
		.l3_proto = bpf_ntohs(skb->protocol),
		.at_l3 = 1,
		.vlans = skb->vlan_present,
	};
}

/*
 * Such an skb starts at the transport header, and ip_rcv trimmed it to
 * the IP length: the frame was the Ethernet header, its VLAN tag and the
 * IP packet (Ethernet padding of a short frame is gone by now).
 */
static __always_inline __u64 hc_l3_frame_len(struct __sk_buff *skb,
					     __u16 l3_proto)
{
	__be16 len = 0;

	if (l3_proto == HC_ETH_P_IP) {
		bpf_skb_load_bytes_relative(skb, 2, &len, 2, BPF_HDR_START_NET);
		return HC_ETH_HLEN + (skb->vlan_present ? 4 : 0) +
		       bpf_ntohs(len);
	}
	bpf_skb_load_bytes_relative(skb, 4, &len, 2, BPF_HDR_START_NET);
	return HC_ETH_HLEN + (skb->vlan_present ? 4 : 0) + 40 + bpf_ntohs(len);
}

#endif
