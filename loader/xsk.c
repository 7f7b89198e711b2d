// SPDX-License-Identifier: GPL-2.0
/*
 * AF_XDP: hookcmp's XDP program (progs/xsk.bpf.c) redirects each frame
 * into the XSKMAP by rx queue; one socket and one thread per queue run the
 * logic's userspace build (progs/hc_user.h) on it. libxdp sets up the
 * rings with its own program loading inhibited: the program is hookcmp's,
 * attached by xdp.c and journalled like the xdp hook's.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>
#include "hc_user.h"
#include "hooks.h"
#include "xdp.h"
#include "print.h"
#include "nl.h"
#include "stats.h"
#include "xsk.skel.h"

enum { XSK_AUTO, XSK_COPY, XSK_ZEROCOPY };

/* The xsk hook's options: XDP's, then the sockets'. */
struct xsk_cfg {
	struct hc_xdp_cfg xdp;
	__u32 queue;
	bool all_queues;
	int mode;
	bool busy_poll;
};
HC_CFG_FITS(struct xsk_cfg);

static struct xsk_cfg *cfg(const struct hc_run *r)
{
	return HC_CFG(r, struct xsk_cfg);
}

/*
 * Four times libxdp's default rx ring: a consumer held off for a few ms
 * loses nothing at a few Mpps, and bench's window (5 ms of its slowest
 * row) fits whole. Twice as many frames, so that the fill ring never
 * runs dry before the rx ring is full. 64 MiB of umem per queue.
 */
#define NUM_FRAMES 16384
#define FRAME_SIZE XSK_UMEM__DEFAULT_FRAME_SIZE
#define RX_SIZE 8192
#define BATCH 64
#define XSK_THREAD "hookcmp-xsk" /* and the queue */

struct xsk_state;

struct xsk_queue {
	/* Written by the queue's thread only; readers sum them. */
	struct hc_counter c[HC_NR_STATS];
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
	void *area;
	const struct xsk_state *x;
	__u32 id;
	struct xsk_umem *umem;
	struct xsk_socket *sock;
	pthread_t thread;
	bool running;
	struct xdp_statistics st; /* the socket's counters when it closed */
} __attribute__((aligned(64)));

/* r->state for this hook: what xdp.c attached first, as its own state. */
struct xsk_state {
	struct hc_xdp_state xdp;
	struct xsk_bpf *skel;
	const struct hc_run *r;
	bool stop;
	bool zerocopy;
	__u32 nq;
	struct xsk_queue q[];
};

static const __u16 bind_mode[] = {
	[XSK_AUTO] = 0,
	[XSK_COPY] = XDP_COPY,
	[XSK_ZEROCOPY] = XDP_ZEROCOPY,
};

static const char *const xsk_mode_names[] = { "auto", "copy", "zerocopy" };
static const char *const bind_flag_names[] = { "", ", XDP_COPY",
					       ", XDP_ZEROCOPY" };

/* Relaxed stores: another thread sums them while this one counts. */
static inline void count(struct hc_counter *c, __u32 len)
{
	__atomic_store_n(&c->packets, c->packets + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->bytes, c->bytes + len, __ATOMIC_RELAXED);
}

