// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's topology, built through hookcmp's netlink layer:
 *
 *   generator namespace          DUT namespace                sink namespace
 *   hcg  <------ veth ------>  hcd 198.18.0.2/15
 *   hcz - hcw (spare pair)       hcx - hcy (another device)
 *                                hco  <------ veth ------>  hcs
 *
 * The sink is there for scenarios whose rows forward (sink_up()).
 *
 * The namespaces have no names and are held only by our fds: they go
 * with the process however it ends, and everything in them with them.
 * The thread lives in the generator's namespace between steps, because
 * live frames name their device by ifindex in the caller's namespace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include "bench.h"
#include "nl.h"
#include "stats.h"

int bench_enter(int nsfd)
{
	return setns(nsfd, CLONE_NEWNET) ? -errno : 0;
}

static int new_ns(int root)
{
	int fd, e;

	if (unshare(CLONE_NEWNET))
		return -errno;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	e = errno;
	bench_enter(root);
	return fd < 0 ? -e : fd;
}

/* NAPI on a veth without XDP: GRO on, as `ethtool -K DEV gro on`. */
static int set_gro(const char *dev, bool on)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_SGRO, .data = on };
	struct ifreq ifr = { .ifr_data = (void *)&ev };

	return hc_dev_ioctl(dev, SIOCETHTOOL, &ifr);
}

/* ret, with what failed in err's words unless the kernel's came already. */
static int step(int ret, struct hc_err *err, const char *what)
{
	if (ret && !strstr(err->msg, "fault injected"))
		hc_err_set(err, "%s", what);
	return ret;
}

static int links_up(struct bench *b, struct hc_err *err)
{
	return hc_nl_link_up(b->nl_gen, b->if_gen, true, err)	      ?:
		       hc_nl_link_up(b->nl_dut, b->if_dut, true, err) ?:
		       hc_nl_link_up(b->nl_dut, b->if_other, true, err);
}

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(s, f) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/*
 * The far end's counter: hookcmp's own tc program, dropping and counting,
 * on a tcx link at the sink's ingress. Every way to get there passes it:
 * bpf_redirect_peer skips the out-device's xmit and the sink's NAPI, but
 * not its tc ingress.
 */
static int sink_counter(struct bench *b)
{
	struct hc_run *r = &b->sink;

	r->hook = HC_HOOK_TC;
	r->tc_attach = HC_TC_TCX;
	r->conf.parse = HC_PARSE_L4;
	r->conf.def_verdict = HC_DROP;
	r->dev = BENCH_SINK_DEV;
	r->ifindex = b->if_sink;
	r->nl = b->nl_sink;
	r->no_journal = true;
	r->prog_fd = r->stats_fd = r->link_fd = r->sock_fd = -1;
	return hc_hook_tc.load(r) ?: hc_hook_tc.attach(r);
}

/*
 * forward: a third namespace behind the DUT, out of hco, and a way there
 * the DUT's stack takes too (a route to 198.51.100.0/24, a permanent
 * neighbour, forwarding on). The sink's veth runs NAPI (GRO), so that hco
 * takes XDP frames; without it the XDP rows are INVALID, with the reason.
 */
static int sink_up(struct bench *b, struct hc_err *err)
{
	struct hc_err gerr = {};
	struct in_addr net, dst;
	int ret, gro = 0;

	b->fd_sink = new_ns(b->fd_root);
	ret = b->fd_sink < 0 ? b->fd_sink : bench_enter(b->fd_sink);
	if (!ret && !(b->nl_sink = hc_nl_open(err)))
		ret = -errno;
	if (!ret)
		ret = hc_nl_veth_add(b->nl_dut, BENCH_OUT_DEV, BENCH_SINK_DEV,
				     b->fd_sink, err);
	if (!ret) {
		b->if_sink = if_nametoindex(BENCH_SINK_DEV);
		ret = hc_dev_mac(BENCH_SINK_DEV, b->sink_mac);
		gro = hc_fault(&gerr, "bench-sink-gro") ?:
			      set_gro(BENCH_SINK_DEV, true);
		ret = ret ?: bench_enter(b->fd_dut);
		b->if_out = if_nametoindex(BENCH_OUT_DEV);
		if (!ret && !(b->if_sink && b->if_out))
			ret = -ENODEV;
	}
	if (step(ret, err, "the sink namespace and its veth pair"))
		goto out;
	inet_pton(AF_INET, BENCH_FWD_NET, &net);
	inet_pton(AF_INET, BENCH_FWD_DST, &dst);
	ret = hc_nl_link_up(b->nl_dut, b->if_out, true, err)		   ?:
		      hc_nl_link_up(b->nl_sink, b->if_sink, true, err)	   ?:
		      hc_nl_route_add(b->nl_dut, &net, 24, b->if_out, err) ?:
		      hc_nl_neigh_add(b->nl_dut, b->if_out, &dst, b->sink_mac, err) ?:
		      write_file("/proc/sys/net/ipv4/ip_forward", "1\n");
	if (step(ret, err, "the DUT's route to the sink"))
		goto out;
	ret = bench_enter(b->fd_sink) ?: sink_counter(b);
	if (ret) {
		*err = b->sink.err;
		step(ret, err, "the counter at the sink");
	} else if (gro) {
		fprintf(stderr,
			"Warning: no NAPI on %s (GRO on: %s): the XDP rows will be INVALID\n",
			BENCH_SINK_DEV,
			gerr.msg[0] ? gerr.msg : strerror(-gro));
	}
out:
	bench_enter(b->fd_gen);
	return ret;
}

