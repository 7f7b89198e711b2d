// SPDX-License-Identifier: GPL-2.0
/* The rule set: its file format, its userspace index, its BPF maps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rules.h"
#include "set.h"

const char *const hc_set_kind_names[] = { "tuple", "src4", "src6", NULL };
static const char *const map_names[] = HC_SET_MAP_NAMES;

#define MAX_LENS 129 /* prefix lengths 0 to 128 */

/* Open addressing, at most half full: a slot holds an entry's index + 1. */
struct tab {
	__u32 cap; /* a power of two, or 0 */
	__u32 n;
	__u32 *slot;
};

/*
 * The userspace index: per kind, a table per prefix length (a tuple's
 * at 0), keyed by the entry's struct hc_tuple with the address masked
 * to that length; a lookup tries the lengths present, longest first.
 */
struct hc_set {
	struct hc_set_entry *e;
	__u32 n, size;
	__u32 count[HC_NR_SET_KINDS];
	struct tab tab[HC_NR_SET_KINDS][MAX_LENS];
	__u8 lens[HC_NR_SET_KINDS][MAX_LENS];
	__u32 nlens[HC_NR_SET_KINDS];
};

struct hc_set *hc_set_new(void)
{
	return calloc(1, sizeof(struct hc_set));
}

void hc_set_free(struct hc_set *s)
{
	int k, l;

	if (!s)
		return;
	for (k = 0; k < HC_NR_SET_KINDS; k++)
		for (l = 0; l < MAX_LENS; l++)
			free(s->tab[k][l].slot);
	free(s->e);
	free(s);
}

const struct hc_set_entry *hc_set_entries(const struct hc_set *s, __u32 *n)
{
	*n = s ? s->n : 0;
	return s ? s->e : NULL;
}

__u32 hc_set_count(const struct hc_set *s, enum hc_set_kind kind)
{
	return s ? s->count[kind] : 0;
}

/* A source kind's full-length prefixes: in the BPF builds' hash. */
static __u32 hosts(const struct hc_set *s, int kind)
{
	if (!s || kind == HC_SET_TUPLE)
		return 0;
	return s->tab[kind][kind == HC_SET_SRC4 ? 32 : 128].n;
}

__u32 hc_set_bits(const struct hc_set *s)
{
	__u32 bits = 0;
	int k;

	for (k = 0; k < HC_NR_SET_KINDS; k++) {
		if (hc_set_count(s, k) > hosts(s, k))
			bits |= HC_SET_BIT(k);
		if (hosts(s, k))
			bits |= HC_SET_HOST_BIT(k);
	}
	return bits;
}

enum hc_parse hc_set_depth(const struct hc_set *s)
{
	if (hc_set_count(s, HC_SET_TUPLE))
		return HC_PARSE_L4;
	if (hc_set_count(s, HC_SET_SRC4) || hc_set_count(s, HC_SET_SRC6))
		return HC_PARSE_L3;
	return HC_PARSE_NONE;
}

