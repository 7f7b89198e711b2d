// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp prog-run: every program variant on the same packet under
 * BPF_PROG_RUN, with the kernel's own ns per run. This is the program's
 * cost without any hook path around it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "hooks.h"
#include "opts.h"
#include "pkt.h"
#include "print.h"
#include "rules.h"
#include "set.h"

struct progrun_cli {
	__u32 repeat;
	const char *netns, *rules_file;
	bool json, pretty, help;
};

static const struct hc_opt progrun_opts[] = {
	{ "repeat", 0, HC_OPT_U32, offsetof(struct progrun_cli, repeat), "N",
	  "runs per variant (default 10000000)", NULL, 1, 0xffffffff },
	{ "rules-file", 0, HC_OPT_STR, offsetof(struct progrun_cli, rules_file),
	  "FILE",
	  "every program with this set (run's format), at the depths that can evaluate it" },
	HC_OPT_NETNS(offsetof(struct progrun_cli, netns),
		     "run inside network namespace NAME"),
	HC_OPT_PRETTY(offsetof(struct progrun_cli, pretty)),
	HC_OPT_JSON(offsetof(struct progrun_cli, json),
		    "one JSON object per variant"),
	HC_OPT_HELP(offsetof(struct progrun_cli, help)),
	{}
};

/* A variant at one parse depth: a line of the table, or an object. */
static void progrun_print(struct hc_pr *p, const char *name, const char *depth,
			  __u32 repeat, __u32 ns, __u32 retval)
{
	hc_pr_open(p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(p, HC_PR_JSON, "type", NULL, "prog_run");
	hc_pr_fstr(p, HC_PR_ALL, "program", "%-14s ", name);
	hc_pr_fstr(p, HC_PR_ALL, "parse", "%-6s ", depth);
	hc_pr_fu64(p, HC_PR_JSON, "repeat", NULL, repeat);
	hc_pr_fu64(p, HC_PR_JSON, "retval", NULL, retval);
	hc_pr_fu64(p, HC_PR_ALL, "ns_per_run", "%10llu\n", ns);
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* What every variant runs on: the frame, how often, the set if any. */
struct progrun_job {
	__u32 repeat;
	const char *rules_file;
	struct hc_set *set;
	int d0; /* the first parse depth: -1 the bare program, or the set's */
	struct hc_pkt_layout lo;
	__u8 frame[HC_PKT_MAX];
};

static void progrun_usage(void)
{
	printf("Usage: hookcmp prog-run [OPTIONS]\n\n");
	hc_opts_help(stdout, progrun_opts, NULL);
	printf("\nEvery hook's program, bare and at each parse depth; netfilter's at\n"
	       "PRE_ROUTING, with Linux 6.4 or newer. xsk has no row: its cost is the\n"
	       "AF_XDP ring and the logic in userspace behind it, which BPF_PROG_RUN\n"
	       "cannot run (its XDP program only hands frames to the socket).\n");
}

/* The options into c, --rules-file's set into j: 0, or an exit code. */
static int progrun_parse(struct progrun_cli *c, struct progrun_job *j, int argc,
			 char **argv)
{
	struct hc_err err = {};
	const char *pos[1];
	int npos, ret;

	ret = hc_opts_parse(progrun_opts, c, argc, argv, pos, &npos, 0, NULL,
			    &err);
	hc_json_pretty = c->pretty;
	c->json |= c->pretty;
	hc_json_mode = c->json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c->help) {
		progrun_usage();
		return 0;
	}
	j->repeat = c->repeat;
	j->rules_file = c->rules_file;
	if (!c->rules_file)
		return 0;
	j->set = hc_set_new();
	ret = j->set ? hc_set_read(j->set, c->rules_file, &err) : -ENOMEM;
	if (ret == -ENOMEM)
		return hc_fail(HC_EXIT_FAIL, "--rules-file: %s",
			       strerror(ENOMEM));
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "--rules-file %s", err.msg);
	/* No bare row, nor a depth too shallow for the set. */
	j->d0 = hc_set_depth(j->set);
	return 0;
}

/*
 * Variant v at depth d (-1: the bare program) on the frame, repeat times
 * under BPF_PROG_RUN: 0 with the kernel's ns per run and the program's
 * return value, or -errno with why in *why when the hook knows.
 */
