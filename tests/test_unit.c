// SPDX-License-Identifier: GPL-2.0
/* Unprivileged: the rule parser and the userspace reference classifier. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "exec.h"
#include "fixtures.h"
#include "gen.h"
#include "hc_user.h"
#include "hooks.h"
#include "journal.h"
#include "json.h"
#include "opts.h"
#include "print.h"
#include "qdisc.h"
#include "rules.h"
#include "set.h"
#include "srcs.h"
#include "stats.h"
#include "test.h"

static void test_classify(void)
{
	__u8 buf[FX_MAX_LEN];
	unsigned int i, d;

	for (i = 0; i < FX_COUNT; i++) {
		const struct fx *f = &fx_table[i];
		int len = fx_build(f, &fx_default_addrs, buf);

		for (d = HC_PARSE_NONE; d <= HC_PARSE_L4; d++) {
			struct hc_conf c = { .parse = d };
			__u32 cls;

			hc_user_run(buf, len, &c, &cls);
			CHECK_EQ(cls, f->expect[d], "classify %s at %s (%s)",
				 f->name, hc_parse_names[d],
				 hc_class_names[f->expect[d]]);
		}
	}
}

/*
 * The same frame must get the same class wherever a hook starts reading:
 * at the network header with the ethertype from the skb (UDP socket), or
 * with the outer VLAN tag already taken out by the kernel (tc, AF_PACKET).
 */
static void test_start_points(void)
{
	__u8 buf[FX_MAX_LEN], cut[FX_MAX_LEN];
	unsigned int i;

	for (i = 0; i < FX_COUNT; i++) {
		const struct fx *f = &fx_table[i];
		int len = fx_build(f, &fx_default_addrs, buf);
		struct hc_conf c = { .parse = HC_PARSE_L4 };
		struct hc_pkt p = {};
		__u32 cls;

		if (len < 14)
			continue;
		p.data = buf + 14;
		p.len = len - 14;
		p.at_l3 = 1;
		p.l3_proto = (buf[12] << 8) | buf[13];
		hc_process(&p, &c, &cls);
		CHECK_EQ(cls, f->expect[HC_PARSE_L4], "classify %s from L3",
			 f->name);

		if (!f->vlans || len < 18)
			continue;
		memcpy(cut, buf, 12);
		memcpy(cut + 12, buf + 16, len - 16);
		p = (struct hc_pkt){ .data = cut, .len = len - 4, .vlans = 1 };
		hc_process(&p, &c, &cls);
		CHECK_EQ(cls, f->expect[HC_PARSE_L4],
			 "classify %s with the outer tag stripped", f->name);
	}
}

static const struct {
	const char *text;
	__u32 flags;
	__u8 proto, verdict;
	enum hc_parse depth;
} good_rules[] = {
	{ "drop", 0, 0, HC_DROP, HC_PARSE_NONE },
	{ "pass", 0, 0, HC_PASS, HC_PARSE_NONE },
	{ "ip drop", HC_R_IP4, 0, HC_DROP, HC_PARSE_L2 },
	{ "ip6 pass", HC_R_IP6, 0, HC_PASS, HC_PARSE_L2 },
	{ "udp dport 53 pass", HC_R_PROTO | HC_R_DPORT, 17, HC_PASS,
	  HC_PARSE_L4 },
	{ "ip6 tcp src 2001:db8::/32 sport 1000-2000 drop",
	  HC_R_IP6 | HC_R_PROTO | HC_R_SRC | HC_R_SPORT, 6, HC_DROP,
	  HC_PARSE_L4 },
	{ "ip dst 192.0.2.0/24 drop", HC_R_IP4 | HC_R_DST, 0, HC_DROP,
	  HC_PARSE_L3 },
	{ "dst 192.0.2.7 drop", HC_R_IP4 | HC_R_DST, 0, HC_DROP, HC_PARSE_L3 },
	{ "proto 47 pass", HC_R_PROTO, 47, HC_PASS, HC_PARSE_L3 },
	{ "icmp drop", HC_R_IP4 | HC_R_PROTO, 1, HC_DROP, HC_PARSE_L3 },
	{ "icmp6 pass", HC_R_IP6 | HC_R_PROTO, 58, HC_PASS, HC_PARSE_L3 },
	{ "dport 0-65535   pass", HC_R_DPORT, 0, HC_PASS, HC_PARSE_L4 },
	{ "redirect", 0, 0, HC_REDIRECT, HC_PARSE_NONE },
	{ "ip6 udp dport 53 redirect", HC_R_IP6 | HC_R_PROTO | HC_R_DPORT, 17,
	  HC_REDIRECT, HC_PARSE_L4 },
};

static const struct {
	const char *text;
	const char *says;
} bad_rules[] = {
	{ "", "ends with 'drop', 'pass' or 'redirect'" },
	{ "udp", "ends with 'drop', 'pass' or 'redirect'" },
	{ "udp dport 53", "ends with 'drop', 'pass' or 'redirect'" },
	{ "drop udp", "after the verdict" },
	{ "drop pass", "after the verdict" },
	{ "redirect drop", "after the verdict" },
	{ "udp redirect eth0", "'eth0' after the verdict" },
	{ "ip ip6 drop", "contradicts" },
	{ "ip6 icmp drop", "IPv4 only" },
	{ "ip icmp6 drop", "IPv6 only" },
	{ "udp tcp drop", "names a protocol already" },
	{ "proto 256 drop", "0 to 255" },
	{ "proto -1 drop", "0 to 255" },
	{ "proto drop", "0 to 255" },
	{ "dport 70000 drop", "within 0-65535" },
	{ "dport 90-80 drop", "low to high" },
	{ "sport 1-2-3 drop", "within 0-65535" },
	{ "dport", "needs a port" },
	{ "src 192.0.2.1/33 drop", "not an IPv4 or IPv6 prefix" },
	{ "src 192.0.2.256 drop", "not an IPv4 or IPv6 prefix" },
	{ "src drop", "not an IPv4 or IPv6 prefix" },
	{ "dst", "needs an address" },
	{ "src 192.0.2.1/24 drop", "host bits" },
	{ "ip6 src 192.0.2.0/24 drop", "is IPv4 but the rule is IPv6" },
	{ "src 2001:db8::/32 dst 192.0.2.0/24 drop",
	  "is IPv4 but the rule is IPv6" },
	{ "icmp dport 5 drop", "ports need udp or tcp" },
	{ "proto 47 sport 5 drop", "ports need udp or tcp" },
	{ "src 192.0.2.1 src 192.0.2.2 drop", "given twice" },
	{ "dport 53 dport 54 pass", "given twice" },
	{ "frobnicate drop", "unknown word 'frobnicate'" },
	{ "DROP", "unknown word 'DROP'" },
};

static void test_rule_parser(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(good_rules) / sizeof(good_rules[0]); i++) {
		struct hc_err err = {};
		struct hc_rule r;
		int ret = hc_rule_parse(good_rules[i].text, &r, &err);

		if (ret)
			printf("  parser said: %s\n", err.msg);
		t_result(!ret && r.flags == good_rules[i].flags &&
				 r.proto == good_rules[i].proto &&
				 r.verdict == good_rules[i].verdict &&
				 hc_rule_depth(&r) == good_rules[i].depth,
			 "rule parses: '%s' (flags %#x proto %u depth %s)",
			 good_rules[i].text, r.flags, r.proto,
			 hc_parse_names[hc_rule_depth(&r)]);
	}
	for (i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++) {
		struct hc_err err = {};
		struct hc_rule r;
		int ret = hc_rule_parse(bad_rules[i].text, &r, &err);

		t_result(ret < 0 && strstr(err.msg, bad_rules[i].says),
			 "rule rejected: '%s' -> \"%s\"", bad_rules[i].text,
			 err.msg);
	}
}

static void test_rule_fields(void)
{
	struct hc_err err = {};
	struct hc_rule r;

	hc_rule_parse("ip6 tcp src 2001:db8::/32 sport 1000-2000 drop", &r,
		      &err);
	CHECK_EQ(r.sport_lo, 1000, "rule field: sport low");
	CHECK_EQ(r.sport_hi, 2000, "rule field: sport high");
	CHECK_EQ(ntohl(r.src.mask[0]), 0xffffffff,
		 "rule field: /32 mask word 0");
	CHECK_EQ(r.src.mask[1], 0, "rule field: /32 mask word 1");
	CHECK_EQ(ntohl(r.src.addr[0]), 0x20010db8, "rule field: v6 address");
	hc_rule_parse("ip dst 192.0.2.0/25 drop", &r, &err);
	CHECK_EQ(ntohl(r.dst.mask[0]), 0xffffff80, "rule field: /25 mask");
	CHECK_EQ(ntohl(r.dst.addr[0]), 0xc0000200, "rule field: v4 address");
}

