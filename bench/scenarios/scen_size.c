// SPDX-License-Identifier: GPL-2.0
/* size: each hook with 60, 512 and 1500-byte frames. */
#include "bench.h"
#include "scenario.h"

static void size_set(struct bench_row *r, int level)
{
	static const __u32 sizes[] = { 60, 512, 1500 };

	r->size = sizes[level];
}

static void size_build(struct bench_rows *rows)
{
	static const char *const names[] = { "-60", "-512", "-1500", NULL };

	bench_rows_per_hook(rows, names, size_set);
}

const struct bench_scenario bench_scen_size = {
	.name = "size",
	.help = "each hook with 60, 512, 1500-byte frames",
	.baseline = "HOOK-60",
	.build = size_build,
};
