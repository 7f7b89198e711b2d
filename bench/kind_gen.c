// SPDX-License-Identifier: GPL-2.0
#include "bench.h"

/*
 * The generator alone: with no NAPI on the DUT's veth (GRO off, nothing
 * attached), the veth drops each frame at transmit, so the window holds
 * the generator's own work and nothing of the receive path.
 */
static int setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	int ret = bench_topo_napi(b, false);

	if (ret)
		hc_err_set(err, "turning GRO off on " BENCH_DUT_DEV);
	return ret;
}

static void teardown(struct bench *b, struct bench_row *r)
{
	bench_topo_napi(b, true);
}

const struct bench_kind bench_kind_gen = {
	.name = "gen-only",
	.setup = setup,
	.teardown = teardown,
	.read = bench_read_dut,
	.generator = true,
};
