// SPDX-License-Identifier: GPL-2.0
/*
 * bench --dev: the rows on a device that exists, a NIC or anything else,
 * with traffic from elsewhere. --gen-cmd runs a command (ssh to the box
 * that generates, typically) for every window and takes "generated" from
 * what it prints; --external measures traffic that flows already. The
 * rate is measured here: the hook's and the device's counters every
 * 100 ms, the rate from the steady intervals between the first and the
 * last. The sums rest on the device's own counters.
 *
 * Nothing on the device changes but what a row attaches, a veth pair for
 * the rows that need a second device (unless --other-dev names one), and
 * what --tune asks for; each change is journalled first, so that
 * `hookcmp cleanup` undoes what a killed bench left.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "bench.h"
#include "clock.h"
#include "dev.h"
#include "dev_jkinds.h"
#include "env.h"
#include "internal.h"
#include "profile.h"
#include "row.h"
#include "scope.h"
#include "summary.h"
#include "topo.h"
#include "hooks.h"
#include "exec.h"
#include "journal.h"
#include "netns.h"
#include "nl.h"
#include "print.h"
#include "stats.h"
#include "undo.h"

#define SAMPLE_SECS 0.1
#define DRAIN_SECS 0.5

/* --tune KEY=VAL: what bench may change on the device, and put back. */
struct tune {
	const char *key;
	const struct hc_jkind *kind;
};

static const struct tune tunes[] = {
	{ "gro", &bench_jkind_gro },
	{ "threaded", &bench_jkind_threaded },
	{ "channels", &bench_jkind_channels },
	{},
};

static struct bench_dut *dev_dut(const struct bench_net *net)
{
	return &bench_devtopo(net)->dut;
}

const struct bench_dut *bench_dev_dut(const struct bench_net *net)
{
	static const struct bench_dut none;
	const struct bench_devtopo *st = bench_devtopo(net);

	return st ? &st->dut : &none;
}

int bench_journal(struct bench *b, struct hc_jrec *rec,
		  const struct hc_jkind *kind, int ifindex, const char *mode,
		  bool done, struct hc_err *err)
{
	char name[IF_NAMESIZE] = "";

	if (!b->net.journal)
		return 0;
	/* prio, handle and val are the caller's; a second write replaces. */
	rec->kind = kind;
	rec->done = done;
	rec->ifindex = ifindex;
	if_indextoname(ifindex, name);
	snprintf(rec->dev, sizeof(rec->dev), "%s", name);
	snprintf(rec->mode, sizeof(rec->mode), "%s", mode ? mode : "");
	return hc_journal_add(rec, b->opt.netns, err);
}

/* ---- finding the device: nothing changes yet ---- */

static int no_device(const struct bench_opts *o, const struct bench_net *net,
		     const char *dev, struct hc_err *err)
{
	char where[200], elsewhere[256];

	snprintf(where, sizeof(where), "%s%s%s",
		 o->netns ? "network namespace '" : "this network namespace",
		 o->netns ? o->netns : "", o->netns ? "'" : "");
	bench_enter(net->fd_root);
	hc_netns_with_dev(dev, elsewhere, sizeof(elsewhere));
	bench_enter(net->fd_dut);
	if (elsewhere[0])
		hc_err_set(
			err,
			"no device '%s' in %s, but in network namespace %s (hookcmp -n NAME bench --dev %s)",
			dev, where, elsewhere, dev);
	else
		hc_err_set(err, "no device '%s' in %s", dev, where);
	return -ENODEV;
}

/* Cpus_allowed_list of a task. */
static const char *allowed(pid_t pid, char *buf, size_t size)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	snprintf(buf, size, "?");
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, size, "%s",
				 line + 18 + strspn(line + 18, " \t"));
		}
	if (f)
		fclose(f);
	return buf;
}

/* "0-3,8", a CPU list of /proc or /sys, into set. */
static void cpulist_add(const char *s, cpu_set_t *set)
{
	long a, z;
	char *end;

	for (;;) {
		a = strtol(s, &end, 10);
		if (end == s)
			return;
		z = a;
		if (*end == '-')
			z = strtol(end + 1, &end, 10);
		for (; a <= z && a < CPU_SETSIZE; a++)
			if (a >= 0)
				CPU_SET(a, set);
		if (*end != ',')
			return;
		s = end + 1;
	}
}

static const char *cpulist(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;
	int a, z;

	buf[0] = '\0';
	for (a = 0; a < CPU_SETSIZE && len < size; a++) {
		if (!CPU_ISSET(a, set))
			continue;
		for (z = a; z + 1 < CPU_SETSIZE && CPU_ISSET(z + 1, set); z++)
			;
		len += z > a ? snprintf(buf + len, size - len, "%s%d-%d",
					len ? "," : "", a, z) :
			       snprintf(buf + len, size - len, "%s%d",
					len ? "," : "", a);
		a = z;
	}
	return buf;
}

/*
 * Where the device's receive work runs: its MSI interrupts' CPUs, or
 * the kthreads of threaded NAPI.
 */