/* Hand-written verdicts for rule sets over the fixtures. */
static const struct {
	const char *rules[3];
	__u32 def;
	const char *pkt;
	__u32 verdict;
} verdicts[] = {
	{ { "udp dport 53 pass" }, HC_DROP, "udp4-dns", HC_PASS },
	{ { "udp dport 53 pass" }, HC_DROP, "udp4", HC_DROP },
	{ { "udp dport 53 pass" }, HC_DROP, "ext6-udp", HC_PASS },
	{ { "udp dport 53 pass" }, HC_DROP, "frag4-first", HC_PASS },
	{ { "udp dport 53 pass" }, HC_DROP, "frag4-later", HC_DROP },
	{ { "udp dport 53 pass" }, HC_DROP, "frag6-first", HC_PASS },
	{ { "udp dport 53 pass" }, HC_DROP, "ip4-opts-udp", HC_PASS },
	{ { "ip6 drop" }, HC_PASS, "udp6", HC_DROP },
	{ { "ip6 drop" }, HC_PASS, "qinq-tcp6", HC_DROP },
	{ { "ip6 drop" }, HC_PASS, "udp4", HC_PASS },
	{ { "ip6 drop" }, HC_PASS, "arp", HC_PASS },
	{ { "src 192.0.2.0/24 tcp drop", "ip pass" },
	  HC_DROP,
	  "tcp4",
	  HC_DROP },
	{ { "src 192.0.2.0/24 tcp drop", "ip pass" },
	  HC_DROP,
	  "udp4",
	  HC_PASS },
	{ { "src 192.0.2.0/24 tcp drop", "ip pass" },
	  HC_DROP,
	  "tcp6",
	  HC_DROP },
	{ { "src 198.51.100.0/24 drop", "ip pass" }, HC_DROP, "tcp4", HC_PASS },
	{ { "dst 2001:db8::2/128 pass" }, HC_DROP, "tcp6", HC_PASS },
	{ { "dst 2001:db8::3 pass" }, HC_DROP, "tcp6", HC_DROP },
	{ { "dst 2001:db8::2/128 pass" }, HC_DROP, "udp4", HC_DROP },
	{ { "tcp sport 1000-2000 dport 443 pass" }, HC_DROP, "tcp6", HC_PASS },
	{ { "tcp sport 1000-2000 dport 443 pass" }, HC_DROP, "tcp4", HC_DROP },
	{ { "tcp sport 2001-3000 pass" }, HC_DROP, "tcp4", HC_DROP },
	{ { "drop" }, HC_PASS, "ip4-ihl4", HC_PASS },
	{ { "drop" }, HC_PASS, "udp4", HC_DROP },
	{ { "proto 47 pass" }, HC_DROP, "gre4", HC_PASS },
	{ { "proto 47 pass" }, HC_DROP, "nonext6", HC_DROP },
	{ { "udp pass", "udp drop" }, HC_DROP, "udp4", HC_PASS },
	{ { "udp drop", "udp pass" }, HC_PASS, "udp6", HC_DROP },
	{ { "icmp6 pass" }, HC_DROP, "icmp6", HC_PASS },
	{ { "icmp6 pass" }, HC_DROP, "icmp4", HC_DROP },
	{ { "udp dport 53 redirect", "ip6 pass" },
	  HC_DROP,
	  "udp4-dns",
	  HC_REDIRECT },
	{ { "udp dport 53 redirect", "ip6 pass" }, HC_DROP, "udp4", HC_DROP },
	{ { "udp dport 53 redirect", "ip6 pass" }, HC_DROP, "udp6", HC_PASS },
	{ { "ip6 drop" }, HC_REDIRECT, "tcp4", HC_REDIRECT },
	{ { "ip6 drop" }, HC_REDIRECT, "tcp6", HC_DROP },
	{ { "redirect" }, HC_PASS, "ip4-ihl4", HC_PASS },
};

static void test_verdicts(void)
{
	__u8 buf[FX_MAX_LEN];
	unsigned int i;
	int j;

	for (i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		struct hc_conf c = { .parse = HC_PARSE_L4,
				     .def_verdict = verdicts[i].def };
		const struct fx *f = fx_find(verdicts[i].pkt);
		struct hc_err err = {};
		__u32 cls, v;
		int len;

		for (j = 0; j < 3 && verdicts[i].rules[j]; j++)
			if (hc_rule_parse(verdicts[i].rules[j],
					  &c.rules[c.nr_rules++], &err))
				printf("  bad rule in the table: %s\n",
				       err.msg);
		len = fx_build(f, &fx_default_addrs, buf);
		v = hc_user_run(buf, len, &c, &cls);
		CHECK_EQ(v, verdicts[i].verdict, "verdict '%s%s%s' on %s",
			 verdicts[i].rules[0], verdicts[i].rules[1] ? "; " : "",
			 verdicts[i].rules[1] ? verdicts[i].rules[1] : "",
			 verdicts[i].pkt);
	}
}

/* Every byte of every prefix of every fixture: nothing reads past the end. */
static void test_truncations(void)
{
	__u8 buf[FX_MAX_LEN];
	unsigned int i, n, bad = 0;

	for (i = 0; i < FX_COUNT; i++) {
		int len = fx_build(&fx_table[i], &fx_default_addrs, buf);
		struct hc_conf c = { .parse = HC_PARSE_L4 };

		for (n = 0; n <= (unsigned int)len; n++) {
			__u8 *copy = malloc(n ? n : 1);
			__u32 cls;

			memcpy(copy, buf, n);
			hc_user_run(copy, n, &c, &cls);
			if (cls >= HC_NR_CLASSES)
				bad++;
			free(copy);
		}
	}
	CHECK_EQ(bad, 0,
		 "every truncation of every fixture classifies in range");
}

/*
 * --parse none is AF_XDP's rx_drop: the frame is never read. A frame at
 * NULL would fault if it were.
 */
static void test_parse_none_reads_nothing(void)
{
	struct hc_conf c = { .parse = HC_PARSE_NONE, .def_verdict = HC_PASS };
	__u32 cls = HC_NR_CLASSES, v;

	v = hc_user_run(NULL, 60, &c, &cls);
	t_result(v == HC_PASS && cls == HC_CLS_ALL,
		 "parse none never reads the frame (verdict %u, class %u)", v,
		 cls);
}

/* One parser for every number a user or a file gives. */
static void test_numbers(void)
{
	static const struct {
		const char *s;
		unsigned int flags;
		__u64 min, max;
		int ret;
		__u64 v;
	} cases[] = {
		{ "9", 0, 1, 65535, 0, 9 },
		{ "010", 0, 1, 65535, 0, 10 }, /* decimal, never octal */
		{ "08", 0, 1, 65535, 0, 8 },
		{ "0", 0, 0, 1, 0, 0 },
		{ "65535", 0, 1, 65535, 0, 65535 },
		{ "65536", 0, 1, 65535, -ERANGE, 0 },
		{ "0", 0, 1, 65535, -ERANGE, 0 },
		{ "18446744073709551615", 0, 0, ~0ULL, 0, ~0ULL },
		{ "18446744073709551616", 0, 0, ~0ULL, -ERANGE, 0 },
		{ " 2", 0, 1, 65535, -EINVAL, 0 },
		{ "2 ", 0, 1, 65535, -EINVAL, 0 },
		{ " -18446744073709551614", 0, 1, 65535, -EINVAL, 0 },
		{ "-1", 0, 0, ~0ULL, -EINVAL, 0 },
		{ "+1", 0, 0, ~0ULL, -EINVAL, 0 },
		{ "", 0, 0, ~0ULL, -EINVAL, 0 },
		{ "0x10", 0, 0, ~0ULL, -EINVAL, 0 },
		{ "0x10", HC_NUM_HEX, 0, ~0ULL, 0, 16 },
		{ "0XfF", HC_NUM_HEX, 0, ~0ULL, 0, 255 },
		{ "0x", HC_NUM_HEX, 0, ~0ULL, -EINVAL, 0 },
		{ "ff", HC_NUM_HEX, 0, ~0ULL, -EINVAL, 0 },
		{ "0x1g", HC_NUM_HEX, 0, ~0ULL, -EINVAL, 0 },
		{ "1e3", 0, 0, ~0ULL, -EINVAL, 0 },
	};
	static const struct {
		const char *s;
		int ret;
		double v;
	} secs[] = {
		{ "1", 0, 1 },
		{ "0.25", 0, 0.25 },
		{ ".5", 0, 0.5 },
		{ "3.", 0, 3 },
		{ "0", 0, 0 },
		{ "10000000", 0, 1e7 },
		{ "10000001", -ERANGE, 0 },
		{ "1e9", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 },
		{ "nan", -EINVAL, 0 },
		{ ".", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "0x1p3", -EINVAL, 0 },
	};
	unsigned int i;
	__u8 mac[6];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u64 v = 12345;
		int ret = hc_parse_uint(cases[i].s, cases[i].flags,
					cases[i].min, cases[i].max, &v);

		CHECK_EQ(ret, cases[i].ret, "number '%s' -> %d", cases[i].s,
			 cases[i].ret);
		if (!ret)
			CHECK_EQ(v, cases[i].v, "number '%s' is %llu",
				 cases[i].s, (unsigned long long)cases[i].v);
	}
	for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		double v = -1;
		int ret = hc_parse_secs(secs[i].s, 1e7, &v);

		t_result(ret == secs[i].ret && (ret || v == secs[i].v),
			 "seconds '%s' -> %d (%g)", secs[i].s, ret, v);
	}
	t_result(!hc_parse_mac("2:0:aa:BB:c:0d", mac) && mac[0] == 2 &&
			 mac[2] == 0xaa && mac[3] == 0xbb && mac[4] == 0xc &&
			 mac[5] == 0xd,
		 "MAC with one- and two-digit pairs");
	t_result(
		hc_parse_mac(" 02:00:00:00:00:01", mac) &&
			hc_parse_mac("02:00:00:00:00:01 ", mac) &&
			hc_parse_mac("02:00:00:00:00", mac) &&
			hc_parse_mac("02:00:00:00:00:01:02", mac) &&
			hc_parse_mac("0x2:00:00:00:00:01", mac) &&
			hc_parse_mac("002:00:00:00:00:01", mac),
		"MAC with spaces, too few or many pairs, 0x or three digits refused");
}

