// SPDX-License-Identifier: GPL-2.0
/*
 * What the numbers depend on, recorded with them: everything outside the
 * bench that changes what a receive path costs. The static keys of the
 * ingress path are global: a clsact qdisc, a tcx link or a generic XDP
 * program in any namespace turns one on for every frame of every row, so
 * every namespace is looked at, not only the caller's.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <netinet/in.h>
/* after netinet/in.h, whose struct in_addr linux/in.h would redefine */
#include <linux/netfilter.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <bpf/bpf.h>
#include "bench.h"
#include "env.h"
#include "netns.h"
#include "nl.h"
#include "path.h"

const struct bench_env_file bench_env_files[BENCH_ENV_FILES] = {
	{ "bpf_stats_enabled", "/proc/sys/kernel/bpf_stats_enabled" },
	{ "bpf_jit_enable", "/proc/sys/net/core/bpf_jit_enable" },
	{ "bpf_jit_harden", "/proc/sys/net/core/bpf_jit_harden" },
	{ "bpf_jit_kallsyms", "/proc/sys/net/core/bpf_jit_kallsyms" },
	{ "rps_sock_flow_entries", "/proc/sys/net/core/rps_sock_flow_entries" },
	{ "cpufreq_governor",
	  "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor" },
	{ "cpufreq_boost", "/sys/devices/system/cpu/cpufreq/boost" },
	{ "intel_pstate_no_turbo",
	  "/sys/devices/system/cpu/intel_pstate/no_turbo" },
	{ "cmdline", "/proc/cmdline" },
	/* runs of one boot share what the boot fixed: compare groups them */
	{ "boot_id", "/proc/sys/kernel/random/boot_id" },
};

/* Where env is read: from the caller's netns, whose settings it has. */
struct bench_env_at {
	const int *own; /* bench's own namespaces, left out of outside */
	int nown;
	int dut_fd; /* --dev: the DUT's netns, whose tables are read; -1 */
	const char *dev; /* --dev: its RPS, RFS and XPS; NULL */
	int ifindex; /* dev's */
};

/* BPF link types newer than the uapi header this builds against. */
#define LINK_NETFILTER 10
#define LINK_TCX 11
#define LINK_NETKIT 13

/* A device's link attach points, by their (newer) attach types. */
static const struct {
	__u32 type;
	const char *kind, *point;
} dev_points[] = {
	{ 46, "tcx", "ingress" }, /* BPF_TCX_INGRESS, Linux 6.6 */
	{ 47, "tcx", "egress" },
	{ 54, "netkit", "primary" }, /* BPF_NETKIT_PRIMARY, Linux 6.7 */
	{ 55, "netkit", "peer" },
};

/*
 * A device link's id, where the namespace walk found it: a link's info
 * has only an ifindex, of a namespace it does not name.
 */
struct dev_link {
	__u32 id;
	bool own; /* in one of bench's own namespaces */
	char at[IF_NAMESIZE + NAME_MAX + 24]; /* "DEV (WHERE)" */
};

struct dev_links {
	struct dev_link *l;
	int n, cap;
};

/*
 * The hypervisor's CPUID signature (leaf 0x40000000), when the hypervisor
 * bit is set: "KVMKVMKVM", "TCGTCGTCGTCG" for qemu's emulated CPU, ...
 * HOOKCMP_HYPERVISOR stands in for it in the tests.
 */
static void hypervisor(char sig[13])
{
	const char *fake = getenv("HOOKCMP_HYPERVISOR");

	sig[0] = '\0';
	if (fake) {
		snprintf(sig, 13, "%s", fake);
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a, b, c, d;

		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
			return;
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = '\0';
	}
#endif
}

