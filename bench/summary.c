// SPDX-License-Identifier: GPL-2.0
/*
 * From rounds to estimates. A row's cost in a round is, inline, its time
 * per packet less gen-only's in the same round (the generator shares the
 * CPU); split, the DUT's time per packet it saw. The time is CPU time
 * (clock.c), or the wall clock where there are no counters. Deltas and ratios
 * to the baseline are paired per round, so a level shift of the machine
 * moves both sides of each pair, and the bootstrap resamples whole rounds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

#define GEN_BOUND 0.98 /* split: the row ran at 98% of the generator */

enum { MPPS, PKT_NS, NS };

/* A row's value per round number, NaN where it has none. */
static double *by_round(const struct bench_row *r, int nrounds, int what)
{
	double *v = malloc((nrounds + 2) * sizeof(*v));
	int i;

	if (!v)
		return NULL;
	for (i = 0; i < nrounds + 2; i++)
		v[i] = NAN;
	for (i = 0; i < r->nrd; i++)
		if (r->rd[i].round <= nrounds + 1)
			v[r->rd[i].round] = what == MPPS   ? r->rd[i].mpps :
					    what == PKT_NS ? r->rd[i].pkt_ns :
							     r->rd[i].ns;
	return v;
}

static void row_costs(struct bench *b, struct bench_row *r, int last)
{
	/* No gen-only row (--dev): the generator is not on this CPU. */
	bool inline_gen = r->gen >= 0 && !r->kind->generator &&
			  b->cpu_mode == BENCH_INLINE;
	double *gen =
		inline_gen ? by_round(&b->rows[r->gen], last, PKT_NS) : NULL;
	int i;

	for (i = 0; i < r->nrd; i++) {
		struct bench_round *rd = &r->rd[i];

		rd->ns = rd->pkt_ns;
		if (inline_gen)
			rd->ns -= gen ? gen[rd->round] : NAN;
	}
	free(gen);
}

/* delta or ratio for each round both rows ran, into x; how many. */
static int paired(const struct bench_row *r, const double *base, double *x,
		  bool ratio)
{
	int i, n = 0;

	for (i = 0; i < r->nrd; i++) {
		double a = r->rd[i].ns, z = base[r->rd[i].round];

		if (isnan(a) || isnan(z))
			continue;
		x[n++] = ratio ? a / z : a - z;
	}
	return n;
}

