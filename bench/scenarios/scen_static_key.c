// SPDX-License-Identifier: GPL-2.0
/*
 * static-key: every row drops the frame at the same late point (ip_rcv:
 * not our MAC); rows differ only in what turns the ingress static key on
 * and what runs before ip_rcv.
 */
#include "bench.h"
#include "kind.h"
#include "path.h"
#include "scenario.h"

static const struct {
	const char *name, *qdisc;
	bool other_dev, u32;
} qdisc_rows[] = {
	{ "ingress-other-dev", "ingress", .other_dev = true },
	{ "ingress", "ingress" },
	{ "clsact", "clsact" },
	{ "ingress+u32", "ingress", .u32 = true },
};

static const char *const pass_hooks[] = { "xdp-native", "xdp-generic",
					  "tc-clsact", "tcx" };

static void sk_build(struct bench_rows *rows)
{
	struct bench_row *r;
	unsigned int i;

	bench_row_add(rows, "nothing", &bench_kind_stack);
	for (i = 0; i < sizeof(qdisc_rows) / sizeof(qdisc_rows[0]); i++) {
		r = bench_row_add(rows, qdisc_rows[i].name,
				  &bench_kind_qdisc);
		bench_row_qdisc(r, qdisc_rows[i].qdisc, qdisc_rows[i].other_dev,
				qdisc_rows[i].u32);
	}
	for (i = 0; i < sizeof(pass_hooks) / sizeof(pass_hooks[0]); i++) {
		r = bench_row_hook(rows, pass_hooks[i], "-pass");
		r->run.conf.def_verdict = HC_PASS;
		r->drop = false;
		bench_row_path(r, BENCH_PATH_STACK);
	}
	for (i = 0; i < (unsigned int)rows->n; i++)
		bench_row_base(&rows->row[i], "nothing");
}

const struct bench_scenario bench_scen_static_key = {
	.name = "static-key",
	.help = "what an ingress qdisc anywhere costs every frame",
	.baseline = "nothing",
	.build = sk_build,
	.keys = true,
	/*
	 * A fixed 30 rounds reached +-1% in 3 of 7 runs on veth: the rounds
	 * it takes vary with the host. Under 2 minutes with the warm-up.
	 */
	.target_ci = 1,
	.max_time = 100,
};
