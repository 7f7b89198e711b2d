// SPDX-License-Identifier: GPL-2.0
/*
 * What every command shares (cli.h): errors, in text and JSON, the
 * privileges and the namespace it needs, the version.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "hookcmp.h"
#include "cli.h"
#include "netns.h"
#include "print.h"

int hc_show_version(bool json)
{
	struct hc_pr p = HC_PR_INIT(json ? HC_PR_JSON : HC_PR_TEXT, stdout);

	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(&p, HC_PR_JSON, "type", NULL, "version");
	hc_pr_fstr(&p, HC_PR_ALL, "version", "hookcmp %s", HC_VERSION);
	hc_pr_fstr(&p, HC_PR_ALL, "libbpf", " (libbpf %s)\n",
		   libbpf_version_string());
	hc_pr_close(&p, HC_PR_JSON, '}');
	return 0;
}

bool hc_json_mode;

/*
 * In JSON mode errors are JSON too, so scripts never parse free text;
 * json false: a report holds the why, stdout stays its one document.
 */
static int fail(int code, bool json, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (json && hc_json_mode) {
		struct hc_pr p = HC_PR_INIT(HC_PR_JSON, stdout);

		hc_pr_open(&p, HC_PR_JSON, NULL, '{');
		hc_pr_fstr(&p, HC_PR_JSON, "type", NULL, "error");
		hc_pr_fstr(&p, HC_PR_JSON, "error", NULL, msg);
		hc_pr_fu64(&p, HC_PR_JSON, "exit", NULL, code);
		hc_pr_close(&p, HC_PR_JSON, '}');
	}
	hc_text_printf(stderr, "Error: %s\n", msg);
	if (code == HC_EXIT_USAGE)
		fprintf(stderr, "Try 'hookcmp --help'.\n");
	return code;
}

int hc_fail(int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fail(code, true, fmt, ap);
	va_end(ap);
	return ret;
}

int hc_fail_after(int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fail(code, false, fmt, ap);
	va_end(ap);
	return ret;
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

static const char *const cap_names[] = {
	[CAP_NET_BIND_SERVICE] = "CAP_NET_BIND_SERVICE",
	[CAP_NET_ADMIN] = "CAP_NET_ADMIN",
	[CAP_NET_RAW] = "CAP_NET_RAW",
	[CAP_IPC_LOCK] = "CAP_IPC_LOCK",
	[CAP_SYS_ADMIN] = "CAP_SYS_ADMIN",
	[CAP_PERFMON] = "CAP_PERFMON",
	[CAP_BPF] = "CAP_BPF",
};

int hc_check_caps(__u64 need, const char *who)
{
	char missing[256] = "";
	size_t len = 0;
	unsigned int cap;

	for (cap = 0; cap < sizeof(cap_names) / sizeof(cap_names[0]); cap++)
		if ((need & (1ULL << cap)) && !has_cap(cap) && cap_names[cap])
			len += snprintf(missing + len, sizeof(missing) - len,
					" %s", cap_names[cap]);
	if (!len)
		return 0;
	return hc_fail(HC_EXIT_PERM, "%s (missing:%s)", who, missing);
}

/*
 * CAP_SYS_ADMIN stands in for CAP_BPF and CAP_PERFMON; without
 * CAP_PERFMON the verifier refuses hookcmp's programs (EACCES).
 */
int hc_check_privileges(void)
{
	__u64 need = 1ULL << CAP_NET_ADMIN;

	if (!has_cap(CAP_SYS_ADMIN))
		need |= 1ULL << CAP_BPF | 1ULL << CAP_PERFMON;
	return hc_check_caps(
		need,
		"hookcmp needs root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN");
}

int hc_cmd_netns(const char *netns)
{
	struct hc_err err = {};
	int ret = netns ? hc_enter_netns(netns, &err) : 0;

	if (ret)
		return hc_fail(
			ret == -ENOENT || ret == -EINVAL ? HC_EXIT_USAGE :
							   HC_EXIT_PERM,
			"%s%s", err.msg,
			ret == -EPERM ? " (-n needs CAP_SYS_ADMIN)" : "");
	return 0;
}

int hc_cmd_journal(const char *dir)
{
	const char *env = getenv("HOOKCMP_JOURNAL");
	struct hc_err err = {};
	int ret = dir || (env && *env) ? hc_journal_check(&err) : 0;

	if (!ret)
		return 0;
	return hc_fail(HC_EXIT_USAGE, "%s%s%s%s", dir ? "" : "HOOKCMP_JOURNAL: ",
		       err.msg, ret == -EPERM || ret == -EINVAL ? "" : ": ",
		       ret == -EPERM || ret == -EINVAL ? "" : strerror(-ret));
}

int hc_cmd_device(const char *netns, const char *dev, const char *cmd,
		  int *ifindex)
{
	int ret = hc_cmd_netns(netns);
	char where[256];

	if (ret)
		return ret;
	*ifindex = if_nametoindex(dev);
	if (*ifindex)
		return 0;
	if (hc_netns_with_dev(dev, where, sizeof(where)))
		return hc_fail(
			HC_EXIT_USAGE,
			"no device '%s' in %s%s%s, but in network namespace %s (hookcmp -n NAME %s %s)",
			dev,
			netns ? "network namespace '" : "this network namespace",
			netns ? netns : "", netns ? "'" : "", where, cmd, dev);
	return hc_fail(HC_EXIT_USAGE, "no device '%s' in %s%s%s", dev,
		       netns ? "network namespace '" : "this network namespace",
		       netns ? netns : "", netns ? "'" : "");
}

