// SPDX-License-Identifier: GPL-2.0
/*
 * The measurement: one unmeasured warm-up round, then rounds in which
 * every row runs once, in order.c's order. A row's hook is put in
 * place before its timed window and taken away after it; the window holds
 * only the generator's call. Every window is accounted for: generated =
 * seen at the hook (forward: at the sink) + dropped before it (+ forward:
 * dropped at the DUT), or the row is INVALID.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bench.h"
#include "env.h"
#include "path.h"
#include "plan.h"
#include "row.h"
#include "run.h"
#include "summary.h"
#include "topo.h"
#include "variant.h"
#include "stats.h"

static int record(struct bench_row *r, struct bench_round *rd)
{
	if (r->nrd == r->cap) {
		int cap = r->cap ? 2 * r->cap : 16;
		void *p = realloc(r->rd, cap * sizeof(*r->rd));

		if (!p) {
			bench_round_free(rd);
			return -ENOMEM;
		}
		r->rd = p;
		r->cap = cap;
	}
	r->rd[r->nrd++] = *rd;
	return 0;
}

/*
 * Every frame sent is seen at the hook or dropped before it: exactly,
 * with our own generator, else the row is INVALID; on a given device
 * within 0.1% by its counters, else the row is unverified.
 */
static void account(const struct bench_net *net, struct bench_row *r,
		    struct bench_round *rd)
{
	char why[sizeof(r->reason)];
	int ret = -1;

	if (net->topo->exact)
		bench_round_check(r, rd, why, sizeof(why));
	else
		ret = bench_round_device(r, rd, net->dut_name, why,
					 sizeof(why));
	if (!why[0])
		return;
	if (ret < 0) {
		bench_row_invalid(r, "%s", why);
		return;
	}
	rd->unverified = true;
	if (!r->unverified[0])
		snprintf(r->unverified, sizeof(r->unverified), "%s", why);
}

/*
 * After the warm-up, every row's windows one size: about BENCH_WINDOW_SECS
 * of the slowest row by the wall clock, short enough to fit between the
 * host's slow spells, long enough that reading the clocks costs nothing
 * next to them. One size, because a window's cost a packet depends on
 * its exact count: on veth, windows of 11,152 and 11,191 packets of the
 * same frames differ by up to 5%, a multiple of 16 (the bulk queue's)
 * settling in one state where others flip between two (doc/results.md).
 * A row's delta, gen-only's included, is then between windows alike.
 * plan.c sets them, unless the options or --plan said.
 */
static void size_windows(struct bench_rows *rows, const struct bench_opts *o,
			 const struct bench_round *acc)
{
	double n = 0, k;
	int i;

	for (i = 0; i < rows->n; i++) {
		if (rows->row[i].dead || rows->row[i].kind->generator ||
		    !(acc[i].secs > 0))
			continue;
		k = BENCH_WINDOW_SECS * acc[i].generated / acc[i].secs;
		if (k > 0 && (!n || k < n))
			n = k;
	}
	bench_window_calibrate(rows, o, n);
}

/*
 * A failed --setup leaves the row's round out (its other visits' too:
 * finish() takes only rounds of every visit), saying why the first time.
 */
static void variant_failed(struct bench_row *r, int round, int ret,
			   const struct hc_err *err)
{
	if (r->variant_round == round)
		return;
	r->variant_round = round;
	r->variant_failed++;
	if (!r->variant_why[0])
		snprintf(r->variant_why, sizeof(r->variant_why),
			 "round %d: %s", round,
			 err->msg[0] ? err->msg : strerror(-ret));
}

/*
 * The row's --undo: failing, it ends the run (exit 1), what it was to
 * undo perhaps still in place.
 */
static int undo(struct bench *b, struct bench_row *r, int round,
		bench_settings before, struct hc_err *err)
{
	struct hc_err e = {};
	int ret = bench_variant_step(b, r, round, before, true, &e);

	if (ret == -ENOTRECOVERABLE)
		hc_err_set(err, "%s, round %d: %s; put it back yourself",
			   r->name, round, e.msg);
	else if (ret)
		hc_err_set(
			err,
			"%s, round %d: %s; what its --setup did may remain in %s's namespace",
			r->name, round, e.msg, b->net.dut_name);
	return ret;
}

