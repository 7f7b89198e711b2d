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
#include <stddef.h>
#include "hookcmp.h"

struct jp;
struct hc_pr;

/* Whether the raw table is there (iptables-nft makes it on first use). */
bool hc_ipt_raw_exists(int nsfd);
/* Adds (first in the chain) or deletes the DROP rule on dev, tagged. */
int hc_ipt_rule(int nsfd, bool add, const char *dev, const char *tag,
		struct hc_err *err);
/* What a row made in raw besides its DROP rule (hc_ipt_put's made). */
#define HC_IPT_CHAIN 1u /* scale's chain named tag, and the jump to it */
#define HC_IPT_SET 2u /* scale's "-m set --match-set tag src -j DROP" */
#define HC_IPT_SET_OURS 4u /* and the ipset set named tag: we made it */
/* Adds the jump to the chain or the match on the set (made), first. */
int hc_ipt_first(int nsfd, const char *dev, const char *tag, unsigned int made,
		 struct hc_err *err);
/*
 * The DROP rule on dev, tagged, and what made says: each deleted if
 * there; the set last, once no rule holds it.
 */
void hc_ipt_put(int nsfd, const char *dev, const char *tag, unsigned int made);
/* Whether an ipset set of that name is there. */
bool hc_ipt_ipset_exists(int nsfd, const char *name);
/*
 * Whether raw holds a chain named tag or a rule with the comment tag
 * already: what says which ("" none); or -errno, what the error.
 */
int hc_ipt_taken(int nsfd, const char *tag, char *what, size_t size);

/*
 * Whether an object of an nft table (type "chain", "set", "rule",
 * "counter", "flowtable"...; o its members) is one of ours.
 */
typedef bool (*hc_nft_ours_fn)(const char *type, const struct jp *o, void *arg);
/*
 * The whole of table FAMILY NAME, object by object: 0 with why "" when
 * all is ours (or iptables-nft's), else why says what is not, as
 * "it holds set s, not hookcmp's"; -ENOENT: no such table; -errno
 * with why saying so: it could not be read.
 */
int hc_nft_table_scan(int nsfd, const char *family, const char *table,
		      hc_nft_ours_fn ours, void *arg, char *why, size_t size);
/*
 * Deletes the raw table if it holds nothing but iptables-nft's own empty
 * base chains (one it made for us); else why says what keeps it.
 */
int hc_ipt_raw_put(int nsfd, char *why, size_t size);
/*
 * Deletes bench's nft table netdev t (kind_nft.c: its chain "in", set
 * "block", counter "seen", and rules with the comment t); where it holds
 * what bench did not put there, only those, why saying what kept it.
 * Gone already is deleted. 0, or -errno and why.
 */
int hc_nft_put(int nsfd, const char *t, char *why, size_t size);

/*
 * The tag (iptables, ipset) or table (nft) that a journal record's run
 * made its rules under: its run's name (hc_run_name), or an older
 * record's own, in its mode; and what the record kinds print of it.
 */
void hc_ipt_rec_name(const struct hc_jrec *j, char *buf, size_t size);
void hc_ipt_rec_print(const struct hc_jrec *j, struct hc_pr *p);

#endif