static void irq_cpus(struct bench_net *net)
{
	char path[320], cpus[64], comm[32], prefix[32];
	struct bench_dut *d = dev_dut(net);
	size_t len = 0, size = sizeof(d->irq_cpus);
	struct dirent *de;
	pid_t pids[64];
	int i, n;
	DIR *dir;

	d->irq_cpus[0] = '\0';
	CPU_ZERO(&d->rx_set);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs",
		 net->dut_name);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "/proc/irq/%s/effective_affinity_list", de->d_name);
		bench_first_line(path, cpus, sizeof(cpus));
		cpulist_add(cpus, &d->rx_set);
		if (cpus[0] && len < size)
			len += snprintf(d->irq_cpus + len, size - len,
					"%sirq %s: CPU %s", len ? ", " : "",
					de->d_name, cpus);
	}
	if (dir)
		closedir(dir);
	/* The kernel names them (6.9+); before, their names, cut to 15. */
	n = hc_nl_napi_threads(net->if_dut, pids, 64, NULL);
	snprintf(prefix, sizeof(prefix), "napi/%s-", net->dut_name);
	prefix[15] = '\0';
	if (n < 0)
		n = bench_threads("/proc", prefix, pids, 64);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pids[i]);
		bench_first_line(path, comm, sizeof(comm));
		allowed(pids[i], cpus, sizeof(cpus));
		cpulist_add(cpus, &d->rx_set);
		if (len < size)
			len += snprintf(d->irq_cpus + len, size - len,
					"%s%s: CPU %s", len ? ", " : "", comm,
					cpus);
	}
}

/*
 * bench's thread, and so everything it starts (--gen-cmd, iptables,
 * nft), on the CPUs the receive work does not use: the receive CPUs'
 * busy time is the rows' cost. Unknown receive CPUs: all of them.
 */
static void pin_away(struct bench_net *net)
{
	struct bench_dut *d = dev_dut(net);
	char *rx = d->rx_list;
	cpu_set_t spare;
	int i;

	CPU_ZERO(&d->pinned);
	d->pinned_list[0] = '\0';
	if (sched_getaffinity(0, sizeof(spare), &spare))
		return;
	if (!CPU_COUNT(&d->rx_set)) {
		d->rx_set = spare;
		fprintf(stderr,
			"Warning: where %s's receive work runs is unknown: the rows' cost is the busy time of every CPU bench may run on (%s), bench's own with it\n",
			net->dut_name, cpulist(&spare, rx, sizeof(d->rx_list)));
		return;
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &d->rx_set))
			CPU_CLR(i, &spare);
	cpulist(&d->rx_set, rx, sizeof(d->rx_list));
	if (!CPU_COUNT(&spare) || sched_setaffinity(0, sizeof(spare), &spare)) {
		fprintf(stderr,
			"Warning: no CPU to spare from the receive CPUs (%s): bench, --gen-cmd, iptables and nft run on them, and their time is in the rows' cost\n",
			rx);
		return;
	}
	d->pinned = spare;
	fprintf(stderr,
		"bench, --gen-cmd, iptables and nft pinned to CPU %s, away from the receive CPUs (%s)\n",
		cpulist(&spare, d->pinned_list, sizeof(d->pinned_list)), rx);
}

/* RX queues: ETHTOOL_GCHANNELS, else /sys/class/net/DEV/queues/rx-*. */
static int rx_queues(const char *dev)
{
	struct ethtool_channels ch;
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (!hc_ethtool_channels(dev, &ch) && ch.rx_count + ch.combined_count)
		return ch.rx_count + ch.combined_count;
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev);
	d = opendir(path);
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, "rx-", 3);
	if (d)
		closedir(d);
	return n ? n : 1;
}

static void dut_read(struct bench_net *net)
{
	struct bench_dut *d = dev_dut(net);
	struct in_addr a;
	int on;

	hc_ethtool_driver(net->dut_name, d->driver, sizeof(d->driver));
	d->queues = rx_queues(net->dut_name);
	irq_cpus(net);
	if (!hc_nl_addr4_get(net->nl_dut, net->if_dut, &a, NULL))
		inet_ntop(AF_INET, &a, net->dut_ip, sizeof(net->dut_ip));
	d->threaded = !hc_dev_threaded(net->dut_name, &on) && on;
	hc_ethtool_gro(net->dut_name, &d->gro);
	hc_ethtool_stat_names(net->dut_name, &d->stats);
}

static int find_other(struct bench_net *net, const struct bench_opts *o,
		      struct hc_err *err)
{
	if (!o->other_dev)
		return 0;
	if (!strcmp(o->other_dev, o->dev)) {
		hc_err_set(err, "--other-dev %s is the device under test",
			   o->other_dev);
		return -EINVAL;
	}
	snprintf(net->other_name, sizeof(net->other_name), "%s", o->other_dev);
	net->if_other = if_nametoindex(o->other_dev);
	return net->if_other ? 0 : no_device(o, net, o->other_dev, err);
}

/* --tune gro=on,threaded=off,channels=4: each key known, each value sane. */
static int tune_each(struct bench *b, struct hc_err *err,
		     int (*fn)(struct bench *b, const struct tune *t, long v,
			       struct hc_err *err))
{
	char list[128], *save, *w, *eq;
	const struct tune *t;
	bool bad;
	long v;
	__u64 n;
	int ret;

