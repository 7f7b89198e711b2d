/* SPDX-License-Identifier: GPL-2.0 */
/*
 * All of hookcmp's rtnetlink: XDP on links, qdiscs and tc filters, and the
 * links and addresses of bench's topology.
 */
#ifndef HC_NL_H
#define HC_NL_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/pkt_cls.h>
#include "hookcmp.h"

struct hc_nl;
struct nlmsghdr;

struct hc_nl *hc_nl_open(struct hc_err *err);
void hc_nl_close(struct hc_nl *nl);

/*
 * For a request of a hook's own (libmnl's mnl_attr_put* fill it): a
 * message in nl's buffer, then sent and its ack awaited, the kernel's
 * words (extack) in err->kernel; 0 or -errno.
 */
struct nlmsghdr *hc_nl_msg(struct hc_nl *nl, __u16 type, __u16 flags);
int hc_nl_ack(struct hc_nl *nl, struct nlmsghdr *nlh, struct hc_err *err);
/*
 * The same for a request with replies (a dump, a get): fn sees each,
 * until it returns non-zero; returns that, 0, or -errno.
 */
int hc_nl_each_reply(struct hc_nl *nl, struct nlmsghdr *nlh,
		     int (*fn)(const struct nlmsghdr *nlh, void *data),
		     void *data, struct hc_err *err);

struct hc_link_info {
	char name[IF_NAMESIZE];
	__u8 addr[6]; /* its MAC address, zeroes if it has none */
	char kind[16]; /* IFLA_INFO_KIND: "veth", "netkit"..., or "" */
	__u32 flags; /* IFF_* */
	bool link_netns; /* its link (a veth's peer) is in another namespace */
	__u8 attached; /* XDP_ATTACHED_* */
	__u32 drv_id;
	__u32 skb_id;
	__u32 hw_id;
	__u32 mtu;
	__u32 num_rx_queues;
	struct rtnl_link_stats64 stats;
};

/* Kind, flags, XDP state, MTU, rx queues and counters of a device. */
int hc_nl_link_get(struct hc_nl *nl, int ifindex, struct hc_link_info *info,
		   struct hc_err *err);
/* Each link of the namespace, until fn returns non-zero; returns that. */
int hc_nl_link_each(struct hc_nl *nl,
		    int (*fn)(int ifindex, const struct hc_link_info *info,
			      void *data),
		    void *data, struct hc_err *err);
/* Linux 6.3+ netdev genetlink: what XDP a device supports now. */
#define HC_XDP_ACT_NDO_XMIT 4
int hc_nl_xdp_features(int ifindex, __u64 *features, struct hc_err *err);
/* fd -1 detaches; with XDP_FLAGS_REPLACE only if expected_fd is attached. */
int hc_nl_xdp_set(struct hc_nl *nl, int ifindex, int fd, int expected_fd,
		  __u32 flags, struct hc_err *err);

/* A link of KIND with no options of its own (ifb, dummy). */
int hc_nl_link_add(struct hc_nl *nl, const char *name, const char *kind,
		   struct hc_err *err);
/*
 * A veth pair: name in this socket's namespace, peer in the namespace
 * peer_ns_fd refers to (-1: here too).
 */
int hc_nl_veth_add(struct hc_nl *nl, const char *name, const char *peer,
		   int peer_ns_fd, struct hc_err *err);
/*
 * Brings a link up. quiet: no IPv6 link-local address first, so nothing
 * but the caller's frames (no router solicitations, no DAD) crosses it.
 */
int hc_nl_link_up(struct hc_nl *nl, int ifindex, bool quiet,
		  struct hc_err *err);
/* The link up or down, nothing else. */
int hc_nl_link_set_up(struct hc_nl *nl, int ifindex, bool up,
		      struct hc_err *err);
int hc_nl_link_del(struct hc_nl *nl, int ifindex, struct hc_err *err);
/* The first global IPv4 address of a link; -ENOENT if it has none. */
struct in_addr;
int hc_nl_addr4_get(struct hc_nl *nl, int ifindex, struct in_addr *addr,
		    struct hc_err *err);
/* addr is a struct in_addr (AF_INET) or struct in6_addr (AF_INET6). */
int hc_nl_addr_add(struct hc_nl *nl, int ifindex, int family, const void *addr,
		   __u8 prefixlen, struct hc_err *err);

