// SPDX-License-Identifier: GPL-2.0
/*
 * iptables: a DROP rule first in raw PREROUTING, counted by the rule
 * itself. A comment names it ours: teardown and hookcmp cleanup delete
 * that rule and no other. The scale scenario's rules and ipset set go
 * before it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "dev.h"
#include "kind.h"
#include "exec.h"
#include "ipt.h"
#include "journal.h"
#include "scale.h"
#include "undo.h"

static const struct hc_jkind ipt_jkind, ipt_jkind_chain, ipt_jkind_ipset;

/*
 * An iptables row's own: its journal record, whose data (struct
 * ipt_jdata) is also what it made (ipt_made).
 */
struct ipt_state {
	struct hc_jrec rec;
};
BENCH_KSTATE_FITS(struct ipt_state);

/* Its record's data, as cleanup reads it too. */
struct ipt_jdata {
	/*
	 * 1 if the raw table was not there (iptables-nft made it for us);
	 * what it made besides its DROP rule (hc_ipt_put's made); 1 once
	 * past the checks: teardown's to undo
	 */
	__u32 val[4];
};
HC_JDATA_FITS(struct ipt_jdata);

static struct hc_jrec *ipt_rec(struct bench_row *r)
{
	return &BENCH_KSTATE(r, struct ipt_state)->rec;
}

/* Our rules' comment, scale's chain's and set's name: no one else's. */
static void tag(char *buf, size_t size)
{
	if (hc_run_name(NULL, buf, size))
		snprintf(buf, size, "hookcmp-%d", getpid());
}

/*
 * A chain or rule of our name there already is not ours (the name is
 * this run's alone): refused, and left as it is.
 */
static int ipt_free(const struct bench_net *net, const char *t,
		    struct hc_err *err)
{
	char what[128];
	int ret = hc_ipt_taken(net->fd_dut, t, what, sizeof(what));

	/* no iptables at all: said as every other row without its tool */
	if (ret == -ENOENT)
		hc_err_set(err, "%s", what);
	else if (ret)
		hc_err_set(err, "iptables: cannot list table raw: %s", what);
	if (ret)
		return ret;
	if (!what[0])
		return 0;
	hc_err_set(err, "iptables: %s is in table raw already, not this run's",
		   what);
	return -EEXIST;
}

/* iptables reads a name ending in '+' as every device of that prefix. */
static const char *ipt_dev_refused(const char *dev)
{
	size_t n = strlen(dev);

	if (n && dev[n - 1] == '+')
		return "iptables reads a name ending in '+' as a wildcard (every device of that prefix)";
	if (!strcmp(dev, "!"))
		return "iptables reads '!' as a negation";
	return NULL;
}

/*
 * The row's state, in its journal record: whether iptables-nft made the
 * raw table for us (on first use), and what hc_ipt_put will delete.
 */
static void ipt_made(const struct bench_net *net, struct bench_row *r,
		     unsigned int made)
{
	__u32 *val = HC_JDATA(ipt_rec(r), struct ipt_jdata)->val;

	val[0] = !hc_ipt_raw_exists(net->fd_dut);
	val[1] = made;
	val[2] = 1; /* past the checks: teardown's to undo */
}

static int ipt_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	char comment[32];
	int ret;

	tag(comment, sizeof(comment));
	ret = ipt_free(&b->net, comment, err);
	if (ret)
		return ret;
	ipt_made(&b->net, r, 0);
	return bench_journal(b, ipt_rec(r), &ipt_jkind, b->net.if_dut, NULL, true, err) ?:
		       hc_ipt_rule(b->net.fd_dut, true, b->net.dut_name,
				   comment, err);
}

static void ipt_teardown(struct bench *b, struct bench_row *r)
{
	__u32 *val = HC_JDATA(ipt_rec(r), struct ipt_jdata)->val;
	char t[32], why[256];

	if (!val[2])
		return; /* refused before it made anything */
	tag(t, sizeof(t));
	/* Gone already (setup failed halfway) is as good as deleted. */
	hc_ipt_put(b->net.fd_dut, b->net.dut_name, t, val[1]);
	if (val[0] &&
	    (hc_ipt_raw_put(b->net.fd_dut, why, sizeof(why)) || why[0]))
		fprintf(stderr, "Warning: %s: left table ip raw: %s\n", r->name,
			why);
	hc_journal_del(ipt_rec(r));
	/* A visit that skips setup (a fault) must not destroy the set again. */
	val[1] = val[2] = 0;
}

