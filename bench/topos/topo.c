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
 * inject (bench_topo_inject): one namespace, the generator's in the DUT's;
 * hcg stays idle, and the live frames return XDP_PASS with hcd as their
 * ingress device: the kernel hands them to hcd's netif_receive_skb in
 * bench's thread, no driver on the way.
 *
 * The namespaces have no names and are held only by our fds: they go
 * with the process however it ends, and everything in them with them.
 * The thread lives in the generator's namespace between steps, because
 * live frames name their device by ifindex in the caller's namespace.
 * Each window holds only the generator's call: live XDP frames from this
 * process, all of them accounted for exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_link.h>
#include "bench.h"
#include "clock.h"
#include "internal.h"
#include "path.h"
#include "profile.h"
#include "row.h"
#include "scope.h"
#include "topo.h"
#include "hooks.h"
#include "nl.h"
#include "stats.h"

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

/* Another fd of namespace fd (or its -errno). */
static int same_ns(int fd)
{
	int dup = fd < 0 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);

	return dup < 0 && fd >= 0 ? -errno : dup;
}

/* ret, with what failed in err's words unless the kernel's came already. */
static int step(int ret, struct hc_err *err, const char *what)
{
	if (ret && !strstr(err->msg, "fault injected"))
		hc_err_set(err, "%s", what);
	return ret;
}

static int links_up(struct bench_net *net, struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);

	return hc_nl_link_up(v->nl_gen, v->if_gen, true, err)		  ?:
		       hc_nl_link_up(net->nl_dut, net->if_dut, true, err) ?:
		       hc_nl_link_up(net->nl_dut, net->if_other, true, err);
}

/*
 * The far end's counter: hookcmp's own tc program, dropping and counting,
 * at the sink's tc ingress. Every way to get there passes it:
 * bpf_redirect_peer skips the out-device's xmit and the sink's NAPI, but
 * not its tc ingress. A tcx link, or before Linux 6.6 a cls_bpf filter on
 * clsact (the sink's namespace is bench's own).
 */
static int sink_counter(struct bench_net *net)
{
	struct bench_veth *v = bench_veth(net);
	struct hc_run *r;
	int ret;

	/* 13 KB, for forward's scenarios only */
	r = v->sink = malloc(sizeof(*v->sink));
	if (!r)
		return -ENOMEM;
	hc_run_init(r);
	ret = hc_run_args(r, "--hook tc --tc-attach tcx", &r->err);
	if (ret)
		return ret;
	r->conf.parse = HC_PARSE_L4;
	r->conf.def_verdict = HC_DROP;
	r->dev = BENCH_SINK_DEV;
	r->ifindex = v->if_sink;
	r->nl = v->nl_sink;
	r->no_journal = true;
	ret = r->hook->load(r) ?: r->hook->attach(r);
	if (ret == -EOPNOTSUPP) {
		r->err = (struct hc_err){ 0 };
		ret = hc_run_args(r, "--tc-attach qdisc --qdisc clsact",
				  &r->err) ?:
			      r->hook->attach(r);
	}
	return ret;
}

/*
 * forward: a third namespace behind the DUT, out of hco, and a way there
 * the DUT's stack takes too (a route to 198.51.100.0/24, a permanent
 * neighbour, forwarding on). The sink's veth runs NAPI (GRO), so that hco
 * takes XDP frames; without it the XDP rows are INVALID, with the reason.
 */
static int sink_up(struct bench_net *net, struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);
	struct hc_err gerr = {};
	struct in_addr fwd, dst;
	int ret, gro = 0;

	v->fd_sink = new_ns(net->fd_root);
	ret = v->fd_sink < 0 ? v->fd_sink : bench_enter(v->fd_sink);
	if (!ret && !(v->nl_sink = hc_nl_open(err)))
		ret = -errno;
	if (!ret)
		ret = hc_nl_veth_add(net->nl_dut, BENCH_OUT_DEV, BENCH_SINK_DEV,
				     v->fd_sink, err);
	if (!ret) {
		v->if_sink = if_nametoindex(BENCH_SINK_DEV);
		ret = hc_dev_mac(BENCH_SINK_DEV, v->sink_mac);
		gro = hc_fault(&gerr, "bench-sink-gro") ?:
			      hc_ethtool_set_gro(BENCH_SINK_DEV, true);
		ret = ret ?: bench_enter(net->fd_dut);
		v->if_out = if_nametoindex(BENCH_OUT_DEV);
		if (!ret && !(v->if_sink && v->if_out))
			ret = -ENODEV;
	}
	if (step(ret, err, "the sink namespace and its veth pair"))
		goto out;
	inet_pton(AF_INET, BENCH_FWD_NET, &fwd);
	inet_pton(AF_INET, BENCH_FWD_DST, &dst);
	ret = hc_nl_link_up(net->nl_dut, v->if_out, true, err)		     ?:
		      hc_nl_link_up(v->nl_sink, v->if_sink, true, err)	     ?:
		      hc_nl_route_add(net->nl_dut, &fwd, 24, v->if_out, err) ?:
		      hc_nl_neigh_add(net->nl_dut, v->if_out, &dst, v->sink_mac, err) ?:
		      hc_write_file("/proc/sys/net/ipv4/ip_forward", "1\n");
	if (step(ret, err, "the DUT's route to the sink"))
		goto out;
	ret = bench_enter(v->fd_sink) ?: sink_counter(net);
	if (ret) {
		if (v->sink)
			*err = v->sink->err;
		step(ret, err, "the counter at the sink");
	} else if (gro) {
		fprintf(stderr,
			"Warning: no NAPI on %s (GRO on: %s): the XDP rows will be INVALID\n",
			BENCH_SINK_DEV,
			gerr.msg[0] ? gerr.msg : strerror(-gro));
	}
