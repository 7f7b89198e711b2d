// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/pkt_sched.h>
#include "journal.h"
#include "qdisc.h"

/* BPF_TCX_INGRESS and _EGRESS, Linux 6.6 uapi; Debian 12's predate them. */
const struct hc_tc_dir hc_tc_dirs[HC_NR_TC_DIRS] = {
	[HC_TC_DIR_INGRESS] = { "ingress", TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
				46, true },
	[HC_TC_DIR_EGRESS] = { "egress", TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS),
			       47, false },
};

struct hc_filter hc_filter_of(const struct hc_jrec *rec)
{
	const struct hc_jfilter *j = HC_JDATA(rec, const struct hc_jfilter);

	return (struct hc_filter){
		.ifindex = rec->ifindex,
		.parent = j->parent,
		.prio = j->prio,
		.handle = j->handle,
		.protocol = j->protocol,
		.chain = j->chain,
		.kind = !strcmp(rec->mode, "u32") ? "u32" : NULL,
	};
}

/* ---- filters ---- */

struct where {
	const struct hc_filter *f;
	bool any_handle; /* a conflict: anything at the prio */
	struct hc_filter_info info;
};

static int at_place(const struct hc_filter_info *i, void *data)
{
	struct where *w = data;

	if (i->prio != w->f->prio ||
	    (!w->any_handle &&
	     (i->handle != w->f->handle || i->chain != w->f->chain)))
		return 0;
	w->info = *i;
	return 1;
}

static int filter_find(struct hc_nl *nl, const struct hc_filter *f,
		       bool any_handle, struct hc_filter_info *info,
		       struct hc_err *err)
{
	struct where w = { .f = f, .any_handle = any_handle };
	int ret =
		hc_nl_filter_each(nl, f->ifindex, f->parent, at_place, &w, err);

	if (ret < 0)
		return ret;
	*info = w.info;
	return ret ? 0 : -ENOENT;
}

static __u16 protocol_of(const struct hc_filter *f)
{
	return f->protocol ? f->protocol : ETH_P_ALL;
}

/* Whatever holds f's prio or handle, as the conflict to report. */
static int conflict(struct hc_nl *nl, const struct hc_filter *f, int ret,
		    struct hc_err *err)
{
	struct hc_filter_info i;

	if (ret != -EEXIST && ret != -EINVAL)
		return ret;
	if (filter_find(nl, f, true, &i, NULL))
		return ret;
	if (i.protocol != protocol_of(f))
		hc_err_hint(
			err,
			"a %s filter of protocol %#06x holds prio %u already; pick another --prio",
			i.kind, i.protocol, f->prio);
	else if (strcmp(i.kind, f->kind ? f->kind : "bpf"))
		hc_err_hint(
			err,
			"a %s filter holds prio %u already; pick another --prio",
			i.kind, f->prio);
	else
		hc_err_hint(
			err,
			"a filter holds prio %u handle %#x already; pick another --prio or --handle",
			f->prio, f->handle);
	return -EBUSY;
}

int hc_filter_attach(struct hc_nl *nl, const struct hc_filter *f, int prog_fd,
		     struct hc_err *err)
{
	return conflict(nl, f,
			hc_nl_filter_add_bpf(nl, f, prog_fd, "hookcmp", err),
			err);
}

int hc_filter_ours(struct hc_nl *nl, const struct hc_filter *f, __u32 prog_id)
{
	struct hc_filter_info i;
	int ret = filter_find(nl, f, false, &i, NULL);

	if (ret)
		return ret == -ENOENT ? 0 : ret;
	return !strcmp(i.kind, "bpf") && i.prog_id == prog_id &&
	       i.protocol == protocol_of(f);
}

int hc_filter_detach(struct hc_nl *nl, const struct hc_filter *f, __u32 prog_id,
		     struct hc_err *err)
{
	struct hc_filter_info i;
	int ret = filter_find(nl, f, false, &i, err);

