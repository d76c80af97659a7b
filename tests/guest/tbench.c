// SPDX-License-Identifier: GPL-2.0
/*
 * tbench.c - make bench, in the guest: what the throttle's bookkeeping
 * costs tasks that come and go, and what a period costs at scale.
 * Benchmarks print numbers (TGTEST-BENCH lines); they do not fail on them.
 *
 *   tbench spawn    (module NOT loaded when started) thread create+join and
 *                   fork+wait rates: without the module; loaded and mounted
 *                   with one populated group the caller is not in; and with
 *                   the caller inside a group. Loads and unloads the module
 *                   itself (./tgroup.ko).
 *   tbench sigcont  (module NOT loaded when started) kill(SIGCONT)/s to a
 *                   process of SIGCONT_THREADS sleeping threads in no group:
 *                   without the module; loaded (inject=1) and mounted with
 *                   no group throttled; and with a group throttled (a
 *                   spinner pinned at 1 us per period). The module's
 *                   SIGCONT probe walks the target's threads only in the
 *                   last case (issue 22 a): the second rate should match
 *                   the first, the third shows what the walk costs. Loads
 *                   and unloads the module itself.
 *   tbench period   (module loaded with max_groups>=1024 and mounted) 1024
 *                   groups x 8 sleeping tasks, a few hundred periods, then
 *                   the read-only period_last_us=, period_max_us= and
 *                   period_phases_us= (collect, estimate, regulate, apply)
 *                   keys of tgroup.config.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MNT "/sys/fs/tgroup"
#define RATE_S 1.0		/* each rate measured over this long */
#define WARM_S 0.2
#define RATE_RUNS 3		/* best of */
#define PERIOD_GROUPS 1024
#define PERIOD_TASKS 8		/* per group: a process of 8 threads */
#define PERIOD_RUN_S 6.0	/* a few hundred periods (slower at this scale) */
#define SIGCONT_THREADS 256
#define INJECT "/sys/kernel/debug/tgroup/inject"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(s, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void *empty(void *arg)
{
	return arg;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static double thread_rate(double secs)
{
	double t0 = now_s(), t;
	long n = 0;
	pthread_t th;

	do {
		if (pthread_create(&th, NULL, empty, NULL))
			return -1;
		pthread_join(th, NULL);
		n++;
	} while ((t = now_s()) - t0 < secs);
	return n / (t - t0);
}

static double fork_rate(double secs)
{
	double t0 = now_s(), t;
	long n = 0;
	pid_t p;

	do {
		p = fork();
		if (p < 0)
			return -1;
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
		n++;
	} while ((t = now_s()) - t0 < secs);
	return n / (t - t0);
}

/* best of RATE_RUNS: the guest shares a host with others, noise only slows */
static void rates(double *thr, double *frk)
{
	double r;
	int i;

	thread_rate(WARM_S);
	fork_rate(WARM_S);
	*thr = *frk = 0;
	for (i = 0; i < RATE_RUNS; i++) {
		r = thread_rate(RATE_S);
		if (r > *thr)
			*thr = r;
		r = fork_rate(RATE_S);
		if (r > *frk)
			*frk = r;
	}
}

static int bench_spawn(void)
{
	double t_un, f_un, t_out, f_out, t_in, f_in;
	char path[128];
	pid_t slp;

	if (!access("/sys/module/tgroup", F_OK)) {
		printf("TGTEST-INFO: tbench spawn: tgroup already loaded, cannot measure without it\n");
		return 1;
	}
	rates(&t_un, &f_un);
	if (system("insmod ./tgroup.ko") || mount("tgroup", MNT, "tgroup", 0, NULL)) {
		printf("TGTEST-INFO: tbench spawn: cannot load and mount the module\n");
		return 1;
	}
	mkdir(MNT "/pop", 0755);
	mkdir(MNT "/self", 0755);
	slp = fork();
	if (slp == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "%d", slp);
	put(MNT "/pop/cgroup.procs", path);
	rates(&t_out, &f_out);
	if (put(MNT "/self/cgroup.procs", "0"))
		printf("TGTEST-INFO: tbench spawn: cannot join a group\n");
	rates(&t_in, &f_in);
	put(MNT "/cgroup.procs", "0");
	printf("TGTEST-BENCH: pthread_create+join/s (best of %d x %.0f s): module not loaded %.0f, mounted with one "
	       "populated group (caller outside) %.0f (ratio %.3f), caller inside a group %.0f "
	       "(ratio %.3f)\n", RATE_RUNS, RATE_S, t_un, t_out, t_out / t_un, t_in, t_in / t_un);
	printf("TGTEST-BENCH: fork+wait/s (best of %d x %.0f s): module not loaded %.0f, mounted with one populated "
	       "group (caller outside) %.0f (ratio %.3f), caller inside a group %.0f (ratio "
	       "%.3f)\n", RATE_RUNS, RATE_S, f_un, f_out, f_out / f_un, f_in, f_in / f_un);
	kill(slp, SIGKILL);
	waitpid(slp, NULL, 0);
	rmdir(MNT "/pop");
	rmdir(MNT "/self");
	if (umount(MNT) || system("rmmod tgroup"))
		printf("TGTEST-INFO: tbench spawn: unmount/unload failed\n");
	return 0;
}

/* kill(SIGCONT)/s to @pid over secs */
static double sigcont_rate_once(pid_t pid, double secs)
{
	double t0 = now_s(), t;
	long n = 0;

	do {
		kill(pid, SIGCONT);
		n++;
	} while ((t = now_s()) - t0 < secs);
	return n / (t - t0);
}

/* best of RATE_RUNS after a warm-up, as rates() */
static double sigcont_rate(pid_t pid)
{
	double r, best = 0;
	int i;

	sigcont_rate_once(pid, WARM_S);
	for (i = 0; i < RATE_RUNS; i++) {
		r = sigcont_rate_once(pid, RATE_S);
		if (r > best)
			best = r;
	}
	return best;
}

static int nr_threads(pid_t pid)
{
	char path[64], buf[4096];
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static int bench_sigcont(void)
{
	double r_un, r_idle, r_thr;
	char buf[64];
	pid_t tgt, spin;
	int i;

	if (!access("/sys/module/tgroup", F_OK)) {
		printf("TGTEST-INFO: tbench sigcont: tgroup already loaded, cannot measure without it\n");
		return 1;
	}
	tgt = fork();
	if (tgt == 0) {
		pthread_t t;

		for (i = 1; i < SIGCONT_THREADS; i++)
			pthread_create(&t, NULL, sleeper, NULL);
		sleeper(NULL);
	}
	for (i = 0; i < 1000 && nr_threads(tgt) < SIGCONT_THREADS; i++)
		usleep(10000);
	r_un = sigcont_rate(tgt);
	if (system("insmod ./tgroup.ko inject=1") || mount("tgroup", MNT, "tgroup", 0, NULL)) {
		printf("TGTEST-INFO: tbench sigcont: cannot load and mount the module\n");
		kill(tgt, SIGKILL);
		waitpid(tgt, NULL, 0);
		return 1;
	}
	r_idle = sigcont_rate(tgt);
	mkdir(MNT "/thr", 0755);
	spin = fork();
	if (spin == 0)
		for (;;)
			;
	snprintf(buf, sizeof(buf), "%d", spin);
	if (put(MNT "/thr/cgroup.procs", buf) || put(INJECT, "pin group=thr cpu_quota_us=1"))
		printf("TGTEST-INFO: tbench sigcont: cannot throttle a group\n");
	usleep(200000);
	r_thr = sigcont_rate(tgt);
	printf("TGTEST-BENCH: kill(SIGCONT)/s to a process of %d threads in no group (best of %d x "
	       "%.0f s): module not loaded %.0f, mounted with no group throttled %.0f (ratio %.3f), "
	       "with a group throttled %.0f (ratio %.3f)\n", SIGCONT_THREADS, RATE_RUNS, RATE_S,
	       r_un, r_idle, r_idle / r_un, r_thr, r_thr / r_un);
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	kill(tgt, SIGKILL);
	waitpid(tgt, NULL, 0);
	rmdir(MNT "/thr");
	if (umount(MNT) || system("rmmod tgroup"))
		printf("TGTEST-INFO: tbench sigcont: unmount/unload failed\n");
	return 0;
}

/* "key=N" in tgroup.config; -1 if absent */
static long long config_key(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

static int bench_period(void)
{
	static pid_t kids[PERIOD_GROUPS];
	char path[128], buf[8192], pid[16];
	long long last, max, per0 = -1, per1 = -1;
	double t0, spawn_s;
	int i, made = 0;
	FILE *f;

	t0 = now_s();
	for (i = 0; i < PERIOD_GROUPS; i++) {
		int fds[2];
		char c;

		snprintf(path, sizeof(path), MNT "/p%d", i);
		if (mkdir(path, 0755) || pipe(fds)) {
			printf("TGTEST-INFO: tbench period: group %d: %s\n", i, strerror(errno));
			break;
		}
		kids[i] = fork();
		if (kids[i] == 0) {
			pthread_attr_t a;
			pthread_t t;
			int k;

			pthread_attr_init(&a);
			pthread_attr_setstacksize(&a, 64 << 10);
			for (k = 1; k < PERIOD_TASKS; k++)
				if (pthread_create(&t, &a, sleeper, NULL))
					_exit(1);
			if (write(fds[1], "x", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		close(fds[1]);
		if (kids[i] < 0 || read(fds[0], &c, 1) != 1) {
			printf("TGTEST-INFO: tbench period: task %d did not start\n", i);
			close(fds[0]);
			break;
		}
		close(fds[0]);
		snprintf(path, sizeof(path), MNT "/p%d/cgroup.procs", i);
		snprintf(pid, sizeof(pid), "%d", kids[i]);
		put(path, pid);
		made++;
	}
	spawn_s = now_s() - t0;
	f = fopen(MNT "/tgroup.stat", "r");
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			sscanf(buf, "nr_periods %lld", &per0);
		fclose(f);
	}
	usleep(PERIOD_RUN_S * 1e6);
	f = fopen(MNT "/tgroup.stat", "r");
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			sscanf(buf, "nr_periods %lld", &per1);
		fclose(f);
	}
	f = fopen(MNT "/tgroup.config", "r");
	buf[0] = '\0';
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		fclose(f);
	}
	last = config_key(buf, "period_last_us=");
	max = config_key(buf, "period_max_us=");
	printf("TGTEST-BENCH: period at %d groups x %d tasks (set up in %.1f s): %lld periods in "
	       "%.1f s\n", made, PERIOD_TASKS, spawn_s, per1 - per0, PERIOD_RUN_S);
	if (last < 0 || max < 0)
		printf("TGTEST-INFO: tbench period: tgroup.config has no period_last_us=/period_max_us= "
		       "(not in this module)\n");
	else
		printf("TGTEST-BENCH: period cost at %d groups x %d tasks: last %lld us, max %lld us\n",
		       made, PERIOD_TASKS, last, max);
	{
		const char *ph = strstr(buf, "period_phases_us=");
		long long c, e, r, a;

		if (ph && sscanf(ph, "period_phases_us=%lld,%lld,%lld,%lld", &c, &e, &r, &a) == 4)
			printf("TGTEST-BENCH: period by phase at %d groups x %d tasks (the last): collect %lld us, estimate %lld us, regulate %lld us, apply %lld us\n",
			       made, PERIOD_TASKS, c, e, r, a);
	}
	for (i = 0; i < made; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < made; i++)
		waitpid(kids[i], NULL, 0);
	for (i = 0; i < made; i++) {
		snprintf(path, sizeof(path), MNT "/p%d", i);
		rmdir(path);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "spawn"))
		return bench_spawn();
	if (argc > 1 && !strcmp(argv[1], "period"))
		return bench_period();
	if (argc > 1 && !strcmp(argv[1], "sigcont"))
		return bench_sigcont();
	fprintf(stderr, "usage: tbench spawn|sigcont|period\n");
	return 2;
}
