/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet access for the logic built as plain userspace C: the AF_XDP hook
 * runs it on every frame (loader/xsk.c), and the tests take it as the
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
	const struct hc_set *set; /* the rule set, NULL for none */
};

/* core/set.c: the set's userspace index, built from its entries. */
struct hc_set;
int hc_set_lookup(const struct hc_set *s, __u32 kind, const void *key);

static inline int hc_set_find(struct hc_pkt *p, __u32 kind, const void *key)
{
	return hc_set_lookup(p->set, kind, key);
}

static inline int hc_load(struct hc_pkt *p, __u32 off, void *dst, __u32 len)
{
	if (off > HC_MAX_OFF || off > p->len || p->len - off < len)
		return -1;
	memcpy(dst, p->data + off, len);
	return 0;
}

#include "hc_logic.h"

/*
 * The verdict for the Ethernet frame [data, data + len) by c and set s
 * (NULL: none); its class in cls.
 */
static inline __u32 hc_user_run_set(const __u8 *data, __u32 len,
				    const struct hc_conf *c,
				    const struct hc_set *s, __u32 *cls)
{
	struct hc_pkt p = { .data = data, .len = len, .set = s };

	return hc_process(&p, c, cls);
}

static inline __u32 hc_user_run(const __u8 *data, __u32 len,
				const struct hc_conf *c, __u32 *cls)
{
	return hc_user_run_set(data, len, c, NULL, cls);
}

#endif
