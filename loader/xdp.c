// SPDX-License-Identifier: GPL-2.0
/* XDP over RTM_SETLINK, as `ip link set dev DEV xdp` does it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "xdp.h"
#include "journal.h"
#include "print.h"
#include "undo.h"
#include "nl.h"
#include "xdp.skel.h"

/* The xdp hook's options: XDP's, and how it redirects. */
struct xdp_cfg {
	struct hc_xdp_cfg xdp;
	int rd_mode; /* --redirect-mode */
};
HC_CFG_FITS(struct xdp_cfg);

enum { RD_MAP, RD_IFINDEX };

static const struct hc_jkind hc_jkind_xdp; /* its record, below */

static struct hc_xdp_cfg *xcfg(const struct hc_run *r)
{
	return HC_CFG(r, struct hc_xdp_cfg);
}

/* r->state: what it attached (the first member, as xsk's), its skeleton. */
struct xdp_state {
	struct hc_xdp_state x;
	struct xdp_bpf *skel;
};

void hc_xdp_state_init(struct hc_xdp_state *x)
{
	*x = (struct hc_xdp_state){ .link_fd = -1, .foreign_fd = -1 };
}

static void state_free(void *p)
{
	struct xdp_state *st = p;

	xdp_bpf__destroy(st->skel);
	free(st);
}

static int xdp_load(struct hc_run *r)
{
	struct xdp_state *st = hc_state_new(r, sizeof(*st), state_free);
	struct xdp_bpf *s;
	__u32 key = 0;
	int err;

	if (!st)
		return -ENOMEM;
	hc_xdp_state_init(&st->x);
	s = st->skel = xdp_bpf__open_opts(hc_prog_open_opts());
	if (!s)
		return -errno;
	s->rodata->hc_conf = r->conf;
	err = hc_prog_load(r, s->skeleton, r->bare ? "hc_xdp_bare" : "hc_xdp");
	if (err || !(r->conf.redirect.flags & HC_RD_MAP))
		return err;
	if (!bpf_map_update_elem(bpf_map__fd(s->maps.hc_tx), &key,
				 &r->conf.redirect.ifindex, 0))
		return 0;
	err = -errno;
	hc_err_set(&r->err, "adding %s to the devmap",
		   r->redirect_dev ?: "the redirect target");
	return err;
}

static __u32 mode_flag(const struct hc_run *r)
{
	return xcfg(r)->mode == HC_XDP_NATIVE ? XDP_FLAGS_DRV_MODE :
					      XDP_FLAGS_SKB_MODE;
}

/*
 * A record's pin is one of ours only as a name right in HC_PIN_DIR, a
 * real directory: cleanup never unlinks anything else a record names.
 */
static bool our_pin(const char *pin)
{
	const char *name = pin + sizeof(HC_PIN_DIR);
	struct stat st;

	return !strncmp(pin, HC_PIN_DIR "/", sizeof(HC_PIN_DIR)) && name[0] &&
	       name[0] != '.' && !strchr(name, '/') &&
	       !lstat(HC_PIN_DIR, &st) && S_ISDIR(st.st_mode);
}

static void unpin(const char *pin)
{
	if (!our_pin(pin))
		return;
	unlink(pin);
	rmdir(HC_PIN_DIR); /* only once no other run's pin is in it */
}

/*
 * The program --replace took the slot from: by its pin, else by its id
 * (ids are not reused), as long as anything holds it; -1 when nothing.
 */
static int theirs_of(const char *pin, __u32 foreign_id)
{
	int fd = our_pin(pin) ? bpf_obj_get(pin) : -1;

	return fd >= 0 ? fd : bpf_prog_get_fd_by_id(foreign_id);
}

/* A bpffs to keep the replaced program in: the system's, or one mounted
 * at its usual place, as bpftool does. */