static __u32 hash(const struct hc_tuple *t)
{
	__u32 w[sizeof(*t) / 4];
	__u64 h = 0x9e3779b97f4a7c15ull;
	size_t i;

	memcpy(w, t, sizeof(w));
	for (i = 0; i < sizeof(w) / 4; i++) {
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	return h ^ h >> 32;
}

static void mask_addr(__u32 *a, int plen)
{
	int i;

	for (i = 0; i < 4; i++) {
		int n = plen - 32 * i;

		a[i] &= htonl(n >= 32 ? ~0u : n <= 0 ? 0 : ~0u << (32 - n));
	}
}

/* k's slot in t: its entry's, or the empty one where it would go. */
static __u32 *find_slot(const struct hc_set *s, const struct tab *t,
			const struct hc_tuple *k)
{
	__u32 i = hash(k) & (t->cap - 1);

	for (;; i = (i + 1) & (t->cap - 1)) {
		__u32 x = t->slot[i];

		if (!x || !memcmp(&s->e[x - 1].t, k, sizeof(*k)))
			return &t->slot[i];
	}
}

static int grow(struct hc_set *s, struct tab *t)
{
	struct tab old = *t;
	__u32 i;

	t->cap = old.cap ? old.cap * 2 : 16;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	if (!t->slot) {
		*t = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++)
		if (old.slot[i])
			*find_slot(s, t, &s->e[old.slot[i] - 1].t) =
				old.slot[i];
	free(old.slot);
	return 0;
}

int hc_set_add(struct hc_set *s, const struct hc_set_entry *e, __u32 *dup)
{
	struct tab *t = &s->tab[e->kind][e->kind == HC_SET_TUPLE ? 0 : e->plen];
	__u32 *slot, i;

	if (s->n >= HC_SET_MAX)
		return -E2BIG;
	if (s->n == s->size) {
		__u32 size = s->size ? s->size * 2 : 1024;
		void *p = realloc(s->e, size * sizeof(*s->e));

		if (!p)
			return -ENOMEM;
		s->e = p;
		s->size = size;
	}
	if ((t->n + 1) * 2 > t->cap && grow(s, t))
		return -ENOMEM;
	slot = find_slot(s, t, &e->t);
	if (*slot) {
		*dup = s->e[*slot - 1].line;
		return -EEXIST;
	}
	s->e[s->n++] = *e;
	*slot = s->n;
	s->count[e->kind]++;
	if (t->n++ || e->kind == HC_SET_TUPLE)
		return 0;
	/* A length new to its kind: into the list, longest first. */
	for (i = s->nlens[e->kind]++; i && s->lens[e->kind][i - 1] < e->plen;
	     i--)
		s->lens[e->kind][i] = s->lens[e->kind][i - 1];
	s->lens[e->kind][i] = e->plen;
	return 0;
}

static int verdict_of(const struct hc_set *s, const struct tab *t,
		      const struct hc_tuple *k)
{
	__u32 *slot;

	if (!t->cap)
		return -1;
	slot = find_slot(s, t, k);
	return *slot ? s->e[*slot - 1].verdict : -1;
}

int hc_set_lookup(const struct hc_set *s, __u32 kind, const void *key)
{
	struct hc_tuple k = {};
	__u32 i;
	int v;

	if (!s || kind >= HC_NR_SET_KINDS)
		return -1;
	if (kind == HC_SET_TUPLE)
		return verdict_of(s, &s->tab[kind][0], key);
	if (kind == HC_SET_SRC4) {
		k.family = 4;
		k.saddr[0] = ((const struct hc_lpm4 *)key)->addr;
	} else {
		k.family = 6;
		memcpy(k.saddr, ((const struct hc_lpm6 *)key)->addr,
		       sizeof(k.saddr));
	}
	for (i = 0; i < s->nlens[kind]; i++) {
		struct hc_tuple m = k;
		int plen = s->lens[kind][i];

		mask_addr(m.saddr, plen);
		v = verdict_of(s, &s->tab[kind][plen], &m);
		if (v >= 0)
			return v;
	}
	return -1;
}

/* ---- the file format (set.h) ---- */

#define MAX_WORDS 5 /* a tuple's four, and one to say there are more */

/* w[i], the last word: the verdict, and nothing after it. */
static int parse_verdict(char **w, int n, int i, struct hc_set_entry *e,
			 struct hc_err *err)
{
	int v;

	if (i >= n)
		HC_PARSE_FAIL(
			"expected 'drop' or 'pass' after '%s', found the end of the line",
			w[i - 1]);
	v = hc_verdict_of(w[i]);
	if (v == HC_REDIRECT)
		HC_PARSE_FAIL(
			"expected 'drop' or 'pass', found 'redirect': a set entry does not redirect (a --rule can)");
	if (v < 0)
		HC_PARSE_FAIL(
			"expected 'drop' or 'pass' after '%s', found '%s'",
			w[i - 1], w[i]);
	if (i + 1 < n)
		HC_PARSE_FAIL(
			"expected the end of the line after '%s', found '%s'",
			w[i], w[i + 1]);
	e->verdict = v;
	return 0;
}

/* ADDR:PORT or [ADDR6]:PORT: the family, or 0. */
static int parse_endpoint(const char *s, __u32 *addr, __u16 *port)
{
	const char *end, *p;
	char buf[64];
	int family;
	__u64 v;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			return 0;
		s++;
		p = end + 2;
		family = 6;
	} else {
		end = strrchr(s, ':');
		if (!end)
			return 0;
		p = end + 1;
		family = 4;
	}
	if ((size_t)(end - s) >= sizeof(buf))
		return 0;
	memcpy(buf, s, end - s);
	buf[end - s] = '\0';
	if (inet_pton(family == 4 ? AF_INET : AF_INET6, buf, addr) != 1 ||
	    hc_parse_uint(p, 0, 0, 65535, &v))
		return 0;
	*port = v;
	return family;
}

