// SPDX-License-Identifier: GPL-2.0
/*
 * Proof that a row ran the kernel path it is named after, and where its
 * time goes. A visit of the row is sampled (software cpu-clock on the
 * threads or CPUs whose time the row's cost counts, kernel callchains)
 * outside the timed windows: once per row after the warm-up for the path
 * check, once per row and round for --profile. A row declares its path
 * as groups of alternatives (bench_row.path): each group must show in
 * some sample's callchain, a '!' group in no more than BENCH_PATH_STRAY
 * of them (the CPU's other traffic is sampled too).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "clock.h"
#include "path.h"
#include "row.h"

#define PATH_TRIES 5 /* sampled visits, to reach BENCH_PATH_SAMPLES */

/* FNV-1a: the table of functions seen, by name. */
static __u32 hash(const char *s)
{
	__u32 h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

struct bench_fn *bench_fn_get(struct bench_fns *t, const char *name)
{
	__u32 i;

	if (2 * (t->n + 1) > t->cap) {
		__u32 cap = t->cap ? 2 * t->cap : 256, k;
		struct bench_fn *fn = calloc(cap, sizeof(*fn));

		if (!fn)
			return NULL;
		for (k = 0; k < t->cap; k++)
			if (t->fn[k].name) {
				for (i = hash(t->fn[k].name) % cap; fn[i].name;
				     i = (i + 1) % cap)
					;
				fn[i] = t->fn[k];
			}
		free(t->fn);
		t->fn = fn;
		t->cap = cap;
	}
	for (i = hash(name) % t->cap; t->fn[i].name; i = (i + 1) % t->cap)
		if (!strcmp(t->fn[i].name, name))
			return &t->fn[i];
	t->fn[i].name = strdup(name);
	if (!t->fn[i].name)
		return NULL;
	t->n++;
	return &t->fn[i];
}

const struct bench_fn *bench_fn_find(const struct bench_fns *t,
				     const char *name)
{
	__u32 i;

	if (!t->cap)
		return NULL;
	for (i = hash(name) % t->cap; t->fn[i].name; i = (i + 1) % t->cap)
		if (!strcmp(t->fn[i].name, name))
			return &t->fn[i];
	return NULL;
}

void bench_fns_free(struct bench_fns *t)
{
	__u32 i;

	for (i = 0; i < t->cap; i++)
		free(t->fn[i].name);
	free(t->fn);
	memset(t, 0, sizeof(*t));
}

struct agg {
	const struct hc_ksyms *k;
	struct bench_fns *t;
	bool oom;
};

/* Counts name in the sample now added, once: recursion, inlined repeats. */
static struct bench_fn *count_fn(struct agg *a, const char *name, bool leaf)
{
	struct bench_fn *f = bench_fn_get(a->t, name);

	if (!f) {
		a->oom = true;
		return NULL;
	}
	f->self += leaf;
	if (f->last != a->t->samples) {
		f->chain++;
		f->last = a->t->samples;
	}
	return f;
}

/*
 * A BPF program's caller, as "CALLER>bpf_prog_NAME": which path ran it
 * (veth_xdp_rcv_one, an XDP frame's; veth_xdp_rcv_skb, a converted skb's).
 * The dispatcher jumps to the program: its frame is not in the chain.
 */
static void count_caller(struct agg *a, const struct hc_sample *s, int i,
			 const char *prog)
{
	char pair[160];
	const char *name;

	for (i++; i < s->n; i++) {
		name = hc_ksyms_find(a->k, s->ips[i]) ?: "[unknown]";
		if (strncmp(name, "bpf_dispatcher", 14)) {
			snprintf(pair, sizeof(pair), "%s>%s", name, prog);
			count_fn(a, pair, false);
			return;
		}
	}
}

/*
 * A sample: its leaf function's self count, and each function of its
 * chain once. User space is one entry: bench's own work, no symbols.
 */
static void add_sample(const struct hc_sample *s, void *ctx)
{
	struct agg *a = ctx;
	struct bench_fn *f;
	int i;

	a->t->samples++;
	if (s->user) {
		a->t->user++;
		f = bench_fn_get(a->t, BENCH_FN_USER);
		a->oom |= !f;
		if (f) {
			f->self++;
			f->chain++;
		}
		return;
	}
	for (i = 0; i < s->n && !a->oom; i++) {
		const char *name =
			hc_ksyms_find(a->k, s->ips[i]) ?: "[unknown]";

		count_fn(a, name, !i);
		if (!strncmp(name, "bpf_prog_", 9))
			count_caller(a, s, i, name);
	}
}

/* The threads, or else the CPUs, whose time a row's window counts. */
static int open_sampler(struct bench *b, const struct bench_row *r,
			struct hc_sampler *s, __u64 period)
{
	pid_t tids[HC_SAMPLE_MAX];
	int cpus[HC_SAMPLE_MAX], n;

	if (b->net.topo->rx_cpus) {
		n = b->net.topo->rx_cpus(b, cpus, HC_SAMPLE_MAX);
		return hc_sampler_open(s, NULL, cpus, n, period);
	}
	n = bench_clock_tids(&b->net.clock,
			     b->opt.cpu_mode == BENCH_SPLIT &&
				     !r->kind->generator,
			     tids, HC_SAMPLE_MAX);
	return n ? hc_sampler_open(s, tids, NULL, n, period) :
		   -ESRCH;
}

/* Packets the sampled windows' time went to. */
static __u64 packets(const struct bench_row *r, const struct bench_round *rd)
{
	return r->kind->generator || !rd->seen ? rd->generated : rd->seen;
}

/* The count of the code the row's kind counts in (struct bench_kind). */
static int runs(struct bench *b, struct bench_row *r, __u64 *n)
{
	struct bench_count c = {};
	int ret;

	if (r->kind->runs)
		return r->kind->runs(b, r, n);
	ret = r->kind->read(b, r, &c);
	*n = c.seen;
	return ret;
}

/* Whether a group the row must run has not shown in a sample yet. */
static bool unseen_group(struct bench *b, struct bench_row *r,
			 struct bench_fns *t, __u64 runs0)
{
	struct bench_path p;
	__s64 was = t->runs;
	__u64 n;

	if (b->opt.no_path || !r->path[0])
		return false;
	if (t->runs >= 0 && !runs(b, r, &n))
		t->runs = n - runs0; /* as the judge will see them */
	bench_path_judge(r->path, t, &p);
	t->runs = was;
	return p.missing[0];
}

/* Whether to sample another visit, after i of them. */
static bool more_visits(struct bench *b, struct bench_row *r,
			struct bench_fns *t, __u64 want, int i, double start,
			__u64 runs0)
{
	double dt = hc_now() - start;

	if (t->samples >= want || r->dead || hc_stop_sig)
		return false;
	/* Too few to check: more while they bring frames, up to a limit. */
	if (t->samples < BENCH_PATH_MIN)
		return i < PATH_TRIES ||
		       (t->packets && dt < BENCH_PATH_MAX_SECS);
	if (i < PATH_TRIES && dt <= BENCH_PATH_SECS)
		return true;
	/*
	 * Enough to check, but a group not seen yet: a function too brief
	 * for a busy machine's few samples, or one that never runs. More
	 * visits, up to the limit, before the check says "never ran".
	 */
	return t->packets && dt < BENCH_PATH_MAX_SECS &&
	       unseen_group(b, r, t, runs0);
}

int bench_sampled(struct bench *b, struct bench_row *r, struct bench_round *rd,
		  struct bench_fns *t, __u64 want, struct hc_err *err)
{
	struct hc_sampler s;
	struct agg a = { .k = &b->watch.ksyms, .t = t };
	double start = hc_now();
	__u64 runs0 = 0, runs1;
	int ret, i;

	t->runs = -1;
	t->counted = r->kind->counted;
	if (b->visit.path_pass && t->counted && !runs(b, r, &runs0))
		t->runs = 0;
	t->period_ns = bench_path_period(&b->env);
	ret = open_sampler(b, r, &s, t->period_ns);
	if (ret) {
		snprintf(t->why, sizeof(t->why), "perf_event_open: %s%s",
			 strerror(-ret),
			 ret == -EACCES || ret == -EPERM ?
				 " (kernel.perf_event_paranoid, or not root)" :
				 "");
		return 0;
	}
	b->watch.smp = &s;
	for (i = 0; !ret && more_visits(b, r, t, want, i, start, runs0); i++) {
		struct bench_round v = { .round = rd->round, .ns = NAN };

		ret = b->net.topo->measure(b, r, &v, true, err);
		/* Its programs are still loaded: their JITed ranges now. */
		if (!ret && hc_ksyms_bpf(&b->watch.ksyms))
			snprintf(t->why, sizeof(t->why),
				 "the BPF programs' symbols: %s",
				 strerror(errno));
		if (!ret)
			hc_sampler_read(&s, add_sample, &a);
		t->packets += packets(r, &v);
		t->cpu_ns += v.cpu_ns;
		if (i)
			bench_round_free(&v);
		else
			*rd = v;
	}
	b->watch.smp = NULL;
	if (t->runs >= 0)
		t->runs = runs(b, r, &runs1) ? -1 : (__s64)(runs1 - runs0);
	t->lost += s.lost;
	hc_sampler_close(&s);
	if (a.oom)
		return -ENOMEM;
	return ret;
}

bool bench_path_group(const char **pos, const char **g, size_t *len)
{
	*pos += strspn(*pos, " ");
	*g = *pos;
	*len = strcspn(*pos, " ");
	*pos += *len;
	return *len;
}

bool bench_path_alt(const char **g, size_t *len, const char **alt,
		    size_t *alen)
{
	if (**g == '!') {
		++*g;
		--*len;
	}
	if (!*len)
		return false;
	*alt = *g;
	*alen = strcspn(*g, "|");
	if (*alen > *len)
		*alen = *len;
	*g += *alen + (*alen < *len);
	*len -= *alen + (*alen < *len);
	return true;
}

bool bench_path_match(const char *pat, size_t len, const char *name)
{
	if (len && pat[len - 1] == '*')
		return !strncmp(pat, name, len - 1);
	return strlen(name) == len && !strncmp(pat, name, len);
}

/* The most samples any alternative of group g (length len) ran in. */
static __u64 group_chain(const struct bench_fns *t, const char *g, size_t len)
{
	const char *alt;
	__u64 best = 0;
	size_t alen;
	__u32 i;

	while (bench_path_alt(&g, &len, &alt, &alen))
		for (i = 0; i < t->cap; i++)
			if (t->fn[i].name &&
			    bench_path_match(alt, alen, t->fn[i].name) &&
			    t->fn[i].chain > best)
				best = t->fn[i].chain;
	return best;
}

/* Every alternative of group g (length len) is one of counted's. */
static bool counted_only(const char *g, size_t len, const char *counted)
{
	const char *alt, *c, *calt;
	size_t alen, clen, calen;

	if (!counted)
		return false;
	while (bench_path_alt(&g, &len, &alt, &alen)) {
		char name[128];
		bool found = false;

		snprintf(name, sizeof(name), "%.*s", (int)alen, alt);
		for (c = counted, clen = strlen(c);
		     !found && bench_path_alt(&c, &clen, &calt, &calen);)
			found = bench_path_match(calt, calen, name);
		if (!found)
			return false;
	}
	return true;
}

static void append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

bool bench_path_skb(const char *path)
{
	return !(strstr(path, "!do_xdp_generic") || strstr(path, "xsk_")) ||
	       strstr(path, "ip_rcv");
}

void bench_path_judge(const char *path, const struct bench_fns *t,
		      struct bench_path *p)
{
	const char *g;
	size_t len;

	p->samples = t->samples;
	p->missing[0] = p->unexpected[0] = '\0';
	while (bench_path_group(&path, &g, &len)) {
		bool not = *g == '!';
		__u64 n = group_chain(t, g, len);
		/* A program's caller ("a>bpf_prog_x") is no other traffic's. */
		double stray = memchr(g, '>', len) ? 0 : BENCH_PATH_STRAY;

		/* the code the row counts in ran, if too briefly to sample */
		if (!not && !n && t->runs > 0 &&
		    counted_only(g, len, t->counted))
			n = 1;
		if (!not && !n)
			append(p->missing, sizeof(p->missing), "%s%.*s",
			       p->missing[0] ? " " : "", (int)len, g);
		else if (not && n > stray * t->samples)
			append(p->unexpected, sizeof(p->unexpected),
			       "%s%.*s (%llu)", p->unexpected[0] ? " " : "",
			       (int)(len - 1), g + 1, (unsigned long long)n);
	}
}

/* The path check's reason: "never ran ipt_do_table in 2,000 samples". */
static void path_reason(struct bench_row *r, const struct bench_path *p)
{
	char n[32];

	hc_commas(n, sizeof(n), p->samples);
	if (p->missing[0]) {
		char what[2 * sizeof(p->missing)] = "";
		const char *pos = p->missing, *g, *alt;
		size_t len, alen;

		/* as a sentence: "a|b c" is "a or b, c" */
		while (bench_path_group(&pos, &g, &len)) {
			bool first = true;

			while (bench_path_alt(&g, &len, &alt, &alen)) {
				append(what, sizeof(what), "%s%.*s",
				       first && what[0] ? ", " :
				       first		? "" :
							  " or ",
				       (int)alen, alt);
				first = false;
			}
		}
		bench_row_invalid(r, "path: never ran %s in %s samples%s%s%s",
				  what, n,
				  p->unexpected[0] ? "; ran " : "",
				  p->unexpected,
				  p->unexpected[0] ? ", which it must not" :
						     "");
	} else if (p->unexpected[0]) {
		bench_row_invalid(
			r, "path: ran %s in %s samples, which it must not",
			p->unexpected, n);
	}
}

static void unchecked(struct bench_path *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void unchecked(struct bench_path *p, const char *fmt, ...)
{
	va_list ap;

	p->checked = false;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
}

void bench_path_row(const struct bench_watch *w, struct bench_row *r,
		    const struct bench_fns *t)
{
	struct bench_path *p = &r->path_check;

	p->samples = t->samples;
	p->runs = t->runs;
	if (w->ksyms_why[0]) {
		unchecked(p, "%s", w->ksyms_why);
		return;
	}
	if (t->why[0]) {
		unchecked(p, "%s", t->why);
		return;
	}
	if (!r->path[0]) {
		unchecked(p, "the row declares no path");
		return;
	}
	/* No traffic is the row's accounting's to say, not a path missed. */
	if (!t->packets) {
		unchecked(p, "no packet reached the row in its sampled windows");
		return;
	}
	if (t->samples < BENCH_PATH_MIN) {
		unchecked(p, "%llu samples, fewer than %d",
			  (unsigned long long)t->samples, BENCH_PATH_MIN);
		return;
	}
	p->checked = true;
	bench_path_judge(r->path, t, p);
	path_reason(r, p);
}

/* Whether path holds the group of n characters at g. */
static bool has_group(const char *path, const char *g, size_t n)
{
	const char *p = path;

	while (*p) {
		size_t k = strcspn(p, " ");

		if (k == n && !strncmp(p, g, n))
			return true;
		p += k + (p[k] == ' ');
	}
	return false;
}

/* Each group once: a variant's may be its row's already. */
void bench_row_path(struct bench_row *r, const char *groups)
{
	const char *g = groups;
	size_t n;

	while (g && *g) {
		n = strcspn(g, " ");
		if (n && !has_group(r->path, g, n))
			append(r->path, sizeof(r->path), "%s%.*s",
			       r->path[0] ? " " : "", (int)n, g);
		g += n + (g[n] == ' ');
	}
}

__u64 bench_path_period(const struct bench_env *env)
{
	return env->emulated ? BENCH_PATH_PERIOD_EMU_NS : BENCH_PATH_PERIOD_NS;
}

int bench_path_begin(struct bench_watch *w, const struct bench_opts *o)
{
	char why[sizeof(w->ksyms_why)];
	int ret;

	if (o->no_path && !o->profile)
		return 0;
	ret = hc_ksyms_load(&w->ksyms, NULL, why, sizeof(why));
	if (ret)
		snprintf(w->ksyms_why, sizeof(w->ksyms_why), "%s", why);
	return ret == -ENOMEM ? ret : 0;
}

int bench_path_reload(struct bench_watch *w, const struct bench_opts *o)
{
	/* Never read, or unreadable: as it was. */
	if (!w->ksyms.n)
		return 0;
	hc_ksyms_free(&w->ksyms);
	return bench_path_begin(w, o);
}

void bench_path_end(struct bench_watch *w)
{
	hc_ksyms_free(&w->ksyms);
}
