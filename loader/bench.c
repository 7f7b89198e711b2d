// SPDX-License-Identifier: GPL-2.0
/*
 * hookcmp bench: the side-by-side matrix on a topology of its own. Two
 * fresh network namespaces joined by a veth pair; the generator sends from
 * one, the device under test (DUT) runs one row's hook in the other. Every
 * repetition is accounted for: generated = seen at the hook + dropped
 * before it, or the row is INVALID.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "cmd.h"
#include "gen.h"
#include "json.h"
#include "nl.h"
#include "opts.h"
#include "rules.h"
#include "stats.h"

#define MAX_ROWS 64
#define MAX_REPS 50
#define GEN_DEV "hcg"
#define DUT_DEV "hcd"
#define OTHER_DEV "hcx"
#define SPARE_DEV "hcz"

enum row_kind { ROW_BPF, ROW_IPT, ROW_NFT, ROW_STACK };

struct row {
	char name[40];
	enum row_kind kind;
	struct hc_run run; /* ROW_BPF: what to attach */
	bool local; /* traffic addressed to the DUT's MAC and IP */
	__u32 size;
	const char *setup; /* static-key: tc commands in the DUT namespace */
	bool drop; /* every packet must be dropped at the hook */

	/* results */
	int nreps;
	double mpps[MAX_REPS];
	__u64 generated[MAX_REPS], seen[MAX_REPS], dropped[MAX_REPS];
	char reason[160];
};

struct bench {
	int scenario, cpu_mode, reps;
	__u32 packets;
	const char *hooks, *json_path, *csv_path;
	const char *plot_dir;
	bool help, no_bare;

	int fd_gen, fd_dut, fd_root; /* network namespaces */
	struct hc_nl *nl_gen, *nl_dut;
	int if_gen, if_dut, if_spare;
	__u8 dut_mac[6];
	double gen_ns; /* the generator's own cost per packet (inline) */
	double gen_mpps;
	int ncpu;
	bool jit, live, tcx;
	char foreign[128];
	struct row rows[MAX_ROWS];
	int nrows;
};

static const char *const scenarios[] = { "hooks", "static-key", "parse",
					 "rules", "size",	NULL };
static const char *const cpu_modes[] = { "split", "inline", NULL };

/* ---- namespaces and shell ---- */

/*
 * Runs cmd with /bin/sh inside the namespace nsfd, with a sysfs of that
 * namespace (as `ip netns exec` does); stdout goes to out when given.
 * Returns the command's exit status.
 */
