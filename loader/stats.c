// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "json.h"
#include "rules.h"
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

/* 9776320 -> "9,776,320" */
static const char *commas(char *buf, size_t size, __u64 v)
{
	char tmp[32];
	int len, i, o = 0;

	len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (i = 0; i < len && o < (int)size - 2; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static __u64 rate(__u64 n, double secs)
{
	return secs > 0 ? (__u64)(n / secs + 0.5) : 0;
}

static void text_rate_line(const char *name, const struct delta *x, double dt)
{
	char a[32], b[32], c[32], e[32];

	printf("%-13s %13s pps %13s drop pps %13s pass pps %13s redirect pps\n",
	       name, commas(a, sizeof(a), rate(x->pkts, dt)),
	       commas(b, sizeof(b), rate(x->v[HC_DROP], dt)),
	       commas(c, sizeof(c), rate(x->v[HC_PASS], dt)),
	       commas(e, sizeof(e), rate(x->v[HC_REDIRECT], dt)));
}

/* The per-verdict rates of an interval line, in JSON. */
static void json_rates(struct hc_json *j, const struct delta *x, double dt)
{
	jw_u64(j, "pps", rate(x->pkts, dt));
	jw_u64(j, "drop_pps", rate(x->v[HC_DROP], dt));
	jw_u64(j, "pass_pps", rate(x->v[HC_PASS], dt));
	jw_u64(j, "redirect_pps", rate(x->v[HC_REDIRECT], dt));
}

/* --per-cpu: the CPUs that counted packets between a and b, as a rate. */
static void per_cpu(const struct hc_run *r, struct hc_json *j,
		    const struct hc_snap *a, const struct hc_snap *b, double dt)
{
	char name[32], n[32];
	int cpu;

	if (!r->per_cpu)
		return;
	if (r->json)
		jw_open(j, "cpus", '[');
	for (cpu = 0; cpu < b->ncpu; cpu++) {
		__u64 pkts = b->cpu[cpu] - (cpu < a->ncpu ? a->cpu[cpu] : 0);

		if (!pkts)
			continue;
		if (r->json) {
			jw_open(j, NULL, '{');
			jw_u64(j, "cpu", cpu);
			jw_u64(j, "pps", rate(pkts, dt));
			jw_close(j, '}');
			continue;
		}
		snprintf(name, sizeof(name), "cpu %d", cpu);
		printf("%-13s %13s pps\n", name,
		       commas(n, sizeof(n), rate(pkts, dt)));
	}
	if (r->json)
		jw_close(j, ']');
}

void hc_stats_interval(const struct hc_run *r, const struct hc_snap *prev,
		       const struct hc_snap *cur, double since_start)
{
	struct delta d[HC_NR_CLASSES + 1], *tot = &d[HC_NR_CLASSES];
	struct hc_json j = { .f = stdout };
	double dt = cur->t - prev->t;
	int cls;

	deltas(prev, cur, d);
	if (!r->json) {
		for (cls = 0; cls < HC_NR_CLASSES; cls++)
			if (d[cls].pkts)
				text_rate_line(hc_class_names[cls], &d[cls],
					       dt);
		text_rate_line("receive total", tot, dt);
		per_cpu(r, &j, prev, cur, dt);
		printf("\n");
		fflush(stdout);
		return;
	}
	jw_open(&j, NULL, '{');
	jw_str(&j, "type", "interval");
	jw_f64(&j, "t", since_start);
	jw_open(&j, "total", '{');
	json_rates(&j, tot, dt);
	jw_u64(&j, "bps", rate(tot->bytes * 8, dt));
	jw_close(&j, '}');
	jw_open(&j, "classes", '[');
	for (cls = 0; cls < HC_NR_CLASSES; cls++) {
		if (!d[cls].pkts)
			continue;
		jw_open(&j, NULL, '{');
		jw_str(&j, "name", hc_class_names[cls]);
		json_rates(&j, &d[cls], dt);
		jw_close(&j, '}');
	}
	jw_close(&j, ']');
	per_cpu(r, &j, prev, cur, dt);
	jw_close(&j, '}');
}

static void json_totals(struct hc_json *j, const struct delta *x)
{
	jw_u64(j, "packets", x->pkts);
	jw_u64(j, "bytes", x->bytes);
	jw_u64(j, "drop", x->v[HC_DROP]);
	jw_u64(j, "pass", x->v[HC_PASS]);
	jw_u64(j, "redirect", x->v[HC_REDIRECT]);
}

static void text_total_line(const char *name, const struct delta *x)
{
	char a[32], b[32], c[32], e[32], f[32];

	printf("%-13s %15s %17s %15s %15s %15s\n", name,
	       commas(a, sizeof(a), x->pkts), commas(b, sizeof(b), x->bytes),
	       commas(c, sizeof(c), x->v[HC_DROP]),
	       commas(e, sizeof(e), x->v[HC_PASS]),
	       commas(f, sizeof(f), x->v[HC_REDIRECT]));
}

void hc_stats_summary(const struct hc_run *r, const struct hc_snap *start,
		      const struct hc_snap *cur)
{
	struct delta d[HC_NR_CLASSES + 1], *tot = &d[HC_NR_CLASSES];
	const struct hc_hook *h = r->hook;
	struct hc_json j = { .f = stdout };
	double dur = cur->t - start->t;
	int cls;

	deltas(start, cur, d);
	if (!r->json) {
		printf("Summary: %s (%s) on %s, %.2f s\n", h->name,
		       h->attach_name(r), r->dev, dur);
		if (h->report)
			h->report(r, NULL);
		printf("%-13s %15s %17s %15s %15s %15s\n", "class", "packets",
		       "bytes", "drop", "pass", "redirect");
		for (cls = 0; cls < HC_NR_CLASSES; cls++)
			if (d[cls].pkts)
				text_total_line(hc_class_names[cls], &d[cls]);
		text_total_line("total", tot);
		fflush(stdout);
		return;
	}
	jw_open(&j, NULL, '{');
	jw_str(&j, "type", "summary");
	jw_str(&j, "hook", h->name);
	jw_str(&j, "mode", h->attach_name(r));
	jw_str(&j, "attach", h->attach_via(r));
	jw_str(&j, "dev", r->dev);
	jw_str(&j, "netns", r->netns ? r->netns : "");
	jw_u64(&j, "prog_id", r->prog_id);
	jw_str(&j, "parse", hc_parse_names[r->conf.parse]);
	jw_open(&j, "rules", '[');
	for (cls = 0; cls < (int)r->conf.nr_rules && r->rule_texts; cls++)
		jw_str(&j, NULL, r->rule_texts[cls]);
	jw_close(&j, ']');
	jw_str(&j, "action", hc_verdict_names[r->conf.def_verdict]);
	jw_u64(&j, "bare", r->bare);
	jw_f64(&j, "duration_s", dur);
	if (h->report)
		h->report(r, &j);
	jw_open(&j, "total", '{');
	json_totals(&j, tot);
	jw_close(&j, '}');
	jw_open(&j, "classes", '[');
	for (cls = 0; cls < HC_NR_CLASSES; cls++) {
		if (!d[cls].pkts)
			continue;
		jw_open(&j, NULL, '{');
		jw_str(&j, "name", hc_class_names[cls]);
		json_totals(&j, &d[cls]);
		jw_close(&j, '}');
	}
	jw_close(&j, ']');
	jw_close(&j, '}');
}
