// SPDX-License-Identifier: GPL-2.0
/* hookcmp run: attach to DEV, count per class, detach; its option table. */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
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
#include <arpa/inet.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "hookcmp.h"
#include "cli.h"
#include "journal.h"
#include "json.h"
#include "netns.h"
#include "nl.h"
#include "opts.h"
#include "rules.h"
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
	int parse;
	int action;
	int hook;
	int redirect_mode;
	bool redirect_peer;
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

/* --nf-prio: a signed priority, the kernel refusing INT_MIN and INT_MAX. */
static int set_nf_prio(void *cfg, const char *arg, struct hc_err *err)
{
	bool neg = arg[0] == '-';
	__u64 v;

	if (hc_parse_uint(arg + neg, 0, 0, neg ? 2147483647 : 2147483646,
			  &v)) {
		hc_err_set(err,
			   "--nf-prio '%s': expected a number from -2147483647 to 2147483646",
			   arg);
		return -EINVAL;
	}
	((struct run_cli *)cfg)->r.nf_prio = neg ? -(__s64)v : (__s64)v;
	return 0;
}

enum { RD_MAP, RD_IFINDEX }; /* --redirect-mode */

/*
 * Where a run option applies: the hooks in the order of enum hc_hook_id,
 * then modes of them. The option table, --help, completion and the check
 * in parse_run all take it from here.
 */
enum {
	SC_XDP = 1 << HC_HOOK_XDP,
	SC_TC = 1 << HC_HOOK_TC,
	SC_SOCKET = 1 << HC_HOOK_SOCKET,
	SC_XSK = 1 << HC_HOOK_XSK,
	SC_NETFILTER = 1 << HC_HOOK_NETFILTER,
	SC_CGROUP = 1 << HC_HOOK_CGROUP,
	SC_CLS_BPF = 1 << HC_NR_HOOKS, /* tc with --tc-attach qdisc */
	SC_UDP = 1 << (HC_NR_HOOKS + 1), /* socket with --socket udp */
	SC_NETLINK = 1 << (HC_NR_HOOKS + 2), /* xdp or xsk, netlink */
	SC_LOGIC = 1 << (HC_NR_HOOKS + 3), /* the full program: not --bare */
};

static const char *const run_scopes[] = {
	"--hook xdp",
	"--hook tc",
	"--hook socket",
	"--hook xsk",
	"--hook netfilter",
	"--hook cgroup",
	"--hook tc --tc-attach qdisc",
	"--hook socket --socket udp",
	"--hook xdp or xsk with --xdp-attach netlink",
	"a program that classifies (no --bare)",
	NULL,
};

#define SOCKET_HINT_SECS 3.0 /* --hook socket: when to say nothing came */
#define RUN(f) offsetof(struct run_cli, r.f)
#define CLI(f) offsetof(struct run_cli, f)

