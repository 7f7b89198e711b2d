// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_XDP hook's XDP program: each frame goes to the socket of its rx
 * queue, where the logic runs in userspace (loader/xsk.c). A queue with no
 * socket passes its frames to the stack, counted so the run can say so.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1); /* the device's rx queue count, set at load */
	__type(key, __u32);
	__type(value, __u32);
} hc_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hc_xsk_missed SEC(".maps");

SEC("xdp")
int hc_xsk(struct xdp_md *ctx)
{
	long ret = bpf_redirect_map(&hc_xsks, ctx->rx_queue_index, XDP_PASS);
	__u32 key = 0;
	__u64 *n;

	if (ret == XDP_REDIRECT)
		return ret;
	n = bpf_map_lookup_elem(&hc_xsk_missed, &key);
	if (n)
		(*n)++;
	return ret;
}

char LICENSE[] SEC("license") = "GPL";
