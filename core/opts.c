// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"

static int choice(const char *const *choices, const char *arg)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], arg))
			return i;
	return -1;
}

static void choice_list(char *buf, size_t size, const char *const *choices)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; choices[i] && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? "|" : "",
				choices[i]);
}

int hc_opt_index(const struct hc_opt *opts, const char *name)
{
	int i;

	for (i = 0; opts && opts[i].name; i++)
		if (!strcmp(opts[i].name, name))
			return i;
	return -1;
}

/* Every item of a comma-separated list holds something. */
static int list_check(const struct hc_opt *o, const char *arg,
		      struct hc_err *err)
{
	const char *p = arg;
	size_t n;
	int i;

	for (i = 1;; i++, p += n + 1) {
		n = strcspn(p, ",");
		if (!n) {
			hc_err_set(
				err,
				"--%s '%s': expected a comma-separated list, found item %d empty",
				o->name, arg, i);
			return -EINVAL;
		}
		if (!p[n])
			return 0;
	}
}

int hc_opt_set(const struct hc_opt *o, void *cfg, const char *arg,
	       struct hc_err *err)
{
	char *p = (char *)(cfg = o->cfg ?: cfg) + o->off;
	char list[256];
	__u64 v;
	double d;
	int c;

	/* No option takes an empty value: "" is a slip (an unset variable). */
	if (o->type == HC_OPT_STR && !*arg) {
		hc_err_set(err, "--%s '': expected %s, found an empty string",
			   o->name, o->metavar ?: "a value");
		return -EINVAL;
	}
	if (o->flags & HC_OPT_LIST && list_check(o, arg, err))
		return -EINVAL;

	switch (o->type) {
	case HC_OPT_FLAG:
		*(bool *)p = true;
		return 0;
	case HC_OPT_U32:
		if (hc_parse_uint(arg, o->flags, o->min, o->max, &v)) {
			hc_err_set(
				err,
				"--%s '%s': expected a number from %lu to %lu%s",
				o->name, arg, o->min, o->max,
				o->flags & HC_NUM_HEX ?
					" (decimal, or 0x hex)" :
					" (decimal)");
			return -EINVAL;
		}
		*(__u32 *)p = v;
		return 0;
	case HC_OPT_SECS:
		if (hc_parse_secs(arg, o->max ? o->max : HC_MAX_SECS, &d) ||
		    (o->min && !(d > 0))) {
			hc_err_set(
				err,
				"--%s '%s': expected seconds %s 0 to %lu (digits and a fraction, as 0.5)",
				o->name, arg, o->min ? "over" : "from",
				o->max ? o->max : HC_MAX_SECS);
			return -EINVAL;
		}
		*(double *)p = d;
		return 0;
	case HC_OPT_PCT:
		if (hc_parse_secs(arg, o->max, &d) || !(d > 0)) {
			hc_err_set(
				err,
				"--%s '%s': expected a percent over 0, up to %lu",
				o->name, arg, o->max);
			return -EINVAL;
		}
		*(double *)p = d;
		return 0;
	case HC_OPT_ENUM:
		c = choice(o->choices, arg);
		if (c < 0) {
			choice_list(list, sizeof(list), o->choices);
			hc_err_set(err, "--%s '%s': expected one of %s",
				   o->name, arg, list);
			return -EINVAL;
		}
		*(int *)p = c;
		return 0;
	case HC_OPT_STR:
		*(const char **)p = arg;
		return 0;
	case HC_OPT_FUNC:
		return o->fn(cfg, arg, err);
	}
	return -EINVAL;
}

