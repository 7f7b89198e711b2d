// SPDX-License-Identifier: GPL-2.0
/*
 * bench compare: two sets of bench runs (a kernel before and after a
 * patch), row by row, with the run as the unit of replication. Each run
 * gives a row two estimates: the log of its median cost over the run's
 * rounds (raw), and the Hodges-Lehmann estimate of its rounds' log
 * ratios to its baseline's same round (vs baseline), which cancels what
 * moved the whole machine between the runs. The change is the
 * difference of the two sides' means of those, and its interval comes
 * from how the runs spread (what moves between runs and boots is in no
 * run's own interval), never narrower than the runs' own intervals
 * allow (doc/methodology.md). With one run on a side the spread is
 * unknown unless bench calibrate measured it.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "diff.h"
#include "env.h"
#include "path.h"

#define Z95 1.959964 /* a run's own intervals are 95% */

/* The row named name in a document's rows, or NULL. */
static const struct jp *row_of(const struct jp *doc, const char *name)
{
	const struct jp *rows = jp_get(doc, "rows");
	int i;

	for (i = 0; rows && rows->type == JP_ARR && i < rows->n; i++)
		if (!strcmp(jp_str(&rows->kid[i], "name", ""), name))
			return &rows->kid[i];
	return NULL;
}

/* The variance of an estimate from its 95% interval; NaN without one. */
static double var_of(const struct st_est *e)
{
	double se = (e->hi - e->lo) / 2 / Z95;

	return se * se;
}

/*
 * A row's estimates in one run into s (its next slot), when it has
 * rounds with a cost: log median, and with a baseline (another row of
 * the run) the HL of its per-round log ratios, rounds paired by their
 * number, never by their place in the array.
 */
static int run_est(const struct jp *doc, const struct jp *row, int run,
		   struct bench_cmp_side *s)
{
	const struct jp *rd = jp_get(row, "rounds"), *brd, *base;
	const char *bname = jp_str(row, "baseline", NULL);
	int i, k, n = 0, nb = 0, cap = rd && rd->type == JP_ARR ? rd->n : 0;
	double *x = calloc(cap + 1, sizeof(*x)),
	       *r = calloc(cap + 1, sizeof(*r));
	struct st_est e;
	int ret = 0;

	if (!x || !r) {
		ret = -ENOMEM;
		goto out;
	}
	base = bname && strcmp(bname, jp_str(row, "name", "")) ?
		       row_of(doc, bname) :
		       NULL;
	brd = jp_get(base, "rounds");
	for (i = 0; i < cap; i++) {
		double ns = jp_num(&rd->kid[i], "ns", NAN), b = NAN;
		double round = jp_num(&rd->kid[i], "round", NAN);

		if (!(ns > 0))
			continue;
		x[n++] = log(ns);
		for (k = 0; brd && brd->type == JP_ARR && k < brd->n; k++)
			if (jp_num(&brd->kid[k], "round", NAN) == round)
				b = jp_num(&brd->kid[k], "ns", NAN);
		if (b > 0)
			r[nb++] = log(ns / b);
	}
	if (n && s->n < BENCH_CMP_RUNS) {
		s->run[s->n] = run;
		s->boot[s->n] = jp_str(jp_get(jp_get(doc, "env"), "settings"),
				       "boot_id", "");
		ret = st_median_ci(x, n, BENCH_LEVEL, &e);
		s->ns[s->n] = exp(e.median);
		s->raw[s->n] = e.median;
		s->vraw[s->n] = var_of(&e);
		s->base[s->n] = s->vbase[s->n] = NAN;
		if (nb && !ret) {
			ret = st_hl(r, nb, BENCH_LEVEL, &e);
			s->base[s->n] = e.median;
			s->vbase[s->n] = var_of(&e);
		}
		s->n++;
	}
out:
	free(x);
	free(r);
	return ret;
}

static bool is_bench(const struct jp *doc)
{
	const struct jp *rows = jp_get(doc, "rows");

	return !strcmp(jp_str(doc, "type", ""), "bench") && rows &&
	       rows->type == JP_ARR;
}

/*
 * Two runs' plans (bench --plan): the windows a row's cost is taken
 * from must be alike, or the runs measure different things (the
 * within-state jitter of a window grows with its length). Documents
 * without a plan are not judged.
 */
