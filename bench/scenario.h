/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: what scenarios build with (scenario.c), and their catalogue
 * (scenarios.c).
 */
#ifndef HC_BENCH_SCENARIO_H
#define HC_BENCH_SCENARIO_H

#include "bench.h"

/* --hooks lets this row in; a scenario's baseline is always let in. */
struct bench_row *bench_row_add(struct bench *b, const char *name,
				const struct bench_kind *kind);
/* NAMESUFFIX: the hook row NAME (loader/hooks/), attached as run attaches it. */
struct bench_row *bench_row_hook(struct bench *b, const char *name,
				 const char *suffix);
void bench_row_base(struct bench_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * HOOK-SUFFIX for every wanted hook and each suffix (a NULL-terminated
 * list), set(r, i) making level i; each compared with its hook's first.
 */
void bench_rows_per_hook(struct bench *b, const char *const *suffixes,
			 void (*set)(struct bench_row *r, int level));
/*
 * The scenario's rows, gen-only rows per frame size and number of flows,
 * baselines resolved.
 */
int bench_rows_build(struct bench *b, struct hc_err *err);
int bench_row_find(const struct bench_rows *rows, const char *name);

/* scale's default --sizes, 0-terminated. */
extern const __u32 bench_scale_sizes[];

/* The catalogue (scenarios.c), NULL-terminated. */
extern const struct bench_scenario *const bench_scenarios[];

#endif