/* Names come from users and devices: JSON escapes what is not UTF-8. */
static void test_json_strings(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "\"plain\"" },
		{ "a \"q\" \\", "\"a \\\"q\\\" \\\\\"" },
		{ "tab\t", "\"tab\\u0009\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" }, /* valid UTF-8 stays */
		{ "\xe2\x82\xac\xf0\x9f\x98\x80",
		  "\"\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "x\xffy", "\"x\\u00ffy\"" },
		{ "\xc3", "\"\\u00c3\"" }, /* cut short */
		{ "\xc0\xaf", "\"\\u00c0\\u00af\"" }, /* overlong */
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" }, /* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		struct hc_json j = { .f = open_memstream(&buf, &len) };

		jw_str(&j, NULL, cases[i].in);
		fclose(j.f);
		if (!t_result(!strcmp(buf, cases[i].out), "JSON string %u", i))
			printf("  expected %s, got %s\n", cases[i].out, buf);
		free(buf);
	}
}

/* A row of test_printer_table's: a name and a number. */
struct t_prow {
	const char *name;
	double v;
};

static void t_prow_cols(struct hc_pr *p, const void *arg, int i)
{
	const struct t_prow *r = (const struct t_prow *)arg + i;

	hc_pr_str(p, HC_PR_ALL, "name", "row", -4, r->name);
	hc_pr_num(p, HC_PR_TEXT | HC_PR_JSON, "ns", "ns/pkt", 6, 1, r->v);
	hc_pr_num(p, HC_PR_CSV, "ns_csv", NULL, 0, 2, r->v);
}