out:
	bench_enter(net->fd_gen);
	return ret;
}

static int topo_up(struct bench_net *net, const struct bench_rows *rows,
		   struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);
	struct in_addr dut;
	int ret;

	ret = hc_fault(err, "bench-netns");
	/* inject: one namespace; hcg is hcd's idle peer. */
	if (!ret) {
		net->fd_dut = new_ns(net->fd_root);
		net->fd_gen = net->topo->inject ? same_ns(net->fd_dut) :
						  new_ns(net->fd_root);
		ret = net->fd_gen < 0 ? net->fd_gen :
		      net->fd_dut < 0 ? net->fd_dut :
					0;
	}
	if (step(ret, err, "creating the network namespaces"))
		return ret;
	/* Netlink sockets stay in the namespace they were opened in. */
	ret = bench_enter(net->fd_dut);
	if (!ret && !(net->nl_dut = hc_nl_open(err)))
		ret = -errno;
	if (!ret)
		ret = bench_enter(net->fd_gen);
	if (!ret && !(v->nl_gen = hc_nl_open(err)))
		ret = -errno;
	if (step(ret, err, "opening rtnetlink in the new namespaces"))
		return ret;

	ret = hc_fault(err, "bench-veth") ?:
		      hc_nl_veth_add(v->nl_gen, BENCH_GEN_DEV, BENCH_DUT_DEV, net->fd_dut, err) ?:
		      hc_nl_veth_add(v->nl_gen, BENCH_SPARE_DEV, "hcw", -1, err) ?:
		      hc_nl_veth_add(net->nl_dut, BENCH_OTHER_DEV, "hcy", -1,
				     err);
	if (step(ret, err, "creating the veth pairs"))
		return ret;
	v->if_gen = if_nametoindex(BENCH_GEN_DEV);
	v->if_spare = if_nametoindex(BENCH_SPARE_DEV);
	bench_enter(net->fd_dut);
	net->if_dut = if_nametoindex(BENCH_DUT_DEV);
	net->if_other = if_nametoindex(BENCH_OTHER_DEV);
	ret = hc_dev_mac(BENCH_DUT_DEV, net->dut_mac);
	bench_enter(net->fd_gen);
	if (!ret && !(v->if_gen && v->if_spare && net->if_dut && net->if_other))
		ret = -ENODEV;
	if (step(ret, err, "finding the new veth devices"))
		return ret;

	inet_pton(AF_INET, "198.18.0.2", &dut);
	ret = hc_fault(err, "bench-addr") ?:
		      hc_nl_addr_add(net->nl_dut, net->if_dut, AF_INET, &dut,
				     15, err);
	if (step(ret, err, "adding 198.18.0.2/15 to " BENCH_DUT_DEV))
		return ret;
	snprintf(net->dut_ip, sizeof(net->dut_ip), "198.18.0.2");
	ret = hc_fault(err, "bench-up") ?: links_up(net, err);
	if (step(ret, err, "bringing the veth devices up"))
		return ret;
	ret = bench_topo_napi(net, true);
	if (step(ret, err, "turning GRO on for " BENCH_DUT_DEV))
		return ret;
	return rows->scen->forward ? sink_up(net, err) : 0;
}

static void veth_down(struct bench_net *net)
{
	struct bench_veth *v = bench_veth(net);

	if (net->fd_root >= 0)
		bench_enter(net->fd_root);
	if (v && v->sink && v->sink->state) {
		v->sink->hook->detach(v->sink);
		hc_prog_unload(v->sink);
	}
	if (v) {
		free(v->sink);
		hc_nl_close(v->nl_gen);
		hc_nl_close(v->nl_sink);
		if (v->fd_sink >= 0)
			close(v->fd_sink);
	}
	hc_nl_close(net->nl_dut);
	net->nl_dut = NULL;
	/* The last reference: the namespaces go, the veth pairs with them. */
	if (net->fd_gen >= 0)
		close(net->fd_gen);
	if (net->fd_dut >= 0)
		close(net->fd_dut);
	net->fd_gen = net->fd_dut = -1;
}

/*
 * split: the DUT's NAPI kthreads (new ones each time NAPI comes back) on
 * CPU 1, and their CPU time counted.
 */
static int pin_napi(struct bench_net *net)
{
	pid_t pids[BENCH_MAX_NAPI];
	cpu_set_t set;
	int i, n;

	n = bench_dut_napi(net, pids, BENCH_MAX_NAPI);
	CPU_ZERO(&set);
	CPU_SET(BENCH_CPU_DUT, &set);
	for (i = 0; i < n; i++)
		sched_setaffinity(pids[i], sizeof(set), &set);
	return n ? bench_clock_napi(&net->clock, pids, n) : -ESRCH;
}

static int topo_cpu(struct bench_net *net, const struct bench_opts *o,
		    struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(BENCH_CPU_GEN, &set);
	ret = hc_fault(err, "bench-cpu");
	if (!ret && sched_setaffinity(0, sizeof(set), &set))
		ret = -errno;
	if (!ret && o->cpu_mode == BENCH_SPLIT) {
		ret = bench_enter(net->fd_dut) ?:
			      hc_sysfs_here()  ?:
			      hc_dev_set_threaded(BENCH_DUT_DEV, 1);
		bench_enter(net->fd_gen);
		if (!ret)
			ret = pin_napi(net);
		v->threaded = !ret;
	}
	if (ret && !err->msg[0])
		hc_err_set(err, "%s",
			   o->cpu_mode == BENCH_SPLIT ?
				   "threaded NAPI for " BENCH_DUT_DEV
				   " on CPU 1" :
				   "pinning the generator to CPU 0");
	return ret;
}

int bench_topo_napi(struct bench_net *net, bool on)
{
	struct bench_veth *v = bench_veth(net);
	int ret;

	ret = bench_enter(net->fd_dut) ?: hc_ethtool_set_gro(BENCH_DUT_DEV, on);
	bench_enter(net->fd_gen);
	if (!ret && on && v && v->threaded)
		ret = pin_napi(net);
	return ret;
}

int bench_dut_count(struct bench_net *net, struct bench_dev_count *d)
{
	struct hc_link_info li;
	int ret = hc_nl_link_get(net->nl_dut, net->if_dut, &li, NULL);

	d->rx_packets = li.stats.rx_packets;
	d->rx_otherhost = li.stats.rx_otherhost_dropped;
	d->rx_dropped = li.stats.rx_dropped;
	d->rx_missed_errors = li.stats.rx_missed_errors;
	d->rx_fifo_errors = li.stats.rx_fifo_errors;
	d->rx_over_errors = li.stats.rx_over_errors;
	return ret;
}

__u64 bench_dropped(const struct bench_dev_count *d)
{
	return d->rx_dropped + d->rx_missed_errors + d->rx_fifo_errors +
	       d->rx_over_errors;
}

int bench_dut_rx(struct bench_net *net, __u64 *rx)
{
	struct bench_dev_count d;
	int ret = bench_dut_count(net, &d);

	/* Injected, no driver counts them; ip_rcv counts what is not ours. */
	*rx = net->topo->inject ? d.rx_otherhost : d.rx_packets;
	return ret;
}

int bench_read_dut(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	c->passed = 0;
	return bench_dut_rx(&b->net, &c->seen);
}

/*
 * The generator's frames no DUT saw: live frames the veth refused, or
 * AF_PACKET's gen-only frames, which the ifb drops (an skb the veth
 * refuses fails its send, and AF_PACKET sends it again).
 */
static int gen_tx_dropped(struct bench_net *net, __u64 *dropped)
{
	struct bench_veth *v = bench_veth(net);
	struct hc_link_info li, st = {};
	int ret = hc_nl_link_get(v->nl_gen, v->if_discard ?: v->if_gen, &li,
				 NULL);

	/* The stage: what its program failed to redirect. */
	if (!ret && v->if_stage)
		ret = hc_nl_link_get(v->nl_gen, v->if_stage, &st, NULL);
	*dropped = (v->if_discard ? li.stats.rx_dropped : li.stats.tx_dropped) +
		   st.stats.rx_dropped;
	return ret;
}

/*
 * A veth counts a live frame its peer's full ring refused at both ends:
 * in the sender's tx_dropped and the receiver's rx_dropped (an skb only
 * in the sender's, and AF_PACKET sends it again). The generator's
 * tx_dropped is already "dropped before", so the DUT's share of its
 * rx_dropped is what is left (the differences of a round cancel any
 * offset; unsigned arithmetic wraps back).
 */
int bench_read_sink(struct bench *b, struct bench_row *r, struct bench_count *c)
{
	struct bench_veth *v = bench_veth(&b->net);
	struct hc_link_info in, out;
	struct hc_snap s;
	__u64 before = 0;
	int i, ret;

	if (!v || !v->sink)
		return -ENODEV;
	ret = hc_stats_read(v->sink->stats_fd, &s)			      ?:
		      hc_nl_link_get(b->net.nl_dut, b->net.if_dut, &in, NULL) ?:
		      hc_nl_link_get(b->net.nl_dut, v->if_out, &out, NULL)    ?:
		      (v->if_discard ? 0 : gen_tx_dropped(&b->net, &before));
	if (ret)
		return ret;
	c->seen = 0;
	for (i = 0; i < HC_NR_STATS; i++)
		c->seen += s.c[i].packets;
	c->passed = 0;
	c->dropped_dut = in.stats.rx_dropped - before + out.stats.tx_dropped;
	return 0;
}

/*
 * AF_PACKET: the veth hands the DUT's NAPI only skbs of a sender without
 * TSO (the others go to the backlog of the sender's CPU), and the
 * generator alone sends to hcq, which drops every frame.
 */