static void *rx_loop(void *arg)
{
	struct xsk_queue *q = arg;
	const struct hc_conf *conf = &q->x->r->conf;
	const struct hc_set *set = q->x->r->set;
	struct pollfd pfd = { .fd = xsk_socket__fd(q->sock), .events = POLLIN };
	bool busy = cfg(q->x->r)->busy_poll;
	__u32 n, i, rx = 0, fq = 0, idle = 0, after = 0;

	hc_pause("xsk-rx"); /* the tests fill the ring meanwhile */
	for (;;) {
		/* Once stopped, drain what the kernel queued before the
		 * program went, bounded in case it did not go. */
		bool stop = __atomic_load_n(&q->x->stop, __ATOMIC_ACQUIRE);

		n = xsk_ring_cons__peek(&q->rx, BATCH, &rx);
		if (!n) {
			if (stop && idle++)
				break;
			if (busy && !stop)
				recvfrom(pfd.fd, NULL, 0, MSG_DONTWAIT, NULL,
					 NULL);
			else
				poll(&pfd, 1, stop ? 10 : 100);
			continue;
		}
		/* A frame is in the fill ring or in rx: room for n. */
		xsk_ring_prod__reserve(&q->fq, n, &fq);
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&q->rx, rx + i);
			__u32 cls, v;

			v = hc_user_run_set(
				xsk_umem__get_data(q->area, d->addr), d->len,
				conf, set, &cls);
			count(&q->c[cls * HC_NR_VERDICTS + v], d->len);
			*xsk_ring_prod__fill_addr(&q->fq, fq + i) =
				d->addr & ~(__u64)(FRAME_SIZE - 1);
		}
		xsk_ring_prod__submit(&q->fq, n);
		xsk_ring_cons__release(&q->rx, n);
		if (stop && ++after > 2 * RX_SIZE / BATCH)
			break;
	}
	return NULL;
}

/* The rx queues in use, which bind checks against: ethtool -l, else all. */
static int nr_queues(struct hc_run *r, __u32 *n)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = { .ifr_data = (void *)&ch };
	struct hc_link_info li;
	int err;

	if (!hc_dev_ioctl(r->dev, SIOCETHTOOL, &ifr) &&
	    ch.rx_count + ch.combined_count) {
		*n = ch.rx_count + ch.combined_count;
		return 0;
	}
	err = hc_nl_link_get(r->nl, r->ifindex, &li, &r->err);
	*n = li.num_rx_queues ? li.num_rx_queues : 1;
	return err;
}

/* The socket's counters; the last ones read once it is closed. */
static void queue_stats(const struct xsk_queue *q, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	*st = q->st;
	if (q->sock)
		getsockopt(xsk_socket__fd(q->sock), SOL_XDP, XDP_STATISTICS, st,
			   &len);
}

static void queue_close(struct xsk_queue *q)
{
	queue_stats(q, &q->st);
	xsk_socket__delete(q->sock);
	q->sock = NULL;
	xsk_umem__delete(q->umem);
	q->umem = NULL;
	if (q->area)
		munmap(q->area, (size_t)NUM_FRAMES * FRAME_SIZE);
	q->area = NULL;
}

static void queues_close(struct xsk_state *x)
{
	__u32 i;

	__atomic_store_n(&x->stop, true, __ATOMIC_RELEASE);
	for (i = 0; i < x->nq; i++) {
		if (x->q[i].running)
			pthread_join(x->q[i].thread, NULL);
		x->q[i].running = false;
		queue_close(&x->q[i]);
	}
}

static void xsk_destroy(void *p)
{
	struct xsk_state *x = p;

	queues_close(x);
	xsk_bpf__destroy(x->skel);
	free(x);
}

static int xsk_load(struct hc_run *r)
{
	struct xsk_state *x;
	struct xsk_bpf *s;
	__u32 n, first, i;
	size_t size;
	int err;

	err = nr_queues(r, &n);
	if (err)
		return err;
	first = cfg(r)->queue;
	if (first >= n) {
		hc_err_set(&r->err, "%s has %u rx queue%s, so no queue %u",
			   r->dev, n, n == 1 ? "" : "s", first);
		return -ENODEV;
	}
	n = cfg(r)->all_queues ? n : 1;
	size = sizeof(*x) + n * sizeof(x->q[0]);
	x = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!x)
		return -ENOMEM;
	memset(x, 0, size);
	hc_xdp_state_init(&x->xdp);
	x->r = r;
	x->nq = n;
	x->zerocopy = true;
	for (i = 0; i < n; i++) {
		x->q[i].id = first + i;
		x->q[i].x = x;
	}
	s = xsk_bpf__open_opts(hc_prog_open_opts());
	if (!s) {
		err = -errno;
		free(x);
		return err;
	}
	x->skel = s;
	r->state = x;
	r->state_free = xsk_destroy;
	/* A slot for each queue up to the last one bound. */
	err = bpf_map__set_max_entries(s->maps.hc_xsks, first + n);
	return err ? err : hc_prog_load(r, s->skeleton, "hc_xsk");
}