static int run_in(int nsfd, const char *cmd, char *out, size_t size)
{
	int pfd[2], status, devnull;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		devnull = open("/dev/null", O_WRONLY);
		if (setns(nsfd, CLONE_NEWNET) || unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL))
			_exit(126);
		umount2("/sys", MNT_DETACH);
		mount("sysfs", "/sys", "sysfs", 0, NULL);
		dup2(out ? pfd[1] : devnull, 1);
		dup2(devnull, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (out && len < (ssize_t)size - 1 &&
	       (n = read(pfd[0], out + len, size - 1 - len)) > 0)
		len += n;
	if (out)
		out[len] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int sh(int nsfd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int sh(int nsfd, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run_in(nsfd, cmd, NULL, 0);
}

/* The first number the command prints. */
static __u64 sh_num(int nsfd, const char *cmd)
{
	char out[256];

	return run_in(nsfd, cmd, out, sizeof(out)) ? 0 :
						     strtoull(out, NULL, 10);
}

static int enter(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

/*
 * A namespace with no name, held only by our fd: it goes away with the
 * process however the process ends, and everything in it with it.
 */
static int new_ns(int root)
{
	int fd;

	if (unshare(CLONE_NEWNET))
		return -errno;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	enter(root);
	return fd < 0 ? -errno : fd;
}

/* NAPI on the DUT's veth without XDP: GRO on, as `ethtool -K DEV gro on`. */
static int set_gro(const char *dev, bool on)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_SGRO, .data = on };
	struct ifreq ifr = { .ifr_data = (void *)&ev };

	return hc_dev_ioctl(dev, SIOCETHTOOL, &ifr);
}

static void topo_down(struct bench *b)
{
	if (b->fd_root >= 0)
		enter(b->fd_root);
	hc_nl_close(b->nl_gen);
	hc_nl_close(b->nl_dut);
	b->nl_gen = b->nl_dut = NULL;
	/* The last reference: the namespaces go, the veth pairs with them. */
	if (b->fd_gen >= 0)
		close(b->fd_gen);
	if (b->fd_dut >= 0)
		close(b->fd_dut);
	b->fd_gen = b->fd_dut = -1;
}

static int topo_up(struct bench *b, struct hc_err *err)
{
	b->fd_gen = new_ns(b->fd_root);
	b->fd_dut = new_ns(b->fd_root);
	if (b->fd_gen < 0 || b->fd_dut < 0) {
		hc_err_set(err, "creating network namespaces");
		return b->fd_gen < 0 ? b->fd_gen : b->fd_dut;
	}
	if (sh(b->fd_gen,
	       "ip link add " GEN_DEV " type veth peer name " DUT_DEV
	       " netns /proc/%d/fd/%d",
	       getpid(), b->fd_dut) ||
	    sh(b->fd_gen,
	       "ip link set " GEN_DEV " addrgenmode none up && "
	       "ip link add " SPARE_DEV " type veth peer name hcw") ||
	    sh(b->fd_dut,
	       "ip link set " DUT_DEV " addrgenmode none up && "
	       "ip addr add 198.18.0.2/15 dev " DUT_DEV " && "
	       "ip link add " OTHER_DEV " type veth peer name hcy && "
	       "ip link set " OTHER_DEV " up")) {
		hc_err_set(err, "building the veth topology with ip failed");
		return -EIO;
	}
	/* Netlink sockets stay in the namespace they were opened in. */
	if (enter(b->fd_gen) || !(b->nl_gen = hc_nl_open(err)) ||
	    enter(b->fd_dut) || !(b->nl_dut = hc_nl_open(err)))
		return -errno;
	b->if_dut = if_nametoindex(DUT_DEV);
	if (hc_dev_mac(DUT_DEV, b->dut_mac))
		return -errno;
	enter(b->fd_gen);
	b->if_gen = if_nametoindex(GEN_DEV);
	b->if_spare = if_nametoindex(SPARE_DEV);
	return b->if_dut && b->if_gen && b->if_spare ? 0 : -ENODEV;
}

/* split: the DUT's NAPI in a kthread pinned away from the generator. */
static int set_cpu_mode(struct bench *b)
{
	char comm[64], path[300];
	struct dirent *de;
	cpu_set_t set;
	DIR *d;
	int found = 0;

	if (sh(b->fd_dut, "echo %d > /sys/class/net/" DUT_DEV "/threaded",
	       b->cpu_mode == 0))
		return -EIO;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (b->cpu_mode != 0)
		return 0;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "napi/" DUT_DEV "-", 9)) {
			CPU_ZERO(&set);
			CPU_SET(1, &set);
			sched_setaffinity(atoi(de->d_name), sizeof(set), &set);
			found++;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return found ? 0 : -ESRCH;
}

/* ---- rows ---- */

static struct row *add_row(struct bench *b, const char *name)
{
	struct row *r = &b->rows[b->nrows++];

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->size = HC_PKT_MIN;
	r->drop = true;
	r->run.conf.parse = HC_PARSE_L4;
	r->run.conf.def_verdict = HC_DROP;
	r->run.port = 9;
	r->run.prio = 1;
	r->run.handle = 1;
	r->run.prog_fd = r->run.stats_fd = r->run.link_fd = r->run.sock_fd = -1;
	r->run.no_journal = true;
	return r;
}

/* The BPF hooks: name, hook, mode fields. */
static const struct hook_row {
	const char *name;
	enum hc_hook_id hook;
	int mode; /* xdp_mode, qdisc, or sock */
	bool tcx;
} hook_rows[] = {
	{ "xdp-native", HC_HOOK_XDP, HC_XDP_NATIVE },
	{ "xdp-generic", HC_HOOK_XDP, HC_XDP_GENERIC },
	{ "tc-clsact", HC_HOOK_TC, HC_QDISC_CLSACT },
	{ "tc-ingress", HC_HOOK_TC, HC_QDISC_INGRESS },
	{ "tcx", HC_HOOK_TC, 0, true },
	{ "socket-udp", HC_HOOK_SOCKET, HC_SOCK_UDP },
	{ "socket-packet", HC_HOOK_SOCKET, HC_SOCK_PACKET },
};

static bool wanted(const struct bench *b, const char *name)
{
	char list[256], *save, *w;

	if (!b->hooks)
		return true;
	snprintf(list, sizeof(list), "%s", b->hooks);
	for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (!strcmp(w, name))
			return true;
	return false;
}

