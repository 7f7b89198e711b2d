// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "exec.h"
#include "ipt.h"
#include "journal.h"
#include "jparse.h"
#include "print.h"

#define IPSET_TRIES 50 /* 20 ms apart: a second for a set still in use */
/* A listing this long is read only by pages it fills: 100k rules, 25 MB. */
#define LIST_MAX (64u << 20)

bool hc_ipt_raw_exists(int nsfd)
{
	static const char *const argv[] = { "nft", "list", "table",
					    "ip",  "raw",  NULL };
	struct hc_err err = {};
	char out[64];

	return !hc_exec(nsfd, argv, out, sizeof(out), &err);
}

/*
 * Our rules in raw PREROUTING on dev: the counting DROP rule (made 0),
 * the jump to our chain (HC_IPT_CHAIN) or the match on our set
 * (HC_IPT_SET), -I first or -D. An argv: no script's quoting to strip
 * any character of dev's.
 */
static int rule(int nsfd, const char *op, const char *dev, const char *tag,
		unsigned int made, struct hc_err *err)
{
	/* the rest NULL: 12 words at most, and its end */
	const char *argv[18] = { "iptables", "-t", "raw", op, "PREROUTING" };
	const char **a = &argv[5];

	/* -I PREROUTING 1: before anyone else's rules. */
	if (!strcmp(op, "-I"))
		*a++ = "1";
	*a++ = "-i";
	*a++ = dev;
	*a++ = "-m";
	if (made & HC_IPT_SET) {
		*a++ = "set";
		*a++ = "--match-set";
		*a++ = tag;
		*a++ = "src";
	} else {
		*a++ = "comment";
		*a++ = "--comment";
		*a++ = tag;
	}
	*a++ = "-j";
	*a = made & HC_IPT_CHAIN ? tag : "DROP";
	return hc_exec(nsfd, argv, NULL, 0, err);
}

int hc_ipt_rule(int nsfd, bool add, const char *dev, const char *tag,
		struct hc_err *err)
{
	return rule(nsfd, add ? "-I" : "-D", dev, tag, 0, err);
}

int hc_ipt_first(int nsfd, const char *dev, const char *tag, unsigned int made,
		 struct hc_err *err)
{
	return rule(nsfd, "-I", dev, tag, made & (HC_IPT_CHAIN | HC_IPT_SET),
		    err);
}

void hc_ipt_put(int nsfd, const char *dev, const char *tag, unsigned int made)
{
	const char *flush[] = { "iptables", "-t", "raw", "-F", tag, NULL };
	const char *del[] = { "iptables", "-t", "raw", "-X", tag, NULL };
	const char *destroy[] = { "ipset", "destroy", tag, NULL };
	struct hc_err err = {};
	int i;

	/* The jump first: a chain in use cannot go. */
	if (made & HC_IPT_CHAIN)
		rule(nsfd, "-D", dev, tag, HC_IPT_CHAIN, &err);
	hc_ipt_rule(nsfd, false, dev, tag, &err);
	if (made & HC_IPT_CHAIN) {
		hc_exec(nsfd, flush, NULL, 0, &err);
		hc_exec(nsfd, del, NULL, 0, &err);
	}
	if (made & HC_IPT_SET)
		rule(nsfd, "-D", dev, tag, HC_IPT_SET, &err);
	/*
	 * nf_tables lets go of a deleted rule's match after its commit, in a
	 * work item: until then the set is in use. Only ours, and only that.
	 */
	for (i = 0; made & HC_IPT_SET_OURS && i < IPSET_TRIES; i++) {
		err.msg[0] = '\0';
		if (!hc_exec(nsfd, destroy, NULL, 0, &err) ||
		    !strstr(err.msg, "in use"))
			break;
		usleep(20000);
	}
}

bool hc_ipt_ipset_exists(int nsfd, const char *name)
{
	const char *argv[] = { "ipset", "-n", "list", name, NULL };
	struct hc_err err = {};

	return !hc_exec(nsfd, argv, NULL, 0, &err);
}

int hc_ipt_taken(int nsfd, const char *tag, char *what, size_t size)
{
	static const char *const argv[] = { "iptables", "-t", "raw", "-S",
					    NULL };
	struct hc_err err = {};
	char *out = malloc(LIST_MAX), *line, *save, *c, chain[64], comment[64];
	int ret = out ? hc_exec(nsfd, argv, out, LIST_MAX, &err) : -ENOMEM;
	size_t n;

	what[0] = '\0';
	snprintf(chain, sizeof(chain), "-N %s", tag);
	n = snprintf(comment, sizeof(comment), "--comment %s", tag);
	for (line = ret ? NULL : strtok_r(out, "\n", &save); line && !what[0];
	     line = strtok_r(NULL, "\n", &save)) {
		c = strstr(line, comment);
		if (!strcmp(line, chain))
			snprintf(what, size, "a chain named %s", tag);
		else if (c && (c[n] == ' ' || !c[n]))
			snprintf(what, size, "a rule with the comment %s", tag);
	}
	if (ret)
		snprintf(what, size, "%s", err.msg);
	free(out);
	return ret;
}

