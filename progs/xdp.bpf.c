// SPDX-License-Identifier: GPL-2.0
#include "hc_direct.h"

/* The redirect target at key 0, filled in by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} hc_tx SEC(".maps");

SEC("xdp")
int hc_xdp(struct xdp_md *ctx)
{
	struct hc_pkt p = {
		.data = (void *)(long)ctx->data,
		.data_end = (void *)(long)ctx->data_end,
	};
	__u32 cls, v = hc_process(&p, &hc_conf, &cls);

	hc_count(cls, v, p.data_end - p.data);
	if (v != HC_REDIRECT)
		return v == HC_DROP ? XDP_DROP : XDP_PASS;
	hc_set_dmac(&p);
	if (hc_conf.redirect.flags & HC_RD_MAP)
		return bpf_redirect_map(&hc_tx, 0, 0);
	return bpf_redirect(hc_conf.redirect.ifindex, 0);
}

/* The hook's floor: what the logic costs is measured against this. */
SEC("xdp")
int hc_xdp_bare(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
