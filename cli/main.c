// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp: the command table, global options, help and version; what
 * every command shares is in cli.c.
 */
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
#include "hooks.h"
#include "journal.h"
#include "json.h"
#include "netns.h"
#include "nl.h"
#include "opts.h"
#include "print.h"
#include "rules.h"
#include "stats.h"
#include "undo.h"

static int cmd_help(int argc, char **argv)
{
	hc_usage(stdout);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	struct {
		bool json, pretty, help;
	} v = {};
	const struct hc_opt opts[] = {
		HC_OPT_JSON(offsetof(typeof(v), json), "as a JSON object"),
		HC_OPT_PRETTY(offsetof(typeof(v), pretty)),
		HC_OPT_HELP(offsetof(typeof(v), help)),
		{}
	};
	struct hc_err err = {};
	int npos;

	if (hc_opts_parse(opts, &v, argc, argv, NULL, &npos, 0, NULL, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	hc_json_pretty = v.pretty;
	v.json |= v.pretty;
	if (v.help) {
		printf("Usage: hookcmp [-j] version\n\n");
		hc_opts_help(stdout, opts, NULL);
		return 0;
	}
	return hc_show_version(v.json);
}

/* ---- commands ---- */

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "run", cmd_run, "attach to DEV and count per class (the default)" },
	{ "gen", cmd_gen, "send frames out of DEV (hookcmp gen --help)" },
	{ "bench", cmd_bench, "the hook matrix on its own topology" },
	{ "prog-run", cmd_progrun, "each program variant's own ns per run" },
	{ "status", cmd_status, "what hookcmp has attached, and leftovers" },
	{ "cleanup", cmd_cleanup, "remove what a dead hookcmp left" },
	{ "help", cmd_help, "show this help" },
	{ "version", cmd_version, "show the version" },
	{}
};

/* Optimal string alignment distance: a swap of two letters is one edit. */
static int distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, k, d[16][16];

	if (la > 15 || lb > 15)
		return 99;
	for (i = 0; i <= la; i++)
		for (k = 0; k <= lb; k++) {
			if (!i || !k) {
				d[i][k] = i + k;
				continue;
			}
			d[i][k] =
				fmin(fmin(d[i - 1][k] + 1, d[i][k - 1] + 1),
				     d[i - 1][k - 1] + (a[i - 1] != b[k - 1]));
			if (i > 1 && k > 1 && a[i - 1] == b[k - 2] &&
			    a[i - 2] == b[k - 1])
				d[i][k] = fmin(d[i][k], d[i - 2][k - 2] + 1);
		}
	return d[la][lb];
}

/*
 * A first word that is no command, no option, no device here and within
 * two edits of a command is a typo, unless --hook makes it run's DEV: the
 * command it meant, with no fn, for the error. NULL: let run have it.
 */
static const struct cmd *near_command(int argc, char **argv, const char *word)
{
	static struct cmd typo;
	const struct cmd *c, *best = NULL;
	int i, d, min = 3;

	if (word[0] == '-' || if_nametoindex(word))
		return NULL;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--hook") ||
		    !strncmp(argv[i], "--hook=", 7))
			return NULL;
	for (c = cmds; c->name; c++) {
		d = distance(word, c->name);
		if (d < min) {
			min = d;
			best = c;
		}
	}
	if (!best)
		return NULL;
	typo.name = best->name;
	return &typo;
}

