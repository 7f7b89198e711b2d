// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "gen.h"
#include "gen.skel.h"
#include "ethtool.h"
#include "nl.h"

#ifndef PACKET_QDISC_BYPASS
#define PACKET_QDISC_BYPASS 20
#endif

/* The most frames one BPF_PROG_RUN call sends. */
#define LIVE_CHUNK (1 << 27)
#define PACKET_BATCH 64

static int live_run_len(struct hc_gen *g, int prog_fd, __u32 repeat, __u32 len)
{
	struct xdp_md ctx = { .data_end = len,
			      .ingress_ifindex = g->ifindex,
			      .rx_queue_index = g->queue };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = g->frame,
		    .data_size_in = len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = repeat,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);

	return bpf_prog_test_run_opts(prog_fd, &opts) ? -errno : 0;
}

static int live_run(struct hc_gen *g, int prog_fd, __u32 repeat)
{
	return live_run_len(g, prog_fd, repeat, g->lo.len);
}

/*
 * A live frame is one page: less XDP headroom, test_run's own page head
 * and skb_shared_info (3408 bytes on 4 KiB pages, Linux 6.18), which
 * differ by kernel: ask it, by probing sizes, once a frame was refused.
 * 0 when even a standard frame is refused: not the size, then.
 */
static __u32 live_max(struct hc_gen *g)
{
	__u32 lo = HC_PKT_STD, hi = g->lo.len, mid;

	if (live_run_len(g, g->drop_fd, 1, lo))
		return 0;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (live_run_len(g, g->drop_fd, 1, mid))
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* The headers the program writes into every frame (--refresh), or checks. */
static void set_refresh(struct hc_gen *g)
{
	struct gen_bpf *s = g->skel;

	if (!s)
		return;
	s->bss->refresh_len = g->refresh ? g->lo.l4_off : 0;
	s->bss->check_len = g->refresh ? 0 : g->lo.l4_off;
	memcpy(s->bss->refresh_hdr, g->frame, g->lo.l4_off);
}

/*
 * The flows' fields into a skeleton, open or loaded (its .bss is mapped),
 * and every CPU's count back to the first flow.
 */
static void vary_set(struct gen_bpf *s, const struct hc_gen *g)
{
	if (!s)
		return;
	s->bss->flows = g->flows;
	s->bss->vary_off = g->vary_off;
	s->bss->csum_off = g->lo.csum_off;
	s->bss->base = g->base;
	memset(s->bss->flow_seq, 0, sizeof(s->bss->flow_seq));
}

__u64 hc_gen_modified(const struct hc_gen *g)
{
	const struct gen_bpf *s = g->skel;

	return s && s->bss ? s->bss->modified : 0;
}

/* The table in one call: up to a million entries, one syscall each is 1 s. */
static int fill_srcs(int fd, const struct hc_srcs *d)
{
	__u32 *keys = malloc(d->n * sizeof(*keys)), i, n = d->n;
	int ret;

	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = i;
	ret = bpf_map_update_batch(fd, keys, d->addr, &n, NULL) ? -errno : 0;
	free(keys);
	return ret;
}

static int live_open(struct hc_gen *g, const struct hc_gen_cfg *cfg,
		     struct hc_err *err)
{
	struct gen_bpf *s = gen_bpf__open_opts(hc_prog_open_opts());
	__u32 max;
	int ret;

	if (!s)
		return -errno;
	g->skel = s;
	vary_set(s, g);
	s->rodata->verdict = cfg->inject ? XDP_PASS : XDP_TX;
	g->refresh = cfg->refresh;
	set_refresh(g);
	if (g->srcs) {
		s->rodata->nr_srcs = g->srcs->n;
		s->rodata->src_off = g->src_off;
		s->rodata->src_len = g->srcs->ipv6 ? 16 : 4;
		s->rodata->ip_csum_off = g->ip_csum_off;
		s->rodata->l4_pseudo = g->l4_pseudo;
		s->rodata->src_percpu = cfg->percpu;
		/*
		 * A varied source is no receiver's edit: compare up to it,
		 * or to IPv4's header checksum before it, which follows it.
		 */
		s->bss->check_len = g->refresh	   ? 0 :
				    g->ip_csum_off ? g->ip_csum_off :
						     g->src_off;
		ret = bpf_map__set_max_entries(s->maps.srcs, g->srcs->n);
		if (ret)
			return ret;
	}
	bpf_program__set_autoload(
		cfg->raw ? s->progs.hc_gen : s->progs.hc_gen_raw, false);
	bpf_program__set_autoload(s->progs.hc_stage, false);
	bpf_program__set_autoload(s->progs.hc_stage_vary, false);
	ret = gen_bpf__load(s);
	if (ret)
		return ret;
	if (g->srcs) {
		ret = fill_srcs(bpf_map__fd(s->maps.srcs), g->srcs);
		if (ret)
			return ret;
	}
	g->prog_fd = bpf_program__fd(cfg->raw ? s->progs.hc_gen_raw :
						s->progs.hc_gen);
	g->drop_fd = bpf_program__fd(s->progs.hc_gen_probe);
	ret = hc_fault(err, "gen-live") ?: live_run(g, g->drop_fd, 1);
	if (ret == -EINVAL && g->lo.len > HC_PKT_STD && (max = live_max(g))) {
		hc_err_set(
			err,
			"a %u-byte frame is more than a live XDP frame holds: %u bytes here (a %d-byte page less XDP headroom, BPF_PROG_RUN's page head and skb_shared_info)",
			g->lo.len, max, getpagesize());
		return -EMSGSIZE;
	}
	if (ret && g->queue)
		hc_err_set(
			err,
			"live XDP frames on RX queue %u refused: the device has no such queue, or the kernel no live frames (Linux 5.18+)",
			g->queue);
	else if (ret)
		hc_err_set(
			err,
			"live XDP frames (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18+) not usable here");
	/* The caller names its options; what each way round costs is ours. */
	if (ret)
		hc_err_hint(
			err,
			"the stage (AF_PACKET through a veth pair whose peer redirects in native XDP) hands a device XDP frames without them, one hop more on the sending side; AF_PACKET alone hands it skbs, which native XDP converts: not a driver's path");
	return ret;
}

int hc_gen_bind(struct hc_gen *g, int ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = ifindex };

	if (g->method == HC_GEN_LIVE)
		return -EINVAL;
	return bind(g->sock_fd, (struct sockaddr *)&sll, sizeof(sll)) ? -errno :
									0;
}

