// SPDX-License-Identifier: GPL-2.0
/*
 * iptables, nft and plot.sh, run from an argv array: nothing the user
 * typed (a --plot DIR with a quote in it) is parsed by a shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "bench.h"

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

int bench_exec(int nsfd, const char *const *argv, char *out, size_t size,
	       struct hc_err *err)
{
	char errbuf[1024], line[200], *bufs[2] = { out, errbuf };
	size_t sizes[2] = { out ? size : 0, sizeof(errbuf) }, lens[2] = {};
	int po[2], pe[2], status;
	struct pollfd pfd[2];
	pid_t pid;

	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return e;
	}
	if (!pid) {
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET))
			_exit(126);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	pfd[0] = (struct pollfd){ .fd = po[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		char discard[4096];
		int i;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			char *dst = lens[i] + 1 < sizes[i] ? bufs[i] + lens[i] :
							     discard;
			size_t room = dst == discard ? sizeof(discard) :
						       sizes[i] - 1 - lens[i];
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, dst, room);
			if (n > 0 && dst != discard)
				lens[i] += n;
			if (n <= 0 && !(n < 0 && errno == EINTR)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
		}
	}
	if (out && size)
		out[lens[0]] = '\0';
	errbuf[lens[1]] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	last_line(errbuf, line, sizeof(line));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		hc_err_set(err, "cannot run %s", argv[0]);
		return -ENOENT;
	}
	hc_err_set(err, "%s failed (%s %d)%s%s", argv[0],
		   WIFEXITED(status) ? "exit" : "signal",
		   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		   line[0] ? ", saying: " : "", line);
	return -EIO;
}
