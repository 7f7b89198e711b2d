// SPDX-License-Identifier: GPL-2.0
/*
 * --dev's journal kinds, undone by cleanup: the device settings --tune
 * changed, put back wherever the device went, and the veth pair of the
 * second device, deleted while it is still a veth.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/ethtool.h>
#include "dev_jkinds.h"
#include "ethtool.h"
#include "journal.h"
#include "nl.h"
#include "print.h"
#include "undo.h"

int bench_tune_put(const struct hc_jrec *rec)
{
	const __u32 *val = HC_JDATA(rec, const struct bench_jtune)->val;
	struct ethtool_channels ch;
	int ret;

	if (rec->kind == &bench_jkind_gro)
		return hc_ethtool_set_gro(rec->dev, val[0]);
	if (rec->kind == &bench_jkind_threaded)
		return hc_dev_set_threaded(rec->dev, val[0]);
	if (rec->kind != &bench_jkind_channels)
		return -EINVAL;
	ret = hc_ethtool_channels(rec->dev, &ch);
	ch.rx_count = val[0];
	ch.tx_count = val[1];
	ch.combined_count = val[2];
	ch.other_count = val[3];
	return ret ?: hc_ethtool_set_channels(rec->dev, &ch);
}

static void undo_tune(struct hc_undo_ctx *c)
{
	struct hc_jrec now = *c->rec;
	struct hc_link_info li;
	char note[IF_NAMESIZE + 32];
	int ret;

	if (!hc_undo_same_device(c, &li))
		return;
	snprintf(now.dev, sizeof(now.dev), "%s", li.name);
	/* threaded is in /sys/class/net: that of this namespace. */
	ret = (now.kind == &bench_jkind_threaded ? hc_sysfs_here() : 0) ?:
		      bench_tune_put(&now);
	if (ret)
		return hc_undo_failed(c, ret);
	hc_undo_say(c, "restored", false, "put back%s",
		    hc_undo_renamed(c->rec, li.name, note, sizeof(note)));
}

static void undo_link(struct hc_undo_ctx *c)
{
	struct hc_link_info li;
	int ret;

	if (!hc_undo_same_device(c, &li))
		return;
	if (strcmp(li.kind, "veth"))
		return hc_undo_say(
			c, "left alone", false,
			"not ours any more: left alone; %s is a %s now",
			li.name, li.kind[0] ? li.kind : "device");
	ret = hc_nl_link_del(c->nl, c->rec->ifindex, &c->err);
	if (ret)
		return hc_undo_failed(c, ret);
	hc_undo_say(c, "deleted", false, "deleted");
}

static void was_on(const struct hc_jrec *j, struct hc_pr *p)
{
	const __u32 *val = HC_JDATA(j, const struct bench_jtune)->val;

	hc_pr_fstr(p, HC_PR_ALL, "was", " (was %s)", val[0] ? "on" : "off");
}

static void was_channels(const struct hc_jrec *j, struct hc_pr *p)
{
	const __u32 *val = HC_JDATA(j, const struct bench_jtune)->val;

	hc_pr_fu64(p, HC_PR_ALL, "was_rx", " (was rx %llu", val[0]);
	hc_pr_fu64(p, HC_PR_ALL, "was_tx", " tx %llu", val[1]);
	hc_pr_fu64(p, HC_PR_ALL, "was_combined", " combined %llu)", val[2]);
}

HC_JDATA_FITS(struct bench_jtune);

static const struct hc_jfield tune_fields[] = {
	HC_JFIELD(struct bench_jtune, val, HC_JF_VAL),
	{},
};

const struct hc_jkind bench_jkind_gro = { .name = "gro",
					  .fields = tune_fields,
					  .undo = undo_tune,
					  .print = was_on };
const struct hc_jkind bench_jkind_threaded = { .name = "threaded",
					       .fields = tune_fields,
					       .undo = undo_tune,
					       .print = was_on };
const struct hc_jkind bench_jkind_channels = { .name = "channels",
					       .fields = tune_fields,
					       .undo = undo_tune,
					       .print = was_channels };
const struct hc_jkind bench_jkind_link = { .name = "link", .undo = undo_link };
HC_JKIND(bench_jkind_gro);
HC_JKIND(bench_jkind_threaded);
HC_JKIND(bench_jkind_channels);
HC_JKIND(bench_jkind_link);
