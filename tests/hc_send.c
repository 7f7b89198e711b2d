// SPDX-License-Identifier: GPL-2.0
/*
 * Test sender: writes named fixture frames to DEV through AF_PACKET, so
 * the tests know exactly what arrives on the peer.
 *   hc-send [-n NETNS] [--dst-mac MAC] [--dst4 IP] [--dst6 IP]
 *           [--src4 IP] [--src6 IP] DEV NAME:COUNT...
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include "fixtures.h"
#include "opts.h"

struct send_cli {
	const char *netns, *dst_mac, *dst4, *dst6, *src4, *src6;
};

static const struct hc_opt send_opts[] = {
	{ "netns", 'n', HC_OPT_STR, offsetof(struct send_cli, netns), "NAME",
	  "send from network namespace NAME" },
	{ "dst-mac", 0, HC_OPT_STR, offsetof(struct send_cli, dst_mac), "MAC",
	  "destination MAC" },
	{ "dst4", 0, HC_OPT_STR, offsetof(struct send_cli, dst4), "IP",
	  "IPv4 destination" },
	{ "dst6", 0, HC_OPT_STR, offsetof(struct send_cli, dst6), "IP",
	  "IPv6 destination" },
	{ "src4", 0, HC_OPT_STR, offsetof(struct send_cli, src4), "IP",
	  "IPv4 source" },
	{ "src6", 0, HC_OPT_STR, offsetof(struct send_cli, src6), "IP",
	  "IPv6 source" },
	{}
};

static int die(const char *what)
{
	fprintf(stderr, "hc-send: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct fx_addrs a = fx_default_addrs;
	struct send_cli c = {};
	const char *pos[64];
	struct hc_err err = {};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	__u8 buf[FX_MAX_LEN];
	int npos, i, fd, sent = 0;

	if (hc_opts_parse(send_opts, &c, argc, argv, pos, &npos, 64, NULL, &err) ||
	    npos < 2) {
		fprintf(stderr,
			"hc-send: %s\nusage: hc-send [OPTIONS] DEV NAME:COUNT...\n",
			err.msg);
		hc_opts_help(stderr, send_opts, NULL);
		return 2;
	}
	if (c.netns) {
		char path[256];

		snprintf(path, sizeof(path), "/run/netns/%s", c.netns);
		fd = open(path, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWNET))
			return die(path);
		close(fd);
	}
	if (c.dst_mac && hc_parse_mac(c.dst_mac, a.dst_mac))
		return fprintf(stderr, "hc-send: bad MAC '%s'\n", c.dst_mac), 2;
	if ((c.dst4 && inet_pton(AF_INET, c.dst4, &a.dst4) != 1) ||
	    (c.dst6 && inet_pton(AF_INET6, c.dst6, &a.dst6) != 1) ||
	    (c.src4 && inet_pton(AF_INET, c.src4, &a.src4) != 1) ||
	    (c.src6 && inet_pton(AF_INET6, c.src6, &a.src6) != 1))
		return fprintf(stderr, "hc-send: bad address\n"), 2;

	sll.sll_ifindex = if_nametoindex(pos[0]);
	if (!sll.sll_ifindex)
		return die(pos[0]);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		return die("socket");

	for (i = 1; i < npos; i++) {
		char name[64], *colon;
		const struct fx *f;
		long n, k;
		int len;

		snprintf(name, sizeof(name), "%s", pos[i]);
		colon = strchr(name, ':');
		n = colon ? strtol(colon + 1, NULL, 10) : 1;
		if (colon)
			*colon = '\0';
		f = fx_find(name);
		if (!f || n < 0)
			return fprintf(stderr, "hc-send: no fixture '%s'\n",
				       name),
			       2;
		len = fx_build(f, &a, buf);
		for (k = 0; k < n; k++) {
			int tries = 0;

			/* ENOBUFS: the device's queue is full for now; a second */
			while (sendto(fd, buf, len, 0, (struct sockaddr *)&sll,
				      sizeof(sll)) != len) {
				if (errno != ENOBUFS || ++tries > 1000)
					return die(name);
				usleep(1000);
			}
			sent++;
		}
	}
	fprintf(stderr, "hc-send: sent %d frames on %s\n", sent, pos[0]);
	close(fd);
	return 0;
}
