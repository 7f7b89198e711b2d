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
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include "cmd.h"
#include "ethtool.h"
#include "exec.h"
#include "ipt.h"
#include "json.h"
#include "journal.h"
#include "nl.h"
#include "opts.h"
#include "qdisc.h"

struct clean_cli {
	bool all, json, help;
	const char *netns;
};

#define C(f) offsetof(struct clean_cli, f)

static const struct hc_opt clean_opts[] = {
	{ "all", 'a', HC_OPT_FLAG, C(all), NULL,
	  "every device (cleanup needs DEV or --all)" },
	{ "netns", 'n', HC_OPT_STR, C(netns), "NAME",
	  "only what was attached in network namespace NAME" },
	{ "json", 'j', HC_OPT_FLAG, C(json), NULL,
	  "one JSON object per record" },
	{ "help", 'h', HC_OPT_FLAG, C(help), NULL, "show this help" },
	{}
};

/* Which records a command acts on: DEV, and -n NAME. */
struct select {
	const char *dev, *netns;
	__u64 ino; /* NAME's inode, if it still exists */
};

static void select_init(struct select *s, const char *dev, const char *netns)
{
	char path[256];
	struct stat st;

	s->dev = dev;
	s->netns = netns;
	s->ino = 0;
	snprintf(path, sizeof(path), "/run/netns/%s", netns ? netns : "");
	if (netns && !strchr(netns, '/') && !stat(path, &st))
		s->ino = st.st_ino;
}

/*
 * A record made with -n NAME, or from inside NAME (ip netns exec), is in
 * NAME.
 */
static bool selected(const struct select *s, const struct hc_jrec *j)
{
	if (s->dev && strcmp(j->dev, s->dev))
		return false;
	return !s->netns || !strcmp(j->netns, s->netns) ||
	       (s->ino && j->netns_ino == s->ino);
}

static void ns_label(const struct hc_jrec *j, char *buf, size_t size)
{
	if (j->netns[0])
		snprintf(buf, size, "'%s'", j->netns);
	else
		snprintf(buf, size, "inode %llu",
			 (unsigned long long)j->netns_ino);
}

/* One JSON object per record, with what became of it. */
static void json_record(const struct hc_jrec *j, const char *state,
			const char *detail)
{
	struct hc_json w = { .f = stdout };

	jw_open(&w, NULL, '{');
	jw_str(&w, "type", "record");
	jw_str(&w, "kind", hc_jkind_names[j->kind]);
	jw_str(&w, "dev", j->dev);
	jw_u64(&w, "ifindex", j->ifindex);
	jw_str(&w, "netns", j->netns);
	jw_u64(&w, "netns_ino", j->netns_ino);
	jw_str(&w, "mode", j->mode);
	if (j->kind != HC_J_QDISC)
		jw_u64(&w, "prog_id", j->prog_id);
	if (j->kind == HC_J_FILTER) {
		jw_u64(&w, "prio", j->prio);
		jw_u64(&w, "handle", j->handle);
	}
	jw_u64(&w, "pid", j->pid);
	jw_str(&w, "state", state);
	if (detail)
		jw_str(&w, "detail", detail);
	jw_close(&w, '}');
}

static void describe(const struct hc_jrec *j, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s", hc_jkind_names[j->kind]);

	if (j->kind == HC_J_QDISC)
		snprintf(buf + n, size - n, " %s%s", j->mode,
			 j->done ? "" : " (not created yet)");
	else if (j->kind == HC_J_XDP)
		snprintf(buf + n, size - n, " %s program %u", j->mode,
			 j->prog_id);
	else if (j->kind == HC_J_FILTER && !strcmp(j->mode, "u32"))
		snprintf(buf + n, size - n, " u32 prio %u handle %#x", j->prio,
			 j->handle);
	else if (j->kind == HC_J_FILTER)
		snprintf(buf + n, size - n, " prio %u handle %#x program %u",
			 j->prio, j->handle, j->prog_id);
	else if (j->kind == HC_J_CHANNELS)
		snprintf(buf + n, size - n, " (was rx %u tx %u combined %u)",
			 j->val[0], j->val[1], j->val[2]);
	else if (j->kind == HC_J_GRO || j->kind == HC_J_THREADED)
		snprintf(buf + n, size - n, " (was %s)",
			 j->val[0] ? "on" : "off");
	else
		snprintf(buf + n, size - n, " %s", j->mode);
	n = strlen(buf);
	snprintf(buf + n, size - n, " on %s%s%s", j->dev,
		 j->netns[0] ? " in netns " : "", j->netns);
}