/*
 * `iptables -v -S PREROUTING`: our counting rule's line, "-A PREROUTING
 * -i DEV -m comment --comment TAG -c PACKETS BYTES -j DROP".
 */
static int ipt_read(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	static const char *const argv[] = { "iptables", "-t", "raw",
					    "-v",	"-S", "PREROUTING",
					    NULL };
	struct hc_err err = {};
	char out[8192], t[32], comment[48], *line, *end, *p = NULL;
	int ret;

	ret = hc_exec(b->net.fd_dut, argv, out, sizeof(out), &err);
	if (ret)
		return ret;
	tag(t, sizeof(t));
	snprintf(comment, sizeof(comment), "--comment %s ", t);
	c->passed = 0;
	/* Not scale's jump to our chain, nor its match on our set. */
	for (line = out; line && *line && !p; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (strstr(line, comment) && strstr(line, "-j DROP"))
			p = strstr(line, " -c ");
	}
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
	.dev_refused = ipt_dev_refused,
	.forks = true,
	.counted = "ipt_do_table|nft_do_chain",
};

/*
 * iptables-rules: the scale scenario's N addresses (scale.h) as N linear
 * rules in raw: a chain of our own ("-s ADDR -j DROP" each), jumped to
 * first in PREROUTING, then the counting DROP rule for what came back.
 * All in one iptables-restore --noflush, as 100,000 rules need. No frame
 * is in the set: one that was would be dropped uncounted, and its round
 * would not add up.
 */
struct ipt_script {
	const struct bench_row *r;
	const char *t;
};

static int rules_script(FILE *f, void *arg)
{
	const struct ipt_script *s = arg;
	const char *t = s->t;
	__u32 i;

	/* -N, not ":T": a chain of that name there fails it, not flushed */
	fprintf(f, "*raw\n-N %s\n", t);
	for (i = 0; i < s->r->entries; i++) {
		fprintf(f, "-A %s -s ", t);
		bench_set_print(f, bench_set_addr(i, s->r->entries, s->r->hit));
		fprintf(f, "/32 -j DROP\n");
	}
	fprintf(f, "COMMIT\n");
	return 0;
}

/*
 * The rules on the device by argv, not in a script: iptables-restore
 * reads quotes and backslashes in it. -I 1 twice: the jump or the set's
 * match first, the counting DROP after it.
 */
static int ipt_first(const struct bench_net *net, const char *t,
		     unsigned int made, struct hc_err *err)
{
	return hc_ipt_rule(net->fd_dut, true, net->dut_name, t, err) ?:
		       hc_ipt_first(net->fd_dut, net->dut_name, t, made, err);
}

static int rules_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	static const char *const argv[] = { "iptables-restore", "--noflush",
					    NULL };
	char t[32];
	struct ipt_script s = { .r = r, .t = t };
	int ret;

	tag(t, sizeof(t));
	ret = ipt_free(&b->net, t, err);
	if (ret)
		return ret;
	ipt_made(&b->net, r, 0);
	ret = bench_journal(b, ipt_rec(r), &ipt_jkind_chain, b->net.if_dut, NULL, true, err) ?:
		      hc_exec_script(b->net.fd_dut, argv, rules_script, &s,
				     err);
	if (ret)
		return ret;
	/* made (a restore is all or nothing): teardown's to delete */
	HC_JDATA(ipt_rec(r), struct ipt_jdata)->val[1] = HC_IPT_CHAIN;
	return ipt_first(&b->net, t, HC_IPT_CHAIN, err);
}

const struct bench_kind bench_kind_ipt_rules = {
	.name = "iptables-rules",
	.path = "ipt_do_table|nft_do_chain",
	.setup = rules_setup,
	.teardown = ipt_teardown,
	.read = ipt_read,
	.dev_refused = ipt_dev_refused,
	.forks = true,
	.counted = "ipt_do_table|nft_do_chain",
};

/*
 * ipset: the scale scenario's N addresses in an ipset hash:net set named
 * by our tag, made and filled by one ipset restore, matched first in raw
 * PREROUTING ("-m set --match-set TAG src -j DROP"), then the counting
 * DROP rule. A hash: one lookup per packet, whatever N.
 */
#define IPSET_MAXELEM 65536 /* ipset's default; more when N is */

