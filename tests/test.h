/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each check prints one line: "PASS name", "FAIL name: why" or
 * "SKIP name: why". tests/run.sh counts them for the summary.
 */
#ifndef HC_TEST_H
#define HC_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed;

static inline bool t_result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline bool t_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		t_failed++;
	/* tests/mutate.sh: a killed mutant need not run the rest. */
	if (!ok && getenv("HC_TEST_FAIL_FAST"))
		exit(1);
	return ok;
}

/* Prints what was expected and what came, and returns whether they match. */
#define CHECK_EQ(got, want, fmt, ...)                                        \
	({                                                                   \
		long long g_ = (got), w_ = (want);                           \
		if (g_ != w_)                                                \
			printf("  expected %s = %lld, got %lld\n", #got, w_, \
			       g_);                                          \
		t_result(g_ == w_, fmt, ##__VA_ARGS__);                      \
	})

#define CHECK_STR(got, want, fmt, ...)                                       \
	({                                                                   \
		const char *g_ = (got), *w_ = (want);                        \
		if (strcmp(g_, w_))                                          \
			printf("  expected %s = '%s', got '%s'\n", #got, w_, \
			       g_);                                          \
		t_result(!strcmp(g_, w_), fmt, ##__VA_ARGS__);               \
	})

#endif
