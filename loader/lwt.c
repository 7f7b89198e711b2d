// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at a route's input (lwt_in, Linux 4.10+): the logic on a route to a
 * test prefix out of DEV, "PREFIX dev DEV encap bpf in", made with our own
 * RTM_NEWROUTE. The kernel runs it for what it forwards along that route:
 * frames that arrive addressed to DEV's MAC and to an address of PREFIX.
 * ip_route_input forwards only from a device with forwarding on, so the
 * hook turns DEV's on for the run and puts it back. The route outlives
 * hookcmp: it and the setting are journalled, and the route carries a
 * name of this run's (LWT_BPF_PROG_NAME, what the kernel dumps of it).
 * The setting is shared as a clsact is: runs that find it on from
 * hookcmp use it too, and the last live one puts it back, on the same
 * device only (namespace, ifindex and MAC address).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "opts.h"
#include "journal.h"
#include "netns.h"
#include "print.h"
#include "nl.h"
#include "undo.h"
#include "lwt.skel.h"

/* Its option: the prefix routed through the program. */
struct lwt_cfg {
	__be32 addr;
	__u8 plen;
};
HC_CFG_FITS(struct lwt_cfg);

static const struct lwt_cfg *cfg(const struct hc_run *r)
{
	return HC_CFG(r, struct lwt_cfg);
}

/* r->state: the skeleton, the route made, DEV's forwarding used. */
struct lwt_state {
	struct lwt_bpf *skel;
	bool route;
	bool forwarding; /* on from hookcmp: this run puts it back, if last */
	int shared_with; /* the hookcmp run that turned it on, if not this */
	bool shared_alive;
};

/* Its journal record's data: the route's place and name, the setting. */
struct lwt_jrec {
	__u32 addr; /* network order */
	__u32 plen;
	char name[64];
	__u32 forwarding; /* 1: DEV's was off; hookcmp turned it on */
};
HC_JDATA_FITS(struct lwt_jrec);

static const struct hc_jkind lwt_jkind; /* below */

static int set_prefix(void *c, const char *arg, struct hc_err *err)
{
	struct lwt_cfg *p = HC_CFG((struct hc_run *)c, struct lwt_cfg);
	char ip[INET_ADDRSTRLEN];
	const char *slash = strchr(arg, '/');
	__u64 plen = 32;
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);

	if (n >= sizeof(ip) ||
	    (slash && hc_parse_uint(slash + 1, 0, 1, 32, &plen)))
		goto bad;
	memcpy(ip, arg, n);
	ip[n] = '\0';
	if (inet_pton(AF_INET, ip, &p->addr) != 1)
		goto bad;
	p->plen = plen;
	if (p->addr & ~htonl(~0u << (32 - plen)))
		goto bad;
	return 0;
bad:
	hc_err_set(err, "--prefix '%s': expected an IPv4 network, A.B.C.D/LEN",
		   arg);
	return -EINVAL;
}

static void state_free(void *p)
{
	struct lwt_state *st = p;

	lwt_bpf__destroy(st->skel);
	free(st);
}

static int lwt_load(struct hc_run *r)
{
	struct lwt_state *st = hc_state_new(r, sizeof(*st), state_free);
	struct lwt_bpf *s;

	if (!st)
		return -ENOMEM;
	s = st->skel = lwt_bpf__open_opts(hc_prog_open_opts());
	if (!s)
		return -errno;
	s->rodata->hc_conf = r->conf;
	return hc_prog_load(r, s->skeleton, r->bare ? "hc_lwt_bare" : "hc_lwt");
}

