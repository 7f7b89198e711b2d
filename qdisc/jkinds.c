// SPDX-License-Identifier: GPL-2.0
/*
 * The journal's tc filters and ingress qdiscs, undone by cleanup: a
 * filter while it runs our program (or is bench's u32), found wherever
 * its device went; a qdisc only with the proof qdisc.h asks for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "journal.h"
#include "print.h"
#include "qdisc.h"
#include "undo.h"

static void proven(struct hc_undo_ctx *c)
{
	struct hc_undo_pass *p = c->pass;

	if (p->nremoved < (int)(sizeof(p->removed) / sizeof(p->removed[0])))
		p->removed[p->nremoved++] = *c->rec;
}

static bool proof_for(const struct hc_undo_ctx *c)
{
	const struct hc_jrec *q = c->rec;
	int i;

	for (i = 0; i < c->pass->nremoved; i++) {
		const struct hc_jrec *f = &c->pass->removed[i];

		if (hc_jrec_same_run(f, q) && f->ifindex == q->ifindex &&
		    hc_netns_same(&f->ns, &q->ns))
			return true;
	}
	return false;
}

struct has_filter {
	struct hc_undo_ctx *c;
	int ifindex;
	const char *name, *where;
	bool done;
};

static int filter_is_ours(const struct hc_filter_info *i, void *data)
{
	struct has_filter *h = data;
	struct hc_filter f = hc_filter_of(h->c->rec);
	int ret;

	if (strcmp(i->kind, "bpf") || i->prog_id != h->c->rec->prog_id)
		return 0;
	f.ifindex = h->ifindex;
	f.parent = i->parent;
	f.prio = i->prio;
	f.handle = i->handle;
	f.chain = i->chain;
	f.protocol = i->protocol;
	ret = hc_nl_filter_del(h->c->nl, &f, &h->c->err);
	if (ret)
		hc_undo_failed(h->c, ret);
	else
		hc_undo_say(h->c, "deleted", false,
			    "deleted, found in %s on %s", h->where, h->name);
	return 1;
}

static int filter_dev(int ifindex, const struct hc_link_info *li, void *data)
{
	struct has_filter *h = data;

	h->ifindex = ifindex;
	h->name = li->name;
	return hc_nl_filter_each(h->c->nl, ifindex,
				 hc_filter_of(h->c->rec).parent, filter_is_ours,
				 h, NULL) > 0;
}

static int filter_here(struct hc_undo_ctx *c, const char *where)
{
	struct has_filter h = { .c = c, .where = where };

	return hc_nl_link_each(c->nl, filter_dev, &h, NULL) > 0;
}

static void undo_filter(struct hc_undo_ctx *c)
{
	const struct hc_jrec *j = c->rec;
	struct hc_filter f = hc_filter_of(j);
	bool u32 = f.kind != NULL;
	int ret = -ENOENT;

	if (c->nl)
		ret = u32 ? hc_u32_detach(c->nl, &f, &c->err) :
			    hc_filter_detach(c->nl, &f, j->prog_id, &c->err);
	if (!ret) {
		proven(c);
		return hc_undo_say(c, "deleted", false, "deleted%s",
				   hc_undo_now_called(c));
	}
	if (ret == -EEXIST)
		return hc_undo_say(c, "left alone", false,
				   "not ours any more: left alone (%s)",
				   c->err.msg);
	/* No filter there, or no qdisc, or no device. */
	if (ret != -ENOENT && ret != -EINVAL && ret != -ENODEV)
		return hc_undo_failed(c, ret);
	if (u32) {
		if (!hc_undo_ns_missing(c))
			hc_undo_say(c, "gone", false, "already gone");
		return;
	}
	ret = hc_undo_follow(c, filter_here, "in no filter");
	if (ret < 0)
		hc_undo_failed(c, ret);
	else if (!ret && !c->nl && c->gone == -ENOENT)
		hc_undo_say(c, "gone", false,
			    "its network namespace is gone, and this with it");
	else if (!ret)
		hc_undo_say(c, "gone", false, "already gone");
}

/*
 * A live run's filter on a dead run's qdisc: the record stays, with the
 * proof this pass found written into it, for a cleanup after that run.
 */
static void wait_for_run(struct hc_undo_ctx *c, bool proof)
{
	struct hc_jrec later = *c->rec;

	if (proof && HC_JQDISC(&later)->proof != HC_QDISC_FILTER_LEAVING) {
		HC_JQDISC(&later)->proof = HC_QDISC_FILTER_LEAVING;
		hc_journal_add(&later, NULL, NULL);
	}
	hc_undo_say(
		c, "left alone", true,
		"left for now: %s; hookcmp cleanup removes it once that run ends",
		c->err.msg);
}