void bench_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Appends one line to a '\n'-separated list. */
static void add_line(char *list, size_t size, const char *line)
{
	size_t len = strlen(list);

	if (len + strlen(line) + 2 <= size)
		snprintf(list + len, size - len, "%s\n", line);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts a list's lines and drops repeats, so two readings compare. */
static void sort_lines(char *list)
{
	char *copy = strdup(list), *line[512], *save, *l;
	int n = 0, i;

	if (!copy)
		return;
	for (l = strtok_r(copy, "\n", &save); l && n < 512;
	     l = strtok_r(NULL, "\n", &save))
		line[n++] = l;
	qsort(line, n, sizeof(*line), cmp_str);
	list[0] = '\0';
	for (i = 0; i < n; i++)
		if (!i || strcmp(line[i], line[i - 1]))
			strcat(list, line[i]), strcat(list, "\n");
	free(copy);
}

struct scan {
	struct bench_env *env;
	const char *where;
	struct dev_links *links;
	bool own;
	struct dev {
		int ifindex;
		char name[IF_NAMESIZE];
		__u32 xdp[3]; /* native, generic, offloaded program ids */
	} dev[256];
	int n;
};

/* One device, kept: a netlink request inside the dump would cut it. */
static int keep_link(int ifindex, const struct hc_link_info *info, void *data)
{
	struct scan *s = data;
	struct dev *d = &s->dev[s->n];

	if (s->n == 256)
		return 0;
	d->ifindex = ifindex;
	snprintf(d->name, sizeof(d->name), "%s", info->name);
	d->xdp[0] = info->drv_id;
	d->xdp[1] = info->skb_id;
	d->xdp[2] = info->hw_id;
	s->n++;
	return 0;
}

/* The namespace's devices: ingress-side qdiscs and XDP programs. */
static void scan_devs(struct scan *s, struct hc_nl *nl)
{
	static const char *const mode[] = { "native", "generic", "offloaded" };
	char kind[32], line[256];
	int i, k;

	for (i = 0; i < s->n; i++) {
		const struct dev *d = &s->dev[i];

		if (!hc_nl_ingress_qdisc(nl, d->ifindex, kind, sizeof(kind),
					 NULL) &&
		    kind[0]) {
			snprintf(line, sizeof(line), "%s qdisc on %s (%s)",
				 kind, d->name, s->where);
			add_line(s->env->outside, sizeof(s->env->outside),
				 line);
		}
		for (k = 0; k < 3; k++)
			if (d->xdp[k]) {
				snprintf(line, sizeof(line),
					 "%s XDP on %s (%s)", mode[k], d->name,
					 s->where);
				add_line(s->env->outside,
					 sizeof(s->env->outside), line);
			}
	}
}

/*
 * BPF_PROG_QUERY's attributes up to link_ids (Linux 6.6), which libbpf 1.1
 * cannot ask for; the kernel takes a shorter bpf_attr as zero beyond it.
 */
struct query_attr {
	__u32 target_ifindex, attach_type, query_flags, attach_flags;
	__u64 prog_ids;
	__u32 count, pad;
	__u64 prog_attach_flags, link_ids, link_attach_flags, revision;
};

/* The namespace's devices' tcx and netkit links, by id, for scan_links. */
static void scan_dev_links(struct scan *s)
{
	__u32 prog[64], link[64], i, k;
	struct dev_links *dl = s->links;
	struct dev_link *grown;
	int d;

	for (d = 0; d < s->n; d++)
		for (k = 0; k < sizeof(dev_points) / sizeof(dev_points[0]);
		     k++) {
			struct query_attr q = {
				.target_ifindex = s->dev[d].ifindex,
				.attach_type = dev_points[k].type,
				.prog_ids = (__u64)(unsigned long)prog,
				.count = 64,
				.link_ids = (__u64)(unsigned long)link,
			};

			memset(link, 0, sizeof(link));
			/* ENOSPC: the first 64 of more */
			if (syscall(__NR_bpf, BPF_PROG_QUERY, &q, sizeof(q)) &&
			    errno != ENOSPC)
				continue;
			for (i = 0; i < q.count && i < 64; i++) {
				if (!link[i])
					continue; /* a program, not a link */
				if (dl->n == dl->cap) {
					grown = realloc(dl->l,
							(dl->cap + 64) *
								sizeof(*grown));
					if (!grown)
						return;
					dl->l = grown;
					dl->cap += 64;
				}
				dl->l[dl->n].id = link[i];
				dl->l[dl->n].own = s->own;
				snprintf(dl->l[dl->n].at,
					 sizeof(dl->l[dl->n].at), "%s (%s)",
					 s->dev[d].name, s->where);
				dl->n++;
			}
		}
}

struct walk_ctx {
	struct bench_env *env;
	struct hc_netns_id own[4];
	int nown, home;
	struct dev_links links;
};

/* One namespace, entered and left again; of bench's own, only links. */
static int scan_netns(int fd, const struct hc_netns_id *id, const char *where,
		      void *data)
{
	struct walk_ctx *w = data;
	struct scan *s = calloc(1, sizeof(*s));
	struct hc_err err = {};
	struct hc_nl *nl;
	int i;

	if (!s)
		return -ENOMEM;
	s->env = w->env;
	s->links = &w->links;

	/* bench's own: only their links, to leave them out of scan_links */
	for (i = 0; i < w->nown; i++)
		s->own |= hc_netns_same(id, &w->own[i]);
	/* a process's namespace has no name that outlives the process */
	s->where = strncmp(where, "the netns of pid", 16) ? where :
							    "an unnamed netns";
	if (setns(fd, CLONE_NEWNET))
		goto out;
	nl = hc_nl_open(&err);
	if (nl && !hc_nl_link_each(nl, keep_link, s, &err)) {
		if (!s->own)
			scan_devs(s, nl);
		scan_dev_links(s);
	}
	hc_nl_close(nl);
	if (setns(w->home, CLONE_NEWNET)) {
		free(s);
		return -errno;
	}
out:
	free(s);
	return 0;
}

/* netfilter's protocol family and hook, in words (linux/netfilter.h). */
static void nf_words(__u32 pf, __u32 hook, char *buf, size_t size)
{
	static const char *const inet[] = { "prerouting", "input", "forward",
					    "output", "postrouting" };
	static const char *const netdev[] = { "ingress", "egress" };
	const char *fam = pf == NFPROTO_IPV4   ? "ipv4" :
			  pf == NFPROTO_IPV6   ? "ipv6" :
			  pf == NFPROTO_INET   ? "inet" :
			  pf == NFPROTO_NETDEV ? "netdev" :
			  pf == NFPROTO_BRIDGE ? "bridge" :
			  pf == NFPROTO_ARP    ? "arp" :
						 NULL;
	const char *at =
		pf == NFPROTO_NETDEV ?
			(hook < 2 ? netdev[hook] : NULL) :
			(hook < 5 && pf != NFPROTO_ARP ? inet[hook] : NULL);

	if (fam && at)
		snprintf(buf, size, "%s %s", fam, at);
	else
		snprintf(buf, size, "pf %u hook %u", pf, hook);
}

/*
 * BPF links on the receive path, machine-wide: tcx and netkit links on
 * the device the namespace walk found each on, bench's own left out;
 * netfilter links, whose info names no namespace.
 */
static void scan_links(struct bench_env *env, const struct dev_links *dl)
{
	struct {
		__u32 type, id, prog_id, pad;
		union {
			struct {
				__u32 ifindex, attach_type;
			} dev;
			struct {
				__u32 pf, hooknum;
				__s32 priority;
				__u32 flags;
			} nf;
			__u64 room[8];
		};
	} info;
	__u32 id = 0, len;
	char line[sizeof(dl->l->at) + 64], nf[32];
	const char *kind, *point, *at;
	unsigned int k;
	int fd, i;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		line[0] = '\0';
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			info.type = 0;
		close(fd);
		if (info.type == LINK_NETFILTER) {
			nf_words(info.nf.pf, info.nf.hooknum, nf, sizeof(nf));
			snprintf(line, sizeof(line),
				 "netfilter link (%s, priority %d)", nf,
				 info.nf.priority);
		} else if (info.type == LINK_TCX || info.type == LINK_NETKIT) {
			kind = info.type == LINK_TCX ? "tcx" : "netkit";
			point = NULL;
			for (k = 0;
			     k < sizeof(dev_points) / sizeof(dev_points[0]);
			     k++)
				if (dev_points[k].type == info.dev.attach_type)
					point = dev_points[k].point;
			for (i = 0, at = NULL; i < dl->n && !at; i++)
				if (dl->l[i].id == info.id)
					at = dl->l[i].own ? "" : dl->l[i].at;
			if (at && !at[0])
				continue; /* bench's own */
			if (!info.dev.ifindex)
				at = "no device (it went)";
			if (at)
				snprintf(line, sizeof(line), "%s %s link on %s",
					 kind, point ? point : "?", at);
			else
				/* in a namespace the walk could not see */
				snprintf(
					line, sizeof(line),
					"%s %s link on ifindex %u (a netns not seen)",
					kind, point ? point : "?",
					info.dev.ifindex);
		}
		if (line[0])
			add_line(env->outside, sizeof(env->outside), line);
	}
}

