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

static int frame_for(struct bench *b, const struct bench_row *r)
{
	static const __u8 other[6] = { 2, 0, 0, 0, 0, 2 };
	struct hc_pkt_spec spec = b->spec;

	if (b->frame_size == r->size && b->frame_local == r->local)
		return 0;
	spec.size = r->size;
	memcpy(spec.dst_mac, r->local ? b->dut_mac : other, 6);
	b->frame_size = r->size;
	b->frame_local = r->local;
	return hc_gen_set_frame(&b->gen, &spec);
}

/* perf's control channel: a command, then perf's "ack" if it sends one. */
static int perf_cmd(struct bench *b, const char *cmd)
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

/* dropped: the veth's TX drops, and what the hook's own rings dropped. */
static int read_all(struct bench *b, struct bench_row *r, struct bench_count *c,
		    __u64 *dropped)
{
	int ret;

	*c = (struct bench_count){};
	ret = r->kind->read(b, r, c) ?: bench_gen_tx_dropped(b, dropped);
	*dropped += c->dropped;
	return ret;
}

static void invalid(struct bench_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void invalid(struct bench_row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->reason[0])
		return; /* the first reason is the one to fix */
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

static void invalid_err(struct bench_row *r, const char *step, int ret,
			const struct hc_err *err)
{
	invalid(r, "%s: %s%s%s%s%s", step, err->msg, err->msg[0] ? ": " : "",
		strerror(-ret), err->kernel[0] ? ". Kernel: " : "",
		err->kernel);
}

static int record(struct bench_row *r, const struct bench_round *rd)
{
	if (r->nrd == r->cap) {
		int cap = r->cap ? 2 * r->cap : 16;
		void *p = realloc(r->rd, cap * sizeof(*r->rd));

		if (!p)
			return -ENOMEM;
		r->rd = p;
		r->cap = cap;
	}
	r->rd[r->nrd++] = *rd;
	return 0;
}

/* Waits for the DUT to drain its ring: until it adds up, or half a second. */
static int drain(struct bench *b, struct bench_row *r, struct bench_round *rd,
		 const struct bench_count *c0, __u64 d0)
{
	struct bench_count c1;
	useconds_t wait;
	__u64 d1;
	int ret = 0;

	for (wait = 1000; wait <= 256000; wait *= 2) {
		usleep(wait);
		ret = read_all(b, r, &c1, &d1);
		if (ret)
			break;
		rd->seen = c1.seen - c0->seen;
		rd->dropped_before = d1 - d0;
		rd->dropped_dut = c1.dropped_dut - c0->dropped_dut;
		rd->passed = c1.passed - c0->passed;
		if (bench_round_accounted(r, rd))
			break;
	}
	return ret;
}

/*
 * The timed window: the generator's call and nothing else, with perf
 * enabled around it when this is --perf-row's window.
 */
static int timed(struct bench *b, bool perf, bool dut, struct bench_round *rd,
		 struct hc_err *err)
{
	__u64 sent = 0, c0;
	double t0;
	int ret;

	ret = perf ? hc_fault(err, "bench-perf") ?: perf_cmd(b, "enable\n") : 0;
	if (ret)
		goto perf_failed;
	c0 = bench_clock_read(b, dut);
	t0 = hc_now();
	ret = hc_fault(err, "bench-send") ?:
		      hc_gen_send(&b->gen, b->packets, &sent, &hc_stop_sig);
	rd->secs = hc_now() - t0;
	rd->generated = sent;
	/*
	 * Inline, the work is done when the call returns; split, the DUT's
	 * NAPI may still be at it: window() reads after the drain.
	 */
	rd->cpu_ns = dut ? c0 : bench_clock_read(b, dut) - c0;
	if (ret) {
		if (!err->msg[0])
			hc_err_set(err, "the generator");
		return ret;
	}
	ret = perf ? perf_cmd(b, "disable\n") : 0;
	if (!ret)
		return 0;
perf_failed:
	if (!err->msg[0])
		hc_err_set(err, "perf's control channel");
	return ret;
}

/* One row in one round; fails only for what ends the whole bench. */
static int window(struct bench *b, struct bench_row *r, int round, int pos,
		  struct hc_err *err)
{
	struct bench_round rd = { .round = round, .order = pos, .ns = NAN };
	bool perf = round > 0 && r == &b->rows[b->perf_idx];
	/* Split, the rows' work runs in the DUT's NAPI kthreads. */
	bool dut = b->cpu_mode == BENCH_SPLIT && !r->kind->generator;
	struct bench_count c0 = {};
	struct hc_err rerr = {};
	const char *step;
	char why[200];
	__u64 d0 = 0, pkts, own0;
	double t;
	int ret, rret;

	ret = frame_for(b, r);
	if (ret) {
		hc_err_set(err, "a %u-byte frame for %s", r->size, r->name);
		return ret;
	}
	t = hc_now();
	step = "setup";
	rret = hc_fault(&rerr, "bench-row") ?: r->kind->setup(b, r, &rerr);
	rd.setup_ms = (hc_now() - t) * 1e3;
	if (!rret) {
		step = "reading its counters";
		rret = hc_fault(&rerr, "bench-read") ?:
						       read_all(b, r, &c0, &d0);
	}
	if (!rret) {
		own0 = bench_clock_read_own(b);
		ret = timed(b, perf, dut, &rd, err);
		if (!ret)
			rret = drain(b, r, &rd, &c0, d0);
		if (dut)
			rd.cpu_ns = bench_clock_read(b, dut) - rd.cpu_ns;
		/* The row's own threads work until the drain, in either mode. */
		rd.own_ns = bench_clock_read_own(b) - own0;
		rd.cpu_ns += rd.own_ns;
	}
	t = hc_now();
	r->kind->teardown(b, r);
	rd.teardown_ms = (hc_now() - t) * 1e3;
	if (ret)
		return ret;
	if (rret) {
		invalid_err(r, step, rret, &rerr);
		r->dead = true;
		return 0;
	}
	/* The warm-up is not measured; an interrupted window is not whole. */
	if (!round || rd.generated < b->packets)
		return 0;

	pkts = dut ? rd.seen : rd.generated;
	rd.mpps = pkts / rd.secs / 1e6;
	if (!b->env.cpu_clock)
		rd.cpu_ns = rd.own_ns = NAN;
	rd.pkt_ns = (b->env.cpu_clock ? rd.cpu_ns : rd.secs * 1e9) / pkts;
	bench_round_check(r, &rd, why, sizeof(why));
	if (why[0])
		invalid(r, "%s", why);
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

		if (r->reason[0] || isnan(h))
			continue;
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
