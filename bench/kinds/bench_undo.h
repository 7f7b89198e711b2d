/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: bench's journal records (undo.c). Not undo.h: here
 * that name would hide core/undo.h from the bench files that include it.
 */
#ifndef HC_BENCH_UNDO_H
#define HC_BENCH_UNDO_H

#include "bench.h"

extern const struct hc_jkind bench_jkind_variant;
struct bench_jvariant {
	char cmd[1024]; /* its --undo */
	__u32 timeout; /* --variant-timeout, in seconds */
};

struct hc_proc;
/*
 * hc_proc_result for a --setup or --undo: what it wrote to stderr, every
 * line of it (bounded, saying where it was cut), not only its last.
 */
int bench_proc_result(struct hc_proc *p, const char *what, struct hc_err *err);

/*
 * What a --setup or --undo left running (a daemon, setsid -f's, a job in
 * the background): bench_left_start makes this process the subreaper of
 * what it starts and notes its children; once the command has ended,
 * bench_left_end gives the children it has since (orphans of the
 * command's, reparented here), their pids in l->pid, and how many, and
 * "pid 7 (sleep), ..." in l->said. They are left alone, not stopped:
 * only their pids say they are the command's.
 */
#define BENCH_LEFT_MAX 8
struct bench_left {
	pid_t pid[64]; /* before; then what it left */
	int n;
	char said[BENCH_LEFT_MAX * 32];
};
void bench_left_start(struct bench_left *l);
int bench_left_end(struct bench_left *l);

#endif
