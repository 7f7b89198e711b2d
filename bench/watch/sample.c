// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-clock sampling with kernel callchains, and the symbols to read
 * them with. cpu-clock is a software event (an hrtimer per task or CPU),
 * so it works where there is no PMU, as on the firecracker VM hookcmp is
 * built on; its period is CPU time in ns, so samples x period is time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "hookcmp.h"
#include "sample.h"

#define RING_PAGES 256 /* 1 MiB: ~65 ms of samples at a 20 us period */

static int by_addr(const void *a, const void *b)
{
	const struct hc_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int hc_ksyms_load(struct hc_ksyms *k, const char *path, char *why, size_t size)
{
	struct hc_err err = {};
	char *line, *next;
	int cap = 0, zero = 0;

	memset(k, 0, sizeof(*k));
	path = path ?: "/proc/kallsyms";
	k->text = hc_input_read(path, &err);
	if (!k->text) {
		snprintf(why, size, "%s", err.msg);
		return -errno;
	}
	for (line = k->text; *line; line = next) {
		unsigned long long addr;
		char type, *name, *end;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (next[-1] == '\n')
			next[-1] = '\0';
		addr = strtoull(line, &end, 16);
		if (end == line || sscanf(end, " %c", &type) != 1 ||
		    (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		name = strchr(end + 1, ' ');
		if (!name || strstr(name, "[bpf]"))
			continue; /* hc_ksyms_bpf: programs come and go */
		name++;
		name[strcspn(name, ". \t")] = '\0';
		if (k->n == cap) {
			void *p =
				realloc(k->sym, (cap = cap ? 2 * cap : 65536) *
							sizeof(*k->sym));

			if (!p) {
				hc_ksyms_free(k);
				snprintf(why, size, "%s: %s", path,
					 strerror(ENOMEM));
				return -ENOMEM;
			}
			k->sym = p;
		}
		zero += !addr;
		k->sym[k->n++] = (struct hc_ksym){ addr, name };
	}
	if (!k->n || zero == k->n) {
		snprintf(
			why, size,
			k->n ? "%s gives every address as 0 (kernel.kptr_restrict, or no CAP_SYSLOG)" :
			       "%s has no text symbols",
			path);
		hc_ksyms_free(k);
		return -EPERM;
	}
	qsort(k->sym, k->n, sizeof(*k->sym), by_addr);
	return 0;
}

static void bpf_free(struct hc_ksyms *k)
{
	int i;

	for (i = 0; i < k->nbpf; i++)
		free(k->bpf[i].name);
	free(k->bpf);
	free(k->bpf_len);
	k->bpf = NULL;
	k->bpf_len = NULL;
	k->nbpf = 0;
}

/* Program fd's JITed functions, appended to k's table. */
static int bpf_add(struct hc_ksyms *k, int fd, int *cap)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n, i;
	__u64 addr[64];
	__u32 lens[64];
	int ret;

	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (ret)
		return ret;
	n = info.nr_jited_ksyms < 64 ? info.nr_jited_ksyms : 64;
	if (info.nr_jited_func_lens < n)
		n = info.nr_jited_func_lens;
	if (!n)
		return 0; /* not JITed */
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.nr_jited_func_lens = n;
	info.jited_ksyms = (__u64)(unsigned long)addr;
	info.jited_func_lens = (__u64)(unsigned long)lens;
	len = sizeof(info);
	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		char name[64];

		if (k->nbpf == *cap) {
			void *p = realloc(k->bpf,
					  (*cap = *cap ? 2 * *cap : 32) *
						  sizeof(*k->bpf)),
			     *q = p ? realloc(k->bpf_len,
					      *cap * sizeof(*k->bpf_len)) :
				      NULL;

			if (p)
				k->bpf = p;
			if (!q)
				return -ENOMEM;
			k->bpf_len = q;
		}
		/* The kernel's own name for it: bpf_prog_TAG_NAME. */
		snprintf(name, sizeof(name), "bpf_prog_%s",
			 info.name[0] ? info.name : "?");
		k->bpf[k->nbpf].addr = addr[i];
		k->bpf[k->nbpf].name = strdup(name);
		k->bpf_len[k->nbpf] = lens[i];
		if (!k->bpf[k->nbpf].name)
			return -ENOMEM;
		k->nbpf++;
	}
	return 0;
}

int hc_ksyms_bpf(struct hc_ksyms *k)
{
	__u32 id = 0;
	int cap = 0, ret = 0;

	bpf_free(k);
	while (!ret && !bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone since */
		ret = bpf_add(k, fd, &cap);
		close(fd);
	}
	return ret;
}

const char *hc_ksyms_find(const struct hc_ksyms *k, __u64 ip)
{
	int lo = 0, hi = k->n - 1, i;

	for (i = 0; i < k->nbpf; i++)
		if (ip >= k->bpf[i].addr && ip < k->bpf[i].addr + k->bpf_len[i])
			return k->bpf[i].name;
	if (!k->n || ip < k->sym[0].addr)
		return NULL;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (k->sym[mid].addr <= ip)
			lo = mid;
		else
			hi = mid - 1;
	}
	return k->sym[lo].name;
}