static const struct hc_opt run_opts[] = {
	{ "hook", 0, HC_OPT_ENUM, CLI(hook), NULL, "receive hook to attach to",
	  HC_CHOICES("xdp", "tc", "socket", "xsk", "netfilter", "cgroup") },
	{ "xdp-mode", 0, HC_OPT_ENUM, RUN(xdp_mode), NULL,
	  "XDP in the driver or in the generic path (default native)",
	  HC_CHOICES("native", "generic"), .scope = SC_XDP | SC_XSK },
	{ "xdp-attach", 0, HC_OPT_ENUM, RUN(xdp_attach), NULL,
	  "XDP over netlink, or as a bpf_link that dies with hookcmp (default netlink)",
	  HC_CHOICES("netlink", "link"), .scope = SC_XDP | SC_XSK },
	{ "qdisc", 0, HC_OPT_ENUM, RUN(qdisc), NULL,
	  "qdisc for the tc hook's cls_bpf filter (default clsact)",
	  HC_CHOICES("clsact", "ingress"), .scope = SC_CLS_BPF },
	{ "tc-attach", 0, HC_OPT_ENUM, RUN(tc_attach), NULL,
	  "cls_bpf filter on --qdisc (default), or a tcx link (Linux 6.6+)",
	  HC_CHOICES("qdisc", "tcx"), .scope = SC_TC },
	{ "prio", 0, HC_OPT_U32, RUN(prio), "PRIO",
	  "tc filter priority (default 1)", NULL, 1, 0xffff,
	  .scope = SC_CLS_BPF },
	{ "handle", 0, HC_OPT_U32, RUN(handle), "HANDLE",
	  "tc filter handle, decimal or 0x hex (default 1)", NULL, 1,
	  0xffffffff, .flags = HC_NUM_HEX, .scope = SC_CLS_BPF },
	{ "nf-prio", 0, HC_OPT_FUNC, 0, "PRIO",
	  "netfilter hook priority, at PRE_ROUTING (default -300, iptables' raw)",
	  .fn = set_nf_prio, .scope = SC_NETFILTER },
	{ "socket", 0, HC_OPT_ENUM, RUN(sock), NULL,
	  "socket for the socket hook (default udp)",
	  HC_CHOICES("udp", "packet"), .scope = SC_SOCKET },
	{ "port", 0, HC_OPT_U32, RUN(port), "PORT",
	  "UDP port the udp socket binds (default 9)", NULL, 1, 65535,
	  .scope = SC_UDP | SC_CGROUP },
	{ "queue", 0, HC_OPT_U32, RUN(queue), "N",
	  "the rx queue to bind (default 0)", NULL, 0, 0xfffffffe,
	  .scope = SC_XSK },
	{ "all-queues", 0, HC_OPT_FLAG, RUN(all_queues), NULL,
	  "a socket and a thread on every rx queue", .scope = SC_XSK },
	{ "xsk-mode", 0, HC_OPT_ENUM, RUN(xsk_mode), NULL,
	  "AF_XDP zero-copy, copy, or what the driver gives (default auto)",
	  HC_CHOICES("auto", "copy", "zerocopy"), .scope = SC_XSK },
	{ "busy-poll", 0, HC_OPT_FLAG, RUN(busy_poll), NULL,
	  "busy-poll the queue instead of sleeping in poll()",
	  .scope = SC_XSK },
	{ "parse", 0, HC_OPT_ENUM, CLI(parse), NULL,
	  "how deep to parse (default l4)", hc_parse_names, .scope = SC_LOGIC },
	{ "rule", 'r', HC_OPT_FUNC, 0, "RULE",
	  "add a rule; first match wins (repeat, up to 64)", .fn = add_rule,
	  .scope = SC_LOGIC },
	{ "action", 'a', HC_OPT_ENUM, CLI(action), NULL,
	  "verdict when no rule matches (default drop)", hc_verdict_names,
	  .scope = SC_LOGIC },
	{ "redirect", 0, HC_OPT_STR, RUN(redirect_dev), "DEV",
	  "where 'redirect' sends: a device in DEV's namespace" },
	{ "redirect-mode", 0, HC_OPT_ENUM, CLI(redirect_mode), NULL,
	  "XDP: bpf_redirect_map through a devmap, or bpf_redirect (default map)",
	  HC_CHOICES("map", "ifindex") },
	{ "redirect-peer", 0, HC_OPT_FLAG, CLI(redirect_peer), NULL,
	  "tc: into the ingress of the veth/netkit peer of --redirect (bpf_redirect_peer)" },
	{ "redirect-dmac", 0, HC_OPT_FUNC, 0, "MAC",
	  "set this destination MAC on what is redirected (default: unchanged)",
	  .fn = set_dmac },
	{ "bare", 0, HC_OPT_FLAG, RUN(bare), NULL,
	  "attach the minimal program (drop everything, count nothing)" },
	{ "interval", 'i', HC_OPT_SECS, RUN(interval), "SEC",
	  "stats every SEC seconds, 0.01 or more; 0 prints the summary only (default 1)" },
	{ "duration", 'd', HC_OPT_SECS, RUN(duration), "SEC",
	  "detach after SEC seconds (default: until SIGINT or SIGTERM)" },
	{ "per-cpu", 0, HC_OPT_FLAG, RUN(per_cpu), NULL,
	  "the rate per CPU too, from the per-CPU counters" },
	{ "netns", 'n', HC_OPT_STR, RUN(netns), "NAME",
	  "run inside network namespace NAME" },
	{ "json", 'j', HC_OPT_FLAG, RUN(json), NULL,
	  "one JSON object per line" },
	HC_OPT_PRETTY(CLI(pretty)),
	{ "replace", 0, HC_OPT_FLAG, RUN(replace), NULL,
	  "take the XDP slot from the program there, and put it back after",
	  .scope = SC_NETLINK },
	{ "force", 'f', HC_OPT_FLAG, RUN(force), NULL,
	  "attach to the device that holds the default route too" },
	{ "journal", 0, HC_OPT_STR, CLI(journal), "DIR",
	  "the journal's directory (default $HOOKCMP_JOURNAL, else " HC_RUN_DIR
	  ")" },
	{ "verbose", 'v', HC_OPT_FLAG, RUN(verbose), NULL,
	  "show libbpf's messages" },
	{ "help", 'h', HC_OPT_FLAG, CLI(help), NULL, "show this help" },
	{ "version", 'V', HC_OPT_FLAG, CLI(version), NULL, "show the version" },
	{}
};