static int busy_poll_on(int fd)
{
	int one = 1, usecs = 20, budget = BATCH;

	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one,
		       sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
		       sizeof(budget)))
		return -errno;
	return 0;
}

static int queue_open(struct hc_run *r, struct xsk_state *x,
		      struct xsk_queue *q)
{
	const struct xsk_umem_config ucfg = {
		.fill_size = NUM_FRAMES,
		.comp_size =
			XSK_RING_CONS__DEFAULT_NUM_DESCS, /* unused: no tx */
		.frame_size = FRAME_SIZE,
	};
	const struct xsk_socket_config scfg = {
		.rx_size = RX_SIZE,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP | bind_mode[cfg(r)->mode],
	};
	struct xdp_options opts = {};
	socklen_t len = sizeof(opts);
	__u32 i, idx = 0;
	int err, fd;

	q->area = mmap(NULL, (size_t)NUM_FRAMES * FRAME_SIZE,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	if (q->area == MAP_FAILED) {
		q->area = NULL;
		return -errno;
	}
	err = xsk_umem__create(&q->umem, q->area,
			       (__u64)NUM_FRAMES * FRAME_SIZE, &q->fq, &q->cq,
			       &ucfg);
	if (err) {
		q->umem = NULL;
		hc_err_set(&r->err, "AF_XDP umem for queue %u", q->id);
		return err;
	}
	/* A socket closed just before (a previous run's) frees its queue
	 * from a workqueue: EBUSY for a moment. */
	for (i = 0; i < 20; i++) {
		err = xsk_socket__create(&q->sock, r->dev, q->id, q->umem,
					 &q->rx, NULL, &scfg);
		if (err != -EBUSY)
			break;
		usleep(50000);
	}
	if (err) {
		q->sock = NULL;
		hc_err_set(&r->err, "binding an AF_XDP socket to queue %u (%s)",
			   q->id, xsk_mode_names[cfg(r)->mode]);
		/* bind() has no extack: its errno is all the kernel says. */
		snprintf(r->err.kernel, sizeof(r->err.kernel),
			 "bind(AF_XDP, queue %u%s): %s", q->id,
			 bind_flag_names[cfg(r)->mode], strerror(-err));
		if (err == -EOPNOTSUPP && cfg(r)->mode == XSK_ZEROCOPY)
			hc_err_hint(
				&r->err,
				"the driver of %s has no AF_XDP zero-copy; use --xsk-mode copy or auto",
				r->dev);
		if (err == -EBUSY)
			hc_err_hint(
				&r->err,
				"another AF_XDP socket holds queue %u of %s",
				q->id, r->dev);
		return err;
	}
	fd = xsk_socket__fd(q->sock);
	if (getsockopt(fd, SOL_XDP, XDP_OPTIONS, &opts, &len))
		return -errno;
	x->zerocopy &= !!(opts.flags & XDP_OPTIONS_ZEROCOPY);
	if (cfg(r)->busy_poll && (err = busy_poll_on(fd))) {
		hc_err_set(&r->err, "busy polling on queue %u", q->id);
		return err;
	}
	/* Every frame starts in the fill ring. */
	xsk_ring_prod__reserve(&q->fq, NUM_FRAMES, &idx);
	for (i = 0; i < NUM_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&q->fq, idx + i) =
			(__u64)i * FRAME_SIZE;
	xsk_ring_prod__submit(&q->fq, NUM_FRAMES);
	if (bpf_map_update_elem(bpf_map__fd(x->skel->maps.hc_xsks), &q->id, &fd,
				BPF_ANY))
		return -errno;
	return 0;
}

/* Sockets and threads first, so frames have somewhere to go once the
 * program is attached. */
static int xsk_attach(struct hc_run *r)
{
	struct xsk_state *x = r->state;
	sigset_t all, old;
	char name[16];
	__u32 i;
	int err;

	err = hc_fault(&r->err, "xsk");
	for (i = 0; !err && i < x->nq; i++)
		err = queue_open(r, x, &x->q[i]);
	if (err)
		return err;
	/* Signals are the main thread's: it detaches. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; !err && i < x->nq; i++) {
		err = -pthread_create(&x->q[i].thread, NULL, rx_loop, &x->q[i]);
		x->q[i].running = !err;
		snprintf(name, sizeof(name), XSK_THREAD "%u", x->q[i].id);
		if (!err)
			pthread_setname_np(x->q[i].thread, name);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err ? err : hc_xdp_attach(r);
}

/* The program goes first: then the threads drain what it sent them. */
static int xsk_detach(struct hc_run *r)
{
	int err = hc_xdp_detach(r);

	if (r->state)
		queues_close(r->state);
	return err;
}

static int xsk_read(const struct hc_run *r, struct hc_snap *s)
{
	const struct xsk_state *x = r->state;
	struct xdp_statistics st;
	__u32 i, k;

	memset(s->c, 0, sizeof(s->c));
	s->dropped_before = 0;
	s->ring_full = 0;
	for (i = 0; i < x->nq; i++) {
		queue_stats(&x->q[i], &st);
		s->dropped_before += st.rx_dropped + st.rx_ring_full;
		s->ring_full += st.rx_ring_full;
		for (k = 0; k < HC_NR_STATS; k++) {
			const struct hc_counter *c = &x->q[i].c[k];

			s->c[k].packets +=
				__atomic_load_n(&c->packets, __ATOMIC_RELAXED);
			s->c[k].bytes +=
				__atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
		}
	}
	s->t = hc_now();
	return 0;
}

/* Frames that reached a queue without a socket and went to the stack. */
static __u64 not_redirected(const struct xsk_state *x)
{
	int ncpu = libbpf_num_possible_cpus(), cpu;
	__u64 *v, sum = 0;
	__u32 key = 0;

	v = ncpu > 0 ? calloc(ncpu, sizeof(*v)) : NULL;
	if (v && !bpf_map_lookup_elem(bpf_map__fd(x->skel->maps.hc_xsk_missed),
				      &key, v))
		for (cpu = 0; cpu < ncpu; cpu++)
			sum += v[cpu];
	free(v);
	return sum;
}

static void ring_stats(struct hc_pr *p, int which,
		       const struct xdp_statistics *st)
{
	hc_pr_fu64(p, which, "dropped_before", "; dropped before the hook %llu",
		   st->rx_dropped + st->rx_ring_full);
	hc_pr_fu64(p, which, "rx_dropped", " (rx_dropped %llu", st->rx_dropped);
	hc_pr_fu64(p, which, "rx_ring_full", ", rx_ring_full %llu)",
		   st->rx_ring_full);
	hc_pr_fu64(p, which, "rx_fill_ring_empty_descs",
		   "; rx_fill_ring_empty_descs %llu",
		   st->rx_fill_ring_empty_descs);
	hc_pr_fu64(p, which, "rx_invalid_descs", ", rx_invalid_descs %llu",
		   st->rx_invalid_descs);
}

static __u64 queue_packets(const struct xsk_queue *q)
{
	__u64 n = 0;
	int k;

	for (k = 0; k < HC_NR_STATS; k++)
		n += __atomic_load_n(&q->c[k].packets, __ATOMIC_RELAXED);
	return n;
}

/* The mode obtained and the sockets' own counters, in total and per queue. */
static void xsk_report(const struct hc_run *r, struct hc_pr *p)
{
	const struct xsk_state *x = r->state;
	const char *mode = x->zerocopy ? "zerocopy" : "copy";
	__u64 missed = not_redirected(x);
	struct xdp_statistics st = {}, qs;
	__u32 i;

	for (i = 0; i < x->nq; i++) {
		queue_stats(&x->q[i], &qs);
		st.rx_dropped += qs.rx_dropped;
		st.rx_ring_full += qs.rx_ring_full;
		st.rx_fill_ring_empty_descs += qs.rx_fill_ring_empty_descs;
		st.rx_invalid_descs += qs.rx_invalid_descs;
	}
	hc_pr_open(p, HC_PR_JSON, "xsk", '{');
	hc_pr_fstr(p, HC_PR_ALL, "mode", "AF_XDP: %s mode", mode);
	hc_pr_text(p, ", queue%s %u", x->nq > 1 ? "s" : "", x->q[0].id);
	if (x->nq > 1)
		hc_pr_text(p, "-%u", x->q[x->nq - 1].id);
	hc_pr_fu64(p, HC_PR_JSON, "busy_poll", NULL, cfg(r)->busy_poll);
	if (cfg(r)->busy_poll)
		hc_pr_text(p, ", busy poll");
	ring_stats(p, HC_PR_ALL, &st);
	hc_pr_fu64(p, HC_PR_ALL, "not_redirected",
		   "; to the stack from queues without a socket %llu\n",
		   missed);
	hc_pr_open(p, HC_PR_JSON, "queues", '[');
	for (i = 0; i < x->nq; i++) {
		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fu64(p, HC_PR_JSON, "queue", NULL, x->q[i].id);
		hc_pr_fu64(p, HC_PR_JSON, "packets", NULL,
			   queue_packets(&x->q[i]));
		queue_stats(&x->q[i], &qs);
		ring_stats(p, HC_PR_JSON, &qs);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
	hc_pr_close(p, HC_PR_JSON, '}');
}

/* AF_XDP sockets are raw; a UMEM over RLIMIT_MEMLOCK needs CAP_IPC_LOCK. */
static __u64 xsk_caps(const struct hc_run *r)
{
	__u64 umem = (__u64)NUM_FRAMES * FRAME_SIZE, need = 1ULL << CAP_NET_RAW;
	struct rlimit rl;

	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (cfg(r)->all_queues || rl.rlim_cur < umem))
		need |= 1ULL << CAP_IPC_LOCK;
	return need | hc_xdp_caps(r);
}

static int xsk_check(struct hc_run *r, struct hc_err *err)
{
	if (cfg(r)->all_queues && hc_hook_given(r, "queue")) {
		hc_err_set(err, "--queue and --all-queues exclude each other");
		return -EINVAL;
	}
	if (r->bare) {
		hc_err_set(err,
			   "--hook xsk has no bare program; --parse none is its floor");
		return -EINVAL;
	}
	return 0;
}

static const struct hc_opt xsk_opts[] = {
	HC_XDP_OPTS(struct xsk_cfg),
	{ "queue", 0, HC_OPT_U32, HC_CFG_OFF(struct xsk_cfg, queue), "N",
	  "the rx queue to bind (default 0)", NULL, 0, 0xfffffffe },
	{ "all-queues", 0, HC_OPT_FLAG, HC_CFG_OFF(struct xsk_cfg, all_queues),
	  NULL, "a socket and a thread on every rx queue" },
	{ "xsk-mode", 0, HC_OPT_ENUM, HC_CFG_OFF(struct xsk_cfg, mode), NULL,
	  "AF_XDP zero-copy, copy, or what the driver gives (default auto)",
	  HC_CHOICES("auto", "copy", "zerocopy") },
	{ "busy-poll", 0, HC_OPT_FLAG, HC_CFG_OFF(struct xsk_cfg, busy_poll),
	  NULL, "busy-poll the queue instead of sleeping in poll()" },
	{}
};

const struct hc_hook hc_hook_xsk = {
	.name = "xsk",
	.help = "AF_XDP: native or generic XDP into sockets, the logic in userspace",
	.opts = xsk_opts,
	.modes = HC_XDP_MODES,
	.mode = hc_xdp_modes,
	.check = xsk_check,
	.caps = xsk_caps,
	.load = xsk_load,
	.attach = xsk_attach,
	.detach = xsk_detach,
	.attached = hc_xdp_attached,
	.attach_name = hc_xdp_mode_name,
	.attach_via = hc_xdp_attach_via,
	.read = xsk_read,
	.report = xsk_report,
	.thread = XSK_THREAD,
	.rows = (const struct hc_hook_row[]){
		{ "xsk-l4", "", .driver = true,
		  .path = "xdp_do_redirect __xsk_map_redirect|__xsk_rcv|xsk_rcv|xsk_generic_rcv",
		  .drop_path = "__netif_receive_skb_core" },
		{} },
};
