// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink over libmnl. Every request asks for an ack with extended ack
 * TLVs, so the kernel's own sentence reaches the user: libmnl's default
 * error callback would keep only errno.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <net/if.h>
#include <linux/genetlink.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_gact.h>
#include <linux/veth.h>
#include <arpa/inet.h>
/* after netinet/in.h, whose struct in_addr linux/in.h would redefine */
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include "nl.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define HC_NL_BUF 32768

struct hc_nl {
	struct mnl_socket *sk;
	int bus; /* NETLINK_ROUTE, or NETLINK_GENERIC */
	__u32 portid;
	__u32 seq;
	char buf[HC_NL_BUF];
};

static struct hc_nl *nl_open(int bus, struct hc_err *err)
{
	struct hc_nl *nl = calloc(1, sizeof(*nl));
	int one = 1;

	if (!nl)
		return NULL;
	nl->bus = bus;
	nl->sk = mnl_socket_open(bus);
	if (!nl->sk || mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		hc_err_set(err, "cannot open %s socket",
			   bus == NETLINK_ROUTE	  ? "rtnetlink" :
			   bus == NETLINK_GENERIC ? "genetlink" :
						    "nfnetlink");
		hc_nl_close(nl);
		errno = e;
		return NULL;
	}
	/* Best effort: old kernels simply give no extack text. */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = time(NULL);
	return nl;
}

struct hc_nl *hc_nl_open(struct hc_err *err)
{
	return nl_open(NETLINK_ROUTE, err);
}

void hc_nl_close(struct hc_nl *nl)
{
	if (!nl)
		return;
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl);
}

/* The kernel sends -errno; anything else is a broken message. */
static int errno_of(int error)
{
	return error < 0 && error >= -4095 ? -error : EPROTO;
}

static int extack_attr_cb(const struct nlattr *a, void *data)
{
	const char **msg = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		*msg = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

struct talk_ctx {
	struct hc_err *err;
};

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct talk_ctx *ctx = data;
	const char *msg = NULL;
	unsigned int off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
		if (mnl_nlmsg_size(off) < nlh->nlmsg_len)
			mnl_attr_parse_payload((char *)e + off,
					       nlh->nlmsg_len -
						       mnl_nlmsg_size(off),
					       extack_attr_cb, &msg);
	}
	if (!e->error)
		return MNL_CB_STOP;
	if (msg && ctx->err)
		snprintf(ctx->err->kernel, sizeof(ctx->err->kernel), "%s", msg);
	errno = errno_of(e->error);
	return MNL_CB_ERROR;
}

/* With a control array, libmnl leaves NLMSG_DONE to us. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	const int *e = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(*e) && *e < 0) {
		errno = errno_of(*e);
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

/*
 * libmnl 1.0.4 compares nlmsg_len as an int: a length over 2 GiB passes
 * as negative and sends it reading far past the buffer (found by
 * tests/fuzz/fuzz_netlink.c). Every length is checked here first.
 */
static bool replies_sane(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;

	while (len >= sizeof(*nlh)) {
		size_t step = MNL_ALIGN(nlh->nlmsg_len);

		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
			return false;
		if (step >= len)
			break;
		len -= step;
		nlh = (const void *)((const char *)nlh + step);
	}
	return true;
}

/*
 * Runs one received buffer through cb (replies) and the control callbacks
 * (acks, errors, done): MNL_CB_OK for more to come, MNL_CB_STOP when
 * done, MNL_CB_ERROR with errno set. The fuzzer feeds it too.
 */
static int parse_replies(const void *buf, size_t len, __u32 seq, __u32 portid,
			 mnl_cb_t cb, void *data, struct hc_err *err)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb, [NLMSG_DONE] = done_cb
	};
	struct talk_ctx ctx = { .err = err };

	if (!replies_sane(buf, len)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	/* Replies come to cb; acks and errors to error_cb. */
	return mnl_cb_run2(buf, len, seq, portid, cb, cb ? data : &ctx, ctl,
			   NLMSG_MIN_TYPE);
}

/* Sends nlh and runs cb on each reply; returns 0 or -errno. */
static int talk(struct hc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
		struct hc_err *err)
{
	__u32 seq = ++nl->seq;
	int ret;

