// SPDX-License-Identifier: GPL-2.0
/*
 * forward: every frame goes on, out of the DUT to a sink namespace, and is
 * counted there (topo.c). XDP and tc redirects with the l4 logic, which
 * also sets the sink's MAC; nftables' fwd, which sets it too; and the
 * kernel's own forwarding, the baseline.
 */
#include <stdio.h>
#include "bench.h"
#include "kind.h"
#include "path.h"
#include "scenario.h"

#define XDP_RD "xdp_do_redirect bq_enqueue|bq_xmit_all|__dev_flush|xdp_do_flush"

static const struct {
	const char *name, *hook;
	__u32 flags; /* how it redirects */
	const char *path; /* its path past the hook's */
} redirects[] = {
	{ "xdp-redirect-map", "xdp-native", HC_RD_MAP, XDP_RD " dev_map_enqueue|dev_map_enqueue_multi|dev_map_redirect|__dev_map_lookup_elem|bq_enqueue" },
	{ "xdp-redirect", "xdp-native", 0, XDP_RD },
	/* skb_do_redirect tail-calls __bpf_redirect: often not in a callchain */
	{ "tc-redirect", "tc-clsact", 0, "skb_do_redirect|__bpf_redirect" },
	{ "tcx-redirect", "tcx", 0, "skb_do_redirect|__bpf_redirect" },
	{ "tc-redirect-peer", "tc-clsact", HC_RD_PEER, "skb_do_redirect" },
};

/* Addressed to the DUT and routed on: every frame must reach the sink. */
static void forwards(struct bench_row *r)
{
	r->forward = true;
	r->drop = false;
	r->local = true;
	bench_row_base(r, "stack-forward");
}

static void forward_build(struct bench_rows *rows)
{
	struct bench_row *r;
	unsigned int i;

	for (i = 0; i < sizeof(redirects) / sizeof(redirects[0]); i++) {
		r = bench_row_hook(rows, redirects[i].hook, "");
		snprintf(r->name, sizeof(r->name), "%s", redirects[i].name);
		r->kind = &bench_kind_fwd_bpf;
		r->run.conf.def_verdict = HC_REDIRECT;
		r->run.conf.redirect.flags = redirects[i].flags | HC_RD_DMAC;
		/* not the stack's forwarding: the redirect's own */
		bench_row_path(r, redirects[i].path);
		bench_row_path(r, "!ip_forward");
		forwards(r);
	}
	forwards(bench_row_add(rows, "stack-forward",
			       &bench_kind_fwd_stack));
	forwards(bench_row_add(rows, "nft-fwd", &bench_kind_fwd_nft));
}

const struct bench_scenario bench_scen_forward = {
	.name = "forward",
	.help = "XDP, tc and tcx redirects, redirect_peer, nftables fwd and the stack, counted at a sink",
	.baseline = "stack-forward",
	.build = forward_build,
	.forward = true,
};
