/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: each topology's own state, private to bench/topos/. The
 * rest of bench sees struct bench_net, and reaches the rest through
 * topo.h's and dev.h's functions.
 */
#ifndef HC_BENCH_TOPOS_INTERNAL_H
#define HC_BENCH_TOPOS_INTERNAL_H

#include <netinet/in.h>
#include "bench.h"
#include "dev.h"
#include "topo.h"

/* veth and inject (topo.c): the generator's side, the sink's, the frame. */
struct bench_veth {
	struct hc_nl *nl_gen;
	int if_gen, if_spare, if_discard;
	int if_feed, if_stage; /* stage: AF_PACKET's veth, and its peer's */
	struct hc_gen_stage stage;
	/* forward: the sink, and the counter at its end (NULL: no sink) */
	int fd_sink;
	struct hc_nl *nl_sink;
	int if_out, if_sink;
	__u8 sink_mac[6];
	struct hc_run *sink;
	bool threaded; /* split: NAPI kthreads to pin again when NAPI returns */
	struct hc_gen gen;
	int gen_fd; /* the generator's own program, gen.prog_fd between rows */
	struct hc_pkt_spec spec; /* the frame, but for size and destination */
	__u32 frame_size; /* what the generator sends now */
	__u32 frame_flows;
	bool frame_local;
	struct in_addr frame_dst4;
};

/* --dev (dev.c): what --tune set, in its order, the other device's veth. */
struct bench_devtopo {
	struct hc_jrec tuned[3];
	int ntuned;
	struct hc_jrec other_rec;
	struct bench_dut dut;
};

/* net->state: the topology's up (veth) or open (dev) allocates it. */
struct bench_topo_state {
	union {
		struct bench_veth veth;
		struct bench_devtopo dev;
	};
};

/* net's veth or inject state, NULL before up or on another topology. */
static inline struct bench_veth *bench_veth(const struct bench_net *net)
{
	const struct bench_topo *t = net->topo;

	if (!net->state || (t != &bench_topo_veth && t != &bench_topo_inject))
		return NULL;
	return &net->state->veth;
}

/* net's --dev state, NULL before open or on another topology. */
static inline struct bench_devtopo *bench_devtopo(const struct bench_net *net)
{
	if (!net->state || net->topo != &bench_topo_dev)
		return NULL;
	return &net->state->dev;
}

#endif
