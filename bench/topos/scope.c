// SPDX-License-Identifier: GPL-2.0
/*
 * Scope checks: the counted tasks hold all of a window's receive work,
 * and nothing else took the CPUs they ran on. A row whose device was
 * changed under it (RPS, threaded NAPI, new NAPI kthreads) is INVALID;
 * a window with receive work on a CPU that is not counted, or with steal
 * on one that is, is excluded from the estimates.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "clock.h"
#include "row.h"
#include "scope.h"
#include "nl.h"

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/*
 * The header names each column "CPU<n>": only online CPUs have one, so
 * the n-th column need not be CPU n. CPUs past BENCH_MAX_CPUS are left
 * out.
 */
int bench_snap_parse_softirqs(struct bench_snap *s, const char *text)
{
	const char *p = text, *line;
	int col[BENCH_MAX_CPUS], ncol = 0, i;
	char *end;

	while (ncol < BENCH_MAX_CPUS) {
		p = skip_space(p);
		if (strncmp(p, "CPU", 3) || !isdigit((unsigned char)p[3]))
			break;
		col[ncol++] = strtol(p + 3, &end, 10);
		p = end;
	}
	if (!ncol)
		return -EINVAL;
	for (line = next_line(text); line; line = next_line(line)) {
		p = skip_space(line);
		if (!strncmp(p, "NET_RX:", 7))
			break;
	}
	if (!line)
		return -ENOENT;
	p += 7;
	for (i = 0; i < ncol; i++) {
		unsigned long long v;

		p = skip_space(p);
		if (!isdigit((unsigned char)*p))
			break; /* a short line: the rest are unknown */
		v = strtoull(p, &end, 10);
		p = end;
		if (col[i] >= BENCH_MAX_CPUS)
			continue;
		s->cpu[col[i]].net_rx = v;
		s->cpu[col[i]].softirqs = true;
	}
	return 0;
}

/*
 * "cpu<n> user nice system idle iowait irq softirq steal ...": steal came
 * with Linux 2.6.11 and counts as 0 where a line ends before it.
 */
int bench_snap_parse_stat(struct bench_snap *s, const char *text)
{
	const char *line;
	int found = 0;

	for (line = text; line; line = next_line(line)) {
		unsigned long long v[8] = {};
		struct bench_cpu_snap *c;
		int cpu, n;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		n = sscanf(line + 3,
			   "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]);
		if (n < 8 || cpu < 0)
			return -EINVAL;
		if (cpu >= BENCH_MAX_CPUS)
			continue;
		c = &s->cpu[cpu];
		c->irq = v[5] + v[6];
		c->steal = v[7];
		/* user, nice, system, irq, softirq: not idle, iowait, steal */
		c->busy = v[0] + v[1] + v[2] + c->irq;
		c->stat = true;
		found++;
	}
	return found ? 0 : -ENOENT;
}

/* The whole of a /proc file, NUL-terminated, in *buf (grown as needed). */
static int slurp(const char *path, char **buf, size_t *size)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 1 >= *size) {
			size_t grow = *size ? 2 * *size : 16384;
			char *p = realloc(*buf, grow);

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			*buf = p;
			*size = grow;
		}
		n = read(fd, *buf + len, *size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		len += n;
	}
	close(fd);
	if (!ret)
		(*buf)[len] = '\0';
	return ret;
}

int bench_snap_read(struct bench_snap *s)
{
	static __thread char *buf;
	static __thread size_t size;
	int ret;

	memset(s, 0, sizeof(*s));
	s->hz = sysconf(_SC_CLK_TCK);
	ret = slurp("/proc/softirqs", &buf, &size)	?:
		      bench_snap_parse_softirqs(s, buf) ?:
		      slurp("/proc/stat", &buf, &size)	?:
		      bench_snap_parse_stat(s, buf);
	return ret;
}

int bench_window_check(const struct bench_snap *s0, const struct bench_snap *s1,
		       double wall, const cpu_set_t *counted, char *why,
		       size_t size)
{
	double steal;
	int cpu;

	why[0] = '\0';
	for (cpu = 0; cpu < BENCH_MAX_CPUS; cpu++) {
		const struct bench_cpu_snap *a = &s0->cpu[cpu],
					    *b = &s1->cpu[cpu];

		if (!CPU_ISSET(cpu, counted) && a->softirqs && b->softirqs &&
		    b->net_rx != a->net_rx) {
			snprintf(
				why, size,
				"%llu NET_RX softirqs on CPU %d, which is not counted",
				(unsigned long long)(b->net_rx - a->net_rx),
				cpu);
			return 1;
		}
		if (!CPU_ISSET(cpu, counted) || !a->stat || !b->stat ||
		    !(s1->hz > 0))
			continue;
		steal = (double)(b->steal - a->steal) / s1->hz;
		if (steal > BENCH_STEAL_MAX * wall) {
			snprintf(
				why, size,
				"steal %.0f ms on CPU %d in %.1f ms (%.1f%%, over %g%%)",
				steal * 1e3, cpu, wall * 1e3,
				100 * steal / wall, BENCH_STEAL_MAX * 100);
			return 1;
		}
	}
	return 0;
}

