// SPDX-License-Identifier: GPL-2.0
/*
 * Socket filters cannot read packet memory directly, so bytes come through
 * bpf_skb_load_bytes_relative(). An AF_PACKET socket sees the frame from its
 * MAC header; a UDP socket's skb starts past the IP header, so that variant
 * reads from the network header and takes the ethertype from the skb.
 */
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

static __always_inline int hc_sock(struct __sk_buff *skb, struct hc_pkt *p)
{
	__u32 cls, v = hc_process(p, &hc_conf, &cls);

	hc_count(cls, v, skb->len);
	return v == HC_DROP ? 0 : skb->len;
}

SEC("socket")
int hc_sock_mac(struct __sk_buff *skb)
{
	struct hc_pkt p = {
		.skb = skb,
		.start = BPF_HDR_START_MAC,
		.vlans = skb->vlan_present,
	};

	return hc_sock(skb, &p);
}

SEC("socket")
int hc_sock_net(struct __sk_buff *skb)
{
	struct hc_pkt p = {
		.skb = skb,
		.start = BPF_HDR_START_NET,
		.l3_proto = bpf_ntohs(skb->protocol),
		.at_l3 = 1,
		.vlans = skb->vlan_present,
	};

	return hc_sock(skb, &p);
}

SEC("socket")
int hc_sock_bare(struct __sk_buff *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