/* ---- what a whole nft table holds ---- */

/* The end of the JSON value at p (an object or array), or NULL. */
static char *value_end(char *p)
{
	bool str = false;
	int depth = 0;

	for (; *p; p++) {
		if (str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				str = false;
		} else if (*p == '"') {
			str = true;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && !--depth) {
			return p + 1;
		}
	}
	return NULL;
}

/* "set atkforeignset", "rule 7 in chain PREROUTING", "flowtable f" */
static void describe(const char *type, const struct jp *o, char *buf,
		     size_t size)
{
	if (!strcmp(type, "rule"))
		snprintf(buf, size, "rule %.0f in chain %s",
			 jp_num(o, "handle", 0), jp_str(o, "chain", "?"));
	else
		snprintf(buf, size, "%s %s", type, jp_str(o, "name", "?"));
}

/*
 * Whether nft lists the table: its error for one not there ends with a
 * line of carets, which is all exec keeps of what it said.
 */
static bool nft_table_there(int nsfd, const char *family, const char *table)
{
	const char *argv[] = { "nft", "-j", "list", "tables", family, NULL };
	struct hc_err err = {};
	char out[65536], name[300];

	snprintf(name, sizeof(name), "\"name\": \"%s\"", table);
	return hc_exec(nsfd, argv, out, sizeof(out), &err) || strstr(out, name);
}

int hc_nft_table_scan(int nsfd, const char *family, const char *table,
		      hc_nft_ours_fn ours, void *arg, char *why, size_t size)
{
	/* -t: no set's elements, which are the set's own */
	const char *argv[] = { "nft",	"-j",	"-t",  "list",
			       "table", family, table, NULL };
	struct hc_err err = {};
	char *out = malloc(LIST_MAX), *p, *end, c, one[128];
	int ret = out ? hc_exec(nsfd, argv, out, LIST_MAX, &err) : -ENOMEM;
	int foreign = 0;
	struct jp *v;

	why[0] = '\0';
	if (ret == -EIO && !nft_table_there(nsfd, family, table)) {
		ret = -ENOENT;
	} else if (ret) {
		snprintf(why, size, "cannot list it: %s", err.msg);
	} else if (strlen(out) >= LIST_MAX - 1) {
		snprintf(why, size, "cannot list it: over %u MiB",
			 LIST_MAX >> 20);
		ret = -EFBIG;
	}
	p = ret ? NULL : strstr(out, "\"nftables\"");
	p = p ? strchr(p, '[') : NULL;
	/* Each object in its own tree: a table of 100k rules is no tree. */
	while (p && (p = strchr(p + 1, '{')) && (end = value_end(p))) {
		c = *end;
		*end = '\0';
		if (jp_parse(p, &v, one, sizeof(one))) {
			snprintf(why, size, "cannot read nft's listing: %s",
				 one);
			ret = -EPROTO;
			break;
		}
		*end = c;
		p = end;
		if (v->type != JP_OBJ || v->n != 1 ||
		    !strcmp(v->kid[0].key, "metainfo") ||
		    !strcmp(v->kid[0].key, "table") ||
		    ours(v->kid[0].key, &v->kid[0], arg)) {
			jp_free(v);
			continue;
		}
		if (!foreign++) {
			describe(v->kid[0].key, &v->kid[0], one, sizeof(one));
			snprintf(why, size, "it holds %s", one);
		}
		jp_free(v);
	}
	if (foreign > 1) {
		size_t n = strlen(why);

		snprintf(why + n, size - n, " and %d more not hookcmp's",
			 foreign - 1);
	} else if (foreign) {
		size_t n = strlen(why);

		snprintf(why + n, size - n, ", not hookcmp's");
	}
	free(out);
	return ret;
}

