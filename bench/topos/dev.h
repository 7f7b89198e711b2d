/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: the --dev topology, a given device with traffic from elsewhere
 * (dev.c).
 */
#ifndef HC_BENCH_DEV_H
#define HC_BENCH_DEV_H

#include "bench.h"

extern const struct bench_topo bench_topo_dev;

/* Records a change to the DUT's namespace for hookcmp cleanup (--dev). */
int bench_journal(struct bench *b, struct hc_jrec *rec,
		  const struct hc_jkind *kind, int ifindex, const char *mode,
		  bool done, struct hc_err *err);

#endif
