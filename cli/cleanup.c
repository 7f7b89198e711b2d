// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp cleanup and status: what the journal says hookcmp attached, and
 * removing what a dead hookcmp left, each piece only after checking that
 * it is still the one hookcmp attached.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include "cli.h"
#include "journal.h"
#include "netns.h"
#include "opts.h"
#include "print.h"
#include "undo.h"

struct clean_cli {
	bool all, json, pretty, help;
	const char *netns, *journal;
};

#define C(f) offsetof(struct clean_cli, f)

static const struct hc_opt clean_opts[] = {
	{ "all", 'a', HC_OPT_FLAG, C(all), NULL,
	  "every device (cleanup needs DEV or --all)" },
	HC_OPT_NETNS(C(netns), "only what was attached in network namespace NAME"),
	HC_OPT_JSON(C(json), "a JSON array, an object per record"),
	HC_OPT_PRETTY(C(pretty)),
	HC_OPT_JOURNAL(C(journal), ""),
	HC_OPT_HELP(C(help)),
	{}
};

/* Which records a command acts on: DEV, and -n NAME. */
struct select {
	const char *dev, *netns;
	struct hc_netns_id id; /* NAME's, if it exists now */
};

static void select_init(struct select *s, const char *dev, const char *netns)
{
	char path[sizeof(HC_NETNS_DIR) + 256];
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->dev = dev;
	s->netns = netns;
	snprintf(path, sizeof(path), HC_NETNS_DIR "/%s", netns ? netns : "");
	if (netns && !hc_netns_name_check(netns, NULL) && !stat(path, &st)) {
		s->id.dev = st.st_dev;
		s->id.ino = st.st_ino;
	}
}

/*
 * A record made with -n NAME, or from inside NAME (ip netns exec), is in
 * NAME.
 */
static bool selected(const struct select *s, const struct hc_jrec *j)
{
	if (j->bad[0] || (s->dev && strcmp(j->dev, s->dev)))
		return false;
	return !s->netns || !strcmp(j->netns, s->netns) ||
	       (s->id.ino && hc_netns_same(&j->ns, &s->id));
}

static void ns_label(const struct hc_jrec *j, char *buf, size_t size)
{
	if (j->netns[0])
		snprintf(buf, size, "'%s'", j->netns);
	else
		snprintf(buf, size, "inode %llu",
			 (unsigned long long)j->ns.ino);
}

/* status and cleanup print here; with -j, one array of records. */
static struct hc_pr out;

static void out_open(bool json)
{
	out = (struct hc_pr)HC_PR_INIT(json ? HC_PR_JSON : HC_PR_TEXT, stdout);
	hc_pr_open(&out, HC_PR_JSON, NULL, '[');
}

