// SPDX-License-Identifier: GPL-2.0
/* size: each hook with 60, 512 and 1500-byte frames. */
#include <stdio.h>
#include "bench.h"

static void build(struct bench *b)
{
	static const __u32 sizes[] = { 60, 512, 1500 };
	const struct bench_hook *h;
	struct bench_row *r;
	unsigned int i;

	for (h = bench_hooks; h->name; h++) {
		if (!bench_wanted(b, h->name))
			continue;
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			char sfx[16];

			snprintf(sfx, sizeof(sfx), "-%u", sizes[i]);
			r = bench_row_hook(b, h, sfx);
			r->size = sizes[i];
			bench_row_base(r, "%s-60", h->name);
		}
	}
}

const struct bench_scenario bench_scen_size = {
	.name = "size",
	.help = "each hook with 60, 512, 1500-byte frames",
	.baseline = "HOOK-60",
	.build = build,
};
