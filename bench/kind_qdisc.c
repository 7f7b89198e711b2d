// SPDX-License-Identifier: GPL-2.0
/*
 * static-key rows: an ingress or clsact qdisc (and maybe a u32 filter
 * that matches nothing) and no program. Any of them turns the kernel's
 * ingress static key on, so every frame takes the tc ingress path.
 */
#include <linux/pkt_sched.h>
#include "bench.h"
#include "journal.h"
#include "nl.h"

/* u32's first node in its root table, 800::1: the handle to delete it by. */
#define U32_HANDLE 0x80000001

static struct hc_jrec qrec, frec;

static int ifindex(const struct bench *b, const struct bench_row *r)
{
	return r->qdisc.other_dev ? b->if_other : b->if_dut;
}

static int setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	struct hc_filter f = {
		.ifindex = ifindex(b, r),
		.parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
		.prio = 1,
		.handle = U32_HANDLE,
		.kind = "u32",
	};
	int ret;

	/* Pending until it exists: a qdisc that was there is not ours. */
	ret = bench_journal(b, &qrec, HC_J_QDISC, f.ifindex, r->qdisc.kind, false) ?:
		      hc_nl_qdisc_add(b->nl_dut, f.ifindex, r->qdisc.kind, err) ?:
		      bench_journal(b, &qrec, HC_J_QDISC, f.ifindex,
				    r->qdisc.kind, true);
	if (ret) {
		hc_journal_del(&qrec);
		hc_err_set(err, "adding the %s qdisc", r->qdisc.kind);
		return ret;
	}
	/* 0xdeadbeef at the start of the IP header: never true here. */
	if (r->qdisc.u32) {
		frec.prio = f.prio;
		frec.handle = f.handle;
		ret = bench_journal(b, &frec, HC_J_FILTER, f.ifindex, "u32", true) ?:
			      hc_nl_filter_add_u32(b->nl_dut, &f, 0xdeadbeef,
						   0xffffffff, 0,
						   TC_H_MAKE(1 << 16, 1), err);
	}
	if (ret)
		hc_err_set(err, "adding a u32 filter");
	return ret;
}

/* The qdisc takes its filter with it. */
static void teardown(struct bench *b, struct bench_row *r)
{
	if (!qrec.path[0] || qrec.done)
		hc_nl_qdisc_del(b->nl_dut, ifindex(b, r), r->qdisc.kind, NULL);
	hc_journal_del(&frec);
	hc_journal_del(&qrec);
}

const struct bench_kind bench_kind_qdisc = {
	.name = "qdisc",
	.setup = setup,
	.teardown = teardown,
	.read = bench_read_dut,
};
