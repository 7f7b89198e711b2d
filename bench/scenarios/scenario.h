/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: what scenarios build with (scenario.c), and their catalogue
 * (scenarios.c).
 */
#ifndef HC_BENCH_SCENARIO_H
#define HC_BENCH_SCENARIO_H

#include "bench.h"

/* --hooks lets this row in; a scenario's baseline is always let in. */
struct bench_row *bench_row_add(struct bench_rows *rows, const char *name,
				const struct bench_kind *kind);
/* NAMESUFFIX: the hook row NAME (loader/), attached as run attaches it. */
struct bench_row *bench_row_hook(struct bench_rows *rows, const char *name,
				 const char *suffix);
void bench_row_base(struct bench_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * HOOK-SUFFIX for every wanted hook and each suffix (a NULL-terminated
 * list), set(r, i) making level i; each compared with its hook's first.
 */
void bench_rows_per_hook(struct bench_rows *rows, const char *const *suffixes,
			 void (*set)(struct bench_row *r, int level));
/*
 * The scenario's rows, gen-only rows per frame size and number of flows,
 * baselines resolved.
 */
int bench_rows_build(struct bench *b, struct hc_err *err);
int bench_row_find(const struct bench_rows *rows, const char *name);

/*
 * A scenario's list of counts (scale's --sizes, flows' --flows): up to
 * BENCH_MAX_COUNTS, ascending, from 1 to max, "1k" for 1000. Its option
 * is an HC_OPT_FUNC of bench_counts_parse, .cfg the list.
 */
#define BENCH_MAX_COUNTS 8
struct bench_counts {
	const char *opt; /* its option, "sizes" */
	const char *what; /* "entry counts": the error's words */
	__u32 max;
	const __u32 *def; /* without the option: these, 0-terminated */
	__u32 v[BENCH_MAX_COUNTS];
	int n; /* 0: not given */
};
int bench_counts_parse(void *cfg, const char *arg, struct hc_err *err);
/* The counts given, or the default ones: how many, into *v. */
int bench_counts(const struct bench_counts *c, const __u32 **v);

/* The catalogue (scenarios.c), NULL-terminated. */
extern const struct bench_scenario *const bench_scenarios[];

#endif