	snprintf(list, sizeof(list), "%s", b->opt.tune ? b->opt.tune : "");
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		eq = strchr(w, '=');
		for (t = tunes; eq && t->key; t++)
			if (!strncmp(w, t->key, eq - w) && !t->key[eq - w])
				break;
		if (!eq || !t->key) {
			hc_err_set(
				err,
				"--tune '%s': expected gro=on|off, threaded=on|off or channels=N",
				w);
			return -EINVAL;
		}
		if (t->kind == &bench_jkind_channels) {
			bad = hc_parse_uint(eq + 1, 0, 1, 4096, &n) != 0;
			v = n;
		} else {
			v = !strcmp(eq + 1, "on");
			bad = !v && strcmp(eq + 1, "off");
		}
		if (bad) {
			hc_err_set(err, "--tune '%s': expected %s", w,
				   t->kind == &bench_jkind_channels ?
					   "a count of 1 or more" :
					   "on or off");
			return -EINVAL;
		}
		ret = fn ? fn(b, t, v, err) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Opens the device in its namespace and reads what the header shows;
 * every error here is the user's input (exit 2), and nothing changed.
 */
static int dev_open(struct bench *b, struct hc_err *err)
{
	struct hc_err e = {};
	bool uplink = false;
	int ret;

	b->net.state = calloc(1, sizeof(*b->net.state));
	if (!b->net.state)
		return -ENOMEM;
	snprintf(b->net.dut_name, sizeof(b->net.dut_name), "%s", b->opt.dev);
	if (strlen(b->opt.dev) >= IF_NAMESIZE) {
		hc_err_set(err, "device name '%s' is too long", b->opt.dev);
		return -EINVAL;
	}
	ret = tune_each(b, err, NULL);
	if (ret)
		return ret;
	if (b->opt.netns) {
		ret = hc_enter_netns(b->opt.netns, err);
		if (ret)
			return ret;
		/* /sys/class/net of the DUT's namespace, as ip netns exec. */
		hc_sysfs_here();
	}
	b->net.fd_dut = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	b->net.fd_gen = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (b->net.fd_dut < 0 || b->net.fd_gen < 0)
		return -errno;
	b->net.if_dut = if_nametoindex(b->opt.dev);
	if (!b->net.if_dut)
		return no_device(&b->opt, &b->net, b->opt.dev, err);
	b->net.nl_dut = hc_nl_open(err);
	if (!b->net.nl_dut)
		return -errno;
	/* Without -n we run where the caller is: their ssh most likely too. */
	if (!b->opt.force && !b->opt.netns &&
	    !hc_nl_default_route_via(b->net.nl_dut, b->net.if_dut, &uplink,
				     &e) &&
	    uplink) {
		hc_err_set(
			err,
			"%s holds this namespace's default route: bench could cut you off (ssh); --force measures it anyway",
			b->opt.dev);
		return -EBUSY;
	}
	ret = find_other(&b->net, &b->opt, err) ?:
		      hc_dev_mac(b->opt.dev, b->net.dut_mac);
	if (ret)
		return ret;
	dut_read(&b->net);
	b->net.journal = true;
	return 0;
}

/* ---- what bench changes, journalled first ---- */

/*
 * What the device had before any bench changed it: a killed bench's
 * record has it, and a live one's change is not ours to stack on.
 */
static int tune_original(const struct bench_net *net, struct hc_jrec *rec,
			 struct hc_err *err)
{
	struct hc_jrec *recs, *first = NULL, *o;
	struct hc_netns_id here = {};
	__u8 mac[6] = {};
	int n, i, ret;

	hc_netns_self(&here);
	hc_dev_mac(net->dut_name, mac);
	ret = hc_journal_list(&recs, &n, err);
	for (i = 0; !ret && i < n; i++) {
		o = &recs[i];
		if (o->bad[0] || o->kind != rec->kind ||
		    o->ifindex != net->if_dut ||
		    !hc_netns_same(&o->ns, &here) ||
		    memcmp(o->mac, mac, sizeof(mac)))
			continue;
		if (hc_journal_alive(o)) {
			hc_err_set(
				err,
				"--tune %s: hookcmp %d has changed it on %s already",
				rec->kind->name, o->pid, net->dut_name);
			ret = -EBUSY;
		} else if (!first || o->seq < first->seq) {
			first = o;
		}
	}
	if (!ret && first)
		memcpy(rec->data, first->data, sizeof(struct bench_jtune));
	free(recs);
	return ret;
}

static int tune_one(struct bench *b, const struct tune *t, long v,
		    struct hc_err *err)
{
	struct bench_devtopo *st = bench_devtopo(&b->net);
	struct hc_jrec *rec = &st->tuned[st->ntuned];
	__u32 *val = HC_JDATA(rec, struct bench_jtune)->val;
	struct ethtool_channels ch;
	int old = 0, ret;
	bool gro;

