// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "hookcmp.h"
#include "print.h"

void hc_err_set(struct hc_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void hc_err_hint(struct hc_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
}

int hc_exit_code(int err)
{
	switch (-err) {
	case 0:
		return HC_EXIT_OK;
	case EPERM:
	case EACCES:
	case EROFS:
		return HC_EXIT_PERM;
	case EOPNOTSUPP:
	case ERANGE: /* XDP: the MTU is too large for the driver */
		return HC_EXIT_UNSUPP;
	case EBUSY:
	case EEXIST:
	case EADDRINUSE:
		return HC_EXIT_BUSY;
	case ENODEV:
		return HC_EXIT_USAGE;
	default:
		return HC_EXIT_FAIL;
	}
}

void hc_run_init(struct hc_run *r)
{
	*r = (struct hc_run){ .interval = 1, .prog_fd = -1, .stats_fd = -1 };
}

/* The one format for errors and warnings about a device and hook. */
void hc_report(const struct hc_run *r, const char *level, const char *what,
	       int err)
{
	const struct hc_hook *h = r->hook;
	const struct hc_err *e = &r->err;

	hc_text_printf(stderr, "%s: %s on %s (%s %s): %s%s%s", level, what,
		       r->dev, h->name, h->attach_name(r),
		       e->msg[0] ? e->msg : "", e->msg[0] ? ": " : "",
		       strerror(-err));
	if (e->kernel[0])
		hc_text_printf(stderr, ". Kernel: %s", e->kernel);
	hc_text_printf(stderr, "\n");
	if (e->hint[0])
		hc_text_printf(stderr, "Hint: %s\n", e->hint);
}

/*
 * Fault injection for the tests: HOOKCMP_FAIL_AT=STEP makes that setup
 * step fail, so every undo path can be checked to leave nothing behind;
 * HOOKCMP_PAUSE_AT=STEP holds it so a signal can land right there, or a
 * test can change the machine there and end the hold with SIGUSR1.
 */
static volatile int hc_nr_signals;

static void on_release(int sig)
{
	(void)sig;
	hc_nr_signals++;
}

void hc_pause(const char *step)
{
	const char *at = getenv("HOOKCMP_PAUSE_AT");
	struct sigaction sa = { .sa_handler = on_release };
	int seen = hc_nr_signals;
	int i;

	if (!at || strcmp(at, step))
		return;
	sigaction(SIGUSR1, &sa, NULL);
	fprintf(stderr, "hookcmp: paused at step '%s'\n", step);
	for (i = 0; i < 50 && hc_nr_signals == seen; i++)
		usleep(100000);
	/* A late one must not interrupt what follows with EINTR. */
	signal(SIGUSR1, SIG_IGN);
}

/* HOOKCMP_FAIL_AT=STEP[:ERRNO]: the error is EIO unless a number is given. */
int hc_fault(struct hc_err *err, const char *step)
{
	const char *at = getenv("HOOKCMP_FAIL_AT");
	size_t len = strlen(step);
	int e = EIO;

	hc_pause(step);
	if (!at || strncmp(at, step, len) || (at[len] && at[len] != ':'))
		return 0;
	if (at[len] == ':' && atoi(at + len + 1) > 0)
		e = atoi(at + len + 1);
	hc_err_set(err, "fault injected at step '%s'", step);
	return -e;
}

/*
 * HOOKCMP_NL_FAULT=N:eio|kill: the answer to hookcmp's N-th netlink
 * request (from 1) is lost (eio: read, then reported as never come), or
 * hookcmp is killed right after it (kill). tests/safety.sh sweeps N.
 */
int hc_nl_fault(void)
{
	const char *at = getenv("HOOKCMP_NL_FAULT");
	static int n;
	char *how;

	if (!at || ++n != strtol(at, &how, 10) || *how != ':')
		return 0;
	fprintf(stderr, "hookcmp: netlink fault injected at answer %d (%s)\n",
		n, how + 1);
	if (!strcmp(how + 1, "kill"))
		raise(SIGKILL);
	return -EIO;
}

/*
 * HOOKCMP_KILL_AT=N: killed (SIGKILL) at the N-th kill point (from 1):
 * before and after every other program run (hc_exec) and every journal
 * write. tests/safety.sh sweeps N; what is left, cleanup must undo.
 */
void hc_kill_point(const char *what)
{
	const char *at = getenv("HOOKCMP_KILL_AT");
	static long n;

	if (!at || ++n != strtol(at, NULL, 10))
		return;
	fprintf(stderr, "hookcmp: killed at kill point %ld (%s)\n", n, what);
	raise(SIGKILL);
}

volatile int hc_stop_sig;

static void on_signal(int sig)
{
	hc_stop_sig = sig;
	hc_nr_signals++;
}

void hc_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	unsigned int i;

	/* No SA_RESTART: poll() must return so the loop can detach. */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int hc_netns_name_check(const char *name, struct hc_err *err)
{
	size_t len = strlen(name);

	if (len > NAME_MAX) {
		hc_err_set(
			err,
			"network namespace name of %zu characters: the limit is %d",
			len, NAME_MAX);
		return -EINVAL;
	}
	if (!len || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		hc_err_set(err, "bad network namespace name '%s'", name);
		return -EINVAL;
	}
	return 0;
}

/* Moves the calling thread into /run/netns/NAME, as `ip netns exec` does. */
int hc_enter_netns(const char *name, struct hc_err *err)
{
	char path[sizeof(HC_NETNS_DIR) + NAME_MAX + 1];
	int fd, ret;

	ret = hc_netns_name_check(name, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), HC_NETNS_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		hc_err_set(err, "network namespace '%s': %s", name,
			   strerror(errno));
		return ret;
	}
	if (setns(fd, CLONE_NEWNET)) {
		ret = -errno;
		hc_err_set(err, "entering network namespace '%s': %s", name,
			   strerror(errno));
	}
	close(fd);
	return ret;
}

