// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>
#include "order.h"
#include "statistics.h"

void bench_order_init(struct bench_order *o, int n, __u64 seed)
{
	memset(o, 0, sizeof(*o));
	o->n = n < BENCH_ORDER_MAX ? n : BENCH_ORDER_MAX;
	o->rng = seed;
}

void bench_order_next(struct bench_order *o, int *order)
{
	int i, j, t;

	do {
		/* Fisher-Yates. */
		for (i = 0; i < o->n; i++)
			order[i] = i;
		for (i = o->n - 1; i > 0; i--) {
			j = st_rand_below(&o->rng, i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	} while (o->started && o->n >= 2 &&
		 !memcmp(order, o->prev, o->n * sizeof(*order)));
	memcpy(o->prev, order, o->n * sizeof(*order));
	o->started = true;
}