static struct row *bpf_row(struct bench *b, const struct hook_row *h,
			   const char *suffix)
{
	char name[40];
	struct row *r;

	snprintf(name, sizeof(name), "%s%s", h->name, suffix);
	r = add_row(b, name);
	r->kind = ROW_BPF;
	r->run.hook = h->hook;
	r->run.xdp_mode = h->mode;
	r->run.qdisc = h->mode;
	r->run.sock = h->mode;
	r->run.tc_attach = h->tcx ? HC_TC_TCX : HC_TC_CLS_BPF;
	r->local = h->hook == HC_HOOK_SOCKET && h->mode == HC_SOCK_UDP;
	return r;
}

static void rules_conf(struct hc_conf *c, int n)
{
	struct hc_err err = {};
	char text[64];
	int i;

	/* Rules that never match: every packet walks the whole list. */
	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "tcp dport %d pass", 60000 + i);
		hc_rule_parse(text, &c->rules[i], &err);
	}
	c->nr_rules = n;
}

static void build_rows(struct bench *b)
{
	static const char *const depth_names[] = { "none", "l2", "l3", "l4" };
	static const int nrules[] = { 0, 1, 8, 64 };
	static const __u32 sizes[] = { 60, 512, 1500 };
	unsigned int i, j;
	struct row *r;

	switch (b->scenario) {
	case 0: /* hooks */
		for (i = 0; i < sizeof(hook_rows) / sizeof(hook_rows[0]); i++)
			if (wanted(b, hook_rows[i].name))
				bpf_row(b, &hook_rows[i], "");
		if (wanted(b, "iptables-raw")) {
			r = add_row(b, "iptables-raw");
			r->kind = ROW_IPT;
			r->local = true;
		}
		if (wanted(b, "nft-ingress")) {
			r = add_row(b, "nft-ingress");
			r->kind = ROW_NFT;
		}
		if (wanted(b, "stack"))
			add_row(b, "stack")->kind = ROW_STACK;
		for (i = 0; i < sizeof(hook_rows) / sizeof(hook_rows[0]); i++) {
			if (!wanted(b, hook_rows[i].name) || b->no_bare ||
			    !strcmp(hook_rows[i].name, "tc-ingress") ||
			    !strcmp(hook_rows[i].name, "socket-packet"))
				continue;
			bpf_row(b, &hook_rows[i], "-bare")->run.bare = true;
		}
		break;
	case 1: /* static-key: the same late drop (ip_rcv, not our MAC) */
		add_row(b, "nothing")->kind = ROW_STACK;
		r = add_row(b, "ingress-other-dev");
		r->kind = ROW_STACK;
		r->setup = "tc qdisc add dev " OTHER_DEV " ingress";
		r = add_row(b, "ingress");
		r->kind = ROW_STACK;
		r->setup = "tc qdisc add dev " DUT_DEV " ingress";
		r = add_row(b, "clsact");
		r->kind = ROW_STACK;
		r->setup = "tc qdisc add dev " DUT_DEV " clsact";
		r = add_row(b, "ingress+u32");
		r->kind = ROW_STACK;
		r->setup =
			"tc qdisc add dev " DUT_DEV " ingress && "
			"tc filter add dev " DUT_DEV " parent ffff: prio 1 "
			"protocol all u32 match u32 0xdeadbeef 0xffffffff at 0 "
			"classid 1:1";
		for (i = 0; i < sizeof(hook_rows) / sizeof(hook_rows[0]); i++) {
			const char *n = hook_rows[i].name;

			if (strcmp(n, "tc-clsact") && strcmp(n, "tcx") &&
			    strcmp(n, "xdp-generic") && strcmp(n, "xdp-native"))
				continue;
			r = bpf_row(b, &hook_rows[i], "-pass");
			r->run.conf.def_verdict = HC_PASS;
			r->drop = false;
		}
		break;
	case 2: /* parse */
	case 3: /* rules */
	case 4: /* size */
		for (i = 0; i < sizeof(hook_rows) / sizeof(hook_rows[0]); i++) {
			if (!wanted(b, hook_rows[i].name))
				continue;
			for (j = 0; j < (b->scenario == 4 ? 3u : 4u); j++) {
				char sfx[32];

				if (b->scenario == 2)
					snprintf(sfx, sizeof(sfx), "-%s",
						 depth_names[j]);
				else if (b->scenario == 3)
					snprintf(sfx, sizeof(sfx), "-%drules",
						 nrules[j]);
				else
					snprintf(sfx, sizeof(sfx), "-%u",
						 sizes[j]);
				r = bpf_row(b, &hook_rows[i], sfx);
				if (b->scenario == 2)
					r->run.conf.parse = j;
				else if (b->scenario == 3)
					rules_conf(&r->run.conf, nrules[j]);
				else
					r->size = sizes[j];
			}
		}
		break;
	}
}

