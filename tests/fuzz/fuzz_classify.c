// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the reference classifier (the same logic the BPF programs
 * run) on any bytes, from either start point, never reads outside the
 * frame (ASan), always returns a class that exists, and the verdict of
 * its one catch-all rule, or the default for a malformed frame.
 */
#include <stdlib.h>
#include <string.h>
#include "hc_user.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct hc_conf c = {};
	struct hc_pkt p = {};
	unsigned char *copy;
	__u32 cls, v;

	if (size < 3)
		return 0;
	/*
	 * First byte: depth, start point, stripped tags, the rule's verdict
	 * and the default; then the ethertype for l3 starts, then the frame.
	 */
	c.parse = data[0] & 3;
	p.at_l3 = data[0] >> 2 & 1;
	p.vlans = data[0] >> 3 & 1;
	c.rules[0].verdict = (data[0] >> 4 & 3) % HC_NR_VERDICTS;
	c.def_verdict = (data[0] >> 6) % HC_NR_VERDICTS;
	p.l3_proto = data[1] << 8 | data[2];
	c.nr_rules = 1; /* matches anything: every field gets read */
	copy = malloc(size - 3 ? size - 3 : 1);
	memcpy(copy, data + 3, size - 3);
	p.data = copy;
	p.len = size - 3;
	v = hc_process(&p, &c, &cls);
	free(copy);
	if (cls >= HC_NR_CLASSES ||
	    v != (cls == HC_CLS_MALFORMED ? c.def_verdict : c.rules[0].verdict))
		abort();
	return 0;
}