/* "WHAT: DETAIL" in text; in JSON the record with its state and detail. */
static void say(const struct hc_jrec *j, bool json, const char *state,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void say(const struct hc_jrec *j, bool json, const char *state,
		const char *fmt, ...)
{
	char what[200], detail[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (json)
		return json_record(j, state, detail);
	describe(j, what, sizeof(what));
	printf("%s: %s\n", what, detail);
}

/* bench's iptables rule and nft table, by the name the record keeps. */
static int clean_rule(const struct hc_jrec *j)
{
	char cmd[64];
	const char *nft[] = { "nft", cmd, NULL };
	struct hc_err err = {};

	/* Gone already is as good as deleted: nothing else has its name. */
	if (j->kind == HC_J_IPT) {
		hc_ipt_rule(-1, false, j->dev, j->mode, &err);
		if (j->val[0])
			hc_ipt_raw_put(-1);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "delete table netdev %s", j->mode);
	hc_exec(-1, nft, NULL, 0, &err);
	return 0;
}

/* Undoes one record of a dead hookcmp; says what it did. */
static int clean_one(const struct hc_jrec *j, int home, bool json)
{
	struct hc_filter f = { .ifindex = j->ifindex,
			       .prio = j->prio,
			       .handle = j->handle,
			       .parent = TC_H_MAKE(TC_H_CLSACT,
						   TC_H_MIN_INGRESS) };
	struct hc_link_info li;
	struct hc_err err = {};
	struct hc_nl *nl = NULL;
	int ret = 0, fd;
	__u32 id;

	if (j->netns[0] ? hc_enter_netns(j->netns, &err) :
			  (hc_netns_ino() != j->netns_ino ? -EXDEV : 0)) {
		say(j, json, j->netns[0] ? "gone" : "elsewhere",
		    "its network namespace is gone or elsewhere; %s",
		    j->netns[0] ? "nothing left to undo" :
				  "run cleanup from that namespace");
		return j->netns[0] ? 0 : -EXDEV;
	}
	if ((int)if_nametoindex(j->dev) != j->ifindex) {
		say(j, json, "gone", "the device is gone, and what was on it");
		goto out;
	}
	nl = hc_nl_open(&err);
	if (!nl) {
		ret = -errno;
		goto out;
	}
	switch (j->kind) {
	case HC_J_XDP:
		ret = hc_nl_link_get(nl, j->ifindex, &li, &err);
		if (ret)
			break;
		id = !strcmp(j->mode, "native") ? li.drv_id : li.skb_id;
		if (id != j->prog_id) {
			say(j, json, "left alone",
			    "left alone, the device runs %s %u now",
			    id ? "program" : "no program", id);
			break;
		}
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0) {
			ret = -errno;
			break;
		}
		ret = hc_nl_xdp_set(nl, j->ifindex, -1, fd,
				    XDP_FLAGS_REPLACE |
					    (!strcmp(j->mode, "native") ?
						     XDP_FLAGS_DRV_MODE :
						     XDP_FLAGS_SKB_MODE),
				    &err);
		close(fd);
		if (!ret)
			say(j, json, "detached", "detached");
		break;
	case HC_J_FILTER:
		if (!strcmp(j->mode, "u32")) {
			char kind[32];

			f.kind = "u32";
			ret = hc_nl_filter_kind_at(nl, &f, kind, sizeof(kind),
						   &err);
			if (!ret && strcmp(kind, "u32"))
				ret = -ENOENT;
			ret = ret ?: hc_nl_filter_del(nl, &f, &err);
		} else {
			ret = hc_filter_detach(nl, &f, j->prog_id, &err);
		}
		if (!ret)
			say(j, json, "deleted", "deleted");
		else if (ret == -EEXIST || ret == -ENOENT)
			say(j, json, "left alone", "left alone: %s",
			    ret == -ENOENT ? "no such filter any more" :
					     err.msg);
		if (ret == -EEXIST || ret == -ENOENT)
			ret = 0;
		break;
	case HC_J_QDISC:
		if (!j->done) {
			say(j, json, "left alone",
			    "never created by hookcmp, left alone");
			break;
		}
		ret = hc_qdisc_put(nl, j->ifindex, j->mode, &err);
		if (!ret)
			say(j, json, "deleted", "deleted");
		else if (ret == -EBUSY)
			say(j, json, "left alone", "left alone: %s", err.msg);
		if (ret == -EBUSY || ret == -ENOENT || ret == -EINVAL)
			ret = 0;
		break;
	case HC_J_IPT:
	case HC_J_NFT:
		ret = clean_rule(j);
		if (!ret)
			say(j, json, "deleted", "deleted");
		break;
	case HC_J_GRO:
	case HC_J_THREADED:
	case HC_J_CHANNELS:
		/* threaded is in /sys/class/net: that of this namespace. */
		ret = (j->kind == HC_J_THREADED ? hc_sysfs_here() : 0) ?:
			      hc_tune_restore(j);
		if (!ret)
			say(j, json, "restored", "put back");
		break;
	case HC_J_LINK:
		/* The veth pair bench made: its name still has its ifindex. */
		ret = hc_nl_link_del(nl, j->ifindex, &err);
		if (!ret)
			say(j, json, "deleted", "deleted");
		break;
	default:
		break;
	}
	if (ret)
		say(j, json, "failed", "could not undo: %s%s%s", strerror(-ret),
		    err.kernel[0] ? ". Kernel: " : "", err.kernel);
out:
	hc_nl_close(nl);
	setns(home, CLONE_NEWNET);
	return ret;
}

static int list_records(struct hc_jrec **recs, int *n)
{
	int ret = hc_journal_list(recs, n);

	if (ret)
		return hc_fail(HC_EXIT_FAIL, "reading %s: %s", HC_RUN_DIR,
			       strerror(-ret));
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
			    recs[k].netns_ino == recs[i].netns_ino)
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

	ret = hc_opts_parse(opts, c, argc, argv, pos, &npos, 1, &err);
	hc_json_mode = c->json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	*dev = npos ? pos[0] : NULL;
	return 0;
}

