/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer: one object per line, commas handled for you; with
 * hc_json_pretty (-p), a member per line, indented.
 */
#ifndef HC_JSON_H
#define HC_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define HC_JSON_DEPTH 8

struct hc_json {
	FILE *f;
	int depth;
	bool first[HC_JSON_DEPTH];
};

extern bool hc_json_pretty;

void jw_open(struct hc_json *j, const char *key, char bracket);
void jw_close(struct hc_json *j, char bracket);
void jw_u64(struct hc_json *j, const char *key, unsigned long long v);
void jw_f64(struct hc_json *j, const char *key, double v);
void jw_str(struct hc_json *j, const char *key, const char *s);
/* Writes text as it is: null, true, a number already formatted. */
void jw_raw(struct hc_json *j, const char *key, const char *text);
/* A '\n'-separated list as an array of its lines. */
void jw_lines(struct hc_json *j, const char *key, const char *list);

#endif