	/*
	 * A dump ends with NLMSG_DONE; an extra ack would go unread. The test
	 * is on the type too: NLM_F_EXCL shares its bit with NLM_F_MATCH.
	 */
	bool dump = (nl->bus != NETLINK_ROUTE || (nlh->nlmsg_type & 3) == 2) &&
		    (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;

	nlh->nlmsg_flags |= NLM_F_REQUEST | (dump ? 0 : NLM_F_ACK);
	nlh->nlmsg_seq = seq;
	if (err)
		err->kernel[0] = '\0';
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	do {
		/* The request is done: a signal must not lose its answer. */
		do
			ret = mnl_socket_recvfrom(nl->sk, nl->buf,
						  sizeof(nl->buf));
		while (ret < 0 && errno == EINTR);
		if (ret < 0)
			return -errno;
		ret = parse_replies(nl->buf, ret, seq, nl->portid, cb, data,
				    err);
		if (ret == MNL_CB_ERROR)
			return hc_nl_fault() ?: (errno ? -errno : -EIO);
	} while (ret > MNL_CB_STOP);
	return hc_nl_fault();
}

/*
 * mnl_cb_run2 hands the same data pointer to the control callbacks, so
 * every reply context starts with struct talk_ctx.
 */
#define REPLY_CTX struct talk_ctx talk

struct nlmsghdr *hc_nl_msg(struct hc_nl *nl, __u16 type, __u16 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	return nlh;
}

int hc_nl_ack(struct hc_nl *nl, struct nlmsghdr *nlh, struct hc_err *err)
{
	return talk(nl, nlh, NULL, NULL, err);
}

/* Replies to a caller's request: the control callbacks' context first. */
struct each_reply {
	struct talk_ctx talk;
	int (*fn)(const struct nlmsghdr *nlh, void *data);
	void *data;
	int stop;
};

static int each_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct each_reply *e = data;

	if (!e->stop)
		e->stop = e->fn(nlh, e->data);
	return MNL_CB_OK;
}

int hc_nl_each_reply(struct hc_nl *nl, struct nlmsghdr *nlh,
		     int (*fn)(const struct nlmsghdr *nlh, void *data),
		     void *data, struct hc_err *err)
{
	struct each_reply e = { .talk.err = err, .fn = fn, .data = data };
	int ret = talk(nl, nlh, each_reply_cb, &e, err);

	return ret ?: e.stop;
}

/* ---- links and XDP ---- */

struct link_query {
	REPLY_CTX;
	int ifindex;
	struct hc_link_info *info;
	int found;
	/* A dump: each link in turn, until each returns non-zero. */
	int (*each)(int ifindex, const struct hc_link_info *info, void *data);
	void *data;
	int stop;
};

static int xdp_attr_cb(const struct nlattr *a, void *data)
{
	struct hc_link_info *info = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_XDP_ATTACHED:
		info->attached = mnl_attr_get_u8(a);
		break;
	case IFLA_XDP_DRV_PROG_ID:
		info->drv_id = mnl_attr_get_u32(a);
		break;
	case IFLA_XDP_SKB_PROG_ID:
		info->skb_id = mnl_attr_get_u32(a);
		break;
	case IFLA_XDP_HW_PROG_ID:
		info->hw_id = mnl_attr_get_u32(a);
		break;
	}
	return MNL_CB_OK;
}

static int linkinfo_attr_cb(const struct nlattr *a, void *data)
{
	struct hc_link_info *info = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(info->kind, sizeof(info->kind), "%s",
			 mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct link_query *q = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_LINKINFO:
		mnl_attr_parse_nested(a, linkinfo_attr_cb, q->info);
		break;
	case IFLA_LINK_NETNSID:
		q->info->link_netns = true;
		break;
	case IFLA_XDP:
		mnl_attr_parse_nested(a, xdp_attr_cb, q->info);
		break;
	case IFLA_MTU:
		q->info->mtu = mnl_attr_get_u32(a);
		break;
	case IFLA_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(q->info->name, sizeof(q->info->name), "%s",
				 mnl_attr_get_str(a));
		break;
	case IFLA_ADDRESS:
		if (mnl_attr_get_payload_len(a) == sizeof(q->info->addr))
			memcpy(q->info->addr, mnl_attr_get_payload(a),
			       sizeof(q->info->addr));
		break;
	case IFLA_NUM_RX_QUEUES:
		q->info->num_rx_queues = mnl_attr_get_u32(a);
		break;
	case IFLA_STATS64:
		if (mnl_attr_get_payload_len(a) >= sizeof(q->info->stats))
			memcpy(&q->info->stats, mnl_attr_get_payload(a),
			       sizeof(q->info->stats));
		break;
	}
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct link_query *q = data;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    (!q->each && ifi->ifi_index != q->ifindex) || q->stop)
		return MNL_CB_OK;
	q->found = 1;
	if (q->each)
		memset(q->info, 0, sizeof(*q->info));
	q->info->flags = ifi->ifi_flags;
	mnl_attr_parse(nlh, sizeof(*ifi), link_attr_cb, q);
	if (q->each)
		q->stop = q->each(ifi->ifi_index, q->info, q->data);
	return MNL_CB_OK;
}