	if (st->ntuned == 3) {
		hc_err_set(err, "--tune %s: once is enough", t->key);
		return -EINVAL;
	}
	memset(rec, 0, sizeof(*rec));
	ret = t->kind == &bench_jkind_gro ?
		      hc_ethtool_gro(b->net.dut_name, &gro) :
	      t->kind == &bench_jkind_threaded ?
		      hc_dev_threaded(b->net.dut_name, &old) :
		      hc_ethtool_channels(b->net.dut_name, &ch);
	if (ret) {
		hc_err_set(err, "--tune %s: reading it on %s", t->key,
			   b->net.dut_name);
		return ret;
	}
	val[0] = t->kind == &bench_jkind_gro ? gro : old;
	if (t->kind == &bench_jkind_channels) {
		val[0] = ch.rx_count;
		val[1] = ch.tx_count;
		val[2] = ch.combined_count;
		val[3] = ch.other_count;
		if (ch.max_combined)
			ch.combined_count = v;
		else
			ch.rx_count = v;
	}
	rec->kind = t->kind;
	/* The old value is on disk before the new one is set. */
	ret = b->net.journal ? hc_journal_lock(err) : 0;
	if (ret)
		return ret;
	ret = (b->net.journal ? tune_original(&b->net, rec, err) : 0) ?:
		      bench_journal(b, rec, t->kind, b->net.if_dut, t->key, true, err) ?:
		      t->kind == &bench_jkind_gro ?
		      hc_ethtool_set_gro(b->net.dut_name, v) :
	      t->kind == &bench_jkind_threaded ?
		      hc_dev_set_threaded(b->net.dut_name, v) :
		      hc_ethtool_set_channels(b->net.dut_name, &ch);
	if (ret) {
		/* Nothing changed: nothing to put back. */
		hc_journal_del(rec);
		if (ret != -EBUSY)
			hc_err_set(err, "--tune %s on %s", t->key,
				   b->net.dut_name);
	}
	if (b->net.journal)
		hc_journal_unlock();
	if (ret)
		return ret;
	st->ntuned++;
	return 0;
}

/* A veth pair in the DUT's namespace for the rows that need a second device. */
static int other_up(struct bench *b, struct hc_err *err)
{
	char peer[IF_NAMESIZE];
	int i, ret;

	for (i = 0; i < b->rows.n && !b->rows.row[i].other; i++)
		;
	if (i == b->rows.n || b->opt.other_dev)
		return 0;
	snprintf(b->net.other_name, sizeof(b->net.other_name), "hcx%d",
		 getpid());
	snprintf(peer, sizeof(peer), "hcy%d", getpid());
	/* Journalled by name before it exists: cleanup checks it is a veth. */
	ret = hc_nl_veth_add(b->net.nl_dut, b->net.other_name, peer, -1, err);
	if (ret) {
		hc_err_set(err, "creating the veth pair %s-%s",
			   b->net.other_name, peer);
		return ret;
	}
	b->net.if_other = if_nametoindex(b->net.other_name);
	ret = bench_journal(b, &bench_devtopo(&b->net)->other_rec, &bench_jkind_link, b->net.if_other, "veth", true, err) ?:
		      hc_nl_link_up(b->net.nl_dut, b->net.if_other, true, err);
	if (ret)
		hc_err_set(err, "bringing %s up", b->net.other_name);
	return ret;
}

static void dev_header(const struct bench *b)
{
	const struct bench_dut *d = dev_dut(&b->net);
	char local[200] = "";
	size_t len = 0;
	int i;

	fprintf(stderr,
		"device %s%s%s: driver %s, %d RX queue%s, GRO %s, threaded NAPI %s; receive work on %s\n",
		b->net.dut_name, b->opt.netns ? " in netns " : "",
		b->opt.netns ? b->opt.netns : "",
		d->driver[0] ? d->driver : "?", d->queues,
		d->queues > 1 ? "s" : "", d->gro ? "on" : "off",
		d->threaded ? "on" : "off",
		d->irq_cpus[0] ?
			d->irq_cpus :
			"CPUs unknown (no MSI interrupts or NAPI kthreads found)");
	for (i = 0; i < b->rows.n; i++) {
		const struct bench_row *r = &b->rows.row[i];
		const char *dst = r->hook ? r->hook->dst4 : NULL;

		if (r->local && len < sizeof(local))
			len += snprintf(local + len, sizeof(local) - len,
					"%s%s%s%s%s", len ? ", " : "", r->name,
					dst ? " (dst IP " : "", dst ?: "",
					dst ? ")" : "");
	}
	fprintf(stderr,
		"send to dst MAC %02x:%02x:%02x:%02x:%02x:%02x, dst IP %s, UDP dport 9%s%s%s\n",
		b->net.dut_mac[0], b->net.dut_mac[1], b->net.dut_mac[2],
		b->net.dut_mac[3], b->net.dut_mac[4], b->net.dut_mac[5],
		b->net.dut_ip[0] ? b->net.dut_ip : "(none)", len ? " (" : "",
		local, len ? " see only frames addressed so)" : "");
	if (len && !b->net.dut_ip[0])
		fprintf(stderr,
			"Warning: %s has no IPv4 address: %s will see nothing\n",
			b->net.dut_name, local);
	if (b->opt.gen_cmd)
		fprintf(stderr,
			"--gen-cmd runs for every window, with HC_ROW, HC_ROUND, HC_SIZE, HC_FLOWS, HC_DEV, HC_DST_MAC, HC_DST_IP and HC_DST_PORT in its environment\n");
}

static int dev_up(struct bench *b, struct hc_err *err)
{
	int ret;

	dev_header(b);
	ret = other_up(b, err) ?: tune_each(b, err, tune_one);
	if (ret)
		return ret;
	/* --tune threaded=on makes new kthreads, wherever they run. */
	if (bench_devtopo(&b->net)->ntuned)
		irq_cpus(&b->net);
	pin_away(&b->net);
	return 0;
}

/*
 * What could not be undone where it was made: undone wherever the device
 * is now, or proven gone with it (deleted mid-run), as cleanup would; the
 * record stays only for what is neither.
 */
static void settle(struct hc_jrec *rec)
{
	struct hc_undo_pass pass = {};

	if (hc_undo_end(&pass, rec, hc_undo_print, NULL))
		hc_cleanup_hint(rec->netns, rec->dev, NULL);
}

static void dev_down(struct bench *b)
{
	struct bench_devtopo *st = bench_devtopo(&b->net);
	int i;

	if (b->net.fd_dut >= 0)
		bench_enter(b->net.fd_dut);
	for (i = st ? st->ntuned - 1 : -1; i >= 0; i--) {
		if (bench_tune_put(&st->tuned[i]))
			settle(&st->tuned[i]);
		else
			hc_journal_del(&st->tuned[i]);
	}
	if (st && st->other_rec.name[0]) {
		if (hc_nl_link_del(b->net.nl_dut, b->net.if_other, NULL))
			settle(&st->other_rec);
		else
			hc_journal_del(&st->other_rec);
	}
	hc_nl_close(b->net.nl_dut);
	b->net.nl_dut = NULL;
	if (st)
		hc_ethtool_names_free(&st->dut.stats);
	free(b->net.state);
	b->net.state = NULL;
	if (b->net.fd_root >= 0)
		bench_enter(b->net.fd_root);
	if (b->net.fd_gen >= 0)
		close(b->net.fd_gen);
	if (b->net.fd_dut >= 0)
		close(b->net.fd_dut);
	b->net.fd_gen = b->net.fd_dut = -1;
}

/* ---- a window ---- */

/* Counters at one moment: the hook's, bracketed by the device's. */
struct snap {
	double t;
	struct bench_count c;
	struct bench_dev_count d;
	double busy; /* ns of non-idle time on the receive CPUs */
};

/* The receive CPUs' user, nice, system, irq and softirq time (/proc/stat). */
static double busy_ns(const struct bench_net *net)
{
	static __thread struct bench_snap s;
	double ticks = 0;
	int i;

	if (bench_snap_read(&s) || !(s.hz > 0))
		return NAN;
	for (i = 0; i < BENCH_MAX_CPUS; i++)
		if (CPU_ISSET(i, &dev_dut(net)->rx_set) && s.cpu[i].stat)
			ticks += s.cpu[i].busy;
	return ticks * 1e9 / s.hz;
}

/*
 * edge: the hook's counters too. A kind whose read runs a command
 * (iptables, nft) keeps those of the last edge between the window's
 * first and last samples: the command would run on the CPUs measured.
 */
static int snap(struct bench *b, struct bench_row *r, struct snap *s,
		__u64 *cpu, bool edge)
{
	struct bench_dev_count d0;
	double t0 = hc_now();
	bool read = edge || !r->kind->forks;
	int ret;

	if (read) {
		memset(&s->c, 0, sizeof(s->c));
		s->c.cpu = cpu;
	}
	ret = bench_dut_count(&b->net, &d0)		      ?:
		      (read ? r->kind->read(b, r, &s->c) : 0) ?:
		      bench_dut_count(&b->net, &s->d);
	s->busy = busy_ns(&b->net);
	/*
	 * A read that runs iptables takes milliseconds while traffic flows:
	 * the device's counters are taken on both sides of it, and halved.
	 */
#define MID(f) s->d.f = d0.f + (s->d.f - d0.f) / 2
	MID(rx_packets);
	MID(rx_dropped);
	MID(rx_missed_errors);
	MID(rx_fifo_errors);
	MID(rx_over_errors);
#undef MID
	s->t = (t0 + hc_now()) / 2;
	return ret;
}

struct samples {
	struct bench_sample *s;
	__u64 *cpu; /* env.ncpu per sample, when the kind counts per CPU */
	int n, cap;
	bool cpus;
	bool rx; /* count by the device's rx_packets: the kind forks */
};

/* Packets at sample k: at the hook, or where it forks, at the device. */
static __u64 count(const struct samples *w, int k)
{
	return w->rx ? w->s[k].rx : w->s[k].seen;
}

static int sample(struct bench *b, struct bench_row *r, struct samples *w,
		  const struct snap *s0, struct snap *now, bool edge)
{
	int ncpu = b->env.ncpu, ret;

	if (w->n == w->cap) {
		int cap = w->cap ? 2 * w->cap : 64;
		void *s = realloc(w->s, cap * sizeof(*w->s));
		void *c = s ? realloc(w->cpu,
				      (size_t)cap * ncpu * sizeof(__u64)) :
			      NULL;

		if (s)
			w->s = s;
		if (c)
			w->cpu = c;
		if (!s || !c)
			return -ENOMEM;
		w->cap = cap;
	}
	ret = snap(b, r, now, w->cpu + (size_t)w->n * ncpu, edge);
	if (ret)
		return ret;
	w->cpus = now->c.cpus;
	w->rx = r->kind->forks;
	w->s[w->n++] = (struct bench_sample){
		.t = now->t - s0->t,
		.seen = now->c.seen - s0->c.seen,
		.rx = now->d.rx_packets - s0->d.rx_packets,
		.dropped = bench_dropped(&now->d) + now->c.dropped -
			   bench_dropped(&s0->d) - s0->c.dropped,
		.cpu_ns = now->busy - s0->busy,
	};
	return 0;
}

/*
 * The steady part: from the end of the first interval with traffic to
 * the start of the last, which are partial. -1 with fewer than three.
 */
static int steady(const struct samples *w, int *from, int *to)
{
	int k, first = -1, last = -1;

	for (k = 1; k < w->n; k++) {
		if (count(w, k) + w->s[k].dropped ==
		    count(w, k - 1) + w->s[k - 1].dropped)
			continue;
		if (first < 0)
			first = k;
		last = k;
	}
	*from = first;
	*to = last - 1;
	return first >= 0 && last - first >= 2 ? 0 : -1;
}

/* The number after the last "key": of a JSON summary. */
static int json_count(const char *out, const char *key, __u64 *n)
{
	const char *p, *found = NULL;
	size_t len = strlen(key);

	for (p = out; (p = strstr(p, key)); p += len)
		found = p + len;
	if (!found)
		return -ENOENT;
	found += strspn(found, " \t:");
	if (*found < '0' || *found > '9')
		return -ENOENT;
	*n = strtoull(found, NULL, 10);
	return 0;
}

/*
 * "packets": N of a hookcmp gen JSON summary, with its "tx_dropped": a
 * veth's peer counts the frames its full ring refused as rx_dropped,
 * before the hook. Else a line "packets N".
 */
static int gen_count(const char *out, __u64 *n)
{
	const char *p, *found = NULL;
	__u64 dropped = 0;

	if (!json_count(out, "\"packets\"", n)) {
		json_count(out, "\"tx_dropped\"", &dropped);
		*n += dropped;
		return 0;
	}
	for (p = out; (p = strstr(p, "packets ")); p += 8)
		if (p == out || p[-1] == '\n')
			found = p + 8;
	if (!found || *found < '0' || *found > '9')
		return -ENOENT;
	*n = strtoull(found, NULL, 10);
	return 0;
}

/* The traffic for one window; what it sent, if it says. */
struct traffic {
	struct hc_proc p;
	bool cmd, running;
	char out[8192];
	char env[8][64];
	const char *envp[9];
};

static int traffic_start(const struct bench_opts *o,
			 const struct bench_net *net, struct bench_row *r,
			 int round, struct traffic *t)
{
	const char *argv[] = { "/bin/sh", "-c", o->gen_cmd, NULL };
	const __u8 *m = net->dut_mac;
	int i, ret;

	if (!o->gen_cmd)
		return 0;
	snprintf(t->env[0], 64, "HC_ROW=%s", r->name);
	snprintf(t->env[1], 64, "HC_ROUND=%d", round);
	snprintf(t->env[2], 64, "HC_SIZE=%u", r->size);
	snprintf(t->env[3], 64, "HC_DEV=%s", net->dut_name);
	snprintf(t->env[4], 64, "HC_DST_MAC=%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	/* A row whose path needs a destination of its own (a route) has it. */
	snprintf(t->env[5], 64, "HC_DST_IP=%s",
		 r->hook && r->hook->dst4 ? r->hook->dst4 : net->dut_ip);
	snprintf(t->env[6], 64, "HC_DST_PORT=9");
	/* The row's flows, as its size: the command's to send, or not. */
	snprintf(t->env[7], 64, "HC_FLOWS=%u", r->flows ?: 1);
	for (i = 0; i < 8; i++)
		t->envp[i] = t->env[i];
	t->envp[8] = NULL;
	/* Where bench was started: ssh and ip netns exec work from there. */
	ret = hc_proc_start(&t->p, net->fd_root, 0, argv, t->envp, t->out,
			    sizeof(t->out));
	t->cmd = t->running = !ret;
	return ret;
}

/* Waits until the next sample is due; 1 once the traffic has ended. */
static int traffic_wait(struct traffic *t, double until, double end)
{
	double now;

	while ((now = hc_now()) < until && !hc_stop_sig) {
		int ms = (int)ceil((until - now) * 1e3);

		if (!t->running) {
			usleep(ms * 1000);
			continue;
		}
		if (hc_proc_poll(&t->p, ms)) {
			t->running = false;
			return 1;
		}
	}
	return !t->cmd && now >= end;
}

/* After the command: until the counters stop moving, or half a second. */
static int drain(struct bench *b, struct bench_row *r, struct samples *w,
		 const struct snap *s0, struct snap *now)
{
	double end = hc_now() + DRAIN_SECS;
	__u64 last = ~0ULL;
	int ret = 0;

	while (hc_now() < end) {
		usleep(20000);
		ret = sample(b, r, w, s0, now, false);
		if (ret || count(w, w->n - 1) + w->s[w->n - 1].dropped == last)
			break;
		last = count(w, w->n - 1) + w->s[w->n - 1].dropped;
	}
	return ret;
}

static void deltas(const struct bench_net *net, struct bench_round *rd,
		   const struct snap *s0, const struct snap *s1,
		   const __u64 *e0, const __u64 *e1)
{
	int i, n = dev_dut(net)->stats.n;

	rd->seen = s1->c.seen - s0->c.seen;
	rd->passed = s1->c.passed - s0->c.passed;
#define D(f) rd->dev.f = s1->d.f - s0->d.f
	D(rx_packets);
	D(rx_dropped);
	D(rx_missed_errors);
	D(rx_fifo_errors);
	D(rx_over_errors);
#undef D
	/* AF_XDP's rings drop before its logic too. */
	rd->dropped_before =
		bench_dropped(&rd->dev) + s1->c.dropped - s0->c.dropped;
	bench_round_rings(rd, &s0->c, &s1->c);
	rd->ethtool = n && e0 && e1 ? calloc(n, sizeof(__u64)) : NULL;
	for (i = 0; rd->ethtool && i < n; i++)
		rd->ethtool[i] = e1[i] - e0[i];
}

/* The rate over the steady samples, per CPU too. */
static void rates(const struct bench_opts *o, const struct bench_env *env,
		  struct bench_row *r, struct bench_round *rd,
		  struct samples *w)
{
	int from, to, i, ncpu = env->ncpu;
	const __u64 *c0, *c1;
	char name[32];
	__u64 n;

	/*
	 * --external: the window's edges are our own samples inside traffic
	 * that flows throughout: every interval is whole.
	 */
	if (!o->gen_cmd) {
		from = 0;
		/* Not the last edge's interval: its read forked. */
		to = w->n - 1 - (r->kind->forks && w->n > 2);
	} else if (steady(w, &from, &to)) {
		/* Too short to leave out its edges: the whole of it, INVALID. */
		if (rd->seen + rd->dropped_before)
			bench_row_invalid(
				r,
				"%s: traffic for %.2f s, under three %g s samples: too short for a steady rate (make --gen-cmd send for longer, e.g. hookcmp gen --duration 1)",
				bench_round_name(rd, name, sizeof(name)),
				w->s[to + 1].t -
					w->s[from > 0 ? from - 1 : 0].t,
				SAMPLE_SECS);
		from = 0;
		to = w->n - 1;
	}
	rd->steady_from = w->s[from].t;
	rd->steady_to = w->s[to].t;
	rd->secs = rd->steady_to - rd->steady_from;
	n = count(w, to) - count(w, from);
	rd->mpps = rd->secs > 0 ? n / rd->secs / 1e6 : 0;
	/*
	 * The work is in softirqs and kthreads on the receive CPUs: their
	 * busy time, over k CPUs with RSS, not 1e9/pps (k times too small).
	 */
	rd->cpu_ns = w->s[to].cpu_ns - w->s[from].cpu_ns;
	rd->own_ns = NAN;
	rd->pkt_ns = n ? rd->cpu_ns / n : NAN;
	/*
	 * Frames came, but none in the steady part (traffic that flows
	 * throughout: a receive side that did not run, on a loaded
	 * machine): no rate and no cost, left out of the row's.
	 */
	if (o->gen_cmd && !n && rd->seen + rd->dropped_before)
		rd->mpps = NAN;
	if (!o->per_cpu || !w->cpus || isnan(rd->mpps) || !(rd->secs > 0))
		return;
	rd->cpu_mpps = calloc(ncpu, sizeof(double));
	c0 = w->cpu + (size_t)from * ncpu;
	c1 = w->cpu + (size_t)to * ncpu;
	for (i = 0; rd->cpu_mpps && i < ncpu; i++)
		rd->cpu_mpps[i] = (c1[i] - c0[i]) / rd->secs / 1e6;
}

/* The most CPUs one window's packets came in on (1% of them or more). */
static void count_cpus(struct bench_net *net, const struct bench_env *env,
		       const struct samples *w)
{
	const __u64 *c1 = w->cpu + (size_t)(w->n - 1) * env->ncpu;
	__u64 total = 0;
	int i, n = 0;

	if (!w->cpus || !w->n)
		return;
	for (i = 0; i < env->ncpu; i++)
		total += c1[i] - w->cpu[i];
	for (i = 0; total && i < env->ncpu; i++)
		n += (c1[i] - w->cpu[i]) * 100 >= total;
	if (n > dev_dut(net)->rx_cpus)
		dev_dut(net)->rx_cpus = n;
}

/* What the command said it sent; the row fails if it failed or said nothing. */
static int traffic_result(struct traffic *t, struct bench_round *rd,
			  struct hc_err *err)
{
	int ret = hc_proc_result(&t->p, "--gen-cmd", err);

	if (!ret && gen_count(t->out, &rd->generated)) {
		hc_err_set(
			err,
			"--gen-cmd printed no count (a hookcmp gen -j summary's \"packets\", or a line \"packets N\")");
		ret = -EPROTO;
	}
	if (!ret)
		json_count(t->out, "\"offered\"", &rd->offered);
	return ret;
}

/*
 * A veth with GRO off and no native XDP program runs no NAPI (generic
 * XDP is no help), and takes XDP
 * frames (hookcmp gen's live method, its default) only into its NAPI:
 * the sender drops them where no counter of the DUT sees it.
 */
static bool veth_without_napi(const struct bench_net *net)
{
	struct hc_link_info li;
	struct hc_err e = {};
	bool gro = true;

	return !strcmp(dev_dut(net)->driver, "veth") &&
	       !hc_ethtool_gro(net->dut_name, &gro) && !gro &&
	       !hc_nl_link_get(net->nl_dut, net->if_dut, &li, &e) && !li.drv_id;
}

#define VETH_NAPI_FIX \
	"a veth runs NAPI only with GRO on or a native XDP program: --tune gro=on"

/*
 * Before the row's first window: a row that cannot receive this way is
 * said once, not found out after every round.
 */
static void dev_precheck(const struct bench_net *net, struct bench_row *r)
{
	if (r->warned)
		return;
	r->warned = true;
	if (veth_without_napi(net))
		fprintf(stderr,
			"Warning: %s: %s is a veth with GRO off and no native XDP program here, so it takes no XDP frames (hookcmp gen's live method, its default): this row will see nothing from such a generator; %s\n",
			r->name, net->dut_name, VETH_NAPI_FIX);
}

/*
 * The likely cause of frames sent that the DUT did not see, and its
 * fix, for the round's reason should its sum fail; the row is attached.
 */
static void dev_cause(const struct bench_net *net, struct bench_round *rd,
		      const char *out)
{
	const struct bench_dut *d = dev_dut(net);
	__u64 threads = 0;
	char *c = rd->cause;
	size_t size = sizeof(rd->cause);

	if (veth_without_napi(net))
		snprintf(c, size, "%s", VETH_NAPI_FIX);
	else if (rd->offered > rd->generated + rd->generated / 1000)
		snprintf(
			c, size,
			"the generator says only %llu of the %llu frames it offered left its device",
			(unsigned long long)rd->generated,
			(unsigned long long)rd->offered);
	else if (!json_count(out, "\"threads\"", &threads) && d->queues > 0 &&
		 threads > (__u64)d->queues)
		snprintf(
			c, size,
			"%s has %d RX channel%s, fewer than the generator's %llu threads (its TX queues): ethtool -L %s combined %llu, or --threads %d",
			net->dut_name, d->queues, d->queues > 1 ? "s" : "",
			(unsigned long long)threads, net->dut_name,
			(unsigned long long)threads, d->queues);
}

static int dev_measure(struct bench *b, struct bench_row *r,
		       struct bench_round *rd, bool perf, struct hc_err *err)
{
	int n = dev_dut(&b->net)->stats.n, ret, k, done = 0;
	struct traffic *t = calloc(1, sizeof(*t));
	__u64 *e0 = calloc(n + 1, sizeof(__u64));
	__u64 *e1 = calloc(n + 1, sizeof(__u64));
	const char *step = "reading its counters";
	struct samples w = {};
	struct hc_err rerr = {};
	struct snap s0, now;
	char round[32], why[sizeof(r->reason)];
	double end;

	if (!t || !e0 || !e1) {
		ret = -ENOMEM;
		goto out;
	}
	bench_round_name(rd, round, sizeof(round));
	dev_precheck(&b->net, r);
	/* --external: the hook's own start is not part of the window. */
	end = hc_now() + (b->opt.external ? b->opt.settle : 0);
	while (!hc_stop_sig && hc_now() < end)
		usleep(10000);
	/* The first sample is the window's zero: s0 is itself then. */
	ret = hc_fault(&rerr, "bench-read") ?:
					      sample(b, r, &w, &now, &now, true);
	s0 = now;
	if (!ret && n && hc_ethtool_stats(b->net.dut_name, e0, n))
		n = 0; /* the driver's set changed: none this round */
	if (ret)
		goto row_failed;
	if (perf) {
		ret = hc_fault(err, "bench-perf") ?:
		      bench_watch(&b->watch, true);
		if (ret)
			goto perf_failed;
	}
	ret = hc_fault(&rerr, "bench-send") ?:
		      traffic_start(&b->opt, &b->net, r, rd->round, t);
	if (ret) {
		step = "--gen-cmd";
		goto row_failed;
	}
	end = s0.t + b->opt.window;
	for (k = 1; !done && !hc_stop_sig && !ret; k++) {
		done = traffic_wait(t, s0.t + k * SAMPLE_SECS, end);
		ret = sample(b, r, &w, &s0, &now, false);
	}
	if (t->running)
		hc_proc_stop(&t->p);
	if (perf && !ret) {
		ret = bench_watch(&b->watch, false);
		if (ret)
			goto perf_failed;
	}
	if (ret || hc_stop_sig)
		goto row_failed;
	if (t->cmd) {
		ret = traffic_result(t, rd, &rerr);
		if (ret) {
			step = round;
			goto row_failed;
		}
		ret = drain(b, r, &w, &s0, &now);
		if (ret)
			goto row_failed;
	}
	/* The last edge: the counters of a kind that forks, at last. */
	if (r->kind->forks) {
		ret = sample(b, r, &w, &s0, &now, true);
		if (ret)
			goto row_failed;
	}
	if (n && hc_ethtool_stats(b->net.dut_name, e1, n))
		n = 0;
	rd->generated_known = t->cmd;
	rd->whole = !hc_stop_sig;
	dev_cause(&b->net, rd, t->cmd ? t->out : "");
	deltas(&b->net, rd, &s0, &now, n ? e0 : NULL, n ? e1 : NULL);
	/*
	 * The accounting before the window's length: frames lost on the way
	 * are what to fix first. The warm-up's too, when it is that bad.
	 */
	if (rd->generated_known &&
	    bench_round_device(r, rd, b->net.dut_name, why, sizeof(why)) < 0)
		bench_row_invalid(r, "%s", why);
	rates(&b->opt, &b->env, r, rd, &w);
	count_cpus(&b->net, &b->env, &w);
	rd->samples = w.s;
	rd->nsamples = w.n;
	w.s = NULL;
	goto out;
perf_failed:
	if (!err->msg[0])
		hc_err_set(err, "perf's control channel");
	goto out;
row_failed:
	/* A signal is not the row's failure: the round is not whole. */
	if (ret && !hc_stop_sig)
		bench_row_fail(r, step, step == round ? 0 : ret, &rerr);
	ret = 0;
out:
	if (t && t->running)
		hc_proc_stop(&t->p);
	else if (t && t->cmd)
		hc_proc_result(&t->p, "--gen-cmd",
			       &rerr); /* frees what it kept */
	free(t);
	free(e0);
	free(e1);
	free(w.s);
	free(w.cpu);
	return ret;
}

static void dev_describe(const struct bench *b, FILE *f)
{
	const struct bench_dut *d = dev_dut(&b->net);

	fprintf(f, "device %s (%s), traffic %s, %d round%s, seed %u; ",
		b->net.dut_name, d->driver[0] ? d->driver : "?",
		b->opt.gen_cmd ? "from --gen-cmd" :
				 "already flowing (--external)",
		b->res.nrounds, b->res.nrounds == 1 ? "" : "s", b->opt.seed);
	fprintf(f, "delta and ratio against %s, paired per round\n",
		b->rows.scen->baseline);
	fprintf(f,
		"ns/pkt: non-idle time (user, nice, system, irq, softirq in /proc/stat) of the receive CPUs %s per packet seen at the hook, over the steady %g s samples of each window; iptables and nft rows read their counters at the windows' edges only, and count by the device's rx_packets in between\n",
		d->rx_list, SAMPLE_SECS);
	if (d->pinned_list[0])
		fprintf(f,
			"bench and what it runs pinned to CPU %s, away from them\n",
			d->pinned_list);
	else
		fprintf(f,
			"bench and what it runs share those CPUs: their time is in every cost\n");
	if (d->rx_cpus && d->rx_cpus < d->queues && d->rx_cpus < b->env.cpus)
		fprintf(f,
			"Warning: traffic came in on %d CPU%s but %s has %d RX queues: too few flows for RSS, or its interrupts on too few CPUs\n",
			d->rx_cpus, d->rx_cpus > 1 ? "s" : "", b->net.dut_name,
			d->queues);
}

/* The receive CPUs: their busy time is the rows' cost. */
static int dev_rx_cpus(const struct bench *b, int *cpus, int max)
{
	const cpu_set_t *rx = &dev_dut(&b->net)->rx_set;
	int c, n = 0;

	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, rx))
			cpus[n++] = c;
	return n;
}

const struct bench_topo bench_topo_dev = {
	.name = "dev",
	.open = dev_open,
	.up = dev_up,
	.down = dev_down,
	.measure = dev_measure,
	.describe = dev_describe,
	.rx_cpus = dev_rx_cpus,
};
