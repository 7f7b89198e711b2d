// SPDX-License-Identifier: GPL-2.0
/*
 * From rounds to estimates. A row's cost in a round is, inline, its time
 * per packet less gen-only's in the same round (the generator shares the
 * CPU); split, the DUT's time per packet it saw. The time is CPU time
 * (clock.c), or the wall clock where there are no counters. Deltas and ratios
 * to the baseline are paired per round, so a level shift of the machine
 * moves both sides of each pair: the intervals of deltas and ratios are
 * of those per-round pairs (Hodges-Lehmann and Wilcoxon, statistics.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "row.h"
#include "summary.h"

#define GEN_BOUND 0.98 /* split: the row ran at 98% of the generator */

enum { MPPS, PKT_NS, PKT_NS_LOADED, NS };

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
			v[r->rd[i].round] =
				what == MPPS	      ? r->rd[i].mpps :
				what == PKT_NS	      ? (r->rd[i].contended ?
								 NAN :
								 r->rd[i].pkt_ns) :
				what == PKT_NS_LOADED ? r->rd[i].pkt_ns_loaded :
							r->rd[i].ns;
	return v;
}

/*
 * veth: a round none of whose windows the host left alone measured no
 * uncontended cost. The slow state is ~1.4x the fast one, rounds in the
 * fast state agree within a few percent: over BENCH_CONTENDED times the
 * row's fastest round is the slow state's.
 */
static void mark_contended(struct bench_row *r)
{
	double min = INFINITY;
	int i;

	for (i = 0; i < r->nrd; i++)
		if (r->rd[i].win && r->rd[i].pkt_ns < min)
			min = r->rd[i].pkt_ns;
	for (i = 0; i < r->nrd; i++) {
		r->rd[i].contended = r->rd[i].win &&
				     r->rd[i].pkt_ns > BENCH_CONTENDED * min;
	}
}

static void row_costs(const struct bench_opts *o, const struct bench_rows *rows,
		      struct bench_row *r, int last)
{
	/* No gen-only row (--dev): the generator is not on this CPU. */
	bool inline_gen = r->gen >= 0 && !r->kind->generator &&
			  o->cpu_mode == BENCH_INLINE;
	double *gen = inline_gen ? by_round(&rows->row[r->gen], last, PKT_NS) :
				   NULL,
	       *gen_loaded = inline_gen ? by_round(&rows->row[r->gen], last,
						   PKT_NS_LOADED) :
					  NULL;
	int i;

	for (i = 0; i < r->nrd; i++) {
		struct bench_round *rd = &r->rd[i];

		rd->ns = rd->contended ? NAN : rd->pkt_ns;
		rd->ns_loaded = rd->pkt_ns_loaded;
		if (inline_gen) {
			rd->ns -= gen ? gen[rd->round] : NAN;
			rd->ns_loaded -= gen_loaded ? gen_loaded[rd->round] :
						      NAN;
		}
	}
	free(gen);
	free(gen_loaded);
}

/* Round i of r has a cost and, given base, so has the baseline then. */
static bool has_pair(const struct bench_row *r, int i, const double *base)
{
	return !isnan(r->rd[i].ns) && (!base || !isnan(base[r->rd[i].round]));
}

/*
 * delta or ratio for each round both rows ran, into x; how many. A
 * baseline round of 0 ns or less has no ratio over it (NAN, which leaves
 * the row none): not infinity.
 */
static int paired(const struct bench_row *r, const double *base, double *x,
		  bool ratio)
{
	int i, n = 0;

	for (i = 0; i < r->nrd; i++) {
		double a = r->rd[i].ns, b;

		if (!has_pair(r, i, base))
			continue;
		b = base[r->rd[i].round];
		x[n++] = !ratio ? a - b : b > 0 ? a / b : NAN;
	}
	return n;
}

/*
 * Flags the rounds whose value in x (one for each round has_pair takes,
 * in order) is an outlier; how many.
 */
static int flag_rounds(struct bench_row *r, const double *base, const double *x,
		       int n, bool *flag)
{
	int i, k = 0, count = st_outliers(x, n, BENCH_OUTLIER_Z, flag);

	for (i = 0; i < r->nrd; i++)
		r->rd[i].outlier = has_pair(r, i, base) && flag[k++];
	return count;
}

