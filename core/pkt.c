// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "pkt.h"

__u32 hc_csum_add(__u32 sum, const void *data, __u32 len)
{
	const __u8 *p = data;
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

__u16 hc_csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static __u32 headers(const struct hc_pkt_spec *s)
{
	return 14 + (s->vlan ? 4 : 0) + (s->ipv6 ? 40 : 20) +
	       (s->proto == 6 ? 20 : 8);
}

__u32 hc_pkt_min_size(const struct hc_pkt_spec *s)
{
	return headers(s) > HC_PKT_MIN ? headers(s) : HC_PKT_MIN;
}

int hc_pkt_build(const struct hc_pkt_spec *s, __u8 *buf,
		 struct hc_pkt_layout *lo)
{
	__u32 l2 = 14 + (s->vlan ? 4 : 0), l3len = s->ipv6 ? 40 : 20;
	__u32 off, plen;
	__u8 *l3 = buf + l2, *l4 = l3 + l3len;
	__u32 sum;

	if (s->size < hc_pkt_min_size(s) || s->size > HC_PKT_MAX)
		return -EINVAL;
	memset(buf, 0, s->size);
	memcpy(buf, s->dst_mac, 6);
	memcpy(buf + 6, s->src_mac, 6);
	off = 12;
	if (s->vlan) {
		put16(buf + off, 0x8100);
		put16(buf + off + 2, s->vlan & 0xfff);
		off += 4;
	}
	put16(buf + off, s->ipv6 ? 0x86dd : 0x0800);
	plen = s->size - l2 - l3len; /* L4 header and payload */

	if (s->ipv6) {
		l3[0] = 0x60;
		put16(l3 + 4, plen);
		l3[6] = s->proto == 1 ? 58 : s->proto;
		l3[7] = 64;
		memcpy(l3 + 8, &s->src6, 16);
		memcpy(l3 + 24, &s->dst6, 16);
	} else {
		l3[0] = 0x45;
		put16(l3 + 2, l3len + plen);
		l3[6] = 0x40; /* DF */
		l3[8] = 64;
		l3[9] = s->proto;
		memcpy(l3 + 12, &s->src4, 4);
		memcpy(l3 + 16, &s->dst4, 4);
		put16(l3 + 10, hc_csum_fold(hc_csum_add(0, l3, 20)));
	}

	lo->len = s->size;
	lo->l4_off = l4 - buf;
	if (s->proto == 17) {
		put16(l4, s->sport);
		put16(l4 + 2, s->dport);
		put16(l4 + 4, plen);
		lo->csum_off = lo->l4_off + 6;
	} else if (s->proto == 6) {
		put16(l4, s->sport);
		put16(l4 + 2, s->dport);
		l4[12] = 5 << 4;
		l4[13] = 0x02; /* SYN */
		put16(l4 + 14, 65535);
		lo->csum_off = lo->l4_off + 16;
	} else {
		l4[0] = s->ipv6 ? 128 : 8; /* echo request */
		put16(l4 + 4, 0x4843);
		lo->csum_off = lo->l4_off + 2;
	}

	/* ICMPv4 has no pseudo-header; every other L4 checksum has one. */
	sum = 0;
	if (s->ipv6 || s->proto != 1) {
		sum = s->ipv6 ? hc_csum_add(0, l3 + 8, 32) :
				hc_csum_add(0, l3 + 12, 8);
		sum += (s->ipv6 && s->proto == 1 ? 58 : s->proto) + plen;
	}
	sum = hc_csum_add(sum, l4, plen);
	put16(buf + lo->csum_off,
	      hc_csum_fold(sum) ?: (s->proto == 17 ? 0xffff : 0));
	return 0;
}