	if (ret)
		return ret;
	if (strcmp(i.kind, "bpf") || i.prog_id != prog_id ||
	    i.protocol != protocol_of(f)) {
		if (i.prog_id)
			hc_err_set(
				err,
				"prio %u handle %#x runs program %u now, not ours (%u)",
				f->prio, f->handle, i.prog_id, prog_id);
		else
			hc_err_set(
				err,
				"prio %u handle %#x holds a %s filter now, not ours",
				f->prio, f->handle, i.kind);
		return -EEXIST;
	}
	return hc_nl_filter_del(nl, f, err);
}

int hc_u32_attach(struct hc_nl *nl, const struct hc_filter *f,
		  struct hc_err *err)
{
	return conflict(nl, f,
			hc_nl_filter_add_u32(nl, f, HC_U32_VAL, 0xffffffff, 0,
					     HC_U32_CLASSID, err),
			err);
}

int hc_u32_detach(struct hc_nl *nl, const struct hc_filter *f,
		  struct hc_err *err)
{
	struct hc_filter_info i;
	int ret = filter_find(nl, f, false, &i, err);

	if (ret)
		return ret;
	if (strcmp(i.kind, "u32") || i.classid != HC_U32_CLASSID ||
	    i.nkeys != 1 || i.key.val != htonl(HC_U32_VAL) ||
	    i.key.mask != 0xffffffff || i.key.off ||
	    i.protocol != protocol_of(f)) {
		hc_err_set(
			err,
			"prio %u handle %#x holds a %s filter that is not bench's",
			f->prio, f->handle, i.kind);
		return -EEXIST;
	}
	return hc_nl_filter_del(nl, f, err);
}

static struct hc_filter flower_of(const struct hc_filter *f)
{
	struct hc_filter g = *f;

	g.kind = "flower";
	g.protocol = ETH_P_IP;
	g.handle = HC_FLOWER_HANDLE;
	return g;
}

int hc_flower_attach(struct hc_nl *nl, const struct hc_filter *f, __be32 src,
		     const __u32 cookie[4], struct hc_err *err)
{
	struct hc_filter g = flower_of(f);
	int ret = hc_nl_filter_add_flower(nl, &g, src, cookie, 16, err);

	/* A module the kernel has not: no filter of this kind can go on. */
	if (ret == -ENOENT && err && strstr(err->kernel, "classifier")) {
		hc_err_set(
			err,
			"this kernel has no cls_flower (CONFIG_NET_CLS_FLOWER)");
		return -EOPNOTSUPP;
	}
	if (ret == -ENOENT && err && strstr(err->kernel, "action")) {
		hc_err_set(
			err,
			"this kernel has no act_gact (CONFIG_NET_ACT_GACT), the action that drops");
		return -EOPNOTSUPP;
	}
	return conflict(nl, &g, ret, err);
}

struct flowers {
	const struct hc_filter *f;
	__u32 n, found;
	const __u32 *cookie;
	__u16 *prios;
};

static int flower_ours(const struct hc_filter_info *i, void *data)
{
	struct flowers *w = data;

	if (strcmp(i->kind, "flower") || i->protocol != ETH_P_IP ||
	    i->handle != HC_FLOWER_HANDLE || i->chain || i->prio < w->f->prio ||
	    (__u32)(i->prio - w->f->prio) >= w->n || i->nacts != 1 ||
	    strcmp(i->act, "gact") || i->cookie_len != 16 ||
	    memcmp(i->cookie, w->cookie, 16) || w->found >= w->n)
		return 0;
	w->prios[w->found++] = i->prio;
	return 0;
}

int hc_flower_detach(struct hc_nl *nl, const struct hc_filter *f, __u32 n,
		     const __u32 cookie[4], struct hc_err *err)
{
	struct flowers w = { .f = f, .n = n, .cookie = cookie };
	struct hc_filter g = flower_of(f);
	int ret, r, first = 0;
	__u32 k, gone = 0;

	w.prios = calloc(n ?: 1, sizeof(*w.prios));
	if (!w.prios)
		return -ENOMEM;
	/* All first, then each: a request amid the dump would clobber it. */
	ret = hc_nl_filter_each(nl, f->ifindex, f->parent, flower_ours, &w,
				err);
	for (k = 0; ret >= 0 && k < w.found; k++) {
		g.prio = w.prios[k];
		/* Gone meanwhile is as good; the first failure says why. */
		r = hc_nl_filter_del(nl, &g, first ? NULL : err);
		if (!r || r == -ENOENT)
			gone++;
		else if (!first)
			first = r;
	}
	free(w.prios);
	if (ret < 0)
		return ret;
	return first ?: (int)gone;
}

