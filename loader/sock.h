/* SPDX-License-Identifier: GPL-2.0 */
/* sock.c's UDP socket, for the socket and cgroup hooks. */
#ifndef HC_SOCK_H
#define HC_SOCK_H

#include "hooks.h"
#include "opts.h"

struct hc_udp_cfg {
	__u32 port; /* the first member of both hooks' options */
};

#define HC_UDP_PORT_OPT(scope_bits)                                            \
	{                                                                      \
		"port", 0, HC_OPT_U32, HC_CFG_OFF(struct hc_udp_cfg, port),    \
			"PORT", "UDP port the udp socket binds (default 9)",   \
			NULL, 1, 65535, .def = "9", .scope = scope_bits        \
	}

/* The socket of the socket and cgroup hooks: their state's first member. */
struct hc_sock_state {
	int fd; /* -1: none */
};
int hc_udp_open(struct hc_run *r, int filter_fd);
void hc_sock_close(struct hc_run *r);
int hc_sock_drain(struct hc_run *r);
/* 0 a drop, else a pass: a socket filter's, and cgroup_skb's (1). */
__u32 hc_sock_verdict(int retval);
__u64 hc_udp_caps(const struct hc_run *r);
void hc_udp_idle_hint(const struct hc_run *r, double secs, char *buf,
		      size_t size);

#endif
