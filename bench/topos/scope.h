/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: per-CPU evidence of what a window's CPU time covers (scope.c).
 */
#ifndef HC_BENCH_SCOPE_H
#define HC_BENCH_SCOPE_H

#include "bench.h"

#define BENCH_STEAL_MAX 0.01 /* a window with more steal is excluded */

/* Split: the DUT's NAPI kthreads now, up to max; -errno. */
int bench_dut_napi(struct bench_net *net, pid_t *pids, int max);
struct bench_cpu_snap {
	__u64 net_rx; /* NET_RX softirqs (/proc/softirqs) */
	__u64 busy; /* ticks of user, nice, system, irq, softirq (/proc/stat) */
	__u64 irq; /* ticks of irq and softirq */
	__u64 steal; /* ticks the hypervisor ran something else */
	bool softirqs, stat; /* the files had this CPU */
};

struct bench_snap {
	long hz; /* ticks per second (USER_HZ) */
	struct bench_cpu_snap cpu[BENCH_MAX_CPUS];
};

/* Parsers of the files' text, into s (which they do not clear). */
int bench_snap_parse_softirqs(struct bench_snap *s, const char *text);
int bench_snap_parse_stat(struct bench_snap *s, const char *text);
int bench_snap_read(struct bench_snap *s);
/*
 * A window of wall seconds between snapshots s0 and s1, counting the
 * CPUs in counted: 1, with why, when it had NET_RX softirqs on a CPU not
 * counted or steal above BENCH_STEAL_MAX of its time on one counted, and
 * is to be excluded from the estimates; 0 when it stands.
 */
int bench_window_check(const struct bench_snap *s0, const struct bench_snap *s1,
		       double wall, const cpu_set_t *counted, char *why,
		       size_t size);
/* 1, with why, unless 0 < cpu_ns <= wall_ns x ncpus (cpu_ns NaN: no clock). */
int bench_cpu_check(double cpu_ns, double wall_ns, int ncpus, char *why,
		    size_t size);
/*
 * RPS off on every RX queue of dev, threaded NAPI on or off as threaded
 * says: 0; 1 with why, naming the device, the queue or CPU and the
 * setting; -errno when sysfs cannot say.
 */
int bench_scope_dev(const char *dev, bool threaded, char *why, size_t size);
/* The CPUs whose work row r's window counts. */
void bench_scope_cpus(const struct bench_opts *o, const struct bench_net *net,
		      const struct bench_row *r, cpu_set_t *set);
/*
 * After window w of row r's round rd: s0 read before it, s1 read here.
 * Marks w excluded (bench_window_check), the first reason in rd; the row
 * is INVALID when its CPU time is not in (0, wall x counted CPUs].
 */
void bench_scope_window(struct bench *b, struct bench_row *r,
			struct bench_round *rd, struct bench_window *w,
			const struct bench_snap *s0, struct bench_snap *s1);
/* After a visit's windows: the row is INVALID if they had no CPU time. */
void bench_scope_visit(const struct bench_env *env, struct bench_row *r,
		       const struct bench_round *rd);
/* The veth topology's scope op (struct bench_topo). */
int bench_scope_veth(struct bench *b, struct bench_row *r, struct hc_err *err);

#endif
