// SPDX-License-Identifier: GPL-2.0
/*
 * flows: each hook, and the stack's, iptables' and nftables' drops, at 1,
 * 16, 256, 4,096 and 65,536 flows (--flows): the generator's frames take
 * that many UDP source ports in turn. A path whose cost grows with the
 * flows keeps something per flow (GRO's lists, conntrack's entries, a
 * lookup's cache lines); its growth says which paths do, fitted as
 * scale's is for sets.
 */
#include <math.h>
#include <stdio.h>
#include "bench.h"
#include "gen.h"
#include "hooks.h"
#include "kind.h"
#include "opts.h"
#include "print.h"
#include "report.h"
#include "scenario.h"
#include "summary.h"

/* --flows LIST */
static struct bench_counts flows = {
	.opt = "flows",
	.what = "flow counts",
	.max = HC_GEN_FLOWS_MAX,
	.def = (const __u32[]){ 1, 16, 256, 4096, 65536, 0 },
};

/* The peers beside the hooks: a kind each. */
static const struct {
	const char *name;
	const struct bench_kind *kind;
	bool local; /* after ip_rcv: frames addressed to the DUT */
} peers[] = {
	{ "stack", &bench_kind_stack },
	{ "iptables-raw", &bench_kind_ipt, true },
	{ "nft-ingress", &bench_kind_nft },
};

static const __u32 *n;
/* "-1flow", "-16flows", ...: each count's, the fewest first. */
static char suffix[BENCH_MAX_COUNTS][24];
static const char *suffixes[BENCH_MAX_COUNTS + 1];

static void flows_set(struct bench_row *r, int level)
{
	r->flows = n[level];
	r->series = r->hook->name;
}

static void flows_build(struct bench_rows *rows)
{
	int count = bench_counts(&flows, &n), i, k;
	struct bench_row *r;

	for (i = 0; i < count; i++) {
		snprintf(suffix[i], sizeof(suffix[i]), "-%uflow%s", n[i],
			 n[i] > 1 ? "s" : "");
		suffixes[i] = suffix[i];
	}
	suffixes[count] = NULL;
	bench_rows_per_hook(rows, suffixes, flows_set);
	for (k = 0; k < (int)(sizeof(peers) / sizeof(peers[0])); k++)
		for (i = 0; i < count; i++) {
			char name[40];

			snprintf(name, sizeof(name), "%s-%uflow%s",
				 peers[k].name, n[i], n[i] > 1 ? "s" : "");
			r = bench_row_add(rows, name, peers[k].kind);
			r->local = peers[k].local;
			r->flows = n[i];
			r->series = peers[k].name;
			bench_row_base(r, "%s%s", peers[k].name, suffix[0]);
		}
}

static void flows_row_json(struct hc_pr *p, const struct bench *b,
			   const struct bench_row *r)
{
	hc_pr_num(p, HC_PR_JSON, "flows", NULL, 0, 0, r->flows ?: 1);
}

static __u32 flows_of(const struct bench_row *r)
{
	return r->flows ?: 1;
}

/* Each path's growth with the flows. */
static void flows_report(struct hc_pr *p, const struct bench *b)
{
	static const struct bench_growth g = {
		.series = "path",
		.n = "flows",
		.per = "flow",
		.what = "what each flow more costs, where a path walks its flows",
		.n_of = flows_of,
	};

	bench_growth_report(p, &b->rows, &b->res, &g);
}

const struct bench_scenario bench_scen_flows = {
	.name = "flows",
	.help = "each hook, the stack, iptables and nftables drops at 1, 16, 256, 4,096 and 65,536 flows, UDP source ports in turn (--flows)",
	.baseline = "its fewest flows",
	.build = flows_build,
	.opts = (const struct hc_opt[]){
		{ "flows", 0, HC_OPT_FUNC, 0, "LIST",
		  "the numbers of flows, ascending (default 1,16,256,4096,65536)",
		  .fn = bench_counts_parse, .flags = HC_OPT_LIST,
		  .cfg = &flows },
		{} },
	.row_json = flows_row_json,
	.report = flows_report,
};
