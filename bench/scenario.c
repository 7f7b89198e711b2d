// SPDX-License-Identifier: GPL-2.0
/* The scenario table, and what scenarios build their rows with. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"

extern const struct bench_scenario bench_scen_hooks, bench_scen_static_key,
	bench_scen_parse, bench_scen_rules, bench_scen_size, bench_scen_aa,
	bench_scen_forward;

const struct bench_scenario *const bench_scenarios[] = {
	&bench_scen_hooks,
	&bench_scen_static_key,
	&bench_scen_parse,
	&bench_scen_rules,
	&bench_scen_size,
	&bench_scen_aa,
	&bench_scen_forward,
	NULL,
};

bool bench_wanted(struct bench *b, const char *name)
{
	char list[256], *save, *w;
	int i = 0;
	bool hit = false;

	if (!b->hooks)
		return true;
	snprintf(list, sizeof(list), "%s", b->hooks);
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save), i++) {
		if (strcmp(w, name))
			continue;
		b->hooks_matched |= 1ULL << (i % 64);
		hit = true;
	}
	return hit || !strcmp(name, b->scen->baseline);
}

struct bench_row *bench_row_add(struct bench *b, const char *name,
				const struct bench_kind *kind)
{
	/* The slot past the end takes what does not fit; build refuses it. */
	struct bench_row *r = &b->rows[b->nrows];

	if (b->nrows < BENCH_MAX_ROWS)
		b->nrows++;
	else
		b->too_many = true;
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->size = HC_PKT_MIN;
	r->drop = true;
	r->base = r->gen = -1;
	return r;
}

void bench_row_base(struct bench_row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->base_name, sizeof(r->base_name), fmt, ap);
	va_end(ap);
}

int bench_row_find(const struct bench *b, const char *name)
{
	int i;

	for (i = 0; i < b->nrows; i++)
		if (!strcmp(b->rows[i].name, name))
			return i;
	return -1;
}

void bench_rows_per_hook(struct bench *b, const char *const *suffixes,
			 void (*set)(struct bench_row *r, int level))
{
	const struct bench_hook *h;
	struct bench_row *r;
	int i;

	for (h = bench_hooks; h->name; h++) {
		if (!bench_wanted(b, h->name))
			continue;
		for (i = 0; suffixes[i]; i++) {
			r = bench_row_hook(b, h, suffixes[i]);
			set(r, i);
			bench_row_base(r, "%s%s", h->name, suffixes[0]);
		}
	}
}

/* The generator alone, at a frame size: "gen-only", or "gen-only-SIZE". */
static int gen_row(struct bench *b, __u32 size, bool sizes_differ)
{
	struct bench_row *r;
	char name[40];
	int i;

	if (sizes_differ)
		snprintf(name, sizeof(name), "gen-only-%u", size);
	else
		snprintf(name, sizeof(name), "gen-only");
	i = bench_row_find(b, name);
	if (i >= 0)
		return i;
	r = bench_row_add(b, name, &bench_kind_gen);
	r->size = size;
	r->drop = false;
	return b->nrows - 1;
}

int bench_rows_build(struct bench *b, struct hc_err *err)
{
	char list[256], *save, *w;
	bool sizes_differ = false;
	int i, n, k = 0;

	b->scen->build(b);
	snprintf(list, sizeof(list), "%s", b->hooks ? b->hooks : "");
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save), k++) {
		if (!(b->hooks_matched & (1ULL << (k % 64)))) {
			hc_err_set(err, "--hooks '%s' selects no row of %s", w,
				   b->scen->name);
			return -EINVAL;
		}
	}
	n = b->nrows;
	for (i = 1; i < n; i++)
		sizes_differ |= b->rows[i].size != b->rows[0].size;
	/* Traffic from elsewhere (--dev): no generator of ours to measure. */
	for (i = 0; i < n; i++) {
		b->rows[i].gen = -1;
		if (b->topo->own_gen)
			b->rows[i].gen =
				gen_row(b, b->rows[i].size, sizes_differ);
	}
	for (i = n; i < b->nrows; i++)
		b->rows[i].gen = i;
	if (b->too_many) {
		hc_err_set(err, "%s builds more than %d rows", b->scen->name,
			   BENCH_MAX_ROWS);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		struct bench_row *r = &b->rows[i];

		r->base = bench_row_find(b, r->base_name);
		if (r->base < 0) {
			hc_err_set(err, "%s: row %s has no baseline '%s'",
				   b->scen->name, r->name, r->base_name);
			return -EINVAL;
		}
	}
	return 0;
}
