// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <linux/if_ether.h>
#include <linux/openat2.h>
#include <linux/pkt_sched.h>
#include "journal.h"
#include "netns.h"

/*
 * "hookcmp-journal N": this hookcmp writes format 6 (a record holds its
 * own kind's fields only) and reads 2 to 6.
 */
#define JREC_MAGIC "hookcmp-journal "
#define JREC_FORMAT 6
#define JREC_MAX 8192 /* a record is a few hundred bytes, or a command */

/* The kinds their owners registered: hooks, qdisc/, bench. */
static const struct hc_jkind *kinds[16];
static int nkinds;

void hc_journal_kind_add(const struct hc_jkind *kind)
{
	if (nkinds < (int)(sizeof(kinds) / sizeof(kinds[0])))
		kinds[nkinds++] = kind;
}

const struct hc_jkind *hc_journal_kind(const char *name)
{
	int i;

	for (i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

/* ---- the file format ---- */

/*
 * What every record has; its kind's fields follow (hc_jkind.fields).
 * Until format 5, every record had every kind's fields: read, another
 * kind's are ignored as unknown. A field added since (netns_proc,
 * netns_cookie; and the kinds' cgroup, proof, cmd) was in some of format
 * 2's records, written before it had its own format.
 */
#define F(k, t, ...) HC_JFIELD(struct hc_jrec, k, t, __VA_ARGS__)
#define FM(k, m, t, ...)                                              \
	{                                                             \
		k, t, offsetof(struct hc_jrec, m),                    \
			sizeof(((struct hc_jrec *)0)->m), __VA_ARGS__ \
	}
static const struct hc_jfield head[] = {
	F(seq, HC_JF_U64),
	F(pid, HC_JF_INT),
	F(pidns, HC_JF_U64),
	F(start, HC_JF_U64),
	F(kind, HC_JF_KIND),
	F(done, HC_JF_BOOL),
	F(netns, HC_JF_STR),
	FM("netns_dev", ns.dev, HC_JF_U64),
	FM("netns_ino", ns.ino, HC_JF_U64),
	FM("netns_proc", ns.proc, HC_JF_U64, 3),
	FM("netns_cookie", ns.cookie, HC_JF_U64, 4),
	F(dev, HC_JF_STR),
	F(ifindex, HC_JF_INT),
	F(mac, HC_JF_MAC),
	F(mode, HC_JF_STR),
	F(prog_id, HC_JF_U32),
	{},
};
#undef F
#undef FM

static size_t nfields(const struct hc_jfield *f)
{
	size_t n = 0;

	while (f && f[n].key)
		n++;
	return n;
}

/* Names may hold any byte but '/' and NUL: %XX for all but plain ASCII. */
static size_t esc(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 4 <= size; s++) {
		unsigned char c = *s;

		if (c > ' ' && c < 0x7f && c != '%')
			out[n++] = c;
		else
			n += snprintf(out + n, size - n, "%%%02X", c);
	}
	out[n] = '\0';
	return n;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 :
				      -1;
}

static int unesc(const char *s, size_t len, char *out, size_t size)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '%') {
			if (i + 2 >= len || hex(s[i + 1]) < 0 ||
			    hex(s[i + 2]) < 0)
				return -EINVAL;
			c = hex(s[i + 1]) << 4 | hex(s[i + 2]);
			i += 2;
			if (!c)
				return -EINVAL;
		} else if (c <= ' ' || c >= 0x7f) {
			return -EINVAL;
		}
		if (n + 1 >= size)
			return -EINVAL;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

