/* SPDX-License-Identifier: GPL-2.0 */
/* Per-class counters: read from the per-CPU map, printed as text or JSON. */
#ifndef HC_STATS_H
#define HC_STATS_H

#include "hookcmp.h"

/* Per-CPU counts go this far; the totals count every CPU. */
#define HC_MAX_CPUS 1024

struct hc_snap {
	struct hc_counter c[HC_NR_STATS];
	/* Frames the hook's own rings dropped before the logic (AF_XDP). */
	__u64 dropped_before;
	__u64 ring_full; /* of those: the rx ring was full */
	__u64 cpu[HC_MAX_CPUS]; /* packets per CPU, every class and verdict */
	int ncpu;
	double t; /* CLOCK_MONOTONIC seconds when read */
};

extern const char *const hc_class_names[];

double hc_now(void);
int hc_stats_read(int map_fd, struct hc_snap *s);
/* The run's counters: its hook's own, else its per-CPU map. */
int hc_run_read(const struct hc_run *r, struct hc_snap *s);
/* prev -> cur: rates over the measured time between the two reads. */
void hc_stats_interval(const struct hc_run *r, const struct hc_snap *prev,
		       const struct hc_snap *cur, double since_start);
/* Exact totals: cur - start, and the time between them. */
void hc_stats_summary(const struct hc_run *r, const struct hc_snap *start,
		      const struct hc_snap *cur);

#endif
