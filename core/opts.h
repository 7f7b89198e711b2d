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
	HC_OPT_SECS, /* double, seconds from 0 (over 0 if min) to max (HC_MAX_SECS if 0) */
	HC_OPT_PCT, /* double, a percent over 0, up to max */
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
	unsigned int flags; /* HC_NUM_HEX: 0x... too; HC_OPT_LIST */
	/* Where it applies, as bits of the command's scopes; 0: anywhere. */
	unsigned int scope;
	const char *def; /* a hook's option: its value when not given */
	/* Its owner's values (a bench scenario's), not the command's cfg. */
	void *cfg;
};

/* A comma-separated list: an empty item ("1,,2", "a,") is refused. */
#define HC_OPT_LIST 0x100u

#define HC_MAX_SECS 10000000UL
#define HC_MAX_OPTS 64 /* a table's, as bits of hc_opts_parse's given */

/* -p/--pretty, as bpftool's: JSON, a member per line (json.h). */
#define HC_OPT_PRETTY(off)                                                     \
	{                                                                      \
		"pretty", 'p', HC_OPT_FLAG, off, NULL,                         \
			"JSON, pretty-printed: a member per line (implies -j)" \
	}

#define HC_CHOICES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/*
 * Parses argv[1..]; up to maxpos positional arguments go to pos. given
 * (may be NULL): a bit for each option seen, by its index in opts. An
 * option with a value given twice is an error, as the last would win.
 */
int hc_opts_parse(const struct hc_opt *opts, void *cfg, int argc, char **argv,
		  const char **pos, int *npos, int maxpos,
		  unsigned long long *given, struct hc_err *err);
/*
 * -EINVAL, err naming where it belongs, for the first option given whose
 * scope misses where (the scopes the command line is in); names: the
 * scope bits' words, here: what the command line is ("--hook xdp").
 */
int hc_opts_scope(const struct hc_opt *opts, unsigned long long given,
		  unsigned int where, const char *const *names,
		  const char *here, struct hc_err *err);
/* The option of opts named name: its index, or -1. */
int hc_opt_index(const struct hc_opt *opts, const char *name);
/* Sets o in cfg from arg, as the parser does. */
int hc_opt_set(const struct hc_opt *o, void *cfg, const char *arg,
	       struct hc_err *err);
/* "a, b or c": the words of names whose bits are in mask. */
void hc_opts_scope_list(char *buf, size_t size, unsigned int mask,
			const char *const *names, const char *sep);
/* One option's help line, with where it goes (NULL or "": anywhere). */
void hc_opt_help(FILE *f, const struct hc_opt *o, const char *where);
/* The help of each option, with its scopes' names (NULL: none) after it. */
void hc_opts_help(FILE *f, const struct hc_opt *opts,
		  const char *const *scopes);

#endif