static int format_field(const struct hc_jfield *f, const void *base, char *buf,
			size_t size)
{
	const void *p = (const char *)base + f->off;
	const __u32 *v = p;
	const __u8 *m = p;
	char s[3 * sizeof(((struct hc_jrec *)0)->data) + 1];

	switch (f->type) {
	case HC_JF_U64:
		return snprintf(buf, size, "%s=%llu\n", f->key,
				*(const unsigned long long *)p);
	case HC_JF_INT:
		return snprintf(buf, size, "%s=%d\n", f->key, *(const int *)p);
	case HC_JF_U32:
		return snprintf(buf, size, "%s=%u\n", f->key, *v);
	case HC_JF_BOOL:
		return snprintf(buf, size, "%s=%d\n", f->key, *(const bool *)p);
	case HC_JF_STR:
		esc(p, s, sizeof(s));
		return snprintf(buf, size, "%s=%s\n", f->key, s);
	case HC_JF_KIND:
		return snprintf(buf, size, "%s=%s\n", f->key,
				(*(const struct hc_jkind *const *)p)->name);
	case HC_JF_MAC:
		return snprintf(buf, size, "%s=%02x:%02x:%02x:%02x:%02x:%02x\n",
				f->key, m[0], m[1], m[2], m[3], m[4], m[5]);
	case HC_JF_VAL:
		return snprintf(buf, size, "%s=%u,%u,%u,%u\n", f->key, v[0],
				v[1], v[2], v[3]);
	}
	return -EINVAL;
}

static int format_fields(const struct hc_jfield *f, const void *base, char *buf,
			 size_t size, size_t *n)
{
	int k;

	for (; f && f->key && *n < size; f++) {
		k = format_field(f, base, buf + *n, size - *n);
		if (k < 0)
			return k;
		*n += k;
	}
	return 0;
}

int hc_jrec_format(const struct hc_jrec *rec, char *buf, size_t size)
{
	size_t n = snprintf(buf, size, JREC_MAGIC "%d\n", JREC_FORMAT);
	int ret = format_fields(head, rec, buf, size, &n) ?:
			  format_fields(rec->kind->fields, rec->data, buf, size,
					&n);

	if (ret)
		return ret;
	return n < size ? (int)n : -ENOSPC;
}

