// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp bench compare OLD.json NEW.json: what changed between two bench
 * runs (a kernel before and after a patch), row by row, with intervals,
 * in the manner of benchstat. Exit 1 when a row got slower than
 * --threshold with its interval past it: a kernel CI can gate on it.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bench.h"
#include "cli.h"
#include "exec.h"
#include "print.h"

struct cmp_cmd {
	bool json, pretty, help, allow;
	double threshold;
	__u32 seed;
	const char *plot_dir;
};

#define C(f) offsetof(struct cmp_cmd, f)

static const struct hc_opt cmp_opts[] = {
	{ "threshold", 0, HC_OPT_PCT, C(threshold), "PCT",
	  "exit 1 when a row is slower by more than PCT%, its interval past it",
	  NULL, 0, 1000 },
	{ "allow-mismatch", 0, HC_OPT_FLAG, C(allow), NULL,
	  "compare runs of different scenarios, topologies, CPU modes or frame sizes" },
	{ "seed", 0, HC_OPT_U32, C(seed), "S",
	  "seed of the bootstrap's resamples (default: a fixed one)", NULL, 0,
	  0xffffffff },
	{ "plot", 0, HC_OPT_STR, C(plot_dir), "DIR",
	  "a chart of the changes with their intervals (PNG and SVG) into DIR" },
	HC_OPT_JSON(C(json), "the comparison as one JSON document"),
	HC_OPT_PRETTY(C(pretty)),
	HC_OPT_HELP(C(help)),
	{}
};

static void usage(void)
{
	printf("Usage: hookcmp bench compare [OPTIONS] OLD.json NEW.json\n\n"
	       "Compares two bench runs (hookcmp bench -o FILE) row by row: each row's\n"
	       "change in cost NEW/OLD, and the same against each run's baseline row,\n"
	       "which cancels a shift of the whole machine between the runs, with\n"
	       "bootstrap 95%% intervals; \"same\" when the interval holds no change.\n\n");
	hc_opts_help(stdout, cmp_opts, NULL);
}

static struct jp *load(const char *path, int *code)
{
	char why[256];
	struct jp *doc;
	int err = 0;
	char *text = hc_read_file(path, &err);

	if (!text) {
		*code = hc_fail(HC_EXIT_USAGE, "bench compare: %s: %s", path,
				strerror(-err));
		return NULL;
	}
	err = jp_parse(text, &doc, why, sizeof(why));
	free(text);
	if (err) {
		*code = hc_fail(HC_EXIT_USAGE,
				"bench compare: %s: not JSON: %s", path, why);
		return NULL;
	}
	return doc;
}

/* A change as a percent: 1.05 is "+5.0%". */
static void pct(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.1f%%", (v - 1) * 100);
}

/* One estimate: JSON {"median", "ci"}, text "+1.2% [-0.3%, +2.8%]". */
static void est(struct hc_pr *p, const char *key, const char *label,
		const struct st_est *e)
{
	char text[96], m[24], lo[24], hi[24];

	if (p->mode == HC_PR_JSON) {
		hc_pr_json_est(p, key, e->median, e->lo, e->hi);
		return;
	}
	pct(m, sizeof(m), e->median);
	pct(lo, sizeof(lo), e->lo);
	pct(hi, sizeof(hi), e->hi);
	if (isnan(e->lo))
		snprintf(text, sizeof(text), "%s", m);
	else
		snprintf(text, sizeof(text), "%s [%s, %s]", m, lo, hi);
	hc_pr_str(p, HC_PR_TEXT, NULL, label, -24, text);
}

