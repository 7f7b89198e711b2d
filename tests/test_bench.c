// SPDX-License-Identifier: GPL-2.0
/* Unprivileged: the bench's statistics and its rounds' order. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "diff.h"
#include "path.h"
#include "order.h"
#include "plan.h"
#include "print.h"
#include "report.h"
#include "row.h"
#include "scenario.h"
#include "scope.h"
#include "statistics.h"
#include "summary.h"
#include "topo.h"
#include "test.h"

/* A bench with room for its rows, as cmd_bench makes one. */
static struct bench *new_bench(void)
{
	struct bench *b = calloc(1, sizeof(*b));

	if (!b || bench_rows_alloc(&b->rows))
		abort();
	return b;
}

static void free_bench(struct bench *b)
{
	free(b->rows.row);
	free(b);
}

#define SEED 20240611ULL

static bool near(double a, double b, double eps)
{
	return fabs(a - b) <= eps;
}

/* A uniform double in (0, 1). */
static double uniform(__u64 *rng)
{
	return ((st_rand(rng) >> 11) + 0.5) * 0x1p-53;
}

/* Box-Muller: one standard normal from two uniforms. */
static double normal(__u64 *rng)
{
	double u = uniform(rng);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * uniform(rng));
}

/* Cauchy: symmetric, with no mean and no variance. */
static double cauchy(__u64 *rng)
{
	return tan(M_PI * (uniform(rng) - 0.5));
}

/* Exponential, mean 1, median log(2): positive and skewed. */
static double expo(__u64 *rng)
{
	return -log(uniform(rng));
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The Walsh averages of x, sorted, into w: the test's own. */
static int walsh_sorted(const double *x, int n, double *w)
{
	int i, j, m = 0;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[m++] = (x[i] + x[j]) / 2;
	qsort(w, m, sizeof(*w), cmp_dbl);
	return m;
}

/*
 * n = 8: the number of subsets of {1..8} with sum t is, for t = 0..9,
 * 1 1 1 2 2 3 4 5 6 8, of 256. P(T <= d - 1) <= alpha / 2 holds up to
 * d = 4 at 95% (5/256 <= 6.4/256; 7/256 is not), d = 6 at 90% (10 <=
 * 12.8), d = 9 at 80% (25 <= 25.6) and d = 1 at 99% (1 <= 1.28): the
 * interval is the d-th smallest and the d-th largest Walsh average.
 */
static void test_wilcoxon_exact(void)
{
	static const struct {
		double level;
		int d;
	} cases[] = { { 0.95, 4 }, { 0.90, 6 }, { 0.80, 9 }, { 0.99, 1 } };
	double x[8] = { 4.8, -3.1, 9.9, 0.4, 15.3, 2.2, 6.5, 1.7 }, w[36];
	double even[4] = { 10, 0, 2, 1 };
	struct st_est e, e80;
	unsigned int i;
	int m = walsh_sorted(x, 8, w);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_hl(x, 8, cases[i].level, &e);
		t_result(
			e.lo == w[cases[i].d - 1] && e.hi == w[m - cases[i].d],
			"wilcoxon n=8 at %g%%: [%g, %g] is Walsh averages %d and %d [%g, %g]",
			cases[i].level * 100, e.lo, e.hi, cases[i].d,
			m + 1 - cases[i].d, w[cases[i].d - 1],
			w[m - cases[i].d]);
	}
	t_result(e.median == (w[17] + w[18]) / 2,
		 "hodges-lehmann n=8: the median of 36 Walsh averages (%g)",
		 e.median);
	st_hl(x, 8, 0.95, &e);
	st_hl(x, 8, 0.80, &e80);
	t_result(
		e.lo < e80.lo && e80.hi < e.hi,
		"wilcoxon: the 95%% interval [%g, %g] is strictly wider than the 80%% [%g, %g]",
		e.lo, e.hi, e80.lo, e80.hi);
	/*
	 * 0 1 2 10: Walsh averages 0 .5 1 1 1.5 2 5 5.5 6 10, an even count
	 * whose middle two average to 1.75; the median of the values is 1.5.
	 */
	st_hl(even, 4, 0.95, &e);
	t_result(
		e.median == 1.75 && isnan(e.lo) && isnan(e.hi),
		"hodges-lehmann of 0 1 2 10: 1.75 (got %g), no interval from 4",
		e.median);
	/* n = 6: only all signs alike (1/64) is below 2.5%: min to max. */
	st_hl(x, 6, 0.95, &e);
	t_result(e.lo == -3.1 && e.hi == 15.3,
		 "wilcoxon n=6 at 95%%: min to max [%g, %g]", e.lo, e.hi);
	st_hl(x, 5, 0.95, &e);
	t_result(!isnan(e.median) && isnan(e.lo) && isnan(e.hi),
		 "wilcoxon n=5: an estimate (%g), no 95%% interval", e.median);
	st_hl(x, 5, 0.90, &e);
	t_result(e.lo == -3.1 && e.hi == 15.3,
		 "wilcoxon n=5 at 90%%: min to max [%g, %g]", e.lo, e.hi);
	st_hl(x, 0, 0.95, &e);
	t_result(isnan(e.median) && isnan(e.lo),
		 "hodges-lehmann of nothing: NaN");
}

/*
 * The exact signed-rank critical index at 95% for larger n (Wilcoxon's
 * tables: d = 9, 53, 138, 435 at n = 10, 20, 30, 50): the interval is
 * Walsh averages d and m + 1 - d, whatever the values.
 */
static void test_wilcoxon_index(void)
{
	static const int ns[] = { 10, 20, 30, 50 }, ds[] = { 9, 53, 138, 435 };
	double x[50], w[50 * 51 / 2];
	__u64 rng = SEED;
	struct st_est e;
	unsigned int i;
	int k, m;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		for (k = 0; k < ns[i]; k++)
			x[k] = normal(&rng);
		m = walsh_sorted(x, ns[i], w);
		st_hl(x, ns[i], 0.95, &e);
		t_result(e.lo == w[ds[i] - 1] && e.hi == w[m - ds[i]],
			 "wilcoxon n=%d at 95%%: Walsh averages %d and %d",
			 ns[i], ds[i], m + 1 - ds[i]);
	}
}

/* Student's t against its tables, and Holm's step-down by hand. */
static void test_t_holm(void)
{
	static const struct {
		double p, df, q;
	} tq[] = { { 0.975, 2, 4.302653 }, { 0.975, 10, 2.228139 },
		   { 0.975, 30, 2.042272 }, { 0.8, 4, 0.940965 },
		   { 0.975, INFINITY, 1.959964 }, { 0.025, 5, -2.570582 } };
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN },
			    want[] = { 0.03, 0.06, 0.06, 0.02, NAN };
	double adj[5];
	unsigned int i;
	bool ok = true;

	for (i = 0; i < sizeof(tq) / sizeof(tq[0]); i++)
		t_result(near(st_t_quantile(tq[i].p, tq[i].df), tq[i].q, 1e-5),
			 "t: the %g quantile on %g df is %g (got %.6f)",
			 tq[i].p, tq[i].df, tq[i].q,
			 st_t_quantile(tq[i].p, tq[i].df));
	t_result(near(st_t_cdf(1, 1), 0.75, 1e-12) &&
			 near(st_t_cdf(-1, 1), 0.25, 1e-12),
		 "t: on 1 df (Cauchy) P(T <= 1) is 3/4 (got %.12f)",
		 st_t_cdf(1, 1));
	st_holm(p, 5, adj);
	for (i = 0; i < 4; i++)
		ok &= near(adj[i], want[i], 1e-12);
	t_result(ok && isnan(adj[4]),
		 "holm: 0.01 0.04 0.03 0.005 adjust to 0.03 0.06 0.06 0.02 (got %g %g %g %g), a NaN is no test",
		 adj[0], adj[1], adj[2], adj[3]);
}

/*
 * The median's interval, n = 10: P(B <= 1) = 11/1024 <= 2.5% < P(B <=
 * 2) = 56/1024, so the 2nd and 9th values; at 80%, 56/1024 <= 10% <
 * 176/1024: the 3rd and 8th.
 */
static void test_median_exact(void)
{
	double x[10] = { 7, 3, 10, 1, 6, 9, 2, 8, 5, 4 };
	struct st_est e;

	st_median_ci(x, 10, 0.95, &e);
	t_result(e.median == 5.5 && e.lo == 2 && e.hi == 9,
		 "median 1..10 at 95%%: 5.5 [2, 9] (got %g [%g, %g])", e.median,
		 e.lo, e.hi);
	st_median_ci(x, 10, 0.80, &e);
	t_result(e.lo == 3 && e.hi == 8,
		 "median 1..10 at 80%%: [3, 8] (got [%g, %g])", e.lo, e.hi);
	st_median_ci(x, 6, 0.95, &e);
	t_result(e.lo == 1 && e.hi == 10,
		 "median of 6 at 95%%: min to max (got [%g, %g])", e.lo, e.hi);
	st_median_ci(x, 5, 0.95, &e);
	t_result(e.median == 6 && isnan(e.lo),
		 "median of 5: %g, no 95%% interval", e.median);
	t_result(st_median(x, 10) == 5.5 && st_median(x, 1) == 7 &&
			 isnan(st_median(x, 0)),
		 "median of an even count, of one value, of none");
}

/* Ratios 1/2, 1, 2: symmetric as logs, so their centre is 1. */
static void test_log_ratio(void)
{
	double x[9] = { 0.5, 1, 2, 2, 0.5, 1, 1, 2, 0.5 }, neg[9];
	struct st_est e;

	st_hl_log(x, 9, 0.95, &e);
	t_result(
		near(e.median, 1, 1e-12) && near(e.lo * e.hi, 1, 1e-12),
		"log-ratio of 1/2, 1, 2: centre 1 (%g), interval [%g, %g] symmetric in logs",
		e.median, e.lo, e.hi);
	memcpy(neg, x, sizeof(x));
	neg[4] = -0.5;
	st_hl_log(neg, 9, 0.95, &e);
	t_result(isnan(e.median) && isnan(e.lo),
		 "log-ratio with a cost <= 0: no estimate");
}

/*
 * 20 rounds of a baseline A and a row B that costs 5% more, with the
 * machine 50% slower from round 11 on. Paired (each round measures both),
 * the per-round ratio never sees the shift. Sequential and unpaired (all
 * of A, then all of B, as bench once did), B lands after the shift.
 */
static void test_level_shift(void)
{
	double a[20], b[20], ratio[20], seq_a[20], seq_b[20];
	struct st_est paired, ea, eb;
	__u64 rng = SEED;
	int i;

	for (i = 0; i < 20; i++) {
		double level = i < 10 ? 1.0 : 1.5;
		double na = 1 + ((int)st_rand_below(&rng, 1001) - 500) / 1e5;
		double nb = 1 + ((int)st_rand_below(&rng, 1001) - 500) / 1e5;

		a[i] = 100 * level * na;
		b[i] = 105 * level * nb;
		ratio[i] = b[i] / a[i];
		/* Sequential: A in the first half of the time, B in the second. */
		seq_a[i] = 100 * 1.0 * na;
		seq_b[i] = 105 * 1.5 * nb;
	}
	st_hl_log(ratio, 20, 0.95, &paired);
	t_result(
		paired.lo <= 1.05 && 1.05 <= paired.hi &&
			paired.hi - paired.lo < 0.02,
		"level shift: the paired interval [%.4f, %.4f] covers the true ratio 1.05",
		paired.lo, paired.hi);
	st_median_ci(seq_a, 20, 0.95, &ea);
	st_median_ci(seq_b, 20, 0.95, &eb);
	t_result(
		!(eb.lo / ea.hi <= 1.05 && 1.05 <= eb.hi / ea.lo),
		"level shift: the unpaired sequential estimate %.3f [%.3f, %.3f] misses it",
		eb.median / ea.median, eb.lo / ea.hi, eb.hi / ea.lo);
}

static void test_outliers(void)
{
	double x[] = { 10, 10.1, 9.9, 10, 10.2, 9.8, 10, 30 };
	double calm[] = { 10, 10.1, 9.9, 10, 10.2, 9.8, 10, 10.3 };
	double flat[] = { 5, 5, 5, 5, 7 };
	/* Median 0, MAD 1: 4 is 0.6745 * 4 = 2.7 off, 6 is 4.05. */
	double four[] = { 0, 1, -1, 1, -1, 0, 4 },
	       six[] = { 0, 1, -1, 1, -1, 0, 6 };
	bool f[8];
	int n;

	n = st_outliers(x, 8, 3.5, f);
	t_result(n == 1 && f[7] && !f[0] && !f[6],
		 "MAD: 30 among values near 10 is the one outlier (%d flagged)",
		 n);
	CHECK_EQ(st_outliers(calm, 8, 3.5, f), 0,
		 "MAD: values within a few percent: no outlier");
	t_result(near(st_mad(x, 8), 0.1, 1e-9), "MAD of the series is 0.1");
	n = st_outliers(flat, 5, 3.5, f);
	t_result(n == 1 && f[4],
		 "MAD 0: the one value off the median is flagged (%d)", n);
	CHECK_EQ(st_outliers(four, 7, 3.5, f), 0,
		 "modified z: 4 MADs off is z 2.7, under 3.5");
	n = st_outliers(six, 7, 3.5, f);
	t_result(n == 1 && f[6], "modified z: 6 MADs off is z 4.05, over 3.5");
	CHECK_EQ(st_outliers(four, 7, 0.6745 * 4.0 / 1.0, f), 0,
		 "modified z: a score equal to the threshold is not over it");
}

static void test_constant(void)
{
	double x[12];
	struct st_est e, h;
	bool f[12];
	int i;

	for (i = 0; i < 12; i++)
		x[i] = 42.5;
	st_median_ci(x, 12, 0.95, &e);
	st_hl(x, 12, 0.95, &h);
	t_result(
		e.median == 42.5 && e.lo == 42.5 && e.hi == 42.5 &&
			h.median == 42.5 && h.lo == 42.5 && h.hi == 42.5,
		"constant series: both intervals collapse to the value [%g, %g]",
		h.lo, h.hi);
	CHECK_EQ(st_outliers(x, 12, 3.5, f), 0, "constant series: no outlier");
	st_median_ci(x, 0, 0.95, &e);
	t_result(isnan(e.median) && isnan(e.lo),
		 "no values: no estimate (NaN)");
}

/*
 * The scale scenario's growth fit: ns against log2 N, per round. Each
 * round's level moves all its points alike (the machine's state): paired
 * per round it cancels; a small noise stays.
 */
static void test_growth(void)
{
	static const double n[] = { 1, 10, 100, 1000, 10000 };
	double x[5], y[12 * 5], ts[5];
	struct st_est e;
	__u64 rng = SEED;
	int r, j;

	for (j = 0; j < 5; j++) {
		x[j] = log2(n[j]);
		ts[j] = 50 + 3 * x[j];
	}
	ts[4] += 1000; /* one point far off: Theil-Sen keeps its slope */
	t_result(near(st_theil_sen(x, ts, 5), 3, 1e-9),
		 "Theil-Sen: slope 3 through one outlier of 5 points (got %g)",
		 st_theil_sen(x, ts, 5));
	ts[4] -= 1000;
	ts[1] = NAN;
	t_result(near(st_theil_sen(x, ts, 5), 3, 1e-9),
		 "Theil-Sen: a NaN point left out (got %g)",
		 st_theil_sen(x, ts, 5));
	t_result(isnan(st_theil_sen(x, ts, 1)),
		 "Theil-Sen: one point, no slope");
	/* linear in N: 5 ns per doubling, rounds 100 ns apart */
	for (r = 0; r < 12; r++) {
		double level = 40 + 100 * uniform(&rng);

		for (j = 0; j < 5; j++)
			y[r * 5 + j] = level + 5 * x[j] + 0.5 * normal(&rng);
	}
	st_growth(x, y, 12, 5, 0.95, &e);
	t_result(
		e.lo > 4.8 && e.hi < 5.2 && e.lo <= 5 && e.hi >= 5,
		"growth: 5 ns per doubling in [%g, %g] (estimate %g), the rounds' levels cancelled",
		e.lo, e.hi, e.median);
	/* constant: the interval holds 0 */
	for (r = 0; r < 12; r++) {
		double level = 40 + 100 * uniform(&rng);

		for (j = 0; j < 5; j++)
			y[r * 5 + j] = level + 0.5 * normal(&rng);
	}
	st_growth(x, y, 12, 5, 0.95, &e);
	t_result(e.lo < 0 && e.hi > 0 && fabs(e.median) < 0.2,
		 "growth: constant, 0 in [%g, %g] (estimate %g)", e.lo, e.hi,
		 e.median);
	/* two sizes (the tests' 1 and 100): each round's one slope */
	for (r = 0; r < 12; r++) {
		y[r * 2] = 50 + r;
		y[r * 2 + 1] = 50 + r + 2 * log2(100);
	}
	st_growth((const double[]){ 0, log2(100) }, y, 12, 2, 0.95, &e);
	t_result(near(e.median, 2, 1e-9) && near(e.lo, 2, 1e-9),
		 "growth: two sizes, slope 2 exactly (got %g [%g, %g])",
		 e.median, e.lo, e.hi);
	st_growth(x, y, 5, 2, 0.95, &e);
	t_result(isnan(e.lo), "growth: 5 rounds, no interval");
}

/* 1 - 2^(1-n) >= level: 5 values reach 0.9375, 6 reach 0.96875. */
static void test_few(void)
{
	CHECK_EQ(st_min_n(0.95), 6, "a 95%% interval needs 6 values");
	CHECK_EQ(st_min_n(0.9), 5, "a 90%% one needs 5");
	CHECK_EQ(st_min_n(0.99), 8, "a 99%% one needs 8");
	CHECK_EQ(st_min_n(0.5), 2, "a 50%% one needs 2");
}