static int pin_prepare(struct hc_err *err)
{
	struct statfs sf;

	if ((statfs(HC_BPFFS, &sf) || sf.f_type != BPF_FS_MAGIC) &&
	    mount("bpf", HC_BPFFS, "bpf", 0, "mode=0700")) {
		hc_err_set(
			err,
			"--replace keeps the program it replaces pinned: mounting a bpffs at %s: %s",
			HC_BPFFS, strerror(errno));
		return -errno;
	}
	if (mkdir(HC_PIN_DIR, 0700) && errno != EEXIST) {
		hc_err_set(err, "creating %s: %s", HC_PIN_DIR, strerror(errno));
		return -errno;
	}
	return 0;
}

/* foreign_fd is open while foreign_id is set, and only then. */
static void release_foreign(struct hc_run *r)
{
	struct hc_xdp_state *x = r->state;

	if (x->foreign_id)
		close(x->foreign_fd);
	x->foreign_fd = -1;
	x->foreign_id = 0;
	x->pin[0] = '\0';
}

/* Its journal record's data: what --replace took, and where it waits. */
struct xdp_jrec {
	__u32 foreign_id;
	char pin[128];
};
HC_JDATA_FITS(struct xdp_jrec);
#define XDP_JREC(rec) HC_JDATA(rec, const struct xdp_jrec)

/* What r attached (or is about to), and what it replaced: journalled. */
static int journal(struct hc_run *r)
{
	const struct hc_xdp_state *x = r->state;
	struct hc_jrec *rec;
	struct xdp_jrec *j;

	if (r->no_journal)
		return 0;
	rec = hc_journal_rec(r, &hc_jkind_xdp);
	j = HC_JDATA(rec, struct xdp_jrec);
	j->foreign_id = x->foreign_id;
	snprintf(j->pin, sizeof(j->pin), "%s", x->pin);
	rec->done = true;
	return hc_journal_add(rec, r->netns, &r->err);
}

/*
 * --replace: holds the program in our mode's slot (by fd, and pinned, so
 * that cleanup can put it back after a kill -9) and journals both ids.
 */
static int take_over(struct hc_run *r)
{
	struct hc_xdp_state *x = r->state;
	struct hc_link_info li;
	bool native = xcfg(r)->mode == HC_XDP_NATIVE;
	__u32 id, other;
	int err;

	err = hc_nl_link_get(r->nl, r->ifindex, &li, &r->err);
	if (err)
		return err;
	id = native ? li.drv_id : li.skb_id;
	other = native ? li.skb_id : li.drv_id;
	if (!id && other) {
		hc_err_set(
			&r->err,
			"XDP program %u is attached in %s mode; --replace takes over the slot of its own mode",
			other, native ? "generic" : "native");
		hc_err_hint(&r->err, "use --xdp-mode %s --replace",
			    native ? "generic" : "native");
		return -EBUSY;
	}
	if (!id)
		return 0;
	err = bpf_prog_get_fd_by_id(id);
	if (err < 0) {
		err = -errno;
		hc_err_set(&r->err, "taking hold of XDP program %u", id);
		return err;
	}
	x->foreign_fd = err;
	x->foreign_id = id;
	snprintf(x->pin, sizeof(x->pin), HC_PIN_DIR "/xdp-%d-%d-%u", getpid(),
		 r->ifindex, id);
	/* The record first: cleanup after a kill -9 then knows the pin. */
	err = pin_prepare(&r->err) ?: journal(r);
	if (!err && bpf_obj_pin(x->foreign_fd, x->pin)) {
		err = -errno;
		hc_err_set(&r->err, "pinning XDP program %u at %s", id, x->pin);
	}
	if (err) {
		hc_journal_end(r, &hc_jkind_xdp);
		release_foreign(r);
	}
	return err;
}

static __u32 slot_of(const struct hc_link_info *li, const char *mode)
{
	return !strcmp(mode, "native") ? li->drv_id : li->skb_id;
}

