/* SPDX-License-Identifier: GPL-2.0 */
/* hookcmp bench: a row and its rounds, as every part marks them (row.c). */
#ifndef HC_BENCH_ROW_H
#define HC_BENCH_ROW_H

#include "bench.h"

/* The row is INVALID for the first reason given, and runs no more. */
void bench_row_fail(struct bench_row *r, const char *step, int ret,
		    const struct hc_err *err);
/* The row is INVALID for the first reason given; its rounds go on. */
void bench_row_invalid(struct bench_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_round_free(struct bench_round *rd);
/* The rows' room, -ENOMEM; and what every row holds, with the room. */
int bench_rows_alloc(struct bench_rows *rows);
void bench_rows_free(struct bench_rows *rows);
/* Whether its frames add up: generated = seen + dropped (gen-only: none). */
bool bench_round_accounted(const struct bench_row *r,
			   const struct bench_round *rd);
/* Which of AF_XDP's rings dropped what it did between two reads. */
void bench_round_rings(struct bench_round *rd, const struct bench_count *c0,
		       const struct bench_count *c1);
/*
 * Where the frames dropped before the hook went, for a reason: ": N with
 * AF_XDP's rx ring full, ..." when a ring dropped any, else "".
 */
const char *bench_round_drops(const struct bench_round *rd, char *buf,
			      size_t size);
/* "round N", or "warm-up round" for round 0. */
const char *bench_round_name(const struct bench_round *rd, char *buf,
			     size_t size);

#endif
