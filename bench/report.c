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
#include "json.h"

enum { RP_TEXT = 1, RP_JSON = 2, RP_CSV = 4 };
#define RP_ALL (RP_TEXT | RP_JSON | RP_CSV)
#define RP_DATA (RP_JSON | RP_CSV) /* the machine-read outputs */

struct rp {
	int mode;
	FILE *f;
	struct hc_json j;
	bool header; /* text and CSV: the column names instead of values */
	int col; /* columns printed on this line */
	const char *obj; /* CSV: the open object's key, its fields' prefix */
};

static void sep(struct rp *p)
{
	if (p->col++)
		fputc(p->mode == RP_CSV ? ',' : ' ', p->f);
}

/* CSV: "obj_key" inside an object. */
static void csv_name(struct rp *p, const char *key, const char *suffix)
{
	sep(p);
	fprintf(p->f, "%s%s%s%s", p->obj ? p->obj : "", p->obj ? "_" : "", key,
		suffix);
}

static void csv_str(struct rp *p, const char *s)
{
	sep(p);
	if (!s)
		return;
	fputc('"', p->f);
	for (; *s; s++)
		fprintf(p->f, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', p->f);
}

static void csv_num(struct rp *p, int prec, double v)
{
	sep(p);
	if (!isnan(v))
		fprintf(p->f, "%.*f", prec, v);
}

static void json_num(struct rp *p, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		jw_raw(&p->j, key, "null");
	else
		jw_f64(&p->j, key, v);
}

/* Text: width < 0 aligns left; the last column has width 0. */
static void text_cell(struct rp *p, int width, const char *s)
{
	sep(p);
	fprintf(p->f, "%*s", width, s);
}

static void rp_str(struct rp *p, int which, const char *key, const char *label,
		   int width, const char *s)
{
	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON) {
		if (s)
			jw_str(&p->j, key, s);
		else
			jw_raw(&p->j, key, "null");
	} else if (p->mode == RP_CSV) {
		if (p->header)
			csv_name(p, key, "");
		else
			csv_str(p, s);
	} else {
		text_cell(p, width, p->header ? label : s ? s : "-");
	}
}

static void rp_bool(struct rp *p, int which, const char *key, const char *label,
		    int width, bool v)
{
	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON)
		jw_raw(&p->j, key, v ? "true" : "false");
	else if (p->mode == RP_CSV && p->header)
		csv_name(p, key, "");
	else if (p->mode == RP_CSV)
		sep(p), fputs(v ? "true" : "false", p->f);
	else
		text_cell(p, width, p->header ? label : v ? "yes" : "no");
}

static void rp_num(struct rp *p, int which, const char *key, const char *label,
		   int width, int prec, double v)
{
	char buf[32] = "-";

	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON) {
		json_num(p, key, v);
	} else if (p->mode == RP_CSV) {
		if (p->header)
			csv_name(p, key, "");
		else
			csv_num(p, prec, v);
	} else {
		if (!isnan(v))
			snprintf(buf, sizeof(buf), "%.*f", prec, v);
		text_cell(p, width, p->header ? label : buf);
	}
}

/* A median and its interval: {"median":M,"ci":[LO,HI]}, or "M [LO, HI]". */
static void rp_est(struct rp *p, int which, const char *key, const char *label,
		   int width, int prec, bool sign, const struct st_est *e)
{
	const char *f = sign ? "%+.*f [%+.*f, %+.*f]" : "%.*f [%.*f, %.*f]";
	char buf[96] = "-";

	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON) {
		jw_open(&p->j, key, '{');
		json_num(p, "median", e->median);
		jw_open(&p->j, "ci", '[');
		json_num(p, NULL, e->lo);
		json_num(p, NULL, e->hi);
		jw_close(&p->j, ']');
		jw_close(&p->j, '}');
	} else if (p->mode == RP_CSV && p->header) {
		csv_name(p, key, "_median");
		csv_name(p, key, "_ci_lo");
		csv_name(p, key, "_ci_hi");
	} else if (p->mode == RP_CSV) {
		csv_num(p, prec + 3, e->median);
		csv_num(p, prec + 3, e->lo);
		csv_num(p, prec + 3, e->hi);
	} else {
		if (!isnan(e->median))
			snprintf(buf, sizeof(buf), f, prec, e->median, prec,
				 e->lo, prec, e->hi);
		text_cell(p, width, p->header ? label : buf);
	}
}

static void rp_list(struct rp *p, int which, const char *key,
		    const char *const *items, int n)
{
	char buf[256] = "";
	size_t len = 0;
	int i;

	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON) {
		jw_open(&p->j, key, '[');
		for (i = 0; i < n; i++)
			jw_str(&p->j, NULL, items[i]);
		jw_close(&p->j, ']');
		return;
	}
	for (i = 0; i < n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? ";" : "", items[i]);
	rp_str(p, which, key, key, 0, buf);
}

static void rp_open(struct rp *p, int which, const char *key)
{
	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON)
		jw_open(&p->j, key, '{');
	p->obj = key;
}

