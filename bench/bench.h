/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: what its parts share. A scenario (scen_*.c) builds rows;
 * each row has a kind (kind_*.c) that puts its hook in place, counts and
 * takes it away; a topology (topo.c: a veth pair and a generator of our
 * own; dev.c: a given device with traffic from elsewhere) holds the
 * device rows attach to and measures each window; run.c measures every
 * row once per round in the order order.c draws; statistics.c turns the
 * rounds into estimates; report.c prints them as text, JSON or CSV;
 * plan.c writes and reads back what a later run repeats (--plan).
 */
#ifndef HC_BENCH_H
#define HC_BENCH_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <net/if.h>
#include <sys/types.h>
#include "hookcmp.h"
#include "sample.h"
#include "jparse.h"
#include "ethtool.h"
#include "gen.h"
#include "stats.h"
#include "order.h"
#include "statistics.h"
#include "clock.h"

#define BENCH_MAX_ROWS BENCH_ORDER_MAX
#define BENCH_GEN_DEV "hcg"
#define BENCH_DUT_DEV "hcd"
#define BENCH_OTHER_DEV "hcx" /* a second device in the DUT's namespace */
#define BENCH_SPARE_DEV "hcz" /* holds the generator's program */
#define BENCH_SPARE_PEER "hcw" /* inject: its floor's, the XDP_DROP loop */
/* AF_PACKET: gen-only's frames, sent to an ifb (it drops what tc did not redirect) */
#define BENCH_DISCARD_DEV "hcq"
#define BENCH_FEED_DEV "hcf" /* stage: AF_PACKET sends on it */
#define BENCH_STAGE_DEV "hcr" /* its peer: native XDP redirects to hcg */
#define BENCH_OUT_DEV "hco" /* forward: the DUT's way to the sink */
#define BENCH_SINK_DEV "hcs" /* its peer, in the sink's namespace */
#define BENCH_FWD_NET "198.51.100.0" /* forward: routed out of hco */
#define BENCH_FWD_DST "198.51.100.2" /* the frames' destination there */

#define BENCH_LEVEL 0.95
#define BENCH_OUTLIER_Z 3.5 /* modified z-score that flags a round */
#define BENCH_DRIFT_MAX 1.10 /* gen-only's max/min time per packet */
#define BENCH_SEEN_MIN 0.95 /* veth: the hook saw 95% of the frames or more */
#define BENCH_TOLERANCE 0.001 /* --dev: counts that agree within 0.1% */
#define BENCH_WINDOWS 20 /* veth: short windows per row and round */
#define BENCH_WINDOW_SECS 0.005 /* what the warm-up sizes them to */
#define BENCH_PACE_SECS 1.0 /* the longest a paced window waits (topo.c) */
/* packets per window in the warm-up: a multiple of the stage's copies */
#define BENCH_WINDOW_START 5120
/* The stage's copies of each frame sent, by default: a NAPI poll's batch. */
#define BENCH_STAGE_COPIES 64
#define BENCH_VISITS 2 /* veth: turns per row and round */
#define BENCH_CONTENDED 1.2 /* veth: a round this much over the row's fastest */
#define BENCH_WINDOW_Q 0.0 /* a round's cost: this quantile of its windows */
#define BENCH_MAX_CPUS HC_MAX_CPUS
#define BENCH_CPU_GEN 0 /* veth: bench's thread, inline the DUT's NAPI too */
#define BENCH_CPU_DUT 1 /* split: the DUT's NAPI kthreads */
#define BENCH_PROFILE_TOP 15 /* --profile-top's default */
/*
 * A slope of growth (ns per doubling of N) whose interval holds 0 or
 * stays under this is O(1): a trie's few more levels, not a walk of a set.
 */
#define BENCH_FLAT_NS 1.0

struct bench;
struct bench_row;
struct bench_rows;
struct bench_round;
struct hc_opt;
struct hc_pr;

