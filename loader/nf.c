// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at netfilter: the logic as a BPF_PROG_TYPE_NETFILTER program on two
 * netfilter links, NF_INET_PRE_ROUTING for IPv4 and for IPv6, at --nf-prio
 * (default -300, iptables' raw table). A link lives as long as its fd, so
 * nothing can outlive hookcmp: there is nothing to journal.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "opts.h"
#include "print.h"
#include "nf.skel.h"

/* The netfilter hook's option: its hooks' priority. */
struct nf_cfg {
	__s32 prio;
};
HC_CFG_FITS(struct nf_cfg);

/* Linux 6.4 uapi; Debian 12's headers and libbpf predate them. */
#define HC_BPF_PROG_TYPE_NETFILTER 32
#define HC_BPF_NETFILTER 45

/* bpf_link_info up to its netfilter member (Linux 6.4 uapi). */
struct nf_link_info {
	__u32 type, id, prog_id, pad;
	__u32 pf, hooknum;
	__s32 priority;
	__u32 flags;
};

/* r->state: the skeleton and the two links, IPv4's and IPv6's. */
struct nf_state {
	struct nf_bpf *skel;
	struct {
		int fd;
		struct nf_link_info info; /* what the kernel said of it */
	} link[2];
};

static void state_destroy(void *p)
{
	struct nf_state *st = p;

	nf_bpf__destroy(st->skel);
	free(st);
}

/*
 * Does the kernel know the program type? A two-instruction program says:
 * EINVAL before 6.4. HOOKCMP_FAIL_AT=netfilter-probe:22 plays that kernel.
 */
static bool nf_supported(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = HC_BPF_NETFILTER);
	int fd, err = hc_fault(NULL, "netfilter-probe");

	if (!err) {
		fd = bpf_prog_load(HC_BPF_PROG_TYPE_NETFILTER, NULL, "GPL",
				   insns, 2, &opts);
		err = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
	}
	return err != -EINVAL;
}

static int nf_load(struct hc_run *r)
{
	struct bpf_program *p;
	struct nf_state *st;
	struct nf_bpf *s;

	if (!nf_supported()) {
		hc_err_set(&r->err,
			   "BPF netfilter links need Linux 6.4 or newer");
		hc_err_hint(&r->err,
			    "--hook tc or socket works on any kernel");
		return -EOPNOTSUPP;
	}
	st = hc_state_new(r, sizeof(*st), state_destroy);
	if (!st)
		return -ENOMEM;
	st->link[0].fd = st->link[1].fd = -1;
	s = st->skel = nf_bpf__open_opts(hc_prog_open_opts());
	if (!s)
		return -errno;
	bpf_object__for_each_program(p, s->obj) {
		bpf_program__set_type(p, HC_BPF_PROG_TYPE_NETFILTER);
		bpf_program__set_expected_attach_type(p, HC_BPF_NETFILTER);
	}
	s->rodata->hc_conf = r->conf;
	s->rodata->hc_nf_ifindex = r->ifindex;
	return hc_prog_load(r, s->skeleton, r->bare ? "hc_nf_bare" : "hc_nf");
}

/*
 * BPF_LINK_CREATE's attributes up to the netfilter ones, which libbpf 1.1
 * cannot pass; the kernel takes a shorter bpf_attr as zero beyond it.
 */
struct nf_link_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u32 pf, hooknum;
	__s32 priority;
	__u32 nf_flags;
};

static int nf_link(int prog_fd, __u32 pf, __s32 prio)
{
	struct nf_link_attr attr = { .prog_fd = prog_fd,
				     .attach_type = HC_BPF_NETFILTER,
				     .pf = pf,
				     .hooknum = NF_INET_PRE_ROUTING,
				     .priority = prio };
	int fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));

	return fd < 0 ? -errno : fd;
}

/*
 * The kernel refuses a BPF hook at the priority of any other hook on the
 * same hook point (nf_hook_entries_grow): EBUSY, without a word.
 */
static void nf_busy(struct hc_run *r, const char *pf, __s32 prio)
{
	/* The next one up, but INT_MAX, which the kernel refuses too. */
	__s32 near = prio < INT_MAX - 1 ? prio + 1 : prio - 1;

	hc_err_set(
		&r->err,
		"priority %d at PRE_ROUTING (%s) is taken by another hook%s",
		prio, pf,
		prio == -300 ?
			", such as iptables' raw table (there from when it is loaded, even empty)" :
			"");
	hc_err_hint(&r->err, "--nf-prio %d attaches right %s it", near,
		    near > prio ? "after" : "before");
}

static int nf_attach(struct hc_run *r)
{
	static const __u32 pf[2] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	struct nf_state *st = r->state;
	__s32 prio = HC_CFG(r, struct nf_cfg)->prio;
	int i, err = hc_fault(&r->err, "netfilter");

	for (i = 0; !err && i < 2; i++) {
		__u32 len = sizeof(st->link[i].info);
		int fd = nf_link(r->prog_fd, pf[i], prio);

		if (fd == -EBUSY)
			nf_busy(r, i ? "ipv6" : "ipv4", prio);
		if (fd < 0)
			return fd;
		st->link[i].fd = fd;
		/* What the kernel says it runs at, for the summary. */
		if (bpf_obj_get_info_by_fd(fd, &st->link[i].info, &len))
			memset(&st->link[i].info, 0, sizeof(st->link[i].info));
	}
	return err;
}

