// SPDX-License-Identifier: GPL-2.0
/*
 * The plan: a run's document holds it (bench_plan_json); --plan reads it
 * back, checks it against what this bench runs and applies it, to the
 * options first and to the rows once they are built. A later run of the
 * same plan measures the same rows in windows of the same sizes, which is
 * what makes two runs' costs comparable (bench compare, diff.c).
 *
 * Every window's size is set here, by window_set() alone: from the
 * options, the plan, the warm-up, or at a row's first visit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "variant.h"
#include "plan.h"
#include "print.h"
#include "topo.h"

/* by enum bench_cpu_mode */
const char *const bench_cpu_modes[] = { "split", "inline", NULL };

/* The options a plan decides: given with --plan, they are refused. */
static const char *const plan_decides[] = {
	"scenario", "topology", "cpu-mode", "hooks",
	"windows",  "visits",	"packets",  "window-packets",
	"dev",	    "variant",	NULL
};

static void window_set(__u32 *window_packets, __u32 n)
{
	*window_packets = n;
}

void bench_plan_kind_json(struct hc_pr *p, const struct bench *b)
{
	hc_pr_fstr(p, HC_PR_JSON, "scenario", NULL, b->rows.scen->name);
	/* inject on the stage: asked for, and run on the veth topology's */
	hc_pr_fstr(p, HC_PR_JSON, "topology", NULL,
		   b->opt.topology > 0 ?
			   bench_topologies[b->opt.topology]->name :
			   b->net.topo->name);
	hc_pr_fstr(p, HC_PR_JSON, "cpu_mode", NULL,
		   b->opt.dev ? NULL : bench_cpu_modes[b->opt.cpu_mode]);
}

/*
 * What a later run repeats with --plan, and what bench compare wants
 * alike on both sides: the rows, and the windows each row's cost is
 * taken from.
 */