/* Attaches the bare tc program with tcx to the DUT and takes it off. */
static bool probe_tcx(struct bench *b)
{
	struct hc_run r = { .hook = HC_HOOK_TC,
			    .tc_attach = HC_TC_TCX,
			    .bare = true,
			    .dev = DUT_DEV,
			    .ifindex = b->if_dut,
			    .nl = b->nl_dut,
			    .prog_fd = -1,
			    .stats_fd = -1,
			    .link_fd = -1,
			    .sock_fd = -1 };
	bool ok;

	enter(b->fd_dut);
	ok = !hc_hook_tc.load(&r) && !hc_hook_tc.attach(&r);
	hc_hook_tc.detach(&r);
	hc_prog_unload(&r);
	enter(b->fd_gen);
	return ok;
}

/* ---- one row ---- */

static int row_setup(struct bench *b, struct row *r)
{
	struct hc_run *run = &r->run;
	const struct hc_hook *h;
	int err;

	if (r->setup && sh(b->fd_dut, "%s", r->setup))
		return snprintf(r->reason, sizeof(r->reason),
				"setup failed: %s", r->setup),
		       -EIO;
	if (r->kind == ROW_IPT &&
	    sh(b->fd_dut,
	       "iptables -t raw -A PREROUTING -i " DUT_DEV " -j DROP"))
		return snprintf(
			       r->reason, sizeof(r->reason),
			       "iptables -t raw failed (is iptables installed?)"),
		       -EIO;
	if (r->kind == ROW_NFT &&
	    sh(b->fd_dut,
	       "nft 'add table netdev hcbench; "
	       "add chain netdev hcbench in { type filter hook ingress device " DUT_DEV
	       " priority 0; }; add rule netdev hcbench in counter drop'"))
		return snprintf(
			       r->reason, sizeof(r->reason),
			       "nft netdev ingress failed (is nftables installed?)"),
		       -EIO;
	if (r->kind != ROW_BPF)
		return 0;

	enter(b->fd_dut);
	run->nl = b->nl_dut;
	run->dev = DUT_DEV;
	run->ifindex = b->if_dut;
	h = hc_hook_of(run);
	err = h->load(run);
	if (!err)
		err = h->attach(run);
	enter(b->fd_gen);
	if (err)
		snprintf(r->reason, sizeof(r->reason), "%s %s: %s %s", h->name,
			 h->attach_name(run), strerror(-err),
			 run->err.kernel[0] ? run->err.kernel : run->err.msg);
	return err;
}

static void row_teardown(struct bench *b, struct row *r)
{
	enter(b->fd_dut);
	if (r->kind == ROW_BPF) {
		hc_hook_of(&r->run)->detach(&r->run);
		hc_prog_unload(&r->run);
	}
	enter(b->fd_gen);
	if (r->setup)
		sh(b->fd_dut, "tc qdisc del dev " DUT_DEV " ingress; "
			      "tc qdisc del dev " DUT_DEV " clsact; "
			      "tc qdisc del dev " OTHER_DEV " ingress");
	if (r->kind == ROW_IPT)
		sh(b->fd_dut, "iptables -t raw -F PREROUTING");
	if (r->kind == ROW_NFT)
		sh(b->fd_dut, "nft delete table netdev hcbench");
}

/* Packets the row's hook saw, and those it passed. */
static int row_seen(struct bench *b, struct row *r, __u64 *seen, __u64 *pass)
{
	struct hc_link_info li;
	struct hc_snap s;
	int cls;

	*pass = 0;
	switch (r->kind) {
	case ROW_BPF:
		if (r->run.bare)
			break;
		if (hc_stats_read(r->run.stats_fd, &s))
			return -errno;
		*seen = 0;
		for (cls = 0; cls < HC_NR_CLASSES; cls++) {
			*seen += s.c[cls * HC_NR_VERDICTS + HC_DROP].packets +
				 s.c[cls * HC_NR_VERDICTS + HC_PASS].packets;
			*pass += s.c[cls * HC_NR_VERDICTS + HC_PASS].packets;
		}
		return 0;
	case ROW_IPT:
		*seen = sh_num(b->fd_dut, "iptables -t raw -nvxL PREROUTING"
					  " | awk 'NR==3 {print $1}'");
		return 0;
	case ROW_NFT:
		*seen = sh_num(b->fd_dut,
			       "nft list chain netdev hcbench in | sed -n "
			       "'s/.*counter packets \\([0-9]*\\).*/\\1/p'");
		return 0;
	case ROW_STACK:
		break;
	}
	/* No counters of its own: what the DUT's device received. */
	if (hc_nl_link_get(b->nl_dut, b->if_dut, &li, NULL))
		return -EIO;
	*seen = li.stats.rx_packets;
	return 0;
}