int hc_opts_parse(const struct hc_opt *opts, void *cfg, int argc, char **argv,
		  const char **pos, int *npos, int maxpos,
		  unsigned long long *given, struct hc_err *err)
{
	unsigned long long seen = 0;
	struct option lo[HC_MAX_OPTS + 1] = {};
	/* '-': options may follow DEV, as with ip and tc. */
	char so[2 * HC_MAX_OPTS + 3] = "-:";
	int n, c, idx, ret;

	for (n = 0; opts[n].name && n < HC_MAX_OPTS; n++) {
		lo[n].name = opts[n].name;
		lo[n].has_arg = opts[n].type == HC_OPT_FLAG ? no_argument :
							      required_argument;
		lo[n].val = 0x100 + n;
		if (opts[n].short_name) {
			size_t len = strlen(so);

			so[len] = opts[n].short_name;
			if (opts[n].type != HC_OPT_FLAG)
				so[len + 1] = ':';
		}
	}

	*npos = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, &idx)) != -1) {
		const struct hc_opt *o = NULL;
		int i;

		if (c == 1) {
			if (*npos == maxpos) {
				hc_err_set(err, "unexpected argument '%s'",
					   optarg);
				return -EINVAL;
			}
			pos[(*npos)++] = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			hc_err_set(err,
				   c == ':' ? "option '%s' needs an argument" :
					      "unknown option '%s'",
				   argv[optind - 1]);
			return -EINVAL;
		}
		if (c >= 0x100)
			o = &opts[c - 0x100];
		for (i = 0; !o && i < n; i++)
			if (opts[i].short_name == c)
				o = &opts[i];
		if (!o)
			return -EINVAL;
		/* The last of two would win silently: say so instead. */
		if ((seen >> (o - opts) & 1) && o->type != HC_OPT_FLAG &&
		    o->type != HC_OPT_FUNC) {
			hc_err_set(err, "--%s given twice", o->name);
			return -EINVAL;
		}
		seen |= 1ULL << (o - opts);
		ret = hc_opt_set(o, cfg, optarg, err);
		if (ret)
			return ret;
	}
	for (; optind < argc; optind++) {
		if (*npos == maxpos) {
			hc_err_set(err, "unexpected argument '%s'",
				   argv[optind]);
			return -EINVAL;
		}
		pos[(*npos)++] = argv[optind];
	}
	if (given)
		*given = seen;
	return 0;
}

/* "xdp or xsk": the names of the scopes in mask. */
void hc_opts_scope_list(char *buf, size_t size, unsigned int mask,
			const char *const *names, const char *sep)
{
	size_t len = 0;
	int i, n = 0;

	buf[0] = '\0';
	for (i = 0; names[i] && len < size; i++)
		if (mask & (1u << i))
			len += snprintf(buf + len, size - len, "%s%s",
					n++ ? sep : "", names[i]);
}

int hc_opts_scope(const struct hc_opt *opts, unsigned long long given,
		  unsigned int where, const char *const *names,
		  const char *here, struct hc_err *err)
{
	char list[256];
	int i;

	for (i = 0; opts[i].name; i++) {
		if (!(given >> i & 1) || !opts[i].scope ||
		    (opts[i].scope & where))
			continue;
		hc_opts_scope_list(list, sizeof(list), opts[i].scope, names, " or ");
		hc_err_set(err, "--%s goes with %s, not %s", opts[i].name, list,
			   here);
		return -EINVAL;
	}
	return 0;
}

void hc_opt_help(FILE *f, const struct hc_opt *o, const char *where)
{
	char left[320], list[256], help[600];
	const char *meta = o->metavar;

	if (o->type == HC_OPT_ENUM) {
		choice_list(list, sizeof(list), o->choices);
		meta = list;
	}
	snprintf(left, sizeof(left), "%c%c%s--%s%s%s",
		 o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
		 o->short_name ? ", " : "  ", o->name,
		 o->type == HC_OPT_FLAG ? "" : " ",
		 o->type == HC_OPT_FLAG ? "" : meta);
	/* "[xdp, xsk]": where it applies, as the check has it. */
	if (where && where[0])
		snprintf(help, sizeof(help), "%s [%s]", o->help, where);
	else
		snprintf(help, sizeof(help), "%s", o->help);
	if (strlen(left) > 30)
		fprintf(f, "  %s\n  %-30s %s\n", left, "", help);
	else
		fprintf(f, "  %-30s %s\n", left, help);
}

void hc_opts_help(FILE *f, const struct hc_opt *opts, const char *const *scopes)
{
	const struct hc_opt *o;
	char list[256];

	for (o = opts; o->name; o++) {
		list[0] = '\0';
		if (o->scope && scopes)
			hc_opts_scope_list(list, sizeof(list), o->scope, scopes,
					   ", ");
		hc_opt_help(f, o, list);
	}
}
