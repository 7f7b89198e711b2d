/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespaces by identity, not by name: the nsfs device and inode
 * of a namespace, and its cookie, are what a journal record keeps, and a
 * namespace is found again wherever something still holds it (a name
 * under /run/netns, a process, an open file, a bind mount), or proven
 * gone.
 */
#ifndef HC_NETNS_H
#define HC_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct hc_netns_id {
	__u64 dev, ino;
	/*
	 * The inode of its /proc/net/dev: what tells a process's namespace
	 * where the kernel hides its ns links, even from root.
	 */
	__u64 proc;
	/*
	 * Its cookie (SO_NETNS_COOKIE, Linux 5.14), never reused while the
	 * machine runs: nsfs reuses a freed namespace's inode. 0: unknown.
	 */
	__u64 cookie;
};

/*
 * Whether a and b are one namespace: the same nsfs inode, and the same
 * cookie where both know it.
 */
bool hc_netns_same(const struct hc_netns_id *a, const struct hc_netns_id *b);

/* The identity of the current thread's network namespace. */
int hc_netns_self(struct hc_netns_id *id);

/*
 * Calls fn once for every network namespace this process can reach,
 * with an fd open on it and where it was found ("netns 'A'", "the netns
 * of pid 42", ...), until fn returns non-zero; returns that. *all says
 * whether the search saw every process, and none of them hides target
 * (NULL: any namespace), so that not finding target proves it gone.
 */
typedef int (*hc_netns_fn)(int fd, const struct hc_netns_id *id,
			   const char *where, void *data);
int hc_netns_each(const char *first, const struct hc_netns_id *target,
		  hc_netns_fn fn, void *data, bool *all);

/*
 * An fd on the namespace id, trying the name first: -ENOENT when it is
 * gone (nothing this process can see holds it), -ESRCH when it may live
 * out of sight (another PID namespace's processes, or a process whose
 * namespace the kernel hides and the record has no /proc/net inode for).
 */
int hc_netns_open(const struct hc_netns_id *id, const char *name, char *where,
		  size_t size);

/*
 * The named namespaces (under /run/netns) that have a device called dev,
 * as "'A', 'B'" into list; how many. For an error that says where to look.
 */
int hc_netns_with_dev(const char *dev, char *list, size_t size);

/*
 * fn(data) in the namespace fd is open on, and back: fn's return, or
 * -errno when entering or coming back failed.
 */
int hc_netns_run(int fd, int (*fn)(void *data), void *data);

/* Whether this process is in the initial PID namespace, which sees all. */
bool hc_pidns_initial(void);

#endif
