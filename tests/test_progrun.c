// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test: every program variant, loaded through the loader's
 * own load path, runs every fixture under BPF_PROG_RUN, and must agree
 * with the userspace reference on class and verdict, at every parse depth
 * and for every rule set below; the rule sets that redirect run in every
 * way each hook can redirect.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fixtures.h"
#include "hc_user.h"
#include "hooks.h"
#include "print.h"
#include "nl.h"
#include "rules.h"
#include "set.h"
#include "stats.h"
#include "test.h"
#include "bad.skel.h"
#include "gen.skel.h"

static const struct ruleset {
	const char *name;
	const char *rules[4];
	__u32 def;
	bool many; /* 63 rules that never match, then rules[] */
} rulesets[] = {
	{ "no rules, drop", {}, HC_DROP },
	{ "no rules, pass", {}, HC_PASS },
	{ "any ip6 drop", { "ip6 drop" }, HC_PASS },
	{ "dns pass", { "udp dport 53 pass" }, HC_DROP },
	{ "v4 src tcp", { "src 192.0.2.0/24 tcp drop", "ip pass" }, HC_DROP },
	{ "v6 dst", { "dst 2001:db8::2/128 pass" }, HC_DROP },
	{ "ports", { "tcp sport 1000-2000 dport 443 pass" }, HC_DROP },
	{ "protos", { "proto 47 pass", "icmp6 pass", "udp drop" }, HC_PASS },
	{ "64 rules", { "udp pass" }, HC_DROP, true },
	{ "no rules, redirect", {}, HC_REDIRECT },
	{ "dns redirect", { "udp dport 53 redirect", "ip6 pass" }, HC_DROP },
	{ "v4 redirect", { "ip6 drop", "icmp pass" }, HC_REDIRECT },
	{ "64 rules, redirect", { "tcp redirect" }, HC_PASS, true },
};

/* Every way a hook redirects; socket filters cannot. */
static const struct redirect_mode {
	const char *name;
	const char *hook;
	__u32 flags;
} redirect_modes[] = {
	{ "devmap", "xdp", HC_RD_MAP },
	{ "ifindex, new dmac", "xdp", HC_RD_DMAC },
	{ "egress, new dmac", "tc", HC_RD_DMAC },
	{ "peer", "tc", HC_RD_PEER },
};

static bool is(const struct hc_variant *v, const char *hook)
{
	return !strcmp(v->hook->name, hook);
}

#define NR_MODES (sizeof(redirect_modes) / sizeof(redirect_modes[0]))

/*
 * Whether the loaded program runs on an skb, whose BPF_PROG_RUN harness
 * refuses a frame shorter than its IP header (XDP's takes any frame).
 */
static bool on_skb(const struct hc_run *r)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(r->prog_fd, &info, &len) &&
	       info.type != BPF_PROG_TYPE_XDP;
}

static const __u8 new_dmac[6] = { 0x02, 0xdd, 0, 0, 0, 0x01 };

/* Sets mode up in c; the target is lo, which every namespace has. */
static void set_redirect(struct hc_conf *c, const struct redirect_mode *mode)
{
	c->redirect.ifindex = 1;
	c->redirect.flags = mode ? mode->flags : 0;
	memcpy(c->redirect.dmac, new_dmac, sizeof(new_dmac));
}

static __u32 verdict_of(const struct hc_variant *v, int retval)
{
	return v->hook->verdict(retval);
}

static const char *verdict_name(__u32 v)
{
	return v < HC_NR_VERDICTS ? hc_verdict_names[v] : "(none)";
}

/*
 * With a redirect mode, a redirected frame leaves with the new destination
 * MAC when the mode sets one, and every other frame as it came: nothing
 * is swapped. (Socket filters, which cannot redirect, give no frame back.)
 */
static bool frame_out_ok(const struct redirect_mode *mode,
			 const struct hc_conf *c, __u32 verdict, const __u8 *in,
			 const __u8 *out)
{
	if (!mode)
		return true;
	if (verdict == HC_REDIRECT && (c->redirect.flags & HC_RD_DMAC))
		return !memcmp(out, new_dmac, 6) && !memcmp(out + 6, in + 6, 8);
	return !memcmp(out, in, 14);
}

static int build_conf(const struct ruleset *rs, enum hc_parse depth,
		      struct hc_conf *c)
{
	struct hc_err err = {};
	char text[64];
	int i;