/* One table's columns, three outputs: each its own shape of them. */
static void test_printer_table(void)
{
	static const struct t_prow rows[] = { { "base", 100.25 },
					      { "a-longer", 7 } };
	static const struct {
		int mode, n;
		const char *out;
	} cases[] = {
		{ HC_PR_TEXT, 2,
		  "row      ns/pkt\nbase      100.2\na-longer    7.0\n" },
		{ HC_PR_JSON, 2,
		  "{\"rows\":[{\"name\":\"base\",\"ns\":100.25},{\"name\":\"a-longer\",\"ns\":7}]}\n" },
		{ HC_PR_CSV, 2,
		  "name,ns_csv\n\"base\",100.25\n\"a-longer\",7.00\n" },
		{ HC_PR_TEXT, 0, "" },
		{ HC_PR_JSON, 0, "{\"rows\":[]}\n" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct hc_pr p = HC_PR_INIT(cases[i].mode, f);

		hc_pr_open(&p, HC_PR_JSON, NULL, '{');
		hc_pr_table(&p, "rows", cases[i].n, t_prow_cols, rows);
		hc_pr_close(&p, HC_PR_JSON, '}');
		fclose(f);
		CHECK_STR(buf, cases[i].out,
			  "printer: table %u (mode %d, %d rows)", i,
			  cases[i].mode, cases[i].n);
		free(buf);
	}
}

/* Free text: control characters written as \xHH, however long the text. */
static void test_text_printf(void)
{
	char long_text[5000], *want, *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	long_text[4000] = '\033';
	hc_text_printf(f, "%s\t%s\n", long_text, "end");
	fclose(f);
	want = strdup(long_text);
	want[4000] = '\0';
	CHECK_EQ(len, 4000 + 4 + 998 + 5,
		 "text printer: a 5000-byte text whole");
	CHECK_EQ(strncmp(buf, want, 4000), 0,
		 "text printer: the text before the control character");
	CHECK_STR(buf + 4000 + 4 + 998, "\tend\n",
		  "text printer: the end of a long text, tab and newline kept");
	CHECK_EQ(strncmp(buf + 4000, "\\x1b", 4), 0,
		 "text printer: ESC as \\x1b");
	free(want);
	free(buf);
}

/* A kind of the test's own: a field of every type in its data. */
struct t_jdata {
	__u64 big;
	int num;
	__u32 prio;
	bool flag;
	char text[960];
	__u8 addr[6];
	__u32 val[4];
	__u32 late; /* new in format 6 */
};
HC_JDATA_FITS(struct t_jdata);

#define TF(m, t, ...) HC_JFIELD(struct t_jdata, m, t, __VA_ARGS__)
static const struct hc_jfield t_jfields[] = {
	TF(big, HC_JF_U64),   TF(num, HC_JF_INT),     TF(prio, HC_JF_U32),
	TF(flag, HC_JF_BOOL), TF(text, HC_JF_STR),    TF(addr, HC_JF_MAC),
	TF(val, HC_JF_VAL),   TF(late, HC_JF_U32, 6), {},
};
#undef TF

static void t_undo(struct hc_undo_ctx *c)
{
	(void)c;
}

static const struct hc_jkind t_jkind = {
	.name = "test",
	.fields = t_jfields,
	.undo = t_undo,
};

/* buf without its lines that start with each of keys, into out. */
static void drop_lines(const char *buf, const char *const *keys, char *out,
		       size_t size)
{
	char *p, *eol;

	snprintf(out, size, "%s", buf);
	for (; *keys; keys++) {
		p = strstr(out, *keys);
		if (p && p[-1] == '\n') {
			eol = strchr(p, '\n');
			memmove(p, eol + 1, strlen(eol + 1) + 1);
		}
	}
}

/*
 * Records of earlier formats, whose fields are a qdisc's: 3 had no
 * netns_cookie; 2 as first written no netns_proc or proof either. Read,
 * those are zero; the same lines missing in today's format are not. Until
 * 5, every record had every kind's fields: another kind's are ignored.
 */
static void test_journal_formats(const struct hc_jrec *base)
{
	static const struct {
		char format;
		const char *missing[4];
	} older[] = {
		{ '5', { NULL } },
		{ '4', { NULL } },
		{ '3', { "netns_cookie=" } },
		{ '2', { "netns_cookie=", "netns_proc=", "proof=" } },
	};
	struct hc_jrec rec = *base, old, back;
	struct hc_jqdisc *q = HC_JQDISC(&rec);
	char buf[8192], bad[8300];
	size_t f;
	int len;

	rec.kind = &hc_jkind_qdisc;
	memset(rec.data, 0, sizeof(rec.data));
	q->shared = true;
	q->proof = 2;
	len = hc_jrec_format(&rec, buf, sizeof(buf));
	t_result(len > 0 && !hc_jrec_parse(buf, len, &back) &&
			 !memcmp(&rec, &back, sizeof(rec)),
		 "journal record of a qdisc: read back as written");
	/* Another kind's fields, as formats 2 to 5 wrote them: ignored. */
	snprintf(buf + len, sizeof(buf) - len,
		 "prio=4294967296\ncmd=rm%%20-rf\npin=\n");
	for (f = 0; f < sizeof(older) / sizeof(older[0]); f++) {
		memcpy(&old, &rec, sizeof(old)); /* padding too */
		if (older[f].format < '4')
			old.ns.cookie = 0;
		if (older[f].format == '2') {
			old.ns.proc = 0;
			HC_JQDISC(&old)->proof = 0;
		}
		drop_lines(buf, older[f].missing, bad, sizeof(bad));
		if (older[f].missing[0])
			t_result(
				hc_jrec_parse(bad, strlen(bad), &back) ==
					-EINVAL,
				"journal record: format 6 without format %c's missing fields refused",
				older[f].format);
		*strchr(bad, '6') = older[f].format;
		t_result(
			!hc_jrec_parse(bad, strlen(bad), &back) &&
				!memcmp(&old, &back, sizeof(old)),
			"journal record: format %c read, its missing fields zero, other kinds' ignored",
			older[f].format);
	}
}

/* Journal records: every field back as written; nothing else parses. */
static void test_journal_records(void)
{
	static const char *const garbled[] = {
		"pid=-1\n",
		"pid=1x\n",
		"pid= 1\n",
		"kind=bogus\n",
		"done=2\n",
		"netns=a b\n",
		"netns=%2\n",
		"netns=%00\n",
		"netns=%zz\n",
		"mac=1:2:3\n",
		"seq=0\n",
		"ifindex=2147483648\n",
		"prog_id=4294967296\n",
		"noequals\n",
		/* the kind's */
		"big=-1\n",
		"num=2147483648\n",
		"prio=4294967296\n",
		"flag=2\n",
		"text=%zz\n",
		"addr=1:2\n",
		"val=1,2,3\n",
		"val=1,2,3,4,5\n",
		"late=x\n",
	};
	static const char *const late[] = { "late=", NULL };
	struct hc_jrec rec = {}, back;
	struct t_jdata *d = HC_JDATA(&rec, struct t_jdata);
	char buf[8192], bad[8300], *p, *eol;
	unsigned int i;
	int len, n, cut;

	hc_journal_kind_add(&t_jkind);
	rec.seq = 123456789012ULL;
	rec.pid = 4242;
	rec.pidns = 4026531836ULL;
	rec.start = 99999;
	rec.kind = &t_jkind;
	rec.done = true;
	/* NAME_MAX bytes, a space, a '%', a tab and bytes that are not UTF-8 */
	memset(rec.netns, 'n', sizeof(rec.netns) - 1);
	memcpy(rec.netns, "a b%\t\xff\x80", 7);
	snprintf(rec.dev, sizeof(rec.dev), "eth0.100");
	rec.ns.dev = 4;
	rec.ns.ino = 4026532247ULL;
	rec.ns.proc = 4026532253ULL;
	rec.ns.cookie = 0x123456789abcULL;
	rec.ifindex = 2147483647;
	memcpy(rec.mac, "\x02\x00\xab\xcd\xef\x01", 6);
	snprintf(rec.mode, sizeof(rec.mode), "clsact");
	rec.prog_id = 7;
	d->big = 0xfedcba9876543210ULL;
	d->num = 2147483646; /* INT: not negative */
	d->prio = 0xfffffff2;
	d->flag = true;
	/* the longest string, every byte escaped */
	memset(d->text, ' ', sizeof(d->text) - 1);
	memcpy(d->text, "sysctl -w kernel.x=0\n", 21);
	memcpy(d->addr, "\xff\x00\x01\x02\x03\x04", 6);
	d->val[0] = 1;
	d->val[3] = 4294967295u;
	d->late = 3;
	len = hc_jrec_format(&rec, buf, sizeof(buf));
	t_result(
		len > 0 && !hc_jrec_parse(buf, len, &back) &&
			!memcmp(&rec, &back, sizeof(rec)),
		"journal record: every field, the kind's too, read back as written (%d bytes)",
		len);
	t_result(!strstr(buf, "a b") && strstr(buf, "netns=a%20b%25%09%FF%80"),
		 "journal record: names escaped as %%XX");
	t_result(!strstr(buf, "cgroup=") && !strstr(buf, "proof="),
		 "journal record: no other kind's fields in it");

	/* Cut anywhere short of its end, a record is not one. */
	for (cut = 0, n = 0; cut < len; cut++)
		n += !hc_jrec_parse(buf, cut, &back);
	CHECK_EQ(n, 0, "journal record: no prefix of it parses");
	t_result(hc_jrec_parse(buf, len, &back) == 0 && !back.bad[0],
		 "journal record: parsed whole, it is not bad");
	/* A kind's field new in a format: required from then, zero before. */
	drop_lines(buf, late, bad, sizeof(bad));
	t_result(
		hc_jrec_parse(bad, strlen(bad), &back) == -EINVAL,
		"journal record: format 6 without the kind's field of 6 refused");
	*strchr(bad, '6') = '5';
	t_result(!hc_jrec_parse(bad, strlen(bad), &back) &&
			 HC_JDATA(&back, struct t_jdata)->late == 0 &&
			 HC_JDATA(&back, struct t_jdata)->prio == d->prio,
		 "journal record: format 5 without it read, as zero");
	test_journal_formats(&rec);
	/* Formats this hookcmp does not know. */
	for (i = 0; i < 3; i++) {
		snprintf(bad, sizeof(bad), "%s", buf);
		*strchr(bad, '6') = "017"[i];
		t_result(hc_jrec_parse(bad, strlen(bad), &back) == -EINVAL,
			 "journal record: format %c refused", "017"[i]);
	}
	/* One line garbled at a time. */
	for (i = 0; i < sizeof(garbled) / sizeof(garbled[0]); i++) {
		const char *key = garbled[i];
		size_t klen = strcspn(key, "=\n");

		snprintf(bad, sizeof(bad), "%s", buf);
		for (p = bad;
		     (p = strchr(p, '\n')) && strncmp(p + 1, key, klen); p++)
			;
		if (!p || key[klen] != '=') {
			/* A line of no key=value: added at the end. */
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%s", key);
		} else {
			eol = strchr(p + 1, '\n');
			memmove(p + 1 + strlen(key) - 1, eol, strlen(eol) + 1);
			memcpy(p + 1, key, strlen(key) - 1);
		}
		n = hc_jrec_parse(bad, strlen(bad), &back);
		t_result(n == -EINVAL &&
				 !strcmp(back.bad, "not a hookcmp record"),
			 "journal record with '%.*s' refused",
			 (int)strcspn(key, "\n"), key);
	}
	/* A field twice (the journal's, the kind's), no magic, a NUL inside. */
	snprintf(bad, sizeof(bad), "%sseq=5\n", buf);
	t_result(hc_jrec_parse(bad, strlen(bad), &back) == -EINVAL,
		 "journal record with a field twice refused");
	snprintf(bad, sizeof(bad), "%sprio=5\n", buf);
	t_result(hc_jrec_parse(bad, strlen(bad), &back) == -EINVAL,
		 "journal record with its kind's field twice refused");
	t_result(hc_jrec_parse(strchr(buf, '\n') + 1,
			       len - (strchr(buf, '\n') + 1 - buf),
			       &back) == -EINVAL,
		 "journal record without its first line refused");
	memcpy(bad, buf, len);
	bad[len / 2] = '\0';
	t_result(hc_jrec_parse(bad, len, &back) == -EINVAL,
		 "journal record with a NUL in it refused");
	/* A field a newer hookcmp writes is not this one's to judge. */
	snprintf(bad, sizeof(bad), "%snew_field=whatever\n", buf);
	t_result(!hc_jrec_parse(bad, strlen(bad), &back) &&
			 !memcmp(&rec, &back, sizeof(rec)),
		 "journal record with an unknown field read");
}

/*
 * The table of hooks: each complete, names unique, options declared alike
 * where two hooks share one, every row and variant a valid command line
 * for its hook, and run's option rules (defaults, scopes) as data.
 */
static void test_hooks(void)
{
	const struct hc_hook *const *h, *found;
	const struct hc_hook_row *row;
	struct hc_opt opts[HC_MAX_OPTS + 1];
	struct hc_variant vars[HC_MAX_VARIANTS];
	struct hc_err err = {};
	struct hc_run r;
	char where[128];
	int n, i, bad = 0;

	for (h = hc_hooks; *h; h++) {
		if (!(*h)->help || !(*h)->load || !(*h)->attach ||
		    !(*h)->detach || !(*h)->attach_name || !(*h)->attach_via ||
		    ((*h)->variants && !(*h)->verdict) ||
		    hc_hook_by_name((*h)->name) != *h) {
			printf("  hook %s: incomplete or not found by name\n",
			       (*h)->name);
			bad++;
		}
		for (row = (*h)->rows; row && row->name; row++) {
			hc_run_init(&r);
			snprintf(where, sizeof(where), "--hook %s %s",
				 (*h)->name, row->args);
			if (hc_run_args(&r, where, &err) || r.hook != *h ||
			    hc_hook_row_find(row->name, false, &found) != row ||
			    found != *h) {
				printf("  row %s: '%s': %s\n", row->name, where,
				       err.msg);
				bad++;
			}
		}
	}
	CHECK_EQ(bad, 0, "hooks: each complete, its rows its own and valid");
	n = hc_hook_opts(opts, 0, HC_MAX_OPTS);
	t_result(n > 2, "hooks: their options declared alike (%d)", n);
	n = hc_variants(vars, HC_MAX_VARIANTS);
	for (i = bad = 0; i < n; i++)
		bad += hc_run_of(&r, vars[i].hook, vars[i].args, &err) != 0 ||
		       r.hook != vars[i].hook;
	t_result(n >= 4 && !bad, "hooks: %d variants, each valid", n);

	hc_run_init(&r);
	t_result(!hc_run_args(&r, "--hook tc", &err) &&
			 !strcmp(r.hook->attach_name(&r), "clsact") &&
			 !hc_hook_given(&r, "qdisc"),
		 "hooks: a default mode is the first choice, not given");
	hc_run_init(&r);
	t_result(!hc_run_args(&r, "--hook tc --qdisc ingress", &err) &&
			 !strcmp(r.hook->attach_name(&r), "ingress") &&
			 hc_hook_given(&r, "qdisc"),
		 "hooks: an option given is set and known as given");
	hc_run_init(&r);
	t_result(!hc_run_args(&r, "--hook tc --tc-attach tcx --bare", &err) &&
			 (hc_hook_where(&r, where, sizeof(where)),
			  !strcmp(where, "--hook tc --tc-attach tcx --bare")),
		 "hooks: where a run is names its modes but the default (%s)",
		 where);
	hc_run_init(&r);
	t_result(hc_run_args(&r, "--hook tc --xdp-mode generic", &err) ==
				 -EINVAL &&
			 !strcmp(err.msg,
				 "--xdp-mode goes with --hook xdp or --hook xsk, not --hook tc"),
		 "hooks: an option of other hooks is refused, naming them (%s)",
		 err.msg);
	hc_run_init(&r);
	t_result(hc_run_args(&r, "--hook tc --tc-attach tcx --prio 3", &err) ==
				 -EINVAL &&
			 strstr(err.msg, "goes with --hook tc --tc-attach qdisc"),
		 "hooks: an option of another mode is refused (%s)", err.msg);
	hc_run_init(&r);
	t_result(hc_run_args(&r, "--qdisc ingress", &err) == -EINVAL &&
			 strstr(err.msg, "is required"),
		 "hooks: no hook, no run (%s)", err.msg);
	hc_run_init(&r);
	t_result(hc_run_args(&r, "--hook xsk --bare", &err) == -EINVAL,
		 "hooks: a hook's own check runs (%s)", err.msg);
	for (i = bad = 0; i < 4; i++) {
		static const char *const kinds[] = { "xdp", "filter", "qdisc",
						     "cgroup" };
		const struct hc_jkind *k = hc_journal_kind(kinds[i]);

		bad += !k || !k->undo || strcmp(k->name, kinds[i]);
	}
	t_result(!bad && !hc_journal_kind("gro"),
		 "journal: the hooks' and qdisc/'s kinds registered themselves, bench's are bench's");
}

/* ---- the rule set (core/set.c) ---- */

static const struct {
	const char *line;
	int ret; /* 0 an entry, 1 nothing, -EINVAL */
	const char *msg; /* what err must hold */
} set_lines[] = {
	{ "10.0.0.0/8 drop", 0 },
	{ "src 10.0.0.0/8 pass # a comment", 0 },
	{ "2001:db8::/32 pass", 0 },
	{ "192.0.2.1 drop", 0 },
	{ "udp 10.0.0.1:1000 192.0.2.2:9 drop", 0 },
	{ "tcp [2001:db8::1]:1 [2001:db8::2]:443 pass", 0 },
	{ "", 1 },
	{ "   # only a comment", 1 },
	{ "10.0.0.0/8", -EINVAL,
	  "expected 'drop' or 'pass' after '10.0.0.0/8', found the end of the line" },
	{ "10.0.0.0/8 reject", -EINVAL,
	  "expected 'drop' or 'pass' after '10.0.0.0/8', found 'reject'" },
	{ "10.0.0.0/8 redirect", -EINVAL, "found 'redirect'" },
	{ "10.0.0.0/8 drop now", -EINVAL,
	  "expected the end of the line after 'drop', found 'now'" },
	{ "10.0.0.1/8 drop", -EINVAL,
	  "expected a prefix without host bits beyond its length, found '10.0.0.1/8'" },
	{ "10.0.0.0/33 drop", -EINVAL,
	  "expected a source prefix (10.0.0.0/8, 2001:db8::/32) or 'udp' or 'tcp', found '10.0.0.0/33'" },
	{ "block 10.0.0.0/8", -EINVAL, "found 'block'" },
	{ "src", -EINVAL,
	  "expected a prefix after 'src', found the end of the line" },
	{ "udp 10.0.0.1 192.0.2.2:9 drop", -EINVAL,
	  "expected the source as ADDR:PORT (10.0.0.1:53 or [2001:db8::1]:53), found '10.0.0.1'" },
	{ "udp 10.0.0.1:1", -EINVAL,
	  "expected the destination as ADDR:PORT (10.0.0.1:53 or [2001:db8::1]:53) after '10.0.0.1:1', found the end of the line" },
	{ "udp 10.0.0.1:70000 192.0.2.2:9 drop", -EINVAL,
	  "found '10.0.0.1:70000'" },
	{ "tcp 10.0.0.1:1 [2001:db8::2]:443 pass", -EINVAL,
	  "expected the destination '[2001:db8::2]:443' in IPv4 as the source is, found IPv6" },
};

static void test_set_parser(void)
{
	char path[] = "/tmp/hc-set-XXXXXX";
	struct hc_set_entry e;
	struct hc_set *s;
	unsigned int i;
	FILE *f;
	int fd;

	for (i = 0; i < sizeof(set_lines) / sizeof(set_lines[0]); i++) {
		struct hc_err err = {};
		int ret = hc_set_entry_parse(set_lines[i].line, &e, &err);

		if (ret != set_lines[i].ret ||
		    (set_lines[i].msg && !strstr(err.msg, set_lines[i].msg)))
			printf("  expected %d '%s', got %d '%s'\n",
			       set_lines[i].ret,
			       set_lines[i].msg ? set_lines[i].msg : "", ret,
			       err.msg);
		t_result(ret == set_lines[i].ret &&
				 (!set_lines[i].msg ||
				  strstr(err.msg, set_lines[i].msg)),
			 "set line '%s'", set_lines[i].line);
	}

	/* What a good line holds. */
	hc_set_entry_parse("udp 10.0.0.1:1000 192.0.2.2:9 drop", &e, NULL);
	t_result(e.kind == HC_SET_TUPLE && e.verdict == HC_DROP &&
			 e.t.family == 4 && e.t.proto == 17 &&
			 e.t.sport == 1000 && e.t.dport == 9 &&
			 e.t.saddr[0] == htonl(0x0a000001) &&
			 e.t.daddr[0] == htonl(0xc0000202),
		 "set tuple fields");
	hc_set_entry_parse("2001:db8::/33 pass", &e, NULL);
	t_result(e.kind == HC_SET_SRC6 && e.plen == 33 &&
			 e.verdict == HC_PASS &&
			 e.t.saddr[0] == htonl(0x20010db8),
		 "set prefix fields");

	/* A file: its line numbers, and a duplicate named with its twin. */
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!t_result(f, "set file made"))
		return;
	fputs("# blocklist\n\n10.0.0.0/8 drop\n10.1.0.0/16 pass\n", f);
	fputs("10.0.0.0/8 pass\n", f);
	fclose(f);
	{
		struct hc_err err = {};
		char want[128];
		int ret;

		s = hc_set_new();
		ret = hc_set_read(s, path, &err);
		snprintf(
			want, sizeof(want),
			"%s:5: expected a new entry, found '10.0.0.0/8 pass', given on line 3 already",
			path);
		CHECK_EQ(ret, -EINVAL, "set file: a duplicate refused");
		CHECK_STR(err.msg, want, "set file: the duplicate's lines");
		hc_set_free(s);

		f = fopen(path, "w");
		fputs("10.0.0.0/8 drop\n# two\n\n2001:db8::/32 pass\n", f);
		fputs("udp 10.0.0.1:1 10.0.0.2 drop\n", f);
		fclose(f);
		s = hc_set_new();
		ret = hc_set_read(s, path, &err);
		snprintf(want, sizeof(want),
			 "%s:5: expected the destination as ADDR:PORT", path);
		CHECK_EQ(ret, -EINVAL, "set file: a bad line refused");
		if (!strstr(err.msg, want))
			printf("  expected '%s...', got '%s'\n", want, err.msg);
		t_result(strstr(err.msg, want),
			 "set file: the bad line's number");
		CHECK_EQ(hc_set_count(s, HC_SET_SRC4) +
				 hc_set_count(s, HC_SET_SRC6),
			 2, "set file: the lines before it read");
		{
			const struct hc_set_entry *e;
			__u32 n;

			e = hc_set_entries(s, &n);
			t_result(
				n == 2 && e[0].line == 1 && e[1].line == 4 &&
					e[0].kind == HC_SET_SRC4 &&
					e[1].kind == HC_SET_SRC6 &&
					e[1].plen == 32,
				"set file: its entries in order, with their lines");
		}
		hc_set_free(s);
		s = hc_set_new();
		CHECK_EQ(hc_set_read(s, "/nonexistent/set", &err), -ENOENT,
			 "set file: a missing file");
		hc_set_free(s);
	}
	unlink(path);
}

