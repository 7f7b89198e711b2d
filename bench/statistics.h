/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bench's statistics as pure functions: arrays in, numbers out, no
 * I/O and no globals. A fixed seed gives a fixed answer.
 */
#ifndef HC_STATISTICS_H
#define HC_STATISTICS_H

#include <stdbool.h>
#include <linux/types.h>

/* A median with the bounds of its confidence interval. */
struct st_est {
	double median, lo, hi;
};

/* splitmix64: the whole generator is one 64-bit state. */
__u64 st_rand(__u64 *state);
/* A uniform integer in [0, n). */
__u32 st_rand_below(__u64 *state, __u32 n);

/* The median of n values; x is left as it is. NaN when n is 0. */
double st_median(const double *x, int n);
/* The median absolute deviation from the median. */
double st_mad(const double *x, int n);
/*
 * Flags the values whose modified z-score, 0.6745 |x - median| / MAD,
 * is over z (Iglewicz and Hoaglin use 3.5); returns how many. With a MAD
 * of 0, every value off the median is flagged.
 */
int st_outliers(const double *x, int n, double z, bool *flag);
void st_range(const double *x, int n, double *min, double *max);

/* The interval's half-width as a percent of its median. */
double st_halfwidth_pct(const struct st_est *e);

/*
 * The fewest values any interval of their median can cover it at level
 * with: the widest, min to max, misses it with probability 2^(1-n) (all
 * n on one side), so 6 at 0.95.
 */
int st_min_n(double level);

/*
 * The median of x and its percentile-bootstrap interval at level (0.95):
 * resamples the n entries with replacement, so when each entry is one
 * round's paired difference or ratio, rounds stay whole. The median is
 * NaN for n == 0, the bounds for n < st_min_n(level).
 * Returns 0 or -ENOMEM.
 */
int st_bootstrap(const double *x, int n, int resamples, double level,
		 __u64 seed, struct st_est *e);

#endif
