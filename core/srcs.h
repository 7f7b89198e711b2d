/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source addresses gen sends with --hit-rate: a table the frames go
 * through in turn, the n-th frame of a sending thread with entry n mod
 * its length. A hit is an address inside one of the set's source
 * prefixes of the frames' family, the h-th hit of the table from prefix
 * (h * stride) mod N (stride prime to N: every prefix in turn, far
 * apart in the file), with a random host part; a miss is the --src
 * address with random low bits (16 for IPv4, 32 for IPv6) that no
 * prefix holds. The set's 5-tuples are neither aimed at nor avoided.
 *
 * Frame n (from 0) hits when hc_srcs_hits(n + 1) > hc_srcs_hits(n): the
 * first C frames hold exactly round(C * P / Q) hits, halves up.
 */
#ifndef HC_SRCS_H
#define HC_SRCS_H

#include <stdbool.h>
#include "hookcmp.h"

struct hc_set;

/* At most this many distinct hits: a cache sees them all the same. */
#define HC_SRCS_SPREAD 65536u
#define HC_SRCS_MAX (1u << 20)

struct hc_srcs {
	__u32 n; /* entries, a multiple of q */
	__u32 p, q; /* the hit rate p / q, in lowest terms */
	__u32 hits; /* of the n */
	__u32 prefixes; /* distinct prefixes the hits come from */
	bool ipv6;
	__u8 (*addr)[16]; /* network order; IPv4 in the first 4 bytes */
};

/* "0.25", "25%", "1": *p / *q in lowest terms, 0 or -EINVAL, -ERANGE. */
int hc_srcs_rate(const char *arg, __u32 *p, __u32 *q);
/* Hits among the first frames frames: round(frames * p / q), halves up. */
__u64 hc_srcs_hits(__u64 frames, __u32 p, __u32 q);
/*
 * Draws d's table for s's prefixes of the family, misses near near
 * (struct in_addr or in6_addr), from seed: 0, or -ENOENT (p > 0, no
 * prefix of the family), -EADDRINUSE (no miss near near), -ENOMEM,
 * with err saying which.
 */
int hc_srcs_draw(struct hc_srcs *d, const struct hc_set *s, bool ipv6,
		 const void *near, __u32 p, __u32 q, __u64 seed,
		 struct hc_err *err);
void hc_srcs_free(struct hc_srcs *d);

#endif
