/* SPDX-License-Identifier: GPL-2.0 */
/* hookcmp bench: the report, as text, JSON or CSV (report.c). */
#ifndef HC_BENCH_REPORT_H
#define HC_BENCH_REPORT_H

#include "bench.h"

void bench_report_text(const struct bench *b, FILE *f);
void bench_report_json(const struct bench *b, FILE *f);
void bench_report_csv(const struct bench *b, FILE *f);
/* A scenario's growth section (summary.h), text and JSON ("growth"). */
struct bench_growth;
void bench_growth_report(struct hc_pr *p, const struct bench_rows *rows,
			 const struct bench_result *res,
			 const struct bench_growth *g);

#endif
