// SPDX-License-Identifier: GPL-2.0
/*
 * Variants (--variant NAME --setup CMD --undo CMD): for each row chosen, a
 * row ROW+NAME, compared with ROW round by round, whose every visit runs
 * the user's SETUP after the row's own setup and UNDO before its
 * teardown. The commands run in the DUT's network namespace, with a
 * sysfs of its own, and the topology in their environment.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "bench_undo.h"
#include "env.h"
#include "variant.h"
#include "exec.h"
#include "journal.h"

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
static int left(struct bench *b, const struct bench_row *r,
		bench_settings before, struct hc_err *err)
{
	bench_settings now;
	int i;

	bench_env_settings(b->net.fd_root, now);
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
	rec->kind = &bench_jkind_variant;
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
	return ret ?: left(b, r, before, err);
}
