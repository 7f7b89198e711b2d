/* SPDX-License-Identifier: GPL-2.0 */
/* hookcmp bench: bench compare, two sets of runs row by row (diff.c). */
#ifndef HC_BENCH_DIFF_H
#define HC_BENCH_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include "jparse.h"
#include "statistics.h"

#define BENCH_CMP_RUNS 64 /* runs a side */
#define BENCH_CMP_MARGIN \
	1.0 /* percent: "same" within it, without --threshold */

struct bench_cmp_opts {
	bool allow_mismatch;
	bool allow_env; /* judge rows that a state of the machine moved */
	double threshold; /* percent; 0: none */
	const char *rows; /* "a,b": only these rows, each to be judged */
	/* bench calibrate's document: the between-run variances, or NULL */
	const struct jp *calibration;
};

/* One side's runs: their documents, "OLD" or "NEW". */
struct bench_cmp_set {
	const char *label;
	const struct jp *const *doc;
	int n;
};

/* One row's estimates in each run of a side that has a cost for it. */
struct bench_cmp_side {
	int n, present; /* runs with a cost; runs that have the row */
	int out; /* of those, the runs left out (failed, too few rounds) */
	int run[BENCH_CMP_RUNS]; /* which run of the side each is */
	const char *boot[BENCH_CMP_RUNS]; /* its env's boot_id, "" unknown */
	double ns[BENCH_CMP_RUNS]; /* each run's median cost */
	double raw[BENCH_CMP_RUNS], vraw[BENCH_CMP_RUNS]; /* log, variance */
	double base[BENCH_CMP_RUNS], vbase[BENCH_CMP_RUNS]; /* vs baseline */
};

struct bench_cmp_row {
	const char *name; /* in the documents */
	double old_ns, new_ns; /* medians over runs of each run's median */
	struct st_est change; /* NEW / OLD, with its interval over runs */
	struct st_est
		vs_base; /* the same of each run's ratio to its baseline */
	bool has_base;
	const struct st_est *decided; /* which of the two the verdict takes */
	double p, p_holm; /* of no change, before and after Holm */
	double mde_pct; /* the smallest change found with 80% power */
	double between_pct, i2; /* the runs' spread beyond their own noise */
	int runs[2]; /* runs with a cost, OLD and NEW */
	/* "runs", "boots" (runs grouped by boot), "calibration"; NULL: none */
	const char *interval_from;
	/* slower, faster, same, inconclusive, confounded, no verdict, n/a,
	 * invalid, old only, new only */
	const char *verdict;
	char why[256];
};

/*
 * A state that moves rows (bench_env_moves) and differs between a run and
 * the first run kept, or changed during a run.
 */
struct bench_cmp_state {
	unsigned int moves; /* enum bench_moves */
	char what[320]; /* "NEW run 2: outside: new: clsact qdisc on vb (...)" */
};

#define BENCH_CMP_STATES 32

struct bench_cmp {
	struct bench_cmp_row *rows;
	int n;
	/* verdicts: slower, faster, same or inconclusive; confounded */
	int judged, confounded;
	struct bench_cmp_state state[BENCH_CMP_STATES];
	int nstate;
	/* each side's runs that failed (bit i: run i), and why, a line each */
	unsigned long long left_out[2];
	char left_out_why[1024];
	/* rows slower past the threshold against their baselines, the
	 * interval past it */
	int regressed;
	char mismatch[256]; /* what the runs differ in (--allow-mismatch) */
	/*
	 * How each run's env differs from ref's, the first run kept, and
	 * what changed during a run, one a line: "NEW: bpf_stats_enabled
	 * 0 -> 1".
	 */
	char env_diff[4096];
	char ref[32];
};

/*
 * The two sides (OLD, NEW) into c. -EINVAL, why saying so, for a
 * document that is no bench run; -EXDEV for runs that differ in
 * scenario, topology, CPU mode or a row's frame size, unless allowed;
 * -ENOENT for a row of opts->rows that no run has.
 */
int bench_compare(const struct bench_cmp_set *set,
		  const struct bench_cmp_opts *opts, struct bench_cmp *c,
		  char *why, size_t size);
/*
 * bench calibrate: the between-run variance of each row's estimates
 * over runs of one kernel (an A/A), for compare with one run a side.
 */
struct bench_cal_row {
	const char *name;
	int runs; /* with a cost */
	double raw_tau2, raw_i2, base_tau2, base_i2; /* NaN: unknown */
	double ns; /* the median over runs of each run's median */
	/*
	 * Runs (bit i: run i) whose estimate (vs baseline where the row has
	 * one) lies beyond |z| > BENCH_CAL_Z from the others' mean, on the
	 * runs' own variances: they disagree beyond their intervals.
	 */
	unsigned long long flagged;
};

#define BENCH_CAL_Z 3.29 /* two-sided 99.9% */

struct bench_cal {
	struct bench_cal_row *rows;
	int n, df;
};

int bench_calibrate(const struct bench_cmp_set *set, struct bench_cal *cal,
		    char *why, size_t size);
void bench_compare_free(struct bench_cmp *c);

#endif