void hc_run_options_help(FILE *f)
{
	hc_opts_help(f, run_opts, run_scopes);
}

static int fail_step(struct hc_run *r, const char *what, int err)
{
	int code = hc_exit_code(err);

	if (hc_json_mode) {
		struct hc_json j = { .f = stdout };

		jw_open(&j, NULL, '{');
		jw_str(&j, "type", "error");
		jw_str(&j, "error", what);
		jw_str(&j, "dev", r->dev);
		jw_str(&j, "hook", hc_hook_of(r)->name);
		jw_str(&j, "strerror", strerror(-err));
		jw_str(&j, "message", r->err.msg);
		jw_str(&j, "kernel", r->err.kernel);
		jw_str(&j, "hint", r->err.hint);
		jw_u64(&j, "exit", code);
		jw_close(&j, '}');
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
		    recs[i].netns_ino == here.ino &&
		    recs[i].netns_dev == here.dev &&
		    !hc_journal_alive(&recs[i]))
			fprintf(stderr,
				"Warning: a hookcmp that died (pid %d) left its %s on %s; run: hookcmp%s%s cleanup %s\n",
				recs[i].pid, hc_jkind_names[recs[i].kind],
				r->dev, r->netns ? " -n " : "",
				r->netns ? r->netns : "", r->dev);
	free(recs);
}

static void detach(struct hc_run *r)
{
	int err;

	memset(&r->err, 0, sizeof(r->err));
	hc_pause("detach");
	err = hc_hook_of(r)->detach(r);
	/* A device that left: its records are followed after the unload. */
	if (err && err != -ENODEV)
		hc_report(r, "Warning", "detach incomplete", err);
	else if (!err && r->err.msg[0])
		fprintf(stderr, "hookcmp: %s\n", r->err.msg);
}

/*
 * What is still journalled once our programs are unloaded: the device
 * left this namespace, or its detach failed. Each record is undone where
 * the device is now, or proven gone, as cleanup would.
 */
static int follow(struct hc_run *r)
{
	struct hc_undo_pass pass = {};
	struct hc_jrec *j;
	struct hc_undo u;
	char what[400];
	int left = 0, k;

	for (;;) {
		/* The last change first: a filter before its qdisc. */
		for (j = NULL, k = 0; k < HC_NR_RUN_JKINDS; k++)
			if (r->jr[k].name[0] && (!j || r->jr[k].seq > j->seq))
				j = &r->jr[k];
		if (!j)
			break;
		hc_undo(&pass, j, &u);
		hc_undo_describe(j, what, sizeof(what));
		fprintf(stderr, "hookcmp: %s: %s\n", what, u.detail);
		if (u.keep) {
			left++;
			j->name[0] = '\0'; /* stays on disk, for cleanup */
		} else {
			hc_journal_del(j);
		}
	}
	if (left)
		fprintf(stderr,
			"Hint: hookcmp%s%s cleanup %s, once it can be undone\n",
			r->netns ? " -n " : "", r->netns ? r->netns : "",
			r->dev);
	return left;
}

