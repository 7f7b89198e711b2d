/* SPDX-License-Identifier: GPL-2.0 */
/* hookcmp bench: the task clocks that time a window's packets (clock.c). */
#ifndef HC_BENCH_CLOCK_H
#define HC_BENCH_CLOCK_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#define BENCH_MAX_NAPI 8
#define BENCH_MAX_OWN 4

/* Task-clock counters (clock.c); self < 0: none, the wall clock serves. */
struct bench_clock {
	int self, softirqd;
	int softirqd_dut; /* split: ksoftirqd on the DUT's CPU */
	int napi[BENCH_MAX_NAPI];
	pid_t napi_pid[BENCH_MAX_NAPI]; /* the kthreads napi[] counts */
	int nnapi;
	int own[BENCH_MAX_OWN]; /* the row's own threads */
	int nown;
	/* what they count, for the sampler (path.c) */
	pid_t self_pid, softirqd_pid, softirqd_dut_pid, own_pid[BENCH_MAX_OWN];
};

/*
 * The ids of the threads under dir ("/proc": processes; "/proc/self/task":
 * ours) whose name starts with prefix, up to max.
 */
int bench_threads(const char *dir, const char *prefix, pid_t *pids, int max);

/* CPU time of the packets' work, in ns since some start. */
int bench_clock_open(struct bench_clock *c);
/* Split: the DUT's NAPI kthreads, counted from now on. */
int bench_clock_napi(struct bench_clock *c, const pid_t *pids, int n);
/* The DUT's NAPI kthreads and ksoftirqd/1, or bench's thread and ksoftirqd/0. */
__u64 bench_clock_read(const struct bench_clock *c, bool dut);
/* The threads bench_clock_read(c, dut) and the own clock count, up to max. */
int bench_clock_tids(const struct bench_clock *c, bool dut, pid_t *tids,
		     int max);
/* A row's own threads (pids; n 0 forgets them), and their CPU time. */
int bench_clock_own(struct bench_clock *c, const pid_t *pids, int n);
__u64 bench_clock_read_own(const struct bench_clock *c);
void bench_clock_close(struct bench_clock *c);

#endif
