// SPDX-License-Identifier: GPL-2.0
/*
 * bench --runs K: K independent runs in one invocation, one after the
 * other. Each is this command again, a bench of its own (its topology,
 * warm-up, window sizing and rounds, built and torn down), told by
 * HOOKCMP_BENCH_RUN which run it is and where its document goes, the
 * runs after the first with its rows' windows (its plan). Then
 * one document holds them all, with each row's spread between the runs
 * beside their own intervals, and the runs that disagree with the
 * others flagged: the run is the unit bench compare replicates.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "diff.h"
#include "cli.h"
#include "exec.h"
#include "print.h"

/*
 * Run i of k: "hookcmp bench" with bench's own arguments, its stdout
 * where the table goes.
 */
static int run_one(int argc, char **argv, int i, int k, const char *path,
		   bool json, const char *plan, const int *keep)
{
	char env[4200], **av = calloc(argc + 2, sizeof(*av));
	int st, fd;
	pid_t pid;

	if (!av)
		return -ENOMEM;
	av[0] = "hookcmp";
	av[1] = "bench";
	memcpy(av + 2, argv + 1, (argc - 1) * sizeof(*av));

	fprintf(stderr, "hookcmp bench: run %d of %d\n", i + 1, k);
	fflush(NULL);
	snprintf(env, sizeof(env), "%d %s%s%s", i, path, plan ? " " : "",
		 plan ?: "");
	pid = fork();
	if (pid < 0) {
		free(av);
		return -errno;
	}
	if (!pid) {
		/* the runs' tables go to stderr; stdout is the summary's */
		fd = json ? open("/dev/null", O_WRONLY) : dup(2);
		if (fd < 0 || dup2(fd, 1) < 0 || setenv(BENCH_RUN_ENV, env, 1))
			_exit(127);
		/* its document's file and the plan's, by /proc/self/fd/N */
		for (; *keep >= 0; keep++)
			fcntl(*keep, F_SETFD, 0);
		execv("/proc/self/exe", av);
		_exit(127);
	}
	free(av);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (hc_stop_sig)
			kill(pid, hc_stop_sig);
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static void summary(const struct bench_cal *cal, const struct jp *const *doc,
		    char **text, int n, bool json, FILE *f)
{
	struct hc_pr p = HC_PR_INIT(json ? HC_PR_JSON : HC_PR_TEXT, f);
	int i;

	if (!json) {
		fprintf(f, "hookcmp bench: %d runs of %s, %s\n\n", n,
			jp_str(doc[0], "scenario", "?"),
			jp_str(doc[0], "topology", "?"));
		bench_cal_rows(&p, cal);
		fprintf(f,
			"ns/pkt: the median over runs of each run's median; compare runs with hookcmp bench compare OLD.json -- NEW.json\n");
		return;
	}
	hc_pr_open(&p, HC_PR_JSON, NULL, '{');
	hc_pr_fstr(&p, HC_PR_JSON, "type", NULL, "bench-runs");
	hc_pr_fstr(&p, HC_PR_JSON, "scenario", NULL,
		   jp_str(doc[0], "scenario", ""));
	hc_pr_fstr(&p, HC_PR_JSON, "topology", NULL,
		   jp_str(doc[0], "topology", ""));
	hc_pr_fu64(&p, HC_PR_JSON, "df", NULL, cal->df);
	bench_cal_rows(&p, cal);
	hc_pr_open(&p, HC_PR_JSON, "runs", '[');
	for (i = 0; i < n; i++)
		hc_pr_json_raw(&p, NULL, text[i]);
	hc_pr_close(&p, HC_PR_JSON, ']');
	hc_pr_close(&p, HC_PR_JSON, '}');
	fputc('\n', f);
}

struct runs_doc {
	const struct bench_cal *cal;
	const struct jp *const *doc;
	char **text;
	int n;
};

static void write_doc(const void *arg, FILE *f)
{
	const struct runs_doc *d = arg;

	summary(d->cal, d->doc, d->text, d->n, true, f);
}

int bench_runs(int k, const char *out_path, bool json, bool planned, int argc,
	       char **argv)
{
	char path[BENCH_CMP_RUNS][64] = {};
	int fd[BENCH_CMP_RUNS], keep[3] = { -1, -1, -1 };
	char *text[BENCH_CMP_RUNS] = {}, why[512];
	struct hc_err herr = {};
	struct jp *doc[BENCH_CMP_RUNS] = {};
	struct bench_cal cal = {};
	struct bench_cmp_set set;
	struct hc_out out;
	int i, n = 0, ret = 0, code = 0, nov = 0;

	/* checked before the first run, as a single run checks it */
	code = hc_out_open(&out, out_path);
	if (code)
		return code;
	/* In memory, not in /tmp: a kill -9 leaves no file of a run. */
	for (i = 0; i < k; i++) {
		fd[i] = memfd_create("hookcmp-run", MFD_CLOEXEC);
		if (fd[i] < 0) {
			code = hc_fail(HC_EXIT_FAIL, "bench --runs: %s",
				       strerror(errno));
			k = i;
			goto out;
		}
		snprintf(path[i], sizeof(path[i]), "/proc/self/fd/%d", fd[i]);
	}
	hc_install_signals();
	for (i = 0; i < k && !hc_stop_sig; i++) {
		keep[0] = fd[i];
		keep[1] = i && !planned ? fd[0] : -1;
		/* the first run's plan for the others: like with like */
		ret = run_one(argc, argv, i, k, path[i], json,
			      i && !planned ? path[0] : NULL, keep);
		if (ret < 0) {
			code = hc_fail(HC_EXIT_FAIL, "bench --runs: run %d: %s",
				       i + 1, strerror(-ret));
			goto out;
		}
		/*
		 * 1: the run reported, some rows INVALID; 7: reported, none
		 * valid for the load; others stop
		 */
		if (ret > 1 && ret != HC_EXIT_NO_VERDICT) {
			code = ret;
			fprintf(stderr,
				"hookcmp bench: run %d of %d ended with exit status %d; no document\n",
				i + 1, k, ret);
			goto out;
		}
		code = code ?: ret == HC_EXIT_NO_VERDICT ? 0 : ret;
		nov += ret == HC_EXIT_NO_VERDICT;
		text[n] = hc_input_read(path[i], &herr);
		if (!text[n] || jp_parse(text[n], &doc[n], why, sizeof(why))) {
			code = hc_fail(
				HC_EXIT_FAIL,
				"bench --runs: run %d wrote no document (%s)",
				i + 1, text[n] ? why : herr.msg);
			goto out;
		}
		text[n][strcspn(text[n], "\n")] = '\0';
		n++;
	}
	if (hc_stop_sig) {
		code = 128 + hc_stop_sig;
		goto out;
	}
	/* every run without a valid row: no verdict, as a single run's */
	if (!code && nov == n)
		code = HC_EXIT_NO_VERDICT;
	set = (struct bench_cmp_set){ "run", (const struct jp *const *)doc, n };
	ret = bench_calibrate(&set, &cal, why, sizeof(why));
	if (ret) {
		code = hc_fail(HC_EXIT_FAIL, "bench --runs: %s",
			       ret == -ENOMEM ? strerror(ENOMEM) : why);
		goto out;
	}
	summary(&cal, set.doc, text, n, json, stdout);
	fflush(stdout);
	code = hc_out_write(&out, write_doc,
			    &(struct runs_doc){ &cal, set.doc, text, n }) ?:
		       code;
out:
	hc_out_abandon(&out);
	free(cal.rows);
	for (i = 0; i < k; i++) {
		jp_free(doc[i]);
		free(text[i]);
		close(fd[i]);
	}
	return code;
}
