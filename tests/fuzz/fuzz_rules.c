// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the rule parser never crashes and never returns nonsense. */
#include <stdlib.h>
#include <string.h>
#include "rules.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char text[600];
	struct hc_err err = {};
	struct hc_rule r;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
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
