// SPDX-License-Identifier: GPL-2.0
/* hookcmp gen: the built-in packet generator's command. */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "cli.h"
#include "gen.h"
#include "nl.h"
#include "opts.h"
#include "print.h"
#include "set.h"
#include "srcs.h"
#include "stats.h"

struct gen_cli {
	const char *netns, *dst_mac, *src_mac, *src, *dst, *rules_file,
		*hit_rate;
	int proto, method;
	bool ipv6, json, pretty, raw, refresh, help, force, allow_drops, inject,
		progress;
	__u32 vlan, size, flows, sport, dport, count, rate, threads, queue;
	double duration;
};

#define G(f) offsetof(struct gen_cli, f)

/* More than 0.1% of what the kernel took from the loop did not leave. */
static bool lost(__u64 offered, __u64 left)
{
	return offered > left && (offered - left) * 1000 > offered;
}

/* Why frames did not leave, from what the device counted. */
static void gen_lost(char *why, size_t size, const char *dev, __u64 offered,
		     __u64 left, __u64 dropped, bool live)
{
	int n = snprintf(why, size,
			 "only %llu of %llu frames offered left %s (TX counter)",
			 (unsigned long long)left,
			 (unsigned long long)offered, dev);

	if (live && left * 1000 < offered)
		snprintf(why + n, size - n,
			 ": its peer takes XDP frames (live, or the stage's) only when it runs NAPI (a veth: an XDP program there, or GRO on)");
	else if (dropped * 2 >= offered - left)
		snprintf(why + n, size - n,
			 ": a full ring, tx_dropped rose by %llu: the receiver did not keep up (--rate, or a faster receiver)",
			 (unsigned long long)dropped);
	else
		snprintf(why + n, size - n,
			 ": %llu went uncounted (tx_dropped rose by %llu)",
			 (unsigned long long)(offered - left - dropped),
			 (unsigned long long)dropped);
}

/*
 * The kernel refused live frames (the loader's hint, what the other ways
 * cost, says so): what to ask for instead, as unsupported (exit 4).
 */
static int gen_live_refused(const struct gen_cli *c, const char *dev, int ret,
			    const struct hc_err *err)
{
	char instead[160];

	if (c->inject)
		snprintf(
			instead, sizeof(instead),
			"--inject has no other way into %s's receive path: send from its veth peer instead (hookcmp gen PEER --method stage or packet)",
			dev);
	else
		snprintf(instead, sizeof(instead),
			 "%s--method stage or packet instead",
			 c->raw ? "--raw is the live loop's own ceiling: " :
				  "");
	return hc_fail(HC_EXIT_UNSUPP, "gen on %s: %s: %s; %s: %s", dev,
		       err->msg, strerror(-ret), instead, err->hint);
}