/* One JSON object per record, with what became of it. */
static void json_record(const struct hc_jrec *j, const char *state,
			const char *detail)
{
	struct hc_pr *p = &out;

	hc_pr_open(p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(p, HC_PR_JSON, "type", NULL, "record");
	hc_pr_fstr(p, HC_PR_JSON, "kind", NULL, j->kind->name);
	hc_pr_fstr(p, HC_PR_JSON, "dev", NULL, j->dev);
	hc_pr_fu64(p, HC_PR_JSON, "ifindex", NULL, j->ifindex);
	hc_pr_fstr(p, HC_PR_JSON, "netns", NULL, j->netns);
	hc_pr_fu64(p, HC_PR_JSON, "netns_ino", NULL, j->ns.ino);
	hc_pr_fstr(p, HC_PR_JSON, "mode", NULL, j->mode);
	if (j->kind->print)
		j->kind->print(j, p);
	hc_pr_fu64(p, HC_PR_JSON, "pid", NULL, j->pid);
	hc_pr_fu64(p, HC_PR_JSON, "seq", NULL, j->seq);
	hc_pr_fstr(p, HC_PR_JSON, "state", NULL, state);
	if (detail)
		hc_pr_fstr(p, HC_PR_JSON, "detail", NULL, detail);
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* "WHAT: DETAIL" in text; in JSON the record with its state and detail. */
static void say(const struct hc_jrec *j, bool json, const char *state,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void say(const struct hc_jrec *j, bool json, const char *state,
		const char *fmt, ...)
{
	char what[400], detail[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (json)
		return json_record(j, state, detail);
	hc_undo_describe(j, what, sizeof(what));
	hc_text_printf(stdout, "%s: %s\n", what, detail);
}

/* What is in the journal's directory but is not a record: said, skipped. */
static void warn_bad(const struct hc_jrec *recs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (recs[i].bad[0])
			hc_text_printf(stderr, "Warning: %s/%s: %s, skipped\n",
				       hc_journal_dir(), recs[i].name,
				       recs[i].bad);
}

static int list_records(struct hc_jrec **recs, int *n)
{
	struct hc_err err = {};
	int ret = hc_journal_list(recs, n, &err);

	if (ret)
		return hc_fail(hc_exit_code(ret), "%s%s%s%s%s%s", err.msg,
			       err.msg[0] ? ": " : "", strerror(-ret),
			       err.hint[0] ? " (" : "", err.hint,
			       err.hint[0] ? ")" : "");
	warn_bad(*recs, *n);
	return 0;
}

/*
 * Without -n, DEV names a device in whichever namespace the journal has it;
 * in two or more that is ambiguous.
 */
static int check_one_netns(const struct select *sel, struct hc_jrec *recs,
			   int n)
{
	char list[512] = "", label[80];
	int i, k, nns = 0;

	if (sel->netns || !sel->dev)
		return 0;
	for (i = 0; i < n; i++) {
		if (!selected(sel, &recs[i]))
			continue;
		for (k = 0; k < i; k++)
			if (selected(sel, &recs[k]) &&
			    hc_netns_same(&recs[k].ns, &recs[i].ns))
				break;
		if (k < i)
			continue;
		ns_label(&recs[i], label, sizeof(label));
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", nns++ ? ", " : "", label);
	}
	if (nns < 2)
		return 0;
	return hc_fail(
		HC_EXIT_USAGE,
		"the journal has %s in %d network namespaces (%s): name one with -n NETNS",
		sel->dev, nns, list);
}

static int parse_clean(struct clean_cli *c, const struct hc_opt *opts, int argc,
		       char **argv, const char **dev)
{
	struct hc_err err = {};
	const char *pos[1];
	int npos, ret;

	ret = hc_opts_parse(opts, c, argc, argv, pos, &npos, 1, NULL, &err);
	hc_json_pretty = c->pretty;
	c->json |= c->pretty;
	hc_json_mode = c->json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c->netns && hc_netns_name_check(c->netns, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	*dev = npos ? pos[0] : NULL;
	if (c->journal)
		hc_journal_set_dir(c->journal);
	/* A journal misnamed would have nothing in it to say. */
	return c->help ? 0 : hc_cmd_journal(c->journal);
}

int cmd_cleanup(int argc, char **argv)
{
	struct hc_undo_pass pass = {};
	struct clean_cli c = {};
	struct select sel;
	struct hc_jrec *recs;
	struct hc_undo u;
	const char *dev;
	int n, i, ret, alive, left = 0, done = 0;

	ret = parse_clean(&c, clean_opts, argc, argv, &dev);
	if (ret)
		return ret;
	if (c.help) {
		printf("Usage: hookcmp [-n NETNS] [-j] cleanup DEV | --all\n\n"
		       "Removes what a hookcmp that died (kill -9, a crash) left attached,\n"
		       "from the journal in %s, each piece only if it is still ours.\n\n",
		       hc_journal_dir());
		hc_opts_help(stdout, clean_opts, NULL);
		return 0;
	}
	if (!!dev == c.all)
		return hc_fail(HC_EXIT_USAGE, "name one device, or --all");
	ret = hc_check_privileges() ?:
				      hc_check_caps(
					      1ULL << CAP_SYS_ADMIN,
					      "cleanup needs CAP_SYS_ADMIN too: it takes programs by their id and enters namespaces");
	if (ret)
		return ret;
	ret = list_records(&recs, &n);
	if (ret)
		return ret;
	select_init(&sel, dev, c.netns);
	ret = check_one_netns(&sel, recs, n);
	if (ret)
		goto out;
	if (c.all)
		hc_journal_sweep();
	out_open(c.json);
	/* The last change first: a filter before its qdisc, GRO before NAPI. */
	for (i = 0; i < n; i++) {
		if (!selected(&sel, &recs[i]))
			continue;
		done++;
		alive = hc_journal_alive(&recs[i]);
		if (alive == HC_ALIVE_UNSEEN) {
			say(&recs[i], c.json, "attached",
			    "hookcmp %d may still run (its PID namespace is not visible from here); run cleanup where it ran",
			    recs[i].pid);
			continue;
		}
		if (alive) {
			say(&recs[i], c.json, "attached",
			    "hookcmp %d still runs it; stop that instead",
			    recs[i].pid);
			continue;
		}
		hc_undo(&pass, &recs[i], &u);
		say(&recs[i], c.json, u.state, "%s", u.detail);
		if (u.keep)
			left++;
		else
			hc_journal_del(&recs[i]);
	}
	if (!done && !c.json)
		hc_text_printf(stdout, "nothing to clean up%s%s%s%s\n",
			       dev ? " on " : "", dev ? dev : "",
			       c.netns ? " in netns " : "",
			       c.netns ? c.netns : "");
	hc_pr_close(&out, HC_PR_JSON, ']');
	ret = left ? HC_EXIT_FAIL : 0;
out:
	free(recs);
	return ret;
}

int cmd_status(int argc, char **argv)
{
	struct clean_cli c = {};
	struct select sel;
	struct hc_jrec *recs;
	const char *dev;
	int n, i, ret, alive, shown = 0;

	ret = parse_clean(&c, clean_opts + 1, argc, argv, &dev);
	if (ret)
		return ret;
	if (c.help) {
		printf("Usage: hookcmp [-n NETNS] [-j] status [DEV]\n\n"
		       "What hookcmp has attached now, and what a dead hookcmp left.\n\n");
		hc_opts_help(stdout, clean_opts + 1, NULL);
		return 0;
	}
	ret = list_records(&recs, &n);
	if (ret)
		return ret;
	select_init(&sel, dev, c.netns);
	out_open(c.json);
	for (i = 0; i < n; i++) {
		if (!selected(&sel, &recs[i]))
			continue;
		alive = hc_journal_alive(&recs[i]);
		if (alive)
			say(&recs[i], c.json, "attached",
			    "attached by hookcmp %d%s", recs[i].pid,
			    alive == HC_ALIVE_UNSEEN ?
				    ", which may still run (its PID namespace is not visible from here)" :
				    "");
		else
			say(&recs[i], c.json, "stale",
			    "STALE, left by hookcmp %d (run: hookcmp%s%s cleanup %s)",
			    recs[i].pid, recs[i].netns[0] ? " -n " : "",
			    recs[i].netns, recs[i].dev);
		shown++;
	}
	free(recs);
	hc_pr_close(&out, HC_PR_JSON, ']');
	if (!c.json && !shown)
		hc_text_printf(stdout, "hookcmp has nothing attached%s%s\n",
			       dev ? " to " : "", dev ? dev : "");
	return 0;
}
