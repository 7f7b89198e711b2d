// SPDX-License-Identifier: GPL-2.0
/* iptables: a DROP rule in raw PREROUTING, counted by the rule itself. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static int setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	static const char *const argv[] = { "iptables",	   "-t",	 "raw",
					    "-A",	   "PREROUTING", "-i",
					    BENCH_DUT_DEV, "-j",	 "DROP",
					    NULL };

	return bench_exec(b->fd_dut, argv, NULL, 0, err);
}

static void teardown(struct bench *b, struct bench_row *r)
{
	static const char *const argv[] = { "iptables", "-t",	      "raw",
					    "-F",	"PREROUTING", NULL };
	struct hc_err err = {};

	bench_exec(b->fd_dut, argv, NULL, 0, &err);
}

/* `iptables -v -S`: "-A PREROUTING -i hcd -c PACKETS BYTES -j DROP". */
static int read_counts(struct bench *b, struct bench_row *r,
		       struct bench_count *c)
{
	static const char *const argv[] = { "iptables", "-t", "raw",
					    "-v",	"-S", "PREROUTING",
					    NULL };
	struct hc_err err = {};
	char out[4096], *line, *p;
	int ret;

	ret = bench_exec(b->fd_dut, argv, out, sizeof(out), &err);
	if (ret)
		return ret;
	c->passed = 0;
	line = strstr(out, "-A PREROUTING");
	p = line ? strstr(line, " -c ") : NULL;
	if (!p)
		return -EPROTO;
	c->seen = strtoull(p + 4, NULL, 10);
	return 0;
}

const struct bench_kind bench_kind_ipt = {
	.name = "iptables",
	.setup = setup,
	.teardown = teardown,
	.read = read_counts,
};
