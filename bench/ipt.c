// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <unistd.h>
#include "exec.h"
#include "ipt.h"

#define IPSET_TRIES 50 /* 20 ms apart: a second for a set still in use */

bool hc_ipt_raw_exists(int nsfd)
{
	static const char *const argv[] = { "nft", "list", "table",
					    "ip",  "raw",  NULL };
	struct hc_err err = {};
	char out[64];

	return !hc_exec(nsfd, argv, out, sizeof(out), &err);
}

int hc_ipt_rule(int nsfd, bool add, const char *dev, const char *tag,
		struct hc_err *err)
{
	const char *argv[] = { "iptables",   "-t",	  "raw", "-D",
			       "PREROUTING", "-i",	  dev,	 "-m",
			       "comment",    "--comment", tag,	 "-j",
			       "DROP",	     NULL,	  NULL };

	if (add) {
		/* -I PREROUTING 1: before anyone else's rules. */
		memmove(&argv[5], &argv[4], 10 * sizeof(argv[0]));
		argv[3] = "-I";
		argv[5] = "1";
	}
	return hc_exec(nsfd, argv, NULL, 0, err);
}

void hc_ipt_put(int nsfd, const char *dev, const char *tag, unsigned int made)
{
	const char *jump[] = { "iptables", "-t", "raw", "-D",	   "PREROUTING",
			       "-i",	   dev,	 "-m",	"comment", "--comment",
			       tag,	   "-j", tag,	NULL };
	const char *flush[] = { "iptables", "-t", "raw", "-F", tag, NULL };
	const char *del[] = { "iptables", "-t", "raw", "-X", tag, NULL };
	const char *match[] = { "iptables", "-t",  "raw", "-D",	  "PREROUTING",
				"-i",	    dev,   "-m",  "set",  "--match-set",
				tag,	    "src", "-j",  "DROP", NULL };
	const char *destroy[] = { "ipset", "destroy", tag, NULL };
	struct hc_err err = {};
	int i;

	/* The jump first: a chain in use cannot go. */
	if (made & HC_IPT_CHAIN)
		hc_exec(nsfd, jump, NULL, 0, &err);
	hc_ipt_rule(nsfd, false, dev, tag, &err);
	if (made & HC_IPT_CHAIN) {
		hc_exec(nsfd, flush, NULL, 0, &err);
		hc_exec(nsfd, del, NULL, 0, &err);
	}
	if (made & HC_IPT_SET)
		hc_exec(nsfd, match, NULL, 0, &err);
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

void hc_ipt_raw_put(int nsfd)
{
	static const char *const list[] = { "iptables", "-t", "raw", "-S",
					    NULL };
	static const char *const del[] = { "nft", "delete", "table",
					   "ip",  "raw",    NULL };
	struct hc_err err = {};
	char out[4096];

	/* Policies only ("-P ..."): no rule or chain of anyone's in it. */
	if (hc_exec(nsfd, list, out, sizeof(out), &err) || strstr(out, "-A ") ||
	    strstr(out, "-N "))
		return;
	hc_exec(nsfd, del, NULL, 0, &err);
}
