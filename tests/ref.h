/* SPDX-License-Identifier: GPL-2.0 */
/* The logic header built as plain userspace C: the reference classifier. */
#ifndef HC_REF_H
#define HC_REF_H

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

static inline __u32 ref_run(const __u8 *data, __u32 len,
			    const struct hc_conf *c, __u32 *cls)
{
	struct hc_pkt p = { .data = data, .len = len };

	return hc_process(&p, c, cls);
}

#endif
