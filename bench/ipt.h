/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench's iptables rule: first in raw PREROUTING, on one device, named
 * ours by a comment, so that deleting it deletes no one else's; scale's
 * chain and ipset set, named by the same tag. Each runs iptables (or nft,
 * ipset) in the network namespace nsfd, -1 for ours.
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
#define HC_IPT_SET 2u /* scale's "-m set --match-set tag src -j DROP" */
#define HC_IPT_SET_OURS 4u /* and the ipset set named tag: we made it */
/*
 * The DROP rule on dev, tagged, and what made says: each deleted if
 * there; the set last, once no rule holds it.
 */
void hc_ipt_put(int nsfd, const char *dev, const char *tag, unsigned int made);
/* Whether an ipset set of that name is there. */
bool hc_ipt_ipset_exists(int nsfd, const char *name);
/* Deletes the raw table if it has no rules: one iptables made for us. */
void hc_ipt_raw_put(int nsfd);

#endif
