/* SPDX-License-Identifier: GPL-2.0 */
/* What every command shares: the one place that prints errors and exits. */
#ifndef HC_CLI_H
#define HC_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "journal.h"
#include "opts.h"

/*
 * The options every command declares, each with its own words for what
 * they do there: main skips them before a command's name, as ip and
 * bpftool take them first, from the same declarations (main.c).
 */
#define HC_OPT_NETNS(off, what)                                                \
	{ "netns", 'n', HC_OPT_STR, off, "NAME", what }
#define HC_OPT_JSON(off, what) { "json", 'j', HC_OPT_FLAG, off, NULL, what }
#define HC_OPT_JOURNAL(off, what)                                              \
	{ "journal", 0, HC_OPT_STR, off, "DIR",                                \
	  what "the journal's directory (default $HOOKCMP_JOURNAL, else " HC_RUN_DIR ")" }
#define HC_OPT_FORCE(off, what) { "force", 'f', HC_OPT_FLAG, off, NULL, what }
#define HC_OPT_HELP(off) { "help", 'h', HC_OPT_FLAG, off, NULL, "show this help" }

/* Errors become JSON objects on stdout too when set. */
extern bool hc_json_mode;

/*
 * After a report already on stdout, whose document says it all: "Error:
 * ..." on stderr only, so that -j's stdout stays one document.
 */
int hc_fail_after(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "Error: ..." (and its JSON form) and returns code. */
int hc_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 0, or HC_EXIT_PERM after saying which capabilities are missing. */
int hc_check_privileges(void);
/* The same for need, a mask of 1ULL << CAP_*; who says what needs them. */
int hc_check_caps(unsigned long long need, const char *who);
/* Enters netns when given: 0, or an exit code after saying why not. */
int hc_cmd_netns(const char *netns);
/*
 * --journal DIR or $HOOKCMP_JOURNAL, when given, before any change: 0,
 * or HC_EXIT_USAGE after saying why the journal would refuse it. Without
 * either, a hook that journals nothing needs no journal: the default is
 * met when the first record is written.
 */
int hc_cmd_journal(const char *dir);
/*
 * Enters netns (when given) and finds dev there: 0, or an exit code after
 * saying which of the two is missing; a device in a named namespace
 * instead says how to name it to cmd ("gen").
 */
int hc_cmd_device(const char *netns, const char *dev, const char *cmd,
		  int *ifindex);

/*
 * An output file (-o, --csv): hc_out_open checks it before any work;
 * hc_out_write writes it whole with fn(arg, f), or not at all;
 * hc_out_abandon leaves it as it was (cli/out.c).
 */
struct hc_out {
	const char *path, *base;
	int dir; /* path's directory: bench's mounts change (split mode) */
	int fd; /* unnamed (O_TMPFILE) in dir, or path itself when direct */
	bool direct; /* no regular file: a pipe, a link, /dev/stdout */
	bool own; /* our stdout's file: written where stdout is */
	bool named; /* no O_TMPFILE in dir: a temporary name at the end */
};
int hc_out_open(struct hc_out *o, const char *path);
int hc_out_write(struct hc_out *o, void (*fn)(const void *arg, FILE *f),
		 const void *arg);
void hc_out_abandon(struct hc_out *o);

/* The usage line, the commands, run's options (main.c); the version. */
void hc_usage(FILE *f);
void hc_run_options_help(FILE *f);
int hc_show_version(bool json);
/* What a command returns to have main print hookcmp's usage (run --help). */
#define HC_CMD_USAGE (-1)

int cmd_run(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* bench compare OLD NEW (bench_compare.c) */
int cmd_bench_compare(int argc, char **argv);
int cmd_bench_calibrate(int argc, char **argv);
/* The rows of a calibration, as a JSON member "rows" or a table. */
struct hc_pr;
struct bench_cal;
void bench_cal_rows(struct hc_pr *p, const struct bench_cal *cal);
/*
 * bench --runs K (bench_runs.c): K runs of this command, one document;
 * unless planned (a --plan given, or none to repeat), the later runs
 * with the first one's plan.
 */
#define BENCH_RUN_ENV "HOOKCMP_BENCH_RUN"
int bench_runs(int k, const char *out_path, bool json, bool planned, int argc,
	       char **argv);
/* scripts/plot.sh into plot_sh, and gnuplot there: 0, or an exit code (out.c). */
int bench_plot_sh(char *plot_sh, size_t size);
int cmd_progrun(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif
