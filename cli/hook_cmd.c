// SPDX-License-Identifier: GPL-2.0
/* hookcmp run (--hook): attach to DEV, count per class, detach; its options. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "hookcmp.h"
#include "cli.h"
#include "hooks.h"
#include "journal.h"
#include "json.h"
#include "netns.h"
#include "nl.h"
#include "opts.h"
#include "print.h"
#include "rules.h"
#include "set.h"
#include "stats.h"
#include "undo.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

/* ---- options of the run command ---- */

struct run_cli {
	struct hc_run r;
	const char *rules[HC_MAX_RULES + 1];
	int nr_rules;
	const char *rules_file;
	struct hc_set **set; /* cmd_run's, which frees it */
	int parse;
	int action;
	const char *journal;
	bool pretty;
	bool help;
	bool version;
};

static int add_rule(void *cfg, const char *arg, struct hc_err *err)
{
	struct run_cli *c = cfg;

	if (c->nr_rules == HC_MAX_RULES) {
		hc_err_set(err, "at most %d rules", HC_MAX_RULES);
		return -EINVAL;
	}
	c->rules[c->nr_rules++] = arg;
	return 0;
}

static int set_dmac(void *cfg, const char *arg, struct hc_err *err)
{
	struct hc_redirect *rd = &((struct run_cli *)cfg)->r.conf.redirect;

	if (hc_parse_mac(arg, rd->dmac)) {
		hc_err_set(err, "--redirect-dmac '%s': not a MAC address", arg);
		return -EINVAL;
	}
	rd->flags |= HC_RD_DMAC;
	return 0;
}

/* Where a run option of its own applies: the hooks' say where theirs do. */
enum {
	SC_LOGIC = 1, /* the full program: not --bare */
	SC_CPU = 2, /* counted in the per-CPU map: not --bare, no hook's read */
};

static const char *const run_scopes[] = {
	"a program that classifies (no --bare)",
	"a program that counts per CPU (no --bare, nor a hook counting elsewhere)",
	NULL,
};

#define IDLE_HINT_SECS 3.0 /* when to say nothing came, if a hook knows why */
#define RUN(f) offsetof(struct run_cli, r.f)
#define CLI(f) offsetof(struct run_cli, f)

static const struct hc_opt run_opts[] = {
	{ "parse", 0, HC_OPT_ENUM, CLI(parse), NULL,
	  "how deep to parse (default l4)", hc_parse_names, .scope = SC_LOGIC },
	{ "rule", 'r', HC_OPT_FUNC, 0, "RULE",
	  "add a rule; first match wins (repeat, up to 64)", .fn = add_rule,
	  .scope = SC_LOGIC },
	{ "rules-file", 0, HC_OPT_STR, CLI(rules_file), "FILE",
	  "add a set of source prefixes and 5-tuples, a line each; after the rules",
	  .scope = SC_LOGIC },
	{ "action", 'a', HC_OPT_ENUM, CLI(action), NULL,
	  "verdict when no rule matches (default drop)", hc_verdict_names,
	  .scope = SC_LOGIC },
	{ "redirect", 0, HC_OPT_STR, RUN(redirect_dev), "DEV",
	  "where 'redirect' sends: a device in DEV's namespace" },
	{ "redirect-dmac", 0, HC_OPT_FUNC, 0, "MAC",
	  "set this destination MAC on what is redirected (default: unchanged)",
	  .fn = set_dmac },
	{ "interval", 'i', HC_OPT_SECS, RUN(interval), "SEC",
	  "stats every SEC seconds, 0.01 or more; 0 prints the summary only (default 1)" },
	{ "duration", 'd', HC_OPT_SECS, RUN(duration), "SEC",
	  "detach after SEC seconds (default: until SIGINT or SIGTERM)", NULL,
	  1 },
	{ "per-cpu", 0, HC_OPT_FLAG, RUN(per_cpu), NULL,
	  "each interval's rate per CPU too, from the per-CPU counters",
	  .scope = SC_CPU },
	HC_OPT_NETNS(RUN(netns), "run inside network namespace NAME"),
	HC_OPT_JSON(RUN(json), "one JSON object per line"),
	HC_OPT_PRETTY(CLI(pretty)),
	HC_OPT_FORCE(RUN(force),
		     "attach to the device that holds the default route too"),
	HC_OPT_JOURNAL(CLI(journal), ""),
	{ "verbose", 'v', HC_OPT_FLAG, RUN(verbose), NULL,
	  "show libbpf's messages" },
	HC_OPT_HELP(CLI(help)),
	{ "version", 'V', HC_OPT_FLAG, CLI(version), NULL, "show the version" },
	{}
};

