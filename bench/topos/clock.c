// SPDX-License-Identifier: GPL-2.0
/*
 * What a window's packets cost in CPU time. On a shared machine the wall
 * clock also holds whatever else ran: on the 2-vCPU VM hookcmp is built
 * on, one row's windows took 404 to 721 ns a packet by the wall clock and
 * 401 to 434 by the CPU. A task-clock counter (a perf software event)
 * counts the time a thread was on a CPU, with the interrupts and softirqs
 * that ran on it, whatever the kernel's accounting options; time other
 * tasks took is not in it. Inline, the packets' work runs in bench's own
 * thread, and in ksoftirqd/0 when the kernel defers softirqs; split, in
 * the DUT's NAPI kthreads and ksoftirqd on their CPU.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include "bench.h"
#include "clock.h"

static int task_clock(pid_t pid)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};
	int fd = syscall(__NR_perf_event_open, &a, pid, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static __u64 value(int fd)
{
	__u64 v = 0;

	return fd >= 0 && read(fd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

int bench_threads(const char *dir, const char *prefix, pid_t *pids, int max)
{
	char comm[64], path[300];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	while (d && n < max && (de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/comm", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			pids[n++] = atoi(de->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* The comm's newline ends the name: ksoftirqd/1, not ksoftirqd/12. */
static pid_t ksoftirqd(int cpu)
{
	char name[32];
	pid_t pids[1];

	snprintf(name, sizeof(name), "ksoftirqd/%d\n", cpu);
	return bench_threads("/proc", name, pids, 1) == 1 ? pids[0] : -1;
}

int bench_clock_open(struct bench_clock *c)
{
	pid_t p = ksoftirqd(BENCH_CPU_GEN), q = ksoftirqd(BENCH_CPU_DUT);
	struct hc_err err = {};
	int i;

	c->self = hc_fault(&err, "bench-clock") ?: task_clock(0);
	c->self_pid = gettid();
	c->softirqd_pid = p;
	c->softirqd_dut_pid = q;
	c->softirqd = p > 0 ? task_clock(p) : -ESRCH;
	/* Split: softirqs the DUT's CPU defers (one CPU: there is no split). */
	c->softirqd_dut = q > 0 ? task_clock(q) : -1;
	for (i = 0; i < BENCH_MAX_NAPI; i++)
		c->napi[i] = -1;
	for (i = 0; i < BENCH_MAX_OWN; i++)
		c->own[i] = -1;
	if (c->self < 0 || c->softirqd < 0) {
		int ret = c->self < 0 ? c->self : c->softirqd;

		bench_clock_close(c);
		return ret;
	}
	return 0;
}

/* Counters on pids in place of those in fds[0..*nfds). */
static int set_clocks(const struct bench_clock *c, int *fds, int *nfds, int max,
		      const pid_t *pids, int n)
{
	int i, ret = 0;

	for (i = 0; i < *nfds; i++)
		close(fds[i]);
	*nfds = 0;
	if (c->self < 0)
		return 0;
	for (i = 0; i < n && i < max && !ret; i++) {
		fds[i] = task_clock(pids[i]);
		ret = fds[i] < 0 ? fds[i] : 0;
		*nfds += !ret;
	}
	return ret;
}

int bench_clock_napi(struct bench_clock *c, const pid_t *pids, int n)
{
	int ret = set_clocks(c, c->napi, &c->nnapi, BENCH_MAX_NAPI, pids, n);

	/* What they count, for the scope checks (scope.c). */
	if (c->nnapi)
		memcpy(c->napi_pid, pids, c->nnapi * sizeof(*pids));
	return ret;
}

int bench_clock_own(struct bench_clock *c, const pid_t *pids, int n)
{
	int ret = set_clocks(c, c->own, &c->nown, BENCH_MAX_OWN, pids, n);

	if (c->nown)
		memcpy(c->own_pid, pids, c->nown * sizeof(*pids));
	return ret;
}

int bench_clock_tids(const struct bench_clock *c, bool dut, pid_t *tids,
		     int max)
{
	int n = 0, i;

	if (c->self < 0)
		return 0;
	if (dut) {
		for (i = 0; i < c->nnapi && n < max; i++)
			tids[n++] = c->napi_pid[i];
		if (c->softirqd_dut >= 0 && n < max)
			tids[n++] = c->softirqd_dut_pid;
	} else {
		if (n < max)
			tids[n++] = c->self_pid;
		if (n < max)
			tids[n++] = c->softirqd_pid;
	}
	for (i = 0; i < c->nown && n < max; i++)
		tids[n++] = c->own_pid[i];
	return n;
}

__u64 bench_clock_read_own(const struct bench_clock *c)
{
	__u64 ns = 0;
	int i;

	for (i = 0; i < c->nown; i++)
		ns += value(c->own[i]);
	return ns;
}

__u64 bench_clock_read(const struct bench_clock *c, bool dut)
{
	__u64 ns = 0;
	int i;

	if (!dut)
		return value(c->self) + value(c->softirqd);
	for (i = 0; i < c->nnapi; i++)
		ns += value(c->napi[i]);
	return ns + value(c->softirqd_dut);
}

void bench_clock_close(struct bench_clock *c)
{
	bench_clock_napi(c, NULL, 0);
	bench_clock_own(c, NULL, 0);
	if (c->self >= 0)
		close(c->self);
	if (c->softirqd >= 0)
		close(c->softirqd);
	if (c->softirqd_dut >= 0)
		close(c->softirqd_dut);
	c->self = c->softirqd = c->softirqd_dut = -1;
}
