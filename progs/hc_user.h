/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet access for the logic built as plain userspace C: the AF_XDP hook
 * runs it on every frame (loader/hooks/xsk.c), and the tests take it as the
 * reference the BPF builds must agree with.
 */
#ifndef HC_USER_H
#define HC_USER_H

#include <string.h>
#include <linux/types.h>
#include "hc_shared.h"

struct hc_pkt {
	const __u8 *data;
	__u32 len;
	__u16 l3_proto;
	__u8 at_l3;
	__u8 vlans;
};

static inline int hc_load(struct hc_pkt *p, __u32 off, void *dst, __u32 len)
{
	if (off > HC_MAX_OFF || off > p->len || p->len - off < len)
		return -1;
	memcpy(dst, p->data + off, len);
	return 0;
}

#include "hc_logic.h"

/* The verdict for the Ethernet frame [data, data + len); its class in cls. */
static inline __u32 hc_user_run(const __u8 *data, __u32 len,
				const struct hc_conf *c, __u32 *cls)
{
	struct hc_pkt p = { .data = data, .len = len };

	return hc_process(&p, c, cls);
}

#endif
