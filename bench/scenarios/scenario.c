// SPDX-License-Identifier: GPL-2.0
/* What scenarios build their rows with, and the rows of a run. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "kind.h"
#include "path.h"
#include "scenario.h"
#include "hooks.h"

struct bench_row *bench_row_add(struct bench_rows *rows, const char *name,
				const struct bench_kind *kind)
{
	/* The slot past the end takes what does not fit; build refuses it. */
	struct bench_row *r = &rows->row[rows->n];

	if (rows->n < BENCH_MAX_ROWS)
		rows->n++;
	else
		rows->too_many = true;
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->size = HC_PKT_MIN;
	r->drop = true;
	r->base = r->gen = r->vbase = -1;
	r->path_check.runs = -1;
	bench_row_path(r, kind->path);
	if (kind->init)
		kind->init(r);
	return r;
}

void bench_row_base(struct bench_row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->base_name, sizeof(r->base_name), fmt, ap);
	va_end(ap);
}

struct bench_row *bench_row_hook(struct bench_rows *rows, const char *name,
				 const char *suffix)
{
	const struct hc_hook_row *row;
	const struct hc_hook *hook;
	char rname[40];
	struct bench_row *r;
	struct hc_run *run;

	row = hc_hook_row_find(name, false, &hook);
	snprintf(rname, sizeof(rname), "%s%s", name, suffix);
	r = bench_row_add(rows, rname, &bench_kind_bpf);
	r->hook = row;
	run = &r->run;
	hc_run_init(run);
	/* No such row, or options it cannot have: setup says why. */
	if (row && hc_run_of(run, hook, row->args, &run->err))
		run->hook = NULL;
	run->conf.parse = HC_PARSE_L4;
	run->conf.def_verdict = HC_DROP;
	if (!row) {
		hc_err_set(&run->err, "no hook offers a row %s", name);
		return r;
	}
	/* Its work in threads of ours: those run on the DUT's CPU, counted. */
	if (hook->thread)
		r->kind = &bench_kind_xsk;
	r->local = row->flags & HC_ROW_LOCAL;
	r->path[0] = '\0';
	bench_row_path(r, row->path);
	return r;
}

int bench_row_find(const struct bench_rows *rows, const char *name)
{
	int i;

	for (i = 0; i < rows->n; i++)
		if (!strcmp(rows->row[i].name, name))
			return i;
	return -1;
}

void bench_rows_per_hook(struct bench_rows *rows, const char *const *suffixes,
			 void (*set)(struct bench_row *r, int level))
{
	const struct hc_hook *const *h;
	const struct hc_hook_row *row;
	struct bench_row *r;
	int i;

	for (h = hc_hooks; *h; h++)
		for (row = (*h)->rows; row && row->name; row++) {
			if (!(row->flags & HC_ROW_EVERY))
				continue;
			for (i = 0; suffixes[i]; i++) {
				r = bench_row_hook(rows, row->name,
						   suffixes[i]);
				set(r, i);
				bench_row_base(r, "%s%s", row->name,
					       suffixes[0]);
			}
		}
}

/*
 * The generator alone, at a frame size and a number of flows (varying
 * the port is its work): "gen-only", or "gen-only-SIZE" where the sizes
 * differ, then "-Nflows" for several flows: one keeps its name.
 */
static int gen_row(struct bench_rows *rows, __u32 size, __u32 flows,
		   bool sizes_differ)
{
	struct bench_row *r;
	char name[40];
	int i, len;

	flows = flows ?: 1;
	if (sizes_differ)
		len = snprintf(name, sizeof(name), "gen-only-%u", size);
	else
		len = snprintf(name, sizeof(name), "gen-only");
	if (flows > 1)
		snprintf(name + len, sizeof(name) - len, "-%uflows", flows);
	i = bench_row_find(rows, name);
	if (i >= 0)
		return i;
	r = bench_row_add(rows, name, &bench_kind_gen);
	r->size = size;
	r->flows = flows;
	r->drop = false;
	return rows->n - 1;
}

