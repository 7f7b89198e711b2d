/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: the plan (plan.c), what a later run repeats with --plan
 * and bench compare wants alike on both sides: the scenario, topology,
 * CPU mode, windows, visits, variants, rows and each row's window size.
 * And the window sizes: every one is decided here, whoever asks.
 */
#ifndef HC_BENCH_PLAN_H
#define HC_BENCH_PLAN_H

#include "bench.h"

struct hc_pr;

/* --topology's and --cpu-mode's names, by index; NULL-terminated. */
extern const char *const bench_cpu_modes[];

/* The scenario, topology and CPU mode: in the document and its plan. */
void bench_plan_kind_json(struct hc_pr *p, const struct bench *b);
/* The document's "plan". */
void bench_plan_json(struct hc_pr *p, const struct bench *b);

/*
 * --plan (o->plan_path): its document into rows->plan_doc, which the
 * caller frees, and its scenario (an index of scenarios, the catalogue,
 * which the caller passes: scenarios use the report, which writes the
 * plan), topology, CPU mode, windows, visits, variants and rows into o.
 * given says whether an option (its long name) was given: the plan
 * refuses the ones it decides. -ENOMEM, or -EINVAL with err's "--plan
 * ..." sentence.
 */
int bench_plan_load(struct bench_opts *o, struct bench_rows *rows,
		    const struct bench_scenario *const *scenarios,
		    bool (*given)(const struct bench_opts *o, const char *name),
		    struct hc_err *err);
/*
 * The later runs of bench --runs: the rows' windows from the plan of the
 * first run's document at path; the rest is in the arguments they share.
 */
int bench_plan_load_windows(struct bench_opts *o, struct bench_rows *rows,
			    const char *path, struct hc_err *err);
/*
 * Once the rows are built: each row's windows from the plan, which must
 * hold the same rows. Nothing without a plan.
 */
int bench_plan_rows(struct bench_rows *rows, const struct bench_opts *o,
		    struct hc_err *err);

/*
 * The options' window size, once --windows is known: --packets into
 * --windows equal parts, or --window-packets; whole sends of copies
 * frames each (the stage's broadcast copies; 1 for other feeds).
 */
int bench_window_opts(struct bench_opts *o, __u32 copies, struct hc_err *err);
/*
 * After the warm-up: every row's windows n packets (the slowest row's
 * BENCH_WINDOW_SECS), unless the options or the plan said.
 */
void bench_window_calibrate(struct bench_rows *rows, const struct bench_opts *o,
			    double n);
/* A row's windows at its first visit, the warm-up's: the options' or a start. */
void bench_window_first(const struct bench_opts *o, struct bench_row *r);

#endif
