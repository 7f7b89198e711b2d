/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader: a whole document into a tree, for what hookcmp
 * reads back of its own output (bench compare reads two bench runs).
 */
#ifndef HC_JPARSE_H
#define HC_JPARSE_H

#include <stdbool.h>
#include <stddef.h>

#define JP_DEPTH 32

enum jp_type { JP_NULL, JP_BOOL, JP_NUM, JP_STR, JP_ARR, JP_OBJ };

struct jp {
	enum jp_type type;
	char *key; /* a member's name, in an object */
	double num;
	bool b;
	char *str;
	struct jp *kid; /* an array's or object's members */
	int n;
};

/*
 * text into *out: 0, or -EINVAL with why saying what and at which byte
 * offset (-ENOMEM). Nothing may follow the value but white space.
 */
int jp_parse(const char *text, struct jp **out, char *why, size_t size);
/* An object's member by name; NULL when v is no object or has none. */
const struct jp *jp_get(const struct jp *v, const char *key);
/* The member's string or number, or def when it is absent or of another type. */
const char *jp_str(const struct jp *v, const char *key, const char *def);
double jp_num(const struct jp *v, const char *key, double def);
void jp_free(struct jp *v);

#endif