/* What a row's hook counted so far. */
struct bench_count {
	__u64 seen; /* packets that reached the hook; forward: the sink */
	__u64 passed; /* of those, let through; forward: to the DUT's stack */
	__u64 dropped; /* dropped before it by the hook's own rings (AF_XDP) */
	__u64 ring_full; /* of those, with its rx ring full (else: fill ring) */
	__u64 dropped_dut; /* forward: dropped at the DUT, where dropped_at says */
	/* Per CPU where the kind counts so (set cpus), into a caller's array. */
	__u64 *cpu;
	bool cpus;
};

/* The device's own counters (IFLA_STATS64) that bench accounts with. */
struct bench_dev_count {
	__u64 rx_packets, rx_dropped, rx_missed_errors, rx_fifo_errors,
		rx_over_errors;
	__u64 rx_otherhost; /* dropped by ip_rcv: not our MAC */
};

/*
 * Where rows run and where their traffic comes from. Shared code never
 * asks which topology it is.
 */
struct bench_topo {
	const char *name;
	/* Finds what the user named, changing nothing: errors are usage. */
	int (*open)(struct bench *b, struct hc_err *err);
	int (*up)(struct bench *b, struct hc_err *err);
	void (*down)(struct bench *b);
	/*
	 * One row's window, its hook in place: the counts, the time, the
	 * rate into rd. -errno ends the bench; a failure of the row alone
	 * goes to bench_row_fail() and returns 0.
	 */
	int (*measure)(struct bench *b, struct bench_row *r,
		       struct bench_round *rd, bool perf, struct hc_err *err);
	/* The report's lines on what was measured how. */
	void (*describe)(const struct bench *b, FILE *f);
	/*
	 * Scope checks: before the run (r NULL), -errno refuses it; after a
	 * row's setup, a row that fails is INVALID (scope.c).
	 */
	int (*scope)(struct bench *b, struct bench_row *r, struct hc_err *err);
	/* Counts add up exactly (our own generator) or the row is INVALID;
	 * else within BENCH_TOLERANCE, or the row is unverified. */
	bool exact;
	bool own_gen; /* gen-only rows measure the generator */
	/*
	 * Frames enter the DUT's receive path from bench's thread, no driver
	 * on the way (BPF_PROG_RUN live frames, XDP_PASS, ingress_ifindex).
	 */
	bool inject;
	/* gen-only's window: the generator's work alone, on or off again. */
	int (*gen_alone)(struct bench *b, bool on, struct hc_err *err);
	/* Optional: what its feed adds to a row's path, once it is built. */
	void (*row_path)(const struct bench *b, struct bench_row *r);
	/*
	 * Optional: the namespaces it made, which the machine's state leaves
	 * out (env.c), into fds[3]: how many.
	 */
	int (*own_ns)(const struct bench *b, int *fds);
	/*
	 * Optional: the CPUs whose busy time a window counts, into cpus (up
	 * to max): how many. Without it, the clock's threads (path.c).
	 */
	int (*rx_cpus)(const struct bench *b, int *cpus, int max);
};

/*
 * A row kind: how its hook is put in place before a timed window, read,
 * and taken away after it. Shared code never asks which kind a row is.
 */
struct bench_kind {
	const char *name;
	/* Optional: the row's own state, once, as it is built. */
	void (*init)(struct bench_row *r);
	int (*setup)(struct bench *b, struct bench_row *r, struct hc_err *err);
	void (*teardown)(struct bench *b, struct bench_row *r);
	int (*read)(struct bench *b, struct bench_row *r,
		    struct bench_count *c);
	/*
	 * Optional: why the tool it runs cannot carry --dev's name (NULL: it
	 * can), asked before anything changes.
	 */
	const char *(*dev_refused)(const char *dev);
	/* It measures the generator alone: its rate is what was sent. */
	bool generator;
	/* forward: the counters read() sums into dropped */
	const char *dropped_at;
	/* read() runs a command (ms): --dev reads it at a window's edges only */
	bool forks;
	/* its rows' kernel path, as struct hc_hook_row's (path.c) */
	const char *path;
	/*
	 * How often the code its counts are kept in has run so far (a BPF
	 * program's runs while BPF stats are on; without runs(), what read()
	 * saw, as a rule's counter), and the path's alternatives that code
	 * is: a group of them is met when this grew in the sampled visit, in
	 * no sample or not (path.c).
	 */
	int (*runs)(struct bench *b, struct bench_row *r, __u64 *runs);
	const char *counted;
	/*
	 * Its own threads take the frames from a ring after the generator's
	 * call: each window ends once they have taken all it sent (topo.c),
	 * so that its rings hold at most one window and its time holds their
	 * work on its frames, not on the last window's.
	 */
	bool paced;
};

