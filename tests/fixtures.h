/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test packets, described as data and built byte by byte, with what each
 * parse depth must call them. The unit test, the BPF_PROG_RUN test and the
 * sender all use this one table.
 */
#ifndef HC_FIXTURES_H
#define HC_FIXTURES_H

#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include "hc_shared.h"
#include "pkt.h"

enum fx_l3 { FX_IP4 = 1, FX_IP6, FX_ARP, FX_ETHERTYPE };

/* IPv6 extension headers, in chain order. */
enum fx_ext { FX_HOP = 1, FX_DST, FX_RT, FX_FRAG0, FX_FRAG_LATER };

struct fx_addrs {
	uint8_t dst_mac[6], src_mac[6];
	uint32_t src4, dst4; /* network order */
	struct in6_addr src6, dst6;
};

struct fx {
	const char *name;
	enum fx_l3 l3;
	uint16_t ethertype; /* FX_ETHERTYPE: the frame's type field */
	int vlans; /* tags before the ethertype, 0..3 */
	uint8_t proto; /* L4 protocol */
	int ip4_opts; /* bytes of IPv4 options (NOPs) */
	int ihl; /* overrides the IPv4 header length (words) */
	int version; /* overrides the IP version nibble */
	uint16_t frag; /* IPv4 flags|offset, host order */
	enum fx_ext ext[8]; /* IPv6 extension chain, 0-terminated */
	int tcp_doff; /* overrides the TCP data offset (words) */
	uint16_t sport, dport;
	int len; /* cut the frame to len bytes */
	uint32_t expect[4]; /* class at parse none, l2, l3, l4 */
};

#define EXP(l2, l3, l4)                                           \
	{                                                         \
		HC_CLS_ALL, HC_CLS_##l2, HC_CLS_##l3, HC_CLS_##l4 \
	}