static void rp_close(struct rp *p, int which)
{
	if (!(which & p->mode))
		return;
	if (p->mode == RP_JSON)
		jw_close(&p->j, '}');
	p->obj = NULL;
}

static void rounds_json(struct rp *p, const struct bench_row *r)
{
	int i;

	jw_open(&p->j, "rounds", '[');
	for (i = 0; i < r->nrd; i++) {
		const struct bench_round *rd = &r->rd[i];

		jw_open(&p->j, NULL, '{');
		jw_u64(&p->j, "round", rd->round);
		jw_u64(&p->j, "order", rd->order);
		jw_u64(&p->j, "generated", rd->generated);
		jw_u64(&p->j, "seen", rd->seen);
		jw_u64(&p->j, "dropped_before", rd->dropped_before);
		jw_u64(&p->j, "dropped_dut", rd->dropped_dut);
		json_num(p, "mpps", rd->mpps);
		json_num(p, "ns", rd->ns);
		jw_raw(&p->j, "outlier", rd->outlier ? "true" : "false");
		json_num(p, "secs", rd->secs);
		json_num(p, "cpu_ns", rd->cpu_ns);
		json_num(p, "own_ns", rd->own_ns);
		json_num(p, "pkt_ns", rd->pkt_ns);
		json_num(p, "setup_ms", rd->setup_ms);
		json_num(p, "teardown_ms", rd->teardown_ms);
		jw_close(&p->j, '}');
	}
	jw_close(&p->j, ']');
}

/* Every column of a row, for every output: the one place they are named. */
static void row_columns(struct rp *p, const struct bench *b,
			const struct bench_row *r)
{
	const struct bench_sum *s = &r->sum;
	const char *flags[8];
	int nf = bench_flags(b, r, flags, 8), i;
	char valid[320], delta[64], ratio[64];
	size_t len;

	rp_str(p, RP_ALL, "name", "row", -22, r->name);
	rp_bool(p, RP_DATA, "valid", NULL, 0, !r->reason[0]);
	rp_str(p, RP_DATA, "reason", NULL, 0, r->reason[0] ? r->reason : NULL);
	rp_list(p, RP_DATA, "flags", flags, nf);
	rp_open(p, RP_DATA, "mpps");
	rp_num(p, RP_ALL, "median", "Mpps", 7, 3, s->mpps_med);
	rp_num(p, RP_DATA, "min", NULL, 0, 3, s->mpps_min);
	rp_num(p, RP_DATA, "max", NULL, 0, 3, s->mpps_max);
	rp_close(p, RP_DATA);
	snprintf(delta, sizeof(delta), "delta ns vs %s", b->scen->baseline);
	snprintf(ratio, sizeof(ratio), "ratio vs %s", b->scen->baseline);
	rp_est(p, RP_ALL, "ns", "ns/pkt", 23, 1, false, &s->ns);
	rp_est(p, RP_ALL, "delta_ns", delta, 24, 1, true, &s->delta);
	rp_est(p, RP_ALL, "ratio", ratio, 22, 3, false, &s->ratio);
	rp_bool(p, RP_ALL, "significant", "sig", 3, s->significant);

	len = snprintf(valid, sizeof(valid), "%s%s",
		       r->reason[0] ? "INVALID: " : "yes", r->reason);
	for (i = 0; i < nf && len < sizeof(valid); i++) {
		len += snprintf(valid + len, sizeof(valid) - len, "%s",
				i ? ", " : " (");
		/* The table counts what the JSON lists round by round. */
		if (!strcmp(flags[i], "outliers"))
			len += snprintf(valid + len, sizeof(valid) - len,
					"%d outlier round%s", s->outliers,
					s->outliers > 1 ? "s" : "");
		else
			len += snprintf(valid + len, sizeof(valid) - len, "%s",
					flags[i]);
	}
	if (nf && len < sizeof(valid))
		snprintf(valid + len, sizeof(valid) - len, ")");
	rp_str(p, RP_TEXT, NULL, "valid", 0, valid);
	if (p->mode == RP_JSON)
		rounds_json(p, r);
}

static void line(struct rp *p, const struct bench *b, const struct bench_row *r)
{
	p->col = 0;
	row_columns(p, b, r);
	fputc('\n', p->f);
}

static const char *const cpu_mode_names[] = { "split", "inline" };

static double attach_ms(const struct bench *b)
{
	double *v, m;
	int i, k, n = 0;

	for (i = 0; i < b->nrows; i++)
		n += b->rows[i].nrd;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return NAN;
	for (i = 0, n = 0; i < b->nrows; i++)
		for (k = 0; k < b->rows[i].nrd; k++)
			v[n++] = b->rows[i].rd[k].setup_ms +
				 b->rows[i].rd[k].teardown_ms;
	m = st_median(v, n);
	free(v);
	return m;
}