static void plan_mismatch(const struct jp *a, const char *an,
			  const struct jp *b, const char *bn, char *why,
			  size_t size)
{
	static const char *const keys[] = { "windows", "visits", "window_s",
					    "settle_s" };
	const struct jp *wa = jp_get(a, "window_packets"),
			*wb = jp_get(b, "window_packets");
	unsigned int i;

	if (!a || !b)
		return;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (jp_num(a, keys[i], 0) != jp_num(b, keys[i], 0)) {
			snprintf(
				why, size,
				"the plans differ: %s's %s are %g, %s's %g (bench --plan with %s's document repeats its plan)",
				an, keys[i], jp_num(a, keys[i], 0), bn,
				jp_num(b, keys[i], 0), an);
			return;
		}
	for (i = 0; wa && wa->type == JP_OBJ && i < (unsigned int)wa->n; i++) {
		double x = wa->kid[i].num, y = jp_num(wb, wa->kid[i].key, x);

		if (x != y) {
			snprintf(
				why, size,
				"the plans differ: row %s's windows are %g packets in %s, %g in %s (bench --plan with %s's document repeats its plan)",
				wa->kid[i].key, x, an, y, bn, an);
			return;
		}
	}
}

/* What two runs, named an and bn, must share to be compared: "" if they do. */
static void mismatch(const struct jp *a, const char *an, const struct jp *b,
		     const char *bn, char *why, size_t size)
{
	static const char *const keys[] = { "scenario", "topology",
					    "cpu_mode" };
	const struct jp *rows = jp_get(a, "rows");
	unsigned int i;

	why[0] = '\0';
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *x = jp_str(a, keys[i], "none"),
			   *y = jp_str(b, keys[i], "none");

		if (strcmp(x, y)) {
			snprintf(why, size, "%s's %s is %s, %s's is %s", an,
				 keys[i], x, bn, y);
			return;
		}
	}
	/* Live frames, the stage's, AF_PACKET's: other paths to the DUT. */
	if (strcmp(jp_str(jp_get(a, "env"), "feed", "none"),
		   jp_str(jp_get(b, "env"), "feed", "none"))) {
		snprintf(why, size, "%s's feed is %s, %s's is %s", an,
			 jp_str(jp_get(a, "env"), "feed", "none"), bn,
			 jp_str(jp_get(b, "env"), "feed", "none"));
		return;
	}
	for (i = 0; rows && rows->type == JP_ARR && i < (unsigned int)rows->n;
	     i++) {
		const char *name = jp_str(&rows->kid[i], "name", "");
		const struct jp *o = row_of(b, name);
		double x = jp_num(&rows->kid[i], "frame_bytes", NAN),
		       y = o ? jp_num(o, "frame_bytes", NAN) : x;

		if (x != y && !(isnan(x) && isnan(y))) {
			snprintf(why, size,
				 "row %s: %s's frames are %g bytes, %s's %g",
				 name, an, x, bn, y);
			return;
		}
	}
	plan_mismatch(jp_get(a, "plan"), an, jp_get(b, "plan"), bn, why, size);
}

/* "OLD" for one run a side, "OLD run 2" for more. */
static void run_name(char *buf, size_t size, const struct bench_cmp_set *s,
		     int i)
{
	if (s->n == 1)
		snprintf(buf, size, "%s", s->label);
	else
		snprintf(buf, size, "%s run %d", s->label, i + 1);
}

/* Has the row this flag in its document? */
static bool flagged(const struct jp *row, const char *flag)
{
	const struct jp *f = jp_get(row, "flags");
	int i;

	for (i = 0; f && f->type == JP_ARR && i < f->n; i++)
		if (f->kid[i].type == JP_STR && !strcmp(f->kid[i].str, flag))
			return true;
	return false;
}

/*
 * One row's runs on one side into s; why says what takes the row out:
 * an INVALID run, or one whose rate is the generator's.
 */
static int gather(const struct bench_cmp_set *set, unsigned long long out,
		  const char *name, struct bench_cmp_side *s, char *why,
		  size_t size, const char **verdict)
{
	char who[32];
	int i, ret;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < set->n; i++) {
		const struct jp *row = row_of(set->doc[i], name);

		if (!row)
			continue;
		s->present++;
		/* a failed run; one the load left too few rounds of the row */
		if ((out >> i & 1) || flagged(row, "too-few-rounds")) {
			s->out++;
			continue;
		}
		run_name(who, sizeof(who), set, i);
		if (!strcmp(jp_str(row, "status", ""), "invalid") &&
		    !*verdict) {
			*verdict = "invalid";
			snprintf(why, size, "%s: %s", who,
				 jp_str(row, "reason", "INVALID"));
		}
		if (flagged(row, "generator-bound") && !*verdict) {
			*verdict = "no verdict";
			snprintf(
				why, size,
				"generator-bound in %s: its rate is the generator's, not the hook's",
				who);
		}
		ret = run_est(set->doc[i], row, i, s);
		if (ret)
			return ret;
	}
	return 0;
}