/* The live hookcmp run that attached program id, or 0. */
static int live_owner(__u32 id)
{
	struct hc_jrec *recs;
	int n, i, pid = 0;

	if (hc_journal_list(&recs, &n, NULL))
		return 0;
	for (i = 0; i < n && !pid; i++)
		if (!recs[i].bad[0] && recs[i].kind == &hc_jkind_xdp &&
		    recs[i].prog_id == id && hc_journal_alive(&recs[i]))
			pid = recs[i].pid;
	free(recs);
	return pid;
}

int hc_xdp_attach(struct hc_run *r)
{
	struct hc_xdp_state *x = r->state;
	__u32 flags = mode_flag(r);
	struct hc_link_info info;
	int err, look;

	if (xcfg(r)->attach == HC_XDP_LINK) {
		/* A bpf_link goes away with the process: nothing to journal. */
		LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);

		err = hc_fault(&r->err, "xdp");
		if (!err) {
			x->link_fd = bpf_link_create(r->prog_fd, r->ifindex,
						     BPF_XDP, &opts);
			err = x->link_fd < 0 ? -errno : 0;
		}
		if (!err)
			return 0;
		x->link_fd = -1;
		/* Before 5.9 the kernel knows no XDP links. */
		if (err == -EINVAL) {
			hc_err_set(&r->err,
				   "XDP links need Linux 5.9 or newer");
			return -EOPNOTSUPP;
		}
		goto explain;
	}
	err = xcfg(r)->replace ? take_over(r) : 0;
	if (err)
		return err;
	/* Like ip link set xdp: never replace what we did not ask to. */
	flags |=
		x->foreign_id ? XDP_FLAGS_REPLACE : XDP_FLAGS_UPDATE_IF_NOEXIST;
	err = hc_fault(&r->err, "xdp")		       ?:
		      (x->foreign_id ? 0 : journal(r)) ?:
		      hc_nl_xdp_set(r->nl, r->ifindex, r->prog_fd,
				    x->foreign_id ? x->foreign_fd : -1, flags,
				    &r->err);
	/* An answer lost: the slot says; a look that fails, detach. */
	if (err && hc_journal_of(r, &hc_jkind_xdp)->name[0]) {
		look = hc_nl_link_get(r->nl, r->ifindex, &info, NULL);
		if (!look && slot_of(&info, hc_xdp_mode_name(r)) == r->prog_id)
			err = 0;
		x->attached = look != 0; /* not known: detach decides */
	}
	if (!err) {
		x->attached = true;
		return 0;
	}
	if (x->attached)
		return err;
	hc_journal_end(r, &hc_jkind_xdp);
	unpin(x->pin);
	release_foreign(r);
explain:
	if (err == -ERANGE)
		hc_err_hint(
			&r->err,
			"lower the MTU of %s and its peer, or use --xdp-mode generic",
			r->dev);
	if (err == -EOPNOTSUPP && xcfg(r)->mode == HC_XDP_NATIVE)
		hc_err_hint(
			&r->err,
			"the driver has no native XDP; try --xdp-mode generic");
	if ((err == -EBUSY || err == -EEXIST) &&
	    !hc_nl_link_get(r->nl, r->ifindex, &info, NULL)) {
		__u32 id = info.drv_id ? info.drv_id : info.skb_id;

		int pid = id ? live_owner(id) : 0;

		if (pid)
			hc_err_hint(
				&r->err,
				"XDP program id %u is hookcmp %d's, which still runs (hookcmp status); it was left alone",
				id, pid);
		else if (id)
			hc_err_hint(
				&r->err,
				"XDP program id %u is attached already; it was left alone%s",
				id,
				xcfg(r)->replace || xcfg(r)->attach == HC_XDP_LINK ?
					"" :
					" (--replace takes its place until hookcmp stops)");
	}
	return err;
}

/*
 * Takes ours_fd off ifindex's XDP slot if it is still there, with theirs
 * (-1: none) in its place, then reads the slot back. 0: it holds
 * foreign_id (0: nothing); 1: ours is off but the slot holds something
 * else, said in err; -EEXIST: ours was not there, nothing changed;
 * another error: ours may still be there.
 */