void hc_run_options_help(FILE *f)
{
	hc_opts_help(f, run_opts, run_scopes);
	hc_hook_help(f);
}

/* run's options and the hooks': the hc_run first, as the hooks' need. */
_Static_assert(offsetof(struct run_cli, r) == 0, "hc_run first");

static int fail_step(struct hc_run *r, const char *what, int err)
{
	int code = hc_exit_code(err);

	if (hc_json_mode) {
		struct hc_pr p = HC_PR_INIT(HC_PR_JSON, stdout);

		hc_pr_open(&p, HC_PR_JSON, NULL, '{');
		hc_pr_fstr(&p, HC_PR_JSON, "type", NULL, "error");
		hc_pr_fstr(&p, HC_PR_JSON, "error", NULL, what);
		hc_pr_fstr(&p, HC_PR_JSON, "dev", NULL, r->dev);
		hc_pr_fstr(&p, HC_PR_JSON, "hook", NULL, r->hook->name);
		hc_pr_fstr(&p, HC_PR_JSON, "strerror", NULL, strerror(-err));
		hc_pr_fstr(&p, HC_PR_JSON, "message", NULL, r->err.msg);
		hc_pr_fstr(&p, HC_PR_JSON, "kernel", NULL, r->err.kernel);
		hc_pr_fstr(&p, HC_PR_JSON, "hint", NULL, r->err.hint);
		hc_pr_fu64(&p, HC_PR_JSON, "exit", NULL, code);
		hc_pr_close(&p, HC_PR_JSON, '}');
	}
	hc_report(r, "Error", what, err);
	return code;
}


/* ---- the run command ---- */

/* What a dead hookcmp left on this device is worth saying before we start. */
static void warn_stale(const struct hc_run *r)
{
	struct hc_netns_id here;
	struct hc_jrec *recs;
	int n, i;

	if (hc_netns_self(&here) || hc_journal_list(&recs, &n, NULL))
		return;
	for (i = 0; i < n; i++)
		if (!recs[i].bad[0] && recs[i].ifindex == r->ifindex &&
		    hc_netns_same(&recs[i].ns, &here) &&
		    !hc_journal_alive(&recs[i]))
			hc_text_printf(
				stderr,
				"Warning: a hookcmp that died (pid %d) left its %s on %s; run: hookcmp%s%s cleanup %s\n",
				recs[i].pid, recs[i].kind->name, r->dev,
				r->netns ? " -n " : "",
				r->netns ? r->netns : "", r->dev);
	free(recs);
}

static void detach(struct hc_run *r)
{
	int err;

	memset(&r->err, 0, sizeof(r->err));
	hc_pause("detach");
	err = r->hook->detach(r);
	/* A device that left: its records are followed after the unload. */
	if (err && err != -ENODEV)
		hc_report(r, "Warning", "detach incomplete", err);
	else if (!err && r->err.msg[0])
		hc_text_printf(stderr, "hookcmp: %s\n", r->err.msg);
}

/*
 * What is still journalled once our programs are unloaded: the device
 * left this namespace, or its detach failed. Each record is undone where
 * the device is now, or proven gone, as cleanup would.
 */
static int follow(struct hc_run *r)
{
	int left = hc_undo_run(r, hc_undo_print, NULL);

	if (left)
		hc_cleanup_hint(r->netns, r->dev, "once it can be undone");
	return left;
}

/* What redirects and how, before anything touches the system. */
static int check_redirect_opts(struct run_cli *c)
{
	struct hc_run *r = &c->r;

	if (!hc_conf_redirects(&r->conf)) {
		if (r->redirect_dev || r->conf.redirect.flags)
			return hc_fail(
				HC_EXIT_USAGE,
				HC_REDIRECT_UNASKED);
		return 0;
	}
	if (!r->hook->redirect_via)
		return hc_fail(
			HC_EXIT_USAGE,
			"--hook %s cannot redirect: it only keeps or drops what reaches it; use --hook xdp or tc",
			r->hook->name);
	if (!r->redirect_dev)
		return hc_fail(
			HC_EXIT_USAGE,
			"'redirect' needs --redirect DEV, where to send");
	if (strlen(r->redirect_dev) >= IF_NAMESIZE)
		return hc_fail(HC_EXIT_USAGE, "device name '%s' is too long",
			       r->redirect_dev);
	return 0;
}

