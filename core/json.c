// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "json.h"

bool hc_json_pretty;

/* -p: a member per line, indented by depth, as bpftool -p does. */
static void newline(struct hc_json *j, int depth)
{
	fputc('\n', j->f);
	while (depth-- > 0)
		fputs("  ", j->f);
}

static void key(struct hc_json *j, const char *k)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		j->first[j->depth] = false;
		if (hc_json_pretty)
			newline(j, j->depth);
	}
	if (k)
		fprintf(j->f, hc_json_pretty ? "\"%s\": " : "\"%s\":", k);
}

void jw_open(struct hc_json *j, const char *k, char bracket)
{
	key(j, k);
	fputc(bracket, j->f);
	if (j->depth < HC_JSON_DEPTH - 1)
		j->first[++j->depth] = true;
}

void jw_close(struct hc_json *j, char bracket)
{
	if (hc_json_pretty && j->depth > 0 && !j->first[j->depth])
		newline(j, j->depth - 1);
	fputc(bracket, j->f);
	if (j->depth > 0)
		j->depth--;
	if (!j->depth) {
		fputc('\n', j->f);
		fflush(j->f);
	}
}

void jw_u64(struct hc_json *j, const char *k, unsigned long long v)
{
	key(j, k);
	fprintf(j->f, "%llu", v);
}

void jw_f64(struct hc_json *j, const char *k, double v)
{
	key(j, k);
	fprintf(j->f, "%.6g", v);
}

/* The length of the valid UTF-8 sequence at s, or 0 (RFC 3629). */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned int c;

	if (s[0] < 0x80)
		return 1;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!n || s[0] > 0xf4)
		return 0;
	c = s[0] & (0x3f >> (n - 1));
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and beyond U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

/* Bytes that are not UTF-8 (a device or namespace name) become \u00XX. */
void jw_str(struct hc_json *j, const char *k, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	key(j, k);
	fputc('"', j->f);
	while (*s) {
		n = utf8_len(s);
		if (*s == '"' || *s == '\\')
			fprintf(j->f, "\\%c", *s);
		else if (*s < 0x20 || !n)
			fprintf(j->f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, j->f);
		s += n ? n : 1;
	}
	fputc('"', j->f);
}

void jw_raw(struct hc_json *j, const char *k, const char *text)
{
	key(j, k);
	fputs(text, j->f);
}

/* A '\n'-separated list as an array of strings. */
void jw_lines(struct hc_json *j, const char *key, const char *list)
{
	char line[1100];
	const char *l, *end;

	jw_open(j, key, '[');
	for (l = list; *l; l = *end ? end + 1 : end) {
		end = strchr(l, '\n') ?: l + strlen(l);
		snprintf(line, sizeof(line), "%.*s", (int)(end - l), l);
		if (line[0])
			jw_str(j, NULL, line);
	}
	jw_close(j, ']');
}