static void row_columns(struct hc_pr *p, const struct bench_cmp_row *r)
{
	hc_pr_str(p, HC_PR_ALL, "name", "row", -22, r->name);
	hc_pr_num(p, HC_PR_ALL, "old_ns", "old ns/pkt", 10, 1, r->old_ns);
	hc_pr_num(p, HC_PR_ALL, "new_ns", "new ns/pkt", 10, 1, r->new_ns);
	est(p, "change", "change [95%]", &r->change);
	est(p, "change_vs_baseline", "vs baseline [95%]", &r->vs_base);
	hc_pr_str(p, HC_PR_ALL, "verdict", "verdict", -8, r->verdict);
	hc_pr_str(p, HC_PR_DATA, "verdict_from", NULL, 0,
		  !strcmp(r->verdict, "old only") ||
				  !strcmp(r->verdict, "new only") ?
			  NULL :
		  r->has_base ? "baseline" :
				"raw");
	hc_pr_num(p, HC_PR_ALL, "mde_pct", "mde %", 6, 1, r->mde_pct);
	hc_pr_str(p, HC_PR_ALL, "why", "", 0, r->why[0] ? r->why : NULL);
}

static void run_json(struct hc_json *j, const char *key, const char *path,
		     const struct jp *doc)
{
	jw_open(j, key, '{');
	jw_str(j, "file", path);
	jw_str(j, "scenario", jp_str(doc, "scenario", ""));
	jw_str(j, "topology", jp_str(doc, "topology", ""));
	jw_str(j, "kernel", jp_str(jp_get(doc, "env"), "kernel", ""));
	jw_u64(j, "rounds", jp_num(doc, "rounds", 0));
	jw_close(j, '}');
}

static void report(const struct cmp_cmd *o, const char *const *path,
		   const struct jp *const *doc, const struct bench_cmp *c,
		   FILE *f)
{
	struct hc_pr p = { .mode = o->json ? HC_PR_JSON : HC_PR_TEXT,
			   .f = f,
			   .j = { .f = f } };
	int i, k;

	if (o->json) {
		jw_open(&p.j, NULL, '{');
		jw_str(&p.j, "type", "compare");
		run_json(&p.j, "old", path[0], doc[0]);
		run_json(&p.j, "new", path[1], doc[1]);
		hc_pr_json_num(&p, "threshold_pct", o->threshold ?: NAN);
		hc_pr_json_num(&p, "level", BENCH_LEVEL);
		jw_str(&p.j, "interval", "percentile bootstrap");
		if (c->mismatch[0])
			jw_str(&p.j, "mismatch", c->mismatch);
		else
			jw_raw(&p.j, "mismatch", "null");
		jw_u64(&p.j, "regressed", c->regressed);
		jw_open(&p.j, "rows", '[');
		for (i = 0; i < c->n; i++) {
			jw_open(&p.j, NULL, '{');
			row_columns(&p, &c->rows[i]);
			jw_close(&p.j, '}');
		}
		jw_close(&p.j, ']');
		jw_close(&p.j, '}');
		fputc('\n', f);
		return;
	}
	for (k = 0; k < 2; k++)
		fprintf(f, "%s: %s (%s, %s, %g rounds, kernel %s)\n",
			k ? "new" : "old", path[k],
			jp_str(doc[k], "scenario", "?"),
			jp_str(doc[k], "topology", "?"),
			jp_num(doc[k], "rounds", 0),
			jp_str(jp_get(doc[k], "env"), "kernel", "?"));
	if (c->mismatch[0])
		fprintf(f, "Warning: the runs differ (--allow-mismatch): %s\n",
			c->mismatch);
	fputc('\n', f);
	/* a pass to size the columns, then the header and the rows */
	for (k = 0; k < 2; k++) {
		p.measure = !k;
		p.header = true;
		p.col = 0;
		row_columns(&p, &c->rows[0]);
		hc_pr_end(&p);
		p.header = false;
		for (i = 0; i < c->n; i++) {
			p.col = 0;
			row_columns(&p, &c->rows[i]);
			hc_pr_end(&p);
		}
	}
	fprintf(f,
		"\nchange: median ns/pkt NEW/OLD over each run's rounds; vs baseline: the same of each round's ratio to its baseline row's round, which a shift of the whole machine between the runs cancels; [95%%]: percentile bootstrap, each run's rounds resampled apart (%d resamples); verdict from vs baseline where the row has one (only those fail --threshold: a raw change moves with the machine as much as with a patch); mde: the interval's half-width, the smallest change these runs tell from none\n",
		ST_BOOT_N);
	if (o->threshold)
		fprintf(f, "threshold %g%%: %d row%s slower past it\n",
			o->threshold, c->regressed,
			c->regressed == 1 ? "" : "s");
}

