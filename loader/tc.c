// SPDX-License-Identifier: GPL-2.0
/* tc ingress: cls_bpf direct-action on clsact or sch_ingress, or tcx. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hookcmp.h"
#include "journal.h"
#include "qdisc.h"
#include "tc.skel.h"

static void skel_destroy(void *s)
{
	tc_bpf__destroy(s);
}

static int tc_load(struct hc_run *r)
{
	struct tc_bpf *s = tc_bpf__open_opts(hc_prog_open_opts());

	if (!s)
		return -errno;
	r->skel = s;
	r->skel_destroy = skel_destroy;
	s->rodata->hc_conf = r->conf;
	return hc_prog_load(r, s->skeleton, r->bare ? "hc_tc_bare" : "hc_tc");
}

static const char *qdisc_kind(const struct hc_run *r)
{
	return r->qdisc == HC_QDISC_CLSACT ? "clsact" : "ingress";
}

static struct hc_filter our_filter(const struct hc_run *r)
{
	return (struct hc_filter){
		.ifindex = r->ifindex,
		.parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
		.prio = r->prio,
		.handle = r->handle,
	};
}

static int tc_attach(struct hc_run *r)
{
	struct hc_filter f = our_filter(r);
	int err;

	if (r->tc_attach == HC_TC_TCX) {
		err = hc_fault(&r->err, "tcx");
		if (err)
			return err;
		r->link_fd = bpf_link_create(r->prog_fd, r->ifindex,
					     HC_BPF_TCX_INGRESS, NULL);
		if (r->link_fd >= 0)
			return 0;
		err = -errno;
		r->link_fd = -1;
		/* Before 6.6 the kernel knows no such attach type. */
		if (err == -EINVAL) {
			hc_err_set(&r->err, "tcx links need Linux 6.6 or newer");
			hc_err_hint(&r->err, "--tc-attach qdisc works on any kernel");
			return -EOPNOTSUPP;
		}
		return err;
	}

	/* Journalled as pending first: a qdisc that was there stays. */
	err = hc_fault(&r->err, "qdisc")		     ?:
		      hc_journal_begin(r, HC_J_QDISC, false) ?:
		      hc_qdisc_get(r->nl, r->ifindex, qdisc_kind(r),
				   &r->qdisc_created, &r->err);
	if (r->qdisc_created)
		hc_journal_begin(r, HC_J_QDISC, true);
	else
		hc_journal_end(r, HC_J_QDISC);
	if (err)
		return err;
	err = hc_fault(&r->err, "filter")		     ?:
		      hc_journal_begin(r, HC_J_FILTER, true) ?:
		      hc_filter_attach(r->nl, &f, r->prog_fd, &r->err);
	if (!err)
		r->filter_added = true;
	else
		hc_journal_end(r, HC_J_FILTER);
	return err;
}

/* A filter that cannot go keeps its qdisc: deleting it would take both. */
static int tc_detach(struct hc_run *r)
{
	struct hc_filter f = our_filter(r);
	bool filter = r->filter_added, qdisc = r->qdisc_created;
	int err = 0;

	if (r->link_fd >= 0)
		close(r->link_fd);
	r->link_fd = -1;
	r->filter_added = r->qdisc_created = false;
	if (filter) {
		err = hc_filter_detach(r->nl, &f, r->prog_id, &r->err);
		/* Gone, or not ours: nothing left for cleanup either way. */
		if (!err || err == -EEXIST || err == -ENODEV || err == -ENOENT)
			hc_journal_end(r, HC_J_FILTER);
	}
	if (err == -ENODEV) {
		/* The device took its qdiscs with it. */
		hc_journal_end(r, HC_J_QDISC);
		return 0;
	}
	if (!err && qdisc) {
		err = hc_qdisc_put(r->nl, r->ifindex, qdisc_kind(r), &r->err);
		if (err && err != -ENODEV)
			hc_err_hint(
				&r->err,
				"the %s qdisc hookcmp created stays; remove it with: tc qdisc del dev %s %s",
				qdisc_kind(r), r->dev, qdisc_kind(r));
		hc_journal_end(r, HC_J_QDISC);
	}
	return err == -ENODEV ? 0 : err;
}

static const char *tc_attach_name(const struct hc_run *r)
{
	return r->tc_attach == HC_TC_TCX ? "tcx" : qdisc_kind(r);
}

const struct hc_hook hc_hook_tc = {
	.name = "tc",
	.load = tc_load,
	.attach = tc_attach,
	.detach = tc_detach,
	.attach_name = tc_attach_name,
	.redirects = true,
};
