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
#include "path.h"
#include "topo.h"
#include "journal.h"
#include "nl.h"
#include "qdisc.h"

/* A qdisc row's own: what it puts in place, and what it made. */
struct qdisc_state {
	const char *kind; /* "ingress" or "clsact" */
	bool other_dev; /* on BENCH_OTHER_DEV instead of the DUT */
	bool u32; /* plus a u32 filter that matches nothing */
	bool created; /* it made the qdisc, so only it deletes it */
	struct hc_jrec rec[2]; /* journalled: the qdisc, the u32 filter */
};
BENCH_KSTATE_FITS(struct qdisc_state);

void bench_row_qdisc(struct bench_row *r, const char *kind, bool other_dev,
		     bool u32)
{
	struct qdisc_state *q = BENCH_KSTATE(r, struct qdisc_state);

	q->kind = kind;
	q->other_dev = r->other = other_dev;
	q->u32 = u32;
	if (u32)
		bench_row_path(r, "tcf_classify");
}

static int ifindex(const struct bench_net *net, const struct bench_row *r)
{
	return BENCH_KSTATE(r, const struct qdisc_state)->other_dev ?
		       net->if_other :
		       net->if_dut;
}

static struct hc_filter u32_filter(const struct bench_net *net,
				   const struct bench_row *r)
{
	return (struct hc_filter){
		.ifindex = ifindex(net, r),
		.parent = hc_tc_dirs[HC_TC_DIR_INGRESS].parent,
		.prio = 1,
		.handle = HC_U32_HANDLE,
		.kind = "u32",
	};
}

static int qdisc_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	struct qdisc_state *q = BENCH_KSTATE(r, struct qdisc_state);
	struct hc_filter f = u32_filter(&b->net, r);
	int ret;

	/* Pending until it exists: a qdisc that was there is not ours. */
	ret = bench_journal(b, &q->rec[0], &hc_jkind_qdisc, f.ifindex, q->kind, false, err) ?:
		      hc_nl_qdisc_add(b->net.nl_dut, f.ifindex, q->kind, err);
	q->created = !ret;
	ret = ret   ?:
		      bench_journal(b, &q->rec[0], &hc_jkind_qdisc, f.ifindex,
				    q->kind, true, err);
	if (ret) {
		if (!q->created)
			hc_journal_del(&q->rec[0]);
		hc_err_set(err, "adding the %s qdisc", q->kind);
		return ret;
	}
	/* 0xdeadbeef at the start of the IP header: never true here. */
	if (q->u32) {
		struct hc_jfilter *jf = HC_JDATA(&q->rec[1], struct hc_jfilter);

		jf->prio = f.prio;
		jf->handle = f.handle;
		jf->parent = f.parent;
		ret = bench_journal(b, &q->rec[1], &hc_jkind_filter, f.ifindex, "u32", true, err) ?:
			      hc_u32_attach(b->net.nl_dut, &f, err);
	}
	if (ret)
		hc_err_set(err, "adding a u32 filter");
	return ret;
}

/* The qdisc takes its filter with it. */
static void qdisc_teardown(struct bench *b, struct bench_row *r)
{
	struct qdisc_state *q = BENCH_KSTATE(r, struct qdisc_state);

	if (q->created)
		hc_nl_qdisc_del(b->net.nl_dut, ifindex(&b->net, r), q->kind,
				NULL);
	q->created = false;
	hc_journal_del(&q->rec[1]);
	hc_journal_del(&q->rec[0]);
}

const struct bench_kind bench_kind_qdisc = {
	.name = "qdisc",
	.path = BENCH_PATH_STACK,
	.setup = qdisc_setup,
	.teardown = qdisc_teardown,
	.read = bench_read_dut,
};