void bench_plan_json(struct hc_pr *p, const struct bench *b)
{
	int i;

	hc_pr_open(p, HC_PR_JSON, "plan", '{');
	bench_plan_kind_json(p, b);
	hc_pr_fu64(p, HC_PR_JSON, "windows", NULL, b->opt.windows);
	hc_pr_fu64(p, HC_PR_JSON, "visits", NULL, b->opt.visits);
	/* the rows --hooks selects (the generator's come with them) */
	hc_pr_open(p, HC_PR_JSON, "rows", '[');
	for (i = 0; i < b->rows.n; i++)
		if (!b->rows.row[i].kind->generator)
			hc_pr_fstr(p, HC_PR_JSON, NULL, NULL,
				   b->rows.row[i].name);
	hc_pr_close(p, HC_PR_JSON, ']');
	/* the changes of ROW+NAME rows, as given */
	hc_pr_open(p, HC_PR_JSON, "variants", '[');
	for (i = 0; i < b->opt.nvariants; i++) {
		const struct bench_variant *v = &b->opt.variant[i];

		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fstr(p, HC_PR_JSON, "name", NULL, v->name);
		hc_pr_fstr(p, HC_PR_JSON, "setup", NULL, v->setup);
		hc_pr_fstr(p, HC_PR_JSON, "undo", NULL, v->undo);
		hc_pr_fstr(p, HC_PR_JSON, "path", NULL, v->path);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
	/* --dev's windows are times; what they hold, the device's doing */
	if (b->opt.dev) {
		hc_pr_fnum(p, HC_PR_JSON, "window_s", NULL, b->opt.window);
		hc_pr_fnum(p, HC_PR_JSON, "settle_s", NULL, b->opt.settle);
	} else {
		hc_pr_open(p, HC_PR_JSON, "window_packets", '{');
		for (i = 0; i < b->rows.n; i++)
			hc_pr_fu64(p, HC_PR_JSON, b->rows.row[i].name, NULL,
				   b->rows.row[i].window_packets);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* A document's plan: a bench --runs one's is its first run's. */
static const struct jp *plan_of(const struct jp *doc)
{
	const struct jp *runs = jp_get(doc, "runs");

	return jp_get(runs && runs->type == JP_ARR && runs->n ? &runs->kid[0] :
								doc,
		      "plan");
}

/* The plan of the document at path into *plan. */
static int plan_read(const char *path, struct jp **doc, const struct jp **plan,
		     struct hc_err *err)
{
	struct hc_err herr = {};
	const struct jp *wp;
	char why[256], *text;
	int e;

	text = hc_input_read(path, &herr);
	if (!text) {
		e = errno;
		hc_err_set(err, "--plan %s", herr.msg);
		return e > 0 ? -e : -EINVAL;
	}
	e = jp_parse(text, doc, why, sizeof(why));
	free(text);
	if (e) {
		hc_err_set(err, "--plan %s: not JSON: %s", path, why);
		return -EINVAL;
	}
	*plan = plan_of(*doc);
	wp = jp_get(*plan, "window_packets");
	if (!wp || wp->type != JP_OBJ || !wp->n) {
		hc_err_set(
			err,
			"--plan %s: no plan in it (a bench document of hookcmp %s or later)",
			path, HC_VERSION);
		return -EINVAL;
	}
	return 0;
}

static int plan_enum(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int plan_scenario(const struct bench_scenario *const *scenarios,
			 const char *s)
{
	int i;

	for (i = 0; scenarios[i]; i++)
		if (!strcmp(scenarios[i]->name, s))
			return i;
	return -1;
}

static int plan_topology(const char *s)
{
	int i;

	for (i = 0; bench_topologies[i]; i++)
		if (!strcmp(bench_topologies[i]->name, s))
			return i;
	return -1;
}

/* The plan's variants, as given then: the run repeats them. */
static int plan_variants(struct bench_opts *o, const struct jp *vs,
			 struct hc_err *err)
{
	int i;

	for (i = 0; vs && vs->type == JP_ARR && i < vs->n; i++) {
		const struct jp *v = &vs->kid[i];
		struct bench_variant *var = &o->variant[o->nvariants];

		if (o->nvariants == BENCH_MAX_VARIANTS ||
		    !jp_str(v, "name", NULL) || !jp_str(v, "setup", NULL) ||
		    strlen(jp_str(v, "undo", "")) >=
			    BENCH_VARIANT_UNDO_MAX) {
			hc_err_set(
				err,
				"--plan %s: its variants are not ones this bench runs",
				o->plan_path);
			return -EINVAL;
		}
		var->name = jp_str(v, "name", NULL);
		var->setup = jp_str(v, "setup", NULL);
		var->undo = jp_str(v, "undo", NULL);
		var->path = jp_str(v, "path", NULL);
		o->nvariants++;
	}
	return 0;
}

/* A variant's row (ROW+NAME): it comes with its variant, not --hooks. */
static bool plan_variant_row(const struct bench_opts *o, const char *row)
{
	size_t n = strlen(row), k;
	int i;

	for (i = 0; i < o->nvariants; i++) {
		k = strlen(o->variant[i].name);
		if (n > k + 1 && row[n - k - 1] == '+' &&
		    !strcmp(row + n - k, o->variant[i].name))
			return true;
	}
	return false;
}

int bench_plan_load(struct bench_opts *o, struct bench_rows *rows,
		    const struct bench_scenario *const *scenarios,
		    bool (*given)(const struct bench_opts *o, const char *name),
		    struct hc_err *err)
{
	static char hooks[4096];
	const struct jp *plan, *names;
	int i, ret;

	for (i = 0; plan_decides[i]; i++)
		if (given(o, plan_decides[i])) {
			hc_err_set(err, "--plan decides --%s: it repeats %s's",
				   plan_decides[i], o->plan_path);
			return -EINVAL;
		}
	ret = plan_read(o->plan_path, &rows->plan_doc, &plan, err);
	if (ret)
		return ret;
	o->scenario = plan_scenario(scenarios, jp_str(plan, "scenario", ""));
	o->topology = plan_topology(jp_str(plan, "topology", ""));
	o->cpu_mode = plan_enum(bench_cpu_modes, jp_str(plan, "cpu_mode", ""));
	if (o->scenario < 0 || o->topology < 0 || o->cpu_mode < 0) {
		hc_err_set(
			err,
			"--plan %s: scenario %s, topology %s, CPU mode %s: not one this bench runs (--dev runs have no plan to repeat)",
			o->plan_path, jp_str(plan, "scenario", "?"),
			jp_str(plan, "topology", "?"),
			jp_str(plan, "cpu_mode", "?"));
		return -EINVAL;
	}
	o->windows = jp_num(plan, "windows", 0);
	o->visits = jp_num(plan, "visits", 0);
	ret = plan_variants(o, jp_get(plan, "variants"), err);
	if (ret)
		return ret;
	names = jp_get(plan, "rows");
	hooks[0] = '\0';
	for (i = 0; names && names->type == JP_ARR && i < names->n; i++)
		if (names->kid[i].type == JP_STR &&
		    !plan_variant_row(o, names->kid[i].str))
			snprintf(hooks + strlen(hooks),
				 sizeof(hooks) - strlen(hooks), "%s%s",
				 i ? "," : "", names->kid[i].str);
	o->hooks = hooks;
	rows->planned = true;
	return 0;
}

int bench_plan_load_windows(struct bench_opts *o, struct bench_rows *rows,
			    const char *path, struct hc_err *err)
{
	const struct jp *plan;

	o->plan_path = path;
	rows->planned = true;
	return plan_read(path, &rows->plan_doc, &plan, err);
}

int bench_plan_rows(struct bench_rows *rows, const struct bench_opts *o,
		    struct hc_err *err)
{
	const struct jp *wp;
	int i;

	if (!rows->plan_doc)
		return 0;
	wp = jp_get(plan_of(rows->plan_doc), "window_packets");
	for (i = 0; i < rows->n; i++) {
		struct bench_row *r = &rows->row[i];
		double n = jp_num(wp, r->name, 0);

		if (!(n >= 1)) {
			hc_err_set(err, "--plan %s: row %s is not in it",
				   o->plan_path, r->name);
			return -EINVAL;
		}
		/* The stage sends whole copies (bench_window_opts). */
		if (o->stage_copies && (__u32)n % o->stage_copies) {
			hc_err_set(
				err,
				"--plan %s: row %s's windows are %.0f packets, and the stage sends %u copies of each frame: a plan of another feed (bench compare refuses those too)",
				o->plan_path, r->name, n, o->stage_copies);
			return -EINVAL;
		}
		window_set(&r->window_packets, n);
	}
	if (wp->n != rows->n) {
		hc_err_set(
			err,
			"--plan %s: %d rows in it, %d here: a row of it is no row of this bench",
			o->plan_path, wp->n, rows->n);
		return -EINVAL;
	}
	return 0;
}

int bench_window_opts(struct bench_opts *o, __u32 copies, struct hc_err *err)
{
	__u32 n = o->window_packets;

	if (o->packets) {
		n = (o->packets + o->windows - 1) / o->windows;
		/* Whole frames sent: windows of whole copies. */
		n = (n + copies - 1) / copies * copies;
	}
	if (n % copies) {
		hc_err_set(
			err,
			"--window-packets %u: the stage sends %u copies of each frame; give a multiple of %u",
			n, copies, copies);
		return -EINVAL;
	}
	window_set(&o->window_packets, n);
	return 0;
}

/*
 * One size for every row's windows, since a window's cost a packet
 * depends on its exact count (run.c's size_windows says how much); a
 * multiple of 64, whole sends of any stage's copies.
 */
void bench_window_calibrate(struct bench_rows *rows, const struct bench_opts *o,
			    double n)
{
	int i;

	if (o->window_packets || rows->planned || !n)
		return;
	n = n < 1024 ? 1024 : n > 1e7 ? 1e7 : n;
	for (i = 0; i < rows->n; i++)
		window_set(&rows->row[i].window_packets, (__u32)n / 64 * 64);
}

void bench_window_first(const struct bench_opts *o, struct bench_row *r)
{
	if (!r->window_packets)
		window_set(&r->window_packets,
			   o->window_packets ?: BENCH_WINDOW_START);
}