/* ---- qdiscs ---- */

static int kind_check(struct hc_nl *nl, int ifindex, const char *kind,
		      struct hc_err *err)
{
	char have[32];
	int ret = hc_nl_ingress_qdisc(nl, ifindex, have, sizeof(have), err);

	if (ret)
		return ret;
	if (!strcmp(have, kind))
		return 0;
	hc_err_set(err, "qdisc '%s' holds the ingress side already", have);
	hc_err_hint(err, "use --qdisc %s, or remove that qdisc first", have);
	return -EBUSY;
}

static bool same_qdisc(const struct hc_jrec *a, const struct hc_jrec *b)
{
	return a->kind == &hc_jkind_qdisc && a->done &&
	       a->ifindex == b->ifindex && hc_netns_same(&a->ns, &b->ns) &&
	       !strcmp(a->mode, b->mode) && !hc_jrec_same_run(a, b);
}

/*
 * The pid of a hookcmp run other than rec's that holds rec's qdisc: any
 * (live) with a filter of its own on it now (proven), or 0.
 */
static int owner_of(struct hc_nl *nl, const struct hc_jrec *rec, bool live)
{
	struct hc_jrec *recs;
	struct hc_filter_info info;
	struct hc_filter f;
	int n, i, k, pid = 0;

	if (hc_journal_list(&recs, &n, NULL))
		return 0;
	for (i = 0; i < n && !pid; i++) {
		if (recs[i].bad[0] || !same_qdisc(&recs[i], rec))
			continue;
		if (!live) {
			pid = recs[i].pid;
			break;
		}
		if (!hc_journal_alive(&recs[i]))
			continue;
		for (k = 0; k < n && !pid; k++) {
			if (recs[k].kind != &hc_jkind_filter ||
			    !hc_jrec_same_run(&recs[k], &recs[i]) ||
			    recs[k].ifindex != rec->ifindex)
				continue;
			f = hc_filter_of(&recs[k]);
			if (!filter_find(nl, &f, false, &info, NULL) &&
			    !strcmp(info.kind, "bpf") &&
			    info.prog_id == recs[k].prog_id)
				pid = recs[i].pid;
		}
	}
	free(recs);
	return pid;
}

int hc_qdisc_acquire(struct hc_nl *nl, struct hc_jrec *rec, const char *netns,
		     bool journal, enum hc_qdisc_own *own, int *with,
		     struct hc_err *err)
{
	bool keep = false; /* the add may have happened: the record stays */
	char have[32];
	int ret, look;

	*own = HC_QDISC_THEIRS;
	*with = 0;
	ret = journal ? hc_journal_lock(err) : 0;
	if (ret)
		return ret;
	/* Pending first: killed right after the add, cleanup knows of it. */
	rec->done = HC_JQDISC(rec)->shared = false;
	ret = hc_nl_ingress_qdisc(nl, rec->ifindex, have, sizeof(have), err);
	HC_JQDISC(rec)->proof =
		!ret && !have[0] ? HC_QDISC_NONE_BEFORE : HC_QDISC_PROOF_NONE;
	ret = ret						      ?:
		      (journal ? hc_journal_add(rec, netns, err) : 0) ?:
		      hc_fault(err, "qdisc")			      ?:
		      hc_nl_qdisc_add(nl, rec->ifindex, rec->mode, err);
	/* No answer: what is there says whether the add happened. */
	if (ret && ret != -EEXIST && rec->name[0]) {
		look = hc_nl_ingress_qdisc(nl, rec->ifindex, have, sizeof(have),
					   NULL);
		if (!look && !strcmp(have, rec->mode) &&
		    HC_JQDISC(rec)->proof == HC_QDISC_NONE_BEFORE)
			ret = 0;
		else if (look)
			keep = true;
	}
	if (!ret) {
		*own = HC_QDISC_CREATED;
		rec->done = true;
	} else if (ret == -EEXIST) {
		ret = kind_check(nl, rec->ifindex, rec->mode, err);
		*with = ret || !journal ? 0 : owner_of(nl, rec, true);
		if (*with) {
			*own = HC_QDISC_SHARED;
			rec->done = HC_JQDISC(rec)->shared = true;
		}
	}
	if (journal && rec->done) {
		ret = hc_journal_add(rec, netns, err);
		if (ret && *own == HC_QDISC_CREATED)
			hc_nl_qdisc_del(nl, rec->ifindex, rec->mode, NULL);
		if (ret)
			*own = HC_QDISC_THEIRS;
	}
	if (journal && *own == HC_QDISC_THEIRS && !keep)
		hc_journal_del(rec);
	if (journal)
		hc_journal_unlock();
	return ret;
}