int hc_nl_link_each(struct hc_nl *nl,
		    int (*fn)(int ifindex, const struct hc_link_info *info,
			      void *data),
		    void *data, struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_GETLINK, NLM_F_DUMP);
	struct hc_link_info info;
	struct link_query q = {
		.talk.err = err, .info = &info, .each = fn, .data = data
	};
	struct ifinfomsg *ifi;
	int ret;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ret = talk(nl, nlh, link_cb, &q, err);
	return ret ? ret : q.stop;
}

int hc_nl_link_get(struct hc_nl *nl, int ifindex, struct hc_link_info *info,
		   struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_GETLINK, 0);
	struct link_query q = { .talk.err = err,
				.ifindex = ifindex,
				.info = info };
	struct ifinfomsg *ifi;
	int ret;

	memset(info, 0, sizeof(*info));
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ret = talk(nl, nlh, link_cb, &q, err);
	if (!ret && !q.found)
		ret = -ENODEV;
	return ret;
}

int hc_nl_xdp_set(struct hc_nl *nl, int ifindex, int fd, int expected_fd,
		  __u32 flags, struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_SETLINK, 0);
	struct ifinfomsg *ifi;
	struct nlattr *nest;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	nest = mnl_attr_nest_start(nlh, IFLA_XDP);
	mnl_attr_put_u32(nlh, IFLA_XDP_FD, fd);
	if (flags)
		mnl_attr_put_u32(nlh, IFLA_XDP_FLAGS, flags);
	if (flags & XDP_FLAGS_REPLACE)
		mnl_attr_put_u32(nlh, IFLA_XDP_EXPECTED_FD, expected_fd);
	mnl_attr_nest_end(nlh, nest);
	return talk(nl, nlh, NULL, NULL, err);
}

static struct ifinfomsg *ifi_put(struct nlmsghdr *nlh, int ifindex)
{
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return ifi;
}

/* A new link's message, its IFLA_LINKINFO left open in *info. */
static struct nlmsghdr *link_new(struct hc_nl *nl, const char *name,
				 const char *kind, struct nlattr **info)
{
	struct nlmsghdr *nlh =
		hc_nl_msg(nl, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);

	ifi_put(nlh, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	*info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, kind);
	return nlh;
}

int hc_nl_link_add(struct hc_nl *nl, const char *name, const char *kind,
		   struct hc_err *err)
{
	struct nlattr *info;
	struct nlmsghdr *nlh = link_new(nl, name, kind, &info);

