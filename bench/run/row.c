// SPDX-License-Identifier: GPL-2.0
/*
 * A row and its rounds as every part of bench marks them: INVALID for
 * the first reason found, a round's name, whether its frames add up.
 * Below the run, the topologies and the checks, which all call it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "row.h"

void bench_row_invalid(struct bench_row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->reason[0])
		return; /* the first reason is the one to fix */
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

void bench_row_fail(struct bench_row *r, const char *step, int ret,
		    const struct hc_err *err)
{
	bench_row_invalid(r, "%s: %s%s%s%s%s", step, err->msg,
			  err->msg[0] && ret ? ": " : "",
			  ret ? strerror(-ret) : "",
			  err->kernel[0] ? ". Kernel: " : "", err->kernel);
	r->dead = true;
	r->taken |= ret == -EEXIST;
}

void bench_round_free(struct bench_round *rd)
{
	free(rd->ethtool);
	free(rd->cpu_mpps);
	free(rd->samples);
	free(rd->win);
	rd->ethtool = NULL;
	rd->cpu_mpps = NULL;
	rd->samples = NULL;
	rd->win = NULL;
}

int bench_rows_alloc(struct bench_rows *rows)
{
	rows->row = calloc(BENCH_MAX_ROWS + 1, sizeof(*rows->row));
	return rows->row ? 0 : -ENOMEM;
}

void bench_rows_free(struct bench_rows *rows)
{
	int i, k;

	for (i = 0; rows->row && i < rows->n; i++) {
		for (k = 0; k < rows->row[i].nrd; k++)
			bench_round_free(&rows->row[i].rd[k]);
		free(rows->row[i].rd);
	}
	free(rows->row);
	rows->row = NULL;
}

bool bench_round_accounted(const struct bench_row *r,
			   const struct bench_round *rd)
{
	if (r->kind->generator)
		return !rd->seen;
	return rd->generated == rd->seen + rd->dropped_before + rd->dropped_dut;
}

void bench_round_rings(struct bench_round *rd, const struct bench_count *c0,
		       const struct bench_count *c1)
{
	rd->ring_full = c1->ring_full - c0->ring_full;
	rd->fill_empty =
		c1->dropped - c1->ring_full - (c0->dropped - c0->ring_full);
}

const char *bench_round_drops(const struct bench_round *rd, char *buf,
			      size_t size)
{
	__u64 rest = rd->dropped_before - rd->ring_full - rd->fill_empty;
	size_t n;

	buf[0] = '\0';
	if (!rd->ring_full && !rd->fill_empty)
		return buf;
	snprintf(buf, size, ":");
	if (rd->ring_full)
		snprintf(buf + strlen(buf), size - strlen(buf),
			 " %llu with AF_XDP's rx ring full,",
			 (unsigned long long)rd->ring_full);
	if (rd->fill_empty)
		snprintf(buf + strlen(buf), size - strlen(buf),
			 " %llu with its fill ring empty,",
			 (unsigned long long)rd->fill_empty);
	if (rest && rest <= rd->dropped_before)
		snprintf(buf + strlen(buf), size - strlen(buf),
			 " %llu at the device,", (unsigned long long)rest);
	n = strlen(buf);
	if (n && buf[n - 1] == ',')
		buf[n - 1] = '\0';
	return buf;
}

const char *bench_round_name(const struct bench_round *rd, char *buf,
			     size_t size)
{
	if (rd->round)
		snprintf(buf, size, "round %d", rd->round);
	else
		snprintf(buf, size, "warm-up round");
	return buf;
}
