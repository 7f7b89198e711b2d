// SPDX-License-Identifier: GPL-2.0
/*
 * tc flower with the scale scenario's N addresses (scale.h): on the DUT's
 * clsact ingress, N filters `protocol ip flower skip_hw src_ip ADDR/32
 * action drop`, a prio each from 1 on, as `tc filter add` without a prio
 * makes them: N classifiers walked in turn, linear (filters that shared
 * one prio would share one hash table). After them, at the last prio,
 * hookcmp's tc program counts and drops what they let through, put there
 * as the tc-clsact row puts it, qdisc and all. No frame is in the set: one
 * that was would be dropped uncounted, and its round would not add up.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "dev.h"
#include "kind.h"
#include "hooks.h"
#include "journal.h"
#include "qdisc.h"
#include "row.h"
#include "scale.h"
#include "stats.h"
#include "undo.h"

#define FLOWER_PRIO_PROG 0xffff /* the program's: after every filter */
#define FLOWER_MAX (FLOWER_PRIO_PROG - 1)

/*
 * A flower row's own, beside the program's run (r->run): its filters'
 * journal record, whose data says where they are (struct hc_jflower).
 */
struct flower_state {
	struct hc_jrec rec;
};
BENCH_KSTATE_FITS(struct flower_state);

static void flower_init(struct bench_row *r)
{
	const struct hc_hook_row *row;
	const struct hc_hook *hook;
	struct hc_run *run = &r->run;

	hc_run_init(run);
	row = hc_hook_row_find("tc-clsact", false, &hook);
	if (!row)
		hc_err_set(&run->err, "no hook offers a row tc-clsact");
	/* Without a hook, its setup says why. */
	if (!row ||
	    hc_run_of(run, hook, "--qdisc clsact --prio 65535", &run->err))
		run->hook = NULL;
	/* A counter, as nft's counter rule: the frame is not read. */
	run->conf.parse = HC_PARSE_NONE;
	run->conf.def_verdict = HC_DROP;
}

/*
 * The actions' cookie, which proves a filter ours (qdisc.h): "hookcmp",
 * the pid and when this process first made one, against pid reuse.
 */
static void flower_cookie(__u32 c[4])
{
	static __u32 first;

	if (!first)
		first = (__u32)(hc_now() * 1e6) | 1;
	memcpy(c, "hookcmp", 8);
	c[2] = getpid();
	c[3] = first;
}

/* No row of this kind can run: said for all, none tried again. */
static void flower_missing(struct bench_rows *rows, const struct bench_row *r,
			   int ret, const struct hc_err *err)
{
	char step[80];
	int i;

	snprintf(step, sizeof(step), "not set up (%s's setup found)", r->name);
	for (i = 0; i < rows->n; i++) {
		struct bench_row *o = &rows->row[i];

		if (o != r && o->kind == r->kind && !o->dead)
			bench_row_fail(o, step, ret, err);
	}
}

static int flower_setup(struct bench *b, struct bench_row *r,
			struct hc_err *err)
{
	struct hc_jrec *rec = &BENCH_KSTATE(r, struct flower_state)->rec;
	struct hc_jflower *jf = HC_JDATA(rec, struct hc_jflower);
	struct hc_filter f = { .ifindex = b->net.if_dut,
			       .parent = hc_tc_dirs[HC_TC_DIR_INGRESS].parent };
	char why[sizeof(err->msg)];
	__u32 i;
	int ret;

	if (r->entries > FLOWER_MAX) {
		hc_err_set(
			err,
			"tc flower: %u filters, a prio each before the program's %u, are more than the %u prios there are",
			r->entries, FLOWER_PRIO_PROG, FLOWER_MAX);
		return -E2BIG;
	}
	ret = bench_kind_bpf.setup(b, r, err);
	if (ret)
		return ret;
	/* In the record before the first filter: teardown finds them by it. */
	jf->parent = f.parent;
	jf->prio = 1;
	jf->n = r->entries;
	flower_cookie(jf->cookie);
	ret = bench_journal(b, rec, &hc_jkind_flower, f.ifindex, "flower", true,
			    err);
	for (i = 0; !ret && i < r->entries; i++) {
		f.prio = jf->prio + i;
		ret = hc_flower_attach(
			b->net.nl_dut, &f,
			htonl(bench_set_addr(i, r->entries, r->hit)),
			jf->cookie, err);
	}
	if (!ret)
		return 0;
	snprintf(why, sizeof(why), "%s", err->msg);
	if (ret == -EOPNOTSUPP) {
		hc_err_set(err, "tc flower: %s", why);
		flower_missing(&b->rows, r, ret, err);
	} else if (i) {
		hc_err_set(err, "tc flower: filter %u of %u (prio %u): %s", i,
			   r->entries, f.prio, why);
	}
	return ret;
}

/* The filters first: the program's qdisc goes only once they have. */
static void flower_teardown(struct bench *b, struct bench_row *r)
{
	struct hc_jrec *rec = &BENCH_KSTATE(r, struct flower_state)->rec;
	struct hc_jflower *jf = HC_JDATA(rec, struct hc_jflower);
	struct hc_filter f = { .ifindex = b->net.if_dut,
			       .parent = jf->parent,
			       .prio = jf->prio };
	struct hc_undo_pass pass = {};
	int ret = 0;

	if (jf->n)
		ret = hc_flower_detach(b->net.nl_dut, &f, jf->n, jf->cookie,
				       NULL);
	jf->n = 0;
	/* Left: undone again as cleanup would, or the record stays. */
	if (ret < 0 && rec->name[0]) {
		if (hc_undo_end(&pass, rec, hc_undo_print, NULL))
			hc_cleanup_hint(rec->netns, rec->dev, NULL);
	} else {
		hc_journal_del(rec);
	}
	bench_kind_bpf.teardown(b, r);
}

static int flower_read(struct bench *b, struct bench_row *r,
		       struct bench_count *c)
{
	return bench_kind_bpf.read(b, r, c);
}

static int flower_runs(struct bench *b, struct bench_row *r, __u64 *n)
{
	return bench_kind_bpf.runs(b, r, n);
}

const struct bench_kind bench_kind_flower = {
	.name = "flower",
	.path = "tcf_classify fl_classify bpf_prog_hc_tc*",
	.init = flower_init,
	.setup = flower_setup,
	.teardown = flower_teardown,
	.read = flower_read,
	.runs = flower_runs,
	.counted = "bpf_prog_*",
};