static const struct hc_opt gen_opts[] = {
	{ "dst-mac", 0, HC_OPT_STR, G(dst_mac), "MAC",
	  "destination MAC (default 02:00:00:00:00:02, not local: the stack drops it)" },
	{ "src-mac", 0, HC_OPT_STR, G(src_mac), "MAC",
	  "source MAC (default DEV's)" },
	{ "src", 0, HC_OPT_STR, G(src), "IP",
	  "source address (default 198.18.0.1 or 2001:2::1)" },
	{ "dst", 0, HC_OPT_STR, G(dst), "IP",
	  "destination address (default 198.18.0.2 or 2001:2::2)" },
	{ "proto", 0, HC_OPT_ENUM, G(proto), NULL, "L4 protocol (default udp)",
	  HC_CHOICES("udp", "tcp", "icmp") },
	{ "ipv6", '6', HC_OPT_FLAG, G(ipv6), NULL, "send IPv6" },
	{ "vlan", 0, HC_OPT_U32, G(vlan), "ID",
	  "add an 802.1Q tag (live: turns --refresh on)", NULL, 1, 4094 },
	{ "size", 's', HC_OPT_U32, G(size), "BYTES",
	  "frame size without FCS, up to DEV's MTU + 14 (+ 4 with --vlan); live frames: about 3.4 KB (default: 60, or the least the headers need)",
	  NULL, HC_PKT_MIN, HC_PKT_MAX },
	{ "flows", 0, HC_OPT_U32, G(flows), "N",
	  "vary the source port (ICMP: echo id) over N values (default 1)",
	  NULL, 1, 65535 },
	{ "rules-file", 0, HC_OPT_STR, G(rules_file), "FILE",
	  "the rule set (run's format) whose source prefixes --hit-rate aims at; the other frames' sources are outside it" },
	{ "hit-rate", 0, HC_OPT_STR, G(hit_rate), "FRAC",
	  "the fraction (0..1, or 0..100%) of frames with a source in one of the set's prefixes, spread over them all: exactly round(N*FRAC) of a thread's N frames (default 0)" },
	{ "sport", 0, HC_OPT_U32, G(sport), "PORT",
	  "first source port (default 1024)", NULL, 0, 65535 },
	{ "dport", 0, HC_OPT_U32, G(dport), "PORT",
	  "destination port (default 9)", NULL, 0, 65535 },
	{ "count", 'c', HC_OPT_U32, G(count), "N", "send exactly N frames",
	  NULL, 1, 0xffffffff },
	{ "duration", 'd', HC_OPT_SECS, G(duration), "SEC",
	  "send for SEC seconds (default 1 without --count)", NULL, 1 },
	{ "rate", 0, HC_OPT_U32, G(rate), "PPS",
	  "at most PPS frames per second in all", NULL, 1, 0xffffffff },
	{ "threads", 't', HC_OPT_U32, G(threads), "N",
	  "sending threads, one per CPU (default 1)", NULL, 1, 256 },
	{ "method", 0, HC_OPT_ENUM, G(method), NULL,
	  "live XDP frames, AF_PACKET, live with AF_PACKET as fallback (default auto), or the stage: AF_PACKET on a veth pair of gen's own whose peer redirects every frame to DEV in native XDP, so that DEV takes XDP frames",
	  hc_gen_methods },
	{ "raw", 0, HC_OPT_FLAG, G(raw), NULL,
	  "diagnostic: live frames with no per-frame work (the loop's ceiling)" },
	{ "refresh", 0, HC_OPT_FLAG, G(refresh), NULL,
	  "live: write the L2 and L3 headers into every frame, for a DUT that edits them (a router)" },
	{ "inject", 0, HC_OPT_FLAG, G(inject), NULL,
	  "into DEV's receive path, as if DEV had received them (XDP_PASS: as pktgen's netif_receive mode)" },
	{ "queue", 0, HC_OPT_U32, G(queue), "N",
	  "--inject: the RX queue they arrive on (default 0)", NULL, 0,
	  0xfffffffe },
	{ "allow-drops", 0, HC_OPT_FLAG, G(allow_drops), NULL,
	  "frames that do not leave DEV are a warning, not exit 1 (for a receiver that counts them: bench --dev)" },
	{ "progress", 0, HC_OPT_FLAG, G(progress), NULL,
	  "a progress line on stderr once a second: sent, rate, time left (default: when stderr is a terminal, without --json)" },
	HC_OPT_NETNS(G(netns), "run inside network namespace NAME"),
	HC_OPT_FORCE(G(force),
		     "send even out of the device with the default route"),
	HC_OPT_JSON(G(json), "one JSON summary object"),
	HC_OPT_PRETTY(G(pretty)),
	HC_OPT_HELP(G(help)),
	{}
};

struct worker {
	pthread_t tid;
	struct hc_gen *g;
	int cpu;
	__u64 count; /* 0: until the deadline */
	double end;
	double rate; /* per thread, 0: flat out */
	__u64 sent; /* read by progress() while the worker runs */
	int err;
	bool done;
};

/*
 * Each BPF_PROG_RUN call costs two synchronize_rcu() in the kernel (the
 * XDP dispatcher), so a live call should last about CHUNK_SECS: paced live
 * frames leave in bursts of that length. AF_PACKET paces per millisecond.
 */
