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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "dev.h"
#include "diff.h"
#include "env.h"
#include "path.h"
#include "plan.h"
#include "profile.h"
#include "report.h"
#include "row.h"
#include "run.h"
#include "scenario.h"
#include "summary.h"
#include "topo.h"
#include "variant.h"
#include "cli.h"
#include "hooks.h"
#include "qdisc.h"
#include "exec.h"
#include "json.h"
#include "journal.h"
#include "nl.h"
#include "opts.h"

#define MAX_ROUNDS 1000
/* --rounds and --max-rounds unless given; --help says them from here */
#define DEFAULT_ROUNDS 30
#define DEFAULT_MAX_ROUNDS 100
#define STR_(x) #x
#define STR(x) STR_(x)

static const char *scen_names[16];
static const char *topo_names[4];

static int parse_seed(void *cfg, const char *arg, struct hc_err *err)
{
	struct bench_opts *o = cfg;
	__u64 v;

	if (hc_parse_uint(arg, 0, 0, 0xffffffff, &v)) {
		hc_err_set(err, "--seed '%s': expected a number from 0 to %u",
			   arg, 0xffffffffU);
		return -EINVAL;
	}
	o->seed = v;
	o->seed_set = true;
	return 0;
}

/* --variant NAME, and the --setup, --undo and --variant-path after it. */
static int parse_variant(void *cfg, const char *arg, struct hc_err *err)
{
	struct bench_opts *o = cfg;
	int i;

	if (o->nvariants == BENCH_MAX_VARIANTS) {
		hc_err_set(err, "--variant %s: at most %d variants", arg,
			   BENCH_MAX_VARIANTS);
		return -EINVAL;
	}
	if (!arg[0] || strlen(arg) > 15 ||
	    arg[strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-_.")]) {
		hc_err_set(
			err,
			"--variant '%s': a name of 1-15 lowercase letters, digits, '-', '_' or '.'",
			arg);
		return -EINVAL;
	}
	for (i = 0; i < o->nvariants; i++)
		if (!strcmp(o->variant[i].name, arg)) {
			hc_err_set(err, "--variant %s given twice", arg);
			return -EINVAL;
		}
	o->variant[o->nvariants++].name = arg;
	return 0;
}

/* An option of the last --variant's, once each. */
static int variant_part(void *cfg, const char *opt, size_t off, const char *arg,
			struct hc_err *err)
{
	struct bench_opts *o = cfg;
	const char **slot;

	if (!o->nvariants) {
		hc_err_set(err, "--%s: give --variant NAME before it", opt);
		return -EINVAL;
	}
	slot = (const char **)((char *)&o->variant[o->nvariants - 1] + off);
	if (*slot) {
		hc_err_set(err, "--%s given twice for --variant %s", opt,
			   o->variant[o->nvariants - 1].name);
		return -EINVAL;
	}
	*slot = arg;
	return 0;
}

#define V(f) offsetof(struct bench_variant, f)

static int parse_setup(void *cfg, const char *arg, struct hc_err *err)
{
	return variant_part(cfg, "setup", V(setup), arg, err);
}

static int parse_undo(void *cfg, const char *arg, struct hc_err *err)
{
	/* The journal keeps it, for cleanup after a kill -9. */
	if (strlen(arg) >= BENCH_VARIANT_UNDO_MAX) {
		hc_err_set(err, "--undo: at most %d bytes",
			   BENCH_VARIANT_UNDO_MAX - 1);
		return -EINVAL;
	}
	return variant_part(cfg, "undo", V(undo), arg, err);
}

static int parse_variant_path(void *cfg, const char *arg, struct hc_err *err)
{
	return variant_part(cfg, "variant-path", V(path), arg, err);
}

/* Where a bench option applies (struct hc_opt's scope). */
enum { BENCH_SC_TARGET = 1 << 0 };
static const char *const bench_scopes[] = { "--target-ci", NULL };

#define B(f) offsetof(struct bench_opts, f)

static const struct hc_opt bench_options[] = {
	{ "scenario", 0, HC_OPT_ENUM, B(scenario), NULL,
	  "which matrix (default hooks; see Scenarios)", scen_names },
	{ "hooks", 0, HC_OPT_STR, B(hooks), "LIST",
	  "only these hooks' or rows' rows, comma-separated; the baseline stays",
	  .flags = HC_OPT_LIST },
	{ "rounds", 0, HC_OPT_U32, B(rounds), "N",
	  "rounds; each runs every row once, in a new random order (default " STR(
		  DEFAULT_ROUNDS) "; with a target, the least)",
	  NULL, 1, MAX_ROUNDS },
	{ "reps", 0, HC_OPT_U32, B(rounds), "N", "the same as --rounds", NULL,
	  1, MAX_ROUNDS },
	{ "seed", 0, HC_OPT_FUNC, 0, "S",
	  "seed of the rows' orders (default: random, printed)",
	  .fn = parse_seed },
	{ "runs", 0, HC_OPT_U32, B(runs), "K",
	  "K independent runs, one after another, each with its own topology, warm-up and rounds; one document with the spread between them",
	  NULL, 2, BENCH_CMP_RUNS },
	{ "plan", 0, HC_OPT_STR, B(plan_path), "RUN.json",
	  "repeat an earlier run's scenario, rows and windows (its -o document), so that bench compare compares like with like" },
	{ "target-ci", 0, HC_OPT_PCT, B(target_ci), "PCT",
	  "add rounds until every delta interval is within +-PCT% of its row's cost, three checks in a row",
	  NULL, 0, 100 },
	{ "max-rounds", 0, HC_OPT_U32, B(max_rounds), "N",
	  "give up after N rounds (default " STR(DEFAULT_MAX_ROUNDS) ")", NULL,
	  1, MAX_ROUNDS, .scope = BENCH_SC_TARGET },
	{ "max-time", 0, HC_OPT_SECS, B(max_time), "SECS",
	  "give up once the rounds have taken SECS (default: no limit; a scenario's own target: its own, under Scenarios)",
	  NULL, 1, 0, .scope = BENCH_SC_TARGET },
	{ "packets", 0, HC_OPT_U32, B(packets), "N",
	  "packets per row and round, in --windows equal parts", NULL, 1000,
	  0xffffffff },
	{ "windows", 0, HC_OPT_U32, B(windows), "N",
	  "short windows per row and round; a round's cost is its fastest window's (default 20)",
	  NULL, 1, 10000 },
	{ "visits", 0, HC_OPT_U32, B(visits), "N",
	  "turns per row and round, the windows shared out, in ABBA order (default 2)",
	  NULL, 1, 10000 },
	{ "window-packets", 0, HC_OPT_U32, B(window_packets), "N",
	  "packets per window (default: the slowest row's 5 ms, sized in the warm-up)",
	  NULL, 100, 0xffffffff },
	{ "topology", 0, HC_OPT_ENUM, B(topology), NULL,
	  "frames from a veth peer (default), or injected into the DUT's receive path from bench's thread",
	  topo_names },
	{ "feed", 0, HC_OPT_ENUM, B(feed), NULL,
	  "how frames reach the DUT: live XDP frames, AF_PACKET (skbs), or AF_PACKET through a stage that redirects them as XDP frames (default auto: live, else the stage)",
	  hc_gen_methods },
	{ "stage-copies", 0, HC_OPT_U32, B(stage_copies), "N",
	  "the stage: XDP frames to the DUT per frame sent (broadcast copies), a power of 2 (default 64, one NAPI poll's batch)",
	  NULL, 1, 64 },
	{ "cpu-mode", 0, HC_OPT_ENUM, B(cpu_mode), NULL,
	  "DUT NAPI in a kthread on CPU 1, generator on CPU 0; or both inline (default)",
	  bench_cpu_modes },
	HC_OPT_JSON(B(json),
		    "the JSON document on stdout instead of the table"),
	HC_OPT_PRETTY(B(pretty)),
	{ "output", 'o', HC_OPT_STR, B(out_path), "FILE",
	  "write the JSON document to FILE" },
	{ "csv", 0, HC_OPT_STR, B(csv_path), "FILE",
	  "write one CSV line per row to FILE" },
	{ "plot", 0, HC_OPT_STR, B(plot_dir), "DIR",
	  "charts (PNG and SVG) with their intervals into DIR, with gnuplot" },
	{ "perf-ctl", 0, HC_OPT_STR, B(perf_ctl), "CTL[,ACK]",
	  "FIFOs of perf's control channel: perf counts only --perf-row's windows",
	  .flags = HC_OPT_LIST },
	{ "perf-row", 0, HC_OPT_STR, B(perf_row), "ROW",
	  "the row --perf-ctl measures (default: the scenario's first row)" },
	{ "per-cpu", 0, HC_OPT_FLAG, B(per_cpu), NULL,
	  "each row's rate per CPU too, from the per-CPU counters" },
	{ "no-path-check", 0, HC_OPT_FLAG, B(no_path), NULL,
	  "do not sample each row once to prove it ran its kernel path" },
	{ "profile", 0, HC_OPT_FLAG, B(profile), NULL,
	  "each row's cost split into kernel functions, from profiled windows apart from the timed ones" },
	{ "profile-top", 0, HC_OPT_U32, B(profile_top), "N",
	  "--profile: the N costliest functions per row (default 15)", NULL, 1,
	  1000 },
	{ "dev", 0, HC_OPT_STR, B(dev), "DEV",
	  "measure this device instead of a veth pair; traffic from --gen-cmd or --external" },
	HC_OPT_NETNS(B(netns), "--dev is in network namespace NAME"),
	{ "other-dev", 0, HC_OPT_STR, B(other_dev), "DEV2",
	  "--dev: the second device of rows that need one (default: a veth pair bench makes)" },
	{ "gen-cmd", 0, HC_OPT_STR, B(gen_cmd), "CMD",
	  "--dev: run CMD with /bin/sh for every window; it prints how many it sent" },
	{ "external", 0, HC_OPT_FLAG, B(external), NULL,
	  "--dev: traffic flows already; measure --window after --settle" },
	{ "window", 0, HC_OPT_SECS, B(window), "SEC",
	  "--external: seconds measured per row and round (default 1)" },
	{ "settle", 0, HC_OPT_SECS, B(settle), "SEC",
	  "--external: seconds after a row's setup before its window (default 0.2)" },
	{ "variant", 0, HC_OPT_FUNC, 0, "NAME",
	  "add a row ROW+NAME for each row, ROW with the change --setup makes (repeatable)",
	  .fn = parse_variant },
	{ "setup", 0, HC_OPT_FUNC, 0, "CMD",
	  "the last --variant's change: /bin/sh -c CMD in the DUT's netns, after the row's setup, every visit",
	  .fn = parse_setup },
	{ "undo", 0, HC_OPT_FUNC, 0, "CMD",
	  "what undoes it, before the row's teardown; a failure ends the run",
	  .fn = parse_undo },
	{ "variant-path", 0, HC_OPT_FUNC, 0, "FUNCS",
	  "the last --variant's rows must run these kernel functions too (path check)",
	  .fn = parse_variant_path },
	{ "variant-timeout", 0, HC_OPT_SECS, B(variant_timeout), "SEC",
	  "how long a --setup or --undo may run (default 10)", NULL, 1 },
	{ "tune", 0, HC_OPT_STR, B(tune), "LIST",
	  "--dev: set gro=on|off, threaded=on|off, channels=N for the run, then put them back",
	  .flags = HC_OPT_LIST },
	HC_OPT_FORCE(B(force),
		     "--dev: measure the device that holds the default route"),
	HC_OPT_JOURNAL(
		B(journal_dir),
		"what outlives bench's namespaces (--dev's changes, cgroup rows' cgroups, --undo): "),
	HC_OPT_HELP(B(help)),
	{}
};

/*
 * What the parser takes: bench's options, then every scenario's own;
 * scen_of[i]: the scenario whose option i is, -1 for bench's.
 */
static struct hc_opt options[HC_MAX_OPTS + 1];
static int scen_of[HC_MAX_OPTS];

static int options_build(void)
{
	int n = 0, i;
	const struct hc_opt *o;

	/* The tables' names, their choices; the last entry ends them. */
	for (i = 0; bench_scenarios[i]; i++) {
		if (i + 1 == sizeof(scen_names) / sizeof(scen_names[0]))
			return hc_fail(
				HC_EXIT_FAIL,
				"bench: more scenarios than --scenario's choices hold (%d)",
				i);
		scen_names[i] = bench_scenarios[i]->name;
	}
	for (i = 0; bench_topologies[i]; i++) {
		if (i + 1 == sizeof(topo_names) / sizeof(topo_names[0]))
			return hc_fail(
				HC_EXIT_FAIL,
				"bench: more topologies than --topology's choices hold (%d)",
				i);
		topo_names[i] = bench_topologies[i]->name;
	}

	for (o = bench_options; o->name; o++)
		scen_of[n] = -1, options[n++] = *o;
	for (i = 0; bench_scenarios[i]; i++)
		for (o = bench_scenarios[i]->opts; o && o->name; o++) {
			if (n == HC_MAX_OPTS)
				return hc_fail(
					HC_EXIT_FAIL,
					"bench: more options than the parser holds (%d)",
					HC_MAX_OPTS);
			scen_of[n] = i, options[n++] = *o;
		}
	options[n].name = NULL;
	return 0;
}

/* A scenario's option given with another scenario: usage. */
static int scen_options(const struct bench_opts *o)
{
	int i;

	for (i = 0; options[i].name; i++)
		if (o->given >> i & 1 && scen_of[i] >= 0 &&
		    scen_of[i] != o->scenario)
			return hc_fail(HC_EXIT_USAGE,
				       "--%s is the %s scenario's, not %s's",
				       options[i].name,
				       bench_scenarios[scen_of[i]]->name,
				       bench_scenarios[o->scenario]->name);
	return 0;
}

static void usage(void)
{
	int i;

	printf("Usage: hookcmp bench [OPTIONS]\n"
	       "       hookcmp [-n NETNS] bench --dev DEV --gen-cmd CMD|--external [OPTIONS]\n"
	       "       hookcmp bench compare [OPTIONS] OLD.json... -- NEW.json...   (see its --help)\n"
	       "       hookcmp bench calibrate [-j] RUN.json...   (see its --help)\n\n"
	       "Runs every row of a scenario once per round, in a random order, on a\n"
	       "veth pair between two namespaces it creates and removes (or on DEV,\n"
	       "with traffic from elsewhere), and reports each row's cost per packet\n"
	       "against the scenario's baseline with 95%% intervals.\n\n");
	hc_opts_help(stdout, bench_options, bench_scopes);
	printf("\nScenarios:\n");
	for (i = 0; bench_scenarios[i]; i++) {
		const struct bench_scenario *sc = bench_scenarios[i];
		const struct hc_opt *o;

		printf("  %-12s %s (against %s)\n", sc->name, sc->help,
		       sc->baseline);
		for (o = sc->opts; o && o->name; o++)
			hc_opt_help(stdout, o, NULL);
		/* what scenario_target() makes of it: its time, said */
		if (sc->target_ci)
			printf("  %-12s without --rounds or --target-ci: rounds until every delta interval is within +-%g%%, from %d to %d rounds or %g s of them\n",
			       "", sc->target_ci, DEFAULT_ROUNDS,
			       DEFAULT_MAX_ROUNDS, sc->max_time);
	}
}

static void report_json(const void *b, FILE *f)
{
	bench_report_json(b, f);
}

static void report_csv(const void *b, FILE *f)
{
	bench_report_csv(b, f);
}

static int plot_dir_open(const struct bench_opts *o, char *plot_sh, size_t size,
			 bool *created)
{
	struct stat st;

	*created = false;
	if (!o->plot_dir)
		return 0;
	if (!mkdir(o->plot_dir, 0755))
		*created = true;
	else if (errno != EEXIST)
		return hc_fail(HC_EXIT_USAGE, "--plot %s: %s", o->plot_dir,
			       strerror(errno));
	if (stat(o->plot_dir, &st) || !S_ISDIR(st.st_mode) ||
	    access(o->plot_dir, W_OK))
		return hc_fail(HC_EXIT_USAGE,
			       "--plot %s: not a writable directory",
			       o->plot_dir);
	return bench_plot_sh(plot_sh, size);
}

static int plot(struct bench *b, const char *plot_sh)
{
	char json[4200], csv[4200], out[4096];
	const char *argv[] = { "sh", plot_sh, json, b->opt.plot_dir, NULL };
	struct hc_err err = {};
	struct hc_out o;
	int ret;

	snprintf(json, sizeof(json), "%s/bench.json", b->opt.plot_dir);
	snprintf(csv, sizeof(csv), "%s/bench.csv", b->opt.plot_dir);
	ret = hc_out_open(&o, json)			   ?:
		      hc_out_write(&o, report_json, b) ?:
		      hc_out_open(&o, csv)		   ?:
		      hc_out_write(&o, report_csv, b);
	if (ret)
		return ret;
	ret = hc_fault(&err, "bench-plot") ?:
		      hc_exec(-1, argv, out, sizeof(out), &err);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "%s: %s", plot_sh, err.msg);
	fprintf(stderr, "charts in %s\n", b->opt.plot_dir);
	return 0;
}

