// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hookcmp.h"

void hc_err_set(struct hc_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void hc_err_hint(struct hc_err *err, const char *fmt, ...)
{
	va_list ap;

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
		return HC_EXIT_PERM;
	case EOPNOTSUPP:
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

const struct hc_hook *hc_hook_of(const struct hc_run *r)
{
	static const struct hc_hook *const hooks[] = {
		[HC_HOOK_XDP] = &hc_hook_xdp,
		[HC_HOOK_TC] = &hc_hook_tc,
		[HC_HOOK_SOCKET] = &hc_hook_socket,
	};

	return hooks[r->hook];
}

/* The one format for errors and warnings about a device and hook. */
void hc_report(const struct hc_run *r, const char *level, const char *what,
	       int err)
{
	const struct hc_hook *h = hc_hook_of(r);
	const struct hc_err *e = &r->err;

	fprintf(stderr, "%s: %s on %s (%s %s): %s%s%s", level, what, r->dev,
		h->name, h->attach_name(r), e->msg[0] ? e->msg : "",
		e->msg[0] ? ": " : "", strerror(-err));
	if (e->kernel[0])
		fprintf(stderr, ". Kernel: %s", e->kernel);
	fprintf(stderr, "\n");
	if (e->hint[0])
		fprintf(stderr, "Hint: %s\n", e->hint);
}

/*
 * Fault injection for the tests: HOOKCMP_FAIL_AT=STEP makes that setup
 * step fail, so every undo path can be checked to leave nothing behind.
 */
int hc_fault(struct hc_err *err, const char *step)
{
	const char *at = getenv("HOOKCMP_FAIL_AT");

	if (!at || strcmp(at, step))
		return 0;
	hc_err_set(err, "fault injected at step '%s'", step);
	return -EIO;
}
