/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOOKCMP_H
#define HOOKCMP_H

#include <stdbool.h>
#include <linux/types.h>
#include "hc_shared.h"

#define HC_VERSION "0.1.0"

enum hc_exit {
	HC_EXIT_OK = 0,
	HC_EXIT_FAIL = 1,
	HC_EXIT_USAGE = 2,
	HC_EXIT_PERM = 3,
	HC_EXIT_UNSUPP = 4,
	HC_EXIT_BUSY = 5,
};

/* Why the last step failed: our words, the kernel's, and what to do. */
struct hc_err {
	char msg[640]; /* room for a namespace name of NAME_MAX */
	char kernel[1024]; /* netlink extack or verifier log tail */
	char hint[256];
};

/* Both do nothing with err NULL: a caller that needs no words. */
void hc_err_set(struct hc_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hc_err_hint(struct hc_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* BPF_TCX_INGRESS, Linux 6.6 uapi; Debian 12's headers predate it. */
#define HC_BPF_TCX_INGRESS 46

enum hc_hook_id {
	HC_HOOK_XDP,
	HC_HOOK_TC,
	HC_HOOK_SOCKET,
	HC_HOOK_XSK,
	HC_HOOK_NETFILTER,
	HC_HOOK_CGROUP,
	HC_NR_HOOKS
};
enum hc_xdp_mode { HC_XDP_NATIVE, HC_XDP_GENERIC };
enum hc_xdp_attach { HC_XDP_NETLINK, HC_XDP_LINK };
enum hc_qdisc { HC_QDISC_CLSACT, HC_QDISC_INGRESS };
enum hc_tc_attach { HC_TC_CLS_BPF, HC_TC_TCX };
enum hc_sock { HC_SOCK_UDP, HC_SOCK_PACKET };
enum hc_xsk_mode { HC_XSK_AUTO, HC_XSK_COPY, HC_XSK_ZEROCOPY };

#define HC_XSK_NO_QUEUE 0xffffffffu

struct hc_nl;

/* What a journal record undoes (loader/undo.c has how, for each). */
enum hc_jkind {
	HC_J_XDP,
	HC_J_FILTER, /* mode "u32": bench's u32 filter, else cls_bpf */
	HC_J_QDISC,
	HC_J_CGROUP, /* a cgroup v2 directory, cgroup_ino proving it */
	HC_J_IPT, /* an iptables rule; mode: its comment */
	HC_J_NFT, /* an nftables table; mode: its name */
	HC_J_GRO, /* bench --tune: the old value in val[0] */
	HC_J_THREADED,
	HC_J_CHANNELS, /* rx, tx, combined, other */
	HC_J_LINK, /* a veth pair bench created */
	HC_NR_JKINDS
};
#define HC_NR_RUN_JKINDS (HC_J_CGROUP + 1) /* what hookcmp run records */

/*
 * One journal record (loader/journal.h): a change, and what proves that
 * an object is still the one hookcmp made.
 */
struct hc_jrec {
	char name[64]; /* its file in the journal, "" until written */
	char bad[64]; /* why a file of the journal is not a record */
	__u64 seq; /* the order of the changes: undone last first */
	int pid; /* in its own PID namespace, pidns */
	__u64 pidns;
	__u64 start; /* the process's start time, against pid reuse */
	enum hc_jkind kind;
	bool done; /* a qdisc: created or joined, not only about to be */
	bool shared; /* a qdisc: joined, another hookcmp run created it */
	char netns[256]; /* -n NAME (NAME_MAX), or "" */
	__u64 netns_dev, netns_ino; /* the namespace's nsfs identity */
	__u64 netns_proc; /* and the inode of its /proc/net/dev */
	char dev[16];
	int ifindex;
	__u8 mac[6];
	char mode[16]; /* native|generic, clsact|ingress, u32... */
	__u32 prog_id; /* what hookcmp attached */
	__u32 parent, prio, handle, chain, protocol; /* a tc filter */
	__u32 foreign_id; /* --replace: the XDP program it took over */
	char pin[128]; /* ... pinned there meanwhile */
	__u32 val[4]; /* what --tune found, to put back */
	char cgroup[256]; /* below the cgroup2 root (loader/cg.c) */
	__u64 cgroup_ino;
};

struct hc_run {
	/* what was asked */
	enum hc_hook_id hook;
	enum hc_xdp_mode xdp_mode;
	enum hc_xdp_attach xdp_attach;
	enum hc_qdisc qdisc;
	enum hc_tc_attach tc_attach;
	enum hc_sock sock;
	__u32 port;
	__u32 queue; /* xsk: HC_XSK_NO_QUEUE unless --queue */
	bool all_queues;
	enum hc_xsk_mode xsk_mode;
	bool busy_poll;
	__u32 prio;
	__u32 handle;
	__s32 nf_prio; /* netfilter: the hooks' priority */
	double interval;
	double duration;
	bool json;
	bool force; /* the device of the default route too */
	bool replace; /* take over an XDP slot, put its program back after */
	bool bare;
	bool verbose;
	bool per_cpu; /* stats per CPU too */
	const char *dev;
	const char *netns;
	int ifindex;
	const char *redirect_dev; /* conf.redirect's target, by name */
	const char *const *rule_texts; /* conf's rules as given, for reports */
	struct hc_conf conf;

	/* what is loaded and attached now, undone in reverse */
	struct hc_nl *nl;
	void *skel;
	void (*skel_destroy)(void *skel);
	int prog_fd;
	__u32 prog_id;
	int stats_fd;
	bool xdp_attached;
	int qdisc_own; /* enum hc_qdisc_own (qdisc/qdisc.h) */
	int shared_with; /* the hookcmp whose qdisc we joined */
	bool filter_added;
	int link_fd;
	int sock_fd;
	__u32 foreign_id; /* --replace: the program it took the slot from */
	int foreign_fd;
	char pin[128]; /* where that program waits, pinned */
	bool no_journal; /* bench: its namespaces die with it anyway */
	struct hc_jrec jr[HC_NR_RUN_JKINDS];
	struct hc_err err;
};

struct hc_snap;
struct hc_json;

/* One per hook: loader/xdp.c, tc.c, sock.c, xsk.c, nf.c and cg.c. */
struct hc_hook {
	const char *name;
	int (*load)(struct hc_run *r);
	int (*attach)(struct hc_run *r);
	/* Undoes what attach did, also when it stopped halfway; idempotent. */
	int (*detach)(struct hc_run *r);
	const char *(*attach_name)(const struct hc_run *r); /* its mode */
	/* How it is attached: netlink, link, cls_bpf, tcx, socket. */
	const char *(*attach_via)(const struct hc_run *r);
	/* Optional: counters kept elsewhere than the per-CPU map. */
	int (*read)(const struct hc_run *r, struct hc_snap *s);
	/* Optional: what else the summary says, as text (j NULL) or JSON. */
	void (*report)(const struct hc_run *r, struct hc_json *j);
	bool redirects; /* it can send a packet out of another device */
	/*
	 * Optional: capabilities it needs beyond hc_check_privileges', as
	 * 1ULL << CAP_*, asked in the run's namespace.
	 */
	__u64 (*caps)(const struct hc_run *r);
};

extern const struct hc_hook hc_hook_xdp, hc_hook_tc, hc_hook_socket,
	hc_hook_xsk, hc_hook_netfilter, hc_hook_cgroup;

/* loader/xdp.c: XDP attach and detach, for the xdp and xsk hooks */
int hc_xdp_attach(struct hc_run *r);
int hc_xdp_detach(struct hc_run *r);
/* Where --replace pins the program it takes the slot from. */
#define HC_BPFFS "/sys/fs/bpf"
#define HC_PIN_DIR HC_BPFFS "/hookcmp"
/*
 * Takes ours_fd off ifindex's XDP slot (mode: XDP_FLAGS_DRV_MODE or
 * SKB_MODE) if it is still there, putting back the program pinned at
 * pin ("": none): 0; -EEXIST, the slot is not ours any more (it stays);
 * -ENODEV; or another error, and the pin stays. The pin goes otherwise.
 */
int hc_xdp_put_back(struct hc_nl *nl, int ifindex, __u32 mode, int ours_fd,
		    const char *pin, __u32 foreign_id, struct hc_err *err);
const char *hc_xdp_mode_name(const struct hc_run *r);
const char *hc_xdp_attach_via(const struct hc_run *r);

/* Every program a hook can load, for prog-run and the differential test. */
struct hc_variant {
	const char *name;
	enum hc_hook_id hook;
	enum hc_sock sock;
};

#define HC_NR_VARIANTS 4
extern const struct hc_variant hc_variants[HC_NR_VARIANTS];

/* loader/prog.c: the parts of loading a hook's skeleton they all share */
struct bpf_object_open_opts;
struct bpf_object_skeleton;
const struct bpf_object_open_opts *hc_prog_open_opts(void);
int hc_prog_load(struct hc_run *r, struct bpf_object_skeleton *s,
		 const char *prog);
void hc_prog_unload(struct hc_run *r);

/* loader/sock.c: the UDP socket, for the socket and cgroup hooks */
int hc_udp_open(struct hc_run *r, int filter_fd);
void hc_sock_close(struct hc_run *r);
void hc_sock_drain(struct hc_run *r);
__u64 hc_sock_caps(const struct hc_run *r);
/*
 * loader/cg.c: the cgroup2 hierarchy's root as this process reaches it
 * (a mount it can see, else one of its own): an fd, and the process's
 * cgroup below it in home; or negative errno.
 */
int hc_cgroup_root(char *home, size_t size);

/* loader/redirect.c */
bool hc_conf_redirects(const struct hc_conf *c);
/* How frames leave: devmap, ifindex, egress or peer. */
const char *hc_redirect_via(const struct hc_run *r);
/*
 * Finds redirect_dev in the current namespace (r->nl's) and sets
 * conf.redirect.ifindex. -ENODEV or -EINVAL, with r->err saying why, for
 * a target the kernel would drop every frame for; a target that drops
 * only now (down, or no NAPI behind a veth) gets a sentence in warn.
 */
int hc_redirect_check(struct hc_run *r, char *warn, size_t size);

/* A run with nothing loaded (every fd -1) and run's defaults. */
void hc_run_init(struct hc_run *r);
const struct hc_hook *hc_hook_of(const struct hc_run *r);
void hc_report(const struct hc_run *r, const char *level, const char *what,
	       int err);

int hc_fault(struct hc_err *err, const char *step);
/* HOOKCMP_PAUSE_AT=STEP holds that step up to 5 s, or until a signal. */
void hc_pause(const char *step);

/* Set by SIGINT, SIGTERM and SIGHUP once hc_install_signals() ran. */
extern volatile int hc_stop_sig;
void hc_install_signals(void);
#define HC_NETNS_DIR "/run/netns"
/* A name `ip netns` could have made: 1 to NAME_MAX bytes, no '/'. */
int hc_netns_name_check(const char *name, struct hc_err *err);
int hc_enter_netns(const char *name, struct hc_err *err);
/* ioctl(req) on dev in the current namespace; returns 0 or -errno. */
struct ifreq;
int hc_dev_ioctl(const char *dev, unsigned long req, struct ifreq *ifr);
/* Is BPF JIT-compiled: 1 yes, 0 no (costs are the interpreter's), -1 unknown. */
int hc_jit_enabled(void);
/* "aa:bb:cc:dd:ee:ff" into mac: 0, or -EINVAL. */
int hc_parse_mac(const char *s, __u8 *mac);
/*
 * The one parser of numbers from users and files: decimal digits only
 * (or 0x and hex digits with HC_NUM_HEX), no sign, no space, within
 * [min, max]. 0, -EINVAL (not a number) or -ERANGE.
 */
#define HC_NUM_HEX 1u
int hc_parse_uint(const char *s, unsigned int flags, __u64 min, __u64 max,
		  __u64 *v);
/* Seconds as digits with an optional fraction, up to max. */
int hc_parse_secs(const char *s, double max, double *v);
/* The MAC address of dev in the current namespace. */
int hc_dev_mac(const char *dev, __u8 *mac);

/* sysfs of the current network namespace at /sys, in a mount namespace of our own. */
int hc_sysfs_here(void);
/* /sys/class/net/DEV/threaded: NAPI in kthreads (needs hc_sysfs_here()). */
int hc_dev_threaded(const char *dev, int *on);
int hc_dev_set_threaded(const char *dev, int on);
/* Writes S to a /proc or /sys file; the error of the write or the close. */
int hc_write_file(const char *path, const char *s);

/* Maps a negative errno from a setup step to an exit code. */
int hc_exit_code(int err);

#endif
