// SPDX-License-Identifier: GPL-2.0
/*
 * aa: the same row twice under two names (an A/A test). Their
 * difference is zero by construction, so its interval is the smallest
 * difference this machine can show.
 */
#include "bench.h"
#include "kind.h"
#include "scenario.h"

static void aa_build(struct bench_rows *rows)
{
	bench_row_base(bench_row_add(rows, "nothing-a", &bench_kind_stack),
		       "nothing-a");
	bench_row_base(bench_row_add(rows, "nothing-b", &bench_kind_stack),
		       "nothing-a");
}

const struct bench_scenario bench_scen_aa = {
	.name = "aa",
	.help = "static-key's baseline twice: this machine's resolution",
	.baseline = "nothing-a",
	.build = aa_build,
};
