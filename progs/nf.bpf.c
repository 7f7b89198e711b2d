// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at netfilter (Linux 6.4+): a netfilter link at NF_INET_PRE_ROUTING,
 * for IPv4 and IPv6 alike. The hook sees every device of the namespace,
 * so the program counts only what came in on hc_nf_ifindex. The skb
 * starts at the IP header (ip_rcv has checked and trimmed it) and is read
 * through an skb dynptr, the only packet access netfilter programs have.
 * Bytes count the frame as every hook does: its Ethernet header, then
 * the IP packet; a tagged frame never gets here on its own device.
 *
 * Debian 12's headers and libbpf predate the program type: the context
 * and the kernel structs it points to are declared here, read with CO-RE.
 */
#include "hc_bpf.h"
#include <bpf/bpf_core_read.h>

#define NF_DROP 0
#define NF_ACCEPT 1
#define NFPROTO_IPV6 10

struct net_device {
	int ifindex;
} __attribute__((preserve_access_index));

struct nf_hook_state {
	__u8 pf;
	struct net_device *in;
} __attribute__((preserve_access_index));

struct sk_buff {
	unsigned int len;
} __attribute__((preserve_access_index));

struct bpf_nf_ctx {
	const struct nf_hook_state *state;
	struct sk_buff *skb;
};

extern int bpf_dynptr_from_skb(struct sk_buff *skb, __u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;

const volatile __u32 hc_nf_ifindex = 0;

struct hc_pkt {
	struct bpf_dynptr *ptr;
	__u16 l3_proto;
	__u8 at_l3;
	__u8 vlans;
};

static __always_inline int hc_load(struct hc_pkt *p, __u32 off, void *dst,
				   __u32 len)
{
	return bpf_dynptr_read(dst, len, p->ptr, off, 0);
}

#include "hc_logic.h"

/*
 * Came in on our device: the hook is the whole namespace's. No device
 * (0) is prog-run's: BPF_PROG_RUN's state has no in device at any hook
 * (net/bpf/test_run.c sets it from the hook before taking the user's).
 */
static __always_inline int hc_nf_ours(const struct bpf_nf_ctx *ctx)
{
	const struct net_device *in = ctx->state->in;

	if (!hc_nf_ifindex)
		return 1;
	return in && in->ifindex == hc_nf_ifindex;
}

/* Another device's, or not readable: on to the stack, uncounted. */
SEC("netfilter")
int hc_nf(struct bpf_nf_ctx *ctx)
{
	struct bpf_dynptr ptr;
	struct hc_pkt p = { .ptr = &ptr, .at_l3 = 1 };
	__u32 cls, v;

	if (!hc_nf_ours(ctx) || bpf_dynptr_from_skb(ctx->skb, 0, &ptr))
		return NF_ACCEPT;
	/* The hook's family is the packet's: IPv4's link or IPv6's. */
	p.l3_proto = ctx->state->pf == NFPROTO_IPV6 ? HC_ETH_P_IPV6 :
						      HC_ETH_P_IP;
	v = hc_process(&p, &hc_conf, &cls);
	hc_count(cls, v, HC_ETH_HLEN + ctx->skb->len);
	return v == HC_DROP ? NF_DROP : NF_ACCEPT;
}

/* Drops what came in on its device, and only that. */
SEC("netfilter")
int hc_nf_bare(struct bpf_nf_ctx *ctx)
{
	return hc_nf_ours(ctx) ? NF_DROP : NF_ACCEPT;
}

char LICENSE[] SEC("license") = "GPL";