/* DEV's net.ipv4.conf.DEV.forwarding, in this namespace: 0, 1, -errno. */
static int forwarding(const char *dev, int set)
{
	char path[96], v = '0';
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/forwarding",
		 dev);
	fd = open(path, (set < 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = set < 0 ? read(fd, &v, 1) : write(fd, set ? "1" : "0", 1);
	close(fd);
	if (ret != 1)
		return -EIO;
	return set < 0 ? v == '1' : 0;
}

/* RTM_NEWROUTE or RTM_DELROUTE of PREFIX dev DEV (encap bpf in: new). */
static int route(struct hc_nl *nl, int type, __be32 addr, __u8 plen,
		 int ifindex, int prog_fd, const char *name, struct hc_err *err)
{
	struct nlmsghdr *nlh = hc_nl_route_msg(
		nl, type, &(struct in_addr){ addr }, plen, ifindex);
	struct nlattr *encap, *in;

	if (type == RTM_NEWROUTE) {
		mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_BPF);
		encap = mnl_attr_nest_start(nlh, RTA_ENCAP);
		in = mnl_attr_nest_start(nlh, LWT_BPF_IN);
		mnl_attr_put_u32(nlh, LWT_BPF_PROG_FD, prog_fd);
		mnl_attr_put_strz(nlh, LWT_BPF_PROG_NAME, name);
		mnl_attr_nest_end(nlh, in);
		mnl_attr_nest_end(nlh, encap);
	}
	return hc_nl_ack(nl, nlh, err);
}

/* A route of the dump at PREFIX dev DEV: whether its program is ours. */
struct at_place {
	__be32 addr;
	__u8 plen;
	int ifindex;
	const char *name;
	int found; /* 0 none, 1 ours, -EEXIST another's */
};