/*
 * Frames the veth could not put on the DUT's ring. The kernel reports the
 * same drops as the DUT's rx_dropped too, so only one side is read.
 */
static __u64 dropped_before(struct bench *b)
{
	struct hc_link_info g;

	if (hc_nl_link_get(b->nl_gen, b->if_gen, &g, NULL))
		return 0;
	return g.stats.tx_dropped;
}

static void row_run(struct bench *b, struct row *r, struct hc_gen *g)
{
	__u64 seen0, seen1, pass0, pass1, drop0, sent;
	int i;

	for (i = 0; i < b->reps && !hc_stop_sig; i++) {
		double t0, t1;

		if (row_seen(b, r, &seen0, &pass0))
			break;
		drop0 = dropped_before(b);
		t0 = hc_now();
		hc_gen_send(g, b->packets, &sent, &hc_stop_sig);
		t1 = hc_now();
		usleep(100000); /* let the DUT drain its ring */
		if (row_seen(b, r, &seen1, &pass1))
			break;
		r->generated[i] = sent;
		r->seen[i] = seen1 - seen0;
		r->dropped[i] = dropped_before(b) - drop0;
		r->mpps[i] = r->seen[i] / (t1 - t0) / 1e6;
		r->nreps++;
		if (!r->reason[0] &&
		    fabs((double)r->generated[i] -
			 (double)(r->seen[i] + r->dropped[i])) >
			    0.001 * r->generated[i])
			snprintf(
				r->reason, sizeof(r->reason),
				"rep %d: generated %llu != seen %llu + dropped before %llu",
				i + 1, (unsigned long long)r->generated[i],
				(unsigned long long)r->seen[i],
				(unsigned long long)r->dropped[i]);
		if (!r->reason[0] && r->drop && pass1 != pass0)
			snprintf(
				r->reason, sizeof(r->reason),
				"rep %d: %llu packets passed a drop row's hook",
				i + 1, (unsigned long long)(pass1 - pass0));
	}
	if (!r->reason[0] && r->nreps < b->reps)
		snprintf(r->reason, sizeof(r->reason),
			 "only %d of %d repetitions ran", r->nreps, b->reps);
}

/* ---- statistics and output ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct summary {
	double median, min, max, cv, ns;
};

static struct summary summarize(const struct bench *b, const struct row *r)
{
	struct summary s = {};
	double v[MAX_REPS], mean = 0, var = 0;
	int i, n = r->nreps;

	if (!n)
		return s;
	memcpy(v, r->mpps, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_double);
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v[0];
	s.max = v[n - 1];
	for (i = 0; i < n; i++)
		mean += v[i] / n;
	for (i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean) / n;
	s.cv = mean > 0 ? sqrt(var) / mean : 0;
	/* inline: the generator's own cost comes off; split: it runs apart. */
	s.ns = s.median > 0 ? 1e3 / s.median - (b->cpu_mode ? b->gen_ns : 0) :
			      0;
	return s;
}

static const struct row *find_row(const struct bench *b, const char *name)
{
	int i;

	for (i = 0; i < b->nrows; i++)
		if (!strcmp(b->rows[i].name, name))
			return &b->rows[i];
	return NULL;
}

static void print_table(const struct bench *b)
{
	const struct row *xdp = find_row(b, "xdp-native");
	struct summary base = summarize(b, &b->rows[0]);
	struct summary ref = xdp ? summarize(b, xdp) : base;
	int i;

	printf("\n%-22s %8s %9s %9s %8s %6s  %s\n", "row", "Mpps", "ns/pkt",
	       "delta ns", "vs xdp", "CV", "valid");
	for (i = 0; i < b->nrows; i++) {
		const struct row *r = &b->rows[i];
		struct summary s = summarize(b, r);

		if (r->reason[0] && !r->nreps) {
			printf("%-22s %8s %9s %9s %8s %6s  INVALID: %s\n",
			       r->name, "-", "-", "-", "-", "-", r->reason);
			continue;
		}
		printf("%-22s %8.3f %9.1f %+9.1f %7.2fx %5.1f%%  %s%s\n",
		       r->name, s.median, s.ns, s.ns - base.ns,
		       ref.median > 0 ? s.median / ref.median : 0, s.cv * 100,
		       r->reason[0] ? "INVALID: " : "yes", r->reason);
	}
	printf("\n%s mode; delta vs %s; %d reps of %u packets; generator alone %.2f Mpps (%.1f ns/pkt)\n",
	       cpu_modes[b->cpu_mode], b->rows[0].name, b->reps, b->packets,
	       b->gen_mpps, b->gen_ns);
}

