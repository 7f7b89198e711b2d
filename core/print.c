// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hookcmp.h"
#include "print.h"

/* 9776320 -> "9,776,320" */
const char *hc_commas(char *buf, size_t size, __u64 v)
{
	char tmp[32];
	int len, i, o = 0;

	len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (i = 0; i < len && o < (int)size - 2; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static void sep(struct hc_pr *p)
{
	if (p->col++)
		fputc(p->mode == HC_PR_CSV ? ',' : ' ', p->f);
}

/* CSV: "obj_key" inside an object. */
void hc_pr_csv_name(struct hc_pr *p, const char *key, const char *suffix)
{
	sep(p);
	fprintf(p->f, "%s%s%s%s", p->obj ? p->obj : "", p->obj ? "_" : "", key,
		suffix);
}

static void csv_str(struct hc_pr *p, const char *s)
{
	sep(p);
	if (!s)
		return;
	fputc('"', p->f);
	for (; *s; s++)
		fprintf(p->f, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', p->f);
}

void hc_pr_csv_num(struct hc_pr *p, int prec, double v)
{
	sep(p);
	if (!isnan(v))
		fprintf(p->f, "%.*f", prec, v);
}

void hc_pr_json_num(struct hc_pr *p, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		jw_raw(&p->j, key, "null");
	else
		jw_f64(&p->j, key, v);
}

void hc_pr_json_est(struct hc_pr *p, const char *key, double median,
		    double lo, double hi)
{
	jw_open(&p->j, key, '{');
	hc_pr_json_num(p, "median", median);
	jw_open(&p->j, "ci", '[');
	hc_pr_json_num(p, NULL, lo);
	hc_pr_json_num(p, NULL, hi);
	jw_close(&p->j, ']');
	jw_close(&p->j, '}');
}

/*
 * Text: width < 0 aligns left; the last column has width 0. A column is
 * as wide as its widest cell, which a measuring pass finds first.
 */
void hc_pr_cell(struct hc_pr *p, int width, const char *s)
{
	int i = p->col, w = strlen(s);

	if (p->measure) {
		p->col++;
		if (i < HC_PR_COLS && w > p->width[i])
			p->width[i] = w;
		return;
	}
	sep(p);
	if (i < HC_PR_COLS && width && abs(width) < p->width[i])
		width = width < 0 ? -p->width[i] : p->width[i];
	fprintf(p->f, "%*s", width, s);
}

void hc_pr_str(struct hc_pr *p, int which, const char *key, const char *label,
	       int width, const char *s)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON) {
		if (s)
			jw_str(&p->j, key, s);
		else
			jw_raw(&p->j, key, "null");
	} else if (p->mode == HC_PR_CSV) {
		if (p->header)
			hc_pr_csv_name(p, key, "");
		else
			csv_str(p, s);
	} else {
		hc_pr_cell(p, width, p->header ? label : s ? s : "-");
	}
}

/* v: 1 true, 0 false, -1 not known (null, empty, "n/a"). */
void hc_pr_bool(struct hc_pr *p, int which, const char *key, const char *label,
		int width, int v)
{
	static const char *const json[] = { "null", "false", "true" };
	static const char *const text[] = { "n/a", "no", "yes" };

	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON)
		jw_raw(&p->j, key, json[v + 1]);
	else if (p->mode == HC_PR_CSV && p->header)
		hc_pr_csv_name(p, key, "");
	else if (p->mode == HC_PR_CSV)
		sep(p), fputs(v < 0 ? "" : json[v + 1], p->f);
	else
		hc_pr_cell(p, width, p->header ? label : text[v + 1]);
}

void hc_pr_num(struct hc_pr *p, int which, const char *key, const char *label,
	       int width, int prec, double v)
{
	char buf[32] = "-";

	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON) {
		hc_pr_json_num(p, key, v);
	} else if (p->mode == HC_PR_CSV) {
		if (p->header)
			hc_pr_csv_name(p, key, "");
		else
			hc_pr_csv_num(p, prec, v);
	} else {
		if (!isnan(v))
			snprintf(buf, sizeof(buf), "%.*f", prec, v);
		hc_pr_cell(p, width, p->header ? label : buf);
	}
}

void hc_pr_list(struct hc_pr *p, int which, const char *key,
		const char *const *items, int n)
{
	char buf[256] = "";
	size_t len = 0;
	int i;

	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON) {
		jw_open(&p->j, key, '[');
		for (i = 0; i < n; i++)
			jw_str(&p->j, NULL, items[i]);
		jw_close(&p->j, ']');
		return;
	}
	for (i = 0; i < n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? ";" : "", items[i]);
	hc_pr_str(p, which, key, key, 0, buf);
}

void hc_pr_open(struct hc_pr *p, int which, const char *key, char c)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON)
		jw_open(&p->j, key, c);
	p->obj = key;
}

void hc_pr_close(struct hc_pr *p, int which, char c)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON)
		jw_close(&p->j, c);
	p->obj = NULL;
}