static void undo_qdisc(struct hc_undo_ctx *c)
{
	const struct hc_jrec *j = c->rec;
	__u32 was = HC_JDATA(j, const struct hc_jqdisc)->proof;
	bool proof;
	int ret;

	if (hc_undo_ns_missing(c))
		return;
	if (!j->done && was != HC_QDISC_NONE_BEFORE)
		return hc_undo_say(c, "left alone", false,
				   "never created by hookcmp, left alone");
	/* Pending: none was there before, so one of its kind is hookcmp's. */
	proof = !j->done || proof_for(c) || was == HC_QDISC_FILTER_LEAVING;
	ret = hc_qdisc_release(c->nl, j->ifindex, j->mode, j, proof, &c->err);
	switch (ret) {
	case -EAGAIN:
		return wait_for_run(c, proof && j->done);
	case 0:
		return hc_undo_say(
			c, "deleted", false, "deleted%s%s",
			j->done ?
				"" :
				" (made by a hookcmp stopped before it could say so: none was there before)",
			hc_undo_now_called(c));
	case -ENOENT:
	case -ENODEV:
		return hc_undo_say(c, "gone", false, "already gone%s%s",
				   c->err.msg[0] ? ": " : "", c->err.msg);
	case -EUSERS:
	case -EBUSY:
		return hc_undo_say(c, "left alone", false, "left alone: %s",
				   c->err.msg);
	case -ESTALE:
		return hc_undo_say(
			c, "left alone", false,
			"left alone: %s; if nobody uses it: tc%s%s qdisc del dev %s %s",
			c->err.msg, j->netns[0] ? " -n " : "", j->netns, j->dev,
			j->mode);
	default:
		return hc_undo_failed(c, ret);
	}
}

static void filter_print(const struct hc_jrec *j, struct hc_pr *p)
{
	struct hc_filter f = hc_filter_of(j);

	if (f.kind)
		hc_pr_text(p, " u32");
	hc_pr_fu64(p, HC_PR_ALL, "prio", " prio %llu", f.prio);
	hc_pr_fu64(p, HC_PR_ALL, "handle", " handle %#llx", f.handle);
	if (!f.kind)
		hc_pr_fu64(p, HC_PR_ALL, "prog_id", " program %llu",
			   j->prog_id);
}

/* bench's flower filters: those that carry the record's cookie still. */
static void undo_flower(struct hc_undo_ctx *c)
{
	const struct hc_jrec *j = c->rec;
	const struct hc_jflower *fl = HC_JDATA(j, const struct hc_jflower);
	struct hc_filter f = { .ifindex = j->ifindex,
			       .parent = fl->parent,
			       .prio = fl->prio };
	int ret;

	if (hc_undo_ns_missing(c))
		return;
	ret = hc_flower_detach(c->nl, &f, fl->n, fl->cookie, &c->err);
	if (ret < 0)
		return hc_undo_failed(c, ret);
	if (!ret)
		return hc_undo_say(c, "gone", false, "already gone");
	hc_undo_say(c, "deleted", false, "deleted %d of them%s", ret,
		    hc_undo_now_called(c));
}

static void flower_print(const struct hc_jrec *j, struct hc_pr *p)
{
	const struct hc_jflower *fl = HC_JDATA(j, const struct hc_jflower);

	hc_pr_fu64(p, HC_PR_ALL, "filters", " %llu", fl->n);
	hc_pr_fu64(p, HC_PR_ALL, "prio", " from prio %llu", fl->prio);
}

HC_JDATA_FITS(struct hc_jfilter);
HC_JDATA_FITS(struct hc_jflower);
HC_JDATA_FITS(struct hc_jqdisc);

#define F(m, ...) HC_JFIELD(struct hc_jfilter, m, HC_JF_U32, __VA_ARGS__)
static const struct hc_jfield filter_fields[] = {
	F(parent), F(prio), F(handle), F(chain), F(protocol), {},
};
#undef F

static const struct hc_jfield flower_fields[] = {
	HC_JFIELD(struct hc_jflower, parent, HC_JF_U32),
	HC_JFIELD(struct hc_jflower, prio, HC_JF_U32),
	HC_JFIELD(struct hc_jflower, n, HC_JF_U32),
	HC_JFIELD(struct hc_jflower, cookie, HC_JF_VAL),
	{},
};

static const struct hc_jfield qdisc_fields[] = {
	HC_JFIELD(struct hc_jqdisc, shared, HC_JF_BOOL),
	HC_JFIELD(struct hc_jqdisc, proof, HC_JF_U32, 3),
	{},
};

const struct hc_jkind hc_jkind_filter = {
	.name = "filter",
	.fields = filter_fields,
	.undo = undo_filter,
	.print = filter_print,
};
HC_JKIND(hc_jkind_filter);

const struct hc_jkind hc_jkind_flower = {
	.name = "flower",
	.fields = flower_fields,
	.undo = undo_flower,
	.print = flower_print,
};
HC_JKIND(hc_jkind_flower);

static void qdisc_print(const struct hc_jrec *j, struct hc_pr *p)
{
	hc_pr_fstr(p, HC_PR_TEXT, NULL, " %s", j->mode);
	if (!j->done)
		hc_pr_text(p, " (not created yet)");
	hc_pr_fstr(p, HC_PR_JSON, "owner", NULL,
		   !j->done				       ? "pending" :
		   HC_JDATA(j, const struct hc_jqdisc)->shared ? "shared" :
								 "created");
}

const struct hc_jkind hc_jkind_qdisc = {
	.name = "qdisc",
	.fields = qdisc_fields,
	.undo = undo_qdisc,
	.print = qdisc_print,
};
HC_JKIND(hc_jkind_qdisc);