int hc_dev_ioctl(const char *dev, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", dev);
	ret = ioctl(fd, req, ifr) ? -errno : 0;
	close(fd);
	return ret;
}

int hc_dev_mac(const char *dev, __u8 *mac)
{
	struct ifreq ifr = {};
	int ret = hc_dev_ioctl(dev, SIOCGIFHWADDR, &ifr);

	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return ret;
}

/* Read in the initial namespace: other namespaces have no such file. */
/*
 * Asks the kernel rather than net.core.bpf_jit_enable, which only the
 * initial network namespace has: a two-instruction program is either
 * JIT-compiled or not.
 */
int hc_jit_enabled(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd, jit = -1;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "jit_probe", "GPL",
			   insns, 2, NULL);
	if (fd < 0)
		return -1;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		jit = info.jited_prog_len > 0;
	close(fd);
	return jit;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 :
				      -1;
}

int hc_parse_uint(const char *s, unsigned int flags, __u64 min, __u64 max,
		  __u64 *v)
{
	unsigned int base = 10;
	__u64 n = 0;
	int d;

	if ((flags & HC_NUM_HEX) && s[0] == '0' &&
	    (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		d = hex_digit(*s);
		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (n > (~0ULL - d) / base)
			return -ERANGE;
		n = n * base + d;
	}
	if (n < min || n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

int hc_parse_secs(const char *s, double max, double *v)
{
	const char *p = s;
	double d;

	/* Digits with an optional fraction: no sign, exponent, inf or nan. */
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p || p == s || !strcmp(s, "."))
		return -EINVAL;
	d = strtod(s, NULL);
	if (d > max)
		return -ERANGE;
	*v = d;
	return 0;
}

/* Six pairs of one or two hex digits, as ip link accepts them. */
int hc_parse_mac(const char *s, __u8 *mac)
{
	int i, hi, lo;

	for (i = 0; i < 6; i++) {
		hi = hex_digit(*s++);
		if (hi < 0)
			return -EINVAL;
		lo = hex_digit(*s);
		if (lo >= 0)
			s++;
		mac[i] = lo >= 0 ? hi << 4 | lo : hi;
		if (*s != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		s++;
	}
	return 0;
}

/*
 * /sys/class/net shows the namespace of whoever mounted sysfs: a sysfs of
 * the current one, in a mount namespace of our own, as `ip netns exec`
 * does. The rest of the mounts (/run and the journal) stay shared.
 */
int hc_sysfs_here(void)
{
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL))
		return -errno;
	umount2("/sys", MNT_DETACH);
	return mount("sysfs", "/sys", "sysfs", 0, NULL) ? -errno : 0;
}

static int threaded_path(const char *dev, char *path, size_t size)
{
	if (strchr(dev, '/') || strlen(dev) >= IF_NAMESIZE)
		return -EINVAL;
	snprintf(path, size, "/sys/class/net/%s/threaded", dev);
	return 0;
}

int hc_dev_threaded(const char *dev, int *on)
{
	char path[64];
	int ret = threaded_path(dev, path, sizeof(path));
	FILE *f;

	if (ret)
		return ret;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = fscanf(f, "%d", on) == 1 ? 0 : -EIO;
	fclose(f);
	return ret;
}

int hc_dev_set_threaded(const char *dev, int on)
{
	char path[64], val[16];
	int ret = threaded_path(dev, path, sizeof(path));

	snprintf(val, sizeof(val), "%d\n", on);
	return ret ?: hc_write_file(path, val);
}

int hc_write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(s, f) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static const char *input_type(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m)  ? "a character device" :
	       S_ISBLK(m)  ? "a block device" :
	       S_ISSOCK(m) ? "a socket" :
			     "no regular file";
}

