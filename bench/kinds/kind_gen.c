// SPDX-License-Identifier: GPL-2.0
#include "bench.h"
#include "kind.h"
#include "topo.h"

/* The generator alone: the topology says how (gen_alone). */
static int gen_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return b->net.topo->gen_alone(b, true, err);
}

static void gen_teardown(struct bench *b, struct bench_row *r)
{
	b->net.topo->gen_alone(b, false, NULL);
}

const struct bench_kind bench_kind_gen = {
	.name = "gen-only",
	/* live frames, or AF_PACKET where the kernel refuses them */
	.path = "bpf_test_run_xdp_live|packet_sendmsg",
	.setup = gen_setup,
	.teardown = gen_teardown,
	.read = bench_read_dut,
	.generator = true,
};