	mnl_attr_nest_end(nlh, info);
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_veth_add(struct hc_nl *nl, const char *name, const char *peer,
		   int peer_ns_fd, struct hc_err *err)
{
	struct nlattr *info, *data, *pinfo;
	struct nlmsghdr *nlh = link_new(nl, name, "veth", &info);

	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	/* The peer is described as a link of its own: ifinfomsg, then attrs. */
	pinfo = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	ifi_put(nlh, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	if (peer_ns_fd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, peer_ns_fd);
	mnl_attr_nest_end(nlh, pinfo);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_link_up(struct hc_nl *nl, int ifindex, bool quiet, struct hc_err *err)
{
	struct nlmsghdr *nlh;
	struct nlattr *af, *in6;
	int ret;

	/*
	 * A message of its own, before up: set together, the kernel may bring
	 * the link up (and give it an address) before it reads the mode.
	 */
	if (quiet) {
		nlh = hc_nl_msg(nl, RTM_NEWLINK, 0);
		ifi_put(nlh, ifindex);
		af = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
		in6 = mnl_attr_nest_start(nlh, AF_INET6);
		mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE,
				IN6_ADDR_GEN_MODE_NONE);
		mnl_attr_nest_end(nlh, in6);
		mnl_attr_nest_end(nlh, af);
		ret = talk(nl, nlh, NULL, NULL, err);
		/* A kernel without IPv6 sends none of it anyway. */
		if (ret && ret != -EAFNOSUPPORT)
			return ret;
	}
	return hc_nl_link_set_up(nl, ifindex, true, err);
}

int hc_nl_link_set_up(struct hc_nl *nl, int ifindex, bool up,
		      struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = ifi_put(nlh, ifindex);

	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = IFF_UP;
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_addr_add(struct hc_nl *nl, int ifindex, int family, const void *addr,
		   __u8 prefixlen, struct hc_err *err)
{
	struct nlmsghdr *nlh =
		hc_nl_msg(nl, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	size_t len = family == AF_INET6 ? 16 : 4;

	ifa->ifa_family = family;
	ifa->ifa_prefixlen = prefixlen;
	ifa->ifa_index = ifindex;
	if (family == AF_INET6)
		ifa->ifa_flags = IFA_F_NODAD;
	mnl_attr_put(nlh, IFA_LOCAL, len, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, len, addr);
	return talk(nl, nlh, NULL, NULL, err);
}

struct nlmsghdr *hc_nl_route_msg(struct hc_nl *nl, __u16 type,
				 const struct in_addr *dst, __u8 prefixlen,
				 int oif)
{
	struct nlmsghdr *nlh = hc_nl_msg(
		nl, type, type == RTM_NEWROUTE ? NLM_F_CREATE | NLM_F_EXCL : 0);
	struct rtmsg *rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));

	rt->rtm_family = AF_INET;
	rt->rtm_dst_len = prefixlen;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_STATIC;
	rt->rtm_scope = RT_SCOPE_LINK;
	rt->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_DST, sizeof(*dst), dst);
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	return nlh;
}

int hc_nl_route_add(struct hc_nl *nl, const struct in_addr *dst, __u8 prefixlen,
		    int oif, struct hc_err *err)
{
	return talk(nl, hc_nl_route_msg(nl, RTM_NEWROUTE, dst, prefixlen, oif),
		    NULL, NULL, err);
}

int hc_nl_neigh_add(struct hc_nl *nl, int ifindex, const struct in_addr *ip,
		    const __u8 *mac, struct hc_err *err)
{
	struct nlmsghdr *nlh =
		hc_nl_msg(nl, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_EXCL);
	struct ndmsg *nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));

	nd->ndm_family = AF_INET;
	nd->ndm_ifindex = ifindex;
	nd->ndm_state = NUD_PERMANENT;
	mnl_attr_put(nlh, NDA_DST, sizeof(*ip), ip);
	mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	return talk(nl, nlh, NULL, NULL, err);
}

/* ---- netdev genetlink ---- */

/* Linux 6.3 and 6.9 uapi (linux/netdev.h); Debian 12's headers predate it. */
#define HC_NETDEV_CMD_DEV_GET 1
#define HC_NETDEV_CMD_NAPI_GET 11
#define HC_NETDEV_A_DEV_IFINDEX 1
#define HC_NETDEV_A_DEV_XDP_FEATURES 3
#define HC_NETDEV_A_NAPI_IFINDEX 1
#define HC_NETDEV_A_NAPI_PID 4

struct genl_query {
	REPLY_CTX;
	__u16 attr; /* the attribute wanted */
	__u64 value;
	bool found;
	__u32 *all; /* in a dump, every value of it, up to max */
	int max, n;
};

static int genl_attr_cb(const struct nlattr *a, void *data)
{
	struct genl_query *q = data;

	if (mnl_attr_get_type(a) != q->attr)
		return MNL_CB_OK;
	if (mnl_attr_get_payload_len(a) == sizeof(__u16))
		q->value = mnl_attr_get_u16(a);
	else if (mnl_attr_get_payload_len(a) == sizeof(__u32))
		q->value = mnl_attr_get_u32(a);
	else if (mnl_attr_get_payload_len(a) == sizeof(__u64))
		q->value = mnl_attr_get_u64(a);
	else
		return MNL_CB_OK;
	q->found = true;
	if (q->all && q->n < q->max)
		q->all[q->n++] = q->value;
	return MNL_CB_OK;
}

static int genl_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_len >= mnl_nlmsg_size(GENL_HDRLEN))
		mnl_attr_parse(nlh, GENL_HDRLEN, genl_attr_cb, data);
	return MNL_CB_OK;
}

static struct nlmsghdr *genl_msg(struct hc_nl *nl, __u16 family, __u8 cmd)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, family, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

