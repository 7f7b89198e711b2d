// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "journal.h"

#include <stdbool.h>

const char *const hc_jkind_names[HC_NR_JKINDS] = {
	[HC_J_XDP] = "xdp",	      [HC_J_FILTER] = "filter",
	[HC_J_QDISC] = "qdisc",	      [HC_J_IPT] = "iptables",
	[HC_J_NFT] = "nft",	      [HC_J_GRO] = "gro",
	[HC_J_THREADED] = "threaded", [HC_J_CHANNELS] = "channels",
	[HC_J_LINK] = "link",
};

__u64 hc_netns_ino(void)
{
	struct stat st;

	return stat("/proc/thread-self/ns/net", &st) ? 0 : st.st_ino;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks. */
static unsigned long long proc_start(int pid)
{
	unsigned long long start = 0;
	char path[64], buf[1024], *p;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		for (i = 0; i < 20 && p; i++)
			p = strchr(p + 1, ' ');
		if (p)
			start = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return start;
}

int hc_journal_add(struct hc_jrec *rec, const char *netns)
{
	FILE *f;
	int fd;

	rec->pid = getpid();
	rec->start = proc_start(rec->pid);
	snprintf(rec->netns, sizeof(rec->netns), "%s", netns ? netns : "");
	rec->netns_ino = hc_netns_ino();
	if (mkdir(HC_RUN_DIR, 0700) && errno != EEXIST)
		return -errno;
	snprintf(rec->path, sizeof(rec->path), HC_RUN_DIR "/%d-%s-%d", rec->pid,
		 hc_jkind_names[rec->kind], rec->ifindex);
	fd = open(rec->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fprintf(f,
		"pid=%d\nstart=%llu\nkind=%s\ndone=%d\nnetns=%s\n"
		"netns_ino=%llu\ndev=%s\nifindex=%d\nmode=%s\nprog_id=%u\n"
		"prio=%u\nhandle=%u\nval=%u,%u,%u,%u\n",
		rec->pid, rec->start, hc_jkind_names[rec->kind], rec->done,
		rec->netns, (unsigned long long)rec->netns_ino, rec->dev,
		rec->ifindex, rec->mode, rec->prog_id, rec->prio, rec->handle,
		rec->val[0], rec->val[1], rec->val[2], rec->val[3]);
	/* The record must be on disk before the change it describes. */
	if (fflush(f) || fsync(fd)) {
		fclose(f);
		unlink(rec->path);
		rec->path[0] = '\0';
		return -EIO;
	}
	fclose(f);
	return 0;
}

static int journal_write(const struct hc_run *r, enum hc_jkind kind, bool done,
			 struct hc_jrec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = kind;
	rec->done = done;
	snprintf(rec->dev, sizeof(rec->dev), "%s", r->dev);
	rec->ifindex = r->ifindex;
	snprintf(rec->mode, sizeof(rec->mode), "%s",
		 hc_hook_of(r)->attach_name(r));
	rec->prog_id = r->prog_id;
	rec->prio = r->prio;
	rec->handle = r->handle;
	return hc_journal_add(rec, r->netns);
}

int hc_journal_begin(struct hc_run *r, enum hc_jkind kind, bool done)
{
	return r->no_journal ? 0 : journal_write(r, kind, done, &r->jr[kind]);
}

void hc_journal_end(struct hc_run *r, enum hc_jkind kind)
{
	hc_journal_del(&r->jr[kind]);
}

void hc_journal_del(struct hc_jrec *rec)
{
	if (!rec->path[0])
		return;
	unlink(rec->path);
	rec->path[0] = '\0';
	rmdir(HC_RUN_DIR); /* only when nothing else is in it */
}

static int read_rec(const char *path, struct hc_jrec *rec)
{
	char line[256], kind[16] = "";
	unsigned long long ino = 0;
	int done = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	memset(rec, 0, sizeof(*rec));
	snprintf(rec->path, sizeof(rec->path), "%s", path);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		sscanf(line, "pid=%d", &rec->pid);
		sscanf(line, "start=%llu", &rec->start);
		sscanf(line, "done=%d", &done);
		sscanf(line, "kind=%15s", kind);
		sscanf(line, "netns=%63s", rec->netns);
		sscanf(line, "netns_ino=%llu", &ino);
		sscanf(line, "dev=%15s", rec->dev);
		sscanf(line, "ifindex=%d", &rec->ifindex);
		sscanf(line, "mode=%15s", rec->mode);
		sscanf(line, "prog_id=%u", &rec->prog_id);
		sscanf(line, "prio=%u", &rec->prio);
		sscanf(line, "handle=%u", &rec->handle);
		sscanf(line, "val=%u,%u,%u,%u", &rec->val[0], &rec->val[1],
		       &rec->val[2], &rec->val[3]);
	}
	fclose(f);
	rec->netns_ino = ino;
	rec->done = done;
	for (rec->kind = 0; rec->kind < HC_NR_JKINDS; rec->kind++)
		if (!strcmp(kind, hc_jkind_names[rec->kind]))
			return rec->pid > 0 ? 0 : -EINVAL;
	return -EINVAL;
}

static int by_kind(const void *a, const void *b)
{
	const struct hc_jrec *x = a, *y = b;

	return x->kind != y->kind ? (int)x->kind - (int)y->kind :
				    x->pid - y->pid;
}

int hc_journal_list(struct hc_jrec **recs, int *n)
{
	DIR *d = opendir(HC_RUN_DIR);
	struct dirent *de;
	char path[sizeof(HC_RUN_DIR) + 256];
	int cap = 0;

	*recs = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct hc_jrec rec;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), HC_RUN_DIR "/%s", de->d_name);
		if (read_rec(path, &rec))
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
		(*recs)[(*n)++] = rec;
	}
	closedir(d);
	if (*n)
		qsort(*recs, *n, sizeof(**recs), by_kind);
	return 0;
}

bool hc_journal_alive(const struct hc_jrec *rec)
{
	return (!kill(rec->pid, 0) || errno == EPERM) &&
	       proc_start(rec->pid) == rec->start;
}
