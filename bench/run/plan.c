// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>
#include "plan.h"
#include "statistics.h"

void bench_plan_init(struct bench_plan *p, int n, __u64 seed)
{
	memset(p, 0, sizeof(*p));
	p->n = n < BENCH_PLAN_MAX ? n : BENCH_PLAN_MAX;
	p->rng = seed;
}

void bench_plan_next(struct bench_plan *p, int *order)
{
	int i, j, t;

	do {
		/* Fisher-Yates. */
		for (i = 0; i < p->n; i++)
			order[i] = i;
		for (i = p->n - 1; i > 0; i--) {
			j = st_rand_below(&p->rng, i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	} while (p->started && p->n >= 2 &&
		 !memcmp(order, p->prev, p->n * sizeof(*order)));
	memcpy(p->prev, order, p->n * sizeof(*order));
	p->started = true;
}