void hc_usage(FILE *f)
{
	const struct hc_hook *const *h;
	const struct cmd *c;

	fprintf(f, "Usage: hookcmp [-n NETNS] [-j] [run] --hook ");
	for (h = hc_hooks; *h; h++)
		fprintf(f, "%s%s", h == hc_hooks ? "" : "|", (*h)->name);
	fprintf(f,
		" [OPTIONS] DEV\n"
		"       hookcmp [-n NETNS] [-j] COMMAND [OPTIONS]\n\n"
		"Runs one drop-and-classify program at a receive hook of DEV and\n"
		"prints what it saw per class, then a summary on exit.\n\n"
		"Commands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->help);
	fprintf(f, "\nOptions of run:\n");
	hc_run_options_help(f);
	fprintf(f,
		"\nRules: [ip|ip6] [udp|tcp|icmp|icmp6|proto N] [src PREFIX] [dst PREFIX]\n"
		"       [sport P[-P]] [dport P[-P]] drop|pass|redirect\n"
		"\nExit status: 0 ok, 1 failure, 2 usage or bad input, 3 permission,\n"
		"4 unsupported by the kernel or driver, 5 hook busy, 6 a bench compare\n"
		"row confounded, 7 no verdict (no row valid, none judged), 128+N signal N.\n");
}

/*
 * Global options come before the command, as with ip, tc and bpftool
 * (hookcmp -n NS -j status). Every command takes them in its own table
 * too, so they are handed on in its argv, and may follow the command.
 */
/* What main skips before a command's name: the commands' own declarations. */
static const struct hc_opt globals[] = {
	HC_OPT_NETNS(0, ""), HC_OPT_JSON(0, ""), HC_OPT_PRETTY(0),
	HC_OPT_JOURNAL(0, ""), {}
};

/* The words a global option takes at a (more: one follows), or 0. */
static int global_words(const char *a, bool more)
{
	const struct hc_opt *o;

	for (o = globals; o->name; o++) {
		bool flag = o->type == HC_OPT_FLAG;
		size_t n = strlen(o->name);
		const char *rest = NULL;

		if (a[0] == '-' && a[1] == '-' && !strncmp(a + 2, o->name, n))
			rest = a + 2 + n;
		else if (a[0] == '-' && a[1] && a[1] == o->short_name)
			rest = a + 2;
		if (!rest)
			continue;
		if (!*rest)
			return flag ? 1 : more ? 2 : 0;
		/* --netns=NAME, -nNAME */
		if (!flag && (rest[0] == '=' || rest != a + 2 + n))
			return 1;
	}
	return 0;
}

static int global_opts(int argc, char **argv)
{
	int i, n;

	for (i = 1; i < argc; i += n) {
		n = global_words(argv[i], i + 1 < argc);
		if (!n)
			break;
	}
	return i - 1;
}

/*
 * A closed stdin, stdout or stderr would be the next socket or map we
 * open, and our text would go into it.
 */
static void std_fds_open(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd)
			_exit(HC_EXIT_FAIL);
}

/* Output that never arrived (a full disk, a closed file) is a failure. */
static int flushed(int ret)
{
	if (!fflush(stdout) && !ferror(stdout))
		return ret;
	fprintf(stderr, "Error: writing the output: %s\n", strerror(errno));
	return ret ?: HC_EXIT_FAIL;
}

/* run's --help is hookcmp's: only main knows the commands. */
static int usage_asked(int ret)
{
	if (ret != HC_CMD_USAGE)
		return ret;
	hc_usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int nglob, i;
	const struct cmd *c = NULL;
	char **args;

	std_fds_open();
	nglob = global_opts(argc, argv);

	if (1 + nglob < argc)
		for (c = cmds; c->name; c++)
			if (!strcmp(argv[1 + nglob], c->name))
				break;
	if ((!c || !c->name) && 1 + nglob < argc)
		c = near_command(argc, argv, argv[1 + nglob]);
	if (!c || !c->name)
		return flushed(usage_asked(cmd_run(argc, argv)));
	if (!c->fn)
		return hc_fail(HC_EXIT_USAGE,
			       "unknown command '%s'; did you mean '%s'?",
			       argv[1 + nglob], c->name);
	/* argv[0] is the command, the global options follow it. */
	args = calloc(argc, sizeof(*args));
	if (!args)
		return hc_fail(HC_EXIT_FAIL, "out of memory");
	args[0] = argv[1 + nglob];
	for (i = 0; i < nglob; i++)
		args[1 + i] = argv[1 + i];
	for (i = 2 + nglob; i < argc; i++)
		args[i - 1] = argv[i];
	i = c->fn(argc - 1, args);
	free(args);
	return flushed(usage_asked(i));
}