/* How often est's interval at level of n draws of noise covers truth. */
static double coverage(int (*est)(const double *, int, double, struct st_est *),
		       int n, int trials, double (*noise)(__u64 *),
		       double level, double truth, __u64 seed)
{
	double x[64];
	struct st_est e;
	int t, i, hit = 0;

	for (t = 0; t < trials; t++) {
		for (i = 0; i < n; i++)
			x[i] = noise(&seed);
		est(x, n, level, &e);
		hit += e.lo <= truth && truth <= e.hi;
	}
	return (double)hit / trials;
}

/* st_hl's interval of n draws of symmetric noise around 0. */
static double hl_coverage(int n, int trials, double (*noise)(__u64 *),
			  double level, __u64 seed)
{
	return coverage(st_hl, n, trials, noise, level, 0, seed);
}

/* st_median_ci's 95% interval and the true median. */
static double median_coverage(int n, int trials, double (*noise)(__u64 *),
			      double median, __u64 seed)
{
	return coverage(st_median_ci, n, trials, noise, 0.95, median, seed);
}

/*
 * Seeded Monte Carlo, 2,000 trials: the exact Wilcoxon interval is 95.1%
 * at n = 10 and about 95% at 30 for any symmetric noise; the band
 * (93-97%) is four standard errors of a simulated 95%.
 */
static void test_coverage(void)
{
	static const int ns[] = { 10, 30 };
	unsigned int i;
	double c;

	for (i = 0; i < 2; i++) {
		c = hl_coverage(ns[i], 2000, normal, 0.95, SEED + i);
		t_result(c >= 0.93 && c <= 0.97,
			 "coverage n=%d, normal noise: %.1f%% within 93-97%%",
			 ns[i], c * 100);
		c = hl_coverage(ns[i], 2000, cauchy, 0.95, SEED + 10 + i);
		t_result(c >= 0.93 && c <= 0.97,
			 "coverage n=%d, Cauchy noise: %.1f%% within 93-97%%",
			 ns[i], c * 100);
	}
	/* The median's interval is 97.9% at n = 10 for any noise at all. */
	c = median_coverage(10, 2000, expo, log(2), SEED);
	t_result(
		c >= 0.95 && c <= 0.995,
		"coverage of the median n=10, skewed noise: %.1f%% within 95-99.5%%",
		c * 100);
}

/*
 * --target-ci's rules, simulated: a delta of 5 ns on a row costing 100,
 * per-round noise 2.5% of the cost, a target of +-1% (about 30 rounds),
 * --rounds 10, --max-rounds 100. Optional stopping ends at the first
 * check that meets the target; st_stop_check at the third in a row;
 * Stein's two-stage rule runs, after the first 10, the rounds that the
 * first 10's half-width h says: 10 (h / target)^2 in all.
 */
enum { STOP_FIRST, STOP_THIRD, STOP_TWO_STAGE };
#define STOP_MAX 100

static double halfwidth(const double *x, int n, struct st_est *e)
{
	st_hl(x, n, 0.95, e);
	return st_halfwidth_pct(e, 100);
}

static int two_stage(double h, int n, double target)
{
	double need = ceil(n * (h / target) * (h / target));

	return !(need <= STOP_MAX) ? STOP_MAX : need < n ? n : (int)need;
}

/* How often the final interval covers 5; the mean rounds into rounds. */
static double stop_coverage(int rule, int trials, __u64 seed, double *rounds)
{
	double x[STOP_MAX], target = 1;
	struct st_stop stop;
	struct st_est e;
	int t, n, want, hit = 0, sum = 0;

	for (t = 0; t < trials; t++) {
		for (n = 0; n < 10; n++)
			x[n] = 5 + 2.5 * normal(&seed);
		want = rule == STOP_TWO_STAGE ?
			       two_stage(halfwidth(x, n, &e), n, target) :
			       STOP_MAX;
		stop.met = 0;
		for (; n < want; x[n++] = 5 + 2.5 * normal(&seed)) {
			if (rule == STOP_FIRST && halfwidth(x, n, &e) <= target)
				break;
			if (rule == STOP_THIRD &&
			    st_stop_check(&stop, halfwidth(x, n, &e), target))
				break;
		}
		halfwidth(x, n, &e);
		hit += e.lo <= 5 && 5 <= e.hi;
		sum += n;
	}
	*rounds = (double)sum / trials;
	return (double)hit / trials;
}

static void test_stopping(void)
{
	double first, third, two, rf, rt, r2;
	struct st_stop s = {};
	static const double h[] = { 0.9, 0.8, 1.2, 1, 0.7, NAN, 0.9, 0.9, 0.9 };
	bool stop[9];
	int i;

	first = stop_coverage(STOP_FIRST, 2000, SEED, &rf);
	third = stop_coverage(STOP_THIRD, 2000, SEED, &rt);
	two = stop_coverage(STOP_TWO_STAGE, 2000, SEED, &r2);
	t_result(
		third >= 0.93 && third <= 0.97,
		"target-ci, met on 3 checks in a row: coverage %.1f%% within 93-97%% (%.1f rounds)",
		third * 100, rt);
	t_result(
		third > two && third > first,
		"target-ci: it covers more than two-stage (%.1f%%, %.1f rounds) and than stopping at the first narrow interval (%.1f%%, %.1f)",
		two * 100, r2, first * 100, rf);
	for (i = 0; i < 9; i++)
		stop[i] = st_stop_check(&s, h[i], 1);
	t_result(
		!stop[0] && !stop[1] && !stop[2] && !stop[3] && !stop[4] &&
			!stop[5] && !stop[6] && !stop[7] && stop[8],
		"target-ci: stops at the third check in a row that meets it; a miss or no interval starts again");
	t_result(!st_stop_check(&(struct st_stop){ 1 }, 1.0001, 1) &&
			 st_stop_check(&(struct st_stop){ 2 }, 1, 1),
		 "target-ci: a half-width equal to the target meets it");
}

/* The 80%-power effect of a 95% interval +-1.96: 1.96 + 0.84 SEs. */
static void test_mde(void)
{
	struct st_est e = { 0, -1.96, 1.96 };

	t_result(near(st_mde(&e), 2.8016, 1e-3),
		 "mde of +-1.96: 2.80 standard errors (got %g)", st_mde(&e));
	t_result(near(st_halfwidth_pct(&(struct st_est){ 10, 9.9, 10.1 }, 10),
		      1, 1e-9),
		 "an interval's half-width as a percent of a value");
}

/* The variance of a run's log estimate from its +-pct% 95% interval. */
static double var95(double pct)
{
	return pow(pct / 100 / 1.959964, 2);
}

/* The old interval over runs, by hand: t on their pooled spread alone. */
static double spread_hw(const double *a, int na, const double *b, int nb,
			double *se)
{
	double ma = 0, mb = 0, ss = 0;
	int i, df = na + nb - 2;

	for (i = 0; i < na; i++)
		ma += a[i] / na;
	for (i = 0; i < nb; i++)
		mb += b[i] / nb;
	for (i = 0; i < na; i++)
		ss += (a[i] - ma) * (a[i] - ma);
	for (i = 0; i < nb; i++)
		ss += (b[i] - mb) * (b[i] - mb);
	*se = sqrt(ss / df * (1.0 / na + 1.0 / nb));
	return st_t_quantile(0.975, df) * *se;
}

/*
 * Issue 50's 2 vs 3 runs: estimates within 0.6% of each other from
 * runs whose own 95% intervals are +-3% to +-6%. Their spread alone
 * gave +-0.34%. No mean of them is known better than the precision-
 * weighted one, 1.96 sqrt(1 / sum(1 / va) + 1 / sum(1 / vb)): +-3.49%.
 */
static void test_runs_floor(void)
{
	static const double a[] = { 0.000, 0.002 },
			    b[] = { 0.004, 0.006, 0.005 };
	static const double pa[] = { 3, 6 }, pb[] = { 4, 6, 3 };
	double va[2], vb[3], wa = 0, wb = 0, least, spread, se, h, p, want;
	struct st_diff d;
	struct st_est e;
	int i, ret;

	for (i = 0; i < 2; i++) {
		va[i] = var95(pa[i]);
		wa += 1 / va[i];
	}
	for (i = 0; i < 3; i++) {
		vb[i] = var95(pb[i]);
		wb += 1 / vb[i];
	}
	least = 1.959964 * sqrt(1 / wa + 1 / wb);
	spread = spread_hw(a, 2, b, 3, &se);
	ret = st_runs_diff(a, va, 2, b, vb, 3, NAN, 0, &d);
	st_diff_ci(&d, 0.95, &e);
	h = (e.hi - e.lo) / 2;
	p = st_diff_p(&d);
	t_result(
		!ret && near(e.median, 0.004, 1e-12),
		"runs 2 vs 3: the difference of the plain means (%g, want 0.004)",
		e.median);
	t_result(
		spread < 0.005 && h >= least - 1e-9,
		"runs 2 vs 3 agreeing closer than their own +-3-6%%: +-%.2f%%, at least the runs' own +-%.2f%%, not the spread's +-%.2f%%",
		h * 100, least * 100, spread * 100);
	t_result(
		near(h, least, 1e-6),
		"runs 2 vs 3: the interval is the runs' own, 1.96 precision-weighted standard errors (+-%.4f%%, want +-%.4f%%)",
		h * 100, least * 100);
	/* the normal's two-sided p of 0.004 over the runs' own error */
	want = erfc(0.004 / (least / 1.959964) / M_SQRT2);
	t_result(
		e.lo < 0 && e.hi > 0 && p > 0.05 && near(p, want, 1e-6),
		"runs 2 vs 3: the interval holds no change, and p %.3f agrees with it",
		p);
	t_result(
		near(st_diff_mde(&d, 0.95),
		     least / 1.959964 * (1.959964 + 0.841621), 1e-6),
		"runs 2 vs 3: the mde is 2.80 of the runs' own standard errors (%.2f%%)",
		st_diff_mde(&d, 0.95) * 100);
}

/*
 * Runs whose own errors are tiny (+-0.1%) but which spread by 2%: the
 * spread governs, the t interval over runs exactly as before. A run
 * with no interval of its own (NaN): the spread alone. One run a side:
 * its own variance plus the calibrated tau2, as before.
 */
static void test_runs_spread(void)
{
	double a[] = { 0, 0.02 }, b[] = { 0.03, 0.05, 0.04 };
	double va[] = { var95(0.1), var95(0.1) },
	       vb[] = { var95(0.1), var95(0.1), var95(0.1) };
	double near_a[] = { 0.000, 0.002 }, near_b[] = { 0.004, 0.006, 0.005 };
	double spread, se, h, want;
	struct st_diff d;
	struct st_est e;
	int ret;

	spread = spread_hw(a, 2, b, 3, &se);
	ret = st_runs_diff(a, va, 2, b, vb, 3, NAN, 0, &d);
	st_diff_ci(&d, 0.95, &e);
	h = (e.hi - e.lo) / 2;
	t_result(
		!ret && near(e.median, 0.03, 1e-12) && near(h, spread, 1e-9) &&
			near(st_diff_p(&d), 2 * st_t_cdf(-0.03 / se, 3), 1e-9),
		"runs spreading past their own +-0.1%%: the spread's t interval, +-%.3f%% (want +-%.3f%%), and its p",
		h * 100, spread * 100);
	va[1] = NAN;
	spread = spread_hw(near_a, 2, near_b, 3, &se);
	st_runs_diff(near_a, va, 2, near_b, vb, 3, NAN, 0, &d);
	st_diff_ci(&d, 0.95, &e);
	h = (e.hi - e.lo) / 2;
	t_result(
		near(h, spread, 1e-9),
		"runs, one without an interval of its own: the spread alone (+-%.3f%%, want +-%.3f%%)",
		h * 100, spread * 100);
	va[0] = var95(4);
	vb[0] = var95(3);
	ret = st_runs_diff(a, va, 1, b, vb, 1, 1e-4, 9, &d);
	st_diff_ci(&d, 0.95, &e);
	want = st_t_quantile(0.975, 9) * sqrt(va[0] + vb[0] + 2e-4);
	t_result(
		!ret && near((e.hi - e.lo) / 2, want, 1e-9),
		"runs, one a side: own variances plus tau2 on its df (+-%.3f%%, want +-%.3f%%)",
		(e.hi - e.lo) / 2 * 100, want * 100);
}

/*
 * The interval is the wider of the spread's t and the runs' own normal,
 * which of the two depends on the level: p must leave out 0 exactly
 * where the interval does, at 95% (own wider) and at 99% (t wider).
 */
static void test_runs_p_ci(void)
{
	static const double levels[] = { 0.95, 0.99 };
	struct st_diff r = { 0, 0.01, 3, 0.02 };
	double t, z;
	struct st_est e;
	int i, k, bad = 0;

	for (k = 0; k < 2; k++)
		for (i = 0; i <= 160; i++) {
			r.d = i * 0.0005 + 0.0001;
			st_diff_ci(&r, levels[k], &e);
			bad += (st_diff_p(&r) < 1 - levels[k]) != (e.lo > 0);
		}
	t_result(
		!bad,
		"runs: p < 1 - level exactly where the interval leaves out 0, at 95%% and 99%% (%d of 322 disagree)",
		bad);
	t = st_t_quantile(0.975, 3) + st_t_quantile(0.8, 3);
	z = 1.959964 + 0.841621;
	t_result(
		near(st_diff_mde(&r, 0.95), fmax(t * 0.01, z * 0.02), 1e-5),
		"runs: the mde is the larger of the spread's and the runs' own (%g)",
		st_diff_mde(&r, 0.95));
}

static bool is_permutation(const int *order, int n)
{
	bool seen[BENCH_ORDER_MAX] = {};
	int i;

	for (i = 0; i < n; i++) {
		if (order[i] < 0 || order[i] >= n || seen[order[i]])
			return false;
		seen[order[i]] = true;
	}
	return true;
}

/*
 * The host's two speeds (doc/methodology.md): windows cost 100 in the
 * fast state and 150 in the slow one, with up to 1% of positive jitter,
 * the state holding for 1-20 windows. Each round is two visits of 10
 * windows with 40 windows of other rows between them. The round's
 * estimate (BENCH_WINDOW_Q of its windows) must find the fast level
 * within 1% in the median over 30 rounds; the windows' mean must not.
 */
static void test_window_estimator(void)
{
	double est[30], mean[30], w[20], m, mm;
	int state = 0, left = 0, rd, i, k;
	__u64 rng = SEED;

	for (rd = 0; rd < 30; rd++) {
		double sum = 0;

		for (i = 0, k = 0; i < 60; i++) {
			if (!left--) {
				state = st_rand_below(&rng, 2);
				left = st_rand_below(&rng, 20);
			}
			/* Windows 0-9 and 50-59 are this row's. */
			if (i >= 10 && i < 50)
				continue;
			w[k] = (state ? 150 : 100) *
			       (1 + st_rand_below(&rng, 1000) / 1e5);
			sum += w[k++];
		}
		est[rd] = st_quantile(w, 20, BENCH_WINDOW_Q);
		mean[rd] = sum / 20;
	}
	m = st_median(est, 30);
	mm = st_median(mean, 30);
	t_result(m >= 100 && m <= 101,
		 "window estimator: two states 1.5x apart, the fast one found within 1%% (%.2f of 100)",
		 m);
	t_result(mm > 110,
		 "window estimator: the windows' mean is not (%.2f of 100)", mm);
}

static void test_order(void)
{
	int a[50][BENCH_ORDER_MAX], b[BENCH_ORDER_MAX], c[BENCH_ORDER_MAX];
	struct bench_order p, q, r;
	bool perm = true, differ = true, same = true, other_seed = false;
	bool first_varies = false;
	int round, n = 10;

	bench_order_init(&p, n, SEED);
	bench_order_init(&q, n, SEED);
	bench_order_init(&r, n, SEED + 1);
	for (round = 0; round < 50; round++) {
		bench_order_next(&p, a[round]);
		bench_order_next(&q, b);
		bench_order_next(&r, c);
		perm &= is_permutation(a[round], n);
		if (round)
			differ &= !!memcmp(a[round], a[round - 1],
					   n * sizeof(int));
		same &= !memcmp(a[round], b, n * sizeof(int));
		other_seed |= !!memcmp(a[round], c, n * sizeof(int));
		first_varies |= round && a[round][0] != a[0][0];
	}
	t_result(perm, "order: every row exactly once in each of 50 rounds");
	t_result(differ && first_varies,
		 "order: each round's order differs from the one before");
	t_result(same, "order: the same seed gives the same orders");
	t_result(other_seed, "order: another seed gives other orders");

	/* Two rows must alternate: never the same order twice in a row. */
	bench_order_init(&p, 2, SEED);
	differ = true;
	for (round = 0; round < 20; round++) {
		bench_order_next(&p, a[round]);
		if (round)
			differ &= a[round][0] != a[round - 1][0];
	}
	t_result(differ && is_permutation(a[0], 2),
		 "order: two rows alternate who goes first");
	bench_order_init(&p, 1, SEED);
	bench_order_next(&p, a[0]);
	bench_order_next(&p, a[1]);
	t_result(a[0][0] == 0 && a[1][0] == 0, "order: one row, every round");
}

/* ---- bench_summarize on rounds made up here ---- */

static const struct bench_kind hook_kind = { .name = "test" };
static const struct bench_kind gen_kind = { .name = "gen", .generator = true };

/* Adds a row whose round k ran at mpps[k], 1e3/mpps[k] ns a packet. */
static struct bench_row *fake_row(struct bench *b, const char *name,
				  const struct bench_kind *kind, int base,
				  const double *mpps, int n)
{
	struct bench_row *r = &b->rows.row[b->rows.n];
	int k;

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->base = base;
	r->gen = 0;
	r->rd = calloc(n, sizeof(*r->rd));
	r->nrd = r->cap = n;
	for (k = 0; k < n; k++) {
		r->rd[k].round = k + 1;
		r->rd[k].mpps = mpps[k];
		r->rd[k].pkt_ns = 1e3 / mpps[k];
	}
	b->rows.n++;
	return r;
}