static int parse_field(const struct hc_jfield *f, const char *s, size_t len,
		       void *base)
{
	void *p = (char *)base + f->off;
	char num[32], *save, *w;
	__u32 *v = p;
	__u64 n;
	int i;

	if (f->type == HC_JF_STR)
		return unesc(s, len, p, f->size);
	if (len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	switch (f->type) {
	case HC_JF_U64:
		return hc_parse_uint(num, 0, 0, ~0ULL, p);
	case HC_JF_INT:
	case HC_JF_U32:
	case HC_JF_BOOL:
		if (hc_parse_uint(num, 0, 0,
				  f->type == HC_JF_INT	? INT_MAX :
				  f->type == HC_JF_BOOL ? 1 :
							  0xffffffffu,
				  &n))
			return -EINVAL;
		if (f->type == HC_JF_INT)
			*(int *)p = n;
		else if (f->type == HC_JF_BOOL)
			*(bool *)p = n;
		else
			*v = n;
		return 0;
	case HC_JF_KIND:
		*(const struct hc_jkind **)p = hc_journal_kind(num);
		return *(const struct hc_jkind **)p ? 0 : -EINVAL;
	case HC_JF_MAC:
		return hc_parse_mac(num, p);
	case HC_JF_VAL:
		for (i = 0, w = strtok_r(num, ",", &save); w && i < 4;
		     i++, w = strtok_r(NULL, ",", &save))
			if (hc_parse_uint(w, 0, 0, 0xffffffffu, &n))
				return -EINVAL;
			else
				v[i] = n;
		return i == 4 && !w ? 0 : -EINVAL;
	case HC_JF_STR:
		break;
	}
	return -EINVAL;
}

/* The field of the table named by line's key, or -1. */
static int field_of(const struct hc_jfield *f, const char *line, size_t len)
{
	int i;

	for (i = 0; f && f[i].key; i++)
		if (strlen(f[i].key) == len && !memcmp(line, f[i].key, len))
			return i;
	return -1;
}

/*
 * The lines of buf (after the magic) whose keys the table has, into
 * base: each once, and every one the format has (since).
 */
static int parse_fields(const char *buf, const char *end, int format,
			const struct hc_jfield *f, void *base)
{
	const char *line, *eol, *eq;
	bool seen[32] = {};
	int i, n = nfields(f);

	if (n > (int)sizeof(seen))
		return -E2BIG;
	for (line = buf; line < end; line = eol + 1) {
		eol = memchr(line, '\n', end - line);
		eq = eol ? memchr(line, '=', eol - line) : NULL;
		if (!eq)
			return -EINVAL;
		/* Another kind's, or a newer hookcmp's: not this one's. */
		i = field_of(f, line, eq - line);
		if (i < 0)
			continue;
		if (seen[i] || parse_field(&f[i], eq + 1, eol - eq - 1, base))
			return -EINVAL;
		seen[i] = true;
	}
	for (i = 0; i < n; i++)
		if (!seen[i] && format >= (f[i].since ?: 2))
			return -EINVAL;
	return 0;
}

int hc_jrec_parse(const char *buf, size_t len, struct hc_jrec *rec)
{
	size_t mlen = strlen(JREC_MAGIC) + 2;
	int format;

	memset(rec, 0, sizeof(*rec));
	if (len < mlen || memchr(buf, '\0', len))
		goto bad;
	format = buf[mlen - 2] - '0';
	if (memcmp(buf, JREC_MAGIC, mlen - 2) || format < 2 ||
	    format > JREC_FORMAT || buf[mlen - 1] != '\n')
		goto bad;
	/* The kind's fields once the kind is known. */
	if (parse_fields(buf + mlen, buf + len, format, head, rec) ||
	    !rec->kind ||
	    parse_fields(buf + mlen, buf + len, format, rec->kind->fields,
			 rec->data))
		goto bad;
	if (rec->pid > 0 && rec->seq)
		return 0;
bad:
	memset(rec, 0, sizeof(*rec));
	/* Format 1 (until 2026-12-01) held no proof to act on. */
	snprintf(rec->bad, sizeof(rec->bad), "%s",
		 len > 4 && !memcmp(buf, "pid=", 4) ?
			 "an older hookcmp's format 1, too little proof to act on" :
			 "not a hookcmp record");
	return -EINVAL;
}

/* ---- the directory ---- */

static const char *dir_opt;
static int dir_fd = -1, lock_depth;

void hc_journal_set_dir(const char *dir)
{
	dir_opt = dir;
}

const char *hc_journal_dir(void)
{
	const char *env = getenv("HOOKCMP_JOURNAL");

	return dir_opt ? dir_opt : env && *env ? env : HC_RUN_DIR;
}

/* The caller adds strerror(-ret): the message says what, the hint how. */
static void say(struct hc_err *err, int e, const char *what, const char *dir)
{
	hc_err_set(err, "%s %s", what, dir);
	if (e == EACCES || e == EPERM || e == EROFS)
		hc_err_hint(err, "--journal DIR keeps it elsewhere");
}

/*
 * No symbolic link anywhere in the path, a trailing slash's included;
 * a kernel without openat2 (before 5.6) checks the last component only.
 */
static int open_dir(const char *dir)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	int fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));

	if (fd < 0 && (errno == ENOSYS || errno == E2BIG))
		fd = open(dir, how.flags);
	return fd;
}

/*
 * The journal's directory, checked once per process: a real directory
 * (no symlink), of root's or the caller's, that nobody else can write.
 * Everything after goes through this fd, so the path cannot be swapped.
 */
