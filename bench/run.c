// SPDX-License-Identifier: GPL-2.0
/*
 * The measurement: one unmeasured warm-up round, then rounds in which
 * every row runs once, in the planner's order. A row's hook is put in
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
#include "bench.h"
#include "stats.h"

/* perf's control channel: a command, then perf's "ack" if it sends one. */
int bench_perf(struct bench *b, const char *cmd)
{
	struct pollfd p = { .fd = b->perf_ack, .events = POLLIN };
	char ack[16];
	int n;

	if (b->perf_fd < 0)
		return 0;
	if (write(b->perf_fd, cmd, strlen(cmd)) < 0)
		return -errno;
	if (b->perf_ack < 0)
		return 0;
	do
		n = poll(&p, 1, 5000);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	return read(b->perf_ack, ack, sizeof(ack)) > 0 ? 0 : -EIO;
}

static void invalid(char *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void invalid(char *reason, const char *fmt, ...)
{
	va_list ap;

	if (reason[0])
		return; /* the first reason is the one to fix */
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(((struct bench_row *)0)->reason), fmt, ap);
	va_end(ap);
}

void bench_row_invalid(struct bench_row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->reason[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

void bench_row_fail(struct bench_row *r, const char *step, int ret,
		    const struct hc_err *err)
{
	invalid(r->reason, "%s: %s%s%s%s%s", step, err->msg,
		err->msg[0] && ret ? ": " : "", ret ? strerror(-ret) : "",
		err->kernel[0] ? ". Kernel: " : "", err->kernel);
	r->dead = true;
}

void bench_round_free(struct bench_round *rd)
{
	free(rd->ethtool);
	free(rd->cpu_mpps);
	free(rd->samples);
	rd->ethtool = NULL;
	rd->cpu_mpps = NULL;
	rd->samples = NULL;
}

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
static void account(struct bench *b, struct bench_row *r,
		    struct bench_round *rd)
{
	char why[200];
	int ret = -1;

	if (b->topo->exact)
		bench_round_check(r, rd, why, sizeof(why));
	else
		ret = bench_round_device(r, rd, why, sizeof(why));
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

/* One row in one round; fails only for what ends the whole bench. */
static int window(struct bench *b, struct bench_row *r, int round, int pos,
		  struct hc_err *err)
{
	struct bench_round rd = { .round = round, .order = pos, .ns = NAN };
	bool perf = round > 0 && r == &b->rows[b->perf_idx];
	struct hc_err rerr = {};
	double t;
	int ret = 0, rret;

	t = hc_now();
	rret = hc_fault(&rerr, "bench-row") ?: r->kind->setup(b, r, &rerr);
	rd.setup_ms = (hc_now() - t) * 1e3;
	if (!rret)
		ret = b->topo->measure(b, r, &rd, perf, err);
	t = hc_now();
	r->kind->teardown(b, r);
	rd.teardown_ms = (hc_now() - t) * 1e3;
	if (rret)
		bench_row_fail(r, "setup", rret, &rerr);
	/* The warm-up is not measured; an interrupted window is not whole. */
	if (ret || r->dead || !round || !rd.whole) {
		bench_round_free(&rd);
		return ret;
	}
	account(b, r, &rd);
	return record(r, &rd);
}

/* The widest ratio interval, as a percent of its median, and its row. */
static double widest(const struct bench *b, const char **name)
{
	double w = 0;
	int i;

	*name = "-";
	for (i = 0; i < b->nrows; i++) {
		const struct bench_row *r = &b->rows[i];
		double h = st_halfwidth_pct(&r->sum.ratio);

		if (r->reason[0] || isnan(r->sum.ratio.median))
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

/* Whether the rounds so far are enough. */
static bool done(struct bench *b, int round, double secs)
{
	const char *row;
	double w;

	if (!b->target_ci) {
		fprintf(stderr, "round %d/%u: %.1f s\n", round, b->rounds,
			secs);
		return round >= (int)b->rounds;
	}
	if (round < (int)b->rounds) {
		fprintf(stderr, "round %d: %.1f s\n", round, secs);
		return false;
	}
	bench_summarize(b);
	w = widest(b, &row);
	fprintf(stderr,
		"round %d: %.1f s, widest ratio interval +-%.2f%% (%s)\n",
		round, secs, w, row);
	b->target_reached = w <= b->target_ci;
	return b->target_reached || round >= (int)b->max_rounds;
}

int bench_run(struct bench *b, struct hc_err *err)
{
	int order[BENCH_MAX_ROWS];
	struct bench_plan plan;
	int round, i, ret;
	double t;

	bench_plan_init(&plan, b->nrows, b->seed);
	for (round = 0; !hc_stop_sig; round++) {
		t = hc_now();
		bench_plan_next(&plan, order);
		for (i = 0; i < b->nrows && !hc_stop_sig; i++) {
			struct bench_row *r = &b->rows[order[i]];

			if (r->dead)
				continue;
			ret = window(b, r, round, i, err);
			if (ret)
				return ret;
		}
		if (hc_stop_sig)
			break;
		if (!round) {
			fprintf(stderr, "warm-up round: %.1f s\n",
				hc_now() - t);
			continue;
		}
		b->nrounds = round;
		if (done(b, round, hc_now() - t))
			break;
	}
	return 0;
}
