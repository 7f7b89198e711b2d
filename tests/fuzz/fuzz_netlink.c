// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: any bytes as a netlink reply, through every reply parser
 * hookcmp has (links and XDP, qdiscs, filters, routes, genetlink, acks
 * with extack).
 * nl.c is included so its static parsers are reachable.
 */
#include "../../core/nl.c"

static int count_filter(const struct hc_filter_info *info, void *data)
{
	++*(int *)data;
	return info->nkeys < 0; /* read every field */
}

static int count_link(int ifindex, const struct hc_link_info *info, void *data)
{
	++*(int *)data;
	return info->name[IF_NAMESIZE - 1] != '\0';
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* libmnl wants aligned messages, as a recv buffer would be. */
	static char buf[HC_NL_BUF] __attribute__((aligned(8)));
	struct hc_link_info info;
	struct hc_err err = {};
	struct link_query lq = { .talk.err = &err, .info = &info };
	char kind[32];
	struct qdisc_query qq = { .talk.err = &err,
				  .kind = kind,
				  .size = sizeof(kind) };
	int nf = 0, nl = 0;
	struct filter_query fq = { .talk.err = &err,
				   .each = count_filter,
				   .data = &nf };
	struct link_query ld = {
		.talk.err = &err, .info = &info, .each = count_link, .data = &nl
	};
	struct route_query rq = { .talk.err = &err, .ifindex = 1 };
	struct genl_query gq = { .talk.err = &err,
				 .attr = HC_NETDEV_A_DEV_XDP_FEATURES };
	__u32 seq = 0, portid = 0;

	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, data, size);
	if (size >= sizeof(struct nlmsghdr)) {
		/* Mostly let the header match, so parsing gets past it. */
		seq = ((struct nlmsghdr *)buf)->nlmsg_seq;
		portid = ((struct nlmsghdr *)buf)->nlmsg_pid;
	}
	parse_replies(buf, size, seq, portid, NULL, NULL, &err);
	parse_replies(buf, size, seq, portid, link_cb, &lq, &err);
	parse_replies(buf, size, seq, portid, link_cb, &ld, &err);
	parse_replies(buf, size, seq, portid, qdisc_cb, &qq, &err);
	parse_replies(buf, size, seq, portid, filter_cb, &fq, &err);
	parse_replies(buf, size, seq, portid, route_cb, &rq, &err);
	parse_replies(buf, size, seq, portid, genl_cb, &gq, &err);
	if (strnlen(err.kernel, sizeof(err.kernel)) == sizeof(err.kernel))
		abort(); /* the kernel's message must stay terminated */
	if (ld.stop)
		abort(); /* a link's name must stay terminated */
	return 0;
}