static bool has_flag(const struct bench *b, const struct bench_row *r,
		     const char *flag)
{
	const char *f[8];
	int i, n = bench_flags(&b->env, &b->rows, r, f, 8);

	for (i = 0; i < n; i++)
		if (!strcmp(f[i], flag))
			return true;
	return false;
}

static void free_rows(struct bench *b)
{
	int i;

	for (i = 0; i < b->rows.n; i++)
		free(b->rows.row[i].rd);
	free(b->rows.row);
	free(b);
}

/* ---- gen-only rows: one per frame size and number of flows ---- */

/* A scenario's rows: name, size, flows; its first row the baseline. */
struct t_gen_row {
	const char *name;
	__u32 size, flows;
};
static const struct t_gen_row *t_gen_rows;

static void t_gen_build(struct bench_rows *rows)
{
	const struct t_gen_row *w;

	for (w = t_gen_rows; w->name; w++) {
		struct bench_row *r = bench_row_add(rows, w->name, &hook_kind);

		r->size = w->size;
		r->flows = w->flows;
		bench_row_base(r, "%s", t_gen_rows[0].name);
	}
}

/*
 * Every row's gen index names the gen-only row of its size and flows; one
 * flow (0 or 1) keeps today's names, several add "-Nflows", once each.
 */
static void test_gen_rows(void)
{
	static const struct t_gen_row one[] = {
		{ "a", 60, 0 },
		{ "b", 60, 1 },
		{ NULL },
	};
	static const struct t_gen_row flows[] = {
		{ "a", 60, 0 },	  { "b", 60, 256 },   { "c", 60, 1 },
		{ "d", 60, 256 }, { "e", 60, 65536 }, { NULL },
	};
	static const struct t_gen_row sizes[] = {
		{ "a", 60, 1 },	 { "b", 1514, 0 }, { "c", 1514, 16 },
		{ "d", 60, 16 }, { NULL },
	};
	static const struct {
		const struct t_gen_row *rows;
		const char *gens; /* each row's gen-only, in order */
		int n; /* rows in all, gen-only's included */
	} cases[] = {
		{ one, "gen-only gen-only", 3 },
		{ flows,
		  "gen-only gen-only-256flows gen-only gen-only-256flows gen-only-65536flows",
		  8 },
		{ sizes,
		  "gen-only-60 gen-only-1514 gen-only-1514-16flows gen-only-60-16flows",
		  8 },
	};
	struct bench_scenario scen = { .name = "test",
				       .baseline = "a",
				       .build = t_gen_build };
	unsigned int c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct bench *b = new_bench();
		struct hc_err err = {};
		char got[256] = "";
		size_t len = 0;
		bool same = true;
		int i, ret;

		t_gen_rows = cases[c].rows;
		b->rows.scen = &scen;
		b->net.topo = &bench_topo_veth;
		ret = bench_rows_build(b, &err);
		for (i = 0; !ret && t_gen_rows[i].name; i++) {
			const struct bench_row
				*r = &b->rows.row[i],
				*g = r->gen >= 0 ? &b->rows.row[r->gen] : NULL;

			len += snprintf(got + len, sizeof(got) - len, "%s%s",
					i ? " " : "", g ? g->name : "-");
			same &= g && g->kind->generator && g->size == r->size &&
				g->flows == (r->flows ?: 1) && g->gen == r->gen;
		}
		CHECK_STR(got, cases[c].gens,
			  "gen rows %u: each row's gen-only by size and flows",
			  c);
		t_result(
			!ret && same && b->rows.n == cases[c].n,
			"gen rows %u: of the same size and flows, each its own gen, %d rows (want %d) (%s)",
			c, b->rows.n, cases[c].n, err.msg);
		free_rows(b);
	}
}

/* ---- scope checks: /proc/softirqs, /proc/stat, the window's evidence ---- */

static const char softirqs2[] = "                    CPU0       CPU1       \n"
				"          HI:          0          0\n"
				"       TIMER:     822122     935174\n"
				"      NET_TX:      18130      11003\n"
				"      NET_RX:   80628104   32641620\n"
				"     HRTIMER:          0          0\n";

/* Four CPUs, the third offline: its column is missing, not zero. */
static const char softirqs_gap[] =
	"                    CPU0       CPU1       CPU3       CPU4\n"
	"          HI:          1          2          3          4\n"
	"      NET_RX:         10         11         13         14\n";

static const char stat2[] =
	"cpu  631257 0 679351 3500278 8379 0 55711 3028 0 0\n"
	"cpu0 289571 0 351318 1745480 1848 7 46973 1423 0 0\n"
	"cpu1 341686 5 328032 1754797 6531 0 8738 1604 0 0\n"
	"intr 21295086 0 0 0\n"
	"ctxt 97322396\n";

static void test_snap_parse(void)
{
	static struct bench_snap s;
	static char big[BENCH_MAX_CPUS * 24 + 256];
	size_t len = 0;
	int ret, i;

	memset(&s, 0, sizeof(s));
	ret = bench_snap_parse_softirqs(&s, softirqs2);
	t_result(!ret && s.cpu[0].net_rx == 80628104 &&
			 s.cpu[1].net_rx == 32641620 && s.cpu[0].softirqs &&
			 !s.cpu[2].softirqs,
		 "softirqs: NET_RX per CPU, not another line's (%d: %llu %llu)",
		 ret, (unsigned long long)s.cpu[0].net_rx,
		 (unsigned long long)s.cpu[1].net_rx);
	memset(&s, 0, sizeof(s));
	ret = bench_snap_parse_softirqs(&s, softirqs_gap);
	t_result(
		!ret && s.cpu[3].net_rx == 13 && s.cpu[4].net_rx == 14 &&
			!s.cpu[2].softirqs && s.cpu[1].net_rx == 11,
		"softirqs: columns by the header's CPU numbers, an offline CPU left out");

	/* More CPUs than bench keeps: those past BENCH_MAX_CPUS dropped. */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < BENCH_MAX_CPUS + 2; i++)
		len += snprintf(big + len, sizeof(big) - len, " CPU%d", i);
	len += snprintf(big + len, sizeof(big) - len, "\n NET_RX:");
	for (i = 0; i < BENCH_MAX_CPUS + 2; i++)
		len += snprintf(big + len, sizeof(big) - len, " %d", i + 1);
	snprintf(big + len, sizeof(big) - len, "\n");
	ret = bench_snap_parse_softirqs(&s, big);
	t_result(
		!ret && s.cpu[0].net_rx == 1 &&
			s.cpu[BENCH_MAX_CPUS - 1].net_rx == BENCH_MAX_CPUS,
		"softirqs: %d CPUs, more than the %d kept: the first ones read (%d)",
		BENCH_MAX_CPUS + 2, BENCH_MAX_CPUS, ret);

	memset(&s, 0, sizeof(s));
	ret = bench_snap_parse_softirqs(
		&s, "   CPU0   CPU1   CPU2\n NET_RX: 5 6\n");
	t_result(!ret && s.cpu[1].net_rx == 6 && !s.cpu[2].softirqs,
		 "softirqs: a short line leaves the rest unknown");
	CHECK_EQ(bench_snap_parse_softirqs(&s, "   CPU0\n NET_TX: 1\n"),
		 -ENOENT, "softirqs: no NET_RX line: -ENOENT");
	CHECK_EQ(bench_snap_parse_softirqs(&s, "garbage\n NET_RX: 1\n"),
		 -EINVAL, "softirqs: no CPU header: -EINVAL");

	memset(&s, 0, sizeof(s));
	ret = bench_snap_parse_stat(&s, stat2);
	t_result(
		!ret && s.cpu[0].steal == 1423 && s.cpu[1].steal == 1604 &&
			s.cpu[0].irq == 7 + 46973 &&
			s.cpu[1].busy == 341686 + 5 + 328032 + 8738 &&
			s.cpu[0].stat && !s.cpu[2].stat,
		"stat: steal, irq+softirq and busy ticks per CPU, the total line skipped");
	memset(&s, 0, sizeof(s));
	ret = bench_snap_parse_stat(
		&s, "cpu0 1 2 3 4 5 6 7\ncpu5 1 1 1 1 1 1 1 9\n");
	t_result(!ret && s.cpu[0].steal == 0 && s.cpu[0].irq == 13 &&
			 s.cpu[5].steal == 9 && !s.cpu[1].stat,
		 "stat: a line without steal (before 2.6.11), CPUs by number");
	CHECK_EQ(bench_snap_parse_stat(&s, "cpu0 1 2 3\n"), -EINVAL,
		 "stat: a cut line: -EINVAL");
	CHECK_EQ(bench_snap_parse_stat(&s, "intr 1 2\n"), -ENOENT,
		 "stat: no CPU lines: -ENOENT");
}

/* Two CPUs, both in both files, from zero. */
static void snap_two(struct bench_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->hz = 100;
	s->cpu[0].softirqs = s->cpu[0].stat = true;
	s->cpu[1].softirqs = s->cpu[1].stat = true;
}

static void test_window_check(void)
{
	static struct bench_snap a, b;
	cpu_set_t cpu0, cpu1;
	char why[160];
	int ret;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	snap_two(&a);
	snap_two(&b);
	t_result(!bench_window_check(&a, &b, 0.01, &cpu0, why, sizeof(why)) &&
			 !why[0],
		 "window: nothing happened: it stands");
	b.cpu[0].net_rx = 500;
	t_result(!bench_window_check(&a, &b, 0.01, &cpu0, why, sizeof(why)),
		 "window: NET_RX on the counted CPU: it stands");
	ret = bench_window_check(&a, &b, 0.01, &cpu1, why, sizeof(why));
	t_result(
		ret == 1 &&
			!strcmp(why,
				"500 NET_RX softirqs on CPU 0, which is not counted"),
		"window: NET_RX on a CPU not counted: excluded, '%s'", why);
	b.cpu[0].net_rx = 0;
	b.cpu[1].net_rx = 1;
	t_result(bench_window_check(&a, &b, 0.01, &cpu0, why, sizeof(why)) == 1,
		 "window: one NET_RX softirq elsewhere is enough");
	b.cpu[1].softirqs = false;
	t_result(!bench_window_check(&a, &b, 0.01, &cpu0, why, sizeof(why)),
		 "window: a CPU one snapshot lacks says nothing");

	/* Steal: 1 tick (10 ms) in a 1 s window is 1%, not above it. */
	snap_two(&b);
	b.cpu[0].steal = 1;
	t_result(!bench_window_check(&a, &b, 1.0, &cpu0, why, sizeof(why)),
		 "window: steal of exactly 1%% stands");
	ret = bench_window_check(&a, &b, 0.99, &cpu0, why, sizeof(why));
	t_result(
		ret == 1 &&
			!strcmp(why,
				"steal 10 ms on CPU 0 in 990.0 ms (1.0%, over 1%)"),
		"window: steal just above 1%%: excluded, '%s'", why);
	t_result(
		!bench_window_check(&a, &b, 0.5, &cpu1, why, sizeof(why)),
		"window: steal on a CPU not counted takes nothing from the count");
	b.hz = 1000;
	t_result(
		!bench_window_check(&a, &b, 0.1001, &cpu0, why, sizeof(why)) &&
			bench_window_check(&a, &b, 0.0999, &cpu0, why,
					   sizeof(why)) == 1,
		"window: ticks are USER_HZ's: at 1000 Hz, 1 ms in 100 ms is the edge");

	t_result(
		!bench_cpu_check(1e6, 1e6, 1, why, sizeof(why)) &&
			!bench_cpu_check(1.5e6, 1e6, 2, why, sizeof(why)) &&
			!bench_cpu_check(NAN, 1e6, 1, why, sizeof(why)),
		"cpu time: up to the wall time x counted CPUs; none without a clock");
	ret = bench_cpu_check(0, 1e6, 1, why, sizeof(why));
	t_result(
		ret == 1 &&
			!strcmp(why,
				"CPU time 0 ns, not in (0, 1000000 ns of wall time x 1 counted CPU]"),
		"cpu time: 0 (kthreads that are gone): '%s'", why);
	t_result(bench_cpu_check(1.5e6, 1e6, 1, why, sizeof(why)) == 1 &&
			 bench_cpu_check(2.1e6, 1e6, 2, why, sizeof(why)) == 1,
		 "cpu time: more than the counted CPUs had");
}

static void test_scope_cpus(void)
{
	struct bench *b = new_bench();
	struct bench_row r = { .kind = &hook_kind }, g = { .kind = &gen_kind };
	cpu_set_t set;

	b->opt.cpu_mode = BENCH_INLINE;
	bench_scope_cpus(&b->opt, &b->net, &r, &set);
	t_result(CPU_COUNT(&set) == 1 && CPU_ISSET(BENCH_CPU_GEN, &set),
		 "counted CPUs: inline, the generator's CPU");
	b->net.clock.nown = 1;
	bench_scope_cpus(&b->opt, &b->net, &r, &set);
	t_result(CPU_COUNT(&set) == 2 && CPU_ISSET(BENCH_CPU_DUT, &set),
		 "counted CPUs: inline, a row's own threads add theirs");
	b->net.clock.nown = 0;
	b->opt.cpu_mode = BENCH_SPLIT;
	bench_scope_cpus(&b->opt, &b->net, &r, &set);
	t_result(CPU_COUNT(&set) == 1 && CPU_ISSET(BENCH_CPU_DUT, &set),
		 "counted CPUs: split, the NAPI kthreads' CPU");
	bench_scope_cpus(&b->opt, &b->net, &g, &set);
	t_result(CPU_COUNT(&set) == 1 && CPU_ISSET(BENCH_CPU_GEN, &set),
		 "counted CPUs: split, gen-only counts bench's own thread");
	free_bench(b);
}

/*
 * A round's cost is its fastest window: with 2 of its 20 windows in the
 * host's fast state, the fast cost, not a quantile above it.
 */
static void test_window_q(void)
{
	struct bench *b = new_bench();
	struct bench_window win[20] = {};
	struct bench_round rd = { .win = win, .nwin = 20 };
	struct bench_row r = { .kind = &hook_kind };
	int i;

	b->opt.cpu_mode = BENCH_INLINE;
	b->env.cpu_clock = true;
	for (i = 0; i < 20; i++) {
		win[i].packets = 1000;
		win[i].secs = 1e-3;
		win[i].cpu_ns = 1000 * (i == 3 || i == 11 ? 100 : 150);
	}
	bench_round_costs(&b->opt, &b->env, &r, &rd);
	t_result(near(rd.pkt_ns, 100, 1e-9),
		 "window: a round's cost is its fastest window's, 2 fast of 20 (%.2f of 100)",
		 rd.pkt_ns);
	free_bench(b);
}

/*
 * An excluded window is in no estimate (bench_round_costs takes the
 * others): a round of only excluded windows has no cost: the row's wild round, the
 * baseline's round (the pair goes) and gen-only's (the row's cost in that
 * round goes) alike; each row counts its own.
 */
static void test_summary_excluded(void)
{
	double gen[10], base[10], row[10];
	struct bench *b = new_bench();
	struct bench_row *g, *bl, *r;
	int k;

	for (k = 0; k < 10; k++) {
		gen[k] = 20;
		base[k] = 5;
		row[k] = 4;
	}
	row[2] = 0.1; /* 10 us a packet: a window the host took away */
	b->opt.cpu_mode = BENCH_INLINE;
	b->opt.seed = 7;
	g = fake_row(b, "gen-only", &gen_kind, -1, gen, 10);
	bl = fake_row(b, "nothing", &hook_kind, 1, base, 10);
	r = fake_row(b, "row", &hook_kind, 1, row, 10);
	/* Rounds of one window each, excluded: bench_round_costs leaves
	 * them no cost. */
	r->rd[2].pkt_ns = bl->rd[4].pkt_ns = g->rd[6].pkt_ns = NAN;
	r->rd[2].nexcluded = bl->rd[4].nexcluded = g->rd[6].nexcluded = 1;
	bench_summarize(b);
	CHECK_EQ(r->sum.excluded, 1,
		 "summary: a row counts its excluded windows");
	CHECK_EQ(
		r->sum.n, 8,
		"summary: neither its own excluded round nor gen-only's has a cost");
	t_result(isnan(r->rd[2].ns) && isnan(r->rd[6].ns) &&
			 near(r->rd[0].ns, 200, 1e-9),
		 "summary: no cost in an excluded round (%g, %g)", r->rd[2].ns,
		 r->rd[6].ns);
	t_result(
		near(r->sum.ns.hi, 200, 1e-9) &&
			near(r->sum.base.ratio.median, 200.0 / 150, 1e-9) &&
			near(r->sum.base.ratio.hi, 200.0 / 150, 1e-9),
		"summary: the excluded window's 10 us in no estimate (ns hi %g, ratio hi %g)",
		r->sum.ns.hi, r->sum.base.ratio.hi);
	CHECK_EQ(
		bl->sum.n, 8,
		"summary: the baseline has no cost in its excluded round nor in gen-only's");
	free_rows(b);
}