static int put_back(struct hc_nl *nl, int ifindex, __u32 mode, int ours_fd,
		    int theirs, __u32 foreign_id, struct hc_err *err)
{
	struct hc_link_info li;
	__u32 slot;
	int ret;

	/* IFLA_XDP_EXPECTED_FD: only if ours is still there. */
	ret = hc_nl_xdp_set(nl, ifindex, theirs, ours_fd,
			    mode | XDP_FLAGS_REPLACE, err);
	if (ret == -EEXIST)
		hc_err_set(err, "the XDP program there is no longer ours");
	else if (ret && ret != -ENODEV)
		hc_err_set(err, "our XDP program may still be attached");
	if (ret)
		return ret;
	if (hc_nl_link_get(nl, ifindex, &li, err))
		return 1;
	slot = mode == XDP_FLAGS_DRV_MODE ? li.drv_id : li.skb_id;
	if (slot == foreign_id)
		return 0;
	if (!foreign_id)
		hc_err_set(err, "detached; XDP program %u is in the slot now",
			   slot);
	else if (theirs < 0)
		hc_err_set(
			err,
			"detached, but XDP program %u that hookcmp had replaced was lost: nothing held it any more (its pin is gone), and the slot is empty",
			foreign_id);
	else
		hc_err_set(
			err,
			"detached, but XDP program %u was not put back: the slot holds %u",
			foreign_id, slot);
	return 1;
}

/*
 * Ours not in the slot at our ifindex (the device left this namespace, or
 * another took its ifindex) keeps the record: the caller follows it.
 */
int hc_xdp_detach(struct hc_run *r)
{
	struct hc_xdp_state *x = r->state;
	int err;

	if (!x)
		return 0;
	if (x->link_fd >= 0)
		close(x->link_fd);
	x->link_fd = -1;
	if (!x->attached)
		return 0;
	x->attached = false;
	/* What --replace took goes back from the fd held, not the pin. */
	err = put_back(r->nl, r->ifindex, mode_flag(r), r->prog_fd,
		       x->foreign_id ? x->foreign_fd : -1, x->foreign_id,
		       &r->err);
	if (err == -EEXIST || err == -ENODEV)
		return -ENODEV;
	if (!err && x->foreign_id)
		hc_err_set(&r->err, "XDP program %u is back on %s",
			   x->foreign_id, r->dev);
	if (err < 0)
		return err; /* may still be ours: the record stays */
	hc_journal_end(r, &hc_jkind_xdp);
	unpin(x->pin);
	release_foreign(r);
	return 0;
}

/* ---- its journal record, undone by cleanup ---- */