static void write_json(const struct bench *b, FILE *f)
{
	struct hc_json j = { .f = f };
	int i, k;

	jw_open(&j, NULL, '{');
	jw_str(&j, "scenario", scenarios[b->scenario]);
	jw_str(&j, "cpu_mode", cpu_modes[b->cpu_mode]);
	jw_open(&j, "env", '{');
	jw_u64(&j, "cpus", b->ncpu);
	jw_u64(&j, "bpf_jit", b->jit);
	jw_u64(&j, "live_frames", b->live);
	jw_u64(&j, "tcx", b->tcx);
	jw_str(&j, "foreign_ingress_qdisc", b->foreign);
	jw_u64(&j, "packets_per_rep", b->packets);
	jw_u64(&j, "reps", b->reps);
	jw_f64(&j, "gen_only_mpps", b->gen_mpps);
	jw_f64(&j, "gen_ns_per_pkt", b->gen_ns);
	jw_close(&j, '}');
	jw_open(&j, "rows", '[');
	for (i = 0; i < b->nrows; i++) {
		const struct row *r = &b->rows[i];
		struct summary s = summarize(b, r);

		jw_open(&j, NULL, '{');
		jw_str(&j, "name", r->name);
		jw_f64(&j, "mpps", s.median);
		jw_f64(&j, "mpps_min", s.min);
		jw_f64(&j, "mpps_max", s.max);
		jw_f64(&j, "ns_per_pkt", s.ns);
		jw_f64(&j, "cv", s.cv);
		jw_u64(&j, "valid", !r->reason[0]);
		if (r->reason[0])
			jw_str(&j, "reason", r->reason);
		else
			jw_raw(&j, "reason", "null");
		jw_open(&j, "reps", '[');
		for (k = 0; k < r->nreps; k++) {
			jw_open(&j, NULL, '{');
			jw_f64(&j, "mpps", r->mpps[k]);
			jw_u64(&j, "generated", r->generated[k]);
			jw_u64(&j, "seen", r->seen[k]);
			jw_u64(&j, "dropped_before", r->dropped[k]);
			jw_close(&j, '}');
		}
		jw_close(&j, ']');
		jw_close(&j, '}');
	}
	jw_close(&j, ']');
	jw_close(&j, '}');
}

static void write_csv(const struct bench *b, FILE *f)
{
	int i;

	fprintf(f, "row,mpps,mpps_min,mpps_max,ns_per_pkt,cv,valid,reason\n");
	for (i = 0; i < b->nrows; i++) {
		const struct row *r = &b->rows[i];
		struct summary s = summarize(b, r);

		fprintf(f, "%s,%.4f,%.4f,%.4f,%.2f,%.4f,%s,\"%s\"\n", r->name,
			s.median, s.min, s.max, s.ns, s.cv,
			r->reason[0] ? "false" : "true", r->reason);
	}
}

/*
 * scripts/plot.sh draws the charts: next to the binary in the tree, or
 * where `make install` put it beside the binary. HOOKCMP_SCRIPTS
 * overrides both.
 */
static int plot(struct bench *b)
{
	const char *env = getenv("HOOKCMP_SCRIPTS");
	char dir[512], json[700];
	ssize_t n;
	FILE *f;
	int ret;

	if (sh(b->fd_root, "command -v gnuplot")) {
		fprintf(stderr,
			"Warning: no gnuplot (Debian: gnuplot-nox), so no charts\n");
		return 0;
	}
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 40);
	if (env) {
		snprintf(dir, sizeof(dir), "%s", env);
	} else if (n > 0) {
		/* In the tree: DIR/hookcmp, DIR/scripts; installed: PREFIX/sbin
		 * and PREFIX/share/hookcmp/scripts. */
		dir[n] = '\0';
		strcpy(strrchr(dir, '/'), "/scripts");
		snprintf(json, sizeof(json), "%s/plot.sh", dir);
		if (access(json, R_OK))
			strcpy(strrchr(dir, '/'), "/../share/hookcmp/scripts");
	}
	if (mkdir(b->plot_dir, 0755) && errno != EEXIST)
		return hc_fail(HC_EXIT_FAIL, "--plot %s: %s", b->plot_dir,
			       strerror(errno));
	snprintf(json, sizeof(json), "%s/bench.json", b->plot_dir);
	f = fopen(json, "w");
	if (!f)
		return hc_fail(HC_EXIT_FAIL, "%s: %s", json, strerror(errno));
	write_json(b, f);
	fclose(f);
	ret = sh(b->fd_root, "sh '%s/plot.sh' '%s' '%s'", dir, json,
		 b->plot_dir);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "%s/plot.sh failed (%d)", dir,
			       ret);
	printf("charts in %s\n", b->plot_dir);
	return 0;
}