/* Legacy iptables tables loaded in this namespace. */
static void scan_iptables(struct bench_env *env, const char *where)
{
	/* the thread's: bench moves between namespaces by thread */
	static const char *const files[] = {
		"/proc/thread-self/net/ip_tables_names",
		"/proc/thread-self/net/ip6_tables_names"
	};
	char name[64], line[128];
	unsigned int i;
	FILE *f;

	for (i = 0; i < 2; i++) {
		f = fopen(files[i], "r");
		while (f && fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = '\0';
			snprintf(line, sizeof(line), "%s table %s (%s)",
				 i ? "ip6tables" : "iptables", name, where);
			add_line(env->outside, sizeof(env->outside), line);
		}
		if (f)
			fclose(f);
	}
}

struct nft_ctx {
	struct bench_env *env;
	const char *where;
};

static int nft_table(int family, const char *table, void *data)
{
	static const struct {
		int family;
		const char *name;
	} fam[] = { { NFPROTO_INET, "inet" },	  { NFPROTO_IPV4, "ip" },
		    { NFPROTO_ARP, "arp" },	  { NFPROTO_NETDEV, "netdev" },
		    { NFPROTO_BRIDGE, "bridge" }, { NFPROTO_IPV6, "ip6" } };
	const struct nft_ctx *c = data;
	const char *f = "?";
	char line[300];
	unsigned int i;

	for (i = 0; i < sizeof(fam) / sizeof(fam[0]); i++)
		if (fam[i].family == family)
			f = fam[i].name;
	snprintf(line, sizeof(line), "nftables table %s %s (%s)", f, table,
		 c->where);
	add_line(c->env->outside, sizeof(c->env->outside), line);
	return 0;
}