	memset(c, 0, sizeof(*c));
	c->parse = depth;
	c->def_verdict = rs->def;
	for (i = 0; rs->many && i < HC_MAX_RULES - 1; i++) {
		snprintf(text, sizeof(text), "tcp dport %d pass", 60000 + i);
		hc_rule_parse(text, &c->rules[c->nr_rules++], &err);
	}
	for (i = 0; i < 4 && rs->rules[i]; i++) {
		if (hc_rule_parse(rs->rules[i], &c->rules[c->nr_rules], &err))
			return -EINVAL;
		if (hc_rule_depth(&c->rules[c->nr_rules]) > depth)
			return -ERANGE;
		c->nr_rules++;
	}
	return 0;
}

/* The ctx_in the hook's BPF_PROG_RUN needs for buf, if any (netfilter's). */
static int set_ctx(const struct hc_run *r, struct bpf_test_run_opts *opts,
		   const __u8 *buf, int len, __u8 *ctx, __u32 size)
{
	int err;

	if (!r->hook->prog_run_ctx)
		return 0;
	err = r->hook->prog_run_ctx(buf, len, ctx, &size);
	opts->ctx_in = ctx;
	opts->ctx_size_in = size;
	errno = -err;
	return err;
}

/*
 * Runs one frame; returns the key whose counter moved, or -1. out gets
 * the frame as the program left it.
 */
static int run_one(struct hc_run *r, const __u8 *buf, int len, int *retval,
		   __u8 *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = buf,
		    .data_size_in = len, .data_out = out,
		    .data_size_out = FX_MAX_LEN, .repeat = 1);
	struct hc_snap a, b;
	int key, moved = -1;
	__u8 ctx[64];

	if (set_ctx(r, &opts, buf, len, ctx, sizeof(ctx)) ||
	    hc_stats_read(r->stats_fd, &a) ||
	    bpf_prog_test_run_opts(r->prog_fd, &opts) ||
	    hc_stats_read(r->stats_fd, &b))
		return -2;
	*retval = opts.retval;
	for (key = 0; key < HC_NR_STATS; key++) {
		__u64 d = b.c[key].packets - a.c[key].packets;

		if (d > 1 || (d == 1 && moved >= 0))
			return -3; /* counted twice */
		if (d == 1)
			moved = key;
	}
	return moved;
}

/* A run of variant v with nothing loaded yet. */
static struct hc_run run_of(const struct hc_variant *v)
{
	struct hc_run r;
	struct hc_err err = {};

	if (hc_run_of(&r, v->hook, v->args, &err))
		t_result(false, "prog-run %s: its options '%s': %s", v->name,
			 v->args, err.msg);
	return r;
}

static void test_variant(const struct hc_variant *v, const struct ruleset *rs,
			 enum hc_parse depth, const struct redirect_mode *mode)
{
	struct hc_run r = run_of(v);
	__u8 buf[FX_MAX_LEN], out[FX_MAX_LEN];
	unsigned int i, bad = 0, ran = 0;
	char name[128];
	int err;

