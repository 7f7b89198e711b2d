/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: the veth and inject topologies, and what kinds read of them
 * (topo.c).
 */
#ifndef HC_BENCH_TOPO_H
#define HC_BENCH_TOPO_H

#include "bench.h"

extern const struct bench_topo bench_topo_veth, bench_topo_inject;
/* --topology's choices (topos.c), NULL-terminated. */
extern const struct bench_topo *const bench_topologies[];

/* NAPI on the DUT's veth (GRO on) or none (the generator alone). */
int bench_topo_napi(struct bench_net *net, bool on);
/* inject: the program the live loop runs (fd < 0: the generator's own). */
void bench_live_prog(struct bench_net *net, int fd);
int bench_dut_rx(struct bench_net *net, __u64 *rx);
/* hcg's ifindex, where inject's live loop holds a row's program; 0: none. */
int bench_topo_gen_ifindex(const struct bench_net *net);
/* forward: the MAC of the sink's veth, the DUT's next hop; zeros: none. */
const __u8 *bench_topo_sink_mac(const struct bench_net *net);

/* veth: a round's time, costs and rate from its windows. */
void bench_round_costs(const struct bench_opts *o, const struct bench_env *env,
		       const struct bench_row *r, struct bench_round *rd);
/* The read op of kinds with no counters of their own: the DUT's RX. */
int bench_read_dut(struct bench *b, struct bench_row *r, struct bench_count *c);
/* forward: what reached the sink, and what the DUT's devices dropped. */
int bench_read_sink(struct bench *b, struct bench_row *r,
		    struct bench_count *c);
/* What the DUT counted: rx_packets, and what it dropped before any hook. */
int bench_dut_count(struct bench_net *net, struct bench_dev_count *d);
__u64 bench_dropped(const struct bench_dev_count *d);

#endif
