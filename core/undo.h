/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Undoing a journal record: for each kind, what proves that the object
 * is still the one hookcmp made, and how it goes. The namespace is found
 * by its identity, the device by its ifindex (and MAC address, for what
 * holds no program), and what holds a program by that program's id,
 * wherever the device went since. cleanup runs it on what dead runs
 * left; a run whose device left its namespace, on its own records.
 */
#ifndef HC_UNDO_H
#define HC_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include "hookcmp.h"
#include "nl.h"

/* What became of a record. */
struct hc_undo {
	/* detached, deleted, restored, gone, left alone, failed */
	const char *state;
	char detail[1024];
	bool keep; /* not proven undone or gone: the record stays */
};

/* What a pass over records has proven: the filters it removed. */
struct hc_undo_pass {
	struct hc_jrec removed[16];
	int nremoved;
};

/* What a kind's undo (struct hc_jkind) works with, in the record's netns. */
struct hc_undo_ctx {
	const struct hc_jrec *rec;
	struct hc_undo_pass *pass;
	struct hc_undo *u;
	struct hc_nl *nl; /* in the record's namespace; NULL: not reached */
	int gone; /* then: -ENOENT (proven gone), -ESRCH (out of sight) */
	char where[160]; /* where the namespace was found */
	char note[96]; /* a clause for the detail: renamed, let go */
	struct hc_err err;
};

/* What became of c->rec: state (see struct hc_undo), keep, the detail. */
void hc_undo_say(struct hc_undo_ctx *c, const char *state, bool keep,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "could not undo", with the error and the kernel's words. */
void hc_undo_failed(struct hc_undo_ctx *c, int ret);
/* Said and true when the record's namespace was not reached. */
bool hc_undo_ns_missing(struct hc_undo_ctx *c);
/*
 * For what holds no program: the device is still the one while its
 * namespace, ifindex and MAC address all match; else said, false.
 */
bool hc_undo_same_device(struct hc_undo_ctx *c, struct hc_link_info *li);
/* " (the device is called d9 now)", when it is. */
const char *hc_undo_renamed(const struct hc_jrec *j, const char *name,
			    char *buf, size_t size);
/* The same, for a device in the record's namespace at its ifindex. */
const char *hc_undo_now_called(struct hc_undo_ctx *c);
/*
 * Our program is loaded still, so attached somewhere: here() finds and
 * undoes it in a namespace (1), where names it. 0: the program is gone;
 * 1: said what became of it; or -errno.
 */
int hc_undo_follow(struct hc_undo_ctx *c,
		   int (*here)(struct hc_undo_ctx *c, const char *where),
		   const char *nowhere);

/*
 * Undoes what rec describes if it is still hookcmp's, and says what
 * became of it. Records of one pass go the last change first, as
 * hc_journal_list sorts them. Comes back to the calling thread's network
 * namespace; threaded NAPI leaves the process in a mount namespace of its
 * own (hc_sysfs_here).
 */
void hc_undo(struct hc_undo_pass *pass, const struct hc_jrec *rec,
	     struct hc_undo *u);
/*
 * Undoes rec as cleanup would, gives the outcome to say and deletes the
 * record unless u->keep: then it stays on disk, for cleanup. Returns keep.
 */
bool hc_undo_end(struct hc_undo_pass *pass, struct hc_jrec *rec,
		 void (*say)(const struct hc_jrec *j, const struct hc_undo *u,
			     void *data),
		 void *data);
/*
 * The records a run still holds once its programs are unloaded (its
 * device left the namespace, or a detach failed), undone the last change
 * first as cleanup would: each outcome goes to say; a record stays on
 * disk, for cleanup, only while u->keep. Returns how many stay.
 */
int hc_undo_run(struct hc_run *r,
		void (*say)(const struct hc_jrec *j, const struct hc_undo *u,
			    void *data),
		void *data);
/* "qdisc clsact on d0 in netns 'A'": what a record is, in one phrase. */
void hc_undo_describe(const struct hc_jrec *rec, char *buf, size_t size);

/* "hookcmp: WHAT: DETAIL" on stderr: what became of a record (hc_undo_run). */
void hc_undo_print(const struct hc_jrec *j, const struct hc_undo *u,
		   void *data);
/*
 * "Hint: run hookcmp [-n NETNS] cleanup DEV" for what is still journalled;
 * with no DEV, cleanup --all (a namespace with no name to give).
 */
void hc_cleanup_hint(const char *netns, const char *dev, const char *when);

#endif