/* A variant row against its own row, ROW, round by round. */
/*
 * r's costs against another row's, paired by round (x: room for r's
 * rounds): the ratio's interval, then the delta's, whose values x keeps,
 * n of them. The other row's costs by round, to be freed; NULL if none.
 */
static double *versus(const struct bench_rows *rows, const struct bench_row *r,
		      int other, int last, double *x, int *n,
		      struct bench_vs *v)
{
	double *o = by_round(&rows->row[other], last, NS);

	if (!o)
		return NULL;
	*n = paired(r, o, x, true);
	st_hl_log(x, *n, BENCH_LEVEL, &v->ratio);
	*n = paired(r, o, x, false);
	st_hl(x, *n, BENCH_LEVEL, &v->delta);
	v->significant = v->delta.lo > 0 || v->delta.hi < 0;
	v->mde_ns = st_mde(&v->delta);
	v->mde_pct = v->mde_ns / fabs(r->sum.ns.median) * 100;
	return o;
}

static void row_estimates(const struct bench_opts *o,
			  const struct bench_rows *rows, struct bench_row *r,
			  int idx, int last)
{
	struct bench_sum *s = &r->sum;
	double *x = malloc((r->nrd + 1) * sizeof(*x)), *base, lo, hi;
	bool *flag = malloc((r->nrd + 1) * sizeof(*flag));
	int i, n = 0;

	memset(s, 0, sizeof(*s));
	s->ns = s->base.delta = s->base.ratio = s->variant.delta =
		s->variant.ratio = (struct st_est){ NAN, NAN, NAN };
	s->variant.mde_ns = s->variant.mde_pct = NAN;
	s->mpps_med = s->mpps_min = s->mpps_max = s->drift = NAN;
	s->ns_loaded = s->delta_median = s->base.mde_ns = s->base.mde_pct = NAN;
	for (i = 0; i < r->nrd; i++) {
		s->contended += r->rd[i].contended;
		s->excluded += r->rd[i].nexcluded;
	}
	/* An INVALID row's numbers are not its cost: it has none. */
	if (!x || !flag || r->reason[0])
		goto out;
	/*
	 * A run long enough for intervals whose row lost rounds (contended,
	 * excluded) below the fewest an interval takes: the rest are no
	 * estimate of the row. A shorter run keeps its medians, without
	 * intervals (the table says).
	 */
	for (i = 0, n = 0; i < r->nrd; i++)
		n += !isnan(r->rd[i].ns);
	if (r->nrd >= st_min_n(BENCH_LEVEL) && n < st_min_n(BENCH_LEVEL)) {
		snprintf(
			s->unusable, sizeof(s->unusable),
			"valid in %d of %d rounds, fewer than the %d an interval needs",
			n, r->nrd, st_min_n(BENCH_LEVEL));
		goto out;
	}

	/* A round with no rate (--dev: none in its steady part) has none. */
	for (i = 0, n = 0; i < r->nrd; i++)
		if (!isnan(r->rd[i].mpps))
			x[n++] = r->rd[i].mpps;
	s->mpps_med = st_median(x, n);
	st_range(x, n, &s->mpps_min, &s->mpps_max);
	for (i = 0, n = 0; i < r->nrd; i++)
		if (!isnan(r->rd[i].pkt_ns))
			x[n++] = r->rd[i].pkt_ns;
	st_range(x, n, &lo, &hi);
	s->drift = hi / lo;

	for (i = 0, n = 0; i < r->nrd; i++)
		if (!isnan(r->rd[i].ns))
			x[n++] = r->rd[i].ns;
	s->n = n;
	/* Unpaired costs carry the machine's positive noise: not symmetric. */
	st_median_ci(x, n, BENCH_LEVEL, &s->ns);
	s->outliers = flag_rounds(r, NULL, x, n, flag);
	for (i = 0, n = 0; i < r->nrd; i++)
		if (!isnan(r->rd[i].ns_loaded))
			x[n++] = r->rd[i].ns_loaded;
	s->ns_loaded = st_median(x, n);

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
	} else if (o->cpu_mode == BENCH_SPLIT && !r->kind->generator) {
		double *gen = by_round(&rows->row[r->gen], last, MPPS);

		for (i = 0, n = 0; gen && i < r->nrd; i++)
			if (!isnan(gen[r->rd[i].round]))
				x[n++] = r->rd[i].mpps / gen[r->rd[i].round];
		s->gen_bound = n && st_median(x, n) >= GEN_BOUND;
		free(gen);
	}

	if (r->vbase >= 0)
		free(versus(rows, r, r->vbase, last, x, &n, &s->variant));
	if (r->kind->generator || r->base < 0)
		goto out;
	base = versus(rows, r, r->base, last, x, &n, &s->base);
	if (!base)
		goto out;
	s->delta_median = st_median(x, n);
	if (r->base != idx)
		/* Paired: a round the whole machine ran slow is no outlier. */
		s->outliers = flag_rounds(r, base, x, n, flag);
	else
		s->base.mde_ns = s->base.mde_pct = NAN;
	free(base);