static int packet_open(struct hc_gen *g, struct hc_err *err)
{
	int one = 1, ret;

	g->method = g->method ?: HC_GEN_PACKET;
	g->sock_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (g->sock_fd < 0)
		return -errno;
	/* Straight to the driver, as pktgen does: no qdisc in the way. */
	ret = setsockopt(g->sock_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
			 sizeof(one)) ?
		      -errno :
		      hc_gen_bind(g, g->ifindex);
	if (ret)
		hc_err_set(err, "AF_PACKET socket");
	return ret;
}

/*
 * The stage's entries, one a copy, all naming device to; with several
 * flows, each with the program that varies the copies as they leave.
 */
static int stage_entries(struct hc_gen *g, __u32 to, __u32 copies)
{
	struct gen_bpf *s = g->stage_skel;
	struct bpf_devmap_val v = { .ifindex = to };
	__u32 key;

	if (g->flows > 1)
		v.bpf_prog.fd = bpf_program__fd(s->progs.hc_stage_vary);
	vary_set(s, g);
	for (key = 0; key < copies; key++)
		if (bpf_map_update_elem(bpf_map__fd(s->maps.stage_tx), &key, &v,
					0))
			return -errno;
	return 0;
}

/*
 * The stage's program on its veth, redirecting to st->to (an ifindex of
 * the current namespace, where the devmap resolves it), then AF_PACKET.
 */
static int stage_open(struct hc_gen *g, const struct hc_gen_stage *st,
		      struct hc_err *err)
{
	struct gen_bpf *s = gen_bpf__open_opts(hc_prog_open_opts());
	__u32 copies = st->copies ?: 1;
	int ret;

	if (!s)
		return -errno;
	g->stage_skel = s;
	s->rodata->stage_copies = copies;
	bpf_program__set_autoload(s->progs.hc_gen, false);
	bpf_program__set_autoload(s->progs.hc_gen_raw, false);
	bpf_program__set_autoload(s->progs.hc_gen_probe, false);
	ret = bpf_map__set_max_entries(s->maps.stage_tx, copies) ?:
		      gen_bpf__load(s)				 ?:
		      stage_entries(g, st->to, copies);
	if (ret) {
		hc_err_set(err, "loading the stage's program");
		return ret;
	}
	ret = hc_fault(err, "gen-stage") ?:
					   hc_nl_xdp_set(st->nl, st->in,
							 bpf_program__fd(s->progs.hc_stage), -1,
							 XDP_FLAGS_DRV_MODE |
								 XDP_FLAGS_UPDATE_IF_NOEXIST,
							 err);
	if (ret)
		return ret;
	g->stage = *st;
	g->method = HC_GEN_STAGE;
	return g->sock_fd >= 0 ? 0 : packet_open(g, err);
}

