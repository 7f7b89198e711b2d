// SPDX-License-Identifier: GPL-2.0
/*
 * iptables: a DROP rule first in raw PREROUTING, counted by the rule
 * itself. A comment names it ours: teardown and hookcmp cleanup delete
 * that rule and no other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "bench_undo.h"
#include "dev.h"
#include "kind.h"
#include "exec.h"
#include "ipt.h"
#include "journal.h"


static void tag(char *buf, size_t size)
{
	snprintf(buf, size, "hookcmp-%d", getpid());
}

static int ipt_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	char comment[32];

	tag(comment, sizeof(comment));
	/* iptables-nft makes the raw table on first use: then it is ours. */
	HC_JDATA(&r->rec[0], struct bench_jval)->val[0] =
		!hc_ipt_raw_exists(b->net.fd_dut);
	return bench_journal(b, &r->rec[0], &bench_jkind_ipt, b->net.if_dut, comment, true, err) ?:
		       hc_ipt_rule(b->net.fd_dut, true, b->net.dut_name,
				   comment, err);
}

static void ipt_teardown(struct bench *b, struct bench_row *r)
{
	char comment[32];
	struct hc_err err = {};

	tag(comment, sizeof(comment));
	/* Gone already (setup failed halfway) is as good as deleted. */
	hc_ipt_rule(b->net.fd_dut, false, b->net.dut_name, comment, &err);
	if (HC_JDATA(&r->rec[0], struct bench_jval)->val[0])
		hc_ipt_raw_put(b->net.fd_dut);
	hc_journal_del(&r->rec[0]);
}

/* `iptables -v -S`: "-A PREROUTING -i DEV -m comment --comment TAG -c PACKETS BYTES -j DROP". */
static int ipt_read(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	static const char *const argv[] = { "iptables", "-t", "raw",
					    "-v",	"-S", "PREROUTING",
					    NULL };
	struct hc_err err = {};
	char out[8192], comment[32], *line, *p;
	int ret;

	ret = hc_exec(b->net.fd_dut, argv, out, sizeof(out), &err);
	if (ret)
		return ret;
	tag(comment, sizeof(comment));
	c->passed = 0;
	line = strstr(out, comment);
	p = line ? strstr(line, " -c ") : NULL;
	if (!p)
		return -EPROTO;
	c->seen = strtoull(p + 4, NULL, 10);
	return 0;
}

const struct bench_kind bench_kind_ipt = {
	.name = "iptables",
	/* iptables-nft (Debian's default) runs its rules in nft_do_chain */
	.path = "ipt_do_table|nft_do_chain",
	.setup = ipt_setup,
	.teardown = ipt_teardown,
	.read = ipt_read,
	.forks = true,
	.counted = "ipt_do_table|nft_do_chain",
};
