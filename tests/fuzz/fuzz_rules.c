// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the rule parser, and the rule set's line parser, never
 * crash and never return nonsense.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "set.h"

/* The same text as a line of --rules-file. */
static void set_line(const char *text)
{
	struct hc_err err = {};
	struct hc_set_entry e;
	int ret = hc_set_entry_parse(text, &e, &err);
	int bits = e.t.family == 4 ? 32 : 128;

	if ((ret != 0 && ret != 1 && ret != -EINVAL) ||
	    (ret == -EINVAL && !err.msg[0]))
		abort(); /* a refusal always says why */
	if (ret)
		return;
	if (e.kind >= HC_NR_SET_KINDS ||
	    (e.verdict != HC_DROP && e.verdict != HC_PASS) ||
	    (e.t.family != 4 && e.t.family != 6) || e.plen > bits ||
	    (e.kind == HC_SET_TUPLE) != (e.t.proto != 0) ||
	    (e.kind == HC_SET_SRC4) != (e.t.family == 4 && !e.t.proto))
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char text[600];
	struct hc_err err = {};
	struct hc_rule r;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	set_line(text);
	if (hc_rule_parse(text, &r, &err)) {
		if (!err.msg[0])
			abort(); /* a refusal always says why */
		return 0;
	}
	if (r.verdict >= HC_NR_VERDICTS || hc_rule_depth(&r) > HC_PARSE_L4 ||
	    r.sport_lo > r.sport_hi || r.dport_lo > r.dport_hi ||
	    ((r.flags & HC_R_IP4) && (r.flags & HC_R_IP6)))
		abort();
	return 0;
}