static int progrun_one(const struct progrun_job *j, const struct hc_variant *v,
		       int d, __u32 *ns, __u32 *retval, struct hc_err *why)
{
	struct hc_run r;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = j->frame,
		    .data_size_in = j->lo.len, .repeat = j->repeat);
	struct hc_err err = {};
	__u8 ctx[64];
	__u32 ctx_size = sizeof(ctx);
	int ret;

	ret = hc_run_of(&r, v->hook, v->args, &err);
	if (!ret && r.hook->prog_run_ctx) {
		ret = r.hook->prog_run_ctx(j->frame, j->lo.len, ctx, &ctx_size);
		opts.ctx_in = ctx;
		opts.ctx_size_in = ctx_size;
	}
	r.bare = d < 0;
	r.conf.parse = d < 0 ? 0 : d;
	r.conf.def_verdict = HC_DROP;
	r.set = j->set;
	r.conf.sets = hc_set_bits(j->set);

	ret = ret ?: r.hook->load(&r);
	if (!ret && bpf_prog_test_run_opts(r.prog_fd, &opts))
		ret = -errno;
	*why = r.err;
	hc_prog_unload(&r);
	*ns = opts.duration;
	*retval = opts.retval;
	return ret;
}

/*
 * Every variant at every depth, a row each as it ran: 0, or an exit code
 * after saying why. A hook this kernel lacks: its rows left out, said.
 */
static int progrun_all(struct hc_pr *p, const struct progrun_job *j)
{
	struct hc_variant var[HC_MAX_VARIANTS];
	int d, v, ret, nvar = hc_variants(var, HC_MAX_VARIANTS);
	__u32 ns, retval;
	struct hc_err why;

	hc_pr_text(
		p,
		"%-14s %-6s %10s  (a %u-byte UDP/IPv4 frame from 198.18.0.1, %u runs each%s%s)\n",
		"program", "parse", "ns/run", j->lo.len, j->repeat,
		j->set ? ", the set of " : "", j->set ? j->rules_file : "");
	hc_pr_open(p, HC_PR_JSON, NULL, '[');
	for (v = 0; v < nvar; v++) {
		/* d == -1 is the bare program */
		for (d = j->d0; d <= HC_PARSE_L4; d++) {
			const char *depth = d < 0 ? "bare" : hc_parse_names[d];

			ret = progrun_one(j, &var[v], d, &ns, &retval, &why);
			if (ret == -EOPNOTSUPP && why.msg[0]) {
				fprintf(stderr, "prog-run %s: left out: %s\n",
					var[v].name, why.msg);
				break;
			}
			if (ret)
				return hc_fail(
					HC_EXIT_FAIL, "prog-run %s %s: %s",
					var[v].name, depth, strerror(-ret));
			progrun_print(p, var[v].name, depth, j->repeat, ns,
				      retval);
		}
	}
	hc_pr_close(p, HC_PR_JSON, ']');
	return 0;
}

int cmd_progrun(int argc, char **argv)
{
	struct progrun_cli c = { .repeat = 10000000 };
	struct hc_pkt_spec spec = { .proto = 17,
				    .sport = 1024,
				    .dport = 9,
				    .size = HC_PKT_MIN,
				    .dst_mac = { 2, 0, 0, 0, 0, 2 },
				    .src_mac = { 2, 0, 0, 0, 0, 1 } };
	struct progrun_job j = { .d0 = -1 };
	struct hc_pr p = HC_PR_INIT(0, stdout);
	char *doc = NULL;
	size_t len = 0;
	int ret;

	ret = progrun_parse(&c, &j, argc, argv);
	if (ret || c.help)
		goto out;
	ret = hc_check_privileges() ?: hc_cmd_netns(c.netns);
	if (ret)
		goto out;
	libbpf_set_print(NULL);
	inet_pton(AF_INET, "198.18.0.1", &spec.src4);
	inet_pton(AF_INET, "198.18.0.2", &spec.dst4);
	hc_pkt_build(&spec, j.frame, &j.lo);
	/*
	 * Text a row at a time as each ran; JSON one document, once every
	 * program ran: an error is one too, alone.
	 */
	p.mode = c.json ? HC_PR_JSON : HC_PR_TEXT;
	if (c.json)
		p.f = p.j.f = open_memstream(&doc, &len);
	if (!p.f) {
		ret = hc_fail(HC_EXIT_FAIL, "prog-run: %s", strerror(errno));
		goto out;
	}
	ret = progrun_all(&p, &j);
	if (c.json) {
		fclose(p.f);
		if (!ret)
			fwrite(doc, 1, len, stdout);
		free(doc);
	}
out:
	hc_set_free(j.set);
	return ret;
}
