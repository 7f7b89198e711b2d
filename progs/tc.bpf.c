// SPDX-License-Identifier: GPL-2.0
#include <linux/pkt_cls.h>
#include "hc_direct.h"

/* For cls_bpf in direct-action mode and for tcx alike. */
SEC("tc")
int hc_tc(struct __sk_buff *skb)
{
	struct hc_pkt p = {
		.data = (void *)(long)skb->data,
		.data_end = (void *)(long)skb->data_end,
		.vlans = skb->vlan_present,
	};
	__u32 cls, v = hc_process(&p, &hc_conf, &cls);

	hc_count(cls, v, hc_skb_frame_len(skb));
	if (v != HC_REDIRECT)
		return v == HC_DROP ? TC_ACT_SHOT : TC_ACT_OK;
	hc_set_dmac(&p);
	/* To the target's egress, or straight into its peer's ingress. */
	if (hc_conf.redirect.flags & HC_RD_PEER)
		return bpf_redirect_peer(hc_conf.redirect.ifindex, 0);
	return bpf_redirect(hc_conf.redirect.ifindex, 0);
}

SEC("tc")
int hc_tc_bare(struct __sk_buff *skb)
{
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
