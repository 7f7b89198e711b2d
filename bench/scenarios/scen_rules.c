// SPDX-License-Identifier: GPL-2.0
/* rules: each hook walking 0, 1, 8 and 64 rules that never match. */
#include <stdio.h>
#include "bench.h"
#include "scenario.h"
#include "rules.h"

static const int counts[] = { 0, 1, 8, 64 };

static void rules_set(struct bench_row *r, int level)
{
	struct hc_conf *c = &r->run.conf;
	int k;

	for (k = 0; k < counts[level]; k++) {
		struct hc_err err = {};
		char text[32];

		snprintf(text, sizeof(text), "tcp dport %d pass", 60000 + k);
		hc_rule_parse(text, &c->rules[k], &err);
	}
	c->nr_rules = counts[level];
}

static void rules_build(struct bench_rows *rows)
{
	static const char *const names[] = { "-0rules", "-1rules", "-8rules",
					     "-64rules", NULL };

	bench_rows_per_hook(rows, names, rules_set);
}

const struct bench_scenario bench_scen_rules = {
	.name = "rules",
	.help = "each hook with 0, 1, 8, 64 rules that never match",
	.baseline = "HOOK-0rules",
	.build = rules_build,
};