/* Is nf_tables in the kernel now? If a module not loaded, asking loads it. */
static bool nft_present(void)
{
	char path[300], line[300];
	struct utsname u;
	bool found = false;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return errno == ENOENT; /* no modules: built in or absent */
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "nf_tables ", 10);
	fclose(f);
	if (found || uname(&u))
		return found;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.builtin",
		 u.release);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "/nf_tables.ko") != NULL;
	if (f)
		fclose(f);
	return found;
}

static void scan_nft(struct nft_ctx *c)
{
	struct hc_err err = {};

	if (nft_present())
		hc_nl_nft_tables(nft_table, c, &err);
}

static int tables(void *data)
{
	struct nft_ctx *c = data;

	scan_iptables(c->env, c->where);
	scan_nft(c);
	return 0;
}

/*
 * The tables of the netns fd (-1: this one), the DUT's for --dev; if the
 * way back fails, the caller's own setns back still holds.
 */
static void scan_tables(struct bench_env *env, int fd)
{
	struct nft_ctx c = { env, fd < 0 ? "this netns" : "the DUT's netns" };

	if (fd < 0)
		tables(&c);
	else
		hc_netns_run(fd, tables, &c);
}

/*
 * --dev: RPS, RFS and XPS set on the device's queues, what is not off.
 * sysfs shows the devices of the namespace it was mounted in (ip netns
 * exec mounts the namespace's own): a namesake there with another
 * ifindex is not the device.
 */
