// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp bench compare OLD.json... -- NEW.json...: what changed between
 * two sets of bench runs (a kernel before and after a patch), row by row,
 * with intervals over runs. Exit 1 when a row got slower than --threshold
 * with its interval past it: a kernel CI can gate on it.
 * hookcmp bench calibrate RUN.json...: the between-run variance of runs
 * of one kernel, for compare with one run a side.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bench.h"
#include "diff.h"
#include "env.h"
#include "cli.h"
#include "exec.h"
#include "print.h"

struct cmp_cmd {
	bool json, pretty, help, allow, allow_env;
	double threshold;
	const char *plot_dir, *cal, *rows;
};

#define C(f) offsetof(struct cmp_cmd, f)
#define MAX_FILES (2 * BENCH_CMP_RUNS) /* files on the command line */

static const struct hc_opt cmp_opts[] = {
	{ "threshold", 0, HC_OPT_PCT, C(threshold), "PCT",
	  "exit 1 when a row is slower by more than PCT%, its interval past it",
	  NULL, 0, 1000 },
	{ "allow-mismatch", 0, HC_OPT_FLAG, C(allow), NULL,
	  "compare runs of different scenarios, topologies, CPU modes, frame sizes or plans" },
	{ "allow-env-change", 0, HC_OPT_FLAG, C(allow_env), NULL,
	  "judge rows that a state of the machine moved between the runs (the change is the point)" },
	{ "rows", 0, HC_OPT_STR, C(rows), "ROW,...",
	  "compare only these rows; exit 7 when one gets no verdict",
	  .flags = HC_OPT_LIST },
	{ "calibration", 0, HC_OPT_STR, C(cal), "FILE",
	  "the between-run variance (bench calibrate) for one run a side" },
	{ "plot", 0, HC_OPT_STR, C(plot_dir), "DIR",
	  "a chart of the changes with their intervals (PNG and SVG) into DIR" },
	HC_OPT_JSON(C(json), "the comparison as one JSON document"),
	HC_OPT_PRETTY(C(pretty)),
	HC_OPT_HELP(C(help)),
	{}
};

static const struct hc_opt cal_opts[] = {
	HC_OPT_JSON(C(json), "the calibration as one JSON document"),
	HC_OPT_PRETTY(C(pretty)),
	HC_OPT_HELP(C(help)),
	{}
};

static void usage(void)
{
	printf("Usage: hookcmp bench compare [OPTIONS] OLD.json NEW.json\n"
	       "       hookcmp bench compare [OPTIONS] OLD.json... -- NEW.json...\n\n"
	       "Compares bench runs (hookcmp bench -o FILE) row by row: each row's change\n"
	       "in cost NEW/OLD, and the same against each run's baseline row, which\n"
	       "cancels a shift of the whole machine between runs. The run is the unit:\n"
	       "the 95%% intervals come from how the runs of each side spread (two or\n"
	       "more a side; across boots, of the boots), never narrower than the runs'\n"
	       "own intervals allow, or with one run from --calibration.\n"
	       "\"slower\"/\"faster\" when the change holds after Holm's correction for\n"
	       "the rows compared, \"same\" when the whole interval lies within\n"
	       "--threshold (or 1%%), otherwise \"inconclusive\" with the change these\n"
	       "runs resolve; \"confounded\" where a state of the machine that moves the\n"
	       "row differs between the runs. A run that failed is left out.\n"
	       "Exit: 0; 1 a row slower past --threshold; 2 usage, or runs unlike;\n"
	       "6 a row confounded; 7 --threshold with no row judged, or a --rows row\n"
	       "without a verdict.\n\n");
	hc_opts_help(stdout, cmp_opts, NULL);
}

static struct jp *load(const char *path, int *code)
{
	struct hc_err herr = {};
	char why[256];
	struct jp *doc;
	int err;
	char *text = hc_input_read(path, &herr);

