// SPDX-License-Identifier: GPL-2.0
/* Undoing a record: its namespace found, then its kind's own undo. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "journal.h"
#include "netns.h"
#include "nl.h"
#include "print.h"
#include "undo.h"


void hc_undo_say(struct hc_undo_ctx *c, const char *state, bool keep,
		 const char *fmt, ...)
{
	va_list ap;

	c->u->state = state;
	c->u->keep = keep;
	va_start(ap, fmt);
	vsnprintf(c->u->detail, sizeof(c->u->detail), fmt, ap);
	va_end(ap);
}

void hc_undo_failed(struct hc_undo_ctx *c, int ret)
{
	hc_undo_say(c, "failed", true, "could not undo: %s%s%s%s%s",
	    c->err.msg[0] ? c->err.msg : "", c->err.msg[0] ? ": " : "",
	    strerror(-ret), c->err.kernel[0] ? ". Kernel: " : "",
	    c->err.kernel);
}

/* What stays in its namespace is gone with it, or out of sight. */
bool hc_undo_ns_missing(struct hc_undo_ctx *c)
{
	if (c->nl)
		return false;
	if (c->gone == -ESRCH && !hc_pidns_initial())
		hc_undo_say(
			c, "failed", true,
			"its network namespace (inode %llu) is out of sight from this PID namespace: run hookcmp cleanup from the initial one",
			(unsigned long long)c->rec->ns.ino);
	else if (c->gone == -ESRCH)
		hc_undo_say(
			c, "failed", true,
			"its network namespace (inode %llu) was not found, but a process whose namespace the kernel hides may hold it: the record stays",
			(unsigned long long)c->rec->ns.ino);
	else
		hc_undo_say(c, "gone", false,
		    "its network namespace is gone, and this with it");
	return true;
}

/*
 * For what holds no program: the device is still the one while its
 * namespace, ifindex and MAC address all match.
 */
bool hc_undo_same_device(struct hc_undo_ctx *c, struct hc_link_info *li)
{
	const struct hc_jrec *j = c->rec;
	char now[20], was[20];
	int ret;

	if (hc_undo_ns_missing(c))
		return false;
	ret = hc_nl_link_get(c->nl, j->ifindex, li, &c->err);
	if (ret == -ENODEV) {
		hc_undo_say(c, "gone", false, "already gone, with its device");
		return false;
	}
	if (ret) {
		hc_undo_failed(c, ret);
		return false;
	}
	if (memcmp(li->addr, j->mac, sizeof(j->mac))) {
		hc_undo_say(c, "left alone", false,
		    "not ours any more: left alone; ifindex %d is %s with MAC address %s now, not %s",
		    j->ifindex, li->name, hc_mac_str(li->addr, now, sizeof(now)),
		    hc_mac_str(j->mac, was, sizeof(was)));
		return false;
	}
	return true;
}

/* " (the device is called d9 now)", when it is. */
const char *hc_undo_renamed(const struct hc_jrec *j, const char *name,
			    char *buf,
			   size_t size)
{
	buf[0] = '\0';
	if (strcmp(j->dev, name))
		snprintf(buf, size, " (the device is called %s now)", name);
	return buf;
}

/* The same, for a device in the record's namespace at its ifindex. */
const char *hc_undo_now_called(struct hc_undo_ctx *c)
{
	struct hc_link_info li;

	c->note[0] = '\0';
	if (c->nl && !hc_nl_link_get(c->nl, c->rec->ifindex, &li, NULL))
		hc_undo_renamed(c->rec, li.name, c->note, sizeof(c->note));
	return c->note;
}

/* ---- following a program to wherever its device went ---- */

struct search {
	struct hc_undo_ctx *c;
	int (*here)(struct hc_undo_ctx *c, const char *where);
};

static int search_one(int fd, const struct hc_netns_id *id, const char *where,
		      void *data)
{
	struct search *s = data;
	struct hc_nl *saved = s->c->nl;
	struct hc_err err = {};
	int ret;

	if (setns(fd, CLONE_NEWNET))
		return 0;
	s->c->nl = hc_nl_open(&err);
	if (!s->c->nl) {
		s->c->nl = saved;
		return 0;
	}
	ret = s->here(s->c, where);
	hc_nl_close(s->c->nl);
	s->c->nl = saved;
	return ret;
}

/*
 * A program of ours that is still loaded is still attached (nothing else
 * holds it after its hookcmp died): look in every namespace for it.
 */
static bool search(struct hc_undo_ctx *c,
		   int (*here)(struct hc_undo_ctx *c, const char *where))
{
	struct search s = { .c = c, .here = here };

	return hc_netns_each(c->rec->netns, NULL, search_one, &s, NULL) > 0;
}

/* 1: the program is loaded still; 0: it is gone; or -errno. */
static int prog_loaded(__u32 id)
{
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ENOENT ? 0 : -errno;
}

