// SPDX-License-Identifier: GPL-2.0
/*
 * bench compare: two bench documents, row by row. A row's change is
 * median(NEW's per-round costs) / median(OLD's), and against its
 * baseline the same of its per-round ratios to the baseline's round
 * (paired within each run), which cancels what moved the whole machine
 * between the runs (two boots are never equally fast). Each run's
 * rounds are resampled apart: a percentile-bootstrap 95% interval. The
 * verdict takes the baseline's change where the row has a baseline.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

#define CMP_SEED 0x5eed5eedull /* default: the same runs, the same intervals */

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

/*
 * A row's per-round costs, by round number (NaN: none), into v of max;
 * or with base, its ratio to base's in the same round. How many.
 */
static int costs(const struct jp *row, const struct jp *base, double *v,
		 int max)
{
	const struct jp *rd = jp_get(row, "rounds"),
			*brd = jp_get(base, "rounds");
	int i, k, n = 0;

	for (i = 0; rd && rd->type == JP_ARR && i < rd->n && n < max; i++) {
		double ns = jp_num(&rd->kid[i], "ns", NAN), b = NAN;
		double round = jp_num(&rd->kid[i], "round", NAN);

		if (isnan(ns))
			continue;
		if (!base) {
			v[n++] = ns;
			continue;
		}
		for (k = 0; brd && brd->type == JP_ARR && k < brd->n; k++)
			if (jp_num(&brd->kid[k], "round", NAN) == round)
				b = jp_num(&brd->kid[k], "ns", NAN);
		if (b > 0)
			v[n++] = ns / b;
	}
	return n;
}

/* The verdict of a change's interval: it holds 1, or is above or below. */
static const char *verdict(const struct st_est *e)
{
	if (isnan(e->lo))
		return "n/a";
	return e->lo > 1 ? "slower" : e->hi < 1 ? "faster" : "same";
}

/* What two runs must share to be compared: "" when they do. */
static void mismatch(const struct jp *a, const struct jp *b, char *why,
		     size_t size)
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
			snprintf(why, size, "OLD's %s is %s, NEW's is %s",
				 keys[i], x, y);
			return;
		}
	}
	for (i = 0; rows && rows->type == JP_ARR && i < (unsigned int)rows->n;
	     i++) {
		const char *name = jp_str(&rows->kid[i], "name", "");
		const struct jp *o = row_of(b, name);
		double x = jp_num(&rows->kid[i], "frame_bytes", NAN),
		       y = o ? jp_num(o, "frame_bytes", NAN) : x;

		if (x != y && !(isnan(x) && isnan(y))) {
			snprintf(why, size,
				 "row %s: OLD's frames are %g bytes, NEW's %g",
				 name, x, y);
			return;
		}
	}
}

static bool is_bench(const struct jp *doc)
{
	const struct jp *rows = jp_get(doc, "rows");

	return !strcmp(jp_str(doc, "type", ""), "bench") && rows &&
	       rows->type == JP_ARR;
}

/* One row present in both runs. */
static int compare_row(const struct jp *o, const struct jp *n,
		       const struct jp *od, const struct jp *nd,
		       const struct bench_cmp_opts *opts,
		       struct bench_cmp_row *c)
{
	const char *base = jp_str(o, "baseline", NULL);
	int cap = 0, nx, ny, ret = 0;
	const struct jp *rd;
	double *x, *y;