	if (build_conf(rs, depth, &r.conf))
		return;
	set_redirect(&r.conf, mode);
	snprintf(name, sizeof(name), "%s%s%s", v->name,
		 mode ? " redirect " : "", mode ? mode->name : "");
	err = r.hook->load(&r);
	if (err) {
		t_result(false,
			 "prog-run %s, %s, parse %s: load failed: %s\n%s%s",
			 name, rs->name, hc_parse_names[depth], strerror(-err),
			 r.err.msg, r.err.kernel);
		hc_prog_unload(&r);
		return;
	}
	for (i = 0; i < FX_COUNT; i++) {
		const struct fx *f = &fx_table[i];
		int len = fx_build(f, &fx_default_addrs, buf);
		__u32 want_cls, want_v, got_v;
		int retval, key;

		if (len < 14)
			continue; /* BPF_PROG_RUN wants a whole Ethernet header */
		want_v = hc_user_run(buf, len, &r.conf, &want_cls);
		key = run_one(&r, buf, len, &retval, out);
		if (key == -2 && errno == EINVAL && on_skb(&r)) {
			if (!depth && rs == rulesets)
				printf("SKIP prog-run %s %s: BPF_PROG_RUN refuses an skb shorter than its IP header (the netns tests send what of it reaches the hook)\n",
				       v->name, f->name);
			continue;
		}
		if (key == -2 && errno == EPROTO) {
			if (!depth && rs == rulesets)
				printf("SKIP prog-run %s %s: not an IP frame, which the hook never sees\n",
				       v->name, f->name);
			continue;
		}
		ran++;
		if (key < 0) {
			printf("  %s: run failed (%d, errno %d)\n", f->name,
			       key, errno);
			bad++;
			continue;
		}
		got_v = verdict_of(v, retval);
		if ((__u32)key != want_cls * HC_NR_VERDICTS + want_v ||
		    got_v != want_v) {
			printf("  %s: counted %s/%s returned %s; reference says %s/%s\n",
			       f->name, hc_class_names[key / HC_NR_VERDICTS],
			       hc_verdict_names[key % HC_NR_VERDICTS],
			       verdict_name(got_v), hc_class_names[want_cls],
			       hc_verdict_names[want_v]);
			bad++;
		} else if (!frame_out_ok(mode, &r.conf, got_v, buf, out)) {
			printf("  %s: %s left with destination %02x:%02x:%02x:%02x:%02x:%02x\n",
			       f->name, hc_verdict_names[got_v], out[0], out[1],
			       out[2], out[3], out[4], out[5]);
			bad++;
		}
	}
	t_result(
		!bad && ran,
		"prog-run %s agrees with the reference: %s, parse %s (%u frames)",
		name, rs->name, hc_parse_names[depth], ran);
	hc_prog_unload(&r);
}

static bool redirects(const struct ruleset *rs)
{
	int i;

	for (i = 0; i < 4 && rs->rules[i]; i++)
		if (strstr(rs->rules[i], "redirect"))
			return true;
	return rs->def == HC_REDIRECT;
}

/* A rule set that redirects runs in each way the hook can redirect. */
static void test_ruleset(const struct hc_variant *v, const struct ruleset *rs,
			 enum hc_parse depth)
{
	unsigned int m;

	if (!redirects(rs)) {
		test_variant(v, rs, depth, NULL);
		return;
	}
	for (m = 0; m < NR_MODES; m++)
		if (is(v, redirect_modes[m].hook))
			test_variant(v, rs, depth, &redirect_modes[m]);
}

static void test_bare(const struct hc_variant *v)
{
	struct hc_run r = run_of(v);
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	__u8 buf[FX_MAX_LEN], ctx[64];
	int err;

	r.bare = true;
	opts.data_in = buf;
	opts.data_size_in = fx_build(&fx_table[0], &fx_default_addrs, buf);
	opts.repeat = 1;
	err = set_ctx(&r, &opts, buf, opts.data_size_in, ctx, sizeof(ctx)) ?:
		      r.hook->load(&r);
	if (!err)
		err = bpf_prog_test_run_opts(r.prog_fd, &opts);
	t_result(!err && verdict_of(v, opts.retval) == HC_DROP,
		 "prog-run %s bare program drops (err %d, retval %u)", v->name,
		 err, opts.retval);
	hc_prog_unload(&r);
}

/*
 * prog-run's own use: one frame run N times at once; its class and
 * verdict count exactly N, and nothing else moves.
 */
static void test_repeat(const struct hc_variant *v)
{
	enum { N = 1000 };
	struct hc_run r = run_of(v);
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = N);
	__u8 buf[FX_MAX_LEN], ctx[64];
	__u32 want_cls, want_v, key, want;
	struct hc_snap a = {}, b = {};
	__u64 got = 0, other = 0;
	int err;

	r.conf.parse = HC_PARSE_L4;
	r.conf.def_verdict = HC_DROP;
	opts.data_in = buf;
	opts.data_size_in = fx_build(&fx_table[0], &fx_default_addrs, buf);
	want_v = hc_user_run(buf, opts.data_size_in, &r.conf, &want_cls);
	want = want_cls * HC_NR_VERDICTS + want_v;
	err = set_ctx(&r, &opts, buf, opts.data_size_in, ctx, sizeof(ctx)) ?:
		      r.hook->load(&r)					   ?:
		      hc_stats_read(r.stats_fd, &a);
	if (!err && bpf_prog_test_run_opts(r.prog_fd, &opts))
		err = -errno;
	if (!err)
		err = hc_stats_read(r.stats_fd, &b);
	for (key = 0; !err && key < HC_NR_STATS; key++) {
		__u64 d = b.c[key].packets - a.c[key].packets;

		if (key == want)
			got = d;
		else
			other += d;
	}
	t_result(
		!err && got == N && !other &&
			verdict_of(v, opts.retval) == want_v,
		"prog-run %s, %s %d times: %s/%s counted %llu, others %llu, returned %s (err %d)",
		v->name, fx_table[0].name, N, hc_class_names[want_cls],
		hc_verdict_names[want_v], (unsigned long long)got,
		(unsigned long long)other,
		verdict_name(verdict_of(v, opts.retval)), err);
	hc_prog_unload(&r);
}