#define CHUNK_SECS 0.2

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	double start = hc_now(), t;
	double pace = w->g->method == HC_GEN_LIVE ? CHUNK_SECS : 0.001;
	/* A first chunk of the least size: progress() sees it soon. */
	__u64 chunk = w->rate ? fmax(1, w->rate * pace) : 65536;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!hc_stop_sig && (!w->count || w->sent < w->count)) {
		__u64 n = chunk, done = 0;

		t = hc_now();
		if (!w->count && t >= w->end)
			break;
		if (!w->count && !w->rate && w->sent)
			n = fmin(n,
				 fmax(1, (w->end - t) * w->sent / (t - start)));
		if (w->count && w->count - w->sent < n)
			n = w->count - w->sent;
		w->err =
			hc_gen_send_from(w->g, w->sent, n, &done, &hc_stop_sig);
		__atomic_store_n(&w->sent, w->sent + done, __ATOMIC_RELAXED);
		if (w->err)
			break;
		if (!w->rate)
			chunk = fmin(
				fmax(done / (hc_now() - t) * CHUNK_SECS, 65536),
				1 << 27);
		if (w->rate) {
			double due = start + w->sent / w->rate, now = hc_now();

			if (due > now) {
				struct timespec ts = {
					.tv_sec = (time_t)(due - now),
					.tv_nsec =
						(long)((due - now -
							(time_t)(due - now)) *
						       1e9),
				};
				nanosleep(&ts, NULL);
			}
		}
	}
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Once a second while the workers run, as pv does: one line on stderr,
 * rewritten in place (\r), ended by a newline when they are done. Frames
 * the loop sent; a live chunk lasts 0.2 s, so the rate moves in steps.
 */
static void progress(struct worker *w, int n, __u64 count, double t0,
		     double end)
{
	double next = t0 + 1, now, tlast = t0, rate, left;
	__u64 sent, last = 0;
	int i, len = 0, shown;
	char line[96];

	for (;;) {
		for (i = 0;
		     i < n && __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE);
		     i++)
			;
		if (i == n)
			break;
		now = hc_now();
		if (now < next) {
			usleep(fmin(next - now, 0.05) * 1e6);
			continue;
		}
		for (sent = 0, i = 0; i < n; i++)
			sent += __atomic_load_n(&w[i].sent, __ATOMIC_RELAXED);
		rate = (sent - last) / (now - tlast);
		/* Time left: to the deadline, or at the rate so far. */
		left = ceil(count ? (count - sent) /
					    fmax(sent / (now - t0), 1) :
				    fmax(end - now, 0));
		/* Spaces over what is left of a longer line before. */
		shown = snprintf(line, sizeof(line),
				 "gen: %llu sent, %.0f pps, %.0f s left",
				 (unsigned long long)sent, rate, left);
		fprintf(stderr, "\r%s%*s", line, len > shown ? len - shown : 0,
			"");
		len = shown;
		last = sent;
		tlast = now;
		next += floor(now - next) + 1;
	}
	if (len)
		fputc('\n', stderr);
}

static void gen_usage(void)
{
	printf("Usage: hookcmp gen [OPTIONS] DEV\n\n"
	       "Sends valid frames out of DEV as fast as the kernel lets it: live XDP\n"
	       "frames (BPF_PROG_RUN) where the kernel has them, else AF_PACKET.\n"
	       "packets and pps count what left DEV by its TX counter; when more than\n"
	       "0.1%% of the frames offered did not leave, gen says why and exits 1.\n"
	       "With --inject the frames enter DEV's receive path instead, in gen's own\n"
	       "thread, as pktgen's netif_receive mode does: no driver, no TX.\n\n");
	hc_opts_help(stdout, gen_opts, NULL);
}