int cmd_cleanup(int argc, char **argv)
{
	struct clean_cli c = {};
	struct select sel;
	struct hc_jrec *recs;
	const char *dev;
	int n, i, ret, home, left = 0, done = 0;

	ret = parse_clean(&c, clean_opts, argc, argv, &dev);
	if (ret)
		return ret;
	if (c.help) {
		printf("Usage: hookcmp [-n NETNS] [-j] cleanup DEV | --all\n\n"
		       "Removes what a hookcmp that died (kill -9, a crash) left attached,\n"
		       "from the journal in " HC_RUN_DIR
		       ", each piece only if it is still ours.\n\n");
		hc_opts_help(stdout, clean_opts);
		return 0;
	}
	if (!!dev == c.all)
		return hc_fail(HC_EXIT_USAGE, "name one device, or --all");
	ret = hc_check_privileges();
	if (ret)
		return ret;
	ret = list_records(&recs, &n);
	if (ret)
		return ret;
	select_init(&sel, dev, c.netns);
	ret = check_one_netns(&sel, recs, n);
	if (ret)
		goto out;
	home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < n; i++) {
		if (!selected(&sel, &recs[i]))
			continue;
		if (hc_journal_alive(&recs[i])) {
			say(&recs[i], c.json, "attached",
			    "hookcmp %d still runs it; stop that instead",
			    recs[i].pid);
			continue;
		}
		ret = clean_one(&recs[i], home, c.json);
		if (ret && ret != -EXDEV)
			left++;
		else if (!ret)
			hc_journal_del(&recs[i]);
		done++;
	}
	close(home);
	if (!done && !c.json)
		printf("nothing to clean up%s%s%s%s\n", dev ? " on " : "",
		       dev ? dev : "", c.netns ? " in netns " : "",
		       c.netns ? c.netns : "");
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
	int n, i, ret, shown = 0;

	ret = parse_clean(&c, clean_opts + 1, argc, argv, &dev);
	if (ret)
		return ret;
	if (c.help) {
		printf("Usage: hookcmp [-n NETNS] [-j] status [DEV]\n\n"
		       "What hookcmp has attached now, and what a dead hookcmp left.\n\n");
		hc_opts_help(stdout, clean_opts + 1);
		return 0;
	}
	ret = list_records(&recs, &n);
	if (ret)
		return ret;
	select_init(&sel, dev, c.netns);
	for (i = 0; i < n; i++) {
		bool alive = hc_journal_alive(&recs[i]);

		if (!selected(&sel, &recs[i]))
			continue;
		if (alive)
			say(&recs[i], c.json, "attached",
			    "attached by hookcmp %d", recs[i].pid);
		else
			say(&recs[i], c.json, "stale",
			    "STALE, left by hookcmp %d (run: hookcmp%s%s cleanup %s)",
			    recs[i].pid, recs[i].netns[0] ? " -n " : "",
			    recs[i].netns, recs[i].dev);
		shown++;
	}
	free(recs);
	if (!shown && !c.json)
		printf("hookcmp has nothing attached%s%s\n", dev ? " to " : "",
		       dev ? dev : "");
	return 0;
}
