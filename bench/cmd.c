// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp bench: the command. Everything that can be refused is refused
 * before a row runs (usage, privileges, output paths, perf's FIFOs); then
 * the topology, the generator, the rounds and the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "cmd.h"
#include "nl.h"
#include "opts.h"

#define MAX_ROUNDS 1000

static const char *scen_names[16];
static const char *const cpu_modes[] = { "split", "inline", NULL };

static int parse_seed(void *cfg, const char *arg, struct hc_err *err)
{
	struct bench *b = cfg;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || !*arg || *end || arg[0] == '-' || v > 0xffffffffUL) {
		hc_err_set(err, "--seed '%s': expected a number from 0 to %u",
			   arg, 0xffffffffU);
		return -EINVAL;
	}
	b->seed = v;
	b->seed_set = true;
	return 0;
}

static int parse_pct(void *cfg, const char *arg, struct hc_err *err)
{
	struct bench *b = cfg;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || !*arg || *end || !(v > 0 && v <= 100)) {
		hc_err_set(
			err,
			"--target-ci '%s': expected a percent over 0, up to 100",
			arg);
		return -EINVAL;
	}
	b->target_ci = v;
	return 0;
}

#define B(f) offsetof(struct bench, f)

static const struct hc_opt bench_opts[] = {
	{ "scenario", 0, HC_OPT_ENUM, B(scenario), NULL,
	  "which matrix (default hooks; see Scenarios)", scen_names },
	{ "hooks", 0, HC_OPT_STR, B(hooks), "LIST",
	  "only these hooks' or rows' rows, comma-separated; the baseline stays" },
	{ "rounds", 0, HC_OPT_U32, B(rounds), "N",
	  "rounds; each runs every row once, in a new random order (default 10)",
	  NULL, 1, MAX_ROUNDS },
	{ "reps", 0, HC_OPT_U32, B(rounds), "N", "the same as --rounds", NULL,
	  1, MAX_ROUNDS },
	{ "seed", 0, HC_OPT_FUNC, 0, "S",
	  "seed of the orders and the bootstrap (default: random, printed)",
	  .fn = parse_seed },
	{ "target-ci", 0, HC_OPT_FUNC, 0, "PCT",
	  "add rounds until every ratio interval is within +-PCT% of its median",
	  .fn = parse_pct },
	{ "max-rounds", 0, HC_OPT_U32, B(max_rounds), "N",
	  "with --target-ci, give up after N rounds (default 100)", NULL, 1,
	  MAX_ROUNDS },
	{ "packets", 0, HC_OPT_U32, B(packets), "N",
	  "packets per row and round (default 1000000)", NULL, 1000,
	  0xffffffff },
	{ "cpu-mode", 0, HC_OPT_ENUM, B(cpu_mode), NULL,
	  "DUT NAPI in a kthread on CPU 1, generator on CPU 0; or both inline (default)",
	  cpu_modes },
	{ "json", 'j', HC_OPT_FLAG, B(json), NULL,
	  "the JSON document on stdout instead of the table" },
	{ "output", 'o', HC_OPT_STR, B(out_path), "FILE",
	  "write the JSON document to FILE" },
	{ "csv", 0, HC_OPT_STR, B(csv_path), "FILE",
	  "write one CSV line per row to FILE" },
	{ "plot", 0, HC_OPT_STR, B(plot_dir), "DIR",
	  "charts (PNG and SVG) with their intervals into DIR, with gnuplot" },
	{ "perf-ctl", 0, HC_OPT_STR, B(perf_ctl), "CTL[,ACK]",
	  "FIFOs of perf's control channel: perf counts only --perf-row's windows" },
	{ "perf-row", 0, HC_OPT_STR, B(perf_row), "ROW",
	  "the row --perf-ctl measures (default: the scenario's first row)" },
	{ "no-bare", 0, HC_OPT_FLAG, B(no_bare), NULL,
	  "hooks scenario: leave out the floor rows (-bare, xsk-none)" },
	{ "netns", 'n', HC_OPT_STR, B(netns), "NAME",
	  "reserved for measuring a given device; bench builds its own namespaces" },
	{ "help", 'h', HC_OPT_FLAG, B(help), NULL, "show this help" },
	{}
};

