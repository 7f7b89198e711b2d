// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "hookcmp.h"
#include "netns.h"

#define PIDNS_INIT_INO 0xeffffffcULL /* PROC_PID_INIT_INO */
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

bool hc_netns_same(const struct hc_netns_id *a, const struct hc_netns_id *b)
{
	return a->ino == b->ino && a->dev == b->dev &&
	       (!a->cookie || !b->cookie || a->cookie == b->cookie);
}

/* The current thread's namespace's cookie, or 0 before Linux 5.14. */
static __u64 cookie_here(void)
{
	socklen_t len = sizeof(__u64);
	__u64 cookie = 0;
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s >= 0 && getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		cookie = 0;
	if (s >= 0)
		close(s);
	return cookie;
}

int hc_netns_run(int fd, int (*fn)(void *data), void *data)
{
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int ret;

	if (home < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET)) {
		ret = -errno;
	} else {
		ret = fn(data);
		if (setns(home, CLONE_NEWNET))
			ret = -errno;
	}
	close(home);
	return ret;
}

/* The cookie of the namespace entered: only a socket there says. */
static int read_cookie(void *cookie)
{
	*(__u64 *)cookie = cookie_here();
	return 0;
}

static int id_of(int fd, struct hc_netns_id *id)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return 0;
}

int hc_netns_self(struct hc_netns_id *id)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st))
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->proc = stat("/proc/thread-self/net/dev", &st) ? 0 : st.st_ino;
	id->cookie = cookie_here();
	return 0;
}

struct walk {
	hc_netns_fn fn;
	void *data;
	const struct hc_netns_id *target;
	__u64 nsfs_dev;
	struct hc_netns_id *seen;
	int n, cap;
	bool blind; /* something could not be looked at */
	bool denied; /* the last visit's open */
};

/*
 * A task whose ns links the kernel will not show: its /proc/net tells
 * whether it runs in the namespace looked for. (Its open files and
 * mounts stay unseen: a gap, doc/safety.md.)
 */
static void hidden(struct walk *w, const char *task)
{
	char path[PATH_MAX + 16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/net/dev", task);
	if (!w->target || !w->target->proc || stat(path, &st) ||
	    st.st_ino == w->target->proc)
		w->blind = true;
}

/* A namespace at path not met before goes to fn. */
static int visit(struct walk *w, const char *path, const char *where)
{
	struct hc_netns_id id, *more;
	int fd, i, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	w->denied = fd < 0 && (errno == EACCES || errno == EPERM);
	if (fd < 0)
		return 0;
	/* Only nsfs files: a stray file under /run/netns is not one. */
	if (id_of(fd, &id) || id.dev != w->nsfs_dev)
		goto out;
	for (i = 0; i < w->n; i++)
		if (w->seen[i].ino == id.ino && w->seen[i].dev == id.dev)
			goto out;
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		more = realloc(w->seen, w->cap * sizeof(*more));
		if (!more) {
			close(fd);
			return -ENOMEM;
		}
		w->seen = more;
	}
	w->seen[w->n++] = id;
	ret = w->fn(fd, &id, where, w->data);
	close(fd);
	return ret;
out:
	close(fd);
	return 0;
}

static bool is_pid(const char *s)
{
	return s[0] >= '1' && s[0] <= '9';
}

/* The tasks of process dir: their namespaces, open ones, mounted ones. */
static int visit_process(struct walk *w, const char *pid, __u64 **mnts,
			 int *nmnt)
{
	char path[PATH_MAX], link[64], where[96], line[PATH_MAX + 256];
	struct dirent *de;
	struct stat st;
	DIR *d;
	FILE *f;
	int ret = 0, i;

	snprintf(where, sizeof(where), "the netns of pid %.20s", pid);
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	while (d && !ret && (de = readdir(d))) {
		if (!is_pid(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/ns/net", pid,
			 de->d_name);
		ret = visit(w, path, where);
		if (w->denied) {
			snprintf(path, sizeof(path), "/proc/%s/task/%s", pid,
				 de->d_name);
			hidden(w, path);
		}
	}
	if (d)
		closedir(d);

	snprintf(where, sizeof(where), "a netns held open by pid %.20s", pid);
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && !ret && (de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 5 && !strncmp(link, "net:[", 5))
			ret = visit(w, path, where);
	}
	if (d)
		closedir(d);

	/* Bind mounts, once per mount namespace. */
	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	if (ret || stat(path, &st))
		return ret;
	for (i = 0; i < *nmnt; i++)
		if ((*mnts)[i] == st.st_ino)
			return 0;
	if (!(*nmnt & 15)) {
		__u64 *more = realloc(*mnts, (*nmnt + 16) * sizeof(**mnts));

		if (!more)
			return -ENOMEM;
		*mnts = more;
	}
	(*mnts)[(*nmnt)++] = st.st_ino;
	snprintf(path, sizeof(path), "/proc/%s/mountinfo", pid);
	f = fopen(path, "re");
	while (f && !ret && fgets(line, sizeof(line), f)) {
		char root[64], point[PATH_MAX], *sep = strstr(line, " - nsfs ");
		char *p, *q;

		if (!sep ||
		    sscanf(line, "%*s %*s %*s %63s %4095s", root, point) != 2 ||
		    strncmp(root, "net:[", 5))
			continue;
		/* mountinfo writes a space as \040 and so on. */
		for (p = q = point; *p; q++)
			if (p[0] == '\\' && p[1] && p[2] && p[3]) {
				*q = (p[1] - '0') << 6 | (p[2] - '0') << 3 |
				     (p[3] - '0');
				p += 4;
			} else {
				*q = *p++;
			}
		*q = '\0';
		snprintf(where, sizeof(where), "a netns mounted at %.60s",
			 point);
		snprintf(path, sizeof(path), "/proc/%.20s/root%.4000s", pid,
			 point);
		ret = visit(w, path, where);
	}
	if (f)
		fclose(f);
	return ret;
}

