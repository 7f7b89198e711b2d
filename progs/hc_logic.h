/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one drop-and-classify logic: parser, classifier and rule matcher.
 *
 * Every hook compiles this same code. The includer provides the packet
 * access before including it:
 *
 *   struct hc_pkt { ...; __u16 l3_proto; __u8 at_l3; __u8 vlans; };
 *   static __always_inline int hc_load(struct hc_pkt *p, __u32 off,
 *                                      void *dst, __u32 len);
 *
 * hc_load() copies [off, off + len) of the packet to dst and returns 0, or
 * returns nonzero when that range is not inside the packet. Offsets count
 * from the MAC header, or from the network header when at_l3 is set
 * (the ethertype, l3_proto, then comes from the skb). vlans is the number of VLAN tags
 * the kernel already took out of the packet data.
 *
 * It also provides the rule set's lookup:
 *
 *   static __always_inline int hc_set_find(struct hc_pkt *p, __u32 kind,
 *                                          const void *key);
 *
 * key is a struct hc_tuple (HC_SET_TUPLE), or a struct hc_lpm4 or
 * hc_lpm6 holding a full-length address (HC_SET_SRC4, HC_SET_SRC6); it
 * returns the verdict of the exact tuple or of the longest prefix that
 * holds the address, or -1 for none. The BPF builds look up maps
 * (hc_bpf.h), the userspace one its own tables (hc_user.h).
 *
 * It builds with clang for BPF and with gcc as the userspace reference.
 */
#ifndef HC_LOGIC_H
#define HC_LOGIC_H

#include "hc_shared.h"

#ifdef __bpf__
#include <bpf/bpf_endian.h>
#define hc_ntohs(x) bpf_ntohs(x)
#define HC_UNROLL _Pragma("unroll")
#define HC_SET_FN __attribute__((noinline))
#else
#define HC_SET_FN inline
#define HC_UNROLL
#include <arpa/inet.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define hc_ntohs(x) ntohs(x)
#endif

#define HC_ETH_HLEN 14
#define HC_ETH_P_IP 0x0800
#define HC_ETH_P_ARP 0x0806
#define HC_ETH_P_IPV6 0x86DD
#define HC_ETH_P_8021Q 0x8100
#define HC_ETH_P_8021AD 0x88A8
#define HC_MAX_VLANS 2
#define HC_MAX_EXTHDRS 6

#define HC_IPPROTO_ICMP 1
#define HC_IPPROTO_TCP 6
#define HC_IPPROTO_UDP 17
#define HC_IPPROTO_ICMPV6 58

/* What the parser learnt; the rule matcher reads only this. */
struct hc_meta {
	__u8 family; /* 0, 4 or 6 */
	__u8 proto; /* L4 protocol, valid when parsed to l3 */
	__u8 has_l3;
	__u8 has_ports;
	__u16 sport, dport; /* host order */
	__u32 saddr[4], daddr[4];
};

static __always_inline __u32 hc_l4_class(__u8 family, __u8 proto)
{
	if (family == 4) {
		if (proto == HC_IPPROTO_UDP)
			return HC_CLS_UDP4;
		if (proto == HC_IPPROTO_TCP)
			return HC_CLS_TCP4;
		if (proto == HC_IPPROTO_ICMP)
			return HC_CLS_ICMP4;
		return HC_CLS_IP4_OTHER;
	}
	if (proto == HC_IPPROTO_UDP)
		return HC_CLS_UDP6;
	if (proto == HC_IPPROTO_TCP)
		return HC_CLS_TCP6;
	if (proto == HC_IPPROTO_ICMPV6)
		return HC_CLS_ICMP6;
	return HC_CLS_IP6_OTHER;
}

/* Reads the L4 header at off; returns nonzero when it is truncated. */
static __always_inline int hc_parse_l4(struct hc_pkt *p, __u32 off,
				       struct hc_meta *m)
{
	__u8 h[20];

	if (m->proto == HC_IPPROTO_UDP) {
		if (hc_load(p, off, h, 8))
			return -1;
	} else if (m->proto == HC_IPPROTO_TCP) {
		__u32 doff;

		if (hc_load(p, off, h, 20))
			return -1;
		doff = (h[12] >> 4) * 4;
		if (doff < 20)
			return -1;
		if (doff > 20 && hc_load(p, off + doff - 1, h + 19, 1))
			return -1;
	} else if (m->proto == HC_IPPROTO_ICMP ||
		   m->proto == HC_IPPROTO_ICMPV6) {
		return hc_load(p, off, h, 8);
	} else {
		return 0;
	}
	m->sport = ((__u16)h[0] << 8) | h[1];
	m->dport = ((__u16)h[2] << 8) | h[3];
	m->has_ports = 1;
	return 0;
}

