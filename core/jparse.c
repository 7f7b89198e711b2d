// SPDX-License-Identifier: GPL-2.0
/* A recursive-descent JSON reader (RFC 8259), bounded in depth. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jparse.h"

struct in {
	const char *s, *p;
	char *why;
	size_t size;
	int depth;
	int err;
};

static int fail(struct in *in, const char *what)
{
	if (!in->err) {
		snprintf(in->why, in->size, "byte %td: %s", in->p - in->s,
			 what);
		in->err = -EINVAL;
	}
	return in->err;
}

static void ws(struct in *in)
{
	in->p += strspn(in->p, " \t\r\n");
}

static int value(struct in *in, struct jp *v);

/* One UTF-8 sequence of code point c into o. */
static int utf8(unsigned long c, char *o)
{
	if (c < 0x80)
		return o[0] = c, 1;
	if (c < 0x800)
		return o[0] = 0xc0 | c >> 6, o[1] = 0x80 | (c & 0x3f), 2;
	if (c < 0x10000)
		return o[0] = 0xe0 | c >> 12, o[1] = 0x80 | (c >> 6 & 0x3f),
		       o[2] = 0x80 | (c & 0x3f), 3;
	return o[0] = 0xf0 | c >> 18, o[1] = 0x80 | (c >> 12 & 0x3f),
	       o[2] = 0x80 | (c >> 6 & 0x3f), o[3] = 0x80 | (c & 0x3f), 4;
}

static int hex4(struct in *in, unsigned long *c)
{
	char h[5] = "", *end;

	memcpy(h, in->p, strnlen(in->p, 4) < 4 ? strnlen(in->p, 4) : 4);
	*c = strtoul(h, &end, 16);
	if (end != h + 4 || strspn(h, "0123456789abcdefABCDEF") != 4)
		return fail(in, "a \\u escape needs 4 hex digits");
	in->p += 4;
	return 0;
}

/* The length of the string's text from p, up to its closing quote. */
static size_t raw_len(const char *p)
{
	const char *s = p;

	while (*s && *s != '"')
		s += *s == '\\' && s[1] ? 2 : 1;
	return s - p;
}

static int string(struct in *in, char **out)
{
	/* Escapes only shrink: the text's length holds the output. */
	char *o = malloc(raw_len(in->p + 1) + 1), *q = o;

	if (!o)
		return in->err = -ENOMEM;
	in->p++; /* the quote */
	while (*in->p != '"') {
		unsigned char c = *in->p++;
		unsigned long u, lo;

		if (!c || c < 0x20) {
			in->p -= !!c;
			free(o);
			return fail(in, c ? "a control character in a string" :
					    "a string that does not end");
		}
		if (c != '\\') {
			*q++ = c;
			continue;
		}
		c = *in->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			*q++ = c;
			break;
		case 'b':
			*q++ = '\b';
			break;
		case 'f':
			*q++ = '\f';
			break;
		case 'n':
			*q++ = '\n';
			break;
		case 'r':
			*q++ = '\r';
			break;
		case 't':
			*q++ = '\t';
			break;
		case 'u':
			if (hex4(in, &u))
				break;
			/* a surrogate pair is one code point */
			if (u >= 0xd800 && u < 0xdc00 && in->p[0] == '\\' &&
			    in->p[1] == 'u') {
				in->p += 2;
				if (hex4(in, &lo))
					break;
				if (lo < 0xdc00 || lo > 0xdfff) {
					fail(in, "a lone surrogate");
					break;
				}
				u = 0x10000 + ((u - 0xd800) << 10) +
				    (lo - 0xdc00);
			}
			q += utf8(u, q);
			break;
		default:
			in->p--;
			fail(in, "an unknown escape");
		}
		if (in->err) {
			free(o);
			return in->err;
		}
	}
	in->p++;
	*q = '\0';
	*out = o;
	return 0;
}