static int dir_get(bool create, struct hc_err *err)
{
	const char *dir = hc_journal_dir();
	struct hc_err dummy;
	struct stat st;
	int fd, e;

	if (!err)
		err = &dummy;
	/* Removed with its last record (dir_put): look again. */
	if (dir_fd >= 0 && !fstat(dir_fd, &st) && st.st_nlink)
		return dir_fd;
	if (dir_fd >= 0)
		close(dir_fd);
	dir_fd = -1;
	if (create && mkdir(dir, 0700) && errno != EEXIST) {
		e = errno;
		say(err, e, "cannot create the journal", dir);
		return -e;
	}
	fd = open_dir(dir);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && !create)
			return -ENOENT;
		if (e == ELOOP || e == ENOTDIR) {
			hc_err_set(err, "the journal %s %s: refused", dir,
				   !lstat(dir, &st) && S_ISLNK(st.st_mode) ?
					   "is a symbolic link" :
				   e == ELOOP ?
					   "has a symbolic link in its path" :
					   "is not a directory");
			return -EPERM;
		}
		say(err, e, "the journal", dir);
		return -e;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		hc_err_set(err, "the journal %s is not a directory: refused",
			   dir);
		close(fd);
		return -EPERM;
	}
	if (st.st_uid && st.st_uid != geteuid()) {
		hc_err_set(
			err,
			"the journal %s belongs to uid %u, not to root: refused",
			dir, st.st_uid);
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		hc_err_set(
			err,
			"the journal %s can be written by others (mode %04o): refused",
			dir, st.st_mode & 07777);
		close(fd);
		return -EPERM;
	}
	dir_fd = fd;
	return fd;
}

int hc_journal_check(struct hc_err *err)
{
	const char *dir = hc_journal_dir();
	char parent[PATH_MAX];
	struct stat st;
	int ret, e;

	if (!*dir) {
		hc_err_set(err, "the journal's directory is an empty string");
		return -EINVAL;
	}
	ret = dir_get(false, err);
	if (ret != -ENOENT)
		return ret < 0 ? ret : 0;
	/* The first record makes it: its parent must be a directory. */
	snprintf(parent, sizeof(parent), "%s", dir);
	e = stat(dirname(parent), &st) ? errno :
	    S_ISDIR(st.st_mode)	       ? 0 :
					 ENOTDIR;
	if (e)
		say(err, e, "cannot create the journal", dir);
	return -e;
}

int hc_journal_lock(struct hc_err *err)
{
	struct stat st;
	int fd;

	if (lock_depth) {
		lock_depth++;
		return 0;
	}
	for (;;) {
		fd = dir_get(true, err);
		if (fd < 0)
			return fd;
		while (flock(fd, LOCK_EX))
			if (errno != EINTR)
				return -errno;
		/* The last record's writer may have removed it meanwhile. */
		if (!fstat(fd, &st) && st.st_nlink)
			break;
		close(fd);
		dir_fd = -1;
	}
	lock_depth = 1;
	return 0;
}

void hc_journal_unlock(void)
{
	if (lock_depth && !--lock_depth)
		flock(dir_fd, LOCK_UN);
}

/* ---- who wrote a record, and is it still running ---- */

static __u64 ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/*
 * The boottime offset of this process's time namespace, in clock ticks:
 * /proc/PID/stat shows a start time shifted by the reader's offset.
 */
static long long boottime_off(void)
{
	static long long off = -1;
	long long secs, nsecs;
	char line[128];
	FILE *f;

	if (off != -1)
		return off;
	off = 0;
	f = fopen("/proc/self/timens_offsets", "re");
	if (!f)
		return off; /* no time namespaces: no offset */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "boottime %lld %lld", &secs, &nsecs) == 2)
			off = (secs * 1000000000LL + nsecs) /
			      (1000000000LL / sysconf(_SC_CLK_TCK));
	fclose(f);
	return off;
}

/*
 * Field 22 of PROC/stat: when the process started, in clock ticks of the
 * initial time namespace's boottime, whichever namespace reads it; 0 for
 * a zombie, which has let go of all it held.
 */
