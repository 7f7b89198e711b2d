// SPDX-License-Identifier: GPL-2.0
/*
 * Other programs, from an argv array: nothing the user typed (a --plot
 * DIR with a quote in it) is parsed by a shell unless the user asked for
 * one (bench --gen-cmd runs /bin/sh -c CMD).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "exec.h"
#include "stats.h"

#define ERR_TAIL 1024

static void close_pipes(int po[2], int pe[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
}

/* in: its stdin, or -1 for /dev/null */
static int proc_start(struct hc_proc *p, int nsfd, unsigned int flags, int in,
		      const char *const *argv, const char *const *env,
		      char *out, size_t size)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, e;

	memset(p, 0, sizeof(*p));
	p->fd[0] = p->fd[1] = p->pidfd = -1;
	p->pid = -1;
	p->buf[0] = out;
	p->size[0] = out ? size : 0;
	p->buf[1] = malloc(ERR_TAIL);
	p->size[1] = ERR_TAIL;
	if (out && size)
		out[0] = '\0';
	if (!p->buf[1] || pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		goto fail;
	p->buf[1][0] = '\0';
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0)
		goto fail;
	if (!p->pid) {
		/* Its own group: stopping it stops what it started. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET))
			_exit(126);
		if ((flags & HC_PROC_NEWNET) && unshare(CLONE_NEWNET))
			_exit(126);
		/* As ip netns exec: /sys/class/net shows this namespace's. */
		if ((nsfd >= 0 || (flags & HC_PROC_NEWNET)) &&
		    (flags & HC_PROC_SYSFS) &&
		    (unshare(CLONE_NEWNS) ||
		     mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) ||
		     /* no sysfs there before is no failure */
		     (umount2("/sys", MNT_DETACH) && errno != EINVAL) ||
		     mount("sysfs", "/sys", "sysfs", 0, NULL)))
			_exit(126);
		for (; env && *env; env++)
			putenv((char *)*env);
		/* ssh would read our terminal, from a background group. */
		e = in >= 0 ? in : open("/dev/null", O_RDONLY);
		if (e >= 0)
			dup2(e, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(p->pid, p->pid); /* before any kill(-pid) of ours */
	/* Readable once it exits, though a daemon of its holds its pipes. */
	p->pidfd = syscall(SYS_pidfd_open, p->pid, 0);
	close(po[1]);
	close(pe[1]);
	p->fd[0] = po[0];
	p->fd[1] = pe[0];
	return 0;
fail:
	e = -errno;
	close_pipes(po, pe);
	free(p->buf[1]);
	p->buf[1] = NULL;
	return e;
}

int hc_proc_start(struct hc_proc *p, int nsfd, unsigned int flags,
		  const char *const *argv, const char *const *env, char *out,
		  size_t size)
{
	return proc_start(p, nsfd, flags, -1, argv, env, out, size);
}

/* Appends to a buffer that keeps the tail of what was written. */
static void keep_tail(struct hc_proc *p, int i, const char *data, size_t n)
{
	size_t room = p->size[i] ? p->size[i] - 1 : 0;

	if (!room)
		return;
	if (n >= room) {
		data += n - room;
		n = room;
		p->len[i] = 0;
	} else if (p->len[i] + n > room) {
		size_t drop = p->len[i] + n - room;

		memmove(p->buf[i], p->buf[i] + drop, p->len[i] - drop);
		p->len[i] -= drop;
	}
	memcpy(p->buf[i] + p->len[i], data, n);
	p->len[i] += n;
	p->buf[i][p->len[i]] = '\0';
}

/*
 * Reads what its pipes hold, waiting up to ms for some, or for pidfd's
 * news that it exited (exited set); how many were ready.
 */
