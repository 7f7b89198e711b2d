// SPDX-License-Identifier: GPL-2.0
/*
 * nftables: a netdev ingress chain on the DUT that counts and drops;
 * the scale scenario's sets and rules before it.
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

static const struct hc_jkind nft_jkind;

/* An nft row's own: its table's journal record, and whether it made it. */
struct nft_state {
	struct hc_jrec rec;
	bool made; /* teardown's to delete (a script is all or nothing) */
};
BENCH_KSTATE_FITS(struct nft_state);

/*
 * A table of our own, by a name no other run makes: its chain "in", set
 * "block", counter "seen", and rules with the comment of its name.
 */
static void table(char *buf, size_t size)
{
	if (hc_run_name(NULL, buf, size))
		snprintf(buf, size, "hookcmp_%d", getpid());
}

/* nft's quoted strings end at the next '"', whatever comes before it. */
static const char *nft_dev_refused(const char *dev)
{
	return strchr(dev, '"') ? "nft cannot quote a '\"' in a device name" :
				  NULL;
}

/*
 * One of our name there already is not ours: refused, left as it is
 * ("create table" fails on it too, if it comes after this look).
 */
static int nft_free(const struct bench_net *net, const char *t,
		    struct hc_err *err)
{
	const char *argv[] = { "nft", "list", "table", "netdev", t, NULL };
	struct hc_err e = {};

	if (!hc_exec(net->fd_dut, argv, NULL, 0, &e)) {
		hc_err_set(
			err,
			"nft: a table netdev %s is there already, not this run's",
			t);
		return -EEXIST;
	}
	return 0;
}

/* Before the table is made: cleanup deletes it by its name. */
static int nft_journal(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return bench_journal(b, &BENCH_KSTATE(r, struct nft_state)->rec,
			     &nft_jkind, b->net.if_dut, NULL, true, err);
}

static int nft_made(struct bench_row *r, int ret)
{
	BENCH_KSTATE(r, struct nft_state)->made = !ret;
	return ret;
}

static int nft_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	char t[32], cmd[400];
	/* One argument, not a shell line: nft parses it, no one else. */
	const char *argv[] = { "nft", cmd, NULL };

	table(t, sizeof(t));
	snprintf(
		cmd, sizeof(cmd),
		"create table netdev %s; "
		"add chain netdev %s in { type filter hook ingress device \"%s\" priority 0; }; "
		"add rule netdev %s in counter drop comment \"%s\"",
		t, t, b->net.dut_name, t, t);
	return nft_free(&b->net, t, err)      ?:
		       nft_journal(b, r, err) ?:
		       nft_made(r, hc_exec(b->net.fd_dut, argv, NULL, 0, err));
}

static void nft_teardown(struct bench *b, struct bench_row *r)
{
	struct nft_state *s = BENCH_KSTATE(r, struct nft_state);
	char t[32], why[512];

	table(t, sizeof(t));
	if (s->made &&
	    (hc_nft_put(b->net.fd_dut, t, why, sizeof(why)) || why[0]))
		fprintf(stderr, "Warning: %s: left table netdev %s: %s\n",
			r->name, t, why);
	s->made = false;
	hc_journal_del(&s->rec);
}

/*
 * The packets of our table's first counter in `nft -j list WHAT netdev
 * TABLE NAME`: ... "counter": {... "packets": N, ...
 */
