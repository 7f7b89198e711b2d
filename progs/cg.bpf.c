// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at cgroup ingress: a cgroup_skb/ingress program on a cgroup that
 * holds only hookcmp's UDP socket, so it sees what that socket would
 * receive, as the socket-udp filter does, one step earlier (sk_filter's
 * cgroup hook runs before the socket's own filter). The skb starts at
 * the network header; packet access as for sockets (hc_skb.h).
 * Returning 0 drops the packet, 1 lets the socket have it.
 */
#include "hc_skb.h"

SEC("cgroup_skb/ingress")
int hc_cg(struct __sk_buff *skb)
{
	struct hc_pkt p = hc_skb_at_l3(skb);
	__u32 cls, v = hc_process(&p, &hc_conf, &cls);

	hc_count(cls, v, hc_l3_frame_len(skb, p.l3_proto));
	return v == HC_DROP ? 0 : 1;
}

SEC("cgroup_skb/ingress")
int hc_cg_bare(struct __sk_buff *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
