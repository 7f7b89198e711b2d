// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at a route's input (lwt_in): the logic on what the kernel forwards
 * along a route with "encap bpf in", after ip_rcv and the route lookup,
 * before ip_forward. The skb starts at the IP header, read directly
 * (read-only). BPF_OK lets it go on, BPF_DROP drops it; an lwt_in
 * program cannot redirect. Bytes count the frame as every hook does: the
 * Ethernet header, a VLAN tag the kernel took out, then the IP packet.
 */
#include "hc_direct.h"
#include <bpf/bpf_endian.h>

SEC("lwt_in")
int hc_lwt(struct __sk_buff *skb)
{
	struct hc_pkt p = {
		.data = (void *)(long)skb->data,
		.data_end = (void *)(long)skb->data_end,
		.l3_proto = bpf_ntohs(skb->protocol),
		.at_l3 = 1,
		.vlans = skb->vlan_present,
	};
	__u32 cls, v = hc_process(&p, &hc_conf, &cls);

	hc_count(cls, v, HC_ETH_HLEN + hc_skb_frame_len(skb));
	return v == HC_DROP ? BPF_DROP : BPF_OK;
}

SEC("lwt_in")
int hc_lwt_bare(struct __sk_buff *skb)
{
	return BPF_DROP;
}

char LICENSE[] SEC("license") = "GPL";
