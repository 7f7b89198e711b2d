// SPDX-License-Identifier: GPL-2.0
/* nftables: a netdev ingress chain on the DUT that counts and drops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static int setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	/* One argument, not a shell line: nft parses it, no one else. */
	static const char *const argv[] = {
		"nft",
		"add table netdev hcbench; "
		"add chain netdev hcbench in { type filter hook ingress device " BENCH_DUT_DEV
		" priority 0; }; "
		"add rule netdev hcbench in counter drop",
		NULL
	};

	return bench_exec(b->fd_dut, argv, NULL, 0, err);
}

static void teardown(struct bench *b, struct bench_row *r)
{
	static const char *const argv[] = { "nft",
					    "delete table netdev hcbench",
					    NULL };
	struct hc_err err = {};

	bench_exec(b->fd_dut, argv, NULL, 0, &err);
}

/* From `nft -j`: ... "expr": [{"counter": {"packets": N, "bytes": M}} ... */
static int read_counts(struct bench *b, struct bench_row *r,
		       struct bench_count *c)
{
	static const char *const argv[] = { "nft",   "-j",     "list",
					    "chain", "netdev", "hcbench",
					    "in",    NULL };
	struct hc_err err = {};
	char out[8192], *p;
	int ret;

	ret = bench_exec(b->fd_dut, argv, out, sizeof(out), &err);
	if (ret)
		return ret;
	c->passed = 0;
	p = strstr(out, "\"counter\"");
	p = p ? strstr(p, "\"packets\"") : NULL;
	p = p ? strchr(p + 9, ':') : NULL;
	if (!p)
		return -EPROTO;
	c->seen = strtoull(p + 1, NULL, 10);
	return 0;
}

const struct bench_kind bench_kind_nft = {
	.name = "nft",
	.setup = setup,
	.teardown = teardown,
	.read = read_counts,
};