/* The calibration's between-run variance of a row's estimate, or NaN. */
static double calibrated(const struct jp *cal, const char *name,
			 const char *key)
{
	const struct jp *row = cal ? row_of(cal, name) : NULL;

	return row ? jp_num(jp_get(row, key), "tau2", NAN) : NAN;
}

/* One estimate's change across runs: exp'd interval, p, mde. */
static int change(const struct bench_cmp_side *s, bool base, double tau2,
		  double tau_df, struct st_est *e, double *p, double *mde)
{
	double y[2][BENCH_CMP_RUNS], v[2][BENCH_CMP_RUNS];
	int w, i, k[2] = {}, ret;
	struct st_diff d;

	*e = (struct st_est){ NAN, NAN, NAN };
	*p = *mde = NAN;
	/* a run with no round beside its baseline's has no ratio: left out */
	for (w = 0; w < 2; w++)
		for (i = 0; i < s[w].n; i++) {
			y[w][k[w]] = base ? s[w].base[i] : s[w].raw[i];
			v[w][k[w]] = base ? s[w].vbase[i] : s[w].vraw[i];
			k[w] += !isnan(y[w][k[w]]);
		}
	ret = st_runs_diff(y[0], v[0], k[0], y[1], v[1], k[1], tau2, tau_df,
			   &d);
	e->median = exp(d.d);
	if (ret)
		return ret;
	st_diff_ci(&d, BENCH_LEVEL, e);
	e->median = exp(e->median);
	e->lo = exp(e->lo);
	e->hi = exp(e->hi);
	*p = st_diff_p(&d);
	*mde = (exp(st_diff_mde(&d, BENCH_LEVEL)) - 1) * 100;
	return 0;
}

/* The between-run spread of one side's estimates, pooled over both sides. */
static void between(struct bench_cmp_row *c, const struct bench_cmp_side *s)
{
	double y[2 * BENCH_CMP_RUNS], v[2 * BENCH_CMP_RUNS], t = 0, i2 = 0;
	int w, i, k, sides = 0;

	c->between_pct = c->i2 = NAN;
	for (w = 0; w < 2; w++) {
		double i2w, tw;

		for (i = 0, k = 0; i < s[w].n; i++) {
			y[k] = c->has_base ? s[w].base[i] : s[w].raw[i];
			v[k] = c->has_base ? s[w].vbase[i] : s[w].vraw[i];
			k += !isnan(y[k]);
		}
		tw = st_tau2(y, v, k, &i2w);
		if (isnan(tw))
			continue;
		t += tw;
		i2 += i2w;
		sides++;
	}
	if (sides) {
		c->between_pct = (exp(sqrt(t / sides)) - 1) * 100;
		c->i2 = i2 / sides;
	}
}

/* Are all runs of both sides from one boot (or none says which)? */
static bool one_boot(const struct bench_cmp_side *s)
{
	const char *first = s[0].n ? s[0].boot[0] : "";
	int w, i;

	for (w = 0; w < 2; w++)
		for (i = 0; i < s[w].n; i++)
			if (strcmp(s[w].boot[i], first))
				return false;
	return true;
}

/*
 * The runs of a side, grouped by boot: each boot's mean of its runs'
 * estimates, and of their variances over its runs. What a boot fixes
 * (where the kernel landed) holds for all its runs, so across boots
 * the boot, not the run, is the unit.
 */
static void by_boot(struct bench_cmp_side *s)
{
	struct bench_cmp_side b = { .present = s->present };
	int i, k, m, c, cb;

	for (i = 0; i < s->n; i++) {
		for (k = 0; k < b.n && strcmp(b.boot[k], s->boot[i]); k++)
			;
		if (k < b.n)
			continue;
		b.boot[k] = s->boot[i];
		b.run[k] = s->run[i];
		for (m = 0, c = cb = 0; m < s->n; m++)
			if (!strcmp(s->boot[m], s->boot[i])) {
				c++;
				cb += !isnan(s->base[m]);
			}
		/* a run with no vs-baseline estimate is left out of that one */
		b.raw[k] = b.vraw[k] = 0;
		b.base[k] = b.vbase[k] = cb ? 0 : NAN;
		for (m = 0; m < s->n; m++) {
			if (strcmp(s->boot[m], s->boot[i]))
				continue;
			b.raw[k] += s->raw[m] / c;
			b.vraw[k] += s->vraw[m] / ((double)c * c);
			if (isnan(s->base[m]))
				continue;
			b.base[k] += s->base[m] / cb;
			b.vbase[k] += s->vbase[m] / ((double)cb * cb);
		}
		b.ns[k] = exp(b.raw[k]);
		b.n++;
	}
	*s = b;
}

