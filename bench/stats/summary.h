/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: what makes a round count, and from rounds to estimates
 * (summary.c).
 */
#ifndef HC_BENCH_SUMMARY_H
#define HC_BENCH_SUMMARY_H

#include "bench.h"

/*
 * Why a round of r does not count ("" when it does): frames unaccounted
 * for, a drop row that passed some, a forward row that did not forward all.
 */
void bench_round_check(const struct bench_row *r, const struct bench_round *rd,
		       char *why, size_t size);
/*
 * --dev: the device's counters close the sum (generated, or rx_packets
 * when nothing says what was sent, = seen + dropped before, within
 * BENCH_TOLERANCE): 0; they do not: 1, unverified, why says with which
 * numbers; no packets at all or a drop row that passed some: -1, INVALID.
 * Frames sent of which dev's counters saw none are lost, said so; the
 * round's cause, if it has one, follows what failed.
 */
int bench_round_device(const struct bench_row *r, const struct bench_round *rd,
		       const char *dev, char *why, size_t size);
/* Per-round costs, estimates and flags of every row. */
void bench_summarize(struct bench *b);
/*
 * A row is unresolved when its delta's interval spans 0 and its
 * half-width is over this percent of its baseline's cost: the small
 * effects bench looks for (a static key's, under 1%) may be there or
 * not.
 */
#define BENCH_UNRESOLVED_PCT 1.0
/*
 * Why r has no estimates, and is INVALID: its reason, or too few rounds
 * with a cost for an interval (bench_summarize); NULL: it has them.
 */
const char *bench_row_void(const struct bench_row *r);
/*
 * The row's unpaired cost and its paired delta against the baseline
 * differ in sign: the machine's speed moved between the rows' windows.
 */
bool bench_disagrees(const struct bench_rows *rows, const struct bench_row *r);
/*
 * A scenario's growth: how the costs of each of its series' rows (the
 * same mechanism or hook along a quantity n) grow with n.
 */
struct bench_growth {
	const char *series; /* JSON: the key of a series' name ("mechanism") */
	const char *n; /* what n is, in the text ("N") */
	const char *per; /* the slope on n: per what ("entry") */
	const char *what; /* and what that slope is */
	const char *load; /* its rows' setup times: "setup with N entries" */
	__u32 (*n_of)(const struct bench_row *r);
};
/*
 * How the rows of series cost more with n, in ns per packet per doubling
 * of n (per_n: per unit of n, the linear mechanisms' cost of a rule):
 * st_growth of their costs per round against log2 n (n), INVALID rows
 * left out. *nrows: the rows it had. 0, or -ENOMEM.
 */
int bench_growth(const struct bench_rows *rows, const struct bench_result *res,
		 const struct bench_growth *g, const char *series, bool per_n,
		 struct st_est *e, int *nrows);
/* The slope's verdict: "O(1)", "grows", or NULL without an interval. */
const char *bench_growth_verdict(const struct st_est *e);
/* How long its setup took (scale: its N entries in place), the median. */
double bench_load_ms(const struct bench_row *r);

/* The row's flags ("baseline", "outliers", ...), how many. */
int bench_flags(const struct bench_env *env, const struct bench_rows *rows,
		const struct bench_row *r, const char **flags, int max);

#endif
