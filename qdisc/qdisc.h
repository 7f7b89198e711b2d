/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Qdiscs and tc filters with one rule: delete only what we created, and
 * check it is still ours before deleting it.
 */
#ifndef HC_QDISC_H
#define HC_QDISC_H

#include <stdbool.h>
#include "nl.h"

/* Creates kind, or reuses one that exists (then *created is false). */
int hc_qdisc_get(struct hc_nl *nl, int ifindex, const char *kind, bool *created,
		 struct hc_err *err);
/* Deletes the qdisc unless filters (someone else's) still hang on it. */
int hc_qdisc_put(struct hc_nl *nl, int ifindex, const char *kind,
		 struct hc_err *err);

int hc_filter_attach(struct hc_nl *nl, const struct hc_filter *f, int prog_fd,
		     struct hc_err *err);
/* Deletes the filter only if it still runs prog_id. */
int hc_filter_detach(struct hc_nl *nl, const struct hc_filter *f, __u32 prog_id,
		     struct hc_err *err);

#endif