static int packet_up(struct bench_net *net, struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);
	int ret = hc_ethtool_set_tso(BENCH_GEN_DEV, false);

	if (step(ret, err, "turning TSO off on " BENCH_GEN_DEV))
		return ret;
	ret = hc_nl_link_add(v->nl_gen, BENCH_DISCARD_DEV, "ifb", err);

	v->if_discard = ret ? 0 : if_nametoindex(BENCH_DISCARD_DEV);
	if (!ret && !v->if_discard)
		ret = -ENODEV;
	if (!ret)
		ret = hc_nl_link_up(v->nl_gen, v->if_discard, true, err);
	return step(ret, err,
		    "creating " BENCH_DISCARD_DEV
		    ", an ifb for the generator's frames alone");
}

/*
 * The stage: AF_PACKET on hcf, whose peer hcr redirects every frame in
 * native XDP to hcg, so that hcd's NAPI takes XDP frames, as a driver's
 * (veth_xdp_rcv_one), not skbs. hcr's NAPI (its XDP program's) takes
 * only skbs of a sender without TSO, as packet_up()'s hcd.
 */
static int stage_up(struct bench_net *net, const struct bench_opts *o,
		    struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);
	int ret = hc_fault(err, "bench-stage") ?:
			  hc_nl_veth_add(v->nl_gen, BENCH_FEED_DEV,
					 BENCH_STAGE_DEV, -1, err);

	if (!ret) {
		v->if_feed = if_nametoindex(BENCH_FEED_DEV);
		v->if_stage = if_nametoindex(BENCH_STAGE_DEV);
		if (!v->if_feed || !v->if_stage)
			ret = -ENODEV;
	}
	ret = ret						       ?:
		      hc_nl_link_up(v->nl_gen, v->if_feed, true, err)  ?:
		      hc_nl_link_up(v->nl_gen, v->if_stage, true, err) ?:
		      hc_ethtool_set_tso(BENCH_FEED_DEV, false);
	v->stage = (struct hc_gen_stage){ .nl = v->nl_gen,
					  .in = v->if_stage,
					  .to = v->if_gen,
					  .copies = o->stage_copies };
	return step(ret, err,
		    "the stage: " BENCH_FEED_DEV " and " BENCH_STAGE_DEV
		    ", redirecting to " BENCH_GEN_DEV " in native XDP");
}

/*
 * Tests: the stage's frames sent to hcg instead, as AF_PACKET's skbs
 * that hcd's NAPI takes (TSO off), while the report says the stage: the
 * path check must flag the driver's rows (HOOKCMP_FAIL_AT=bench-skbs).
 */
static int feed_skbs(struct bench_net *net, struct hc_err *err)
{
	struct bench_veth *v = bench_veth(net);
	struct hc_err e = {};

	if (net->feed != HC_GEN_STAGE || !hc_fault(&e, "bench-skbs"))
		return 0;
	v->if_feed = v->if_gen;
	v->stage.copies = 1;
	return packet_up(net, err);
}

/*
 * One generator program for every row; it stays attached to the spare
 * veth so that BPF_PROG_RUN does not put it into the XDP dispatcher and
 * take it out again (two synchronize_rcu()) inside each timed window.
 */
static int gen_up(struct bench *b, struct hc_err *err)
{
	struct bench_veth *v = bench_veth(&b->net);
	struct hc_gen_cfg cfg = { .flows = 1 };
	struct hc_pkt_spec *s = &v->spec;
	int ret;

	s->proto = 17;
	s->sport = 1024;
	s->dport = 9;
	s->size = HC_PKT_MIN;
	inet_pton(AF_INET, "198.18.0.1", &s->src4);
	inet_pton(AF_INET, "198.18.0.2", &s->dst4);
	hc_dev_mac(BENCH_GEN_DEV, s->src_mac);
	/* Routed through the DUT, which rewrites what it forwards in place. */
	if (b->rows.scen->forward) {
		inet_pton(AF_INET, BENCH_FWD_DST, &s->dst4);
		cfg.refresh = true;
	}
	cfg.spec = *s;
	cfg.inject = b->net.topo->inject;
	cfg.method = b->net.feed;
	cfg.stage = &v->stage;
	v->if_discard = 0;
	ret = hc_fault(err, "bench-gen");
	if (!ret && cfg.method == HC_GEN_STAGE)
		ret = stage_up(&b->net, &b->opt, err);
	ret = ret ?: feed_skbs(&b->net, err) ?:
		      hc_gen_open(&v->gen,
				  cfg.method == HC_GEN_STAGE ? v->if_feed :
				  cfg.inject		     ? b->net.if_dut :
							       v->if_gen,
				  &cfg, err);
	if (!ret && v->gen.method == HC_GEN_LIVE)
		ret = hc_nl_xdp_set(v->nl_gen, v->if_spare, v->gen.prog_fd, -1,
				    XDP_FLAGS_SKB_MODE, err);
	else if (!ret && v->gen.method == HC_GEN_PACKET)
		ret = packet_up(&b->net, err);
	/* inject: the floor's loop, held on the spare's other end. */
	if (!ret && cfg.inject)
		ret = hc_nl_xdp_set(v->nl_gen, if_nametoindex(BENCH_SPARE_PEER),
				    v->gen.drop_fd, -1, XDP_FLAGS_SKB_MODE,
				    err);
	v->gen_fd = v->gen.prog_fd;
	v->frame_size = 0;
	v->frame_flows = 1;
	return ret;
}