	if (!text) {
		*code = hc_fail(errno == ENOMEM ? HC_EXIT_FAIL : HC_EXIT_USAGE,
				"bench compare: %s", herr.msg);
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
	bool judged = strcmp(r->verdict, "old only") &&
		      strcmp(r->verdict, "new only");
	char runs[24];

	snprintf(runs, sizeof(runs), "%d/%d", r->runs[0], r->runs[1]);

	hc_pr_str(p, HC_PR_ALL, "name", "row", -22, r->name);
	hc_pr_num(p, HC_PR_ALL, "old_ns", "old ns/pkt", 10, 1, r->old_ns);
	hc_pr_num(p, HC_PR_ALL, "new_ns", "new ns/pkt", 10, 1, r->new_ns);
	hc_pr_num(p, HC_PR_DATA, "runs_old", NULL, 0, 0, r->runs[0]);
	hc_pr_num(p, HC_PR_DATA, "runs_new", NULL, 0, 0, r->runs[1]);
	hc_pr_str(p, HC_PR_TEXT, NULL, "runs", 5, runs);
	est(p, "change", "change [95%]", &r->change);
	est(p, "change_vs_baseline", "vs baseline [95%]", &r->vs_base);
	hc_pr_str(p, HC_PR_ALL, "verdict", "verdict", -8, r->verdict);
	hc_pr_str(p, HC_PR_DATA, "verdict_from", NULL, 0,
		  !judged     ? NULL :
		  r->has_base ? "baseline" :
				"raw");
	hc_pr_str(p, HC_PR_DATA, "interval_from", NULL, 0, r->interval_from);
	hc_pr_num(p, HC_PR_DATA, "p", NULL, 0, 4, r->p);
	hc_pr_num(p, HC_PR_ALL, "p_holm", "p holm", 6, 3, r->p_holm);
	hc_pr_num(p, HC_PR_ALL, "mde_pct", "mde %", 6, 1, r->mde_pct);
	hc_pr_num(p, HC_PR_ALL, "between_runs_pct", "between %", 9, 2,
		  r->between_pct);
	hc_pr_num(p, HC_PR_DATA, "i2", NULL, 0, 2, r->i2);
	hc_pr_str(p, HC_PR_ALL, "why", "why", 0, r->why[0] ? r->why : NULL);
}

/* The states that differ between runs and move rows, with whose. */
static void states(struct hc_pr *p, const struct bench_cmp *c)
{
	static const char *const whose[] = { "", "rows whose frames become skbs",
					     "every row" };
	int i;

	hc_pr_open(p, HC_PR_JSON, "states", '[');
	for (i = 0; i < c->nstate; i++) {
		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fstr(p, HC_PR_JSON, "state", NULL, c->state[i].what);
		hc_pr_fstr(p, HC_PR_JSON, "moves", NULL,
			   c->state[i].moves == BENCH_MOVES_ALL ? "all" :
								  "skb");
		hc_pr_close(p, HC_PR_JSON, '}');
		hc_pr_text(p, "  %s: moves %s\n", c->state[i].what,
			   whose[c->state[i].moves]);
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

/* The runs of a side: a line each, or JSON's summary of them. */
static void side(struct hc_pr *p, const char *key,
		 const struct bench_cmp_set *s, const char *const *path)
{
	const struct jp *d = s->doc[0];
	int i;

	for (i = 0; i < s->n; i++)
		hc_pr_text(p, "%s: %s (%s, %s, %g rounds, kernel %s)\n", key,
			   path[i], jp_str(s->doc[i], "scenario", "?"),
			   jp_str(s->doc[i], "topology", "?"),
			   jp_num(s->doc[i], "rounds", 0),
			   jp_str(jp_get(s->doc[i], "env"), "kernel", "?"));
	hc_pr_open(p, HC_PR_JSON, key, '{');
	hc_pr_list(p, HC_PR_JSON, "files", path, s->n);
	hc_pr_fu64(p, HC_PR_JSON, "runs", NULL, s->n);
	hc_pr_fstr(p, HC_PR_JSON, "scenario", NULL, jp_str(d, "scenario", ""));
	hc_pr_fstr(p, HC_PR_JSON, "topology", NULL, jp_str(d, "topology", ""));
	hc_pr_fstr(p, HC_PR_JSON, "kernel", NULL,
		   jp_str(jp_get(d, "env"), "kernel", ""));
	hc_pr_fu64(p, HC_PR_JSON, "rounds", NULL, jp_num(d, "rounds", 0));
	hc_pr_close(p, HC_PR_JSON, '}');
}

/*
 * What was compared and how, and what differs between the runs: said
 * where the text says it (and only when it is so), where JSON has it
 * (always, null or empty when not so).
 */
static void report_head(struct hc_pr *p, const struct cmp_cmd *o,
			const struct bench_cmp_set *set,
			const char *const *const *path,
			const struct bench_cmp *c)
{
	int has;

	side(p, "old", &set[0], path[0]);
	side(p, "new", &set[1], path[1]);
	hc_pr_fnum(p, HC_PR_JSON, "threshold_pct", NULL, o->threshold ?: NAN);
	hc_pr_fnum(p, HC_PR_JSON, "margin_pct", NULL,
		   o->threshold ?: BENCH_CMP_MARGIN);
	hc_pr_fnum(p, HC_PR_JSON, "level", NULL, BENCH_LEVEL);
	hc_pr_fstr(p, HC_PR_JSON, "interval", NULL, "t over per-run estimates");
	hc_pr_fstr(p, HC_PR_JSON, "correction", NULL, "holm");
	/* NULL is null */
	hc_pr_fstr(p, HC_PR_JSON, "calibration", NULL, o->cal);
	has = c->mismatch[0] ? HC_PR_ALL : HC_PR_JSON;
	hc_pr_fstr(p, has, "mismatch",
		   "Warning: the runs differ (--allow-mismatch): %s\n",
		   c->mismatch[0] ? c->mismatch : NULL);
	if (c->env_diff[0])
		hc_pr_text(p, "\nThe machines differ (against %s):\n", c->ref);
	has = c->env_diff[0] ? HC_PR_ALL : HC_PR_JSON;
	hc_pr_lines(p, has, "env_diff", "%s", c->env_diff);
	has = c->left_out_why[0] ? HC_PR_ALL : HC_PR_JSON;
	hc_pr_lines(p, has, "left_out", "\nRuns left out, failed:\n%s",
		    c->left_out_why);
	if (c->nstate)
		hc_pr_text(
			p,
			"\nStates that move rows' costs, not alike in all runs (%s):\n",
			o->allow_env ?
				"--allow-env-change: the rows are judged anyway" :
				"the rows they move are confounded");
	states(p, c);
	hc_pr_bool(p, HC_PR_JSON, "allow_env_change", NULL, 0, o->allow_env);
	hc_pr_fu64(p, HC_PR_JSON, "regressed", NULL, c->regressed);
	hc_pr_fu64(p, HC_PR_JSON, "judged", NULL, c->judged);
	hc_pr_fu64(p, HC_PR_JSON, "confounded", NULL, c->confounded);
}

static void report_row(struct hc_pr *p, const void *c, int i)
{
	row_columns(p, &((const struct bench_cmp *)c)->rows[i]);
}

/* The comparison: a table with what it says around it, or one document. */
static void report(const struct cmp_cmd *o, const struct bench_cmp_set *set,
		   const char *const *const *path, const struct bench_cmp *c,
		   FILE *f)
{
	struct hc_pr p = HC_PR_INIT(o->json ? HC_PR_JSON : HC_PR_TEXT, f);

	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(&p, HC_PR_JSON, "type", NULL, "compare");
	report_head(&p, o, set, path, c);
	hc_pr_text(&p, "\n");
	hc_pr_table(&p, "rows", c->n, report_row, c);
	hc_pr_close(&p, HC_PR_JSON, '}');
	hc_pr_text(
		&p,
		"\nchange: NEW/OLD of each run's median ns/pkt (geometric means over runs); vs baseline: the same of each run's Hodges-Lehmann ratio to its baseline row, round by round, which a shift of the whole machine cancels; [95%%]: Student's t over the runs' estimates (their spread holds what moves between runs and boots), never narrower than the runs' own intervals allow, or with one run a side each run's own interval widened by --calibration's between-run variance; verdict from vs baseline where the row has one (only those fail --threshold); p holm: p-value of no change after Holm's correction for the rows judged; mde: the change found with 80%% power; between: the runs' spread beyond their own noise\n");
	hc_pr_text(&p, "same: the whole interval within +-%g%%\n",
		   o->threshold ?: BENCH_CMP_MARGIN);
	if (o->threshold)
		hc_pr_text(&p, "threshold %g%%: %d row%s slower past it\n",
			   o->threshold, c->regressed,
			   c->regressed == 1 ? "" : "s");
	/* The document has a blank line after it, as it always had. */
	if (p.mode == HC_PR_JSON)
		fputc('\n', f);
}

static int plot(const struct cmp_cmd *o, const struct bench_cmp_set *set,
		const char *const *const *path, const struct bench_cmp *c)
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
	report(&jo, set, path, c, f);
	if (fclose(f))
		return hc_fail(HC_EXIT_FAIL, "--plot: %s: %s", json,
			       strerror(errno));
	ret = hc_exec(-1, argv, out, sizeof(out), &err);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "%s: %s", sh, err.msg);
	fprintf(stderr, "chart in %s\n", o->plot_dir);
	return 0;
}

/*
 * The runs of n files: a bench document is one run, a bench --runs
 * document each of its runs, named "FILE run K". Their files stay
 * loaded in own[] for the runs that point into them.
 */
struct runs {
	struct jp *own[MAX_FILES];
	const struct jp *doc[BENCH_CMP_RUNS * 2];
	const char *name[BENCH_CMP_RUNS * 2];
	char label[BENCH_CMP_RUNS * 2][280];
	int nown, n;
};

/* The runs of the files in path into r: 0 or the exit code of a failure. */
static int load_runs(struct runs *r, const char *const *path, int n,
		     const char *cmd)
{
	int i, k, code = 0;

	for (i = 0; i < n && !code; i++) {
		struct jp *d = load(path[i], &code);
		const struct jp *runs = jp_get(d, "runs");
		bool many = !strcmp(jp_str(d, "type", ""), "bench-runs") &&
			    runs && runs->type == JP_ARR;

		if (!d)
			break;
		r->own[r->nown++] = d;
		for (k = 0; k < (many ? runs->n : 1); k++) {
			if (r->n == BENCH_CMP_RUNS * 2)
				return hc_fail(HC_EXIT_USAGE,
					       "bench %s: more than %d runs",
					       cmd, BENCH_CMP_RUNS * 2);
			r->doc[r->n] = many ? &runs->kid[k] : d;
			if (many)
				snprintf(r->label[r->n], sizeof(r->label[r->n]),
					 "%s run %d", path[i], k + 1);
			else
				snprintf(r->label[r->n], sizeof(r->label[r->n]),
					 "%s", path[i]);
			r->name[r->n] = r->label[r->n];
			r->n++;
		}
	}
	return code;
}

static void free_runs(struct runs *r)
{
	while (r->nown)
		jp_free(r->own[--r->nown]);
}

/*
 * What "--" becomes, so that getopt takes it for a file, in its place,
 * and options may still follow it.
 */
static char sep[] = "\x1f";

/*
 * Options and files, with "--" between OLD's and NEW's: pos[0..*nold)
 * are OLD's, the rest NEW's. Without "--" there must be exactly two.
 */
static int parse(const struct hc_opt *opts, struct cmp_cmd *o, int argc,
		 char **argv, const char **pos, int *npos, int *nold,
		 const char *cmd)
{
	struct hc_err err = {};
	int i, ret;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			argv[i] = sep;
			break;
		}
	ret = hc_opts_parse(opts, o, argc, argv, pos, npos, MAX_FILES, NULL,
			    &err);
	hc_json_pretty = o->pretty;
	o->json |= o->pretty;
	hc_json_mode = o->json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "bench %s: %s", cmd, err.msg);
	*nold = *npos;
	for (i = 0; i < *npos; i++)
		if (pos[i] == sep) {
			*nold = i;
			memmove(pos + i, pos + i + 1,
				(*npos - i - 1) * sizeof(*pos));
			(*npos)--;
		}
	return 0;
}

