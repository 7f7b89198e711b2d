// SPDX-License-Identifier: GPL-2.0
/* The scenarios: a file each (scen_*.c), a line each here. */
#include "bench.h"
#include "scenario.h"

extern const struct bench_scenario bench_scen_hooks, bench_scen_static_key,
	bench_scen_parse, bench_scen_rules, bench_scen_size, bench_scen_aa,
	bench_scen_forward, bench_scen_scale;

const struct bench_scenario *const bench_scenarios[] = {
	&bench_scen_hooks,   &bench_scen_static_key, &bench_scen_parse,
	&bench_scen_rules,   &bench_scen_size,	     &bench_scen_aa,
	&bench_scen_forward, &bench_scen_scale,	     NULL,
};