/* err's words after what failed: "topology: creating ...". */
static int failed(int ret, struct hc_err *err, const char *what)
{
	char msg[sizeof(err->msg)];

	snprintf(msg, sizeof(msg), "%s", err->msg);
	hc_err_set(err, "%s%s%s", what, msg[0] ? ": " : "", msg);
	return ret;
}

/* Its state, every fd -1 until made: down() closes only what up made. */
static int veth_state(struct bench_net *net)
{
	struct bench_topo_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->veth.fd_sink = -1;
	s->veth.gen.sock_fd = s->veth.gen.stage_ns = -1;
	net->state = s;
	return 0;
}

static int veth_up(struct bench *b, struct hc_err *err)
{
	int ret;

	ret = veth_state(&b->net);
	if (ret)
		return failed(ret, err, "topology");
	snprintf(b->net.dut_name, sizeof(b->net.dut_name), BENCH_DUT_DEV);
	snprintf(b->net.other_name, sizeof(b->net.other_name), BENCH_OTHER_DEV);
	ret = topo_up(&b->net, &b->rows, err);
	if (ret)
		return failed(ret, err, "topology");
	ret = gen_up(b, err);
	if (ret)
		return failed(ret, err, "generator on " BENCH_GEN_DEV);
	b->env.cpu_clock = !bench_clock_open(&b->net.clock);
	if (!b->env.cpu_clock)
		fprintf(stderr,
			"Warning: no task-clock counters (perf_event_open): times are the wall clock's, with whatever else ran\n");
	ret = topo_cpu(&b->net, &b->opt, err);
	if (ret)
		return failed(ret, err,
			      b->opt.cpu_mode == BENCH_SPLIT ?
				      "cannot set up split mode" :
				      "cannot set up inline mode");
	return 0;
}

static void veth_down_all(struct bench *b)
{
	struct bench_veth *v = bench_veth(&b->net);

	bench_clock_close(&b->net.clock);
	if (v)
		hc_gen_close(&v->gen);
	veth_down(&b->net);
	free(b->net.state);
	b->net.state = NULL;
}

/*
 * The row's frame and flows, set before its windows. A new frame starts
 * the flows again from the first; so does a new number of them.
 */
static int frame_for(struct bench_net *net, const struct bench_row *r)
{
	struct bench_veth *v = bench_veth(net);
	static const __u8 other[6] = { 2, 0, 0, 0, 0, 2 };
	struct hc_pkt_spec spec = v->spec;
	__u32 flows = r->flows ?: 1;
	int ret = 0;

	if (r->hook && r->hook->dst4 &&
	    inet_pton(AF_INET, r->hook->dst4, &spec.dst4) != 1)
		return -EINVAL;
	if (v->frame_size != r->size || v->frame_local != r->local ||
	    v->frame_dst4.s_addr != spec.dst4.s_addr) {
		spec.size = r->size;
		memcpy(spec.dst_mac, r->local ? net->dut_mac : other, 6);
		v->frame_size = r->size;
		v->frame_local = r->local;
		v->frame_dst4 = spec.dst4;
		ret = hc_gen_set_frame(&v->gen, &spec);
	}
	if (!ret && v->frame_flows != flows) {
		ret = hc_gen_set_flows(&v->gen, flows);
		v->frame_flows = ret ? 0 : flows;
	}
	return ret;
}

/* dropped: the veth's TX drops, and what the hook's own rings dropped. */
static int read_all(struct bench *b, struct bench_row *r, struct bench_count *c,
		    __u64 *dropped)
{
	__u64 *cpu = c->cpu;
	int ret;

	*c = (struct bench_count){ .cpu = cpu };
	ret = r->kind->read(b, r, c) ?: gen_tx_dropped(&b->net, dropped);
	*dropped += c->dropped;
	return ret;
}

/* Waits for the DUT to drain its ring: until it adds up, or half a second. */
static int drain(struct bench *b, struct bench_row *r, struct bench_round *rd,
		 const struct bench_count *c0, struct bench_count *c1, __u64 d0)
{
	useconds_t wait;
	__u64 d1;
	int ret = 0;

	for (wait = 1000; wait <= 256000; wait *= 2) {
		usleep(wait);
		ret = read_all(b, r, c1, &d1);
		if (ret)
			break;
		rd->seen = c1->seen - c0->seen;
		rd->dropped_before = d1 - d0;
		bench_round_rings(rd, c0, c1);
		rd->dropped_dut = c1->dropped_dut - c0->dropped_dut;
		rd->passed = c1->passed - c0->passed;
		if (bench_round_accounted(r, rd))
			break;
	}
	return ret;
}

/* The clocks and, split, the hook's count at a window's edge. */
struct edge {
	double t0, t; /* before and after the clocks' reads */
	double cpu, own;
	double gen; /* split: bench's own thread, the generator's side */
	__u64 seen;
};

static int edge(struct bench *b, struct bench_row *r, bool dut, struct edge *e)
{
	struct bench_count c = {};
	int ret = dut ? r->kind->read(b, r, &c) : 0;

	e->t0 = hc_now();
	e->cpu = bench_clock_read(&b->net.clock, dut);
	e->gen = dut ? bench_clock_read(&b->net.clock, false) : 0;
	e->own = bench_clock_read_own(&b->net.clock);
	e->t = hc_now();
	e->seen = c.seen;
	return ret;
}