int bench_cpu_check(double cpu_ns, double wall_ns, int ncpus, char *why,
		    size_t size)
{
	why[0] = '\0';
	/* The task clock and the wall clock are not one clock: 0.1% slack. */
	if (isnan(cpu_ns) ||
	    (cpu_ns > 0 && cpu_ns <= wall_ns * ncpus * 1.001 + 1000))
		return 0;
	snprintf(
		why, size,
		"CPU time %.0f ns, not in (0, %.0f ns of wall time x %d counted CPU%s]",
		cpu_ns, wall_ns, ncpus, ncpus == 1 ? "" : "s");
	return 1;
}

/*
 * What the window's CPU time covers: a window with work on a
 * CPU not counted, or steal on one counted, is excluded; a CPU time
 * outside (0, wall x CPUs] makes the row INVALID.
 */
void bench_scope_window(struct bench *b, struct bench_row *r,
			struct bench_round *rd, struct bench_window *w,
			const struct bench_snap *s0, struct bench_snap *s1)
{
	char why[160], name[32];
	struct hc_err ferr = {};
	cpu_set_t set, rx;

	bench_scope_cpus(&b->opt, &b->net, r, &set);
	/* The stage's NAPI (hcr) is the generator's NET_RX, on its CPU. */
	rx = set;
	if (!b->opt.dev && b->net.feed == HC_GEN_STAGE)
		CPU_SET(BENCH_CPU_GEN, &rx);
	if (bench_snap_read(s1) ||
	    bench_window_check(s0, s1, w->secs, &rx, why, sizeof(why)) <= 0)
		why[0] = '\0';
	/* tests (HOOKCMP_FAIL_AT=bench-excluded): a host slow throughout */
	if (hc_fault(&ferr, "bench-excluded"))
		snprintf(why, sizeof(why), "%.150s", ferr.msg);
	if (why[0]) {
		w->excluded = true;
		rd->nexcluded++;
		if (!rd->excluded[0])
			snprintf(rd->excluded, sizeof(rd->excluded), "%s", why);
	}
	/*
	 * Split, a short window's NAPI work may come in the next one: only
	 * too much time is wrong here; none at all is the visit's to judge
	 * (bench_scope_visit). Under qemu's TCG the task clock and the wall
	 * clock disagree (up to 3x in 6.1 guests): no bound holds there.
	 */
	if (!(w->cpu_ns > 0) || b->env.emulated ||
	    !bench_cpu_check(w->cpu_ns, w->secs * 1e9, CPU_COUNT(&set), why,
			     sizeof(why)))
		return;
	bench_row_invalid(r, "%s: %s", bench_round_name(rd, name, sizeof(name)),
			  why);
}

void bench_scope_visit(const struct bench_env *env, struct bench_row *r,
		       const struct bench_round *rd)
{
	double cpu = 0, wall = 0;
	char name[32];
	int i;

	for (i = 0; i < rd->nwin; i++) {
		cpu += rd->win[i].cpu_ns;
		wall += rd->win[i].secs;
	}
	if (!env->cpu_clock || !rd->nwin || cpu > 0)
		return;
	bench_row_invalid(
		r,
		"%s: no CPU time in %d windows (%.0f us): the counted threads did not run",
		bench_round_name(rd, name, sizeof(name)), rd->nwin, wall * 1e6);
}

/* ---- the DUT's device, in bench's own sysfs (hc_sysfs_here) ---- */

/* A hex mask of CPUs ("00000000,00000003") with a bit set. */
static bool mask_set(const char *s)
{
	for (; *s; s++)
		if (isxdigit((unsigned char)*s) && *s != '0')
			return true;
	return false;
}

