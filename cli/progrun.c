// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp prog-run: every program variant on the same packet under
 * BPF_PROG_RUN, with the kernel's own ns per run. This is the program's
 * cost without any hook path around it.
 */
#include <errno.h>
#include <stdio.h>
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

int cmd_progrun(int argc, char **argv)
{
	struct progrun_cli c = { .repeat = 10000000 };
	struct hc_pkt_spec spec = { .proto = 17,
				    .sport = 1024,
				    .dport = 9,
				    .size = HC_PKT_MIN,
				    .dst_mac = { 2, 0, 0, 0, 0, 2 },
				    .src_mac = { 2, 0, 0, 0, 0, 1 } };
	struct hc_pkt_layout lo;
	struct hc_err err = {};
	__u32 ns[HC_MAX_VARIANTS][HC_PARSE_L4 + 2];
	__u32 rv[HC_MAX_VARIANTS][HC_PARSE_L4 + 2];
	struct hc_variant var[HC_MAX_VARIANTS];
	bool skip[HC_MAX_VARIANTS] = {};
	struct hc_pr p = HC_PR_INIT(0, stdout);
	__u8 frame[HC_PKT_MAX];
	const char *pos[1];
	struct hc_set *set = NULL;
	int npos, ret, d, d0 = -1, v, nvar = hc_variants(var, HC_MAX_VARIANTS);

	ret = hc_opts_parse(progrun_opts, &c, argc, argv, pos, &npos, 0, NULL,
			    &err);
	hc_json_pretty = c.pretty;
	c.json |= c.pretty;
	hc_json_mode = c.json;
	p.mode = c.json ? HC_PR_JSON : HC_PR_TEXT;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c.help) {
		printf("Usage: hookcmp prog-run [OPTIONS]\n\n");
		hc_opts_help(stdout, progrun_opts, NULL);
		printf("\nEvery hook's program, bare and at each parse depth; netfilter's at\n"
		       "PRE_ROUTING, with Linux 6.4 or newer. xsk has no row: its cost is the\n"
		       "AF_XDP ring and the logic in userspace behind it, which BPF_PROG_RUN\n"
		       "cannot run (its XDP program only hands frames to the socket).\n");
		return 0;
	}
	if (c.rules_file) {
		set = hc_set_new();
		ret = set ? hc_set_read(set, c.rules_file, &err) : -ENOMEM;
		if (ret == -ENOMEM)
			return hc_fail(HC_EXIT_FAIL, "--rules-file: %s",
				       strerror(ENOMEM));
		if (ret)
			return hc_fail(HC_EXIT_USAGE, "--rules-file %s",
				       err.msg);
		/* No bare row, nor a depth too shallow for the set. */
		d0 = hc_set_depth(set);
	}
	ret = hc_check_privileges() ?: hc_cmd_netns(c.netns);
	if (ret) {
		hc_set_free(set);
		return ret;
	}
	libbpf_set_print(NULL);
	inet_pton(AF_INET, "198.18.0.1", &spec.src4);
	inet_pton(AF_INET, "198.18.0.2", &spec.dst4);
	hc_pkt_build(&spec, frame, &lo);
	if (!c.json)
		printf("%-14s %-6s %10s  (a %u-byte UDP/IPv4 frame from 198.18.0.1, %u runs each%s%s)\n",
		       "program", "parse", "ns/run", lo.len, c.repeat,
		       set ? ", the set of " : "", set ? c.rules_file : "");

	for (v = 0; v < nvar; v++) {
		/* d == -1 is the bare program */
		for (d = d0; d <= HC_PARSE_L4; d++) {
			struct hc_run r;
			LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
				    .data_size_in = lo.len, .repeat = c.repeat);
			const char *depth = d < 0 ? "bare" : hc_parse_names[d];
			__u8 ctx[64];
			__u32 ctx_size = sizeof(ctx);

			ret = hc_run_of(&r, var[v].hook, var[v].args, &err);
			if (!ret && r.hook->prog_run_ctx) {
				ret = r.hook->prog_run_ctx(frame, lo.len, ctx,
							   &ctx_size);
				opts.ctx_in = ctx;
				opts.ctx_size_in = ctx_size;
			}
			r.bare = d < 0;
			r.conf.parse = d < 0 ? 0 : d;
			r.conf.def_verdict = HC_DROP;
			r.set = set;
			r.conf.sets = hc_set_bits(set);

			ret = ret ?: r.hook->load(&r);
			if (!ret && bpf_prog_test_run_opts(r.prog_fd, &opts))
				ret = -errno;
			/* a hook this kernel lacks: its row left out, said */
			if (ret == -EOPNOTSUPP && r.err.msg[0]) {
				fprintf(stderr, "prog-run %s: left out: %s\n",
					var[v].name, r.err.msg);
				hc_prog_unload(&r);
				skip[v] = true;
				break;
			}
			hc_prog_unload(&r);
			if (ret) {
				hc_fail(HC_EXIT_FAIL, "prog-run %s %s: %s",
					var[v].name, depth,
					strerror(-ret));
				hc_set_free(set);
				return HC_EXIT_FAIL;
			}
			ns[v][d + 1] = opts.duration;
			rv[v][d + 1] = opts.retval;
			if (!c.json)
				progrun_print(&p, var[v].name, depth, c.repeat,
					      opts.duration, opts.retval);
		}
	}
	/* One document, once every program ran: an error is one too. */
	if (c.json) {
		hc_pr_open(&p, HC_PR_JSON, NULL, '[');
		for (v = 0; v < nvar; v++)
			for (d = d0; d <= HC_PARSE_L4 && !skip[v]; d++)
				progrun_print(
					&p, var[v].name,
					d < 0 ? "bare" : hc_parse_names[d],
					c.repeat, ns[v][d + 1], rv[v][d + 1]);
		hc_pr_close(&p, HC_PR_JSON, ']');
	}
	hc_set_free(set);
	return 0;
}