static __always_inline __u32 hc_parse_ip4(struct hc_pkt *p, __u32 off,
					  __u32 depth, struct hc_meta *m)
{
	__u8 ip[20];
	__u32 hlen;
	__u8 last;

	if (hc_load(p, off, ip, sizeof(ip)))
		return HC_CLS_MALFORMED;
	hlen = (ip[0] & 0xf) * 4;
	if ((ip[0] >> 4) != 4 || hlen < 20)
		return HC_CLS_MALFORMED;
	/* The options the header claims must be in the frame too. */
	if (hlen > 20 && hc_load(p, off + hlen - 1, &last, 1))
		return HC_CLS_MALFORMED;

	m->proto = ip[9];
	m->has_l3 = 1;
	__builtin_memcpy(&m->saddr[0], ip + 12, 4);
	__builtin_memcpy(&m->daddr[0], ip + 16, 4);
	/* Only a first fragment carries the L4 header. */
	if (depth >= HC_PARSE_L4 && !(((ip[6] & 0x1f) << 8) | ip[7]) &&
	    hc_parse_l4(p, off + hlen, m))
		return HC_CLS_MALFORMED;
	return hc_l4_class(4, m->proto);
}

static __always_inline __u32 hc_parse_ip6(struct hc_pkt *p, __u32 off,
					  __u32 depth, struct hc_meta *m)
{
	__u8 ip6[40], ext[8];
	int first_frag = 1;
	__u8 nh;
	int i;

	if (hc_load(p, off, ip6, sizeof(ip6)))
		return HC_CLS_MALFORMED;
	if ((ip6[0] >> 4) != 6)
		return HC_CLS_MALFORMED;
	__builtin_memcpy(m->saddr, ip6 + 8, 16);
	__builtin_memcpy(m->daddr, ip6 + 24, 16);
	nh = ip6[6];
	off += 40;

	HC_UNROLL
	for (i = 0; i < HC_MAX_EXTHDRS; i++) {
		if (nh == 0 || nh == 43 || nh == 60) {
			/* hop-by-hop, routing, destination options */
			if (hc_load(p, off, ext, 8))
				return HC_CLS_MALFORMED;
			nh = ext[0];
			off += (ext[1] + 1) * 8;
		} else if (nh == 44) {
			if (hc_load(p, off, ext, 8))
				return HC_CLS_MALFORMED;
			nh = ext[0];
			if ((((__u16)ext[2] << 8) | ext[3]) & 0xfff8)
				first_frag = 0;
			off += 8;
		} else {
			break;
		}
	}
	/* A chain longer than we walk leaves the L4 protocol unknown. */
	if (nh == 0 || nh == 43 || nh == 60 || nh == 44)
		return HC_CLS_IP6_OTHER;

	m->proto = nh;
	m->has_l3 = 1;
	if (depth >= HC_PARSE_L4 && first_frag && hc_parse_l4(p, off, m))
		return HC_CLS_MALFORMED;
	return hc_l4_class(6, nh);
}

static __always_inline __u32 hc_classify(struct hc_pkt *p, __u32 depth,
					 struct hc_meta *m)
{
	__u32 off = 0;
	__u16 proto;
	int i;

	if (depth == HC_PARSE_NONE)
		return HC_CLS_ALL;

	if (p->at_l3) {
		proto = p->l3_proto;
	} else {
		__u8 eth[HC_ETH_HLEN];

		if (hc_load(p, 0, eth, sizeof(eth)))
			return HC_CLS_MALFORMED;
		proto = ((__u16)eth[12] << 8) | eth[13];
		off = HC_ETH_HLEN;
	}

	HC_UNROLL
	for (i = 0; i < HC_MAX_VLANS; i++) {
		__u8 tag[4];

		if (proto != HC_ETH_P_8021Q && proto != HC_ETH_P_8021AD)
			break;
		if (i + p->vlans >= HC_MAX_VLANS)
			break;
		if (hc_load(p, off, tag, sizeof(tag)))
			return HC_CLS_MALFORMED;
		proto = ((__u16)tag[2] << 8) | tag[3];
		off += sizeof(tag);
	}

	if (proto == HC_ETH_P_ARP)
		return HC_CLS_ARP;
	if (proto == HC_ETH_P_IP)
		m->family = 4;
	else if (proto == HC_ETH_P_IPV6)
		m->family = 6;
	else
		return HC_CLS_L2_OTHER;