int bench_scope_dev(const char *dev, bool threaded, char *why, size_t size)
{
	char path[300], mask[512];
	struct dirent *de;
	int on = 0, ret;
	DIR *d;
	FILE *f;

	why[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "rx-", 3))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/queues/%s/rps_cpus", dev,
			 de->d_name);
		f = fopen(path, "r");
		/* No file: a kernel without CONFIG_RPS. */
		if (!f)
			continue;
		if (!fgets(mask, sizeof(mask), f))
			mask[0] = '\0';
		fclose(f);
		mask[strcspn(mask, "\n")] = '\0';
		if (mask_set(mask)) {
			snprintf(
				why, size,
				"RPS on for %s %s (rps_cpus %s): its receive work goes to those CPUs, which are not counted",
				dev, de->d_name, mask);
			break;
		}
	}
	closedir(d);
	if (why[0])
		return 1;
	ret = hc_dev_threaded(dev, &on);
	if (ret)
		return ret;
	if (!on == !threaded)
		return 0;
	snprintf(
		why, size,
		threaded ?
			"threaded NAPI off for %s (threaded %d): its receive work left the NAPI kthreads counted on CPU %d" :
			"threaded NAPI on for %s (threaded %d): its receive work left CPU %d, the one counted, for a kthread",
		dev, on, threaded ? BENCH_CPU_DUT : BENCH_CPU_GEN);
	return 1;
}

/* Whether the two lists hold the same pids. */
static bool same_pids(const pid_t *a, int na, const pid_t *b, int nb)
{
	int i, k;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		for (k = 0; k < nb && b[k] != a[i]; k++)
			;
		if (k == nb)
			return false;
	}
	return true;
}

static void pid_list(const pid_t *p, int n, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d", i ? " " : "",
				p[i]);
	if (!n)
		snprintf(buf, size, "none");
}

/* The CPUs whose work a row's window counts (topo.c pins them so). */
void bench_scope_cpus(const struct bench_opts *o, const struct bench_net *net,
		      const struct bench_row *r, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (o->cpu_mode == BENCH_SPLIT && !r->kind->generator) {
		CPU_SET(BENCH_CPU_DUT, set);
		return;
	}
	CPU_SET(BENCH_CPU_GEN, set);
	/* A row's own threads (AF_XDP's consumer) run on the DUT's CPU. */
	if (net->clock.nown)
		CPU_SET(BENCH_CPU_DUT, set);
}

int bench_scope_veth(struct bench *b, struct bench_row *r, struct hc_err *err)
{
	bool split = b->opt.cpu_mode == BENCH_SPLIT;
	pid_t now[BENCH_MAX_NAPI];
	char why[300], was[64], is[64];
	int ret, n;

	if (!r) {
		/* /sys/class/net of the DUT's namespace, from now on. */
		ret = bench_enter(b->net.fd_dut) ?: hc_sysfs_here();
		bench_enter(b->net.fd_gen);
	} else {
		ret = 0;
	}
	ret = ret ?: bench_scope_dev(BENCH_DUT_DEV, split, why, sizeof(why));
	if (ret < 0) {
		hc_err_set(err, "reading RPS and threaded NAPI of %s",
			   BENCH_DUT_DEV);
		if (r)
			bench_row_fail(r, "scope", ret, err);
		return r ? 0 : ret;
	}
	if (ret && !r) {
		hc_err_set(err, "before any row: %s", why);
		return -EINVAL;
	}
	if (ret) {
		bench_row_invalid(r, "after setup: %s", why);
		return 0;
	}
	/* gen-only has no NAPI: its window counts bench's own thread. */
	if (!r || !split || r->kind->generator)
		return 0;
	n = bench_dut_napi(&b->net, now, BENCH_MAX_NAPI);
	if (same_pids(b->net.clock.napi_pid, b->net.clock.nnapi, now,
		      n > 0 ? n : 0))
		return 0;
	pid_list(b->net.clock.napi_pid, b->net.clock.nnapi, was, sizeof(was));
	pid_list(now, n > 0 ? n : 0, is, sizeof(is));
	bench_row_invalid(
		r,
		"after setup: the NAPI kthreads counted on CPU %d (pids %s) are not %s's current ones (%s): NAPI or threaded NAPI was switched off and on",
		BENCH_CPU_DUT, was, BENCH_DUT_DEV, is);
	return 0;
}

int bench_dut_napi(struct bench_net *net, pid_t *pids, int max)
{
	struct hc_err err = {};
	int n;

	/*
	 * The kernel says which kthreads are the DUT's. Before Linux 6.9,
	 * their names: any other device called hcd (in another namespace)
	 * would match too.
	 */
	n = bench_enter(net->fd_dut) ?:
		    hc_nl_napi_threads(net->if_dut, pids, max, &err);
	bench_enter(net->fd_gen);
	if (n < 0)
		n = bench_threads("/proc", "napi/" BENCH_DUT_DEV "-", pids,
				  max);
	return n;
}
