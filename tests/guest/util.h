/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - file and process helpers for the in-guest suites. */
#ifndef TG_UTIL_H
#define TG_UTIL_H

#include <dirent.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "harness.h"

#define MNT "/sys/fs/tgroup"

/* write(2) the string in one call; returns write's result, errno kept */
static inline long wr(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	long r;
	int e;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	errno = e;
	return r;
}

static inline long wrf(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline long wrf(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return wr(path, buf);
}

/* read a whole file into buf (NUL-terminated); returns length or -1 */
static inline long rd(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
	close(fd);
	return n;
}

static inline const char *p2(const char *a, const char *b)
{
	static char bufs[8][256];
	static int i;
	char *p = bufs[i++ % 8];

	snprintf(p, 256, "%s/%s", a, b);
	return p;
}

/* path of file f in group g ("" = root) */
static inline const char *gp(const char *g, const char *f)
{
	static char bufs[8][256];
	static int i;
	char *p = bufs[i++ % 8];

	if (g[0])
		snprintf(p, 256, MNT "/%s/%s", g, f);
	else
		snprintf(p, 256, MNT "/%s", f);
	return p;
}

static inline const char *status(void)
{
	static char buf[512];

	rd(MNT "/last_cmd_status", buf, sizeof(buf));
	return buf;
}

/* parse a file of one decimal id per line; returns count, -1 on error */
static inline int read_ids(const char *path, long *ids, int max)
{
	char buf[65536], *p, *end;
	int n = 0;

	if (rd(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; *p; p = end + 1) {
		long v = strtol(p, &end, 10);

		if (end == p || *end != '\n')
			return -1;
		if (n < max)
			ids[n] = v;
		n++;
	}
	return n;
}

static inline int has_id(const char *path, long id)
{
	long ids[4096];
	int i, n = read_ids(path, ids, 4096);

	for (i = 0; i < n && i < 4096; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* ids are strictly ascending (sorted, unique) */
static inline int ids_ascending(const char *path)
{
	long ids[4096];
	int i, n = read_ids(path, ids, 4096);

	if (n < 0)
		return 0;
	for (i = 1; i < n && i < 4096; i++)
		if (ids[i] <= ids[i - 1])
			return 0;
	return 1;
}

/* thread ids of a process from /proc */
static inline int proc_tids(pid_t pid, long *tids, int max)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && n < max)
			tids[n++] = atol(de->d_name);
	closedir(d);
	return n;
}

static inline void *sleeper_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/*
 * A child process with nthreads threads in total that sleeps until killed.
 * Returns once all its threads exist.
 */
static inline pid_t spawn_sleeper(int nthreads)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		FAIL("pipe");
	pid = fork();
	if (pid < 0)
		FAIL("fork");
	if (pid == 0) {
		pthread_t t;
		int i;

		for (i = 1; i < nthreads; i++)
			pthread_create(&t, NULL, sleeper_thread, NULL);
		c = 1;
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		FAIL("sleeper did not start");
	close(fds[0]);
	return pid;
}

static inline void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static inline int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* group helpers: any failure ends the test */
#define INJECT "/sys/kernel/debug/tgroup/inject"

static inline void mk(const char *g)
{
	if (mkdir(p2(MNT, g), 0755))
		FAIL("mkdir %s: %s", g, strerror(errno));
}

static inline void join(const char *g, pid_t pid)
{
	if (wrf(gp(g, "cgroup.procs"), "%d", pid) < 0)
		FAIL("move %d to %s: %s", pid, g, strerror(errno));
}

static inline void inject(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void inject(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (wr(INJECT, buf) < 0)
		FAIL("inject '%s': %s (%s)", buf, strerror(errno), status());
}

static inline unsigned long long stat_value(const char *g, const char *key)
{
	char buf[2048], *p;
	unsigned long long v = 0;

	rd(gp(g, "tgroup.stat"), buf, sizeof(buf));
	p = strstr(buf, key);
	if (!p)
		FAIL("no %s in %s/tgroup.stat", key, g);
	if (!strncmp(p + strlen(key) + 1, "max", 3))
		return ~0ull;
	sscanf(p + strlen(key) + 1, "%llu", &v);
	return v;
}

#endif /* TG_UTIL_H */
