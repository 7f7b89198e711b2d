/* SPDX-License-Identifier: GPL-2.0 */
/* Packet access for the hooks that read packet memory directly (XDP, tc). */
#ifndef HC_DIRECT_H
#define HC_DIRECT_H

#include "hc_bpf.h"

struct hc_pkt {
	void *data;
	void *data_end;
	__u16 l3_proto;
	__u8 at_l3;
	__u8 vlans;
};

static __always_inline int hc_load(struct hc_pkt *p, __u32 off, void *dst,
				   __u32 len)
{
	void *ptr;

	if (off > HC_MAX_OFF)
		return -1;
	ptr = p->data + off;
	if (ptr + len > p->data_end)
		return -1;
	__builtin_memcpy(dst, ptr, len);
	return 0;
}

#include "hc_logic.h"

/* --redirect-dmac: the frame leaves addressed to its next hop. */
static __always_inline void hc_set_dmac(struct hc_pkt *p)
{
	__u8 *eth = p->data;
	int i;

	if (!(hc_conf.redirect.flags & HC_RD_DMAC) || p->data + 6 > p->data_end)
		return;
	HC_UNROLL
	for (i = 0; i < 6; i++)
		eth[i] = hc_conf.redirect.dmac[i];
}

#endif
