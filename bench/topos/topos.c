// SPDX-License-Identifier: GPL-2.0
/*
 * The topologies --topology chooses from, in its order: a line each. The
 * third, a device of the user's (dev.c), is --dev's.
 */
#include "bench.h"
#include "topo.h"

const struct bench_topo *const bench_topologies[] = {
	&bench_topo_veth,
	&bench_topo_inject,
	NULL,
};
