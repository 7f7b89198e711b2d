// SPDX-License-Identifier: GPL-2.0
/* Unprivileged: the bench's statistics and its round planner. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "plan.h"
#include "statistics.h"
#include "test.h"

#define SEED 20240611ULL

static bool near(double a, double b, double eps)
{
	return fabs(a - b) <= eps;
}

/* C(n, k) p^k (1-p)^(n-k), summed for k >= m. */
static double binom_tail(int n, int m, double p)
{
	double sum = 0, c = 1;
	int k;

	for (k = 0; k <= n; k++) {
		if (k >= m)
			sum += c * pow(p, k) * pow(1 - p, n - k);
		c = c * (n - k) / (k + 1);
	}
	return sum;
}

/*
 * 1..21: a resample's median is the k-th value or less exactly when 11
 * or more of its 21 draws are, so the bootstrap distribution of the
 * median is known in closed form, and so are its 2.5% and 97.5% points.
 */
static void test_bootstrap_known(void)
{
	double x[21], lo_exact = 0, hi_exact = 0;
	struct st_est e, again, other;
	int i, k;

	for (i = 0; i < 21; i++)
		x[i] = i + 1;
	for (k = 1; k <= 21; k++) {
		double below = binom_tail(21, 11, k / 21.0);

		if (!lo_exact && below >= 0.025)
			lo_exact = k;
		if (!hi_exact && below >= 0.975)
			hi_exact = k;
	}
	st_bootstrap(x, 21, 10000, 0.95, SEED, &e);
	st_bootstrap(x, 21, 10000, 0.95, SEED, &again);
	st_bootstrap(x, 21, 10000, 0.95, SEED + 1, &other);
	t_result(e.median == 11, "bootstrap 1..21: median 11 (got %g)",
		 e.median);
	t_result(
		near(e.lo, lo_exact, 1) && near(e.hi, hi_exact, 1),
		"bootstrap 1..21: interval [%g, %g] within 1 of the exact [%g, %g]",
		e.lo, e.hi, lo_exact, hi_exact);
	t_result(!memcmp(&e, &again, sizeof(e)),
		 "bootstrap: the same seed gives the same interval");
	t_result(near(other.lo, lo_exact, 1) && near(other.hi, hi_exact, 1),
		 "bootstrap: another seed, an interval as good [%g, %g]",
		 other.lo, other.hi);
	t_result(st_median(x, 20) == 10.5 && st_median(x, 1) == 1 &&
			 isnan(st_median(x, 0)),
		 "median of an even count, of one value, of none");
}

/*
 * 20 rounds of a baseline A and a row B that costs 5% more, with the
 * machine 50% slower from round 11 on. Paired (each round measures both),
 * the per-round ratio never sees the shift. Sequential and unpaired (all
 * of A, then all of B, as bench once did), B lands after the shift.
 */
static void test_level_shift(void)
{
	double a[20], b[20], ratio[20], seq_a[20], seq_b[20];
	struct st_est paired, ea, eb;
	__u64 rng = SEED;
	int i;

	for (i = 0; i < 20; i++) {
		double level = i < 10 ? 1.0 : 1.5;
		double na = 1 + ((int)st_rand_below(&rng, 1001) - 500) / 1e5;
		double nb = 1 + ((int)st_rand_below(&rng, 1001) - 500) / 1e5;

		a[i] = 100 * level * na;
		b[i] = 105 * level * nb;
		ratio[i] = b[i] / a[i];
		/* Sequential: A in the first half of the time, B in the second. */
		seq_a[i] = 100 * 1.0 * na;
		seq_b[i] = 105 * 1.5 * nb;
	}
	st_bootstrap(ratio, 20, 10000, 0.95, SEED, &paired);
	t_result(
		paired.lo <= 1.05 && 1.05 <= paired.hi &&
			paired.hi - paired.lo < 0.02,
		"level shift: the paired interval [%.4f, %.4f] covers the true ratio 1.05",
		paired.lo, paired.hi);
	st_bootstrap(seq_a, 20, 10000, 0.95, SEED, &ea);
	st_bootstrap(seq_b, 20, 10000, 0.95, SEED, &eb);
	t_result(
		!(eb.lo / ea.hi <= 1.05 && 1.05 <= eb.hi / ea.lo),
		"level shift: the unpaired sequential estimate %.3f [%.3f, %.3f] misses it",
		eb.median / ea.median, eb.lo / ea.hi, eb.hi / ea.lo);
}