#define OWN_FEED "hcf" /* its own stage: AF_PACKET sends on it */
#define OWN_STAGE "hcr"

/*
 * A stage of the generator's own, redirecting to ifindex of the current
 * namespace: its veth pair in a namespace that only the generator holds,
 * so that it goes with it however it ends, kill -9 too. The AF_PACKET
 * socket and the netlink one are made there (a socket stays in its
 * namespace); the devmap resolves ifindex here, where it is updated.
 */
static int stage_own(struct hc_gen *g, int ifindex, struct hc_err *err)
{
	struct hc_gen_stage st = { .to = ifindex, .copies = 1 };
	int here = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int ret = here < 0 || unshare(CLONE_NEWNET) ? -errno : 0;

	if (!ret) {
		g->stage_ns =
			open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		ret = g->stage_ns < 0 ? -errno : 0;
	}
	if (!ret && !(st.nl = hc_nl_open(err)))
		ret = -errno;
	ret = ret				      ?:
		      hc_fault(err, "gen-stage-veth") ?:
		      hc_nl_veth_add(st.nl, OWN_FEED, OWN_STAGE, -1, err);
	if (!ret) {
		g->ifindex = if_nametoindex(OWN_FEED);
		st.in = if_nametoindex(OWN_STAGE);
		ret = g->ifindex && st.in ? 0 : -ENODEV;
	}
	ret = ret						  ?:
		      hc_nl_link_up(st.nl, g->ifindex, true, err) ?:
		      hc_nl_link_up(st.nl, st.in, true, err)	  ?:
		      hc_ethtool_set_tso(OWN_FEED, false)	  ?:
		      packet_open(g, err);
	if (ret && !err->msg[0])
		hc_err_set(err, "the stage's veth pair (" OWN_FEED
				", " OWN_STAGE ") in a namespace of its own");
	/* Back where the caller was, in any case. */
	if (here >= 0 && setns(here, CLONE_NEWNET) && !ret)
		ret = -errno;
	if (here >= 0)
		close(here);
	/* hc_gen_close() closes it, whatever happens next */
	g->stage.nl = st.nl;
	return ret ?: stage_open(g, &st, err);
}

const char *const hc_gen_methods[] = { [HC_GEN_AUTO] = "auto",
				       [HC_GEN_LIVE] = "live",
				       [HC_GEN_PACKET] = "packet",
				       [HC_GEN_STAGE] = "stage",
				       NULL };

const char *hc_gen_method_name(enum hc_gen_method m)
{
	return m <= HC_GEN_STAGE ? hc_gen_methods[m] : "?";
}

int hc_gen_live_probe(struct hc_err *err)
{
	struct hc_gen_cfg cfg = { .spec = { .proto = 17, .size = HC_PKT_MIN },
				  .method = HC_GEN_LIVE };
	struct hc_gen g;
	int ret = hc_gen_open(&g, 1, &cfg, err);

	hc_gen_close(&g);
	return ret;
}

/* The field flows vary: the source port, or ICMP's echo id (pkt.c). */
static void set_field(struct hc_gen *g, const struct hc_pkt_spec *spec)
{
	g->base = spec->proto == 1 ? 0x4843 : spec->sport;
	g->vary_off = g->lo.l4_off + (spec->proto == 1 ? 4 : 0);
}

int hc_gen_open(struct hc_gen *g, int ifindex, const struct hc_gen_cfg *cfg,
		struct hc_err *err)
{
	int ret;

