/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: the --dev topology, a given device with traffic from elsewhere
 * (dev.c).
 */
#ifndef HC_BENCH_DEV_H
#define HC_BENCH_DEV_H

#include "bench.h"

extern const struct bench_topo bench_topo_dev;

/* --dev: the device under test as bench found it. */
struct bench_dut {
	char driver[32];
	int queues; /* RX queues (ETHTOOL_GCHANNELS: rx + combined) */
	char irq_cpus[256]; /* where its interrupts or NAPI kthreads run */
	cpu_set_t rx_set; /* those CPUs, whose busy time is the rows' cost */
	cpu_set_t
		pinned; /* where bench and what it runs went; empty: nowhere */
	char rx_list[128], pinned_list[128]; /* the two as CPU lists */
	bool threaded, gro;
	struct hc_ethtool_names stats;
	int rx_cpus; /* the most CPUs one window's traffic came in on */
};

/* What --dev found of its device; all zero before dev_open() or else. */
const struct bench_dut *bench_dev_dut(const struct bench_net *net);

/* Records a change to the DUT's namespace for hookcmp cleanup (--dev). */
int bench_journal(struct bench *b, struct hc_jrec *rec,
		  const struct hc_jkind *kind, int ifindex, const char *mode,
		  bool done, struct hc_err *err);

#endif