static int parse_tuple(char **w, int n, struct hc_set_entry *e,
		       struct hc_err *err)
{
	static const char *const ends[] = { "source", "destination" };
	struct hc_tuple *t = &e->t;
	int i, f[2];

	e->kind = HC_SET_TUPLE;
	t->proto = w[0][0] == 'u' ? 17 : 6;
	for (i = 0; i < 2; i++) {
		if (1 + i >= n)
			HC_PARSE_FAIL(
				"expected the %s as ADDR:PORT (10.0.0.1:53 or [2001:db8::1]:53) after '%s', found the end of the line",
				ends[i], w[i]);
		f[i] = parse_endpoint(w[1 + i], i ? t->daddr : t->saddr,
				      i ? &t->dport : &t->sport);
		if (!f[i])
			HC_PARSE_FAIL(
				"expected the %s as ADDR:PORT (10.0.0.1:53 or [2001:db8::1]:53), found '%s'",
				ends[i], w[1 + i]);
	}
	if (f[0] != f[1])
		HC_PARSE_FAIL(
			"expected the destination '%s' in IPv%d as the source is, found IPv%d",
			w[2], f[0], f[1]);
	t->family = f[0];
	e->plen = f[0] == 4 ? 32 : 128;
	return parse_verdict(w, n, 3, e, err);
}

int hc_set_entry_parse(const char *line, struct hc_set_entry *e,
		       struct hc_err *err)
{
	char buf[512], *w[MAX_WORDS], *save = NULL, *c;
	struct hc_prefix pf;
	int n = 0, i = 0, f, host_bits = 0;

