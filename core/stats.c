// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "json.h"
#include "print.h"
#include "rules.h"
#include "set.h"
#include "stats.h"

const char *const hc_class_names[HC_NR_CLASSES] = {
#define HC_CLASS_NAME(id, name) [HC_CLS_##id] = name,
	HC_CLASSES(HC_CLASS_NAME)
#undef HC_CLASS_NAME
};

double hc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int hc_stats_read(int map_fd, struct hc_snap *s)
{
	int ncpu = libbpf_num_possible_cpus();
	struct hc_counter *v;
	__u32 key;
	int cpu;

	if (ncpu < 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(s->c, 0, sizeof(s->c));
	s->dropped_before = 0;
	s->ring_full = 0;
	s->ncpu = ncpu < HC_MAX_CPUS ? ncpu : HC_MAX_CPUS;
	memset(s->cpu, 0, s->ncpu * sizeof(s->cpu[0]));
	for (key = 0; key < HC_NR_STATS; key++) {
		if (bpf_map_lookup_elem(map_fd, &key, v)) {
			free(v);
			return -errno;
		}
		for (cpu = 0; cpu < ncpu; cpu++) {
			s->c[key].packets += v[cpu].packets;
			s->c[key].bytes += v[cpu].bytes;
			if (cpu < s->ncpu)
				s->cpu[cpu] += v[cpu].packets;
		}
	}
	free(v);
	s->t = hc_now();
	return 0;
}

int hc_run_read(const struct hc_run *r, struct hc_snap *s)
{
	const struct hc_hook *h = r->hook;

	s->ncpu = 0; /* a hook's own read counts no CPU apart */
	return h->read ? h->read(r, s) : hc_stats_read(r->stats_fd, s);
}

/* Deltas per class and in total; index HC_NR_CLASSES is the total. */
struct delta {
	__u64 pkts, bytes, v[HC_NR_VERDICTS];
};

static void deltas(const struct hc_snap *a, const struct hc_snap *b,
		   struct delta d[HC_NR_CLASSES + 1])
{
	struct delta *tot = &d[HC_NR_CLASSES];
	int cls, v;

	memset(d, 0, sizeof(struct delta) * (HC_NR_CLASSES + 1));
	for (cls = 0; cls < HC_NR_CLASSES; cls++) {
		for (v = 0; v < HC_NR_VERDICTS; v++) {
			const struct hc_counter *pa, *pb;
			__u64 n;

			pa = &a->c[cls * HC_NR_VERDICTS + v];
			pb = &b->c[cls * HC_NR_VERDICTS + v];
			n = pb->packets - pa->packets;
			d[cls].v[v] = n;
			d[cls].pkts += n;
			d[cls].bytes += pb->bytes - pa->bytes;
			tot->v[v] += n;
		}
		tot->pkts += d[cls].pkts;
		tot->bytes += d[cls].bytes;
	}
}


static __u64 rate(__u64 n, double secs)
{
	return secs > 0 ? (__u64)(n / secs + 0.5) : 0;
}

/* An interval line: a class (or the total) as a rate per verdict. */
static void rate_line(struct hc_pr *p, int which, const char *name,
		      const struct delta *x, double dt)
{
	int named = which & (name ? HC_PR_ALL : HC_PR_TEXT);

	hc_pr_str(p, named, "name", NULL, -13, name ?: "receive total");
	hc_pr_count(p, which, "pps", NULL, 17, rate(x->pkts, dt), "pps");
	hc_pr_count(p, which, "drop_pps", NULL, 22, rate(x->v[HC_DROP], dt),
		    "drop pps");
	hc_pr_count(p, which, "pass_pps", NULL, 22, rate(x->v[HC_PASS], dt),
		    "pass pps");
	hc_pr_count(p, which, "redirect_pps", NULL, 26,
		    rate(x->v[HC_REDIRECT], dt), "redirect pps");
	if (!name)
		hc_pr_count(p, which & HC_PR_JSON, "bps", NULL, 0,
			    rate(x->bytes * 8, dt), NULL);
	hc_pr_end(p);
}

/* --per-cpu: the CPUs that counted packets between a and b, as a rate. */
static void per_cpu(const struct hc_run *r, struct hc_pr *p,
		    const struct hc_snap *a, const struct hc_snap *b, double dt)
{
	char name[32];
	int cpu;

	if (!r->per_cpu)
		return;
	hc_pr_open(p, HC_PR_JSON, "cpus", '[');
	for (cpu = 0; cpu < b->ncpu; cpu++) {
		__u64 pkts = b->cpu[cpu] - (cpu < a->ncpu ? a->cpu[cpu] : 0);

		if (!pkts)
			continue;
		snprintf(name, sizeof(name), "cpu %d", cpu);
		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_str(p, HC_PR_TEXT, NULL, NULL, -13, name);
		hc_pr_count(p, HC_PR_JSON, "cpu", NULL, 0, cpu, NULL);
		hc_pr_count(p, HC_PR_ALL, "pps", NULL, 17, rate(pkts, dt),
			    "pps");
		hc_pr_close(p, HC_PR_JSON, '}');
		hc_pr_end(p);
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

static struct hc_pr printer(const struct hc_run *r)
{
	return (struct hc_pr)HC_PR_INIT(r->json ? HC_PR_JSON : HC_PR_TEXT,
					stdout);
}

void hc_stats_interval(const struct hc_run *r, const struct hc_snap *prev,
		       const struct hc_snap *cur, double since_start)
{
	struct delta d[HC_NR_CLASSES + 1], *tot = &d[HC_NR_CLASSES];
	struct hc_pr p = printer(r);
	double dt = cur->t - prev->t;
	int cls;

	deltas(prev, cur, d);
	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	hc_pr_str(&p, HC_PR_JSON, "type", NULL, 0, "interval");
	hc_pr_num(&p, HC_PR_JSON, "t", NULL, 0, 0, since_start);
	hc_pr_open(&p, HC_PR_JSON, "total", '{');
	rate_line(&p, HC_PR_JSON, NULL, tot, dt);
	hc_pr_close(&p, HC_PR_JSON, '}');
	hc_pr_open(&p, HC_PR_JSON, "classes", '[');
	for (cls = 0; cls < HC_NR_CLASSES; cls++) {
		if (!d[cls].pkts)
			continue;
		hc_pr_open(&p, HC_PR_JSON, NULL, '{');
		rate_line(&p, HC_PR_ALL, hc_class_names[cls], &d[cls], dt);
		hc_pr_close(&p, HC_PR_JSON, '}');
	}
	hc_pr_close(&p, HC_PR_JSON, ']');
	/* Text has the total after its classes. */
	rate_line(&p, HC_PR_TEXT, NULL, tot, dt);
	per_cpu(r, &p, prev, cur, dt);
	hc_pr_close(&p, HC_PR_JSON, '}');
	if (!r->json)
		printf("\n");
	fflush(stdout);
}

/* A summary line: a class's (or the total's) counts per verdict. */
static void total_line(struct hc_pr *p, int which, const char *name,
		       const struct delta *x)
{
	hc_pr_str(p, which & (name ? HC_PR_ALL : HC_PR_TEXT), "name", "class",
		  -13, name ?: "total");
	hc_pr_count(p, which, "packets", "packets", 15, x->pkts, NULL);
	hc_pr_count(p, which, "bytes", "bytes", 17, x->bytes, NULL);
	hc_pr_count(p, which, "drop", "drop", 15, x->v[HC_DROP], NULL);
	hc_pr_count(p, which, "pass", "pass", 15, x->v[HC_PASS], NULL);
	hc_pr_count(p, which, "redirect", "redirect", 15, x->v[HC_REDIRECT],
		    NULL);
	hc_pr_end(p);
}

/* The set's entries of each kind: in JSON always, in text when a set. */
static void set_counts(const struct hc_run *r, struct hc_pr *p)
{
	static const char *const fmt[] = { "Set: %llu 5-tuples",
					   ", %llu IPv4 prefixes",
					   ", %llu IPv6 prefixes\n" };
	int which = r->set ? HC_PR_ALL : HC_PR_JSON, k;

	hc_pr_open(p, HC_PR_JSON, "set", '{');
	for (k = 0; k < HC_NR_SET_KINDS; k++)
		hc_pr_fu64(p, which, hc_set_kind_names[k], fmt[k],
			   hc_set_count(r->set, k));
	hc_pr_close(p, HC_PR_JSON, '}');
}

void hc_stats_summary(const struct hc_run *r, const struct hc_snap *start,
		      const struct hc_snap *cur)
{
	struct delta d[HC_NR_CLASSES + 1], *tot = &d[HC_NR_CLASSES];
	const struct hc_hook *h = r->hook;
	struct hc_pr p = printer(r);
	double dur = cur->t - start->t;
	char head[160];
	int cls;

	deltas(start, cur, d);
	snprintf(head, sizeof(head), "Summary: %s (%s) on %s, %.2f s", h->name,
		 h->attach_name(r), r->dev, dur);
	hc_pr_str(&p, HC_PR_TEXT, NULL, NULL, 0, head);
	hc_pr_end(&p);
	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	hc_pr_str(&p, HC_PR_JSON, "type", NULL, 0, "summary");
	hc_pr_str(&p, HC_PR_JSON, "hook", NULL, 0, h->name);
	hc_pr_str(&p, HC_PR_JSON, "mode", NULL, 0, h->attach_name(r));
	hc_pr_str(&p, HC_PR_JSON, "attach", NULL, 0, h->attach_via(r));
	hc_pr_str(&p, HC_PR_JSON, "dev", NULL, 0, r->dev);
	hc_pr_str(&p, HC_PR_JSON, "netns", NULL, 0, r->netns ? r->netns : "");
	hc_pr_count(&p, HC_PR_JSON, "prog_id", NULL, 0, r->prog_id, NULL);
	hc_pr_str(&p, HC_PR_JSON, "parse", NULL, 0,
		  hc_parse_names[r->conf.parse]);
	hc_pr_list(&p, HC_PR_JSON, "rules", r->rule_texts,
		   r->rule_texts ? (int)r->conf.nr_rules : 0);
	hc_pr_str(&p, HC_PR_JSON, "action", NULL, 0,
		  hc_verdict_names[r->conf.def_verdict]);
	set_counts(r, &p);
	hc_pr_count(&p, HC_PR_JSON, "bare", NULL, 0, r->bare, NULL);
	hc_pr_num(&p, HC_PR_JSON, "duration_s", NULL, 0, 0, dur);
	if (h->report)
		h->report(r, &p);
	p.header = true;
	total_line(&p, HC_PR_TEXT, "", tot);
	p.header = false;
	hc_pr_open(&p, HC_PR_JSON, "total", '{');
	total_line(&p, HC_PR_JSON, NULL, tot);
	hc_pr_close(&p, HC_PR_JSON, '}');
	hc_pr_open(&p, HC_PR_JSON, "classes", '[');
	for (cls = 0; cls < HC_NR_CLASSES; cls++) {
		if (!d[cls].pkts)
			continue;
		hc_pr_open(&p, HC_PR_JSON, NULL, '{');
		total_line(&p, HC_PR_ALL, hc_class_names[cls], &d[cls]);
		hc_pr_close(&p, HC_PR_JSON, '}');
	}
	hc_pr_close(&p, HC_PR_JSON, ']');
	total_line(&p, HC_PR_TEXT, NULL, tot);
	hc_pr_close(&p, HC_PR_JSON, '}');
	fflush(stdout);
}