/*
 * Does a state of the machine move the row, or its baseline? Their
 * declared paths say whether their frames become skbs.
 */
static bool moved(const struct jp *doc, const struct jp *row,
		  const struct bench_cmp_state *st)
{
	const struct jp *base = row_of(doc, jp_str(row, "baseline", ""));
	const char *p = jp_str(jp_get(row, "path"), "declared", "");
	const char *bp = jp_str(jp_get(base, "path"), "declared", "");

	return st->moves == BENCH_MOVES_ALL ||
	       (st->moves == BENCH_MOVES_SKB &&
		(bench_path_skb(p) || (base && bench_path_skb(bp))));
}

/* The row's verdict, when a state that moves it differs between runs. */
static void confounded(const struct bench_cmp *cmp, const struct jp *doc,
		       const struct jp *row, struct bench_cmp_row *c)
{
	int i, n = 0, first = -1;

	for (i = 0; i < cmp->nstate; i++)
		if (moved(doc, row, &cmp->state[i]) && !n++)
			first = i;
	if (!n)
		return;
	c->verdict = "confounded";
	snprintf(c->why, sizeof(c->why), "%s%s", cmp->state[first].what,
		 n > 1 ? " (and more: the machine's differences)" : "");
}

/* One row present on both sides, all but the correction for the others. */
static int compare_row(const struct bench_cmp_set *set,
		       const struct bench_cmp_opts *opts,
		       const struct bench_cmp *cmp, struct bench_cmp_row *c)
{
	const struct jp *doc = set[0].doc[0], *row = row_of(doc, c->name);
	const char *base;
	struct bench_cmp_side s[2];
	double tr = NAN, tb = NAN, df = 0, p, pb, mde, mdeb;
	int w, ret, rr, rb;
	bool boots, dev;

	c->change = c->vs_base = (struct st_est){ NAN, NAN, NAN };
	c->decided = &c->change;
	c->old_ns = c->new_ns = c->p = c->mde_pct = NAN;
	c->between_pct = c->i2 = NAN;
	if (!row) {
		doc = set[1].doc[0];
		row = row_of(doc, c->name);
	}
	base = jp_str(row, "baseline", NULL);
	for (w = 0; w < 2; w++) {
		ret = gather(&set[w], cmp->left_out[w], c->name, &s[w], c->why,
			     sizeof(c->why), &c->verdict);
		if (ret)
			return ret;
		c->runs[w] = s[w].n;
		if (!s[w].present) {
			c->verdict = w ? "old only" : "new only";
			c->why[0] = '\0';
			return 0;
		}
		if (s[w].out == s[w].present && !c->verdict) {
			c->verdict = "n/a";
			snprintf(c->why, sizeof(c->why),
				 "every run of %s with the row was left out (failed, or too few rounds for the load)",
				 set[w].label);
		}
	}
	if (!c->verdict && !opts->allow_env)
		confounded(cmp, doc, row, c);
	c->old_ns = st_median(s[0].ns, s[0].n);
	c->new_ns = st_median(s[1].ns, s[1].n);
	boots = !one_boot(s);
	if (boots) {
		by_boot(&s[0]);
		by_boot(&s[1]);
	}
	c->has_base = base && strcmp(base, c->name);
	/* a calibration over runs knows nothing of boots */
	if (opts->calibration && !boots) {
		tr = calibrated(opts->calibration, c->name, "raw");
		tb = calibrated(opts->calibration, c->name, "vs_baseline");
		df = jp_num(opts->calibration, "df", 0);
	}
	rr = change(s, false, tr, df, &c->change, &p, &mde);
	rb = c->has_base ? change(s, true, tb, df, &c->vs_base, &pb, &mdeb) :
			   -EINVAL;
	c->decided = c->has_base ? &c->vs_base : &c->change;
	c->p = c->has_base ? pb : p;
	c->mde_pct = c->has_base ? mdeb : mde;
	ret = c->has_base ? rb : rr;
	c->interval_from = ret			    ? NULL :
			   s[0].n < 2 || s[1].n < 2 ? "calibration" :
			   boots		    ? "boots" :
						      "runs";
	between(c, s);
	if (c->verdict)
		return 0;
	dev = !strcmp(jp_str(set[0].doc[0], "topology", ""), "dev");
	if (dev && base && !strcmp(base, c->name)) {
		c->verdict = "no verdict";
		snprintf(c->why, sizeof(c->why),
			 "the baseline: its raw change is shown, not judged");
	} else if (dev && opts->threshold && c->mde_pct > opts->threshold) {
		/* a real device's runs: too coarse to say anything at PCT */
		c->verdict = "no verdict";
		snprintf(
			c->why, sizeof(c->why),
			"these runs resolve +-%.1f%%, coarser than --threshold %g%%",
			c->mde_pct, opts->threshold);
	} else if (!s[0].n || !s[1].n) {
		c->verdict = "n/a";
		snprintf(c->why, sizeof(c->why), "no round with a cost in %s",
			 s[0].n ? set[1].label : set[0].label);
	} else if (ret == -ENODATA && boots) {
		c->verdict = "inconclusive";
		snprintf(
			c->why, sizeof(c->why),
			"the sides are on different boots, a side on one: the boot-to-boot variance is unknown (alternate boots, A B A B)");
	} else if (ret == -ENODATA && opts->calibration) {
		c->verdict = "inconclusive";
		snprintf(
			c->why, sizeof(c->why),
			"one run on a side, and --calibration has no between-run variance of this row (calibrate runs that have it)");
	} else if (ret == -ENODATA) {
		c->verdict = "inconclusive";
		snprintf(
			c->why, sizeof(c->why),
			"%s: the run-to-run variance is unknown (more runs a side, or --calibration)",
			s[0].n < 2 && s[1].n < 2 ? "one run a side" :
						   "one run on a side");
	} else if (ret) {
		c->verdict = "n/a";
		snprintf(c->why, sizeof(c->why),
			 "no round beside its baseline's in a run");
	}
	return 0;
}