	memset(e, 0, sizeof(*e));
	if (strlen(line) >= sizeof(buf))
		HC_PARSE_FAIL(
			"expected a line of at most %zu characters, found %zu",
			sizeof(buf) - 1, strlen(line));
	snprintf(buf, sizeof(buf), "%s", line);
	c = strchr(buf, '#');
	if (c)
		*c = '\0';
	for (c = strtok_r(buf, " \t\r\n", &save); c && n < MAX_WORDS;
	     c = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = c;
	if (!n)
		return 1;
	if (!strcmp(w[0], "udp") || !strcmp(w[0], "tcp"))
		return parse_tuple(w, n, e, err);
	if (!strcmp(w[0], "src") && ++i >= n)
		HC_PARSE_FAIL(
			"expected a prefix after 'src', found the end of the line");
	f = hc_prefix_parse(w[i], &pf, &host_bits);
	if (!f)
		HC_PARSE_FAIL(
			"expected a source prefix (10.0.0.0/8, 2001:db8::/32) or 'udp' or 'tcp', found '%s'",
			w[i]);
	if (host_bits)
		HC_PARSE_FAIL(
			"expected a prefix without host bits beyond its length, found '%s'",
			w[i]);
	e->kind = f == 4 ? HC_SET_SRC4 : HC_SET_SRC6;
	e->t.family = f;
	memcpy(e->t.saddr, pf.addr, sizeof(pf.addr));
	for (f = 0; f < 4; f++)
		e->plen += __builtin_popcount(pf.mask[f]);
	return parse_verdict(w, n, i + 1, e, err);
}

int hc_set_read(struct hc_set *s, const char *path, struct hc_err *err)
{
	struct hc_set_entry e;
	struct hc_err lerr = {};
	__u32 lineno = 0, dup;
	size_t size = 0, total = 0;
	char *line = NULL;
	ssize_t n;
	int fd = hc_input_open(path, err), ret = 0;
	FILE *f;

	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		hc_err_set(err, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	while ((errno = 0, n = getline(&line, &size, f)) >= 0) {
		lineno++;
		total += n;
		if (total > HC_INPUT_MAX) {
			hc_err_set(err, "%s:%u: grew past the limit of %lu MiB while read",
				   path, lineno, HC_INPUT_MAX >> 20);
			ret = -EFBIG;
			break;
		}
		if (strlen(line) != (size_t)n) {
			hc_err_set(err, "%s:%u: expected text, found a NUL byte at column %zu",
				   path, lineno, strlen(line) + 1);
			ret = -EINVAL;
			break;
		}
		ret = hc_set_entry_parse(line, &e, &lerr);
		if (ret == 1) {
			ret = 0;
			continue;
		}
		if (ret) {
			hc_err_set(err, "%s:%u: %s", path, lineno, lerr.msg);
			break;
		}
		e.line = lineno;
		ret = hc_set_add(s, &e, &dup);
		if (ret == -EEXIST) {
			line[strcspn(line, "\r\n")] = '\0';
			hc_err_set(
				err,
				"%s:%u: expected a new entry, found '%s', given on line %u already",
				path, lineno, line, dup);
			ret = -EINVAL;
		} else if (ret == -E2BIG) {
			hc_err_set(err, "%s:%u: more than %u entries", path,
				   lineno, HC_SET_MAX);
		} else if (ret) {
			hc_err_set(err, "%s:%u: %s", path, lineno,
				   strerror(-ret));
		}
		if (ret)
			break;
	}
	/* getline's -1 is the end or an error: only feof tells which. */
	if (!ret && !feof(f)) {
		ret = -(errno ?: EIO);
		hc_err_set(err, "%s: read error after line %u: %s", path,
			   lineno, strerror(-ret));
	}
	free(line);
	fclose(f);
	return ret;
}

/* ---- the BPF maps (progs/hc_bpf.h) ---- */

/* map_names' index of e's map. */
static int map_of(const struct hc_set_entry *e)
{
	if (e->kind == HC_SET_SRC4 && e->plen == 32)
		return HC_NR_SET_KINDS;
	if (e->kind == HC_SET_SRC6 && e->plen == 128)
		return HC_NR_SET_KINDS + 1;
	return e->kind;
}

#define NR_MAPS (HC_NR_SET_KINDS + 2)

int hc_set_size_maps(const struct hc_set *s, struct bpf_object *obj)
{
	__u32 n[NR_MAPS] = {}, i;
	struct bpf_map *m;
	int k, err;

	for (i = 0; s && i < s->n; i++)
		n[map_of(&s->e[i])]++;
	for (k = 0; k < NR_MAPS; k++) {
		m = bpf_object__find_map_by_name(obj, map_names[k]);
		if (!m)
			continue;
		err = bpf_map__set_max_entries(m, n[k] ?: 1);
		if (err)
			return err;
	}
	return 0;
}

int hc_set_fill_maps(const struct hc_set *s, struct bpf_object *obj)
{
	int fd[NR_MAPS], k;
	__u32 i;

	if (!s)
		return 0;
	for (k = 0; k < NR_MAPS; k++) {
		struct bpf_map *m =
			bpf_object__find_map_by_name(obj, map_names[k]);

		fd[k] = m ? bpf_map__fd(m) : -1;
	}
	/* No maps: the program leaves the logic to userspace (xsk). */
	for (i = 0; i < s->n; i++) {
		const struct hc_set_entry *e = &s->e[i];
		struct hc_lpm4 k4 = { e->plen, e->t.saddr[0] };
		struct hc_lpm6 k6 = { .prefixlen = e->plen };
		const void *key = e->kind == HC_SET_TUPLE ? (void *)&e->t :
				  e->kind == HC_SET_SRC4  ? (void *)&k4 :
							    (void *)&k6;
		__u32 v = e->verdict;
		int m = map_of(e);

		if (fd[m] < 0)
			continue;
		memcpy(k6.addr, e->t.saddr, sizeof(k6.addr));
		/* The hashes' keys: the address alone. */
		if (m >= HC_NR_SET_KINDS)
			key = e->t.saddr;
		if (bpf_map_update_elem(fd[m], key, &v, BPF_NOEXIST))
			return -errno;
	}
	return 0;
}