	c->change = c->vs_base = (struct st_est){ NAN, NAN, NAN };
	c->old_ns = c->new_ns = c->mde_pct = NAN;
	rd = jp_get(o, "rounds");
	cap += rd ? rd->n : 0;
	rd = jp_get(n, "rounds");
	cap += rd ? rd->n : 0;
	x = calloc(cap + 1, sizeof(*x));
	y = calloc(cap + 1, sizeof(*y));
	if (!x || !y) {
		ret = -ENOMEM;
		goto out;
	}
	if (!strcmp(jp_str(o, "status", ""), "invalid") ||
	    !strcmp(jp_str(n, "status", ""), "invalid")) {
		bool old = !strcmp(jp_str(o, "status", ""), "invalid");

		c->verdict = "invalid";
		snprintf(c->why, sizeof(c->why), "%s: %s", old ? "OLD" : "NEW",
			 jp_str(old ? o : n, "reason", "INVALID"));
		goto out;
	}
	nx = costs(o, NULL, x, cap);
	ny = costs(n, NULL, y, cap);
	c->old_ns = nx ? st_median(x, nx) : NAN;
	c->new_ns = ny ? st_median(y, ny) : NAN;
	if (nx && ny)
		st_boot(x, nx, y, ny, BENCH_LEVEL, opts->seed, &c->change);
	c->has_base = base && strcmp(base, c->name) && row_of(od, base) &&
		      row_of(nd, base);
	if (c->has_base) {
		nx = costs(o, row_of(od, base), x, cap);
		ny = costs(n, row_of(nd, base), y, cap);
		if (nx && ny)
			st_boot(x, nx, y, ny, BENCH_LEVEL, opts->seed,
				&c->vs_base);
	}
	c->decided = c->has_base ? &c->vs_base : &c->change;
	c->verdict = verdict(c->decided);
	/* A change past half the interval's width would leave 1 outside it. */
	c->mde_pct = (c->decided->hi - c->decided->lo) / 2 * 100;
	if (!strcmp(c->verdict, "n/a"))
		snprintf(
			c->why, sizeof(c->why),
			"fewer than %d rounds with a cost in a run: no interval",
			ST_BOOT_MIN);
out:
	free(x);
	free(y);
	return ret;
}

int bench_compare(const struct jp *od, const struct jp *nd,
		  const struct bench_cmp_opts *opts, struct bench_cmp *c,
		  char *why, size_t size)
{
	const struct jp *rows[2] = { jp_get(od, "rows"), jp_get(nd, "rows") };
	int i, w, ret;

	memset(c, 0, sizeof(*c));
	if (!is_bench(od) || !is_bench(nd)) {
		snprintf(
			why, size,
			"%s is not a bench document (\"type\": \"bench\", with rows)",
			is_bench(od) ? "NEW" : "OLD");
		return -EINVAL;
	}
	mismatch(od, nd, c->mismatch, sizeof(c->mismatch));
	if (c->mismatch[0] && !opts->allow_mismatch) {
		snprintf(why, size, "%s; --allow-mismatch compares them anyway",
			 c->mismatch);
		return -EXDEV;
	}
	c->rows = calloc(rows[0]->n + rows[1]->n + 1, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	/* OLD's rows in its order, then those only NEW has. */
	for (w = 0; w < 2; w++)
		for (i = 0; i < rows[w]->n; i++) {
			const struct jp *r = &rows[w]->kid[i];
			const char *name = jp_str(r, "name", "");
			const struct jp *other = row_of(w ? od : nd, name);
			struct bench_cmp_row *cr = &c->rows[c->n];

			if (w && other)
				continue;
			c->n++;
			cr->name = name;
			if (!other) {
				cr->verdict = w ? "new only" : "old only";
				cr->change = cr->vs_base =
					(struct st_est){ NAN, NAN, NAN };
				cr->old_ns = cr->new_ns = cr->mde_pct = NAN;
				cr->decided = &cr->change;
				continue;
			}
			ret = compare_row(r, other, od, nd, opts, cr);
			if (ret)
				return ret;
			/*
			 * Only a change against a baseline fails: a row's
			 * raw change (the baselines', the generator's) moves
			 * with the machine as much as with a patch.
			 */
			if (!strcmp(cr->verdict, "slower") && opts->threshold &&
			    cr->has_base &&
			    cr->decided->lo > 1 + opts->threshold / 100)
				c->regressed++;
		}
	return 0;
}

void bench_compare_free(struct bench_cmp *c)
{
	free(c->rows);
	c->rows = NULL;
	c->n = 0;
}
