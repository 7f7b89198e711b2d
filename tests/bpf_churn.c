// SPDX-License-Identifier: GPL-2.0
/*
 * Another BPF user on the host, for tests/run.sh: loads and unloads
 * programs and maps with hookcmp's own names (hc_xdp, hc_stats), holding a
 * few at a time, until SIGTERM; then prints how many. It keeps to about a
 * twentieth of a CPU: under an emulated CPU (scripts/vm-check.sh) a load
 * costs a millisecond or more, and loading without a pause took half of
 * the guest's time from the tests beside it.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#define HOLD 8

static volatile sig_atomic_t stop;

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

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
	long long t0, spent;

	signal(SIGTERM, on_term);
	/* A runner killed -9 sends no SIGTERM: its death does. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	for (i = 0; i < HOLD; i++)
		fds[i][0] = fds[i][1] = -1;
	while (!stop) {
		t0 = now_us();
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
		/* Paused 40 times as long as the work (freeing is deferred
		 * work of about the same size), and at least 2 ms.
		 */
		spent = now_us() - t0;
		usleep(40 * spent > 2000 ? 40 * spent : 2000);
	}
	printf("%llu\n", loaded);
	return 0;
}
