// SPDX-License-Identifier: GPL-2.0
/*
 * The table of hooks, and their run options: --hook, --bare and what each
 * hook declares in its file, parsed for run, bench's rows and prog-run's
 * programs alike.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "hooks.h"
#include "opts.h"

/* The hooks, in the order help lists them: a hook is one entry here. */
#define HC_HOOKS(X) X(xdp) X(tc) X(socket) X(xsk) X(netfilter) X(cgroup) X(lwt)

#define HC_HOOK_DECLARE(n) extern const struct hc_hook hc_hook_##n;
#define HC_HOOK_ENTRY(n) &hc_hook_##n,
HC_HOOKS(HC_HOOK_DECLARE)

const struct hc_hook *const hc_hooks[] = { HC_HOOKS(HC_HOOK_ENTRY) NULL };

const struct hc_hook *hc_hook_by_name(const char *name)
{
	const struct hc_hook *const *h;

	for (h = hc_hooks; *h; h++)
		if (!strcmp((*h)->name, name))
			return *h;
	return NULL;
}

const struct hc_hook_row *hc_hook_row_find(const char *name, bool variant,
					   const struct hc_hook **hook)
{
	const struct hc_hook *const *h;
	const struct hc_hook_row *row;

	for (h = hc_hooks; *h; h++)
		for (row = variant ? (*h)->variants : (*h)->rows;
		     row && row->name; row++)
			if (!strcmp(row->name, name)) {
				*hook = *h;
				return row;
			}
	return NULL;
}

int hc_variants(struct hc_variant *v, int max)
{
	const struct hc_hook *const *h;
	const struct hc_hook_row *row;
	int n = 0;

	for (h = hc_hooks; *h; h++)
		for (row = (*h)->variants; row && row->name && n < max; row++)
			v[n++] =
				(struct hc_variant){ row->name, *h, row->args };
	return n;
}

int hc_run_of(struct hc_run *r, const struct hc_hook *h, const char *args,
	      struct hc_err *err)
{
	char line[160];

	hc_run_init(r);
	snprintf(line, sizeof(line), "--hook %s %s", h->name, args);
	return hc_run_args(r, line, err);
}

/* "xdp|tc|socket": the hooks by name. */
static const char *hook_names(void)
{
	static char names[128];
	const struct hc_hook *const *h;
	size_t len = 0;

	if (!names[0])
		for (h = hc_hooks; *h && len < sizeof(names); h++)
			len += snprintf(names + len, sizeof(names) - len,
					"%s%s", len ? "|" : "", (*h)->name);
	return names;
}

static int set_hook(void *cfg, const char *arg, struct hc_err *err)
{
	struct hc_run *r = cfg;

	if (r->hook) {
		hc_err_set(err, "--hook given twice");
		return -EINVAL;
	}
	r->hook = hc_hook_by_name(arg);
	if (r->hook)
		return 0;
	hc_err_set(err, "--hook '%s': expected one of %s", arg, hook_names());
	return -EINVAL;
}

static struct hc_opt hook_opt = {
	"hook",		0, HC_OPT_FUNC, 0, NULL, "receive hook to attach to",
	.fn = set_hook,
};

static const struct hc_opt bare_opt = {
	"bare",
	0,
	HC_OPT_FLAG,
	offsetof(struct hc_run, bare),
	NULL,
	"attach the minimal program (drop everything, count nothing)"
};

int hc_hook_opts(struct hc_opt *opts, int n, int max)
{
	const struct hc_hook *const *h;
	const struct hc_opt *o;
	int i;

	hook_opt.metavar = hook_names();
	if (n + 2 > max)
		return -E2BIG;
	opts[n++] = hook_opt;
	opts[n++] = bare_opt;
	opts[n].name = NULL; /* opt_index reads up to it */
	for (h = hc_hooks; *h; h++)
		for (o = (*h)->opts; o && o->name; o++) {
			i = hc_opt_index(opts, o->name);
			if (i >= 0) {
				if (opts[i].type != o->type ||
				    opts[i].off != o->off)
					return -EINVAL;
				continue;
			}
			if (n + 1 >= max)
				return -E2BIG;
			opts[n] = *o;
			opts[n].scope = 0; /* the hook's, not the command's */
			opts[n++].def = NULL;
			opts[n].name = NULL;
		}
	opts[n].name = NULL;
	return n;
}