/* Deterministic: a test run is reproducible. */
static __u32 t_rand(__u64 *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 33;
}

static int plen_match(const __u32 *addr, const __u32 *pfx, int plen)
{
	int i;

	for (i = 0; i < 4; i++) {
		int n = plen - 32 * i;
		__u32 m = htonl(n >= 32 ? ~0u : n <= 0 ? 0 : ~0u << (32 - n));

		if ((addr[i] ^ pfx[i]) & m)
			return 0;
	}
	return 1;
}

/* The set's verdict by brute force: the longest prefix that holds addr. */
static int brute_src(const struct hc_set_entry *e, int n, int family,
		     const __u32 *addr)
{
	int i, best = -1, v = -1;

	for (i = 0; i < n; i++)
		if (e[i].t.family == family && e[i].kind != HC_SET_TUPLE &&
		    e[i].plen > best &&
		    plen_match(addr, e[i].t.saddr, e[i].plen))
			best = e[i].plen, v = e[i].verdict;
	return v;
}

/*
 * Random sets of prefixes drawn near a few bases (so they nest), looked
 * up at addresses near the same bases, against brute force.
 */
static void test_set_lookup(void)
{
	enum { N = 3000, LOOKUPS = 20000 };
	static struct hc_set_entry e[N];
	__u64 rnd = 1;
	int family, round;

	for (round = 0; round < 4; round++) {
		for (family = 4; family <= 6; family += 2) {
			int bits = family == 4 ? 32 : 128, words = bits / 32;
			__u32 base[4][4];
			struct hc_set *s = hc_set_new();
			int n = 0, i, j, bad = 0, hits = 0;
			__u32 dup;

			for (i = 0; i < 4; i++)
				for (j = 0; j < 4; j++)
					base[i][j] =
						j < words ? t_rand(&rnd) : 0;
			for (i = 0; i < N; i++) {
				struct hc_set_entry x = {
					.kind = family == 4 ? HC_SET_SRC4 :
							      HC_SET_SRC6,
					.verdict = t_rand(&rnd) % 2,
				};
				__u32 *b = base[t_rand(&rnd) % 4];

				/* Mostly long prefixes, some short, nested. */
				x.plen = t_rand(&rnd) % 64 ?
						 bits - t_rand(&rnd) % 16 :
						 bits / 2 + t_rand(&rnd) %
								    bits / 2;
				x.t.family = family;
				for (j = 0; j < words; j++)
					x.t.saddr[j] =
						b[j] ^ htonl(t_rand(&rnd) %
							     (j == words - 1 ?
								      1u << 24 :
								      2));
				for (j = 0; j < 4; j++) {
					int m = x.plen - 32 * j;

					x.t.saddr[j] &=
						htonl(m >= 32 ? ~0u :
						      m <= 0  ? 0 :
								~0u << (32 - m));
				}
				x.line = i + 1;
				if (!hc_set_add(s, &x, &dup))
					e[n++] = x;
			}
			for (i = 0; i < LOOKUPS; i++) {
				__u32 a[4] = {}, *b = base[t_rand(&rnd) % 4];
				struct hc_lpm6 k6 = { 128 };
				struct hc_lpm4 k4 = { 32 };
				int want, got;

				for (j = 0; j < words; j++)
					a[j] = i % 8 ? b[j] ^ htonl(t_rand(&rnd) %
								    (j == words - 1 ?
									     1u << 24 :
									     2)) :
						       t_rand(&rnd);
				k4.addr = a[0];
				memcpy(k6.addr, a, sizeof(a));
				want = brute_src(e, n, family, a);
				got = hc_set_lookup(s,
						    family == 4 ? HC_SET_SRC4 :
								  HC_SET_SRC6,
						    family == 4 ? (void *)&k4 :
								  (void *)&k6);
				hits += want >= 0;
				if (got != want && !bad++)
					printf("  IPv%d lookup %d: expected %d, got %d\n",
					       family, i, want, got);
			}
			t_result(
				!bad && hits > LOOKUPS / 10 &&
					hits < LOOKUPS * 9 / 10,
				"set lookup IPv%d round %d: %d entries, %d of %d lookups hit, %d wrong",
				family, round, n, hits, LOOKUPS, bad);
			hc_set_free(s);
		}
	}
}