/* One gen: where it sends, what, and what the device counted of it. */
struct gen_job {
	const char *dev;
	int ifindex;
	struct hc_gen_cfg cfg;
	struct hc_srcs srcs;
	__u32 hit_p, hit_q; /* --hit-rate, 0 / 1 without */
	struct hc_nl *nl;
	struct hc_link_info before;
	struct hc_gen g;
	int method; /* the way the frames went: g.method */
	__u64 sent; /* frames the loop sent: offered */
	__u64 tx, tx_drop; /* the device's counts of them */
	/* --hit-rate: hits sent, the distinct prefixes they came from. */
	__u64 hits, hit_prefixes, sources;
	__u64 modified;
	double secs;
	char why[256]; /* why frames did not leave, or "" */
};

/* The options into c, and the device: 0, or an exit code. */
static int gen_parse(struct gen_cli *c, int argc, char **argv, const char **dev)
{
	struct hc_err err = {};
	const char *pos[1];
	int npos, ret;

	ret = hc_opts_parse(gen_opts, c, argc, argv, pos, &npos, 1, NULL, &err);
	hc_json_pretty = c->pretty;
	c->json |= c->pretty;
	hc_json_mode = c->json;
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (c->help) {
		gen_usage();
		return 0;
	}
	if (npos != 1)
		return hc_fail(HC_EXIT_USAGE,
			       "name one device: hookcmp gen DEV");
	if (c->count && c->duration)
		return hc_fail(HC_EXIT_USAGE,
			       "--count and --duration exclude each other");
	if (c->raw &&
	    (c->method >= HC_GEN_PACKET || c->flows > 1 || c->refresh))
		return hc_fail(
			HC_EXIT_USAGE,
			"--raw is one fixed live frame: no --method packet or stage, no --flows, no --refresh");
	if (c->inject && (c->method >= HC_GEN_PACKET || c->allow_drops))
		return hc_fail(
			HC_EXIT_USAGE,
			"--inject is live frames into DEV's receive path: no --method packet or stage, and none can fail to leave (--allow-drops)");
	if (c->queue != UINT32_MAX && !c->inject)
		return hc_fail(HC_EXIT_USAGE, "--queue goes with --inject");
	*dev = pos[0];
	return 0;
}

/* The frame the options describe into s; c->size becomes its size. */
static int gen_spec(struct gen_cli *c, struct hc_pkt_spec *s)
{
	s->ipv6 = c->ipv6;
	s->proto = c->proto == 0 ? 17 : c->proto == 1 ? 6 : 1;
	s->vlan = c->vlan;
	s->size = c->size ? c->size : hc_pkt_min_size(s);
	c->size = s->size;
	s->sport = c->sport;
	s->dport = c->dport;
	hc_parse_mac("02:00:00:00:00:02", s->dst_mac);
	if (c->dst_mac && hc_parse_mac(c->dst_mac, s->dst_mac))
		return hc_fail(HC_EXIT_USAGE,
			       "--dst-mac '%s': not a MAC address", c->dst_mac);
	if (c->src_mac && hc_parse_mac(c->src_mac, s->src_mac))
		return hc_fail(HC_EXIT_USAGE,
			       "--src-mac '%s': not a MAC address", c->src_mac);
	inet_pton(AF_INET, "198.18.0.1", &s->src4);
	inet_pton(AF_INET, "198.18.0.2", &s->dst4);
	inet_pton(AF_INET6, "2001:2::1", &s->src6);
	inet_pton(AF_INET6, "2001:2::2", &s->dst6);
	if (c->src &&
	    inet_pton(c->ipv6 ? AF_INET6 : AF_INET, c->src,
		      c->ipv6 ? (void *)&s->src6 : (void *)&s->src4) != 1)
		return hc_fail(HC_EXIT_USAGE,
			       "--src '%s': not an IPv%d address", c->src,
			       c->ipv6 ? 6 : 4);
	if (c->dst &&
	    inet_pton(c->ipv6 ? AF_INET6 : AF_INET, c->dst,
		      c->ipv6 ? (void *)&s->dst6 : (void *)&s->dst4) != 1)
		return hc_fail(HC_EXIT_USAGE,
			       "--dst '%s': not an IPv%d address", c->dst,
			       c->ipv6 ? 6 : 4);
	return 0;
}