out:
	free(x);
	free(flag);
}

static bool unresolved(const struct bench_rows *rows, int i)
{
	const struct bench_row *r = &rows->row[i];
	const struct st_est *d = &r->sum.base.delta;

	return r->base >= 0 && r->base != i && !bench_row_void(r) &&
	       d->lo <= 0 && d->hi >= 0 &&
	       (d->hi - d->lo) / 2 > BENCH_UNRESOLVED_PCT / 100 *
					     rows->row[r->base].sum.ns.median;
}

void bench_summarize(struct bench *b)
{
	double *dh, *rh;
	int i, k = 0, last = 0;

	for (i = 0; i < b->rows.n; i++)
		if (b->rows.row[i].nrd &&
		    b->rows.row[i].rd[b->rows.row[i].nrd - 1].round > last)
			last = b->rows.row[i].rd[b->rows.row[i].nrd - 1].round;
	for (i = 0; i < b->rows.n; i++) {
		struct bench_row *r = &b->rows.row[i];

		mark_contended(r);
		if (r->variant_failed && !r->nrd)
			bench_row_invalid(
				r, "its --setup failed in every round (%s)",
				r->variant_why);
	}
	for (i = 0; i < b->rows.n; i++)
		row_costs(&b->opt, &b->rows, &b->rows.row[i], last);
	for (i = 0; i < b->rows.n; i++)
		row_estimates(&b->opt, &b->rows, &b->rows.row[i], i, last);
	for (i = 0; i < b->rows.n; i++)
		b->rows.row[i].sum.unresolved = unresolved(&b->rows, i);

	/* Resolution: the median over rows of their 80%-power effects. */
	dh = malloc(b->rows.n * sizeof(*dh));
	rh = malloc(b->rows.n * sizeof(*rh));
	for (i = 0; dh && rh && i < b->rows.n; i++) {
		const struct bench_row *r = &b->rows.row[i];

		if (r->reason[0] || isnan(r->sum.base.mde_ns))
			continue;
		dh[k] = r->sum.base.mde_ns;
		rh[k++] = r->sum.base.mde_pct;
	}
	b->res.resolution_ns = dh && rh ? st_median(dh, k) : NAN;
	b->res.resolution_pct = dh && rh ? st_median(rh, k) : NAN;
	free(dh);
	free(rh);
}

/*
 * Every frame sent is seen at the hook (forward: at the sink), dropped
 * before it or, forward, at the DUT. The generator alone has no receiver:
 * there, nothing may reach the DUT.
 */
