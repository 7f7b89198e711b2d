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

double st_halfwidth_pct(const struct st_est *e, double of)
{
	return (e->hi - e->lo) / 2 / fabs(of) * 100;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int st_min_n(double level)
{
	int n = 1;

	while (n < 64 && 1 - ldexp(1, 1 - n) < level)
		n++;
	return n;
}

/*
 * The null distribution of a sum of n terms, the k-th 0 or w(k) with
 * probability 1/2 each (w(k) = 1: the sign test's binomial; w(k) = k:
 * the signed-rank statistic), up to its middle, where the lower tail
 * ends. Returns the tail's length, the most d with P(sum <= d - 1) <=
 * (1 - level) / 2, or -ENOMEM.
 */
static int tail_index(int n, bool ranks, double level)
{
	int top = (ranks ? n * (n + 1) / 2 : n) / 2, k, t, d;
	double *p = calloc(top + 1, sizeof(*p)), cum = 0;

	if (!p)
		return -ENOMEM;
	p[0] = 1;
	/* Halving at each step keeps the probabilities in range. */
	for (k = 1; k <= n; k++) {
		int w = ranks ? k : 1;

		for (t = top; t >= 0; t--)
			p[t] = (p[t] + (t >= w ? p[t - w] : 0)) / 2;
	}
	for (d = 0; d <= top && cum + p[d] <= (1 - level) / 2; d++)
		cum += p[d];
	free(p);
	return d;
}

/* A sorted copy of x[0..n), or NULL. */
static double *sorted(const double *x, int n)
{
	double *s = malloc((n > 0 ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

int st_median_ci(const double *x, int n, double level, struct st_est *e)
{
	int d = n < st_min_n(level) ? 0 : tail_index(n, false, level);
	double *s;

	*e = (struct st_est){ NAN, NAN, NAN };
	if (d < 0)
		return d;
	if (n <= 0)
		return 0;
	s = sorted(x, n);
	if (!s)
		return -ENOMEM;
	e->median = (s[(n - 1) / 2] + s[n / 2]) / 2;
	if (d) {
		e->lo = s[d - 1];
		e->hi = s[n - d];
	}
	free(s);
	return 0;
}

/* The n (n + 1) / 2 Walsh averages of x, sorted, or NULL. */
static double *walsh(const double *x, int n)
{
	double *w = malloc(((size_t)n * (n + 1) / 2 + 1) * sizeof(*w));
	size_t k = 0;
	int i, j;

	if (!w)
		return NULL;
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[k++] = (x[i] + x[j]) / 2;
	qsort(w, k, sizeof(*w), cmp_double);
	return w;
}

int st_hl(const double *x, int n, double level, struct st_est *e)
{
	int d = n < st_min_n(level) ? 0 : tail_index(n, true, level);
	int m = n * (n + 1) / 2;
	double *w;

	*e = (struct st_est){ NAN, NAN, NAN };
	if (d < 0)
		return d;
	if (n <= 0)
		return 0;
	w = walsh(x, n);
	if (!w)
		return -ENOMEM;
	e->median = (w[(m - 1) / 2] + w[m / 2]) / 2;
	if (d) {
		e->lo = w[d - 1];
		e->hi = w[m - d];
	}
	free(w);
	return 0;
}

double st_theil_sen(const double *x, const double *y, int n)
{
	double *s = malloc((n > 1 ? n * (n - 1) / 2 : 1) * sizeof(*s)), v;
	int i, j, k = 0;

	if (!s)
		return NAN;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!isnan(y[i]) && !isnan(y[j]) && x[i] != x[j])
				s[k++] = (y[j] - y[i]) / (x[j] - x[i]);
	v = st_median(s, k);
	free(s);
	return v;
}

int st_growth(const double *x, const double *y, int rounds, int m, double level,
	      struct st_est *e)
{
	double *slope = malloc((rounds > 0 ? rounds : 1) * sizeof(*slope));
	int r, n = 0, ret;

	*e = (struct st_est){ NAN, NAN, NAN };
	if (!slope)
		return -ENOMEM;
	for (r = 0; r < rounds; r++) {
		double v = st_theil_sen(x, y + (size_t)r * m, m);

		if (!isnan(v))
			slope[n++] = v;
	}
	ret = st_hl(slope, n, level, e);
	free(slope);
	return ret;
}

int st_hl_log(const double *x, int n, double level, struct st_est *e)
{
	double *y = malloc((n > 0 ? n : 1) * sizeof(*y));
	int i, ret;

	*e = (struct st_est){ NAN, NAN, NAN };
	if (!y)
		return -ENOMEM;
	for (i = 0; i < n && x[i] > 0; i++)
		y[i] = log(x[i]);
	ret = i < n ? 0 : st_hl(y, n, level, e);
	free(y);
	e->median = exp(e->median);
	e->lo = exp(e->lo);
	e->hi = exp(e->hi);
	return ret;
}

double st_mde(const struct st_est *e)
{
	return (e->hi - e->lo) / 2 / 1.959964 * (1.959964 + 0.841621);
}

bool st_stop_check(struct st_stop *s, double h, double target)
{
	s->met = h <= target ? s->met + 1 : 0;
	return s->met >= ST_STOP_CHECKS;
}

double st_quantile(const double *x, int n, double p)
{
	double *v = n > 0 ? malloc(n * sizeof(*v)) : NULL, q, h;
	int i;

	if (!v)
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	h = (n - 1) * p;
	i = (int)floor(h);
	q = i >= n - 1 ? v[n - 1] : v[i] + (h - i) * (v[i + 1] - v[i]);
	free(v);
	return q;
}

/* A resample of x (n values, with replacement) into y: its median. */
static double boot_median(const double *x, int n, double *y, __u64 *state)
{
	int i;

	for (i = 0; i < n; i++)
		y[i] = x[st_rand_below(state, n)];
	return median_inplace(y, n);
}

int st_boot(const double *x, int nx, const double *y, int ny, double level,
	    __u64 seed, struct st_est *e)
{
	double *m, *r;
	int k, n = nx > ny ? nx : ny;

	e->median = y ? st_median(y, ny) / st_median(x, nx) : st_median(x, nx);
	e->lo = e->hi = NAN;
	if (nx < ST_BOOT_MIN || (y && ny < ST_BOOT_MIN))
		return -EINVAL;
	m = malloc(ST_BOOT_N * sizeof(*m));
	r = malloc(n * sizeof(*r));
	if (!m || !r) {
		free(m);
		free(r);
		return -ENOMEM;
	}
	for (k = 0; k < ST_BOOT_N; k++) {
		m[k] = boot_median(x, nx, r, &seed);
		if (y)
			m[k] = boot_median(y, ny, r, &seed) / m[k];
	}
	e->lo = st_quantile(m, ST_BOOT_N, (1 - level) / 2);
	e->hi = st_quantile(m, ST_BOOT_N, 1 - (1 - level) / 2);
	free(m);
	free(r);
	return 0;
}

/* The continued fraction of the incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, aa, del;
	int m;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 500; m++) {
		aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x /
		     ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		 b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

double st_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(df))
		return 0.5 * erfc(-t / M_SQRT2);
	tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double st_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6, mid;
	int i;

	if (!(p > 0 && p < 1) || isnan(df) || df <= 0)
		return NAN;
	for (i = 0; i < 200 && lo < hi; i++) {
		mid = (lo + hi) / 2;
		if (st_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int st_holm(const double *p, int n, double *adj)
{
	int *idx = malloc((n > 0 ? n : 1) * sizeof(*idx)), m = 0, i, j, t;
	double run = 0;

	for (i = 0; i < n; i++)
		adj[i] = NAN;
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!isnan(p[i]))
			idx[m++] = i;
	/* insertion sort by p: n is a bench's rows */
	for (i = 1; i < m; i++)
		for (j = i; j > 0 && p[idx[j - 1]] > p[idx[j]]; j--) {
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (i = 0; i < m; i++) {
		double v = p[idx[i]] * (m - i);

		run = v > run ? v : run;
		adj[idx[i]] = run < 1 ? run : 1;
	}
	free(idx);
	return 0;
}

/* The mean of k values and their sum of squared deviations. */
static double mean_ss(const double *y, int k, double *ss)
{
	double m = 0;
	int i;

	for (i = 0; i < k; i++)
		m += y[i] / k;
	*ss = 0;
	for (i = 0; i < k; i++)
		*ss += (y[i] - m) * (y[i] - m);
	return m;
}

int st_runs_diff(const double *a, const double *va, int na, const double *b,
		 const double *vb, int nb, double tau2, double tau_df,
		 struct st_diff *r)
{
	double ssa, ssb, ma, mb, wa = 0, wb = 0, pa = 0, pb = 0;
	int i;

	*r = (struct st_diff){ NAN, NAN, NAN, 0 };
	if (na < 1 || nb < 1)
		return -EINVAL;
	ma = mean_ss(a, na, &ssa);
	mb = mean_ss(b, nb, &ssb);
	r->d = mb - ma;
	if (na >= 2 && nb >= 2) {
		r->df = na + nb - 2;
		r->se = sqrt((ssa + ssb) / r->df * (1.0 / na + 1.0 / nb));
		/*
		 * Runs that agree closer than their own noise allows do so by
		 * chance. Weighted by precision, a run whose interval blew up
		 * (a few slow rounds) does not widen it for the others.
		 */
		for (i = 0; i < na; i++)
			pa += 1 / va[i];
		for (i = 0; i < nb; i++)
			pb += 1 / vb[i];
		r->own = isnan(pa + pb) ? 0 : sqrt(1 / pa + 1 / pb);
		return 0;
	}
	if (!(tau_df > 0) || isnan(tau2))
		return -ENODATA;
	for (i = 0; i < na; i++)
		wa += va[i] / ((double)na * na);
	for (i = 0; i < nb; i++)
		wb += vb[i] / ((double)nb * nb);
	if (isnan(wa) || isnan(wb))
		return -ENODATA;
	r->se = sqrt(wa + wb + tau2 * (1.0 / na + 1.0 / nb));
	r->df = tau_df;
	return 0;
}

/* t times se or z (the normal's) times own: the wider. */
static double diff_wider(const struct st_diff *r, double t, double z)
{
	return z * r->own > t * r->se ? z * r->own : t * r->se;
}

void st_diff_ci(const struct st_diff *r, double level, struct st_est *e)
{
	double q = 1 - (1 - level) / 2;
	double h = diff_wider(r, st_t_quantile(q, r->df),
			      st_t_quantile(q, INFINITY));

	*e = (struct st_est){ r->d, r->d - h, r->d + h };
}

static double diff_p(double d, double se, double df)
{
	if (!(se > 0))
		return isnan(d) ? NAN : d == 0 ? 1 : 0;
	return 2 * st_t_cdf(-fabs(d) / se, df);
}

double st_diff_p(const struct st_diff *r)
{
	double p = diff_p(r->d, r->se, r->df);
	double own = diff_p(r->d, r->own, INFINITY);

	return own > p ? own : p;
}

double st_diff_mde(const struct st_diff *r, double level)
{
	double q = 1 - (1 - level) / 2;

	return diff_wider(
		r, st_t_quantile(q, r->df) + st_t_quantile(0.8, r->df),
		st_t_quantile(q, INFINITY) + st_t_quantile(0.8, INFINITY));
}

double st_tau2(const double *y, const double *v, int k, double *i2)
{
	double sw = 0, sw2 = 0, m = 0, q = 0, tau2;
	int i;

	*i2 = NAN;
	if (k < 2)
		return NAN;
	for (i = 0; i < k; i++) {
		if (!(v[i] > 0))
			return NAN;
		sw += 1 / v[i];
		sw2 += 1 / (v[i] * v[i]);
		m += y[i] / v[i];
	}
	m /= sw;
	for (i = 0; i < k; i++)
		q += (y[i] - m) * (y[i] - m) / v[i];
	tau2 = (q - (k - 1)) / (sw - sw2 / sw);
	*i2 = q > k - 1 ? (q - (k - 1)) / q : 0;
	return tau2 > 0 ? tau2 : 0;
}