static void test_summary_inline(void)
{
	/* gen-only at 20 Mpps (50 ns), the baseline at 5 (200), a row at 4 (250). */
	double gen[8], base[8], row[8], slow[8];
	struct bench *b = new_bench();
	struct bench_row *g, *bl, *r, *o;
	int k;

	for (k = 0; k < 8; k++) {
		/* The machine drifts: every row of a round by the same factor. */
		double level = k < 4 ? 1.0 : 0.5;

		gen[k] = 20 * level;
		base[k] = 5 * level;
		row[k] = 4 * level;
		slow[k] = k == 5 ? 0.5 : 4 * level;
	}
	b->opt.cpu_mode = BENCH_INLINE;
	b->opt.seed = 7;
	g = fake_row(b, "gen-only", &gen_kind, -1, gen, 8);
	bl = fake_row(b, "nothing", &hook_kind, 1, base, 8);
	r = fake_row(b, "row", &hook_kind, 1, row, 8);
	o = fake_row(b, "row-with-outlier", &hook_kind, 1, slow, 8);
	bench_summarize(b);
	t_result(
		near(r->rd[0].ns, 200, 1e-9) && near(r->rd[7].ns, 400, 1e-9),
		"summary inline: a round's cost is 1e9/pps less gen-only's in that round (%g, %g)",
		r->rd[0].ns, r->rd[7].ns);
	t_result(
		near(g->rd[0].ns, 50, 1e-9) &&
			isnan(g->sum.base.delta.median) &&
			isnan(g->sum.base.ratio.median),
		"summary: gen-only's cost is its own, with nothing to compare");
	t_result(
		near(r->sum.base.ratio.median, 200.0 / 150, 1e-9) &&
			near(r->sum.base.ratio.lo, 200.0 / 150, 1e-9) &&
			near(r->sum.base.ratio.hi, 200.0 / 150, 1e-9),
		"summary: paired per round, the drift leaves the ratio %.4f [%.4f, %.4f]",
		r->sum.base.ratio.median, r->sum.base.ratio.lo,
		r->sum.base.ratio.hi);
	t_result(r->sum.base.delta.lo > 0 && r->sum.base.significant,
		 "summary: a delta whose interval excludes 0 is significant");
	t_result(
		bl->sum.base.ratio.median == 1 && bl->sum.base.delta.hi == 0 &&
			!bl->sum.base.significant &&
			has_flag(b, bl, "baseline"),
		"summary: the baseline against itself: ratio 1, delta 0, flagged");
	t_result(
		o->rd[5].outlier && o->sum.outliers == 1 &&
			has_flag(b, o, "outliers") && o->sum.n == 8,
		"summary: the slow round is flagged an outlier and kept (%d rounds)",
		o->sum.n);
	t_result(has_flag(b, g, "drift") && near(g->sum.drift, 2, 1e-9),
		 "summary: gen-only halving over the run is flagged as drift");
	t_result(!isnan(b->res.resolution_ns) && b->res.resolution_ns >= 0,
		 "summary: a resolution from the rows' intervals (%g ns)",
		 b->res.resolution_ns);
	free_rows(b);
}

/*
 * A baseline that costs no more than gen-only (an emulated CPU's wall
 * clock can make it so) has no ratio over it: not infinity, in the table
 * as in the JSON. The delta stays.
 */
static void test_summary_zero_base(void)
{
	double gen[6], base[6], row[6];
	struct bench *b = new_bench();
	struct bench_row *r;
	int k;

	for (k = 0; k < 6; k++) {
		gen[k] = 20;
		base[k] = k == 2 ? 20 : 10;
		row[k] = 4;
	}
	b->opt.cpu_mode = BENCH_INLINE;
	b->opt.seed = 7;
	fake_row(b, "gen-only", &gen_kind, -1, gen, 6);
	fake_row(b, "nothing", &hook_kind, 1, base, 6);
	r = fake_row(b, "row", &hook_kind, 1, row, 6);
	bench_summarize(b);
	t_result(
		isnan(r->sum.base.ratio.median) &&
			isnan(r->sum.base.ratio.lo) &&
			isnan(r->sum.base.ratio.hi),
		"summary: no ratio over a baseline round of 0 ns (%g [%g, %g])",
		r->sum.base.ratio.median, r->sum.base.ratio.lo,
		r->sum.base.ratio.hi);
	t_result(!isnan(r->sum.base.delta.median) && r->sum.base.delta.lo > 0,
		 "summary: the delta over it stays (%g)",
		 r->sum.base.delta.median);
	free_rows(b);
}

/*
 * veth rounds with windows: one over BENCH_CONTENDED times its row's
 * fastest round is contended and has no cost, nor do the rounds of the
 * rows that take gen-only's contended round off; exactly at the
 * threshold it still counts.
 */
static void test_summary_contended(void)
{
	static struct bench_window w;
	double gen[10], base[10], row[10], edge[10];
	struct bench *b = new_bench();
	struct bench_row *g, *bl, *r, *e;
	int k, i;

	for (k = 0; k < 10; k++) {
		gen[k] = 1e3 / (k == 2 ? 75 : 50);
		base[k] = 1e3 / (k == 5 ? 250 * 1.45 : 250);
		row[k] = 1e3 / (k == 1 ? 300 * 1.2 * 1.0001 : 300);
		edge[k] = 1e3 / (k == 7 ? 400 * 1.2 : 400);
	}
	b->opt.cpu_mode = BENCH_INLINE;
	g = fake_row(b, "gen-only", &gen_kind, -1, gen, 10);
	bl = fake_row(b, "nothing", &hook_kind, 1, base, 10);
	r = fake_row(b, "row", &hook_kind, 1, row, 10);
	e = fake_row(b, "edge", &hook_kind, 1, edge, 10);
	e->rd[7].pkt_ns = BENCH_CONTENDED * e->rd[0].pkt_ns; /* exactly */
	for (i = 0; i < b->rows.n; i++)
		for (k = 0; k < 10; k++)
			b->rows.row[i].rd[k].win = &w;
	bench_summarize(b);
	t_result(g->rd[2].contended && bl->rd[5].contended &&
			 r->rd[1].contended && !e->sum.contended,
		 "contended: over 1.2x the row's fastest round, not at it");
	t_result(g->sum.contended == 1 && bl->sum.contended == 1 &&
			 r->sum.contended == 1 && has_flag(b, r, "contended"),
		 "contended: counted per row (%d %d %d)", g->sum.contended,
		 bl->sum.contended, r->sum.contended);
	t_result(isnan(r->rd[1].ns) && isnan(r->rd[2].ns) && r->sum.n == 8,
		 "contended: no cost in its own or gen-only's contended round (%d rounds)",
		 r->sum.n);
	t_result(
		near(r->sum.base.delta.median, 50, 1e-9) &&
			near(r->sum.base.delta.lo, 50, 1e-9) &&
			near(r->sum.base.delta.hi, 50, 1e-9),
		"contended: the pairs left give the delta exactly (%g [%g, %g])",
		r->sum.base.delta.median, r->sum.base.delta.lo,
		r->sum.base.delta.hi);
	for (i = 0; i < b->rows.n; i++)
		for (k = 0; k < 10; k++)
			b->rows.row[i].rd[k].win = NULL;
	free_rows(b);
}

static void test_summary_split(void)
{
	double gen[4] = { 10, 10, 10, 10 }, fast[4] = { 9.9, 9.95, 9.9, 9.85 };
	double slow[4] = { 5, 5.1, 4.9, 5 };
	struct bench *b = new_bench();
	struct bench_row *f, *s;

	b->opt.cpu_mode = BENCH_SPLIT;
	b->env.emulated = true;
	fake_row(b, "gen-only", &gen_kind, -1, gen, 4);
	s = fake_row(b, "slow", &hook_kind, 1, slow, 4);
	f = fake_row(b, "fast", &hook_kind, 1, fast, 4);
	bench_summarize(b);
	t_result(
		has_flag(b, f, "generator-bound") &&
			!has_flag(b, s, "generator-bound"),
		"summary split: a row within 2%% of the generator is generator-bound");
	t_result(
		near(s->rd[0].ns, 200, 1e-9),
		"summary split: the cost is the DUT's time per packet, nothing taken off");
	t_result(has_flag(b, f, "emulated") &&
			 has_flag(b, &b->rows.row[0], "emulated"),
		 "summary: an emulated CPU flags every row");
	free_rows(b);
}

/*
 * The machine changed speed between the rows' windows: the row's median
 * is under the baseline's while, in 6 rounds of 8, it costs 10 ns more
 * (in the other two it ran after the machine sped up).
 */
static void test_summary_disagrees(void)
{
	double base_ns[8] = { 300, 300, 300, 300, 300, 150, 150, 150 };
	double row_ns[8] = { 310, 310, 160, 160, 310, 160, 160, 160 };
	double base[8], row[8], same[8];
	struct bench *b = new_bench();
	struct bench_row *r, *ok;
	int k;

	for (k = 0; k < 8; k++) {
		base[k] = 1e3 / base_ns[k];
		row[k] = 1e3 / row_ns[k];
		same[k] = 1e3 / (base_ns[k] + 10);
	}
	b->opt.cpu_mode = BENCH_SPLIT;
	fake_row(b, "base", &hook_kind, 0, base, 8);
	r = fake_row(b, "moved", &hook_kind, 0, row, 8);
	ok = fake_row(b, "steady", &hook_kind, 0, same, 8);
	bench_summarize(b);
	t_result(
		r->sum.base.delta.median > 0 && r->sum.ns.median < 300 &&
			has_flag(b, r, "unpaired-disagrees"),
		"summary: a delta of %+.1f against medians %.1f and %.1f is flagged",
		r->sum.base.delta.median, r->sum.ns.median,
		b->rows.row[0].sum.ns.median);
	t_result(!has_flag(b, ok, "unpaired-disagrees") &&
			 !has_flag(b, &b->rows.row[0], "unpaired-disagrees"),
		 "summary: rows whose delta and medians agree are not");
	free_rows(b);
}

/* Adds a row whose round k costs ns[k] (split: the DUT's time, as is). */
static struct bench_row *ns_row(struct bench *b, const char *name, int base,
				const double *ns, int n)
{
	double mpps[16];
	struct bench_row *r;
	int k;

	for (k = 0; k < n; k++)
		mpps[k] = 1e3 / ns[k];
	r = fake_row(b, name, &hook_kind, base, mpps, n);
	for (k = 0; k < n; k++)
		r->rd[k].pkt_ns = ns[k];
	return r;
}

/*
 * A row that missed round 3 is paired with the baseline by round number:
 * every round it ran costs the baseline's of that round plus 8..14 ns.
 * Its 7 deltas' 95% interval is their 3rd Walsh average from each end
 * (subsets of {1..7} with sums 0, 1, 2: 3 of 128 <= 3.2; sum 3 makes 5).
 */
static void test_summary_pairing(void)
{
	double base[8] = { 300, 150, 280, 160, 310, 140, 290, 170 };
	double d[7] = { 10, 12.5, 9.25, 11, 10.125, 13.75, 8.375 }, gap[7],
	       w[28];
	double fast[8], ratio[9], ones[9];
	struct bench *b = new_bench();
	struct bench_row *g, *f, *q;
	int k;

	for (k = 0; k < 7; k++)
		gap[k] = base[k + (k >= 2)] + d[k];
	for (k = 0; k < 8; k++)
		fast[k] = base[k] - 10 - (k % 3);
	for (k = 0; k < 9; k++) {
		ones[k] = 100;
		ratio[k] = 100 * (k % 3 == 0 ? 0.5 : k % 3 == 1 ? 1 : 2);
	}
	b->opt.cpu_mode = BENCH_SPLIT;
	ns_row(b, "base", 0, base, 8);
	g = ns_row(b, "gap", 0, gap, 7);
	for (k = 2; k < 7; k++)
		g->rd[k].round = k + 2;
	f = ns_row(b, "faster", 0, fast, 8);
	bench_summarize(b);
	walsh_sorted(d, 7, w);
	t_result(
		g->sum.base.delta.lo == w[2] && g->sum.base.delta.hi == w[25] &&
			g->sum.base.delta.median == (w[13] + w[14]) / 2 &&
			g->sum.n == 7,
		"summary: missing round 3, paired by round: delta %g [%g, %g], want %g [%g, %g]",
		g->sum.base.delta.median, g->sum.base.delta.lo,
		g->sum.base.delta.hi, (w[13] + w[14]) / 2, w[2], w[25]);
	t_result(g->sum.delta_median == 10.125,
		 "summary: the median of the paired deltas beside it (%g)",
		 g->sum.delta_median);
	t_result(
		near(g->sum.base.mde_ns,
		     (w[25] - w[2]) / 2 / 1.959964 * 2.801585, 1e-9) &&
			near(g->sum.base.mde_pct,
			     g->sum.base.mde_ns / g->sum.ns.median * 100, 1e-9),
		"summary: the row's mde is 2.8 / 1.96 of its delta's half-width: %g ns, %g%%",
		g->sum.base.mde_ns, g->sum.base.mde_pct);
	t_result(f->sum.base.delta.hi < 0 && f->sum.base.significant,
		 "summary: a negative delta %g [%g, %g] is significant",
		 f->sum.base.delta.median, f->sum.base.delta.lo,
		 f->sum.base.delta.hi);
	t_result(
		isnan(b->rows.row[0].sum.base.mde_ns) &&
			b->res.resolution_ns ==
				(g->sum.base.mde_ns + f->sum.base.mde_ns) / 2 &&
			b->res.resolution_pct ==
				(g->sum.base.mde_pct + f->sum.base.mde_pct) / 2,
		"summary: the resolution is the median of the rows' mde (%g ns, %g%%), the baseline's left out",
		b->res.resolution_ns, b->res.resolution_pct);
	free_rows(b);

	b = new_bench();
	b->opt.cpu_mode = BENCH_SPLIT;
	ns_row(b, "base", 0, ones, 9);
	q = ns_row(b, "halves", 0, ratio, 9);
	bench_summarize(b);
	t_result(near(q->sum.base.ratio.median, 1, 1e-12),
		 "summary: ratios 1/2, 1, 2 are centred on 1 as logs (%g)",
		 q->sum.base.ratio.median);
	free_rows(b);
}

/*
 * The machine 300 ns slower for every row in round 4: a raw cost's
 * outlier, not a paired one. The row alone 50 ns slower in round 6: a
 * paired outlier. The baseline has no pair: its raw costs are flagged.
 */
static void test_summary_paired_outliers(void)
{
	double base[8] = { 100, 101, 99, 400, 100.5, 99.5, 100, 101 };
	double d[8] = { 10, 10.2, 9.9, 10.1, 9.8, 60, 10, 10.1 }, row[8];
	struct bench *b = new_bench();
	struct bench_row *bl, *r;
	int k;

	for (k = 0; k < 8; k++)
		row[k] = base[k] + d[k];
	b->opt.cpu_mode = BENCH_SPLIT;
	bl = ns_row(b, "base", 0, base, 8);
	r = ns_row(b, "row", 0, row, 8);
	bench_summarize(b);
	t_result(
		!r->rd[3].outlier && r->rd[5].outlier && r->sum.outliers == 1,
		"outliers: flagged on the paired delta (round 6), not on the machine's slow round 4");
	t_result(
		bl->rd[3].outlier && bl->sum.outliers == 1,
		"outliers: the baseline's own slow round is flagged on its raw cost");
	free_rows(b);
}

/* gen-only's max/min exactly 1.10 is not drift; a little over it is. */
static void test_drift_edge(void)
{
	double gen[4] = { 10, 10, 10, 10 };
	static const double hi[2] = { 110, 111 };
	int i, k;

	for (i = 0; i < 2; i++) {
		struct bench *b = new_bench();
		struct bench_row *g;

		b->opt.cpu_mode = BENCH_INLINE;
		g = fake_row(b, "gen-only", &gen_kind, -1, gen, 4);
		for (k = 0; k < 4; k++)
			g->rd[k].pkt_ns = k == 2 ? hi[i] : 100;
		bench_summarize(b);
		t_result(has_flag(b, g, "drift") == (i == 1),
			 "drift: max/min %g is %sflagged", g->sum.drift,
			 i ? "" : "not ");
		free_rows(b);
	}
}

/*
 * What makes a round count: every frame accounted for (forward: at the
 * sink, before the DUT, at the DUT), a drop row passing nothing, and a
 * forward row getting every frame to the sink.
 */
static void test_round_check(void)
{
	static const struct bench_kind fwd = { .name = "fwd",
					       .dropped_at = "hcd rx_dropped" };
	static struct bench_row drop = { .kind = &hook_kind, .drop = true };
	static struct bench_row f = { .kind = &fwd, .forward = true };
	static struct bench_row gen = { .kind = &gen_kind };
	static const struct {
		struct bench_row *r;
		struct bench_round rd;
		const char *want; /* "" when the round counts */
	} cases[] = {
		{ &drop,
		  { .round = 1,
		    .generated = 100,
		    .seen = 95,
		    .dropped_before = 5 },
		  "" },
		{ &drop,
		  { .round = 1,
		    .generated = 100,
		    .seen = 94,
		    .dropped_before = 6 },
		  "round 1: the hook saw 94 of 100 frames (6 dropped before it), under 95%, too few for a cost" },
		/* AF_XDP: which ring dropped them, and the rest at the device */
		{ &drop,
		  { .round = 3,
		    .generated = 36680,
		    .seen = 30540,
		    .dropped_before = 6140,
		    .ring_full = 6140 },
		  "round 3: the hook saw 30540 of 36680 frames (6140 dropped before it: 6140 with AF_XDP's rx ring full), under 95%, too few for a cost" },
		{ &drop,
		  { .round = 1,
		    .generated = 100,
		    .seen = 10,
		    .dropped_before = 80,
		    .ring_full = 50,
		    .fill_empty = 20 },
		  "round 1: generated 100 != seen 10 + dropped before 80: 50 with AF_XDP's rx ring full, 20 with its fill ring empty, 10 at the device" },
		{ &drop,
		  { .round = 2, .generated = 10, .seen = 7 },
		  "round 2: generated 10 != seen 7 + dropped before 0" },
		{ &drop,
		  { .round = 1, .generated = 10, .seen = 10, .passed = 1 },
		  "round 1: 1 packet passed a drop row's hook" },
		{ &drop,
		  { .round = 0, .generated = 10, .seen = 7 },
		  "warm-up round: generated 10 != seen 7 + dropped before 0" },
		{ &gen, { .round = 1, .generated = 10 }, "" },
		{ &gen,
		  { .round = 1, .generated = 10, .seen = 1 },
		  "round 1: generated 10 != seen 1 + dropped before 0" },
		{ &f,
		  { .round = 1,
		    .generated = 100,
		    .seen = 98,
		    .dropped_before = 2 },
		  "" },
		{ &f,
		  { .round = 2,
		    .generated = 10,
		    .seen = 9,
		    .dropped_before = 1 },
		  "round 2: the hook saw 9 of 10 frames (1 dropped before it), under 95%, too few for a cost" },
		{ &f,
		  { .round = 3,
		    .generated = 10,
		    .seen = 8,
		    .dropped_before = 1 },
		  "round 3: generated 10 != 8 at the sink + 1 dropped before the DUT + 0 at it" },
		{ &f,
		  { .round = 1, .generated = 10, .seen = 8, .dropped_dut = 2 },
		  "round 1: 2 dropped at the DUT (hcd rx_dropped)" },
		/* the DUT's drops say more than the load's shortfall */
		{ &f,
		  { .round = 1,
		    .generated = 20,
		    .dropped_before = 4,
		    .dropped_dut = 16 },
		  "round 1: 16 dropped at the DUT (hcd rx_dropped)" },
		{ &f,
		  { .round = 1, .generated = 10, .seen = 10, .passed = 4 },
		  "round 1: 4 passed to the DUT's stack, not forwarded" },
	};
	char why[200];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bench_round_check(cases[i].r, &cases[i].rd, why, sizeof(why));
		if (strcmp(why, cases[i].want))
			printf("  got: '%s'\n", why);
		t_result(!strcmp(why, cases[i].want), "round check %u: '%s'", i,
			 cases[i].want);
	}
}