/*
 * Our program is loaded still, so attached somewhere: here() finds and
 * undoes it in a namespace. Found nowhere, it may be on its way out: the
 * kernel frees a namespace, and what was in it, after its last user
 * went. 0: the program is gone; 1: said what became of it; or -errno.
 */
int hc_undo_follow(struct hc_undo_ctx *c,
		   int (*here)(struct hc_undo_ctx *c, const char *where),
		  const char *nowhere)
{
	__u32 id = c->rec->prog_id;
	int ret = prog_loaded(id), i;

	if (ret <= 0 || search(c, here))
		return ret;
	for (i = 0; i < 60 && ret == 1; i++) {
		usleep(50000);
		ret = prog_loaded(id);
	}
	if (ret == 1)
		hc_undo_say(c, "failed", true,
		    "program %u is loaded still, but %s hookcmp can see (bpftool prog show id %u)",
		    id, nowhere, id);
	return ret;
}

void hc_undo(struct hc_undo_pass *pass, const struct hc_jrec *rec,
	     struct hc_undo *u)
{
	struct hc_undo_ctx c = { .rec = rec, .pass = pass, .u = u };
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	char name[sizeof(rec->netns) + 8];
	int fd;

	memset(u, 0, sizeof(*u));
	fd = hc_netns_open(&rec->ns, rec->netns, c.where, sizeof(c.where));
	if (fd >= 0) {
		c.gone = setns(fd, CLONE_NEWNET) ? -errno : 0;
		close(fd);
		if (!c.gone)
			c.nl = hc_nl_open(&c.err);
		if (!c.gone && !c.nl)
			c.gone = -errno;
	} else {
		c.gone = fd;
	}
	if (c.nl || c.gone == -ENOENT || c.gone == -ESRCH)
		rec->kind->undo(&c);
	else
		hc_undo_failed(&c, c.gone);
	/* Found by another way than its name: say which. */
	snprintf(name, sizeof(name), "netns '%s'", rec->netns);
	if (c.nl && strcmp(c.where, "this netns") && strcmp(c.where, name) &&
	    !u->keep)
		snprintf(u->detail + strlen(u->detail),
			 sizeof(u->detail) - strlen(u->detail),
			 " (its namespace: %s)", c.where);
	hc_nl_close(c.nl);
	if (home >= 0) {
		setns(home, CLONE_NEWNET);
		close(home);
	}
}

bool hc_undo_end(struct hc_undo_pass *pass, struct hc_jrec *rec,
		 void (*say)(const struct hc_jrec *j, const struct hc_undo *u,
			     void *data),
		 void *data)
{
	struct hc_undo u;

	hc_undo(pass, rec, &u);
	say(rec, &u, data);
	if (u.keep)
		rec->name[0] = '\0'; /* stays on disk, for cleanup */
	else
		hc_journal_del(rec);
	return u.keep;
}

int hc_undo_run(struct hc_run *r,
		void (*say)(const struct hc_jrec *j, const struct hc_undo *u,
			    void *data),
		void *data)
{
	struct hc_undo_pass pass = {};
	struct hc_jrec *j;
	int left = 0, k;

	for (;;) {
		/* The last change first: a filter before its qdisc. */
		for (j = NULL, k = 0;
		     k < (int)(sizeof(r->jr) / sizeof(r->jr[0])); k++)
			if (r->jr[k].name[0] && (!j || r->jr[k].seq > j->seq))
				j = &r->jr[k];
		if (!j)
			return left;
		left += hc_undo_end(&pass, j, say, data);
	}
}

void hc_undo_describe(const struct hc_jrec *j, char *buf, size_t size)
{
	struct hc_pr p = { .mode = HC_PR_TEXT };

	buf[0] = '\0';
	p.f = fmemopen(buf, size, "w");
	if (!p.f)
		return;
	fprintf(p.f, "%s", j->kind->name);
	if (j->kind->print)
		j->kind->print(j, &p);
	else
		fprintf(p.f, " %s", j->mode);
	fprintf(p.f, " on %s%s%s%s", j->dev, j->netns[0] ? " in netns '" : "",
		j->netns, j->netns[0] ? "'" : "");
	fclose(p.f);
}

void hc_undo_print(const struct hc_jrec *j, const struct hc_undo *u, void *data)
{
	char what[400];

	hc_undo_describe(j, what, sizeof(what));
	hc_text_printf(stderr, "hookcmp: %s: %s\n", what, u->detail);
}

void hc_cleanup_hint(const char *netns, const char *dev, const char *when)
{
	bool ns = netns && netns[0];

	hc_text_printf(stderr, "Hint: run hookcmp%s%s cleanup %s%s%s\n",
		       ns ? " -n " : "", ns ? netns : "", dev ?: "--all",
		       when ? ", " : "", when ?: "");
}