/* A generic netlink socket and the id of the netdev family in q->value. */
static struct hc_nl *netdev_open(struct genl_query *q, struct hc_err *err)
{
	struct hc_nl *nl = nl_open(NETLINK_GENERIC, err);
	struct nlmsghdr *nlh;
	int ret;

	if (!nl)
		return NULL;
	nlh = genl_msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "netdev");
	q->attr = CTRL_ATTR_FAMILY_ID;
	ret = talk(nl, nlh, genl_cb, q, err);
	if (!ret && !q->found)
		ret = -ENOENT;
	if (ret) {
		hc_nl_close(nl);
		errno = -ret;
		return NULL;
	}
	q->found = false;
	return nl;
}

int hc_nl_xdp_features(int ifindex, __u64 *features, struct hc_err *err)
{
	struct genl_query q = { .talk.err = err };
	struct hc_nl *nl = netdev_open(&q, err);
	struct nlmsghdr *nlh;
	int ret;

	if (!nl)
		return -errno;
	nlh = genl_msg(nl, q.value, HC_NETDEV_CMD_DEV_GET);
	mnl_attr_put_u32(nlh, HC_NETDEV_A_DEV_IFINDEX, ifindex);
	q.attr = HC_NETDEV_A_DEV_XDP_FEATURES;
	ret = talk(nl, nlh, genl_cb, &q, err);
	if (!ret && !q.found)
		ret = -ENOENT;
	*features = q.value;
	hc_nl_close(nl);
	return ret;
}

int hc_nl_napi_threads(int ifindex, pid_t *pids, int max, struct hc_err *err)
{
	struct genl_query q = { .talk.err = err };
	struct hc_nl *nl = netdev_open(&q, err);
	struct nlmsghdr *nlh;
	__u32 all[64];
	int ret, i;

	if (!nl)
		return -errno;
	nlh = genl_msg(nl, q.value, HC_NETDEV_CMD_NAPI_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	mnl_attr_put_u32(nlh, HC_NETDEV_A_NAPI_IFINDEX, ifindex);
	q.attr = HC_NETDEV_A_NAPI_PID;
	q.all = all;
	q.max = max < 64 ? max : 64;
	ret = talk(nl, nlh, genl_cb, &q, err);
	hc_nl_close(nl);
	for (i = 0; i < q.n; i++)
		pids[i] = all[i];
	return ret ?: q.n;
}

struct nft_query {
	REPLY_CTX;
	int (*fn)(int family, const char *table, void *data);
	void *data;
};

static int nft_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == NFTA_TABLE_NAME &&
	    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		*(const char **)data = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

static int nft_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
	struct nft_query *q = data;
	const char *name = NULL;

	if (NFNL_MSG_TYPE(nlh->nlmsg_type) != NFT_MSG_NEWTABLE)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*g), nft_attr_cb, &name);
	return name && q->fn(g->nfgen_family, name, q->data) ? MNL_CB_STOP :
							       MNL_CB_OK;
}

int hc_nl_nft_tables(int (*fn)(int family, const char *table, void *data),
		     void *data, struct hc_err *err)
{
	struct nft_query q = { .talk.err = err, .fn = fn, .data = data };
	struct hc_nl *nl = nl_open(NETLINK_NETFILTER, err);
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;
	int ret;

	if (!nl)
		return -errno;
	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETTABLE;
	nlh->nlmsg_flags = NLM_F_DUMP;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = NFPROTO_UNSPEC;
	g->version = NFNETLINK_V0;
	ret = talk(nl, nlh, nft_table_cb, &q, err);
	hc_nl_close(nl);
	return ret;
}

int hc_nl_link_del(struct hc_nl *nl, int ifindex, struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_DELLINK, 0);

	ifi_put(nlh, ifindex);
	return talk(nl, nlh, NULL, NULL, err);
}

struct addr_query {
	REPLY_CTX;
	int ifindex;
	struct in_addr *addr;
	bool found;
};

static int addr_attr_cb(const struct nlattr *a, void *data)
{
	struct addr_query *q = data;

	if (mnl_attr_get_type(a) == IFA_LOCAL && !q->found &&
	    mnl_attr_get_payload_len(a) == sizeof(*q->addr)) {
		memcpy(q->addr, mnl_attr_get_payload(a), sizeof(*q->addr));
		q->found = true;
	}
	return MNL_CB_OK;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct addr_query *q = data;

	if (nlh->nlmsg_type == RTM_NEWADDR &&
	    (int)ifa->ifa_index == q->ifindex && ifa->ifa_family == AF_INET &&
	    ifa->ifa_scope == RT_SCOPE_UNIVERSE)
		mnl_attr_parse(nlh, sizeof(*ifa), addr_attr_cb, q);
	return MNL_CB_OK;
}

