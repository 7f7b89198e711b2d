/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One printer for text, JSON and CSV, in the manner of iproute2's
 * json_print: each column is one call that says which outputs show it,
 * so they cannot drift apart. bench's report and run's stats print with
 * it.
 */
#ifndef HC_PRINT_H
#define HC_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "json.h"

enum { HC_PR_TEXT = 1, HC_PR_JSON = 2, HC_PR_CSV = 4 };
#define HC_PR_ALL (HC_PR_TEXT | HC_PR_JSON | HC_PR_CSV)
#define HC_PR_DATA (HC_PR_JSON | HC_PR_CSV) /* the machine-read outputs */
#define HC_PR_COLS 16

/* A printer of mode to f (JSON's writer writes to f too). */
#define HC_PR_INIT(m, file)                                   \
	{                                                     \
		.mode = (m), .f = (file), .j = {.f = (file) } \
	}

struct hc_pr {
	int mode;
	FILE *f;
	struct hc_json j;
	bool header; /* text and CSV: the column names instead of values */
	int col; /* columns printed on this line */
	const char *obj; /* CSV: the open object's key, its fields' prefix */
	bool measure; /* text: take each column's widest cell, print nothing */
	int width[HC_PR_COLS]; /* text: the widest cell of each column */
};

/* CSV: "obj_key" inside an object. */
void hc_pr_csv_name(struct hc_pr *p, const char *key, const char *suffix);
void hc_pr_csv_num(struct hc_pr *p, int prec, double v);
/* NaN and infinities are null. */
void hc_pr_json_num(struct hc_pr *p, const char *key, double v);
/* JSON as it is: a value already written (a document of another run). */
void hc_pr_json_raw(struct hc_pr *p, const char *key, const char *text);
/* An estimate: {"median": M, "ci": [LO, HI]}. */
void hc_pr_json_est(struct hc_pr *p, const char *key, double median,
		    double lo, double hi);
/*
 * Text: width < 0 aligns left; the last column has width 0. A column is
 * as wide as its widest cell, which a measuring pass finds first.
 */
void hc_pr_cell(struct hc_pr *p, int width, const char *s);
/* A column of which outputs: key in JSON and CSV, label in text's header. */
void hc_pr_str(struct hc_pr *p, int which, const char *key, const char *label,
	       int width, const char *s);
/* v: 1 true, 0 false, -1 not known (null, empty, "n/a"). */
void hc_pr_bool(struct hc_pr *p, int which, const char *key,
		const char *label, int width, int v);
void hc_pr_num(struct hc_pr *p, int which, const char *key, const char *label,
	       int width, int prec, double v);
/* A count: text with thousands' commas and unit after it ("1,234 pps"). */
void hc_pr_count(struct hc_pr *p, int which, const char *key,
		 const char *label, int width, unsigned long long v,
		 const char *unit);
void hc_pr_list(struct hc_pr *p, int which, const char *key,
		const char *const *items, int n);
/* A JSON object ('{') or array ('['); in CSV, key prefixes its members. */
void hc_pr_open(struct hc_pr *p, int which, const char *key, char c);
void hc_pr_close(struct hc_pr *p, int which, char c);
/* A line of columns ends (text and CSV), if it has any. */
void hc_pr_end(struct hc_pr *p);
/*
 * A table of n rows, row i's columns printed by cols(p, arg, i): in JSON
 * an array under key of an object per row; in text the columns' labels
 * over the rows, each column as wide as its widest cell; in CSV the
 * columns' names over the rows.
 */
void hc_pr_table(struct hc_pr *p, const char *key, int n,
		 void (*cols)(struct hc_pr *p, const void *arg, int i),
		 const void *arg);

/*
 * Free-form lines, as iproute2's print_*(PRINT_ANY, key, fmt, v): text
 * writes the value with fmt, JSON writes it under key, CSV as a column
 * (its name in the header). One call per value, so text and JSON cannot
 * drift apart.
 */
void hc_pr_fstr(struct hc_pr *p, int which, const char *key, const char *fmt,
		const char *s);
void hc_pr_fu64(struct hc_pr *p, int which, const char *key, const char *fmt,
		unsigned long long v);
void hc_pr_fs64(struct hc_pr *p, int which, const char *key, const char *fmt,
		long long v);
void hc_pr_fnum(struct hc_pr *p, int which, const char *key, const char *fmt,
		double v);
/* Text only: words between the values. */
void hc_pr_text(struct hc_pr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A '\n'-separated list: a JSON array of its lines; text as it is. */
void hc_pr_lines(struct hc_pr *p, int which, const char *key,
		 const char *fmt, const char *list);

/*
 * Free text for a terminal (messages, status lines): a control character
 * in it (a device named with escape sequences) is written as \xHH, never
 * sent raw. Newlines and tabs pass.
 */
void hc_text_printf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