int bench_topo_up(struct bench *b, struct hc_err *err)
{
	struct in_addr dut;
	int ret;

	ret = hc_fault(err, "bench-netns");
	if (!ret) {
		b->fd_gen = new_ns(b->fd_root);
		b->fd_dut = new_ns(b->fd_root);
		ret = b->fd_gen < 0 ? b->fd_gen : b->fd_dut < 0 ? b->fd_dut : 0;
	}
	if (step(ret, err, "creating two network namespaces"))
		return ret;
	/* Netlink sockets stay in the namespace they were opened in. */
	ret = bench_enter(b->fd_dut);
	if (!ret && !(b->nl_dut = hc_nl_open(err)))
		ret = -errno;
	if (!ret)
		ret = bench_enter(b->fd_gen);
	if (!ret && !(b->nl_gen = hc_nl_open(err)))
		ret = -errno;
	if (step(ret, err, "opening rtnetlink in the new namespaces"))
		return ret;

	ret = hc_fault(err, "bench-veth") ?:
		      hc_nl_veth_add(b->nl_gen, BENCH_GEN_DEV, BENCH_DUT_DEV, b->fd_dut, err) ?:
		      hc_nl_veth_add(b->nl_gen, BENCH_SPARE_DEV, "hcw", -1, err) ?:
		      hc_nl_veth_add(b->nl_dut, BENCH_OTHER_DEV, "hcy", -1,
				     err);
	if (step(ret, err, "creating the veth pairs"))
		return ret;
	b->if_gen = if_nametoindex(BENCH_GEN_DEV);
	b->if_spare = if_nametoindex(BENCH_SPARE_DEV);
	bench_enter(b->fd_dut);
	b->if_dut = if_nametoindex(BENCH_DUT_DEV);
	b->if_other = if_nametoindex(BENCH_OTHER_DEV);
	ret = hc_dev_mac(BENCH_DUT_DEV, b->dut_mac);
	bench_enter(b->fd_gen);
	if (!ret && !(b->if_gen && b->if_spare && b->if_dut && b->if_other))
		ret = -ENODEV;
	if (step(ret, err, "finding the new veth devices"))
		return ret;

	inet_pton(AF_INET, "198.18.0.2", &dut);
	ret = hc_fault(err, "bench-addr") ?:
		      hc_nl_addr_add(b->nl_dut, b->if_dut, AF_INET, &dut, 15,
				     err);
	if (step(ret, err, "adding 198.18.0.2/15 to " BENCH_DUT_DEV))
		return ret;
	ret = hc_fault(err, "bench-up") ?: links_up(b, err);
	if (step(ret, err, "bringing the veth devices up"))
		return ret;
	ret = bench_topo_napi(b, true);
	if (step(ret, err, "turning GRO on for " BENCH_DUT_DEV))
		return ret;
	return b->scen->forward ? sink_up(b, err) : 0;
}

void bench_topo_down(struct bench *b)
{
	if (b->fd_root >= 0)
		bench_enter(b->fd_root);
	if (b->sink.skel) {
		hc_hook_tc.detach(&b->sink);
		hc_prog_unload(&b->sink);
	}
	hc_nl_close(b->nl_gen);
	hc_nl_close(b->nl_dut);
	hc_nl_close(b->nl_sink);
	b->nl_gen = b->nl_dut = b->nl_sink = NULL;
	if (b->fd_sink >= 0)
		close(b->fd_sink);
	b->fd_sink = -1;
	/* The last reference: the namespaces go, the veth pairs with them. */
	if (b->fd_gen >= 0)
		close(b->fd_gen);
	if (b->fd_dut >= 0)
		close(b->fd_dut);
	b->fd_gen = b->fd_dut = -1;
}