static void test_outliers(void)
{
	double x[] = { 10, 10.1, 9.9, 10, 10.2, 9.8, 10, 30 };
	double calm[] = { 10, 10.1, 9.9, 10, 10.2, 9.8, 10, 10.3 };
	double flat[] = { 5, 5, 5, 5, 7 };
	bool f[8];
	int n;

	n = st_outliers(x, 8, 3.5, f);
	t_result(n == 1 && f[7] && !f[0] && !f[6],
		 "MAD: 30 among values near 10 is the one outlier (%d flagged)",
		 n);
	CHECK_EQ(st_outliers(calm, 8, 3.5, f), 0,
		 "MAD: values within a few percent: no outlier");
	t_result(near(st_mad(x, 8), 0.1, 1e-9), "MAD of the series is 0.1");
	n = st_outliers(flat, 5, 3.5, f);
	t_result(n == 1 && f[4],
		 "MAD 0: the one value off the median is flagged (%d)", n);
}

static void test_constant(void)
{
	double x[12];
	struct st_est e;
	bool f[12];
	int i;

	for (i = 0; i < 12; i++)
		x[i] = 42.5;
	st_bootstrap(x, 12, 10000, 0.95, SEED, &e);
	t_result(
		e.median == 42.5 && e.lo == 42.5 && e.hi == 42.5,
		"constant series: the interval collapses to the value [%g, %g]",
		e.lo, e.hi);
	CHECK_EQ(st_outliers(x, 12, 3.5, f), 0, "constant series: no outlier");
	st_bootstrap(x, 0, 10000, 0.95, SEED, &e);
	t_result(isnan(e.median) && isnan(e.lo),
		 "no values: no estimate (NaN)");
}

/* 1 - 2^(1-n) >= level: 5 values reach 0.9375, 6 reach 0.96875. */
static void test_few(void)
{
	double x[6] = { 3, 1, 4, 1, 5, 9 };
	struct st_est e;

	CHECK_EQ(st_min_n(0.95), 6, "a 95%% interval of a median needs 6 values");
	CHECK_EQ(st_min_n(0.9), 5, "a 90%% one needs 5");
	CHECK_EQ(st_min_n(0.99), 8, "a 99%% one needs 8");
	CHECK_EQ(st_min_n(0.5), 2, "a 50%% one needs 2");
	st_bootstrap(x, 5, 10000, 0.95, SEED, &e);
	t_result(e.median == 3 && isnan(e.lo) && isnan(e.hi),
		 "5 values: the median (%g), no 95%% interval [%g, %g]",
		 e.median, e.lo, e.hi);
	st_bootstrap(x, 6, 10000, 0.95, SEED, &e);
	t_result(e.median == 3.5 && e.lo >= 1 && e.hi <= 9 && e.lo < e.hi,
		 "6 values: an interval [%g, %g]", e.lo, e.hi);
	st_bootstrap(x, 5, 10000, 0.9, SEED, &e);
	t_result(!isnan(e.lo), "5 values: a 90%% interval [%g, %g]", e.lo,
		 e.hi);
}

static bool is_permutation(const int *order, int n)
{
	bool seen[BENCH_PLAN_MAX] = {};
	int i;

	for (i = 0; i < n; i++) {
		if (order[i] < 0 || order[i] >= n || seen[order[i]])
			return false;
		seen[order[i]] = true;
	}
	return true;
}

static void test_planner(void)
{
	int a[50][BENCH_PLAN_MAX], b[BENCH_PLAN_MAX], c[BENCH_PLAN_MAX];
	struct bench_plan p, q, r;
	bool perm = true, differ = true, same = true, other_seed = false;
	bool first_varies = false;
	int round, n = 10;

	bench_plan_init(&p, n, SEED);
	bench_plan_init(&q, n, SEED);
	bench_plan_init(&r, n, SEED + 1);
	for (round = 0; round < 50; round++) {
		bench_plan_next(&p, a[round]);
		bench_plan_next(&q, b);
		bench_plan_next(&r, c);
		perm &= is_permutation(a[round], n);
		if (round)
			differ &= !!memcmp(a[round], a[round - 1],
					   n * sizeof(int));
		same &= !memcmp(a[round], b, n * sizeof(int));
		other_seed |= !!memcmp(a[round], c, n * sizeof(int));
		first_varies |= round && a[round][0] != a[0][0];
	}
	t_result(perm, "planner: every row exactly once in each of 50 rounds");
	t_result(differ && first_varies,
		 "planner: each round's order differs from the one before");
	t_result(same, "planner: the same seed gives the same orders");
	t_result(other_seed, "planner: another seed gives other orders");

	/* Two rows must alternate: never the same order twice in a row. */
	bench_plan_init(&p, 2, SEED);
	differ = true;
	for (round = 0; round < 20; round++) {
		bench_plan_next(&p, a[round]);
		if (round)
			differ &= a[round][0] != a[round - 1][0];
	}
	t_result(differ && is_permutation(a[0], 2),
		 "planner: two rows alternate who goes first");
	bench_plan_init(&p, 1, SEED);
	bench_plan_next(&p, a[0]);
	bench_plan_next(&p, a[1]);
	t_result(a[0][0] == 0 && a[1][0] == 0, "planner: one row, every round");
}