void bench_report_text(const struct bench *b, FILE *f)
{
	struct rp p = { .mode = RP_TEXT, .f = f, .header = true };
	const struct bench_row *gen = NULL;
	double setup = attach_ms(b);
	int i, outliers = 0;

	fputc('\n', f);
	line(&p, b, &b->rows[0]);
	p.header = false;
	for (i = 0; i < b->nrows; i++) {
		line(&p, b, &b->rows[i]);
		outliers += b->rows[i].sum.outliers;
		if (b->rows[i].kind->generator &&
		    (!gen || b->rows[i].sum.drift > gen->sum.drift))
			gen = &b->rows[i];
	}
	fprintf(f, "\n%s mode, %d rounds of %u packets, seed %u; ",
		cpu_mode_names[b->cpu_mode], b->nrounds, b->packets, b->seed);
	fprintf(f, "delta and ratio against %s, paired per round\n",
		b->scen->baseline);
	fprintf(f,
		"median [95%% interval]: percentile bootstrap over whole rounds; sig: the delta's interval excludes 0\n");
	fprintf(f, "ns/pkt: %s time per packet%s; Mpps: by the wall clock\n",
		b->env.cpu_clock ? "CPU" : "wall-clock",
		b->cpu_mode == BENCH_INLINE ?
			" of the row less gen-only's in the same round" :
			" of the DUT's NAPI thread, for what it saw");
	if (!isnan(b->resolution_ns))
		fprintf(f,
			"resolution: differences under %.1f ns (%.2f%%) are not distinguishable here\n",
			b->resolution_ns, b->resolution_pct);
	if (b->target_ci)
		fprintf(f, "target-ci %g%%: %s after %d rounds\n", b->target_ci,
			b->target_reached ? "reached" : "gave up", b->nrounds);
	if (!isnan(setup))
		fprintf(f,
			"setup and teardown: %.1f ms per row and round (median), outside the timed windows\n",
			setup);
	if (outliers)
		fprintf(f,
			"%d %s (modified z > %.1f); %s kept in every number\n",
			outliers,
			outliers > 1 ? "rounds are outliers" :
				       "round is an outlier",
			BENCH_OUTLIER_Z, outliers > 1 ? "they are" : "it is");
	if (gen && gen->sum.drift > BENCH_DRIFT_MAX)
		fprintf(f,
			"Warning: the generator's own time per packet drifted by %.0f%% over the run (%s)\n",
			(gen->sum.drift - 1) * 100, gen->name);
	if (b->env.emulated)
		fprintf(f,
			"Warning: an emulated CPU (%s): these timings say nothing about real hardware\n",
			b->env.hypervisor);
}

void bench_report_json(const struct bench *b, FILE *f)
{
	struct rp p = { .mode = RP_JSON, .f = f, .j = { .f = f } };
	struct hc_json *j = &p.j;
	int i;

	jw_open(j, NULL, '{');
	jw_str(j, "type", "bench");
	jw_str(j, "scenario", b->scen->name);
	jw_str(j, "cpu_mode", cpu_mode_names[b->cpu_mode]);
	jw_u64(j, "rounds", b->nrounds);
	jw_u64(j, "seed", b->seed);
	jw_str(j, "baseline", b->scen->baseline);
	json_num(&p, "resolution_ns", b->resolution_ns);
	json_num(&p, "resolution_pct", b->resolution_pct);
	jw_open(j, "env", '{');
	jw_u64(j, "cpus", b->env.cpus);
	jw_raw(j, "bpf_jit", b->env.jit ? "true" : "false");
	jw_raw(j, "live_frames", b->env.live ? "true" : "false");
	jw_raw(j, "tcx", b->env.tcx ? "true" : "false");
	jw_str(j, "clock", b->env.cpu_clock ? "task-clock" : "wall");
	jw_str(j, "foreign_ingress_qdisc", b->env.foreign);
	jw_str(j, "kernel", b->env.kernel);
	jw_str(j, "hypervisor", b->env.hypervisor);
	jw_raw(j, "emulated", b->env.emulated ? "true" : "false");
	jw_u64(j, "packets_per_round", b->packets);
	jw_u64(j, "warmup_rounds", 1);
	jw_u64(j, "min_rounds", b->rounds);
	jw_u64(j, "max_rounds", b->target_ci ? b->max_rounds : b->rounds);
	json_num(&p, "target_ci_pct", b->target_ci ? b->target_ci : NAN);
	jw_raw(j, "target_reached",
	       !b->target_ci	 ? "null" :
	       b->target_reached ? "true" :
				   "false");
	jw_u64(j, "resamples", BENCH_RESAMPLES);
	json_num(&p, "level", BENCH_LEVEL);
	json_num(&p, "attach_ms_median", attach_ms(b));
	jw_close(j, '}');
	jw_open(j, "rows", '[');
	for (i = 0; i < b->nrows; i++) {
		jw_open(j, NULL, '{');
		row_columns(&p, b, &b->rows[i]);
		jw_close(j, '}');
	}
	jw_close(j, ']');
	jw_close(j, '}');
}

void bench_report_csv(const struct bench *b, FILE *f)
{
	struct rp p = { .mode = RP_CSV, .f = f, .header = true };
	int i;

	line(&p, b, &b->rows[0]);
	p.header = false;
	for (i = 0; i < b->nrows; i++)
		line(&p, b, &b->rows[i]);
}