/* --rules-file and --hit-rate: the sources drawn over the set, into j. */
static int gen_sources(const struct gen_cli *c, struct gen_job *j)
{
	struct hc_pkt_spec *s = &j->cfg.spec;
	struct hc_err err = {};
	struct hc_set *set;
	int ret;

	if (c->hit_rate && !c->rules_file)
		return hc_fail(
			HC_EXIT_USAGE,
			"--hit-rate aims at a set: give its --rules-file");
	if (c->hit_rate && hc_srcs_rate(c->hit_rate, &j->hit_p, &j->hit_q))
		return hc_fail(
			HC_EXIT_USAGE,
			"--hit-rate '%s': not a fraction from 0 to 1 (0.25) or a percent (25%%), with at most 6 decimals",
			c->hit_rate);
	if (c->rules_file && c->raw)
		return hc_fail(HC_EXIT_USAGE,
			       "--raw is one fixed frame: no --rules-file");
	if (!c->rules_file)
		return 0;
	set = hc_set_new();
	if (!set)
		return hc_fail(HC_EXIT_FAIL, "--rules-file: %s",
			       strerror(ENOMEM));
	/* run's reader: its messages start with PATH:LINE. */
	ret = hc_set_read(set, c->rules_file, &err);
	if (ret) {
		hc_set_free(set);
		return hc_fail(ret == -ENOMEM ? HC_EXIT_FAIL : HC_EXIT_USAGE,
			       "--rules-file %s", err.msg);
	}
	/* The same table from the same file: a fixed seed. */
	ret = hc_srcs_draw(&j->srcs, set, c->ipv6,
			   c->ipv6 ? (void *)&s->src6 : (void *)&s->src4,
			   j->hit_p, j->hit_q, 1, &err);
	hc_set_free(set);
	if (ret)
		return hc_fail(ret == -ENOMEM ? HC_EXIT_FAIL : HC_EXIT_USAGE,
			       "--rules-file %s: %s", c->rules_file, err.msg);
	j->cfg.srcs = &j->srcs;
	j->cfg.percpu = c->threads > 1;
	return 0;
}

/* What the generator is asked for, from the options: 0 or an exit code. */
static int gen_config(struct gen_cli *c, struct gen_job *j, int ncpu)
{
	struct hc_gen_cfg *cfg = &j->cfg;
	int ret;

	ret = gen_spec(c, &cfg->spec);
	if (ret)
		return ret;
	if (c->threads > (__u32)ncpu)
		return hc_fail(HC_EXIT_USAGE,
			       "--threads %u: this machine has %d CPUs",
			       c->threads, ncpu);
	ret = gen_sources(c, j);
	if (ret)
		return ret;
	cfg->flows = c->flows;
	cfg->method = c->method;
	cfg->raw = c->raw;
	/*
	 * A stack that untags VLAN frames edits live frames in place, and
	 * they come back so: refresh them, at its cost, said below.
	 */
	cfg->refresh = c->refresh ||
		       (c->vlan && !c->raw && c->method != HC_GEN_PACKET);
	cfg->inject = c->inject;
	cfg->queue = c->queue == UINT32_MAX ? 0 : c->queue;
	return 0;
}

/*
 * The device, its MAC and its counters before, once it is known to be one
 * gen may flood, with frames it can take: 0 or an exit code.
 */
