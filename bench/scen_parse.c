// SPDX-License-Identifier: GPL-2.0
/* parse: each hook's logic reading nothing, then L2, L3 and L4. */
#include <stdio.h>
#include "bench.h"
#include "rules.h"

static void build(struct bench *b)
{
	const struct bench_hook *h;
	struct bench_row *r;
	int d;

	for (h = bench_hooks; h->name; h++) {
		if (!bench_wanted(b, h->name))
			continue;
		for (d = HC_PARSE_NONE; d <= HC_PARSE_L4; d++) {
			char sfx[16];

			snprintf(sfx, sizeof(sfx), "-%s", hc_parse_names[d]);
			r = bench_row_hook(b, h, sfx);
			r->run.conf.parse = d;
			bench_row_base(r, "%s-none", h->name);
		}
	}
}

const struct bench_scenario bench_scen_parse = {
	.name = "parse",
	.help = "each hook parsing to none, l2, l3, l4",
	.baseline = "HOOK-none",
	.build = build,
};
