/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: --dev's journal records (dev_jkinds.c), undone by
 * cleanup: the device settings --tune changed, and the veth pair of the
 * second device.
 */
#ifndef HC_BENCH_DEV_JKINDS_H
#define HC_BENCH_DEV_JKINDS_H

#include "hookcmp.h"

extern const struct hc_jkind bench_jkind_gro, bench_jkind_threaded,
	bench_jkind_channels, bench_jkind_link;

/* A --tune record's data: what it found, to be put back. */
struct bench_jtune {
	/* gro, threaded: 1 on, 0 off; channels: rx, tx, combined, other */
	__u32 val[4];
};

/* Puts a --tune record's setting back on its device: 0 or -errno. */
int bench_tune_put(const struct hc_jrec *rec);

#endif
