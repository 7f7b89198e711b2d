// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "statistics.h"

__u64 st_rand(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

__u32 st_rand_below(__u64 *state, __u32 n)
{
	/* Lemire's multiply-shift; the bias is below 2^-32 for our n. */
	return (__u32)(((st_rand(state) >> 32) * (__u64)n) >> 32);
}

/* The k-th smallest of x[0..n), reordering x (Hoare's selection). */
static double select_kth(double *x, int n, int k)
{
	int lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = x[lo + (hi - lo) / 2], t;
		int i = lo, j = hi;

		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				t = x[i];
				x[i++] = x[j];
				x[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return x[k];
}

/* The median of scratch[0..n), which it reorders. */
static double median_inplace(double *x, int n)
{
	double hi = select_kth(x, n, n / 2), lo = hi;
	int i;

	if (n % 2 == 0) {
		/* The lower middle is the largest of the lower half. */
		lo = x[0];
		for (i = 1; i < n / 2; i++)
			if (x[i] > lo)
				lo = x[i];
	}
	return (lo + hi) / 2;
}

double st_median(const double *x, int n)
{
	double *s, m;

	if (n <= 0)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	m = median_inplace(s, n);
	free(s);
	return m;
}

double st_mad(const double *x, int n)
{
	double m = st_median(x, n), *d, mad;
	int i;

	if (n <= 0)
		return NAN;
	d = malloc(n * sizeof(*d));
	if (!d)
		return NAN;
	for (i = 0; i < n; i++)
		d[i] = fabs(x[i] - m);
	mad = median_inplace(d, n);
	free(d);
	return mad;
}

int st_outliers(const double *x, int n, double z, bool *flag)
{
	double m = st_median(x, n), mad = st_mad(x, n);
	int i, count = 0;

	for (i = 0; i < n; i++) {
		double dev = fabs(x[i] - m);

		flag[i] = mad > 0 ? 0.6745 * dev / mad > z : dev > 0;
		count += flag[i];
	}
	return count;
}

void st_range(const double *x, int n, double *min, double *max)
{
	int i;

	*min = *max = n > 0 ? x[0] : NAN;
	for (i = 1; i < n; i++) {
		if (x[i] < *min)
			*min = x[i];
		if (x[i] > *max)
			*max = x[i];
	}
}

double st_halfwidth_pct(const struct st_est *e)
{
	return (e->hi - e->lo) / 2 / fabs(e->median) * 100;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile of sorted v[0..n), interpolated between neighbours. */
static double quantile(const double *v, int n, double p)
{
	double h = (n - 1) * p;
	int i = (int)floor(h);

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (h - i) * (v[i + 1] - v[i]);
}

int st_min_n(double level)
{
	int n = 1;

	while (n < 64 && 1 - ldexp(1, 1 - n) < level)
		n++;
	return n;
}

int st_bootstrap(const double *x, int n, int resamples, double level,
		 __u64 seed, struct st_est *e)
{
	double *meds, *s;
	__u64 rng = seed;
	int b, i;

	e->median = st_median(x, n);
	e->lo = e->hi = n < st_min_n(level) ? NAN : e->median;
	if (n < st_min_n(level) || resamples <= 0)
		return 0;
	meds = malloc(resamples * sizeof(*meds));
	s = malloc(n * sizeof(*s));
	if (!meds || !s) {
		free(meds);
		free(s);
		return -ENOMEM;
	}
	for (b = 0; b < resamples; b++) {
		for (i = 0; i < n; i++)
			s[i] = x[st_rand_below(&rng, n)];
		meds[b] = median_inplace(s, n);
	}
	qsort(meds, resamples, sizeof(*meds), cmp_double);
	e->lo = quantile(meds, resamples, (1 - level) / 2);
	e->hi = quantile(meds, resamples, 1 - (1 - level) / 2);
	free(meds);
	free(s);
	return 0;
}
