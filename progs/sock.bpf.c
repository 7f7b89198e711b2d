// SPDX-License-Identifier: GPL-2.0
/*
 * Socket filters cannot read packet memory directly, so bytes come through
 * bpf_skb_load_bytes_relative(). An AF_PACKET socket sees the frame from its
 * MAC header; a UDP socket's skb starts past the IP header, so that variant
 * reads from the network header and takes the ethertype from the skb.
 * Both count bytes as every hook does: the frame from its Ethernet header.
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

/* Only keep or drop: the loader refuses redirect for sockets. */
static __always_inline int hc_sock(struct __sk_buff *skb, struct hc_pkt *p,
				   __u64 bytes)
{
	__u32 cls, v = hc_process(p, &hc_conf, &cls);

	hc_count(cls, v, bytes);
	return v == HC_DROP ? 0 : skb->len;
}

/*
 * A UDP socket's skb starts at the UDP header, and ip_rcv trimmed it to the
 * IP length: the frame was the Ethernet header, its VLAN tag and the IP
 * packet (Ethernet padding of a short frame is gone by now).
 */
static __always_inline __u64 hc_udp_frame_len(struct __sk_buff *skb,
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
	struct hc_pkt p = {
		.skb = skb,
		.start = BPF_HDR_START_NET,
		.l3_proto = bpf_ntohs(skb->protocol),
		.at_l3 = 1,
		.vlans = skb->vlan_present,
	};

	return hc_sock(skb, &p, hc_udp_frame_len(skb, p.l3_proto));
}

SEC("socket")
int hc_sock_bare(struct __sk_buff *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
