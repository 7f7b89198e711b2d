// SPDX-License-Identifier: GPL-2.0
/*
 * Socket filters cannot read packet memory directly (hc_skb.h). An
 * AF_PACKET socket sees the frame from its MAC header; a UDP socket's
 * skb starts past the IP header, so that variant reads from the network
 * header. Both count bytes as every hook does: the frame from its
 * Ethernet header.
 */
#include "hc_skb.h"

/* Only keep or drop: the loader refuses redirect for sockets. */
static __always_inline int hc_sock(struct __sk_buff *skb, struct hc_pkt *p,
				   __u64 bytes)
{
	__u32 cls, v = hc_process(p, &hc_conf, &cls);

	hc_count(cls, v, bytes);
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

	return hc_sock(skb, &p, hc_skb_frame_len(skb));
}

SEC("socket")
int hc_sock_net(struct __sk_buff *skb)
{
	struct hc_pkt p = hc_skb_at_l3(skb);

	return hc_sock(skb, &p, hc_l3_frame_len(skb, p.l3_proto));
}

SEC("socket")
int hc_sock_bare(struct __sk_buff *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