/* ---- bench_summarize on rounds made up here ---- */

static const struct bench_kind hook_kind = { .name = "test" };
static const struct bench_kind gen_kind = { .name = "gen", .generator = true };

/* Adds a row whose round k ran at mpps[k], 1e3/mpps[k] ns a packet. */
static struct bench_row *fake_row(struct bench *b, const char *name,
				  const struct bench_kind *kind, int base,
				  const double *mpps, int n)
{
	struct bench_row *r = &b->rows[b->nrows];
	int k;

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->base = base;
	r->gen = 0;
	r->rd = calloc(n, sizeof(*r->rd));
	r->nrd = r->cap = n;
	for (k = 0; k < n; k++) {
		r->rd[k].round = k + 1;
		r->rd[k].mpps = mpps[k];
		r->rd[k].pkt_ns = 1e3 / mpps[k];
	}
	b->nrows++;
	return r;
}

static bool has_flag(const struct bench *b, const struct bench_row *r,
		     const char *flag)
{
	const char *f[8];
	int i, n = bench_flags(b, r, f, 8);

	for (i = 0; i < n; i++)
		if (!strcmp(f[i], flag))
			return true;
	return false;
}

static void free_rows(struct bench *b)
{
	int i;

	for (i = 0; i < b->nrows; i++)
		free(b->rows[i].rd);
	free(b);
}

static void test_summary_inline(void)
{
	/* gen-only at 20 Mpps (50 ns), the baseline at 5 (200), a row at 4 (250). */
	double gen[8], base[8], row[8], slow[8];
	struct bench *b = calloc(1, sizeof(*b));
	struct bench_row *g, *bl, *r, *o;
	int k;

	for (k = 0; k < 8; k++) {
		/* The machine drifts: every row of a round by the same factor. */
		double level = k < 4 ? 1.0 : 0.5;

		gen[k] = 20 * level;
		base[k] = 5 * level;
		row[k] = 4 * level;
		slow[k] = k == 5 ? 0.5 : 4 * level;
	}
	b->cpu_mode = BENCH_INLINE;
	b->seed = 7;
	g = fake_row(b, "gen-only", &gen_kind, -1, gen, 8);
	bl = fake_row(b, "nothing", &hook_kind, 1, base, 8);
	r = fake_row(b, "row", &hook_kind, 1, row, 8);
	o = fake_row(b, "row-with-outlier", &hook_kind, 1, slow, 8);
	bench_summarize(b);
	t_result(
		near(r->rd[0].ns, 200, 1e-9) && near(r->rd[7].ns, 400, 1e-9),
		"summary inline: a round's cost is 1e9/pps less gen-only's in that round (%g, %g)",
		r->rd[0].ns, r->rd[7].ns);
	t_result(
		near(g->rd[0].ns, 50, 1e-9) && isnan(g->sum.delta.median) &&
			isnan(g->sum.ratio.median),
		"summary: gen-only's cost is its own, with nothing to compare");
	t_result(
		near(r->sum.ratio.median, 200.0 / 150, 1e-9) &&
			near(r->sum.ratio.lo, 200.0 / 150, 1e-9) &&
			near(r->sum.ratio.hi, 200.0 / 150, 1e-9),
		"summary: paired per round, the drift leaves the ratio %.4f [%.4f, %.4f]",
		r->sum.ratio.median, r->sum.ratio.lo, r->sum.ratio.hi);
	t_result(r->sum.delta.lo > 0 && r->sum.significant,
		 "summary: a delta whose interval excludes 0 is significant");
	t_result(
		bl->sum.ratio.median == 1 && bl->sum.delta.hi == 0 &&
			!bl->sum.significant && has_flag(b, bl, "baseline"),
		"summary: the baseline against itself: ratio 1, delta 0, flagged");
	t_result(
		o->rd[5].outlier && o->sum.outliers == 1 &&
			has_flag(b, o, "outliers") && o->sum.n == 8,
		"summary: the slow round is flagged an outlier and kept (%d rounds)",
		o->sum.n);
	t_result(has_flag(b, g, "drift") && near(g->sum.drift, 2, 1e-9),
		 "summary: gen-only halving over the run is flagged as drift");
	t_result(!isnan(b->resolution_ns) && b->resolution_ns >= 0,
		 "summary: a resolution from the rows' intervals (%g ns)",
		 b->resolution_ns);
	t_result(near(st_halfwidth_pct(&(struct st_est){ 10, 9.9, 10.1 }), 1,
		      1e-9),
		 "an interval's half-width is a percent of its median");
	free_rows(b);
}