static int gen_device(const struct gen_cli *c, struct gen_job *j)
{
	struct hc_pkt_spec *s = &j->cfg.spec;
	__u32 mtu, most;
	struct hc_err err = {};
	bool uplink = false;
	int ret;

	ret = hc_check_privileges();
	if (ret)
		return ret;
	ret = hc_cmd_device(c->netns, j->dev, "gen", &j->ifindex);
	if (ret)
		return ret;
	if (!c->src_mac && hc_dev_mac(j->dev, s->src_mac))
		return hc_fail(HC_EXIT_FAIL, "reading the MAC of %s: %s",
			       j->dev, strerror(errno));

	/* The device's own TX counter says how many really left. */
	j->nl = hc_nl_open(&err);
	if (!j->nl || hc_nl_link_get(j->nl, j->ifindex, &j->before, &err))
		return hc_fail(HC_EXIT_FAIL, "reading the counters of %s: %s",
			       j->dev, strerror(errno));
	/* A flood out of the uplink reaches a real network: not by accident. */
	if (!c->force && !c->netns &&
	    !hc_nl_default_route_via(j->nl, j->ifindex, &uplink, NULL) &&
	    uplink)
		return hc_fail(
			HC_EXIT_USAGE,
			c->inject ?
				"%s holds this namespace's default route: gen --inject would feed its receive path, this host's stack; --force injects anyway" :
				"%s holds this namespace's default route: gen would flood a real network; --force sends anyway",
			j->dev);

	/* The MTU, the Ethernet header and a tag if any, as packet_snd() takes. */
	mtu = j->before.mtu;
	most = mtu + 14 + (c->vlan ? 4 : 0);
	if (c->size > most)
		return hc_fail(
			HC_EXIT_USAGE,
			"--size %u: more than %s's MTU %u takes (%u-byte frames%s): ip%s%s link set dev %s mtu %u raises it",
			c->size, j->dev, mtu, most,
			c->vlan ? " with the tag" : "", c->netns ? " -n " : "",
			c->netns ? c->netns : "", j->dev,
			c->size - 14 - (c->vlan ? 4 : 0));
	return 0;
}

/* The generator opened, or why not; what it chose said: 0 or exit code. */
static int gen_open(const struct gen_cli *c, struct gen_job *j)
{
	struct hc_err err = {};
	int ret;

	ret = hc_gen_open(&j->g, j->ifindex, &j->cfg, &err);
	if (ret) {
		hc_gen_close(&j->g);
		if (ret == -EMSGSIZE)
			return hc_fail(
				HC_EXIT_USAGE, "gen on %s: %s%s", j->dev,
				err.msg,
				c->inject ?
					"" :
					"; --method packet sends up to the MTU");
		/* The kernel checks the queue against the device's: usage. */
		if (j->cfg.queue && ret == -EINVAL)
			return hc_fail(HC_EXIT_USAGE, "gen on %s: %s: %s",
				       j->dev, err.msg, strerror(-ret));
		/* only live frames were asked for: auto's fallback failed else */
		if (err.hint[0] &&
		    (c->method == HC_GEN_LIVE || c->raw || c->inject))
			return gen_live_refused(c, j->dev, ret, &err);
		return hc_fail(hc_exit_code(ret), "gen on %s: %s: %s", j->dev,
			       err.msg, strerror(-ret));
	}
	j->method = j->g.method;
	if (c->method == HC_GEN_AUTO && j->method == HC_GEN_PACKET)
		fprintf(stderr, "hookcmp gen: %s; using AF_PACKET\n", err.msg);
	if (j->cfg.refresh && !c->refresh && j->method == HC_GEN_LIVE)
		fprintf(stderr,
			"hookcmp gen: --vlan turns --refresh on (a receiver that untags the tag edits live frames in place): each frame's headers are rewritten before it is sent, about 6-10%% fewer frames per second\n");
	return 0;
}

/*
 * The threads send, and the generator closes: what they sent into j.
 * 0, or the first thread's -errno.
 */
static int gen_send(const struct gen_cli *c, struct gen_job *j, int ncpu)
{
	struct worker w[256] = {};
	__u64 longest = 0;
	double t0;
	int i, ret = 0;

	t0 = hc_now();
	for (i = 0; i < (int)c->threads; i++) {
		w[i].g = &j->g;
		w[i].cpu = c->threads > 1 ? i % ncpu : -1;
		w[i].count =
			c->count ? c->count / c->threads +
					   (i < (int)(c->count % c->threads)) :
				   0;
		w[i].end = t0 + (c->count ? 0 : c->duration ? c->duration : 1);
		w[i].rate = c->rate ? (double)c->rate / c->threads : 0;
		pthread_create(&w[i].tid, NULL, worker_run, &w[i]);
	}
	if (c->progress || (!c->json && isatty(STDERR_FILENO)))
		progress(w, c->threads, c->count, t0, w[0].end);
	for (i = 0; i < (int)c->threads; i++) {
		pthread_join(w[i].tid, NULL);
		j->sent += w[i].sent;
		/* Each thread from the table's start (srcs.h). */
		j->hits += hc_srcs_hits(w[i].sent, j->hit_p, j->hit_q);
		longest = w[i].sent > longest ? w[i].sent : longest;
		if (w[i].err && !ret)
			ret = w[i].err;
	}
	j->secs = hc_now() - t0;
	j->modified = hc_gen_modified(&j->g);
	hc_gen_close(&j->g);
	j->hit_prefixes = hc_srcs_hits(longest, j->hit_p, j->hit_q);
	if (j->hit_prefixes > j->srcs.prefixes)
		j->hit_prefixes = j->srcs.prefixes;
	j->sources = j->srcs.n;
	return ret;
}

