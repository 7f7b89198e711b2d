// SPDX-License-Identifier: GPL-2.0
/* The redirect target: found in DEV's namespace and checked before load. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include "hooks.h"
#include "nl.h"

bool hc_conf_redirects(const struct hc_conf *c)
{
	__u32 i;

	for (i = 0; i < c->nr_rules; i++)
		if (c->rules[i].verdict == HC_REDIRECT)
			return true;
	return c->def_verdict == HC_REDIRECT;
}

int hc_redirect_check(struct hc_run *r, char *warn, size_t size)
{
	struct hc_redirect *rd = &r->conf.redirect;
	const char *to = r->redirect_dev;
	struct hc_link_info t;
	int err;

	warn[0] = '\0';
	rd->ifindex = if_nametoindex(to);
	if (!rd->ifindex) {
		hc_err_set(
			&r->err,
			"no redirect target '%s' in %s%s%s: it must be in the namespace of %s",
			to, r->netns ? "network namespace '" : "this namespace",
			r->netns ?: "", r->netns ? "'" : "", r->dev);
		return -ENODEV;
	}
	err = hc_nl_link_get(r->nl, rd->ifindex, &t, &r->err);
	if (err)
		return err;
	if (rd->flags & HC_RD_PEER) {
		if (strcmp(t.kind, "veth") && strcmp(t.kind, "netkit")) {
			hc_err_set(
				&r->err,
				"--redirect-peer needs a veth or netkit target: %s is %s%s",
				to,
				t.kind[0] ? "a " : "a device without a peer",
				t.kind);
			return -EINVAL;
		}
		/* skb_do_redirect() drops what would stay in this namespace. */
		if (!t.link_netns) {
			hc_err_set(
				&r->err,
				"the peer of %s is in this namespace too: bpf_redirect_peer only enters another namespace",
				to);
			return -EINVAL;
		}
		return 0;
	}
	if (!(t.flags & IFF_UP))
		snprintf(
			warn, size,
			"%s is down: the kernel drops what is redirected to it",
			to);
	else if (r->hook->redirect_warn)
		r->hook->redirect_warn(r, &t, warn, size);
	return 0;
}
