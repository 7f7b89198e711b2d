/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rounds' order: each round runs every row once, in a freshly
 * shuffled order, so that a drift of the machine lands on all rows alike
 * instead of on whichever rows happened to be running.
 */
#ifndef HC_ORDER_H
#define HC_ORDER_H

#include <stdbool.h>
#include <linux/types.h>

#define BENCH_ORDER_MAX 64 /* the most rows a round orders */

struct bench_order {
	__u64 rng;
	int n;
	int prev[BENCH_ORDER_MAX];
	bool started;
};

/* n rows (at most BENCH_ORDER_MAX); the same seed gives the same orders. */
void bench_order_init(struct bench_order *o, int n, __u64 seed);
/*
 * The next round's order: a permutation of 0..n-1, never the same as the
 * round before's when n >= 2.
 */
void bench_order_next(struct bench_order *o, int *order);

#endif