static void window_add(struct bench_window *w, const struct edge *a,
		       const struct edge *z)
{
	/* What ran between a clock's read and the wall clock's is in both. */
	w->secs += z->t - a->t0;
	w->cpu_ns += z->cpu - a->cpu + z->own - a->own;
	w->own_ns += z->own - a->own;
	w->packets += z->seen - a->seen;
}

/*
 * A paced row's window ends when its threads have taken what was sent:
 * seen + dropped before = sent since the visit began, or after
 * BENCH_PACE_SECS, and then no more in the visit: frames lost where
 * nothing counts them cost one wait, not one a window. It sleeps
 * meanwhile: its reads and wake-ups (about one a window) are all it
 * adds to the window's CPU time; the veth's drops are read only when the
 * hook's counts stop short.
 */
struct pace {
	__u64 base; /* seen + dropped before when the visit began */
	__u64 veth; /* the veth's drops, as last read */
	bool off; /* a wait timed out, or a read failed */
};

static void pace(struct bench *b, struct bench_row *r, struct pace *p,
		 __u64 sent)
{
	double end = hc_now() + BENCH_PACE_SECS;
	struct bench_count c = {};
	__u64 got, last = 0;

	/* A failed read stops it; the drain's says why. */
	while (!p->off) {
		p->off = r->kind->read(b, r, &c) != 0;
		got = c.seen + c.dropped + p->veth - p->base;
		if (p->off || got >= sent)
			return;
		p->off = hc_now() > end ||
			 (got == last && gen_tx_dropped(&b->net, &p->veth));
		last = got;
		usleep(10);
	}
}

/*
 * The row's turn: short windows back to back, each the generator's call
 * and nothing else (a paced row's: and the wait for its threads), each
 * with its own time, so that the estimate can take those the host did
 * not slow (doc/methodology.md). perf is enabled around them when this
 * is --perf-row's turn. Split, the windows are the DUT's NAPI time
 * between edges, and its count: the last one takes what the drain adds.
 */
static int timed(struct bench *b, struct bench_row *r, bool perf, bool dut,
		 struct bench_round *rd, struct edge *e, struct pace *p,
		 struct hc_err *err)
{
	/* ~40 KB each: what ran on which CPU, around every window */
	static __thread struct bench_snap snap[2];
	struct bench_veth *v = bench_veth(&b->net);
	int n = b->visit.windows, ret, k = 0;
	struct edge z;
	__u64 sent;

	rd->win = calloc(n, sizeof(*rd->win));
	if (!rd->win)
		return -ENOMEM;
	ret = perf ? hc_fault(err, "bench-perf") ?:
			     bench_watch(&b->watch, true) :
		     0;
	if (ret)
		goto perf_failed;
	bench_snap_read(&snap[k]);
	ret = edge(b, r, dut, e);
	for (rd->nwin = 0; !ret && rd->nwin < n && !hc_stop_sig; rd->nwin++) {
		struct bench_window *w = &rd->win[rd->nwin];

		ret = hc_fault(err, "bench-send") ?:
			      hc_gen_send(&v->gen, r->window_packets, &sent,
					  &hc_stop_sig);
		rd->generated += sent;
		if (!ret && r->kind->paced)
			pace(b, r, p, rd->generated);
		if (ret)
			break;
		ret = edge(b, r, dut, &z);
		window_add(w, e, &z);
		rd->gen_cpu_ns += z.gen - e->gen;
		if (!dut)
			w->packets = sent;
		/* Between windows, outside them: the next starts after it. */
		bench_scope_window(b, r, rd, w, &snap[k], &snap[!k]);
		k = !k;
		if (!ret)
			ret = edge(b, r, dut, e);
	}
	if (ret) {
		if (!err->msg[0])
			hc_err_set(err, "the generator");
		return ret;
	}
	ret = perf ? bench_watch(&b->watch, false) : 0;
	if (!ret)
		return 0;
perf_failed:
	if (!err->msg[0])
		hc_err_set(err, "perf's control channel");
	return ret;
}

/* The fastest window's cost, and the mean over all that stand. */
void bench_round_costs(const struct bench_opts *o, const struct bench_env *env,
		       const struct bench_row *r, struct bench_round *rd)
{
	bool dut = o->cpu_mode == BENCH_SPLIT && !r->kind->generator;
	double *x = calloc(rd->nwin + 1, sizeof(*x)), cpu = 0, own = 0;
	__u64 pkts = 0;
	int i, n = 0;

	rd->secs = 0;
	for (i = 0; i < rd->nwin; i++) {
		const struct bench_window *w = &rd->win[i];
		double t = env->cpu_clock ? w->cpu_ns : w->secs * 1e9;

		rd->secs += w->secs;
		if (!w->packets || w->excluded)
			continue;
		cpu += t;
		own += w->own_ns;
		pkts += w->packets;
		if (x)
			x[n++] = t / w->packets;
	}
	rd->mpps = (dut ? rd->seen : rd->generated) / rd->secs / 1e6;
	rd->cpu_ns = env->cpu_clock ? cpu : NAN;
	rd->own_ns = env->cpu_clock ? own : NAN;
	rd->pkt_ns = x ? st_quantile(x, n, BENCH_WINDOW_Q) : NAN;
	rd->pkt_ns_loaded = pkts ? cpu / pkts : NAN;
	free(x);
}

