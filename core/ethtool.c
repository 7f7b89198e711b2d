// SPDX-License-Identifier: GPL-2.0
/* SIOCETHTOOL requests, as ethtool(8) makes them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/sockios.h>
#include "hookcmp.h"
#include "ethtool.h"

static int request(const char *dev, void *cmd)
{
	struct ifreq ifr = { .ifr_data = cmd };

	return hc_dev_ioctl(dev, SIOCETHTOOL, &ifr);
}

int hc_ethtool_driver(const char *dev, char *driver, size_t size)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	int ret = request(dev, &info);

	snprintf(driver, size, "%s", ret ? "" : info.driver);
	return ret;
}

int hc_ethtool_channels(const char *dev, struct ethtool_channels *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->cmd = ETHTOOL_GCHANNELS;
	return request(dev, ch);
}

int hc_ethtool_set_channels(const char *dev, const struct ethtool_channels *ch)
{
	struct ethtool_channels c = *ch;

	c.cmd = ETHTOOL_SCHANNELS;
	return request(dev, &c);
}

int hc_ethtool_gro(const char *dev, bool *on)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_GGRO };
	int ret = request(dev, &ev);

	*on = ev.data;
	return ret;
}

int hc_ethtool_set_gro(const char *dev, bool on)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_SGRO, .data = on };

	return request(dev, &ev);
}

int hc_ethtool_set_tso(const char *dev, bool on)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_STSO, .data = on };

	return request(dev, &ev);
}

/* ETHTOOL_GSSET_INFO: how many strings the set has. */
static int stat_count(const char *dev, int *n)
{
	struct {
		struct ethtool_sset_info hdr;
		__u32 len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ULL << ETH_SS_STATS } };
	int ret = request(dev, &info);

	*n = !ret && info.hdr.sset_mask ? (int)info.len : 0;
	return ret;
}

int hc_ethtool_stat_names(const char *dev, struct hc_ethtool_names *names)
{
	struct ethtool_gstrings *gs;
	int n, ret;

	names->n = 0;
	names->name = NULL;
	ret = stat_count(dev, &n);
	if (ret || !n)
		return ret;
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	names->name = calloc(n, ETH_GSTRING_LEN);
	if (!gs || !names->name) {
		free(gs);
		hc_ethtool_names_free(names);
		return -ENOMEM;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	ret = request(dev, gs);
	if (!ret) {
		/* The driver may have fewer now than it said a moment ago. */
		names->n = gs->len < (__u32)n ? (int)gs->len : n;
		memcpy(names->name, gs->data,
		       (size_t)names->n * ETH_GSTRING_LEN);
		for (n = 0; n < names->n; n++)
			names->name[n][ETH_GSTRING_LEN - 1] = '\0';
	}
	free(gs);
	return ret;
}

void hc_ethtool_names_free(struct hc_ethtool_names *names)
{
	free(names->name);
	names->name = NULL;
	names->n = 0;
}

int hc_ethtool_stats(const char *dev, __u64 *vals, int n)
{
	struct ethtool_stats *st;
	int now, ret;

	/* The kernel writes as many as the driver has now: check first. */
	ret = stat_count(dev, &now);
	if (ret)
		return ret;
	if (now != n)
		return -EAGAIN;
	st = calloc(1, sizeof(*st) + n * sizeof(__u64));
	if (!st)
		return -ENOMEM;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	ret = request(dev, st);
	if (!ret && st->n_stats != (__u32)n)
		ret = -EAGAIN; /* the set changed under us */
	if (!ret)
		memcpy(vals, st->data, n * sizeof(__u64));
	free(st);
	return ret;
}
