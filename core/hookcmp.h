/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOOKCMP_H
#define HOOKCMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "hc_shared.h"
#include "netns.h"

#define HC_VERSION "0.1.0"

enum hc_exit {
	HC_EXIT_OK = 0,
	HC_EXIT_FAIL = 1,
	HC_EXIT_USAGE = 2,
	HC_EXIT_PERM = 3,
	HC_EXIT_UNSUPP = 4,
	HC_EXIT_BUSY = 5,
	/* bench compare: a state of the machine moved rows between runs */
	HC_EXIT_CHANGED = 6,
	/* bench compare --threshold or --rows: a row it needs has no verdict */
	HC_EXIT_NO_VERDICT = 7,
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

struct hc_nl;

/* What a journal record undoes: its owner's (core/journal.h). */
struct hc_jkind;

/*
 * One journal record (core/journal.h): a change, and what proves that
 * an object is still the one hookcmp made. What every kind has is here;
 * a kind's own fields are its struct in data (HC_JDATA).
 */
struct hc_jrec {
	char name[64]; /* its file in the journal, "" until written */
	char bad[64]; /* why a file of the journal is not a record */
	__u64 seq; /* the order of the changes: undone last first */
	int pid; /* in its own PID namespace, pidns */
	__u64 pidns;
	__u64 start; /* the process's start time, against pid reuse */
	const struct hc_jkind *kind;
	bool done; /* made or attached, not only about to be */
	char netns[256]; /* -n NAME (NAME_MAX), or "" */
	struct hc_netns_id ns; /* the namespace it was made in */
	char dev[16];
	int ifindex;
	__u8 mac[6];
	char mode[16]; /* which of its kind: native, clsact, u32, a name */
	__u32 prog_id; /* the program it holds, found by its id; 0: none */
	_Alignas(8) unsigned char data[1040]; /* its kind's (hc_jkind.fields) */
};

/* rec's data as its kind's struct T (const T for a const rec). */
#define HC_JDATA(rec, T) ((T *)(rec)->data)
#define HC_JDATA_FITS(T)                                                 \
	_Static_assert(sizeof(T) <= sizeof(((struct hc_jrec *)0)->data), \
		       #T " fits in a journal record's data")

struct hc_run {
	/* what was asked */
	const struct hc_hook *hook;
	/* Its own options, as a struct of its file (HC_CFG): zero, but defaults. */
	_Alignas(8) unsigned char hook_cfg[64];
	__u64 hook_given; /* bit i: its opts[i] was given */
	double interval;
	double duration;
	bool json;
	bool force; /* the device of the default route too */
	bool bare;
	bool verbose;
	bool per_cpu; /* stats per CPU too */
	const char *dev;
	const char *netns;
	int ifindex;
	const char *redirect_dev; /* conf.redirect's target, by name */
	const char *const *rule_texts; /* conf's rules as given, for reports */
	struct hc_conf conf;
	/* The rule set (core/set.h), NULL for none; conf.sets says so too. */
	const struct hc_set *set;

	/* what is loaded and attached now, undone in reverse */
	struct hc_nl *nl;
	/* The hook's own: its skeleton, what it attached; made by its load. */
	void *state;
	void (*state_free)(void *state);
	int prog_fd;
	__u32 prog_id;
	int stats_fd;
	bool no_journal; /* bench: its namespaces die with it anyway */
	struct hc_jrec jr[4]; /* of what it attached, a kind each */
	struct hc_err err;
};

struct hc_snap;
struct hc_pr;
struct hc_set;

struct hc_opt;
struct hc_link_info;
struct hc_hook_row;

/*
 * One per hook, a file each in loader/ and a line in loader/hooks.c's
 * table. Declared in the core: a run points to its hook, and the core
 * asks it too (stats.c its read, the journal its attach_name). Shared
 * code asks a hook what it can do, never which one it is.
 */
struct hc_hook {
	const char *name;
	const char *help;
	/*
	 * Its options, at HC_CFG_OFF; their .scope bits are its modes. An
	 * option two hooks share has the same type and offset in both.
	 */
	const struct hc_opt *opts;
	/* A word per mode bit; modes[0] is the default, not said of a run. */
	const char *const *modes;
	unsigned int (*mode)(const struct hc_run *r); /* the modes r is in */
	/* Optional: its options together, once the rules are known. */
	int (*check)(struct hc_run *r, struct hc_err *err);
	int (*load)(struct hc_run *r);
	int (*attach)(struct hc_run *r);
	/* Undoes what attach did, also when it stopped halfway; idempotent. */
	int (*detach)(struct hc_run *r);
	const char *(*attach_name)(const struct hc_run *r); /* its mode */
	/* How it is attached: netlink, link, cls_bpf, tcx, socket. */
	const char *(*attach_via)(const struct hc_run *r);
	/* Optional: counters kept elsewhere than the per-CPU map. */
	int (*read)(const struct hc_run *r, struct hc_snap *s);
	/* Optional: what else the summary says, through p (text or JSON). */
	void (*report)(const struct hc_run *r, struct hc_pr *p);
	/*
	 * Optional: capabilities it needs beyond hc_check_privileges', as
	 * 1ULL << CAP_*, asked in the run's namespace.
	 */
	__u64 (*caps)(const struct hc_run *r);
	/*
	 * Optional: reads and drops what reached its socket; returns the
	 * socket, which the run polls and drains when readable.
	 */
	int (*drain)(struct hc_run *r);
	/* Optional: what its attach took over or shares, for the user. */
	void (*attached)(const struct hc_run *r, char *buf, size_t size);
	/* Optional: what it needs to see anything, when secs brought nothing. */
	void (*idle_hint)(const struct hc_run *r, double secs, char *buf,
			  size_t size);
	/* Set if it can send a frame out of another device: how it does. */
	const char *(*redirect_via)(const struct hc_run *r);
	/* Optional: why target t would take nothing from it, into warn. */
	void (*redirect_warn)(const struct hc_run *r,
			      const struct hc_link_info *t, char *warn,
			      size_t size);
	/* Optional, with variants: what its program's return value means. */
	__u32 (*verdict)(int retval);
	/*
	 * Optional, with variants: the ctx_in BPF_PROG_RUN needs to run
	 * frame (len bytes) as the hook sees it, into ctx (*size bytes at
	 * most, then its own); -EPROTO for a frame the hook never sees.
	 */
	int (*prog_run_ctx)(const __u8 *frame, __u32 len, void *ctx,
			    __u32 *size);
	/* Our threads that do its per-packet work, by name ("" none). */
	const char *thread;
	const struct hc_hook_row *variants; /* for prog-run; {} ends */
	const struct hc_hook_row *rows; /* for bench; {} ends */
};

/* core/prog.c: the parts of loading a hook's skeleton they all share */
struct bpf_object_open_opts;
struct bpf_object_skeleton;
const struct bpf_object_open_opts *hc_prog_open_opts(void);
int hc_prog_load(struct hc_run *r, struct bpf_object_skeleton *s,
		 const char *prog);
int hc_prog_runs(const struct hc_run *r, __u64 *runs);
void hc_prog_unload(struct hc_run *r);
/*
 * A hook's run state, size bytes zeroed, hung on r for free to release
 * at unload (also after a load that failed halfway); NULL: no memory.
 */
void *hc_state_new(struct hc_run *r, size_t size, void (*free)(void *));
/* Was its option name given (as loader/hooks.c's hc_hook_parsed found). */
bool hc_hook_given(const struct hc_run *r, const char *name);

/* A run with nothing loaded (every fd -1) and run's defaults. */
void hc_run_init(struct hc_run *r);
void hc_report(const struct hc_run *r, const char *level, const char *what,
	       int err);

int hc_fault(struct hc_err *err, const char *step);
/* The tests' fault at the Nth netlink answer: 0, or -EIO (util.c). */
int hc_nl_fault(void);
/* The tests' SIGKILL at the Nth program run or journal write (util.c). */
void hc_kill_point(const char *what);
/* HOOKCMP_PAUSE_AT=STEP holds that step up to 5 s, or until a signal
 * (SIGUSR1 only ends the hold). */
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
/* mac as "aa:bb:cc:dd:ee:ff" (18 bytes), into buf. */
const char *hc_mac_str(const __u8 *mac, char *buf, size_t size);
/* The MAC address of dev in the current namespace. */
int hc_dev_mac(const char *dev, __u8 *mac);

/* sysfs of the current network namespace at /sys, in a mount namespace of our own. */
int hc_sysfs_here(void);
/* /sys/class/net/DEV/threaded: NAPI in kthreads (needs hc_sysfs_here()). */
int hc_dev_threaded(const char *dev, int *on);
int hc_dev_set_threaded(const char *dev, int on);
/* Writes S to a /proc or /sys file; the error of the write or the close. */
int hc_write_file(const char *path, const char *s);

/* 9776320 as "9,776,320", into buf. */
const char *hc_commas(char *buf, size_t size, __u64 v);

/*
 * The most a file read whole may hold (--rules-file, --plan, bench
 * compare's, /proc/kallsyms): ten times a set of 100,000 entries of the
 * longest lines.
 */
#define HC_INPUT_MAX (256UL << 20)
/*
 * Opens such a file to read: an fd, or -errno with err saying "PATH:
 * why": a regular file only (a FIFO is refused, not waited on), of at
 * most HC_INPUT_MAX bytes (-EFBIG).
 */
int hc_input_open(const char *path, struct hc_err *err);
/*
 * Its text, NUL-terminated, to free(); NULL with errno and err as
 * above, EINVAL for a NUL byte in it (no text).
 */
char *hc_input_read(const char *path, struct hc_err *err);

/* Maps a negative errno from a setup step to an exit code. */
int hc_exit_code(int err);

#endif
