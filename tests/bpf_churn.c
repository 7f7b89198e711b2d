// SPDX-License-Identifier: GPL-2.0
/*
 * Another BPF user on the host, for tests/run.sh: loads and unloads
 * programs and maps with hookcmp's own names (hc_xdp, hc_stats) as fast as
 * it can, holding a few at a time, until SIGTERM; then prints how many.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#define HOLD 8

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

int main(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fds[HOLD][2], i, n = 0;
	unsigned long long loaded = 0;

	signal(SIGTERM, on_term);
	for (i = 0; i < HOLD; i++)
		fds[i][0] = fds[i][1] = -1;
	while (!stop) {
		i = n++ % HOLD;
		if (fds[i][0] >= 0)
			close(fds[i][0]);
		if (fds[i][1] >= 0)
			close(fds[i][1]);
		fds[i][0] = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "hc_xdp",
					  "GPL", insns, 2, NULL);
		fds[i][1] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hc_stats", 4, 8,
					   1, NULL);
		if (fds[i][0] >= 0 && fds[i][1] >= 0)
			loaded++;
		usleep(2000);
	}
	printf("%llu\n", loaded);
	return 0;
}