/*
 * What left, by the device's counters. A veth counts what its peer has
 * taken off the ring: wait while it drains, until every frame is counted
 * as gone or dropped, or the counts hold for 0.2 s (a slow machine takes
 * its time; the limit is for a device that counts otherwise).
 */
static void gen_count(const struct gen_cli *c, struct gen_job *j)
{
	struct hc_link_info after;
	struct hc_err err = {};
	int still;
	double t1;

	for (still = 0, t1 = hc_now(); still < 4 && hc_now() - t1 < 10;) {
		__u64 was = j->tx + j->tx_drop;

		usleep(50000);
		if (hc_nl_link_get(j->nl, j->ifindex, &after, &err))
			break;
		j->tx = after.stats.tx_packets - j->before.stats.tx_packets;
		j->tx_drop =
			after.stats.tx_dropped - j->before.stats.tx_dropped;
		if (j->tx + j->tx_drop >= j->sent)
			break;
		still = j->tx + j->tx_drop == was ? still + 1 : 0;
	}
	/* Injected, each frame the loop ran entered the receive path. */
	if (c->inject)
		j->tx = j->sent;
}

/*
 * The summary: a sentence (two with --hit-rate), or one JSON object that
 * holds what did not leave too. A value both show is one call, unless the
 * sentence has it elsewhere than the JSON's documented order (doc/): then
 * a call for each, next to the words around it.
 */