int hc_nl_addr4_get(struct hc_nl *nl, int ifindex, struct in_addr *addr,
		    struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct addr_query q = { .talk.err = err,
				.ifindex = ifindex,
				.addr = addr };
	int ret;

	ifa->ifa_family = AF_INET;
	ret = talk(nl, nlh, addr_cb, &q, err);
	return ret ?: q.found ? 0 : -ENOENT;
}

/* ---- qdiscs ---- */

struct qdisc_query {
	REPLY_CTX;
	int ifindex;
	char *kind;
	size_t size;
};

static int kind_attr_cb(const struct nlattr *a, void *data)
{
	const char **kind = data;

	if (mnl_attr_get_type(a) == TCA_KIND &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		*kind = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

static int qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct qdisc_query *q = data;
	const char *kind = NULL;

	if (t->tcm_ifindex != q->ifindex || t->tcm_parent != TC_H_INGRESS)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*t), kind_attr_cb, &kind);
	if (kind)
		snprintf(q->kind, q->size, "%s", kind);
	return MNL_CB_OK;
}

static struct nlmsghdr *tc_msg(struct hc_nl *nl, __u16 type, __u16 flags,
			       int ifindex, __u32 parent, __u32 handle,
			       __u32 info)
{
	struct nlmsghdr *nlh = hc_nl_msg(nl, type, flags);
	struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_parent = parent;
	t->tcm_handle = handle;
	t->tcm_info = info;
	return nlh;
}

int hc_nl_ingress_qdisc(struct hc_nl *nl, int ifindex, char *kind, size_t size,
			struct hc_err *err)
{
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_GETQDISC, NLM_F_DUMP, ifindex, 0, 0, 0);
	struct qdisc_query q = {
		.talk.err = err, .ifindex = ifindex, .kind = kind, .size = size
	};

	kind[0] = '\0';
	return talk(nl, nlh, qdisc_cb, &q, err);
}

/* clsact and ingress both live at ffff: under the ingress parent. */
int hc_nl_qdisc_add(struct hc_nl *nl, int ifindex, const char *kind,
		    struct hc_err *err)
{
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, ifindex,
		       TC_H_INGRESS, TC_H_MAKE(TC_H_INGRESS, 0), 0);

	mnl_attr_put_strz(nlh, TCA_KIND, kind);
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_qdisc_del(struct hc_nl *nl, int ifindex, const char *kind,
		    struct hc_err *err)
{
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_DELQDISC, 0, ifindex, TC_H_INGRESS,
		       TC_H_MAKE(TC_H_INGRESS, 0), 0);

	mnl_attr_put_strz(nlh, TCA_KIND, kind);
	return talk(nl, nlh, NULL, NULL, err);
}

/* ---- filters ---- */

static __u32 filter_info(const struct hc_filter *f)
{
	return TC_H_MAKE((__u32)f->prio << 16,
			 htons(f->protocol ? f->protocol : ETH_P_ALL));
}

