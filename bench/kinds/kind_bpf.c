// SPDX-License-Identifier: GPL-2.0
/* Rows of hookcmp's own hooks: the program, attached as `hookcmp run` does. */
#include <errno.h>
#include <string.h>
#include "bench.h"
#include "kind.h"
#include "topo.h"
#include "hooks.h"
#include "print.h"
#include "stats.h"
#include "undo.h"

static int bpf_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	struct hc_run *run = &r->run;
	const struct hc_hook *h = run->hook;
	struct hc_err ferr = {};
	char step[64];
	bool loop;
	int ret;

	if (!h) {
		*err = run->err;
		hc_err_set(err, "bench row %s: %s", r->name, run->err.msg);
		return -EINVAL;
	}
	/*
	 * inject: no driver runs native XDP. The live loop runs the program
	 * itself, in the generator's place; attached (generic) to hcd's idle
	 * peer only to stay in the XDP dispatcher (see gen_up()).
	 */
	loop = b->net.topo->inject && r->hook && r->hook->no_driver;
	if (b->net.topo->inject && run->bare) {
		hc_err_set(
			err,
			"inject: a bare program counts nothing, and no driver counts what " BENCH_DUT_DEV
			" received: nothing would say the frames reached the hook");
		return -EOPNOTSUPP;
	}
	memset(&run->err, 0, sizeof(run->err));
	run->nl = b->net.nl_dut;
	run->dev = loop ? BENCH_GEN_DEV : b->net.dut_name;
	run->ifindex = loop ? bench_topo_gen_ifindex(&b->net) : b->net.if_dut;
	if (loop && hc_run_args(run, r->hook->no_driver, err))
		return -EINVAL;
	run->netns = b->opt.netns;
	run->no_journal = !b->net.journal;
	/* tests (HOOKCMP_FAIL_AT=bench-elsewhere-ROW): where no frame goes */
	snprintf(step, sizeof(step), "bench-elsewhere-%s", r->name);
	if (hc_fault(&ferr, step)) {
		run->dev = "lo";
		run->ifindex = 1; /* a namespace's loopback */
	}
	ret = bench_enter(b->net.fd_dut) ?: h->load(run) ?: h->attach(run);
	bench_enter(b->net.fd_gen);
	if (!ret && loop)
		bench_live_prog(&b->net, run->prog_fd);
	if (ret) {
		*err = run->err;
		hc_err_set(err, "%s (%s)%s%s", h->name, h->attach_name(run),
			   run->err.msg[0] ? ": " : "", run->err.msg);
	}
	return ret;
}

static void bpf_teardown(struct bench *b, struct bench_row *r)
{
	bench_live_prog(&b->net, -1);
	bench_enter(b->net.fd_dut);
	r->run.hook->detach(&r->run);
	hc_prog_unload(&r->run);
	/* The device left or went: where it is, or gone, as run follows it. */
	/* bench's own namespaces have no name to give cleanup: --all */
	if (hc_undo_run(&r->run, hc_undo_print, NULL))
		hc_cleanup_hint(b->opt.netns, b->opt.dev ? r->run.dev : NULL,
				NULL);
	bench_enter(b->net.fd_gen);
}

static int bpf_read(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	static struct hc_snap s; /* 8 KiB of per-CPU counts */
	int cls, key, ret;

	c->passed = 0;
	/* A bare program counts nothing: what the device received. */
	if (r->run.bare)
		return bench_dut_rx(&b->net, &c->seen);
	ret = hc_run_read(&r->run, &s);
	if (ret)
		return ret;
	c->dropped = s.dropped_before;
	c->ring_full = s.ring_full;
	c->seen = 0;
	if (c->cpu && s.ncpu) {
		int n = s.ncpu < b->env.ncpu ? s.ncpu : b->env.ncpu;

		memset(c->cpu, 0, b->env.ncpu * sizeof(c->cpu[0]));
		memcpy(c->cpu, s.cpu, n * sizeof(s.cpu[0]));
		c->cpus = true;
	}
	for (key = 0; key < HC_NR_STATS; key++)
		c->seen += s.c[key].packets;
	for (cls = 0; cls < HC_NR_CLASSES; cls++)
		c->passed += s.c[cls * HC_NR_VERDICTS + HC_PASS].packets;
	return 0;
}

static int runs(struct bench *b, struct bench_row *r, __u64 *n)
{
	if (!b->visit.bpf_stats)
		return -ENODATA; /* the kernel counts none */
	return hc_prog_runs(&r->run, n);
}

const struct bench_kind bench_kind_bpf = {
	.name = "bpf",
	.setup = bpf_setup,
	.teardown = bpf_teardown,
	.read = bpf_read,
	.runs = runs,
	.counted = "bpf_prog_*",
};