/*
 * A visit's windows and counts into its row's round so far; the costs
 * are the windows' of all its visits.
 */
static int merge(const struct bench_opts *o, const struct bench_env *env,
		 const struct bench_row *r, struct bench_round *acc,
		 struct bench_round *v)
{
	double secs = acc->secs;
	int k = acc->visits, i;
	void *p;

	if (!k) {
		*acc = *v;
		acc->visits = 1;
		return 0;
	}
	p = realloc(acc->win, (acc->nwin + v->nwin + 1) * sizeof(*acc->win));
	if (!p) {
		bench_round_free(v);
		return -ENOMEM;
	}
	acc->win = p;
	memcpy(acc->win + acc->nwin, v->win, v->nwin * sizeof(*v->win));
	acc->nwin += v->nwin;
	acc->generated += v->generated;
	acc->seen += v->seen;
	acc->dropped_before += v->dropped_before;
	acc->ring_full += v->ring_full;
	acc->fill_empty += v->fill_empty;
	acc->dropped_dut += v->dropped_dut;
	acc->passed += v->passed;
	acc->gen_cpu_ns += v->gen_cpu_ns;
	acc->nexcluded += v->nexcluded;
	if (!acc->excluded[0])
		memcpy(acc->excluded, v->excluded, sizeof(acc->excluded));
	acc->whole &= v->whole;
	acc->setup_ms = (acc->setup_ms * k + v->setup_ms) / (k + 1);
	acc->teardown_ms = (acc->teardown_ms * k + v->teardown_ms) / (k + 1);
	acc->visits++;
	bench_round_costs(o, env, r, acc);
	/* Per-CPU rates over the visits' time together. */
	for (i = 0; acc->cpu_mpps && v->cpu_mpps && i < env->ncpu; i++)
		acc->cpu_mpps[i] = (acc->cpu_mpps[i] * secs +
				    v->cpu_mpps[i] * v->secs) /
				   acc->secs;
	bench_round_free(v);
	return 0;
}

/*
 * One row's visit in a round; fails only for what ends the whole bench.
 * With sampled, a sampled visit (path.c) into it, not a timed round.
 */
static int visit(struct bench *b, struct bench_row *r, int round, int pos,
		 struct bench_round *acc, struct bench_fns *sampled,
		 struct hc_err *err)
{
	struct bench_round rd = { .round = round, .order = pos, .ns = NAN };
	bool perf = round > 0 && r == &b->rows.row[b->watch.perf_idx];
	struct hc_err rerr = {}, verr = {};
	int ret = 0, rret, vret = 0;
	bench_settings before;
	double t;

	bench_window_first(&b->opt, r);
	t = hc_now();
	rret = hc_fault(&rerr, "bench-row") ?: r->kind->setup(b, r, &rerr);
	if (!rret && r->variant)
		vret = bench_variant_step(b, r, round, before, false, &verr);
	rd.setup_ms = (hc_now() - t) * 1e3;
	/* What the setup (or anyone) changed that the window would not count. */
	if (!rret && !vret && b->net.topo->scope)
		b->net.topo->scope(b, r, &rerr);
	if (!rret && !vret && !r->dead)
		ret = sampled ? bench_sampled(b, r, &rd, sampled,
					      round ? 1 : BENCH_PATH_SAMPLES,
					      err) :
				b->net.topo->measure(b, r, &rd, perf, err);
	t = hc_now();
	/*
	 * Its --undo even after a failed --setup, which may have done half;
	 * failing then, it adds to the setup's why and ends the run too.
	 */
	if (!rret && r->variant) {
		struct hc_err uerr = {};
		int uret = undo(b, r, round, before, &uerr);
		size_t n = strlen(verr.msg);

		if (uret && vret)
			snprintf(verr.msg + n, sizeof(verr.msg) - n,
				 "; then its --undo failed too");
		if (uret && !ret) {
			*err = uerr;
			ret = uret;
		}
	}
	r->kind->teardown(b, r);
	rd.teardown_ms = (hc_now() - t) * 1e3;
	if (rret)
		bench_row_fail(r, "setup", rret, &rerr);
	if (vret)
		variant_failed(r, round, vret, &verr);
	/* A sampled visit is no round; one whose --setup failed counts none. */
	if (sampled || vret) {
		bench_round_free(&rd);
		return ret;
	}
	if (ret || r->dead) {
		bench_round_free(&rd);
		return ret;
	}
	return merge(&b->opt, &b->env, r, acc, &rd);
}

