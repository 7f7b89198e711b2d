/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The round planner: each round runs every row once, in a freshly
 * shuffled order, so that a drift of the machine lands on all rows alike
 * instead of on whichever rows happened to be running.
 */
#ifndef HC_PLAN_H
#define HC_PLAN_H

#include <stdbool.h>
#include <linux/types.h>

#define BENCH_PLAN_MAX 64

struct bench_plan {
	__u64 rng;
	int n;
	int prev[BENCH_PLAN_MAX];
	bool started;
};

/* n rows (at most BENCH_PLAN_MAX); the same seed gives the same orders. */
void bench_plan_init(struct bench_plan *p, int n, __u64 seed);
/*
 * The next round's order: a permutation of 0..n-1, never the same as the
 * round before's when n >= 2.
 */
void bench_plan_next(struct bench_plan *p, int *order);

#endif