/*
 * The verdicts, once every row's p-value is known: a change only where
 * it holds after Holm's correction for the rows judged together; the
 * same only where the whole interval lies within the margin.
 */
static int judge(struct bench_cmp *c, const struct bench_cmp_opts *opts)
{
	double *p = calloc(c->n + 1, sizeof(*p)),
	       *adj = calloc(c->n + 1, sizeof(*adj));
	double m = (opts->threshold ?: BENCH_CMP_MARGIN) / 100;
	int i;

	for (i = 0; p && adj && i < c->n; i++)
		p[i] = c->rows[i].verdict ? NAN : c->rows[i].p;
	if (!p || !adj || st_holm(p, c->n, adj)) {
		free(p);
		free(adj);
		return -ENOMEM;
	}
	for (i = 0; i < c->n; i++) {
		struct bench_cmp_row *r = &c->rows[i];
		const struct st_est *e = r->decided;

		r->p_holm = adj[i];
		if (r->verdict) {
			c->confounded += !strcmp(r->verdict, "confounded");
			continue;
		}
		c->judged++;
		if (r->p_holm < 1 - BENCH_LEVEL)
			r->verdict = e->median > 1 ? "slower" : "faster";
		else if (e->lo >= 1 - m && e->hi <= 1 + m)
			r->verdict = "same";
		else {
			r->verdict = "inconclusive";
			snprintf(
				r->why, sizeof(r->why),
				"these runs resolve +-%.1f%%, the margin is %g%%",
				r->mde_pct, m * 100);
		}
		/*
		 * Only a change against a baseline fails: a row's raw change
		 * moves with the machine as much as with a patch.
		 */
		if (!strcmp(r->verdict, "slower") && opts->threshold &&
		    r->has_base && e->lo > 1 + opts->threshold / 100)
			c->regressed++;
	}
	free(p);
	free(adj);
	return 0;
}

/* Every document of both sides must be a bench run like OLD's first. */
static int check_sets(const struct bench_cmp_set *set,
		      const struct bench_cmp_opts *opts, struct bench_cmp *c,
		      char *why, size_t size)
{
	char a[32], b[32];
	int w, i;

	for (w = 0; w < 2; w++)
		for (i = 0; i < set[w].n; i++) {
			run_name(a, sizeof(a), &set[w], i);
			if (!is_bench(set[w].doc[i])) {
				snprintf(
					why, size,
					"%s is not a bench document (\"type\": \"bench\", with rows)",
					a);
				return -EINVAL;
			}
			if (c->mismatch[0] || (!w && !i))
				continue;
			run_name(b, sizeof(b), &set[0], 0);
			mismatch(set[0].doc[0], b, set[w].doc[i], a,
				 c->mismatch, sizeof(c->mismatch));
		}
	if (c->mismatch[0] && !opts->allow_mismatch) {
		snprintf(why, size, "%s; --allow-mismatch compares them anyway",
			 c->mismatch);
		return -EXDEV;
	}
	return 0;
}

