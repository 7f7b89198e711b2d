/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ingress qdiscs and tc filters, with one rule: delete only what hookcmp
 * can prove it made. A filter is ours while it runs our program id (or,
 * for bench's u32 filter, carries its selector and class; for its flower
 * filters, its action carries the run's cookie); a qdisc is
 * deleted only when our filter was just found on it and removed, no
 * other hookcmp run shares it, and no filter is left on it.
 */
#ifndef HC_QDISC_H
#define HC_QDISC_H

#include <stdbool.h>
#include "nl.h"

/* Their journal records: the filter, and the qdisc it hangs on. */
extern const struct hc_jkind hc_jkind_filter, hc_jkind_qdisc;
/* Their data. A filter's: where it hangs (the record's mode: "u32" for
 * bench's u32, else a filter of the record's program). */
struct hc_jfilter {
	__u32 parent, prio, handle, chain, protocol;
};
/* A qdisc's: done and shared (joined, another hookcmp run made it). */
struct hc_jqdisc {
	bool shared;
	__u32 proof; /* what else proves it ours (enum hc_qdisc_proof) */
};
#define HC_JQDISC(rec) HC_JDATA(rec, struct hc_jqdisc)

/*
 * A direction of tc, as libbpf's bpf_tc_hook.attach_point: data, so that
 * a filter, a tcx link and their records go through the same code either
 * way. A record keeps its filter's parent.
 */
struct hc_tc_dir {
	const char *name;
	__u32 parent; /* its filters' parent; sch_ingress has ingress's */
	__u32 tcx; /* its tcx attach type */
	bool on_ingress; /* sch_ingress offers it too, not only clsact */
};

enum { HC_TC_DIR_INGRESS, HC_TC_DIR_EGRESS, HC_NR_TC_DIRS };
extern const struct hc_tc_dir hc_tc_dirs[HC_NR_TC_DIRS];

/*
 * A qdisc record's proof beside its filter's record: no ingress qdisc was
 * there when the pending record was written (a qdisc of its kind with no
 * filter, after a kill before the record said "created", is the one
 * hookcmp made); or our filter was on it and is being removed (empty,
 * it is ours to delete even when the filter's record is gone).
 */
enum { HC_QDISC_PROOF_NONE, HC_QDISC_NONE_BEFORE, HC_QDISC_FILTER_LEAVING };

/* How a run holds the ingress qdisc its filter hangs on. */
enum hc_qdisc_own {
	HC_QDISC_THEIRS, /* it was there: not ours to delete */
	HC_QDISC_CREATED,
	HC_QDISC_SHARED, /* a live hookcmp run created it; we joined */
};

/*
 * Creates the ingress qdisc kind on rec's device, or takes the one there:
 * joined (shared) when a live hookcmp run created it and its filter is on
 * it now, else someone else's. With a journal (rec->name set or journal
 * true), rec is written pending before the qdisc is added and rewritten
 * as done, or dropped when the qdisc is not ours; all under the journal's
 * lock. An add whose answer is lost is confirmed by looking: the qdisc
 * there is ours when none was before; a look that fails keeps the pending
 * record. *with: the pid of the run we share it with.
 */
int hc_qdisc_acquire(struct hc_nl *nl, struct hc_jrec *rec, const char *netns,
		     bool journal, enum hc_qdisc_own *own, int *with,
		     struct hc_err *err);
/*
 * Deletes the ingress qdisc kind of ifindex when proof (our filter was just
 * removed from it), no record but rec (NULL: no journal) says another
 * hookcmp run holds it, and no filter is left. 0 deleted; -ENOENT it is
 * gone; it stays, err saying why, with -EUSERS (another hookcmp run
 * shares it), -EBUSY (someone's filters), -EAGAIN (the filter of a live
 * hookcmp run that did not share it: not someone else's, not ours to
 * take) or -ESTALE (no proof).
 */
int hc_qdisc_release(struct hc_nl *nl, int ifindex, const char *kind,
		     const struct hc_jrec *rec, bool proof, struct hc_err *err);

/* 1 when f is there and runs prog_id, 0 when not, or -errno. */
int hc_filter_ours(struct hc_nl *nl, const struct hc_filter *f, __u32 prog_id);

/* EEXIST and any other conflict at f's prio or handle are -EBUSY. */
int hc_filter_attach(struct hc_nl *nl, const struct hc_filter *f, int prog_fd,
		     struct hc_err *err);
/*
 * Deletes f if it still runs prog_id: 0; -ENOENT if there is no such
 * filter; -EEXIST if it runs another program (err says which).
 */
int hc_filter_detach(struct hc_nl *nl, const struct hc_filter *f, __u32 prog_id,
		     struct hc_err *err);

/* bench's u32 filter that matches nothing: 0xdeadbeef at offset 0. */
#define HC_U32_VAL 0xdeadbeef
#define HC_U32_HANDLE 0x80000001 /* 800::1, u32's first node */
#define HC_U32_CLASSID TC_H_MAKE(1 << 16, 1)
int hc_u32_attach(struct hc_nl *nl, const struct hc_filter *f,
		  struct hc_err *err);
/* Deletes f if it is still bench's: the same codes as hc_filter_detach. */
int hc_u32_detach(struct hc_nl *nl, const struct hc_filter *f,
		  struct hc_err *err);

/*
 * bench's flower filters: n of them, one a prio from the first on (as
 * `tc filter add` without a prio makes them), each `protocol ip flower
 * skip_hw src_ip ADDR/32 action drop` whose action carries a cookie of
 * the run's: ours while it carries that cookie. Their journal record.
 */
extern const struct hc_jkind hc_jkind_flower;
#define HC_FLOWER_HANDLE 1
struct hc_jflower {
	__u32 parent, prio, n; /* prio: the first of n */
	__u32 cookie[4];
};
/*
 * f's prio and parent (protocol and kind are flower's). -EOPNOTSUPP, err
 * saying which, where the kernel has no cls_flower or no act_gact; a
 * conflict as hc_filter_attach's.
 */
int hc_flower_attach(struct hc_nl *nl, const struct hc_filter *f, __be32 src,
		     const __u32 cookie[4], struct hc_err *err);
/*
 * Deletes the filters under f's parent at prios f->prio to f->prio +
 * n - 1 that carry cookie, found in one dump: how many, or -errno.
 */
int hc_flower_detach(struct hc_nl *nl, const struct hc_filter *f, __u32 n,
		     const __u32 cookie[4], struct hc_err *err);

/* The filter of a journal record: where it hangs and what it is. */
struct hc_filter hc_filter_of(const struct hc_jrec *rec);

#endif