/*
 * The generator's program over several flows (gen.bpf.c's vary()): run
 * after run, each from the frame as built, the port (ICMP: echo id) is
 * the first plus n mod flows from a count per CPU (the thread pinned),
 * its L4 checksum valid, in hc_gen and in the floor (hc_gen_probe) alike;
 * flows changed after the load (.bss) take effect. The stage's copies
 * run the same vary() as a devmap program (hc_stage_vary), which
 * BPF_PROG_RUN refuses: it must load.
 */
static void test_gen_vary(void)
{
	static const struct {
		const char *name;
		__u8 proto;
		bool ipv6;
		__u16 sport;
		__u32 flows[2];
	} cases[] = {
		{ "udp4", 17, false, 1024, { 5, 3 } },
		{ "udp6, 16 bits wrap", 17, true, 65534, { 65536, 4 } },
		{ "tcp4", 6, false, 80, { 7, 1 } },
		{ "icmp6", 1, true, 0, { 3, 2 } },
	};
	enum { RUNS = 12 };
	__u8 frame[HC_PKT_MIN + 40], out[sizeof(frame)];
	unsigned int i, k, h;
	cpu_set_t set, old;

	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hc_pkt_spec spec = { .proto = cases[i].proto,
					    .ipv6 = cases[i].ipv6,
					    .sport = cases[i].sport,
					    .dport = 9,
					    .size = HC_PKT_MIN + 40 };
		__u16 base = spec.proto == 1 ? 0x4843 : spec.sport, port;
		struct hc_pkt_layout lo;
		struct gen_bpf *s = gen_bpf__open();
		__u32 bad_port = 0, bad_sum = 0, flows, n;
		int err = s ? 0 : -errno, prog;

		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
			    .data_out = out, .data_size_in = sizeof(frame));
		if (!err)
			err = hc_pkt_build(&spec, frame, &lo);
		if (!err) {
			bpf_program__set_autoload(s->progs.hc_gen_raw, false);
			s->bss->flows = cases[i].flows[0];
			s->bss->vary_off =
				lo.l4_off + (spec.proto == 1 ? 4 : 0);
			s->bss->csum_off = lo.csum_off;
			s->bss->base = base;
			err = gen_bpf__load(s);
		}
		for (h = 0; !err && h < 2; h++) {
			prog = bpf_program__fd(h ? s->progs.hc_gen_probe :
						   s->progs.hc_gen);
			/* after the load: the count starts again */
			flows = s->bss->flows = cases[i].flows[h];
			memset(s->bss->flow_seq, 0, sizeof(s->bss->flow_seq));
			for (k = 0; !err && k < RUNS; k++) {
				opts.data_size_out = sizeof(out);
				if (bpf_prog_test_run_opts(prog, &opts)) {
					err = -errno;
					break;
				}
				n = flows > 1 ? k % flows : 0;
				memcpy(&port,
				       out + lo.l4_off +
					       (spec.proto == 1 ? 4 : 0),
				       2);
				bad_port += ntohs(port) != (__u16)(base + n);
				bad_sum += !fx_l4_csum_ok(out, &lo, spec.ipv6,
							  spec.proto);
			}
		}
		t_result(
			!err && !bad_port && !bad_sum,
			"prog-run gen %s, %u then %u flows, %d runs each: ports in turn (%u wrong), checksums valid (%u wrong) (err %d)",
			cases[i].name, cases[i].flows[0], cases[i].flows[1],
			RUNS, bad_port, bad_sum, err);
		gen_bpf__destroy(s);
	}
	sched_setaffinity(0, sizeof(old), &old);
}

static void bad_destroy(void *s)
{
	bad_bpf__destroy(s);
}