/* --rules-file: every entry read before anything touches the system. */
static int read_set(struct run_cli *c)
{
	struct hc_conf *conf = &c->r.conf;
	struct hc_err err = {};
	struct hc_set *s;
	int ret;

	if (!c->rules_file)
		return 0;
	s = *c->set = hc_set_new();
	if (!s)
		return hc_fail(HC_EXIT_FAIL, "--rules-file: %s",
			       strerror(ENOMEM));
	ret = hc_set_read(s, c->rules_file, &err);
	if (ret)
		return hc_fail(ret == -ENOMEM ? HC_EXIT_FAIL : HC_EXIT_USAGE,
			       "--rules-file %s", err.msg);
	if (hc_set_depth(s) > conf->parse)
		return hc_fail(
			HC_EXIT_USAGE,
			"--rules-file %s: its %s need --parse %s or deeper (have %s)",
			c->rules_file,
			hc_set_count(s, HC_SET_TUPLE) ? "5-tuples" : "prefixes",
			hc_parse_names[hc_set_depth(s)],
			hc_parse_names[conf->parse]);
	conf->sets = hc_set_bits(s);
	c->r.set = s;
	return 0;
}

/* The --rule texts into the program's rules, each deep enough. */
static int parse_rules(struct run_cli *c)
{
	struct hc_conf *conf = &c->r.conf;
	struct hc_err err = {};
	int i;

	for (i = 0; i < c->nr_rules; i++) {
		struct hc_rule *rule = &conf->rules[i];

		if (hc_rule_parse(c->rules[i], rule, &err))
			return hc_fail(HC_EXIT_USAGE, "rule %d '%s': %s", i + 1,
				       c->rules[i], err.msg);
		if (hc_rule_depth(rule) > conf->parse)
			return hc_fail(
				HC_EXIT_USAGE,
				"rule %d '%s' needs --parse %s or deeper (have %s)",
				i + 1, c->rules[i],
				hc_parse_names[hc_rule_depth(rule)],
				hc_parse_names[conf->parse]);
	}
	conf->nr_rules = c->nr_rules;
	c->r.rule_texts = c->rules;
	return 0;
}

