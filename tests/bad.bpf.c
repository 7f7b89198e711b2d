// SPDX-License-Identifier: GPL-2.0
/* Fails verification on purpose: the loader must show why. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int hc_bad(struct xdp_md *ctx)
{
	/* No bounds check against data_end. */
	return *(volatile unsigned char *)(long)ctx->data;
}

char LICENSE[] SEC("license") = "GPL";