/* Exact tuples: each one found, and none of its one-field neighbours. */
static void test_set_tuples(void)
{
	enum { N = 5000 };
	static struct hc_tuple t[N];
	struct hc_set *s = hc_set_new();
	__u64 rnd = 7;
	int i, bad = 0;
	__u32 dup;

	for (i = 0; i < N; i++) {
		struct hc_set_entry x = { .kind = HC_SET_TUPLE,
					  .verdict = i % 2 };

		x.t.family = i % 3 ? 4 : 6;
		x.t.proto = i % 2 ? 17 : 6;
		x.t.sport = t_rand(&rnd);
		x.t.dport = t_rand(&rnd) % 4;
		x.t.saddr[0] = t_rand(&rnd) % 64;
		x.t.daddr[0] = 7;
		if (x.t.family == 6)
			x.t.saddr[3] = t_rand(&rnd), x.t.daddr[3] = 9;
		x.line = i + 1;
		t[i] = x.t;
		if (hc_set_add(s, &x, &dup))
			t[i].family = 0; /* a repeat: not ours to check */
	}
	for (i = 0; i < N; i++) {
		struct hc_tuple k = t[i];
		int f, want = i % 2;

		if (!k.family)
			continue;
		if (hc_set_lookup(s, HC_SET_TUPLE, &k) != want && !bad++)
			printf("  tuple %d: not found\n", i);
		for (f = 0; f < 4; f++) {
			int j, v;

			k = t[i];
			if (f == 0)
				k.proto ^= 17 ^ 6;
			else if (f == 1)
				k.sport++;
			else if (f == 2)
				k.daddr[0]++;
			else
				k.dport ^= 0x100;
			v = hc_set_lookup(s, HC_SET_TUPLE, &k);
			/* The neighbour may be an entry of its own. */
			for (j = 0; j < N; j++)
				if (t[j].family &&
				    !memcmp(&t[j], &k, sizeof(k)))
					break;
			if (v != (j < N ? j % 2 : -1) && !bad++)
				printf("  tuple %d, field %d changed: got %d\n",
				       i, f, v);
		}
	}
	t_result(!bad,
		 "set tuples: %u exact entries and their neighbours, %d wrong",
		 hc_set_count(s, HC_SET_TUPLE), bad);
	hc_set_free(s);
}

/*
 * hc_conf.sets: a full-length source (/32, /128) sets its kind's hash
 * bit, a shorter one its trie's; a program looks up only what is set.
 */
static void test_set_bits(void)
{
	static const struct {
		const char *lines[3];
		__u32 bits;
	} cases[] = {
		{ { "10.0.0.1 drop" }, HC_SET_HOST_BIT(HC_SET_SRC4) },
		{ { "10.0.0.0/24 drop" }, HC_SET_BIT(HC_SET_SRC4) },
		{ { "10.0.0.1/32 pass", "10.0.0.0/8 drop" },
		  HC_SET_BIT(HC_SET_SRC4) | HC_SET_HOST_BIT(HC_SET_SRC4) },
		{ { "2001:db8::1 drop", "udp 10.0.0.1:1 10.0.0.2:2 pass" },
		  HC_SET_HOST_BIT(HC_SET_SRC6) | HC_SET_BIT(HC_SET_TUPLE) },
		{ { "2001:db8::/127 drop" }, HC_SET_BIT(HC_SET_SRC6) },
	};
	unsigned int i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hc_set *s = hc_set_new();
		struct hc_set_entry e;
		__u32 dup, bits;

		for (j = 0; j < 3 && cases[i].lines[j]; j++)
			if (hc_set_entry_parse(cases[i].lines[j], &e, NULL) ||
			    hc_set_add(s, &e, &dup))
				break;
		bits = hc_set_bits(s);
		t_result(bits == cases[i].bits,
			 "set bits of '%s'%s: %#x (expected %#x)",
			 cases[i].lines[0], cases[i].lines[1] ? " ..." : "",
			 bits, cases[i].bits);
		hc_set_free(s);
	}
}

/* The order through the logic: rule, then tuple, then longest prefix. */
static void test_set_order(void)
{
	static const struct {
		const char *rule; /* NULL none */
		const char *entries[3];
		__u32 def, verdict;
	} order[] = {
		/* The default when nothing in the set matches. */
		{ NULL, { "10.0.0.0/8 pass" }, HC_DROP, HC_DROP },
		{ NULL, { "192.0.2.0/24 pass" }, HC_DROP, HC_PASS },
		{ NULL,
		  { "192.0.2.0/24 pass", "192.0.2.0/25 drop" },
		  HC_PASS,
		  HC_DROP },
		{ NULL,
		  { "192.0.0.0/16 drop", "192.0.2.1 pass" },
		  HC_DROP,
		  HC_PASS },
		{ NULL,
		  { "udp 192.0.2.1:1000 192.0.2.2:9 drop", "192.0.2.1 pass" },
		  HC_PASS,
		  HC_DROP },
		{ NULL,
		  { "udp 192.0.2.1:1000 192.0.2.2:10 drop", "192.0.2.1 pass" },
		  HC_DROP,
		  HC_PASS },
		{ "udp pass",
		  { "udp 192.0.2.1:1000 192.0.2.2:9 drop" },
		  HC_DROP,
		  HC_PASS },
		{ "tcp pass",
		  { "udp 192.0.2.1:1000 192.0.2.2:9 drop" },
		  HC_PASS,
		  HC_DROP },
		{ NULL, { "2001:db8::/32 drop" }, HC_PASS, HC_PASS },
		{ NULL, { "0.0.0.0/0 pass" }, HC_DROP, HC_PASS },
	};
	__u8 buf[FX_MAX_LEN];
	int len = fx_build(fx_find("udp4"), &fx_default_addrs, buf);
	unsigned int i, j;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct hc_conf c = { .parse = HC_PARSE_L4,
				     .def_verdict = order[i].def };
		struct hc_set *s = hc_set_new();
		struct hc_set_entry e;
		__u32 cls, v, dup;

		if (order[i].rule &&
		    !hc_rule_parse(order[i].rule, c.rules, NULL))
			c.nr_rules = 1;
		for (j = 0; j < 3 && order[i].entries[j]; j++)
			if (!hc_set_entry_parse(order[i].entries[j], &e, NULL))
				hc_set_add(s, &e, &dup);
		c.sets = hc_set_bits(s);
		v = hc_user_run_set(buf, len, &c, s, &cls);
		CHECK_EQ(v, order[i].verdict, "set order: %s%s%s%s on udp4",
			 order[i].rule ?: "", order[i].rule ? "; " : "",
			 order[i].entries[0],
			 order[i].entries[1] ? ", ..." : "");
		hc_set_free(s);
	}
}

