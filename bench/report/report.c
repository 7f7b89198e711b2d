// SPDX-License-Identifier: GPL-2.0
/*
 * One printer for the text table, the JSON document and the CSV, in the
 * manner of iproute2's json_print: each column is one call that says
 * which outputs show it, so the three cannot drift apart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "dev.h"
#include "env.h"
#include "path.h"
#include "plan.h"
#include "report.h"
#include "summary.h"
#include "print.h"

/* A median without an interval: too few rounds for one (st_min_n). */
static bool few(const struct st_est *e)
{
	return !isnan(e->median) && isnan(e->lo);
}

/* A median and its interval: {"median":M,"ci":[LO,HI]}, or "M [LO, HI]". */
static void rp_est(struct hc_pr *p, int which, const char *key,
		   const char *label, int width, int prec, bool sign,
		   const struct st_est *e)
{
	const char *f = sign ? "%+.*f [%+.*f, %+.*f]" : "%.*f [%.*f, %.*f]";
	char buf[96] = "-";

	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON) {
		hc_pr_json_est(p, key, e->median, e->lo, e->hi);
	} else if (p->mode == HC_PR_CSV && p->header) {
		hc_pr_csv_name(p, key, "_median");
		hc_pr_csv_name(p, key, "_ci_lo");
		hc_pr_csv_name(p, key, "_ci_hi");
	} else if (p->mode == HC_PR_CSV) {
		hc_pr_csv_num(p, prec + 3, e->median);
		hc_pr_csv_num(p, prec + 3, e->lo);
		hc_pr_csv_num(p, prec + 3, e->hi);
	} else {
		if (few(e))
			snprintf(buf, sizeof(buf),
				 sign ? "%+.*f [n/a]" : "%.*f [n/a]", prec,
				 e->median);
		else if (!isnan(e->median))
			snprintf(buf, sizeof(buf), f, prec, e->median, prec,
				 e->lo, prec, e->hi);
		hc_pr_cell(p, width, p->header ? label : buf);
	}
}