/*
 * --dev: a round counts when the device's counters close the sum within
 * 0.1% (generated, or rx_packets when nothing says what was sent); else
 * it is unverified, with its numbers; nothing at all is INVALID.
 */
static void test_round_device(void)
{
	static struct bench_row drop = { .kind = &hook_kind, .drop = true };
	static struct bench_row pass = { .kind = &hook_kind };
	static const struct {
		struct bench_row *r;
		struct bench_round rd;
		int ret;
		const char *want;
	} cases[] = {
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100000,
		    .seen = 99000,
		    .dropped_before = 1000 },
		  0,
		  "" },
		/* 0.1% off: still closes; 0.2% off: does not. */
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100000,
		    .seen = 99900 },
		  0,
		  "" },
		{ &drop,
		  { .round = 2,
		    .generated_known = true,
		    .generated = 100000,
		    .seen = 99800,
		    .dev = { .rx_packets = 99800 } },
		  1,
		  "round 2: generated 100000 != seen 99800 + dropped before 0 (rx_packets 99800)" },
		/* --external: rx_packets stands for what was sent. */
		{ &drop,
		  { .round = 1,
		    .seen = 5000,
		    .dropped_before = 0,
		    .dev = { .rx_packets = 5000 } },
		  0,
		  "" },
		{ &drop,
		  { .round = 3,
		    .seen = 5000,
		    .dropped_before = 700,
		    .dev = { .rx_packets = 5000, .rx_dropped = 700 } },
		  1,
		  "round 3: rx_packets 5000 != seen 5000 + dropped before 700" },
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 50839662 },
		  -1,
		  "round 1: 50,839,662 generated, 0 seen at the hook, 0 dropped before it: the frames were lost where no counter on vb sees them" },
		/* The generator says what it offered and what left. */
		{ &drop,
		  { .round = 0, .generated_known = true, .offered = 1234567 },
		  -1,
		  "warm-up round: 1,234,567 offered by the generator, none of them left its device, 0 seen at the hook, 0 dropped before it: the frames were lost where no counter on vb sees them" },
		{ &drop,
		  { .round = 2,
		    .generated_known = true,
		    .generated = 999,
		    .offered = 1000 },
		  -1,
		  "round 2: 1,000 offered by the generator, of them 999 generated, 0 seen at the hook, 0 dropped before it: the frames were lost where no counter on vb sees them" },
		/* The cause follows what failed, and only that. */
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100,
		    .cause = "a veth runs NAPI only ..." },
		  -1,
		  "round 1: 100 generated, 0 seen at the hook, 0 dropped before it: the frames were lost where no counter on vb sees them; a veth runs NAPI only ..." },
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100,
		    .seen = 50,
		    .cause = "the cause" },
		  1,
		  "round 1: generated 100 != seen 50 + dropped before 0 (rx_packets 0); the cause" },
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100,
		    .seen = 100,
		    .cause = "the cause" },
		  0,
		  "" },
		{ &drop,
		  { .round = 1 },
		  -1,
		  "round 1: no packets in the window" },
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 10,
		    .seen = 10,
		    .passed = 2 },
		  -1,
		  "round 1: 2 packets passed a drop row's hook" },
		{ &pass,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 10,
		    .seen = 10,
		    .passed = 2 },
		  0,
		  "" },
	};
	char why[512];
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ret = bench_round_device(cases[i].r, &cases[i].rd, "vb", why,
					 sizeof(why));
		if (strcmp(why, cases[i].want) || ret != cases[i].ret)
			printf("  got: %d '%s'\n", ret, why);
		t_result(!strcmp(why, cases[i].want) && ret == cases[i].ret,
			 "round device %u: %d '%s'", i, cases[i].ret,
			 cases[i].want);
	}
}

/*
 * --coverage: the table in doc/methodology.md, not a test. The old
 * interval, a percentile bootstrap of the median (2,000 resamples, the
 * 2.5% and 97.5% points interpolated), is here only to be compared.
 */
static double boot_quantile(const double *v, int n, double p)
{
	double h = (n - 1) * p;
	int i = (int)floor(h);

	return i >= n - 1 ? v[n - 1] : v[i] + (h - i) * (v[i + 1] - v[i]);
}

static void old_bootstrap(const double *x, int n, __u64 *rng, struct st_est *e)
{
	double s[64], med[2000];
	int b, i;

	for (b = 0; b < 2000; b++) {
		for (i = 0; i < n; i++)
			s[i] = x[st_rand_below(rng, n)];
		med[b] = st_median(s, n);
	}
	qsort(med, 2000, sizeof(*med), cmp_dbl);
	e->lo = boot_quantile(med, 2000, 0.025);
	e->hi = boot_quantile(med, 2000, 0.975);
}

/* Coverage of 0 by st_hl and by the old bootstrap; mean widths. */
static void cover_both(int n, double (*noise)(__u64 *), __u64 seed, double *hl,
		       double *boot, double *width)
{
	double x[64], whl = 0, wboot = 0;
	struct st_est e;
	int t, i, trials = 2000;

	*hl = *boot = 0;
	for (t = 0; t < trials; t++) {
		for (i = 0; i < n; i++)
			x[i] = noise(&seed);
		st_hl(x, n, 0.95, &e);
		*hl += e.lo <= 0 && 0 <= e.hi;
		whl += e.hi - e.lo;
		old_bootstrap(x, n, &seed, &e);
		*boot += e.lo <= 0 && 0 <= e.hi;
		wboot += e.hi - e.lo;
	}
	*hl *= 100.0 / trials;
	*boot *= 100.0 / trials;
	*width = whl / wboot;
}

static void coverage_table(void)
{
	static const int ns[] = { 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50 };
	double hn, bn, wn, hc, bc, wc;
	unsigned int i;

	printf("| n | HL/Wilcoxon, normal | bootstrap, normal | HL/Wilcoxon, Cauchy | bootstrap, Cauchy | median's interval, exponential | HL width / bootstrap width, normal |\n");
	printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		cover_both(ns[i], normal, SEED + i, &hn, &bn, &wn);
		cover_both(ns[i], cauchy, SEED + 100 + i, &hc, &bc, &wc);
		printf("| %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.2f |\n",
		       ns[i], hn, bn, hc, bc,
		       100 * median_coverage(ns[i], 2000, expo, log(2),
					     SEED + 200 + i),
		       wn);
		fflush(stdout);
	}
}

/* ---- bench compare (diff.c) and the JSON reader it reads with ---- */

/*
 * A bench document: rows base (its own baseline), a and b (against
 * base), gen-only (none), n rounds each; row i's round k costs
 * cost[i] x scale[i] x (1 + up to +-1% of deterministic noise).
 */
static char *doc(const char *scen, const char *topo, int frame, int n,
		 const double *scale, unsigned int seed)
{
	static const char *const names[] = { "base", "a", "b", "gen-only" };
	static const double cost[] = { 100, 200, 300, 50 };
	size_t cap = 1 << 16, len = 0;
	char *t = malloc(cap);
	int i, k;

	len += snprintf(t + len, cap - len,
			"{\"type\":\"bench\",\"scenario\":\"%s\",\"topology\":\"%s\",\"cpu_mode\":\"inline\",\"rounds\":%d,\"baseline\":\"base\",\"env\":{\"kernel\":\"test\"},\"rows\":[",
			scen, topo, n);
	for (i = 0; i < 4; i++) {
		len += snprintf(t + len, cap - len,
				"%s{\"name\":\"%s\",\"status\":\"valid\",\"reason\":null,\"frame_bytes\":%d,\"baseline\":%s%s%s,\"rounds\":[",
				i ? "," : "", names[i], frame, i < 3 ? "\"" : "",
				i < 3 ? "base" : "null", i < 3 ? "\"" : "");
		for (k = 1; k <= n; k++) {
			double noise;

			seed = seed * 1103515245u + 12345u;
			noise = ((int)((seed >> 16) % 2001) - 1000) / 1e5;
			len += snprintf(t + len, cap - len,
					"%s{\"round\":%d,\"ns\":%.4f}",
					k > 1 ? "," : "", k,
					cost[i] * scale[i] * (1 + noise));
		}
		len += snprintf(t + len, cap - len, "]}");
	}
	snprintf(t + len, cap - len, "]}");
	return t;
}

static struct jp *parsed(char *text)
{
	struct jp *v = NULL;
	char why[128];

	if (jp_parse(text, &v, why, sizeof(why)))
		printf("  %s\n", why);
	free(text);
	return v;
}

static const struct bench_cmp_row *cmp_row(const struct bench_cmp *c,
					   const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->rows[i].name, name))
			return &c->rows[i];
	return NULL;
}

/* A side of n runs: the documents' array and the set over it. */
#define SIDE(set, label, docs, k) \
	struct bench_cmp_set set = { label, (const struct jp *const *)(docs), k }

/*
 * The documents of the last comparison: its rows' names point into
 * them, so they live until the next one (or held_free()).
 */
static struct jp *held[16];
static int nheld;

static void held_free(void)
{
	while (nheld)
		jp_free(held[--nheld]);
}

/* OLD k runs of doc(.., one, seed i), NEW k runs of doc(.., scale, 100 + i). */
static int cmp_docs(const double *scale, int k, int rounds,
		    const struct bench_cmp_opts *opts, struct bench_cmp *c,
		    char *why)
{
	struct jp *d[2][8];
	static const double one[] = { 1, 1, 1, 1 };
	int i, w, ret;

	held_free();
	for (i = 0; i < k; i++) {
		d[0][i] = parsed(doc("hooks", "veth", 60, rounds, one, 1 + i));
		d[1][i] = parsed(
			doc("hooks", "veth", 60, rounds, scale, 100 + i));
	}
	{
		SIDE(o, "OLD", d[0], k);
		SIDE(n, "NEW", d[1], k);
		struct bench_cmp_set set[2] = { o, n };

		ret = bench_compare(set, opts, c, why, 256);
	}
	for (w = 0; w < 2; w++)
		for (i = 0; i < k; i++)
			held[nheld++] = d[w][i];
	return ret;
}

static int verdicts(const struct bench_cmp *c, const char *v)
{
	int i, n = 0;

	for (i = 0; i < c->n; i++)
		n += !strcmp(c->rows[i].verdict, v);
	return n;
}

static void test_compare(void)
{
	static const double one[] = { 1, 1, 1, 1 },
			    slower[] = { 1, 1.05, 1.05, 1 },
			    shift[] = { 1.2, 1.2, 1.2, 1.2 };
	struct bench_cmp_opts opts = { .threshold = 2 };
	const struct bench_cmp_row *a, *g;
	struct bench_cmp c;
	char why[256];
	struct jp *old, *new;
	int ret;

	/* three runs a side of one kernel: every row the same */
	ret = cmp_docs(one, 3, 20, &opts, &c, why);
	CHECK_EQ(ret, 0, "compare: three runs against three of the same");
	CHECK_EQ(c.n, 4, "compare: every row compared");
	CHECK_EQ(verdicts(&c, "same"), 4,
		 "compare: the same kernel: every row same (within 2%%)");
	CHECK_EQ(c.regressed, 0, "compare: the same kernel: none regressed");
	a = cmp_row(&c, "a");
	t_result(a && a->has_base && a->decided == &a->vs_base &&
			 !strcmp(a->interval_from, "runs") &&
			 a->runs[0] == 3 && a->runs[1] == 3 &&
			 a->mde_pct > 0 && a->mde_pct < 2,
		 "compare: a row with a baseline decides by it, over 3+3 runs, mde %.2f%%",
		 a ? a->mde_pct : NAN);
	g = cmp_row(&c, "gen-only");
	t_result(g && !g->has_base && g->decided == &g->change,
		 "compare: a row without one decides by its own change");
	bench_compare_free(&c);

	/* a and b 5% slower: slower, past a 2% threshold; NEW/OLD */
	ret = cmp_docs(slower, 3, 20, &opts, &c, why);
	a = cmp_row(&c, "a");
	t_result(!ret && a && !strcmp(a->verdict, "slower") &&
			 fabs(a->change.median - 1.05) < 0.01 &&
			 a->change.lo > 1.02 && a->change.hi < 1.08 &&
			 fabs(a->vs_base.median - 1.05) < 0.01 &&
			 a->p_holm < 0.05,
		 "compare: 5%% slower: slower, change %.4f [%.4f, %.4f]",
		 a ? a->change.median : NAN, a ? a->change.lo : NAN,
		 a ? a->change.hi : NAN);
	CHECK_EQ(c.regressed, 2, "compare: 5%% slower: a and b past --threshold 2");
	t_result(!strcmp(cmp_row(&c, "base")->verdict, "same"),
		 "compare: 5%% slower: the baseline the same");
	bench_compare_free(&c);
	opts.threshold = 10;
	cmp_docs(slower, 3, 20, &opts, &c, why);
	CHECK_EQ(c.regressed, 0, "compare: 5%% slower: none past --threshold 10");
	bench_compare_free(&c);
	opts.threshold = 2;

	/* the whole machine 20% slower: changes slower, against the baseline same */
	ret = cmp_docs(shift, 3, 20, &opts, &c, why);
	a = cmp_row(&c, "a");
	t_result(!ret && a && a->change.lo > 1.15 && a->vs_base.lo < 1 &&
			 a->vs_base.hi > 1 && !strcmp(a->verdict, "same") &&
			 c.regressed == 0,
		 "compare: a 20%% shift of the machine: change %.3f, vs baseline %.4f [%.4f, %.4f], %s, %d regressed",
		 a ? a->change.median : NAN, a ? a->vs_base.median : NAN,
		 a ? a->vs_base.lo : NAN, a ? a->vs_base.hi : NAN,
		 a ? a->verdict : "-", c.regressed);
	t_result(!strcmp(cmp_row(&c, "gen-only")->verdict, "slower") &&
			 !strcmp(cmp_row(&c, "base")->verdict, "slower"),
		 "compare: a 20%% shift: the rows with no other baseline see it (and fail no threshold)");
	bench_compare_free(&c);

	/* one run a side: the run-to-run variance is unknown, no verdict */
	ret = cmp_docs(slower, 1, 20, &opts, &c, why);
	a = cmp_row(&c, "a");
	t_result(!ret && verdicts(&c, "inconclusive") == 4 && !c.regressed &&
			 isnan(a->vs_base.lo) && !a->interval_from &&
			 strstr(a->why, "run-to-run variance is unknown"),
		 "compare: one run a side: inconclusive, and why (%s)",
		 a ? a->why : "-");
	bench_compare_free(&c);

	held_free();
	/* runs that differ are refused, naming how, unless allowed */
	old = parsed(doc("hooks", "veth", 60, 20, one, 1));
	{
		static const struct {
			const char *scen, *topo;
			int frame;
			const char *says;
		} diff[] = {
			{ "rules", "veth", 60, "OLD's scenario is hooks, NEW's is rules" },
			{ "hooks", "inject", 60, "OLD's topology is veth, NEW's is inject" },
			{ "hooks", "veth", 512, "row base: OLD's frames are 60 bytes, NEW's 512" },
		};
		unsigned int k;

		for (k = 0; k < sizeof(diff) / sizeof(diff[0]); k++) {
			new = parsed(doc(diff[k].scen, diff[k].topo, diff[k].frame,
					 20, one, 5));
			{
				SIDE(o, "OLD", &old, 1);
				SIDE(n, "NEW", &new, 1);
				struct bench_cmp_set set[2] = { o, n };

				opts.allow_mismatch = false;
				ret = bench_compare(set, &opts, &c, why,
						    sizeof(why));
				t_result(ret == -EXDEV &&
						 strstr(why, diff[k].says),
					 "compare: refused: %s (%s)",
					 diff[k].says, why);
				bench_compare_free(&c);
				opts.allow_mismatch = true;
				ret = bench_compare(set, &opts, &c, why,
						    sizeof(why));
				t_result(!ret &&
						 strstr(c.mismatch, diff[k].says),
					 "compare: --allow-mismatch: compared, the difference kept");
				bench_compare_free(&c);
			}
			jp_free(new);
		}
		opts.allow_mismatch = false;
	}
	{
		struct jp *two[2] = { old, NULL };

		two[1] = parsed(strdup("{\"type\":\"bench\",\"scenario\":\"hooks\",\"topology\":\"veth\",\"cpu_mode\":\"split\",\"rows\":[]}"));
		{
			SIDE(o, "OLD", two, 1);
			SIDE(n, "NEW", two, 2);
			struct bench_cmp_set set[2] = { o, n };

			ret = bench_compare(set, &opts, &c, why, sizeof(why));
			t_result(ret == -EXDEV &&
					 strstr(why, "OLD's cpu_mode is inline, NEW run 2's is split"),
				 "compare: refused: another CPU mode, naming the run (%s)",
				 why);
			bench_compare_free(&c);
		}
		jp_free(two[1]);
		two[1] = parsed(strdup("{\"type\":\"run\",\"rows\":[]}"));
		{
			SIDE(o, "OLD", two, 1);
			SIDE(n, "NEW", two + 1, 1);
			struct bench_cmp_set set[2] = { o, n };

			ret = bench_compare(set, &opts, &c, why, sizeof(why));
			t_result(ret == -EINVAL &&
					 strstr(why, "NEW is not a bench document"),
				 "compare: a document of another type (%s)", why);
		}
		jp_free(two[1]);
	}
	jp_free(old);
}