void hc_ksyms_free(struct hc_ksyms *k)
{
	bpf_free(k);
	free(k->sym);
	free(k->text);
	k->sym = NULL;
	k->text = NULL;
	k->n = 0;
}

int hc_sampler_open(struct hc_sampler *s, const pid_t *tids, const int *cpus,
		    int n, __u64 period_ns)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_hv = 1,
		.exclude_callchain_user = 1,
		.sample_max_stack = HC_SAMPLE_STACK - 2,
	};
	long page = sysconf(_SC_PAGESIZE);
	int i, ret = 0;

	memset(s, 0, sizeof(*s));
	s->period_ns = period_ns;
	s->ring_size = RING_PAGES * page;
	for (i = 0; i < n && i < HC_SAMPLE_MAX; i++) {
		int fd = syscall(__NR_perf_event_open, &a, tids ? tids[i] : -1,
				 tids ? -1 : cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		void *m;

		if (fd < 0) {
			ret = -errno;
			break;
		}
		m = mmap(NULL, s->ring_size + page, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			ret = -errno;
			close(fd);
			break;
		}
		s->fd[s->n] = fd;
		s->ring[s->n++] = m;
	}
	if (!ret && n > HC_SAMPLE_MAX)
		ret = -E2BIG;
	if (ret)
		hc_sampler_close(s);
	return ret;
}

int hc_sampler_enable(struct hc_sampler *s, bool on)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (ioctl(s->fd[i],
			  on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
			  0))
			return -errno;
	return 0;
}

static void parse(struct hc_sampler *s, const struct perf_event_header *h,
		  void (*fn)(const struct hc_sample *smp, void *ctx), void *ctx)
{
	const __u64 *v = (const __u64 *)(h + 1);
	struct hc_sample smp = {};
	__u64 nr, i;

	if (h->type == PERF_RECORD_LOST) {
		s->lost += v[1];
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 16)
		return;
	smp.user = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		   PERF_RECORD_MISC_USER;
	nr = v[1];
	if (sizeof(*h) + (2 + nr) * 8 > h->size)
		return;
	/* The chain has the sample's ip first; markers (PERF_CONTEXT_*) skipped. */
	for (i = 0; i < nr && smp.n < HC_SAMPLE_STACK; i++)
		if (v[2 + i] < (__u64)PERF_CONTEXT_MAX)
			smp.ips[smp.n++] = v[2 + i];
	if (!smp.n)
		smp.ips[smp.n++] = v[0];
	fn(&smp, ctx);
}

/* len bytes at off of the ring's data, which may wrap at its end */
static void copy(void *to, const char *data, __u64 off, size_t len, size_t size)
{
	size_t first = len < size - off ? len : size - off;

	memcpy(to, data + off, first);
	memcpy((char *)to + first, data, len - first);
}

int hc_sampler_read(struct hc_sampler *s,
		    void (*fn)(const struct hc_sample *smp, void *ctx),
		    void *ctx)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < s->n; i++) {
		struct perf_event_mmap_page *m = s->ring[i];
		char *data = (char *)m + page;
		__u64 rec[8192]; /* aligned for the header's fields */
		__u64 head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE),
		      tail = m->data_tail, size = s->ring_size;

		while (tail < head) {
			struct perf_event_header h;

			copy(&h, data, tail % size, sizeof(h), size);
			if (h.size < sizeof(h))
				break;
			copy(rec, data, tail % size, h.size, size);
			parse(s, (struct perf_event_header *)rec, fn, ctx);
			tail += h.size;
		}
		__atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
	}
	return 0;
}

void hc_sampler_close(struct hc_sampler *s)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < s->n; i++) {
		munmap(s->ring[i], s->ring_size + page);
		close(s->fd[i]);
	}
	s->n = 0;
}
