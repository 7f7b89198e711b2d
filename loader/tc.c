// SPDX-License-Identifier: GPL-2.0
/* tc ingress: cls_bpf direct-action on clsact or sch_ingress, or tcx. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "opts.h"
#include "journal.h"
#include "qdisc.h"
#include "tc.skel.h"

enum { QDISC_CLSACT, QDISC_INGRESS };
enum { ATTACH_CLS_BPF, ATTACH_TCX };

/* The tc hook's options. */
struct tc_cfg {
	int dir; /* HC_TC_DIR_*: ingress, as a receive hook */
	int qdisc;
	int attach;
	__u32 prio, handle;
	bool peer; /* --redirect-peer */
};
HC_CFG_FITS(struct tc_cfg);

static struct tc_cfg *cfg(const struct hc_run *r)
{
	return HC_CFG(r, struct tc_cfg);
}

/* r->state: its skeleton, and what it attached. */
struct tc_state {
	struct tc_bpf *skel;
	int link_fd; /* tcx */
	enum hc_qdisc_own qdisc_own;
	int shared_with; /* the hookcmp whose qdisc we joined */
	bool filter_added;
};

static struct tc_state *st(const struct hc_run *r)
{
	return r->state;
}

static void state_free(void *p)
{
	struct tc_state *st = p;

	tc_bpf__destroy(st->skel);
	free(st);
}

static int tc_load(struct hc_run *r)
{
	struct tc_state *st = hc_state_new(r, sizeof(*st), state_free);
	struct tc_bpf *s;

	if (!st)
		return -ENOMEM;
	st->link_fd = -1;
	s = st->skel = tc_bpf__open_opts(hc_prog_open_opts());
	if (!s)
		return -errno;
	s->rodata->hc_conf = r->conf;
	return hc_prog_load(r, s->skeleton, r->bare ? "hc_tc_bare" : "hc_tc");
}

static const char *qdisc_kind(const struct hc_run *r)
{
	return cfg(r)->qdisc == QDISC_CLSACT ? "clsact" : "ingress";
}

static struct hc_filter our_filter(const struct hc_run *r)
{
	return (struct hc_filter){
		.ifindex = r->ifindex,
		.parent = hc_tc_dirs[cfg(r)->dir].parent,
		.prio = cfg(r)->prio,
		.handle = cfg(r)->handle,
	};
}

/* Where our filter hangs, for cleanup to find it. */
static int journal_filter(struct hc_run *r)
{
	struct hc_filter f = our_filter(r);
	struct hc_jrec *rec;
	struct hc_jfilter *jf;

	if (r->no_journal)
		return 0;
	rec = hc_journal_rec(r, &hc_jkind_filter);
	jf = HC_JDATA(rec, struct hc_jfilter);
	jf->parent = f.parent;
	jf->prio = f.prio;
	jf->handle = f.handle;
	jf->protocol = ETH_P_ALL;
	rec->done = true;
	return hc_journal_add(rec, r->netns, &r->err);
}

static int tc_attach(struct hc_run *r)
{
	struct hc_filter f = our_filter(r);
	enum hc_qdisc_own own;
	int err, ours;

	if (cfg(r)->attach == ATTACH_TCX) {
		err = hc_fault(&r->err, "tcx");
		if (err)
			return err;
		st(r)->link_fd =
			bpf_link_create(r->prog_fd, r->ifindex,
					hc_tc_dirs[cfg(r)->dir].tcx, NULL);
		if (st(r)->link_fd >= 0)
			return 0;
		err = -errno;
		st(r)->link_fd = -1;
		/* Before 6.6 the kernel knows no such attach type. */
		if (err == -EINVAL) {
			hc_err_set(&r->err,
				   "tcx links need Linux 6.6 or newer");
			hc_err_hint(&r->err,
				    "--tc-attach qdisc works on any kernel");
			return -EOPNOTSUPP;
		}
		return err;
	}

	err = hc_qdisc_acquire(r->nl, hc_journal_rec(r, &hc_jkind_qdisc),
			       r->netns, !r->no_journal, &own,
			       &st(r)->shared_with, &r->err);
	st(r)->qdisc_own = own;
	if (err)
		return err;
	err = hc_fault(&r->err, "filter") ?: journal_filter(r);
	if (err) {
		hc_journal_end(r, &hc_jkind_filter);
		return err;
	}
	err = hc_filter_attach(r->nl, &f, r->prog_fd, &r->err);
	/* An answer lost: what is there says; a look that fails, detach. */
	ours = err ? hc_filter_ours(r->nl, &f, r->prog_id) : 1;
	st(r)->filter_added = ours != 0;
	if (!ours)
		hc_journal_end(r, &hc_jkind_filter);
	return ours > 0 ? 0 : err;
}