static int nf_detach(struct hc_run *r)
{
	struct nf_state *st = r->state;
	int i;

	for (i = 0; st && i < 2; i++) {
		if (st->link[i].fd >= 0)
			close(st->link[i].fd);
		st->link[i].fd = -1;
	}
	return 0;
}

static const char *nf_attach_via(const struct hc_run *r)
{
	return "link";
}

static const char *nf_attach_name(const struct hc_run *r)
{
	return "prerouting";
}

/*
 * What the kernel said of each link when it was made: the family, hook
 * and priority it runs at, so the summary shows the path, not the options.
 */
static void nf_report(const struct hc_run *r, struct hc_pr *p)
{
	const struct nf_state *st = r->state;
	unsigned int i;

	hc_pr_open(p, HC_PR_JSON, "netfilter", '[');
	for (i = 0; st && i < 2; i++) {
		const struct nf_link_info *l = &st->link[i].info;
		const char *pf = l->pf == NFPROTO_IPV4 ? "ipv4" :
				 l->pf == NFPROTO_IPV6 ? "ipv6" : "?";

		if (!l->id)
			continue;
		hc_pr_open(p, HC_PR_JSON, NULL, '{');
		hc_pr_fu64(p, HC_PR_ALL, "link_id",
			   "netfilter link %llu: ", l->id);
		hc_pr_fstr(p, HC_PR_ALL, "pf", "%s", pf);
		hc_pr_fu64(p, HC_PR_ALL, "hooknum", ", hook %llu", l->hooknum);
		if (l->hooknum == NF_INET_PRE_ROUTING)
			hc_pr_text(p, " (prerouting)");
		hc_pr_fs64(p, HC_PR_ALL, "priority", ", priority %lld\n",
			   l->priority);
		hc_pr_close(p, HC_PR_JSON, '}');
	}
	hc_pr_close(p, HC_PR_JSON, ']');
}

/* --nf-prio: a signed priority, the kernel refusing INT_MIN and INT_MAX. */
static int set_prio(void *cfg, const char *arg, struct hc_err *err)
{
	bool neg = arg[0] == '-';
	__u64 v;

	if (hc_parse_uint(arg + neg, 0, 0, neg ? 2147483647 : 2147483646,
			  &v)) {
		hc_err_set(
			err,
			"--nf-prio '%s': expected a number from -2147483647 to 2147483646",
			arg);
		return -EINVAL;
	}
	HC_CFG((struct hc_run *)cfg, struct nf_cfg)->prio =
		neg ? -(__s64)v : (__s64)v;
	return 0;
}

static const struct hc_opt nf_opts[] = {
	{ "nf-prio", 0, HC_OPT_FUNC, HC_CFG_OFF(struct nf_cfg, prio), "PRIO",
	  "netfilter hook priority, at PRE_ROUTING (default -300, iptables' raw)",
	  .fn = set_prio, .def = "-300" },
	{}
};

static __u32 nf_verdict(int retval)
{
	return retval == NF_DROP   ? HC_DROP :
	       retval == NF_ACCEPT ? HC_PASS :
				     HC_NR_VERDICTS;
}

/*
 * BPF_PROG_RUN of a netfilter program (Linux 6.4) takes the head of a
 * struct nf_hook_state, the hook and the family; at PRE_ROUTING it takes
 * the frame with its Ethernet header, and pulls it.
 */
struct nf_test_state {
	__u8 hook, pf;
};

static int nf_prog_run_ctx(const __u8 *frame, __u32 len, void *ctx, __u32 *size)
{
	struct nf_test_state *st = ctx;
	__u16 proto;

	if (len < 14 || *size < sizeof(*st))
		return -EINVAL;
	proto = frame[12] << 8 | frame[13];
	if (proto != ETH_P_IP && proto != ETH_P_IPV6)
		return -EPROTO; /* tagged, ARP: not at the IP hooks */
	st->hook = NF_INET_PRE_ROUTING;
	st->pf = proto == ETH_P_IP ? NFPROTO_IPV4 : NFPROTO_IPV6;
	*size = sizeof(*st);
	return 0;
}

const struct hc_hook hc_hook_netfilter = {
	.name = "netfilter",
	.help = "BPF at netfilter's PRE_ROUTING, IPv4 and IPv6 (Linux 6.4+)",
	.opts = nf_opts,
	/* The BPF peer of iptables-raw: the same hook at the same priority. */
	.rows =
		(const struct hc_hook_row[]){
			{ "netfilter-raw", "", HC_ROW_LOCAL,
			  .path = "nf_hook_slow bpf_prog_hc_nf*" },
			{} },
	.load = nf_load,
	.attach = nf_attach,
	.detach = nf_detach,
	.attach_name = nf_attach_name,
	.attach_via = nf_attach_via,
	.report = nf_report,
	.verdict = nf_verdict,
	.prog_run_ctx = nf_prog_run_ctx,
	.variants = (const struct hc_hook_row[]){ { "netfilter", "" }, {} },
};