/* The stack's IPv4 receive: where frames not for the hooks end. */
#define BENCH_PATH_STACK "ip_rcv|ip_rcv_core|ip_list_rcv|ip_sublist_rcv"

/*
 * A scenario: one file each (scen_*.c), one line in bench_scenarios[].
 * What only it has (options, members of a row, a section of the report)
 * it owns here; shared code never asks which scenario it is.
 */
struct bench_scenario {
	const char *name;
	const char *help;
	const char *baseline; /* what its rows are compared with */
	void (*build)(struct bench_rows *rows);
	/*
	 * Optional: its own options, each with .cfg its values' place in
	 * its file; --help lists them under it, and they go with it only.
	 */
	const struct hc_opt *opts;
	/* Optional: its JSON members of a row, after the frame's. */
	void (*row_json)(struct hc_pr *p, const struct bench *b,
			 const struct bench_row *r);
	/* Optional: its section of the report, after the rows (text, JSON). */
	void (*report)(struct hc_pr *p, const struct bench *b);
	/* Its rows send frames on: a sink namespace behind the DUT (topo.c). */
	bool forward;
	/* It measures the ingress static keys: ones on already are said. */
	bool keys;
	/* without --rounds or --target-ci: this --target-ci and --max-time */
	double target_ci, max_time;
};

/* The hook's and the device's counts at one moment of a window. */
struct bench_sample {
	double t; /* seconds since the window opened */
	__u64 seen, rx, dropped; /* since it opened */
	double cpu_ns; /* --dev: non-idle time of the receive CPUs since then */
};

/*
 * One short window of a row's turn: its packets and their CPU time (the
 * wall clock's where there is no CPU clock).
 */
struct bench_window {
	__u64 packets;
	double secs, cpu_ns;
	double own_ns; /* of which the row's own threads' */
	bool excluded; /* work on an uncounted CPU, or steal (scope.c) */
};

/* One row in one measured round. */
struct bench_round {
	int round; /* 1-based */
	int order; /* 0-based position in the round */
	__u64 generated, seen, dropped_before;
	/* of dropped_before: AF_XDP's rx ring full, its fill ring empty */
	__u64 ring_full, fill_empty;
	__u64 dropped_dut; /* forward: dropped on the way through the DUT */
	__u64 passed; /* let through by the hook */
	bool generated_known; /* --external: nothing says what was sent */
	__u64 offered; /* --gen-cmd: what gen says it offered, if it says */
	char cause
		[256]; /* --dev: the likely cause if the sum fails, and the fix */
	bool whole; /* the window ran to its end: not cut by a signal */
	double secs; /* the timed window by the wall clock, or its steady part */
	double cpu_ns; /* the CPU time of its packets' work; NaN: no clock */
	double own_ns; /* of which its own threads' (AF_XDP's consumer) */
	/* split: the generator's CPU time on this row's path (bench's thread) */
	double gen_cpu_ns;
	double setup_ms, teardown_ms; /* around it, not in it */
	double mpps; /* by the wall clock */
	double pkt_ns; /* CPU (or wall) time per packet: its fastest windows' */
	double pkt_ns_loaded; /* over all its windows: under the machine's load */
	double ns; /* cost per packet (see bench_summarize); NaN: none */
	double ns_loaded; /* the same from pkt_ns_loaded */
	bool outlier;
	bool contended; /* veth: no window the host left alone: no cost */
	bool unverified; /* the device's counters do not close the sum */
	char excluded
		[160]; /* why no estimate takes its first excluded window */
	int nexcluded; /* its windows no estimate takes */
	/* --dev: the device's deltas, and its ethtool statistics' */
	struct bench_dev_count dev;
	__u64 *ethtool;
	/* Rate per CPU (ncpu of them); NULL where the kind counts none. */
	double *cpu_mpps;
	/* --dev: the samples, and the steady part the rate is taken from */
	struct bench_sample *samples;
	int nsamples;
	double steady_from, steady_to;
	/* veth: the windows of the turn */
	struct bench_window *win;
	int nwin;
	int visits; /* the row's turns in the round, windows of all in win */
};