/* ---- the command ---- */

#define B(f) offsetof(struct bench, f)

static const struct hc_opt bench_opts[] = {
	{ "scenario", 0, HC_OPT_ENUM, B(scenario), NULL,
	  "which matrix (default hooks)", scenarios },
	{ "hooks", 0, HC_OPT_STR, B(hooks), "LIST",
	  "only these rows' hooks, comma-separated (e.g. xdp-native,tcx)" },
	{ "reps", 0, HC_OPT_U32, B(reps), "N",
	  "repetitions per row (default 3)", NULL, 1, MAX_REPS },
	{ "packets", 0, HC_OPT_U32, B(packets), "N",
	  "packets per repetition (default 2000000)", NULL, 1000, 0xffffffff },
	{ "cpu-mode", 0, HC_OPT_ENUM, B(cpu_mode), NULL,
	  "DUT NAPI in a kthread on CPU 1, generator on CPU 0; or both inline (default)",
	  cpu_modes },
	{ "json", 0, HC_OPT_STR, B(json_path), "FILE",
	  "write every rep as JSON" },
	{ "csv", 0, HC_OPT_STR, B(csv_path), "FILE", "write the table as CSV" },
	{ "plot", 0, HC_OPT_STR, B(plot_dir), "DIR",
	  "charts (PNG and SVG) of the run into DIR, with gnuplot" },
	{ "no-bare", 0, HC_OPT_FLAG, B(no_bare), NULL,
	  "hooks scenario: leave out the -bare rows" },
	{ "help", 'h', HC_OPT_FLAG, B(help), NULL, "show this help" },
	{}
};

static void env_checks(struct bench *b)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct hc_err err = {};
	struct hc_nl *nl = hc_nl_open(&err);
	char kind[32];

	b->jit = hc_jit_enabled() == 1;
	b->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	b->foreign[0] = '\0';
	for (i = ifs; nl && i && i->if_index; i++) {
		if (hc_nl_ingress_qdisc(nl, i->if_index, kind, sizeof(kind),
					NULL) ||
		    !kind[0])
			continue;
		snprintf(b->foreign + strlen(b->foreign),
			 sizeof(b->foreign) - strlen(b->foreign), "%s%s on %s",
			 b->foreign[0] ? ", " : "", kind, i->if_name);
	}
	if (ifs)
		if_freenameindex(ifs);
	hc_nl_close(nl);
}

