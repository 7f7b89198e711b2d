// SPDX-License-Identifier: GPL-2.0
/*
 * --profile: each row's time per packet split into the functions its
 * samples were in (self samples x period / packets the row processed in
 * the profiled windows), per round, and against its baseline's, paired
 * per round with a bootstrap interval. The profiled windows are not the
 * timed ones: sampling costs a little (prof_over says how much).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "path.h"
#include "profile.h"

#define BOOT_SEED 0x9e3779b9u /* the intervals reproduce */

/* A function's ns per packet in one profiled visit; 0 if not sampled. */
static double fn_ns(const struct bench_fns *t, const char *name)
{
	const struct bench_fn *f = bench_fn_find(t, name);

	return f && t->packets ?
		       (double)f->self * t->period_ns / t->packets :
		       0;
}

static const struct bench_prof *prof_of(const struct bench_row *r, int round)
{
	int i;

	for (i = 0; i < r->nprof; i++)
		if (r->prof[i].round == round && r->prof[i].t.packets)
			return &r->prof[i];
	return NULL;
}

/* Whether name is one of the functions path declares it runs. */
static bool on_path(const char *path, const char *name)
{
	const char *g, *alt;
	size_t len, alen;

	while (bench_path_group(&path, &g, &len))
		while (*g != '!' && bench_path_alt(&g, &len, &alt, &alen))
			if (bench_path_match(alt, alen, name))
				return true;
	return false;
}

static int by_ns(const void *a, const void *b)
{
	const struct bench_prof_fn *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

/*
 * The names in r's and base's profiled visits, each once: the rows' own
 * strings, which last as long as their profiles.
 */
static int names(const struct bench_row *r, const struct bench_row *base,
		 const char ***out)
{
	const struct bench_row *rows[2] = { r, base };
	struct bench_fns set = {};
	const char **v;
	int n = 0, max = 0, w, i;
	__u32 k;

	for (w = 0; w < 2; w++)
		for (i = 0; rows[w] && i < rows[w]->nprof; i++)
			max += rows[w]->prof[i].t.n;
	v = calloc(max + 1, sizeof(*v));
	if (!v)
		return -1;
	for (w = 0; w < 2; w++)
		for (i = 0; rows[w] && i < rows[w]->nprof; i++) {
			const struct bench_fns *t = &rows[w]->prof[i].t;

			for (k = 0; k < t->cap; k++) {
				__u32 was = set.n;

				if (!t->fn[k].name)
					continue;
				if (!bench_fn_get(&set, t->fn[k].name)) {
					bench_fns_free(&set);
					free(v);
					return -1;
				}
				if (set.n > was)
					v[n++] = t->fn[k].name;
			}
		}
	bench_fns_free(&set);
	*out = v;
	return n;
}

static void row_profile(const struct bench_rows *rows, struct bench_row *r)
{
	const struct bench_row *base =
		r->base >= 0 && r->base != r - rows->row ? &rows->row[r->base] :
							   NULL;
	double *x = calloc(r->nprof + 1, sizeof(*x)),
	       *d = calloc(r->nprof + 1, sizeof(*d)),
	       *timed = calloc(r->nprof + 1, sizeof(*timed)),
	       *clock = calloc(r->nprof + 1, sizeof(*clock));
	const char **v = NULL;
	int n = names(r, base, &v), i, k, nx, nd;

	r->prof_ns = r->prof_over = r->prof_timed = r->prof_clock = NAN;
	if (!x || !d || !timed || !clock || n < 0)
		goto out;
	r->pfn = calloc(n + 1, sizeof(*r->pfn));
	if (!r->pfn)
		goto out;
	for (i = 0; i < n; i++) {
		struct bench_prof_fn *f = &r->pfn[r->npfn];

		for (k = nx = nd = 0; k < r->nprof; k++) {
			const struct bench_prof *p = &r->prof[k], *q;

			if (!p->t.packets)
				continue;
			x[nx] = fn_ns(&p->t, v[i]);
			q = base ? prof_of(base, p->round) : NULL;
			if (q)
				d[nd++] = x[nx] - fn_ns(&q->t, v[i]);
			nx++;
		}
		f->name = v[i];
		f->ns = nx ? st_median(x, nx) : NAN;
		f->delta = (struct st_est){ NAN, NAN, NAN };
		if (nd)
			st_boot(d, nd, NULL, 0, BENCH_LEVEL, BOOT_SEED, &f->delta);
		f->path = on_path(r->path, v[i]);
		r->npfn++;
	}
	qsort(r->pfn, r->npfn, sizeof(*r->pfn), by_ns);
	/* The whole profile, and what sampling added to the windows' cost. */
	for (k = nx = nd = 0; k < r->nprof; k++) {
		const struct bench_fns *t = &r->prof[k].t;
		int j;

		if (!t->packets)
			continue;
		clock[nx] = t->cpu_ns / t->packets;
		x[nx++] =
			(double)t->samples * t->period_ns / t->packets;
		for (j = 0; j < r->nrd; j++)
			if (r->rd[j].round == r->prof[k].round &&
			    r->rd[j].pkt_ns_loaded > 0 && t->cpu_ns > 0) {
				d[nd] = t->cpu_ns / t->packets /
					r->rd[j].pkt_ns_loaded;
				timed[nd++] = r->rd[j].pkt_ns_loaded;
			}
	}
	r->prof_ns = nx ? st_median(x, nx) : NAN;
	r->prof_over = nd ? st_median(d, nd) - 1 : NAN;
	r->prof_timed = nd ? st_median(timed, nd) : NAN;
	r->prof_clock = nx ? st_median(clock, nx) : NAN;
out:
	free(v);
	free(x);
	free(d);
	free(timed);
	free(clock);
}

void bench_profile_summarize(struct bench_rows *rows)
{
	int i;

	for (i = 0; i < rows->n; i++) {
		free(rows->row[i].pfn);
		rows->row[i].pfn = NULL;
		rows->row[i].npfn = 0;
	}
	for (i = 0; i < rows->n; i++)
		if (rows->row[i].nprof)
			row_profile(rows, &rows->row[i]);
}

void bench_profile_free(struct bench_row *r)
{
	int i;

	for (i = 0; i < r->nprof; i++)
		bench_fns_free(&r->prof[i].t);
	free(r->prof);
	free(r->pfn);
	r->prof = NULL;
	r->pfn = NULL;
	r->nprof = r->npfn = 0;
}

/* perf's control channel: a command, then perf's "ack" if it sends one. */
int bench_perf(const struct bench_watch *w, const char *cmd)
{
	struct pollfd p = { .fd = w->perf_ack, .events = POLLIN };
	char ack[16];
	int n;

	if (w->perf_fd < 0)
		return 0;
	if (write(w->perf_fd, cmd, strlen(cmd)) < 0)
		return -errno;
	if (w->perf_ack < 0)
		return 0;
	do
		n = poll(&p, 1, 5000);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	return read(w->perf_ack, ack, sizeof(ack)) > 0 ? 0 : -EIO;
}

int bench_watch(struct bench_watch *w, bool on)
{
	if (w->smp)
		return hc_sampler_enable(w->smp, on);
	return bench_perf(w, on ? "enable\n" : "disable\n");
}