static void scan_steering(struct bench_env *env, const char *dev, int ifindex)
{
	static const char *const keys[] = { "rps_cpus", "rps_flow_cnt",
					    "xps_cpus", "xps_rxqs" };
	char dir[300], path[600], val[256], line[1000];
	struct dirent *de;
	unsigned int k;
	DIR *d;

	if (!dev)
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", dev);
	bench_first_line(path, val, sizeof(val));
	if (atoi(val) != ifindex)
		return;
	snprintf(dir, sizeof(dir), "/sys/class/net/%s/queues", dev);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "rx-", 3) &&
		    strncmp(de->d_name, "tx-", 3))
			continue;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (strncmp(keys[k],
				    de->d_name[0] == 'r' ? "rps" : "xps", 3))
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dir,
				 de->d_name, keys[k]);
			bench_first_line(path, val, sizeof(val));
			/* a mask of zeros, or a count of 0: off */
			if (!val[0] || !val[strspn(val, "0,")])
				continue;
			snprintf(line, sizeof(line), "%s %s on %s %s", keys[k],
				 val, dev, de->d_name);
			add_line(env->outside, sizeof(env->outside), line);
		}
	}
	if (d)
		closedir(d);
}

/* Every namespace's devices, less own's namespaces. */
static void outside(struct bench_env *env, const int *own, int n)
{
	struct walk_ctx w = { .env = env };
	int i;

	env->outside[0] = '\0';
	w.home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < n && w.nown < 4; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", own[i]);
		if (own[i] >= 0 && !stat(path, &st)) {
			w.own[w.nown].dev = st.st_dev;
			w.own[w.nown++].ino = st.st_ino;
		}
	}
	if (w.home >= 0) {
		hc_netns_each(NULL, NULL, scan_netns, &w, NULL);
		close(w.home);
	}
	scan_links(env, &w.links);
	free(w.links.l);
}

static void cpu_model(char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(buf, size, "%s", strchr(line, ':') + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
}

static void mitigations(char *buf, size_t size)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	char path[512], state[256], line[600];
	struct dirent *de;

	buf[0] = '\0';
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		bench_first_line(path, state, sizeof(state));
		snprintf(line, sizeof(line), "%s: %s", de->d_name, state);
		add_line(buf, size, line);
	}
	if (d)
		closedir(d);
	sort_lines(buf);
}

/* FNV-1a of /boot/config-RELEASE, where it is readable. */
static void config_hash(const char *release, char *buf, size_t size)
{
	char path[128];
	__u64 h = 0xcbf29ce484222325ULL;
	FILE *f;
	int c;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "r");
	if (!f)
		return;
	while ((c = getc(f)) != EOF)
		h = (h ^ (unsigned char)c) * 0x100000001b3ULL;
	fclose(f);
	snprintf(buf, size, "%016llx", (unsigned long long)h);
}

static int settings(void *value)
{
	char (*v)[sizeof(bench_settings) / BENCH_ENV_FILES] = value;
	int i;

	for (i = 0; i < BENCH_ENV_FILES; i++)
		bench_first_line(bench_env_files[i].path, v[i], sizeof(v[i]));
	return 0;
}

void bench_env_settings(int fd, bench_settings value)
{
	if (hc_netns_run(fd, settings, value))
		memset(value, 0, sizeof(bench_settings));
}

/* What can change while bench runs: what is outside it, the settings. */
static void read_state(struct bench_env *env, const struct bench_env_at *at)
{
	outside(env, at->own, at->nown);
	scan_tables(env, at->dut_fd);
	scan_steering(env, at->dev, at->ifindex);
	sort_lines(env->outside);
	settings(env->value);
}

