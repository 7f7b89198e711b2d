// SPDX-License-Identifier: GPL-2.0
/*
 * A command's output file (-o, --csv): opened and checked before any
 * work, written whole at the end or not at all. An unnamed file
 * (O_TMPFILE) in the path's directory is linked in at the end, so that
 * a killed command leaves nothing; where the filesystem has no
 * O_TMPFILE (NFS), a temporary name is renamed over the path; a path
 * that is no regular file (a pipe, /dev/stdout) is written directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "hookcmp.h"

/* fd is our own stdout's file, reopened (/dev/stdout, /proc/self/fd/1). */
static bool same_file(int fd, int std)
{
	struct stat a, b;

	return !fstat(fd, &a) && !fstat(std, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino && S_ISREG(a.st_mode);
}

int hc_out_open(struct hc_out *o, const char *path)
{
	char dir[4096], *slash;
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = o->base = path;
	o->fd = o->dir = -1;
	if (!path)
		return 0;
	/* a link is the user's: written through, never renamed over */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
		o->direct = true;
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		o->own = o->fd >= 0 && same_file(o->fd, 1);
	} else {
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash) {
			o->base = path + (slash - dir) + 1;
			slash[slash == dir] = '\0';
		}
		o->dir = open(slash ? dir : ".",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		o->fd = o->dir < 0 ?
				-1 :
				openat(o->dir, ".",
				       O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		/* no O_TMPFILE there: checked now, named at the end */
		o->named = o->fd < 0 && o->dir >= 0 &&
			   (errno == EOPNOTSUPP || errno == EISDIR) &&
			   !faccessat(o->dir, ".", W_OK | X_OK, 0);
		if (o->named)
			return 0;
	}
	if (o->fd < 0)
		return hc_fail(HC_EXIT_USAGE, "cannot write %s: %s", path,
			       strerror(errno));
	return 0;
}

static void tmp_name(const struct hc_out *o, char *buf, size_t size)
{
	snprintf(buf, size, ".%s.tmp-%d", o->base, getpid());
}

void hc_out_abandon(struct hc_out *o)
{
	char tmp[4200];

	if (o->named && o->fd >= 0) {
		tmp_name(o, tmp, sizeof(tmp));
		unlinkat(o->dir, tmp, 0); /* a no-op once renamed */
	}
	if (o->fd >= 0)
		close(o->fd);
	if (o->dir >= 0)
		close(o->dir);
	o->fd = o->dir = -1;
	o->named = false;
}

/* The unnamed file gets a temporary name, then takes path's. */
static int out_link(struct hc_out *o)
{
	char proc[64], tmp[4200];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	tmp_name(o, tmp, sizeof(tmp));
	if (fsync(o->fd) || (!o->named && linkat(AT_FDCWD, proc, o->dir, tmp,
						 AT_SYMLINK_FOLLOW)))
		return -errno;
	if (renameat(o->dir, tmp, o->dir, o->base)) {
		int ret = -errno;

		unlinkat(o->dir, tmp, 0);
		return ret;
	}
	return 0;
}

int hc_out_write(struct hc_out *o, void (*fn)(const void *arg, FILE *f),
		 const void *arg)
{
	struct hc_err err = {};
	int ret = hc_fault(&err, "bench-output"), fd;
	FILE *f;

	if (o->named) {
		char tmp[4200];

		tmp_name(o, tmp, sizeof(tmp));
		o->fd = openat(o->dir, tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (o->fd < 0)
			return hc_fail(HC_EXIT_FAIL, "writing %s: %s", o->path,
				       strerror(errno));
	}
	if (o->fd < 0)
		return 0;
	/*
	 * A pipe cannot be truncated; our own stdout, a file, holds what
	 * was printed before: the document goes after it.
	 */
	if (o->direct && !o->own && ftruncate(o->fd, 0) && errno != EINVAL)
		ret = ret ?: -errno;
	fd = ret ? -1 : dup(o->own ? 1 : o->fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fn(arg, f);
		if (ferror(f))
			ret = -EIO;
		if (fclose(f) && !ret)
			ret = -errno;
	} else {
		ret = ret ?: -errno;
		if (fd >= 0)
			close(fd);
	}
	if (!ret && !o->direct)
		ret = out_link(o);
	hc_out_abandon(o);
	if (ret)
		return hc_fail(HC_EXIT_FAIL, "writing %s: %s", o->path,
			       strerror(-ret));
	return 0;
}
