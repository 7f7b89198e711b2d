/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks layer (loader/): the table of hooks, the run options they
 * parse, what each offers prog-run and bench, and what they share.
 */
#ifndef HC_HOOKS_H
#define HC_HOOKS_H

#include "hookcmp.h"

/* The hook's options in r, as its file's struct T; offsets for its opts. */
#define HC_CFG(r, T) ((T *)(r)->hook_cfg)
#define HC_CFG_OFF(T, f) (offsetof(struct hc_run, hook_cfg) + offsetof(T, f))
#define HC_CFG_FITS(T)                                                         \
	_Static_assert(sizeof(T) <= sizeof(((struct hc_run *)0)->hook_cfg),   \
		       #T " fits in hook_cfg")

/* A program a hook offers prog-run, or a row it offers bench: its options. */
struct hc_hook_row {
	const char *name;
	const char *args; /* run options after --hook NAME */
	unsigned int flags; /* HC_ROW_* */
	/* Where no driver runs it (bench's inject): what to say instead. */
	const char *no_driver;
	/* Its program runs in the driver (native XDP), on what it hands over. */
	bool driver;
	/*
	 * The kernel functions its path runs, for bench's path check
	 * (bench/watch/path.c): groups of alternatives "a|b", a trailing '*' a
	 * prefix, '!' a group it must not run; drop_path: what a row that
	 * drops every frame must not run either.
	 */
	const char *path, *drop_path;
	/* Its frames' IPv4 destination where its path needs one (a route). */
	const char *dst4;
};

enum {
	HC_ROW_EVERY = 1, /* in bench's per-hook scenarios too, not only hooks */
	HC_ROW_BARE = 2, /* bench's hooks scenario adds NAME-bare (--bare) */
	HC_ROW_LOCAL = 4, /* it sees only frames addressed to the device */
};

/* hooks.c: the table of hooks, NULL-terminated */
extern const struct hc_hook *const hc_hooks[];
const struct hc_hook *hc_hook_by_name(const char *name);
/* The hook offering row name to bench (or prog-run: variants), and the row. */
const struct hc_hook_row *hc_hook_row_find(const char *name, bool variant,
					   const struct hc_hook **hook);
/*
 * The hooks' run options (--hook, --bare, each hook's own), appended to
 * a command's table of n of max entries (and room for the {} that ends
 * it): its struct holds the hc_run first. The new count, or -E2BIG, or
 * -EINVAL for two hooks that declare an option differently.
 */
int hc_hook_opts(struct hc_opt *opts, int n, int max);
/*
 * After hc_opts_parse(opts, given): a hook named, its defaults set if
 * --hook was given, each of its options given where its modes allow
 * (opts' own scopes are the command's). -EINVAL with err saying why.
 */
int hc_hook_parsed(struct hc_run *r, const struct hc_opt *opts,
		   unsigned long long given, struct hc_err *err);
/* "--hook tc --tc-attach tcx --bare": where a run is, for messages. */
void hc_hook_where(const struct hc_run *r, char *buf, size_t size);
/* --help for hc_hook_opts' options, each with the hooks it goes with. */
void hc_hook_help(FILE *f);
/*
 * Options as one string ("--hook tc --qdisc ingress"), parsed into r as
 * run parses them and checked; run's other options stay as r has them.
 */
int hc_run_args(struct hc_run *r, const char *args, struct hc_err *err);

/* Every program a hook can load, for prog-run and the differential test. */
struct hc_variant {
	const char *name;
	const struct hc_hook *hook;
	const char *args;
};
#define HC_MAX_VARIANTS 16
/* The hooks' variants, in the table's order, up to max: how many. */
int hc_variants(struct hc_variant *v, int max);
/*
 * r as a run of hook h with options args (a variant's, a row's) and
 * nothing loaded; its logic is the caller's to set.
 */
int hc_run_of(struct hc_run *r, const struct hc_hook *h, const char *args,
	      struct hc_err *err);

/* xdp.c: where --replace pins the program it takes the slot from. */
#define HC_BPFFS "/sys/fs/bpf"
#define HC_PIN_DIR HC_BPFFS "/hookcmp"

/*
 * cg.c: the cgroup2 hierarchy's root as this process reaches it (a
 * mount it can see, else one of its own): an fd, and the process's
 * cgroup below it in home; or negative errno.
 */
int hc_cgroup_root(char *home, size_t size);

/* redirect.c: the redirect target, checked with the run's hook. */
/* Said of a --redirect option (run's or a hook's) with nothing to redirect. */
#define HC_REDIRECT_UNASKED \
	"the --redirect options need a redirect verdict: --action redirect, or a rule ending in 'redirect'"
bool hc_conf_redirects(const struct hc_conf *c);
/*
 * Finds redirect_dev in the current namespace (r->nl's) and sets
 * conf.redirect.ifindex. -ENODEV or -EINVAL, with r->err saying why, for
 * a target the kernel would drop every frame for; a target that drops
 * only now (down, or no NAPI behind a veth) gets a sentence in warn.
 */
int hc_redirect_check(struct hc_run *r, char *warn, size_t size);

#endif