/*
 * The exit a gate reads: 1 for a row slower past --threshold; 6 for
 * rows a state of the machine moved; 7 when --threshold has no row
 * judged, or a row --rows names has no verdict.
 */
static int verdicts(const struct cmp_cmd *o, const struct bench_cmp *c)
{
	int i;

	if (c->regressed)
		return HC_EXIT_FAIL;
	if (c->confounded && !o->allow_env)
		return hc_fail_after(
			HC_EXIT_CHANGED,
			"bench compare: %d row%s confounded: a state of the machine that moves %s differs between the runs (listed above); --allow-env-change judges them anyway",
			c->confounded, c->confounded == 1 ? "" : "s",
			c->confounded == 1 ? "it" : "them");
	for (i = 0; o->rows && i < c->n; i++) {
		const char *v = c->rows[i].verdict;

		if (strcmp(v, "slower") && strcmp(v, "faster") &&
		    strcmp(v, "same") && strcmp(v, "inconclusive"))
			return hc_fail_after(HC_EXIT_NO_VERDICT,
					     "bench compare: row %s: %s%s%s",
					     c->rows[i].name, v,
					     c->rows[i].why[0] ? ": " : "",
					     c->rows[i].why);
	}
	if (o->threshold && !c->judged)
		return hc_fail_after(
			HC_EXIT_NO_VERDICT,
			"bench compare: --threshold %g%%: no row could be judged (the table says why)",
			o->threshold);
	return 0;
}