void hc_pr_count(struct hc_pr *p, int which, const char *key, const char *label,
		 int width, unsigned long long v, const char *unit)
{
	char buf[64];

	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON) {
		jw_u64(&p->j, key, v);
	} else if (p->mode == HC_PR_CSV) {
		if (p->header)
			hc_pr_csv_name(p, key, "");
		else
			sep(p), fprintf(p->f, "%llu", v);
	} else if (p->header) {
		hc_pr_cell(p, width, label);
	} else {
		hc_commas(buf, sizeof(buf), v);
		if (unit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 " %s", unit);
		hc_pr_cell(p, width, buf);
	}
}

void hc_pr_end(struct hc_pr *p)
{
	if (p->mode != HC_PR_JSON && !p->measure && p->col)
		fputc('\n', p->f);
	p->col = 0;
}

void hc_pr_table(struct hc_pr *p, const char *key, int n,
		 void (*cols)(struct hc_pr *p, const void *arg, int i),
		 const void *arg)
{
	int pass, i;

	if (p->mode == HC_PR_JSON) {
		hc_pr_open(p, HC_PR_JSON, key, '[');
		for (i = 0; i < n; i++) {
			hc_pr_open(p, HC_PR_JSON, NULL, '{');
			cols(p, arg, i);
			hc_pr_close(p, HC_PR_JSON, '}');
		}
		hc_pr_close(p, HC_PR_JSON, ']');
		return;
	}
	/* Text: a pass that sizes the columns, then the one printed. */
	for (pass = p->mode == HC_PR_TEXT ? 0 : 1; pass < 2 && n; pass++) {
		p->measure = !pass;
		p->header = true;
		p->col = 0;
		cols(p, arg, 0);
		hc_pr_end(p);
		p->header = false;
		for (i = 0; i < n; i++) {
			cols(p, arg, i);
			hc_pr_end(p);
		}
	}
}

/* CSV of a free-form value: a column, or its name in the header. */
static bool csv_col(struct hc_pr *p, const char *key)
{
	if (p->mode != HC_PR_CSV)
		return false;
	if (p->header)
		hc_pr_csv_name(p, key, "");
	return true;
}

void hc_pr_fstr(struct hc_pr *p, int which, const char *key, const char *fmt,
		const char *s)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON && s)
		jw_str(&p->j, key, s);
	else if (p->mode == HC_PR_JSON)
		jw_raw(&p->j, key, "null");
	else if (csv_col(p, key) && !p->header)
		csv_str(p, s);
	else if (p->mode == HC_PR_TEXT)
		hc_text_printf(p->f, fmt, s ?: "-");
}

void hc_pr_fu64(struct hc_pr *p, int which, const char *key, const char *fmt,
		unsigned long long v)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON)
		jw_u64(&p->j, key, v);
	else if (csv_col(p, key) && !p->header)
		sep(p), fprintf(p->f, "%llu", v);
	else if (p->mode == HC_PR_TEXT)
		fprintf(p->f, fmt, v);
}

void hc_pr_fs64(struct hc_pr *p, int which, const char *key, const char *fmt,
		long long v)
{
	char buf[24];

	if (!(which & p->mode))
		return;
	snprintf(buf, sizeof(buf), "%lld", v);
	if (p->mode == HC_PR_JSON)
		jw_raw(&p->j, key, buf);
	else if (csv_col(p, key) && !p->header)
		sep(p), fputs(buf, p->f);
	else if (p->mode == HC_PR_TEXT)
		fprintf(p->f, fmt, v);
}

void hc_pr_fnum(struct hc_pr *p, int which, const char *key, const char *fmt,
		double v)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON)
		hc_pr_json_num(p, key, v);
	else if (csv_col(p, key) && !p->header)
		hc_pr_csv_num(p, 6, v);
	else if (p->mode == HC_PR_TEXT)
		fprintf(p->f, fmt, v);
}

void hc_pr_text(struct hc_pr *p, const char *fmt, ...)
{
	va_list ap;

	if (p->mode != HC_PR_TEXT || p->measure)
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}

void hc_pr_lines(struct hc_pr *p, int which, const char *key,
		 const char *fmt, const char *list)
{
	if (!(which & p->mode))
		return;
	if (p->mode == HC_PR_JSON)
		jw_lines(&p->j, key, list);
	else
		hc_pr_fstr(p, which, key, fmt, list);
}

void hc_pr_json_raw(struct hc_pr *p, const char *key, const char *text)
{
	jw_raw(&p->j, key, text);
}

void hc_text_printf(FILE *f, const char *fmt, ...)
{
	char buf[2048], *text = buf;
	const unsigned char *c;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* A longer text (a list of lines) whole, unless memory is short. */
	if (len >= (int)sizeof(buf) && (text = malloc(len + 1))) {
		va_start(ap, fmt);
		vsnprintf(text, len + 1, fmt, ap);
		va_end(ap);
	}
	for (c = (const unsigned char *)(text ?: buf); *c; c++)
		if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f)
			fprintf(f, "\\x%02x", *c);
		else
			fputc(*c, f);
	if (text != buf)
		free(text);
}