/* A scalar member as text: "" for null or a missing one. */
static void scalar(const struct jp *v, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!v)
		return;
	if (v->type == JP_STR)
		snprintf(buf, size, "%s", v->str);
	else if (v->type == JP_NUM)
		snprintf(buf, size, "%g", v->num);
	else if (v->type == JP_BOOL)
		snprintf(buf, size, "%s", v->b ? "true" : "false");
}

static bool has_str(const struct jp *arr, const char *s)
{
	int i;

	for (i = 0; arr && arr->type == JP_ARR && i < arr->n; i++)
		if (arr->kid[i].type == JP_STR && !strcmp(arr->kid[i].str, s))
			return true;
	return false;
}

static __attribute__((format(printf, 4, 5))) void
diff_line(char *out, size_t size, const char *who, const char *fmt, ...)
{
	size_t len = strlen(out);
	va_list ap;

	if (len + 2 >= size)
		return;
	len += snprintf(out + len, size - len, "%s: ", who);
	va_start(ap, fmt);
	if (len < size)
		len += vsnprintf(out + len, size - len, fmt, ap);
	va_end(ap);
	if (len < size - 1)
		strcat(out, "\n");
}

/*
 * A run that failed is no estimate of its kernel: every row but the
 * generator INVALID, or most of its windows excluded (the host's slow
 * state). It is left out of its side, not let sink every row.
 */
static bool failed_run(const struct jp *doc, char *why, size_t size)
{
	const struct jp *rows = jp_get(doc, "rows"), *rd, *win;
	int i, k, m, n = 0, invalid = 0, total = 0, excl = 0;

	for (i = 0; i < rows->n; i++) {
		const struct jp *row = &rows->kid[i];

		rd = jp_get(row, "rounds");
		for (k = 0; rd && rd->type == JP_ARR && k < rd->n; k++) {
			win = jp_get(&rd->kid[k], "windows");
			for (m = 0; win && win->type == JP_ARR && m < win->n;
			     m++) {
				const struct jp *e =
					jp_get(&win->kid[m], "excluded");

				total++;
				excl += e && e->type == JP_BOOL && e->b;
			}
		}
		if (flagged(row, "generator"))
			continue;
		n++;
		invalid += !strcmp(jp_str(row, "status", ""), "invalid");
	}
	if (excl * 2 > total)
		snprintf(why, size,
			 "%d of its %d windows excluded (the host's slow state)",
			 excl, total);
	else if (n && invalid == n)
		snprintf(why, size, "every row INVALID");
	else
		return false;
	return true;
}

static void leave_out(const struct bench_cmp_set *set, struct bench_cmp *c)
{
	char who[32], why[128];
	int w, i;

	for (w = 0; w < 2; w++)
		for (i = 0; i < set[w].n; i++)
			if (failed_run(set[w].doc[i], why, sizeof(why))) {
				c->left_out[w] |= 1ULL << i;
				run_name(who, sizeof(who), &set[w], i);
				diff_line(c->left_out_why,
					  sizeof(c->left_out_why), who,
					  "left out: %s", why);
			}
}

static __attribute__((format(printf, 3, 4))) void
state_add(struct bench_cmp *c, unsigned int moves, const char *fmt, ...)
{
	va_list ap;

	if (!moves || c->nstate == BENCH_CMP_STATES)
		return;
	c->state[c->nstate].moves = moves;
	va_start(ap, fmt);
	vsnprintf(c->state[c->nstate].what, sizeof(c->state[0].what), fmt, ap);
	va_end(ap);
	c->nstate++;
}

/* A kernel's command line less its image's name: a patch changes that. */
static void cmdline(char *buf)
{
	char *p = strstr(buf, "BOOT_IMAGE=");
	size_t n;

	if (p && (p == buf || p[-1] == ' ')) {
		n = strcspn(p, " ");
		n += p[n] == ' ';
		memmove(p, p + n, strlen(p + n) + 1);
	}
}

/*
 * The strings of list from that list to lacks, as "KEY: WORD: X"; with
 * state, those that move rows are states too.
 */
