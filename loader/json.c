// SPDX-License-Identifier: GPL-2.0
#include "json.h"

static void key(struct hc_json *j, const char *k)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		j->first[j->depth] = false;
	}
	if (k)
		fprintf(j->f, "\"%s\":", k);
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

void jw_str(struct hc_json *j, const char *k, const char *s)
{
	key(j, k);
	fputc('"', j->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(j->f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(j->f, "\\u%04x", *s);
		else
			fputc(*s, j->f);
	}
	fputc('"', j->f);
}

void jw_raw(struct hc_json *j, const char *k, const char *text)
{
	key(j, k);
	fputs(text, j->f);
}