int hc_nl_filter_add_bpf(struct hc_nl *nl, const struct hc_filter *f,
			 int prog_fd, const char *name, struct hc_err *err)
{
	/* EXCL: a prio/handle that is taken fails instead of replacing. */
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL,
		       f->ifindex, f->parent, f->handle, filter_info(f));
	struct nlattr *nest;

	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_BPF_FD, prog_fd);
	mnl_attr_put_strz(nlh, TCA_BPF_NAME, name);
	mnl_attr_put_u32(nlh, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
	mnl_attr_nest_end(nlh, nest);
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_filter_add_u32(struct hc_nl *nl, const struct hc_filter *f, __u32 val,
			 __u32 mask, int off, __u32 classid, struct hc_err *err)
{
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL,
		       f->ifindex, f->parent, f->handle, filter_info(f));
	struct {
		struct tc_u32_sel sel;
		struct tc_u32_key key;
	} s = {
		/* A classid ends the walk, as tc sets it with one. */
		.sel = { .flags = TC_U32_TERMINAL, .nkeys = 1 },
		.key = { .mask = htonl(mask), .val = htonl(val), .off = off },
	};
	struct nlattr *nest;

	mnl_attr_put_strz(nlh, TCA_KIND, "u32");
	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_U32_CLASSID, classid);
	mnl_attr_put(nlh, TCA_U32_SEL, sizeof(s), &s);
	mnl_attr_nest_end(nlh, nest);
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_filter_add_flower(struct hc_nl *nl, const struct hc_filter *f,
			    __be32 src, const void *cookie, int cookie_len,
			    struct hc_err *err)
{
	struct hc_filter ip = { .prio = f->prio, .protocol = ETH_P_IP };
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL,
		       f->ifindex, f->parent, f->handle, filter_info(&ip));
	struct tc_gact drop = { .action = TC_ACT_SHOT };
	struct nlattr *opts, *acts, *act, *aopts;

	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	/* tc puts the protocol here too: flower matches it as a key. */
	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_ETH_TYPE, htons(ETH_P_IP));
	mnl_attr_put_u32(nlh, TCA_FLOWER_KEY_IPV4_SRC, src);
	mnl_attr_put_u32(nlh, TCA_FLOWER_KEY_IPV4_SRC_MASK, 0xffffffff);
	mnl_attr_put_u32(nlh, TCA_FLOWER_FLAGS, TCA_CLS_FLAGS_SKIP_HW);
	acts = mnl_attr_nest_start(nlh, TCA_FLOWER_ACT);
	act = mnl_attr_nest_start(nlh, 1); /* the first action */
	mnl_attr_put_strz(nlh, TCA_ACT_KIND, "gact");
	mnl_attr_put(nlh, TCA_ACT_COOKIE, cookie_len, cookie);
	aopts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	mnl_attr_put(nlh, TCA_GACT_PARMS, sizeof(drop), &drop);
	mnl_attr_nest_end(nlh, aopts);
	mnl_attr_nest_end(nlh, act);
	mnl_attr_nest_end(nlh, acts);
	mnl_attr_nest_end(nlh, opts);
	return talk(nl, nlh, NULL, NULL, err);
}

int hc_nl_filter_del(struct hc_nl *nl, const struct hc_filter *f,
		     struct hc_err *err)
{
	/* A zero handle would delete every filter at this prio. */
	struct nlmsghdr *nlh;

	if (!f->handle)
		return -EINVAL;
	nlh = tc_msg(nl, RTM_DELTFILTER, 0, f->ifindex, f->parent, f->handle,
		     TC_H_MAKE((__u32)f->prio << 16,
			       htons(f->protocol ? f->protocol : ETH_P_ALL)));
	mnl_attr_put_strz(nlh, TCA_KIND, f->kind ? f->kind : "bpf");
	if (f->chain)
		mnl_attr_put_u32(nlh, TCA_CHAIN, f->chain);
	return talk(nl, nlh, NULL, NULL, err);
}

struct filter_query {
	REPLY_CTX;
	struct hc_filter_info info;
	int (*each)(const struct hc_filter_info *info, void *data);
	void *data;
	int stop;
};

static int u32_opt_cb(const struct nlattr *a, void *data)
{
	struct hc_filter_info *f = data;
	const struct tc_u32_sel *sel;

	switch (mnl_attr_get_type(a)) {
	case TCA_U32_CLASSID:
		if (mnl_attr_get_payload_len(a) >= sizeof(__u32))
			f->classid = mnl_attr_get_u32(a);
		break;
	case TCA_U32_SEL:
		sel = mnl_attr_get_payload(a);
		if (mnl_attr_get_payload_len(a) <
		    sizeof(*sel) + sizeof(sel->keys[0]))
			break;
		f->nkeys = sel->nkeys;
		f->key = sel->keys[0];
		break;
	}
	return MNL_CB_OK;
}

static int bpf_opt_cb(const struct nlattr *a, void *data)
{
	struct hc_filter_info *f = data;

	if (mnl_attr_get_type(a) == TCA_BPF_ID &&
	    mnl_attr_get_payload_len(a) >= sizeof(__u32))
		f->prog_id = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int act_attr_cb(const struct nlattr *a, void *data)
{
	struct hc_filter_info *f = data;
	int len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case TCA_ACT_KIND:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(f->act, sizeof(f->act), "%s",
				 mnl_attr_get_str(a));
		break;
	case TCA_ACT_COOKIE:
		if (len <= (int)sizeof(f->cookie)) {
			memcpy(f->cookie, mnl_attr_get_payload(a), len);
			f->cookie_len = len;
		}
		break;
	}
	return MNL_CB_OK;
}