/* "xdp", "tc", "socket", "xsk": a row's hook, as --hook names it. */
static const char *family(const struct bench_row *r)
{
	return r->run.hook ? r->run.hook->name : "";
}

static bool row_matches(const struct bench_row *r, const char *w)
{
	/* a series names its rows at every N */
	return !strcmp(w, r->name) || (r->series && !strcmp(w, r->series)) ||
	       (r->hook &&
		(!strcmp(w, r->hook->name) || !strcmp(w, family(r))));
}

/* One kind of name --hooks may give (1 hooks, 2 families), once. */
static size_t names(const struct bench_rows *rows, int what, char *buf,
		    size_t size)
{
	const char *seen[BENCH_MAX_ROWS];
	int i, m, n = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < rows->n; i++) {
		const struct bench_row *r = &rows->row[i];
		const char *w = !r->hook  ? NULL :
				what == 1 ? r->hook->name :
					    family(r);

		for (m = 0; w && m < n && strcmp(seen[m], w); m++)
			;
		/* A hook named as a row is among the rows already. */
		if (!w || m < n || bench_row_find(rows, w) >= 0 ||
		    (what == 2 && !strcmp(w, r->hook->name)) || len >= size)
			continue;
		seen[n++] = w;
		len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
				w);
	}
	return len;
}

/*
 * The rows, for --hooks' error: a series' rows at each N (scale) as
 * NAME-{1,10,...}, so that the list fits the message.
 */
static void row_names(const struct bench_rows *rows, char *buf, size_t size)
{
	const struct bench_row *row = rows->row;
	size_t len = 0;
	int i, j, k;

	buf[0] = '\0';
	for (i = 0; i < rows->n && len < size; i = j) {
		const char *m = row[i].series,
			   *dash = strrchr(row[i].name, '-');

		for (j = i + 1; m && dash && j < rows->n && row[j].series &&
				!strcmp(row[j].series, m);
		     j++)
			;
		if (j - i == 1) {
			len += snprintf(buf + len, size - len, "%s%s",
					i ? ", " : "", row[i].name);
			continue;
		}
		len += snprintf(buf + len, size - len, "%s%.*s-{",
				i ? ", " : "", (int)(dash - row[i].name),
				row[i].name);
		for (k = i; k < j && len < size; k++)
			len += snprintf(buf + len, size - len, "%s%s",
					k > i ? "," : "",
					strrchr(row[k].name, '-') + 1);
		if (len < size)
			len += snprintf(buf + len, size - len, "}");
	}
}

/*
 * --hooks LIST: the rows a name of it matches (a row, a hook, a hook's
 * family), the baseline, and the rows those are compared with.
 */
static int select_rows(struct bench_rows *rows, const struct bench_opts *o,
		       struct hc_err *err)
{
	bool keep[BENCH_MAX_ROWS + 1] = {}, more = true;
	char list[256], all[1024], *save, *w;
	int i, k, n = 0;

	snprintf(list, sizeof(list), "%s", o->hooks);
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		bool hit = false;

		for (i = 0; i < rows->n; i++)
			if (row_matches(&rows->row[i], w))
				hit = keep[i] = true;
		if (!hit) {
			char hooks[512], fams[64];

			row_names(rows, all, sizeof(all));
			names(rows, 1, hooks, sizeof(hooks));
			names(rows, 2, fams, sizeof(fams));
			hc_err_set(
				err,
				"--hooks '%s' selects no row of %s; its rows: %s%s%s%s%s",
				w, rows->scen->name, all,
				hooks[0] ? "; hooks: " : "", hooks,
				fams[0] ? "; families: " : "", fams);
			return -EINVAL;
		}
	}
	for (i = 0; i < rows->n; i++)
		keep[i] |= !strcmp(rows->row[i].name, rows->scen->baseline);
	while (more)
		for (more = false, i = 0; i < rows->n; i++) {
			k = keep[i] ? bench_row_find(rows,
						     rows->row[i].base_name) :
				      -1;
			if (k >= 0 && !keep[k])
				more = keep[k] = true;
		}
	for (i = 0; i < rows->n; i++)
		if (keep[i])
			rows->row[n++] = rows->row[i];
	rows->n = n;
	return 0;
}