static int encap_name(const struct nlattr *encap, char *buf, size_t size)
{
	const struct nlattr *a, *b;

	mnl_attr_for_each_nested(a, encap)
	{
		if (mnl_attr_get_type(a) != LWT_BPF_IN)
			continue;
		mnl_attr_for_each_nested(b, a)
		{
			if (mnl_attr_get_type(b) == LWT_BPF_PROG_NAME) {
				snprintf(buf, size, "%s", mnl_attr_get_str(b));
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int at_place_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rt = mnl_nlmsg_get_payload(nlh);
	struct at_place *q = data;
	const struct nlattr *a, *encap = NULL;
	__be32 dst = 0;
	int oif = 0;
	char name[64] = "";

	if (nlh->nlmsg_type != RTM_NEWROUTE || rt->rtm_family != AF_INET ||
	    rt->rtm_dst_len != q->plen || rt->rtm_table != RT_TABLE_MAIN)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*rt))
	{
		switch (mnl_attr_get_type(a)) {
		case RTA_DST:
			dst = mnl_attr_get_u32(a);
			break;
		case RTA_OIF:
			oif = mnl_attr_get_u32(a);
			break;
		case RTA_ENCAP:
			encap = a;
			break;
		}
	}
	if (dst != q->addr || oif != q->ifindex)
		return 0;
	if (encap)
		encap_name(encap, name, sizeof(name));
	q->found = !strcmp(name, q->name) ? 1 : -EEXIST;
	return 1;
}

/* 1: PREFIX dev DEV is the route this run made; -EEXIST: another; 0: none. */
static int route_ours(struct hc_nl *nl, __be32 addr, __u8 plen, int ifindex,
		      const char *name, struct hc_err *err)
{
	struct at_place q = { addr, plen, ifindex, name };
	struct nlmsghdr *nlh = hc_nl_msg(nl, RTM_GETROUTE, NLM_F_DUMP);
	struct rtmsg *rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	int ret;

	rt->rtm_family = AF_INET;
	ret = hc_nl_each_reply(nl, nlh, at_place_cb, &q, err);
	return ret < 0 ? ret : q.found;
}

/* ---- DEV's forwarding, shared ---- */

static bool fwd_same_dev(const struct hc_jrec *a, const struct hc_jrec *b)
{
	return a->ifindex == b->ifindex && hc_netns_same(&a->ns, &b->ns) &&
	       !memcmp(a->mac, b->mac, sizeof(a->mac));
}

/*
 * Another hookcmp run that uses rec's device's forwarding, on from
 * hookcmp and not put back since: its pid, a live one's first
 * (*alive), or 0, or -errno. Under the journal's lock.
 */
static int fwd_user(const struct hc_jrec *rec, bool *alive)
{
	struct hc_jrec *recs;
	int n, i, ret, pid = 0;

	*alive = false;
	ret = hc_journal_list(&recs, &n, NULL);
	if (ret)
		return ret;
	for (i = 0; i < n && !*alive; i++) {
		const struct hc_jrec *o = &recs[i];

		if (o->bad[0] || o->kind != &lwt_jkind ||
		    !HC_JDATA(o, const struct lwt_jrec)->forwarding ||
		    !fwd_same_dev(o, rec) || hc_jrec_same_run(o, rec))
			continue;
		*alive = hc_journal_alive(o);
		if (*alive || !pid)
			pid = o->pid;
	}
	free(recs);
	return pid;
}

/*
 * rec's device's forwarding off again, as its run's share of it: only on
 * the same device (li: the one at its ifindex now), and only by the last
 * live hookcmp user. 0; -EUSERS: *with uses it still; -ESTALE: another
 * device; -ENODEV: gone with its device; or -errno. Under the journal's
 * lock; journal false: a run's own, unjournalled (bench).
 */
static int fwd_put(struct hc_nl *nl, const struct hc_jrec *rec, bool journal,
		   struct hc_link_info *li, int *with, struct hc_err *err)
{
	bool alive = false;
	int ret = hc_nl_link_get(nl, rec->ifindex, li, err);

	*with = 0;
	if (ret)
		return ret;
	if (journal && memcmp(li->addr, rec->mac, sizeof(rec->mac)))
		return -ESTALE;
	*with = journal ? fwd_user(rec, &alive) : 0;
	if (*with < 0)
		return *with;
	if (*with && alive)
		return -EUSERS;
	*with = 0;
	ret = forwarding(li->name, 0);
	if (ret)
		hc_err_set(err, "turning net.ipv4.conf.%s.forwarding off",
			   li->name);
	return ret;
}

/* "ifindex 5 is d9 with MAC address ... now, not ...": why not ours. */
static void fwd_not_ours(const struct hc_jrec *rec,
			 const struct hc_link_info *li, char *buf, size_t size)
{
	char now[20], was[20];

	snprintf(buf, size, "ifindex %d is %s with MAC address %s now, not %s",
		 rec->ifindex, li->name, hc_mac_str(li->addr, now, sizeof(now)),
		 hc_mac_str(rec->mac, was, sizeof(was)));
}

/*
 * Whether this run uses DEV's forwarding, and with whom: off, it turns
 * it on; on, it shares it with the hookcmp run whose record says it
 * turned it on (alive or not: the last live user puts it back); on
 * otherwise, it is someone else's. Under the journal's lock.
 */
static int fwd_take(struct hc_run *r, struct hc_jrec *rec)
{
	struct lwt_state *st = r->state;
	struct lwt_jrec *j = HC_JDATA(rec, struct lwt_jrec);
	int on = forwarding(r->dev, -1), ret;

	if (on < 0) {
		hc_err_set(&r->err, "reading net.ipv4.conf.%s.forwarding",
			   r->dev);
		return on;
	}
	st->shared_with =
		on && !r->no_journal ? fwd_user(rec, &st->shared_alive) : 0;
	if (st->shared_with < 0)
		return st->shared_with;
	j->forwarding = !on || st->shared_with;
	ret = r->no_journal ? 0 : hc_journal_add(rec, r->netns, &r->err);
	if (!ret && !on) {
		ret = forwarding(r->dev, 1);
		if (ret)
			hc_err_set(&r->err,
				   "turning net.ipv4.conf.%s.forwarding on",
				   r->dev);
	}
	st->forwarding = !ret && j->forwarding;
	return ret;
}

static int lwt_attach(struct hc_run *r)
{
	struct lwt_state *st = r->state;
	struct hc_jrec *rec = hc_journal_rec(r, &lwt_jkind);
	struct lwt_jrec *j = HC_JDATA(rec, struct lwt_jrec);
	bool journal = !r->no_journal;
	int err;

	j->addr = cfg(r)->addr;
	j->plen = cfg(r)->plen;
	err = journal ? hc_journal_lock(&r->err) : 0;
	if (err)
		return err;
	/*
	 * The route carries the run's name (hc_run_name), cleanup's proof
	 * of ownership: journalled with the record, before the route.
	 */
	err = hc_run_name(NULL, j->name, sizeof(j->name)) ?:
		      (journal ? hc_journal_add(rec, r->netns, &r->err) : 0) ?:
		      fwd_take(r, rec);
	if (journal)
		hc_journal_unlock();
	err = err			       ?:
		      hc_fault(&r->err, "lwt") ?:
		      route(r->nl, RTM_NEWROUTE, j->addr, j->plen, r->ifindex,
			    r->prog_fd, j->name, &r->err);
	st->route = !err;
	if (err == -EEXIST)
		hc_err_set(
			&r->err,
			"a route to --prefix %s/%u is there already: another --prefix, or remove it",
			inet_ntoa((struct in_addr){ j->addr }), j->plen);
	return err;
}

static void lwt_attached(const struct hc_run *r, char *buf, size_t size)
{
	const struct lwt_state *st = r->state;

	if (st->shared_with && st->shared_alive)
		snprintf(
			buf, size,
			"hookcmp: net.ipv4.conf.%s.forwarding is hookcmp %d's too: the last of us to stop turns it off\n",
			r->dev, st->shared_with);
	else if (st->shared_with)
		snprintf(
			buf, size,
			"hookcmp: net.ipv4.conf.%s.forwarding is on from hookcmp %d, which died: the last of us to stop turns it off\n",
			r->dev, st->shared_with);
}

/*
 * DEV's forwarding off again unless another live run uses it, and the
 * record gone with the decision, under one lock: two runs that stop at
 * once must not both see the other. 0 with r->err set says why it stays.
 */
static int fwd_release(struct hc_run *r)
{
	struct lwt_state *st = r->state;
	struct hc_jrec *rec = hc_journal_of(r, &lwt_jkind);
	bool journal = !r->no_journal;
	struct hc_link_info li;
	char why[128];
	int err, with;

	err = journal ? hc_journal_lock(&r->err) : 0;
	if (err)
		return err;
	err = st->forwarding ?
		      fwd_put(r->nl, rec, journal, &li, &with, &r->err) :
		      0;
	if (err == -EUSERS) {
		hc_err_set(
			&r->err,
			"net.ipv4.conf.%s.forwarding stays on for hookcmp %d, which uses it too",
			li.name, with);
	} else if (err == -ESTALE) {
		fwd_not_ours(rec, &li, why, sizeof(why));
		hc_err_set(
			&r->err,
			"net.ipv4.conf.%s.forwarding: not ours any more: left alone; %s",
			li.name, why);
	}
	if (err == -EUSERS || err == -ESTALE)
		err = 0;
	/* A device that left: the record stays, for follow. */
	if (!err) {
		st->forwarding = false;
		hc_journal_end(r, &lwt_jkind);
	}
	if (journal)
		hc_journal_unlock();
	return err;
}

static int lwt_detach(struct hc_run *r)
{
	struct lwt_state *st = r->state;
	int err = 0;

	if (!st)
		return 0;
	/* Ours still, by its name: another's in its place stays. */
	if (st->route)
		err = route_ours(
			r->nl, cfg(r)->addr, cfg(r)->plen, r->ifindex,
			HC_JDATA(hc_journal_of(r, &lwt_jkind), struct lwt_jrec)
				->name,
			&r->err);
	if (err == 1)
		err = route(r->nl, RTM_DELROUTE, cfg(r)->addr, cfg(r)->plen,
			    r->ifindex, -1, NULL, &r->err);
	else if (err == -EEXIST)
		err = 0; /* another's: left alone */
	st->route = false;
	return err ?: fwd_release(r);
}

/* Cleanup's share of the forwarding: what became of it, as a clause. */
static int undo_fwd(struct hc_undo_ctx *c, char *buf, size_t size)
{
	struct hc_link_info li;
	char why[128];
	int ret, with;

	ret = hc_journal_lock(&c->err);
	if (ret)
		return ret;
	ret = fwd_put(c->nl, c->rec, true, &li, &with, &c->err);
	hc_journal_unlock();
	if (!ret) {
		snprintf(buf, size, "; forwarding off again");
	} else if (ret == -EUSERS) {
		snprintf(
			buf, size,
			"; forwarding stays on for hookcmp %d, which uses it too",
			with);
	} else if (ret == -ESTALE) {
		fwd_not_ours(c->rec, &li, why, sizeof(why));
		snprintf(buf, size,
			 "; forwarding not ours any more: left alone; %s", why);
	} else if (ret == -ENODEV) {
		snprintf(buf, size, "; its forwarding gone with its device");
	} else {
		return ret;
	}
	return ret == -ESTALE;
}

static void undo_lwt(struct hc_undo_ctx *c)
{
	const struct lwt_jrec *j = HC_JDATA(c->rec, const struct lwt_jrec);
	const char *state, *said;
	char name[IF_NAMESIZE], fwd[256] = "";
	int found, ret, alone = 0;

	if (hc_undo_ns_missing(c))
		return;
	if (!if_indextoname(c->rec->ifindex, name))
		return hc_undo_say(c, "gone", false,
				   "already gone, with its device");
	found = route_ours(c->nl, j->addr, j->plen, c->rec->ifindex, j->name,
			   &c->err);
	if (found == 1)
		ret = route(c->nl, RTM_DELROUTE, j->addr, j->plen,
			    c->rec->ifindex, -1, NULL, &c->err);
	else
		ret = found == -EEXIST ? 0 : found;
	if (!ret && j->forwarding)
		ret = alone = undo_fwd(c, fwd, sizeof(fwd));
	if (ret < 0)
		return hc_undo_failed(c, ret);
	if (found == -EEXIST)
		state = "left alone", said = "not ours any more: left alone";
	else if (found)
		state = "deleted", said = "deleted";
	else
		state = alone ? "left alone" : "gone", said = "already gone";
	hc_undo_say(c, state, false, "%s%s", said, fwd);
}

static void lwt_print(const struct hc_jrec *rec, struct hc_pr *p)
{
	const struct lwt_jrec *j = HC_JDATA(rec, const struct lwt_jrec);
	char ip[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN + 4];

	inet_ntop(AF_INET, &j->addr, ip, sizeof(ip));
	snprintf(prefix, sizeof(prefix), "%s/%u", ip, j->plen);
	hc_pr_fstr(p, HC_PR_ALL, "prefix", " route %s", prefix);
	hc_pr_fstr(p, HC_PR_ALL, "route_name", " (%s)", j->name);
}

static const struct hc_jfield lwt_fields[] = {
	HC_JFIELD(struct lwt_jrec, addr, HC_JF_U32, 6),
	HC_JFIELD(struct lwt_jrec, plen, HC_JF_U32, 6),
	HC_JFIELD(struct lwt_jrec, name, HC_JF_STR, 6),
	HC_JFIELD(struct lwt_jrec, forwarding, HC_JF_U32, 6),
	{},
};

static const struct hc_jkind lwt_jkind = {
	.name = "lwt",
	.fields = lwt_fields,
	.undo = undo_lwt,
	.print = lwt_print,
};
HC_JKIND(lwt_jkind);

static const char *lwt_attach_name(const struct hc_run *r)
{
	return "in";
}

static const char *lwt_attach_via(const struct hc_run *r)
{
	return "route";
}

static __u32 lwt_verdict(int retval)
{
	return retval == BPF_DROP ? HC_DROP :
	       retval == BPF_OK	  ? HC_PASS :
				    HC_NR_VERDICTS;
}

static const struct hc_opt lwt_opts[] = {
	{ "prefix", 0, HC_OPT_FUNC, 0, "PREFIX",
	  "lwt: the IPv4 network routed out of DEV through the program (default 198.51.100.0/24)",
	  .fn = set_prefix, .def = "198.51.100.0/24" },
	{}
};

const struct hc_hook hc_hook_lwt = {
	.name = "lwt",
	.help = "BPF at a route's input (lwt_in), on PREFIX dev DEV, forwarding on",
	.opts = lwt_opts,
	.load = lwt_load,
	.attach = lwt_attach,
	.detach = lwt_detach,
	.attached = lwt_attached,
	.attach_name = lwt_attach_name,
	.attach_via = lwt_attach_via,
	.verdict = lwt_verdict,
	.variants = (const struct hc_hook_row[]){ { "lwt", "" }, {} },
	.rows =
		(const struct hc_hook_row[]){
			{ "lwt", "", HC_ROW_LOCAL | HC_ROW_BARE,
			  .path = "lwtunnel_input bpf_input bpf_prog_hc_lwt*",
			  .drop_path = "ip_forward", .dst4 = "198.51.100.2" },
			{} },
};
