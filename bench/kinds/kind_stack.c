// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing attached: the stack drops what it receives (not our MAC: in
 * ip_rcv). The DUT's RX counter is what reached it.
 */
#include "bench.h"
#include "kind.h"
#include "topo.h"

static int stack_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return 0;
}

static void stack_teardown(struct bench *b, struct bench_row *r)
{
}

const struct bench_kind bench_kind_stack = {
	.name = "stack",
	.path = BENCH_PATH_STACK,
	.setup = stack_setup,
	.teardown = stack_teardown,
	.read = bench_read_dut,
};