/*
 * OLD's runs and NEW's into r (NEW's from *rold on), --calibration's
 * document into *cal: 0, or an exit code after saying why not.
 */
static int compare_load(const struct cmp_cmd *o, struct runs *r,
			const char *const *pos, int npos, int nold, int *rold,
			struct jp **cal)
{
	int code;

	code = load_runs(r, pos, nold, "compare");
	*rold = r->n;
	code = code ?: load_runs(r, pos + nold, npos - nold, "compare");
	if (!code && (*rold > BENCH_CMP_RUNS || r->n - *rold > BENCH_CMP_RUNS))
		code = hc_fail(HC_EXIT_USAGE,
			       "bench compare: at most %d runs a side",
			       BENCH_CMP_RUNS);
	if (!code && o->cal)
		*cal = load(o->cal, &code);
	if (code)
		return code;
	if (*cal && strcmp(jp_str(*cal, "type", ""), "calibration"))
		return hc_fail(
			HC_EXIT_USAGE,
			"bench compare: --calibration %s: not a document of bench calibrate",
			o->cal);
	return 0;
}

int cmd_bench_compare(int argc, char **argv)
{
	struct cmp_cmd o = {};
	struct bench_cmp_opts opts = {};
	struct bench_cmp c = {};
	struct runs *r = calloc(1, sizeof(*r));
	struct jp *cal = NULL;
	const char *pos[MAX_FILES + 1];
	struct bench_cmp_set set[2];
	char why[512];
	int npos, nold, ret, code, rold;

	if (!r)
		return hc_fail(HC_EXIT_FAIL, "bench compare: %s",
			       strerror(ENOMEM));
	code = parse(cmp_opts, &o, argc, argv, pos, &npos, &nold, "compare");
	if (code)
		goto out;
	if (o.help) {
		usage();
		goto out;
	}
	if (nold == npos)
		nold = npos == 2 ? 1 : 0;
	if (!nold || nold == npos) {
		code = hc_fail(
			HC_EXIT_USAGE,
			"bench compare: needs OLD.json NEW.json, or OLD.json... -- NEW.json..., bench runs (hookcmp bench -o FILE)");
		goto out;
	}
	code = compare_load(&o, r, pos, npos, nold, &rold, &cal);
	if (code)
		goto out;
	set[0] = (struct bench_cmp_set){ "OLD", r->doc, rold };
	set[1] = (struct bench_cmp_set){ "NEW", r->doc + rold, r->n - rold };
	opts.allow_mismatch = o.allow;
	opts.allow_env = o.allow_env;
	opts.rows = o.rows;
	opts.threshold = o.threshold;
	opts.calibration = cal;
	ret = bench_compare(set, &opts, &c, why, sizeof(why));
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
	{
		const char *const *path[2] = { r->name, r->name + rold };

		report(&o, set, path, &c, stdout);
		fflush(stdout);
		if (o.plot_dir)
			code = plot(&o, set, path, &c);
	}
	code = code ?: verdicts(&o, &c);
out:
	bench_compare_free(&c);
	if (r)
		free_runs(r);
	free(r);
	jp_free(cal);
	return code;
}

