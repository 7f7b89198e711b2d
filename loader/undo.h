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

/*
 * Undoes what rec describes if it is still hookcmp's, and says what
 * became of it. Records of one pass go the last change first, as
 * hc_journal_list sorts them. Comes back to the calling thread's network
 * namespace; threaded NAPI leaves the process in a mount namespace of its
 * own (hc_sysfs_here).
 */
void hc_undo(struct hc_undo_pass *pass, const struct hc_jrec *rec,
	     struct hc_undo *u);
/* "qdisc clsact on d0 in netns 'A'": what a record is, in one phrase. */
void hc_undo_describe(const struct hc_jrec *rec, char *buf, size_t size);

#endif