static void row_estimates(struct bench *b, struct bench_row *r, int idx,
			  int last)
{
	struct bench_sum *s = &r->sum;
	__u64 seed = b->seed * 0x100000001b3ULL + idx;
	double *x = malloc((r->nrd + 1) * sizeof(*x)), *base, lo, hi;
	bool *flag = malloc((r->nrd + 1) * sizeof(*flag));
	int i, n = 0;

	memset(s, 0, sizeof(*s));
	s->ns = s->delta = s->ratio = (struct st_est){ NAN, NAN, NAN };
	s->mpps_med = s->mpps_min = s->mpps_max = s->drift = NAN;
	if (!x || !flag)
		goto out;

	for (i = 0; i < r->nrd; i++)
		x[n++] = r->rd[i].mpps;
	s->mpps_med = st_median(x, n);
	st_range(x, n, &s->mpps_min, &s->mpps_max);
	for (i = 0; i < r->nrd; i++)
		x[i] = r->rd[i].pkt_ns;
	st_range(x, n, &lo, &hi);
	s->drift = hi / lo;

	n = 0;
	for (i = 0; i < r->nrd; i++)
		if (!isnan(r->rd[i].ns))
			x[n++] = r->rd[i].ns;
	s->n = n;
	st_bootstrap(x, n, BENCH_RESAMPLES, BENCH_LEVEL, seed, &s->ns);
	s->outliers = st_outliers(x, n, BENCH_OUTLIER_Z, flag);
	for (i = 0, n = 0; i < r->nrd; i++)
		r->rd[i].outlier = !isnan(r->rd[i].ns) && flag[n++];

	if (r->gen < 0) {
		/*
		 * No generator of ours to compare with: the hook kept up with
		 * what came when the device dropped nothing before it.
		 */
		for (i = 0, n = 0; i < r->nrd; i++)
			if (r->rd[i].seen)
				x[n++] = (double)r->rd[i].dropped_before /
					 (r->rd[i].seen +
					  r->rd[i].dropped_before);
		s->gen_bound = n && st_median(x, n) < BENCH_TOLERANCE;
	} else if (b->cpu_mode == BENCH_SPLIT && !r->kind->generator) {
		double *gen = by_round(&b->rows[r->gen], last, MPPS);

		for (i = 0, n = 0; gen && i < r->nrd; i++)
			if (!isnan(gen[r->rd[i].round]))
				x[n++] = r->rd[i].mpps / gen[r->rd[i].round];
		s->gen_bound = n && st_median(x, n) >= GEN_BOUND;
		free(gen);
	}

	if (r->kind->generator || r->base < 0)
		goto out;
	base = by_round(&b->rows[r->base], last, NS);
	if (!base)
		goto out;
	n = paired(r, base, x, false);
	st_bootstrap(x, n, BENCH_RESAMPLES, BENCH_LEVEL, seed ^ 1, &s->delta);
	n = paired(r, base, x, true);
	st_bootstrap(x, n, BENCH_RESAMPLES, BENCH_LEVEL, seed ^ 2, &s->ratio);
	s->significant = s->delta.lo > 0 || s->delta.hi < 0;
	free(base);
out:
	free(x);
	free(flag);
}

void bench_summarize(struct bench *b)
{
	double *dh, *rh;
	int i, k = 0, last = 0;

	for (i = 0; i < b->nrows; i++)
		if (b->rows[i].nrd &&
		    b->rows[i].rd[b->rows[i].nrd - 1].round > last)
			last = b->rows[i].rd[b->rows[i].nrd - 1].round;
	for (i = 0; i < b->nrows; i++)
		row_costs(b, &b->rows[i], last);
	for (i = 0; i < b->nrows; i++)
		row_estimates(b, &b->rows[i], i, last);

	/* Resolution: the median half-width of the rows' intervals. */
	dh = malloc(b->nrows * sizeof(*dh));
	rh = malloc(b->nrows * sizeof(*rh));
	for (i = 0; dh && rh && i < b->nrows; i++) {
		const struct bench_row *r = &b->rows[i];
		const struct bench_sum *s = &r->sum;

		if (r->reason[0] || r->base == i || isnan(s->delta.lo))
			continue;
		dh[k] = (s->delta.hi - s->delta.lo) / 2;
		rh[k++] = st_halfwidth_pct(&s->ratio);
	}
	b->resolution_ns = dh && rh ? st_median(dh, k) : NAN;
	b->resolution_pct = dh && rh ? st_median(rh, k) : NAN;
	free(dh);
	free(rh);
}

/*
 * Every frame sent is seen at the hook (forward: at the sink), dropped
 * before it or, forward, at the DUT. The generator alone has no receiver:
 * there, nothing may reach the DUT.
 */
bool bench_round_accounted(const struct bench_row *r,
			   const struct bench_round *rd)
{
	if (r->kind->generator)
		return !rd->seen;
	return rd->generated == rd->seen + rd->dropped_before + rd->dropped_dut;
}