static void test_summary_split(void)
{
	double gen[4] = { 10, 10, 10, 10 }, fast[4] = { 9.9, 9.95, 9.9, 9.85 };
	double slow[4] = { 5, 5.1, 4.9, 5 };
	struct bench *b = calloc(1, sizeof(*b));
	struct bench_row *f, *s;

	b->cpu_mode = BENCH_SPLIT;
	b->env.emulated = true;
	fake_row(b, "gen-only", &gen_kind, -1, gen, 4);
	s = fake_row(b, "slow", &hook_kind, 1, slow, 4);
	f = fake_row(b, "fast", &hook_kind, 1, fast, 4);
	bench_summarize(b);
	t_result(
		has_flag(b, f, "generator-bound") &&
			!has_flag(b, s, "generator-bound"),
		"summary split: a row within 2%% of the generator is generator-bound");
	t_result(
		near(s->rd[0].ns, 200, 1e-9),
		"summary split: the cost is the DUT's time per packet, nothing taken off");
	t_result(has_flag(b, f, "emulated") &&
			 has_flag(b, &b->rows[0], "emulated"),
		 "summary: an emulated CPU flags every row");
	free_rows(b);
}

/*
 * The machine changed speed between the rows' windows: the row's median
 * is under the baseline's while, round by round, it costs 10 ns more.
 */
static void test_summary_disagrees(void)
{
	double base_ns[8] = { 300, 300, 300, 300, 300, 150, 150, 150 };
	double row_ns[8] = { 310, 310, 160, 160, 160, 160, 160, 160 };
	double base[8], row[8], same[8];
	struct bench *b = calloc(1, sizeof(*b));
	struct bench_row *r, *ok;
	int k;

	for (k = 0; k < 8; k++) {
		base[k] = 1e3 / base_ns[k];
		row[k] = 1e3 / row_ns[k];
		same[k] = 1e3 / (base_ns[k] + 10);
	}
	b->cpu_mode = BENCH_SPLIT;
	fake_row(b, "base", &hook_kind, 0, base, 8);
	r = fake_row(b, "moved", &hook_kind, 0, row, 8);
	ok = fake_row(b, "steady", &hook_kind, 0, same, 8);
	bench_summarize(b);
	t_result(r->sum.delta.median > 0 && r->sum.ns.median < 300 &&
			 has_flag(b, r, "unpaired-disagrees"),
		 "summary: a delta of %+.1f against medians %.1f and %.1f is flagged",
		 r->sum.delta.median, r->sum.ns.median, b->rows[0].sum.ns.median);
	t_result(!has_flag(b, ok, "unpaired-disagrees") &&
			 !has_flag(b, &b->rows[0], "unpaired-disagrees"),
		 "summary: rows whose delta and medians agree are not");
	free_rows(b);
}

/*
 * What makes a round count: every frame accounted for (forward: at the
 * sink, before the DUT, at the DUT), a drop row passing nothing, and a
 * forward row getting every frame to the sink.
 */