/* The machine's state into env: all of it. */
static void read_all(struct bench_env *env, const struct bench_env_at *at)
{
	struct utsname u;

	env->jit = hc_jit_enabled() == 1;
	env->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	read_state(env, at);
	cpu_model(env->cpu_model, sizeof(env->cpu_model));
	mitigations(env->mitigations, sizeof(env->mitigations));
	if (!uname(&u))
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	config_hash(env->kernel, env->config_hash, sizeof(env->config_hash));
	hypervisor(env->hypervisor);
	env->emulated = !strcmp(env->hypervisor, "TCGTCGTCGTCG");
}

/* The lines of a that b lacks, each as "WHAT: LINE", into out. */
static int gone(const char *a, const char *b, const char *what, char *out,
		size_t size)
{
	char *copy = strdup(a), *l, *save, line[512];
	int n = 0;

	for (l = copy ? strtok_r(copy, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *hit = strstr(b, l);
		size_t len = strlen(l);

		/* a whole line of b */
		while (hit &&
		       !((hit == b || hit[-1] == '\n') && hit[len] == '\n'))
			hit = strstr(hit + 1, l);
		if (hit)
			continue;
		snprintf(line, sizeof(line), "%s: %s", what, l);
		add_line(out, size, line);
		n++;
	}
	free(copy);
	return n;
}

/* What differs from before to now, "WHEN: new: X" a line, into out. */
static int changes(const struct bench_env *before, const struct bench_env *now,
		   const char *when, char *out, size_t size)
{
	char line[2300];
	int i, n = 0;

	snprintf(line, sizeof(line), "%s: new", when);
	n += gone(now->outside, before->outside, line, out, size);
	snprintf(line, sizeof(line), "%s: gone", when);
	n += gone(before->outside, now->outside, line, out, size);
	for (i = 0; i < BENCH_ENV_FILES; i++)
		if (strcmp(before->value[i], now->value[i])) {
			snprintf(line, sizeof(line), "%s: %s %s -> %s", when,
				 bench_env_files[i].key, before->value[i],
				 now->value[i]);
			add_line(out, size, line);
			n++;
		}
	return n;
}

struct take_ctx {
	struct bench_env *env;
	struct bench_env_at at;
	bool made;
};

static int take(void *data)
{
	struct take_ctx *c = data;

	if (c->made)
		read_state(c->env, &c->at);
	else
		read_all(c->env, &c->at);
	return 0;
}

/*
 * The machine's state, read from where bench started (the settings are
 * per netns), --dev's tables from the DUT's netns; once bench's own
 * namespaces are made, they are left out, and only what can change
 * while it runs is read again (env keeps the rest).
 */
int bench_env_take(struct bench *b, struct bench_env *env, bool made)
{
	const struct bench_topo *t = b->net.topo;
	int own[3], n = made && t->own_ns ? t->own_ns(b, own) : 0;
	struct take_ctx c = { env,
			      { own, n, b->opt.dev ? b->net.fd_dut : -1,
				b->opt.dev, b->net.if_dut },
			      made };
	int ret = b->net.fd_root < 0 ? -EBADF :
				       hc_netns_run(b->net.fd_root, take, &c);

	if (ret)
		fprintf(stderr,
			"Warning: reading the machine's state: %s\n",
			strerror(-ret));
	return ret;
}

/* The rows a change may have moved, by their declared paths. */
static void moved_rows(const struct bench_rows *rows, enum bench_moves m,
		       char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	if (m == BENCH_MOVES_NONE)
		return;
	if (m == BENCH_MOVES_ALL) {
		snprintf(buf, size, "every row");
		return;
	}
	for (i = 0; i < rows->n && len < size; i++) {
		const struct bench_row *r = &rows->row[i];
		const struct bench_row *base =
			r->base >= 0 ? &rows->row[r->base] : NULL;

		if (bench_path_skb(r->path) ||
		    (base && bench_path_skb(base->path)))
			len += snprintf(buf + len, size - len, "%s%s",
					len ? ", " : "", r->name);
	}
}

void bench_env_watch(struct bench *b, int round)
{
	const struct bench_env *last = b->watch.env_seen ?: &b->env;
	struct bench_env *now = malloc(sizeof(*now));
	char when[32], add[1024] = "", rows[600], *l, *save;

	if (!now)
		return;
	*now = *last;
	if (round >= 0)
		snprintf(when, sizeof(when), "round %d", round);
	else
		snprintf(when, sizeof(when), "after the rounds");
	if (!bench_env_take(b, now, true) &&
	    changes(last, now, when, add, sizeof(add))) {
		fprintf(stderr, "Warning: the machine changed (%s):\n", when);
		for (l = strtok_r(add, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			add_line(b->env.changed, sizeof(b->env.changed), l);
			moved_rows(&b->rows, bench_env_line_moves(l), rows,
				   sizeof(rows));
			fprintf(stderr, "  %s: it may have moved %s\n", l,
				rows[0] ? rows : "no row");
		}
	}
	free(b->watch.env_seen);
	b->watch.env_seen = round >= 0 ? now : NULL;
	if (round < 0)
		free(now);
}

/*
 * The states that move a row's cost, and whose rows: the ingress path's
 * static keys (a qdisc, a tcx or netkit link or generic XDP anywhere),
 * netfilter's (a table or link in any namespace) and --dev's steering
 * are crossed only by frames that become skbs; the JIT, the CPU and
 * its frequency, by everything. A native XDP program elsewhere moves
 * no row. The first match wins.
 */
static const struct {
	const char *key, *item; /* item: an "outside" line's pattern */
	enum bench_moves moves;
} movers[] = {
	{ "outside", "native XDP on *", BENCH_MOVES_NONE },
	{ "outside", "offloaded XDP on *", BENCH_MOVES_NONE },
	{ "outside", "*", BENCH_MOVES_SKB },
	{ "rps_sock_flow_entries", NULL, BENCH_MOVES_SKB },
	{ "bpf_stats_enabled", NULL, BENCH_MOVES_ALL },
	{ "bpf_jit_enable", NULL, BENCH_MOVES_ALL },
	{ "bpf_jit_harden", NULL, BENCH_MOVES_ALL },
	{ "bpf_jit", NULL, BENCH_MOVES_ALL },
	{ "cpufreq_governor", NULL, BENCH_MOVES_ALL },
	{ "cpufreq_boost", NULL, BENCH_MOVES_ALL },
	{ "intel_pstate_no_turbo", NULL, BENCH_MOVES_ALL },
	{ "cmdline", NULL, BENCH_MOVES_ALL },
	{ "mitigations", NULL, BENCH_MOVES_ALL },
	{ "cpus", NULL, BENCH_MOVES_ALL },
	{ "cpu_model", NULL, BENCH_MOVES_ALL },
	{ "hypervisor", NULL, BENCH_MOVES_ALL },
};

enum bench_moves bench_env_moves(const char *key, const char *item)
{
	unsigned int i;

	for (i = 0; i < sizeof(movers) / sizeof(movers[0]); i++)
		if (!strcmp(movers[i].key, key) &&
		    (!movers[i].item || fnmatch(movers[i].item, item, 0) == 0))
			return movers[i].moves;
	return BENCH_MOVES_NONE;
}

enum bench_moves bench_env_line_moves(const char *line)
{
	char key[64];

	/* "round 3: new: X", "after the rounds: KEY A -> B" */
	if (!strncmp(line, "round ", 6) || !strncmp(line, "after ", 6))
		line = strstr(line, ": ") ? strstr(line, ": ") + 2 : line;
	if (!strncmp(line, "new: ", 5) || !strncmp(line, "gone: ", 6))
		return bench_env_moves("outside", strchr(line, ' ') + 1);
	if (sscanf(line, "%63s", key) != 1)
		return BENCH_MOVES_NONE;
	return bench_env_moves(key, NULL);
}
