// SPDX-License-Identifier: GPL-2.0
/*
 * scale: each mechanism with a set of N source prefixes that the
 * traffic never hits (--sizes; 1 to 100,000 by default): how its cost
 * per packet, and the time to install the set, grow with N. The set's
 * addresses: scale.h. The BPF set's entries pass and the default drops:
 * a frame that hit one would pass, and its row, which must drop every
 * frame, would be INVALID. Hit rate 0 is checked, not assumed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "kind.h"
#include "opts.h"
#include "path.h"
#include "print.h"
#include "report.h"
#include "scale.h"
#include "scenario.h"
#include "set.h"
#include "summary.h"

#define SIZE_MAX_ENTRIES (1u << 20) /* the most entries a set gets */

/* --sizes LIST */
static struct bench_counts sizes = {
	.opt = "sizes",
	.what = "entry counts",
	.max = SIZE_MAX_ENTRIES,
	.def = (const __u32[]){ 1, 10, 100, 1000, 10000, 100000, 0 },
};

/* The BPF rows: the hook rows that take a set, and its mechanism's name. */
static const struct {
	const char *row, *mechanism;
} bpf_rows[] = {
	{ "xdp-native", "bpf-hash-xdp-native" },
	{ "tcx", "bpf-hash-tcx" },
};

/* The peers: a kind each, its rows built with bench_row_add. */
static const struct {
	const char *row, *mechanism;
	const struct bench_kind *kind;
	bool local; /* after ip_rcv: frames addressed to the DUT */
	bool linear; /* its cost grows with N: see LINEAR_MAX */
} peers[] = {
	{ "nft-set", "nft-set", &bench_kind_nft_set },
	{ "nft-hash", "nft-hash-set", &bench_kind_nft_hash },
	{ "nft-rules", "nft-rules", &bench_kind_nft_rules, false, true },
	{ "iptables-rules", "iptables-raw-rules", &bench_kind_ipt_rules, true,
	  true },
	{ "ipset", "iptables-ipset", &bench_kind_ipt_ipset, true },
	{ "flower", "tc-flower", &bench_kind_flower, false, true },
};

/*
 * Without --sizes, linear mechanisms stop here: 10,000 rules cost
 * 40-150 us a packet on the VM this was built on, 100,000 ten times
 * that, a minute per visit of one row. --sizes gives them any N.
 */
#define LINEAR_MAX 10000

/* Each size's set, built once and shared by its rows; held to the end. */
static struct hc_set *sets[BENCH_MAX_COUNTS];

static struct hc_set *set_of(__u32 n, bool hit)
{
	struct hc_set_entry e = { .kind = HC_SET_SRC4,
				  .verdict = HC_PASS,
				  .plen = 32,
				  .t.family = 4 };
	struct hc_set *s = hc_set_new();
	__u32 i, dup;

	for (i = 0; s && i < n; i++) {
		e.line = i + 1;
		e.t.saddr[0] = htonl(bench_set_addr(i, n, hit));
		if (hc_set_add(s, &e, &dup)) {
			hc_set_free(s);
			s = NULL;
		}
	}
	return s;
}

/* "10k" for 10000: short row names. */
static void size_name(char *buf, size_t size, __u32 n)
{
	if (n >= 1000 && !(n % 1000))
		snprintf(buf, size, "%uk", n / 1000);
	else
		snprintf(buf, size, "%u", n);
}

static void scale_build(struct bench_rows *rows)
{
	const __u32 *n;
	int nsizes = bench_counts(&sizes, &n), i, k;
	char first[16], name[16];
	struct hc_err err = {};
	bool hit = hc_fault(&err, "bench-scale-hit");

	size_name(first, sizeof(first), n[0]);
	for (k = 0; k < (int)(sizeof(bpf_rows) / sizeof(bpf_rows[0])); k++)
		for (i = 0; i < nsizes; i++) {
			struct bench_row *r;
			char suffix[24];

			size_name(name, sizeof(name), n[i]);
			snprintf(suffix, sizeof(suffix), "-set-%s", name);
			r = bench_row_hook(rows, bpf_rows[k].row, suffix);
			r->series = bpf_rows[k].mechanism;
			r->entries = n[i];
			r->hit = hit;
			bench_row_base(r, "%s-set-%s", bpf_rows[k].row, first);
			bench_row_path(r, "__htab_map_lookup_elem");
			if (!sets[i])
				sets[i] = set_of(n[i], hit);
			if (!sets[i]) {
				hc_err_set(&r->run.err,
					   "the set of %u prefixes: %s", n[i],
					   strerror(ENOMEM));
				r->run.hook = NULL;
				continue;
			}
			r->run.set = sets[i];
			r->run.conf.sets = hc_set_bits(sets[i]);
		}
	for (k = 0; k < (int)(sizeof(peers) / sizeof(peers[0])); k++)
		for (i = 0; i < nsizes; i++) {
			struct bench_row *r;
			char rname[40];

			if (peers[k].linear && !sizes.n && n[i] > LINEAR_MAX)
				continue;
			size_name(name, sizeof(name), n[i]);
			snprintf(rname, sizeof(rname), "%s-%s", peers[k].row,
				 name);
			r = bench_row_add(rows, rname, peers[k].kind);
			r->series = peers[k].mechanism;
			r->local = peers[k].local;
			r->entries = n[i];
			r->hit = hit;
			bench_row_base(r, "%s-%s", peers[k].row, first);
		}
}

/* Its set; --dev's traffic is not ours: no hit rate known. */
static void scale_row_json(struct hc_pr *p, const struct bench *b,
			   const struct bench_row *r)
{
	if (!r->series)
		return;
	hc_pr_str(p, HC_PR_JSON, "mechanism", NULL, 0, r->series);
	hc_pr_num(p, HC_PR_JSON, "entries", NULL, 0, 0, r->entries);
	hc_pr_num(p, HC_PR_JSON, "hit_rate", NULL, 0, 0, b->opt.dev ? NAN : 0);
	hc_pr_num(p, HC_PR_JSON, "load_ms", NULL, 0, 3, bench_load_ms(r));
}

static __u32 entries_of(const struct bench_row *r)
{
	return r->entries;
}

/* Each mechanism's growth with N, and its rows' load times. */
static void scale_report(struct hc_pr *p, const struct bench *b)
{
	static const struct bench_growth g = {
		.series = "mechanism",
		.n = "N",
		.per = "entry",
		.what = "a linear mechanism's cost of a rule",
		.load = "setup with N entries",
		.n_of = entries_of,
	};

	bench_growth_report(p, &b->rows, &b->res, &g);
}

const struct bench_scenario bench_scen_scale = {
	.name = "scale",
	.help = "N source addresses never hit, in a BPF set's hash (xdp-native, tcx), an nftables interval set and hash set, N nftables rules, N iptables raw rules, an ipset hash:net set matched in iptables raw, N tc flower filters (--sizes)",
	.baseline = "its smallest N",
	.build = scale_build,
	.opts = (const struct hc_opt[]){
		{ "sizes", 0, HC_OPT_FUNC, 0, "LIST",
		  "the set sizes, ascending (default 1,10,100,1k,10k,100k)",
		  .fn = bench_counts_parse, .flags = HC_OPT_LIST,
		  .cfg = &sizes },
		{} },
	.row_json = scale_row_json,
	.report = scale_report,
};