static const struct fx fx_table[] = {
	{ "udp4", FX_IP4, .proto = 17, .sport = 1000, .dport = 9,
	  .expect = EXP(IP4, UDP4, UDP4) },
	{ "udp4-dns", FX_IP4, .proto = 17, .sport = 1000, .dport = 53,
	  .expect = EXP(IP4, UDP4, UDP4) },
	{ "tcp4", FX_IP4, .proto = 6, .sport = 2000, .dport = 80,
	  .expect = EXP(IP4, TCP4, TCP4) },
	{ "icmp4", FX_IP4, .proto = 1, .expect = EXP(IP4, ICMP4, ICMP4) },
	{ "gre4", FX_IP4, .proto = 47,
	  .expect = EXP(IP4, IP4_OTHER, IP4_OTHER) },
	{ "udp6", FX_IP6, .proto = 17, .sport = 1000, .dport = 9,
	  .expect = EXP(IP6, UDP6, UDP6) },
	{ "tcp6", FX_IP6, .proto = 6, .sport = 2000, .dport = 443,
	  .expect = EXP(IP6, TCP6, TCP6) },
	{ "icmp6", FX_IP6, .proto = 58, .expect = EXP(IP6, ICMP6, ICMP6) },
	{ "nonext6", FX_IP6, .proto = 59,
	  .expect = EXP(IP6, IP6_OTHER, IP6_OTHER) },
	{ "arp", FX_ARP, .expect = EXP(ARP, ARP, ARP) },
	{ "lldp", FX_ETHERTYPE, 0x88cc,
	  .expect = EXP(L2_OTHER, L2_OTHER, L2_OTHER) },
	{ "ieee8023", FX_ETHERTYPE, 0x0040,
	  .expect = EXP(L2_OTHER, L2_OTHER, L2_OTHER) },
	{ "vlan-udp4", FX_IP4, .vlans = 1, .proto = 17, .sport = 1000,
	  .dport = 9, .expect = EXP(IP4, UDP4, UDP4) },
	{ "qinq-tcp6", FX_IP6, .vlans = 2, .proto = 6, .sport = 2000,
	  .dport = 443, .expect = EXP(IP6, TCP6, TCP6) },
	{ "vlan3-udp4", FX_IP4, .vlans = 3, .proto = 17,
	  .expect = EXP(L2_OTHER, L2_OTHER, L2_OTHER) },
	{ "vlan-cut", FX_IP4, .vlans = 1, .proto = 17, .len = 16,
	  .expect = EXP(MALFORMED, MALFORMED, MALFORMED) },
	{ "eth-cut", FX_IP4, .proto = 17, .len = 10,
	  .expect = EXP(MALFORMED, MALFORMED, MALFORMED) },
	{ "ip4-cut", FX_IP4, .proto = 17, .len = 24,
	  .expect = EXP(IP4, MALFORMED, MALFORMED) },
	{ "ip4-ihl4", FX_IP4, .proto = 17, .ihl = 4,
	  .expect = EXP(IP4, MALFORMED, MALFORMED) },
	{ "ip4-ver6", FX_IP4, .proto = 17, .version = 6,
	  .expect = EXP(IP4, MALFORMED, MALFORMED) },
	{ "ip4-opts-udp", FX_IP4, .proto = 17, .ip4_opts = 8, .sport = 1000,
	  .dport = 53, .expect = EXP(IP4, UDP4, UDP4) },
	{ "ip4-opts-cut", FX_IP4, .proto = 17, .ihl = 15, .len = 14 + 40,
	  .expect = EXP(IP4, MALFORMED, MALFORMED) },
	{ "udp4-cut", FX_IP4, .proto = 17, .len = 14 + 20 + 4,
	  .expect = EXP(IP4, UDP4, MALFORMED) },
	{ "tcp4-cut", FX_IP4, .proto = 6, .len = 14 + 20 + 10,
	  .expect = EXP(IP4, TCP4, MALFORMED) },
	{ "tcp4-doff4", FX_IP4, .proto = 6, .tcp_doff = 4,
	  .expect = EXP(IP4, TCP4, MALFORMED) },
	{ "tcp4-doff15", FX_IP4, .proto = 6, .tcp_doff = 15,
	  .expect = EXP(IP4, TCP4, MALFORMED) },
	{ "icmp4-cut", FX_IP4, .proto = 1, .len = 14 + 20 + 4,
	  .expect = EXP(IP4, ICMP4, MALFORMED) },
	{ "frag4-first", FX_IP4, .proto = 17, .frag = 0x2000, .sport = 1000,
	  .dport = 53, .expect = EXP(IP4, UDP4, UDP4) },
	{ "frag4-later", FX_IP4, .proto = 17, .frag = 0x0010,
	  .len = 14 + 20 + 4, .expect = EXP(IP4, UDP4, UDP4) },
	{ "ip6-cut", FX_IP6, .proto = 17, .len = 14 + 20,
	  .expect = EXP(IP6, MALFORMED, MALFORMED) },
	{ "ip6-ver4", FX_IP6, .proto = 17, .version = 4,
	  .expect = EXP(IP6, MALFORMED, MALFORMED) },
	{ "ext6-udp", FX_IP6, .proto = 17, .ext = { FX_HOP, FX_DST, FX_RT },
	  .sport = 1000, .dport = 53, .expect = EXP(IP6, UDP6, UDP6) },
	{ "ext6-six", FX_IP6, .proto = 6,
	  .ext = { FX_HOP, FX_DST, FX_RT, FX_DST, FX_RT, FX_DST },
	  .sport = 2000, .dport = 443, .expect = EXP(IP6, TCP6, TCP6) },
	{ "ext6-seven", FX_IP6, .proto = 17,
	  .ext = { FX_HOP, FX_DST, FX_RT, FX_DST, FX_RT, FX_DST, FX_DST },
	  .expect = EXP(IP6, IP6_OTHER, IP6_OTHER) },
	{ "ext6-cut", FX_IP6, .proto = 17, .ext = { FX_HOP },
	  .len = 14 + 40 + 4, .expect = EXP(IP6, MALFORMED, MALFORMED) },
	{ "frag6-first", FX_IP6, .proto = 17, .ext = { FX_FRAG0 },
	  .sport = 1000, .dport = 53, .expect = EXP(IP6, UDP6, UDP6) },
	{ "frag6-later", FX_IP6, .proto = 17, .ext = { FX_FRAG_LATER },
	  .len = 14 + 40 + 8 + 2, .expect = EXP(IP6, UDP6, UDP6) },
	{ "udp6-cut", FX_IP6, .proto = 17, .len = 14 + 40 + 6,
	  .expect = EXP(IP6, UDP6, MALFORMED) },
	{ "icmp6-cut", FX_IP6, .proto = 58, .len = 14 + 40 + 4,
	  .expect = EXP(IP6, ICMP6, MALFORMED) },
};

#define FX_COUNT (sizeof(fx_table) / sizeof(fx_table[0]))
#define FX_MAX_LEN 512

static const struct fx_addrs fx_default_addrs = {
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.src4 = 0x010200c0, /* 192.0.2.1 */
	.dst4 = 0x020200c0, /* 192.0.2.2 */
	.src6 = { { { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } } },
	.dst6 = { { { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 } } },
};

static inline const struct fx *fx_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < FX_COUNT; i++)
		if (!strcmp(fx_table[i].name, name))
			return &fx_table[i];
	return NULL;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* Builds f into buf (FX_MAX_LEN bytes); returns the frame's length. */