static int ipset_script(FILE *f, void *arg)
{
	const struct ipt_script *s = arg;
	__u32 i, n = s->r->entries, hashsize = 1024;

	/* a bucket per entry: no add grows the table, no lookup walks far */
	while (hashsize < n)
		hashsize *= 2;
	fprintf(f, "create %s hash:net family inet hashsize %u maxelem %u\n",
		s->t, hashsize, n > IPSET_MAXELEM ? n : IPSET_MAXELEM);
	for (i = 0; i < n; i++) {
		fprintf(f, "add %s ", s->t);
		bench_set_print(f, bench_set_addr(i, n, s->r->hit));
		fprintf(f, "/32\n");
	}
	return 0;
}

static int ipset_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	static const char *const restore[] = { "ipset", "restore", "-file",
					       NULL };
	char t[32];
	struct ipt_script s = { .r = r, .t = t };
	int ret;

	tag(t, sizeof(t));
	ret = ipt_free(&b->net, t, err);
	if (ret)
		return ret;
	/* Not made by this run: its name is this run's alone. */
	if (hc_ipt_ipset_exists(b->net.fd_dut, t)) {
		hc_err_set(
			err,
			"ipset: a set named %s is there already, not this run's",
			t);
		return -EEXIST;
	}
	ipt_made(&b->net, r, HC_IPT_SET | HC_IPT_SET_OURS);
	return bench_journal(b, ipt_rec(r), &ipt_jkind_ipset, b->net.if_dut, NULL, true, err) ?:
		       hc_exec_script(b->net.fd_dut, restore, ipset_script, &s, err) ?:
		       ipt_first(&b->net, t, HC_IPT_SET, err);
}

const struct bench_kind bench_kind_ipt_ipset = {
	.name = "iptables-ipset",
	/*
	 * xt_set's match, through nft_compat's nft_match_eval in
	 * iptables-nft, then the set's hash:net lookup
	 */
	.path = "ipt_do_table|nft_do_chain set_match_v* ip_set_test hash_net4_*",
	.setup = ipset_setup,
	.teardown = ipt_teardown,
	.read = ipt_read,
	.dev_refused = ipt_dev_refused,
	.forks = true,
	.counted = "ipt_do_table|nft_do_chain",
};

/*
 * The journal's: the rules, chain and set a killed bench's iptables rows
 * left, by their tag; the raw table with them if the row's run made it
 * and it holds what is not bench's (or iptables-nft's), said.
 */
static void ipt_undo(struct hc_undo_ctx *c)
{
	const struct hc_jrec *j = c->rec;
	const __u32 *val = HC_JDATA(j, const struct ipt_jdata)->val;
	unsigned int made = val[1]; /* what the row made: hc_ipt_put */
	char name[HC_RUN_NAME_MAX], why[512] = "";
	int ret = 0;

	if (hc_undo_ns_missing(c))
		return;
	hc_ipt_rec_name(j, name, sizeof(name));
	/* an iptables-chain record may be older than val[1] */
	if (j->kind == &ipt_jkind_chain)
		made |= HC_IPT_CHAIN;
	/* Gone already is as good as deleted: nothing else has its name. */
	hc_ipt_put(-1, j->dev, name, made);
	if (val[0])
		ret = hc_ipt_raw_put(-1, why, sizeof(why));
	if (ret && !why[0])
		return hc_undo_failed(c, ret);
	if (why[0])
		return hc_undo_say(c, ret ? "failed" : "deleted", ret != 0,
				   "deleted; left table ip raw: %s", why);
	hc_undo_say(c, "deleted", false, "deleted");
}

static const struct hc_jfield ipt_jfields[] = {
	HC_JFIELD(struct ipt_jdata, val, HC_JF_VAL),
	{},
};

static const struct hc_jkind ipt_jkind = { .name = "iptables",
					   .fields = ipt_jfields,
					   .undo = ipt_undo,
					   .print = hc_ipt_rec_print };
/* iptables-rules': its chain, the jump to it and the DROP rule after it */
static const struct hc_jkind ipt_jkind_chain = { .name = "iptables-chain",
						 .fields = ipt_jfields,
						 .undo = ipt_undo,
						 .print = hc_ipt_rec_print };
/* iptables-ipset's: its set, the rule matching it and the DROP rule */
static const struct hc_jkind ipt_jkind_ipset = { .name = "ipset",
						 .fields = ipt_jfields,
						 .undo = ipt_undo,
						 .print = hc_ipt_rec_print };
HC_JKIND(ipt_jkind);
HC_JKIND(ipt_jkind_chain);
HC_JKIND(ipt_jkind_ipset);