static void test_verifier_log(void)
{
	struct hc_run r;
	struct bad_bpf *s = bad_bpf__open_opts(hc_prog_open_opts());
	int err = -ENOENT;

	hc_run_init(&r);
	if (s) {
		r.state = s;
		r.state_free = bad_destroy;
		err = hc_prog_load(&r, s->skeleton, "hc_bad");
	}
	if (!strstr(r.err.kernel, "invalid access to packet"))
		printf("  kept: %s\n", r.err.kernel);
	t_result(err < 0 && strstr(r.err.kernel, "verifier log tail:") &&
			 strstr(r.err.kernel, "invalid access to packet"),
		 "a verifier rejection keeps the verifier log's tail (err %d)",
		 err);
	hc_prog_unload(&r);
}

/* xorshift: the same "random" frames on every run, so failures repeat. */
static __u32 rnd(__u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* A frame where the program and the reference differ, for the log. */
static void dump_frame(__u32 i, const __u8 *buf, int len, int key,
		       int retval, __u32 want_cls, __u32 want_v)
{
	int k;

	printf("  frame %u (%d bytes):", i, len);
	for (k = 0; k < len && k < 64; k++)
		printf(" %02x", buf[k]);
	printf("\n  bpf key %d retval %d; reference %s/%s\n", key, retval,
	       hc_class_names[want_cls], hc_verdict_names[want_v]);
}

/*
 * Mutated and random frames: fixtures with bytes flipped, cut short or
 * grown, and frames of random bytes, through every variant against the
 * reference at parse l4 with rules that read every field; with a mode,
 * the last two rules redirect.
 */
static void test_mutations(const struct hc_variant *v, __u32 frames,
			   const struct redirect_mode *mode)
{
	static const char *const rules[] = { "ip6 tcp dport 443 pass",
					     "src 192.0.2.0/24 udp drop",
					     "proto 47 pass",
					     "sport 1000 pass" };
	struct hc_run r = run_of(v);
	__u8 buf[FX_MAX_LEN], out[FX_MAX_LEN];
	__u32 seed = 0x9e3779b9, i, k, bad = 0, ran = 0;
	struct hc_err err = {};
	char name[128];
	int ret;

	r.conf.parse = HC_PARSE_L4;
	r.conf.def_verdict = HC_DROP;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		hc_rule_parse(rules[i], &r.conf.rules[r.conf.nr_rules++], &err);
	if (mode)
		r.conf.rules[2].verdict = r.conf.rules[3].verdict = HC_REDIRECT;
	set_redirect(&r.conf, mode);
	snprintf(name, sizeof(name), "%s%s%s", v->name,
		 mode ? " redirect " : "", mode ? mode->name : "");
	ret = r.hook->load(&r);
	if (ret) {
		t_result(false, "prog-run %s mutations: load failed: %s", name,
			 strerror(-ret));
		return;
	}
	for (i = 0; i < frames; i++) {
		int len, retval, key;
		__u32 want_cls, want_v;

		if (i % 8 == 7) {
			len = 14 + rnd(&seed) % 120;
			for (k = 0; k < (__u32)len; k++)
				buf[k] = rnd(&seed);
			/* mostly IP ethertypes, else the parser stops early */
			buf[12] = (const __u8[]){ 0x08, 0x86, 0x81,
						  0x88 }[rnd(&seed) % 4];
			buf[13] = buf[12] == 0x08 ? 0x00 :
				  buf[12] == 0x86 ? 0xdd :
				  buf[12] == 0x81 ? 0x00 :
						    0xa8;
		} else {
			len = fx_build(&fx_table[rnd(&seed) % FX_COUNT],
				       &fx_default_addrs, buf);
			for (k = rnd(&seed) % 4; k > 0; k--)
				buf[rnd(&seed) % (len > 0 ? len : 1)] ^=
					1 << (rnd(&seed) % 8);
			if (rnd(&seed) % 3 == 0)
				len = rnd(&seed) % (len + 1);
		}
		if (len < 14)
			continue;
		want_v = hc_user_run(buf, len, &r.conf, &want_cls);
		key = run_one(&r, buf, len, &retval, out);
		if (key == -2 &&
		    ((errno == EINVAL && on_skb(&r)) || errno == EPROTO))
			continue; /* the test harness refuses it, or the hook */
		ran++;
		if (key < 0 ||
		    (__u32)key != want_cls * HC_NR_VERDICTS + want_v ||
		    verdict_of(v, retval) != want_v ||
		    !frame_out_ok(mode, &r.conf, want_v, buf, out)) {
			if (bad++ < 3)
				dump_frame(i, buf, len, key, retval, want_cls,
					   want_v);
		}
	}
	t_result(
		!bad && ran > frames / 2,
		"prog-run %s agrees with the reference on %u mutated and random frames (%u differ)",
		name, ran, bad);
	hc_prog_unload(&r);
}

/*
 * A random set near the fixtures' addresses (nested IPv4 and IPv6
 * prefixes, the fixtures' own 5-tuples from some sources), and frames
 * from random sources near it: the maps agree with the userspace index.
 */
static void test_sets(const struct hc_variant *v, __u32 frames)
{
	struct hc_run r = run_of(v);
	struct hc_set *set = hc_set_new();
	__u8 buf[FX_MAX_LEN], out[FX_MAX_LEN];
	__u32 seed = 0x5e75, i, k, bad = 0, ran = 0, hits = 0, dup;
	__u32 host4[400], host6[400][4], n4 = 0, n6 = 0, aimed = 0;
	char line[128];
	int ret;

	for (i = 0; i < 400; i++) {
		struct hc_set_entry e = { .verdict = rnd(&seed) % 3 ? HC_PASS :
								      HC_DROP };
		__u32 b = rnd(&seed) % 256, w;

		if (i % 8 == 2) {
			/* The fixtures' own flows, from some sources. */
			snprintf(line, sizeof(line),
				 "%s 192.0.2.%u:%u %s:%u %s",
				 b % 2 ? "udp" : "tcp", b, b % 2 ? 1000 : 2000,
				 "192.0.2.2", b % 2 ? 9 : 80,
				 hc_verdict_names[e.verdict]);
			hc_set_entry_parse(line, &e, NULL);
		} else if (i % 4 == 3) {
			e.kind = HC_SET_SRC6;
			e.t.family = 6;
			/* A third full-length: the hash before the trie. */
			e.plen = rnd(&seed) % 3 ? 64 + rnd(&seed) % 64 : 128;
			e.t.saddr[0] = htonl(0x20010db8);
			e.t.saddr[1] = htonl(rnd(&seed) % 4);
			e.t.saddr[3] = htonl(rnd(&seed) % 512);
		} else {
			e.kind = HC_SET_SRC4;
			e.t.family = 4;
			e.plen = rnd(&seed) % 3 ? 8 + rnd(&seed) % 24 : 32;
			e.t.saddr[0] =
				htonl(0xc0000000 | (rnd(&seed) % 4) << 8 | b);
		}
		for (k = 0; k < 4; k++) {
			int n = e.plen - 32 * k;

			w = n >= 32 ? ~0u : n <= 0 ? 0 : ~0u << (32 - n);
			e.t.saddr[k] &= htonl(w);
		}
		/* a repeat is no entry: fine */
		if (hc_set_add(set, &e, &dup) || e.kind == HC_SET_TUPLE)
			continue;
		if (e.plen == 32)
			host4[n4++] = e.t.saddr[0];
		else if (e.plen == 128)
			memcpy(host6[n6++], e.t.saddr, 16);
	}
	r.set = set;
	r.conf.parse = HC_PARSE_L4;
	r.conf.def_verdict = HC_DROP;
	r.conf.sets = hc_set_bits(set);
	ret = r.hook->load(&r);
	if (ret) {
		t_result(false, "prog-run %s sets: load failed: %s", v->name,
			 strerror(-ret));
		hc_set_free(set);
		return;
	}
	for (i = 0; i < frames; i++) {
		struct fx_addrs a = fx_default_addrs;
		__u32 want_cls, want_v;
		int len, retval, key;

		a.src4 = htonl(0xc0000000 | (rnd(&seed) % 4) << 8 |
			       rnd(&seed) % 256);
		a.src6.s6_addr[7] = rnd(&seed) % 4;
		a.src6.s6_addr[15] = rnd(&seed) % 256;
		if (rnd(&seed) % 2)
			a.src6.s6_addr[14] = rnd(&seed) % 2;
		/* A quarter from a full-length entry's address. */
		if (n4 && n6 && rnd(&seed) % 4 == 0) {
			a.src4 = host4[rnd(&seed) % n4];
			memcpy(&a.src6, host6[rnd(&seed) % n6], 16);
			aimed++;
		}
		len = fx_build(&fx_table[rnd(&seed) % FX_COUNT], &a, buf);
		if (rnd(&seed) % 8 == 0)
			buf[rnd(&seed) % (len > 0 ? len : 1)] ^=
				1 << (rnd(&seed) % 8);
		if (len < 14)
			continue;
		want_v = hc_user_run_set(buf, len, &r.conf, set, &want_cls);
		key = run_one(&r, buf, len, &retval, out);
		if (key == -2 &&
		    ((errno == EINVAL && on_skb(&r)) || errno == EPROTO))
			continue; /* the test harness refuses it, or the hook */
		ran++;
		hits += want_v == HC_PASS;
		if (key < 0 ||
		    (__u32)key != want_cls * HC_NR_VERDICTS + want_v ||
		    verdict_of(v, retval) != want_v) {
			if (bad++ < 3)
				dump_frame(i, buf, len, key, retval, want_cls,
					   want_v);
		}
	}
	t_result(
		!bad && ran > frames / 2 && hits > ran / 20 && hits < ran / 2 &&
			aimed > frames / 8,
		"prog-run %s agrees with the reference on a set of %u tuples, %u IPv4 and %u IPv6 prefixes (a third full-length, in the hash): %u frames (%u from a full-length entry's address), %u passed by it, %u differ",
		v->name, hc_set_count(set, HC_SET_TUPLE),
		hc_set_count(set, HC_SET_SRC4), hc_set_count(set, HC_SET_SRC6),
		ran, aimed, hits, bad);
	hc_prog_unload(&r);
	hc_set_free(set);
}

/* The xsk hook's "not_redirected" count, through its own JSON report. */
static long long xsk_not_redirected(const struct hc_run *r)
{
	struct hc_pr pr = { .mode = HC_PR_JSON };
	char *buf = NULL, *p;
	size_t size;
	long long n = -1;

	pr.f = pr.j.f = open_memstream(&buf, &size);
	if (!pr.f)
		return -1;
	hc_pr_open(&pr, HC_PR_JSON, NULL, '{');
	r->hook->report(r, &pr);
	hc_pr_close(&pr, HC_PR_JSON, '}');
	fclose(pr.f);
	p = strstr(buf, "\"not_redirected\":");
	if (p)
		n = strtoll(p + strlen("\"not_redirected\":"), NULL, 10);
	free(buf);
	return n;
}

/*
 * Waits up to 1 s for the xsk threads to have counted want frames. Live
 * frames from BPF_PROG_RUN wake no poll(): the thread finds them when its
 * poll() times out, a tenth of a second later.
 */
static int xsk_wait(const struct hc_run *r, __u64 want, struct hc_snap *s)
{
	__u64 n = 0;
	int i, k;

	for (i = 0; i < 1000; i++, usleep(1000)) {
		hc_run_read(r, s);
		for (n = 0, k = 0; k < HC_NR_STATS; k++)
			n += s->c[k].packets;
		if (n >= want)
			break;
	}
	return n == want ? 0 : -1;
}

/*
 * The xsk hook's redirect program under BPF_PROG_RUN, on lo of a private
 * namespace: with no socket on the queue a frame is passed and counted as
 * not redirected; with one it is redirected, and as a live frame it goes
 * through the socket to the userspace logic, which must agree with the
 * reference on every fixture.
 */
static void test_xsk(void)
{
	struct hc_run r;
	struct xdp_md ctx = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);
	__u8 buf[FX_MAX_LEN];
	unsigned int i, bad = 0, ran = 0;
	struct hc_snap prev, cur;
	int err;

	hc_run_init(&r);
	if (hc_run_args(&r, "--hook xsk --xdp-mode generic", &r.err)) {
		t_result(false, "prog-run xsk: %s", r.err.msg);
		return;
	}
	r.dev = "lo";
	r.no_journal = true;
	if (unshare(CLONE_NEWNET)) {
		t_result(false, "prog-run xsk: a private network namespace: %s",
			 strerror(errno));
		return;
	}
	r.ifindex = ctx.ingress_ifindex = if_nametoindex("lo");
	r.conf.parse = HC_PARSE_L4;
	r.conf.def_verdict = HC_DROP;
	hc_rule_parse("udp dport 53 pass", &r.conf.rules[r.conf.nr_rules++],
		      &r.err);
	opts.data_in = buf;
	opts.data_size_in = fx_build(&fx_table[0], &fx_default_addrs, buf);
	ctx.data_end = opts.data_size_in;
	r.nl = hc_nl_open(&r.err);
	err = r.nl ? r.hook->load(&r) : -errno;
	if (!err)
		err = bpf_prog_test_run_opts(r.prog_fd, &opts);
	t_result(
		!err && opts.retval == XDP_PASS && xsk_not_redirected(&r) == 1,
		"prog-run xsk: no socket on the queue: passed and counted (err %d, retval %u)",
		err, opts.retval);
	if (!err)
		err = r.hook->attach(&r);
	if (!err)
		err = bpf_prog_test_run_opts(r.prog_fd, &opts);
	t_result(
		!err && opts.retval == XDP_REDIRECT,
		"prog-run xsk: a socket on the queue: redirected (err %d, retval %u)",
		err, opts.retval);

	opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
	hc_run_read(&r, &prev);
	for (i = 0; !err && i < FX_COUNT; i++) {
		__u32 want_cls, want_v, want, key, moved = 0;

		opts.data_size_in =
			fx_build(&fx_table[i], &fx_default_addrs, buf);
		if (opts.data_size_in < 14)
			continue;
		ctx.data_end = opts.data_size_in;
		opts.data_size_out =
			0; /* what the last run set: live wants none */
		want_v =
			hc_user_run(buf, opts.data_size_in, &r.conf, &want_cls);
		want = want_cls * HC_NR_VERDICTS + want_v;
		ran++;
		err = bpf_prog_test_run_opts(r.prog_fd, &opts);
		if (err == -EPERM)
			break; /* live frames refused: below */
		if (err || xsk_wait(&r, ran, &cur)) {
			printf("  %s: not counted (err %d)\n", fx_table[i].name,
			       err);
			bad++;
			break;
		}
		/* Each frame moves its own class and verdict, once. */
		for (key = 0; key < HC_NR_STATS; key++)
			moved += cur.c[key].packets - prev.c[key].packets !=
				 (key == want);
		if (moved) {
			printf("  %s: the reference says %s/%s\n",
			       fx_table[i].name, hc_class_names[want_cls],
			       want_v == HC_DROP ? "drop" : "pass");
			bad++;
		}
		prev = cur;
	}
	if (err == -EPERM)
		printf("SKIP prog-run xsk: live frames through the socket: this machine refuses live XDP frames (EPERM)\n");
	else
		t_result(
			!err && !bad && ran,
			"prog-run xsk: live frames through the socket agree with the reference (%u frames)",
			ran);
	r.hook->detach(&r);
	hc_prog_unload(&r);
	hc_nl_close(r.nl);
}