/* "--hook socket --socket udp": h's name and its modes in mask, all. */
static size_t where_words(const struct hc_hook *h, unsigned int mask, bool all,
			  char *buf, size_t size)
{
	size_t len = snprintf(buf, size, "--hook %s", h->name);
	int i;

	for (i = all ? 0 : 1; h->modes && h->modes[i] && len < size; i++)
		if (mask & (1u << i))
			len += snprintf(buf + len, size - len, " %s",
					h->modes[i]);
	return len < size ? len : size - 1;
}

void hc_hook_where(const struct hc_run *r, char *buf, size_t size)
{
	size_t len = where_words(r->hook, r->hook->mode ? r->hook->mode(r) : 0,
				 false, buf, size);

	if (r->bare)
		snprintf(buf + len, size - len, " --bare");
}

/* "--hook xdp or --hook xsk --xdp-attach netlink": the hooks it goes with. */
static void goes_with(const char *name, const char *sep, char *buf, size_t size)
{
	const struct hc_hook *const *h;
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (h = hc_hooks; *h && len < size; h++) {
		i = hc_opt_index((*h)->opts, name);
		if (i < 0)
			continue;
		if (len)
			len += snprintf(buf + len, size - len, "%s", sep);
		if (len < size)
			len += where_words(*h, (*h)->opts[i].scope, true,
					   buf + len, size - len);
	}
}

static int is_hook_opt(const char *name)
{
	const struct hc_hook *const *h;

	for (h = hc_hooks; *h; h++)
		if (hc_opt_index((*h)->opts, name) >= 0)
			return 1;
	return 0;
}

int hc_hook_parsed(struct hc_run *r, const struct hc_opt *opts,
		   unsigned long long given, struct hc_err *err)
{
	const struct hc_hook *h = r->hook;
	char list[256], here[128];
	int i, k;

	if (!h) {
		hc_err_set(err, "--hook %s is required", hook_names());
		return -EINVAL;
	}
	/* A hook is picked once; its defaults come with it. */
	if (given >> hc_opt_index(opts, "hook") & 1)
		for (k = 0; h->opts && h->opts[k].name; k++)
			if (h->opts[k].def &&
			    !(given >> hc_opt_index(opts, h->opts[k].name) & 1) &&
			    hc_opt_set(&h->opts[k], r, h->opts[k].def, err))
				return -EINVAL;
	for (i = 0; opts[i].name; i++) {
		if (!(given >> i & 1) || !is_hook_opt(opts[i].name))
			continue;
		k = hc_opt_index(h->opts, opts[i].name);
		if (k >= 0 && (!h->opts[k].scope || !h->mode ||
			       (h->opts[k].scope & h->mode(r)))) {
			r->hook_given |= 1ULL << k;
			continue;
		}
		goes_with(opts[i].name, " or ", list, sizeof(list));
		hc_hook_where(r, here, sizeof(here));
		hc_err_set(err, "--%s goes with %s, not %s", opts[i].name, list,
			   here);
		return -EINVAL;
	}
	return 0;
}

void hc_hook_help(FILE *f)
{
	struct hc_opt opts[HC_MAX_OPTS + 1];
	const struct hc_hook *const *h;
	char list[256];
	int i, n = hc_hook_opts(opts, 0, HC_MAX_OPTS);

	for (i = 0; i < n; i++) {
		goes_with(opts[i].name, ", ", list, sizeof(list));
		hc_opt_help(f, &opts[i], list);
	}
	fprintf(f, "\nHooks:\n");
	for (h = hc_hooks; *h; h++)
		fprintf(f, "  %-10s %s\n", (*h)->name, (*h)->help);
}

int hc_run_args(struct hc_run *r, const char *args, struct hc_err *err)
{
	static struct hc_opt opts[HC_MAX_OPTS + 1];
	static int n;
	unsigned long long given;
	char buf[256], *argv[32], *save, *w;
	int argc = 0, npos;

	if (!n)
		n = hc_hook_opts(opts, 0, HC_MAX_OPTS);
	if (n < 0)
		return n;
	if (snprintf(buf, sizeof(buf), "%s", args) >= (int)sizeof(buf))
		return -E2BIG;
	argv[argc++] = "hookcmp";
	for (w = strtok_r(buf, " ", &save); w && argc < 31;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (hc_opts_parse(opts, r, argc, argv, NULL, &npos, 0, &given, err) ||
	    hc_hook_parsed(r, opts, given, err) ||
	    (r->hook->check && r->hook->check(r, err)))
		return -EINVAL;
	return 0;
}
