/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state journal: a file under /run/hookcmp for every change hookcmp
 * makes to a device that outlives the process (an XDP program attached
 * over netlink, a qdisc, a tc filter), written before the change and
 * removed once it is undone. What a killed hookcmp leaves, `hookcmp
 * cleanup` finds here and removes after checking it is still ours.
 */
#ifndef HC_JOURNAL_H
#define HC_JOURNAL_H

#include <net/if.h>
#include "hookcmp.h"

#define HC_RUN_DIR "/run/hookcmp"

extern const char *const hc_jkind_names[HC_NR_JKINDS];

/*
 * Records what r is about to do (done false) or has done (done true): a
 * qdisc is deleted by cleanup only once it is known to be ours.
 */
int hc_journal_begin(struct hc_run *r, enum hc_jkind kind, bool done);
/*
 * Records a change that is not a hookcmp run's: rec's kind, dev, ifindex,
 * mode, prio, handle and val as the caller set them; netns is -n NAME or
 * NULL. The rest (pid, namespace inode, path) is filled in here.
 */
int hc_journal_add(struct hc_jrec *rec, const char *netns);
/* Forgets the record once the change is undone, or was never ours. */
void hc_journal_end(struct hc_run *r, enum hc_jkind kind);
void hc_journal_del(struct hc_jrec *rec);
/* Every record, sorted so filters come before their qdiscs. */
int hc_journal_list(struct hc_jrec **recs, int *n);
bool hc_journal_alive(const struct hc_jrec *rec);
__u64 hc_netns_ino(void);

#endif
