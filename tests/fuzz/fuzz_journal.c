// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: any bytes as a journal record (a file anyone could have put
 * in the directory). A record that parses formats back to the bytes it
 * came from, field for field: nothing read is misread.
 */
#include <stdlib.h>
#include <string.h>
#include "journal.h"
#include "qdisc.h"

/* Records of qdisc/'s kinds parse: its registration is linked in. */
const struct hc_jkind *const fuzz_kinds[] = { &hc_jkind_qdisc };

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char buf[8192];
	struct hc_jrec rec, again;
	int len;

	if (hc_jrec_parse((const char *)data, size, &rec)) {
		if (!rec.bad[0])
			abort(); /* a refusal always says why */
		return 0;
	}
	if (!rec.kind || rec.pid <= 0 || !rec.seq ||
	    strnlen(rec.netns, sizeof(rec.netns)) == sizeof(rec.netns) ||
	    strnlen(rec.dev, sizeof(rec.dev)) == sizeof(rec.dev))
		abort();
	len = hc_jrec_format(&rec, buf, sizeof(buf));
	if (len < 0 || hc_jrec_parse(buf, len, &again) ||
	    memcmp(&rec, &again, sizeof(rec)))
		abort();
	return 0;
}
