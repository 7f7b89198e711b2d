// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp cleanup and status: what the journal says hookcmp attached, and
 * removing what a dead hookcmp left, each piece only after checking that
 * it is still the one hookcmp attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include "cmd.h"
#include "journal.h"
#include "nl.h"
#include "opts.h"
#include "qdisc.h"

struct clean_cli {
	bool all, help;
};

static const struct hc_opt clean_opts[] = {
	{ "all", 'a', HC_OPT_FLAG, offsetof(struct clean_cli, all), NULL,
	  "every device (cleanup needs DEV or --all)" },
	{ "help", 'h', HC_OPT_FLAG, offsetof(struct clean_cli, help), NULL,
	  "show this help" },
	{}
};

static void describe(const struct hc_jrec *j, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s", hc_jkind_names[j->kind]);

	if (j->kind == HC_J_QDISC)
		snprintf(buf + n, size - n, " %s%s", j->mode,
			 j->done ? "" : " (not created yet)");
	else if (j->kind == HC_J_XDP)
		snprintf(buf + n, size - n, " %s program %u", j->mode,
			 j->prog_id);
	else
		snprintf(buf + n, size - n, " prio %u handle %#x program %u",
			 j->prio, j->handle, j->prog_id);
	n = strlen(buf);
	snprintf(buf + n, size - n, " on %s%s%s", j->dev,
		 j->netns[0] ? " in netns " : "", j->netns);
}

/* Undoes one record of a dead hookcmp; says what it did. */
static int clean_one(const struct hc_jrec *j, int home)
{
	struct hc_filter f = { .ifindex = j->ifindex,
			       .prio = j->prio,
			       .handle = j->handle,
			       .parent = TC_H_MAKE(TC_H_CLSACT,
						   TC_H_MIN_INGRESS) };
	struct hc_link_info li;
	struct hc_err err = {};
	struct hc_nl *nl = NULL;
	char what[200];
	int ret = 0, fd;
	__u32 id;

	describe(j, what, sizeof(what));
	if (j->netns[0] ? hc_enter_netns(j->netns, &err) :
			  (hc_netns_ino() != j->netns_ino ? -EXDEV : 0)) {
		printf("%s: its network namespace is gone or elsewhere; %s\n",
		       what,
		       j->netns[0] ? "nothing left to undo" :
				     "run cleanup from that namespace");
		return j->netns[0] ? 0 : -EXDEV;
	}
	if ((int)if_nametoindex(j->dev) != j->ifindex) {
		printf("%s: the device is gone, and what was on it\n", what);
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
			printf("%s: left alone, the device runs %s %u now\n",
			       what, id ? "program" : "no program", id);
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
			printf("%s: detached\n", what);
		break;
	case HC_J_FILTER:
		ret = hc_filter_detach(nl, &f, j->prog_id, &err);
		if (!ret)
			printf("%s: deleted\n", what);
		else if (ret == -EEXIST || ret == -ENOENT)
			printf("%s: left alone: %s\n", what,
			       ret == -ENOENT ? "no such filter any more" :
						err.msg);
		if (ret == -EEXIST || ret == -ENOENT)
			ret = 0;
		break;
	case HC_J_QDISC:
		if (!j->done) {
			printf("%s: never created by hookcmp, left alone\n",
			       what);
			break;
		}
		ret = hc_qdisc_put(nl, j->ifindex, j->mode, &err);
		if (!ret)
			printf("%s: deleted\n", what);
		else if (ret == -EBUSY)
			printf("%s: left alone: %s\n", what, err.msg);
		if (ret == -EBUSY || ret == -ENOENT || ret == -EINVAL)
			ret = 0;
		break;
	default:
		break;
	}
	if (ret)
		printf("%s: could not undo: %s%s%s\n", what, strerror(-ret),
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

int cmd_cleanup(int argc, char **argv)
{
	struct clean_cli c = {};
	struct hc_err err = {};
	struct hc_jrec *recs;
	const char *pos[1], *dev;
	int npos, n, i, ret, home, left = 0, done = 0;

	ret = hc_opts_parse(clean_opts, &c, argc, argv, pos, &npos, 1, &err);
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c.help) {
		printf("Usage: hookcmp cleanup DEV | --all\n\n"
		       "Removes what a hookcmp that died (kill -9, a crash) left attached,\n"
		       "from the journal in " HC_RUN_DIR
		       ", each piece only if it is still ours.\n\n");
		hc_opts_help(stdout, clean_opts);
		return 0;
	}
	if (!!npos == c.all)
		return hc_fail(HC_EXIT_USAGE, "name one device, or --all");
	dev = npos ? pos[0] : NULL;
	ret = hc_check_privileges();
	if (ret)
		return ret;
	ret = list_records(&recs, &n);
	if (ret)
		return ret;
	home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < n; i++) {
		if (dev && strcmp(recs[i].dev, dev))
			continue;
		if (hc_journal_alive(&recs[i])) {
			printf("%s: hookcmp %d still runs it; stop that instead\n",
			       recs[i].dev, recs[i].pid);
			continue;
		}
		ret = clean_one(&recs[i], home);
		if (ret && ret != -EXDEV)
			left++;
		else if (!ret)
			hc_journal_del(&recs[i]);
		done++;
	}
	close(home);
	free(recs);
	if (!done)
		printf("nothing to clean up%s%s\n", dev ? " on " : "",
		       dev ? dev : "");
	return left ? HC_EXIT_FAIL : 0;
}

int cmd_status(int argc, char **argv)
{
	struct clean_cli c = {};
	struct hc_err err = {};
	struct hc_jrec *recs;
	const char *pos[1], *dev;
	char what[200];
	int npos, n, i, ret, shown = 0;

	ret = hc_opts_parse(clean_opts + 1, &c, argc, argv, pos, &npos, 1,
			    &err);
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c.help) {
		printf("Usage: hookcmp status [DEV]\n\n"
		       "What hookcmp has attached now, and what a dead hookcmp left.\n");
		return 0;
	}
	dev = npos ? pos[0] : NULL;
	ret = list_records(&recs, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		bool alive = hc_journal_alive(&recs[i]);

		if (dev && strcmp(recs[i].dev, dev))
			continue;
		describe(&recs[i], what, sizeof(what));
		printf("%s: %s by hookcmp %d%s\n", what,
		       alive ? "attached" : "STALE, left", recs[i].pid,
		       alive ? "" : " (run: hookcmp cleanup --all)");
		shown++;
	}
	free(recs);
	if (!shown)
		printf("hookcmp has nothing attached%s%s\n", dev ? " to " : "",
		       dev ? dev : "");
	return 0;
}