	memset(g, 0, sizeof(*g));
	g->ifindex = ifindex;
	g->prog_fd = g->drop_fd = g->sock_fd = g->stage_ns = -1;
	g->flows = cfg->flows ? cfg->flows : 1;
	g->queue = cfg->queue;
	g->raw = cfg->raw;
	if (g->flows > HC_GEN_FLOWS_MAX || (g->raw && g->flows > 1))
		return -EINVAL;
	ret = hc_pkt_build(&cfg->spec, g->frame, &g->lo);
	if (ret) {
		hc_err_set(err, "a %u-byte frame cannot hold these headers",
			   cfg->spec.size);
		return ret;
	}
	set_field(g, &cfg->spec);
	if (cfg->srcs) {
		if (!cfg->srcs->n || cfg->srcs->ipv6 != cfg->spec.ipv6 ||
		    cfg->raw)
			return -EINVAL;
		g->srcs = cfg->srcs;
		/* The L3 header ends where L4 begins (pkt.c). */
		g->src_off = g->lo.l4_off - (cfg->spec.ipv6 ? 40 - 8 : 20 - 12);
		g->ip_csum_off = cfg->spec.ipv6 ? 0 : g->lo.l4_off - 20 + 10;
		/* ICMPv4's checksum has no pseudo-header. */
		g->l4_pseudo = g->lo.csum_off &&
			       (cfg->spec.ipv6 || cfg->spec.proto != 1);
	}
	if (cfg->method == HC_GEN_LIVE || cfg->method == HC_GEN_AUTO) {
		ret = live_open(g, cfg, err);
		if (!ret) {
			g->method = HC_GEN_LIVE;
			return 0;
		}
		hc_gen_close(g);
		g->prog_fd = g->drop_fd = g->sock_fd = -1;
		/* Into a receive path only live frames go. */
		if (cfg->method == HC_GEN_LIVE || cfg->raw || cfg->inject)
			return ret == -EINVAL && !cfg->queue ? -EOPNOTSUPP :
							       ret;
	}
	if (cfg->method == HC_GEN_STAGE && !cfg->stage) {
		g->method = HC_GEN_STAGE;
		return stage_own(g, ifindex, err);
	}
	if (cfg->method == HC_GEN_STAGE) {
		if (cfg->srcs && cfg->stage->copies > 1)
			return -EINVAL;
		return stage_open(g, cfg->stage, err);
	}
	return packet_open(g, err);
}

int hc_gen_set_frame(struct hc_gen *g, const struct hc_pkt_spec *spec)
{
	int ret;

	if (g->srcs)
		return -EINVAL;
	ret = hc_pkt_build(spec, g->frame, &g->lo);
	if (ret)
		return ret;
	set_field(g, spec);
	set_refresh(g);
	vary_set(g->skel, g);
	vary_set(g->stage_skel, g);
	g->flow_next = 0;
	return 0;
}

int hc_gen_set_flows(struct hc_gen *g, __u32 flows)
{
	flows = flows ?: 1;
	if (flows > HC_GEN_FLOWS_MAX || (g->raw && flows > 1))
		return -EINVAL;
	g->flows = flows;
	g->flow_next = 0;
	vary_set(g->skel, g);
	if (g->stage_skel)
		return stage_entries(g, g->stage.to, g->stage.copies ?: 1);
	return 0;
}