static void xdp_off(struct hc_undo_ctx *c, int ifindex, const char *name,
		    const char *where)
{
	const struct xdp_jrec *j = XDP_JREC(c->rec);
	char note[IF_NAMESIZE + 32];
	int ours, theirs, ret;

	ours = bpf_prog_get_fd_by_id(c->rec->prog_id);
	if (ours < 0)
		return hc_undo_failed(c, -errno);
	theirs = j->foreign_id ? theirs_of(j->pin, j->foreign_id) : -1;
	ret = put_back(c->nl, ifindex,
		       !strcmp(c->rec->mode, "native") ? XDP_FLAGS_DRV_MODE :
							 XDP_FLAGS_SKB_MODE,
		       ours, theirs, j->foreign_id, &c->err);
	close(ours);
	if (theirs >= 0)
		close(theirs);
	hc_undo_renamed(c->rec, name, note, sizeof(note));
	if (ret < 0 && ret != -EEXIST)
		return hc_undo_failed(c, ret);
	if (ret != -EEXIST)
		unpin(j->pin);
	if (ret == -EEXIST)
		hc_undo_say(c, "left alone", false, "%s, so it stays",
			    c->err.msg);
	else if (ret)
		hc_undo_say(c, "detached", false, "%s%s", c->err.msg, note);
	else if (j->foreign_id)
		hc_undo_say(c, "restored", false,
		    "detached, and XDP program %u put back as it was%s%s%s",
		    j->foreign_id, note, where ? ", in " : "",
		    where ? where : "");
	else
		hc_undo_say(c, "detached", false, "detached%s%s%s", note,
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

static int xdp_here(struct hc_undo_ctx *c, const char *where)
{
	struct has_prog h = { .id = c->rec->prog_id };

	if (hc_nl_link_each(c->nl, has_xdp, &h, NULL) <= 0)
		return 0;
	xdp_off(c, h.ifindex, h.name, where);
	return 1;
}

static void undo_xdp(struct hc_undo_ctx *c)
{
	const struct hc_jrec *rec = c->rec;
	const struct xdp_jrec *j = XDP_JREC(rec);
	struct hc_link_info li;
	bool dev = c->nl && !hc_nl_link_get(c->nl, rec->ifindex, &li, NULL);
	__u32 slot = dev ? slot_of(&li, rec->mode) : 0;
	int ret;

	if (slot && slot == rec->prog_id)
		return xdp_off(c, rec->ifindex, li.name, NULL);
	ret = hc_undo_follow(c, xdp_here, "attached nowhere");
	if (ret < 0)
		return hc_undo_failed(c, ret);
	if (ret)
		return;
	/* Ours is gone: what --replace took stays where it is. */
	if (our_pin(j->pin) && !access(j->pin, F_OK) && j->foreign_id != slot)
		snprintf(c->note, sizeof(c->note),
			 "; XDP program %u that hookcmp had replaced is let go",
			 j->foreign_id);
	unpin(j->pin);
	if (slot && slot == j->foreign_id)
		hc_undo_say(c, "left alone", false,
		    "hookcmp never took the slot: XDP program %u is still there",
		    slot);
	else if (slot)
		hc_undo_say(c, "left alone", false,
		    "not ours any more: left alone, the device runs program %u now%s",
		    slot, c->note);
	else if (!c->nl && c->gone == -ENOENT)
		hc_undo_say(c, "gone", false,
		    "its network namespace is gone, and this with it%s",
		    c->note);
	else
		hc_undo_say(c, "gone", false, "already gone%s%s",
		    dev ? "" : ", with its device", c->note);
}

static void xdp_print(const struct hc_jrec *j, struct hc_pr *p)
{
	__u32 foreign = XDP_JREC(j)->foreign_id;

	hc_pr_fstr(p, HC_PR_TEXT, NULL, " %s", j->mode);
	hc_pr_fu64(p, HC_PR_ALL, "prog_id", " program %llu", j->prog_id);
	if (foreign)
		hc_pr_fu64(p, HC_PR_ALL, "replaced_prog_id",
			   " in place of %llu", foreign);
}

static const struct hc_jfield xdp_fields[] = {
	HC_JFIELD(struct xdp_jrec, foreign_id, HC_JF_U32),
	HC_JFIELD(struct xdp_jrec, pin, HC_JF_STR),
	{},
};

static const struct hc_jkind hc_jkind_xdp = {
	.name = "xdp",
	.fields = xdp_fields,
	.undo = undo_xdp,
	.print = xdp_print,
};
HC_JKIND(hc_jkind_xdp);

void hc_xdp_attached(const struct hc_run *r, char *buf, size_t size)
{
	const struct hc_xdp_state *x = r->state;

	if (x->foreign_id)
		snprintf(
			buf, size,
			"Warning: --replace: XDP program %u gave its place on %s to ours; it goes back when hookcmp stops\n",
			x->foreign_id, r->dev);
}

__u32 hc_xdp_verdict(int retval)
{
	return retval == XDP_DROP     ? HC_DROP :
	       retval == XDP_REDIRECT ? HC_REDIRECT :
	       retval == XDP_PASS     ? HC_PASS :
					HC_NR_VERDICTS;
}

const char *hc_xdp_attach_via(const struct hc_run *r)
{
	return xcfg(r)->attach == HC_XDP_LINK ? "link" : "netlink";
}

const char *hc_xdp_mode_name(const struct hc_run *r)
{
	return xcfg(r)->mode == HC_XDP_NATIVE ? "native" : "generic";
}

unsigned int hc_xdp_modes(const struct hc_run *r)
{
	return 1u << xcfg(r)->attach;
}

/* --replace takes hold of a program by its id, and pins it. */
__u64 hc_xdp_caps(const struct hc_run *r)
{
	return xcfg(r)->replace ? 1ULL << CAP_SYS_ADMIN : 0;
}

static int xdp_check(struct hc_run *r, struct hc_err *err)
{
	if (!hc_conf_redirects(&r->conf)) {
		if (hc_hook_given(r, "redirect-mode")) {
			hc_err_set(err, HC_REDIRECT_UNASKED);
			return -EINVAL;
		}
		return 0;
	}
	if (HC_CFG(r, struct xdp_cfg)->rd_mode == RD_MAP)
		r->conf.redirect.flags |= HC_RD_MAP;
	return 0;
}

static const char *xdp_redirect_via(const struct hc_run *r)
{
	return r->conf.redirect.flags & HC_RD_MAP ? "devmap" : "ifindex";
}

/* Only native XDP hands over xdp_frames; generic XDP sends skbs. */
static void xdp_redirect_warn(const struct hc_run *r,
			      const struct hc_link_info *t, char *warn,
			      size_t size)
{
	__u64 xdp = 0;

	if (xcfg(r)->mode == HC_XDP_NATIVE &&
	    !hc_nl_xdp_features(r->conf.redirect.ifindex, &xdp, NULL) &&
	    !(xdp & HC_XDP_ACT_NDO_XMIT))
		snprintf(
			warn, size,
			!strcmp(t->kind, "veth") ?
				"%s takes no XDP frames: its veth peer runs no NAPI (no XDP program there, GRO off), so the kernel drops what is redirected to it" :
				"%s takes no XDP frames (its driver has no ndo_xdp_xmit), so the kernel drops what is redirected to it",
			r->redirect_dev);
}

static const struct hc_opt xdp_opts[] = {
	HC_XDP_OPTS(struct xdp_cfg),
	{ "redirect-mode", 0, HC_OPT_ENUM, HC_CFG_OFF(struct xdp_cfg, rd_mode),
	  NULL,
	  "XDP: bpf_redirect_map through a devmap, or bpf_redirect (default map)",
	  HC_CHOICES("map", "ifindex") },
	{}
};

/* Each with its bare program; in inject, native XDP runs in the live loop. */
static const struct hc_hook_row xdp_rows[] = {
	{ "xdp-native", "--xdp-mode native", HC_ROW_EVERY | HC_ROW_BARE,
	  .no_driver = "--xdp-mode generic",
	  .driver = true,
	  .path = "bpf_prog_hc_xdp* !do_xdp_generic",
	  .drop_path = "__netif_receive_skb_core" },
	{ "xdp-generic", "--xdp-mode generic", HC_ROW_EVERY | HC_ROW_BARE,
	  .path = "bpf_prog_hc_xdp* do_xdp_generic" },
	{}
};

const struct hc_hook hc_hook_xdp = {
	.name = "xdp",
	.help = "XDP: in the driver (native) or in the generic path",
	.opts = xdp_opts,
	.modes = HC_XDP_MODES,
	.mode = hc_xdp_modes,
	.check = xdp_check,
	.caps = hc_xdp_caps,
	.load = xdp_load,
	.attach = hc_xdp_attach,
	.detach = hc_xdp_detach,
	.attached = hc_xdp_attached,
	.attach_name = hc_xdp_mode_name,
	.attach_via = hc_xdp_attach_via,
	.verdict = hc_xdp_verdict,
	.redirect_via = xdp_redirect_via,
	.redirect_warn = xdp_redirect_warn,
	.variants = (const struct hc_hook_row[]){ { "xdp", "" }, {} },
	.rows = xdp_rows,
};
