/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by the BPF programs, the loader and the tests. */
#ifndef HC_SHARED_H
#define HC_SHARED_H

#include <linux/types.h>

#define HC_MAX_RULES 64
/* hc_load() refuses larger offsets so the verifier can bound them. */
#define HC_MAX_OFF 0x7fff

enum hc_parse {
	HC_PARSE_NONE,
	HC_PARSE_L2,
	HC_PARSE_L3,
	HC_PARSE_L4,
};

/*
 * The classes, one line each: the enum value (the stats map's index, so
 * the BPF programs and userspace agree by construction) and the name
 * every output uses. Output order is this order.
 */
#define HC_CLASSES(X)                   \
	X(ALL, "all")                   \
	X(IP4, "ip4")                   \
	X(IP6, "ip6")                   \
	X(UDP4, "udp4")                 \
	X(TCP4, "tcp4")                 \
	X(ICMP4, "icmp4")               \
	X(IP4_OTHER, "ip4-other")       \
	X(UDP6, "udp6")                 \
	X(TCP6, "tcp6")                 \
	X(ICMP6, "icmp6")               \
	X(IP6_OTHER, "ip6-other")       \
	X(ARP, "arp")                   \
	X(L2_OTHER, "l2-other")         \
	X(MALFORMED, "malformed")

enum hc_class {
#define HC_CLASS_ENUM(id, name) HC_CLS_##id,
	HC_CLASSES(HC_CLASS_ENUM)
#undef HC_CLASS_ENUM
	HC_NR_CLASSES,
};

enum hc_verdict {
	HC_PASS,
	HC_DROP,
	HC_REDIRECT,
	HC_NR_VERDICTS,
};

/* Stats map index: class * HC_NR_VERDICTS + verdict. */
#define HC_NR_STATS (HC_NR_CLASSES * HC_NR_VERDICTS)

struct hc_counter {
	__u64 packets;
	__u64 bytes;
};

enum hc_rule_flags {
	HC_R_IP4 = 1 << 0,
	HC_R_IP6 = 1 << 1,
	HC_R_PROTO = 1 << 2,
	HC_R_SRC = 1 << 3,
	HC_R_DST = 1 << 4,
	HC_R_SPORT = 1 << 5,
	HC_R_DPORT = 1 << 6,
};

/* Addresses in network order; an IPv4 address sits in addr[0]. */
struct hc_prefix {
	__u32 addr[4];
	__u32 mask[4];
};

struct hc_rule {
	__u32 flags;
	__u8 proto;
	__u8 verdict;
	__u16 pad;
	__u16 sport_lo, sport_hi; /* host order, inclusive */
	__u16 dport_lo, dport_hi;
	struct hc_prefix src;
	struct hc_prefix dst;
};

enum hc_redirect_flags {
	HC_RD_MAP = 1 << 0, /* XDP: bpf_redirect_map() through hc_tx */
	HC_RD_PEER = 1 << 1, /* tc: bpf_redirect_peer() */
	HC_RD_DMAC = 1 << 2, /* rewrite the destination MAC first */
};

/* Where HC_REDIRECT sends a frame; only the per-hook glue reads it. */
struct hc_redirect {
	__u32 ifindex;
	__u32 flags;
	__u8 dmac[6];
	__u16 pad;
};

/*
 * The rule set (--rules-file): exact 5-tuples and source prefixes, each
 * entry with its verdict. hc_conf.sets says which kinds hold entries, so
 * a program without them does no lookup (the verifier prunes it).
 */
enum hc_set_kind {
	HC_SET_TUPLE,
	HC_SET_SRC4,
	HC_SET_SRC6,
	HC_NR_SET_KINDS,
};

#define HC_SET_BIT(kind) (1u << (kind))
/*
 * The BPF builds keep a source kind's full-length prefixes (/32, /128)
 * apart, in a hash looked up before the trie: a hash costs the same at
 * any size, a trie's walk grows with it. HC_SET_BIT() of a source kind
 * says its trie holds entries, HC_SET_HOST_BIT() its hash.
 */
#define HC_SET_HOST_BIT(kind) (1u << (8 + (kind)))

/* The BPF maps' names: by enum hc_set_kind, then the two hashes. */
#define HC_SET_MAP_NAMES                                                      \
	{                                                                     \
		"hc_set_tuple", "hc_set_src4", "hc_set_src6", "hc_set_host4", \
			"hc_set_host6"                                        \
	}

/* An exact 5-tuple: addresses in network order, ports in host order. */
struct hc_tuple {
	__u8 family; /* 4 or 6 */
	__u8 proto;
	__u16 sport, dport;
	__u16 pad;
	__u32 saddr[4], daddr[4];
};

/* LPM trie keys: the prefix length in bits, then the address. */
struct hc_lpm4 {
	__u32 prefixlen;
	__u32 addr;
};

struct hc_lpm6 {
	__u32 prefixlen;
	__u32 addr[4];
};

/* Set by the loader in .rodata before load; the verifier then prunes
 * the parse depths, rules and sets that are not in use. */
struct hc_conf {
	__u32 parse;
	__u32 def_verdict;
	__u32 nr_rules;
	__u32 sets; /* HC_SET_BIT()s, HC_SET_HOST_BIT()s that hold entries */
	struct hc_redirect redirect;
	struct hc_rule rules[HC_MAX_RULES];
};

#endif