static int plot(const struct cmp_cmd *o, const char *const *path,
		const struct jp *const *doc, const struct bench_cmp *c)
{
	char sh[512], json[4200], out[4096];
	const char *argv[] = { "sh", sh, json, o->plot_dir, NULL };
	struct cmp_cmd jo = *o;
	struct hc_err err = {};
	FILE *f;
	int ret;

	ret = bench_plot_sh(sh, sizeof(sh));
	if (ret)
		return ret;
	if (mkdir(o->plot_dir, 0755) && errno != EEXIST)
		return hc_fail(HC_EXIT_USAGE, "--plot %s: %s", o->plot_dir,
			       strerror(errno));
	snprintf(json, sizeof(json), "%s/compare.json", o->plot_dir);
	f = fopen(json, "w");
	if (!f)
		return hc_fail(HC_EXIT_FAIL, "--plot: %s: %s", json,
			       strerror(errno));
	jo.json = true;
	report(&jo, path, doc, c, f);
	if (fclose(f))
		return hc_fail(HC_EXIT_FAIL, "--plot: %s: %s", json,
			       strerror(errno));
	ret = hc_exec(-1, argv, out, sizeof(out), &err);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "%s: %s", sh, err.msg);
	fprintf(stderr, "chart in %s\n", o->plot_dir);
	return 0;
}

int cmd_bench_compare(int argc, char **argv)
{
	struct cmp_cmd o = {};
	struct bench_cmp_opts opts = {};
	struct bench_cmp c = {};
	struct jp *doc[2] = {};
	const char *pos[2];
	unsigned long long given = 0;
	struct hc_err err = {};
	char why[512];
	int npos, ret, code = 0;

	ret = hc_opts_parse(cmp_opts, &o, argc, argv, pos, &npos, 2, &given,
			    &err);
	hc_json_pretty = o.pretty;
	o.json |= o.pretty;
	hc_json_mode = o.json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "bench compare: %s", err.msg);
	if (o.help) {
		usage();
		return 0;
	}
	if (npos != 2)
		return hc_fail(
			HC_EXIT_USAGE,
			"bench compare: needs OLD.json and NEW.json, two bench runs (hookcmp bench -o FILE)");
	doc[0] = load(pos[0], &code);
	doc[1] = doc[0] ? load(pos[1], &code) : NULL;
	if (!doc[1])
		goto out;
	opts.allow_mismatch = o.allow;
	opts.threshold = o.threshold;
	opts.seed = o.seed ?: 0x5eed5eed;
	ret = bench_compare(doc[0], doc[1], &opts, &c, why, sizeof(why));
	if (ret) {
		code = ret == -ENOMEM ?
			       hc_fail(HC_EXIT_FAIL, "bench compare: %s",
				       strerror(ENOMEM)) :
			       hc_fail(HC_EXIT_USAGE, "bench compare: %s", why);
		goto out;
	}
	if (!c.n) {
		code = hc_fail(HC_EXIT_USAGE,
			       "bench compare: no rows in either run");
		goto out;
	}
	report(&o, pos, (const struct jp *const *)doc, &c, stdout);
	fflush(stdout);
	if (o.plot_dir)
		code = plot(&o, pos, (const struct jp *const *)doc, &c);
	if (!code && c.regressed)
		code = HC_EXIT_FAIL;
out:
	bench_compare_free(&c);
	jp_free(doc[0]);
	jp_free(doc[1]);
	return code;
}
