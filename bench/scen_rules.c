// SPDX-License-Identifier: GPL-2.0
/* rules: each hook walking 0, 1, 8 and 64 rules that never match. */
#include <stdio.h>
#include "bench.h"
#include "rules.h"

static void build(struct bench *b)
{
	static const int counts[] = { 0, 1, 8, 64 };
	const struct bench_hook *h;
	struct bench_row *r;
	unsigned int i;
	int k;

	for (h = bench_hooks; h->name; h++) {
		if (!bench_wanted(b, h->name))
			continue;
		for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct hc_conf *c;
			char sfx[16];

			snprintf(sfx, sizeof(sfx), "-%drules", counts[i]);
			r = bench_row_hook(b, h, sfx);
			c = &r->run.conf;
			for (k = 0; k < counts[i]; k++) {
				struct hc_err err = {};
				char text[32];

				snprintf(text, sizeof(text),
					 "tcp dport %d pass", 60000 + k);
				hc_rule_parse(text, &c->rules[k], &err);
			}
			c->nr_rules = counts[i];
			bench_row_base(r, "%s-0rules", h->name);
		}
	}
}

const struct bench_scenario bench_scen_rules = {
	.name = "rules",
	.help = "each hook with 0, 1, 8, 64 rules that never match",
	.baseline = "HOOK-0rules",
	.build = build,
};
