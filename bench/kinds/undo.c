// SPDX-License-Identifier: GPL-2.0
/*
 * What bench leaves in the journal, undone by cleanup: a --variant's
 * --undo due.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "bench.h"
#include "bench_undo.h"
#include "exec.h"
#include "journal.h"
#include "print.h"
#include "undo.h"

/*
 * What a --setup or --undo said: its stderr as exec keeps it (the last
 * KiB, "[cut] " first where that lost its start), each line trimmed,
 * joined by " / ", so that a table's cell stays one line; too long, its
 * first line and its end, "[cut]" between.
 */
#define SAID_MAX 448
#define SAID_HEAD 128

static void said(const struct hc_proc *p, char *buf, size_t size)
{
	const char *s = p->buf[1] ? p->buf[1] : "", *e, *tail;
	/* a full buffer lost its start: its first line is a fragment */
	bool cut = p->size[1] && p->len[1] + 1 >= p->size[1];
	char all[1200];
	size_t n = 0, first = 0, len;

	all[0] = '\0';
	for (; *s && n < sizeof(all); s = *e ? e + 1 : e) {
		e = s + strcspn(s, "\n");
		len = e - s;
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
			       s[len - 1] == '\r'))
			len--;
		if (!len && !(cut && !n))
			continue;
		n += snprintf(all + n, sizeof(all) - n, "%s%.*s",
			      n	  ? " / " :
			      cut ? "[cut] " :
				    "",
			      (int)len, s);
		first = first ?: n;
	}
	n = n < sizeof(all) ? n : sizeof(all) - 1;
	if (n <= SAID_MAX) {
		snprintf(buf, size, "%s", all);
		return;
	}
	first = first < SAID_HEAD ? first : SAID_HEAD;
	tail = all + n - (SAID_MAX - first - 9);
	/* from a line's start where one is near */
	e = strstr(tail, " / ");
	if (e && e - tail < 64)
		tail = e + 3;
	snprintf(buf, size, "%.*s / [cut] / %s", (int)first, all, tail);
}

int bench_proc_result(struct hc_proc *p, const char *what, struct hc_err *err)
{
	char words[SAID_MAX + 16], *at;
	int ret;

	said(p, words, sizeof(words));
	ret = hc_proc_result(p, what, err);
	/* exec's "WHAT failed (exit N), saying: ITS LAST LINE" */
	at = ret == -EIO && words[0] ?
		     strstr(err->msg + strlen(what), ", saying: ") :
		     NULL;
	if (at)
		snprintf(at, sizeof(err->msg) - (at - err->msg), ", saying: %s",
			 words);
	return ret;
}

/* The children of ours now, the zombies among them reaped when adopted. */
static pid_t adopted[64];
static int nadopted;

static int left_children(pid_t *pids, int max)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	int n = 0, i, ppid;
	DIR *d = opendir("/proc");
	FILE *f;

	/* Once dead, what we adopted is ours to reap; nobody else will. */
	for (i = 0; i < nadopted; i++)
		if (waitpid(adopted[i], NULL, WNOHANG) != 0)
			adopted[i--] = adopted[--nadopted];
	while (d && (de = readdir(d)) && n < max) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* ") S PPID": a zombie is gone already */
		if (p && sscanf(p, ") %*c %d", &ppid) == 1 &&
		    ppid == getpid() && p[2] != 'Z')
			pids[n++] = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

void bench_left_start(struct bench_left *l)
{
	/* Orphans of what we start come to us, not to init. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	l->n = left_children(l->pid, sizeof(l->pid) / sizeof(l->pid[0]));
	l->said[0] = '\0';
}

int bench_left_end(struct bench_left *l)
{
	pid_t now[64];
	char path[64], comm[32];
	size_t len = 0;
	int n = left_children(now, 64), i, k, left = 0;
	FILE *f;

	for (i = 0; i < n; i++) {
		for (k = 0; k < l->n && l->pid[k] != now[i]; k++)
			;
		if (k < l->n)
			continue;
		if (nadopted < (int)(sizeof(adopted) / sizeof(adopted[0])))
			adopted[nadopted++] = now[i];
		if (left == BENCH_LEFT_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", now[i]);
		f = fopen(path, "re");
		if (!f || !fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		if (f)
			fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		len += snprintf(l->said + len, sizeof(l->said) - len,
				"%spid %d (%s)", left ? ", " : "", now[i],
				comm);
		len = len < sizeof(l->said) ? len : sizeof(l->said) - 1;
		now[left++] = now[i];
	}
	memcpy(l->pid, now, left * sizeof(now[0]));
	l->n = left;
	return left;
}

/*
 * A variant's --undo, run once: in an empty network namespace, so that
 * it acts only on what is machine-wide; what it did in bench's namespace
 * went with it (or with the device: --dev's rows journal their own).
 */
static void undo_variant(struct hc_undo_ctx *c)
{
	const struct hc_jrec *j = c->rec;
	const struct bench_jvariant *v =
		HC_JDATA(j, const struct bench_jvariant);
	struct hc_jrec once = *j;
	const char *argv[] = { "/bin/sh", "-c", v->cmd, NULL };
	char name[sizeof(j->mode) + 16];
	const char *env[] = { name, "HC_CLEANUP=1", NULL };
	struct bench_left l;
	struct hc_proc p;
	char daemons[sizeof(l.said) + 32] = "";
	int ret;

	/* Two cleanups read the record: the one that takes it runs it. */
	ret = hc_journal_take(&once);
	if (ret == -ENOENT)
		return hc_undo_say(
			c, "gone", false,
			"its --undo '%s' is run, or was, by another cleanup: not again",
			v->cmd);
	if (ret)
		return hc_undo_say(
			c, "failed", true,
			"its --undo '%s' not run: taking its record: %s",
			v->cmd, strerror(-ret));
	snprintf(name, sizeof(name), "HC_VARIANT=%s", j->mode);
	bench_left_start(&l);
	ret = hc_proc_start(&p, -1, HC_PROC_NEWNET | HC_PROC_SYSFS, argv, env,
			    NULL, 0);
	if (ret) {
		hc_err_set(&c->err, "cannot start /bin/sh: %s", strerror(-ret));
	} else if (hc_proc_wait(&p, v->timeout)) {
		hc_err_set(&c->err, "stopped after %u s", v->timeout);
		ret = -ETIMEDOUT;
	} else {
		ret = bench_proc_result(&p, "it", &c->err);
	}
	if (bench_left_end(&l))
		snprintf(daemons, sizeof(daemons), "; it left running %s",
			 l.said);
	if (ret)
		return hc_undo_say(c, "failed", false,
				   "ran its --undo '%s' once: %s%s", v->cmd,
				   c->err.msg, daemons);
	hc_undo_say(c, "restored", false,
		    "ran its --undo '%s' once, in an empty network namespace%s",
		    v->cmd, daemons);
}

HC_JDATA_FITS(struct bench_jvariant);

static const struct hc_jfield variant_fields[] = {
	HC_JFIELD(struct bench_jvariant, cmd, HC_JF_STR, 5),
	HC_JFIELD(struct bench_jvariant, timeout, HC_JF_U32, 6),
	{},
};

const struct hc_jkind bench_jkind_variant = { .name = "variant",
					      .fields = variant_fields,
					      .undo = undo_variant };
HC_JKIND(bench_jkind_variant);
