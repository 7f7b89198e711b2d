/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scale: the set every mechanism holds. N /32s spread evenly over
 * 198.0.0.0/11, even addresses only, so that the generator's source
 * 198.18.0.1 (odd, in the same /11) is in none and each lookup walks a
 * trie or tree as deep as N makes it: a miss near the entries, not one
 * that leaves at the root.
 */
#ifndef HC_BENCH_SCALE_H
#define HC_BENCH_SCALE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define BENCH_SET_BASE 0xc6000000u /* 198.0.0.0 */
#define BENCH_SET_SPAN (1u << 21) /* /11: 2^20 even addresses */

#define BENCH_SET_SRC 0xc6120001u /* 198.18.0.1: the generator's source */

/*
 * The i-th of n entries, host order; with hit (tests: HOOKCMP_FAIL_AT=
 * bench-scale-hit) the first is the traffic's source, which every row
 * must then catch.
 */
static inline __u32 bench_set_addr(__u32 i, __u32 n, bool hit)
{
	__u32 stride = BENCH_SET_SPAN;

	if (hit && !i)
		return BENCH_SET_SRC;

	/* The largest power of two that fits n even addresses in the span. */
	while (stride > 2 && (__u64)stride * n > BENCH_SET_SPAN)
		stride /= 2;
	return BENCH_SET_BASE + i * stride;
}

/* An address of the set, host order, dotted: the peers' scripts. */
static inline void bench_set_print(FILE *f, __u32 a)
{
	fprintf(f, "%u.%u.%u.%u", a >> 24, a >> 16 & 255, a >> 8 & 255,
		a & 255);
}

#endif