/* What the report shows of a row; NaN where there is nothing to show. */
/* A row's costs against another row's, paired by round. */
struct bench_vs {
	struct st_est delta, ratio;
	/* The effect this row's rounds detect with 80% power (st_mde). */
	double mde_ns, mde_pct; /* pct: of the row's own cost */
	bool significant;
};

struct bench_sum {
	int n; /* rounds with a cost */
	double mpps_med, mpps_min, mpps_max;
	struct st_est ns;
	struct bench_vs base; /* against the scenario's baseline */
	double ns_loaded; /* median over rounds of the windows' mean cost */
	double delta_median; /* of the paired deltas, beside their HL */
	int outliers;
	int contended; /* rounds with no uncontended window */
	int excluded; /* windows no estimate takes (bench_scope_window) */
	double drift; /* max/min of the time per packet over the rounds */
	bool gen_bound; /* split: the hook ran as fast as the generator */
	struct bench_vs variant; /* a variant's, against its own row (vbase) */
	char unusable[128]; /* too few rounds with a cost: why, no estimates */
	bool unresolved; /* bench_summarize: its delta's interval too wide */
};

/* A row's path check. */
struct bench_path {
	bool checked;
	__u64 samples;
	__s64 runs; /* its counted code's runs in them, -1 unknown */
	char missing[160]; /* its groups no sample ran */
	char unexpected[160]; /* its '!' groups that ran, with their counts */
	char why[160]; /* not checked: why */
};

/* A function's share of a row's cost over the rounds (profile.c). */
struct bench_prof_fn {
	const char *name;
	double ns; /* median over rounds of self samples x period / packets */
	struct st_est delta; /* minus the baseline's, paired per round */
	bool path; /* one of the row's path functions */
};

/* --variant: a change of the user's, made and undone around a row's visit. */
struct bench_variant {
	const char *name, *setup, *undo;
	const char *path; /* --variant-path: more of the path it must run */
};
#define BENCH_MAX_VARIANTS 4

/*
 * A row's kind state: the largest kind's, the qdisc's two journal records
 * and what it puts in place.
 */
