// SPDX-License-Identifier: GPL-2.0
/* Socket filters: a UDP socket bound to a port, or an AF_PACKET tap. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "sock.h"
#include "sock.skel.h"

enum { HC_SOCK_UDP, HC_SOCK_PACKET };

/* The socket hook's options: the UDP socket's, then which socket. */
struct sock_cfg {
	struct hc_udp_cfg udp;
	int sock;
};
HC_CFG_FITS(struct sock_cfg);

static bool udp(const struct hc_run *r)
{
	return HC_CFG(r, struct sock_cfg)->sock == HC_SOCK_UDP;
}

static __u32 port(const struct hc_run *r)
{
	return HC_CFG(r, struct hc_udp_cfg)->port;
}

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* r->state: its socket (first, as the cgroup hook's) and skeleton. */
struct sock_state {
	struct hc_sock_state sock;
	struct sock_bpf *skel;
};

static void state_free(void *p)
{
	struct sock_state *st = p;

	sock_bpf__destroy(st->skel);
	free(st);
}

static int sock_load(struct hc_run *r)
{
	struct sock_state *st = hc_state_new(r, sizeof(*st), state_free);
	const char *prog =
		udp(r) ? "hc_sock_net" : "hc_sock_mac";
	struct sock_bpf *s;

	if (!st)
		return -ENOMEM;
	st->sock.fd = -1;
	s = st->skel = sock_bpf__open_opts(hc_prog_open_opts());
	if (!s)
		return -errno;
	s->rodata->hc_conf = r->conf;
	return hc_prog_load(r, s->skeleton, r->bare ? "hc_sock_bare" : prog);
}

/* r's socket, with room to queue what comes while the loop sleeps. */
static int sock_new(struct hc_run *r, int domain, int type)
{
	struct hc_sock_state *k = r->state;
	int rcvbuf = 4 << 20;

	k->fd = socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (k->fd < 0)
		return -errno;
	setsockopt(k->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	return k->fd;
}

int hc_udp_open(struct hc_run *r, int filter_fd)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port(r)) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port(r)) };
	struct sockaddr *addr = (struct sockaddr *)&a6;
	socklen_t alen = sizeof(a6);
	int fd, zero = 0;

	/* One dual-stack socket sees IPv4 and IPv6 alike. */
	fd = sock_new(r, AF_INET6, SOCK_DGRAM);
	if (fd == -EAFNOSUPPORT) {
		fd = sock_new(r, AF_INET, SOCK_DGRAM);
		addr = (struct sockaddr *)&a4;
		alen = sizeof(a4);
	}
	if (fd < 0)
		return fd;
	if (addr->sa_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, r->dev, strlen(r->dev)))
		return -errno;
	/* The filter goes on before bind so that no datagram escapes it. */
	if (filter_fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF,
					 &filter_fd, sizeof(filter_fd)))
		return -errno;
	if (bind(fd, addr, alen) < 0) {
		if (errno == EADDRINUSE)
			hc_err_set(&r->err, "UDP port %u is in use", port(r));
		return -errno;
	}
	return 0;
}

static int packet_open(struct hc_run *r)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = r->ifindex };
	int one = 1;
	int fd;

	/* Protocol 0 receives nothing until bind, which comes last. */
	fd = sock_new(r, AF_PACKET, SOCK_RAW);
	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &r->prog_fd,
		       sizeof(r->prog_fd)))
		return -errno;
	/* Ingress only: our own transmissions are not what is measured. */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)))
		return -errno;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	return 0;
}

static int sock_attach(struct hc_run *r)
{
	return hc_fault(&r->err, "socket") ?:
		       (udp(r) ? hc_udp_open(r, r->prog_fd) :
						 packet_open(r));
}

void hc_sock_close(struct hc_run *r)
{
	struct hc_sock_state *k = r->state;

	if (k && k->fd >= 0)
		close(k->fd);
	if (k)
		k->fd = -1;
}

static int sock_detach(struct hc_run *r)
{
	hc_sock_close(r);
	return 0;
}

