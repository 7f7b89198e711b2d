// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at cgroup ingress: a cgroup_skb/ingress program on a cgroup v2
 * hookcmp makes below its own, holding only its UDP socket (the socket
 * hook's, without a filter). A socket belongs to the cgroup of the task
 * that made it, so hookcmp steps into the new cgroup to make the socket
 * and back out. The link is attached before the socket exists, so no
 * datagram escapes the program. The cgroup is journalled: the link and
 * the socket die with hookcmp, the directory does not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "sock.h"
#include "journal.h"
#include "print.h"
#include "undo.h"
#include "cg.skel.h"

/* Its journal record's data: the cgroup's path and, once made, inode. */
struct cg_jrec {
	char cgroup[256]; /* below the cgroup2 root */
	__u64 cgroup_ino;
};
HC_JDATA_FITS(struct cg_jrec);
#define CG_JREC(rec) HC_JDATA(rec, const struct cg_jrec)

struct cg_state {
	struct hc_sock_state sock; /* first: the socket hook's code runs it */
	struct cg_bpf *skel;
	int root_fd; /* the cgroup2 hierarchy */
	char home[200]; /* the cgroup hookcmp came from, under root_fd */
	int dir_fd; /* the cgroup it made */
	/* the cgroup's, under root_fd */
	char path[sizeof(((struct cg_jrec *)0)->cgroup)];
	int link_fd;
	bool made; /* the directory is ours to remove */
};

static const struct hc_jkind hc_jkind_cgroup; /* its record, below */

static void state_destroy(void *p)
{
	struct cg_state *st = p;

	cg_bpf__destroy(st->skel);
	free(st);
}

/* "0::/a/b" of /proc/self/cgroup: the cgroup2 path, "" for the root. */
static int own_cgroup(char *path, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	/* No such line: cgroup2 was never mounted, and we are its root. */
	snprintf(path, size, "%s", "");
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::/", 4))
			continue;
		line[strcspn(line, "\n")] = '\0';
		ret = snprintf(path, size, "%s", line + 4) < (int)size ?
			      0 :
			      -ENAMETOOLONG;
		break;
	}
	fclose(f);
	return ret == -ENOENT ? 0 : ret;
}

/* mountinfo's octal escapes (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] &&
		    s[3]) {
			*o = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				    (s[3] - '0'));
			s += 3;
		} else {
			*o = *s;
		}
	}
	*o = '\0';
}

static bool is_cgroup2(int fd)
{
	struct statfs fs;

	return !fstatfs(fd, &fs) && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/*
 * A mount of cgroup2 this process can reach whose root is at or above the
 * cgroup full ("/a/b"): its fd, and full's path below it in rel. A mount
 * point hidden by another mount (a private /sys) is not cgroup2 when
 * opened, and is skipped.
 */
static int mounted_root(const char *full, char *rel, size_t size)
{
	char line[4096], root[1024], point[1024], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int fd = -ENOENT;
	size_t n = 0;

	if (!f)
		return -errno;
	while (fd < 0 && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s", type) != 1 ||
		    strcmp(type, "cgroup2") ||
		    sscanf(line, "%*s %*s %*s %1023s %1023s", root, point) != 2)
			continue;
		unescape(root);
		unescape(point);
		n = strcmp(root, "/") ? strlen(root) : 0;
		if (strncmp(full, root, n) || (full[n] && full[n] != '/'))
			continue;
		fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && !is_cgroup2(fd)) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			fd = -ENOENT;
	}
	fclose(f);
	if (fd >= 0 && snprintf(rel, size, "%s", full + n + (full[n] == '/')) >=
			       (int)size) {
		close(fd);
		fd = -ENAMETOOLONG;
	}
	return fd;
}

/* A cgroup2 mount of our own that no path reaches and that goes with the fd. */
static int private_root(void)
{
	int fs, fd;

	fs = syscall(__NR_fsopen, "cgroup2", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	fd = syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) ?
		     -errno :
		     syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (fd < 0 && fd != -errno)
		fd = -errno;
	close(fs);
	return fd;
}

int hc_cgroup_root(char *home, size_t size)
{
	char full[256] = "/";
	int fd, ret;

	ret = own_cgroup(full + 1, sizeof(full) - 1);
	if (ret)
		return ret;
	fd = mounted_root(full, home, size);
	if (fd == -ENOENT) {
		fd = private_root();
		if (fd >= 0 &&
		    snprintf(home, size, "%s", full + 1) >= (int)size) {
			close(fd);
			fd = -ENAMETOOLONG;
		}
	}
	return fd;
}