/* What redirects and how, before anything touches the system. */
static int check_redirect_opts(struct run_cli *c)
{
	struct hc_run *r = &c->r;

	if (!hc_conf_redirects(&r->conf)) {
		if (r->redirect_dev || c->redirect_mode >= 0 ||
		    c->redirect_peer || r->conf.redirect.flags)
			return hc_fail(
				HC_EXIT_USAGE,
				"the --redirect options need a redirect verdict: --action redirect, or a rule ending in 'redirect'");
		return 0;
	}
	if (!hc_hook_of(r)->redirects)
		return hc_fail(
			HC_EXIT_USAGE,
			"--hook %s cannot redirect: it only keeps or drops what reaches it; use --hook xdp or tc",
			hc_hook_of(r)->name);
	if (!r->redirect_dev)
		return hc_fail(
			HC_EXIT_USAGE,
			"'redirect' needs --redirect DEV, where to send");
	if (strlen(r->redirect_dev) >= IF_NAMESIZE)
		return hc_fail(HC_EXIT_USAGE, "device name '%s' is too long",
			       r->redirect_dev);
	if (r->hook == HC_HOOK_XDP && c->redirect_peer)
		return hc_fail(
			HC_EXIT_USAGE,
			"--redirect-peer is for --hook tc: XDP has no bpf_redirect_peer");
	if (r->hook == HC_HOOK_TC && c->redirect_mode >= 0)
		return hc_fail(
			HC_EXIT_USAGE,
			"--redirect-mode is for --hook xdp: tc redirects to the egress of --redirect, or with --redirect-peer");
	if (r->hook == HC_HOOK_XDP && c->redirect_mode != RD_IFINDEX)
		r->conf.redirect.flags |= HC_RD_MAP;
	if (c->redirect_peer)
		r->conf.redirect.flags |= HC_RD_PEER;
	return 0;
}

/* The options given that do not apply to the hook and modes asked for. */
static int run_scope(const struct run_cli *c, unsigned long long given,
		     struct hc_err *err)
{
	const struct hc_run *r = &c->r;
	bool xdp = c->hook == HC_HOOK_XDP || c->hook == HC_HOOK_XSK;
	unsigned int where = 1u << c->hook;
	char here[96];

	if (c->hook == HC_HOOK_TC && r->tc_attach == HC_TC_CLS_BPF)
		where |= SC_CLS_BPF;
	if (c->hook == HC_HOOK_SOCKET && r->sock == HC_SOCK_UDP)
		where |= SC_UDP;
	if (xdp && r->xdp_attach == HC_XDP_NETLINK)
		where |= SC_NETLINK;
	if (!r->bare)
		where |= SC_LOGIC;
	snprintf(here, sizeof(here), "--hook %s%s%s%s%s", hc_hook_of(r)->name,
		 c->hook == HC_HOOK_TC && r->tc_attach == HC_TC_TCX ?
			 " --tc-attach tcx" :
			 "",
		 c->hook == HC_HOOK_SOCKET && r->sock == HC_SOCK_PACKET ?
			 " --socket packet" :
			 "",
		 xdp && r->xdp_attach == HC_XDP_LINK ? " --xdp-attach link" :
						       "",
		 r->bare ? " --bare" : "");
	return hc_opts_scope(run_opts, given, where, run_scopes, here, err);
}

