/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state journal: a file under /run/hookcmp for every change hookcmp
 * makes that outlives the process (an XDP program attached over netlink,
 * a qdisc, a tc filter, bench's device settings), written before the
 * change and removed once it is undone. What a killed hookcmp leaves,
 * `hookcmp cleanup` finds here and removes after proving it is still
 * ours (core/undo.c, and each kind's own undo).
 *
 * The directory is refused unless it is a real directory of root's (or
 * the caller's) that nobody else can write; records are written to a
 * temporary file and renamed, so none is ever half-written; every change
 * to the journal happens under a lock on the directory.
 */
#ifndef HC_JOURNAL_H
#define HC_JOURNAL_H

#include <net/if.h>
#include <stddef.h>
#include "hookcmp.h"

#define HC_RUN_DIR "/run/hookcmp"

struct hc_undo_ctx;
struct hc_pr;

/* How a field is written in a record's file. */
enum hc_jtype {
	HC_JF_U64,
	HC_JF_INT,
	HC_JF_U32,
	HC_JF_BOOL,
	HC_JF_STR, /* escaped: %XX for all but printable ASCII */
	HC_JF_MAC,
	HC_JF_VAL, /* __u32[4] */
	HC_JF_KIND, /* the journal's own */
};

/*
 * A field of a record's file: KEY=VALUE, at off in the record (the
 * journal's) or in its data (a kind's). Every record of format since or
 * later has it; one of an older format without it reads as zero.
 */
struct hc_jfield {
	const char *key;
	enum hc_jtype type;
	size_t off, size;
	int since;
};
/* clang-format off */
#define HC_JFIELD(T, m, type, ...) \
	{ #m, type, offsetof(T, m), sizeof(((T *)0)->m), __VA_ARGS__ }
/* clang-format on */

/*
 * A kind of record, and how it is undone: each owner declares its own
 * and registers it (HC_JKIND), so the journal knows nobody's concerns.
 */
struct hc_jkind {
	const char *name; /* in the record's file and in what cleanup says */
	/*
	 * Its own fields, in the record's data, none with a key of the
	 * journal's own (seq, pid, dev...); ended by one without key.
	 */
	const struct hc_jfield *fields;
	/* Undoes c->rec if it is still ours, saying what became of it. */
	void (*undo)(struct hc_undo_ctx *c);
	/*
	 * Optional: what the record is, one call per value: in text the
	 * words after its kind's name (" clsact"; without it, the mode),
	 * in JSON its own members of status's and cleanup's record.
	 */
	void (*print)(const struct hc_jrec *j, struct hc_pr *p);
};

void hc_journal_kind_add(const struct hc_jkind *kind);
/* The kind registered by name, or NULL. */
const struct hc_jkind *hc_journal_kind(const char *name);
/* Registers kind before main: a record of it can be read from then on. */
#define HC_JKIND(kind)                                                         \
	static void __attribute__((constructor)) kind##_register(void)        \
	{                                                                      \
		hc_journal_kind_add(&kind);                                    \
	}

/* --journal DIR, else $HOOKCMP_JOURNAL, else HC_RUN_DIR. */
void hc_journal_set_dir(const char *dir);
const char *hc_journal_dir(void);
/*
 * Whether the journal's directory would be accepted, before any change
 * is made: 0, or -errno with err saying why (EPERM: refused).
 */
int hc_journal_check(struct hc_err *err);

/* r's record of kind as it is, or a free one (r holds one of each kind). */
struct hc_jrec *hc_journal_of(struct hc_run *r, const struct hc_jkind *kind);
/* r's record of kind, filled in from r, not written yet. */
struct hc_jrec *hc_journal_rec(struct hc_run *r, const struct hc_jkind *kind);
/*
 * Writes rec: the first time, who writes it (pid, PID namespace, start),
 * where (the current network namespace, and netns as its name, NULL for
 * none), the device's MAC address and the next sequence number are
 * filled in; later writes replace it. The rest is the caller's.
 */
int hc_journal_add(struct hc_jrec *rec, const char *netns, struct hc_err *err);
/* Forgets the record once the change is undone, or was never ours. */
void hc_journal_end(struct hc_run *r, const struct hc_jkind *kind);
void hc_journal_del(struct hc_jrec *rec);
/*
 * The same, as a claim: 0 for the one process that removed the record,
 * -ENOENT for any other (another took it first), or -errno.
 */
int hc_journal_take(struct hc_jrec *rec);
/*
 * Every record, the last change first; an entry that is not a record
 * comes last, with bad saying why. No journal yet is no record.
 */
int hc_journal_list(struct hc_jrec **recs, int *n, struct hc_err *err);
/* Held around decisions that span records (a shared qdisc); nests. */
int hc_journal_lock(struct hc_err *err);
void hc_journal_unlock(void);
/*
 * Whether the process that wrote rec still runs: 0 (dead), HC_ALIVE, or
 * HC_ALIVE_UNSEEN for a record of a PID namespace whose processes this
 * one cannot all see (an ancestor's, a sibling's): it may run there.
 */
enum { HC_ALIVE = 1, HC_ALIVE_UNSEEN };
int hc_journal_alive(const struct hc_jrec *rec);
/*
 * A name no other run makes, in any PID namespace: "hcPID-PIDNS-START",
 * in hex, of rec's run (NULL: this process's), for what a run makes
 * outside the journal (an nft table, an iptables chain and comment, an
 * ipset set); cleanup makes it again from the record. 0, or -errno.
 */
#define HC_RUN_NAME_MAX 29 /* with its NUL: iptables' chain names */
int hc_run_name(const struct hc_jrec *rec, char *buf, size_t size);
bool hc_jrec_same_run(const struct hc_jrec *a, const struct hc_jrec *b);
/*
 * The temporary files of writes that never finished: under the lock,
 * which every write holds from its .tmp- file to its rename, a dead one's.
 */
void hc_journal_sweep(void);

/* The record's file format, pure, for tests and the fuzzer. */
int hc_jrec_format(const struct hc_jrec *rec, char *buf, size_t size);
int hc_jrec_parse(const char *buf, size_t len, struct hc_jrec *rec);

#endif