/* iptables-nft's own: an empty base chain of raw's, as it makes them. */
static bool raw_ours(const char *type, const struct jp *o, void *arg)
{
	static const char *const chains[][2] = { { "PREROUTING", "prerouting" },
						 { "OUTPUT", "output" } };
	size_t i;

	(void)arg;
	if (strcmp(type, "chain"))
		return false;
	for (i = 0; i < sizeof(chains) / sizeof(chains[0]); i++)
		if (!strcmp(jp_str(o, "name", ""), chains[i][0]) &&
		    !strcmp(jp_str(o, "hook", ""), chains[i][1]) &&
		    !strcmp(jp_str(o, "type", ""), "filter") &&
		    jp_num(o, "prio", 0) == -300 &&
		    !strcmp(jp_str(o, "policy", ""), "accept"))
			return true;
	return false;
}

int hc_ipt_raw_put(int nsfd, char *why, size_t size)
{
	static const char *const del[] = { "nft", "delete", "table",
					   "ip",  "raw",    NULL };
	struct hc_err err = {};
	int ret =
		hc_nft_table_scan(nsfd, "ip", "raw", raw_ours, NULL, why, size);

	if (ret == -ENOENT)
		return 0;
	if (ret || why[0])
		return ret;
	ret = hc_exec(nsfd, del, NULL, 0, &err);
	if (ret)
		snprintf(why, size, "%s", err.msg);
	return ret;
}

/* What of table t is ours, and the script that deletes our rules. */
struct nft_own {
	const char *t;
	FILE *f;
	bool chain, set, counter, foreign_in;
};

static bool nft_ours(const char *type, const struct jp *o, void *arg)
{
	struct nft_own *w = arg;
	const char *name = jp_str(o, "name", "");

	if (!strcmp(type, "rule")) {
		if (strcmp(jp_str(o, "chain", ""), "in"))
			return false;
		if (strcmp(jp_str(o, "comment", ""), w->t)) {
			w->foreign_in = true;
			return false;
		}
		fprintf(w->f, "delete rule netdev %s in handle %.0f\n", w->t,
			jp_num(o, "handle", 0));
		return true;
	}
	if (!strcmp(type, "chain") && !strcmp(name, "in"))
		return (w->chain = true);
	if (!strcmp(type, "set") && !strcmp(name, "block"))
		return (w->set = true);
	if (!strcmp(type, "counter") && !strcmp(name, "seen"))
		return (w->counter = true);
	return false;
}

static int nft_copy(FILE *f, void *arg)
{
	const char *script = arg;

	return fputs(script, f) < 0 ? -EIO : 0;
}

int hc_nft_put(int nsfd, const char *t, char *why, size_t size)
{
	static const char *const file[] = { "nft", "-f", NULL };
	const char *set[] = { "nft", "delete", "set", "netdev", t, "block",
			      NULL };
	const char *counter[] = { "nft", "delete", "counter", "netdev",
				  t,	 "seen",   NULL };
	const char *del[] = { "nft", "delete", "table", "netdev", t, NULL };
	struct nft_own w = { .t = t };
	struct hc_err err = {};
	char *script = NULL;
	size_t len = 0, n;
	int ret;

	w.f = open_memstream(&script, &len);
	if (!w.f)
		return -ENOMEM;
	ret = hc_nft_table_scan(nsfd, "netdev", t, nft_ours, &w, why, size);
	if (w.chain && !w.foreign_in)
		fprintf(w.f, "delete chain netdev %s in\n", t);
	fclose(w.f);
	if (ret == -ENOENT)
		ret = 0; /* gone already is as good as deleted */
	else if (!ret && !why[0])
		ret = hc_exec(nsfd, del, NULL, 0, &err);
	else if (!ret) {
		/* Ours only, each on its own: one in use keeps only itself. */
		if (len)
			ret = hc_exec_script(nsfd, file, nft_copy, script, &err);
		if (w.set)
			ret = hc_exec(nsfd, set, NULL, 0, &err) ?: ret;
		if (w.counter)
			ret = hc_exec(nsfd, counter, NULL, 0, &err) ?: ret;
	}
	free(script);
	n = strlen(why);
	if (ret && err.msg[0])
		snprintf(why + n, size - n, "%s%s", n ? "; " : "", err.msg);
	else if (n && !ret)
		snprintf(why + n, size - n,
			 "; deleted only hookcmp's own in it");
	return ret;
}

void hc_ipt_rec_name(const struct hc_jrec *j, char *buf, size_t size)
{
	if (j->mode[0] || hc_run_name(j, buf, size))
		snprintf(buf, size, "%s", j->mode);
}

void hc_ipt_rec_print(const struct hc_jrec *j, struct hc_pr *p)
{
	char name[HC_RUN_NAME_MAX];

	hc_ipt_rec_name(j, name, sizeof(name));
	hc_pr_fstr(p, HC_PR_ALL, "name", " %s", name);
}