void bench_round_check(const struct bench_row *r, const struct bench_round *rd,
		       char *why, size_t size)
{
	unsigned long long n = 0;
	char rn[32], where[160];

	bench_round_name(rd, rn, sizeof(rn));
	bench_round_drops(rd, where, sizeof(where));
	why[0] = '\0';
	if (!bench_round_accounted(r, rd) && r->forward)
		snprintf(
			why, size,
			"%s: generated %llu != %llu at the sink + %llu dropped before the DUT + %llu at it",
			rn, (unsigned long long)rd->generated,
			(unsigned long long)rd->seen,
			(unsigned long long)rd->dropped_before,
			(unsigned long long)rd->dropped_dut);
	else if (!bench_round_accounted(r, rd))
		snprintf(
			why, size,
			"%s: generated %llu != seen %llu + dropped before %llu%s",
			rn, (unsigned long long)rd->generated,
			(unsigned long long)rd->seen,
			(unsigned long long)rd->dropped_before, where);
	/* A DUT that drops what it takes is the row's fault, not the load's. */
	else if (r->forward && (n = rd->dropped_dut))
		snprintf(why, size, "%s: %llu dropped at the DUT (%s)", rn, n,
			 r->kind->dropped_at);
	else if (!r->kind->generator &&
		 rd->dropped_before > (1 - BENCH_SEEN_MIN) * rd->generated)
		snprintf(
			why, size,
			"%s: the hook saw %llu of %llu frames (%llu dropped before it%s), under %g%%, too few for a cost",
			rn,
			(unsigned long long)(rd->generated -
					     rd->dropped_before),
			(unsigned long long)rd->generated,
			(unsigned long long)rd->dropped_before, where,
			BENCH_SEEN_MIN * 100);
	else if (r->forward && (n = rd->passed))
		snprintf(why, size,
			 "%s: %llu passed to the DUT's stack, not forwarded",
			 rn, n);
	else if (r->drop && (n = rd->passed))
		snprintf(why, size,
			 "%s: %llu packet%s passed a drop row's hook", rn, n,
			 n == 1 ? "" : "s");
}

static bool close_to(__u64 want, __u64 got)
{
	double d = want > got ? want - got : got - want;

	return d <= BENCH_TOLERANCE * (double)want;
}

static int device_sum(const struct bench_row *r, const struct bench_round *rd,
		      const char *dev, char *why, size_t size)
{
	const char *what = rd->generated_known ? "generated" : "rx_packets";
	__u64 want = rd->generated_known ? rd->generated : rd->dev.rx_packets;
	__u64 got = rd->seen + rd->dropped_before;
	char rx[40] = "", rn[32], a[32], o[96] = "", where[160];

	bench_round_name(rd, rn, sizeof(rn));
	if (r->drop && rd->passed) {
		snprintf(why, size,
			 "%s: %llu packet%s passed a drop row's hook", rn,
			 (unsigned long long)rd->passed,
			 rd->passed == 1 ? "" : "s");
		return -1;
	}
	if (!got && rd->generated_known && (want || rd->offered)) {
		if (rd->offered > want)
			snprintf(o, sizeof(o),
				 "%s offered by the generator, %s",
				 hc_commas(a, sizeof(a), rd->offered),
				 want ? "of them " :
					"none of them left its device");
		if (rd->offered <= want || want)
			snprintf(o + strlen(o), sizeof(o) - strlen(o),
				 "%s generated", hc_commas(a, sizeof(a), want));
		snprintf(
			why, size,
			"%s: %s, 0 seen at the hook, 0 dropped before it: the frames were lost where no counter on %s sees them",
			rn, o, dev);
		return -1;
	}
	if (!got) {
		snprintf(why, size, "%s: no packets in the window", rn);
		return -1;
	}
	if (close_to(want, got))
		return 0;
	if (rd->generated_known)
		snprintf(rx, sizeof(rx), " (rx_packets %llu)",
			 (unsigned long long)rd->dev.rx_packets);
	snprintf(why, size,
		 "%s: %s %llu != seen %llu + dropped before %llu%s%s", rn, what,
		 (unsigned long long)want, (unsigned long long)rd->seen,
		 (unsigned long long)rd->dropped_before,
		 bench_round_drops(rd, where, sizeof(where)), rx);
	return 1;
}

int bench_round_device(const struct bench_row *r, const struct bench_round *rd,
		       const char *dev, char *why, size_t size)
{
	int ret;
	size_t n;

	why[0] = '\0';
	ret = device_sum(r, rd, dev, why, size);
	n = strlen(why);
	if (ret && rd->cause[0] && n < size)
		snprintf(why + n, size - n, "; %s", rd->cause);
	return ret;
}