int bench_threads(const char *dir, const char *prefix, pid_t *pids, int max)
{
	char comm[64], path[300];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	while (d && n < max && (de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/comm", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			pids[n++] = atoi(de->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * split: the DUT's NAPI kthreads (new ones each time NAPI comes back) on
 * CPU 1, and their CPU time counted.
 */
static int pin_napi(struct bench *b)
{
	pid_t pids[BENCH_MAX_NAPI];
	struct hc_err err = {};
	cpu_set_t set;
	int i, n;

	/*
	 * The kernel says which kthreads are the DUT's. Before Linux 6.9,
	 * their names: any other device called hcd (in another namespace)
	 * would match too.
	 */
	n = bench_enter(b->fd_dut) ?:
		    hc_nl_napi_threads(b->if_dut, pids, BENCH_MAX_NAPI, &err);
	bench_enter(b->fd_gen);
	if (n < 0)
		n = bench_threads("/proc", "napi/" BENCH_DUT_DEV "-", pids,
				  BENCH_MAX_NAPI);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	for (i = 0; i < n; i++)
		sched_setaffinity(pids[i], sizeof(set), &set);
	return n ? bench_clock_napi(b, pids, n) : -ESRCH;
}

/*
 * /sys/class/net shows the namespace of whoever mounted sysfs: a sysfs
 * of the DUT's, in a mount namespace of our own, as `ip netns exec` does.
 */
static int threaded_napi(void)
{
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL))
		return -errno;
	umount2("/sys", MNT_DETACH);
	if (mount("sysfs", "/sys", "sysfs", 0, NULL))
		return -errno;
	return write_file("/sys/class/net/" BENCH_DUT_DEV "/threaded", "1\n");
}

int bench_topo_cpu(struct bench *b, struct hc_err *err)
{
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ret = hc_fault(err, "bench-cpu");
	if (!ret && sched_setaffinity(0, sizeof(set), &set))
		ret = -errno;
	if (!ret && b->cpu_mode == BENCH_SPLIT) {
		ret = bench_enter(b->fd_dut) ?: threaded_napi();
		bench_enter(b->fd_gen);
		if (!ret)
			ret = pin_napi(b);
		b->threaded = !ret;
	}
	if (ret && !err->msg[0])
		hc_err_set(err, "%s",
			   b->cpu_mode == BENCH_SPLIT ?
				   "threaded NAPI for " BENCH_DUT_DEV
				   " on CPU 1" :
				   "pinning the generator to CPU 0");
	return ret;
}

int bench_topo_napi(struct bench *b, bool on)
{
	int ret;

	ret = bench_enter(b->fd_dut) ?: set_gro(BENCH_DUT_DEV, on);
	bench_enter(b->fd_gen);
	if (!ret && on && b->threaded)
		ret = pin_napi(b);
	return ret;
}

int bench_dut_rx(struct bench *b, __u64 *rx)
{
	struct hc_link_info li;
	int ret = hc_nl_link_get(b->nl_dut, b->if_dut, &li, NULL);

	*rx = li.stats.rx_packets;
	return ret;
}

int bench_read_dut(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	c->passed = 0;
	return bench_dut_rx(b, &c->seen);
}

int bench_read_sink(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	struct hc_link_info in, out;
	struct hc_snap s;
	int i, ret;

	ret = hc_stats_read(b->sink.stats_fd, &s)		      ?:
		      hc_nl_link_get(b->nl_dut, b->if_dut, &in, NULL) ?:
		      hc_nl_link_get(b->nl_dut, b->if_out, &out, NULL);
	if (ret)
		return ret;
	c->seen = 0;
	for (i = 0; i < HC_NR_STATS; i++)
		c->seen += s.c[i].packets;
	c->passed = 0;
	c->dropped_dut = in.stats.rx_dropped + out.stats.tx_dropped;
	return 0;
}

int bench_gen_tx_dropped(struct bench *b, __u64 *dropped)
{
	struct hc_link_info li;
	int ret = hc_nl_link_get(b->nl_gen, b->if_gen, &li, NULL);

	*dropped = li.stats.tx_dropped;
	return ret;
}
