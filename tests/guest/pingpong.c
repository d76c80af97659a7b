// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - make bench, in the guest: context switches per second of
 * two processes bouncing a byte over two pipes, (a) with the module
 * mounted and no group, (b) with 64 groups each holding a sleeping
 * process, ping-pong outside them, (c) the ping-pong pair inside a group.
 * Prints the numbers and the ratios; a benchmark, it does not fail.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MNT "/sys/fs/tgroup"
#define ROUNDS 20000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put(const char *path, int v)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fprintf(f, "%d", v);
		fclose(f);
	}
}

/* switches/s; the pair joins group g first if g is not NULL */
static double pingpong(const char *g)
{
	int a[2], b[2], i;
	double t0, t1;
	char c = 0, path[128];
	pid_t pid;

	if (pipe(a) || pipe(b))
		exit(1);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < ROUNDS; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	if (g) {
		snprintf(path, sizeof(path), MNT "/%s/cgroup.procs", g);
		put(path, pid);
		put(path, getpid());
	}
	t0 = now_s();
	for (i = 0; i < ROUNDS; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	t1 = now_s();
	waitpid(pid, NULL, 0);
	if (g)
		put(MNT "/cgroup.procs", getpid());
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 2.0 * ROUNDS / (t1 - t0);
}

int main(void)
{
	pid_t sleepers[64];
	double base, pop, inside;
	char path[128];
	int i;

	pingpong(NULL);		/* warm-up */
	base = pingpong(NULL);
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), MNT "/bench%d", i);
		mkdir(path, 0755);
		sleepers[i] = fork();
		if (sleepers[i] == 0) {
			pause();
			_exit(0);
		}
		snprintf(path, sizeof(path), MNT "/bench%d/cgroup.procs", i);
		put(path, sleepers[i]);
	}
	pop = pingpong(NULL);
	inside = pingpong("bench0");
	printf("TGTEST-BENCH: pingpong switches/s: no groups %.0f, 64 populated groups %.0f "
	       "(ratio %.3f), pair inside a group %.0f (ratio %.3f)\n",
	       base, pop, pop / base, inside, inside / base);
	for (i = 0; i < 64; i++) {
		kill(sleepers[i], 9);
		waitpid(sleepers[i], NULL, 0);
		snprintf(path, sizeof(path), MNT "/bench%d", i);
		rmdir(path);
	}
	return 0;
}