/*
 * Rows "base" and r1..r4 against it, every round of a run alike: the
 * per-run estimates are exactly log(ratio[row]). drop: a row whose
 * rounds array lacks round 1 (and whose costs are then off by one place
 * from its baseline's), the machine 5% slower each round.
 */
static const char *exact_boot; /* the documents' boot_id, NULL: none */
static int exact_apart; /* a row whose rounds none of its baseline's share */

static struct jp *exact_doc(const char *topo, const double *ratio, int drop,
			    const char *flag)
{
	size_t cap = 1 << 15, len = 0;
	char *t = malloc(cap);
	int i, k;

	len += snprintf(t + len, cap - len,
			"{\"type\":\"bench\",\"scenario\":\"hooks\",\"topology\":\"%s\",\"cpu_mode\":\"inline\",\"env\":{\"settings\":{\"boot_id\":\"%s\"}},\"rows\":[",
			topo, exact_boot ?: "");
	for (i = 0; i < 5; i++) {
		len += snprintf(t + len, cap - len,
				"%s{\"name\":\"%s%.0d\",\"status\":\"valid\",\"baseline\":\"base\",\"flags\":[\"%s\"],\"rounds\":[",
				i ? "," : "", i ? "r" : "base", i,
				i == 1 && flag ? flag : "");
		for (k = 1; k <= 10; k++) {
			double base = 100 * (1 + 0.05 * k);

			if (i == drop && k == 1)
				continue;
			len += snprintf(t + len, cap - len,
					"%s{\"round\":%d,\"ns\":%.9f}",
					k > 1 + (i == drop) ? "," : "",
					k + (i && i == exact_apart ? 100 : 0),
					base * (i ? ratio[i] : 1));
		}
		len += snprintf(t + len, cap - len, "]}");
	}
	snprintf(t + len, cap - len, "]}");
	return parsed(t);
}

/* boots: OLD's runs' boot ids, then NEW's (NULL: one boot for all) */
static int cmp_exact(const char *topo, double (*ro)[5], double (*rn)[5],
		     int k, int drop, const char *flag,
		     const struct bench_cmp_opts *opts, struct bench_cmp *c,
		     const char *const *boots)
{
	struct jp *d[2][4];
	char why[256];
	int i, ret;

	held_free();
	for (i = 0; i < k; i++) {
		exact_boot = boots ? boots[i] : NULL;
		/* drop -2: OLD's first run has r1 apart from its baseline */
		exact_apart = drop == -2 && !i;
		d[0][i] = exact_doc(topo, ro[i], drop, flag);
		exact_apart = 0;
		exact_boot = boots ? boots[k + i] : NULL;
		d[1][i] = exact_doc(topo, rn[i], -1, NULL);
	}
	{
		SIDE(o, "OLD", d[0], k);
		SIDE(n, "NEW", d[1], k);
		struct bench_cmp_set set[2] = { o, n };

		ret = bench_compare(set, opts, c, why, sizeof(why));
	}
	for (i = 0; i < k; i++) {
		held[nheld++] = d[0][i];
		held[nheld++] = d[1][i];
	}
	return ret;
}

/*
 * The verdict rules on documents whose per-run estimates are exact: the
 * pairing of rounds, Holm's correction, the equivalence test, --dev's
 * rows without a verdict.
 */
static void test_compare_rules(void)
{
	struct bench_cmp_opts opts = { .threshold = 1 };
	const struct bench_cmp_row *r;
	struct bench_cmp c;
	/* 2 runs a side: log ratios x and x + 0.01 on each side */
	double ro[2][5], rn[2][5], se = sqrt(0.00005), d;
	int i, ret;

	/*
	 * p = 0.02 exactly for r1..r4: each "slower" alone, none after Holm
	 * over the five rows judged (the baseline's raw change, p 1, too).
	 * The baseline's runs agree exactly, but each one's median of its
	 * rounds (5% apart) is known to +-14% only: inconclusive as well.
	 */
	d = st_t_quantile(0.99, 2) * se;
	for (i = 1; i < 5; i++) {
		ro[0][i] = 2;
		ro[1][i] = 2 * exp(0.01);
		rn[0][i] = 2 * exp(d);
		rn[1][i] = 2 * exp(d + 0.01);
	}
	ret = cmp_exact("veth", ro, rn, 2, -1, NULL, &opts, &c, NULL);
	r = cmp_row(&c, "r1");
	t_result(!ret && r && near(r->p, 0.02, 1e-6) &&
			 near(r->p_holm, 0.1, 1e-6) &&
			 verdicts(&c, "slower") == 0 &&
			 verdicts(&c, "inconclusive") == 5 &&
			 strstr(r->why, "these runs resolve"),
		 "compare: four rows at p 0.02 of five: Holm makes it 0.1, none slower (p %g, holm %g, %s)",
		 r ? r->p : NAN, r ? r->p_holm : NAN, r ? r->verdict : "-");
	bench_compare_free(&c);
	/* r1 at p 0.001: it alone holds after the correction */
	d = st_t_quantile(0.9995, 2) * se;
	rn[0][1] = 2 * exp(d);
	rn[1][1] = 2 * exp(d + 0.01);
	cmp_exact("veth", ro, rn, 2, -1, NULL, &opts, &c, NULL);
	r = cmp_row(&c, "r1");
	t_result(r && !strcmp(r->verdict, "slower") && near(r->p_holm, 0.005, 1e-6) &&
			 verdicts(&c, "slower") == 1,
		 "compare: one row at p 0.001 of five: slower (holm %g), the others not",
		 r ? r->p_holm : NAN);
	bench_compare_free(&c);

	/* equivalence: no change, spread 0.1%: same within 1%; 2%: inconclusive */
	for (i = 1; i < 5; i++) {
		ro[0][i] = rn[0][i] = 2;
		ro[1][i] = rn[1][i] = 2 * (i < 3 ? 1.001 : 1.02);
	}
	cmp_exact("veth", ro, rn, 2, -1, NULL, &opts, &c, NULL);
	t_result(!strcmp(cmp_row(&c, "r1")->verdict, "same") &&
			 !strcmp(cmp_row(&c, "r3")->verdict, "inconclusive") &&
			 cmp_row(&c, "r3")->vs_base.lo < 0.99,
		 "compare: same only with the whole interval within 1%% (r3 [%g, %g] %s)",
		 cmp_row(&c, "r3")->vs_base.lo, cmp_row(&c, "r3")->vs_base.hi,
		 cmp_row(&c, "r3")->verdict);
	bench_compare_free(&c);

	/*
	 * Round pairing: r2 lacks round 1, so its rounds sit one place off
	 * its baseline's; by round number its ratio is still 2 exactly.
	 */
	for (i = 1; i < 5; i++) {
		ro[0][i] = ro[1][i] = 2;
		rn[0][i] = rn[1][i] = 2.1;
	}
	cmp_exact("veth", ro, rn, 2, 2, NULL, &opts, &c, NULL);
	r = cmp_row(&c, "r2");
	t_result(r && near(r->vs_base.median, 1.05, 1e-9) &&
			 !strcmp(r->verdict, "slower"),
		 "compare: a row missing a round its baseline has: paired by round number (%.6f of 1.05)",
		 r ? r->vs_base.median : NAN);
	bench_compare_free(&c);

	/* --dev: a row coarser than the threshold gets no verdict */
	for (i = 1; i < 5; i++) {
		ro[0][i] = rn[0][i] = 2;
		ro[1][i] = rn[1][i] = 2 * (i == 3 ? 1.2 : 1.001);
	}
	cmp_exact("dev", ro, rn, 2, -1, NULL, &opts, &c, NULL);
	r = cmp_row(&c, "r3");
	t_result(r && !strcmp(r->verdict, "no verdict") &&
			 strstr(r->why, "coarser than --threshold 1%") &&
			 !strcmp(cmp_row(&c, "r1")->verdict, "same"),
		 "compare --dev: a row whose mde exceeds --threshold gets no verdict (%s)",
		 r ? r->why : "-");
	bench_compare_free(&c);
	for (i = 1; i < 5; i++) {
		ro[0][i] = ro[1][i] = 2;
		rn[0][i] = rn[1][i] = 2.1;
	}

	/* --dev: the baseline row and a generator-bound one get no verdict */
	cmp_exact("dev", ro, rn, 2, -1, "generator-bound", &opts, &c, NULL);
	r = cmp_row(&c, "base");
	t_result(!strcmp(r->verdict, "no verdict") && strstr(r->why, "baseline") &&
			 !strcmp(cmp_row(&c, "r1")->verdict, "no verdict") &&
			 strstr(cmp_row(&c, "r1")->why, "generator-bound in OLD run 1") &&
			 !strcmp(cmp_row(&c, "r2")->verdict, "slower"),
		 "compare --dev: no verdict for the baseline (%s) nor a generator-bound row (%s)",
		 r->why, cmp_row(&c, "r1")->why);
	bench_compare_free(&c);

	/*
	 * Boots: runs on one boot share what it fixed. Each side on a boot
	 * of its own: no interval; two boots a side: the boot is the unit.
	 */
	{
		static const char *const apart[] = { "A", "A", "B", "B" };
		static const char *const abab[] = { "A1", "A2", "B1", "B2" };

		ret = cmp_exact("veth", ro, rn, 2, -1, NULL, &opts, &c, apart);
		r = cmp_row(&c, "r1");
		t_result(!ret && r && !strcmp(r->verdict, "inconclusive") &&
				 strstr(r->why, "boot-to-boot variance is unknown"),
			 "compare: each side's runs on one boot of its own: inconclusive (%s)",
			 r ? r->why : "-");
		bench_compare_free(&c);
		ret = cmp_exact("veth", ro, rn, 2, -1, NULL, &opts, &c, abab);
		r = cmp_row(&c, "r1");
		t_result(!ret && r && !strcmp(r->interval_from, "boots") &&
				 r->runs[0] == 2,
			 "compare: two boots a side: the interval over boots (%s)",
			 r && r->interval_from ? r->interval_from : "-");
		bench_compare_free(&c);
	}
	/*
	 * A run whose row has no round beside its baseline's: its boot's
	 * estimate is its other run's, not lost, nor halved. OLD: r1
	 * x(none), 1.01 on boot A1 and 1.02 on A2; NEW 1.01 on both boots.
	 */
	{
		static const char *const uneven[] = { "A1", "A1", "A2",
						      "B1", "B2", "B2" };
		double o3[3][5] = { { 1, 1.5, 1, 1, 1 },
				    { 1, 1.01, 1, 1, 1 },
				    { 1, 1.02, 1, 1, 1 } };
		double n3[3][5] = { { 1, 1.01, 1, 1, 1 },
				    { 1, 1.01, 1, 1, 1 },
				    { 1, 1.01, 1, 1, 1 } };

		ret = cmp_exact("veth", o3, n3, 3, -2, NULL, &opts, &c, uneven);
		r = cmp_row(&c, "r1");
		t_result(!ret && r && r->has_base &&
				 fabs(r->vs_base.median - 1.01 / sqrt(1.01 * 1.02)) < 1e-6,
			 "compare: a boot's run with no ratio to its baseline is left out of that boot's, not the boot (%.6f, want %.6f)",
			 r ? r->vs_base.median : NAN, 1.01 / sqrt(1.01 * 1.02));
		bench_compare_free(&c);
	}
	held_free();
}

/*
 * The run as the unit, simulated: each run's estimate of a row's log
 * ratio is the Hodges-Lehmann of 20 rounds of noise (sd 1%, a tenth of
 * them a 1.5x host state on one side of the pair), plus the run's own
 * offset (sd sb). The interval over runs (t, K a side) and, with one
 * run a side, the calibrated one (tau2 from 10 A/A runs) keep 95%; the
 * within-run interval alone, which knows no offsets, does not.
 * mode: 0 over runs, 1 within-run only, 2 calibrated.
 */
static double run_est_sim(__u64 *rng, double off, double *v)
{
	double x[20];
	struct st_est e;
	int i;

	for (i = 0; i < 20; i++) {
		x[i] = 0.01 * normal(rng);
		if (st_rand_below(rng, 10) == 0)
			x[i] += st_rand_below(rng, 2) ? log(1.5) : -log(1.5);
		x[i] += off;
	}
	st_hl(x, 20, 0.95, &e);
	*v = pow((e.hi - e.lo) / 2 / 1.959964, 2);
	return e.median;
}

static double runs_coverage(int k, double sb, int mode, int trials, __u64 seed)
{
	double a[10], va[10], b[10], vb[10], tau2 = 0, tdf = INFINITY, i2;
	__u64 rng = seed;
	struct st_diff d;
	struct st_est e;
	int t, i, hit = 0, n = 0;

	for (t = 0; t < trials; t++) {
		if (mode == 2) {
			for (i = 0; i < 10; i++)
				a[i] = run_est_sim(&rng, sb * normal(&rng),
						   &va[i]);
			tau2 = st_tau2(a, va, 10, &i2);
			tdf = 9;
		}
		for (i = 0; i < k; i++) {
			a[i] = run_est_sim(&rng, sb * normal(&rng), &va[i]);
			b[i] = run_est_sim(&rng, sb * normal(&rng), &vb[i]);
		}
		if (st_runs_diff(a, va, k, b, vb, k, tau2, tdf, &d))
			continue;
		n++;
		st_diff_ci(&d, 0.95, &e);
		hit += e.lo <= 0 && e.hi >= 0;
	}
	return n ? 100.0 * hit / n : NAN;
}

static void test_runs_coverage(void)
{
	static const int ks[] = { 2, 3, 5, 10 };
	unsigned int i;
	double cov;

	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		cov = runs_coverage(ks[i], 0.005, 0, 1000, SEED + i);
		t_result(cov >= 93 && cov <= 97,
			 "runs: %d runs a side, run offsets sd 0.5%%: the interval over runs covers %.1f%% (93-97)",
			 ks[i], cov);
	}
	cov = runs_coverage(1, 0.005, 2, 1000, SEED + 10);
	t_result(cov >= 93 && cov <= 98.5,
		 "runs: one run a side, calibrated on 10 A/A runs: covers %.1f%% (93-98.5)",
		 cov);
	cov = runs_coverage(1, 0.005, 1, 1000, SEED + 11);
	t_result(cov < 90,
		 "runs: one run a side, the within-run interval alone covers only %.1f%% (under 90)",
		 cov);
}

/* test_bench --runs-coverage: the table in doc/methodology.md */
static void runs_coverage_table(void)
{
	static const double sbs[] = { 0, 0.0025, 0.005, 0.01 };
	unsigned int j;
	int k;

	printf("| runs a side | offset sd 0 | 0.25%% | 0.5%% | 1%% |\n| ---: | ---: | ---: | ---: | ---: |\n");
	for (k = 1; k <= 10; k++) {
		printf("| %d%s |", k, k == 1 ? " (calibrated, 10 A/A runs)" : "");
		for (j = 0; j < 4; j++)
			printf(" %.1f%% |",
			       runs_coverage(k, sbs[j], k == 1 ? 2 : 0, 2000,
					     SEED + 20 * k + j));
		printf("\n");
		fflush(stdout);
	}
}

static void test_boot(void)
{
	double x[20], y[20];
	struct st_est e, f;
	int i;

	for (i = 0; i < 20; i++) {
		x[i] = 100 + i;
		y[i] = 2 * x[i];
	}
	st_boot(x, 20, NULL, 0, 0.95, 7, &e);
	t_result(e.median == 109.5 && e.lo < 109.5 && e.hi > 109.5 &&
			 e.lo >= 100 && e.hi <= 119,
		 "st_boot: the median %.1f in its interval [%.1f, %.1f]",
		 e.median, e.lo, e.hi);
	st_boot(x, 20, NULL, 0, 0.95, 7, &f);
	t_result(e.lo == f.lo && e.hi == f.hi,
		 "st_boot: the same seed, the same interval");
	st_boot(x, 20, y, 20, 0.95, 7, &e);
	t_result(e.median == 2 && e.lo > 1.7 && e.hi < 2.3,
		 "st_boot: a ratio of medians, y over x: %.3f [%.3f, %.3f]",
		 e.median, e.lo, e.hi);
	CHECK_EQ(st_boot(x, 2, NULL, 0, 0.95, 7, &e), -EINVAL,
		 "st_boot: under 3 values, no interval");
	t_result(e.median == 100.5 && isnan(e.lo),
		 "st_boot: under 3 values, the estimate alone");
}

/* A sampled visit's functions, by hand: names and the samples holding each. */
static void fns(struct bench_fns *t, struct bench_fn *fn, int n,
		__u64 samples)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->n = t->cap = n;
	t->samples = samples;
	t->runs = -1;
}