/* Before our filter goes: its qdisc, empty after, is ours to delete. */
static void leaving(struct hc_run *r, enum hc_qdisc_own own)
{
	struct hc_jrec *rec = hc_journal_of(r, &hc_jkind_qdisc);

	if (own == HC_QDISC_THEIRS || r->no_journal || !rec->name[0])
		return;
	HC_JQDISC(rec)->proof = HC_QDISC_FILTER_LEAVING;
	hc_journal_add(rec, r->netns, NULL);
}

/*
 * Our filter goes if it still runs our program; the qdisc only with that
 * proof (qdisc/qdisc.h). A device that left this namespace keeps both
 * records, for the caller to follow (core/undo.c). 0 with r->err set
 * says why the qdisc stays, as a note.
 */
static int tc_detach(struct hc_run *r)
{
	struct tc_state *t = r->state;
	struct hc_filter f = our_filter(r);
	enum hc_qdisc_own own;
	bool filter;
	char name[IF_NAMESIZE];
	int err = 0, ret;

	if (!t)
		return 0;
	own = t->qdisc_own;
	filter = t->filter_added;
	if (t->link_fd >= 0)
		close(t->link_fd);
	t->link_fd = -1;
	t->filter_added = false;
	t->qdisc_own = HC_QDISC_THEIRS;
	if ((filter || own != HC_QDISC_THEIRS) &&
	    !if_indextoname(r->ifindex, name))
		return -ENODEV;
	if (filter) {
		leaving(r, own);
		err = hc_filter_detach(r->nl, &f, r->prog_id, &r->err);
		/* Other errors: it may still be there, and the qdisc with it. */
		if (err && err != -EEXIST && err != -ENOENT)
			return err;
		hc_journal_end(r, &hc_jkind_filter);
		if (err == -ENOENT)
			hc_err_set(
				&r->err,
				"hookcmp's filter (prio %u handle %#x) was deleted while it ran",
				f.prio, f.handle);
	}
	if (own == HC_QDISC_THEIRS)
		return err;
	if (err == -EEXIST) {
		/* Someone's filter at our place keeps the qdisc with it. */
		hc_journal_end(r, &hc_jkind_qdisc);
		return err;
	}
	/*
	 * The proof: our filter was just removed from it; or no filter of
	 * ours ever went on the qdisc this attach created a moment ago.
	 */
	ret = hc_qdisc_release(r->nl, r->ifindex, qdisc_kind(r),
			       r->no_journal ? NULL :
						 hc_journal_of(r, &hc_jkind_qdisc),
			       !err,
			       &r->err);
	/* Not an answer that settles it: the record stays, for follow. */
	if (ret == -ENODEV || (ret && ret != -ENOENT && ret != -ESTALE &&
			       ret != -EBUSY && ret != -EUSERS))
		return ret;
	hc_journal_end(r, &hc_jkind_qdisc);
	if (ret == -ESTALE) {
		hc_err_set(
			&r->err,
			"hookcmp's filter (prio %u handle %#x) was deleted while it ran, so nothing proves the %s is still the one hookcmp created: it stays",
			f.prio, f.handle, qdisc_kind(r));
		hc_err_hint(
			&r->err,
			"if nobody else uses it: tc%s%s qdisc del dev %s %s",
			r->netns ? " -n " : "", r->netns ? r->netns : "",
			r->dev, qdisc_kind(r));
		return -EBUSY;
	}
	if (ret == -EBUSY || ret == -EUSERS)
		return 0;
	return ret == -ENOENT ? err : ret;
}

static const char *tc_attach_via(const struct hc_run *r)
{
	return cfg(r)->attach == ATTACH_TCX ? "tcx" : "cls_bpf";
}

static const char *tc_attach_name(const struct hc_run *r)
{
	return cfg(r)->attach == ATTACH_TCX ? "tcx" : qdisc_kind(r);
}

