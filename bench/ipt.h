/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench's iptables rule: first in raw PREROUTING, on one device, named
 * ours by a comment, so that deleting it deletes no one else's. Each runs
 * iptables (or nft) in the network namespace nsfd, -1 for ours.
 */
#ifndef HC_IPT_H
#define HC_IPT_H

#include <stdbool.h>
#include "hookcmp.h"

/* Whether the raw table is there (iptables-nft makes it on first use). */
bool hc_ipt_raw_exists(int nsfd);
/* Adds (first in the chain) or deletes the DROP rule on dev, tagged. */
int hc_ipt_rule(int nsfd, bool add, const char *dev, const char *tag,
		struct hc_err *err);
/* What a row made in raw besides its DROP rule (hc_ipt_put's made). */
#define HC_IPT_CHAIN 1u /* scale's chain named tag, and the jump to it */
/* The DROP rule on dev, tagged, and what made says: each deleted if there. */
void hc_ipt_put(int nsfd, const char *dev, const char *tag, unsigned int made);
/* Deletes the raw table if it has no rules: one iptables made for us. */
void hc_ipt_raw_put(int nsfd);

#endif