static void usage(void)
{
	int i;

	printf("Usage: hookcmp bench [OPTIONS]\n\n"
	       "Runs every row of a scenario once per round, in a random order, on a\n"
	       "veth pair between two namespaces it creates and removes, and reports\n"
	       "each row's cost per packet against the scenario's baseline with 95%%\n"
	       "bootstrap intervals.\n\n");
	hc_opts_help(stdout, bench_opts);
	printf("\nScenarios:\n");
	for (i = 0; bench_scenarios[i]; i++)
		printf("  %-12s %s (against %s)\n", bench_scenarios[i]->name,
		       bench_scenarios[i]->help, bench_scenarios[i]->baseline);
}

/* ---- outputs, opened before any row runs ---- */

struct out_file {
	const char *path;
	int fd;
	bool created; /* by us: it goes if bench fails before writing it */
};

static int out_open(struct out_file *o, const char *path)
{
	o->path = path;
	o->fd = -1;
	if (!path)
		return 0;
	o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	o->created = o->fd >= 0;
	if (o->fd < 0 && errno == EEXIST)
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0)
		return hc_fail(HC_EXIT_USAGE, "cannot write %s: %s", path,
			       strerror(errno));
	return 0;
}

static void out_abandon(struct out_file *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->created)
		unlink(o->path);
	o->fd = -1;
}

static int out_write(struct out_file *o, const struct bench *b,
		     void (*fn)(const struct bench *b, FILE *f))
{
	struct hc_err err = {};
	int ret = hc_fault(&err, "bench-output");
	FILE *f;

	if (o->fd < 0)
		return 0;
	/* A pipe or /dev/stdout cannot be truncated; nothing to cut there. */
	if (ftruncate(o->fd, 0) && errno != EINVAL)
		ret = ret ?: -errno;
	f = ret ? NULL : fdopen(o->fd, "w");
	if (f) {
		fn(b, f);
		if (ferror(f))
			ret = -EIO;
		if (fclose(f) && !ret)
			ret = -errno;
	} else {
		ret = ret ?: -errno;
		close(o->fd);
	}
	o->fd = -1;
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "writing %s: %s", o->path,
			       strerror(-ret));
	return 0;
}

static bool in_path(const char *prog)
{
	char path[4096], file[4200], *save, *dir;

	snprintf(path, sizeof(path), "%s", getenv("PATH") ?: "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(file, sizeof(file), "%s/%s", dir, prog);
		if (!access(file, X_OK))
			return true;
	}
	return false;
}

/*
 * scripts/plot.sh draws the charts: next to the binary in the tree, or
 * where `make install` put it beside the binary. HOOKCMP_SCRIPTS
 * overrides both.
 */
static int find_plot_sh(struct bench *b)
{
	const char *env = getenv("HOOKCMP_SCRIPTS");
	char exe[400], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (env) {
		snprintf(b->plot_sh, sizeof(b->plot_sh), "%s/plot.sh", env);
	} else if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		*slash = '\0';
		snprintf(b->plot_sh, sizeof(b->plot_sh), "%s/scripts/plot.sh",
			 exe);
		if (access(b->plot_sh, R_OK))
			snprintf(b->plot_sh, sizeof(b->plot_sh),
				 "%s/../share/hookcmp/scripts/plot.sh", exe);
	}
	if (access(b->plot_sh, R_OK))
		return hc_fail(
			HC_EXIT_FAIL,
			"--plot: no %s (set HOOKCMP_SCRIPTS to the scripts directory)",
			b->plot_sh);
	if (!in_path("gnuplot"))
		return hc_fail(HC_EXIT_FAIL,
			       "--plot needs gnuplot (Debian: gnuplot-nox)");
	return 0;
}