static int bench_main(struct bench *b, int argc, char **argv)
{
	int pret;
	struct hc_gen_cfg cfg = { .flows = 1, .method = HC_GEN_LIVE };
	struct hc_err err = {};
	struct hc_gen g = { .skel = NULL, .sock_fd = -1 };
	const char *pos[1];
	int npos, ret, i;
	__u32 size = 0;
	bool local = false;
	__u64 sent;
	double t0;

	b->reps = 3;
	b->packets = 2000000;
	b->fd_gen = b->fd_dut = b->fd_root = -1;
	/*
	 * inline by default: split (threaded NAPI on its own CPU) measured a
	 * CV of 10-30% on the 2-CPU VM this was built on, inline 1-5%.
	 */
	b->cpu_mode = 1;
	ret = hc_opts_parse(bench_opts, b, argc, argv, pos, &npos, 0, &err);
	if (ret)
		return hc_fail(HC_EXIT_USAGE, "%s", err.msg);
	if (b->help) {
		printf("Usage: hookcmp bench [OPTIONS]\n\n"
		       "Runs the same traffic through every row of a scenario on a veth pair\n"
		       "between two namespaces it creates and removes.\n\n");
		hc_opts_help(stdout, bench_opts);
		return 0;
	}
	cfg.spec.proto = 17;
	cfg.spec.sport = 1024;
	cfg.spec.dport = 9;
	inet_pton(AF_INET, "198.18.0.1", &cfg.spec.src4);
	inet_pton(AF_INET, "198.18.0.2", &cfg.spec.dst4);
	build_rows(b);
	if (!b->nrows)
		return hc_fail(HC_EXIT_USAGE,
			       "--hooks '%s' selects no row of %s", b->hooks,
			       scenarios[b->scenario]);
	if (b->cpu_mode == 0 && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return hc_fail(HC_EXIT_USAGE, "--cpu-mode split needs 2 CPUs");
	ret = hc_check_privileges();
	if (ret)
		return ret;
	libbpf_set_print(NULL);
	env_checks(b);
	hc_install_signals();
	b->fd_root = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	printf("hookcmp bench: scenario %s, %s mode, %d CPUs, BPF JIT %s\n",
	       scenarios[b->scenario], cpu_modes[b->cpu_mode], b->ncpu,
	       b->jit ? "on" : "OFF (numbers are not JIT numbers)");
	if (b->foreign[0])
		printf("Warning: ingress qdiscs outside the bench turn on the ingress static key for every row: %s\n",
		       b->foreign);

	ret = topo_up(b, &err);
	if (ret) {
		hc_fail(HC_EXIT_FAIL, "bench topology: %s (%s)", err.msg,
			strerror(-ret));
		goto out;
	}
	b->tcx = probe_tcx(b);
	printf("tcx links: %s\n",
	       b->tcx ? "yes" : "no (Linux 6.6+), tcx rows will be INVALID");
	for (i = 0; i < b->nrows && !hc_stop_sig; i++) {
		struct row *r = &b->rows[i];

		/* A new generator per frame size and destination. */
		if (!g.skel || r->size != size || r->local != local) {
			static const __u8 other[6] = { 2, 0, 0, 0, 0, 2 };

			hc_gen_close(&g);
			cfg.spec.size = size = r->size;
			local = r->local;
			memcpy(cfg.spec.dst_mac, local ? b->dut_mac : other, 6);
			ret = hc_gen_open(&g, b->if_gen, &cfg, &err);
			/*
			 * Every BPF_PROG_RUN call puts its program into the XDP
			 * dispatcher and takes it out again, two
			 * synchronize_rcu() each time, tens of ms that would
			 * count as the hook's. Attached to a spare device, the
			 * program stays in the dispatcher and the calls only
			 * take a reference.
			 */
			if (!ret)
				ret = hc_nl_xdp_set(b->nl_gen, b->if_spare,
						    g.prog_fd, -1,
						    XDP_FLAGS_SKB_MODE, &err);
			if (ret) {
				hc_fail(HC_EXIT_UNSUPP,
					"bench generator on %s: %s: %s",
					GEN_DEV, err.msg, strerror(-ret));
				goto out;
			}
			b->live = true;
		}
		if (i == 0) {
			/* The generator alone: no NAPI on the DUT takes its frames. */
			enter(b->fd_dut);
			set_gro(DUT_DEV, false);
			enter(b->fd_gen);
			t0 = hc_now();
			hc_gen_send(&g, b->packets, &sent, &hc_stop_sig);
			b->gen_mpps = sent / (hc_now() - t0) / 1e6;
			b->gen_ns = 1e3 / b->gen_mpps;
			enter(b->fd_dut);
			set_gro(DUT_DEV, true);
			enter(b->fd_gen);
			if (set_cpu_mode(b)) {
				hc_fail(HC_EXIT_UNSUPP,
					"cannot set up %s mode on %s",
					cpu_modes[b->cpu_mode], DUT_DEV);
				goto out;
			}
		}
		fprintf(stderr, "  %-22s", r->name);
		if (!row_setup(b, r))
			row_run(b, r, &g);
		row_teardown(b, r);
		fprintf(stderr, " %s\n", r->reason[0] ? r->reason : "done");
	}
	print_table(b);
	if (b->json_path) {
		FILE *f = fopen(b->json_path, "w");

		if (f) {
			write_json(b, f);
			fclose(f);
		}
	}
	pret = b->plot_dir ? plot(b) : 0;
	if (b->csv_path) {
		FILE *f = fopen(b->csv_path, "w");

		if (f) {
			write_csv(b, f);
			fclose(f);
		}
	}
	ret = hc_stop_sig ? 128 + hc_stop_sig : pret;
out:
	hc_gen_close(&g);
	topo_down(b);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench *b = calloc(1, sizeof(*b)); /* rows hold every rep */
	int ret;

	if (!b)
		return hc_fail(HC_EXIT_FAIL, "out of memory");
	ret = bench_main(b, argc, argv);
	free(b);
	return ret;
}