/* --hit-rate's values: a fraction or a percent, in lowest terms. */
static void test_srcs_rate(void)
{
	static const struct {
		const char *arg;
		int ret;
		__u32 p, q;
	} rates[] = {
		{ "0.25", 0, 1, 4 },	  { "25%", 0, 1, 4 },
		{ "12.5%", 0, 1, 8 },	  { "1", 0, 1, 1 },
		{ "0", 0, 0, 1 },	  { "100%", 0, 1, 1 },
		{ ".5", 0, 1, 2 },	  { "0.000001", 0, 1, 1000000 },
		{ "1.5", -ERANGE },	  { "101%", -ERANGE },
		{ "0.1234567", -ERANGE }, { "", -EINVAL },
		{ "-0.1", -EINVAL },	  { "25%%", -EINVAL },
		{ "0.2.5", -EINVAL },	  { "%", -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		__u32 p = 7, q = 7;
		int ret = hc_srcs_rate(rates[i].arg, &p, &q);
		bool ok = ret == rates[i].ret &&
			  (ret || (p == rates[i].p && q == rates[i].q));

		if (!ok)
			printf("  expected %d %u/%u, got %d %u/%u\n",
			       rates[i].ret, rates[i].p, rates[i].q, ret, p, q);
		t_result(ok, "--hit-rate '%s'", rates[i].arg);
	}
}

/* The hits among the first C frames: round(C * p / q), halves up. */
static void test_srcs_hits(void)
{
	static const __u32 pq[][2] = { { 1, 4 },      { 1, 3 }, { 2, 3 },
				       { 1, 1 },      { 0, 1 }, { 1, 8 },
				       { 3, 1000000 } };
	unsigned int i, bad = 0;
	__u64 c, want;

	for (i = 0; i < sizeof(pq) / sizeof(pq[0]); i++) {
		for (c = 0; c < 3 * pq[i][1] && c < 100000; c++) {
			want = (2 * c * pq[i][0] + pq[i][1]) / (2 * pq[i][1]);
			if (hc_srcs_hits(c, pq[i][0], pq[i][1]) != want &&
			    !bad++)
				printf("  %llu frames at %u/%u: %llu hits, want %llu\n",
				       (unsigned long long)c, pq[i][0],
				       pq[i][1],
				       (unsigned long long)hc_srcs_hits(
					       c, pq[i][0], pq[i][1]),
				       (unsigned long long)want);
		}
		/* Far past where c * p would overflow 64 bits. */
		c = (1ull << 62) + 12345;
		if (hc_srcs_hits(c + pq[i][1], pq[i][0], pq[i][1]) !=
			    hc_srcs_hits(c, pq[i][0], pq[i][1]) + pq[i][0] &&
		    !bad++)
			printf("  %u/%u: not periodic at 2^62\n", pq[i][0],
			       pq[i][1]);
	}
	CHECK_EQ(hc_srcs_hits(20001, 1, 4), 5000, "srcs: round(20001 / 4)");
	CHECK_EQ(hc_srcs_hits(2, 1, 4), 1, "srcs: round(0.5) is 1");
	t_result(!bad, "srcs: hits of C frames are round(C * p / q)");
}

/* Which of the n prefixes of e (none nested) holds a, or -1. */
static int srcs_prefix(const struct hc_set_entry *e, __u32 n, bool ipv6,
		       const __u8 *a)
{
	__u32 i, b, alen = ipv6 ? 16 : 4;

	for (i = 0; i < n; i++) {
		const __u8 *pre = (const __u8 *)e[i].t.saddr;

		if (e[i].kind != (ipv6 ? HC_SET_SRC6 : HC_SET_SRC4))
			continue;
		for (b = 0; b < e[i].plen && b < alen * 8; b++)
			if ((pre[b / 8] ^ a[b / 8]) & (0x80 >> (b % 8)))
				break;
		if (b == e[i].plen)
			return i;
	}
	return -1;
}

/*
 * The sources gen draws: each hit inside a prefix of the frames'
 * family, every prefix hit, the hits where the rule says; each miss
 * outside the set and near --src.
 */
static void test_srcs_draw(void)
{
	static const __u32 pq[][2] = { { 1, 4 }, { 1, 3 }, { 0, 1 }, { 1, 1 } };
	struct hc_set *s = hc_set_new();
	struct hc_set_entry e;
	const struct hc_set_entry *all;
	struct in_addr near4;
	struct in6_addr near6;
	struct hc_err err = {};
	char line[64];
	__u32 i, k, n, dup, f;

	/* 300 IPv4 prefixes of many lengths, 200 IPv6, and a tuple. */
	for (i = 0; i < 300; i++) {
		snprintf(line, sizeof(line), "10.%u.%u.%u/%u drop", i / 8,
			 (i % 8) * 32, 0, 19 + i % 14);
		if (hc_set_entry_parse(line, &e, NULL) ||
		    hc_set_add(s, &e, &dup))
			t_result(false, "srcs: set line %s", line);
	}
	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "2001:db8:%x::/%u pass", i,
			 48 + i % 81);
		if (hc_set_entry_parse(line, &e, NULL) ||
		    hc_set_add(s, &e, &dup))
			t_result(false, "srcs: set line %s", line);
	}
	/* Half of --src's neighbourhood, where misses are drawn, is inside. */
	hc_set_entry_parse("198.18.128.0/17 drop", &e, NULL);
	hc_set_add(s, &e, &dup);
	hc_set_entry_parse("2001:2::8000:0/97 drop", &e, NULL);
	hc_set_add(s, &e, &dup);
	hc_set_entry_parse("udp 198.18.0.1:1024 198.18.0.2:9 drop", &e, NULL);
	hc_set_add(s, &e, &dup);
	all = hc_set_entries(s, &n);
	inet_pton(AF_INET, "198.18.0.1", &near4);
	inet_pton(AF_INET6, "2001:2::1", &near6);

	for (f = 0; f < 2; f++) {
		bool ipv6 = f;
		__u32 np = ipv6 ? 201 : 301;

		for (i = 0; i < sizeof(pq) / sizeof(pq[0]); i++) {
			__u32 p = pq[i][0], q = pq[i][1], bad_hit = 0;
			__u32 bad_miss = 0, bad_rule = 0, used = 0, hits = 0;
			char seen[512] = {}; /* by entry: 501 */
			struct hc_srcs d;
			int j, ret;

			ret = hc_srcs_draw(&d, s, ipv6,
					   ipv6 ? (void *)&near6 :
						  (void *)&near4,
					   p, q, 1, &err);
			if (!CHECK_EQ(ret, 0, "srcs: IPv%d at %u/%u drawn",
				      ipv6 ? 6 : 4, p, q))
				continue;
			for (k = 0; k < d.n; k++) {
				bool hit = hc_srcs_hits(k + 1, p, q) >
					   hc_srcs_hits(k, p, q);
				const __u8 *a = d.addr[k];

				j = srcs_prefix(all, n, ipv6, a);
				if (hit) {
					hits++;
					if (j < 0)
						bad_hit++;
					else if (!seen[j]++)
						used++;
				} else if (j >= 0 ||
					   memcmp(a,
						  ipv6 ? (void *)&near6 :
							 (void *)&near4,
						  ipv6 ? 12 : 2)) {
					bad_miss++;
				}
			}
			/* The first C frames hold round(C * p / q) hits. */
			for (k = 0; k <= 2 * d.n; k += 37) {
				__u32 c = 0, x;

				for (x = 0; x < k; x++)
					c += hc_srcs_hits(x % d.n + 1, p, q) >
					     hc_srcs_hits(x % d.n, p, q);
				if (c != hc_srcs_hits(k, p, q))
					bad_rule++;
			}
			CHECK_EQ(bad_hit, 0,
				 "srcs: IPv%d at %u/%u: every hit in a prefix",
				 ipv6 ? 6 : 4, p, q);
			CHECK_EQ(
				bad_miss, 0,
				"srcs: IPv%d at %u/%u: every miss outside, near --src",
				ipv6 ? 6 : 4, p, q);
			CHECK_EQ(
				bad_rule, 0,
				"srcs: IPv%d at %u/%u: the table's hits follow the rule",
				ipv6 ? 6 : 4, p, q);
			CHECK_EQ(hits, d.hits, "srcs: IPv%d at %u/%u: hits",
				 ipv6 ? 6 : 4, p, q);
			CHECK_EQ(used, p ? np : 0,
				 "srcs: IPv%d at %u/%u: every prefix hit",
				 ipv6 ? 6 : 4, p, q);
			CHECK_EQ(d.prefixes, used,
				 "srcs: IPv%d at %u/%u: prefixes said",
				 ipv6 ? 6 : 4, p, q);
			CHECK_EQ(d.n % q, 0,
				 "srcs: IPv%d at %u/%u: whole periods",
				 ipv6 ? 6 : 4, p, q);
			hc_srcs_free(&d);
		}
	}
	hc_set_free(s);

	/* No prefix of the family; no miss near --src. */
	s = hc_set_new();
	hc_set_entry_parse("198.16.0.0/14 drop", &e, NULL);
	hc_set_add(s, &e, &dup);
	struct hc_srcs d;

	CHECK_EQ(hc_srcs_draw(&d, s, true, &near6, 1, 4, 1, &err), -ENOENT,
		 "srcs: hits without an IPv6 prefix refused");
	CHECK_EQ(hc_srcs_draw(&d, s, false, &near4, 1, 4, 1, &err), -EADDRINUSE,
		 "srcs: --src inside the set refused (%s)", err.msg);
	hc_set_free(s);
}