	if (depth == HC_PARSE_L2)
		return m->family == 4 ? HC_CLS_IP4 : HC_CLS_IP6;
	if (m->family == 4)
		return hc_parse_ip4(p, off, depth, m);
	return hc_parse_ip6(p, off, depth, m);
}

static __always_inline int hc_prefix_match(const volatile struct hc_prefix *pf,
					   const __u32 *addr)
{
	return !((addr[0] ^ pf->addr[0]) & pf->mask[0]) &&
	       !((addr[1] ^ pf->addr[1]) & pf->mask[1]) &&
	       !((addr[2] ^ pf->addr[2]) & pf->mask[2]) &&
	       !((addr[3] ^ pf->addr[3]) & pf->mask[3]);
}

static __always_inline int hc_rule_match(const volatile struct hc_rule *r,
					 const struct hc_meta *m)
{
	__u32 f = r->flags;

	if ((f & HC_R_IP4) && m->family != 4)
		return 0;
	if ((f & HC_R_IP6) && m->family != 6)
		return 0;
	if ((f & HC_R_PROTO) && (!m->has_l3 || m->proto != r->proto))
		return 0;
	if ((f & HC_R_SRC) && !hc_prefix_match(&r->src, m->saddr))
		return 0;
	if ((f & HC_R_DST) && !hc_prefix_match(&r->dst, m->daddr))
		return 0;
	if ((f & (HC_R_SPORT | HC_R_DPORT)) && !m->has_ports)
		return 0;
	if ((f & HC_R_SPORT) &&
	    (m->sport < r->sport_lo || m->sport > r->sport_hi))
		return 0;
	if ((f & HC_R_DPORT) &&
	    (m->dport < r->dport_lo || m->dport > r->dport_hi))
		return 0;
	return 1;
}

/*
 * The set's verdict for the packet, or -1: its exact tuple, then the
 * longest prefix that holds its source. In BPF a subprogram: inlined,
 * the meta lived on across the rules in registers and every program,
 * with a set or not, paid for the spills (xdp at l4: +1 ns).
 */
static HC_SET_FN int hc_set_match(struct hc_pkt *p,
				  const volatile struct hc_conf *c,
				  const struct hc_meta *m)
{
	int v;

	/* Ports say it is a UDP or TCP first fragment, parsed to l4. */
	if ((c->sets & HC_SET_BIT(HC_SET_TUPLE)) && m->has_ports) {
		struct hc_tuple t = {
			.family = m->family,
			.proto = m->proto,
			.sport = m->sport,
			.dport = m->dport,
		};

		__builtin_memcpy(t.saddr, m->saddr, sizeof(t.saddr));
		__builtin_memcpy(t.daddr, m->daddr, sizeof(t.daddr));
		v = hc_set_find(p, HC_SET_TUPLE, &t);
		if (v >= 0)
			return v;
	}
	if (c->parse < HC_PARSE_L3)
		return -1;
	if ((c->sets &
	     (HC_SET_BIT(HC_SET_SRC4) | HC_SET_HOST_BIT(HC_SET_SRC4))) &&
	    m->family == 4) {
		struct hc_lpm4 k = { .prefixlen = 32, .addr = m->saddr[0] };

		return hc_set_find(p, HC_SET_SRC4, &k);
	}
	if ((c->sets &
	     (HC_SET_BIT(HC_SET_SRC6) | HC_SET_HOST_BIT(HC_SET_SRC6))) &&
	    m->family == 6) {
		struct hc_lpm6 k = { .prefixlen = 128 };

		__builtin_memcpy(k.addr, m->saddr, sizeof(k.addr));
		return hc_set_find(p, HC_SET_SRC6, &k);
	}
	return -1;
}

/*
 * Classifies the packet and picks its verdict, in this order: the first
 * matching rule, the set's exact 5-tuple, the set's longest source
 * prefix, the default. A malformed frame matches nothing.
 */
static __always_inline __u32 hc_process(struct hc_pkt *p,
					const volatile struct hc_conf *c,
					__u32 *cls)
{
	struct hc_meta m = {};
	__u32 i, n = c->nr_rules;
	int v;

	*cls = hc_classify(p, c->parse, &m);
	if (*cls == HC_CLS_MALFORMED)
		return c->def_verdict;
	for (i = 0; i < HC_MAX_RULES; i++) {
		if (i >= n)
			break;
		if (hc_rule_match(&c->rules[i], &m))
			return c->rules[i].verdict;
	}
	if (c->sets) {
		v = hc_set_match(p, c, &m);
		if (v >= 0)
			return v;
	}
	return c->def_verdict;
}

#endif
