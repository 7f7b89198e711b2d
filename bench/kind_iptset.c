// SPDX-License-Identifier: GPL-2.0
/*
 * iptables with the scale scenario's N addresses (scale.h) as N linear
 * rules in raw: a chain of our own ("-s ADDR -j DROP" each), jumped to
 * first in PREROUTING, then a DROP rule that counts what came back. All
 * in one iptables-restore --noflush, as 100,000 rules need. No frame is
 * in the set: one that was would be dropped uncounted, and its round
 * would not add up.
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
#include "scale.h"

/* Our chain's name and our rules' comment: no one else's. */
static void tag(char *buf, size_t size)
{
	snprintf(buf, size, "hookcmp-%d", getpid());
}

static int script(FILE *f, const struct bench *b, const struct bench_row *r,
		  const char *t)
{
	__u32 i, a;

	fprintf(f, "*raw\n:%s - [0:0]\n", t);
	for (i = 0; i < r->entries; i++) {
		a = bench_set_addr(i, r->entries, r->hit);
		fprintf(f, "-A %s -s %u.%u.%u.%u/32 -j DROP\n", t, a >> 24,
			a >> 16 & 255, a >> 8 & 255, a & 255);
	}
	/* -I 1 twice: the jump first, the counting DROP after it */
	fprintf(f,
		"-I PREROUTING 1 -i %s -m comment --comment %s -j DROP\n"
		"-I PREROUTING 1 -i %s -m comment --comment %s -j %s\n"
		"COMMIT\n",
		b->net.dut_name, t, b->net.dut_name, t, t);
	return fflush(f) ? -errno : 0;
}

static int iptset_setup(struct bench *b, struct bench_row *r,
			struct hc_err *err)
{
	char t[32], path[] = "/tmp/hookcmp-ipt-XXXXXX";
	const char *argv[] = { "iptables-restore", "--noflush", path, NULL };
	int fd, ret;
	FILE *f;

	tag(t, sizeof(t));
	/* iptables-nft makes the raw table on first use: then it is ours. */
	HC_JDATA(&r->rec[0], struct bench_jval)->val[0] =
		!hc_ipt_raw_exists(b->net.fd_dut);
	fd = mkstemp(path);
	if (fd < 0) {
		hc_err_set(err, "iptables-restore: a file in /tmp: %s",
			   strerror(errno));
		return -errno;
	}
	f = fdopen(fd, "w");
	ret = f ? script(f, b, r, t) : -errno;
	if (f)
		fclose(f);
	else
		close(fd);
	if (ret)
		hc_err_set(err, "iptables-restore: writing %s: %s", path,
			   strerror(-ret));
	else
		ret = bench_journal(b, &r->rec[0], &bench_jkind_ipt_chain, b->net.if_dut, t, true, err) ?:
			      hc_exec(b->net.fd_dut, argv, NULL, 0, err);
	unlink(path);
	return ret;
}

static void iptset_teardown(struct bench *b, struct bench_row *r)
{
	char t[32];

	tag(t, sizeof(t));
	hc_ipt_chain_put(b->net.fd_dut, b->net.dut_name, t);
	if (HC_JDATA(&r->rec[0], struct bench_jval)->val[0])
		hc_ipt_raw_put(b->net.fd_dut);
	hc_journal_del(&r->rec[0]);
}

/* `iptables -v -S PREROUTING`: our "... --comment TAG -c PACKETS BYTES -j DROP". */
static int iptset_read(struct bench *b, struct bench_row *r,
		       struct bench_count *c)
{
	static const char *const argv[] = { "iptables", "-t", "raw",
					    "-v",	"-S", "PREROUTING",
					    NULL };
	struct hc_err err = {};
	char out[8192], t[32], *line, *end, *p = NULL;
	int ret;

	ret = hc_exec(b->net.fd_dut, argv, out, sizeof(out), &err);
	if (ret)
		return ret;
	tag(t, sizeof(t));
	c->passed = 0;
	for (line = out; line && *line && !p; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (strstr(line, t) && strstr(line, "-j DROP"))
			p = strstr(line, " -c ");
	}
	if (!p)
		return -EPROTO;
	c->seen = strtoull(p + 4, NULL, 10);
	return 0;
}

const struct bench_kind bench_kind_ipt_rules = {
	.name = "iptables-rules",
	/* iptables-nft (Debian's default) runs its rules in nft_do_chain */
	.path = "ipt_do_table|nft_do_chain",
	.setup = iptset_setup,
	.teardown = iptset_teardown,
	.read = iptset_read,
	.forks = true,
	.counted = "ipt_do_table|nft_do_chain",
};
