/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where threads spend their time: the software cpu-clock sampled with
 * perf_event_open (no hardware counters needed, no perf tool), kernel
 * callchains, resolved against /proc/kallsyms and the JITed BPF programs
 * loaded now. bench proves with it that a row ran the kernel path it is
 * named after, and splits a row's cost into functions.
 */
#ifndef HC_SAMPLE_H
#define HC_SAMPLE_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#define HC_SAMPLE_STACK 64 /* callchain entries kept per sample */
#define HC_SAMPLE_MAX 16 /* threads or CPUs sampled at once */

/* The kernel's symbols: sorted by address. */
struct hc_ksym {
	__u64 addr;
	char *name;
};

struct hc_ksyms {
	struct hc_ksym *sym;
	int n;
	char *text; /* the file, which the names point into */
	/* JITed BPF programs, refreshed by hc_ksyms_bpf(): [addr, addr+len) */
	struct hc_ksym *bpf;
	__u32 *bpf_len;
	int nbpf;
};

/*
 * The text symbols of path (NULL: /proc/kallsyms), without the BPF
 * programs in it (hc_ksyms_bpf() has them as they are now). -EPERM when
 * every address reads as zero (kptr_restrict, or no CAP_SYSLOG), with
 * why saying so; -errno when the file cannot be read.
 */
int hc_ksyms_load(struct hc_ksyms *k, const char *path, char *why, size_t size);
/* The BPF programs loaded now, their JITed functions' ranges. */
int hc_ksyms_bpf(struct hc_ksyms *k);
/*
 * ip's function, its suffix after a '.' dropped (foo.constprop.0,
 * foo.cold: foo); NULL when no symbol holds it.
 */
const char *hc_ksyms_find(const struct hc_ksyms *k, __u64 ip);
void hc_ksyms_free(struct hc_ksyms *k);

/* One sample: the kernel callchain, ips[0] where it was; user: in user space. */
struct hc_sample {
	__u64 ips[HC_SAMPLE_STACK];
	int n;
	bool user;
};

struct hc_sampler {
	int fd[HC_SAMPLE_MAX];
	void *ring[HC_SAMPLE_MAX];
	int n;
	size_t ring_size; /* data pages' bytes */
	__u64 period_ns;
	__u64 lost; /* samples the rings had no room for */
};

/*
 * cpu-clock sampling every period_ns of CPU time, disabled until
 * hc_sampler_enable: on the threads tids (cpu < 0) or, with tids NULL,
 * on the CPUs cpus (all that run there). -errno of perf_event_open
 * (EACCES: perf_event_paranoid).
 */
int hc_sampler_open(struct hc_sampler *s, const pid_t *tids, const int *cpus,
		    int n, __u64 period_ns);
int hc_sampler_enable(struct hc_sampler *s, bool on);
/* Calls fn for each sample in the rings, and empties them. */
int hc_sampler_read(struct hc_sampler *s,
		    void (*fn)(const struct hc_sample *smp, void *ctx),
		    void *ctx);
void hc_sampler_close(struct hc_sampler *s);

#endif