static void cal_columns(struct hc_pr *p, const struct bench_cal_row *r)
{
	const char *runs[BENCH_CMP_RUNS];
	char names[BENCH_CMP_RUNS][8], list[96] = "";
	int n = 0, i;

	for (i = 0; i < BENCH_CMP_RUNS; i++)
		if (r->flagged >> i & 1) {
			snprintf(names[n], sizeof(names[n]), "%d", i + 1);
			runs[n] = names[n];
			snprintf(list + strlen(list),
				 sizeof(list) - strlen(list), "%s%d",
				 n ? "," : "", i + 1);
			n++;
		}
	hc_pr_str(p, HC_PR_ALL, "name", "row", -22, r->name);
	hc_pr_num(p, HC_PR_ALL, "runs", "runs", 4, 0, r->runs);
	hc_pr_num(p, HC_PR_ALL, "ns", "ns/pkt", 7, 1, r->ns);
	hc_pr_open(p, HC_PR_DATA, "raw", '{');
	hc_pr_num(p, HC_PR_DATA, "tau2", NULL, 0, 9, r->raw_tau2);
	hc_pr_num(p, HC_PR_ALL, "sd_pct", "raw between %", 13, 2,
		  (exp(sqrt(r->raw_tau2)) - 1) * 100);
	hc_pr_num(p, HC_PR_ALL, "i2", "I2", 4, 2, r->raw_i2);
	hc_pr_close(p, HC_PR_DATA, '}');
	hc_pr_open(p, HC_PR_DATA, "vs_baseline", '{');
	hc_pr_num(p, HC_PR_DATA, "tau2", NULL, 0, 9, r->base_tau2);
	hc_pr_num(p, HC_PR_ALL, "sd_pct", "vs baseline between %", 21, 2,
		  (exp(sqrt(r->base_tau2)) - 1) * 100);
	hc_pr_num(p, HC_PR_ALL, "i2", "I2", 4, 2, r->base_i2);
	hc_pr_close(p, HC_PR_DATA, '}');
	/* 1-based, as the runs are printed */
	hc_pr_list(p, HC_PR_JSON, "disagreeing_runs", runs, n);
	hc_pr_str(p, HC_PR_TEXT, NULL, "disagreeing runs", 0, n ? list : "-");
}

