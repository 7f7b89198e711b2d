/* SPDX-License-Identifier: GPL-2.0 */
/* Builds the valid frames the generator sends. */
#ifndef HC_PKT_H
#define HC_PKT_H

#include <stdbool.h>
#include <netinet/in.h>
#include <linux/types.h>

#define HC_PKT_MIN 60
/* An Ethernet frame of MTU 1500, what every device takes. */
#define HC_PKT_STD 1514
/* Jumbo: MTU 9216, the most switches take, with a VLAN tag. */
#define HC_PKT_MAX 9234

struct hc_pkt_spec {
	__u8 dst_mac[6], src_mac[6];
	bool ipv6;
	struct in_addr src4, dst4;
	struct in6_addr src6, dst6;
	__u8 proto; /* 17, 6 or 1 (ICMPv6 with ipv6) */
	__u16 vlan; /* 0: untagged */
	__u16 sport, dport;
	__u32 size; /* frame length without FCS, 60..HC_PKT_MAX */
};

/* Offsets the generator's program needs to vary the source port. */
struct hc_pkt_layout {
	__u32 len;
	__u32 l4_off;
	__u32 csum_off; /* L4 checksum, 0 when it is left out (UDP/IPv4) */
};

/* The least frame size the spec's headers fit in, at least HC_PKT_MIN. */
__u32 hc_pkt_min_size(const struct hc_pkt_spec *s);
/* Returns 0, or -EINVAL when the spec does not fit in size. */
int hc_pkt_build(const struct hc_pkt_spec *s, __u8 *buf,
		 struct hc_pkt_layout *lo);

__u32 hc_csum_add(__u32 sum, const void *data, __u32 len);
__u16 hc_csum_fold(__u32 sum);

#endif
