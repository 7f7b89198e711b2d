/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hookcmp bench: --variant's change, made and undone around a row's visit
 * (variant.c).
 */
#ifndef HC_BENCH_VARIANT_H
#define HC_BENCH_VARIANT_H

#include "bench.h"

/* The longest --undo, with its NUL: the journal keeps it for cleanup. */
#define BENCH_VARIANT_UNDO_MAX 1024

/*
 * The row's --setup, in the DUT's namespace, the machine's settings read
 * into before first; with undo, its --undo, and then the settings again:
 * 0, or -errno with the command's last words in err, or with the setting
 * the --undo did not put back. The --undo is journalled from before the
 * --setup until it has run: after kill -9, hookcmp cleanup runs it.
 */
int bench_variant_step(struct bench *b, struct bench_row *r, int round,
		       bench_settings before, bool undo, struct hc_err *err);

#endif
