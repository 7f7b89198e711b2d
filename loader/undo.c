// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include "ethtool.h"
#include "exec.h"
#include "ipt.h"
#include "journal.h"
#include "netns.h"
#include "nl.h"
#include "qdisc.h"
#include "undo.h"

struct ctx {
	const struct hc_jrec *rec;
	struct hc_undo_pass *pass;
	struct hc_undo *u;
	struct hc_nl *nl; /* in the record's namespace; NULL: not reached */
	int gone; /* then: -ENOENT (proven gone), -ESRCH (out of sight) */
	char where[160]; /* where the namespace was found */
	char note[96]; /* a clause for the detail: renamed, let go */
	struct hc_err err;
};

static void say(struct ctx *c, const char *state, bool keep, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));
static void say(struct ctx *c, const char *state, bool keep, const char *fmt,
		...)
{
	va_list ap;

	c->u->state = state;
	c->u->keep = keep;
	va_start(ap, fmt);
	vsnprintf(c->u->detail, sizeof(c->u->detail), fmt, ap);
	va_end(ap);
}

static void failed(struct ctx *c, int ret)
{
	say(c, "failed", true, "could not undo: %s%s%s%s%s",
	    c->err.msg[0] ? c->err.msg : "", c->err.msg[0] ? ": " : "",
	    strerror(-ret), c->err.kernel[0] ? ". Kernel: " : "",
	    c->err.kernel);
}

/* What stays in its namespace is gone with it, or out of sight. */
static bool ns_missing(struct ctx *c)
{
	if (c->nl)
		return false;
	if (c->gone == -ESRCH)
		say(c, "failed", true,
		    "its network namespace (inode %llu) is out of sight from this PID namespace: run hookcmp cleanup from the initial one",
		    (unsigned long long)c->rec->netns_ino);
	else
		say(c, "gone", false,
		    "its network namespace is gone, and this with it");
	return true;
}

static const char *mac_str(const __u8 *m, char *buf, size_t size)
{
	snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
	return buf;
}

/*
 * For what holds no program: the device is still the one while its
 * namespace, ifindex and MAC address all match.
 */
static bool same_device(struct ctx *c, struct hc_link_info *li)
{
	const struct hc_jrec *j = c->rec;
	char now[20], was[20];
	int ret;

	if (ns_missing(c))
		return false;
	ret = hc_nl_link_get(c->nl, j->ifindex, li, &c->err);
	if (ret == -ENODEV) {
		say(c, "gone", false, "already gone, with its device");
		return false;
	}
	if (ret) {
		failed(c, ret);
		return false;
	}
	if (memcmp(li->addr, j->mac, sizeof(j->mac))) {
		say(c, "left alone", false,
		    "not ours any more: left alone; ifindex %d is %s with MAC address %s now, not %s",
		    j->ifindex, li->name, mac_str(li->addr, now, sizeof(now)),
		    mac_str(j->mac, was, sizeof(was)));
		return false;
	}
	return true;
}

/* " (the device is called d9 now)", when it is. */
static const char *renamed(const struct hc_jrec *j, const char *name, char *buf,
			   size_t size)
{
	buf[0] = '\0';
	if (strcmp(j->dev, name))
		snprintf(buf, size, " (the device is called %s now)", name);
	return buf;
}

/* The same, for a device in the record's namespace at its ifindex. */
static const char *now_called(struct ctx *c)
{
	struct hc_link_info li;

	c->note[0] = '\0';
	if (c->nl && !hc_nl_link_get(c->nl, c->rec->ifindex, &li, NULL))
		renamed(c->rec, li.name, c->note, sizeof(c->note));
	return c->note;
}

/* ---- following a program to wherever its device went ---- */