static void test_path_judge(void)
{
	struct bench_fn fn[] = {
		{ .name = "ip_rcv_core", .chain = 40 },
		{ .name = "tcf_classify", .chain = 30 },
		{ .name = "bpf_prog_hc_tc", .chain = 5 },
		{ .name = "__netif_receive_skb_core", .chain = 5 },
	};
	const char *pos = "a|b* !c  d", *g, *alt;
	struct bench_fns t;
	struct bench_path p;
	size_t len, alen;
	int ng = 0, na = 0;

	while (bench_path_group(&pos, &g, &len)) {
		ng++;
		while (bench_path_alt(&g, &len, &alt, &alen))
			na++;
	}
	t_result(ng == 3 && na == 4, "path: 3 groups, 4 alternatives (%d, %d)",
		 ng, na);
	t_result(bench_path_match("ip_rcv*", 7, "ip_rcv_core") &&
			 !bench_path_match("ip_rcv", 6, "ip_rcv_core") &&
			 bench_path_match("ip_rcv", 6, "ip_rcv"),
		 "path: a final '*' a prefix, else the whole name");

	fns(&t, fn, 4, 200);
	t.counted = "bpf_prog_*";
	bench_path_judge("ip_rcv|ip_rcv_core tcf_classify bpf_prog_hc_tc*", &t, &p);
	t_result(!p.missing[0] && !p.unexpected[0] && p.samples == 200,
		 "judge: every group met ('%s')", p.missing);
	bench_path_judge("ip_rcv nft_do_chain|ipt_do_table tcf_classify", &t, &p);
	CHECK_STR(p.missing, "ip_rcv nft_do_chain|ipt_do_table",
		  "judge: the groups no sample ran, as declared");
	/* 5 of 200 is over 2%; of 1000, under */
	bench_path_judge("tcf_classify !__netif_receive_skb_core", &t, &p);
	CHECK_STR(p.unexpected, "__netif_receive_skb_core (5)",
		  "judge: a '!' group past its 2%%, with its count");
	t.samples = 1000;
	bench_path_judge("tcf_classify !__netif_receive_skb_core", &t, &p);
	CHECK_STR(p.unexpected, "", "judge: a '!' group within its 2%%");
	bench_path_judge("!tcf_classify|x", &t, &p);
	t_result(!p.missing[0] && p.unexpected[0],
		 "judge: any alternative of a '!' group counts ('%s')",
		 p.unexpected);
	/* A program's caller is no other traffic's: one sample is too many. */
	fn[3].name = "veth_xdp_rcv_skb>bpf_prog_hc_xdp";
	fn[3].chain = 1;
	bench_path_judge("tcf_classify !veth_xdp_rcv_skb>bpf_prog_hc_xdp*", &t,
			 &p);
	CHECK_STR(p.unexpected, "veth_xdp_rcv_skb>bpf_prog_hc_xdp* (1)",
		  "judge: a '!' program's caller in 1 of 1000 samples ran");
	fn[3].name = "veth_xdp_rcv_skb";
	bench_path_judge("tcf_classify !veth_xdp_rcv_skb", &t, &p);
	CHECK_STR(p.unexpected, "", "judge: a '!' function in 1 of 1000 is stray");
	fn[3].name = "__netif_receive_skb_core";
	fn[3].chain = 5;

	/* A bare program in no sample: its run count stands in for it. */
	fn[2].name = "bpf_prog_other";
	bench_path_judge("tcf_classify bpf_prog_hc_tc*", &t, &p);
	CHECK_STR(p.missing, "bpf_prog_hc_tc*", "judge: runs unknown, missing");
	t.runs = 0;
	bench_path_judge("tcf_classify bpf_prog_hc_tc*", &t, &p);
	CHECK_STR(p.missing, "bpf_prog_hc_tc*", "judge: no runs, missing");
	t.runs = 5000;
	bench_path_judge("tcf_classify bpf_prog_hc_tc*", &t, &p);
	CHECK_STR(p.missing, "", "judge: the program ran, met");
	bench_path_judge("cls_bpf_classify|bpf_prog_hc_tc*", &t, &p);
	CHECK_STR(p.missing, "cls_bpf_classify|bpf_prog_hc_tc*",
		  "judge: runs meet a group of programs only");
	/* a rule's counter: the chain it counts in ran */
	t.counted = "ipt_do_table|nft_do_chain";
	bench_path_judge("ipt_do_table|nft_do_chain nft_do_chain", &t, &p);
	CHECK_STR(p.missing, "", "judge: runs meet the groups of what counted");
	bench_path_judge("nft_do_chain|ipt_do_table* nf_hook_slow", &t, &p);
	CHECK_STR(p.missing, "nft_do_chain|ipt_do_table* nf_hook_slow",
		  "judge: not a group with more than what counted");
}

static void test_jparse(void)
{
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "\"abc", "01",
		"1.", "1e", "-", "tru", "[1] x", "\"\\q\"", "\"\\u12\"",
		"{a:1}", "[\"\x01\"]",
	};
	const struct jp *m;
	struct jp *v;
	char why[128], deep[80];
	unsigned int i;
	int ret;

	ret = jp_parse(" {\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\",\"n\":-1.5e2,\"z\":0,"
		       "\"t\":true,\"f\":false,\"x\":null,\"a\":[1,[2,{\"k\":\"v\"}]],\"o\":{}} ",
		       &v, why, sizeof(why));
	CHECK_EQ(ret, 0, "jparse: a document of every type");
	t_result(v && !strcmp(jp_str(v, "s", ""), "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80"),
		 "jparse: escapes, \\u and a surrogate pair as UTF-8");
	t_result(v && jp_num(v, "n", 0) == -150 && jp_num(v, "z", 1) == 0,
		 "jparse: numbers: sign, fraction, exponent, zero");
	m = jp_get(v, "a");
	t_result(m && m->type == JP_ARR && m->n == 2 && m->kid[1].n == 2 &&
			 !strcmp(jp_str(&m->kid[1].kid[1], "k", ""), "v"),
		 "jparse: nesting");
	t_result(jp_get(v, "t")->b && !jp_get(v, "f")->b &&
			 jp_get(v, "x")->type == JP_NULL &&
			 jp_get(v, "o")->type == JP_OBJ && !jp_get(v, "nope") &&
			 !strcmp(jp_str(v, "n", "def"), "def"),
		 "jparse: true, false, null, {}; absent and mistyped members");
	jp_free(v);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = jp_parse(bad[i], &v, why, sizeof(why));
		t_result(ret == -EINVAL && !v && !strncmp(why, "byte ", 5),
			 "jparse: refuses '%s' (%s)", bad[i], why);
	}
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	ret = jp_parse(deep, &v, why, sizeof(why));
	t_result(ret == -EINVAL && strstr(why, "nested too deep"),
		 "jparse: depth is bounded (%s)", why);
}

/* ---- the report of rows made up here: text, JSON and CSV ---- */

static const struct bench_scenario test_scen = { .name = "test",
						 .baseline = "nothing" };

/* b's report in one output (0 text, 1 JSON, 2 CSV), to be freed. */
static char *render(struct bench *b, int mode)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	b->rows.scen = &test_scen;
	b->net.topo = b->net.topo ?: &bench_topo_veth;
	if (mode == 1)
		bench_report_json(b, f);
	else if (mode == 2)
		bench_report_csv(b, f);
	else
		bench_report_text(b, f);
	fclose(f);
	return buf;
}

/* The line of text that begins with name, its end cut; "" if none. */
static const char *text_line(const char *text, const char *name, char *buf,
			     size_t size)
{
	const char *s;
	size_t n = strlen(name);

	buf[0] = '\0';
	for (s = text; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (!strncmp(s, name, n) && s[n] == ' ') {
			snprintf(buf, size, "%.*s", (int)strcspn(s, "\n"), s);
			break;
		}
	return buf;
}

/* The JSON report's row of that name. */
static const struct jp *json_row(const struct jp *doc, const char *name)
{
	const struct jp *rows = jp_get(doc, "rows");
	int i;

	for (i = 0; rows && i < rows->n; i++)
		if (!strcmp(jp_str(&rows->kid[i], "name", ""), name))
			return &rows->kid[i];
	return NULL;
}

/* Whether the row's member key is null, or with sub its member sub is. */
static bool json_null(const struct jp *row, const char *key, const char *sub)
{
	const struct jp *v = row ? jp_get(row, key) : NULL;

	if (v && sub)
		v = jp_get(v, sub);
	return v && v->type == JP_NULL;
}

/* The CSV field of column col in the line of row name; "?" if none. */
static const char *csv_field(const char *csv, const char *name, const char *col,
			     char *buf, size_t size)
{
	char want[64];
	const char *line, *s;
	int i, k = -1;

	snprintf(buf, size, "?");
	for (i = 0, s = csv; *s && *s != '\n'; i++) {
		size_t n = strcspn(s, ",\n");

		if (n == strlen(col) && !strncmp(s, col, n))
			k = i;
		s += n + (s[n] == ',');
	}
	snprintf(want, sizeof(want), "\n\"%s\",", name);
	line = strstr(csv, want);
	if (k < 0 || !line)
		return buf;
	for (s = line + 1, i = 0; i < k; i++)
		s += strcspn(s, ",\n") + 1;
	snprintf(buf, size, "%.*s", (int)strcspn(s, ",\n"), s);
	return buf;
}

/*
 * An INVALID row has no estimates: its rounds' absurd numbers (a cost
 * of 1.58 s a packet) are neither in the table ("-") nor in the JSON
 * (null) nor in the CSV (empty).
 */
static void test_report_invalid(void)
{
	double gen[8], base[8], bad[8];
	struct bench *b = new_bench();
	struct bench_row *r;
	char *text, *csv, line[512], f[64], v[64];
	struct jp *doc;
	const struct jp *jr;
	size_t at;
	int k;

	for (k = 0; k < 8; k++) {
		gen[k] = 20;
		base[k] = 5;
		bad[k] = 1e3 / 1.58e9;
	}
	b->opt.cpu_mode = BENCH_INLINE;
	fake_row(b, "gen-only", &gen_kind, -1, gen, 8);
	fake_row(b, "nothing", &hook_kind, 1, base, 8);
	r = fake_row(b, "bad", &hook_kind, 1, bad, 8);
	bench_row_invalid(r, "round 3: no packets in the window");
	bench_summarize(b);
	t_result(isnan(r->sum.ns.median) && isnan(r->sum.base.delta.median) &&
			 isnan(r->sum.base.ratio.median) &&
			 isnan(r->sum.mpps_med),
		 "invalid: no estimates (ns %g, delta %g, ratio %g, Mpps %g)",
		 r->sum.ns.median, r->sum.base.delta.median,
		 r->sum.base.ratio.median, r->sum.mpps_med);
	text = render(b, 0);
	text_line(text, "bad", line, sizeof(line));
	at = strstr(line, "INVALID: round 3: no packets") ?
		     strstr(line, "INVALID") - line :
		     0;
	t_result(at && strcspn(line, "0123456789") >= at,
		 "invalid: the table says why and prints no number: %s", line);
	doc = parsed(render(b, 1));
	jr = json_row(doc, "bad");
	t_result(jr && json_null(jr, "ns", "median") &&
			 json_null(jr, "delta_ns", "median") &&
			 json_null(jr, "ratio", "median") &&
			 json_null(jr, "mpps", "median") &&
			 json_null(jr, "mde_ns", NULL) &&
			 !strcmp(jp_str(jr, "reason", ""),
				 "round 3: no packets in the window"),
		 "invalid: JSON null, with the reason");
	csv = render(b, 2);
	t_result(
		!strcmp(csv_field(csv, "bad", "ns_median", f, sizeof(f)), "") &&
			!strcmp(csv_field(csv, "bad", "ratio_median", line,
					  sizeof(line)),
				"") &&
			strcmp(csv_field(csv, "nothing", "ns_median", v,
					 sizeof(v)),
			       "?") &&
			v[0],
		"invalid: CSV empty (ns_median '%s'), the valid row's not ('%s')",
		f, v);
	jp_free(doc);
	free(csv);
	free(text);
	free_rows(b);
}

/*
 * A row with a cost in 2 of 30 rounds (28 contended) has no estimates
 * and says why, as INVALID; with 6 of 30, the fewest an interval takes,
 * it has its interval; a run of 3 rounds, too few for any interval,
 * keeps its median (of 2) without one, as before.
 */
static void test_report_few_rounds(void)
{
	static struct bench_window w;
	double gen[30], base[30], row[30];
	struct bench *b = new_bench();
	struct bench_row *few, *six, *r3;
	char *text, line[512];
	const struct jp *jr;
	struct jp *doc;
	int k;

	for (k = 0; k < 30; k++) {
		gen[k] = 20;
		base[k] = 5;
		row[k] = 4;
	}
	b->opt.cpu_mode = BENCH_INLINE;
	fake_row(b, "gen-only", &gen_kind, -1, gen, 30);
	fake_row(b, "nothing", &hook_kind, 1, base, 30);
	few = fake_row(b, "xsk-none", &hook_kind, 1, row, 30);
	six = fake_row(b, "six", &hook_kind, 1, row, 30);
	for (k = 0; k < 30; k++) {
		few->rd[k].win = six->rd[k].win = &w;
		if (k >= 2)
			few->rd[k].pkt_ns *= 1.45; /* the host's slow state */
		if (k >= 6)
			six->rd[k].pkt_ns *= 1.45;
	}
	bench_summarize(b);
	CHECK_STR(bench_row_void(few) ?: "(none)",
		  "valid in 2 of 30 rounds, fewer than the 6 an interval needs",
		  "few rounds: the row says why it has no estimates");
	t_result(isnan(few->sum.ns.median) &&
			 isnan(few->sum.base.delta.median) &&
			 isnan(few->sum.mpps_med),
		 "few rounds: no estimates (ns %g, delta %g, Mpps %g)",
		 few->sum.ns.median, few->sum.base.delta.median,
		 few->sum.mpps_med);
	t_result(!bench_row_void(six) && !isnan(six->sum.base.delta.lo),
		 "few rounds: 6 of 30 have an interval (%s, delta lo %g)",
		 bench_row_void(six) ?: "", six->sum.base.delta.lo);
	text = render(b, 0);
	text_line(text, "xsk-none", line, sizeof(line));
	t_result(strstr(line, "INVALID: valid in 2 of 30 rounds") &&
			 strcspn(line, "0123456789") >=
				 (size_t)(strstr(line, "INVALID") - line),
		 "few rounds: the table says INVALID and why, no number: %s",
		 line);
	doc = parsed(render(b, 1));
	jr = json_row(doc, "xsk-none");
	t_result(jr && !strcmp(jp_str(jr, "status", ""), "invalid") &&
			 strstr(jp_str(jr, "reason", ""), "2 of 30") &&
			 json_null(jr, "ns", "median"),
		 "few rounds: JSON status invalid, the reason, ns null");
	jp_free(doc);
	free(text);
	free_rows(b);

	b = new_bench();
	b->opt.cpu_mode = BENCH_INLINE;
	fake_row(b, "gen-only", &gen_kind, -1, gen, 3);
	fake_row(b, "nothing", &hook_kind, 1, base, 3);
	r3 = fake_row(b, "r3", &hook_kind, 1, row, 3);
	r3->rd[1].pkt_ns = NAN; /* excluded */
	bench_summarize(b);
	t_result(
		!bench_row_void(r3) && near(r3->sum.ns.median, 200, 1e-9) &&
			isnan(r3->sum.ns.lo),
		"few rounds: --rounds 3, 2 with a cost, keeps its median (%g), no interval (%s)",
		r3->sum.ns.median, bench_row_void(r3) ?: "");
	free_rows(b);
}

/*
 * --profile: the baseline's section and gen-only's have no delta (the
 * baseline is the reference; gen-only has none to compare with), a
 * function of a row without pairs has "-", and no "nan" anywhere.
 */
static void test_report_profile(void)
{
	double gen[8], base[8], row[8];
	struct bench *b = new_bench();
	struct bench_prof_fn fg[1] = { { "gen_fn", 10, { NAN, NAN, NAN } } },
			     fb[1] = { { "base_fn", 20, { NAN, NAN, NAN } } },
			     fr[2] = { { "row_fn", 30, { 5, 4, 6 } },
				       { "row_only", 7, { NAN, NAN, NAN } } };
	struct bench_row *g, *bl, *r;
	char *text, *json, *sec;
	int k;

	for (k = 0; k < 8; k++) {
		gen[k] = 20;
		base[k] = 5;
		row[k] = 4;
	}
	b->opt.cpu_mode = BENCH_INLINE;
	b->opt.profile = true;
	b->opt.profile_top = 5;
	g = fake_row(b, "gen-only", &gen_kind, -1, gen, 8);
	bl = fake_row(b, "nothing", &hook_kind, 1, base, 8);
	r = fake_row(b, "row", &hook_kind, 1, row, 8);
	bench_summarize(b);
	g->pfn = fg, bl->pfn = fb, r->pfn = fr;
	g->npfn = bl->npfn = 1;
	r->npfn = 2;
	g->prof_ns = bl->prof_ns = r->prof_ns = 50;
	g->prof_clock = bl->prof_clock = r->prof_clock = 50;
	g->prof_timed = bl->prof_timed = r->prof_timed = 40;
	g->prof_over = bl->prof_over = 0.25;
	r->prof_over = NAN; /* no timed window to compare with */
	text = render(b, 0);
	json = render(b, 1);
	t_result(!strcasestr(text, "nan") && !strcasestr(json, "nan"),
		 "profile: no nan in the text nor the JSON");
	sec = strstr(text, "profile nothing:");
	t_result(sec && strstr(sec, "profile row:") &&
			 !memmem(sec, strstr(sec, "profile row:") - sec,
				 "delta", 5),
		 "profile: the baseline's section has no delta column");
	sec = strstr(text, "profile gen-only:");
	t_result(sec && strstr(sec, "profile nothing:") &&
			 !memmem(sec, strstr(sec, "profile nothing:") - sec,
				 "delta", 5),
		 "profile: gen-only's section has no delta column");
	sec = strstr(text, "profile row:");
	if (!t_result(sec && strstr(sec, "delta vs baseline") &&
			      strstr(sec, "+5.0 [+4.0, +6.0]") &&
			      strstr(sec, "row_only") &&
			      strstr(strstr(sec, "row_only"), "       -"),
		      "profile: the row's section has deltas, - where none"))
		printf("%s", text);
	g->pfn = bl->pfn = r->pfn = NULL;
	free(text);
	free(json);
	free_rows(b);
}

/*
 * Unresolved: a delta interval that spans 0 and is over +-1% of the
 * baseline's 350 ns (+-3.5) wide. +-5 is; +-3 spans 0 but is narrow
 * enough to say no effect that size; +-5 around +8 excludes 0. The note
 * says --topology inject on veth only.
 */
static void test_report_unresolved(void)
{
	double base[10], wide[10], narrow[10], sig[10];
	struct bench *b = new_bench();
	struct bench_row *w, *n, *s;
	char *text, *note;
	const struct jp *jr;
	struct jp *doc;
	int k;

	for (k = 0; k < 10; k++) {
		base[k] = 350;
		wide[k] = 350 + (k % 2 ? 5 : -5);
		narrow[k] = 350 + (k % 2 ? 3 : -3);
		sig[k] = 358 + (k % 2 ? 5 : -5);
	}
	b->opt.cpu_mode = BENCH_SPLIT;
	b->env.live = true;
	b->net.feed = HC_GEN_LIVE;
	ns_row(b, "nothing", 0, base, 10);
	w = ns_row(b, "wide", 0, wide, 10);
	n = ns_row(b, "narrow", 0, narrow, 10);
	s = ns_row(b, "sig", 0, sig, 10);
	bench_summarize(b);
	t_result(
		w->sum.unresolved && !n->sum.unresolved && !s->sum.unresolved &&
			!b->rows.row[0].sum.unresolved,
		"unresolved: +-5 around 0 is, +-3 and +8 [+3, +13] are not (%g [%g, %g], %g [%g, %g])",
		w->sum.base.delta.median, w->sum.base.delta.lo,
		w->sum.base.delta.hi, n->sum.base.delta.median,
		n->sum.base.delta.lo, n->sum.base.delta.hi);
	t_result(has_flag(b, w, "unresolved") && !has_flag(b, n, "unresolved"),
		 "unresolved: a flag of the row");
	text = render(b, 0);
	note = strstr(text, "\nunresolved: wide: ");
	t_result(note && strstr(note, "+-1% of nothing's cost (3.5 ns)") &&
			 strstr(note, "--topology inject resolves it"),
		 "unresolved: the note names the row, the width, inject");
	free(text);
	doc = parsed(render(b, 1));
	jr = json_row(doc, "wide");
	t_result(
		jr && jp_get(jr, "unresolved") &&
			jp_get(jr, "unresolved")->type == JP_BOOL &&
			jp_get(jr, "unresolved")->b &&
			!jp_get(json_row(doc, "narrow"), "unresolved")->b,
		"unresolved: JSON true for the wide row, false for the narrow");
	jp_free(doc);
	b->net.topo = &bench_topo_inject;
	text = render(b, 0);
	note = strstr(text, "\nunresolved: wide: ");
	t_result(note && !strstr(note, "--topology inject"),
		 "unresolved: on inject, no --topology inject");
	free(text);
	/* inject leaves the veth pair out on live frames only */
	b->net.topo = &bench_topo_veth;
	b->env.live = false;
	b->net.feed = HC_GEN_STAGE;
	text = render(b, 0);
	note = strstr(text, "\nunresolved: wide: ");
	t_result(note && !strstr(note, "--topology inject"),
		 "unresolved: without live frames, no --topology inject");
	free(text);
	free_rows(b);
}

/* ---- the plan (--plan's document), and every window's size ---- */

static void test_window_sizes(void)
{
	static const struct {
		__u32 packets, windows, window_packets, copies;
		int ret;
		__u32 want;
		const char *what;
	} t[] = {
		{ 0, 20, 0, 1, 0, 0, "neither: the warm-up sizes them" },
		{ 0, 20, 3000, 1, 0, 3000, "--window-packets as given" },
		{ 1000, 20, 0, 1, 0, 50, "--packets in --windows parts" },
		{ 1001, 20, 0, 1, 0, 51, "--packets: the parts rounded up" },
		{ 100000, 20, 0, 64, 0, 5056,
		  "--packets on the stage: whole sends of its copies" },
		{ 0, 20, 1024, 64, 0, 1024, "--window-packets of whole sends" },
		{ 0, 20, 1000, 64, -EINVAL, 1000,
		  "--window-packets of part of a send: refused" },
	};
	struct bench *b = new_bench();
	struct hc_err err = {};
	struct bench_opts o;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.packets = t[i].packets;
		o.windows = t[i].windows;
		o.window_packets = t[i].window_packets;
		ret = bench_window_opts(&o, t[i].copies, &err);
		CHECK_EQ(ret, t[i].ret, "window size: %s: its return",
			 t[i].what);
		CHECK_EQ(o.window_packets, t[i].want, "window size: %s",
			 t[i].what);
	}
	CHECK_STR(
		err.msg,
		"--window-packets 1000: the stage sends 64 copies of each frame; give a multiple of 64",
		"window size: refused, saying why");

	/* the warm-up's: clamped, a multiple of 64, unless told */
	b->rows.n = 2;
	bench_window_calibrate(&b->rows, &b->opt, 500);
	CHECK_EQ(b->rows.row[1].window_packets, 1024,
		 "window size: the warm-up's, 1024 at least");
	bench_window_calibrate(&b->rows, &b->opt, 5000.5);
	CHECK_EQ(b->rows.row[0].window_packets, 4992,
		 "window size: the warm-up's, a multiple of 64");
	bench_window_calibrate(&b->rows, &b->opt, 2e7);
	CHECK_EQ(b->rows.row[1].window_packets, 10000000,
		 "window size: the warm-up's, 1e7 at most");
	bench_window_calibrate(&b->rows, &b->opt, 0);
	CHECK_EQ(b->rows.row[1].window_packets, 10000000,
		 "window size: no rate measured in the warm-up: as they were");
	b->opt.window_packets = 2048;
	bench_window_calibrate(&b->rows, &b->opt, 5000);
	CHECK_EQ(b->rows.row[0].window_packets, 10000000,
		 "window size: the options' stands against the warm-up's");
	b->opt.window_packets = 0;
	b->rows.planned = true;
	bench_window_calibrate(&b->rows, &b->opt, 5000);
	CHECK_EQ(b->rows.row[0].window_packets, 10000000,
		 "window size: the plan's stands against the warm-up's");

	/* a row's first visit, the warm-up's: the options', else a start */
	memset(&b->opt, 0, sizeof(b->opt));
	memset(b->rows.row, 0, 2 * sizeof(*b->rows.row));
	bench_window_first(&b->opt, &b->rows.row[0]);
	CHECK_EQ(b->rows.row[0].window_packets, BENCH_WINDOW_START,
		 "window size: the first visit's, without options");
	b->opt.window_packets = 2048;
	bench_window_first(&b->opt, &b->rows.row[1]);
	CHECK_EQ(b->rows.row[1].window_packets, 2048,
		 "window size: the first visit's, the options'");
	bench_window_first(&b->opt, &b->rows.row[0]);
	CHECK_EQ(b->rows.row[0].window_packets, BENCH_WINDOW_START,
		 "window size: a row's, once set, stays at later visits");
	free_bench(b);
}

