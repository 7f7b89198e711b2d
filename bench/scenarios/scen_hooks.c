// SPDX-License-Identifier: GPL-2.0
/*
 * hooks: the l4 drop logic at every BPF hook, netfilter's included, and
 * behind AF_XDP, iptables and nftables drops, the plain stack, and each
 * hook's floor: its bare program (drop, count nothing), and AF_XDP not
 * reading the frame (rx_drop), against native XDP.
 */
#include <stdio.h>
#include "bench.h"
#include "kind.h"
#include "opts.h"
#include "scenario.h"
#include "hooks.h"

static bool no_bare; /* --no-bare */

static void hooks_build(struct bench_rows *rows)
{
	const struct hc_hook *const *h;
	const struct hc_hook_row *row;
	struct bench_row *r;
	int i;

	for (h = hc_hooks; *h; h++)
		for (row = (*h)->rows; row && row->name; row++)
			bench_row_hook(rows, row->name, "");
	bench_row_add(rows, "iptables-raw", &bench_kind_ipt)->local = true;
	bench_row_add(rows, "nft-ingress", &bench_kind_nft);
	bench_row_add(rows, "stack", &bench_kind_stack);
	for (h = hc_hooks; *h && !no_bare; h++)
		for (row = (*h)->rows; row && row->name; row++)
			if (row->flags & HC_ROW_BARE)
				bench_row_hook(rows, row->name, "-bare")
					->run.bare = true;
	/* AF_XDP's floor: not reading the frame. */
	if (!no_bare) {
		r = bench_row_hook(rows, "xsk-l4", "");
		snprintf(r->name, sizeof(r->name), "xsk-none");
		r->run.conf.parse = HC_PARSE_NONE;
	}
	for (i = 0; i < rows->n; i++)
		bench_row_base(&rows->row[i], "xdp-native");
}

const struct bench_scenario bench_scen_hooks = {
	.name = "hooks",
	.help = "every hook's drop, iptables, nftables, the stack, bare programs",
	.baseline = "xdp-native",
	.build = hooks_build,
	.opts = (const struct hc_opt[]){
		{ "no-bare", 0, HC_OPT_FLAG, 0, NULL,
		  "leave out the floor rows (-bare, xsk-none)", .cfg = &no_bare },
		{} },
};