int main(void)
{
	struct hc_variant vars[HC_MAX_VARIANTS];
	int d, v, nvars = hc_variants(vars, HC_MAX_VARIANTS);
	unsigned int s, m;

	if (geteuid()) {
		printf("SKIP prog-run tests: BPF_PROG_RUN needs root\n");
		return 0;
	}
	libbpf_set_print(NULL);
	test_verifier_log();
	test_gen_vary();
	for (v = 0; v < nvars; v++) {
		const struct hc_variant *var = &vars[v];
		struct hc_run r = run_of(var);

		/* netfilter before Linux 6.4 */
		if (r.hook->load(&r) == -EOPNOTSUPP) {
			printf("SKIP prog-run %s: %s\n", var->name, r.err.msg);
			hc_prog_unload(&r);
			continue;
		}
		hc_prog_unload(&r);
		test_bare(var);
		test_repeat(var);
		for (s = 0; s < sizeof(rulesets) / sizeof(rulesets[0]); s++)
			for (d = HC_PARSE_NONE; d <= HC_PARSE_L4; d++)
				test_ruleset(var, &rulesets[s], d);
		test_mutations(var, 5000, NULL);
		test_sets(var, 3000);
		for (m = 0; m < NR_MODES; m++)
			if (is(var, redirect_modes[m].hook))
				test_mutations(var, 5000, &redirect_modes[m]);
	}
	test_xsk();
	return t_failed ? 1 : 0;
}
