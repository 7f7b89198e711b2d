// SPDX-License-Identifier: GPL-2.0
/*
 * Rows that forward each frame out of hco to the sink (topo.c), where one
 * counter counts it: hookcmp's program redirecting, the stack routing,
 * nftables' fwd. Each reads the sink, and what the DUT's devices dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "kind.h"
#include "topo.h"
#include "hooks.h"
#include "exec.h"
#include "stats.h"

/* Redirect: run's own checks first; a target that drops is INVALID. */
static int fwd_bpf_setup(struct bench *b, struct bench_row *r,
			 struct hc_err *err)
{
	struct hc_run *run = &r->run;
	char warn[256];
	int ret;

	memset(&run->err, 0, sizeof(run->err));
	run->dev = BENCH_DUT_DEV;
	run->nl = b->net.nl_dut;
	run->redirect_dev = BENCH_OUT_DEV;
	memcpy(run->conf.redirect.dmac, bench_topo_sink_mac(&b->net), 6);
	ret = bench_enter(b->net.fd_dut) ?:
		      hc_redirect_check(run, warn, sizeof(warn));
	bench_enter(b->net.fd_gen);
	if (ret) {
		*err = run->err;
		return ret;
	}
	if (warn[0]) {
		hc_err_set(err, "%s", warn);
		return -EOPNOTSUPP;
	}
	return bench_kind_bpf.setup(b, r, err);
}

static void fwd_bpf_teardown(struct bench *b, struct bench_row *r)
{
	bench_kind_bpf.teardown(b, r);
}

static int bpf_runs(struct bench *b, struct bench_row *r, __u64 *n)
{
	return bench_kind_bpf.runs(b, r, n);
}

/* What the program did not redirect it dropped, or passed to the stack. */
static int fwd_bpf_read(struct bench *b, struct bench_row *r,
			struct bench_count *c)
{
	struct hc_snap s;
	int cls, ret;

	ret = bench_read_sink(b, r, c) ?: hc_stats_read(r->run.stats_fd, &s);
	if (ret)
		return ret;
	for (cls = 0; cls < HC_NR_CLASSES; cls++) {
		c->dropped_dut += s.c[cls * HC_NR_VERDICTS + HC_DROP].packets;
		c->passed += s.c[cls * HC_NR_VERDICTS + HC_PASS].packets;
	}
	return 0;
}

#define DEV_DROPS BENCH_DUT_DEV " rx_dropped, " BENCH_OUT_DEV " tx_dropped"

const struct bench_kind bench_kind_fwd_bpf = {
	.name = "redirect",
	.setup = fwd_bpf_setup,
	.teardown = fwd_bpf_teardown,
	.read = fwd_bpf_read,
	.runs = bpf_runs,
	.counted = "bpf_prog_*",
	.dropped_at = DEV_DROPS ", the program's drops",
};

/* The stack: ip_forward, with the route and neighbour topo.c put there. */
static int none(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return 0;
}

static void nothing(struct bench *b, struct bench_row *r)
{
}

const struct bench_kind bench_kind_fwd_stack = {
	.name = "stack-forward",
	.path = "ip_forward",
	.setup = none,
	.teardown = nothing,
	.read = bench_read_sink,
	.dropped_at = DEV_DROPS,
};

/* nftables: netdev ingress, the sink's MAC, then `fwd to` hco. */
static int fwd_nft_setup(struct bench *b, struct bench_row *r,
			 struct hc_err *err)
{
	char rules[400];
	const char *argv[] = { "nft", rules, NULL };
	const __u8 *m = bench_topo_sink_mac(&b->net);

	/* One argument, not a shell line: nft parses it, no one else. */
	snprintf(
		rules, sizeof(rules),
		"add table netdev hcfwd; "
		"add chain netdev hcfwd in { type filter hook ingress device " BENCH_DUT_DEV
		" priority 0; }; "
		"add rule netdev hcfwd in ether daddr set %02x:%02x:%02x:%02x:%02x:%02x fwd to " BENCH_OUT_DEV,
		m[0], m[1], m[2], m[3], m[4], m[5]);
	return hc_exec(b->net.fd_dut, argv, NULL, 0, err);
}

static void fwd_nft_teardown(struct bench *b, struct bench_row *r)
{
	static const char *const argv[] = { "nft", "delete table netdev hcfwd",
					    NULL };
	struct hc_err err = {};

	hc_exec(b->net.fd_dut, argv, NULL, 0, &err);
}

const struct bench_kind bench_kind_fwd_nft = {
	.name = "nft-fwd",
	.path = "nft_do_chain !ip_forward",
	.setup = fwd_nft_setup,
	.teardown = fwd_nft_teardown,
	.read = bench_read_sink,
	.dropped_at = DEV_DROPS,
};