static __u64 start_of(const char *proc)
{
	char path[320], buf[1024], *p;
	__u64 start = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/stat", proc);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    p[1] == ' ' && p[2] != 'Z' && p[2] != 'X') {
		for (i = 0; i < 20 && p; i++)
			p = strchr(p + 1, ' ');
		if (p)
			start = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return start ? start - boottime_off() : 0;
}

/*
 * An offset of no whole number of ticks rounds the shifted start either
 * way: a tick apart is the same start.
 */
static bool same_start(__u64 a, __u64 b)
{
	return a && b && (a == b || a + 1 == b || b + 1 == a);
}

/* The pid in the process's own PID namespace: NSpid's last. */
static int nspid_of(const char *proc)
{
	char path[320], line[256], *p;
	int pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", proc);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6)) {
			p = strrchr(line, '\t');
			pid = p ? atoi(p + 1) : -1;
			break;
		}
	fclose(f);
	return pid;
}

int hc_journal_alive(const struct hc_jrec *rec)
{
	char proc[300], ns[320];
	struct dirent *de;
	__u64 ino;
	DIR *d;

	snprintf(proc, sizeof(proc), "/proc/%d", rec->pid);
	if (rec->pidns == ino_of("/proc/self/ns/pid"))
		return (!kill(rec->pid, 0) || errno == EPERM) &&
				       same_start(start_of(proc), rec->start) ?
			       HC_ALIVE :
			       0;
	/*
	 * Another PID namespace: the process that started at that tick with
	 * that pid in its own namespace (stat and status are readable where
	 * the kernel hides the ns links), in that namespace where that shows.
	 */
	d = opendir("/proc");
	if (!d)
		return HC_ALIVE_UNSEEN;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(proc, sizeof(proc), "/proc/%s", de->d_name);
		if (!same_start(start_of(proc), rec->start) ||
		    nspid_of(proc) != rec->pid)
			continue;
		snprintf(ns, sizeof(ns), "%s/ns/pid", proc);
		ino = ino_of(ns);
		if (!ino || ino == rec->pidns)
			break;
	}
	closedir(d);
	/* Only the initial PID namespace sees every process there is. */
	return de ? HC_ALIVE : hc_pidns_initial() ? 0 : HC_ALIVE_UNSEEN;
}

int hc_run_name(const struct hc_jrec *rec, char *buf, size_t size)
{
	static __u64 pidns, start;
	static int pid;
	int n;

	/* a pid of at most 22 bits, an inode's 32, 2^40 ticks: 28 characters */
	if (!rec && pid != getpid()) {
		pid = getpid();
		pidns = ino_of("/proc/self/ns/pid");
		start = start_of("/proc/self");
	}
	if (rec ? !rec->start : !start)
		return -ESRCH;
	n = snprintf(buf, size, "hc%x-%llx-%llx", rec ? rec->pid : pid,
		     (unsigned long long)(rec ? rec->pidns : pidns),
		     (unsigned long long)(rec ? rec->start : start));
	return n < 0 || n >= (int)size || n >= HC_RUN_NAME_MAX ? -ENAMETOOLONG :
								 0;
}

bool hc_jrec_same_run(const struct hc_jrec *a, const struct hc_jrec *b)
{
	return a->pid == b->pid && a->pidns == b->pidns &&
	       same_start(a->start, b->start);
}

/* ---- records ---- */

/* Room for every record's number in its name's 20 digits, never wrapped. */
#define SEQ_MAX 9999999999999999999ULL

/*
 * One more than the highest sequence number of the journal's records:
 * what is not a record (a stray file named like one) counts for nothing.
 */
static int next_seq(__u64 *seq)
{
	struct hc_jrec *recs;
	__u64 max;
	int n;

	if (hc_journal_list(&recs, &n, NULL)) {
		*seq = time(NULL); /* still in order, if not dense */
		return 0;
	}
	/* The list has its records first, the last change first. */
	max = n && !recs[0].bad[0] ? recs[0].seq : 0;
	free(recs);
	if (max >= SEQ_MAX)
		return -EOVERFLOW;
	*seq = max + 1;
	return 0;
}