#define BENCH_KSTATE_SIZE (2 * sizeof(struct hc_jrec) + 16)
/* r's kind state as its kind's struct T (const T for a const r). */
#define BENCH_KSTATE(r, T) ((T *)(r)->kstate)
#define BENCH_KSTATE_FITS(T)                                               \
	_Static_assert(sizeof(T) <= BENCH_KSTATE_SIZE && _Alignof(T) <= 8, \
		       #T " fits in a row's kind state")

struct bench_row {
	char name[40];
	const struct bench_kind *kind;
	const struct hc_hook_row
		*hook; /* a hook's row (run.hook): NULL if none */
	/*
	 * The hook's run, as its scenario configures it: the bpf, xsk and
	 * forward kinds', and flower's program after its filters.
	 */
	struct hc_run run;
	/* Its kind's own state (kind_*.c), read through BENCH_KSTATE. */
	_Alignas(8) unsigned char kstate[BENCH_KSTATE_SIZE];
	__u32 size; /* frame length */
	__u32 flows; /* source ports its frames cycle through; 0 or 1: one */
	bool local; /* frames addressed to the DUT's MAC and IP */
	bool drop; /* the hook must pass nothing */
	bool forward; /* every frame must reach the sink */
	/*
	 * Its series: the scenario's rows of one mechanism or hook along the
	 * quantity it varies (scale: the set's entries), NULL: none.
	 */
	const char *series;
	__u32 entries; /* the set its kind puts in place, 0: none */
	bool hit; /* tests: its set holds the traffic's source (scale.h) */
	char base_name[40]; /* the row this one is compared with */
	const struct bench_variant *variant; /* ROW+NAME: ROW with it; NULL */
	int vbase; /* ROW's index, -1 for none */
	int variant_failed; /* rounds its --setup failed in, left out */
	int variant_round; /* the last of them */
	/* the first one's why, whole: its round and an hc_err's message */
	char variant_why[sizeof(((struct hc_err *)0)->msg) + 16];
	/* what its commands left running: the first time said, all pids */
	char variant_left[400];
	int variant_left_pid[8];
	int nvariant_left;
	int base; /* its index, -1 for none */
	int gen; /* index of the gen-only row at this size and flows */
	__u32 window_packets; /* veth: per window; plan.c sets it */

	struct bench_round *rd;
	int nrd, cap;
	bool other; /* needs a second device in the DUT's namespace */
	char reason[512]; /* why the row is INVALID */
	char unverified[512]; /* why its counts are not verified */
	bool dead; /* setup failed: it runs no more */
	bool taken; /* setup found its name taken: not ours, left (exit 5) */
	bool warned; /* --dev: what it could not receive, said */
	struct bench_sum sum;
	/*
	 * The kernel functions its path runs: groups of alternatives
	 * ("a|b"), a trailing '*' a prefix, '!' a group it must not run.
	 */
	char path[256];
	struct bench_path path_check;
	struct bench_prof *prof; /* --profile: per round */
	int nprof;
	struct bench_prof_fn *pfn; /* --profile: by cost, the top first */
	int npfn;
	double prof_ns; /* the profile's sum per packet, all functions */
	double prof_over; /* profiled windows' cost over the timed ones', -1 */
	double prof_timed; /* the timed windows' time per packet, the same */
	double prof_clock; /* the profiled windows' by the task clocks */
};

/* The settings outside the bench that move a receive path's cost (env.c). */
#define BENCH_ENV_FILES 10
/* Their first lines, as read at one moment (a variant's visit). */
typedef char bench_settings[BENCH_ENV_FILES][1024];
#define BENCH_ENV_FOREIGN 4096

struct bench_env {
	int cpus;
	bool jit, tcx;
	bool live; /* the kernel runs live XDP frames */
	char live_why[720]; /* else why not, in its words */
	bool cpu_clock; /* task-clock counters, not the wall clock */
	/*
	 * Everything outside the bench that turns on a static key of the
	 * receive path or sits on it, in every namespace, one a line,
	 * sorted: "clsact qdisc on veth3 (netns 'x')", "generic XDP ...".
	 */
	char outside[BENCH_ENV_FOREIGN];
	bench_settings value; /* bench_env_files' contents */
	char cpu_model[128];
	char mitigations[1024]; /* "name: state" a line */
	char config_hash[20]; /* FNV-1a of the kernel's config, "" unread */
	/* what differs after the run from before it, one a line */
	char changed[1024];
	char kernel[65];
	char hypervisor[13]; /* CPUID's signature, "" on bare metal */
	bool emulated; /* qemu TCG: timings mean nothing */
	int ncpu; /* possible CPUs: the length of per-CPU arrays */
};

enum bench_cpu_mode { BENCH_SPLIT, BENCH_INLINE };

/*
 * What the command line asked for: set while the options are parsed and
 * their defaults filled in (cli/bench.c), read-only from then on.
 */
struct bench_opts {
	int scenario, cpu_mode, topology;
	int feed; /* enum hc_gen_method: how frames reach the DUT, 0: auto */
	__u32 stage_copies; /* XDP frames per frame sent, a power of 2 <= 64 */
	__u32 rounds, max_rounds, packets, seed;
	/* veth: per row and round; window_packets: plan.c's, 0: calibrate */
	__u32 windows, window_packets;
	__u32 visits; /* veth: turns per row and round, the windows shared out */
	double target_ci; /* percent; 0: a fixed number of rounds */
	double max_time; /* with it: give up after this many seconds; 0: none */
	const char *hooks, *out_path, *csv_path, *plot_dir, *netns;
	const char *perf_ctl, *perf_row;
	bool json, help, seed_set, per_cpu;
	unsigned int runs; /* --runs: this many runs, each a bench again */
	const char *plan_path; /* --plan: an earlier run's rows and windows */
	bool no_path, profile;
	__u32 profile_top;
	/* --dev */
	const char *dev, *other_dev, *gen_cmd, *tune;
	bool external, force;
	double settle, window;
	struct bench_variant variant[BENCH_MAX_VARIANTS];
	int nvariants;
	double variant_timeout; /* seconds a --setup or --undo may take */
	const char *journal_dir; /* --journal */
	bool pretty; /* -p */
	unsigned long long given; /* the options given, by index */
};

/* The topology's own state (bench/topos/internal.h), its up's or open's. */
struct bench_topo_state;

/*
 * Where rows run: what every topology gives the rest of bench, the DUT
 * and the namespaces bench's thread moves between. What only one has is
 * in its state, reached through its header's functions (topo.h, dev.h).
 */
struct bench_net {
	const struct bench_topo *topo;
	struct bench_topo_state *state;
	/* how frames reach the DUT: picked with the options (not --dev) */
	enum hc_gen_method feed;
	int fd_root; /* where bench started */
	int fd_gen, fd_dut; /* fd_gen: where the thread waits between steps */
	struct hc_nl *nl_dut;
	int if_dut, if_other; /* other: the rows' second device, 0: none */
	char dut_name[IF_NAMESIZE], other_name[IF_NAMESIZE];
	__u8 dut_mac[6];
	char dut_ip[16]; /* its IPv4 address, "" if none */
	bool journal; /* rows journal what they attach: it outlives us */
	/* the task clocks: rows' own threads join them (AF_XDP's consumer) */
	struct bench_clock clock;
};

/* What watches a visit: perf's control channel, or the sampler (path.c). */
struct bench_watch {
	int perf_fd, perf_ack, perf_idx; /* perf_idx: --perf-row's row */
	struct hc_ksyms ksyms; /* the kernel's symbols */
	char ksyms_why[160]; /* they cannot be read: why */
	struct hc_sampler *smp;
	struct bench_env *env_seen; /* the machine at the last round's end */
};

/* The visit measured now, as run.c and variant.c set it up. */
struct bench_visit {
	__u32 windows; /* its windows */
	bool path_pass; /* the path check's visits: kinds count their runs */
	bool bpf_stats; /* on in them: BPF programs count their runs */
	struct hc_jrec variant_rec; /* the --undo due, for cleanup if killed */
};

/* The scenario's rows, built once, and the plan that sized their windows. */
struct bench_rows {
	const struct bench_scenario *scen;
	struct bench_row *row; /* BENCH_MAX_ROWS and one (bench_rows_alloc) */
	int n;
	bool too_many;
	bool planned; /* the rows' windows come from it, not the warm-up */
	struct jp *plan_doc; /* --plan's document */
};

/* What the rounds came to, beyond the rows' own: the report's. */
struct bench_result {
	bool ran; /* the rounds began: there is a report to give */
	int nrounds; /* measured rounds */
	bool target_reached;
	struct st_stop stop; /* --target-ci's checks so far */
	/* the last check's widest delta interval, % of cost; row NULL: none */
	double widest_pct;
	const char *widest_row;
	double resolution_ns, resolution_pct;
};

struct bench {
	struct bench_opts opt;
	struct bench_net net;
	struct bench_watch watch;
	struct bench_visit visit;
	struct bench_env env; /* the machine, before the run and after */
	struct bench_rows rows;
	struct bench_result res;
};

static inline int bench_enter(int nsfd)
{
	return setns(nsfd, CLONE_NEWNET) ? -errno : 0;
}

#endif