static void tc_attached(const struct hc_run *r, char *buf, size_t size)
{
	if (st(r)->shared_with)
		snprintf(
			buf, size,
			"hookcmp: the %s on %s is hookcmp %d's too: the last of us to stop removes it\n",
			tc_attach_name(r), r->dev, st(r)->shared_with);
}

static __u32 tc_verdict(int retval)
{
	return retval == TC_ACT_SHOT	 ? HC_DROP :
	       retval == TC_ACT_REDIRECT ? HC_REDIRECT :
	       retval == TC_ACT_OK	 ? HC_PASS :
					   HC_NR_VERDICTS;
}

static unsigned int tc_modes(const struct hc_run *r)
{
	return 1u << cfg(r)->attach;
}

static int tc_check(struct hc_run *r, struct hc_err *err)
{
	if (cfg(r)->peer && !hc_conf_redirects(&r->conf)) {
		hc_err_set(err, HC_REDIRECT_UNASKED);
		return -EINVAL;
	}
	if (cfg(r)->peer)
		r->conf.redirect.flags |= HC_RD_PEER;
	return 0;
}

static const char *tc_redirect_via(const struct hc_run *r)
{
	return r->conf.redirect.flags & HC_RD_PEER ? "peer" : "egress";
}

static const struct hc_opt tc_opts[] = {
	{ "tc-attach", 0, HC_OPT_ENUM, HC_CFG_OFF(struct tc_cfg, attach), NULL,
	  "cls_bpf filter on --qdisc (default), or a tcx link (Linux 6.6+)",
	  HC_CHOICES("qdisc", "tcx") },
	{ "qdisc", 0, HC_OPT_ENUM, HC_CFG_OFF(struct tc_cfg, qdisc), NULL,
	  "qdisc for the tc hook's cls_bpf filter (default clsact)",
	  HC_CHOICES("clsact", "ingress"), .scope = 1 },
	{ "prio", 0, HC_OPT_U32, HC_CFG_OFF(struct tc_cfg, prio), "PRIO",
	  "tc filter priority (default 1)", NULL, 1, 0xffff, .scope = 1,
	  .def = "1" },
	{ "handle", 0, HC_OPT_U32, HC_CFG_OFF(struct tc_cfg, handle), "HANDLE",
	  "tc filter handle, decimal or 0x hex (default 1)", NULL, 1,
	  0xffffffff, .flags = HC_NUM_HEX, .scope = 1, .def = "1" },
	{ "redirect-peer", 0, HC_OPT_FLAG, HC_CFG_OFF(struct tc_cfg, peer),
	  NULL,
	  "tc: into the ingress of the veth/netkit peer of --redirect (bpf_redirect_peer)" },
	{}
};

/* tc-ingress's bare program is tc-clsact's; only the qdisc differs. */
static const struct hc_hook_row tc_rows[] = {
	{ "tc-clsact", "--qdisc clsact", HC_ROW_EVERY | HC_ROW_BARE,
	  .path = "tcf_classify cls_bpf_classify bpf_prog_hc_tc*" },
	{ "tc-ingress", "--qdisc ingress", HC_ROW_EVERY,
	  .path = "tcf_classify cls_bpf_classify bpf_prog_hc_tc*" },
	/* tcx runs its programs itself: no classifier */
	{ "tcx", "--tc-attach tcx", HC_ROW_EVERY | HC_ROW_BARE,
	  .path = "bpf_prog_hc_tc* !tcf_classify" },
	{}
};

const struct hc_hook hc_hook_tc = {
	.name = "tc",
	.help = "tc ingress: cls_bpf direct-action on clsact or sch_ingress, or tcx",
	.opts = tc_opts,
	.modes = HC_CHOICES("--tc-attach qdisc", "--tc-attach tcx"),
	.mode = tc_modes,
	.check = tc_check,
	.load = tc_load,
	.attach = tc_attach,
	.detach = tc_detach,
	.attached = tc_attached,
	.attach_name = tc_attach_name,
	.verdict = tc_verdict,
	.attach_via = tc_attach_via,
	.redirect_via = tc_redirect_via,
	.variants = (const struct hc_hook_row[]){ { "tc", "" }, {} },
	.rows = tc_rows,
};
