// SPDX-License-Identifier: GPL-2.0
/*
 * Variants (--variant NAME --setup CMD --undo CMD): for each row chosen, a
 * row ROW+NAME, compared with ROW round by round, whose every visit runs
 * the user's SETUP after the row's own setup and UNDO before its
 * teardown. The commands run in the DUT's network namespace, with a
 * sysfs of its own, and the topology in their environment.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "bench.h"
#include "env.h"
#include "variant.h"
#include "exec.h"
#include "journal.h"
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

/*
 * hc_proc_result for a --setup or --undo: what it wrote to stderr, every
 * line of it (bounded, saying where it was cut), not only its last.
 */
static int bench_proc_result(struct hc_proc *p, const char *what,
			     struct hc_err *err)
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

/*
 * What a --setup or --undo left running (a daemon, setsid -f's, a job in
 * the background): bench_left_start makes this process the subreaper of
 * what it starts and notes its children; once the command has ended,
 * bench_left_end gives the children it has since (orphans of the
 * command's, reparented here), their pids in l->pid, and how many, and
 * "pid 7 (sleep), ..." in l->said. They are left alone, not stopped:
 * only their pids say they are the command's.
 */
#define BENCH_LEFT_MAX 8
struct bench_left {
	pid_t pid[64]; /* before; then what it left */
	int n;
	char said[BENCH_LEFT_MAX * 32];
};

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

static void bench_left_start(struct bench_left *l)
{
	/* Orphans of what we start come to us, not to init. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	l->n = left_children(l->pid, sizeof(l->pid) / sizeof(l->pid[0]));
	l->said[0] = '\0';
}

static int bench_left_end(struct bench_left *l)
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

/* A --variant record's data: its --undo, for cleanup to run once. */
struct bench_jvariant {
	char cmd[BENCH_VARIANT_UNDO_MAX]; /* its --undo */
	__u32 timeout; /* --variant-timeout, in seconds */
};

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

static const struct hc_jkind variant_jkind = { .name = "variant",
					       .fields = variant_fields,
					       .undo = undo_variant };
HC_JKIND(variant_jkind);

/* Its environment: the topology, the row and the round. */
struct venv {
	char s[10][128];
	const char *p[11];
};

static void venv_fill(struct venv *e, const struct bench *b,
		      const struct bench_row *r, int round)
{
	const __u8 *m = b->net.dut_mac;
	int i = 0, k;

	snprintf(e->s[i++], 128, "HC_VARIANT=%s", r->variant->name);
	snprintf(e->s[i++], 128, "HC_ROW=%s", r->name);
	snprintf(e->s[i++], 128, "HC_BASE_ROW=%s", b->rows.row[r->vbase].name);
	snprintf(e->s[i++], 128, "HC_ROUND=%d", round);
	snprintf(e->s[i++], 128, "HC_DEV=%s", b->net.dut_name);
	snprintf(e->s[i++], 128, "HC_PEER=%s", b->opt.dev ? "" : BENCH_GEN_DEV);
	snprintf(e->s[i++], 128, "HC_DUT_MAC=%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	snprintf(e->s[i++], 128, "HC_DUT_IP=%s", b->net.dut_ip);
	snprintf(e->s[i++], 128, "HC_NETNS=/proc/%d/fd/%d", getpid(),
		 b->net.fd_dut);
	for (k = 0; k < i; k++)
		e->p[k] = e->s[k];
	e->p[i] = NULL;
}

/* A machine-wide setting its --undo left other than --setup found it. */
static int left(const struct bench_net *net, const struct bench_row *r,
		bench_settings before, struct hc_err *err)
{
	bench_settings now;
	int i;

	bench_env_settings(net->fd_root, now);
	for (i = 0; i < BENCH_ENV_FILES; i++)
		if (strcmp(before[i], now[i])) {
			hc_err_set(err,
				   "--undo of %s left %s at %s (%s before its --setup)",
				   r->variant->name, bench_env_files[i].key,
				   now[i][0] ? now[i] : "nothing",
				   before[i][0] ? before[i] : "nothing");
			return -ENOTRECOVERABLE;
		}
	return 0;
}

/*
 * What a kill -9 would leave due: the --undo, which cleanup runs in an
 * empty network namespace, where only what is machine-wide remains.
 */
static int journal_undo(struct bench *b, const struct bench_row *r,
			struct hc_err *err)
{
	struct hc_jrec *rec = &b->visit.variant_rec;
	struct bench_jvariant *v = HC_JDATA(rec, struct bench_jvariant);

	memset(rec, 0, sizeof(*rec));
	rec->kind = &variant_jkind;
	rec->done = true;
	snprintf(rec->dev, sizeof(rec->dev), "%s", b->net.dut_name);
	snprintf(rec->mode, sizeof(rec->mode), "%s", r->variant->name);
	snprintf(v->cmd, sizeof(v->cmd), "%s", r->variant->undo);
	v->timeout = ceil(b->opt.variant_timeout);
	return hc_journal_add(rec, b->opt.netns, err);
}

/*
 * Not stopped: outside its process group, nothing but being its orphan
 * says it is the command's. Said at once, and in the row's report.
 */
static void left_running(struct bench_row *r, int round, const char *what,
			 const struct bench_left *l)
{
	int i;

	fprintf(stderr,
		"Warning: %s (%s, round %d) left running %s: bench leaves %s alone\n",
		what, r->name, round, l->said, l->n > 1 ? "them" : "it");
	if (!r->variant_left[0])
		snprintf(r->variant_left, sizeof(r->variant_left),
			 "round %d: %s left running %s", round, what, l->said);
	for (i = 0; i < l->n && r->nvariant_left < BENCH_LEFT_MAX; i++)
		r->variant_left_pid[r->nvariant_left++] = l->pid[i];
}

static int step(struct bench *b, struct bench_row *r, int round, bool undo,
		struct hc_err *err)
{
	const char *cmd = undo ? r->variant->undo : r->variant->setup;
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int ret;
	struct bench_left l;
	struct hc_proc p;
	struct venv e;
	char what[64];

	venv_fill(&e, b, r, round);
	snprintf(what, sizeof(what), "--%s of %s", undo ? "undo" : "setup",
		 r->variant->name);
	bench_left_start(&l);
	ret = hc_proc_start(&p, b->net.fd_dut, HC_PROC_SYSFS, argv, e.p, NULL,
			    0);
	if (ret) {
		hc_err_set(err, "%s: starting it", what);
		return ret;
	}
	if (hc_proc_wait(&p, b->opt.variant_timeout)) {
		hc_err_set(err,
			   "%s: still running after %g s (--variant-timeout)",
			   what, b->opt.variant_timeout);
		ret = -ETIMEDOUT;
	} else {
		ret = bench_proc_result(&p, what, err);
	}
	if (bench_left_end(&l))
		left_running(r, round, what, &l);
	return ret;
}

int bench_variant_step(struct bench *b, struct bench_row *r, int round,
		       bench_settings before, bool undo, struct hc_err *err)
{
	const struct bench_variant *v = r->variant;
	int ret;

	if (!undo) {
		bench_env_settings(b->net.fd_root, before);
		ret = v->undo ? journal_undo(b, r, err) : 0;
		return ret || !v->setup ? ret : step(b, r, round, false, err);
	}
	ret = v->undo ? step(b, r, round, true, err) : 0;
	/* Run once, whatever came of it: cleanup would not do better. */
	hc_journal_del(&b->visit.variant_rec);
	return ret ?: left(&b->net, r, before, err);
}
