/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule set (--rules-file): exact 5-tuples and source prefixes, each
 * entry with its verdict. One line per entry:
 *
 *   [src] PREFIX VERDICT                          10.0.0.0/8 drop
 *   (udp|tcp) ADDR:PORT ADDR:PORT VERDICT         udp 10.0.0.1:53 10.0.0.2:9 pass
 *
 * PREFIX is an IPv4 or IPv6 address with an optional /LEN (no host bits
 * beyond it); an IPv6 address with a port is [ADDR]:PORT. VERDICT is
 * drop or pass. '#' starts a comment; blank lines are skipped. An entry
 * given twice is an error.
 *
 * The logic matches (hc_logic.h): the first-match rules, then the exact
 * 5-tuple, then the longest source prefix, then the default verdict.
 */
#ifndef HC_SET_H
#define HC_SET_H

#include "hookcmp.h"

/* More entries than any blocklist we measure: the maps' memory bound. */
#define HC_SET_MAX 10000000u

struct hc_set_entry {
	__u32 line; /* in its file, for messages */
	__u8 kind; /* enum hc_set_kind */
	__u8 verdict;
	__u8 plen; /* a prefix's length; a tuple's is its full length */
	struct hc_tuple t; /* a prefix: family and saddr only */
};

struct hc_set;

extern const char *const hc_set_kind_names[]; /* "tuple", "src4", "src6" */

struct hc_set *hc_set_new(void);
void hc_set_free(struct hc_set *s);
/*
 * One line of the format into e: 0, 1 for a blank or comment line, or
 * -EINVAL with err saying what was expected and what was found.
 */
int hc_set_entry_parse(const char *line, struct hc_set_entry *e,
		       struct hc_err *err);
/* Adds e: 0, -EEXIST with *dup its twin's line, -E2BIG, -ENOMEM. */
int hc_set_add(struct hc_set *s, const struct hc_set_entry *e, __u32 *dup);
/*
 * Adds path's entries: 0, -errno (the file), or -EINVAL, -E2BIG with
 * err as "PATH:LINE: what was expected, what was found".
 */
int hc_set_read(struct hc_set *s, const char *path, struct hc_err *err);
/* Its entries in the order added, *n of them: for peers and generators. */
const struct hc_set_entry *hc_set_entries(const struct hc_set *s, __u32 *n);
/* How many entries of kind it holds; s NULL holds none. */
__u32 hc_set_count(const struct hc_set *s, enum hc_set_kind kind);
/*
 * hc_conf.sets for s: HC_SET_BIT() of the tuples' hash and of each trie
 * that holds entries, HC_SET_HOST_BIT() of each full-length hash.
 */
__u32 hc_set_bits(const struct hc_set *s);
/* The least --parse depth that can evaluate s's entries. */
enum hc_parse hc_set_depth(const struct hc_set *s);
/*
 * The verdict of the exact tuple, or of the longest prefix that holds
 * key's address (struct hc_tuple, hc_lpm4 or hc_lpm6 as kind says), or
 * -1. The userspace build's hc_set_find (hc_user.h).
 */
int hc_set_lookup(const struct hc_set *s, __u32 kind, const void *key);

struct bpf_object;
/* Before load: obj's set maps (if it has them) sized for s, 1 unused. */
int hc_set_size_maps(const struct hc_set *s, struct bpf_object *obj);
/* After load: s's entries into obj's set maps. */
int hc_set_fill_maps(const struct hc_set *s, struct bpf_object *obj);

#endif
