/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - a tiny test harness for the in-guest suites.
 *
 * TEST(name) { ... } registers a test. Each test runs in its own child
 * process; an EXPECT that fails prints the reason and ends the child.
 * The runner prints one line per test, which the host parses:
 *   TGTEST: PASS name
 *   TGTEST: FAIL name: file:line: reason
 * Run a subset with: suite name1 name2 ...
 */
#ifndef TG_HARNESS_H
#define TG_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct tg_test {
	const char *name;
	void (*fn)(void);
	unsigned int timeout_s;
};

#define TG_MAX_TESTS 128
static struct tg_test tg_tests[TG_MAX_TESTS];
static int tg_nr_tests;
static int tg_fail_fd = -1;	/* pipe to the runner for the reason */

static void tg_register(const char *name, void (*fn)(void), unsigned int t)
{
	if (tg_nr_tests < TG_MAX_TESTS)
		tg_tests[tg_nr_tests++] = (struct tg_test){ name, fn, t };
}

#define TEST_T(name, timeout)						\
	static void name(void);						\
	__attribute__((constructor)) static void reg_##name(void)	\
	{ tg_register(#name, name, timeout); }				\
	static void name(void)
#define TEST(name) TEST_T(name, 60)

__attribute__((format(printf, 3, 4), noreturn))
static void tg_fail(const char *file, int line, const char *fmt, ...)
{
	char buf[512];
	int n;
	va_list ap;

	n = snprintf(buf, sizeof(buf), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (tg_fail_fd >= 0 && write(tg_fail_fd, buf, strlen(buf)) < 0)
		perror("write");
	_exit(1);
}

__attribute__((format(printf, 4, 5), noreturn))
static void tg_fail_cond(const char *file, int line, const char *cond,
			 const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tg_fail(file, line, "expected %s%s%s", cond, msg[0] ? ": " : "", msg);
}

#define FAIL(...) tg_fail(__FILE__, __LINE__, __VA_ARGS__)
/* EXPECT(cond) or EXPECT(cond, "fmt", args...) */
#define EXPECT(cond, ...)						\
	do { if (!(cond)) tg_fail_cond(__FILE__, __LINE__, #cond, "" __VA_ARGS__); } while (0)
#define EXPECT_EQ_LL(a, b) do {						\
	long long _a = (a), _b = (b);					\
	if (_a != _b) FAIL("%s == %lld, expected %s == %lld", #a, _a, #b, _b); \
} while (0)
#define EXPECT_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (strcmp(_a, _b)) FAIL("%s is \"%s\", expected \"%s\"", #a, _a, _b); \
} while (0)
/* expect a syscall-style call to fail with errno e */
#define EXPECT_ERRNO(call, e) do {					\
	errno = 0;							\
	long _r = (long)(call);						\
	if (_r != -1 || errno != (e))					\
		FAIL("%s returned %ld errno %d (%s), expected errno %d (%s)", \
		     #call, _r, errno, strerror(errno), (e), strerror(e)); \
} while (0)
#define EXPECT_OK(call) do {						\
	errno = 0;							\
	long _r = (long)(call);						\
	if (_r < 0) FAIL("%s failed: %s", #call, strerror(errno));	\
} while (0)

/*
 * What a task is doing, for a report: its state letter and wchan, and its
 * kernel stack if readable (root, CONFIG_STACKTRACE), frames separated by
 * " < ". Returns buf.
 */
static inline char *tg_describe_task(pid_t pid, char *buf, size_t size)
{
	char path[64], st[1024], wchan[128] = "?", stack[2048] = "", *p, *q;
	char state = '?';
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(st, sizeof(st), f) && (p = strrchr(st, ')')) && p[1] == ' ')
			state = p[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			snprintf(wchan, sizeof(wchan), "?");
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f) && n + 4 < sizeof(stack)) {
			/* "[<0>] func+0x1/0x2" -> "func+0x1/0x2" */
			p = strchr(line, ']');
			p = p ? p + 2 : line;
			q = strchr(p, '\n');
			if (q)
				*q = '\0';
			n += snprintf(stack + n, sizeof(stack) - n, "%s%s", n ? " < " : "", p);
		}
		fclose(f);
	}
	snprintf(buf, size, "pid %d state %c wchan %s%s%s", pid, state, wchan,
		 stack[0] ? " stack: " : " (stack unreadable)", stack);
	return buf;
}

static inline double tg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Seconds the runner waits past a test's own timeout (its alarm) before
 * killing it, and again after SIGKILL before giving up on it: a test stuck
 * in the kernel (D state) ignores both, and must not hang the runner.
 */
#define TG_RUNNER_GRACE_S 5

static int tg_run_one(const struct tg_test *t)
{
	char reason[512] = "", what[1200];
	int fds[2], status = 0, killed = 0, hung = 0;
	double deadline, t0 = tg_now();
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		tg_fail_fd = fds[1];
		setpgid(0, 0);
		alarm(t->timeout_s);
		t->fn();
		_exit(0);
	}
	close(fds[1]);
	/*
	 * Wait for the test itself with a deadline, then kill what it left
	 * behind (its process group), then read the reason without blocking:
	 * leftovers may still hold the pipe's write end.
	 */
	deadline = tg_now() + t->timeout_s + TG_RUNNER_GRACE_S;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (tg_now() < deadline) {
			usleep(20000);
			continue;
		}
		if (killed) {
			hung = 1;
			break;
		}
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		killed = 1;
		deadline = tg_now() + TG_RUNNER_GRACE_S;
	}
	if (hung)
		tg_describe_task(pid, what, sizeof(what));
	kill(-pid, SIGKILL);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	n = read(fds[0], reason, sizeof(reason) - 1);
	reason[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	/* what each test costs (make check's budget): read from the console */
	printf("TGTEST-INFO: test %s took %.1f s\n", t->name, tg_now() - t0);
	if (hung) {
		printf("TGTEST-INFO: %s: test process unkillable after its %u s timeout: %s\n",
		       t->name, t->timeout_s, what);
		printf("TGTEST: FAIL %s: hung in the kernel past its %u s timeout, SIGKILL "
		       "ignored (%.200s)%s%s\n", t->name, t->timeout_s, what,
		       reason[0] ? "; it had reported: " : "", reason);
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("TGTEST: PASS %s\n", t->name);
		return 0;
	}
	if (!reason[0]) {
		if (WIFSIGNALED(status))
			snprintf(reason, sizeof(reason), "killed by signal %d%s",
				 WTERMSIG(status),
				 WTERMSIG(status) == SIGALRM ? " (timeout)" :
				 killed ? " (timeout: ignored its alarm, killed by the runner)" : "");
		else
			snprintf(reason, sizeof(reason), "exit %d",
				 WEXITSTATUS(status));
	}
	printf("TGTEST: FAIL %s: %s\n", t->name, reason);
	return 1;
}

static int tg_selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

static int tg_run_all(int argc, char **argv)
{
	int i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < tg_nr_tests; i++)
		if (tg_selected(tg_tests[i].name, argc, argv))
			failed += tg_run_one(&tg_tests[i]) != 0;
	return failed ? 1 : 0;
}

#endif /* TG_HARNESS_H */
