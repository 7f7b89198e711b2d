// SPDX-License-Identifier: GPL-2.0
/*
 * static-key rows: an ingress or clsact qdisc (and maybe a u32 filter
 * that matches nothing) and no program. Any of them turns the kernel's
 * ingress static key on, so every frame takes the tc ingress path.
 */
#include <linux/pkt_sched.h>
#include "bench.h"
#include "dev.h"
#include "kind.h"
#include "topo.h"
#include "journal.h"
#include "nl.h"
#include "qdisc.h"


static int ifindex(const struct bench *b, const struct bench_row *r)
{
	return r->qdisc.other_dev ? b->net.if_other : b->net.if_dut;
}

static struct hc_filter u32_filter(const struct bench *b,
				   const struct bench_row *r)
{
	return (struct hc_filter){
		.ifindex = ifindex(b, r),
		.parent = hc_tc_dirs[HC_TC_DIR_INGRESS].parent,
		.prio = 1,
		.handle = HC_U32_HANDLE,
		.kind = "u32",
	};
}

static int qdisc_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	struct hc_filter f = u32_filter(b, r);
	int ret;

	/* Pending until it exists: a qdisc that was there is not ours. */
	ret = bench_journal(b, &r->rec[0], &hc_jkind_qdisc, f.ifindex, r->qdisc.kind, false, err) ?:
		      hc_nl_qdisc_add(b->net.nl_dut, f.ifindex, r->qdisc.kind,
				      err);
	r->created = !ret;
	ret = ret   ?:
		      bench_journal(b, &r->rec[0], &hc_jkind_qdisc, f.ifindex,
				    r->qdisc.kind, true, err);
	if (ret) {
		if (!r->created)
			hc_journal_del(&r->rec[0]);
		hc_err_set(err, "adding the %s qdisc", r->qdisc.kind);
		return ret;
	}
	/* 0xdeadbeef at the start of the IP header: never true here. */
	if (r->qdisc.u32) {
		struct hc_jfilter *jf = HC_JDATA(&r->rec[1], struct hc_jfilter);

		jf->prio = f.prio;
		jf->handle = f.handle;
		jf->parent = f.parent;
		ret = bench_journal(b, &r->rec[1], &hc_jkind_filter, f.ifindex, "u32", true, err) ?:
			      hc_u32_attach(b->net.nl_dut, &f, err);
	}
	if (ret)
		hc_err_set(err, "adding a u32 filter");
	return ret;
}

/* The qdisc takes its filter with it. */
static void qdisc_teardown(struct bench *b, struct bench_row *r)
{
	if (r->created)
		hc_nl_qdisc_del(b->net.nl_dut, ifindex(b, r), r->qdisc.kind,
				NULL);
	r->created = false;
	hc_journal_del(&r->rec[1]);
	hc_journal_del(&r->rec[0]);
}

const struct bench_kind bench_kind_qdisc = {
	.name = "qdisc",
	.path = BENCH_PATH_STACK,
	.setup = qdisc_setup,
	.teardown = qdisc_teardown,
	.read = bench_read_dut,
};