/* perf's control FIFOs; perf holds them open from before it starts us. */
static int perf_open(struct bench_watch *w, const struct bench_opts *o)
{
	char ctl[512], *ack;

	w->perf_fd = w->perf_ack = -1;
	if (!o->perf_ctl)
		return 0;
	snprintf(ctl, sizeof(ctl), "%s", o->perf_ctl);
	ack = strchr(ctl, ',');
	if (ack)
		*ack++ = '\0';
	w->perf_fd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->perf_fd < 0)
		return hc_fail(
			HC_EXIT_USAGE,
			"--perf-ctl %s: %s (run bench under perf ... --control fifo:%s)",
			ctl,
			errno == ENXIO ? "no perf reads it" : strerror(errno),
			o->perf_ctl);
	fcntl(w->perf_fd, F_SETFL, 0);
	if (ack) {
		w->perf_ack = open(ack, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (w->perf_ack < 0)
			return hc_fail(HC_EXIT_USAGE, "--perf-ctl: %s: %s", ack,
				       strerror(errno));
	}
	return 0;
}

static void perf_close(struct bench_watch *w)
{
	if (w->perf_fd >= 0)
		close(w->perf_fd);
	if (w->perf_ack >= 0)
		close(w->perf_ack);
}

/* ---- the run ---- */

