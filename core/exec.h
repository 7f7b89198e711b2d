/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other programs: iptables, nft, plot.sh from an argv array, and bench's
 * --gen-cmd through /bin/sh. A child runs in a process group of its own,
 * so that stopping it stops what it started too.
 */
#ifndef HC_EXEC_H
#define HC_EXEC_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "hookcmp.h"

struct hc_proc {
	pid_t pid;
	int pidfd; /* readable once it exits; -1 before Linux 5.3 */
	int fd[2]; /* its stdout and stderr, -1 once closed */
	char *buf[2];
	size_t size[2], len[2];
	int status;
};

/* In nsfd, with a mount namespace and a sysfs of that namespace's own. */
#define HC_PROC_SYSFS 1u
/* In a new, empty network namespace (nsfd -1), where nothing of ours is. */
#define HC_PROC_NEWNET 2u

/*
 * Starts argv in the network namespace nsfd (-1: ours) with env ("K=V",
 * NULL-terminated, or NULL) added; its stdout goes to out (size bytes,
 * NULL: discarded), the tail of its stderr is kept.
 */
int hc_proc_start(struct hc_proc *p, int nsfd, unsigned int flags,
		  const char *const *argv, const char *const *env, char *out,
		  size_t size);
/*
 * Reads its output for up to ms; 1 once it has exited (what it started
 * may hold its pipes still: theirs is not read), 0 if not yet.
 */
int hc_proc_poll(struct hc_proc *p, int ms);
/*
 * Until it has exited, or for secs at most (0: no limit): 0, or
 * -ETIMEDOUT once it was stopped (hc_proc_stop) for running longer.
 */
int hc_proc_wait(struct hc_proc *p, double secs);
/*
 * SIGTERM to its process group, SIGKILL to what is left of the group 2 s
 * later; waits for it; no result to read.
 */
void hc_proc_stop(struct hc_proc *p);
/* 0 if it exited 0; else -errno, with what it said last in err. */
int hc_proc_result(struct hc_proc *p, const char *name, struct hc_err *err);

/* Runs argv to its end: hc_proc_start, hc_proc_poll, hc_proc_result. */
int hc_exec(int nsfd, const char *const *argv, char *out, size_t size,
	    struct hc_err *err);
/*
 * Runs argv with one more argument, /dev/stdin: its stdin is an unnamed
 * file in memory that write fills (0 or -errno). For scripts too long
 * for one argument: nft -f, iptables-restore, ipset restore -file.
 */
int hc_exec_script(int nsfd, const char *const *argv,
		   int (*write)(FILE *f, void *arg), void *arg,
		   struct hc_err *err);

#endif