int hc_netns_each(const char *first, const struct hc_netns_id *target,
		  hc_netns_fn fn, void *data, bool *all)
{
	char path[PATH_MAX], where[NAME_MAX + 16];
	struct walk w = { .fn = fn, .data = data, .target = target };
	struct hc_netns_id self = {};
	struct dirent *de;
	__u64 *mnts = NULL;
	int nmnt = 0, ret;
	DIR *d;

	if (all)
		*all = false;
	ret = hc_netns_self(&self);
	if (ret)
		return ret;
	w.nsfs_dev = self.dev;
	if (first && *first && !strchr(first, '/')) {
		snprintf(path, sizeof(path), HC_NETNS_DIR "/%s", first);
		snprintf(where, sizeof(where), "netns '%s'", first);
		ret = visit(&w, path, where);
	}
	d = ret ? NULL : opendir(HC_NETNS_DIR);
	while (d && !ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), HC_NETNS_DIR "/%s", de->d_name);
		snprintf(where, sizeof(where), "netns '%s'", de->d_name);
		ret = visit(&w, path, where);
	}
	if (d)
		closedir(d);
	if (!ret)
		ret = visit(&w, "/proc/thread-self/ns/net", "this netns");
	d = ret ? NULL : opendir("/proc");
	while (d && !ret && (de = readdir(d)))
		if (is_pid(de->d_name))
			ret = visit_process(&w, de->d_name, &mnts, &nmnt);
	if (d)
		closedir(d);
	free(mnts);
	free(w.seen);
	/* Only the initial PID namespace sees every process there is. */
	if (all && !ret)
		*all = !w.blind && hc_pidns_initial();
	return ret;
}

bool hc_pidns_initial(void)
{
	struct stat st;

	return !stat("/proc/self/ns/pid", &st) && st.st_ino == PIDNS_INIT_INO;
}

struct find {
	const struct hc_netns_id *id;
	int fd;
	char *where;
	size_t size;
};

static int match(int fd, const struct hc_netns_id *id, const char *where,
		 void *data)
{
	struct find *f = data;
	struct hc_netns_id here = *id;
	int ret;

	if (id->ino != f->id->ino || id->dev != f->id->dev)
		return 0;
	/* Another namespace that got the inode of one gone. */
	ret = f->id->cookie ? hc_netns_run(fd, read_cookie, &here.cookie) : 0;
	if (ret)
		return ret;
	if (!hc_netns_same(&here, f->id))
		return 0;
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (f->fd < 0)
		return -errno;
	snprintf(f->where, f->size, "%s", where);
	return 1;
}

int hc_netns_open(const struct hc_netns_id *id, const char *name, char *where,
		  size_t size)
{
	struct find f = { .id = id, .fd = -1, .where = where, .size = size };
	bool all;
	int ret = hc_netns_each(name, id, match, &f, &all);

	if (ret < 0)
		return ret;
	if (ret > 0)
		return f.fd;
	return all ? -ENOENT : -ESRCH;
}

int hc_netns_with_dev(const char *dev, char *list, size_t size)
{
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), fd;
	DIR *d = opendir("/run/netns");
	struct stat here, st;
	struct dirent *de;
	char path[300];
	size_t len = 0;
	int n = 0;

	list[0] = '\0';
	if (home >= 0 && fstat(home, &here))
		here.st_ino = 0;
	while (d && home >= 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Not where it was looked for already, under any name. */
		if (!fstat(fd, &st) && st.st_ino == here.st_ino &&
		    st.st_dev == here.st_dev) {
			close(fd);
			continue;
		}
		if (!setns(fd, CLONE_NEWNET) && if_nametoindex(dev) &&
		    len < size) {
			len += snprintf(list + len, size - len, "%s'%s'",
					len ? ", " : "", de->d_name);
			n++;
		}
		setns(home, CLONE_NEWNET);
		close(fd);
	}
	if (d)
		closedir(d);
	if (home >= 0)
		close(home);
	return n;
}