int hc_journal_add(struct hc_jrec *rec, const char *netns, struct hc_err *err)
{
	char buf[JREC_MAX], tmp[sizeof(rec->name) + 8];
	bool first = !rec->name[0];
	int fd = -1, len, ret;

	hc_kill_point("journal");
	ret = hc_journal_lock(err);
	if (ret)
		return ret;
	if (first) {
		rec->pid = getpid();
		rec->pidns = ino_of("/proc/self/ns/pid");
		rec->start = start_of("/proc/self");
		snprintf(rec->netns, sizeof(rec->netns), "%s",
			 netns ? netns : "");
		hc_netns_self(&rec->ns);
		/* No MAC address (lo, tun) is all zeroes, and stays so. */
		if (rec->dev[0])
			hc_dev_mac(rec->dev, rec->mac);
		ret = next_seq(&rec->seq);
		snprintf(rec->name, sizeof(rec->name), "%020llu-%s-%d",
			 (unsigned long long)rec->seq,
			 rec->kind->name, rec->pid);
	}
	len = ret ?: hc_jrec_format(rec, buf, sizeof(buf));
	snprintf(tmp, sizeof(tmp), ".tmp-%s", rec->name);
	ret = len < 0 ? len : 0;
	if (!ret) {
		fd = openat(dir_fd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0600);
		if (fd < 0)
			ret = -errno;
	}
	/* The record is on disk, whole, before the change it describes. */
	if (!ret && (write(fd, buf, len) != len || fsync(fd)))
		ret = -EIO;
	if (fd >= 0 && close(fd) && !ret)
		ret = -EIO;
	hc_kill_point("journal"); /* its .tmp- written, not yet renamed */
	if (!ret && (renameat(dir_fd, tmp, dir_fd, rec->name) || fsync(dir_fd)))
		ret = -errno;
	if (ret) {
		unlinkat(dir_fd, tmp, 0);
		say(err, -ret, "writing the journal", hc_journal_dir());
		if (first)
			rec->name[0] = '\0';
	}
	hc_journal_unlock();
	hc_kill_point("journal");
	return ret;
}

/*
 * /run/hookcmp goes with its last record (a --journal DIR is the user's);
 * under the lock, and only while the path is still this directory.
 */