/* Each action, nested by its order: the first one's kind and cookie. */
static int acts_cb(const struct nlattr *a, void *data)
{
	struct hc_filter_info *f = data;

	if (!f->nacts++)
		mnl_attr_parse_nested(a, act_attr_cb, f);
	return MNL_CB_OK;
}

static int flower_opt_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == TCA_FLOWER_ACT)
		mnl_attr_parse_nested(a, acts_cb, data);
	return MNL_CB_OK;
}

/* Each kind's options: the parts of them hookcmp reads. */
static mnl_attr_cb_t opt_cb(const char *kind)
{
	if (!strcmp(kind, "u32"))
		return u32_opt_cb;
	if (!strcmp(kind, "flower"))
		return flower_opt_cb;
	return bpf_opt_cb;
}

static int filter_attr_cb(const struct nlattr *a, void *data)
{
	struct hc_filter_info *f = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_KIND:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(f->kind, sizeof(f->kind), "%s",
				 mnl_attr_get_str(a));
		break;
	case TCA_CHAIN:
		if (mnl_attr_get_payload_len(a) >= sizeof(__u32))
			f->chain = mnl_attr_get_u32(a);
		break;
	case TCA_OPTIONS:
		/* The kind comes first in the kernel's messages. */
		mnl_attr_parse_nested(a, opt_cb(f->kind), f);
		break;
	}
	return MNL_CB_OK;
}

static int filter_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct filter_query *q = data;
	struct hc_filter_info *f = &q->info;

	/* A dump lists each prio once without a handle, then its filters. */
	if (nlh->nlmsg_type != RTM_NEWTFILTER || !t->tcm_handle || q->stop)
		return MNL_CB_OK;
	memset(f, 0, sizeof(*f));
	f->ifindex = t->tcm_ifindex;
	f->parent = t->tcm_parent;
	f->handle = t->tcm_handle;
	f->prio = TC_H_MAJ(t->tcm_info) >> 16;
	f->protocol = ntohs(TC_H_MIN(t->tcm_info));
	mnl_attr_parse(nlh, sizeof(*t), filter_attr_cb, f);
	if (q->each)
		q->stop = q->each(f, q->data);
	return MNL_CB_OK;
}

int hc_nl_filter_each(struct hc_nl *nl, int ifindex, __u32 parent,
		      int (*fn)(const struct hc_filter_info *info, void *data),
		      void *data, struct hc_err *err)
{
	struct nlmsghdr *nlh =
		tc_msg(nl, RTM_GETTFILTER, NLM_F_DUMP, ifindex, parent, 0, 0);
	struct filter_query q = { .talk.err = err, .each = fn, .data = data };
	int ret = talk(nl, nlh, filter_cb, &q, err);

	return ret ? ret : q.stop;
}

/* ---- routes ---- */

struct route_query {
	REPLY_CTX;
	int ifindex;
	bool found;
};

static int route_attr_cb(const struct nlattr *a, void *data)
{
	struct route_query *q = data;
	const struct rtnexthop *nh;
	int len;

	switch (mnl_attr_get_type(a)) {
	case RTA_OIF:
		if ((int)mnl_attr_get_u32(a) == q->ifindex)
			q->found = true;
		break;
	case RTA_MULTIPATH:
		nh = mnl_attr_get_payload(a);
		len = mnl_attr_get_payload_len(a);
		while (len >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) &&
		       nh->rtnh_len <= len) {
			if (nh->rtnh_ifindex == q->ifindex)
				q->found = true;
			len -= RTNH_ALIGN(nh->rtnh_len);
			nh = RTNH_NEXT(nh);
		}
		break;
	}
	return MNL_CB_OK;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rt = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type == RTM_NEWROUTE && !rt->rtm_dst_len &&
	    rt->rtm_type == RTN_UNICAST)
		mnl_attr_parse(nlh, sizeof(*rt), route_attr_cb, data);
	return MNL_CB_OK;
}

int hc_nl_default_route_via(struct hc_nl *nl, int ifindex, bool *found,
			    struct hc_err *err)
{
	static const __u8 families[] = { AF_INET, AF_INET6 };
	struct route_query q = { .talk.err = err, .ifindex = ifindex };
	unsigned int i;
	int ret = 0;

	for (i = 0; i < sizeof(families) && !ret; i++) {
		struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_GETROUTE, NLM_F_DUMP);
		struct rtmsg *rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));

		rt->rtm_family = families[i];
		ret = talk(nl, nlh, route_cb, &q, err);
	}
	*found = q.found;
	return ret;
}
