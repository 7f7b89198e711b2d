/* SPDX-License-Identifier: GPL-2.0 */
/* hookcmp bench: warm-up, rounds, and more of them for --target-ci (run.c). */
#ifndef HC_BENCH_RUN_H
#define HC_BENCH_RUN_H

#include "bench.h"

int bench_run(struct bench *b, struct hc_err *err);

#endif