/* An error that ends the bench: the exit code for it, said once. */
static int fatal(const char *what, int ret, const struct hc_err *err)
{
	int code = ret == -ENODEV ? HC_EXIT_FAIL : hc_exit_code(ret);

	return hc_fail(code, "bench: %s%s%s%s%s%s%s", what ? what : "",
		       what ? ": " : "", err->msg, err->msg[0] ? ": " : "",
		       strerror(-ret), err->kernel[0] ? ". Kernel: " : "",
		       err->kernel);
}

/* A tcx link on a device that does not exist: ENODEV if tcx is there. */
static bool probe_tcx(void)
{
	struct hc_run r;
	bool ok = false;
	int fd;

	hc_run_init(&r);
	if (!hc_run_args(&r, "--hook tc --tc-attach tcx --bare", &r.err) &&
	    !r.hook->load(&r)) {
		fd = bpf_link_create(r.prog_fd, 0x7fffffff,
				     hc_tc_dirs[HC_TC_DIR_INGRESS].tcx, NULL);
		ok = fd < 0 && errno == ENODEV;
		if (fd >= 0)
			close(fd);
	}
	hc_prog_unload(&r);
	return ok;
}

/*
 * A topology that injects: on live frames its own; on the stage the
 * first one's (veth), whose frames reach the DUT's NAPI as XDP frames.
 */