/* Per CPU: what the hook counted over the window, as a rate. */
static double *cpu_rates(const struct bench_env *env,
			 const struct bench_count *c0,
			 const struct bench_count *c1, double secs)
{
	double *v;
	int i;

	if (!c0->cpus || !c1->cpus || !(secs > 0))
		return NULL;
	v = calloc(env->ncpu, sizeof(*v));
	for (i = 0; v && i < env->ncpu; i++)
		v[i] = (c1->cpu[i] - c0->cpu[i]) / secs / 1e6;
	return v;
}

static int veth_measure(struct bench *b, struct bench_row *r,
			struct bench_round *rd, bool perf, struct hc_err *err)
{
	static __thread __u64 cpu0[BENCH_MAX_CPUS], cpu1[BENCH_MAX_CPUS];
	struct bench_count c0 = { .cpu = cpu0 }, c1 = { .cpu = cpu1 };
	/* Split, the rows' work runs in the DUT's NAPI kthreads. */
	bool dut = b->opt.cpu_mode == BENCH_SPLIT && !r->kind->generator;
	struct bench_veth *v = bench_veth(&b->net);
	struct hc_err rerr = {};
	struct edge e, z;
	struct pace p;
	__u64 d0 = 0;
	int ret;

	ret = frame_for(&b->net, r);
	if (ret) {
		if (r->flows > 1)
			hc_err_set(err, "a %u-byte frame over %u flows for %s",
				   r->size, r->flows, r->name);
		else
			hc_err_set(err, "a %u-byte frame for %s", r->size,
				   r->name);
		return ret;
	}
	/* inject: a row's own program in the live loop varies no port. */
	if (r->flows > 1 && v->gen.method == HC_GEN_LIVE &&
	    v->gen.prog_fd != v->gen_fd && !r->kind->generator) {
		hc_err_set(
			&rerr,
			"the live loop runs the row's own program in the generator's place, which varies no port: one flow only");
		bench_row_fail(r, "flows", -EOPNOTSUPP, &rerr);
		return 0;
	}
	ret = hc_fault(&rerr, "bench-read") ?: read_all(b, r, &c0, &d0);
	if (ret) {
		bench_row_fail(r, "reading its counters", ret, &rerr);
		return 0;
	}
	/* what the visit began with: the veth's drops and the hook's */
	p = (struct pace){ .base = c0.seen + d0, .veth = d0 - c0.dropped };
	ret = timed(b, r, perf, dut, rd, &e, &p, err);
	if (ret)
		return ret;
	ret = drain(b, r, rd, &c0, &c1, d0);
	if (!ret)
		ret = edge(b, r, dut, &z);
	if (ret) {
		bench_row_fail(r, "reading its counters", ret, &rerr);
		return 0;
	}
	/*
	 * Split, the DUT's NAPI, and in either mode the row's own threads,
	 * work until the drain; inline, bench's thread did its part in the
	 * generator's call.
	 */
	if (!dut) {
		z.cpu = e.cpu;
		z.t = e.t0;
	}
	if (rd->nwin)
		window_add(&rd->win[rd->nwin - 1], &e, &z);
	bench_scope_visit(&b->env, r, rd);
	rd->generated_known = true;
	rd->whole =
		rd->generated == (__u64)b->visit.windows * r->window_packets;
	bench_round_costs(&b->opt, &b->env, r, rd);
	if (b->opt.per_cpu)
		rd->cpu_mpps = cpu_rates(&b->env, &c0, &c1, rd->secs);
	return 0;
}

/*
 * The generator alone: with no NAPI on the DUT's veth (GRO off, nothing
 * attached), the veth drops each live frame at transmit, so the window
 * holds the generator's own work and nothing of the receive path. The
 * stage's copies need hcg to take XDP frames (hcd's GRO on), or none
 * are made: hcd goes down instead, and hcg's transmit drops them all,
 * copied (veth_xdp_xmit: no NAPI).
 */
static int veth_gen_alone(struct bench *b, bool on, struct hc_err *err)
{
	struct bench_veth *v = bench_veth(&b->net);
	int ret;

	/* AF_PACKET: a veth without NAPI takes skbs all the same. */
	if (v->if_discard) {
		ret = hc_gen_bind(&v->gen, on ? v->if_discard : v->if_gen);
		if (ret && err)
			hc_err_set(err, "binding AF_PACKET to %s",
				   on ? BENCH_DISCARD_DEV : BENCH_GEN_DEV);
		return ret;
	}
	if (v->if_stage) {
		ret = hc_nl_link_set_up(b->net.nl_dut, b->net.if_dut, !on,
					err);
		if (!ret && !on && v->threaded)
			ret = pin_napi(&b->net);
		if (ret && err && !err->msg[0])
			hc_err_set(err, "taking " BENCH_DUT_DEV " %s",
				   on ? "down" : "up again");
		return ret;
	}
	ret = bench_topo_napi(&b->net, !on);

	if (ret && err)
		hc_err_set(err, "turning GRO %s on " BENCH_DUT_DEV,
			   on ? "off" : "on");
	return ret;
}

void bench_live_prog(struct bench_net *net, int fd)
{
	struct bench_veth *v = bench_veth(net);

	if (net->topo->inject && v)
		v->gen.prog_fd = fd >= 0 ? fd : v->gen_fd;
}