int hc_input_open(const char *path, struct hc_err *err)
{
	/* O_NONBLOCK: a FIFO without a writer would block the open. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
		hc_err_set(err, "%s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	e = S_ISDIR(st.st_mode)		? EISDIR :
	    !S_ISREG(st.st_mode)	? EINVAL :
	    (__u64)st.st_size > HC_INPUT_MAX ? EFBIG :
	    fcntl(fd, F_SETFL, 0) < 0	? errno :
					  0;
	if (e == EINVAL)
		hc_err_set(err, "%s: %s, not a regular file", path,
			   input_type(st.st_mode));
	else if (e == EFBIG)
		hc_err_set(err, "%s: %lld bytes, over the limit of %lu MiB",
			   path, (long long)st.st_size, HC_INPUT_MAX >> 20);
	else if (e)
		hc_err_set(err, "%s: %s", path, strerror(e));
	if (!e)
		return fd;
	close(fd);
	return -e;
}

char *hc_input_read(const char *path, struct hc_err *err)
{
	int fd = hc_input_open(path, err), e = 0;
	size_t len = 0, cap = 1 << 16;
	char *buf, *p;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	/* It may grow while read: the limit holds for what is read. */
	while (buf && !e && (n = read(fd, buf + len, cap - len))) {
		if (n < 0) {
			e = errno;
			break;
		}
		len += n;
		if (len < cap)
			continue;
		e = len > HC_INPUT_MAX ? EFBIG : 0;
		p = e ? NULL : realloc(buf, 2 * cap + 1);
		if (!p && !e)
			e = ENOMEM;
		if (p)
			buf = p, cap *= 2;
	}
	close(fd);
	if (!buf)
		e = ENOMEM;
	if (!e && (p = memchr(buf, '\0', len))) {
		hc_err_set(err, "%s: a NUL byte at offset %zu: not text", path,
			   (size_t)(p - buf));
		e = EINVAL;
	} else if (e) {
		hc_err_set(err, "%s: %s", path,
			   e == EFBIG ? "grew past the limit while read" :
					strerror(e));
	}
	if (!e) {
		buf[len] = '\0';
		return buf;
	}
	free(buf);
	errno = e;
	return NULL;
}

const char *hc_mac_str(const __u8 *m, char *buf, size_t size)
{
	snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
	return buf;
}