const char *bench_row_void(const struct bench_row *r)
{
	return r->reason[0]	  ? r->reason :
	       r->sum.unusable[0] ? r->sum.unusable :
				    NULL;
}

bool bench_disagrees(const struct bench_rows *rows, const struct bench_row *r)
{
	const struct bench_row *base =
		r->base >= 0 ? &rows->row[r->base] : NULL;

	return base && base != r &&
	       (r->sum.ns.median - base->sum.ns.median) *
			       r->sum.base.delta.median <
		       0;
}

int bench_flags(const struct bench_env *env, const struct bench_rows *rows,
		const struct bench_row *r, const char **flags, int max)
{
	int n = 0;

#define FLAG(cond, name)                     \
	do {                                 \
		if ((cond) && n < max)       \
			flags[n++] = (name); \
	} while (0)
	FLAG(r->base == r - rows->row, "baseline");
	FLAG(r->unverified[0], "unverified");
	FLAG(r->kind->generator, "generator");
	FLAG(r->sum.outliers, "outliers");
	FLAG(r->sum.contended, "contended");
	FLAG(r->sum.gen_bound, "generator-bound");
	FLAG(r->kind->generator && r->sum.drift > BENCH_DRIFT_MAX, "drift");
	FLAG(env->emulated, "emulated");
	FLAG(bench_disagrees(rows, r), "unpaired-disagrees");
	FLAG(r->variant_failed, "setup-failed");
	FLAG(r->nvariant_left, "left-running");
	FLAG(r->sum.unresolved, "unresolved");
	/* INVALID for the load alone: compare leaves the run out for it */
	FLAG(!r->reason[0] && r->sum.unusable[0], "too-few-rounds");
#undef FLAG
	return n;
}

int bench_growth(const struct bench_rows *rows, const struct bench_result *res,
		 const struct bench_growth *g, const char *series, bool per_n,
		 struct st_est *e, int *nrows)
{
	int nr = res->nrounds, m = 0, j = 0, i, k, ret;
	double *x, *y;

	*e = (struct st_est){ NAN, NAN, NAN };
	for (i = 0; i < rows->n; i++)
		m += rows->row[i].series &&
		     !strcmp(rows->row[i].series, series);
	*nrows = m;
	x = calloc(m + 1, sizeof(*x));
	y = malloc(((size_t)nr * m + 1) * sizeof(*y));
	ret = x && y ? 0 : -ENOMEM;
	for (k = 0; !ret && k < nr * m; k++)
		y[k] = NAN;
	/* y: a line per round (1-based), a column per row of series */
	for (i = 0; !ret && i < rows->n; i++) {
		const struct bench_row *r = &rows->row[i];

		if (!r->series || strcmp(r->series, series))
			continue;
		x[j] = per_n ? g->n_of(r) : log2(g->n_of(r));
		for (k = 0; !bench_row_void(r) && k < r->nrd; k++)
			if (r->rd[k].round >= 1 && r->rd[k].round <= nr)
				y[(size_t)(r->rd[k].round - 1) * m + j] =
					r->rd[k].ns;
		j++;
	}
	if (!ret)
		ret = st_growth(x, y, nr, m, BENCH_LEVEL, e);
	free(x);
	free(y);
	return ret;
}

const char *bench_growth_verdict(const struct st_est *e)
{
	if (isnan(e->lo))
		return NULL;
	/* 0 inside, or the whole interval within +-BENCH_FLAT_NS */
	if ((e->lo <= 0 && e->hi >= 0) ||
	    (fabs(e->lo) < BENCH_FLAT_NS && fabs(e->hi) < BENCH_FLAT_NS))
		return "O(1)";
	return "grows";
}

double bench_load_ms(const struct bench_row *r)
{
	double *v = malloc((r->nrd + 1) * sizeof(*v)), m;
	int k;

	if (!v)
		return NAN;
	for (k = 0; k < r->nrd; k++)
		v[k] = r->rd[k].setup_ms;
	m = st_median(v, r->nrd);
	free(v);
	return m;
}
