// SPDX-License-Identifier: GPL-2.0
/*
 * A command's output file (-o, --csv): opened and checked before any
 * work, written whole at the end or not at all. An unnamed file
 * (O_TMPFILE) in the path's directory is linked in at the end, so that
 * a killed command leaves nothing; where the filesystem has no
 * O_TMPFILE (NFS), a temporary name is renamed over the path; a path
 * that is no regular file (a pipe, /dev/stdout) is written directly.
 * Also where --plot's script is, for bench and bench compare alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

static bool in_path(const char *prog)
{
	char path[4096], file[4200], *save, *dir;

	snprintf(path, sizeof(path), "%s", getenv("PATH") ?: "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(file, sizeof(file), "%s/%s", dir, prog);
		if (!access(file, X_OK))
			return true;
	}
	return false;
}

/*
 * scripts/plot.sh draws the charts: next to the binary in the tree, or
 * where `make install` put it beside the binary. HOOKCMP_SCRIPTS
 * overrides both.
 */
int bench_plot_sh(char *plot_sh, size_t size)
{
	const char *env = getenv("HOOKCMP_SCRIPTS");
	char exe[400], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (env) {
		snprintf(plot_sh, size, "%s/plot.sh", env);
	} else if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		*slash = '\0';
		snprintf(plot_sh, size, "%s/scripts/plot.sh", exe);
		if (access(plot_sh, R_OK))
			snprintf(plot_sh, size,
				 "%s/../share/hookcmp/scripts/plot.sh", exe);
	}
	if (access(plot_sh, R_OK))
		return hc_fail(
			HC_EXIT_FAIL,
			"--plot: no %s (set HOOKCMP_SCRIPTS to the scripts directory)",
			plot_sh);
	if (!in_path("gnuplot"))
		return hc_fail(HC_EXIT_FAIL,
			       "--plot needs gnuplot (Debian: gnuplot-nox)");
	return 0;
}