void bench_round_check(const struct bench_row *r, const struct bench_round *rd,
		       char *why, size_t size)
{
	unsigned long long n = 0;

	why[0] = '\0';
	if (!bench_round_accounted(r, rd) && r->forward)
		snprintf(
			why, size,
			"round %d: generated %llu != %llu at the sink + %llu dropped before the DUT + %llu at it",
			rd->round, (unsigned long long)rd->generated,
			(unsigned long long)rd->seen,
			(unsigned long long)rd->dropped_before,
			(unsigned long long)rd->dropped_dut);
	else if (!bench_round_accounted(r, rd))
		snprintf(
			why, size,
			"round %d: generated %llu != seen %llu + dropped before %llu",
			rd->round, (unsigned long long)rd->generated,
			(unsigned long long)rd->seen,
			(unsigned long long)rd->dropped_before);
	else if (!r->kind->generator &&
		 rd->dropped_before > (1 - BENCH_SEEN_MIN) * rd->generated)
		snprintf(
			why, size,
			"round %d: the hook saw %llu of %llu frames (%llu dropped before it), under %g%%, too few for a cost",
			rd->round,
			(unsigned long long)(rd->generated - rd->dropped_before),
			(unsigned long long)rd->generated,
			(unsigned long long)rd->dropped_before,
			BENCH_SEEN_MIN * 100);
	else if (r->forward && (n = rd->dropped_dut))
		snprintf(why, size, "round %d: %llu dropped at the DUT (%s)",
			 rd->round, n, r->kind->dropped_at);
	else if (r->forward && (n = rd->passed))
		snprintf(
			why, size,
			"round %d: %llu passed to the DUT's stack, not forwarded",
			rd->round, n);
	else if (r->drop && (n = rd->passed))
		snprintf(why, size,
			 "round %d: %llu packet%s passed a drop row's hook",
			 rd->round, n, n == 1 ? "" : "s");
}

static bool close_to(__u64 want, __u64 got)
{
	double d = want > got ? want - got : got - want;

	return d <= BENCH_TOLERANCE * (double)want;
}

int bench_round_device(const struct bench_row *r, const struct bench_round *rd,
		       char *why, size_t size)
{
	const char *what = rd->generated_known ? "generated" : "rx_packets";
	__u64 want = rd->generated_known ? rd->generated : rd->dev.rx_packets;
	__u64 got = rd->seen + rd->dropped_before;
	char rx[40] = "";

	why[0] = '\0';
	if (r->drop && rd->passed) {
		snprintf(why, size,
			 "round %d: %llu packet%s passed a drop row's hook",
			 rd->round, (unsigned long long)rd->passed,
			 rd->passed == 1 ? "" : "s");
		return -1;
	}
	if (!got) {
		snprintf(why, size, "round %d: no packets in the window",
			 rd->round);
		return -1;
	}
	if (close_to(want, got))
		return 0;
	if (rd->generated_known)
		snprintf(rx, sizeof(rx), " (rx_packets %llu)",
			 (unsigned long long)rd->dev.rx_packets);
	snprintf(why, size,
		 "round %d: %s %llu != seen %llu + dropped before %llu%s",
		 rd->round, what, (unsigned long long)want,
		 (unsigned long long)rd->seen,
		 (unsigned long long)rd->dropped_before, rx);
	return 1;
}

bool bench_disagrees(const struct bench *b, const struct bench_row *r)
{
	const struct bench_row *base = r->base >= 0 ? &b->rows[r->base] : NULL;

	return base && base != r &&
	       (r->sum.ns.median - base->sum.ns.median) * r->sum.delta.median <
		       0;
}

int bench_flags(const struct bench *b, const struct bench_row *r,
		const char **flags, int max)
{
	int n = 0;

#define FLAG(cond, name)                     \
	do {                                 \
		if ((cond) && n < max)       \
			flags[n++] = (name); \
	} while (0)
	FLAG(r->base == r - b->rows, "baseline");
	FLAG(r->unverified[0], "unverified");
	FLAG(r->kind->generator, "generator");
	FLAG(r->sum.outliers, "outliers");
	FLAG(r->sum.gen_bound, "generator-bound");
	FLAG(r->kind->generator && r->sum.drift > BENCH_DRIFT_MAX, "drift");
	FLAG(b->env.emulated, "emulated");
	FLAG(bench_disagrees(b, r), "unpaired-disagrees");
#undef FLAG
	return n;
}