struct search {
	struct ctx *c;
	int (*here)(struct ctx *c, const char *where);
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
static bool search(struct ctx *c, int (*here)(struct ctx *c, const char *where))
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
static int follow(struct ctx *c, int (*here)(struct ctx *c, const char *where),
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
		say(c, "failed", true,
		    "program %u is loaded still, but %s hookcmp can see (bpftool prog show id %u)",
		    id, nowhere, id);
	return ret;
}

/* ---- XDP ---- */

static __u32 slot_of(const struct hc_link_info *li, const char *mode)
{
	return !strcmp(mode, "native") ? li->drv_id : li->skb_id;
}

static void xdp_off(struct ctx *c, int ifindex, const char *name,
		    const char *where)
{
	const struct hc_jrec *j = c->rec;
	char note[IF_NAMESIZE + 32];
	int ours, ret;

	ours = bpf_prog_get_fd_by_id(j->prog_id);
	if (ours < 0)
		return failed(c, -errno);
	ret = hc_xdp_put_back(c->nl, ifindex,
			      !strcmp(j->mode, "native") ? XDP_FLAGS_DRV_MODE :
							   XDP_FLAGS_SKB_MODE,
			      ours, j->pin, j->foreign_id, &c->err);
	close(ours);
	renamed(j, name, note, sizeof(note));
	if (ret && ret != -EEXIST)
		return failed(c, ret);
	if (ret)
		say(c, "left alone", false, "%s", c->err.msg);
	else if (j->foreign_id)
		say(c, "restored", false,
		    "detached, and XDP program %u put back as it was%s%s%s",
		    j->foreign_id, note, where ? ", in " : "",
		    where ? where : "");
	else
		say(c, "detached", false, "detached%s%s%s", note,
		    where ? ", found in " : "", where ? where : "");
}

struct has_prog {
	__u32 id;
	int ifindex;
	char name[IF_NAMESIZE];
};

static int has_xdp(int ifindex, const struct hc_link_info *li, void *data)
{
	struct has_prog *h = data;

	if (li->drv_id != h->id && li->skb_id != h->id)
		return 0;
	h->ifindex = ifindex;
	snprintf(h->name, sizeof(h->name), "%s", li->name);
	return 1;
}

static int xdp_here(struct ctx *c, const char *where)
{
	struct has_prog h = { .id = c->rec->prog_id };

	if (hc_nl_link_each(c->nl, has_xdp, &h, NULL) <= 0)
		return 0;
	xdp_off(c, h.ifindex, h.name, where);
	return 1;
}

static void undo_xdp(struct ctx *c)
{
	const struct hc_jrec *j = c->rec;
	struct hc_link_info li;
	bool dev = c->nl && !hc_nl_link_get(c->nl, j->ifindex, &li, NULL);
	__u32 slot = dev ? slot_of(&li, j->mode) : 0;
	int ret;

	if (slot && slot == j->prog_id)
		return xdp_off(c, j->ifindex, li.name, NULL);
	ret = follow(c, xdp_here, "attached nowhere");
	if (ret < 0)
		return failed(c, ret);
	if (ret)
		return;
	/* Ours is gone: what --replace took stays where it is. */
	if (j->pin[0] && !unlink(j->pin) && j->foreign_id != slot)
		snprintf(c->note, sizeof(c->note),
			 "; XDP program %u that hookcmp had replaced is let go",
			 j->foreign_id);
	if (slot && slot == j->foreign_id)
		say(c, "left alone", false,
		    "hookcmp never took the slot: XDP program %u is still there",
		    slot);
	else if (slot)
		say(c, "left alone", false,
		    "not ours any more: left alone, the device runs program %u now%s",
		    slot, c->note);
	else if (!c->nl && c->gone == -ENOENT)
		say(c, "gone", false,
		    "its network namespace is gone, and this with it%s",
		    c->note);
	else
		say(c, "gone", false, "already gone%s%s",
		    dev ? "" : ", with its device", c->note);
}

/* ---- tc filters and qdiscs ---- */

static void proven(struct ctx *c)
{
	struct hc_undo_pass *p = c->pass;

	if (p->nremoved < (int)(sizeof(p->removed) / sizeof(p->removed[0])))
		p->removed[p->nremoved++] = *c->rec;
}

static bool proof_for(const struct ctx *c)
{
	const struct hc_jrec *q = c->rec;
	int i;

	for (i = 0; i < c->pass->nremoved; i++) {
		const struct hc_jrec *f = &c->pass->removed[i];

		if (hc_jrec_same_run(f, q) && f->ifindex == q->ifindex &&
		    f->netns_ino == q->netns_ino &&
		    f->netns_dev == q->netns_dev)
			return true;
	}
	return false;
}

struct has_filter {
	struct ctx *c;
	int ifindex;
	const char *name, *where;
	bool done;
};

static int filter_is_ours(const struct hc_filter_info *i, void *data)
{
	struct has_filter *h = data;
	struct hc_filter f = hc_filter_of(h->c->rec);
	int ret;

	if (strcmp(i->kind, "bpf") || i->prog_id != h->c->rec->prog_id)
		return 0;
	f.ifindex = h->ifindex;
	f.parent = i->parent;
	f.prio = i->prio;
	f.handle = i->handle;
	f.chain = i->chain;
	f.protocol = i->protocol;
	ret = hc_nl_filter_del(h->c->nl, &f, &h->c->err);
	if (ret)
		failed(h->c, ret);
	else
		say(h->c, "deleted", false, "deleted, found in %s on %s",
		    h->where, h->name);
	return 1;
}

static int filter_dev(int ifindex, const struct hc_link_info *li, void *data)
{
	struct has_filter *h = data;

	h->ifindex = ifindex;
	h->name = li->name;
	return hc_nl_filter_each(h->c->nl, ifindex, HC_TC_INGRESS,
				 filter_is_ours, h, NULL) > 0;
}

static int filter_here(struct ctx *c, const char *where)
{
	struct has_filter h = { .c = c, .where = where };

	return hc_nl_link_each(c->nl, filter_dev, &h, NULL) > 0;
}

static void undo_filter(struct ctx *c)
{
	const struct hc_jrec *j = c->rec;
	struct hc_filter f = hc_filter_of(j);
	bool u32 = f.kind != NULL;
	int ret = -ENOENT;

	if (c->nl)
		ret = u32 ? hc_u32_detach(c->nl, &f, &c->err) :
			    hc_filter_detach(c->nl, &f, j->prog_id, &c->err);
	if (!ret) {
		proven(c);
		return say(c, "deleted", false, "deleted%s", now_called(c));
	}
	if (ret == -EEXIST)
		return say(c, "left alone", false,
			   "not ours any more: left alone (%s)", c->err.msg);
	/* No filter there, or no qdisc, or no device. */
	if (ret != -ENOENT && ret != -EINVAL && ret != -ENODEV)
		return failed(c, ret);
	if (u32) {
		if (!ns_missing(c))
			say(c, "gone", false, "already gone");
		return;
	}
	ret = follow(c, filter_here, "in no filter");
	if (ret < 0)
		failed(c, ret);
	else if (!ret && !c->nl && c->gone == -ENOENT)
		say(c, "gone", false,
		    "its network namespace is gone, and this with it");
	else if (!ret)
		say(c, "gone", false, "already gone");
}

static void undo_qdisc(struct ctx *c)
{
	const struct hc_jrec *j = c->rec;
	int ret;

	if (ns_missing(c))
		return;
	if (!j->done)
		return say(c, "left alone", false,
			   "never created by hookcmp, left alone");
	ret = hc_qdisc_release(c->nl, j->ifindex, j->mode, j, proof_for(c),
			       &c->err);
	switch (ret) {
	case 0:
		return say(c, "deleted", false, "deleted%s", now_called(c));
	case -ENOENT:
	case -ENODEV:
		return say(c, "gone", false, "already gone%s%s",
			   c->err.msg[0] ? ": " : "", c->err.msg);
	case -EUSERS:
	case -EBUSY:
		return say(c, "left alone", false, "left alone: %s",
			   c->err.msg);
	case -ESTALE:
		return say(
			c, "left alone", false,
			"left alone: %s; if nobody uses it: tc%s%s qdisc del dev %s %s",
			c->err.msg, j->netns[0] ? " -n " : "", j->netns, j->dev,
			j->mode);
	default:
		return failed(c, ret);
	}
}

/* ---- bench's device settings, veth pair and rules ---- */

static void undo_tune(struct ctx *c)
{
	struct hc_jrec now = *c->rec;
	struct hc_link_info li;
	char note[IF_NAMESIZE + 32];
	int ret;

	if (!same_device(c, &li))
		return;
	snprintf(now.dev, sizeof(now.dev), "%s", li.name);
	/* threaded is in /sys/class/net: that of this namespace. */
	ret = (now.kind == HC_J_THREADED ? hc_sysfs_here() : 0) ?:
		      hc_tune_restore(&now);
	if (ret)
		return failed(c, ret);
	say(c, "restored", false, "put back%s",
	    renamed(c->rec, li.name, note, sizeof(note)));
}

static void undo_link(struct ctx *c)
{
	struct hc_link_info li;
	int ret;

	if (!same_device(c, &li))
		return;
	if (strcmp(li.kind, "veth"))
		return say(c, "left alone", false,
			   "not ours any more: left alone; %s is a %s now",
			   li.name, li.kind[0] ? li.kind : "device");
	ret = hc_nl_link_del(c->nl, c->rec->ifindex, &c->err);
	if (ret)
		return failed(c, ret);
	say(c, "deleted", false, "deleted");
}

/* bench's iptables rule and nft table, by the name the record keeps. */
static void undo_rule(struct ctx *c)
{
	const struct hc_jrec *j = c->rec;
	char cmd[64];
	const char *nft[] = { "nft", cmd, NULL };

	if (ns_missing(c))
		return;
	/* Gone already is as good as deleted: nothing else has its name. */
	if (j->kind == HC_J_IPT) {
		hc_ipt_rule(-1, false, j->dev, j->mode, &c->err);
		if (j->val[0])
			hc_ipt_raw_put(-1);
	} else {
		snprintf(cmd, sizeof(cmd), "delete table netdev %s", j->mode);
		hc_exec(-1, nft, NULL, 0, &c->err);
	}
	say(c, "deleted", false, "deleted");
}

/* The cgroup --hook cgroup made, while its inode says it is that one. */
static void undo_cgroup(struct ctx *c)
{
	const struct hc_jrec *j = c->rec;
	char home[200];
	struct stat sb;
	int root = hc_cgroup_root(home, sizeof(home)), ret = 0;

	if (root < 0) {
		failed(c, root);
		return;
	}
	if (fstatat(root, j->cgroup, &sb, AT_SYMLINK_NOFOLLOW))
		ret = -errno;
	if (ret == -ENOENT)
		say(c, "gone", false, "already gone");
	else if (ret)
		failed(c, ret);
	else if (!j->done || sb.st_ino != j->cgroup_ino)
		say(c, "left alone", false,
		    "not proven ours: left alone; /%s has inode %llu, hookcmp %s (remove it with rmdir if it is yours)",
		    j->cgroup, (unsigned long long)sb.st_ino,
		    j->done ? "made another" : "died before it knew its own");
	else if (unlinkat(root, j->cgroup, AT_REMOVEDIR))
		failed(c, -errno);
	else
		say(c, "deleted", false, "deleted");
	close(root);
}

static void (*const undo_ops[HC_NR_JKINDS])(struct ctx *c) = {
	[HC_J_XDP] = undo_xdp,	     [HC_J_FILTER] = undo_filter,
	[HC_J_QDISC] = undo_qdisc,   [HC_J_CGROUP] = undo_cgroup,
	[HC_J_IPT] = undo_rule,	     [HC_J_NFT] = undo_rule,
	[HC_J_GRO] = undo_tune,	     [HC_J_THREADED] = undo_tune,
	[HC_J_CHANNELS] = undo_tune, [HC_J_LINK] = undo_link,
};

void hc_undo(struct hc_undo_pass *pass, const struct hc_jrec *rec,
	     struct hc_undo *u)
{
	struct hc_netns_id id = { .dev = rec->netns_dev,
				  .ino = rec->netns_ino,
				  .proc = rec->netns_proc };
	struct ctx c = { .rec = rec, .pass = pass, .u = u };
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	char name[sizeof(rec->netns) + 8];
	int fd;

