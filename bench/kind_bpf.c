// SPDX-License-Identifier: GPL-2.0
/* Rows of hookcmp's own hooks: the program, attached as `hookcmp run` does. */
#include <errno.h>
#include <string.h>
#include "bench.h"
#include "stats.h"

const struct bench_hook bench_hooks[] = {
	{ "xdp-native", HC_HOOK_XDP, HC_XDP_NATIVE, .bare = true },
	{ "xdp-generic", HC_HOOK_XDP, HC_XDP_GENERIC, .bare = true },
	{ "tc-clsact", HC_HOOK_TC, HC_QDISC_CLSACT, .bare = true },
	/* Its bare program is tc-clsact's; only the qdisc differs. */
	{ "tc-ingress", HC_HOOK_TC, HC_QDISC_INGRESS },
	{ "tcx", HC_HOOK_TC, 0, .tcx = true, .bare = true },
	{ "socket-udp", HC_HOOK_SOCKET, HC_SOCK_UDP, .bare = true,
	  .local = true },
	{ "socket-packet", HC_HOOK_SOCKET, HC_SOCK_PACKET },
	{}
};

const struct bench_hook *bench_hook_by_name(const char *name)
{
	const struct bench_hook *h;

	for (h = bench_hooks; h->name; h++)
		if (!strcmp(h->name, name))
			return h;
	return NULL;
}

struct bench_row *bench_row_hook(struct bench *b, const struct bench_hook *h,
				 const char *suffix)
{
	char name[40];
	struct bench_row *r;
	struct hc_run *run;

	snprintf(name, sizeof(name), "%s%s", h->name, suffix);
	r = bench_row_add(b, name, &bench_kind_bpf);
	r->hook = h;
	run = &r->run;
	hc_run_init(run);
	run->hook = h->hook;
	run->xdp_mode = h->mode;
	run->qdisc = h->mode;
	run->sock = h->mode;
	run->tc_attach = h->tcx ? HC_TC_TCX : HC_TC_CLS_BPF;
	run->conf.parse = HC_PARSE_L4;
	run->conf.def_verdict = HC_DROP;
	r->local = h->local;
	return r;
}

static int setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	struct hc_run *run = &r->run;
	const struct hc_hook *h = hc_hook_of(run);
	int ret;

	/*
	 * inject: no driver runs native XDP. The live loop runs the program
	 * itself, in the generator's place; attached (generic) to hcd's idle
	 * peer only to stay in the XDP dispatcher (see gen_up()).
	 */
	bool loop = b->topo->inject && r->hook &&
		    r->hook->hook == HC_HOOK_XDP &&
		    r->hook->mode == HC_XDP_NATIVE;

	if (b->topo->inject && run->bare) {
		hc_err_set(
			err,
			"inject: a bare program counts nothing, and no driver counts what " BENCH_DUT_DEV
			" received: nothing would say the frames reached the hook");
		return -EOPNOTSUPP;
	}
	memset(&run->err, 0, sizeof(run->err));
	run->nl = b->nl_dut;
	run->dev = loop ? BENCH_GEN_DEV : b->dut_name;
	run->ifindex = loop ? b->if_gen : b->if_dut;
	if (loop)
		run->xdp_mode = HC_XDP_GENERIC;
	run->netns = b->netns;
	run->no_journal = !b->journal;
	ret = bench_enter(b->fd_dut) ?: h->load(run) ?: h->attach(run);
	bench_enter(b->fd_gen);
	if (!ret && loop)
		bench_live_prog(b, run->prog_fd);
	if (ret) {
		*err = run->err;
		hc_err_set(err, "%s (%s)%s%s", h->name, h->attach_name(run),
			   run->err.msg[0] ? ": " : "", run->err.msg);
	}
	return ret;
}

static void teardown(struct bench *b, struct bench_row *r)
{
	bench_live_prog(b, -1);
	bench_enter(b->fd_dut);
	hc_hook_of(&r->run)->detach(&r->run);
	hc_prog_unload(&r->run);
	bench_enter(b->fd_gen);
}

static int read_counts(struct bench *b, struct bench_row *r,
		       struct bench_count *c)
{
	static struct hc_snap s; /* 8 KiB of per-CPU counts */
	int cls, key, ret;

	c->passed = 0;
	/* A bare program counts nothing: what the device received. */
	if (r->run.bare)
		return bench_dut_rx(b, &c->seen);
	ret = hc_run_read(&r->run, &s);
	if (ret)
		return ret;
	c->dropped = s.dropped_before;
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

const struct bench_kind bench_kind_bpf = {
	.name = "bpf",
	.setup = setup,
	.teardown = teardown,
	.read = read_counts,
};