/* Moves this process (all its threads) into the cgroup at dir_fd. */
static int enter(int dir_fd)
{
	int fd = openat(dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

static int cg_load(struct hc_run *r)
{
	struct cg_state *st = hc_state_new(r, sizeof(*st), state_destroy);
	struct cg_bpf *s;

	if (!st)
		return -ENOMEM;
	st->sock.fd = st->root_fd = st->dir_fd = st->link_fd = -1;
	s = st->skel = cg_bpf__open_opts(hc_prog_open_opts());
	if (!s)
		return -errno;
	s->rodata->hc_conf = r->conf;
	return hc_prog_load(r, s->skeleton, r->bare ? "hc_cg_bare" : "hc_cg");
}

/*
 * The journal's record of the cgroup: its path and, once made, its inode.
 * Also with no_journal: a cgroup outlives the namespaces bench makes.
 */
static int journal(struct hc_run *r, const char *path, __u64 ino)
{
	struct hc_jrec *rec = hc_journal_rec(r, &hc_jkind_cgroup);
	struct cg_jrec *j = HC_JDATA(rec, struct cg_jrec);

	snprintf(j->cgroup, sizeof(j->cgroup), "%s", path);
	j->cgroup_ino = ino;
	rec->done = ino != 0;
	return hc_journal_add(rec, r->netns, &r->err);
}

/*
 * Its name: the run's pid, PID namespace and start time, what its record
 * proves a run by. No other process makes that name, in any PID
 * namespace, so a record of it proves it ours before its inode is known.
 */
static void cgroup_name(const struct hc_jrec *rec, char *buf, size_t size)
{
	snprintf(buf, size, "hookcmp.%d.%llu.%llu", rec->pid,
		 (unsigned long long)rec->pidns,
		 (unsigned long long)rec->start);
}

static int make_cgroup(struct hc_run *r, struct cg_state *st)
{
	char *path = st->path, name[64];
	struct stat sb;
	int ret;

	st->root_fd = hc_cgroup_root(st->home, sizeof(st->home));
	if (st->root_fd < 0) {
		hc_err_set(
			&r->err,
			"no cgroup v2 to put the socket in: none is mounted here and mounting one failed");
		return st->root_fd;
	}
	/* The record first: its name comes from the record's identity. */
	ret = journal(r, "", 0);
	if (ret)
		return ret;
	cgroup_name(hc_journal_of(r, &hc_jkind_cgroup), name, sizeof(name));
	if (snprintf(path, sizeof(st->path), "%s%s%s", st->home,
		     st->home[0] ? "/" : "", name) >= (int)sizeof(st->path)) {
		hc_err_set(&r->err, "the cgroup path /%s/%s is too long",
			   st->home, name);
		return -ENAMETOOLONG;
	}
	ret = journal(r, path, 0);
	if (ret)
		return ret;
	if (mkdirat(st->root_fd, path, 0755)) {
		ret = -errno;
		hc_err_set(&r->err, "cannot make the cgroup %s", path);
		return ret;
	}
	st->made = true;
	hc_pause("cgroup-made");
	st->dir_fd =
		openat(st->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->dir_fd < 0 || fstat(st->dir_fd, &sb))
		return -errno;
	return journal(r, path, sb.st_ino);
}

static int cg_attach(struct hc_run *r)
{
	struct cg_state *st = r->state;
	int home_fd, ret;

	ret = hc_fault(&r->err, "cgroup") ?: make_cgroup(r, st);
	if (ret)
		return ret;
	st->link_fd = bpf_link_create(r->prog_fd, st->dir_fd,
				      BPF_CGROUP_INET_INGRESS, NULL);
	if (st->link_fd < 0)
		return -errno;
	home_fd = st->home[0] ? openat(st->root_fd, st->home,
				       O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
				dup(st->root_fd);
	if (home_fd < 0)
		return -errno;
	ret = hc_fault(&r->err, "cgroup-socket") ?: enter(st->dir_fd);
	if (!ret) {
		int back;

		/* Back out of it whether or not the socket came. */
		ret = hc_udp_open(r, -1);
		back = enter(home_fd);
		if (back && !ret) {
			ret = back;
			hc_err_set(&r->err, "cannot move back to cgroup /%s",
				   st->home);
		}
	}
	close(home_fd);
	return ret;
}

static int cg_detach(struct hc_run *r)
{
	struct cg_state *st = r->state;

	hc_sock_close(r);
	if (!st)
		return 0;
	if (st->link_fd >= 0)
		close(st->link_fd);
	st->link_fd = -1;
	if (st->dir_fd >= 0)
		close(st->dir_fd);
	st->dir_fd = -1;
	/* What we made and nobody else can be in: empty once we left it. */
	if (st->made && !unlinkat(st->root_fd, st->path, AT_REMOVEDIR))
		st->made = false;
	if (!st->made)
		hc_journal_end(r, &hc_jkind_cgroup);
	if (st->root_fd >= 0)
		close(st->root_fd);
	st->root_fd = -1;
	return 0;
}

static const char *cg_attach_via(const struct hc_run *r)
{
	return "link";
}

static const char *cg_attach_name(const struct hc_run *r)
{
	return "ingress";
}

#ifndef FILEID_KERNFS
#define FILEID_KERNFS 0xfe /* include/linux/exportfs.h: a kernfs node's id */
#endif

/*
 * A cgroup by its id, its inode, wherever it is: the path a record keeps
 * is below its writer's cgroup namespace's root, which no other
 * namespace sees.
 */
static int open_by_id(int root, __u64 id)
{
	_Alignas(struct file_handle) char buf[sizeof(struct file_handle) +
					     sizeof(id)];
	struct file_handle *fh = (struct file_handle *)buf;
	int fd;

	fh->handle_bytes = sizeof(id);
	fh->handle_type = FILEID_KERNFS;
	memcpy(fh->f_handle, &id, sizeof(id));
	fd = open_by_handle_at(root, fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Removes the directory fd is open on: by its inode, among its parent's. */
static int rmdir_fd(int fd, __u64 ino)
{
	int parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = parent < 0 ? NULL : fdopendir(parent);
	struct dirent *de;
	struct stat sb;
	int ret = -ENOENT;

	if (!d) {
		ret = -errno;
		if (parent >= 0)
			close(parent);
		return ret;
	}
	while (ret == -ENOENT && (de = readdir(d)))
		if (de->d_ino == ino &&
		    !fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    sb.st_ino == ino)
			ret = unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) ?
				      -errno :
				      0;
	closedir(d);
	return ret;
}

/*
 * By the record's path, while the inode there or, before the record knew
 * it, the name proves it the one hookcmp made.
 */
static void undo_by_path(struct hc_undo_ctx *c, int root)
{
	const struct cg_jrec *j = CG_JREC(c->rec);
	bool done = c->rec->done;
	const char *base = strrchr(j->cgroup, '/');
	char name[64];
	struct stat sb;

	cgroup_name(c->rec, name, sizeof(name));
	base = base ? base + 1 : j->cgroup;
	if (!j->cgroup[0] ||
	    fstatat(root, j->cgroup, &sb, AT_SYMLINK_NOFOLLOW)) {
		if (!j->cgroup[0] || errno == ENOENT)
			hc_undo_say(c, "gone", false, "already gone");
		else
			hc_undo_failed(c, -errno);
	} else if (done ? sb.st_ino != j->cgroup_ino : strcmp(base, name)) {
		hc_undo_say(
			c, "left alone", false,
			"not proven ours: left alone; /%s has inode %llu, hookcmp %s (remove it with rmdir if it is yours)",
			j->cgroup, (unsigned long long)sb.st_ino,
			done ? "made another" : "died before it knew its own");
	} else if (unlinkat(root, j->cgroup, AT_REMOVEDIR)) {
		hc_undo_failed(c, -errno);
	} else {
		hc_undo_say(c, "deleted", false, "deleted");
	}
}

/* The cgroup --hook cgroup made: by its id once its record has it. */
static void undo_cgroup(struct hc_undo_ctx *c)
{
	const struct cg_jrec *j = CG_JREC(c->rec);
	char home[200];
	int root = hc_cgroup_root(home, sizeof(home)), fd, ret;

	if (root < 0) {
		hc_undo_failed(c, root);
		return;
	}
	fd = c->rec->done ? open_by_id(root, j->cgroup_ino) : -EINVAL;
	if (fd < 0) {
		undo_by_path(c, root);
	} else {
		ret = rmdir_fd(fd, j->cgroup_ino);
		close(fd);
		if (ret)
			hc_undo_failed(c, ret);
		else
			hc_undo_say(c, "deleted", false, "deleted");
	}
	close(root);
}

static void cg_print(const struct hc_jrec *j, struct hc_pr *p)
{
	hc_pr_fstr(p, HC_PR_ALL, "cgroup", " /%s", CG_JREC(j)->cgroup);
}

static const struct hc_jfield cg_fields[] = {
	HC_JFIELD(struct cg_jrec, cgroup, HC_JF_STR, 3),
	HC_JFIELD(struct cg_jrec, cgroup_ino, HC_JF_U64, 3),
	{},
};

static const struct hc_jkind hc_jkind_cgroup = {
	.name = "cgroup",
	.fields = cg_fields,
	.undo = undo_cgroup,
	.print = cg_print,
};
HC_JKIND(hc_jkind_cgroup);

static const struct hc_opt cg_opts[] = {
	HC_UDP_PORT_OPT(0),
	{}
};

const struct hc_hook hc_hook_cgroup = {
	.name = "cgroup",
	.help = "cgroup_skb ingress, on a cgroup of ours holding the UDP socket of --port",
	.opts = cg_opts,
	.load = cg_load,
	.attach = cg_attach,
	.detach = cg_detach,
	.attach_name = cg_attach_name,
	.attach_via = cg_attach_via,
	.caps = hc_udp_caps,
	.drain = hc_sock_drain,
	.verdict = hc_sock_verdict,
	.idle_hint = hc_udp_idle_hint,
	.variants = (const struct hc_hook_row[]){ { "cgroup", "" }, {} },
	/* The peer of socket-udp: the same socket, no filter on it. */
	.rows = (const struct hc_hook_row[]){
		{ "cgroup-udp", "", HC_ROW_LOCAL,
		  .path = "__cgroup_bpf_run_filter_skb bpf_prog_hc_cg*" },
		{} },
};