static void missing(const struct jp *from, const struct jp *to,
		    const char *word, const char *key, const char *who,
		    struct bench_cmp *c, bool state)
{
	const char *x;
	int k;

	for (k = 0; from && from->type == JP_ARR && k < from->n; k++) {
		if (from->kid[k].type != JP_STR ||
		    has_str(to, from->kid[k].str))
			continue;
		x = from->kid[k].str;
		diff_line(c->env_diff, sizeof(c->env_diff), who, "%s: %s: %s",
			  key, word, x);
		if (state)
			state_add(c, bench_env_moves(key, x), "%s: %s: %s: %s",
				  who, key, word, x);
	}
}

/*
 * How env b differs from env a, member by member: scalars "KEY A -> B",
 * lists of strings "KEY: new: X" and "KEY: gone: X", objects by their
 * members. Timings of the run itself are no setting. With state, the
 * differences that move rows (bench_env_moves) are states too.
 */
static void env_diff(const struct jp *a, const struct jp *b, const char *who,
		     struct bench_cmp *c, bool state)
{
	static const char *const skip[] = { "attach_ms_median",
					    "changed_during_run" };
	char x[1100], y[1100];
	int w, i;
	unsigned int s, moves;

	for (w = 0; w < 2; w++) {
		const struct jp *from = w ? b : a;

		for (i = 0; from && from->type == JP_OBJ && i < from->n; i++) {
			const struct jp *m = &from->kid[i];
			const struct jp *o = jp_get(w ? a : b, m->key);
			const struct jp *na = w ? o : m, *nb = w ? m : o;
			bool skipped = false;

			for (s = 0; s < sizeof(skip) / sizeof(skip[0]); s++)
				skipped |= !strcmp(m->key, skip[s]);
			/* a member of both is looked at from a's side only */
			if (skipped || (w && o))
				continue;
			if (m->type == JP_ARR || (o && o->type == JP_ARR)) {
				missing(nb, na, "new", m->key, who, c, state);
				missing(na, nb, "gone", m->key, who, c, state);
				continue;
			}
			if (m->type == JP_OBJ || (o && o->type == JP_OBJ)) {
				env_diff(na, nb, who, c, state);
				continue;
			}
			scalar(na, x, sizeof(x));
			scalar(nb, y, sizeof(y));
			if (!strcmp(x, y))
				continue;
			diff_line(c->env_diff, sizeof(c->env_diff), who,
				  "%s %s -> %s", m->key, x[0] ? x : "(none)",
				  y[0] ? y : "(none)");
			moves = bench_env_moves(m->key, "");
			cmdline(x);
			cmdline(y);
			if (state && strcmp(x, y))
				state_add(c, moves, "%s: %s %s -> %s", who,
					  m->key, x[0] ? x : "(none)",
					  y[0] ? y : "(none)");
		}
	}
}

/*
 * Every run's env against the first run kept (c->ref), and what changed
 * during a run; those of the runs kept that move rows are states, which
 * take those rows' verdicts.
 */
static void env_diffs(const struct bench_cmp_set *set, struct bench_cmp *c)
{
	const struct jp *ref = NULL, *env, *ch;
	char who[32];
	int w, i, k;
	bool kept;

	for (w = 0; w < 2 && !ref; w++)
		for (i = 0; i < set[w].n && !ref; i++)
			if (!(c->left_out[w] >> i & 1)) {
				ref = jp_get(set[w].doc[i], "env");
				run_name(c->ref, sizeof(c->ref), &set[w], i);
			}
	for (w = 0; w < 2; w++)
		for (i = 0; i < set[w].n; i++) {
			env = jp_get(set[w].doc[i], "env");
			kept = !(c->left_out[w] >> i & 1);
			run_name(who, sizeof(who), &set[w], i);
			if (ref && env != ref)
				env_diff(ref, env, who, c, kept);
			ch = jp_get(env, "changed_during_run");
			for (k = 0; ch && ch->type == JP_ARR && k < ch->n; k++) {
				if (ch->kid[k].type != JP_STR)
					continue;
				diff_line(c->env_diff, sizeof(c->env_diff), who,
					  "changed during the run: %s",
					  ch->kid[k].str);
				if (kept)
					state_add(c,
						  bench_env_line_moves(
							  ch->kid[k].str),
						  "%s: changed during the run: %s",
						  who, ch->kid[k].str);
			}
		}
}