static void dir_put(void)
{
	struct stat st, here;
	struct dirent *de;
	int fd = dup(dir_fd), n = 0;
	DIR *d;

	if (strcmp(hc_journal_dir(), HC_RUN_DIR) ||
	    (d = fd >= 0 ? fdopendir(fd) : NULL) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	if (!n && !fstat(dir_fd, &here) && !lstat(HC_RUN_DIR, &st) &&
	    st.st_dev == here.st_dev && st.st_ino == here.st_ino)
		rmdir(HC_RUN_DIR);
}

int hc_journal_take(struct hc_jrec *rec)
{
	int ret = rec->name[0] ? 0 : -ENOENT;

	if (!ret) {
		hc_kill_point("journal");
		ret = hc_journal_lock(NULL);
	}
	if (!ret) {
		/* Of two that read the record, one unlinks it; the other fails. */
		ret = unlinkat(dir_fd, rec->name, 0) ? -errno : 0;
		fsync(dir_fd);
		/* Not inside a caller's lock: it would write on, unlocked. */
		if (lock_depth == 1)
			dir_put();
		hc_journal_unlock();
		hc_kill_point("journal");
	}
	rec->name[0] = '\0';
	return ret;
}

void hc_journal_del(struct hc_jrec *rec)
{
	hc_journal_take(rec);
}

/* Reads one entry; what is not a sane regular file is said in rec->bad. */
static void read_rec(int dfd, const char *name, struct hc_jrec *rec)
{
	char buf[JREC_MAX];
	struct stat st;
	ssize_t len = -1;
	int fd;

	memset(rec, 0, sizeof(*rec));
	/* O_NONBLOCK: a FIFO must not hang status or cleanup. */
	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		snprintf(rec->bad, sizeof(rec->bad), "%s",
			 errno == ELOOP ? "a symbolic link" : strerror(errno));
	else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		snprintf(rec->bad, sizeof(rec->bad), "not a regular file");
	/* Its command (a variant's --undo) would run with our privilege. */
	else if (st.st_uid && st.st_uid != geteuid())
		snprintf(rec->bad, sizeof(rec->bad), "owned by uid %u",
			 st.st_uid);
	else if (st.st_size >= JREC_MAX)
		snprintf(rec->bad, sizeof(rec->bad), "too large for a record");
	else
		len = read(fd, buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	if (len >= 0)
		hc_jrec_parse(buf, len, rec);
	else if (!rec->bad[0])
		snprintf(rec->bad, sizeof(rec->bad), "unreadable");
	snprintf(rec->name, sizeof(rec->name), "%s", name);
}

static int last_first(const void *a, const void *b)
{
	const struct hc_jrec *x = a, *y = b;

	if (!x->bad[0] != !y->bad[0])
		return x->bad[0] ? 1 : -1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

int hc_journal_list(struct hc_jrec **recs, int *n, struct hc_err *err)
{
	int dfd = dir_get(false, err), fd, cap = 0;
	struct dirent *de;
	DIR *d;

	*recs = NULL;
	*n = 0;
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	fd = dup(dfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			struct hc_jrec *more;

			cap = cap ? 2 * cap : 8;
			more = realloc(*recs, cap * sizeof(**recs));
			if (!more) {
				closedir(d);
				return -ENOMEM;
			}
			*recs = more;
		}
		read_rec(dfd, de->d_name, &(*recs)[(*n)++]);
	}
	closedir(d);
	if (*n)
		qsort(*recs, *n, sizeof(**recs), last_first);
	return 0;
}

void hc_journal_sweep(void)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (hc_journal_lock(NULL))
		return;
	fd = dup(dir_fd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d) {
		rewinddir(d);
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, ".tmp-", 5) &&
			    !fstatat(dir_fd, de->d_name, &st,
				     AT_SYMLINK_NOFOLLOW) &&
			    S_ISREG(st.st_mode))
				unlinkat(dir_fd, de->d_name, 0);
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	if (lock_depth == 1)
		dir_put();
	hc_journal_unlock();
}

/* ---- a hookcmp run's records ---- */

struct hc_jrec *hc_journal_of(struct hc_run *r, const struct hc_jkind *kind)
{
	struct hc_jrec *free = NULL;
	size_t i;

	for (i = 0; i < sizeof(r->jr) / sizeof(r->jr[0]); i++) {
		if (r->jr[i].kind == kind)
			return &r->jr[i];
		if (!r->jr[i].kind && !free)
			free = &r->jr[i];
	}
	return free;
}

struct hc_jrec *hc_journal_rec(struct hc_run *r, const struct hc_jkind *kind)
{
	struct hc_jrec *rec = hc_journal_of(r, kind);

	if (!rec->name[0])
		memset(rec, 0, sizeof(*rec));
	rec->kind = kind;
	snprintf(rec->dev, sizeof(rec->dev), "%s", r->dev);
	rec->ifindex = r->ifindex;
	snprintf(rec->mode, sizeof(rec->mode), "%s",
		 r->hook->attach_name(r));
	rec->prog_id = r->prog_id;
	return rec;
}

void hc_journal_end(struct hc_run *r, const struct hc_jkind *kind)
{
	struct hc_jrec *rec = hc_journal_of(r, kind);

	if (rec)
		hc_journal_del(rec);
}
