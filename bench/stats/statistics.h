/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bench's statistics as pure functions: arrays in, numbers out, no
 * I/O and no globals. A fixed seed gives a fixed answer.
 */
#ifndef HC_STATISTICS_H
#define HC_STATISTICS_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * An estimate with the bounds of its confidence interval: the median of
 * the values, or their Hodges-Lehmann estimate (st_hl).
 */
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

/* The interval's half-width as a percent of the value of. */
double st_halfwidth_pct(const struct st_est *e, double of);

/*
 * The fewest values any interval of st_median_ci or st_hl can cover at
 * level with: the widest, min to max (of the values, or of their Walsh
 * averages), misses with probability 2^(1-n) (all n on one side, or all
 * signs alike), so 6 at 0.95.
 */
int st_min_n(double level);

/*
 * The median of x and its distribution-free interval at level: the
 * order statistics x(d) and x(n+1-d) whose coverage, binomial, is at
 * least level for any continuous distribution, skewed or not. The
 * median is NaN for n == 0, the bounds for n < st_min_n(level).
 * Returns 0 or -ENOMEM.
 */
int st_median_ci(const double *x, int n, double level, struct st_est *e);

/*
 * The Hodges-Lehmann estimate of x's centre (the median of its Walsh
 * averages (x[i] + x[j]) / 2, i <= j) and the exact Wilcoxon signed-rank
 * interval at level: two of those averages, picked by the signed-rank
 * statistic's null distribution. Coverage is exact when x comes from a
 * distribution symmetric about its centre, as paired differences of
 * interleaved rounds do. NaN as st_median_ci's. Returns 0 or -ENOMEM.
 */
int st_hl(const double *x, int n, double level, struct st_est *e);
/*
 * st_hl of log(x), mapped back with exp: for paired ratios, whose logs
 * are symmetric where the ratios are not. NaN if any x <= 0.
 */
int st_hl_log(const double *x, int n, double level, struct st_est *e);

/*
 * The Theil-Sen slope of y against x: the median of the slopes of every
 * pair of points with distinct x, NaN points left out; NaN without one.
 */
double st_theil_sen(const double *x, const double *y, int n);
/*
 * How y grows with x, paired per round: y holds rounds rows of m values
 * (y[r * m + j] at x[j], NaN where round r has none); each round with two
 * points or more gives its Theil-Sen slope, and e is st_hl of those
 * slopes: the machine's level in a round moves every point of it alike
 * and cancels. NaN as st_hl's. Returns 0 or -ENOMEM.
 */
int st_growth(const double *x, const double *y, int rounds, int m, double level,
	      struct st_est *e);

/*
 * The smallest effect a 95% interval e detects with 80% power: 2.8
 * standard errors (z 0.975 + z 0.8), the standard error taken as its
 * half-width over 1.96.
 */
double st_mde(const struct st_est *e);

/*
 * --target-ci: stop once the target is met on ST_STOP_CHECKS checks in
 * a row. Stopping at the first check that meets it (optional stopping)
 * covers less than it says; the simulation in tests/test_bench.c chose
 * this rule over a two-stage one.
 */
#define ST_STOP_CHECKS 3
struct st_stop {
	int met; /* checks in a row that met the target */
};
/* One check of half-width h (NaN: none) against target; true: stop. */
bool st_stop_check(struct st_stop *s, double h, double target);

#define ST_BOOT_N 2000 /* bootstrap resamples */
#define ST_BOOT_MIN 3 /* fewer values: no interval */
/*
 * The median of x, or with y the ratio median(y) / median(x), and its
 * percentile-bootstrap interval at level (x and y resampled apart, with
 * replacement, ST_BOOT_N times, from seed: the same data, the same
 * interval). -EINVAL, the estimate alone, under ST_BOOT_MIN values.
 */
int st_boot(const double *x, int nx, const double *y, int ny, double level,
	    __u64 seed, struct st_est *e);

/* Student's t with df degrees of freedom (INFINITY: the normal): its
 * CDF at t, and its p-quantile. */
double st_t_cdf(double t, double df);
double st_t_quantile(double p, double df);

/*
 * Holm's step-down adjustment of n p-values into adj (same order): the
 * i-th smallest times n - i + 1, never below the one before it, at most
 * 1. Rejecting where adj < alpha keeps the chance of any false rejection
 * among the n at most alpha. A NaN p is no test: NaN, not counted in n.
 * 0, or -ENOMEM.
 */
int st_holm(const double *p, int n, double *adj);

/*
 * A difference of two sides' means of per-run estimates (logs), b - a:
 * se and df, its standard error and degrees of freedom for a t; own,
 * the least standard error the runs' own intervals allow it (0: none),
 * for a normal quantile, as those intervals are.
 */
struct st_diff {
	double d, se, df, own;
};

/*
 * The run is the unit: with two or more runs a side, d is the
 * difference of the sides' plain means, se the runs' pooled spread on
 * na + nb - 2 df, which holds what moves between runs, and own is
 * sqrt(1 / sum(1 / va) + 1 / sum(1 / vb)), the error of the most
 * precise mean the runs' own variances (va, vb) allow: the interval is
 * never narrower than that, however well a few runs happen to agree
 * (tests/sim_cover.c; a NaN variance: the spread alone). With fewer
 * runs a side it is each run's own variance plus tau2, the between-run
 * variance measured apart on tau_df df (bench calibrate), own 0;
 * -ENODATA without one (tau_df 0), -EINVAL with no run on a side.
 */
int st_runs_diff(const double *a, const double *va, int na, const double *b,
		 const double *vb, int nb, double tau2, double tau_df,
		 struct st_diff *r);
/*
 * Its interval at level: the wider of the t one on se and the normal one
 * on own. Its two-sided p-value of no difference, the larger of theirs,
 * so that p < 1 - level exactly where the interval leaves out 0.
 */
void st_diff_ci(const struct st_diff *r, double level, struct st_est *e);
double st_diff_p(const struct st_diff *r);
/* The smallest difference it detects with 80% power at level (the larger). */
double st_diff_mde(const struct st_diff *r, double level);

/*
 * The between-run variance of k per-run estimates y with within-run
 * variances v (DerSimonian and Laird), with I2, the share of the spread
 * it explains (0 when the runs agree within their noise).
 */
double st_tau2(const double *y, const double *v, int k, double *i2);

/* The p-quantile of n values, interpolated; x is left as it is. */
double st_quantile(const double *x, int n, double p);

#endif
