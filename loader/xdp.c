// SPDX-License-Identifier: GPL-2.0
/* XDP over RTM_SETLINK, as `ip link set dev DEV xdp` does it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_link.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hookcmp.h"
#include "journal.h"
#include "nl.h"
#include "xdp.skel.h"

static void skel_destroy(void *s)
{
	xdp_bpf__destroy(s);
}

static int xdp_load(struct hc_run *r)
{
	struct xdp_bpf *s = xdp_bpf__open_opts(hc_prog_open_opts());
	__u32 key = 0;
	int err;

	if (!s)
		return -errno;
	r->skel = s;
	r->skel_destroy = skel_destroy;
	s->rodata->hc_conf = r->conf;
	err = hc_prog_load(r, s->skeleton, r->bare ? "hc_xdp_bare" : "hc_xdp");
	if (err || !(r->conf.redirect.flags & HC_RD_MAP))
		return err;
	if (!bpf_map_update_elem(bpf_map__fd(s->maps.hc_tx), &key,
				 &r->conf.redirect.ifindex, 0))
		return 0;
	err = -errno;
	hc_err_set(&r->err, "adding %s to the devmap",
		   r->redirect_dev ?: "the redirect target");
	return err;
}

static __u32 mode_flag(const struct hc_run *r)
{
	return r->xdp_mode == HC_XDP_NATIVE ? XDP_FLAGS_DRV_MODE :
					      XDP_FLAGS_SKB_MODE;
}

int hc_xdp_attach(struct hc_run *r)
{
	__u32 flags = mode_flag(r);
	struct hc_link_info info;
	int err;

	if (r->xdp_attach == HC_XDP_LINK) {
		/* A bpf_link goes away with the process: nothing to journal. */
		LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);

		err = hc_fault(&r->err, "xdp");
		if (!err) {
			r->link_fd = bpf_link_create(r->prog_fd, r->ifindex,
						     BPF_XDP, &opts);
			err = r->link_fd < 0 ? -errno : 0;
		}
		if (!err)
			return 0;
		r->link_fd = -1;
		/* Before 5.9 the kernel knows no XDP links. */
		if (err == -EINVAL) {
			hc_err_set(&r->err, "XDP links need Linux 5.9 or newer");
			return -EOPNOTSUPP;
		}
		goto explain;
	}
	if (!r->force)
		flags |= XDP_FLAGS_UPDATE_IF_NOEXIST;
	err = hc_fault(&r->err, "xdp")			  ?:
		      hc_journal_begin(r, HC_J_XDP, true) ?:
		      hc_nl_xdp_set(r->nl, r->ifindex, r->prog_fd, -1, flags,
				    &r->err);
	if (!err) {
		r->xdp_attached = true;
		return 0;
	}
	hc_journal_end(r, HC_J_XDP);
explain:
	if (err == -ERANGE)
		hc_err_hint(
			&r->err,
			"lower the MTU of %s and its peer, or use --xdp-mode generic",
			r->dev);
	if (err == -EOPNOTSUPP && r->xdp_mode == HC_XDP_NATIVE)
		hc_err_hint(
			&r->err,
			"the driver has no native XDP; try --xdp-mode generic");
	if ((err == -EBUSY || err == -EEXIST) &&
	    !hc_nl_link_get(r->nl, r->ifindex, &info, NULL)) {
		__u32 id = info.drv_id ? info.drv_id : info.skb_id;

		if (id)
			hc_err_hint(
				&r->err,
				"XDP program id %u is attached already; it was left alone",
				id);
	}
	return err;
}

/* IFLA_XDP_EXPECTED_FD: the kernel detaches only if ours is still there. */
int hc_xdp_detach(struct hc_run *r)
{
	int err;

	if (r->link_fd >= 0)
		close(r->link_fd);
	r->link_fd = -1;
	if (!r->xdp_attached)
		return 0;
	r->xdp_attached = false;
	err = hc_nl_xdp_set(r->nl, r->ifindex, -1, r->prog_fd,
			    mode_flag(r) | XDP_FLAGS_REPLACE, &r->err);
	if (err == -ENODEV)
		err = 0;
	if (err == -EEXIST)
		hc_err_set(
			&r->err,
			"the XDP program there is no longer ours, so it stays");
	else if (err)
		hc_err_set(&r->err, "our XDP program may still be attached");
	/* What may still be ours stays in the journal for cleanup. */
	if (!err || err == -EEXIST)
		hc_journal_end(r, HC_J_XDP);
	return err;
}

const char *hc_xdp_mode_name(const struct hc_run *r)
{
	return r->xdp_mode == HC_XDP_NATIVE ? "native" : "generic";
}

const struct hc_hook hc_hook_xdp = {
	.name = "xdp",
	.load = xdp_load,
	.attach = hc_xdp_attach,
	.detach = hc_xdp_detach,
	.attach_name = hc_xdp_mode_name,
	.redirects = true,
};
