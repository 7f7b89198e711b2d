// SPDX-License-Identifier: GPL-2.0
/*
 * Rows of a hook whose per-packet work runs in threads of ours (the xsk
 * hook: AF_XDP on queue 0, in native XDP), attached as kind_bpf.c attaches
 * them. Its consumer thread runs on CPU 1 in both CPU
 * modes (CPU 0 has the generator), and its CPU time is counted with the
 * packets' work (doc/methodology.md). What its ring drops counts as
 * dropped before the hook.
 */
#include <errno.h>
#include <sched.h>
#include "bench.h"
#include "clock.h"
#include "kind.h"
#include "topo.h"

static int xsk_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	struct sched_param fifo = { .sched_priority = 1 };
	pid_t tid[BENCH_MAX_OWN];
	cpu_set_t cpu1;
	int ret, n, i;

	ret = bench_kind_bpf.setup(b, r, err);
	if (ret)
		return ret;
	/* inject: no driver runs its program; the live loop does (queue 0). */
	if (b->net.topo->inject)
		bench_live_prog(&b->net, r->run.prog_fd);
	/*
	 * It was born on bench's CPU 0; with one CPU it stays there. As the
	 * other rows' softirq work, no task holds it off (methodology.md).
	 */
	n = bench_threads("/proc/self/task", r->run.hook->thread, tid,
			  BENCH_MAX_OWN);
	CPU_ZERO(&cpu1);
	CPU_SET(BENCH_CPU_DUT, &cpu1);
	for (i = 0; i < n; i++) {
		if (b->env.cpus > 1)
			sched_setaffinity(tid[i], sizeof(cpu1), &cpu1);
		sched_setscheduler(tid[i], SCHED_FIFO, &fifo);
	}
	ret = n ? bench_clock_own(&b->net.clock, tid, n) : -ESRCH;
	if (ret)
		hc_err_set(err,
			   "counting the AF_XDP consumer thread's CPU time");
	return ret;
}

static int xsk_read(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	return bench_kind_bpf.read(b, r, c);
}

static void xsk_teardown(struct bench *b, struct bench_row *r)
{
	bench_clock_own(&b->net.clock, NULL, 0);
	bench_kind_bpf.teardown(b, r);
}

const struct bench_kind bench_kind_xsk = {
	.name = "xsk",
	.setup = xsk_setup,
	.teardown = xsk_teardown,
	.read = xsk_read,
	.paced = true,
};
