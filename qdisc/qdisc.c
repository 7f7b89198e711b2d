// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "qdisc.h"

int hc_qdisc_get(struct hc_nl *nl, int ifindex, const char *kind, bool *created,
		 struct hc_err *err)
{
	char have[32];
	int ret;

	*created = false;
	ret = hc_nl_qdisc_add(nl, ifindex, kind, err);
	if (!ret) {
		*created = true;
		return 0;
	}
	if (ret != -EEXIST)
		return ret;
	ret = hc_nl_ingress_qdisc(nl, ifindex, have, sizeof(have), err);
	if (ret)
		return ret;
	if (strcmp(have, kind)) {
		hc_err_set(err, "qdisc '%s' holds the ingress side already",
			   have);
		hc_err_hint(err, "use --qdisc %s, or remove that qdisc first",
			    have);
		return -EBUSY;
	}
	return 0;
}

int hc_qdisc_put(struct hc_nl *nl, int ifindex, const char *kind,
		 struct hc_err *err)
{
	__u32 parents[] = {
		TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
		TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS),
	};
	int i, n, ret;

	for (i = 0; i < (strcmp(kind, "clsact") ? 1 : 2); i++) {
		ret = hc_nl_filter_count(nl, ifindex, parents[i], &n, err);
		if (ret)
			return ret;
		if (n) {
			hc_err_set(err,
				   "%d filter(s) of someone else's hang on it",
				   n);
			return -EBUSY;
		}
	}
	return hc_nl_qdisc_del(nl, ifindex, kind, err);
}

int hc_filter_attach(struct hc_nl *nl, const struct hc_filter *f, int prog_fd,
		     struct hc_err *err)
{
	int ret = hc_nl_filter_add_bpf(nl, f, prog_fd, "hookcmp", err);
	char kind[32];

	if (ret == -EEXIST) {
		hc_err_hint(
			err,
			"a filter holds prio %u handle %#x already; pick another --prio or --handle",
			f->prio, f->handle);
		return -EBUSY;
	}
	/* The kernel says EINVAL when another kind of filter owns the prio. */
	if (ret == -EINVAL &&
	    !hc_nl_filter_kind_at(nl, f, kind, sizeof(kind), NULL) && kind[0] &&
	    strcmp(kind, "bpf")) {
		hc_err_hint(
			err,
			"a %s filter holds prio %u already; pick another --prio",
			kind, f->prio);
		return -EBUSY;
	}
	return ret;
}

int hc_filter_detach(struct hc_nl *nl, const struct hc_filter *f, __u32 prog_id,
		     struct hc_err *err)
{
	__u32 id;
	int ret;

	ret = hc_nl_filter_prog_id(nl, f, &id, err);
	if (ret)
		return ret;
	if (id != prog_id) {
		hc_err_set(
			err,
			"prio %u handle %#x now runs program %u, not ours (%u)",
			f->prio, f->handle, id, prog_id);
		return -EEXIST;
	}
	return hc_nl_filter_del(nl, f, err);
}