/* The filters on a qdisc: all, and those of live hookcmp runs' records. */
struct on_qdisc {
	const struct hc_jrec *rec, *recs;
	int nrecs, total, hookcmp, pid;
};

static int count_filter(const struct hc_filter_info *info, void *data)
{
	struct on_qdisc *q = data;
	int i;

	q->total++;
	for (i = 0; i < q->nrecs; i++) {
		const struct hc_jrec *j = &q->recs[i];
		struct hc_filter f = hc_filter_of(j);

		if (!j->bad[0] && j->kind == &hc_jkind_filter &&
		    hc_netns_same(&j->ns, &q->rec->ns) &&
		    j->ifindex == info->ifindex && f.prio == info->prio &&
		    f.handle == info->handle && j->prog_id == info->prog_id &&
		    !strcmp(info->kind, "bpf") && hc_journal_alive(j)) {
			q->hookcmp++;
			q->pid = j->pid;
			break;
		}
	}
	return 0;
}

int hc_qdisc_release(struct hc_nl *nl, int ifindex, const char *kind,
		     const struct hc_jrec *rec, bool proof, struct hc_err *err)
{
	struct on_qdisc q = { .rec = rec };
	struct hc_jrec *recs = NULL;
	int i, ret, pid;
	char have[32];

	ret = rec ? hc_journal_lock(err) : 0;
	if (ret)
		return ret;
	ret = hc_nl_ingress_qdisc(nl, ifindex, have, sizeof(have), err);
	if (ret == -ENODEV)
		ret = -ENOENT;
	if (!ret && strcmp(have, kind)) {
		if (have[0])
			hc_err_set(err, "a %s qdisc holds the ingress side now",
				   have);
		else
			hc_err_set(err, "no %s qdisc there any more", kind);
		ret = -ENOENT;
	}
	pid = !ret && rec ? owner_of(nl, rec, false) : 0;
	if (pid) {
		hc_err_set(err, "the %s stays for hookcmp %d, which shares it",
			   kind, pid);
		ret = -EUSERS;
	}
	if (!ret && rec)
		hc_journal_list(&recs, &q.nrecs, NULL);
	q.recs = recs;
	for (i = 0; !ret && i < HC_NR_TC_DIRS; i++) {
		if (strcmp(kind, "clsact") && !hc_tc_dirs[i].on_ingress)
			continue;
		ret = hc_nl_filter_each(nl, ifindex, hc_tc_dirs[i].parent,
					count_filter, &q, err);
		ret = ret < 0 ? ret : 0;
	}
	free(recs);
	if (!ret && q.total > q.hookcmp) {
		hc_err_set(
			err,
			"the %s hookcmp created stays: %d filter%s of someone else's hang%s on it",
			kind, q.total - q.hookcmp,
			q.total - q.hookcmp > 1 ? "s" : "",
			q.total - q.hookcmp > 1 ? "" : "s");
		ret = -EBUSY;
	} else if (!ret && q.hookcmp) {
		hc_err_set(
			err,
			"the filter of hookcmp %d, which still runs, is on it",
			q.pid);
		ret = -EAGAIN;
	}
	if (!ret && !proof) {
		hc_err_set(
			err,
			"nothing proves it is still the one hookcmp created: hookcmp's filter was not on it");
		ret = -ESTALE;
	}
	if (!ret)
		ret = hc_nl_qdisc_del(nl, ifindex, kind, err);
	if (rec)
		hc_journal_unlock();
	return ret;
}
