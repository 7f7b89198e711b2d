// SPDX-License-Identifier: GPL-2.0
/* nftables: a netdev ingress chain on the DUT that counts and drops. */
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
#include "journal.h"


/* A table of our own, by name: deleting it deletes nothing else. */
static void table(char *buf, size_t size)
{
	snprintf(buf, size, "hookcmp_%d", getpid());
}

static int nft_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	char t[32], cmd[300];
	/* One argument, not a shell line: nft parses it, no one else. */
	const char *argv[] = { "nft", cmd, NULL };

	table(t, sizeof(t));
	snprintf(
		cmd, sizeof(cmd),
		"add table netdev %s; "
		"add chain netdev %s in { type filter hook ingress device %s priority 0; }; "
		"add rule netdev %s in counter drop",
		t, t, b->net.dut_name, t);
	return bench_journal(b, &r->rec[0], &bench_jkind_nft, b->net.if_dut, t, true, err) ?:
		       hc_exec(b->net.fd_dut, argv, NULL, 0, err);
}

static void nft_teardown(struct bench *b, struct bench_row *r)
{
	char t[32], cmd[64];
	const char *argv[] = { "nft", cmd, NULL };
	struct hc_err err = {};

	table(t, sizeof(t));
	snprintf(cmd, sizeof(cmd), "delete table netdev %s", t);
	hc_exec(b->net.fd_dut, argv, NULL, 0, &err);
	hc_journal_del(&r->rec[0]);
}

/* From `nft -j`: ... "expr": [{"counter": {"packets": N, "bytes": M}} ... */
static int nft_read(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	char t[32], out[8192], *p;
	const char *argv[] = { "nft",	 "-j", "list", "chain",
			       "netdev", t,    "in",   NULL };
	struct hc_err err = {};
	int ret;

	table(t, sizeof(t));
	ret = hc_exec(b->net.fd_dut, argv, out, sizeof(out), &err);
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
	.path = "nft_do_chain",
	.setup = nft_setup,
	.teardown = nft_teardown,
	.read = nft_read,
	.forks = true,
	.counted = "nft_do_chain",
};
