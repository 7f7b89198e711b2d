// SPDX-License-Identifier: GPL-2.0
#include "hc_direct.h"

SEC("xdp")
int hc_xdp(struct xdp_md *ctx)
{
	struct hc_pkt p = {
		.data = (void *)(long)ctx->data,
		.data_end = (void *)(long)ctx->data_end,
	};
	__u32 cls, v = hc_process(&p, &hc_conf, &cls);

	hc_count(cls, v, p.data_end - p.data);
	return v == HC_DROP ? XDP_DROP : XDP_PASS;
}

/* The hook's floor: what the logic costs is measured against this. */
SEC("xdp")
int hc_xdp_bare(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
