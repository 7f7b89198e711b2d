/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rule grammar (nft-like, first match wins):
 *   [ip|ip6] [udp|tcp|icmp|icmp6|proto N] [src PREFIX] [dst PREFIX]
 *   [sport P[-P]] [dport P[-P]] (drop|pass|redirect)
 */
#ifndef HC_RULES_H
#define HC_RULES_H

#include "hookcmp.h"

/* Returns 0, or -EINVAL with err saying which word is wrong and why. */
int hc_rule_parse(const char *text, struct hc_rule *r, struct hc_err *err);
/*
 * ADDR[/LEN] into pf: its family (4 or 6), or 0 when s is no prefix;
 * *host_bits set when the address has bits beyond LEN.
 */
int hc_prefix_parse(const char *s, struct hc_prefix *pf, int *host_bits);
/* The least --parse depth that can evaluate r. */
enum hc_parse hc_rule_depth(const struct hc_rule *r);

extern const char *const hc_parse_names[];
/* Indexed by enum hc_verdict, NULL-terminated: also --action's choices. */
extern const char *const hc_verdict_names[];
#define HC_VERDICT_WORDS "'drop', 'pass' or 'redirect'"
/* The verdict a word names, or -1. */
int hc_verdict_of(const char *word);

/* The parsers' (rules.c, set.c) way out: err says why, -EINVAL. */
#define HC_PARSE_FAIL(...)                    \
	do {                                  \
		hc_err_set(err, __VA_ARGS__); \
		return -EINVAL;               \
	} while (0)

#endif