/* Takes group (as declared, '!' and all) out of the row's path. */
static void path_remove(struct bench_row *r, const char *group)
{
	const char *pos = r->path, *g;
	size_t len;

	while (bench_path_group(&pos, &g, &len))
		if (len == strlen(group) && !strncmp(g, group, len)) {
			char *at = r->path + (g - r->path);

			memmove(at, at + len, strlen(at + len) + 1);
			pos = at;
		}
}

static void inject_redirect(struct bench_row *r)
{
	static const char from[] = "xdp_do_redirect",
			  to[] = "|xdp_do_redirect_frame";
	const char *pos = r->path, *g, *alt;
	size_t len, alen;

	while (bench_path_group(&pos, &g, &len))
		while (bench_path_alt(&g, &len, &alt, &alen)) {
			char *end = r->path + (alt - r->path) + alen;

			if (alen != sizeof(from) - 1 ||
			    strncmp(alt, from, alen) ||
			    strlen(r->path) + sizeof(to) > sizeof(r->path))
				continue;
			memmove(end + sizeof(to) - 1, end, strlen(end) + 1);
			memcpy(end, to, sizeof(to) - 1);
			pos += sizeof(to) - 1;
			g += sizeof(to) - 1;
		}
}

/* Each variant's copy of the first n rows but the generator's. */
static int variant_rows(struct bench_rows *rows, const struct bench_opts *opt,
			int n, struct hc_err *err)
{
	int i, v;

	for (v = 0; v < opt->nvariants; v++) {
		const struct bench_variant *var = &opt->variant[v];

		for (i = 0; i < n; i++) {
			const struct bench_row *o = &rows->row[i];
			struct bench_row *r;
			char name[sizeof(o->name)];

			if (o->kind->generator)
				continue;
			if ((size_t)snprintf(name, sizeof(name), "%s+%s",
					     o->name,
					     var->name) >= sizeof(name)) {
				hc_err_set(
					err,
					"--variant %s: row name %s+%s is longer than %zu characters",
					var->name, o->name, var->name,
					sizeof(name) - 1);
				return -ENAMETOOLONG;
			}
			if (bench_row_find(rows, name) >= 0) {
				hc_err_set(
					err,
					"--variant %s: a row is called %s already",
					var->name, name);
				return -EEXIST;
			}
			r = bench_row_add(rows, name, o->kind);
			if (rows->too_many) {
				hc_err_set(
					err,
					"--variant %s: more than %d rows with the variants",
					var->name, BENCH_MAX_ROWS);
				return -E2BIG;
			}
			*r = *o;
			snprintf(r->name, sizeof(r->name), "%s", name);
			r->vbase = i;
			r->variant = var;
			r->variant_round = -1;
			if (var->path)
				bench_row_path(r, var->path);
		}
	}
	return 0;
}