static int parse_run(struct run_cli *c, int argc, char **argv)
{
	static struct hc_opt opts[HC_MAX_OPTS + 1];
	unsigned long long given;
	const char *pos[2];
	struct hc_err err = {};
	struct hc_conf *conf = &c->r.conf;
	char here[128];
	int n, npos, ret;

	for (n = 0; run_opts[n].name; n++)
		opts[n] = run_opts[n];
	n = hc_hook_opts(opts, n, HC_MAX_OPTS);
	if (n < 0)
		return hc_fail(HC_EXIT_FAIL, "the hooks' options: %s",
			       strerror(-n));
	ret = hc_opts_parse(opts, c, argc, argv, pos, &npos, 1, &given, &err);
	hc_json_pretty = c->pretty;
	c->r.json |= c->pretty;
	hc_json_mode = c->r.json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c->help || c->version)
		return 0;
	if (c->journal)
		hc_journal_set_dir(c->journal);
	if (hc_hook_parsed(&c->r, opts, given, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (npos != 1)
		return hc_fail(HC_EXIT_USAGE,
			       "name one device: hookcmp --hook %s DEV",
			       c->r.hook->name);
	c->r.dev = pos[0];
	if (strlen(c->r.dev) >= IF_NAMESIZE)
		return hc_fail(HC_EXIT_USAGE, "device name '%s' is too long",
			       c->r.dev);
	hc_hook_where(&c->r, here, sizeof(here));
	/* A hook's own read (xsk's sockets) counts no CPU apart. */
	if (hc_opts_scope(opts, given,
			  c->r.bare	  ? 0 :
			  c->r.hook->read ? SC_LOGIC :
					    SC_LOGIC | SC_CPU,
			  run_scopes, here, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	/* A line per 10 ms is as often as a terminal or a pipe can take. */
	if (c->r.interval > 0 && c->r.interval < 0.01)
		return hc_fail(
			HC_EXIT_USAGE,
			"--interval %g: at least 0.01 s, or 0 for the summary only",
			c->r.interval);
	if (c->r.per_cpu && !(c->r.interval > 0))
		return hc_fail(
			HC_EXIT_USAGE,
			"--per-cpu is each interval's rate per CPU: not with --interval 0, the summary only");

	conf->parse = c->parse;
	conf->def_verdict = c->action;
	ret = parse_rules(c) ?: read_set(c);
	if (ret)
		return ret;
	ret = check_redirect_opts(c);
	if (ret)
		return ret;
	if (c->r.hook->check && c->r.hook->check(&c->r, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	return 0;
}

/* A hook that has counted nothing in a while may know why. */
static void idle_hint(const struct hc_run *r, const struct hc_snap *start)
{
	struct hc_snap cur;
	char hint[512];
	__u64 n = 0;
	int c;

	if (hc_run_read(r, &cur))
		return;
	for (c = 0; c < cur.ncpu; c++)
		n += cur.cpu[c] - start->cpu[c];
	if (n)
		return;
	r->hook->idle_hint(r, IDLE_HINT_SECS, hint, sizeof(hint));
	hc_text_printf(stderr, "Hint: %s\n", hint);
}

static int run_loop(struct hc_run *r, const struct hc_snap *start)
{
	struct hc_snap prev = *start, cur;
	double next = start->t + r->interval;
	double end = r->duration > 0 ? start->t + r->duration : INFINITY;
	struct pollfd pfd = { .fd = r->hook->drain ? r->hook->drain(r) : -1,
			      .events = POLLIN };
	char name[IF_NAMESIZE];
	bool hinted = !r->hook->idle_hint;

	while (!hc_stop_sig) {
		double now = hc_now(), wake = end;
		int timeout;

		/* An interval due by now is printed even when the run is
		 * over: a stalled VM must not swallow every line.
		 */
		if (r->interval > 0 && now >= next && next <= end) {
			if (!hc_run_read(r, &cur)) {
				hc_stats_interval(r, &prev, &cur,
						  cur.t - start->t);
				prev = cur;
			}
			next += r->interval;
			if (next < now)
				next = now + r->interval;
			continue;
		}
		if (now >= end)
			break;
		if (!hinted && now >= start->t + IDLE_HINT_SECS) {
			idle_hint(r, start);
			hinted = true;
		}
		if (r->interval > 0 && next < wake)
			wake = next;
		/* Wake at least every second to see that DEV is still there. */
		if (wake > now + 1)
			wake = now + 1;
		timeout = (int)ceil((wake - now) * 1000);
		if (poll(&pfd, pfd.fd >= 0, timeout) > 0 &&
		    (pfd.revents & POLLIN))
			pfd.fd = r->hook->drain(r);
		if (!if_indextoname(r->ifindex, name))
			return -ENODEV;
	}
	return hc_stop_sig ? 128 + hc_stop_sig : 0;
}

/*
 * What is checked before anything is made: privileges, the journal, the
 * device and what the hook needs there. 0, or an exit code.
 */
static int run_preflight(struct run_cli *c)
{
	struct hc_run *r = &c->r;
	const struct hc_hook *h = r->hook;
	char hook[32], who[64];
	int ret;

	ret = hc_check_privileges() ?: hc_cmd_journal(c->journal);
	if (ret)
		return ret;
	if (!hc_jit_enabled())
		hc_text_printf(
			stderr,
			"Warning: the BPF JIT is off (net.core.bpf_jit_enable=0): costs are the interpreter's\n");
	snprintf(hook, sizeof(hook), "--hook %s", h->name);
	ret = hc_cmd_device(r->netns, r->dev, hook, &r->ifindex);
	if (ret || !h->caps)
		return ret;
	/* In the namespace: a port's privilege is its sysctl. */
	snprintf(who, sizeof(who), "--hook %s (%s) needs more", h->name,
		 h->attach_name(r));
	return hc_check_caps(h->caps(r), who);
}

/*
 * Netlink, and where it would cut the caller off or redirect to: 0, or
 * an exit code after saying why.
 */
static int run_open(struct hc_run *r)
{
	char warn[256];
	bool busy = false;
	int err;

	r->nl = hc_nl_open(&r->err);
	if (!r->nl)
		return fail_step(r, "netlink failed", -errno);
	/*
	 * Without -n we run where the caller is, and their own session most
	 * likely leaves through the default route: do not cut it by accident.
	 */
	if (!r->force && !r->netns &&
	    !hc_nl_default_route_via(r->nl, r->ifindex, &busy, NULL) && busy)
		return hc_fail(
			HC_EXIT_USAGE,
			"%s holds this namespace's default route: hookcmp could cut you off (ssh). --force attaches anyway; add --duration SEC as a dead-man's timer",
			r->dev);
	if (!r->redirect_dev)
		return 0;
	err = hc_redirect_check(r, warn, sizeof(warn));
	if (err == -ENODEV || err == -EINVAL)
		return hc_fail(HC_EXIT_USAGE, "%s", r->err.msg);
	if (err)
		return fail_step(r, "redirect target lookup failed", err);
	if (warn[0])
		hc_text_printf(stderr, "Warning: %s\n", warn);
	return 0;
}

/*
 * The program loaded and attached, the counts' start in *start, and what
 * runs where said: 0, or an exit code.
 */
static int run_attach(struct hc_run *r, struct hc_snap *start)
{
	const struct hc_hook *h = r->hook;
	int err;

	err = hc_fault(&r->err, "load") ?: h->load(r);
	if (err)
		return fail_step(r, "load failed", err);
	if (hc_stop_sig)
		return 128 + hc_stop_sig;
	/*
	 * The map is new at load, so the totals start from zero and also hold
	 * what arrives between attach and the first read.
	 */
	memset(start, 0, sizeof(*start));
	start->t = hc_now();
	err = h->attach(r);
	if (err)
		return fail_step(r, "attach failed", err);
	err = hc_fault(&r->err, "run");
	if (err)
		return fail_step(r, "run failed", err);
	if (h->attached) {
		char note[512] = "";

		h->attached(r, note, sizeof(note));
		hc_text_printf(stderr, "%s", note);
	}
	if (!hc_stop_sig)
		hc_text_printf(
			stderr,
			"hookcmp: %s (%s) attached to %s, prog id %u%s%s%s%s; Ctrl-C stops\n",
			h->name, h->attach_name(r), r->dev, r->prog_id,
			r->redirect_dev ? ", redirecting to " : "",
			r->redirect_dev ?: "", r->redirect_dev ? " via " : "",
			r->redirect_dev ? h->redirect_via(r) : "");
	return 0;
}

/*
 * Counts until stopped, then detaches and prints the totals: the exit
 * code of the run.
 */
static int run_count(struct hc_run *r, const struct hc_snap *start)
{
	struct hc_snap end;
	int ret, err;

	ret = run_loop(r, start);
	if (ret == -ENODEV) {
		/* The counts stay; what was attached is followed after. */
		hc_text_printf(
			stderr,
			"Error: %s (%s %s) disappeared while hookcmp ran on it (deleted, or moved to another namespace)\n",
			r->dev, r->hook->name, r->hook->attach_name(r));
		ret = HC_EXIT_FAIL;
	}
	/* Totals come after detach, so they hold every packet we counted. */
	detach(r);
	err = hc_run_read(r, &end);
	if (err)
		return fail_step(r, "reading counters failed", err);
	hc_stats_summary(r, start, &end);
	return ret;
}

static int run(int argc, char **argv, struct hc_set **set)
{
	struct run_cli c = {
		.parse = HC_PARSE_L4,
		.action = HC_DROP,
		.set = set,
	};
	struct hc_run *r = &c.r;
	struct hc_snap start;
	int ret;

	hc_run_init(r);
	ret = parse_run(&c, argc, argv);
	if (ret)
		return ret;
	if (c.help)
		return HC_CMD_USAGE;
	if (c.version)
		return hc_show_version(r->json);
	ret = run_preflight(&c);
	if (ret)
		return ret;

	warn_stale(r);
	libbpf_set_print(r->verbose ? libbpf_print : libbpf_quiet);
	hc_install_signals();
	ret = run_open(r) ?: run_attach(r, &start);
	if (!ret)
		ret = run_count(r, &start);
	/* Whatever stopped it: undo what is there, follow what is left. */
	detach(r);
	hc_prog_unload(r);
	if (follow(r) && !ret)
		ret = HC_EXIT_FAIL;
	hc_nl_close(r->nl);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct hc_set *set = NULL;
	int ret = run(argc, argv, &set);

	hc_set_free(set);
	return ret;
}