static void test_round_check(void)
{
	static const struct bench_kind fwd = { .name = "fwd",
					       .dropped_at = "hcd rx_dropped" };
	static struct bench_row drop = { .kind = &hook_kind, .drop = true };
	static struct bench_row f = { .kind = &fwd, .forward = true };
	static struct bench_row gen = { .kind = &gen_kind };
	static const struct {
		struct bench_row *r;
		struct bench_round rd;
		const char *want; /* "" when the round counts */
	} cases[] = {
		{ &drop,
		  { .round = 1,
		    .generated = 100,
		    .seen = 95,
		    .dropped_before = 5 },
		  "" },
		{ &drop,
		  { .round = 1,
		    .generated = 100,
		    .seen = 94,
		    .dropped_before = 6 },
		  "round 1: the hook saw 94 of 100 frames (6 dropped before it), under 95%, too few for a cost" },
		{ &drop,
		  { .round = 2, .generated = 10, .seen = 7 },
		  "round 2: generated 10 != seen 7 + dropped before 0" },
		{ &drop,
		  { .round = 1, .generated = 10, .seen = 10, .passed = 1 },
		  "round 1: 1 packet passed a drop row's hook" },
		{ &gen, { .round = 1, .generated = 10 }, "" },
		{ &gen,
		  { .round = 1, .generated = 10, .seen = 1 },
		  "round 1: generated 10 != seen 1 + dropped before 0" },
		{ &f,
		  { .round = 1,
		    .generated = 100,
		    .seen = 98,
		    .dropped_before = 2 },
		  "" },
		{ &f,
		  { .round = 2,
		    .generated = 10,
		    .seen = 9,
		    .dropped_before = 1 },
		  "round 2: the hook saw 9 of 10 frames (1 dropped before it), under 95%, too few for a cost" },
		{ &f,
		  { .round = 3,
		    .generated = 10,
		    .seen = 8,
		    .dropped_before = 1 },
		  "round 3: generated 10 != 8 at the sink + 1 dropped before the DUT + 0 at it" },
		{ &f,
		  { .round = 1, .generated = 10, .seen = 8, .dropped_dut = 2 },
		  "round 1: 2 dropped at the DUT (hcd rx_dropped)" },
		{ &f,
		  { .round = 1, .generated = 10, .seen = 10, .passed = 4 },
		  "round 1: 4 passed to the DUT's stack, not forwarded" },
	};
	char why[200];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bench_round_check(cases[i].r, &cases[i].rd, why, sizeof(why));
		if (strcmp(why, cases[i].want))
			printf("  got: '%s'\n", why);
		t_result(!strcmp(why, cases[i].want), "round check %u: '%s'", i,
			 cases[i].want);
	}
}

/*
 * --dev: a round counts when the device's counters close the sum within
 * 0.1% (generated, or rx_packets when nothing says what was sent); else
 * it is unverified, with its numbers; nothing at all is INVALID.
 */
static void test_round_device(void)
{
	static struct bench_row drop = { .kind = &hook_kind, .drop = true };
	static struct bench_row pass = { .kind = &hook_kind };
	static const struct {
		struct bench_row *r;
		struct bench_round rd;
		int ret;
		const char *want;
	} cases[] = {
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100000,
		    .seen = 99000,
		    .dropped_before = 1000 },
		  0,
		  "" },
		/* 0.1% off: still closes; 0.2% off: does not. */
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 100000,
		    .seen = 99900 },
		  0,
		  "" },
		{ &drop,
		  { .round = 2,
		    .generated_known = true,
		    .generated = 100000,
		    .seen = 99800,
		    .dev = { .rx_packets = 99800 } },
		  1,
		  "round 2: generated 100000 != seen 99800 + dropped before 0 (rx_packets 99800)" },
		/* --external: rx_packets stands for what was sent. */
		{ &drop,
		  { .round = 1,
		    .seen = 5000,
		    .dropped_before = 0,
		    .dev = { .rx_packets = 5000 } },
		  0,
		  "" },
		{ &drop,
		  { .round = 3,
		    .seen = 5000,
		    .dropped_before = 700,
		    .dev = { .rx_packets = 5000, .rx_dropped = 700 } },
		  1,
		  "round 3: rx_packets 5000 != seen 5000 + dropped before 700" },
		{ &drop,
		  { .round = 1, .generated_known = true, .generated = 10 },
		  -1,
		  "round 1: no packets in the window" },
		{ &drop,
		  { .round = 1 },
		  -1,
		  "round 1: no packets in the window" },
		{ &drop,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 10,
		    .seen = 10,
		    .passed = 2 },
		  -1,
		  "round 1: 2 packets passed a drop row's hook" },
		{ &pass,
		  { .round = 1,
		    .generated_known = true,
		    .generated = 10,
		    .seen = 10,
		    .passed = 2 },
		  0,
		  "" },
	};
	char why[200];
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ret = bench_round_device(cases[i].r, &cases[i].rd, why,
					 sizeof(why));
		if (strcmp(why, cases[i].want) || ret != cases[i].ret)
			printf("  got: %d '%s'\n", ret, why);
		t_result(!strcmp(why, cases[i].want) && ret == cases[i].ret,
			 "round device %u: %d '%s'", i, cases[i].ret,
			 cases[i].want);
	}
}

int main(void)
{
	test_bootstrap_known();
	test_few();
	test_summary_disagrees();
	test_level_shift();
	test_outliers();
	test_constant();
	test_planner();
	test_summary_inline();
	test_summary_split();
	test_round_check();
	test_round_device();
	return t_failed ? 1 : 0;
}