int bench_rows_build(struct bench *b, struct hc_err *err)
{
	bool sizes_differ = false;
	int i, n, ret;

	b->rows.scen->build(&b->rows);
	if (b->rows.too_many) {
		hc_err_set(err, "%s builds more than %d rows",
			   b->rows.scen->name, BENCH_MAX_ROWS);
		return -E2BIG;
	}
	if (b->opt.hooks && select_rows(&b->rows, &b->opt, err))
		return -EINVAL;
	ret = variant_rows(&b->rows, &b->opt, b->rows.n, err);
	if (ret)
		return ret;
	n = b->rows.n;
	for (i = 1; i < n; i++)
		sizes_differ |= b->rows.row[i].size != b->rows.row[0].size;
	/* Traffic from elsewhere (--dev): no generator of ours to measure. */
	for (i = 0; i < n; i++) {
		struct bench_row *r = &b->rows.row[i];

		r->gen = -1;
		if (b->net.topo->own_gen)
			r->gen = gen_row(&b->rows, r->size, r->flows,
					 sizes_differ);
	}
	for (i = n; i < b->rows.n; i++)
		b->rows.row[i].gen = i;
	if (b->rows.too_many) {
		hc_err_set(err, "%s builds more than %d rows",
			   b->rows.scen->name, BENCH_MAX_ROWS);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		struct bench_row *r = &b->rows.row[i];
		const char *no = b->opt.dev && r->kind->dev_refused ?
					 r->kind->dev_refused(b->opt.dev) :
					 NULL;

		if (no) {
			hc_err_set(err, "--dev '%s': row %s: %s", b->opt.dev,
				   r->name, no);
			return -EINVAL;
		}
		/* What dropping every frame there must not run (its scenario
		 * says by now whether the row drops). */
		if (r->hook && r->drop && r->hook->drop_path) {
			char g[64];

			snprintf(g, sizeof(g), "!%s", r->hook->drop_path);
			bench_row_path(r, g);
		}
		/*
		 * inject: the live loop runs XDP programs itself, and their
		 * redirects are BPF_PROG_RUN's (xdp_do_redirect_frame); its
		 * frames that are not a loop row's redirect none.
		 */
		if (b->net.topo && b->net.topo->inject)
			inject_redirect(r);
		/*
		 * The loop's rows attach generic XDP to hcd's idle peer, which
		 * turns generic XDP's static key on: every frame they pass to
		 * the stack calls do_xdp_generic, to find no program on hcd.
		 */
		if (b->net.topo && b->net.topo->inject && r->hook &&
		    r->hook->no_driver)
			path_remove(r, "!do_xdp_generic");
		r->base = bench_row_find(&b->rows, r->base_name);
		if (r->base < 0) {
			hc_err_set(err, "%s: row %s has no baseline '%s'",
				   b->rows.scen->name, r->name, r->base_name);
			return -EINVAL;
		}
	}
	/* The feed's part of every row's path, gen-only's too. */
	for (i = 0; b->net.topo && b->net.topo->row_path && i < b->rows.n; i++)
		b->net.topo->row_path(b, &b->rows.row[i]);
	return 0;
}

int bench_counts_parse(void *cfg, const char *arg, struct hc_err *err)
{
	struct bench_counts *c = cfg;
	char list[256], *save, *w, *end;
	unsigned long v;

	snprintf(list, sizeof(list), "%s", arg);
	c->n = 0;
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		errno = 0;
		v = strtoul(w, &end, 10);
		if (*end == 'k' && !end[1] && v <= c->max / 1000)
			v *= 1000, end++;
		if (errno || *end || !v || v > c->max || w[0] == '-' ||
		    (c->n && v <= c->v[c->n - 1]) || c->n == BENCH_MAX_COUNTS) {
			hc_err_set(
				err,
				"--%s '%s': expected up to %d ascending %s from 1 to %u (\"1k\" for 1000), at '%s'",
				c->opt, arg, BENCH_MAX_COUNTS, c->what, c->max,
				w);
			return -EINVAL;
		}
		c->v[c->n++] = v;
	}
	if (!c->n) {
		hc_err_set(err, "--%s '%s': no %s", c->opt, arg,
			   c->what);
		return -EINVAL;
	}
	return 0;
}

int bench_counts(const struct bench_counts *c, const __u32 **v)
{
	int n = 0;

	if (c->n) {
		*v = c->v;
		return c->n;
	}
	*v = c->def;
	while (c->def[n])
		n++;
	return n;
}