static void cal_row(struct hc_pr *p, const void *cal, int i)
{
	cal_columns(p, &((const struct bench_cal *)cal)->rows[i]);
}

void bench_cal_rows(struct hc_pr *p, const struct bench_cal *cal)
{
	hc_pr_table(p, "rows", cal->n, cal_row, cal);
	hc_pr_text(
		p,
		"\nbetween: the runs' spread beyond their own noise (DerSimonian-Laird), as a percent; I2: its share of the whole spread; disagreeing runs: a run whose estimate lies beyond |z| > %.2f of the others' mean, on the runs' own variances\n",
		BENCH_CAL_Z);
}

/* The calibration of runs r: a table and what it is for, or a document. */
static void cal_report(struct hc_pr *p, const struct runs *r,
		       const struct bench_cal *cal)
{
	hc_pr_open(p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(p, HC_PR_JSON, "type", NULL, "calibration");
	hc_pr_fstr(p, HC_PR_JSON, "scenario", NULL,
		   jp_str(r->doc[0], "scenario", ""));
	hc_pr_fstr(p, HC_PR_JSON, "topology", NULL,
		   jp_str(r->doc[0], "topology", ""));
	hc_pr_fstr(p, HC_PR_JSON, "kernel", NULL,
		   jp_str(jp_get(r->doc[0], "env"), "kernel", ""));
	hc_pr_fu64(p, HC_PR_JSON, "runs", NULL, r->n);
	hc_pr_fu64(p, HC_PR_JSON, "df", NULL, cal->df);
	bench_cal_rows(p, cal);
	hc_pr_close(p, HC_PR_JSON, '}');
	hc_pr_text(
		p,
		"%d runs (%d df). Write it with -j for bench compare --calibration.\n",
		r->n, cal->df);
	/* The document has a blank line after it, as it always had. */
	if (p->mode == HC_PR_JSON)
		fputc('\n', p->f);
}

int cmd_bench_calibrate(int argc, char **argv)
{
	struct cmp_cmd o = {};
	struct runs *r = calloc(1, sizeof(*r));
	const char *pos[MAX_FILES + 1];
	struct bench_cal cal = {};
	struct bench_cmp_set set;
	struct hc_pr p = HC_PR_INIT(0, stdout);
	char why[512];
	int npos, nold, ret, code;

	if (!r)
		return hc_fail(HC_EXIT_FAIL, "bench calibrate: %s",
			       strerror(ENOMEM));
	code = parse(cal_opts, &o, argc, argv, pos, &npos, &nold, "calibrate");
	if (code)
		goto out;
	if (o.help) {
		printf("Usage: hookcmp bench calibrate [-j] RUN.json...\n\n"
		       "The between-run variance of each row over runs of one kernel, with\n"
		       "nothing changed between them: its JSON (-j) is what bench compare\n"
		       "--calibration reads to judge one run a side.\n");
		goto out;
	}
	if (nold != npos) {
		code = hc_fail(HC_EXIT_USAGE,
			       "bench calibrate: RUN.json..., no --");
		goto out;
	}
	code = load_runs(r, pos, npos, "calibrate");
	if (!code && r->n > BENCH_CMP_RUNS)
		code = hc_fail(HC_EXIT_USAGE,
			       "bench calibrate: at most %d runs",
			       BENCH_CMP_RUNS);
	if (code)
		goto out;
	set = (struct bench_cmp_set){ "RUN", r->doc, r->n };
	ret = bench_calibrate(&set, &cal, why, sizeof(why));
	if (ret) {
		code = hc_fail(ret == -ENOMEM ? HC_EXIT_FAIL : HC_EXIT_USAGE,
			       "bench calibrate: %s",
			       ret == -ENOMEM ? strerror(ENOMEM) : why);
		goto out;
	}
	p.mode = o.json ? HC_PR_JSON : HC_PR_TEXT;
	cal_report(&p, r, &cal);
out:
	free(cal.rows);
	if (r)
		free_runs(r);
	free(r);
	return code;
}