static int parse_run(struct run_cli *c, int argc, char **argv)
{
	unsigned long long given;
	const char *pos[2];
	struct hc_err err = {};
	struct hc_conf *conf = &c->r.conf;
	int npos, i, ret;

	ret = hc_opts_parse(run_opts, c, argc, argv, pos, &npos, 1, &given,
			    &err);
	hc_json_pretty = c->pretty;
	c->r.json |= c->pretty;
	hc_json_mode = c->r.json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c->help || c->version)
		return 0;
	if (c->journal)
		hc_journal_set_dir(c->journal);
	if (c->hook < 0)
		return hc_fail(HC_EXIT_USAGE,
			       "--hook xdp|tc|socket|xsk|netfilter|cgroup is required");
	c->r.hook = c->hook;
	if (npos != 1)
		return hc_fail(HC_EXIT_USAGE,
			       "name one device: hookcmp --hook %s DEV",
			       hc_hook_of(&c->r)->name);
	c->r.dev = pos[0];
	if (strlen(c->r.dev) >= IF_NAMESIZE)
		return hc_fail(HC_EXIT_USAGE, "device name '%s' is too long",
			       c->r.dev);
	if (c->r.all_queues && c->r.queue != HC_XSK_NO_QUEUE)
		return hc_fail(HC_EXIT_USAGE,
			       "--queue and --all-queues exclude each other");
	if (c->r.bare && c->hook == HC_HOOK_XSK)
		return hc_fail(
			HC_EXIT_USAGE,
			"--hook xsk has no bare program; --parse none is its floor");
	if (run_scope(c, given, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	/* A line per 10 ms is as often as a terminal or a pipe can take. */
	if (c->r.interval > 0 && c->r.interval < 0.01)
		return hc_fail(
			HC_EXIT_USAGE,
			"--interval %g: at least 0.01 s, or 0 for the summary only",
			c->r.interval);

	conf->parse = c->parse;
	conf->def_verdict = c->action;
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
	return check_redirect_opts(c);
}

/*
 * --hook socket that has counted nothing: gen's defaults are not the
 * socket's address, so say what it needs and the gen command to send it.
 */
static void socket_hint(const struct hc_run *r, const struct hc_snap *start)
{
	struct ifaddrs *ifa, *i;
	struct hc_snap cur;
	char ip[INET_ADDRSTRLEN] = "";
	__u64 n = 0;
	__u8 mac[6] = {};
	int c;

	if (hc_run_read(r, &cur))
		return;
	for (c = 0; c < cur.ncpu; c++)
		n += cur.cpu[c] - start->cpu[c];
	if (n)
		return;
	if (r->sock == HC_SOCK_PACKET) {
		fprintf(stderr,
			"Hint: nothing reached %s in %g s: an AF_PACKET socket sees every frame the device receives, so none came\n",
			r->dev, SOCKET_HINT_SECS);
		return;
	}
	hc_dev_mac(r->dev, mac);
	if (!getifaddrs(&ifa)) {
		for (i = ifa; i && !ip[0]; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    !strcmp(i->ifa_name, r->dev))
				inet_ntop(AF_INET,
					  &((struct sockaddr_in *)i->ifa_addr)
						   ->sin_addr,
					  ip, sizeof(ip));
		freeifaddrs(ifa);
	}
	fprintf(stderr,
		"Hint: nothing reached the UDP socket on %s in %g s: it sees only frames to %02x:%02x:%02x:%02x:%02x:%02x, %s, UDP port %u: hookcmp gen PEER --dst-mac %02x:%02x:%02x:%02x:%02x:%02x --dst %s --dport %u (PEER: the device at the other end)\n",
		r->dev, SOCKET_HINT_SECS, mac[0], mac[1], mac[2], mac[3],
		mac[4], mac[5], ip[0] ? ip : "an address of its own (it has none)",
		r->port, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5],
		ip[0] ? ip : "ADDR", r->port);
}