/* hc_exec_script's writer: a shell script, or a writer that fails. */
static int exec_script_write(FILE *f, void *arg)
{
	const char *text = arg;

	if (!text)
		return -ENOSPC;
	fputs(text, f);
	return 0;
}

/*
 * hc_exec_script: the tool runs its script, from memory on its stdin
 * (/dev/stdin its file); a writer's error and the tool's are said.
 */
static void test_exec_script(void)
{
	static const char *const sh[] = { "sh", NULL };
	static const char *const many[] = { "a", "b", "c", "d", "e",
					    "f", "g", "h", "i", NULL };
	char out[] = "/tmp/hc-test-exec-XXXXXX", script[256], file[256] = "";
	struct hc_err err = {};
	FILE *f;
	int fd, ret;

	fd = mkstemp(out);
	if (!t_result(fd >= 0, "exec script: a file for its output"))
		return;
	close(fd);
	/* sh FILE: $0 is the script's file */
	snprintf(script, sizeof(script), "echo \"$0\" >%s\n", out);
	ret = hc_exec_script(-1, sh, exec_script_write, script, &err);
	CHECK_EQ(ret, 0, "exec script: runs (%s)", err.msg);
	f = fopen(out, "r");
	if (f) {
		if (!fgets(file, sizeof(file), f))
			file[0] = '\0';
		fclose(f);
	}
	file[strcspn(file, "\n")] = '\0';
	/* from memory on its stdin: no file of it anywhere to leave */
	t_result(!strcmp(file, "/dev/stdin"),
		 "exec script: its file is /dev/stdin ('%s')", file);

	ret = hc_exec_script(-1, sh, exec_script_write, "exit 3\n", &err);
	CHECK_EQ(ret, -EIO, "exec script: the tool's failure");
	t_result(strstr(err.msg, "sh failed (exit 3)") != NULL,
		 "exec script: said ('%s')", err.msg);

	err.msg[0] = '\0';
	ret = hc_exec_script(-1, sh, exec_script_write, NULL, &err);
	CHECK_EQ(ret, -ENOSPC, "exec script: the writer's failure");
	t_result(!strcmp(err.msg, "sh: writing its script: No space left on device"),
		 "exec script: said ('%s')", err.msg);

	CHECK_EQ(hc_exec_script(-1, many, exec_script_write, "", &err), -E2BIG,
		 "exec script: more arguments than it holds");
	unlink(out);
}

static const struct {
	const char *name;
	__u8 proto;
	bool ipv6;
	__u16 vlan, sport;
	__u32 size, flows;
	__u32 sends[2]; /* two calls, one after the other */
} gen_flows[] = {
	/* more flows than a batch (64): the second call goes on */
	{ "udp4, 100 flows", 17, false, 0, 1024, 60, 100, { 70, 90 } },
	/* the port wraps within 16 bits, 65535 to 0 */
	{ "udp6, 65536 flows", 17, true, 0, 65500, 90, 65536, { 30, 50 } },
	{ "tcp4 vlan, 3 flows", 6, false, 7, 80, 64, 3, { 5, 64 } },
	{ "icmp4, 5 flows", 1, false, 0, 1024, 60, 5, { 7, 9 } },
	{ "icmp6, 7 flows", 1, true, 0, 1024, 1514, 7, { 3, 8 } },
	{ "udp4, 1 flow", 17, false, 0, 2000, 60, 1, { 65, 2 } },
};

/*
 * AF_PACKET's frames over several flows (packet_send), through a stream
 * socket in the AF_PACKET socket's place: frame n of the calls, one after
 * the other, carries the first port (ICMP: echo id) plus n mod flows,
 * with a valid L4 checksum; a new number of flows starts again.
 */
static void test_gen_flows(void)
{
	static __u8 buf[200 * HC_PKT_STD];
	unsigned int i, k;

	for (i = 0; i < sizeof(gen_flows) / sizeof(gen_flows[0]); i++) {
		const typeof(gen_flows[0]) *c = &gen_flows[i];
		struct hc_pkt_spec spec = { .proto = c->proto,
					    .ipv6 = c->ipv6,
					    .vlan = c->vlan,
					    .sport = c->sport,
					    .dport = 9,
					    .size = c->size };
		__u32 n = c->sends[0] + c->sends[1], bad_port = 0, bad_sum = 0;
		__u64 sent[2] = {};
		struct hc_gen g;
		int sv[2], ret;
		size_t got = 0;
		ssize_t r;

		inet_pton(AF_INET, "198.18.0.1", &spec.src4);
		inet_pton(AF_INET, "198.18.0.2", &spec.dst4);
		inet_pton(AF_INET6, "2001:2::1", &spec.src6);
		inet_pton(AF_INET6, "2001:2::2", &spec.dst6);
		memset(&g, 0, sizeof(g));
		g.prog_fd = g.drop_fd = g.stage_ns = -1;
		g.method = HC_GEN_PACKET;
		if (!t_result(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv),
			      "gen flows %s: socketpair", c->name))
			continue;
		g.sock_fd = sv[0];
		/* a frame first, as bench sets a row's before its flows */
		ret = hc_gen_set_frame(&g, &spec)			   ?:
			      hc_gen_set_flows(&g, 1)			   ?:
			      hc_gen_send(&g, 3, &sent[0], NULL)	   ?:
			      hc_gen_set_flows(&g, c->flows)		   ?:
			      hc_gen_send(&g, c->sends[0], &sent[0], NULL) ?:
			      hc_gen_send(&g, c->sends[1], &sent[1], NULL);
		CHECK_EQ(ret, 0, "gen flows %s: sent", c->name);
		n += 3;
		while (!ret && got < n * g.lo.len &&
		       (r = read(sv[1], buf + got, n * g.lo.len - got)) > 0)
			got += r;
		for (k = 0; !ret && got == n * g.lo.len && k < n; k++) {
			const __u8 *f = buf + k * g.lo.len;
			__u32 flow = k < 3 ? 0 : (k - 3) % c->flows;
			__u16 port;

			memcpy(&port, f + g.lo.l4_off + (c->proto == 1 ? 4 : 0),
			       2);
			bad_port +=
				ntohs(port) !=
				(__u16)((c->proto == 1 ? 0x4843 : c->sport) +
					flow);
			bad_sum += !fx_l4_csum_ok(f, &g.lo, c->ipv6, c->proto);
		}
		t_result(
			!ret && got == n * g.lo.len && !bad_port && !bad_sum &&
				sent[0] == c->sends[0] &&
				sent[1] == c->sends[1],
			"gen flows %s: %u frames over two calls, the ports in turn (%u wrong), valid checksums (%u wrong)",
			c->name, n, bad_port, bad_sum);
		hc_gen_close(&g);
		close(sv[1]);
	}
}

/* What an open generator refuses: too many flows, or any with raw. */
static void test_gen_flows_bounds(void)
{
	struct hc_gen g;
	int a, b, c;

	memset(&g, 0, sizeof(g));
	g.prog_fd = g.drop_fd = g.sock_fd = g.stage_ns = -1;
	a = hc_gen_set_flows(&g, HC_GEN_FLOWS_MAX + 1);
	b = hc_gen_set_flows(&g, 0) ?: (int)g.flows;
	g.raw = true;
	c = hc_gen_set_flows(&g, 2);
	t_result(
		a == -EINVAL && b == 1 && c == -EINVAL &&
			!hc_gen_set_flows(&g, 1),
		"gen flows: %u refused (%d), 0 is 1 (%d), raw takes one only (%d)",
		HC_GEN_FLOWS_MAX + 1, a, b, c);
}

int main(void)
{
	test_hooks();
	test_numbers();
	test_json_strings();
	test_printer_table();
	test_text_printf();
	test_journal_records();
	test_classify();
	test_parse_none_reads_nothing();
	test_start_points();
	test_rule_parser();
	test_rule_fields();
	test_verdicts();
	test_truncations();
	test_set_parser();
	test_set_lookup();
	test_set_tuples();
	test_set_bits();
	test_set_order();
	test_srcs_rate();
	test_srcs_hits();
	test_srcs_draw();
	test_exec_script();
	test_gen_flows();
	test_gen_flows_bounds();
	return t_failed ? 1 : 0;
}
