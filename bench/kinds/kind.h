/* SPDX-License-Identifier: GPL-2.0 */
/* hookcmp bench: the row kinds, a file each (kind_*.c). */
#ifndef HC_BENCH_KIND_H
#define HC_BENCH_KIND_H

#include "bench.h"

extern const struct bench_kind bench_kind_bpf, bench_kind_stack,
	bench_kind_qdisc, bench_kind_ipt, bench_kind_nft, bench_kind_gen,
	bench_kind_xsk, bench_kind_fwd_bpf, bench_kind_fwd_stack,
	bench_kind_fwd_nft, bench_kind_nft_set, bench_kind_nft_hash,
	bench_kind_nft_rules, bench_kind_ipt_rules, bench_kind_ipt_ipset,
	bench_kind_flower;

/*
 * A row of bench_kind_qdisc: its qdisc (kind "ingress" or "clsact"), on
 * the second device or the DUT, with a u32 filter that matches nothing
 * or without.
 */
void bench_row_qdisc(struct bench_row *r, const char *kind, bool other_dev,
		     bool u32);

#endif