/* "cpus":[{"cpu":N,"mpps":X}] for the CPUs that saw packets. */
static void cpus_json(struct hc_pr *p, const struct bench_env *env,
		      const double *mpps)
{
	int c;

	hc_pr_open(p, HC_PR_JSON, "cpus", '[');
	for (c = 0; c < env->ncpu; c++) {
		if (!(mpps[c] > 0))
			continue;
		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fu64(p, HC_PR_JSON, "cpu", NULL, c);
		hc_pr_fnum(p, HC_PR_JSON, "mpps", NULL, mpps[c]);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

/* The device's counters that explain where packets went. */
static bool kept(const char *name)
{
	return (!strncmp(name, "rx_", 3) && strstr(name, "drop")) ||
	       strstr(name, "missed") || strstr(name, "xdp") ||
	       strstr(name, "rx_queue_");
}

/* JSON: the counter under its name; text: " NAME N", if shown and not 0. */
static void dev_counter(struct hc_pr *p, const char *name, unsigned long long v,
			bool shown)
{
	int which = shown && v ? HC_PR_TEXT | HC_PR_JSON : HC_PR_JSON;

	if (which & HC_PR_TEXT)
		hc_pr_text(p, " %s", name);
	hc_pr_fu64(p, which, name, " %llu", v);
}

/*
 * --dev: the device's counters (IFLA_STATS64's, and ethtool's if read):
 * JSON all of them, text the non-zero ones bench accounts with and the
 * driver's on drops, misses, XDP and RX queues.
 */
static void dev_counts(struct hc_pr *p, const struct bench_net *net,
		       const struct bench_dev_count *d, const __u64 *ethtool)
{
	const struct hc_ethtool_names *stats = &bench_dev_dut(net)->stats;
	const char *name;
	int s;

	hc_pr_open(p, HC_PR_JSON, "device", '{');
	dev_counter(p, "rx_packets", d->rx_packets, true);
	dev_counter(p, "rx_dropped", d->rx_dropped, true);
	dev_counter(p, "rx_missed_errors", d->rx_missed_errors, true);
	dev_counter(p, "rx_fifo_errors", d->rx_fifo_errors, true);
	dev_counter(p, "rx_over_errors", d->rx_over_errors, true);
	hc_pr_close(p, HC_PR_JSON, '}');
	hc_pr_open(p, HC_PR_JSON, "ethtool", '{');
	for (s = 0; ethtool && s < stats->n; s++) {
		name = stats->name[s];
		dev_counter(p, name, ethtool[s], kept(name));
	}
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* --dev: a round's counters, its samples, the steady part its rate is from. */
static void device_json(struct hc_pr *p, const struct bench_net *net,
			const struct bench_round *rd)
{
	int i;

	dev_counts(p, net, &rd->dev, rd->ethtool);
	hc_pr_open(p, HC_PR_JSON, "steady", '[');
	hc_pr_fnum(p, HC_PR_JSON, NULL, NULL, rd->steady_from);
	hc_pr_fnum(p, HC_PR_JSON, NULL, NULL, rd->steady_to);
	hc_pr_close(p, HC_PR_JSON, ']');
	hc_pr_open(p, HC_PR_JSON, "samples", '[');
	for (i = 0; i < rd->nsamples; i++) {
		const struct bench_sample *s = &rd->samples[i];

		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fnum(p, HC_PR_JSON, "t", NULL, s->t);
		hc_pr_fu64(p, HC_PR_JSON, "seen", NULL, s->seen);
		hc_pr_fu64(p, HC_PR_JSON, "rx_packets", NULL, s->rx);
		hc_pr_fu64(p, HC_PR_JSON, "dropped", NULL, s->dropped);
		hc_pr_fnum(p, HC_PR_JSON, "cpu_ns", NULL, s->cpu_ns);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

/* "windows":[{"packets":N,"secs":S,"cpu_ns":T,"excluded":B}] */
static void windows_json(struct hc_pr *p, const struct bench_round *rd)
{
	int i;

	hc_pr_open(p, HC_PR_JSON, "windows", '[');
	for (i = 0; i < rd->nwin; i++) {
		const struct bench_window *w = &rd->win[i];

		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fu64(p, HC_PR_JSON, "packets", NULL, w->packets);
		hc_pr_fnum(p, HC_PR_JSON, "secs", NULL, w->secs);
		hc_pr_fnum(p, HC_PR_JSON, "cpu_ns", NULL, w->cpu_ns);
		hc_pr_bool(p, HC_PR_JSON, "excluded", NULL, 0, w->excluded);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

static void rounds_json(struct hc_pr *p, const struct bench *b,
			const struct bench_row *r)
{
	int i;

	hc_pr_open(p, HC_PR_JSON, "rounds", '[');
	for (i = 0; i < r->nrd; i++) {
		const struct bench_round *rd = &r->rd[i];

		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fu64(p, HC_PR_JSON, "round", NULL, rd->round);
		hc_pr_fu64(p, HC_PR_JSON, "order", NULL, rd->order);
		/* --external: nothing says what was sent, null */
		if (rd->generated_known)
			hc_pr_fu64(p, HC_PR_JSON, "generated", NULL,
				   rd->generated);
		else
			hc_pr_fstr(p, HC_PR_JSON, "generated", NULL, NULL);
		hc_pr_fu64(p, HC_PR_JSON, "seen", NULL, rd->seen);
		hc_pr_fu64(p, HC_PR_JSON, "dropped_before", NULL,
			   rd->dropped_before);
		hc_pr_fu64(p, HC_PR_JSON, "dropped_dut", NULL, rd->dropped_dut);
		hc_pr_fnum(p, HC_PR_JSON, "mpps", NULL, rd->mpps);
		hc_pr_fnum(p, HC_PR_JSON, "ns", NULL, rd->ns);
		hc_pr_bool(p, HC_PR_JSON, "outlier", NULL, 0, rd->outlier);
		hc_pr_bool(p, HC_PR_JSON, "contended", NULL, 0, rd->contended);
		hc_pr_fstr(p, HC_PR_JSON, "excluded", NULL,
			   rd->excluded[0] ? rd->excluded : NULL);
		if (rd->win)
			hc_pr_fu64(p, HC_PR_JSON, "excluded_windows", NULL,
				   rd->nexcluded);
		hc_pr_fnum(p, HC_PR_JSON, "secs", NULL, rd->secs);
		hc_pr_fnum(p, HC_PR_JSON, "cpu_ns", NULL, rd->cpu_ns);
		hc_pr_fnum(p, HC_PR_JSON, "own_ns", NULL, rd->own_ns);
		if (b->opt.cpu_mode == BENCH_SPLIT && !b->opt.dev)
			hc_pr_fnum(p, HC_PR_JSON, "gen_cpu_ns", NULL,
				   rd->gen_cpu_ns);
		hc_pr_fnum(p, HC_PR_JSON, "pkt_ns", NULL, rd->pkt_ns);
		hc_pr_fnum(p, HC_PR_JSON, "pkt_ns_loaded", NULL,
			   rd->pkt_ns_loaded);
		hc_pr_fnum(p, HC_PR_JSON, "ns_loaded", NULL, rd->ns_loaded);
		if (rd->win) {
			hc_pr_fu64(p, HC_PR_JSON, "visits", NULL, rd->visits);
			windows_json(p, rd);
		}
		hc_pr_fnum(p, HC_PR_JSON, "setup_ms", NULL, rd->setup_ms);
		hc_pr_fnum(p, HC_PR_JSON, "teardown_ms", NULL, rd->teardown_ms);
		hc_pr_bool(p, HC_PR_JSON, "unverified", NULL, 0,
			   rd->unverified);
		if (b->opt.per_cpu && rd->cpu_mpps)
			cpus_json(p, &b->env, rd->cpu_mpps);
		if (b->opt.dev)
			device_json(p, &b->net, rd);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

/* "0:1.234 1:1.201": each CPU's median Mpps over the rounds, if it saw any. */
static const char *cpu_text(const struct bench_env *env,
			    const struct bench_row *r, char *buf, size_t size)
{
	double *x = malloc((r->nrd + 1) * sizeof(*x));
	size_t len = 0;
	int c, i, n;

	buf[0] = '\0';
	for (c = 0; x && c < env->ncpu && len < size; c++) {
		for (i = 0, n = 0; i < r->nrd; i++)
			if (r->rd[i].cpu_mpps)
				x[n++] = r->rd[i].cpu_mpps[c];
		if (n && st_median(x, n) > 0)
			len += snprintf(buf + len, size - len, "%s%d:%.3f",
					len ? " " : "", c, st_median(x, n));
	}
	free(x);
	return buf[0] ? buf : "-";
}

/* Of the frames generated over the row's rounds, those dropped before it. */
static double dropped_pct(const struct bench_row *r)
{
	double gen = 0, dropped = 0;
	int i;

	for (i = 0; i < r->nrd; i++) {
		gen += r->rd[i].generated;
		dropped += r->rd[i].dropped_before;
	}
	return gen ? 100 * dropped / gen : NAN;
}

/* Splits a space-separated list in place into up to max items. */
static int words(char *s, const char **items, int max)
{
	int n = 0;

	for (s = strtok(s, " "); s && n < max; s = strtok(NULL, " "))
		items[n++] = s;
	return n;
}

/* The path check: "ok", "MISSING x", "RAN x", "unchecked". */
static void path_columns(struct hc_pr *p, const struct bench_row *r)
{
	const struct bench_path *c = &r->path_check;
	char missing[sizeof(c->missing)], unexpected[sizeof(c->unexpected)],
		text[sizeof(c->missing) + 16];
	const char *m[16], *u[16];
	int nm, nu;

	snprintf(missing, sizeof(missing), "%s", c->missing);
	snprintf(unexpected, sizeof(unexpected), "%s", c->unexpected);
	nm = words(missing, m, 16);
	nu = words(unexpected, u, 16);
	snprintf(text, sizeof(text), "%s%s",
		 !c->checked	  ? "unchecked" :
		 c->missing[0]	  ? "MISSING " :
		 c->unexpected[0] ? "RAN " :
				    "ok",
		 !c->checked	  ? "" :
		 c->missing[0]	  ? m[0] :
		 c->unexpected[0] ? u[0] :
				    "");
	hc_pr_str(p, HC_PR_TEXT, NULL, "path", -12, text);
	hc_pr_open(p, HC_PR_DATA, "path", '{');
	hc_pr_bool(p, HC_PR_DATA, "checked", NULL, 0, c->checked);
	hc_pr_num(p, HC_PR_DATA, "samples", NULL, 0, 0, c->samples);
	hc_pr_num(p, HC_PR_DATA, "prog_runs", NULL, 0, 0,
		  c->runs >= 0 ? (double)c->runs : NAN);
	hc_pr_list(p, HC_PR_DATA, "missing", m, nm);
	hc_pr_list(p, HC_PR_DATA, "unexpected", u, nu);
	hc_pr_str(p, HC_PR_DATA, "why", NULL, 0, c->checked ? NULL : c->why);
	hc_pr_str(p, HC_PR_DATA, "declared", NULL, 0, r->path);
	hc_pr_close(p, HC_PR_DATA, '}');
}

static int by_delta(const void *a, const void *b)
{
	double x = fabs(
		       (*(const struct bench_prof_fn *const *)a)->delta.median),
	       y = fabs(
		       (*(const struct bench_prof_fn *const *)b)->delta.median);

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x > y ? -1 : x < y;
}

/* v as fmt says, or "-" when there is none (never "nan"). */
static const char *num(char *buf, size_t size, const char *fmt, double v)
{
	if (!isfinite(v))
		return "-";
	snprintf(buf, size, fmt, v);
	return buf;
}

/*
 * A profiled function: its name, ns/pkt, with delta its delta [interval]
 * ("-" without pairs), on the path.
 */
static void profile_fn(struct hc_pr *p, const struct bench_prof_fn *fn,
		       bool delta)
{
	char ci[64] = "", ns[32], d[32];

	if (!isnan(fn->delta.lo))
		snprintf(ci, sizeof(ci), " [%+.1f, %+.1f]", fn->delta.lo,
			 fn->delta.hi);
	hc_pr_open(p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(p, HC_PR_TEXT | HC_PR_JSON, "sym", "  %-40s", fn->name);
	hc_pr_fnum(p, HC_PR_JSON, "ns", NULL, fn->ns);
	hc_pr_text(p, " %8s", num(ns, sizeof(ns), "%.1f", fn->ns));
	hc_pr_fnum(p, HC_PR_JSON, "delta_ns", NULL, fn->delta.median);
	/* text: the interval as one column, blank without one */
	if (delta)
		hc_pr_text(p, " %9s%-20s",
			   num(d, sizeof(d), "%+.1f", fn->delta.median), ci);
	hc_pr_open(p, HC_PR_JSON, "ci", '[');
	hc_pr_fnum(p, HC_PR_JSON, NULL, NULL, fn->delta.lo);
	hc_pr_fnum(p, HC_PR_JSON, NULL, NULL, fn->delta.hi);
	hc_pr_close(p, HC_PR_JSON, ']');
	hc_pr_bool(p, HC_PR_JSON, "path", NULL, 0, fn->path);
	hc_pr_text(p, "%s\n", fn->path ? " path" : "");
	hc_pr_close(p, HC_PR_JSON, '}');
}

/*
 * --profile: the row's costliest functions, each with its delta to the
 * baseline; in text, then those that differ most from the baseline's
 * (what the row runs that the baseline does not).
 */
static void profile_row(struct hc_pr *p, const struct bench_opts *o,
			const struct bench_rows *rows,
			const struct bench_row *r)
{
	const struct bench_row *base =
		r->base >= 0 ? &rows->row[r->base] : NULL;
	int k, n = r->npfn < (int)o->profile_top ? r->npfn :
						   (int)o->profile_top;
	/* the baseline is the reference: no delta of its own, nor gen-only's */
	bool delta = base && base != r;
	const struct bench_prof_fn **by;
	char v[5][32];

	/* text says them in a sentence, in its own order */
	hc_pr_fnum(p, HC_PR_JSON, "profile_ns", NULL, r->prof_ns);
	hc_pr_fnum(p, HC_PR_JSON, "profile_overhead_pct", NULL,
		   r->prof_over * 100);
	hc_pr_fnum(p, HC_PR_JSON, "profile_timed_ns", NULL, r->prof_timed);
	hc_pr_fnum(p, HC_PR_JSON, "profile_clock_ns", NULL, r->prof_clock);
	hc_pr_text(
		p,
		"\nprofile %s: %s ns/pkt in its samples, %s by the task clocks of the same windows; the timed windows: %s (its cost, less gen-only's: %s), sampling added %s\n",
		r->name, num(v[0], 32, "%.1f", r->prof_ns),
		num(v[1], 32, "%.1f", r->prof_clock),
		num(v[2], 32, "%.1f", r->prof_timed),
		num(v[3], 32, "%.1f", r->sum.ns.median),
		num(v[4], 32, "%+.1f%%", r->prof_over * 100));
	hc_pr_text(p, "  %-40s %8s%s\n", "function", "ns/pkt",
		   delta ? "     delta vs baseline [95%]" : "");
	hc_pr_open(p, HC_PR_JSON, "profile", '[');
	for (k = 0; k < n; k++)
		profile_fn(p, &r->pfn[k], delta);
	hc_pr_close(p, HC_PR_JSON, ']');
	if (p->mode != HC_PR_TEXT || !delta)
		return;
	by = malloc(r->npfn * sizeof(*by));
	if (!by)
		return;
	for (k = 0; k < r->npfn; k++)
		by[k] = &r->pfn[k];
	qsort(by, r->npfn, sizeof(*by), by_delta);
	hc_pr_text(p, "  against %s, the largest differences:\n", base->name);
	for (k = 0; k < n; k++)
		profile_fn(p, by[k], true);
	free(by);
}

/* Every column of a row, for every output: the one place they are named. */
static void row_columns(struct hc_pr *p, const struct bench *b,
			const struct bench_row *r)
{
	const struct bench_sum *s = &r->sum;
	const char *flags[16], *why = bench_row_void(r);
	int nf = bench_flags(&b->env, &b->rows, r, flags, 16), i;
	char valid[320], delta[64], ratio[64], cpus[160];
	size_t len;

	hc_pr_str(p, HC_PR_ALL, "name", "row", -22, r->name);
	hc_pr_bool(p, HC_PR_DATA, "valid", NULL, 0, !why && !r->unverified[0]);
	hc_pr_str(p, HC_PR_DATA, "status", NULL, 0,
		  why		   ? "invalid" :
		  r->unverified[0] ? "unverified" :
				     "valid");
	hc_pr_str(p, HC_PR_DATA, "reason", NULL, 0,
		  why		   ? why :
		  r->unverified[0] ? r->unverified :
				     NULL);
	hc_pr_list(p, HC_PR_DATA, "flags", flags, nf);
	hc_pr_num(p, HC_PR_JSON, "frame_bytes", NULL, 0, 0, r->size);
	if (b->rows.scen->row_json)
		b->rows.scen->row_json(p, b, r);
	/* the row its deltas and ratios are against; null: none */
	hc_pr_str(p, HC_PR_JSON, "baseline", NULL, 0,
		  r->base >= 0 ? b->rows.row[r->base].name : NULL);
	hc_pr_num(p, HC_PR_JSON, "excluded_windows", NULL, 0, 0, s->excluded);
	hc_pr_open(p, HC_PR_DATA, "mpps", '{');
	hc_pr_num(p, HC_PR_ALL, "median", "Mpps", 7, 3, s->mpps_med);
	hc_pr_num(p, HC_PR_DATA, "min", NULL, 0, 3, s->mpps_min);
	hc_pr_num(p, HC_PR_DATA, "max", NULL, 0, 3, s->mpps_max);
	hc_pr_close(p, HC_PR_DATA, '}');
	/* Split: the generator's CPU outruns the hook's; say by how much. */
	if (b->opt.cpu_mode == BENCH_SPLIT && !b->opt.dev)
		hc_pr_num(p, HC_PR_ALL, "dropped_before_pct",
			  "dropped before %", 16, 1,
			  r->kind->generator ? NAN : dropped_pct(r));
	snprintf(delta, sizeof(delta), "delta ns vs %s",
		 b->rows.scen->baseline);
	snprintf(ratio, sizeof(ratio), "ratio vs %s", b->rows.scen->baseline);
	rp_est(p, HC_PR_ALL, "ns", "ns/pkt", 23, 1, false, &s->ns);
	rp_est(p, HC_PR_ALL, "delta_ns", delta, 24, 1, true, &s->base.delta);
	hc_pr_num(p, HC_PR_DATA, "delta_median", NULL, 0, 4, s->delta_median);
	hc_pr_num(p, HC_PR_ALL, "mde_ns", "mde ns", 6, 1, s->base.mde_ns);
	hc_pr_num(p, HC_PR_DATA, "mde_pct", NULL, 0, 3, s->base.mde_pct);
	rp_est(p, HC_PR_ALL, "ratio", ratio, 22, 3, false, &s->base.ratio);
	/* No interval (too few rounds, or no baseline): nothing to say. */
	hc_pr_bool(p, HC_PR_ALL, "significant", "sig", 3,
		   isnan(s->base.delta.lo) ? -1 : s->base.significant);
	hc_pr_bool(p, HC_PR_JSON, "unresolved", NULL, 0,
		   isnan(s->base.delta.lo) ? -1 : s->unresolved);
	/* --variant: a variant row against its own row, the others null */
	if (b->opt.nvariants) {
		const struct bench_variant *v = r->variant;
		int k;

		hc_pr_str(p, HC_PR_ALL, "variant_of", "variant of", -16,
			  v ? b->rows.row[r->vbase].name : NULL);
		rp_est(p, HC_PR_ALL, "variant_delta_ns", "delta ns vs it", 24,
		       1, true, &s->variant.delta);
		hc_pr_num(p, HC_PR_ALL, "variant_mde_ns", "mde ns", 6, 1,
			  s->variant.mde_ns);
		hc_pr_num(p, HC_PR_DATA, "variant_mde_pct", NULL, 0, 3,
			  s->variant.mde_pct);
		rp_est(p, HC_PR_DATA, "variant_ratio", NULL, 0, 4, false,
		       &s->variant.ratio);
		hc_pr_bool(p, HC_PR_ALL, "variant_significant", "sig", 3,
			   !v || isnan(s->variant.delta.lo) ?
				   -1 :
				   s->variant.significant);
		hc_pr_num(p, HC_PR_ALL, "variant_failed_rounds", "left out", 8,
			  0, v ? r->variant_failed : NAN);
		hc_pr_str(p, HC_PR_DATA, "variant_why", NULL, 0,
			  r->variant_why[0] ? r->variant_why : NULL);
		hc_pr_str(p, HC_PR_DATA, "variant_left", NULL, 0,
			  r->variant_left[0] ? r->variant_left : NULL);
		hc_pr_open(p, HC_PR_JSON, "variant_left_pids", '[');
		for (k = 0; k < r->nvariant_left; k++)
			hc_pr_fu64(p, HC_PR_JSON, NULL, NULL,
				   r->variant_left_pid[k]);
		hc_pr_close(p, HC_PR_JSON, ']');
	}
	/* veth: the mean of the windows too, the cost under this load */
	if (!b->opt.dev) {
		hc_pr_num(p, HC_PR_ALL, "ns_loaded", "loaded", 7, 1,
			  s->ns_loaded);
		hc_pr_num(p, HC_PR_DATA, "window_packets", NULL, 0, 0,
			  r->window_packets);
	}
	if (b->opt.per_cpu)
		hc_pr_str(p, HC_PR_TEXT, NULL, "Mpps per CPU", -20,
			  cpu_text(&b->env, r, cpus, sizeof(cpus)));

	len = snprintf(valid, sizeof(valid), "%s%s",
		       why		? "INVALID: " :
		       r->unverified[0] ? "unverified: " :
					  "yes",
		       why ?: r->unverified);
	for (i = 0; i < nf && len < sizeof(valid); i++) {
		len += snprintf(valid + len, sizeof(valid) - len, "%s",
				i ? ", " : " (");
		/* The table counts what the JSON lists round by round. */
		if (!strcmp(flags[i], "outliers"))
			len += snprintf(valid + len, sizeof(valid) - len,
					"%d outlier round%s", s->outliers,
					s->outliers > 1 ? "s" : "");
		else if (!strcmp(flags[i], "contended"))
			len += snprintf(valid + len, sizeof(valid) - len,
					"%d contended round%s", s->contended,
					s->contended > 1 ? "s" : "");
		else
			len += snprintf(valid + len, sizeof(valid) - len, "%s",
					flags[i]);
	}
	if (nf && len < sizeof(valid))
		snprintf(valid + len, sizeof(valid) - len, ")");
	path_columns(p, r);
	hc_pr_str(p, HC_PR_TEXT, NULL, "valid", 0, valid);
	if (p->mode == HC_PR_JSON) {
		if (b->opt.profile)
			profile_row(p, &b->opt, &b->rows, r);
		rounds_json(p, b, r);
	}
}

static void line(struct hc_pr *p, const struct bench *b,
		 const struct bench_row *r)
{
	p->col = 0;
	row_columns(p, b, r);
	hc_pr_end(p);
}

static double attach_ms(const struct bench_rows *rows)
{
	double *v, m;
	int i, k, n = 0;

	for (i = 0; i < rows->n; i++)
		n += rows->row[i].nrd;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return NAN;
	for (i = 0, n = 0; i < rows->n; i++)
		for (k = 0; k < rows->row[i].nrd; k++)
			v[n++] = rows->row[i].rd[k].setup_ms +
				 rows->row[i].rd[k].teardown_ms;
	m = st_median(v, n);
	free(v);
	return m;
}

/*
 * --dev: per row, its name, what was generated and seen, and the
 * device's counters summed over its rounds (all are in the JSON).
 */
static void device_text(struct hc_pr *p, const struct bench_net *net,
			const struct bench_rows *rows)
{
	int nstats = bench_dev_dut(net)->stats.n;
	__u64 *sum = calloc(nstats + 1, sizeof(*sum));
	int i, k, s;

	hc_pr_text(
		p,
		"\ndevice %s, counters summed over each row's rounds (non-zero ones):\n",
		net->dut_name);
	for (i = 0; i < rows->n; i++) {
		const struct bench_row *r = &rows->row[i];
		struct bench_dev_count d = {};
		__u64 gen = 0, seen = 0;
		bool known = true;

		if (sum)
			memset(sum, 0, nstats * sizeof(*sum));
		for (k = 0; k < r->nrd; k++) {
			const struct bench_round *rd = &r->rd[k];

			gen += rd->generated;
			seen += rd->seen;
			known &= rd->generated_known;
			d.rx_packets += rd->dev.rx_packets;
			d.rx_dropped += rd->dev.rx_dropped;
			d.rx_missed_errors += rd->dev.rx_missed_errors;
			d.rx_fifo_errors += rd->dev.rx_fifo_errors;
			d.rx_over_errors += rd->dev.rx_over_errors;
			for (s = 0; sum && s < nstats; s++)
				sum[s] += rd->ethtool ? rd->ethtool[s] : 0;
		}
		hc_pr_text(p, "  %-22s", r->name);
		if (known)
			hc_pr_fu64(p, HC_PR_TEXT, "generated",
				   " generated %llu", gen);
		hc_pr_fu64(p, HC_PR_TEXT, "seen", " seen %llu", seen);
		dev_counts(p, net, &d, sum);
		hc_pr_text(p, "\n");
	}
	free(sum);
}

/* The windows no estimate takes, per row, and the first reason. */
static void excluded_text(struct hc_pr *p, const struct bench_rows *rows)
{
	const char *why = NULL;
	int i, k, n = 0, all = 0;

	for (i = 0; i < rows->n; i++) {
		n += rows->row[i].sum.excluded;
		for (k = 0; k < rows->row[i].nrd; k++)
			all += rows->row[i].rd[k].nwin;
	}
	if (!n)
		return;
	hc_pr_text(p, "excluded windows: %d of %d, in no estimate:", n, all);
	for (i = 0; i < rows->n; i++) {
		const struct bench_row *r = &rows->row[i];

		if (r->sum.excluded)
			hc_pr_text(p, " %s %d", r->name, r->sum.excluded);
		for (k = 0; !why && k < r->nrd; k++)
			if (r->rd[k].excluded[0])
				why = r->rd[k].excluded;
	}
	hc_pr_text(p, "; first: %s\n", why);
}

/* What the path checks found, and why any did not check. */
static void path_text(struct hc_pr *p, const struct bench *b)
{
	const char *why = NULL;
	int i, ok = 0, bad = 0, no = 0;

	for (i = 0; i < b->rows.n; i++) {
		const struct bench_path *c = &b->rows.row[i].path_check;

		if (!c->checked) {
			no++;
			why = why ?: c->why;
		} else if (c->missing[0] || c->unexpected[0]) {
			bad++;
		} else {
			ok++;
		}
	}
	if (b->opt.no_path)
		hc_pr_text(p, "path: not checked (--no-path-check)\n");
	else
		hc_pr_text(
			p,
			"path: %d row%s ran the kernel functions they declare, %d did not (INVALID), %d unchecked%s%s (cpu-clock samples every %d us of the counted threads' CPU time, kernel callchains, in a visit after the warm-up)\n",
			ok, ok == 1 ? "" : "s", bad, no, why ? ": " : "",
			why ?: "", (int)(bench_path_period(&b->env) / 1000));
}

/*
 * The rows whose delta's interval is too wide to tell a small effect
 * from none (summary.h); on veth, inject's narrower intervals resolve
 * them.
 */
static void unresolved_text(struct hc_pr *p, const struct bench *b)
{
	const struct bench_row *base = NULL;
	char names[256] = "";
	size_t len = 0;
	int i, n = 0;

	for (i = 0; i < b->rows.n; i++) {
		const struct bench_row *r = &b->rows.row[i];

		if (!r->sum.unresolved || len >= sizeof(names))
			continue;
		n++;
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				len ? ", " : "", r->name);
		base = &b->rows.row[r->base];
	}
	if (!base)
		return;
	hc_pr_text(
		p,
		"unresolved: %s: the delta's interval spans 0 and is wider than +-%g%% of %s's cost (%.1f ns): an effect that small may be there or not",
		names, BENCH_UNRESOLVED_PCT, base->name,
		BENCH_UNRESOLVED_PCT / 100 * base->sum.ns.median);
	/* inject resolves them by leaving the veth pair out: live frames */
	if (!b->opt.dev && !b->net.topo->inject && b->net.feed == HC_GEN_LIVE)
		hc_pr_text(
			p,
			"; --topology inject resolves %s (its frames enter the receive path in bench's thread, without the veth pair's noise)",
			n > 1 ? "them" : "it");
	hc_pr_text(p, "\n");
}

/* The effect the rows' rounds detect with 80% power, over the rows. */
static void resolution(struct hc_pr *p, const struct bench_result *res)
{
	/* text: no line without one */
	if (p->mode == HC_PR_TEXT && isnan(res->resolution_ns))
		return;
	hc_pr_fnum(p, HC_PR_TEXT | HC_PR_JSON, "resolution_ns",
		   "resolution: effects of %.1f ns", res->resolution_ns);
	hc_pr_fnum(p, HC_PR_TEXT | HC_PR_JSON, "resolution_pct",
		   " (%.2f%%) or more are detected with 80%% power",
		   res->resolution_pct);
	hc_pr_text(p, " at %g%% (the median over rows of mde ns)\n",
		   BENCH_LEVEL * 100);
}

/* A signal cut the rounds short: how far they got (JSON: null if not). */
static void interrupted(struct hc_pr *p, const struct bench_opts *o,
			const struct bench_result *res)
{
	if (!hc_stop_sig) {
		hc_pr_fstr(p, HC_PR_JSON, "interrupted", NULL, NULL);
		return;
	}
	hc_pr_open(p, HC_PR_JSON, "interrupted", '{');
	hc_pr_fs64(p, HC_PR_TEXT | HC_PR_JSON, "after_round",
		   "interrupted after round %lld", res->nrounds);
	hc_pr_fu64(p, HC_PR_TEXT | HC_PR_JSON, "of", " of %llu\n",
		   o->target_ci ? o->max_rounds : o->rounds);
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* --target-ci: the width asked for, and whether the rounds reached it. */
static void target(struct hc_pr *p, const struct bench_opts *o,
		   const struct bench_result *res)
{
	/* text: no line without it */
	if (p->mode == HC_PR_TEXT && !o->target_ci)
		return;
	hc_pr_fnum(p, HC_PR_TEXT | HC_PR_JSON, "target_ci_pct",
		   "target-ci %g%%: ", o->target_ci ? o->target_ci : NAN);
	hc_pr_fnum(p, HC_PR_JSON, "max_time_s", NULL,
		   o->target_ci && o->max_time ? o->max_time : NAN);
	hc_pr_bool(p, HC_PR_JSON, "target_reached", NULL, 0,
		   o->target_ci ? res->target_reached : -1);
	hc_pr_text(p, "%s after %d round%s%s\n",
		   res->target_reached ? "reached" :
		   hc_stop_sig	       ? "stopped" :
					 "gave up",
		   res->nrounds, res->nrounds == 1 ? "" : "s",
		   res->target_reached || hc_stop_sig ? "" :
		   res->nrounds >= (int)o->max_rounds ? " (--max-rounds)" :
							" (--max-time)");
	/* how close the rounds came: the last check's widest interval */
	hc_pr_fnum(p, HC_PR_JSON, "widest_ci_pct", NULL,
		   res->widest_row ? res->widest_pct : NAN);
	hc_pr_fstr(p, res->widest_row ? HC_PR_TEXT | HC_PR_JSON : HC_PR_JSON,
		   "widest_ci_row", "  widest delta interval: %s's, ",
		   res->widest_row);
	if (res->widest_row && isinf(res->widest_pct))
		hc_pr_text(p, "too few rounds for one\n");
	else if (res->widest_row)
		hc_pr_text(
			p,
			"+-%.2f%% of its cost, against the target's +-%g%%\n",
			res->widest_pct, o->target_ci);
}

/* Setting rows up and taking them down: outside the timed windows. */
static void attach(struct hc_pr *p, const struct bench_rows *rows)
{
	double ms = attach_ms(rows);

	/* text: no line without it */
	if (p->mode == HC_PR_TEXT && isnan(ms))
		return;
	hc_pr_fnum(
		p, HC_PR_TEXT | HC_PR_JSON, "attach_ms_median",
		"setup and teardown: %.1f ms per row and round (median), outside the timed windows\n",
		ms);
}

void bench_growth_report(struct hc_pr *p, const struct bench_rows *rows,
			 const struct bench_result *res,
			 const struct bench_growth *g)
{
	const char *seen[BENCH_MAX_ROWS], *v;
	int i, k, n = 0, nrows;
	struct st_est e, pe;
	char est[96], key[32];

	snprintf(key, sizeof(key), "ns_per_%s", g->per);
	for (i = 0; i < rows->n; i++) {
		const char *m = rows->row[i].series;

		for (k = 0; m && k < n && strcmp(seen[k], m); k++)
			;
		if (!m || k < n)
			continue;
		seen[n++] = m;
		if (n == 1) {
			hc_pr_open(p, HC_PR_JSON, "growth", '[');
			hc_pr_text(
				p,
				"\ngrowth, ns/pkt per doubling of %s: Hodges-Lehmann [exact Wilcoxon %g%% interval] of each round's Theil-Sen slope of ns/pkt on log2 %s; O(1): the interval holds 0 or stays within +-%g ns; per %s: the same on %s (%s)%s%s%s\n",
				g->n, BENCH_LEVEL * 100, g->n, BENCH_FLAT_NS,
				g->per, g->n, g->what, g->load ? "; load: " : "",
				g->load ?: "", g->load ? ", median ms" : "");
		}
		bench_growth(rows, res, g, m, false, &e, &nrows);
		bench_growth(rows, res, g, m, true, &pe, &nrows);
		v = bench_growth_verdict(&e);
		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_str(p, HC_PR_JSON, g->series, NULL, 0, m);
		hc_pr_num(p, HC_PR_JSON, "rows", NULL, 0, 0, nrows);
		rp_est(p, HC_PR_JSON, "ns_per_doubling", NULL, 0, 2, true, &e);
		rp_est(p, HC_PR_JSON, key, NULL, 0, 4, true, &pe);
		hc_pr_str(p, HC_PR_JSON, "verdict", NULL, 0, v);
		hc_pr_close(p, HC_PR_JSON, '}');
		if (isnan(e.median))
			snprintf(est, sizeof(est), "-");
		else if (isnan(e.lo))
			snprintf(est, sizeof(est), "%+.2f [n/a]", e.median);
		else
			snprintf(est, sizeof(est), "%+.2f [%+.2f, %+.2f]",
				 e.median, e.lo, e.hi);
		hc_pr_text(p, "  %-20s %-26s %-6s", m, est, v ?: "n/a");
		if (isnan(pe.median))
			hc_pr_text(p, " per %s -", g->per);
		else if (isnan(pe.lo))
			hc_pr_text(p, " per %s %+.3f [n/a]", g->per, pe.median);
		else
			hc_pr_text(p, " per %s %+.3f [%+.3f, %+.3f]", g->per,
				   pe.median, pe.lo, pe.hi);
		if (g->load)
			hc_pr_text(p, " load");
		for (k = 0; g->load && k < rows->n; k++) {
			const struct bench_row *r = &rows->row[k];

			if (!r->series || strcmp(r->series, m))
				continue;
			/* a row never set up has no load time */
			if (isnan(bench_load_ms(r)))
				hc_pr_text(p, " %s=%u -", g->n, g->n_of(r));
			else
				hc_pr_text(p, " %s=%u %.1f", g->n, g->n_of(r),
					   bench_load_ms(r));
		}
		hc_pr_text(p, "\n");
	}
	if (n)
		hc_pr_close(p, HC_PR_JSON, ']');
}

void bench_report_text(const struct bench *b, FILE *f)
{
	struct hc_pr p = { .mode = HC_PR_TEXT, .f = f, .header = true };
	const struct bench_row *gen = NULL;
	int i, outliers = 0, counted = 0, nfew = 0, disagree = 0, slow = 0,
	       total = 0;

	p.measure = true;
	line(&p, b, &b->rows.row[0]);
	p.header = false;
	for (i = 0; i < b->rows.n; i++)
		line(&p, b, &b->rows.row[i]);
	p.measure = false;
	p.header = true;
	hc_pr_text(&p, "\n");
	line(&p, b, &b->rows.row[0]);
	p.header = false;
	for (i = 0; i < b->rows.n; i++) {
		line(&p, b, &b->rows.row[i]);
		outliers += b->rows.row[i].sum.outliers;
		counted += b->rows.row[i].sum.n;
		slow += b->rows.row[i].sum.contended;
		total += b->rows.row[i].nrd;
		nfew += !b->rows.row[i].reason[0] &&
			few(&b->rows.row[i].sum.ns);
		disagree += bench_disagrees(&b->rows, &b->rows.row[i]);
		if (b->rows.row[i].kind->generator &&
		    (!gen || b->rows.row[i].sum.drift > gen->sum.drift))
			gen = &b->rows.row[i];
	}
	if (b->opt.dev)
		device_text(&p, &b->net, &b->rows);
	hc_pr_text(&p, "\n");
	b->net.topo->describe(b, f);
	hc_pr_text(
		&p,
		"delta, ratio: Hodges-Lehmann estimate [exact Wilcoxon signed-rank %g%% interval] of the per-round pairs; ns/pkt: median [distribution-free interval]; sig: the delta's interval excludes 0\n",
		BENCH_LEVEL * 100);
	resolution(&p, &b->res);
	interrupted(&p, &b->opt, &b->res);
	unresolved_text(&p, b);
	target(&p, &b->opt, &b->res);
	attach(&p, &b->rows);
	if (disagree)
		hc_pr_text(
			&p,
			"unpaired-disagrees: %d row%s whose median ns/pkt and paired delta differ in sign; the machine's speed changed between windows, and the delta, paired per round, is the one to read (doc/methodology.md, \"Baselines, pairing and intervals\")\n",
			disagree, disagree > 1 ? "s" : "");
	if (nfew)
		hc_pr_text(
			&p,
			"intervals and sig: n/a for %d row%s with fewer than %d rounds: a %g%% interval of a median needs %d (min to max misses it with probability 2^(1-n)); use --rounds %d or more\n",
			nfew, nfew > 1 ? "s" : "", st_min_n(BENCH_LEVEL),
			BENCH_LEVEL * 100, st_min_n(BENCH_LEVEL),
			st_min_n(BENCH_LEVEL));
	if (slow)
		hc_pr_text(
			&p,
			"%d of %d row-rounds contended (their fastest window over %gx the row's fastest round's: the host's slow state throughout); left out of costs, deltas and ratios\n",
			slow, total, BENCH_CONTENDED);
	if (outliers)
		hc_pr_text(
			&p,
			"%d of %d row-rounds %s (modified z > %.1f, of the paired delta; of the cost for baselines and generators); %s kept in every number\n",
			outliers, counted,
			outliers > 1 ? "are outliers" : "is an outlier",
			BENCH_OUTLIER_Z, outliers > 1 ? "they are" : "it is");
	excluded_text(&p, &b->rows);
	if (gen && gen->sum.drift > BENCH_DRIFT_MAX)
		hc_pr_text(
			&p,
			"Warning: the generator's own time per packet drifted by %.0f%% over the run (%s)\n",
			(gen->sum.drift - 1) * 100, gen->name);
	if (b->env.emulated)
		hc_pr_text(
			&p,
			"Warning: an emulated CPU (hypervisor signature %s, qemu TCG): these timings say nothing about real hardware\n",
			b->env.hypervisor);
	path_text(&p, b);
	if (b->rows.scen->report)
		b->rows.scen->report(&p, b);
	for (i = 0; b->opt.profile && i < b->rows.n; i++)
		if (b->rows.row[i].npfn)
			profile_row(&p, &b->opt, &b->rows, &b->rows.row[i]);
}

/* --dev: the device under test, as bench found it. */
static void dut_json(struct hc_pr *p, const struct bench_opts *o,
		     const struct bench_net *net)
{
	const struct bench_dut *d = bench_dev_dut(net);
	char mac[18];

	hc_mac_str(net->dut_mac, mac, sizeof(mac));
	hc_pr_open(p, HC_PR_JSON, "device", '{');
	hc_pr_fstr(p, HC_PR_JSON, "name", NULL, net->dut_name);
	hc_pr_fstr(p, HC_PR_JSON, "netns", NULL, o->netns ?: "");
	hc_pr_fstr(p, HC_PR_JSON, "driver", NULL, d->driver);
	hc_pr_fu64(p, HC_PR_JSON, "rx_queues", NULL, d->queues);
	hc_pr_fstr(p, HC_PR_JSON, "rx_cpus_where", NULL, d->irq_cpus);
	hc_pr_fu64(p, HC_PR_JSON, "rx_cpus_seen", NULL, d->rx_cpus);
	hc_pr_fstr(p, HC_PR_JSON, "rx_cpus_counted", NULL, d->rx_list);
	hc_pr_fstr(p, HC_PR_JSON, "pinned_cpus", NULL, d->pinned_list);
	hc_pr_bool(p, HC_PR_JSON, "gro", NULL, 0, d->gro);
	hc_pr_bool(p, HC_PR_JSON, "threaded_napi", NULL, 0, d->threaded);
	hc_pr_fstr(p, HC_PR_JSON, "dst_mac", NULL, mac);
	hc_pr_fstr(p, HC_PR_JSON, "dst_ip", NULL, net->dut_ip);
	hc_pr_fu64(p, HC_PR_JSON, "dst_port", NULL, 9);
	hc_pr_fstr(p, HC_PR_JSON, "traffic", NULL,
		   o->gen_cmd ? "gen-cmd" : "external");
	if (o->gen_cmd)
		hc_pr_fstr(p, HC_PR_JSON, "gen_cmd", NULL, o->gen_cmd);
	else
		hc_pr_fnum(p, HC_PR_JSON, "window_s", NULL, o->window);
	hc_pr_fstr(p, HC_PR_JSON, "other_dev", NULL, net->other_name);
	hc_pr_fstr(p, HC_PR_JSON, "tune", NULL, o->tune ?: "");
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* The machine, and how the rounds were run and estimated. */
static void env_json(struct hc_pr *p, const struct bench *b)
{
	const struct bench_env *e = &b->env;
	int i;

	hc_pr_open(p, HC_PR_JSON, "env", '{');
	hc_pr_fu64(p, HC_PR_JSON, "cpus", NULL, e->cpus);
	hc_pr_bool(p, HC_PR_JSON, "bpf_jit", NULL, 0, e->jit);
	hc_pr_bool(p, HC_PR_JSON, "live_frames", NULL, 0, e->live);
	hc_pr_fstr(p, HC_PR_JSON, "live_refused", NULL,
		   e->live ? NULL : e->live_why);
	/* how frames reached the DUT: --dev's are the generator's own */
	hc_pr_fstr(p, HC_PR_JSON, "feed", NULL,
		   b->opt.dev ? NULL : hc_gen_method_name(b->net.feed));
	if (b->net.feed == HC_GEN_STAGE && !b->opt.dev)
		hc_pr_fu64(p, HC_PR_JSON, "stage_copies", NULL,
			   b->opt.stage_copies);
	hc_pr_bool(p, HC_PR_JSON, "tcx", NULL, 0, e->tcx);
	hc_pr_fstr(p, HC_PR_JSON, "clock", NULL,
		   e->cpu_clock ? "task-clock" : "wall");
	hc_pr_lines(p, HC_PR_JSON, "outside", NULL, e->outside);
	hc_pr_open(p, HC_PR_JSON, "settings", '{');
	for (i = 0; i < BENCH_ENV_FILES; i++)
		hc_pr_fstr(p, HC_PR_JSON, bench_env_files[i].key, NULL,
			   e->value[i][0] ? e->value[i] : NULL);
	hc_pr_close(p, HC_PR_JSON, '}');
	hc_pr_fstr(p, HC_PR_JSON, "cpu_model", NULL, e->cpu_model);
	hc_pr_lines(p, HC_PR_JSON, "mitigations", NULL, e->mitigations);
	hc_pr_fstr(p, HC_PR_JSON, "kernel_config_fnv1a", NULL,
		   e->config_hash[0] ? e->config_hash : NULL);
	hc_pr_fstr(p, HC_PR_JSON, "hookcmp_version", NULL, HC_VERSION);
	hc_pr_lines(p, HC_PR_JSON, "changed_during_run", NULL, e->changed);
	hc_pr_fstr(p, HC_PR_JSON, "kernel", NULL, e->kernel);
	hc_pr_fstr(p, HC_PR_JSON, "hypervisor", NULL, e->hypervisor);
	hc_pr_bool(p, HC_PR_JSON, "emulated", NULL, 0, e->emulated);
	/* inject: every packet's work in bench's thread, by construction */
	hc_pr_bool(p, HC_PR_JSON, "work_in_bench_thread", NULL, 0,
		   b->net.topo->inject);
	if (!b->opt.dev) {
		hc_pr_fu64(p, HC_PR_JSON, "windows", NULL, b->opt.windows);
		hc_pr_fu64(p, HC_PR_JSON, "window_packets", NULL,
			   b->opt.window_packets);
		hc_pr_fnum(p, HC_PR_JSON, "window_quantile", NULL,
			   BENCH_WINDOW_Q);
	}
	hc_pr_fu64(p, HC_PR_JSON, "warmup_rounds", NULL, 1);
	hc_pr_fu64(p, HC_PR_JSON, "min_rounds", NULL, b->opt.rounds);
	hc_pr_fu64(p, HC_PR_JSON, "max_rounds", NULL,
		   b->opt.target_ci ? b->opt.max_rounds : b->opt.rounds);
	interrupted(p, &b->opt, &b->res);
	target(p, &b->opt, &b->res);
	hc_pr_fstr(p, HC_PR_JSON, "interval", NULL, "hodges-lehmann-wilcoxon");
	hc_pr_fnum(p, HC_PR_JSON, "level", NULL, BENCH_LEVEL);
	attach(p, &b->rows);
	hc_pr_close(p, HC_PR_JSON, '}');
}

void bench_report_json(const struct bench *b, FILE *f)
{
	struct hc_pr p = HC_PR_INIT(HC_PR_JSON, f);
	int i;

	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(&p, HC_PR_JSON, "type", NULL, "bench");
	bench_plan_kind_json(&p, b);
	hc_pr_fu64(&p, HC_PR_JSON, "rounds", NULL, b->res.nrounds);
	hc_pr_fu64(&p, HC_PR_JSON, "seed", NULL, b->opt.seed);
	hc_pr_fstr(&p, HC_PR_JSON, "baseline", NULL, b->rows.scen->baseline);
	resolution(&p, &b->res);
	bench_plan_json(&p, b);
	env_json(&p, b);
	if (b->opt.dev)
		dut_json(&p, &b->opt, &b->net);
	hc_pr_open(&p, HC_PR_JSON, "rows", '[');
	for (i = 0; i < b->rows.n; i++) {
		hc_pr_open(&p, HC_PR_JSON, NULL, '{');
		row_columns(&p, b, &b->rows.row[i]);
		hc_pr_close(&p, HC_PR_JSON, '}');
	}
	hc_pr_close(&p, HC_PR_JSON, ']');
	if (b->rows.scen->report)
		b->rows.scen->report(&p, b);
	hc_pr_close(&p, HC_PR_JSON, '}');
}

void bench_report_csv(const struct bench *b, FILE *f)
{
	struct hc_pr p = { .mode = HC_PR_CSV, .f = f, .header = true };
	int i;

	line(&p, b, &b->rows.row[0]);
	p.header = false;
	for (i = 0; i < b->rows.n; i++)
		line(&p, b, &b->rows.row[i]);
}