static int read_counter(const struct bench_net *net, const char *what,
			const char *name, struct bench_count *c)
{
	char t[32], out[8192], *p;
	const char *argv[] = { "nft",	 "-j", "list", what,
			       "netdev", t,    name,   NULL };
	struct hc_err err = {};
	int ret;

	table(t, sizeof(t));
	ret = hc_exec(net->fd_dut, argv, out, sizeof(out), &err);
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

static int nft_read(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	return read_counter(&b->net, "chain", "in", c);
}

const struct bench_kind bench_kind_nft = {
	.name = "nft",
	.path = "nft_do_chain",
	.setup = nft_setup,
	.teardown = nft_teardown,
	.read = nft_read,
	.dev_refused = nft_dev_refused,
	.forks = true,
	.counted = "nft_do_chain",
};

/*
 * nft-set, nft-hash and nft-rules: the scale scenario's set of N
 * addresses (scale.h) on the same chain, "ip saddr @block drop" with an
 * interval set or a plain one (a hash), or N rules "ip saddr ADDR drop",
 * then a named counter that counts and drops what is left. No frame is
 * in the set: one that was would be dropped uncounted, and its round
 * would not add up.
 */
#define PER_LINE 1000 /* a set's elements per "add element" */

struct nft_script {
	const struct bench_net *net;
	const struct bench_row *r;
	const char *t;
	const char *set; /* its flags: "" a hash; NULL no set but rules */
};

/* The table, chain, set or rules and counter, as one nft -f script. */
static int script(FILE *f, void *arg)
{
	const struct nft_script *s = arg;
	const struct bench_row *r = s->r;
	const char *t = s->t;
	__u32 i;

	fprintf(f,
		"create table netdev %s\n"
		"add chain netdev %s in { type filter hook ingress device \"%s\" priority 0; }\n"
		"add counter netdev %s seen\n",
		t, t, s->net->dut_name, t);
	if (s->set) {
		fprintf(f, "add set netdev %s block { type ipv4_addr; %s}\n", t,
			s->set);
		for (i = 0; i < r->entries; i++) {
			if (!(i % PER_LINE))
				fprintf(f, "%sadd element netdev %s block { ",
					i ? " }\n" : "", t);
			else
				fprintf(f, ", ");
			bench_set_print(f,
					bench_set_addr(i, r->entries, r->hit));
		}
		fprintf(f,
			" }\nadd rule netdev %s in ip saddr @block drop comment \"%s\"\n",
			t, t);
	} else {
		for (i = 0; i < r->entries; i++) {
			fprintf(f, "add rule netdev %s in ip saddr ", t);
			bench_set_print(f,
					bench_set_addr(i, r->entries, r->hit));
			fprintf(f, " drop comment \"%s\"\n", t);
		}
	}
	fprintf(f,
		"add rule netdev %s in counter name seen drop comment \"%s\"\n",
		t, t);
	return 0;
}

static int setup(struct bench *b, struct bench_row *r, const char *set,
		 struct hc_err *err)
{
	static const char *const argv[] = { "nft", "-f", NULL };
	char t[32];
	struct nft_script s = { .net = &b->net, .r = r, .t = t, .set = set };

	table(t, sizeof(t));
	return nft_free(&b->net, t, err)      ?:
		       nft_journal(b, r, err) ?:
		       nft_made(r, hc_exec_script(b->net.fd_dut, argv, script,
						  &s, err));
}

static int set_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return setup(b, r, "flags interval; ", err);
}

static int hash_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return setup(b, r, "", err);
}

static int rules_setup(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	return setup(b, r, NULL, err);
}

/* The scale scenario's rows: their named counter counts what is left. */
static int read_set(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	return read_counter(&b->net, "counter", "seen", c);
}

const struct bench_kind bench_kind_nft_set = {
	.name = "nft-set",
	/* a one-element interval set may be held in any of these */
	.path = "nft_do_chain nft_lookup_eval|nft_set_do_lookup|nft_rbtree_lookup|nft_pipapo_*|nft_hash_*",
	.setup = set_setup,
	.teardown = nft_teardown,
	.read = read_set,
	.dev_refused = nft_dev_refused,
	.forks = true,
	.counted = "nft_do_chain",
};

const struct bench_kind bench_kind_nft_hash = {
	.name = "nft-hash",
	.path = "nft_do_chain nft_lookup_eval|nft_set_do_lookup|nft_hash_*|nft_rhash_*",
	.setup = hash_setup,
	.teardown = nft_teardown,
	.read = read_set,
	.dev_refused = nft_dev_refused,
	.forks = true,
	.counted = "nft_do_chain",
};

const struct bench_kind bench_kind_nft_rules = {
	.name = "nft-rules",
	.path = "nft_do_chain",
	.setup = rules_setup,
	.teardown = nft_teardown,
	.read = read_set,
	.dev_refused = nft_dev_refused,
	.forks = true,
	.counted = "nft_do_chain",
};

/*
 * The journal's: the table a killed bench's nft row left, by its name;
 * what it holds that is not bench's stays, said.
 */
static void nft_undo(struct hc_undo_ctx *c)
{
	char name[HC_RUN_NAME_MAX], why[512] = "";
	int ret;

	if (hc_undo_ns_missing(c))
		return;
	hc_ipt_rec_name(c->rec, name, sizeof(name));
	/* Gone already is as good as deleted: nothing else has its name. */
	ret = hc_nft_put(-1, name, why, sizeof(why));
	if (ret && !why[0])
		return hc_undo_failed(c, ret);
	if (why[0])
		return hc_undo_say(c, ret ? "failed" : "deleted", ret != 0,
				   "deleted; left table netdev %s: %s", name,
				   why);
	hc_undo_say(c, "deleted", false, "deleted");
}

static const struct hc_jkind nft_jkind = { .name = "nft",
					   .undo = nft_undo,
					   .print = hc_ipt_rec_print };
HC_JKIND(nft_jkind);
