// SPDX-License-Identifier: GPL-2.0
/*
 * The scenarios, in the order help lists them: a file each, a line here
 * (each ends in '\\', the list in an empty line).
 */
#include "bench.h"
#include "scenario.h"

/* clang-format off */
#define BENCH_SCENARIOS(X)	\
	X(hooks)		\
	X(static_key)		\
	X(parse)		\
	X(rules)		\
	X(size)			\
	X(aa)			\
	X(forward)		\
	X(scale)		\
	X(flows)		\

/* clang-format on */

#define BENCH_SCEN_DECLARE(n) extern const struct bench_scenario bench_scen_##n;
#define BENCH_SCEN_ENTRY(n) &bench_scen_##n,
BENCH_SCENARIOS(BENCH_SCEN_DECLARE)

const struct bench_scenario *const bench_scenarios[] = {
	BENCH_SCENARIOS(BENCH_SCEN_ENTRY) NULL
};
