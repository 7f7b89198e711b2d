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

/* bench_env_files' first lines, as read from the netns fd is open on. */
void bench_env_settings(int fd, bench_settings value);
/* A file's first line into buf, trimmed; "" when it cannot be read. */
void bench_first_line(const char *path, char *buf, size_t size);
/* The machine's state into env, bench's own namespaces left out once made. */
int bench_env_take(struct bench *b, struct bench_env *env, bool made);
/*
 * After round (-1: after the rounds), what changed since the last
 * reading: "round 3: new: X" lines into b->env.changed, and on stderr
 * with the rows each may have moved.
 */
void bench_env_watch(struct bench *b, int round);

/* Which of a run's rows a state of the machine moves. */
enum bench_moves {
	BENCH_MOVES_NONE,
	BENCH_MOVES_SKB, /* those whose frames become skbs (bench_path_skb) */
	BENCH_MOVES_ALL,
};
/* What env's member key moves; item: an "outside" line, else NULL. */
enum bench_moves bench_env_moves(const char *key, const char *item);
/* The same of a line of bench_env_changes ("new: X", "KEY A -> B"). */
enum bench_moves bench_env_line_moves(const char *line);

#endif
