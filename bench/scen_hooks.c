// SPDX-License-Identifier: GPL-2.0
/*
 * hooks: the l4 drop logic at every BPF hook, netfilter's included, and
 * behind AF_XDP, iptables and nftables drops, the plain stack, and each
 * hook's floor: its bare program (drop, count nothing), and AF_XDP not
 * reading the frame (rx_drop), against native XDP.
 */
#include "bench.h"

/* The BPF peer of iptables-raw: the same hook at the same priority. */
static const struct bench_hook netfilter_raw = { "netfilter-raw",
						 HC_HOOK_NETFILTER,
						 .local = true };

static void build(struct bench *b)
{
	const struct bench_hook *h;
	int i;

	for (h = bench_hooks; h->name; h++)
		bench_row_hook(b, h, "");
	bench_row_xsk(b, "-l4", HC_PARSE_L4);
	bench_row_hook(b, &netfilter_raw, "");
	bench_row_add(b, "iptables-raw", &bench_kind_ipt)->local = true;
	bench_row_add(b, "nft-ingress", &bench_kind_nft);
	bench_row_add(b, "stack", &bench_kind_stack);
	for (h = bench_hooks; h->name && !b->no_bare; h++)
		if (h->bare)
			bench_row_hook(b, h, "-bare")->run.bare = true;
	if (!b->no_bare)
		bench_row_xsk(b, "-none", HC_PARSE_NONE);
	for (i = 0; i < b->nrows; i++)
		bench_row_base(&b->rows[i], "xdp-native");
}

const struct bench_scenario bench_scen_hooks = {
	.name = "hooks",
	.help = "every hook's drop, iptables, nftables, the stack, bare programs",
	.baseline = "xdp-native",
	.build = build,
};
