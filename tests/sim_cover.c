// SPDX-License-Identifier: GPL-2.0
/*
 * make sim-cover: how often bench compare's 95% interval over runs covers
 * the true difference, 0, and how wide it is: "old", Student's t on the
 * runs' spread alone (compare before issue 50), and "new", st_runs_diff's
 * (never narrower than the runs' own errors allow). Prints the tables
 * of doc/methodology.md; a fixed seed, so the same tables every time.
 */
#include <math.h>
#include <stdio.h>
#include "statistics.h"

#define SEED 20240611ULL
#define Z95 1.959964

static double uniform(__u64 *rng)
{
	return ((st_rand(rng) >> 11) + 0.5) * 0x1p-53;
}

static double normal(__u64 *rng)
{
	double u = uniform(rng);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * uniform(rng));
}

struct cell {
	int n, hit[2], agree, ahit[2];
	double hw[2];
};

/* One comparison, both intervals; true difference 0. */
static void cell_add(struct cell *c, const double *a, const double *va, int na,
		     const double *b, const double *vb, int nb)
{
	double h[2];
	struct st_diff d;
	struct st_est e;
	int k;

	st_runs_diff(a, va, na, b, vb, nb, NAN, 0, &d);
	/* the old interval: the t on the runs' pooled spread alone */
	h[0] = st_t_quantile(0.975, d.df) * d.se;
	st_diff_ci(&d, 0.95, &e);
	h[1] = (e.hi - e.lo) / 2;
	/* the runs agree closer than their own errors allow */
	c->agree += h[0] < Z95 * d.own;
	for (k = 0; k < 2; k++) {
		bool hit = fabs(d.d) <= h[k];

		c->hit[k] += hit;
		c->ahit[k] += hit && h[0] < Z95 * d.own;
		c->hw[k] += h[k];
	}
	c->n++;
}

/* m hits of n comparisons; "-" for too few to say. */
static void pct_of(int m, int n)
{
	if (n < 200)
		printf(" - |");
	else
		printf(" %.1f%% |", 100.0 * m / n);
}

static void cell_print(const char *row, const struct cell *c)
{
	printf("| %s | %.1f%% | +-%.2f%% | %.1f%% | +-%.2f%% | %.1f%% |", row,
	       100.0 * c->hit[0] / c->n, 100 * c->hw[0] / c->n,
	       100.0 * c->hit[1] / c->n, 100 * c->hw[1] / c->n,
	       100.0 * c->agree / c->n);
	pct_of(c->ahit[0], c->agree);
	pct_of(c->ahit[1], c->agree);
	printf("\n");
}

static void header(const char *first)
{
	printf("| %s | old covers | old mean | new covers | new mean | runs agree | old there | new there |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
	       first);
}

/*
 * A run's estimate u + e: u ~ N(0, tau2) moves the whole run, e ~ N(0,
 * s^2) its own noise, s uniform in 1-6%; the variance it reports is
 * s^2 chi2(19) / 19, as estimated from 20 rounds.
 */
static double run_normal(__u64 *rng, double tau2, double *v)
{
	double s = 0.01 + 0.05 * uniform(rng), c = 0, z;
	int i;

	for (i = 0; i < 19; i++) {
		z = normal(rng);
		c += z * z;
	}
	*v = s * s * c / 19;
	return sqrt(tau2) * normal(rng) + s * normal(rng);
}

/*
 * A run's estimate and variance from its rounds, as test_bench's
 * --runs-coverage makes them: the HL estimate and Wilcoxon interval of
 * 20 rounds of noise sd 1%, a tenth of them 1.5x or 1/1.5x (the host's
 * slow state on one side of the pair), plus the run's own offset, sd sb.
 */
static double run_rounds(__u64 *rng, double sb, double *v)
{
	double x[20], off = sb * normal(rng);
	struct st_est e;
	int i;

	for (i = 0; i < 20; i++) {
		x[i] = off + 0.01 * normal(rng);
		if (st_rand_below(rng, 10) == 0)
			x[i] += st_rand_below(rng, 2) ? log(1.5) : -log(1.5);
	}
	st_hl(x, 20, 0.95, &e);
	*v = pow((e.hi - e.lo) / 2 / Z95, 2);
	return e.median;
}

static const int ks[][2] = { { 2, 2 },
			     { 2, 3 },
			     { 3, 3 },
			     { 5, 5 },
			     { 10, 10 } };
#define NKS (sizeof(ks) / sizeof(ks[0]))

/* One cell of the first table: na vs nb runs, tau2 as given. */
static void cell_normal(int na, int nb, double tau2, __u64 rng, struct cell *c)
{
	double a[10], va[10], b[10], vb[10];
	int t, i;

	for (t = 0; t < 20000; t++) {
		for (i = 0; i < na; i++)
			a[i] = run_normal(&rng, tau2, &va[i]);
		for (i = 0; i < nb; i++)
			b[i] = run_normal(&rng, tau2, &vb[i]);
		cell_add(c, a, va, na, b, vb, nb);
	}
}

/* One cell of the second: k runs a side, offsets sd sb. */
static void cell_rounds(int k, double sb, __u64 rng, struct cell *c)
{
	double a[10], va[10], b[10], vb[10];
	int t, i;

	for (t = 0; t < 4000; t++) {
		for (i = 0; i < k; i++) {
			a[i] = run_rounds(&rng, sb, &va[i]);
			b[i] = run_rounds(&rng, sb, &vb[i]);
		}
		cell_add(c, a, va, k, b, vb, k);
	}
}

int main(void)
{
	static const double ratio[] = { 0, 0.5, 1, 2 },
			    sbs[] = { 0, 0.005, 0.01 };
	/* the mean within-run variance, E[s^2] for s uniform in 1-6% */
	const double within = (0.06 * 0.06 * 0.06 - 0.01 * 0.01 * 0.01) / 0.15;
	unsigned int k, j;
	char row[64];

	printf("Runs' own standard errors 1-6%%, between-run variance tau2 a multiple of their mean square; 20,000 comparisons a cell:\n\n");
	header("runs a vs b, tau2 / within");
	for (k = 0; k < NKS; k++)
		for (j = 0; j < sizeof(ratio) / sizeof(ratio[0]); j++) {
			struct cell c = {};

			cell_normal(ks[k][0], ks[k][1], ratio[j] * within,
				    SEED + 10 * k + j, &c);
			snprintf(row, sizeof(row), "%d vs %d, %g", ks[k][0],
				 ks[k][1], ratio[j]);
			cell_print(row, &c);
			fflush(stdout);
		}
	printf("\nRuns from 20 rounds, a tenth of them 1.5x (HL, Wilcoxon interval), run offsets sd as given; 4,000 comparisons a cell:\n\n");
	header("runs a side, offset sd");
	for (k = 0; k < NKS; k++)
		for (j = 0; ks[k][0] == ks[k][1] && j < 3; j++) {
			struct cell c = {};

			cell_rounds(ks[k][0], sbs[j], SEED + 100 + 10 * k + j,
				    &c);
			snprintf(row, sizeof(row), "%d, %g%%", ks[k][0],
				 sbs[j] * 100);
			cell_print(row, &c);
			fflush(stdout);
		}
	return 0;
}
