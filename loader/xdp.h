/* SPDX-License-Identifier: GPL-2.0 */
/* xdp.c's XDP slot, for the xdp hook and the xsk hook's program. */
#ifndef HC_XDP_H
#define HC_XDP_H

#include "hooks.h"
#include "opts.h"

enum { HC_XDP_NATIVE, HC_XDP_GENERIC }; /* --xdp-mode */
enum { HC_XDP_NETLINK, HC_XDP_LINK }; /* --xdp-attach */

/* The first member of the xdp and xsk hooks' options. */
struct hc_xdp_cfg {
	int mode;
	int attach;
	bool replace; /* take over the slot, put its program back after */
};

/* Their modes: the attach. */
#define HC_XDP_MODES HC_CHOICES("--xdp-attach netlink", "--xdp-attach link")

/* Their options, in the hook's struct T (hc_xdp_cfg first). */
#define HC_XDP_OPTS(T)                                                         \
	{ "xdp-mode", 0, HC_OPT_ENUM, HC_CFG_OFF(T, xdp.mode), NULL,           \
	  "XDP in the driver or in the generic path (default native)",         \
	  HC_CHOICES("native", "generic") },                                   \
		{ "xdp-attach", 0, HC_OPT_ENUM, HC_CFG_OFF(T, xdp.attach),     \
		  NULL,                                                        \
		  "XDP over netlink, or as a bpf_link that dies with hookcmp (default netlink)", \
		  HC_CHOICES("netlink", "link") },                             \
	{                                                                      \
		"replace", 0, HC_OPT_FLAG, HC_CFG_OFF(T, xdp.replace), NULL,   \
			"take the XDP slot from the program there, and put it back after", \
			.scope = 1                                                     \
	}

/*
 * What xdp.c attached: the first member of the xdp and xsk hooks' state
 * (r->state), set up by hc_xdp_state_init in their load.
 */
struct hc_xdp_state {
	int link_fd; /* --xdp-attach link */
	bool attached; /* over netlink, or not known: detach decides */
	__u32 foreign_id; /* --replace: the program it took the slot from */
	int foreign_fd; /* open while foreign_id is set */
	char pin[128]; /* where that program waits, pinned */
};
void hc_xdp_state_init(struct hc_xdp_state *x);
int hc_xdp_attach(struct hc_run *r);
int hc_xdp_detach(struct hc_run *r);
/* XDP_DROP, XDP_PASS, XDP_REDIRECT as hookcmp's verdicts. */
__u32 hc_xdp_verdict(int retval);
/* What --replace took over, for the user. */
void hc_xdp_attached(const struct hc_run *r, char *buf, size_t size);
unsigned int hc_xdp_modes(const struct hc_run *r);
const char *hc_xdp_mode_name(const struct hc_run *r);
const char *hc_xdp_attach_via(const struct hc_run *r);
__u64 hc_xdp_caps(const struct hc_run *r);

#endif
