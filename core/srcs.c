// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "set.h"
#include "srcs.h"

static __u32 gcd(__u32 a, __u32 b)
{
	while (b) {
		__u32 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int hc_srcs_rate(const char *arg, __u32 *p, __u32 *q)
{
	__u64 num = 0, den = 1;
	const char *c = arg;
	bool dot = false, digit = false;
	__u32 g;

	for (; *c && *c != '%'; c++) {
		if (*c == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*c < '0' || *c > '9')
			return -EINVAL;
		digit = true;
		/* Six decimals, then the table stays within HC_SRCS_MAX. */
		if (dot && den >= 1000000)
			return -ERANGE;
		num = num * 10 + (*c - '0');
		if (dot)
			den *= 10;
		if (num > 100000000)
			return -ERANGE;
	}
	if (!digit || (*c == '%' && c[1]))
		return -EINVAL;
	if (*c == '%')
		den *= 100;
	if (den > 1000000)
		return -ERANGE;
	if (num > den)
		return -ERANGE;
	g = gcd(num, den);
	*p = num / g;
	*q = den / g;
	return 0;
}

__u64 hc_srcs_hits(__u64 frames, __u32 p, __u32 q)
{
	/* Whole periods apart: frames * p would overflow past 2^44. */
	return frames / q * p + (frames % q * p + q / 2) / q;
}

/* splitmix64: small, and the same table from the same seed. */
static __u64 next_rand(__u64 *x)
{
	__u64 z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* addr with its bits past plen (of alen bytes) from r. */
static void host_bits(__u8 *addr, __u32 alen, __u32 plen, __u64 *r)
{
	__u32 i;

	for (i = 0; i < alen; i++) {
		__u8 keep =
			plen >= (i + 1) * 8 ? 0xff :
			plen <= i * 8	    ? 0 :
					(__u8)(0xff << (8 - (plen - i * 8)));

		addr[i] = (addr[i] & keep) | ((__u8)next_rand(r) & ~keep);
	}
}

static int in_set(const struct hc_set *s, bool ipv6, const __u8 *addr)
{
	struct hc_lpm4 k4 = { .prefixlen = 32 };
	struct hc_lpm6 k6 = { .prefixlen = 128 };

	if (ipv6) {
		memcpy(k6.addr, addr, 16);
		return hc_set_lookup(s, HC_SET_SRC6, &k6) >= 0;
	}
	memcpy(&k4.addr, addr, 4);
	return hc_set_lookup(s, HC_SET_SRC4, &k4) >= 0;
}

int hc_srcs_draw(struct hc_srcs *d, const struct hc_set *s, bool ipv6,
		 const void *near, __u32 p, __u32 q, __u64 seed,
		 struct hc_err *err)
{
	__u32 kind = ipv6 ? HC_SET_SRC6 : HC_SET_SRC4, alen = ipv6 ? 16 : 4;
	const struct hc_set_entry *e;
	__u32 ne = 0, np = 0, i, j, k, h = 0, want, m, stride;
	const struct hc_set_entry **pre = NULL;
	char buf[INET6_ADDRSTRLEN];

	memset(d, 0, sizeof(*d));
	e = hc_set_entries(s, &ne);
	pre = calloc(ne ? ne : 1, sizeof(*pre));
	if (!pre)
		return -ENOMEM;
	for (i = 0; i < ne; i++)
		if (e[i].kind == kind)
			pre[np++] = &e[i];
	if (p && !np) {
		free(pre);
		hc_err_set(
			err,
			"the set has no IPv%d source prefix for the hits of --hit-rate",
			ipv6 ? 6 : 4);
		return -ENOENT;
	}
	/* Enough periods for every prefix (up to the spread) to be hit. */
	want = np < HC_SRCS_SPREAD ? np : HC_SRCS_SPREAD;
	m = p ? (want + p - 1) / p : (want + q - 1) / q;
	if (!m)
		m = 1;
	while (m > 1 && (__u64)m * q > HC_SRCS_MAX)
		m--;
	d->n = m * q;
	d->p = p;
	d->q = q;
	d->ipv6 = ipv6;
	d->addr = calloc(d->n, sizeof(*d->addr));
	if (!d->addr) {
		free(pre);
		return -ENOMEM;
	}
	/* A stride prime to np, near its golden section: far apart. */
	stride = np > 2 ? np * 618 / 1000 : 1;
	while (np && gcd(stride, np) != 1)
		stride++;
	for (k = 0; k < d->n; k++) {
		__u8 *a = d->addr[k];

		if (hc_srcs_hits(k + 1, p, q) > hc_srcs_hits(k, p, q)) {
			j = (__u32)((__u64)h++ * stride % np);
			memcpy(a, pre[j]->t.saddr, alen);
			host_bits(a, alen, pre[j]->plen, &seed);
			continue;
		}
		for (i = 0; i < 64; i++) {
			memcpy(a, near, alen);
			host_bits(a, alen, ipv6 ? 96 : 16, &seed);
			if (!in_set(s, ipv6, a))
				break;
		}
		if (i == 64) {
			free(pre);
			hc_srcs_free(d);
			hc_err_set(
				err,
				"no source near %s is outside the set, for the misses: --src elsewhere",
				inet_ntop(ipv6 ? AF_INET6 : AF_INET, near, buf,
					  sizeof(buf)));
			return -EADDRINUSE;
		}
	}
	free(pre);
	d->hits = h;
	d->prefixes = h < np ? h : np;
	return 0;
}

void hc_srcs_free(struct hc_srcs *d)
{
	free(d->addr);
	d->addr = NULL;
	d->n = 0;
}