static int proc_read(struct hc_proc *p, int pidfd, int ms, bool *exited)
{
	struct pollfd pfd[3];
	char data[4096];
	int i, n;

	for (i = 0; i < 2; i++)
		pfd[i] = (struct pollfd){ .fd = p->fd[i], .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	n = poll(pfd, 3, ms);
	for (i = 0; n > 0 && i < 2; i++) {
		ssize_t got;

		if (pfd[i].fd < 0 || !pfd[i].revents)
			continue;
		got = read(pfd[i].fd, data, sizeof(data));
		if (got > 0)
			keep_tail(p, i, data, got);
		else if (!(got < 0 && errno == EINTR)) {
			close(p->fd[i]);
			p->fd[i] = -1;
		}
	}
	*exited = n > 0 && pfd[2].revents;
	return n;
}

static bool proc_exited(struct hc_proc *p)
{
	siginfo_t si = {};

	return !waitid(P_PID, p->pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       si.si_pid;
}

int hc_proc_poll(struct hc_proc *p, int ms)
{
	bool exited = false;
	int pidfd = p->pidfd, i;

	if (p->pid < 0)
		return 1;
	/* Before Linux 5.3, a look every 100 ms, leaving it to reap. */
	if (pidfd < 0 && (ms < 0 || ms > 100))
		ms = 100;
	if (p->fd[0] >= 0 || p->fd[1] >= 0)
		proc_read(p, pidfd, ms, &exited);
	if ((p->fd[0] >= 0 || p->fd[1] >= 0) &&
	    (exited || (pidfd < 0 && proc_exited(p)))) {
		/* All it wrote is in the pipes: the rest is another's. */
		for (i = 0; i < 64 && proc_read(p, -1, 0, &exited) > 0; i++)
			;
		for (i = 0; i < 2; i++)
			if (p->fd[i] >= 0)
				close(p->fd[i]);
		p->fd[0] = p->fd[1] = -1;
	}
	if (p->fd[0] >= 0 || p->fd[1] >= 0)
		return 0;
	if (pidfd >= 0)
		close(pidfd);
	p->pidfd = -1;
	/* Both pipes closed: it has exited, or soon will. */
	while (waitpid(p->pid, &p->status, 0) < 0)
		if (errno != EINTR) {
			p->status = -1;
			break;
		}
	p->pid = -1;
	return 1;
}

/* Until a SIGTERM'd process group is gone, before SIGKILL: doc/hookcmp.md. */
#define STOP_GRACE 2.0

void hc_proc_stop(struct hc_proc *p)
{
	double end = hc_now() + STOP_GRACE, left;
	pid_t pgid = p->pid;
	bool killed = false;

	if (pgid > 0) {
		kill(-pgid, SIGTERM);
		kill(pgid, SIGTERM);
	}
	for (;;) {
		left = end - hc_now();
		if (hc_proc_poll(p, killed   ? -1 :
				    left > 0 ? left * 1e3 + 1 :
					       0))
			break;
		if (!killed && pgid > 0 && hc_now() >= end) {
			kill(-pgid, SIGKILL);
			kill(pgid, SIGKILL);
			killed = true;
		}
	}
	/* Its group may outlive it (ignoring SIGTERM): the grace, then KILL. */
	while (pgid > 0) {
		/* Orphans that came to us (a subreaper) are ours to reap. */
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		/* Zombies of another's, after that: not ours to wait for. */
		if (kill(-pgid, 0) || hc_now() >= end + STOP_GRACE)
			break;
		if (!killed && hc_now() >= end) {
			kill(-pgid, SIGKILL);
			killed = true;
		}
		usleep(20000);
	}
	free(p->buf[1]);
	p->buf[1] = NULL;
}

/* The last non-empty line of text, trimmed, into buf. */
static void last_line(const char *text, char *buf, size_t size)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(buf, size, "%.*s", (int)(end - start), start);
}

int hc_proc_result(struct hc_proc *p, const char *name, struct hc_err *err)
{
	int status = p->status;
	char line[200];

	last_line(p->buf[1] ? p->buf[1] : "", line, sizeof(line));
	free(p->buf[1]);
	p->buf[1] = NULL;
	if (status == -1)
		return -ECHILD;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		hc_err_set(err, "cannot run %s", name);
		return -ENOENT;
	}
	hc_err_set(err, "%s failed (%s %d)%s%s", name,
		   WIFEXITED(status) ? "exit" : "signal",
		   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		   line[0] ? ", saying: " : "", line);
	return -EIO;
}

int hc_proc_wait(struct hc_proc *p, double secs)
{
	double end = hc_now() + secs, left;

	for (;;) {
		left = end - hc_now();
		if (hc_proc_poll(p,
				 secs ? (left > 0 ? left * 1e3 + 1 : 0) : -1))
			return 0;
		if (secs && hc_now() >= end) {
			hc_proc_stop(p);
			return -ETIMEDOUT;
		}
	}
}

static int exec_in(int nsfd, int in, const char *const *argv, char *out,
		   size_t size, struct hc_err *err)
{
	struct hc_proc p;
	int ret;

	hc_kill_point(argv[0]);
	ret = proc_start(&p, nsfd, 0, in, argv, NULL, out, size);
	if (ret)
		return ret;
	hc_proc_wait(&p, 0);
	ret = hc_proc_result(&p, argv[0], err);
	hc_kill_point(argv[0]);
	return ret;
}

int hc_exec(int nsfd, const char *const *argv, char *out, size_t size,
	    struct hc_err *err)
{
	return exec_in(nsfd, -1, argv, out, size, err);
}

#define SCRIPT_ARGS 8 /* argv's own, before the script's */

/*
 * The script is in memory, on the tool's stdin, named /dev/stdin for the
 * tools that want a file's name: no file in /tmp for a kill -9 to leave.
 */
int hc_exec_script(int nsfd, const char *const *argv,
		   int (*write)(FILE *f, void *arg), void *arg,
		   struct hc_err *err)
{
	const char *args[SCRIPT_ARGS + 2];
	int fd, ret, n;
	FILE *f;

	for (n = 0; argv[n]; n++) {
		if (n == SCRIPT_ARGS)
			return -E2BIG;
		args[n] = argv[n];
	}
	args[n] = "/dev/stdin";
	args[n + 1] = NULL;
	fd = memfd_create("hookcmp-script", MFD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		hc_err_set(err, "%s: a script in memory: %s", argv[0],
			   strerror(-ret));
		return ret;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
	} else {
		ret = write(f, arg)	?:
			      fflush(f) ? -errno :
		      ferror(f)		? -EIO :
					  0;
	}
	/* Read from its start, by the fd or by /dev/stdin's new open. */
	if (!ret && lseek(fd, 0, SEEK_SET))
		ret = -errno;
	if (ret)
		hc_err_set(err, "%s: writing its script: %s", argv[0],
			   strerror(-ret));
	else
		ret = exec_in(nsfd, fd, args, NULL, 0, err);
	if (f)
		fclose(f);
	return ret;
}
