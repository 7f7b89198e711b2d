/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ethtool ioctls hookcmp uses, on a device in the current network
 * namespace; each returns 0 or -errno, as `ethtool` would see it.
 */
#ifndef HC_ETHTOOL_H
#define HC_ETHTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/ethtool.h>

/* The driver's name, as `ethtool -i` shows it. */
int hc_ethtool_driver(const char *dev, char *driver, size_t size);
int hc_ethtool_channels(const char *dev, struct ethtool_channels *ch);
int hc_ethtool_set_channels(const char *dev, const struct ethtool_channels *ch);
int hc_ethtool_gro(const char *dev, bool *on);
int hc_ethtool_set_gro(const char *dev, bool on);
int hc_ethtool_set_tso(const char *dev, bool on);

/* The names of the driver's statistics (`ethtool -S`), in their order. */
struct hc_ethtool_names {
	int n;
	char (*name)[ETH_GSTRING_LEN];
};

int hc_ethtool_stat_names(const char *dev, struct hc_ethtool_names *names);
void hc_ethtool_names_free(struct hc_ethtool_names *names);
/* Their values now, n of them, in the same order. */
int hc_ethtool_stats(const char *dev, __u64 *vals, int n);

#endif
