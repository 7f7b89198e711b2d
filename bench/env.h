/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: the machine's state and settings, before the run and after
 * (env.c).
 */
#ifndef HC_BENCH_ENV_H
#define HC_BENCH_ENV_H

#include "bench.h"

/* The settings outside the bench that move a receive path's cost. */
struct bench_env_file {
	const char *key, *path;
};
extern const struct bench_env_file bench_env_files[];

/* Where env is read: from the caller's netns, whose settings it has. */
struct bench_env_at {
	const int *own; /* bench's own namespaces, left out of outside */
	int nown;
	int dut_fd; /* --dev: the DUT's netns, whose tables are read; -1 */
	const char *dev; /* --dev: its RPS, RFS and XPS; NULL */
	int ifindex; /* dev's */
};
/* The machine's state into env. */
void bench_env_read(struct bench_env *env, const struct bench_env_at *at);
/* bench_env_files' first lines, as read from the netns fd is open on. */
void bench_env_settings(int fd, bench_settings value);
/* A file's first line into buf, trimmed; "" when it cannot be read. */
void bench_first_line(const char *path, char *buf, size_t size);
/* What differs between two readings into env->changed, lines; how many. */
int bench_env_changes(struct bench_env *env, const struct bench_env *after);

#endif