static int run_loop(struct hc_run *r, const struct hc_snap *start)
{
	struct hc_snap prev = *start, cur;
	double next = start->t + r->interval;
	double end = r->duration > 0 ? start->t + r->duration : INFINITY;
	struct pollfd pfd = { .fd = r->sock_fd, .events = POLLIN };
	char name[IF_NAMESIZE];
	bool hinted = false;

	while (!hc_stop_sig) {
		double now = hc_now(), wake = end;
		int timeout;

		if (now >= end)
			break;
		if (r->sock_fd >= 0 && !hinted &&
		    now >= start->t + SOCKET_HINT_SECS) {
			socket_hint(r, start);
			hinted = true;
		}
		if (r->interval > 0 && now >= next) {
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
		if (r->interval > 0 && next < wake)
			wake = next;
		/* Wake at least every second to see that DEV is still there. */
		if (wake > now + 1)
			wake = now + 1;
		timeout = (int)ceil((wake - now) * 1000);
		if (poll(&pfd, pfd.fd >= 0, timeout) > 0 &&
		    (pfd.revents & POLLIN))
			hc_sock_drain(r);
		if (!if_indextoname(r->ifindex, name))
			return -ENODEV;
	}
	return hc_stop_sig ? 128 + hc_stop_sig : 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli c = {
		.parse = HC_PARSE_L4,
		.action = HC_DROP,
		.hook = -1,
		.redirect_mode = -1,
	};
	struct hc_run *r = &c.r;
	const struct hc_hook *h;
	struct hc_snap start, end;
	bool busy = false;
	char hook[32];
	int ret, err;

	hc_run_init(r);
	ret = parse_run(&c, argc, argv);
	if (ret)
		return ret;
	if (c.help) {
		hc_usage(stdout);
		return 0;
	}
	if (c.version)
		return hc_show_version(r->json);
	ret = hc_check_privileges();
	if (ret)
		return ret;
	if (!hc_jit_enabled())
		fprintf(stderr,
			"Warning: the BPF JIT is off (net.core.bpf_jit_enable=0): costs are the interpreter's\n");
	snprintf(hook, sizeof(hook), "--hook %s", hc_hook_of(r)->name);
	ret = hc_cmd_device(r->netns, r->dev, hook, &r->ifindex);
	if (ret)
		return ret;
	/* In the namespace: a port's privilege is its sysctl. */
	h = hc_hook_of(r);
	if (h->caps) {
		char who[64];

		snprintf(who, sizeof(who), "--hook %s (%s) needs more", h->name,
			 h->attach_name(r));
		ret = hc_check_caps(h->caps(r), who);
		if (ret)
			return ret;
	}

	warn_stale(r);
	libbpf_set_print(r->verbose ? libbpf_print : libbpf_quiet);
	hc_install_signals();

	r->nl = hc_nl_open(&r->err);
	if (!r->nl) {
		ret = fail_step(r, "netlink failed", -errno);
		goto out;
	}
	/*
	 * Without -n we run where the caller is, and their own session most
	 * likely leaves through the default route: do not cut it by accident.
	 */
	if (!r->force && !r->netns &&
	    !hc_nl_default_route_via(r->nl, r->ifindex, &busy, NULL) && busy) {
		ret = hc_fail(
			HC_EXIT_USAGE,
			"%s holds this namespace's default route: hookcmp could cut you off (ssh). --force attaches anyway; add --duration SEC as a dead-man's timer",
			r->dev);
		goto out;
	}
	if (r->redirect_dev) {
		char warn[256];

		err = hc_redirect_check(r, warn, sizeof(warn));
		if (err == -ENODEV || err == -EINVAL) {
			ret = hc_fail(HC_EXIT_USAGE, "%s", r->err.msg);
			goto out;
		}
		if (err) {
			ret = fail_step(r, "redirect target lookup failed",
					err);
			goto out;
		}
		if (warn[0])
			fprintf(stderr, "Warning: %s\n", warn);
	}
	err = hc_fault(&r->err, "load") ?: h->load(r);
	if (err) {
		ret = fail_step(r, "load failed", err);
		goto out;
	}
	if (hc_stop_sig) {
		ret = 128 + hc_stop_sig;
		goto out;
	}
	/*
	 * The map is new at load, so the totals start from zero and also hold
	 * what arrives between attach and the first read.
	 */
	memset(&start, 0, sizeof(start));
	start.t = hc_now();
	err = h->attach(r);
	if (err) {
		ret = fail_step(r, "attach failed", err);
		goto out;
	}
	err = hc_fault(&r->err, "run");
	if (err) {
		ret = fail_step(r, "run failed", err);
		goto out;
	}
	if (r->foreign_id)
		fprintf(stderr,
			"Warning: --replace: XDP program %u gave its place on %s to ours; it goes back when hookcmp stops\n",
			r->foreign_id, r->dev);
	if (r->shared_with)
		fprintf(stderr,
			"hookcmp: the %s on %s is hookcmp %d's too: the last of us to stop removes it\n",
			h->attach_name(r), r->dev, r->shared_with);
	if (!hc_stop_sig)
		fprintf(stderr,
			"hookcmp: %s (%s) attached to %s, prog id %u%s%s%s%s; Ctrl-C stops\n",
			h->name, h->attach_name(r), r->dev, r->prog_id,
			r->redirect_dev ? ", redirecting to " : "",
			r->redirect_dev ?: "", r->redirect_dev ? " via " : "",
			r->redirect_dev ? hc_redirect_via(r) : "");
	ret = run_loop(r, &start);
	if (ret == -ENODEV) {
		/* The counts stay; what was attached is followed after. */
		fprintf(stderr,
			"Error: %s (%s %s) disappeared while hookcmp ran on it (deleted, or moved to another namespace)\n",
			r->dev, h->name, h->attach_name(r));
		ret = HC_EXIT_FAIL;
	}

	/* Totals come after detach, so they hold every packet we counted. */
	detach(r);
	err = hc_run_read(r, &end);
	if (err)
		ret = fail_step(r, "reading counters failed", err);
	else
		hc_stats_summary(r, &start, &end);
out:
	detach(r);
	hc_prog_unload(r);
	if (follow(r) && !ret)
		ret = HC_EXIT_FAIL;
	hc_nl_close(r->nl);
	return ret;
}

