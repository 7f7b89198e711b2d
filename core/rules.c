// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "rules.h"

const char *const hc_parse_names[] = { "none", "l2", "l3", "l4", NULL };
const char *const hc_verdict_names[] = {
	[HC_PASS] = "pass",
	[HC_DROP] = "drop",
	[HC_REDIRECT] = "redirect",
	NULL,
};

int hc_verdict_of(const char *word)
{
	int v;

	for (v = 0; v < HC_NR_VERDICTS; v++)
		if (!strcmp(word, hc_verdict_names[v]))
			return v;
	return -1;
}

static int parse_num(const char *s, unsigned long max, unsigned long *v)
{
	__u64 n;

	if (hc_parse_uint(s, 0, 0, max, &n))
		return -1;
	*v = n;
	return 0;
}

static int parse_ports(const char *s, __u16 *lo, __u16 *hi)
{
	char buf[32], *dash;
	unsigned long a, b;

	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (parse_num(buf, 65535, &a))
		return -1;
	b = a;
	if (dash && parse_num(dash, 65535, &b))
		return -1;
	if (a > b)
		return -1;
	*lo = a;
	*hi = b;
	return 0;
}

int hc_prefix_parse(const char *s, struct hc_prefix *pf, int *host_bits)
{
	char buf[64], *slash;
	unsigned long len;
	int family, bits, i;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(pf, 0, sizeof(*pf));
	if (inet_pton(AF_INET, buf, pf->addr) == 1)
		family = 4, bits = 32;
	else if (inet_pton(AF_INET6, buf, pf->addr) == 1)
		family = 6, bits = 128;
	else
		return 0;
	len = bits;
	if (slash && parse_num(slash, bits, &len))
		return 0;
	for (i = 0; i < 4; i++) {
		int n = (int)len - 32 * i;
		__u32 m = n >= 32 ? 0xffffffff : n <= 0 ? 0 : ~0u << (32 - n);

		pf->mask[i] = htonl(m);
		if (pf->addr[i] & ~pf->mask[i])
			*host_bits = 1;
	}
	return family;
}

int hc_rule_parse(const char *text, struct hc_rule *r, struct hc_err *err)
{
	char buf[512], *save = NULL, *w;
	int family = 0, have_verdict = 0, v;

	memset(r, 0, sizeof(*r));
	if (strlen(text) >= sizeof(buf))
		HC_PARSE_FAIL("rule is too long");
	snprintf(buf, sizeof(buf), "%s", text);

	for (w = strtok_r(buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		__u32 flag = 0;
		char *arg = NULL;

		if (have_verdict)
			HC_PARSE_FAIL("'%s' after the verdict: %s ends a rule",
				      w, HC_VERDICT_WORDS);
		v = hc_verdict_of(w);
		if (v >= 0) {
			r->verdict = v;
			have_verdict = 1;
			continue;
		}
		if (!strcmp(w, "ip") || !strcmp(w, "ip6")) {
			int f = w[2] ? 6 : 4;

			if (family && family != f)
				HC_PARSE_FAIL(
					"'%s' contradicts an IPv%d match before it",
					w, family);
			family = f;
			flag = f == 4 ? HC_R_IP4 : HC_R_IP6;
		} else if (!strcmp(w, "udp") || !strcmp(w, "tcp") ||
			   !strcmp(w, "icmp") || !strcmp(w, "icmp6") ||
			   !strcmp(w, "proto")) {
			unsigned long n;

			if (r->flags & HC_R_PROTO)
				HC_PARSE_FAIL(
					"'%s': the rule names a protocol already",
					w);
			if (!strcmp(w, "proto")) {
				arg = strtok_r(NULL, " \t", &save);
				if (!arg || parse_num(arg, 255, &n))
					HC_PARSE_FAIL(
						"'proto' needs a number from 0 to 255");
			} else {
				n = !strcmp(w, "udp")  ? 17 :
				    !strcmp(w, "tcp")  ? 6 :
				    !strcmp(w, "icmp") ? 1 :
							 58;
			}
			if (n == 1 || n == 58) {
				int f = n == 1 ? 4 : 6;

				if (family && family != f)
					HC_PARSE_FAIL(
						"'%s' is IPv%d only; use '%s'",
						w, f,
						f == 4 ? "icmp6" : "icmp");
				family = f;
				r->flags |= f == 4 ? HC_R_IP4 : HC_R_IP6;
			}
			r->proto = n;
			flag = HC_R_PROTO;
		} else if (!strcmp(w, "src") || !strcmp(w, "dst")) {
			struct hc_prefix *pf = w[0] == 's' ? &r->src : &r->dst;
			int host_bits = 0, f;

			flag = w[0] == 's' ? HC_R_SRC : HC_R_DST;
			if (r->flags & flag)
				HC_PARSE_FAIL("'%s' given twice", w);
			arg = strtok_r(NULL, " \t", &save);
			if (!arg)
				HC_PARSE_FAIL("'%s' needs an address or prefix",
					      w);
			f = hc_prefix_parse(arg, pf, &host_bits);
			if (!f)
				HC_PARSE_FAIL(
					"'%s %s': not an IPv4 or IPv6 prefix",
					w, arg);
			if (host_bits)
				HC_PARSE_FAIL(
					"'%s %s': host bits set beyond the prefix length",
					w, arg);
			if (family && family != f)
				HC_PARSE_FAIL(
					"'%s %s' is IPv%d but the rule is IPv%d",
					w, arg, f, family);
			family = f;
			r->flags |= f == 4 ? HC_R_IP4 : HC_R_IP6;
		} else if (!strcmp(w, "sport") || !strcmp(w, "dport")) {
			flag = w[0] == 's' ? HC_R_SPORT : HC_R_DPORT;
			if (r->flags & flag)
				HC_PARSE_FAIL("'%s' given twice", w);
			arg = strtok_r(NULL, " \t", &save);
			if (!arg ||
			    (w[0] == 's' ? parse_ports(arg, &r->sport_lo,
						       &r->sport_hi) :
					   parse_ports(arg, &r->dport_lo,
						       &r->dport_hi)))
				HC_PARSE_FAIL(
					"'%s' needs a port or range P-P within 0-65535, low to high",
					w);
		} else {
			HC_PARSE_FAIL("unknown word '%s'", w);
		}
		r->flags |= flag;
	}
	if (!have_verdict)
		HC_PARSE_FAIL("a rule ends with %s", HC_VERDICT_WORDS);
	if ((r->flags & (HC_R_SPORT | HC_R_DPORT)) && (r->flags & HC_R_PROTO) &&
	    r->proto != 6 && r->proto != 17)
		HC_PARSE_FAIL("ports need udp or tcp, not protocol %u",
			      r->proto);
	return 0;
}

enum hc_parse hc_rule_depth(const struct hc_rule *r)
{
	if (r->flags & (HC_R_SPORT | HC_R_DPORT))
		return HC_PARSE_L4;
	if (r->flags & (HC_R_PROTO | HC_R_SRC | HC_R_DST))
		return HC_PARSE_L3;
	if (r->flags & (HC_R_IP4 | HC_R_IP6))
		return HC_PARSE_L2;
	return HC_PARSE_NONE;
}