	memset(u, 0, sizeof(*u));
	fd = hc_netns_open(&id, rec->netns, c.where, sizeof(c.where));
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
		undo_ops[rec->kind](&c);
	else
		failed(&c, c.gone);
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

void hc_undo_describe(const struct hc_jrec *j, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s", hc_jkind_names[j->kind]);

	if (j->kind == HC_J_QDISC)
		snprintf(buf + n, size - n, " %s%s", j->mode,
			 j->done ? "" : " (not created yet)");
	else if (j->kind == HC_J_XDP && j->foreign_id)
		snprintf(buf + n, size - n, " %s program %u in place of %u",
			 j->mode, j->prog_id, j->foreign_id);
	else if (j->kind == HC_J_XDP)
		snprintf(buf + n, size - n, " %s program %u", j->mode,
			 j->prog_id);
	else if (j->kind == HC_J_FILTER && !strcmp(j->mode, "u32"))
		snprintf(buf + n, size - n, " u32 prio %u handle %#x", j->prio,
			 j->handle);
	else if (j->kind == HC_J_FILTER)
		snprintf(buf + n, size - n, " prio %u handle %#x program %u",
			 j->prio, j->handle, j->prog_id);
	else if (j->kind == HC_J_CGROUP)
		snprintf(buf + n, size - n, " /%s", j->cgroup);
	else if (j->kind == HC_J_CHANNELS)
		snprintf(buf + n, size - n, " (was rx %u tx %u combined %u)",
			 j->val[0], j->val[1], j->val[2]);
	else if (j->kind == HC_J_GRO || j->kind == HC_J_THREADED)
		snprintf(buf + n, size - n, " (was %s)",
			 j->val[0] ? "on" : "off");
	else
		snprintf(buf + n, size - n, " %s", j->mode);
	n = strlen(buf);
	snprintf(buf + n, size - n, " on %s%s%s%s", j->dev,
		 j->netns[0] ? " in netns '" : "", j->netns,
		 j->netns[0] ? "'" : "");
}