static void gen_print(struct hc_pr *p, const struct gen_cli *c,
		      const struct gen_job *j)
{
	const char *method =
		c->inject ? "inject" : hc_gen_method_name(j->method);
	__u64 pps = j->secs > 0 ? (__u64)(j->tx / j->secs) : 0;

	hc_pr_open(p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(p, HC_PR_JSON, "type", NULL, "gen");
	hc_pr_fstr(p, HC_PR_JSON, "dev", NULL, j->dev);
	hc_pr_fstr(p, HC_PR_JSON, "method", NULL, method);
	hc_pr_fu64(p, HC_PR_JSON, "raw", NULL, c->raw);
	hc_pr_fu64(p, HC_PR_ALL, "packets", "gen: %llu packets ", j->tx);
	hc_pr_fstr(p, HC_PR_TEXT, "dev",
		   c->inject ? "entered the receive path of %s" : "left %s",
		   j->dev);
	hc_pr_fu64(p, HC_PR_JSON, "offered", NULL, j->sent);
	if (c->inject)
		hc_pr_fu64(p, HC_PR_ALL, "queue", " (RX queue %llu)",
			   j->cfg.queue);
	else
		hc_pr_fu64(p, HC_PR_JSON, "tx_dropped", NULL, j->tx_drop);
	hc_pr_fnum(p, HC_PR_ALL, "duration_s", " in %.3f s", j->secs);
	hc_pr_fu64(p, HC_PR_ALL, "pps", ": %llu pps", pps);
	if (!c->inject)
		hc_pr_fu64(p, HC_PR_TEXT, "offered", ", of %llu offered",
			   j->sent);
	hc_pr_fstr(p, HC_PR_TEXT, "method", " (%s", method);
	hc_pr_text(p, "%s", c->raw ? " raw" : "");
	hc_pr_fu64(p, HC_PR_JSON, "size", NULL, c->size);
	hc_pr_fu64(p, HC_PR_ALL, "flows", ", %llu flow", c->flows);
	hc_pr_text(p, "%s", c->flows > 1 ? "s" : "");
	hc_pr_fu64(p, HC_PR_TEXT, "size", ", %llu B", c->size);
	hc_pr_fu64(p, HC_PR_ALL, "threads", ", %llu thread", c->threads);
	hc_pr_text(p, "%s)\n", c->threads > 1 ? "s" : "");
	if (c->rules_file) {
		hc_pr_fnum(p, HC_PR_JSON, "hit_rate", NULL,
			   (double)j->hit_p / j->hit_q);
		hc_pr_fu64(p, HC_PR_ALL, "hits", "gen: %llu", j->hits);
		hc_pr_fu64(p, HC_PR_TEXT, "offered", " of %llu offered",
			   j->sent);
		hc_pr_fnum(p, HC_PR_TEXT, "hit_rate",
			   " hit the set (--hit-rate %g)",
			   (double)j->hit_p / j->hit_q);
		hc_pr_fu64(p, HC_PR_ALL, "hit_prefixes",
			   ", from %llu of its prefixes", j->hit_prefixes);
		hc_pr_fu64(p, HC_PR_ALL, "sources", "; %llu distinct sources\n",
			   j->sources);
	}
	if (j->method == HC_GEN_LIVE && !c->raw && !j->cfg.refresh)
		hc_pr_fu64(p, HC_PR_JSON, "modified", NULL, j->modified);
	if (j->why[0])
		hc_pr_fstr(p, HC_PR_JSON, c->allow_drops ? "warning" : "error",
			   NULL, j->why);
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* After the summary: what came back edited, what did not leave; the exit. */
static int gen_exit(const struct gen_cli *c, const struct gen_job *j, int ret)
{
	if (j->modified)
		fprintf(stderr,
			"Warning: %llu sampled frames came back edited by a receiver (a stack that untags --vlan, a router), and left again as it made them: --refresh writes the headers into every frame\n",
			(unsigned long long)j->modified);
	if (j->why[0] && !c->allow_drops) {
		fprintf(stderr, "Error: gen on %s: %s\n", j->dev, j->why);
		return HC_EXIT_FAIL;
	}
	if (j->why[0])
		fprintf(stderr, "Warning: %s\n", j->why);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "gen on %s stopped: %s", j->dev,
			       strerror(-ret));
	return hc_stop_sig ? 128 + hc_stop_sig : 0;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_cli c = { .flows = 1,
			     .sport = 1024,
			     .dport = 9,
			     .threads = 1,
			     .proto = 0,
			     .queue = UINT32_MAX };
	struct gen_job j = { .hit_q = 1 };
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct hc_pr p;
	int ret;

	ret = gen_parse(&c, argc, argv, &j.dev);
	if (ret || c.help)
		return ret;
	ret = gen_config(&c, &j, ncpu) ?: gen_device(&c, &j);
	if (ret)
		goto out;
	hc_install_signals();
	ret = gen_open(&c, &j);
	if (ret)
		goto out;
	ret = gen_send(&c, &j, ncpu);
	hc_srcs_free(&j.srcs);
	gen_count(&c, &j);
	hc_nl_close(j.nl);
	j.nl = NULL;

	/* One document: what did not leave is in it, not a second one. */
	if (!ret && lost(j.sent, j.tx))
		gen_lost(j.why, sizeof(j.why), j.dev, j.sent, j.tx, j.tx_drop,
			 j.method == HC_GEN_LIVE || j.method == HC_GEN_STAGE);
	p = (struct hc_pr)HC_PR_INIT(c.json ? HC_PR_JSON : HC_PR_TEXT, stdout);
	gen_print(&p, &c, &j);
	fflush(stdout);
	return gen_exit(&c, &j, ret);
out:
	hc_srcs_free(&j.srcs);
	hc_nl_close(j.nl);
	return ret;
}