static int plot_dir_open(struct bench *b, bool *created)
{
	struct stat st;

	*created = false;
	if (!b->plot_dir)
		return 0;
	if (!mkdir(b->plot_dir, 0755))
		*created = true;
	else if (errno != EEXIST)
		return hc_fail(HC_EXIT_USAGE, "--plot %s: %s", b->plot_dir,
			       strerror(errno));
	if (stat(b->plot_dir, &st) || !S_ISDIR(st.st_mode) ||
	    access(b->plot_dir, W_OK))
		return hc_fail(HC_EXIT_USAGE,
			       "--plot %s: not a writable directory",
			       b->plot_dir);
	return find_plot_sh(b);
}

static int plot(struct bench *b)
{
	char json[4200], csv[4200], out[4096];
	const char *argv[] = { "sh", b->plot_sh, json, b->plot_dir, NULL };
	struct hc_err err = {};
	struct out_file o;
	int ret;

	snprintf(json, sizeof(json), "%s/bench.json", b->plot_dir);
	snprintf(csv, sizeof(csv), "%s/bench.csv", b->plot_dir);
	ret = out_open(&o, json)			  ?:
		      out_write(&o, b, bench_report_json) ?:
		      out_open(&o, csv)			  ?:
		      out_write(&o, b, bench_report_csv);
	if (ret)
		return ret;
	ret = hc_fault(&err, "bench-plot") ?:
		      bench_exec(-1, argv, out, sizeof(out), &err);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "%s: %s", b->plot_sh, err.msg);
	fprintf(stderr, "charts in %s\n", b->plot_dir);
	return 0;
}

