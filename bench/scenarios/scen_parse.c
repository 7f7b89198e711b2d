// SPDX-License-Identifier: GPL-2.0
/* parse: each hook's logic reading nothing, then L2, L3 and L4. */
#include "bench.h"
#include "scenario.h"

static void parse_set(struct bench_row *r, int level)
{
	r->run.conf.parse = HC_PARSE_NONE + level;
}

static void parse_build(struct bench_rows *rows)
{
	static const char *const depths[] = { "-none", "-l2", "-l3", "-l4",
					      NULL };

	bench_rows_per_hook(rows, depths, parse_set);
}

const struct bench_scenario bench_scen_parse = {
	.name = "parse",
	.help = "each hook parsing to none, l2, l3, l4",
	.baseline = "HOOK-none",
	.build = parse_build,
};
