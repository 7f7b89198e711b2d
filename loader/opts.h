/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options declared once, as data: the parser and --help both come from
 * the same table, so they cannot drift apart.
 */
#ifndef HC_OPTS_H
#define HC_OPTS_H

#include <stddef.h>
#include <stdio.h>
#include "hookcmp.h"

enum hc_opt_type {
	HC_OPT_FLAG, /* bool, no argument */
	HC_OPT_U32, /* __u32 within [min, max] */
	HC_OPT_SECS, /* double, seconds from 0 to max (HC_MAX_SECS if 0) */
	HC_OPT_ENUM, /* int: index into choices */
	HC_OPT_STR, /* const char * */
	HC_OPT_FUNC, /* fn(cfg, arg, err) */
};

struct hc_opt {
	const char *name;
	char short_name;
	enum hc_opt_type type;
	size_t off;
	const char *metavar;
	const char *help;
	const char *const *choices;
	unsigned long min, max;
	int (*fn)(void *cfg, const char *arg, struct hc_err *err);
	unsigned int flags; /* HC_NUM_HEX: 0x... too */
};

#define HC_MAX_SECS 10000000UL

#define HC_CHOICES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Parses argv[1..]; up to maxpos positional arguments go to pos. */
int hc_opts_parse(const struct hc_opt *opts, void *cfg, int argc, char **argv,
		  const char **pos, int *npos, int maxpos, struct hc_err *err);
void hc_opts_help(FILE *f, const struct hc_opt *opts);

#endif