/* Is name one of list's comma-separated names? */
static bool named(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Every name of opts->rows in some run. */
static int rows_known(const struct bench_cmp_set *set, const char *list,
		      char *why, size_t size)
{
	char name[128];
	const char *p;
	int w, i;
	size_t n;

	for (p = list; p && *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		for (w = 0; w < 2; w++)
			for (i = 0; i < set[w].n; i++)
				if (row_of(set[w].doc[i], name))
					goto next;
		snprintf(why, size, "no row '%s' in the runs", name);
		return -ENOENT;
next:;
	}
	return 0;
}

int bench_compare(const struct bench_cmp_set *set,
		  const struct bench_cmp_opts *opts, struct bench_cmp *c,
		  char *why, size_t size)
{
	int w, d, i, ret, cap = 0;

	memset(c, 0, sizeof(*c));
	ret = check_sets(set, opts, c, why, size) ?:
	      rows_known(set, opts->rows, why, size);
	if (ret)
		return ret;
	leave_out(set, c);
	env_diffs(set, c);
	for (w = 0; w < 2; w++)
		for (d = 0; d < set[w].n; d++)
			cap += jp_get(set[w].doc[d], "rows")->n;
	c->rows = calloc(cap + 1, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	/* OLD's rows in its first run's order, then those only NEW has. */
	for (w = 0; w < 2; w++)
		for (d = 0; d < set[w].n; d++) {
			const struct jp *rows = jp_get(set[w].doc[d], "rows");

			for (i = 0; i < rows->n; i++) {
				const char *name =
					jp_str(&rows->kid[i], "name", "");
				struct bench_cmp_row *cr = &c->rows[c->n];
				int k, seen = 0;

				for (k = 0; k < c->n && !seen; k++)
					seen = !strcmp(c->rows[k].name, name);
				if (seen || (opts->rows && !named(opts->rows, name)))
					continue;
				c->n++;
				cr->name = name;
				ret = compare_row(set, opts, c, cr);
				if (ret)
					return ret;
			}
		}
	return judge(c, opts);
}

void bench_compare_free(struct bench_cmp *c)
{
	free(c->rows);
	c->rows = NULL;
	c->n = 0;
}

/* The runs whose estimate y[i] (variance v[i]) the others' mean is far from. */
static unsigned long long disagree(const double *y, const double *v,
				   const int *run, int n)
{
	unsigned long long bits = 0;
	int i, k;

	for (i = 0; n >= 3 && i < n; i++) {
		double m = 0, vm = 0;

		for (k = 0; k < n; k++)
			if (k != i) {
				m += y[k] / (n - 1);
				vm += v[k] / ((double)(n - 1) * (n - 1));
			}
		if (fabs(y[i] - m) > BENCH_CAL_Z * sqrt(v[i] + vm))
			bits |= 1ULL << run[i];
	}
	return bits;
}

int bench_calibrate(const struct bench_cmp_set *set, struct bench_cal *cal,
		    char *why, size_t size)
{
	const struct jp *rows;
	struct bench_cmp_side *s;
	struct bench_cmp c = {};
	char who[32];
	int i, ret;

	memset(cal, 0, sizeof(*cal));
	if (set->n < 2) {
		snprintf(why, size,
			 "needs two or more runs of one kernel, %d given",
			 set->n);
		return -EINVAL;
	}
	ret = check_sets((const struct bench_cmp_set[]){ *set, { .n = 0 } },
			 &(struct bench_cmp_opts){}, &c, why, size);
	if (ret)
		return ret;
	rows = jp_get(set->doc[0], "rows");
	cal->rows = calloc(rows->n + 1, sizeof(*cal->rows));
	s = malloc(sizeof(*s));
	if (!cal->rows || !s) {
		free(s);
		return -ENOMEM;
	}
	for (i = 0; i < rows->n; i++) {
		struct bench_cal_row *r = &cal->rows[cal->n++];
		const char *v = NULL;

		r->name = jp_str(&rows->kid[i], "name", "");
		ret = gather(set, 0, r->name, s, who, sizeof(who), &v);
		if (ret)
			break;
		r->runs = s->n;
		r->raw_tau2 = st_tau2(s->raw, s->vraw, s->n, &r->raw_i2);
		r->base_tau2 = st_tau2(s->base, s->vbase, s->n, &r->base_i2);
		if (v) /* an INVALID or generator-bound run: no figure */
			r->raw_tau2 = r->base_tau2 = NAN;
		r->ns = st_median(s->ns, s->n);
		r->flagged = isnan(s->base[0]) ?
				     disagree(s->raw, s->vraw, s->run, s->n) :
				     disagree(s->base, s->vbase, s->run, s->n);
	}
	cal->df = set->n - 1;
	free(s);
	return ret;
}