static inline int fx_build(const struct fx *f, const struct fx_addrs *a,
			   uint8_t *buf)
{
	uint16_t type = f->l3 == FX_IP4 ? 0x0800 :
			f->l3 == FX_IP6 ? 0x86dd :
			f->l3 == FX_ARP ? 0x0806 :
					  f->ethertype;
	int off = 12, i, l3, l4, l4len = 0, hlen, nh_at;
	uint8_t *l4p;

	memset(buf, 0, FX_MAX_LEN);
	memcpy(buf, a->dst_mac, 6);
	memcpy(buf + 6, a->src_mac, 6);
	for (i = 0; i < f->vlans; i++) {
		/* QinQ: the outer tag of two is 802.1ad. */
		put16(buf + off, f->vlans == 2 && i == 0 ? 0x88a8 : 0x8100);
		put16(buf + off + 2, 100 + i);
		off += 4;
	}
	put16(buf + off, type);
	off += 2;
	l3 = off;

	if (f->l3 == FX_ARP) {
		static const uint8_t arp[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };

		memcpy(buf + off, arp, 8);
		memcpy(buf + off + 8, a->src_mac, 6);
		memcpy(buf + off + 14, &a->src4, 4);
		memcpy(buf + off + 24, &a->dst4, 4);
		return f->len ? f->len : 60;
	}
	if (f->l3 == FX_ETHERTYPE)
		return f->len ? f->len : 60;

	if (f->l3 == FX_IP4) {
		hlen = 20 + f->ip4_opts;
		buf[off] = ((f->version ? f->version : 4) << 4) |
			   (f->ihl ? f->ihl : hlen / 4);
		put16(buf + off + 6, f->frag);
		buf[off + 8] = 64;
		buf[off + 9] = f->proto;
		memcpy(buf + off + 12, &a->src4, 4);
		memcpy(buf + off + 16, &a->dst4, 4);
		memset(buf + off + 20, 1, f->ip4_opts); /* NOP options */
		off += hlen;
	} else {
		buf[off] = (f->version ? f->version : 6) << 4;
		nh_at = off + 6;
		buf[off + 7] = 64;
		memcpy(buf + off + 8, &a->src6, 16);
		memcpy(buf + off + 24, &a->dst6, 16);
		off += 40;
		for (i = 0; f->ext[i]; i++) {
			static const uint8_t code[] = {
				[FX_HOP] = 0,	      [FX_DST] = 60,
				[FX_RT] = 43,	      [FX_FRAG0] = 44,
				[FX_FRAG_LATER] = 44,
			};

			buf[nh_at] = code[f->ext[i]];
			nh_at = off;
			if (f->ext[i] == FX_FRAG0)
				buf[off + 3] = 1; /* offset 0, more fragments */
			else if (f->ext[i] == FX_FRAG_LATER)
				put16(buf + off + 2, 185 << 3);
			else if (f->ext[i] != FX_RT)
				buf[off + 2] = 1, buf[off + 3] = 4; /* PadN */
			else
				buf[off + 3] =
					0; /* routing: no segments left */
			off += 8;
		}
		buf[nh_at] = f->proto;
	}

	l4 = off;
	l4p = buf + l4;
	if (f->proto == 17) {
		l4len = 8 + 18;
		put16(l4p, f->sport);
		put16(l4p + 2, f->dport);
		put16(l4p + 4, l4len);
	} else if (f->proto == 6) {
		l4len = 20;
		put16(l4p, f->sport);
		put16(l4p + 2, f->dport);
		l4p[12] = (f->tcp_doff ? f->tcp_doff : 5) << 4;
		l4p[13] = 0x02; /* SYN */
		put16(l4p + 14, 64240);
	} else if (f->proto == 1 || f->proto == 58) {
		l4len = 8 + 16;
		l4p[0] = f->proto == 1 ? 8 : 128; /* echo request */
		put16(l4p + 4, 0x4843);
	}
	off += l4len;

	if (f->l3 == FX_IP4) {
		put16(buf + l3 + 2, off - l3);
		put16(buf + l3 + 10,
		      hc_csum_fold(hc_csum_add(0, buf + l3, l4 - l3)));
	} else {
		put16(buf + l3 + 4, off - l3 - 40);
	}
	/* L4 checksums, so a real stack accepts what the sender sends. */
	if (l4len && f->proto != 1) {
		uint32_t sum = 0;
		int csum_at = f->proto == 17 ? 6 : f->proto == 6 ? 16 : 2;

		if (f->l3 == FX_IP4) {
			sum = hc_csum_add(0, buf + l3 + 12, 8);
		} else {
			sum = hc_csum_add(0, buf + l3 + 8, 32);
		}
		sum += f->proto + l4len;
		sum = hc_csum_add(sum, l4p, l4len);
		put16(l4p + csum_at,
		      hc_csum_fold(sum) ? hc_csum_fold(sum) : 0xffff);
	} else if (l4len) {
		put16(l4p + 2, hc_csum_fold(hc_csum_add(0, l4p, l4len)));
	}
	if (off < 60)
		off = 60;
	return f->len ? f->len : off;
}

/*
 * Whether the L4 checksum of a frame hc_pkt_build() made (lo) is right:
 * the sum over its pseudo-header (none for ICMPv4) and segment folds to 0.
 */
static inline bool fx_l4_csum_ok(const uint8_t *f,
				 const struct hc_pkt_layout *lo, bool ipv6,
				 uint8_t proto)
{
	const uint8_t *l3 = f + lo->l4_off - (ipv6 ? 40 : 20);
	uint32_t plen = lo->len - lo->l4_off, sum = 0;

	if (ipv6 || proto != 1) {
		sum = ipv6 ? hc_csum_add(0, l3 + 8, 32) :
			     hc_csum_add(0, l3 + 12, 8);
		sum += (ipv6 && proto == 1 ? 58 : proto) + plen;
	}
	sum = hc_csum_add(sum, f + lo->l4_off, plen);
	return hc_csum_fold(sum) == 0;
}

#endif