static bool plan_given_none(const struct bench_opts *o, const char *name)
{
	return false;
}

static bool plan_given_two(const struct bench_opts *o, const char *name)
{
	return !strcmp(name, "variant") || !strcmp(name, "windows");
}

/* text into a file of its own, whose name goes into path */
static bool plan_file(char *path, size_t size, const char *text)
{
	const char *dir = getenv("TMPDIR");
	bool ok;
	int fd;

	snprintf(path, size, "%s/hc-plan-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/* err's sentence holds part: what says what is checked */
static bool plan_said(const struct hc_err *err, const char *part,
		      const char *what)
{
	bool ok = strstr(err->msg, part) != NULL;

	if (!ok)
		printf("  expected '%s' in '%s'\n", part, err->msg);
	return t_result(ok, "%s", what);
}

/* c as new_bench() left it, its rows' rounds and plan freed */
static void plan_reset(struct bench *c)
{
	struct bench_row *row = c->rows.row;
	int i;

	for (i = 0; i < c->rows.n; i++)
		free(row[i].rd);
	jp_free(c->rows.plan_doc);
	memset(c, 0, sizeof(*c));
	memset(row, 0, (BENCH_MAX_ROWS + 1) * sizeof(*row));
	c->rows.row = row;
}

/*
 * --plan text into c, anew: bench_plan_load's return and err; its path
 * then "P", for the sentences of bench_plan_rows.
 */
static int plan_try(struct bench *c, const char *text, struct hc_err *err)
{
	char path[256];
	int ret;

	plan_reset(c);
	memset(err, 0, sizeof(*err));
	if (!plan_file(path, sizeof(path), text))
		return -EIO;
	c->opt.plan_path = path;
	ret = bench_plan_load(&c->opt, &c->rows, bench_scenarios,
			      plan_given_none, err);
	unlink(path);
	c->opt.plan_path = "P";
	return ret;
}

static void test_plan(void)
{
	static const char *const names[] = { "gen-only", "a", "b", "a+v" };
	struct bench *b = new_bench(), *c = new_bench();
	char path[256], want[512], *doc = NULL;
	struct hc_err err = {};
	struct hc_pr p;
	size_t len = 0;
	FILE *f;
	int i, ret;

	/* a run to repeat: inject on the stage, split, with a variant */
	b->rows.scen = bench_scenarios[1];
	b->net.topo = &bench_topo_veth;
	b->opt.topology = 1;
	b->opt.cpu_mode = BENCH_SPLIT;
	b->opt.windows = 12;
	b->opt.visits = 3;
	b->opt.variant[0] = (struct bench_variant){ "v", "true", "false" };
	b->opt.nvariants = 1;
	for (i = 0; i < 4; i++) {
		fake_row(b, names[i], i ? &hook_kind : &gen_kind, -1, NULL, 0);
		b->rows.row[i].window_packets = 1024 * (i + 1);
	}
	f = open_memstream(&doc, &len);
	if (!f)
		return;
	p = (struct hc_pr)HC_PR_INIT(HC_PR_JSON, f);
	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	bench_plan_json(&p, b);
	hc_pr_close(&p, HC_PR_JSON, '}');
	fclose(f);
	if (!t_result(plan_file(path, sizeof(path), doc), "plan: written"))
		goto out;

	c->opt.plan_path = path;
	ret = bench_plan_load(&c->opt, &c->rows, bench_scenarios,
			      plan_given_none, &err);
	if (!CHECK_EQ(ret, 0, "plan: read back"))
		printf("  %s\n", err.msg);
	CHECK_STR(bench_scenarios[c->opt.scenario]->name,
		  bench_scenarios[1]->name, "plan: its scenario");
	CHECK_EQ(c->opt.topology, 1, "plan: its topology");
	CHECK_EQ(c->opt.cpu_mode, BENCH_SPLIT, "plan: its CPU mode");
	CHECK_EQ(c->opt.windows, 12, "plan: its windows");
	CHECK_EQ(c->opt.visits, 3, "plan: its visits");
	CHECK_STR(c->opt.hooks ?: "", "a,b",
		  "plan: its rows, without generators' and variants'");
	t_result(c->opt.nvariants == 1 &&
			 !strcmp(c->opt.variant[0].name, "v") &&
			 !strcmp(c->opt.variant[0].setup, "true") &&
			 !strcmp(c->opt.variant[0].undo, "false") &&
			 !c->opt.variant[0].path,
		 "plan: its variant, as given");
	t_result(c->rows.planned, "plan: the warm-up sizes no window");

	/* the rows, once built: each its windows */
	for (i = 0; i < 4; i++)
		fake_row(c, names[i], i ? &hook_kind : &gen_kind, -1, NULL, 0);
	ret = bench_plan_rows(&c->rows, &c->opt, &err);
	if (!CHECK_EQ(ret, 0, "plan: the rows' windows"))
		printf("  %s\n", err.msg);
	for (i = 0; i < 4; i++)
		CHECK_EQ(c->rows.row[i].window_packets, 1024 * (i + 1),
			 "plan: row %s's windows", names[i]);
	c->opt.stage_copies = 64;
	CHECK_EQ(bench_plan_rows(&c->rows, &c->opt, &err), 0,
		 "plan: windows of whole sends of the stage's copies");
	c->opt.stage_copies = 0;
	c->rows.n = 3;
	CHECK_EQ(bench_plan_rows(&c->rows, &c->opt, &err), -EINVAL,
		 "plan: a row fewer");
	snprintf(
		want, sizeof(want),
		"--plan %s: 4 rows in it, 3 here: a row of it is no row of this bench",
		path);
	CHECK_STR(err.msg, want, "plan: a row fewer, said");
	snprintf(c->rows.row[2].name, sizeof(c->rows.row[2].name), "zz");
	CHECK_EQ(bench_plan_rows(&c->rows, &c->opt, &err), -EINVAL,
		 "plan: a row not in it");
	snprintf(want, sizeof(want), "--plan %s: row zz is not in it", path);
	CHECK_STR(err.msg, want, "plan: a row not in it, said");
	c->rows.n = 4;
	plan_reset(c);

	/* what --plan decides is refused beside it, the first it lists */
	c->opt.plan_path = path;
	CHECK_EQ(bench_plan_load(&c->opt, &c->rows, bench_scenarios,
				 plan_given_two, &err),
		 -EINVAL, "plan: --windows beside it");
	snprintf(want, sizeof(want),
		 "--plan decides --windows: it repeats %s's", path);
	CHECK_STR(err.msg, want, "plan: --windows beside it, said");
	t_result(!c->rows.plan_doc, "plan: refused before it is read");
	unlink(path);

	/* the stage's copies: a plan of another feed */
	ret = plan_try(
		c,
		"{\"plan\":{\"scenario\":\"hooks\",\"topology\":\"veth\",\"cpu_mode\":\"inline\",\"windows\":20,\"visits\":2,\"rows\":[\"a\"],\"window_packets\":{\"a\":1000}}}",
		&err);
	if (!CHECK_EQ(ret, 0, "plan: a document of one plan"))
		printf("  %s\n", err.msg);
	fake_row(c, "a", &hook_kind, -1, NULL, 0);
	c->opt.stage_copies = 64;
	CHECK_EQ(bench_plan_rows(&c->rows, &c->opt, &err), -EINVAL,
		 "plan: windows of part of the stage's send");
	CHECK_STR(
		err.msg,
		"--plan P: row a's windows are 1000 packets, and the stage sends 64 copies of each frame: a plan of another feed (bench compare refuses those too)",
		"plan: windows of part of the stage's send, said");

	/* bench --runs: its first run's */
	ret = plan_try(
		c,
		"{\"runs\":[{\"plan\":{\"scenario\":\"rules\",\"topology\":\"inject\",\"cpu_mode\":\"inline\",\"rows\":[],\"window_packets\":{\"x\":64}}},{}]}",
		&err);
	if (!CHECK_EQ(ret, 0, "plan: bench --runs's"))
		printf("  %s\n", err.msg);
	CHECK_STR(bench_scenarios[c->opt.scenario]->name, "rules",
		  "plan: bench --runs's, its first run's");

	/* documents that are not plans of this bench */
	ret = plan_try(c, "{\"plan\":", &err);
	CHECK_EQ(ret, -EINVAL, "plan: not JSON");
	plan_said(&err, ": not JSON: byte 8: ", "plan: not JSON, said");
	ret = plan_try(c, "{\"plan\":{\"window_packets\":{}}}", &err);
	CHECK_EQ(ret, -EINVAL, "plan: none in it");
	plan_said(&err,
		  ": no plan in it (a bench document of hookcmp " HC_VERSION
		  " or later)",
		  "plan: none in it, said");
	ret = plan_try(
		c,
		"{\"plan\":{\"scenario\":\"test\",\"topology\":\"dev\",\"window_packets\":{\"a\":64}}}",
		&err);
	CHECK_EQ(ret, -EINVAL, "plan: another bench's");
	plan_said(
		&err,
		": scenario test, topology dev, CPU mode ?: not one this bench runs (--dev runs have no plan to repeat)",
		"plan: another bench's, said");
	ret = plan_try(
		c,
		"{\"plan\":{\"scenario\":\"hooks\",\"topology\":\"veth\",\"cpu_mode\":\"inline\",\"variants\":[{\"name\":\"v\"}],\"window_packets\":{\"a\":64}}}",
		&err);
	CHECK_EQ(ret, -EINVAL, "plan: a variant without its change");
	plan_said(&err, ": its variants are not ones this bench runs",
		  "plan: a variant without its change, said");
	plan_reset(c);
	c->opt.plan_path = "/nonexistent/plan.json";
	CHECK_EQ(bench_plan_load(&c->opt, &c->rows, bench_scenarios,
				 plan_given_none, &err),
		 -ENOENT, "plan: no such file");
	CHECK_STR(err.msg,
		  "--plan /nonexistent/plan.json: No such file or directory",
		  "plan: no such file, said");
out:
	plan_reset(c);
	free_bench(c);
	free(doc);
	free_rows(b);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--coverage")) {
		coverage_table();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--runs-coverage")) {
		runs_coverage_table();
		return 0;
	}
	test_wilcoxon_exact();
	test_wilcoxon_index();
	test_t_holm();
	test_median_exact();
	test_log_ratio();
	test_few();
	test_coverage();
	test_stopping();
	test_mde();
	test_runs_floor();
	test_runs_spread();
	test_runs_p_ci();
	test_summary_disagrees();
	test_level_shift();
	test_outliers();
	test_constant();
	test_growth();
	test_window_estimator();
	test_window_q();
	test_order();
	test_window_sizes();
	test_plan();
	test_summary_inline();
	test_summary_zero_base();
	test_summary_split();
	test_summary_contended();
	test_summary_pairing();
	test_summary_paired_outliers();
	test_drift_edge();
	test_round_check();
	test_round_device();
	test_snap_parse();
	test_window_check();
	test_scope_cpus();
	test_summary_excluded();
	test_report_invalid();
	test_report_few_rounds();
	test_report_profile();
	test_report_unresolved();
	test_boot();
	test_path_judge();
	test_jparse();
	test_compare();
	test_compare_rules();
	test_runs_coverage();
	test_gen_rows();
	return t_failed ? 1 : 0;
}