int bench_topo_gen_ifindex(const struct bench_net *net)
{
	const struct bench_veth *v = bench_veth(net);

	return v ? v->if_gen : 0;
}

const __u8 *bench_topo_sink_mac(const struct bench_net *net)
{
	static const __u8 none[6];
	const struct bench_veth *v = bench_veth(net);

	return v ? v->sink_mac : none;
}

/* inject: the same loop returning XDP_DROP, the floor of every row. */
static int inject_gen_alone(struct bench *b, bool on, struct hc_err *err)
{
	bench_live_prog(&b->net, on ? bench_veth(&b->net)->gen.drop_fd : -1);
	return 0;
}

/*
 * The feed, seen from the driver's hook: live frames and the stage's
 * reach hcd's NAPI as XDP frames (veth_xdp_rcv_one), as a driver hands
 * them over, AF_PACKET's as skbs that native XDP converts
 * (veth_xdp_rcv_skb). A row that ran the other is INVALID. hcd runs no
 * XDP program but the row's; the stage's (bpf_prog_hc_stage) runs on
 * skbs, on hcr, in the same thread inline.
 */
#define ON_SKB "veth_xdp_rcv_skb>bpf_prog_hc_xdp*|veth_xdp_rcv_skb>bpf_prog_hc_xsk"

static void veth_row_path(const struct bench *b, struct bench_row *r)
{
	/* gen-only on the stage: its frames made, copied, and dropped at
	 * hcg's transmit (hcd down), none in hcd's NAPI. */
	if (r->kind->generator && b->net.feed == HC_GEN_STAGE)
		bench_row_path(r, "veth_xdp_rcv_skb "
				  "dev_map_enqueue_multi|dev_map_enqueue "
				  "!veth_xdp_rcv_one");
	if (!r->hook || !r->hook->driver)
		return;
	bench_row_path(r, b->net.feed == HC_GEN_PACKET ?
				  "veth_xdp_rcv_skb !veth_xdp_rcv_one" :
				  "veth_xdp_rcv_one !" ON_SKB);
}

/* The DUT's, the generator's (inject: the DUT's again) and the sink's. */
static int veth_own_ns(const struct bench *b, int *fds)
{
	const struct bench_veth *v = bench_veth(&b->net);

	if (!v)
		return 0;
	fds[0] = b->net.fd_dut;
	fds[1] = b->net.fd_gen;
	fds[2] = v->fd_sink;
	return 3;
}

static const char *const cpu_mode_names[] = { "split", "inline" };

static void veth_describe(const struct bench *b, FILE *f)
{
	if (b->net.topo->inject)
		fprintf(f,
			"frames injected into " BENCH_DUT_DEV
			"'s receive path from bench's thread (live frames, XDP_PASS), no driver: the xdp-native and xsk rows' programs run by the live loop; ");
	else if (b->net.feed == HC_GEN_STAGE)
		fprintf(f,
			"frames sent by AF_PACKET on " BENCH_FEED_DEV
			" and redirected as XDP frames to " BENCH_GEN_DEV
			" by the stage's native XDP on " BENCH_STAGE_DEV
			"%s: " BENCH_DUT_DEV
			"'s NAPI takes XDP frames, as from a driver%s; every window holds the stage, gen-only's cost; ",
			b->env.live ? "" : " (live XDP frames refused here)",
			b->opt.topology > 0 ?
				" (inject on the stage: with no XDP program of a row's, skbs built from them enter its receive path)" :
				"");
	else if (b->net.feed == HC_GEN_PACKET)
		fprintf(f,
			"frames sent on " BENCH_GEN_DEV
			" by AF_PACKET%s: " BENCH_DUT_DEV
			" takes skbs, which native XDP converts, not a driver's path; every window holds the send calls, gen-only's cost; ",
			b->env.live ? "" : " (live XDP frames refused here)");
	fprintf(f, "%s mode, %d round%s of %u windows per row, seed %u; ",
		cpu_mode_names[b->opt.cpu_mode], b->res.nrounds,
		b->res.nrounds == 1 ? "" : "s", b->opt.windows, b->opt.seed);
	fprintf(f, "delta and ratio against %s, paired per round\n",
		b->rows.scen->baseline);
	fprintf(f,
		"ns/pkt: a round's fastest window's %s time per packet%s; loaded: the mean over windows; Mpps: by the wall clock\n",
		b->env.cpu_clock ? "CPU" : "wall-clock",
		b->opt.cpu_mode == BENCH_INLINE ?
			" of the row less gen-only's in the same round" :
			" of the DUT's NAPI thread, for what it saw");
}

/* What inject shares with veth: all but where frames come from. */
#define VETH_OPS                                                       \
	.up = veth_up, .down = veth_down_all, .measure = veth_measure, \
	.describe = veth_describe, .scope = bench_scope_veth,          \
	.own_ns = veth_own_ns, .exact = true, .own_gen = true

const struct bench_topo bench_topo_veth = {
	.name = "veth",
	VETH_OPS,
	.gen_alone = veth_gen_alone,
	.row_path = veth_row_path,
};

/* The veth topology's, with one namespace and the frames injected. */
const struct bench_topo bench_topo_inject = {
	.name = "inject",
	VETH_OPS,
	.inject = true,
	.gen_alone = inject_gen_alone,
};