/*
 * The row's round after its visits. The warm-up is not measured; an
 * interrupted window is not whole.
 */
static int finish(const struct bench_opts *o, const struct bench_net *net,
		  struct bench_row *r, struct bench_round *rd)
{
	int ret = 0;

	if (rd->visits == (int)o->visits && !r->dead && rd->round &&
	    rd->whole) {
		account(net, r, rd);
		ret = record(r, rd);
	} else {
		bench_round_free(rd);
	}
	memset(rd, 0, sizeof(*rd));
	return ret;
}

/*
 * Visit v of a round: the rows in the round's order, then in reverse,
 * and so on (ABBA), so that each row's windows fall early and late.
 */
static int visits(struct bench *b, const int *order, int round,
		  struct bench_round *acc, struct hc_err *err)
{
	int v, i, ret = 0;

	for (v = 0; v < (int)b->opt.visits && !hc_stop_sig; v++) {
		b->visit.windows = b->opt.windows / b->opt.visits +
				   (v < (int)(b->opt.windows % b->opt.visits));
		for (i = 0; i < b->rows.n && !hc_stop_sig; i++) {
			int k = v % 2 ? order[b->rows.n - 1 - i] : order[i];

			if (b->rows.row[k].dead)
				continue;
			ret = visit(b, &b->rows.row[k], round, i, &acc[k], NULL,
				    err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The widest delta interval's half-width, as a percent of its row's own
 * cost (a ratio's would be of a small denominator), and its row.
 */
static double widest(const struct bench_rows *rows, const char **name)
{
	double w = 0;
	int i;

	*name = "-";
	for (i = 0; i < rows->n; i++) {
		const struct bench_row *r = &rows->row[i];
		double h =
			st_halfwidth_pct(&r->sum.base.delta, r->sum.ns.median);

		if (r->reason[0])
			continue;
		/* Too few rounds with a cost: more rounds may give it one. */
		if (r->sum.unusable[0]) {
			*name = r->name;
			return INFINITY;
		}
		if (r->base == i || isnan(r->sum.base.delta.median))
			continue;
		/* Too few rounds for an interval: none is narrow enough. */
		if (isnan(h)) {
			*name = r->name;
			return INFINITY;
		}
		if (h > w) {
			w = h;
			*name = r->name;
		}
	}
	return w;
}

/* ", ~1m12s left": the rounds to go at the rounds so far's pace. */
static const char *left(char *buf, size_t size, double secs)
{
	long s;

	secs = secs > 0 ? secs : 0;
	s = lround(secs);
	if (secs < 9.95)
		snprintf(buf, size, "%.1fs", secs);
	else if (s >= 3600)
		snprintf(buf, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, size, "%lds", s);
	return buf;
}

/*
 * Whether the rounds so far are enough: with --target-ci, the target met
 * on ST_STOP_CHECKS checks in a row, not once (statistics.h), or
 * --max-rounds or --max-time (total: seconds since the first measured
 * round began) spent.
 */
static bool done(struct bench *b, int round, double secs, double total)
{
	double w, pace = total / round, bound;
	const char *row;
	char buf[32];

	if (!b->opt.target_ci) {
		fprintf(stderr, "round %d/%u: %.1f s", round, b->opt.rounds,
			secs);
		if (round < (int)b->opt.rounds)
			fprintf(stderr, ", ~%s left",
				left(buf, sizeof(buf),
				     pace * (b->opt.rounds - round)));
		fputc('\n', stderr);
		return round >= (int)b->opt.rounds;
	}
	/* --target-ci may stop sooner: the time to its bounds */
	bound = pace * ((int)b->opt.max_rounds - round);
	if (b->opt.max_time && b->opt.max_time - total < bound)
		bound = b->opt.max_time - total;
	if (round < (int)b->opt.rounds) {
		fprintf(stderr, "round %d: %.1f s, at most ~%s left\n", round,
			secs, left(buf, sizeof(buf), bound));
		return false;
	}
	bench_summarize(b);
	w = widest(&b->rows, &row);
	b->res.widest_pct = w;
	b->res.widest_row = row;
	b->res.target_reached =
		st_stop_check(&b->res.stop, w, b->opt.target_ci);
	fprintf(stderr,
		"round %d: %.1f s, widest delta interval +-%.2f%% of its row's cost (%s), target met %d/%d, at most ~%s left\n",
		round, secs, w, row, b->res.stop.met, ST_STOP_CHECKS,
		left(buf, sizeof(buf), bound));
	return b->res.target_reached || round >= (int)b->opt.max_rounds ||
	       (b->opt.max_time && total >= b->opt.max_time);
}

/*
 * After the warm-up, every row's path check (path.c); with --profile,
 * after each round's timed visits, every row's profiled visit.
 */
static int sampled_pass(struct bench *b, const int *order, int round,
			struct hc_err *err)
{
	int i, ret = 0, stats = -1;

	/*
	 * The path check's pass: a bare program is too short to show in
	 * samples, but the kernel counts its runs while stats are on (not in
	 * profiled windows: counting costs two clock reads a run).
	 */
	if (!round) {
		stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
		b->visit.bpf_stats = stats >= 0;
		b->visit.path_pass = true;
	}
	b->visit.windows = b->opt.windows;
	for (i = 0; i < b->rows.n && !ret && !hc_stop_sig; i++) {
		struct bench_row *r = &b->rows.row[order[i]];
		struct bench_fns t = {};
		struct bench_prof *p;

		if (r->dead) {
			if (!round)
				snprintf(r->path_check.why,
					 sizeof(r->path_check.why), "%s",
					 "the row did not run");
			continue;
		}
		ret = visit(b, r, round, i, NULL, &t, err);
		if (!round) {
			bench_path_row(&b->watch, r, &t);
			bench_fns_free(&t);
			continue;
		}
		p = realloc(r->prof, (r->nprof + 1) * sizeof(*r->prof));
		if (!p) {
			bench_fns_free(&t);
			ret = -ENOMEM;
			break;
		}
		r->prof = p;
		r->prof[r->nprof++] = (struct bench_prof){ round, t };
	}
	if (stats >= 0)
		close(stats);
	b->visit.bpf_stats = b->visit.path_pass = false;
	return ret;
}

int bench_run(struct bench *b, struct hc_err *err)
{
	struct bench_round acc[BENCH_MAX_ROWS + 1] = {};
	int order[BENCH_MAX_ROWS];
	struct bench_order ord;
	int round, i, ret, fret;
	double t, t1 = 0;

	ret = b->net.topo->scope ? b->net.topo->scope(b, NULL, err) : 0;
	if (ret)
		return ret;
	for (i = 0; b->opt.no_path && i < b->rows.n; i++)
		snprintf(b->rows.row[i].path_check.why,
			 sizeof(b->rows.row[i].path_check.why),
			 "--no-path-check");
	bench_order_init(&ord, b->rows.n, b->opt.seed);
	for (round = 0; !hc_stop_sig; round++) {
		t = hc_now();
		bench_order_next(&ord, order);
		ret = visits(b, order, round, acc, err);
		if (!round && !ret) {
			size_windows(&b->rows, &b->opt, acc);
			ret = bench_path_reload(&b->watch, &b->opt);
		}
		for (i = 0; i < b->rows.n; i++) {
			fret = finish(&b->opt, &b->net, &b->rows.row[i],
				      &acc[i]);
			ret = ret ?: fret;
		}
		if (ret)
			return ret;
		if (hc_stop_sig)
			break;
		if (round ? b->opt.profile : !b->opt.no_path)
			ret = sampled_pass(b, order, round, err);
		if (ret)
			return ret;
		if (!round) {
			fprintf(stderr, "warm-up round: %.1f s\n",
				hc_now() - t);
			t1 = hc_now();
			continue;
		}
		b->res.nrounds = round;
		bench_env_watch(b, round);
		if (done(b, round, hc_now() - t, hc_now() - t1))
			break;
	}
	return 0;
}