/* The ingress-side qdisc (clsact or ingress) of a device: kind or "". */
int hc_nl_ingress_qdisc(struct hc_nl *nl, int ifindex, char *kind, size_t size,
			struct hc_err *err);
int hc_nl_qdisc_add(struct hc_nl *nl, int ifindex, const char *kind,
		    struct hc_err *err);
int hc_nl_qdisc_del(struct hc_nl *nl, int ifindex, const char *kind,
		    struct hc_err *err);

struct hc_filter {
	int ifindex;
	__u32 parent;
	__u16 prio;
	__u32 handle;
	const char *kind; /* for deleting: NULL is "bpf" */
	__u16 protocol; /* for deleting: 0 is ETH_P_ALL */
	__u32 chain;
};

/* A filter as a dump shows it. */
struct hc_filter_info {
	int ifindex;
	__u32 parent, handle, chain;
	__u16 prio, protocol; /* protocol in host order: ETH_P_ALL... */
	char kind[16];
	__u32 prog_id; /* bpf: its program */
	__u32 classid; /* u32: its class, and the first of nkeys keys */
	int nkeys;
	struct tc_u32_key key;
	/* flower: how many actions, the first one's kind and cookie */
	int nacts;
	char act[16];
	__u8 cookie[16];
	int cookie_len;
};

int hc_nl_filter_add_bpf(struct hc_nl *nl, const struct hc_filter *f,
			 int prog_fd, const char *name, struct hc_err *err);
/*
 * A u32 filter with one key (val/mask at byte off of the network header)
 * that sets classid on a match, as `tc filter add ... u32 match u32 VAL
 * MASK at OFF classid CLASSID`.
 */
int hc_nl_filter_add_u32(struct hc_nl *nl, const struct hc_filter *f, __u32 val,
			 __u32 mask, int off, __u32 classid,
			 struct hc_err *err);
/*
 * A flower filter of protocol ip (whatever f->protocol says) matching
 * one source address (network order), software only, whose one action
 * drops and carries cookie (at most 16 bytes): `tc filter add ...
 * protocol ip flower skip_hw src_ip SRC/32 action drop cookie COOKIE`.
 */
int hc_nl_filter_add_flower(struct hc_nl *nl, const struct hc_filter *f,
			    __be32 src, const void *cookie, int cookie_len,
			    struct hc_err *err);
int hc_nl_filter_del(struct hc_nl *nl, const struct hc_filter *f,
		     struct hc_err *err);
/* Each filter under parent (all chains), until fn returns non-zero. */
int hc_nl_filter_each(struct hc_nl *nl, int ifindex, __u32 parent,
		      int (*fn)(const struct hc_filter_info *info, void *data),
		      void *data, struct hc_err *err);

/*
 * RTM_NEWROUTE (create, exclusive) or RTM_DELROUTE of dst/prefixlen out
 * of oif, on the link, in the main table: for a caller to add to and send
 * with hc_nl_ack.
 */
struct in_addr;
struct nlmsghdr *hc_nl_route_msg(struct hc_nl *nl, __u16 type,
				 const struct in_addr *dst, __u8 prefixlen,
				 int oif);
/* dst/prefixlen out of oif, on the link: `ip route add DST/LEN dev OIF`. */
int hc_nl_route_add(struct hc_nl *nl, const struct in_addr *dst, __u8 prefixlen,
		    int oif, struct hc_err *err);
/* A permanent neighbour: `ip neigh add IP lladdr MAC dev IF nud permanent`. */
int hc_nl_neigh_add(struct hc_nl *nl, int ifindex, const struct in_addr *ip,
		    const __u8 *mac, struct hc_err *err);

/*
 * Each nftables table of this netns, fn(NFPROTO_*, name, data) until
 * it returns non-zero. Where nf_tables is a module not loaded, asking
 * loads it: the caller checks first (bench's env does).
 */
int hc_nl_nft_tables(int (*fn)(int family, const char *table, void *data),
		     void *data, struct hc_err *err);
/*
 * The pids of the threaded NAPI kthreads of ifindex in the current
 * namespace, from the netdev generic netlink family (Linux 6.9+): how
 * many, or -errno (-ENOENT: no such family here).
 */
int hc_nl_napi_threads(int ifindex, pid_t *pids, int max, struct hc_err *err);

/* Whether a default route (IPv4 or IPv6) leaves through ifindex. */
int hc_nl_default_route_via(struct hc_nl *nl, int ifindex, bool *found,
			    struct hc_err *err);

#endif
