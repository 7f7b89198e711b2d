/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: each row's functions by cost, and against its baseline's
 * (profile.c).
 */
#ifndef HC_BENCH_PROFILE_H
#define HC_BENCH_PROFILE_H

#include "bench.h"

void bench_profile_summarize(struct bench_rows *rows);

void bench_profile_free(struct bench_row *r);
/* perf's control channel: "enable\n" or "disable\n", acknowledged. */
int bench_perf(const struct bench_watch *w, const char *cmd);
/*
 * Around a watched visit's windows: the sampler of a sampled visit, else
 * perf's control channel (--perf-row's turn).
 */
int bench_watch(struct bench_watch *w, bool on);

#endif