static int number(struct in *in, struct jp *v)
{
	const char *p = in->p;
	char *end;

	/* JSON's grammar, stricter than strtod's */
	p += *p == '-';
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return fail(in, "not a value");
	if (*p == '.') {
		if (!strchr("0123456789", p[1]) || !p[1])
			return fail(in, "a number's fraction needs digits");
		p += 1 + strspn(p + 1, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '+' || p[1] == '-');
		if (!*p || !strchr("0123456789", *p))
			return fail(in, "a number's exponent needs digits");
		p += strspn(p, "0123456789");
	}
	v->type = JP_NUM;
	v->num = strtod(in->p, &end);
	in->p = p;
	return 0;
}

static int members(struct in *in, struct jp *v, bool obj)
{
	char close = obj ? '}' : ']';
	int cap = 0;

	if (++in->depth > JP_DEPTH)
		return fail(in, "nested too deep");
	v->type = obj ? JP_OBJ : JP_ARR;
	in->p++;
	ws(in);
	if (*in->p == close) {
		in->p++;
		in->depth--;
		return 0;
	}
	for (;;) {
		struct jp *m;

		if (v->n == cap) {
			void *k = realloc(v->kid, (cap = cap ? 2 * cap : 8) *
							  sizeof(*v->kid));

			if (!k)
				return in->err = -ENOMEM;
			v->kid = k;
		}
		m = &v->kid[v->n];
		memset(m, 0, sizeof(*m));
		v->n++;
		ws(in);
		if (obj) {
			if (*in->p != '"')
				return fail(
					in,
					"an object's member needs a name in quotes");
			if (string(in, &m->key))
				return in->err;
			ws(in);
			if (*in->p != ':')
				return fail(in,
					    "a ':' after the member's name");
			in->p++;
		}
		if (value(in, m))
			return in->err;
		ws(in);
		if (*in->p == close)
			break;
		if (*in->p != ',')
			return fail(in, obj ? "a ',' or '}'" : "a ',' or ']'");
		in->p++;
	}
	in->p++;
	in->depth--;
	return 0;
}

static int word(struct in *in, const char *w)
{
	size_t len = strlen(w);

	if (strncmp(in->p, w, len))
		return fail(in, "not a value");
	in->p += len;
	return 0;
}

static int value(struct in *in, struct jp *v)
{
	ws(in);
	switch (*in->p) {
	case '{':
		return members(in, v, true);
	case '[':
		return members(in, v, false);
	case '"':
		v->type = JP_STR;
		return string(in, &v->str);
	case 't':
		v->type = JP_BOOL;
		v->b = true;
		return word(in, "true");
	case 'f':
		v->type = JP_BOOL;
		return word(in, "false");
	case 'n':
		v->type = JP_NULL;
		return word(in, "null");
	case '\0':
		return fail(in, "the document ends before its value");
	default:
		return number(in, v);
	}
}

static void drop(struct jp *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		drop(&v->kid[i]);
	free(v->kid);
	free(v->key);
	free(v->str);
}

int jp_parse(const char *text, struct jp **out, char *why, size_t size)
{
	struct in in = { .s = text, .p = text, .why = why, .size = size };
	struct jp *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v)
		return -ENOMEM;
	if (!value(&in, v)) {
		ws(&in);
		if (*in.p)
			fail(&in, "more after the document's value");
	}
	if (in.err) {
		if (in.err == -ENOMEM)
			snprintf(why, size, "%s", strerror(ENOMEM));
		jp_free(v);
		return in.err;
	}
	*out = v;
	return 0;
}

const struct jp *jp_get(const struct jp *v, const char *key)
{
	int i;

	for (i = 0; v && v->type == JP_OBJ && i < v->n; i++)
		if (!strcmp(v->kid[i].key, key))
			return &v->kid[i];
	return NULL;
}

const char *jp_str(const struct jp *v, const char *key, const char *def)
{
	const struct jp *m = jp_get(v, key);

	return m && m->type == JP_STR ? m->str : def;
}

double jp_num(const struct jp *v, const char *key, double def)
{
	const struct jp *m = jp_get(v, key);

	return m && m->type == JP_NUM ? m->num : def;
}

void jp_free(struct jp *v)
{
	if (!v)
		return;
	drop(v);
	free(v);
}
