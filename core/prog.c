// SPDX-License-Identifier: GPL-2.0
/* The parts of loading a hook's skeleton that every hook shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hookcmp.h"
#include "opts.h"
#include "set.h"

/* libbpf retries a failed load with this buffer to get the verifier log. */
static char log_buf[1 << 20];

const struct bpf_object_open_opts *hc_prog_open_opts(void)
{
	static struct bpf_object_open_opts opts = {
		.sz = sizeof(opts),
		.kernel_log_buf = log_buf,
		.kernel_log_size = sizeof(log_buf),
	};

	log_buf[0] = '\0';
	return &opts;
}

/* Keeps the last lines of the verifier log: that is where it says why. */
static void log_tail(struct hc_err *err)
{
	size_t len = strnlen(log_buf, sizeof(log_buf) - 1);
	char *p = log_buf + len;
	int lines = 0;

	while (len && log_buf[len - 1] == '\n')
		log_buf[--len] = '\0';
	for (p = log_buf + len; p > log_buf; p--) {
		if (p[-1] == '\n' && ++lines == 6)
			break;
	}
	if (len)
		snprintf(err->kernel, sizeof(err->kernel),
			 "verifier log tail:\n%s", p);
}

/* Loads only prog of the skeleton, so a failure names one program. */
int hc_prog_load(struct hc_run *r, struct bpf_object_skeleton *s,
		 const char *prog)
{
	struct bpf_object *obj = *s->obj;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct bpf_program *p;
	struct bpf_map *stats;
	int err;

	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p,
					  !strcmp(bpf_program__name(p), prog));
	err = hc_set_size_maps(r->set, obj);
	if (err)
		return err;
	err = bpf_object__load_skeleton(s);
	if (err) {
		log_tail(&r->err);
		return err;
	}
	/* The set goes in before attach: no frame sees it half filled. */
	err = hc_set_fill_maps(r->set, obj);
	if (err) {
		hc_err_set(&r->err, "filling the rule set's maps");
		return err;
	}
	p = bpf_object__find_program_by_name(obj, prog);
	stats = bpf_object__find_map_by_name(obj, "hc_stats");
	if (!p)
		return -ENOENT;
	r->prog_fd = bpf_program__fd(p);
	/* The xsk hook counts in userspace: its program has no hc_stats. */
	r->stats_fd = stats ? bpf_map__fd(stats) : -1;
	if (bpf_obj_get_info_by_fd(r->prog_fd, &info, &len))
		return -errno;
	r->prog_id = info.id;
	return 0;
}

/* Times its program ran: counted only while BPF stats are on. */
int hc_prog_runs(const struct hc_run *r, __u64 *runs)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(r->prog_fd, &info, &len))
		return -errno;
	*runs = info.run_cnt;
	return 0;
}

bool hc_hook_given(const struct hc_run *r, const char *name)
{
	int k = hc_opt_index(r->hook->opts, name);

	return k >= 0 && (r->hook_given >> k & 1);
}

void *hc_state_new(struct hc_run *r, size_t size, void (*free)(void *))
{
	r->state = calloc(1, size);
	r->state_free = r->state ? free : NULL;
	return r->state;
}

void hc_prog_unload(struct hc_run *r)
{
	if (r->state)
		r->state_free(r->state);
	r->state = NULL;
	r->prog_fd = -1;
	r->stats_fd = -1;
}