/* perf's control FIFOs; perf holds them open from before it starts us. */
static int perf_open(struct bench *b)
{
	char ctl[512], *ack;

	b->perf_fd = b->perf_ack = -1;
	if (!b->perf_ctl)
		return 0;
	snprintf(ctl, sizeof(ctl), "%s", b->perf_ctl);
	ack = strchr(ctl, ',');
	if (ack)
		*ack++ = '\0';
	b->perf_fd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (b->perf_fd < 0)
		return hc_fail(
			HC_EXIT_USAGE,
			"--perf-ctl %s: %s (run bench under perf ... --control fifo:%s)",
			ctl,
			errno == ENXIO ? "no perf reads it" : strerror(errno),
			b->perf_ctl);
	fcntl(b->perf_fd, F_SETFL, 0);
	if (ack) {
		b->perf_ack = open(ack, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (b->perf_ack < 0)
			return hc_fail(HC_EXIT_USAGE, "--perf-ctl: %s: %s", ack,
				       strerror(errno));
	}
	return 0;
}

static void perf_close(struct bench *b)
{
	if (b->perf_fd >= 0)
		close(b->perf_fd);
	if (b->perf_ack >= 0)
		close(b->perf_ack);
}

/* ---- the run ---- */

/* An error that ends the bench: the exit code for it, said once. */
static int fatal(const char *what, int ret, const struct hc_err *err)
{
	int code = ret == -ENODEV ? HC_EXIT_FAIL : hc_exit_code(ret);

	return hc_fail(code, "bench: %s: %s%s%s%s%s", what, err->msg,
		       err->msg[0] ? ": " : "", strerror(-ret),
		       err->kernel[0] ? ". Kernel: " : "", err->kernel);
}

/* Attaches the bare tc program with tcx to the DUT and takes it off. */
static bool probe_tcx(struct bench *b)
{
	struct hc_run r = { .hook = HC_HOOK_TC,
			    .tc_attach = HC_TC_TCX,
			    .bare = true,
			    .dev = BENCH_DUT_DEV,
			    .ifindex = b->if_dut,
			    .nl = b->nl_dut,
			    .prog_fd = -1,
			    .stats_fd = -1,
			    .link_fd = -1,
			    .sock_fd = -1,
			    .no_journal = true };
	bool ok;

	bench_enter(b->fd_dut);
	ok = !hc_hook_tc.load(&r) && !hc_hook_tc.attach(&r);
	hc_hook_tc.detach(&r);
	hc_prog_unload(&r);
	bench_enter(b->fd_gen);
	return ok;
}

/*
 * One generator program for every row; it stays attached to the spare
 * veth so that BPF_PROG_RUN does not put it into the XDP dispatcher and
 * take it out again (two synchronize_rcu()) inside each timed window.
 */
static int gen_up(struct bench *b, struct hc_err *err)
{
	struct hc_gen_cfg cfg = { .flows = 1, .method = HC_GEN_LIVE };
	struct hc_pkt_spec *s = &b->spec;
	int ret;

	s->proto = 17;
	s->sport = 1024;
	s->dport = 9;
	s->size = HC_PKT_MIN;
	inet_pton(AF_INET, "198.18.0.1", &s->src4);
	inet_pton(AF_INET, "198.18.0.2", &s->dst4);
	hc_dev_mac(BENCH_GEN_DEV, s->src_mac);
	/* Routed through the DUT, which rewrites what it forwards in place. */
	if (b->scen->forward) {
		inet_pton(AF_INET, BENCH_FWD_DST, &s->dst4);
		cfg.refresh = true;
	}
	cfg.spec = *s;
	ret = hc_fault(err, "bench-gen")			 ?:
		      hc_gen_open(&b->gen, b->if_gen, &cfg, err) ?:
		      hc_nl_xdp_set(b->nl_gen, b->if_spare, b->gen.prog_fd, -1,
				    XDP_FLAGS_SKB_MODE, err);
	b->frame_size = 0;
	b->env.live = !ret;
	return ret;
}

static void header(const struct bench *b)
{
	fprintf(stderr,
		"hookcmp bench: scenario %s, %s mode, %d CPUs, BPF JIT %s, seed %u\n",
		b->scen->name, cpu_modes[b->cpu_mode], b->env.cpus,
		b->env.jit ? "on" : "OFF (numbers are not JIT numbers)",
		b->seed);
	if (b->env.foreign[0])
		fprintf(stderr,
			"Warning: ingress qdiscs outside the bench turn on the ingress static key for every row: %s\n",
			b->env.foreign);
	if (b->env.emulated)
		fprintf(stderr,
			"Warning: the CPU is emulated (%s): every row is marked emulated; its timings say nothing about hardware\n",
			b->env.hypervisor);
}

static int measure(struct bench *b)
{
	struct hc_err err = {};
	int ret;

	ret = bench_topo_up(b, &err);
	if (ret)
		return fatal("topology", ret, &err);
	ret = gen_up(b, &err);
	if (ret)
		return fatal("generator on " BENCH_GEN_DEV, ret, &err);
	b->env.cpu_clock = !bench_clock_open(b);
	if (!b->env.cpu_clock)
		fprintf(stderr,
			"Warning: no task-clock counters (perf_event_open): times are the wall clock's, with whatever else ran\n");
	b->env.tcx = probe_tcx(b);
	if (!b->env.tcx)
		fprintf(stderr,
			"tcx links: no (Linux 6.6+), tcx rows will be INVALID\n");
	ret = bench_topo_cpu(b, &err);
	if (ret)
		return fatal(b->cpu_mode == BENCH_SPLIT ?
				     "cannot set up split mode" :
				     "cannot set up inline mode",
			     ret, &err);
	b->ran = true;
	ret = bench_run(b, &err);
	if (ret)
		return fatal("measuring", ret, &err);
	return 0;
}

static int bench_main(struct bench *b, int argc, char **argv)
{
	struct out_file out = { .fd = -1 }, csv = { .fd = -1 };
	struct hc_err err = {};
	const char *pos[1];
	bool plot_created = false, measured = false, report = false;
	int npos, ret, i;

	for (i = 0; bench_scenarios[i] && i < 15; i++)
		scen_names[i] = bench_scenarios[i]->name;
	b->rounds = 10;
	b->max_rounds = 100;
	b->packets = 1000000;
	b->fd_gen = b->fd_dut = b->fd_sink = b->fd_root = -1;
	b->perf_fd = b->perf_ack = -1;
	b->gen.sock_fd = -1;
	b->clock.self = b->clock.softirqd = -1;
	/*
	 * inline by default: split (threaded NAPI on its own CPU) measured a
	 * CV of 10-30% on the 2-CPU VM this was built on, inline 1-5%.
	 */
	b->cpu_mode = BENCH_INLINE;
	ret = hc_opts_parse(bench_opts, b, argc, argv, pos, &npos, 0, &err);
	hc_json_mode = b->json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (b->help) {
		usage();
		return 0;
	}
	if (b->netns)
		return hc_fail(
			HC_EXIT_USAGE,
			"-n/--netns goes with --dev (a given device to measure), which bench does not have yet; it builds its own namespaces");
	b->scen = bench_scenarios[b->scenario];
	ret = bench_rows_build(b, &err);
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (b->cpu_mode == BENCH_SPLIT && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return hc_fail(HC_EXIT_USAGE, "--cpu-mode split needs 2 CPUs");
	if (b->target_ci && b->max_rounds < b->rounds)
		return hc_fail(HC_EXIT_USAGE,
			       "--max-rounds %u is less than --rounds %u",
			       b->max_rounds, b->rounds);
	if (b->perf_row && !b->perf_ctl)
		return hc_fail(HC_EXIT_USAGE,
			       "--perf-row goes with --perf-ctl");
	b->perf_idx = b->perf_row ? bench_row_find(b, b->perf_row) : 0;
	if (b->perf_idx < 0)
		return hc_fail(HC_EXIT_USAGE,
			       "--perf-row '%s' is not a row of %s",
			       b->perf_row, b->scen->name);
	if (!b->seed_set && getrandom(&b->seed, sizeof(b->seed), 0) < 0)
		b->seed = getpid() ^ time(NULL);
	ret = hc_check_privileges();
	if (ret)
		return ret;

	ret = out_open(&out, b->out_path)	      ?:
		      out_open(&csv, b->csv_path)     ?:
		      plot_dir_open(b, &plot_created) ?:
							perf_open(b);
	if (ret)
		goto out;

	libbpf_set_print(NULL);
	bench_env_read(&b->env);
	header(b);
	hc_install_signals();
	b->fd_root = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ret = measure(b);
	for (i = 0; i < b->nrows && !b->rows[i].nrd; i++)
		;
	measured = i < b->nrows;
	/* Cut short before a round counted: nothing to report. */
	report = b->ran && (measured || (!ret && !hc_stop_sig));
	if (!report)
		goto out;

	bench_summarize(b);
	if (b->json)
		bench_report_json(b, stdout);
	else
		bench_report_text(b, stdout);
	fflush(stdout);
	i = out_write(&out, b, bench_report_json)	 ?:
		    out_write(&csv, b, bench_report_csv) ?:
		    (b->plot_dir && !hc_stop_sig ? plot(b) : 0);
	ret = ret ?: hc_stop_sig ? 128 + hc_stop_sig : i;
	if (!ret && !measured)
		ret = hc_fail(
			HC_EXIT_FAIL,
			"bench: no row could be measured (the table says why)");
out:
	if (!report) {
		out_abandon(&out);
		out_abandon(&csv);
		if (plot_created)
			rmdir(b->plot_dir);
	}
	if (!ret && hc_stop_sig)
		ret = 128 + hc_stop_sig;
	perf_close(b);
	bench_clock_close(b);
	hc_gen_close(&b->gen);
	bench_topo_down(b);
	if (b->fd_root >= 0)
		close(b->fd_root);
	for (i = 0; i < b->nrows; i++)
		free(b->rows[i].rd);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench *b = calloc(1, sizeof(*b));
	int ret;

	if (!b)
		return hc_fail(HC_EXIT_FAIL, "out of memory");
	ret = bench_main(b, argc, argv);
	free(b);
	return ret;
}