static int inject_feed(struct bench_net *net, const struct bench_opts *o)
{
	const struct bench_topo *t;

	if (o->topology < 0 || !(t = bench_topologies[o->topology])->inject)
		return 0;
	if (net->feed == HC_GEN_PACKET)
		return hc_fail(
			HC_EXIT_USAGE,
			"--topology %s and --feed packet: its frames enter hcd's receive path as live frames or from the stage, never as AF_PACKET's skbs",
			t->name);
	if (net->feed == HC_GEN_LIVE)
		net->topo = t;
	return 0;
}

/*
 * How frames reach the DUT: live frames where the kernel runs them, else
 * the stage. inject without them is the stage's: its frames reach hcd's
 * receive path as skbs built from XDP frames, the veth topology's.
 */
static int pick_feed(struct bench *b)
{
	enum hc_gen_method want = b->opt.feed;
	struct hc_err err = {};
	int ret = hc_gen_live_probe(&err);

	b->env.live = !ret;
	if (ret)
		snprintf(b->env.live_why, sizeof(b->env.live_why), "%s: %s",
			 err.msg, strerror(-ret));
	/* What to ask for instead, and what each costs the comparison. */
	if (want == HC_GEN_LIVE && ret)
		return hc_fail(
			HC_EXIT_UNSUPP, "bench: --feed live: %s; %s",
			b->env.live_why,
			b->opt.topology > 0 ?
				"without them inject runs on the stage (--feed auto or stage): hcd's NAPI takes XDP frames from its veth peer, one veth hop more, the generator's cost, which gen-only measures apart from every row" :
				"--feed stage (auto's choice here) hands the DUT XDP frames without them, through one veth hop more, the generator's cost, which gen-only measures apart from every row; --feed packet hands it skbs, which native XDP converts: the xdp-native and AF_XDP rows then run no driver's path");
	b->net.feed = want ?: ret ? HC_GEN_STAGE : HC_GEN_LIVE;
	b->net.topo = bench_topologies[0];
	if (b->opt.stage_copies && b->net.feed != HC_GEN_STAGE)
		return hc_fail(HC_EXIT_USAGE,
			       "--stage-copies is the stage's, and the feed is %s",
			       hc_gen_method_name(b->net.feed));
	if (b->net.feed == HC_GEN_STAGE && !b->opt.stage_copies)
		b->opt.stage_copies = BENCH_STAGE_COPIES;
	if (b->opt.stage_copies & (b->opt.stage_copies - 1))
		return hc_fail(HC_EXIT_USAGE,
			       "--stage-copies %u: a power of 2, up to 64",
			       b->opt.stage_copies);
	/* The stage sends whole copies: windows of them. */
	if (bench_window_opts(&b->opt, b->opt.stage_copies ?: 1, &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	return inject_feed(&b->net, &b->opt);
}

static void header(const struct bench *b)
{
	char mode[64];

	snprintf(mode, sizeof(mode), "%s%s",
		 b->opt.dev ? "device " : bench_cpu_modes[b->opt.cpu_mode],
		 b->opt.dev ? b->opt.dev : " mode");
	fprintf(stderr,
		"hookcmp bench: scenario %s, %s, %d CPUs, BPF JIT %s, seed %u\n",
		b->rows.scen->name, mode, b->env.cpus,
		b->env.jit ? "on" : "OFF (numbers are not JIT numbers)",
		b->opt.seed);
	if (b->env.outside[0])
		fprintf(stderr,
			"Warning: outside the bench, on every row's receive path (the static keys of ingress and generic XDP are global)%s:\n%s",
			!b->rows.scen->keys ?
				"" :
				"; the keys this scenario measures may be on already",
			b->env.outside);
	if (b->env.emulated)
		fprintf(stderr,
			"Warning: the CPU is emulated (%s): every row is marked emulated; its timings say nothing about hardware\n",
			b->env.hypervisor);
}

static int measure(struct bench *b)
{
	struct hc_err err = {};
	int ret;

	b->env.tcx = probe_tcx();
	if (!b->env.tcx)
		fprintf(stderr,
			"tcx links: no (Linux 6.6+), tcx rows will be INVALID\n");
	ret = b->net.topo->up(b, &err);
	if (ret)
		return fatal(NULL, ret, &err);
	b->res.ran = true;
	ret = bench_path_begin(&b->watch, &b->opt) ?: bench_run(b, &err);
	if (ret)
		return fatal("measuring", ret, &err);
	return 0;
}

/*
 * The generator alone measures no hook. No other row valid is exit 1
 * where bench found a fault, 7 where the machine's load left every row
 * too few rounds with a cost: no verdict either way.
 */
static int no_row_valid(const struct bench_rows *rows)
{
	int i, n = 0, load = 0;

	for (i = 0; i < rows->n; i++) {
		const struct bench_row *r = &rows->row[i];

		if (r->kind->generator)
			continue;
		if (!bench_row_void(r) && r->nrd)
			return 0;
		n++;
		load += !r->reason[0] && r->nrd;
	}
	if (n && load == n)
		return hc_fail_after(
			HC_EXIT_NO_VERDICT,
			"bench: no row valid: the machine's load left each too few rounds with a cost (the table says which)");
	return hc_fail_after(HC_EXIT_FAIL,
			     "bench: every row is INVALID (the table says why)");
}

/* A row whose objects' names were taken: someone's, left as they were. */
static int name_taken(const struct bench_rows *rows)
{
	int i;

	for (i = 0; i < rows->n; i++)
		if (rows->row[i].taken)
			return hc_fail_after(HC_EXIT_BUSY, "bench: %s: %s",
					     rows->row[i].name,
					     rows->row[i].reason);
	return 0;
}

/* Was the option called name given? */
static bool given(const struct bench_opts *o, const char *name)
{
	int i = hc_opt_index(options, name);

	return i >= 0 && (o->given >> i & 1);
}

/*
 * A scenario's own target (static-key: +-1%) where no --rounds or
 * --target-ci says how long to measure; --target-ci 0 is a fixed
 * --rounds.
 */
static void scenario_target(struct bench_opts *o)
{
	const struct bench_scenario *sc = bench_scenarios[o->scenario];

	if (!sc->target_ci || given(o, "rounds") || given(o, "target-ci"))
		return;
	o->target_ci = sc->target_ci;
	if (!given(o, "max-time"))
		o->max_time = sc->max_time;
}

/* A --plan error: a usage error, but for the memory to read it. */
static int plan_fail(int ret, const struct hc_err *err)
{
	return hc_fail(ret == -ENOMEM ? HC_EXIT_FAIL : HC_EXIT_USAGE, "%s",
		       err->msg);
}

/*
 * Run I of bench --runs (bench_runs.c), from HOOKCMP_BENCH_RUN "I FILE
 * [PLAN]": its document goes to FILE; with the first run's PLAN, its
 * rows' windows are that run's (the rest of the plan is in the
 * arguments all the runs share).
 */
static int run_child(struct bench_opts *o, struct bench_rows *rows,
		     const char *env)
{
	static char file[4096];
	struct hc_err err = {};
	const char *plan_path;
	int ret;

	if (sscanf(env, "%*d %4095s", file) != 1)
		return hc_fail(HC_EXIT_USAGE, "%s: \"I FILE [PLAN]\", not '%s'",
			       BENCH_RUN_ENV, env);
	o->out_path = file;
	o->seed += atoi(env); /* a given seed: each run its own */
	plan_path = strchr(strchr(env, ' ') + 1, ' ');
	if (!plan_path || o->plan_path)
		return 0;
	ret = bench_plan_load_windows(o, rows, plan_path + 1, &err);
	return ret ? plan_fail(ret, &err) : 0;
}

/*
 * --plan RUN.json: the scenario, topology, CPU mode, rows, windows and
 * visits of an earlier run (plan.c). A bench --runs document's plan is
 * its first run's.
 */
static int plan_load(struct bench_opts *o, struct bench_rows *rows)
{
	struct hc_err err = {};
	int ret = bench_plan_load(o, rows, bench_scenarios, given, &err);

	return ret ? plan_fail(ret, &err) : 0;
}

/*
 * The --dev options go together; without --dev none of them. --journal
 * goes anywhere: without --dev, cgroup rows and --undo journal too.
 */
static int dev_usage(struct bench *b)
{
	const char *dev_only = b->opt.other_dev ? "--other-dev" :
			       b->opt.gen_cmd	? "--gen-cmd" :
			       b->opt.external	? "--external" :
			       b->opt.tune	? "--tune" :
			       b->opt.force	? "--force" :
			       b->opt.netns	? "-n/--netns" :
			       b->opt.window	? "--window" :
			       b->opt.settle	? "--settle" :
						  NULL;

	if (!b->opt.dev) {
		if (b->opt.topology > 0 && b->opt.cpu_mode == BENCH_SPLIT)
			return hc_fail(
				HC_EXIT_USAGE,
				"--cpu-mode split and --topology inject: inject runs the whole receive path in bench's thread, inline");
		if (b->opt.packets && b->opt.window_packets)
			return hc_fail(
				HC_EXIT_USAGE,
				"--packets and --window-packets say the same twice: give one");
		if (!b->opt.windows)
			b->opt.windows = BENCH_WINDOWS;
		if (!b->opt.visits)
			b->opt.visits = b->opt.windows < BENCH_VISITS ?
						1 :
						BENCH_VISITS;
		if (b->opt.visits > b->opt.windows)
			return hc_fail(
				HC_EXIT_USAGE,
				"--visits %u is more than --windows %u: every visit needs a window",
				b->opt.visits, b->opt.windows);
		if (dev_only)
			return hc_fail(
				HC_EXIT_USAGE,
				"%s goes with --dev DEV; bench builds its own veth pair without it",
				dev_only);
		return pick_feed(b);
	}
	if (b->opt.feed)
		return hc_fail(
			HC_EXIT_USAGE,
			"--feed and --dev: the generator of --gen-cmd or --external decides how frames reach %s",
			b->opt.dev);
	if (b->opt.topology >= 0)
		return hc_fail(
			HC_EXIT_USAGE,
			"--topology and --dev: a device of yours is the third topology, with traffic from elsewhere");
	b->net.topo = &bench_topo_dev;
	if (!b->opt.gen_cmd == !b->opt.external)
		return hc_fail(
			HC_EXIT_USAGE,
			"--dev needs --gen-cmd CMD (bench runs it for every window) or --external (traffic flows already), one of them");
	if (b->opt.gen_cmd && (b->opt.window || b->opt.settle))
		return hc_fail(
			HC_EXIT_USAGE,
			"--window and --settle go with --external; --gen-cmd's window is the command's run");
	if (b->opt.cpu_mode >= 0)
		return hc_fail(
			HC_EXIT_USAGE,
			"--cpu-mode is the veth bench's; with --dev the device's own interrupts and NAPI decide");
	if (b->opt.packets || b->opt.windows || b->opt.window_packets ||
	    b->opt.visits)
		return hc_fail(
			HC_EXIT_USAGE,
			"--%s is the veth bench's: with --dev a window is --gen-cmd's run or --window",
			b->opt.packets	      ? "packets" :
			b->opt.windows	      ? "windows" :
			b->opt.window_packets ? "window-packets" :
						"visits");
	b->opt.visits = 1;
	if (!b->opt.window)
		b->opt.window = 1;
	if (!b->opt.settle)
		b->opt.settle = 0.2;

	return 0;
}

static int bench_main(struct bench *b, int argc, char **argv)
{
	struct hc_out out = { .fd = -1, .dir = -1 },
			csv = { .fd = -1, .dir = -1 };
	struct hc_err err = {};
	const char *pos[1], *run_env;
	char plot_sh[512] = "";
	bool plot_created = false, measured = false, report = false;
	int npos, ret, i;

	b->opt.rounds = DEFAULT_ROUNDS;
	b->opt.max_rounds = DEFAULT_MAX_ROUNDS;
	b->net.fd_gen = b->net.fd_dut = b->net.fd_root = -1;
	b->watch.perf_fd = b->watch.perf_ack = -1;
	b->net.clock.self = b->net.clock.softirqd = b->net.clock.softirqd_dut =
		-1;
	b->env.ncpu = libbpf_num_possible_cpus();
	if (b->env.ncpu > BENCH_MAX_CPUS || b->env.ncpu < 1)
		b->env.ncpu = BENCH_MAX_CPUS;
	/*
	 * inline by default: split (threaded NAPI on its own CPU) measured a
	 * CV of 10-30% on the 2-CPU VM this was built on, inline 1-5%.
	 */
	b->opt.cpu_mode = b->opt.topology = -1;
	ret = options_build();
	if (ret)
		return ret;
	ret = hc_opts_parse(options, &b->opt, argc, argv, pos, &npos, 0,
			    &b->opt.given, &err);
	hc_json_pretty = b->opt.pretty;
	b->opt.json |= b->opt.pretty;
	hc_json_mode = b->opt.json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (b->opt.journal_dir)
		hc_journal_set_dir(b->opt.journal_dir);
	run_env = getenv(BENCH_RUN_ENV);
	ret = run_env ? run_child(&b->opt, &b->rows, run_env) : 0;
	if (!ret && b->opt.plan_path && !b->rows.plan_doc)
		ret = plan_load(&b->opt, &b->rows);
	if (ret)
		return ret;
	scenario_target(&b->opt);
	if (hc_opts_scope(options, b->opt.given,
			  b->opt.target_ci ? BENCH_SC_TARGET : 0, bench_scopes,
			  "a fixed number of --rounds", &err))
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	ret = dev_usage(b);
	if (b->opt.cpu_mode < 0)
		b->opt.cpu_mode = BENCH_INLINE;
	if (ret)
		return ret;
	if (b->opt.help) {
		usage();
		return 0;
	}
	if (!b->opt.variant_timeout)
		b->opt.variant_timeout = 10;
	for (i = 0; i < b->opt.nvariants; i++)
		if (!b->opt.variant[i].setup)
			return hc_fail(
				HC_EXIT_USAGE,
				"--variant %s: no --setup: what is its change?",
				b->opt.variant[i].name);
	b->rows.scen = bench_scenarios[b->opt.scenario];
	if (b->opt.dev && b->rows.scen->forward)
		return hc_fail(
			HC_EXIT_USAGE,
			"--scenario %s needs bench's own topology (a sink behind the DUT); not with --dev",
			b->rows.scen->name);
	ret = scen_options(&b->opt);
	if (ret)
		return ret;
	ret = bench_rows_build(b, &err);
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	ret = bench_plan_rows(&b->rows, &b->opt, &err);
	if (ret)
		return plan_fail(ret, &err);
	if (b->opt.cpu_mode == BENCH_SPLIT && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return hc_fail(HC_EXIT_USAGE, "--cpu-mode split needs 2 CPUs");
	if (b->opt.target_ci && b->opt.max_rounds < b->opt.rounds)
		return hc_fail(HC_EXIT_USAGE,
			       "--max-rounds %u is less than --rounds %u",
			       b->opt.max_rounds, b->opt.rounds);
	if (b->opt.profile_top && !b->opt.profile)
		return hc_fail(HC_EXIT_USAGE,
			       "--profile-top goes with --profile");
	if (!b->opt.profile_top)
		b->opt.profile_top = BENCH_PROFILE_TOP;
	if (b->opt.perf_row && !b->opt.perf_ctl)
		return hc_fail(HC_EXIT_USAGE,
			       "--perf-row goes with --perf-ctl");
	b->watch.perf_idx =
		b->opt.perf_row ? bench_row_find(&b->rows, b->opt.perf_row) : 0;
	if (b->watch.perf_idx < 0)
		return hc_fail(HC_EXIT_USAGE,
			       "--perf-row '%s' is not a row of %s",
			       b->opt.perf_row, b->rows.scen->name);
	if (b->opt.runs &&
	    (b->opt.csv_path || b->opt.plot_dir || b->opt.perf_ctl))
		return hc_fail(
			HC_EXIT_USAGE,
			"--runs writes one JSON document (-o); --%s goes with a single run",
			b->opt.csv_path ? "csv" :
			b->opt.plot_dir ? "plot" :
					  "perf-ctl");
	if (b->opt.runs && !run_env)
		/* --dev runs have no plan to repeat: the device decides */
		return bench_runs(b->opt.runs, b->opt.out_path, b->opt.json,
				  b->opt.plan_path || b->opt.dev, argc, argv);
	if (!b->opt.seed_set &&
	    getrandom(&b->opt.seed, sizeof(b->opt.seed), 0) < 0)
		b->opt.seed = getpid() ^ time(NULL);
	ret = hc_check_privileges() ?: hc_cmd_journal(b->opt.journal_dir);
	if (ret)
		return ret;
	b->net.fd_root = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ret = b->net.topo->open ? b->net.topo->open(b, &err) : 0;
	if (ret) {
		ret = hc_fail(ret == -EPERM || ret == -EACCES ? HC_EXIT_PERM :
								HC_EXIT_USAGE,
			      "bench: --dev %s: %s", b->opt.dev,
			      err.msg[0] ? err.msg : strerror(-ret));
		goto out;
	}

	ret = hc_out_open(&out, b->opt.out_path)	 ?:
		      hc_out_open(&csv, b->opt.csv_path) ?:
		      plot_dir_open(&b->opt, plot_sh, sizeof(plot_sh), &plot_created) ?:
		      perf_open(&b->watch, &b->opt);
	if (ret)
		goto out;

	libbpf_set_print(NULL);
	bench_env_take(b, &b->env, false);
	header(b);
	hc_install_signals();
	ret = measure(b);
	if (b->res.ran)
		bench_env_watch(b, -1);
	for (i = 0; i < b->rows.n && !b->rows.row[i].nrd; i++)
		;
	measured = i < b->rows.n;
	/* Cut short before a round counted: nothing to report. */
	report = b->res.ran && (measured || (!ret && !hc_stop_sig));
	if (!report)
		goto out;

	bench_summarize(b);
	bench_profile_summarize(&b->rows);
	if (b->opt.json)
		bench_report_json(b, stdout);
	else
		bench_report_text(b, stdout);
	fflush(stdout);
	i = hc_out_write(&out, report_json, b)	      ?:
		    hc_out_write(&csv, report_csv, b) ?:
		    (b->opt.plot_dir && !hc_stop_sig ? plot(b, plot_sh) : 0);
	ret = ret ?: hc_stop_sig ? 128 + hc_stop_sig : i;
	ret = ret ?: name_taken(&b->rows) ?: no_row_valid(&b->rows);
out:
	if (!report) {
		hc_out_abandon(&out);
		hc_out_abandon(&csv);
		if (plot_created)
			rmdir(b->opt.plot_dir);
	}
	if (!ret && hc_stop_sig)
		ret = 128 + hc_stop_sig;
	perf_close(&b->watch);
	bench_path_end(&b->watch);
	b->net.topo->down(b);
	if (b->net.fd_root >= 0)
		close(b->net.fd_root);
	for (i = 0; i < b->rows.n; i++)
		bench_profile_free(&b->rows.row[i]);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench *b = calloc(1, sizeof(*b));
	int ret, i;

	/* "compare" after any global options main passed on (-j, -p) */
	for (i = 1; i < argc && argv[i][0] == '-'; i++)
		;
	if (i < argc &&
	    (!strcmp(argv[i], "compare") || !strcmp(argv[i], "calibrate"))) {
		bool cal = !strcmp(argv[i], "calibrate");

		free(b);
		memmove(argv + i, argv + i + 1, (argc - i) * sizeof(*argv));
		return cal ? cmd_bench_calibrate(argc - 1, argv) :
			     cmd_bench_compare(argc - 1, argv);
	}
	if (!b || bench_rows_alloc(&b->rows)) {
		free(b);
		return hc_fail(HC_EXIT_FAIL, "out of memory");
	}
	ret = bench_main(b, argc, argv);
	jp_free(b->rows.plan_doc);
	bench_rows_free(&b->rows);
	free(b);
	return ret;
}