/* Reads and drops what the filter passed, so the queue never fills. */
int hc_sock_drain(struct hc_run *r)
{
	const struct hc_sock_state *k = r->state;
	char buf[64];

	while (recv(k->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		;
	return k->fd;
}

/* A socket filter keeps that many bytes of the packet: none is a drop. */
__u32 hc_sock_verdict(int retval)
{
	return retval == 0 ? HC_DROP : HC_PASS;
}

static const char *sock_attach_via(const struct hc_run *r)
{
	return "socket"; /* SO_ATTACH_BPF */
}

static const char *sock_attach_name(const struct hc_run *r)
{
	return udp(r) ? "udp" : "packet";
}

/* A UDP port below the namespace's sysctl is privileged. */
__u64 hc_udp_caps(const struct hc_run *r)
{
	FILE *f;
	int start = 1024;

	f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "re");
	if (f && fscanf(f, "%d", &start) != 1)
		start = 1024;
	if (f)
		fclose(f);
	return (int)port(r) < start ? 1ULL << CAP_NET_BIND_SERVICE : 0;
}

/* A packet socket is raw. */
static __u64 sock_caps(const struct hc_run *r)
{
	return udp(r) ? hc_udp_caps(r) : 1ULL << CAP_NET_RAW;
}

/* gen's defaults are not the socket's address: what it needs, and how. */
void hc_udp_idle_hint(const struct hc_run *r, double secs, char *buf,
		      size_t size)
{
	struct ifaddrs *ifa, *i;
	char ip[INET_ADDRSTRLEN] = "", mac[18];
	__u8 m[6] = {};

	hc_dev_mac(r->dev, m);
	hc_mac_str(m, mac, sizeof(mac));
	if (!getifaddrs(&ifa)) {
		for (i = ifa; i && !ip[0]; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    !strcmp(i->ifa_name, r->dev))
				inet_ntop(AF_INET,
					  &((struct sockaddr_in *)i->ifa_addr)
						   ->sin_addr,
					  ip, sizeof(ip));
		freeifaddrs(ifa);
	}
	snprintf(buf, size,
		 "nothing reached the UDP socket on %s in %g s: it sees only frames to %s, %s, UDP port %u: hookcmp gen PEER --dst-mac %s --dst %s --dport %u (PEER: the device at the other end)",
		 r->dev, secs, mac,
		 ip[0] ? ip : "an address of its own (it has none)", port(r),
		 mac, ip[0] ? ip : "ADDR", port(r));
}

static void sock_idle_hint(const struct hc_run *r, double secs, char *buf,
			   size_t size)
{
	if (udp(r))
		hc_udp_idle_hint(r, secs, buf, size);
	else
		snprintf(buf, size,
			 "nothing reached %s in %g s: an AF_PACKET socket sees every frame the device receives, so none came",
			 r->dev, secs);
}

static unsigned int sock_modes(const struct hc_run *r)
{
	return 1u << HC_CFG(r, struct sock_cfg)->sock;
}

static const struct hc_opt sock_opts[] = {
	{ "socket", 0, HC_OPT_ENUM, HC_CFG_OFF(struct sock_cfg, sock), NULL,
	  "socket for the socket hook (default udp)",
	  HC_CHOICES("udp", "packet") },
	HC_UDP_PORT_OPT(1),
	{}
};

/* The UDP socket sees only what is addressed to its device. */
static const struct hc_hook_row sock_rows[] = {
	{ "socket-udp", "--socket udp",
	  HC_ROW_EVERY | HC_ROW_BARE | HC_ROW_LOCAL,
	  .path = "__udp4_lib_rcv|udp_rcv udp_queue_rcv_skb|udp_unicast_rcv_skb sk_filter_trim_cap bpf_prog_hc_sock*" },
	{ "socket-packet", "--socket packet", HC_ROW_EVERY,
	  .path = "packet_rcv|tpacket_rcv|packet_rcv_fanout bpf_prog_hc_sock*" },
	{}
};

const struct hc_hook hc_hook_socket = {
	.name = "socket",
	.help = "a socket filter: on a UDP socket bound to --port, or AF_PACKET",
	.opts = sock_opts,
	.modes = HC_CHOICES("--socket udp", "--socket packet"),
	.mode = sock_modes,
	.load = sock_load,
	.attach = sock_attach,
	.detach = sock_detach,
	.attach_name = sock_attach_name,
	.attach_via = sock_attach_via,
	.verdict = hc_sock_verdict,
	.caps = sock_caps,
	.drain = hc_sock_drain,
	.idle_hint = sock_idle_hint,
	.variants = (const struct hc_hook_row[]){
		{ "socket-packet", "--socket packet" },
		{ "socket-udp", "--socket udp" },
		{} },
	.rows = sock_rows,
};
