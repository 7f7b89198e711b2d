/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: a row's kernel path, checked against its sampled visits
 * (path.c).
 */
#ifndef HC_BENCH_PATH_H
#define HC_BENCH_PATH_H

#include "bench.h"

#define BENCH_PATH_PERIOD_NS 100000 /* sampling: every 100 us of CPU time */
/* An emulated CPU (qemu TCG) pays for every timer interrupt many times over. */
#define BENCH_PATH_PERIOD_EMU_NS 1000000
#define BENCH_PATH_SECS 0.5 /* sampled visits past BENCH_PATH_MIN stop after */
#define BENCH_PATH_SAMPLES 2000 /* the path check samples a row this often */
#define BENCH_PATH_MIN 200 /* fewer samples check nothing */
/* Under BENCH_PATH_MIN, or while a group of the row's path has not shown,
 * sampled visits go on until this long (a busy machine, a short visit:
 * the generator alone) while frames arrive. */
#define BENCH_PATH_MAX_SECS 10.0
#define BENCH_PATH_STRAY 0.02 /* a '!' function in more samples: it ran */
#define BENCH_FN_USER "[user]" /* samples in user space: bench's own */

/* A function seen in a row's samples (path.c). */
struct bench_fn {
	char *name;
	__u64 self; /* samples it was the leaf of */
	__u64 chain; /* samples whose callchain held it */
	__u64 last; /* the sample that counted it last */
};

/* The functions of one sampled visit, and what they were sampled over. */
struct bench_fns {
	struct bench_fn *fn; /* open addressing by name */
	__u32 n, cap;
	__u64 samples, user, lost;
	__u64 period_ns; /* each sample's CPU time */
	__u64 packets; /* the row processed in the sampled windows */
	double cpu_ns; /* the windows' CPU time by the task clocks */
	__s64 runs; /* the kind's counted code ran in them, -1 unknown */
	const char *counted; /* the alternatives that code is */
	char why[160]; /* sampling failed: why */
};

/* One row's profiled visit in one round (--profile). */
struct bench_prof {
	int round;
	struct bench_fns t;
};

/*
 * A visit's windows sampled into t until it has want samples (or a few
 * visits); rd is the first one's. A sampling failure is t->why's, not
 * the bench's: -errno only for what ends the bench.
 */
int bench_sampled(struct bench *b, struct bench_row *r, struct bench_round *rd,
		  struct bench_fns *t, __u64 want, struct hc_err *err);
/*
 * A declared path, a group at a time from *pos (g its text, '!' kept, len
 * its length), and a group an alternative at a time ('!' skipped). False
 * at the end.
 */
bool bench_path_group(const char **pos, const char **g, size_t *len);
bool bench_path_alt(const char **g, size_t *len, const char **alt,
		    size_t *alen);
/* name matches pattern pat (len): the same, or a prefix before a final '*' */
bool bench_path_match(const char *pat, size_t len, const char *name);
/* path's groups against t's samples: p's missing and unexpected. */
void bench_path_judge(const char *path, const struct bench_fns *t,
		      struct bench_path *p);
/* The row's check from its sampled visit: INVALID with the reason. */
void bench_path_row(const struct bench_watch *w, struct bench_row *r,
		    const struct bench_fns *t);
/*
 * Do a row's frames become skbs, by its declared path? Only native XDP
 * (it rules do_xdp_generic out) and AF_XDP end in the driver, unless
 * they pass frames on to the stack.
 */
bool bench_path_skb(const char *path);
/* Appends groups to the row's path. */
void bench_row_path(struct bench_row *r, const char *groups);
int bench_path_begin(struct bench_watch *w, const struct bench_opts *o);
/*
 * The kernel's symbols again, once the warm-up's setups have run: the
 * functions of a module a row loaded on first use (cls_flower) are there.
 */
int bench_path_reload(struct bench_watch *w, const struct bench_opts *o);
/* The sampling period: BENCH_PATH_PERIOD_NS, or emulated's. */
__u64 bench_path_period(const struct bench_env *env);
void bench_path_end(struct bench_watch *w);
/* name's entry in t, added if new (NULL: no memory); or found only. */
struct bench_fn *bench_fn_get(struct bench_fns *t, const char *name);
const struct bench_fn *bench_fn_find(const struct bench_fns *t,
				     const char *name);
void bench_fns_free(struct bench_fns *t);

#endif