/* RFC 1624, as the program does (gen.bpf.c): one 16-bit word at a time. */
static void csum_replace(__u8 *csum, const __u8 *from, const __u8 *to,
			 __u32 len)
{
	__u32 sum = (__u16) ~*(__u16 *)csum, i;
	__u16 a, b;

	for (i = 0; i < len; i += 2) {
		memcpy(&a, from + i, 2);
		memcpy(&b, to + i, 2);
		sum += (__u16)~a + b;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*(__u16 *)csum = (__u16)~sum ?: 0xffff;
}

/* Frame f's source from entry idx of the table, its checksums mended. */
static void packet_src(struct hc_gen *g, __u8 *f, __u64 idx)
{
	const __u8 *src = g->srcs->addr[idx % g->srcs->n];
	__u32 len = g->srcs->ipv6 ? 16 : 4;
	__u8 old[16];

	memcpy(old, f + g->src_off, len);
	memcpy(f + g->src_off, src, len);
	if (g->ip_csum_off)
		csum_replace(f + g->ip_csum_off, old, src, len);
	if (g->l4_pseudo)
		csum_replace(f + g->lo.csum_off, old, src, len);
}

/* Frame f's field to the flow's value, its L4 checksum mended. */
static void packet_flow(const struct hc_gen *g, __u8 *f, __u32 flow)
{
	__u16 v = htons((__u16)(g->base + flow)), old;

	memcpy(&old, f + g->vary_off, 2);
	memcpy(f + g->vary_off, &v, 2);
	if (g->lo.csum_off)
		csum_replace(f + g->lo.csum_off, (__u8 *)&old, (__u8 *)&v, 2);
}

/*
 * AF_PACKET: a batch of frames per sendmmsg. Several flows: each call
 * takes the next count frames of the sequence (threads take stretches
 * of their own), the n-th frame the flow n mod flows, so that calls one
 * after the other go on where the last one stopped; the stage varies
 * its copies itself (hc_stage_vary).
 */
static int packet_send(struct hc_gen *g, __u64 first, __u64 count, __u64 *sent,
		       const volatile int *stop)
{
	/* Per call, not per thread: jumbo frames make a batch 590 KiB. */
	__u8 *frames = malloc(PACKET_BATCH * g->lo.len);
	struct mmsghdr msg[PACKET_BATCH];
	struct iovec iov[PACKET_BATCH];
	bool vary = g->flows > 1 && g->method != HC_GEN_STAGE;
	__u64 at = vary ? __atomic_fetch_add(&g->flow_next, count,
					     __ATOMIC_RELAXED) :
			  0;
	__u32 flow, i;
	int n, ret = 0;

	if (!frames)
		return -ENOMEM;
	for (i = 0; i < PACKET_BATCH; i++) {
		__u8 *f = frames + i * g->lo.len;

		memcpy(f, g->frame, g->lo.len);
		iov[i] = (struct iovec){ .iov_base = f, .iov_len = g->lo.len };
		msg[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i],
							.msg_iovlen = 1 } };
	}
	while (*sent < count && !(stop && *stop)) {
		__u64 want = count - *sent;

		if (want > PACKET_BATCH)
			want = PACKET_BATCH;
		flow = vary ? (at + *sent) % g->flows : 0;
		for (i = 0; i < want; i++) {
			__u8 *f = frames + i * g->lo.len;

			if (g->srcs)
				packet_src(g, f, first + *sent + i);
			if (vary) {
				packet_flow(g, f, flow);
				flow = flow + 1 < g->flows ? flow + 1 : 0;
			}
		}
		n = sendmmsg(g->sock_fd, msg, want, 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN ||
			    errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		*sent += n;
	}
	free(frames);
	return ret;
}

int hc_gen_send(struct hc_gen *g, __u64 count, __u64 *sent,
		const volatile int *stop)
{
	return hc_gen_send_from(g, 0, count, sent, stop);
}

int hc_gen_send_from(struct hc_gen *g, __u64 first, __u64 count, __u64 *sent,
		     const volatile int *stop)
{
	sigset_t all, old;
	int ret = 0;

	*sent = 0;
	/* The stage's copies: whole frames sent, each counted as many. */
	if (g->method == HC_GEN_STAGE && g->stage.copies > 1) {
		__u32 k = g->stage.copies;

		if (count % k || first % k)
			return -EINVAL;
		ret = packet_send(g, first / k, count / k, sent, stop);
		*sent *= k;
		return ret;
	}
	if (g->method != HC_GEN_LIVE)
		return packet_send(g, first, count, sent, stop);
	/*
	 * A pending signal ends BPF_PROG_RUN with -EINTR and no count of
	 * what it sent; blocked during a chunk, it waits for the next gap.
	 */
	sigfillset(&all);
	while (*sent < count && !(stop && *stop)) {
		__u64 n =
			count - *sent < LIVE_CHUNK ? count - *sent : LIVE_CHUNK;

		pthread_sigmask(SIG_BLOCK, &all, &old);
		ret = live_run(g, g->prog_fd, n);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret)
			break;
		*sent += n;
	}
	return ret;
}

void hc_gen_close(struct hc_gen *g)
{
	struct gen_bpf *st = g->stage_skel;

	/* Only our own program, once attached: another one since stays. */
	if (g->stage.in)
		hc_nl_xdp_set(g->stage.nl, g->stage.in, -1,
			      bpf_program__fd(st->progs.hc_stage),
			      XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE, NULL);
	if (st)
		gen_bpf__destroy(st);
	/* Its own stage: the namespace goes, the veth pair with it. */
	if (g->stage_ns >= 0) {
		hc_nl_close(g->stage.nl);
		close(g->stage_ns);
	}
	g->stage_skel = NULL;
	g->stage.nl = NULL;
	g->stage_ns = -1;
	if (g->skel)
		gen_bpf__destroy(g->skel);
	if (g->sock_fd >= 0)
		close(g->sock_fd);
	g->skel = NULL;
	g->sock_fd = -1;
}
