// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_test.c - acceptance tests of the module's CPU throttle (the
 * "park" that holds a group's tasks once its quota is used): exact quotas
 * for short-lived threads and processes, what a parked task looks like to
 * the rest of the system (no EINTR, state S, freezable, io_uring's kernel
 * threads never parked), prompt release on every way out of a throttle, a
 * floor on overrun debt, and that unmount/unload never hang - not from
 * inside a throttled group, not with a stopped or traced member, not after
 * a long churn.
 *
 * Expects tgroup.ko loaded with inject=1 and mounted; the suite script
 * ("throttle") loads a fresh module for every test and unloads it after,
 * with a deadline. Anything here that may block on the module (umount,
 * rmmod, mount) runs in a child process that is waited for with a deadline:
 * a child still running then is reported as FAIL with its state, wchan and
 * kernel stack (/proc/PID/stack), never waited for forever.
 *
 * CPU shares come from getrusage() (RUSAGE_SELF includes exited threads,
 * RUSAGE_CHILDREN reaped children; both are the scheduler's exact runtime)
 * or /proc/PID/task/TID/schedstat, against CLOCK_MONOTONIC.
 *
 *   throttle_test [name...]      run the tests (all, or those named)
 *   throttle_test --list         the test names, in order
 *   throttle_test --cleanup NAME after test NAME: unmount and unload with
 *                                a deadline; exit 1 if the module is stuck
 *
 * TG_CHURN_SECONDS sets the churn test's length (default 15).
 */
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <grp.h>

#include "util.h"

/* ---- tolerances and bounds (named once, used everywhere) ----------------- */

#define PERIOD_MS		10	/* the module's default period */
#define Q10_US			1000	/* 10 % of one CPU per 10 ms period */
#define Q10_SHARE		0.10
#define Q1_US			100	/* 1 % of one CPU: "parked" */
#define Q1_SHARE		0.01
#define QTINY_US		1	/* 0.01 %: an overrun takes seconds to repay */
#define REQ_TOL			0.10	/* per-request threads/processes: at most quota + 10 % */
/*
 * ... and at least quota - 20 %: under the quota is no escape, and a group
 * whose every request is a new thread or process on a TCG guest loses a
 * little more to creation and exit (quota_fork_per_request_500us read
 * 0.088 once on a quiet host, 26 Nov, with no code change; 0.085-0.090 on
 * the debug kernel).
 */
#define REQ_TOL_LOW		0.20
#define SPIN_TOL		0.05	/* one long spinner: +-5 % of the quota */
#define WARMUP_S		0.5	/* in the group before measuring */
/*
 * Quota measurements: 3 s, 300 quota periods: a period's worth of CPU at
 * either end is 0.3 % of the quota, and 5 s runs on the cloud kernels read
 * 0.095-0.100 against 0.10 (26-27 Nov), well inside the tolerances above;
 * the fork workload still makes about 60 requests in 3 s (97 in 5 s).
 * TG_MEASURE_SECONDS (the suite's tg.measure_s=N) sets another length: the
 * debug-kernel lane runs them for 1 s, for what the sanitizers see, their
 * verdict not counted (tests/vm/dbg-lane.sh).
 */
#define MEASURE_S		measure_s(3.0)
/*
 * children_start_throttled counts the children its forker makes (more than
 * 10 asked): 40 in 5 s on a quiet host, 32 on a loaded one, so it keeps
 * 5 s unless told otherwise (19 in 3 s would leave too little margin on a
 * host twice as slow).
 */
#define CHILD_MEASURE_S		measure_s(5.0)

/* the suite's measurement length, TG_MEASURE_SECONDS if set, else dflt */
static double measure_s(double dflt)
{
	static double v = -1;

	if (v < 0) {
		const char *env = getenv("TG_MEASURE_SECONDS");

		v = env ? atof(env) : 0;
		if (!(v >= 1 && v <= 60))
			v = 0;
	}
	return v ? v : dflt;
}

#define UMOUNT_TRIES		20
#define UMOUNT_BOUND_S		10.0	/* one umount from inside a throttled group */
#define STOPPED_UMOUNT_BOUND_S	3.0	/* umount with a stopped/traced member */
#define STOP_BOUND_S		3.0	/* SIGSTOP/PTRACE_INTERRUPT takes effect */
#define RMMOD_PROMPT_S		3.0	/* rmmod returns, success or EBUSY/EAGAIN */
#define UNLOAD_BOUND_S		20.0	/* rmmod retried until it succeeds */
#define RECOVER_BOUND_S		10.0	/* a hung umount after the cause is removed */

#define NOP_BOUND_MS		200	/* io_uring NOP through a throttled group's SQ thread */
#define ASYNC_RELEASE_BOUND_S	2.0	/* an offloaded NOP after its group's release */
#define NOP_PHASE_S		2.0
#define SQ_IDLE_MS		50	/* SQPOLL thread sleeps after this */

#define WAIT_MS			20	/* epoll_wait / semtimedop / SO_RCVTIMEO */
#define EINTR_PHASE_S		2.0
#define MIN_WAITS		3	/* each waiter got to wait at least this often */
#define SAMPLE_PHASE_S		2.0	/* /proc state sampling */
#define MIN_PARKED_SAMPLES	10	/* samples that saw the burner off CPU */
#define FREEZE_BOUND_S		2.0	/* cgroup.events "frozen 1" */
#define SYSFREEZE_BOUND_S	40.0	/* echo freeze > /sys/power/state with pm_test */

#define RELEASE_BOUND_MS	100	/* released task runs within this (TCG is slow), on
					 * a host as fast as when a free process ran
					 * RELEASE_CPU_MS in that; slower: scaled */
#define RELEASE_CPU_MS		30	/* "runs": 30 ms of CPU, more than an overrun burst */
#define DEEP_PARK_S		0.5	/* two burners against 1 %: a deep overrun */
#define PARKED_MAX_SHARE	0.15	/* a parked process gets at most this (15x its
					 * quota: overrun bursts under TCG), released
					 * ones get ~1.5 CPUs */

#define DEBT_THREADS		200
#define DEBT_SPIN_S		1.0
#define DEBT_RESUME_BOUND_S	3.0	/* the group runs again after the burst; the
					 * last spinner never stalls longer (the floor:
					 * 100 periods, ~1 s; without it ~200 s; 2.0
					 * failed once at 2.065 s, host busy with
					 * test_plant runs, 26 Nov, no code change), on
					 * a host as fast as when a free process ran
					 * RELEASE_CPU_MS in that; slower: scaled, as
					 * RELEASE_BOUND_MS (make check boots two
					 * guests at once: 1.57 s seen, 27 Nov) */
#define DEBT_BLOCK_BOUND_S	20.0	/* the 199 others reach their pipe read: the
					 * 3 s above + 17 s of their own CPU at 1 %
					 * (80 ms for 199 wake-ups under TCG on a quiet
					 * host; 5 s failed once at 112 of 199, 10 s at
					 * 185 of 199 with the host at load 6). The
					 * fault it catches, a debt without a floor,
					 * parks them for 200 x 1 s / 1 % = 20000 s */
#define DEBT_SHARE_S		3.0	/* plus the bound: a spinner that never runs
					 * stalls longer than the bound */
#define DEBT_SCALE_MAX		2.0	/* the bound scaled by at most this (the
					 * t_first loop gives up at DEBT_BLOCK_BOUND_S) */
#define DEBT_SHARE_TOL		0.50	/* "about its quota" at 1 %: +-50 % */

#define CHILD_FAST_MAX		1	/* children_start_throttled: see there */
#define CHILD_SPIN_US		5000	/* children forked while throttled */
#define CHILD_MAX_INFLIGHT	8
#define CHILD_PARENT_MB		64	/* makes fork() slower than the allowance */
/*
 * children_start_throttled's group at most quota + 20 %, not REQ_TOL: each
 * child's exit tears down a copy of CHILD_PARENT_MB's page tables, and an
 * exiting task is never parked (module/actuators/cpu.c), so that work runs
 * past the quota; it is charged to the group all the same and repaid as
 * debt, but the window can end with up to TG_CPU_DEBT_PERIODS (100)
 * periods' quota of it unrepaid: 100 ms, 0.02 of one CPU over 5 s - quota
 * + 20 %. Under TCG that work grows with the host's slowness: read 0.113
 * once (6.12 guest, 28 Nov, beside the 6.1 guest on a host at 87 % of 2
 * cores: 12 children in 5.64 s where a quiet run forks 22-35, 0.098-0.101),
 * no code change. Children starting unparked are caught by the "fast"
 * count (CHILD_FAST_MAX), not by this bound (their CPU is charged and
 * repaid too); CPU not charged at all shows here.
 */
#define CHILD_TOL		0.20

/*
 * 15 s in the cloud-kernel guests (6.1 and 6.12: make check's budget); the
 * debug-kernel lane runs 30 s under lockdep and KASAN (tests/vm/dbg-lane.sh).
 */
#define CHURN_DEFAULT_S		15
#define CHURN_GROUPS		8	/* c0..c7, created and removed */
#define CHURN_STABLE		4	/* s0..s3, with a spinner each */
#define CHURN_STORMS		3	/* fork/exit storming processes */

/* ---- helpers ------------------------------------------------------------- */

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

static void *shm(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		FAIL("mmap: %s", strerror(errno));
	return p;
}

static long long ts_ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* spin until this thread has used us more microseconds of CPU */
static void spin_cpu_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while (ts_ns(&b) - ts_ns(&a) < us * 1000LL);
}

/* CPU seconds of this process: its threads (live and exited) + reaped children */
static double rusage_cpu_s(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return s.ru_utime.tv_sec + s.ru_utime.tv_usec / 1e6 +
	       s.ru_stime.tv_sec + s.ru_stime.tv_usec / 1e6 +
	       c.ru_utime.tv_sec + c.ru_utime.tv_usec / 1e6 +
	       c.ru_stime.tv_sec + c.ru_stime.tv_usec / 1e6;
}

static unsigned long long tid_cpu_ns(pid_t pid, long tid)
{
	char path[96], buf[128];
	unsigned long long ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/schedstat", pid, tid);
	if (rd(path, buf, sizeof(buf)) > 0)
		sscanf(buf, "%llu", &ns);
	return ns;
}

/* ns on CPU of all live threads of a process */
static unsigned long long proc_cpu_ns(pid_t pid)
{
	long tids[512];
	unsigned long long ns = 0;
	int i, n = proc_tids(pid, tids, 512);

	for (i = 0; i < n; i++)
		ns += tid_cpu_ns(pid, tids[i]);
	return ns;
}

/* state letter of a thread ('?' if gone) */
static char tid_state(pid_t pid, long tid)
{
	char path[96], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", pid, tid);
	if (rd(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')) || p[1] != ' ')
		return '?';
	return p[2];
}

static void tid_file(pid_t pid, long tid, const char *f, char *buf, size_t n)
{
	char path[96], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/%s", pid, tid, f);
	if (rd(path, buf, n) < 0)
		buf[0] = '\0';
	p = strchr(buf, '\n');
	if (p)
		*p = '\0';
}

/* CPU share (of one CPU) of a process over secs */
static double proc_share(pid_t pid, double secs)
{
	unsigned long long a = proc_cpu_ns(pid);
	double t0 = tg_now();

	usleep(secs * 1e6);
	return (proc_cpu_ns(pid) - a) / 1e9 / (tg_now() - t0);
}

static void *spin_thread(void *arg)
{
	volatile unsigned long *c = arg;

	for (;;)
		if (c)
			(*c)++;
	return NULL;
}

/* a process of n spinning threads; c[8 * i] counts thread i's loops if c */
static pid_t spinner_proc(int n, volatile unsigned long *c)
{
	pid_t pid = fork();

	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		pthread_t t;
		int i;

		for (i = 1; i < n; i++)
			pthread_create(&t, NULL, spin_thread, c ? (void *)(c + 8 * i) : NULL);
		spin_thread((void *)c);
	}
	return pid;
}

static void pin(const char *g, unsigned int quota_us)
{
	inject("pin group=%s cpu_quota_us=%u", g, quota_us);
}

static void set_period_ms(unsigned int ms)
{
	if (wrf(gp("", "tgroup.config"), "period_ms=%u", ms) < 0)
		FAIL("period_ms=%u: %s (%s)", ms, strerror(errno), status());
}

/* wait until group g has been throttled more than `after` times */
static void wait_throttled(const char *g, unsigned long long after, double limit_s)
{
	double t0 = tg_now();

	while (stat_value(g, "nr_throttled") <= after) {
		if (tg_now() - t0 > limit_s)
			FAIL("group %s not throttled within %.1f s (nr_throttled %llu)", g,
			     limit_s, stat_value(g, "nr_throttled"));
		usleep(5000);
	}
}

/* wait until pid's thread tid is off CPU (parked) as seen in /proc */
static int wait_off_cpu(pid_t pid, long tid, double limit_s)
{
	double t0 = tg_now();
	char s;

	while (tg_now() - t0 < limit_s) {
		s = tid_state(pid, tid);
		if (s != 'R' && s != '?')
			return 1;
		usleep(2000);
	}
	return 0;
}

/* ---- bounded children: whatever may hang runs in one ---------------------- */

struct bounded {
	pid_t pid;
	int status;
	int done;
	double secs;
	double t0;
};

static void bounded_start(struct bounded *b, int (*fn)(void *), void *arg)
{
	fflush(stdout);
	b->done = 0;
	b->t0 = tg_now();
	b->pid = fork();
	if (b->pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (b->pid == 0)
		_exit(fn(arg));
}

/* 1 once the child has exited (b->status), 0 if still running after limit_s more */
static int bounded_wait(struct bounded *b, double limit_s)
{
	double t0 = tg_now();

	while (!b->done) {
		pid_t r = waitpid(b->pid, &b->status, WNOHANG);

		if (r == b->pid) {
			b->done = 1;
			break;
		}
		if (tg_now() - t0 > limit_s)
			break;
		usleep(2000);
	}
	b->secs = tg_now() - b->t0;
	return b->done;
}

/* the child's result: its exit code (an errno), or -1 if it died otherwise */
static int bounded_rc(const struct bounded *b)
{
	return WIFEXITED(b->status) ? WEXITSTATUS(b->status) : -1;
}

static int bounded_run(struct bounded *b, int (*fn)(void *), void *arg, double limit_s)
{
	bounded_start(b, fn, arg);
	return bounded_wait(b, limit_s);
}

/* describe a child that did not return, print it in full, return a short form */
static const char *hung_report(const char *test, const char *what, const struct bounded *b)
{
	static char d[1400];

	tg_describe_task(b->pid, d, sizeof(d));
	printf("TGTEST-INFO: %s: %s still running after %.1f s: %s\n", test, what, b->secs, d);
	return d;
}

static int do_umount(void *arg)
{
	(void)arg;
	return umount(MNT) ? errno : 0;
}

static int do_mount(void *arg)
{
	(void)arg;
	return mount("tgroup", MNT, "tgroup", 0, NULL) ? errno : 0;
}

static int do_rmmod(void *arg)
{
	(void)arg;
	return syscall(SYS_delete_module, "tgroup", O_NONBLOCK) ? errno : 0;
}

static int do_umount_from_group(void *arg)
{
	const char *g = arg;

	if (wr(gp(g, "cgroup.procs"), "0") < 0)
		return 200;
	return umount(MNT) ? errno : 0;
}

static int module_loaded(void)
{
	char buf[65536];

	rd("/proc/modules", buf, sizeof(buf));
	return !strncmp(buf, "tgroup ", 7) || strstr(buf, "\ntgroup ");
}

static int mounted(void)
{
	char buf[65536];

	rd("/proc/mounts", buf, sizeof(buf));
	return strstr(buf, " " MNT " ") != NULL;
}

/*
 * rmmod until it succeeds, each try bounded; a try that hangs ends the test.
 * Returns 1 once unloaded, 0 if it kept failing (last errno in *err).
 */
static int unload_within(const char *test, double limit_s, int *err)
{
	double t0 = tg_now();
	struct bounded b;

	do {
		if (!bounded_run(&b, do_rmmod, NULL, RMMOD_PROMPT_S))
			FAIL("rmmod did not return within %.0f s: %.300s", RMMOD_PROMPT_S,
			     hung_report(test, "rmmod", &b));
		*err = bounded_rc(&b);
		if (!*err)
			return 1;
		usleep(100000);
	} while (tg_now() - t0 < limit_s);
	return 0;
}

/* ---- 3. exact quotas for short-lived threads and processes ----------------- */

enum workload { WL_THREADS, WL_FORKS, WL_SPIN };

struct quota_res {
	double cpu, wall;
	long reqs;
	int err;
};

static void *request_thread(void *arg)
{
	spin_cpu_us((long)arg);
	return NULL;
}

/*
 * In group g: WARMUP_S, then MEASURE_S of the workload, measured from this
 * process's own rusage at request boundaries (nothing of it alive then).
 */
static void __attribute__((noreturn))
quota_workload(const char *g, enum workload kind, long us, struct quota_res *res)
{
	double start, t, t0 = 0, c0 = 0;
	int measuring = 0;
	long reqs = 0;

	if (wr(gp(g, "cgroup.procs"), "0") < 0) {
		res->err = errno;
		_exit(1);
	}
	start = tg_now();
	for (;;) {
		t = tg_now();
		if (!measuring && t - start >= WARMUP_S) {
			c0 = rusage_cpu_s();
			t0 = tg_now();
			measuring = 1;
			reqs = 0;
		} else if (measuring && t - t0 >= MEASURE_S) {
			res->cpu = rusage_cpu_s() - c0;
			res->wall = tg_now() - t0;
			res->reqs = reqs;
			_exit(0);
		}
		if (kind == WL_THREADS) {
			pthread_t th;

			if (pthread_create(&th, NULL, request_thread, (void *)us))
				_exit(2);
			pthread_join(th, NULL);
		} else if (kind == WL_FORKS) {
			pid_t p = fork();

			if (p < 0)
				_exit(3);
			if (p == 0) {
				spin_cpu_us(us);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		} else {
			spin_cpu_us(1000);
		}
		reqs++;
	}
}

/* A new group at the default period, pinned at quota_us. */
static void pinned_group(const char *g, long quota_us)
{
	set_period_ms(PERIOD_MS);
	mk(g);
	pin(g, quota_us);
}

static void quota_case(const char *name, enum workload kind, long us, double tol_lo, double tol)
{
	struct quota_res *r = shm(sizeof(*r));
	struct bounded b = { 0 };
	double share, lo = Q10_SHARE * (1 - tol_lo), hi = Q10_SHARE * (1 + tol);
	pid_t w;

	pinned_group("q", Q10_US);
	w = fork();
	if (w < 0)
		FAIL("fork");
	if (w == 0)
		quota_workload("q", kind, us, r);
	b.pid = w;
	b.t0 = tg_now();
	if (!bounded_wait(&b, WARMUP_S + MEASURE_S + 20))
		FAIL("the workload did not finish: %.300s", hung_report(name, "workload", &b));
	EXPECT(!r->err, "join q: %s", strerror(r->err));
	EXPECT(WIFEXITED(b.status) && !WEXITSTATUS(b.status), "workload status %#x", b.status);
	share = r->cpu / r->wall;
	printf("TGTEST-INFO: %s: %.3f of one CPU over %.2f s (quota %.2f, -%.0f/+%.0f %%: %.3f..%.3f), "
	       "%ld requests, nr_throttled %llu\n", name, share, r->wall, Q10_SHARE, tol_lo * 100,
	       tol * 100, lo, hi, r->reqs, stat_value("q", "nr_throttled"));
	EXPECT(r->reqs > 10, "only %ld requests", r->reqs);
	EXPECT(share >= lo && share <= hi, "share %.3f, expected %.2f -%.0f/+%.0f %%", share,
	       Q10_SHARE, tol_lo * 100, tol * 100);
	rmdir(p2(MNT, "q"));
}

TEST_T(quota_thread_per_request_300us, 40)
{
	quota_case("quota_thread_per_request_300us", WL_THREADS, 300, REQ_TOL_LOW, REQ_TOL);
}

TEST_T(quota_thread_per_request_800us, 40)
{
	quota_case("quota_thread_per_request_800us", WL_THREADS, 800, REQ_TOL_LOW, REQ_TOL);
}

TEST_T(quota_fork_per_request_500us, 40)
{
	quota_case("quota_fork_per_request_500us", WL_FORKS, 500, REQ_TOL_LOW, REQ_TOL);
}

TEST_T(quota_long_spinner, 40)
{
	quota_case("quota_long_spinner", WL_SPIN, 0, SPIN_TOL, SPIN_TOL);
}

/* ---- 8. children forked while the group is throttled ------------------------ */

/*
 * A process in g (10 %: 1 ms per 10 ms period) with a burner thread, so g
 * is at its quota and throttled most of the time, whose main thread keeps
 * forking children that each spin CHILD_SPIN_US. The process has
 * CHILD_PARENT_MB of touched memory, so every fork (copying its page
 * tables) takes longer than the group's whole allowance: the throttle
 * begins while the parent is inside fork(), i.e. the child is born into a
 * throttled group. Such a child must start parked, not run until the
 * period ends. Checked two ways:
 *  - directly: no child finishes its 5 ms of CPU within one period of wall
 *    time from when its parent entered fork() - the group (fork + child)
 *    would have used over 5 ms in 10 ms at a quota of 1 ms;
 *  - in sum: the whole group (parent, burner, every child) stays within
 *    10 % - REQ_TOL .. + CHILD_TOL.
 * Sequential fork+exit children are quota_fork_per_request_500us.
 */
struct child_res {
	double cpu, wall;
	long children;
	long fast;		/* children that spun CHILD_SPIN_US in < 1 period of wall */
	int err;
};

static void *burn_forever(void *arg)
{
	(void)arg;
	for (;;)
		;
	return NULL;
}

TEST_T(children_start_throttled, 40)
{
	struct child_res *r = shm(sizeof(*r));
	struct bounded b = { 0 };
	double share, lo = Q10_SHARE * (1 - REQ_TOL), hi = Q10_SHARE * (1 + CHILD_TOL);
	pid_t w;

	pinned_group("kids", Q10_US);
	w = fork();
	if (w == 0) {
		double t0, c0, t_fork;
		int inflight = 0;
		pthread_t th;

		size_t big = CHILD_PARENT_MB << 20;
		char *mem = mmap(NULL, big, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED) {
			r->err = errno;
			_exit(1);
		}
		memset(mem, 1, big);	/* before joining: at 10 % this would take long */
		if (wr(gp("kids", "cgroup.procs"), "0") < 0) {
			r->err = errno;
			_exit(1);
		}
		c0 = rusage_cpu_s();
		t0 = tg_now();
		pthread_create(&th, NULL, burn_forever, NULL);
		while (tg_now() - t0 < CHILD_MEASURE_S) {
			pid_t p;
			int st;

			while (inflight >= CHILD_MAX_INFLIGHT && wait(&st) > 0) {
				inflight--;
				r->fast += WIFEXITED(st) && WEXITSTATUS(st) == 1;
			}
			while (inflight && waitpid(-1, &st, WNOHANG) > 0) {
				inflight--;
				r->fast += WIFEXITED(st) && WEXITSTATUS(st) == 1;
			}
			t_fork = tg_now();
			p = fork();
			if (p == 0) {
				spin_cpu_us(CHILD_SPIN_US);
				_exit(tg_now() - t_fork < PERIOD_MS / 1e3 ? 1 : 0);
			}
			if (p > 0) {
				inflight++;
				r->children++;
			}
		}
		while (inflight) {
			int st;

			if (wait(&st) <= 0)
				break;
			inflight--;
			r->fast += WIFEXITED(st) && WEXITSTATUS(st) == 1;
		}
		r->cpu = rusage_cpu_s() - c0;
		r->wall = tg_now() - t0;
		_exit(0);
	}
	b.pid = w;
	b.t0 = tg_now();
	if (!bounded_wait(&b, CHILD_MEASURE_S + 20))
		FAIL("the forking process did not finish: %.300s",
		     hung_report("children_start_throttled", "forker", &b));
	EXPECT(!r->err, "join: %s", strerror(r->err));
	share = r->cpu / r->wall;
	printf("TGTEST-INFO: children_start_throttled: group %.3f of one CPU over %.2f s "
	       "(quota %.2f, %.3f..%.3f), %ld children of %d us, %ld of them finished within "
	       "one period (%d ms) of their fork\n", share, r->wall, Q10_SHARE, lo, hi,
	       r->children, CHILD_SPIN_US, r->fast, PERIOD_MS);
	EXPECT(r->children > 10, "only %ld children", r->children);
	/*
	 * One may: the 6.12 guest saw 1 of 32 once on a host at load 2.4 (the
	 * enforcer's slice late under TCG); children starting unparked show
	 * as most of them.
	 */
	EXPECT(r->fast <= CHILD_FAST_MAX, "%ld of %ld children forked into the throttled group "
	       "ran %d us of CPU within one period of their fork (quota %d us per period; at "
	       "most %d may)", r->fast, r->children, CHILD_SPIN_US, Q10_US, CHILD_FAST_MAX);
	EXPECT(share >= lo && share <= hi, "group share %.3f with throttled children, "
	       "expected %.2f - %.0f %% .. + %.0f %%", share, Q10_SHARE, REQ_TOL * 100,
	       CHILD_TOL * 100);
	rmdir(p2(MNT, "kids"));
}

/* ---- 7. overrun debt has a floor ------------------------------------------- */

/*
 * 200 threads spin for DEBT_SPIN_S in a group pinned at 1 %, running up
 * the group's overrun; then 199 of them are told to block for good on a
 * pipe read (they must run to see that). The group must run again within
 * DEBT_RESUME_BOUND_S of that moment however deep its overrun, the 199
 * must all have blocked within DEBT_BLOCK_BOUND_S, and after that the one
 * spinner left never stalls longer than DEBT_RESUME_BOUND_S and gets about
 * its quota.
 */

struct debt {
	volatile int go;	/* in the group and pinned: start spinning */
	volatile int phase;
	volatile int blocked;
	volatile int ready;
	volatile long spinner_tid;
	volatile unsigned long spins;
	int pipe_rd;
};

static pthread_mutex_t debt_gate = PTHREAD_MUTEX_INITIALIZER;

static void *debt_thread(void *arg)
{
	struct debt *d = arg;
	char c;

	/* asleep until the process is in the group: creating them is not spinning */
	pthread_mutex_lock(&debt_gate);
	pthread_mutex_unlock(&debt_gate);
	while (!d->phase)
		;
	__atomic_add_fetch(&d->blocked, 1, __ATOMIC_SEQ_CST);
	for (;;)
		if (read(d->pipe_rd, &c, 1) < 0 && errno != EINTR)
			pause();
	return NULL;
}

static double free_run_ms(void);

TEST_T(debt_floor, 70)
{
	struct debt *d = shm(sizeof(*d));
	double t_phase, t_first, t_blocked, t0, last, stall = 0, share, ref_ms, bound, f, win;
	unsigned long s0;
	unsigned long long c0;
	int fds[2], i;
	pid_t p;

	EXPECT_OK(pipe(fds));
	d->pipe_rd = fds[0];
	set_period_ms(PERIOD_MS);
	mk("debt");
	p = fork();
	if (p == 0) {
		pthread_attr_t a;
		pthread_t t;

		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 64 << 10);
		pthread_mutex_lock(&debt_gate);
		for (i = 1; i < DEBT_THREADS; i++)
			if (pthread_create(&t, &a, debt_thread, d))
				_exit(1);
		d->spinner_tid = syscall(SYS_gettid);
		d->ready = 1;
		while (!d->go)
			usleep(1000);
		pthread_mutex_unlock(&debt_gate);
		for (;;)
			d->spins++;
	}
	for (i = 0; i < 3000 && !d->ready; i++)
		usleep(10000);
	EXPECT(d->ready, "%d threads not started within 30 s", DEBT_THREADS);
	/* the host's speed now: the bound scaled as the release bounds are */
	ref_ms = free_run_ms();
	f = ref_ms > RELEASE_CPU_MS ? ref_ms / RELEASE_CPU_MS : 1;
	bound = DEBT_RESUME_BOUND_S * (f < DEBT_SCALE_MAX ? f : DEBT_SCALE_MAX);
	win = DEBT_SHARE_S + bound;
	join("debt", p);
	pin("debt", Q1_US);
	d->go = 1;
	usleep(DEBT_SPIN_S * 1e6);
	d->phase = 1;
	t_phase = tg_now();
	/* the group runs again (any of its threads does) within the bound */
	s0 = d->spins;
	while (d->spins == s0 && !d->blocked && tg_now() - t_phase < DEBT_BLOCK_BOUND_S)
		usleep(1000);
	t_first = tg_now() - t_phase;
	while (d->blocked < DEBT_THREADS - 1 && tg_now() - t_phase < DEBT_BLOCK_BOUND_S)
		usleep(5000);
	t_blocked = tg_now();
	printf("TGTEST-INFO: debt_floor: after %d threads ran %.1f s at 1 %%: the group ran again "
	       "after %.3f s (bound %.2f s; a free process ran %d ms of CPU in %.1f ms); %d of %d "
	       "threads blocked after %.3f s (bound %.1f s); nr_throttled %llu\n", DEBT_THREADS,
	       DEBT_SPIN_S, t_first, bound, RELEASE_CPU_MS, ref_ms, d->blocked, DEBT_THREADS - 1,
	       t_blocked - t_phase, DEBT_BLOCK_BOUND_S, stat_value("debt", "nr_throttled"));
	EXPECT(t_first <= bound, "the group did not run for %.3f s after the burst "
	       "(bound %.2f s): its overrun debt has no floor", t_first, bound);
	EXPECT(d->blocked == DEBT_THREADS - 1, "only %d of %d threads got to block within %.0f s: "
	       "the group's overrun debt keeps them parked", d->blocked, DEBT_THREADS - 1,
	       DEBT_BLOCK_BOUND_S);
	/* then the last spinner alone: never stalled longer than the bound, about its quota */
	c0 = tid_cpu_ns(p, d->spinner_tid);
	t0 = last = tg_now();
	s0 = d->spins;
	while (tg_now() - t0 < win) {
		usleep(2000);
		if (d->spins != s0) {
			s0 = d->spins;
			last = tg_now();
		}
		if (tg_now() - last > stall)
			stall = tg_now() - last;
	}
	share = (tid_cpu_ns(p, d->spinner_tid) - c0) / 1e9 / (tg_now() - t0);
	printf("TGTEST-INFO: debt_floor: last spinner then %.4f of one CPU over %.1f s (quota %.2f "
	       "+- %.0f %%), longest stall %.3f s (bound %.2f s)\n", share, win, Q1_SHARE,
	       DEBT_SHARE_TOL * 100, stall, bound);
	EXPECT(stall <= bound, "the last spinner stalled %.3f s", stall);
	EXPECT(dabs(share - Q1_SHARE) <= Q1_SHARE * DEBT_SHARE_TOL,
	       "spinner share %.4f, expected %.2f +- %.0f %%", share, Q1_SHARE,
	       DEBT_SHARE_TOL * 100);
	reap(p);
	rmdir(p2(MNT, "debt"));
}

/* ---- 5. what a parked task looks like: no EINTR, state S, freezable ------- */

enum { W_EPOLL, W_SEM, W_RECV, NR_WAITERS };
static const char *const waiter_name[NR_WAITERS] = { "epoll_wait", "semtimedop", "recv" };

struct waiters {
	volatile int ready, done;
	double end;
	long calls[NR_WAITERS], eintr[NR_WAITERS], other[NR_WAITERS];
	int other_errno[NR_WAITERS];
	int semid, sock;
};

static pthread_mutex_t waiter_gate = PTHREAD_MUTEX_INITIALIZER;

static void gate(void)
{
	pthread_mutex_lock(&waiter_gate);
	pthread_mutex_unlock(&waiter_gate);
}

static void *gated_burner(void *arg)
{
	gate();
	return burn_forever(arg);
}

static void waiter_count(struct waiters *w, int k, long r, int ok_errno)
{
	__atomic_add_fetch(&w->calls[k], 1, __ATOMIC_RELAXED);
	if (r >= 0 || errno == ok_errno)
		return;
	if (errno == EINTR) {
		__atomic_add_fetch(&w->eintr[k], 1, __ATOMIC_RELAXED);
	} else {
		w->other_errno[k] = errno;
		__atomic_add_fetch(&w->other[k], 1, __ATOMIC_RELAXED);
	}
}

static void *waiter_epoll(void *arg)
{
	struct waiters *w = arg;
	struct epoll_event ev;
	int ep = epoll_create1(0);

	gate();
	while (tg_now() < w->end)
		waiter_count(w, W_EPOLL, epoll_wait(ep, &ev, 1, WAIT_MS), 0);
	return NULL;
}

static void *waiter_sem(void *arg)
{
	struct waiters *w = arg;
	struct sembuf sb = { .sem_num = 0, .sem_op = -1, .sem_flg = 0 };
	struct timespec ts = { 0, WAIT_MS * 1000000L };

	gate();
	while (tg_now() < w->end)
		waiter_count(w, W_SEM, semtimedop(w->semid, &sb, 1, &ts), EAGAIN);
	return NULL;
}

static void *waiter_recv(void *arg)
{
	struct waiters *w = arg;
	char c;

	gate();
	while (tg_now() < w->end)
		waiter_count(w, W_RECV, recv(w->sock, &c, 1, 0), EAGAIN);
	return NULL;
}

/*
 * A process in g (pinned at 1 %) with a burner thread and three waiter
 * threads looping for phase_s once the test says go.
 */
static pid_t waiters_proc(const char *g, struct waiters *w, double phase_s)
{
	pid_t p = fork();

	if (p < 0)
		FAIL("fork");
	if (p == 0) {
		struct timeval tv = { 0, WAIT_MS * 1000 };
		void *(*fn[NR_WAITERS])(void *) = { waiter_epoll, waiter_sem, waiter_recv };
		pthread_t t[NR_WAITERS], burner;
		int sv[2], i;

		w->semid = semget(IPC_PRIVATE, 1, 0600);
		if (w->semid < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
		    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			_exit(1);
		w->sock = sv[0];
		/*
		 * Threads made before joining: at 1 % creating them would take
		 * most of the phase. They wait on the gate, then loop.
		 */
		pthread_mutex_lock(&waiter_gate);
		for (i = 0; i < NR_WAITERS; i++)
			pthread_create(&t[i], NULL, fn[i], w);
		pthread_create(&burner, NULL, gated_burner, NULL);
		if (wr(gp(g, "cgroup.procs"), "0") < 0)
			_exit(2);
		w->ready = 1;
		while (w->ready != 2)
			usleep(1000);
		w->end = tg_now() + phase_s;
		pthread_mutex_unlock(&waiter_gate);
		for (i = 0; i < NR_WAITERS; i++)
			pthread_join(t[i], NULL);
		semctl(w->semid, 0, IPC_RMID);
		w->done = 1;
		for (;;)
			pause();
	}
	return p;
}

TEST_T(parked_waits_see_no_eintr, 40)
{
	struct waiters *w = shm(sizeof(*w));
	unsigned long long n0;
	double t0;
	int k;
	pid_t p;

	set_period_ms(PERIOD_MS);
	mk("w");
	/* 10 %: the burner keeps it throttled, the waiters still get to wait often */
	pin("w", Q10_US);
	p = waiters_proc("w", w, EINTR_PHASE_S);
	for (k = 0; k < 500 && !w->ready; k++)
		usleep(10000);
	EXPECT(w->ready == 1, "waiter process did not start");
	n0 = stat_value("w", "nr_throttled");
	w->ready = 2;
	t0 = tg_now();
	while (!w->done && tg_now() - t0 < EINTR_PHASE_S + 20)
		usleep(10000);
	EXPECT(w->done, "waiters did not finish 20 s after their %.0f s phase", EINTR_PHASE_S);
	for (k = 0; k < NR_WAITERS; k++)
		printf("TGTEST-INFO: parked_waits_see_no_eintr: %s: %ld calls, %ld EINTR, "
		       "%ld other errors\n", waiter_name[k], w->calls[k], w->eintr[k], w->other[k]);
	EXPECT(stat_value("w", "nr_throttled") > n0 + 10, "the group was hardly throttled");
	for (k = 0; k < NR_WAITERS; k++) {
		EXPECT(w->eintr[k] == 0, "%s returned EINTR %ld times in %ld calls (no signal "
		       "was sent)", waiter_name[k], w->eintr[k], w->calls[k]);
		EXPECT(w->other[k] == 0, "%s failed %ld times: %s", waiter_name[k], w->other[k],
		       strerror(w->other_errno[k]));
		EXPECT(w->calls[k] >= MIN_WAITS, "%s ran only %ld times", waiter_name[k],
		       w->calls[k]);
	}
	reap(p);
	rmdir(p2(MNT, "w"));
}

/*
 * Sample the state of every thread of a process in g (a burner and a
 * waiter in epoll_wait) while g is throttled: a parked task sleeps
 * interruptibly ('S'), never 'D'. Samples where the burner, which never
 * sleeps by itself, is off CPU are the parked ones; there must be some.
 */
TEST_T(parked_state_is_s, 30)
{
	struct waiters *w = shm(sizeof(*w));
	long tids[64];
	int i, n, parked = 0, dstate = 0, samples = 0, seen[128] = { 0 };
	char dwhat[1400] = "";
	double t0;
	pid_t p;

	pinned_group("st", Q1_US);
	p = waiters_proc("st", w, SAMPLE_PHASE_S + 1);	/* waiters outlive the sampling */
	for (i = 0; i < 500 && !w->ready; i++)
		usleep(10000);
	EXPECT(w->ready == 1, "process did not start");
	w->ready = 2;
	usleep(200000);
	t0 = tg_now();
	while (tg_now() - t0 < SAMPLE_PHASE_S) {
		n = proc_tids(p, tids, 64);
		for (i = 0; i < n; i++) {
			char s = tid_state(p, tids[i]);

			seen[s & 127]++;
			samples++;
			if (s == 'D' && !dstate++)
				tg_describe_task(tids[i], dwhat, sizeof(dwhat));
		}
		/* the burner is the last thread created: the highest tid */
		if (n > 1) {
			long b = tids[0];

			for (i = 1; i < n; i++)
				if (tids[i] > b)
					b = tids[i];
			if (tid_state(p, b) != 'R')
				parked++;
		}
		usleep(1000);
	}
	printf("TGTEST-INFO: parked_state_is_s: %d thread samples: R %d S %d D %d; burner off "
	       "CPU in %d samples\n", samples, seen['R'], seen['S'], seen['D'], parked);
	if (dstate)
		printf("TGTEST-INFO: parked_state_is_s: first D sample: %s\n", dwhat);
	EXPECT(!dstate, "%d samples in state D (uninterruptible), e.g. %.300s", dstate, dwhat);
	EXPECT(parked >= MIN_PARKED_SAMPLES, "the burner was seen parked only %d times", parked);
	reap(p);
	rmdir(p2(MNT, "st"));
}

static int cgroup2_mount(int *we_mounted)
{
	char buf[65536];

	*we_mounted = 0;
	rd("/proc/mounts", buf, sizeof(buf));
	if (strstr(buf, " /sys/fs/cgroup cgroup2 "))
		return 0;
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		return -1;
	*we_mounted = 1;
	return 0;
}

static int wait_events(const char *path, const char *want, double limit_s, double *took)
{
	char buf[512];
	double t0 = tg_now();

	do {
		rd(path, buf, sizeof(buf));
		if (strstr(buf, want)) {
			*took = tg_now() - t0;
			return 1;
		}
		usleep(5000);
	} while (tg_now() - t0 < limit_s);
	*took = tg_now() - t0;
	return 0;
}

static int do_sys_freeze(void *arg)
{
	(void)arg;
	return wr("/sys/power/state", "freeze") < 0 ? errno : 0;
}

TEST_T(parked_task_freezable, 90)
{
	const char *cg = "/sys/fs/cgroup/tgthrottle";
	int ours, frozen, thawed;
	double took, thaw_took;
	pid_t p;

	set_period_ms(PERIOD_MS);
	mk("fz");
	pin("fz", QTINY_US);	/* parked for longer than FREEZE_BOUND_S */
	p = spinner_proc(2, NULL);
	join("fz", p);
	wait_throttled("fz", 0, 5);
	EXPECT(wait_off_cpu(p, p, 2.0), "the burner was never seen parked");
	EXPECT(!cgroup2_mount(&ours), "mount cgroup2: %s", strerror(errno));
	rmdir(cg);
	EXPECT_OK(mkdir(cg, 0755));
	EXPECT(wrf(p2(cg, "cgroup.procs"), "%d", p) > 0, "move to %s: %s", cg, strerror(errno));
	EXPECT(wr(p2(cg, "cgroup.freeze"), "1") > 0);
	frozen = wait_events(p2(cg, "cgroup.events"), "frozen 1", FREEZE_BOUND_S, &took);
	printf("TGTEST-INFO: parked_task_freezable: cgroup freeze %s after %.3f s (bound %.1f s)\n",
	       frozen ? "complete" : "NOT complete", took, FREEZE_BOUND_S);
	/* thaw and put it back before judging, so nothing is left frozen */
	wr(p2(cg, "cgroup.freeze"), "0");
	thawed = wait_events(p2(cg, "cgroup.events"), "frozen 0", 5, &thaw_took);
	wrf("/sys/fs/cgroup/cgroup.procs", "%d", p);
	reap(p);
	rmdir(cg);
	if (ours)
		umount("/sys/fs/cgroup");
	EXPECT(frozen, "a cgroup holding a parked task did not freeze within %.1f s",
	       FREEZE_BOUND_S);
	EXPECT(thawed, "did not thaw");

	/* the system freezer, where the kernel can test it without suspending */
	if (access("/sys/power/pm_test", W_OK)) {
		printf("TGTEST-INFO: parked_task_freezable: no /sys/power/pm_test in the guest kernel "
		       "(CONFIG_PM_DEBUG unset): system freezer part skipped\n");
	} else {
		struct bounded b;

		p = spinner_proc(2, NULL);
		join("fz", p);
		wait_throttled("fz", stat_value("fz", "nr_throttled"), 5);
		EXPECT(wait_off_cpu(p, p, 2.0), "the burner was never seen parked");
		EXPECT(wr("/sys/power/pm_test", "freezer") > 0, "pm_test: %s", strerror(errno));
		if (!bounded_run(&b, do_sys_freeze, NULL, SYSFREEZE_BOUND_S))
			FAIL("echo freeze > /sys/power/state hung: %.300s",
			     hung_report("parked_task_freezable", "system freeze", &b));
		wr("/sys/power/pm_test", "none");
		printf("TGTEST-INFO: parked_task_freezable: system freezer (pm_test=freezer): %s "
		       "in %.2f s\n", bounded_rc(&b) ? strerror(bounded_rc(&b)) : "ok", b.secs);
		EXPECT(bounded_rc(&b) == 0, "the system freezer failed with a parked task: %s",
		       strerror(bounded_rc(&b)));
		reap(p);
	}
	rmdir(p2(MNT, "fz"));
}

/* ---- 4. io_uring: the SQ thread is never parked, io-wq workers wait ------------ */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_flags, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_sz, cq_sz, sqes_sz;
};

/* the ring goes away (and its SQ thread) once both its fd and its mappings are gone */
static void ring_close(struct ring *r)
{
	munmap(r->sq_map, r->sq_sz);
	munmap(r->cq_map, r->cq_sz);
	munmap(r->sqes, r->sqes_sz);
	close(r->fd);
}

/* returns 0 or -errno */
static int ring_setup(struct ring *r, unsigned int entries, struct io_uring_params *p)
{
	size_t sqsz, cqsz;
	char *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, entries, p);
	if (r->fd < 0)
		return -errno;
	sqsz = p->sq_off.array + p->sq_entries * sizeof(unsigned int);
	cqsz = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p->sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -errno;
	r->sq_map = sq;
	r->cq_map = cq;
	r->sq_sz = sqsz;
	r->cq_sz = cqsz;
	r->sqes_sz = p->sq_entries * sizeof(struct io_uring_sqe);
	r->sq_tail = (unsigned int *)(sq + p->sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p->sq_off.ring_mask);
	r->sq_flags = (unsigned int *)(sq + p->sq_off.flags);
	r->sq_array = (unsigned int *)(sq + p->sq_off.array);
	r->cq_head = (unsigned int *)(cq + p->cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p->cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p->cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p->cq_off.cqes);
	return 0;
}

static void ring_submit(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(r->sq_flags, __ATOMIC_RELAXED) & IORING_SQ_NEED_WAKEUP)
		syscall(__NR_io_uring_enter, r->fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
}

/* the next completion within limit_s: 1, or 0 */
static int ring_reap(struct ring *r, struct io_uring_cqe *out, double limit_s)
{
	double t0 = tg_now();

	for (;;) {
		unsigned int head = *r->cq_head;

		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			*out = r->cqes[head & *r->cq_mask];
			__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
			return 1;
		}
		if (tg_now() - t0 > limit_s)
			return 0;
		usleep(200);
	}
}

struct uring_shared {
	volatile int a_ready, b_ready, go, b_done, async_sent, released;
	int a_err;			/* io_uring_setup in A: -errno */
	int attach_err;			/* ATTACH_WQ from B: -errno or 0 */
	int join_err;
	long nops, nop_timeouts;
	double nop_max_ms, nop_sum_ms;
	double t_release;		/* when the test released the group */
	int async_done, async_early;	/* the offloaded NOP: completed, before the release */
	double async_ms;		/* after the release */
	int read_done, read_res;
	double read_ms;
	char buf[64];
};

/* B's next completion with @want as user_data within limit_s, noting others */
static int uring_b_wait(struct ring *r, struct uring_shared *s, __u64 want, double limit_s)
{
	struct io_uring_cqe cqe;
	double t0 = tg_now();

	while (tg_now() - t0 < limit_s) {
		if (!ring_reap(r, &cqe, limit_s - (tg_now() - t0)))
			return 0;
		if (cqe.user_data == 1ull << 41) {
			s->async_done = 1;
			s->async_early = !s->released;
			s->async_ms = (tg_now() - s->t_release) * 1e3;
		} else if (cqe.user_data == 1ull << 40) {
			s->read_done = 1;
			s->read_res = cqe.res;
		}
		if (cqe.user_data == want)
			return 1;
	}
	return 0;
}

/* B: in the root group, drives A's SQPOLL ring */
static void __attribute__((noreturn)) uring_b(struct ring *ra, int pipe_rd, int pipe_wr,
					      struct uring_shared *s)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe sqe;
	struct ring rb, *r = ra;
	double t0, t;
	int rc;

	if (wr(gp("", "cgroup.procs"), "0") < 0) {
		s->join_err = errno;
		_exit(1);
	}
	/*
	 * A ring of our own on A's SQ thread. Kernels that share an SQ thread
	 * only within a thread group (6.1) quietly give a ring attached from
	 * another process an SQ thread of its own instead: then use A's ring
	 * itself, through the fd and mappings inherited from A.
	 */
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_ATTACH_WQ;
	p.wq_fd = ra->fd;
	p.sq_thread_idle = SQ_IDLE_MS;
	rc = ring_setup(&rb, 8, &p);
	s->attach_err = rc;
	if (!rc) {
		long tids[64];

		/*
		 * B is single-threaded: a second thread is an SQ thread of its
		 * own (its comm is set only once it first runs, so not by name)
		 */
		if (proc_tids(getpid(), tids, 64) > 1) {
			s->attach_err = 1;
			ring_close(&rb);
		} else {
			r = &rb;
		}
	}
	s->b_ready = 1;
	while (!s->go)
		usleep(1000);
	/* an io-wq worker: a read forced async on an empty pipe */
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_READ;
	sqe.flags = IOSQE_ASYNC;
	sqe.fd = pipe_rd;
	sqe.addr = (unsigned long)s->buf;
	sqe.len = 1;
	sqe.user_data = 1ull << 40;
	ring_submit(r, &sqe);
	/* NOPs issued inline by the SQ thread: it is never parked */
	t0 = tg_now();
	while (tg_now() - t0 < NOP_PHASE_S) {
		double a, ms;

		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = IORING_OP_NOP;
		sqe.user_data = s->nops;
		a = tg_now();
		ring_submit(r, &sqe);
		if (!uring_b_wait(r, s, s->nops, 1.0)) {
			s->nop_timeouts++;
			break;
		}
		ms = (tg_now() - a) * 1e3;
		s->nops++;
		s->nop_sum_ms += ms;
		if (ms > s->nop_max_ms)
			s->nop_max_ms = ms;
		usleep(5000);
	}
	/* a NOP offloaded to io-wq: it waits for A's group to run again */
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_NOP;
	sqe.flags = IOSQE_ASYNC;
	sqe.user_data = 1ull << 41;
	ring_submit(r, &sqe);
	s->async_sent = 1;
	while (!s->released)
		usleep(1000);
	if (!s->async_done)
		uring_b_wait(r, s, 1ull << 41, ASYNC_RELEASE_BOUND_S);
	/* complete the read: its worker was parked too, or blocked in the read */
	if (!s->read_done) {
		t = tg_now();
		if (write(pipe_wr, "x", 1) == 1 && uring_b_wait(r, s, 1ull << 40, 2.0))
			s->read_ms = (tg_now() - t) * 1e3;
	}
	s->b_done = 1;
	_exit(0);
}

/*
 * A (in a group pinned at 1 %, with a burner) owns an SQPOLL ring that B,
 * in the root group, drives through the inherited fd. The SQ thread is
 * never parked (it holds sqd->lock where it runs task_work): B's inline
 * NOPs complete at once. io-wq workers are parked with A's group: an
 * offloaded NOP waits for it and completes once the group is released, and
 * so does a read pushed onto a worker. No io thread is ever in D.
 */
TEST_T(io_uring_workers_wait_for_their_group, 60)
{
	struct uring_shared *s = shm(sizeof(*s));
	int i, n, samples = 0, sqp_seen = 0, wrk_seen = 0, dstate = 0;
	char dwhat[1400] = "", comms[256] = "";
	const char *name = "io_uring_workers_wait_for_their_group";
	unsigned long long n0, n1 = 0;
	long tids[128];
	double t0;
	pid_t a;

	pinned_group("ur", Q1_US);
	a = fork();
	if (a == 0) {
		struct io_uring_params p = { 0 };
		struct ring r;
		int fds[2];

		if (wr(gp("ur", "cgroup.procs"), "0") < 0) {
			s->join_err = errno;
			_exit(1);
		}
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = SQ_IDLE_MS;
		s->a_err = ring_setup(&r, 64, &p);
		if (s->a_err || pipe(fds)) {
			s->a_ready = -1;
			_exit(1);
		}
		if (fork() == 0)
			uring_b(&r, fds[0], fds[1], s);
		s->a_ready = 1;
		burn_forever(NULL);
	}
	for (t0 = tg_now(); tg_now() - t0 < 20; usleep(10000))
		if (s->join_err || s->a_ready == -1 || (s->a_ready == 1 && s->b_ready))
			break;
	EXPECT(!s->join_err, "join: %s", strerror(s->join_err));
	EXPECT(!s->a_err, "io_uring unavailable in the guest kernel: io_uring_setup(SQPOLL): %s",
	       strerror(-s->a_err));
	EXPECT(s->a_ready == 1 && s->b_ready, "processes did not start within 20 s");
	if (s->attach_err)
		printf("TGTEST-INFO: %s: IORING_SETUP_ATTACH_WQ from another process: %s; B drives "
		       "A's ring through the inherited fd\n", name,
		       s->attach_err == 1 ? "the kernel gave B an SQ thread of its own" :
		       strerror(-s->attach_err));
	wait_throttled("ur", 0, 5);
	n0 = stat_value("ur", "nr_throttled");
	s->go = 1;
	/* meanwhile: A's io_uring threads (iou-sqp-*, iou-wrk-*) never in D */
	t0 = tg_now();
	while (!s->b_done && tg_now() - t0 < NOP_PHASE_S + ASYNC_RELEASE_BOUND_S + 10) {
		if (s->async_sent && !s->released) {
			/* the offloaded NOP has waited a while: release the group */
			usleep(300000);
			n1 = stat_value("ur", "nr_throttled");
			s->t_release = tg_now();
			pin("ur", 0);
			s->released = 1;
		}
		n = proc_tids(a, tids, 128);
		for (i = 0; i < n; i++) {
			char comm[32], st;

			tid_file(a, tids[i], "comm", comm, sizeof(comm));
			if (!strstr(comms, comm) && strlen(comms) + strlen(comm) + 2 < sizeof(comms))
				strcat(strcat(comms, " "), comm);
			if (strncmp(comm, "iou-", 4))
				continue;
			st = tid_state(a, tids[i]);
			samples++;
			sqp_seen += !strncmp(comm, "iou-sqp", 7);
			wrk_seen += !strncmp(comm, "iou-wrk", 7);
			if (st == 'D' && !dstate++)
				tg_describe_task(tids[i], dwhat, sizeof(dwhat));
		}
		usleep(5000);
	}
	n1 = s->released ? n1 : stat_value("ur", "nr_throttled");
	printf("TGTEST-INFO: %s: %ld inline NOPs, mean %.2f ms, max %.1f ms (bound %d ms), %ld "
	       "timed out (1 s); offloaded NOP %s%s %.1f ms after the release (bound %.1f s); "
	       "async pipe read %s (res %d) %.1f ms after the write; %d io thread samples "
	       "(sqp %d, wrk %d), %d in D; group throttled %llu times before the release\n",
	       name, s->nops, s->nops ? s->nop_sum_ms / s->nops : 0, s->nop_max_ms, NOP_BOUND_MS,
	       s->nop_timeouts, s->async_done ? "completed" : "NOT completed",
	       s->async_early ? " (before the release)" : "", s->async_ms, ASYNC_RELEASE_BOUND_S,
	       s->read_done ? "completed" : "NOT completed", s->read_res, s->read_ms, samples,
	       sqp_seen, wrk_seen, dstate, n1 - n0);
	EXPECT(s->b_done, "the submitting process did not finish");
	EXPECT(n1 > n0 + 10, "the group was hardly throttled during the test (%llu -> %llu)", n0, n1);
	EXPECT(!s->nop_timeouts && s->nops > 10, "%ld inline NOPs, %ld not completed within 1 s",
	       s->nops, s->nop_timeouts);
	EXPECT(s->nop_max_ms <= NOP_BOUND_MS, "an inline NOP took %.1f ms (bound %d ms): the SQ "
	       "thread was held with its throttled group", s->nop_max_ms, NOP_BOUND_MS);
	EXPECT(sqp_seen > 0, "no iou-sqp thread seen in process %d", a);
	EXPECT(wrk_seen > 0, "no io-wq worker (iou-wrk) seen in process %d (threads: %s)", a,
	       comms);
	EXPECT(!dstate, "%d samples of an io thread in D: first %.300s", dstate, dwhat);
	EXPECT(s->async_done && s->async_ms <= ASYNC_RELEASE_BOUND_S * 1e3,
	       "the offloaded NOP %s within %.1f s of the group's release",
	       s->async_done ? "completed, but not" : "did not complete", ASYNC_RELEASE_BOUND_S);
	EXPECT(s->read_done && s->read_res == 1 && s->read_ms <= NOP_BOUND_MS,
	       "async pipe read: %s, res %d, %.1f ms (bound %d ms)",
	       s->read_done ? "completed" : "not completed", s->read_res, s->read_ms, NOP_BOUND_MS);
	reap(a);
	rmdir(p2(MNT, "ur"));
}

/*
 * A process of a group pinned at 1 % (a burner keeps it throttled) has
 * pushed reads of an empty pipe and NOPs onto its io-wq workers, which are
 * parked or blocked; SIGKILL must take it down at once: its exit waits for
 * those workers, and a parked worker's park ends at any wake-up.
 */
/*
 * The owner sets its ring up inside the group at 1 % of a CPU, beside its
 * own burner: some 100 ms of CPU on the cloud kernels (the whole test 4-5 s
 * there), several times that on the debug kernel, whose lane runs two
 * guests side by side - it missed 20 s there once (28 Nov, a fresh clone's
 * make check, mutants niced beside it). The wait is a bound on progress,
 * not a timing claim: 60 s.
 */
#define OWNER_SETUP_S		60

TEST_T(io_uring_owner_exits_with_parked_workers, 40 + OWNER_SETUP_S)
{
	volatile int *ready = shm(sizeof(int));
	int st, k, parked = 0;
	double t0, took;
	long tids[128];
	pid_t a;

	pinned_group("ux", Q1_US);
	a = fork();
	if (a == 0) {
		struct io_uring_params p = { 0 };
		struct io_uring_sqe sqe;
		struct ring r;
		pthread_t t;
		char buf[8];
		int fds[2];

		if (wr(gp("ux", "cgroup.procs"), "0") < 0 || ring_setup(&r, 64, &p) || pipe(fds))
			_exit(1);
		pthread_create(&t, NULL, burn_forever, NULL);
		for (k = 0; k < 16; k++) {
			memset(&sqe, 0, sizeof(sqe));
			sqe.opcode = k % 2 ? IORING_OP_NOP : IORING_OP_READ;
			sqe.flags = IOSQE_ASYNC;
			sqe.fd = fds[0];
			sqe.addr = (unsigned long)buf;
			sqe.len = 1;
			ring_submit(&r, &sqe);
			syscall(__NR_io_uring_enter, r.fd, 1, 0, 0, NULL, 0);
		}
		*ready = 1;
		for (;;)
			pause();
	}
	for (t0 = tg_now(); !*ready && tg_now() - t0 < OWNER_SETUP_S; usleep(10000))
		;
	EXPECT(*ready, "the ring owner did not set up within %d s", OWNER_SETUP_S);
	usleep(500000);
	for (k = proc_tids(a, tids, 128); k-- > 0;) {
		char comm[32], wchan[64];

		tid_file(a, tids[k], "comm", comm, sizeof(comm));
		tid_file(a, tids[k], "wchan", wchan, sizeof(wchan));
		parked += !strncmp(comm, "iou-wrk", 7) && !strncmp(wchan, "tg_", 3);
	}
	t0 = tg_now();
	kill(a, SIGKILL);
	while (waitpid(a, &st, WNOHANG) != a && tg_now() - t0 < STOP_BOUND_S)
		usleep(2000);
	took = tg_now() - t0;
	printf("TGTEST-INFO: io_uring_owner_exits_with_parked_workers: %d io-wq workers parked; "
	       "SIGKILL to reaped in %.3f s (bound %.1f s)\n", parked, took, STOP_BOUND_S);
	EXPECT(took < STOP_BOUND_S, "the ring owner was not reaped within %.1f s of SIGKILL",
	       STOP_BOUND_S);
	rmdir(p2(MNT, "ux"));
}

/* ---- 10. nobody slips out: tracers, signals, stops, io_uring (issue 22) ---- */

/*
 * A workload of an unprivileged user (uid ESC_UID) in a group pinned at
 * 10 % of one CPU tries to run its way out of the throttle; its share of
 * one CPU, summed over all its threads (io_uring's workers included:
 * /proc/PID/task/ * /schedstat), over MEASURE_S after WARMUP_S, must stay
 * at most ESC_TOL over the quota (and not far under it: ESC_TOL_LOW).
 */
#define ESC_UID			1000
#define ESC_TOL			0.10	/* at most quota + 10 %: an escape shows here */
/*
 * io-wq workers are parked before their next work item, not inside one
 * (docs/module.md): each finishes the 256 KiB read it is in when the budget
 * runs out, and under TCG that read's time grows with the host's slowness
 * (0.112 once on the 6.1 guest of a slower machine, 27 Nov; 0.099 on 6.12 and
 * 0.093 on the debug kernel in the same run): the margin for that.
 */
#define ESC_TOL_URING		0.20
/*
 * Under the quota is no escape: a TCG guest on a busy 2-core host is itself
 * short of CPU (0.087 seen with host load 3, the group throttled a third less
 * often than its neighbours'): the low side has margin for that.
 */
#define ESC_TOL_LOW		0.25
#define ESC_TIMER_US		100	/* a signal every 100 us */
#define ESC_STOP_EVERY_US	2000	/* SIGSTOP, then SIGCONT ESC_CONT_AFTER_US later */
#define ESC_CONT_AFTER_US	100
#define ESC_READ_BYTES		(256 << 10)	/* one offloaded read from /dev/zero */
#define ESC_BATCH		32		/* offloaded reads in flight */

static void drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		_exit(120);
}

static void empty_handler(int sig)
{
	(void)sig;
}

/* a process of ESC_UID that spins, started with @setup run first in it */
static pid_t esc_spinner(void (*setup)(void))
{
	pid_t p = fork();

	if (p < 0)
		FAIL("fork: %s", strerror(errno));
	if (p == 0) {
		drop_to(ESC_UID);
		if (setup)
			setup();
		spin_thread(NULL);
	}
	return p;
}

/* join g (pinned at 10 %), warm up, then the share of one CPU over MEASURE_S */
static double esc_share(const char *g, pid_t p)
{
	join(g, p);
	usleep(WARMUP_S * 1e6);
	return proc_share(p, MEASURE_S);
}

static void esc_expect(const char *name, const char *what, double share, pid_t p, double tol)
{
	double lo = Q10_SHARE * (1 - ESC_TOL_LOW), hi = Q10_SHARE * (1 + tol);
	char how[1400];

	if (share < lo || share > hi) {	/* what it was doing instead: stopped, parked, ... */
		char path[64], line[128], sig[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", p);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "SigPnd", 6) || !strncmp(line, "ShdPnd", 6) ||
			    !strncmp(line, "SigBlk", 6) || !strncmp(line, "SigCgt", 6))
				strncat(sig, line, sizeof(sig) - strlen(sig) - 1);
		if (f)
			fclose(f);
		printf("TGTEST-INFO: %s: out of bounds, the workload now: %s; %s\n", name,
		       tg_describe_task(p, how, sizeof(how)), sig);
	}

	printf("TGTEST-INFO: %s: %s: %.3f of one CPU over %.1f s (quota %.2f, -%.0f/+%.0f %%: "
	       "%.3f..%.3f), nr_throttled %llu\n", name, what, share, MEASURE_S, Q10_SHARE,
	       ESC_TOL_LOW * 100, tol * 100, lo, hi, stat_value("esc", "nr_throttled"));
	EXPECT(share >= lo && share <= hi, "%s: share %.3f, expected %.2f -%.0f/+%.0f %%", what,
	       share, Q10_SHARE, ESC_TOL_LOW * 100, tol * 100);
}

/* A workload @p of a test in group "esc" pinned at 10 %: its share, then cleanup. */
static void esc_case(const char *name, const char *what, pid_t p, double tol)
{
	esc_expect(name, what, esc_share("esc", p), p, tol);
	reap(p);
	rmdir(p2(MNT, "esc"));
}

/* A spinner seized by a tracer in the root group (no stop, no signal). */
TEST_T(escape_traced_spinner, 40)
{
	int fds[2], st;
	pid_t tracer, sp;
	char c;

	pinned_group("esc", Q10_US);
	EXPECT_OK(pipe(fds));
	tracer = fork();
	if (tracer == 0) {
		pid_t s;

		drop_to(ESC_UID);
		prctl(PR_SET_DUMPABLE, 1);	/* setresuid() made it non-dumpable */
		s = fork();
		if (s == 0) {
			close(fds[0]);
			close(fds[1]);
			spin_thread(NULL);
		}
		if (ptrace(PTRACE_SEIZE, s, 0, 0))
			_exit(121);
		close(fds[0]);
		if (write(fds[1], &s, sizeof(s)) != sizeof(s))
			_exit(122);
		/* a tracer that only waits: nothing stops the tracee */
		while (waitpid(s, &st, __WALL) == s)
			if (WIFSTOPPED(st))
				ptrace(PTRACE_CONT, s, 0, 0);
		_exit(0);
	}
	close(fds[1]);
	EXPECT(read(fds[0], &sp, sizeof(sp)) == sizeof(sp), "the tracer did not seize its child");
	(void)c;
	/* measured while traced; reaping kills the tracee (the tracer's child) */
	esc_case("escape_traced_spinner", "spinner seized by a tracer outside its group", sp, ESC_TOL);
	reap(tracer);
}

/*
 * The handler runs with its signal unblocked (SA_NODEFER): with the default
 * mask, under TCG (where delivering a signal takes most of 100 us) the
 * enforcer's IPI mostly finds the task inside its handler, SIGALRM blocked;
 * parked there, the next SIGALRM stays pending and wakes no one, and
 * ITIMER_REAL re-arms only when SIGALRM is dequeued - the timer stops until
 * the group is released. That, not a re-park, held such a spinner before.
 */
static void on_signal(int sig)
{
	struct sigaction sa = { .sa_handler = empty_handler, .sa_flags = SA_RESTART | SA_NODEFER };

	sigaction(sig, &sa, NULL);
}

static void itimer_real(void)
{
	struct itimerval it = { { 0, ESC_TIMER_US }, { 0, ESC_TIMER_US } };

	on_signal(SIGALRM);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void itimer_prof(void)
{
	struct itimerval it = { { 0, ESC_TIMER_US }, { 0, ESC_TIMER_US } };

	on_signal(SIGPROF);
	setitimer(ITIMER_PROF, &it, NULL);
}

/*
 * A spinner woken by a signal every ESC_TIMER_US, with a handler that does
 * nothing: wall-clock timers (ITIMER_REAL) fire while it is parked.
 */
TEST_T(escape_self_signalling_spinner, 40)
{
	pinned_group("esc", Q10_US);
	esc_case("escape_self_signalling_spinner", "ITIMER_REAL 100 us, empty SIGALRM handler (SA_NODEFER)",
		 esc_spinner(itimer_real), ESC_TOL);
}

/*
 * The same with a CPU-time timer (ITIMER_PROF): it advances only while the
 * process runs, so it cannot fire while the process is parked.
 */
TEST_T(escape_cpu_timer_spinner, 40)
{
	pinned_group("esc", Q10_US);
	esc_case("escape_cpu_timer_spinner", "ITIMER_PROF 100 us, empty SIGPROF handler (SA_NODEFER)",
		 esc_spinner(itimer_prof), ESC_TOL);
}

static void posix_timer(int sig, long first_us, long every_us)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig };
	struct itimerspec its = {
		.it_interval = { every_us / 1000000, every_us % 1000000 * 1000 },
		.it_value = { first_us / 1000000, first_us % 1000000 * 1000 },
	};
	timer_t t;

	if (timer_create(CLOCK_MONOTONIC, &ev, &t) || timer_settime(t, 0, &its, NULL))
		_exit(123);
}

#define ESC_KEEPER_MS		20	/* escape_stop_cont_spinner: SIGCONT from outside */

static void stop_cont_timers(void)
{
	posix_timer(SIGSTOP, ESC_STOP_EVERY_US, ESC_STOP_EVERY_US);
	posix_timer(SIGCONT, ESC_STOP_EVERY_US + ESC_CONT_AFTER_US, ESC_STOP_EVERY_US);
}

/*
 * A spinner that stops and continues itself with two timers (SIGSTOP, then
 * SIGCONT 100 us later, every 2 ms): a job-control stop ends a park, and the
 * continued task must not run on in user space while its group is throttled.
 * A keeper in the root group also sends it SIGCONT every ESC_KEEPER_MS: a
 * stop flushes a pending SIGCONT, and a POSIX timer whose queued signal is
 * flushed is never re-armed, so the spinner could stay stopped for good
 * (share 0.000: once on 6.12, more often on the debug kernel).
 */
TEST_T(escape_stop_cont_spinner, 40)
{
	pid_t p, k;

	pinned_group("esc", Q10_US);
	p = esc_spinner(stop_cont_timers);
	k = fork();
	if (k == 0) {
		while (!kill(p, SIGCONT))
			usleep(ESC_KEEPER_MS * 1000);
		_exit(0);
	}
	esc_case("escape_stop_cont_spinner", "SIGSTOP + SIGCONT from its own timers every 2 ms", p,
		 ESC_TOL);
	if (k > 0)
		reap(k);
}

/*
 * An active tracer outside the group: a spinner seized by a tracer (uid
 * ESC_UID, root group) that loops as fast as it can over PTRACE_INTERRUPT
 * (or, every other round, a SIGUSR1 that it suppresses at the
 * signal-delivery-stop), waitpid and PTRACE_CONT with no signal. A ptrace
 * trap must not end a park of a traced task (as under CFS bandwidth control,
 * a throttled tracee does not even reach its stop): the tracer waits for
 * the tracee's runtime. The tracee runs no user code beyond its quota
 * (its user time within ESC_TOL of it) and is off CPU while parked (state I:
 * a killable sleep, which a pending trap cannot end). Its total CPU time
 * may exceed the quota by what the tracer makes it spend in the kernel,
 * cycling through ptrace stops inside get_signal(), where no task_work
 * runs (docs/module.md): charged to the group, bounded here by
 * ESC_TRACED_TOTAL (0.073-0.140 of a CPU in 9 runs, 0.356 once on a host
 * at load 2.4 with user time 0.000; 0.256 in all before traced tasks kept
 * their park, user time not measured then: the escape shows in user time,
 * asserted within the quota + ESC_TOL; a total near a whole CPU would be
 * the park lost).
 */
#define ESC_TRACED_TOTAL	0.45	/* of one CPU, user + system */
struct tracer_log {
	volatile long stops, sigs;
	volatile pid_t tracee;
};

#define TRACE_SAMPLES		300	/* tracee state samples, 1 ms apart */

static void __attribute__((noreturn)) active_tracer(struct tracer_log *l)
{
	pid_t s;
	long i;
	int st;

	drop_to(ESC_UID);
	prctl(PR_SET_DUMPABLE, 1);	/* setresuid() made it non-dumpable */
	s = fork();
	if (s == 0)
		spin_thread(NULL);
	if (ptrace(PTRACE_SEIZE, s, 0, 0))
		_exit(121);
	l->tracee = s;
	for (i = 0;; i++) {
		if (i & 1) {
			kill(s, SIGUSR1);	/* default action: kill; the tracer drops it */
			l->sigs++;
		} else {
			ptrace(PTRACE_INTERRUPT, s, 0, 0);
		}
		if (waitpid(s, &st, __WALL) != s || !WIFSTOPPED(st))
			_exit(0);
		l->stops++;
		ptrace(PTRACE_CONT, s, 0, 0);
	}
}

TEST_T(escape_active_tracer_spinner, 40)
{
	struct tracer_log *l = shm(sizeof(*l));
	int i, seen[128] = { 0 }, off = 0;
	long stops0, stops;
	pid_t tracer, sp;
	double share, user = 0;

	pinned_group("esc", Q10_US);
	tracer = fork();
	if (tracer < 0)
		FAIL("fork: %s", strerror(errno));
	if (tracer == 0)
		active_tracer(l);
	for (i = 0; i < 500 && !l->tracee; i++)
		usleep(10000);
	sp = l->tracee;
	EXPECT(sp > 0, "the tracer did not seize its child");
	stops0 = l->stops;
	join("esc", sp);
	usleep(WARMUP_S * 1e6);
	{
		char path[64], buf[1024], *q;
		unsigned long long u0 = 0, s0 = 0, u1 = 0, s1 = 0;

		snprintf(path, sizeof(path), "/proc/%d/stat", sp);
		if (rd(path, buf, sizeof(buf)) > 0 && (q = strrchr(buf, ')')))
			sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &u0, &s0);
		share = proc_share(sp, MEASURE_S);
		if (rd(path, buf, sizeof(buf)) > 0 && (q = strrchr(buf, ')')))
			sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &u1, &s1);
		user = (u1 - u0) / 100.0 / MEASURE_S;	/* clock ticks: USER_HZ 100 */
		printf("TGTEST-INFO: escape_active_tracer_spinner: user time %.3f, system time %.3f of one CPU\n",
		       user, (s1 - s0) / 100.0 / MEASURE_S);
	}
	for (i = 0; i < TRACE_SAMPLES; i++) {
		char s = tid_state(sp, sp);

		seen[s & 127]++;
		off += s != 'R';
		usleep(1000);
	}
	stops = l->stops - stops0;
	printf("TGTEST-INFO: escape_active_tracer_spinner: %ld tracee stops (%ld SIGUSR1 "
	       "dropped by the tracer); %d state samples: R %d I %d D %d t %d S %d\n", stops, l->sigs,
	       TRACE_SAMPLES, seen['R'], seen['I'], seen['D'], seen['t'], seen['S']);
	printf("TGTEST-INFO: escape_active_tracer_spinner: spinner under a tracer looping "
	       "PTRACE_INTERRUPT/SIGUSR1, waitpid, PTRACE_CONT: %.3f of one CPU in all (bound %.2f), "
	       "%.3f in user code (quota %.2f +- %.0f %%), nr_throttled %llu\n", share,
	       ESC_TRACED_TOTAL, user, Q10_SHARE, ESC_TOL * 100, stat_value("esc", "nr_throttled"));
	EXPECT(user <= Q10_SHARE * (1 + ESC_TOL), "user code ran %.3f of a CPU, quota %.2f",
	       user, Q10_SHARE);
	EXPECT(share <= ESC_TRACED_TOTAL, "%.3f of a CPU in all, bound %.2f", share,
	       ESC_TRACED_TOTAL);
	/* the tracer did interrupt it while measured: the attack ran */
	EXPECT(stops >= MIN_PARKED_SAMPLES, "the tracer stopped its tracee only %ld times", stops);
	EXPECT(off >= MIN_PARKED_SAMPLES, "the tracee was off CPU in only %d of %d samples",
	       off, TRACE_SAMPLES);
	reap(sp);	/* kills the tracee; the tracer's waitpid ends it */
	reap(tracer);
	rmdir(p2(MNT, "esc"));
}

/*
 * A handler set mid-park: the parked spinner (the main thread) shares its
 * handler table with a thread that was moved back to the root group
 * through `tasks`. That thread, in turn for SIGURG, SIGWINCH and SIGCHLD
 * (default action: ignore, so a park opens them), sets an empty handler,
 * sends the signal to the spinner, and restores SIG_DFL ESC_TIMER_US later:
 * a park that started with the signal at its default must not end when the
 * handler appears and the signal comes. The spinner's own CPU is measured.
 */
struct handler_log {
	volatile pid_t setter;
	volatile long sent;
};

static void *handler_setter(void *arg)
{
	static const int sigs[] = { SIGURG, SIGWINCH, SIGCHLD };
	struct sigaction h = { .sa_handler = empty_handler, .sa_flags = SA_RESTART };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct handler_log *l = arg;
	long i;

	l->setter = syscall(SYS_gettid);
	for (i = 0;; i++) {
		int sig = sigs[i % 3];

		sigaction(sig, &h, NULL);
		syscall(SYS_tgkill, getpid(), getpid(), sig);
		l->sent++;
		usleep(ESC_TIMER_US);
		sigaction(sig, &dfl, NULL);
	}
	return NULL;
}

TEST_T(escape_handler_set_mid_park, 40)
{
	struct handler_log *l = shm(sizeof(*l));
	unsigned long long a;
	double t0, share;
	long sent;
	pid_t p;
	int i;

	pinned_group("esc", Q10_US);
	p = fork();
	if (p < 0)
		FAIL("fork: %s", strerror(errno));
	if (p == 0) {
		pthread_t t;

		drop_to(ESC_UID);
		if (pthread_create(&t, NULL, handler_setter, l))
			_exit(124);
		spin_thread(NULL);
	}
	for (i = 0; i < 500 && !l->setter; i++)
		usleep(10000);
	EXPECT(l->setter > 0, "the handler setter did not start");
	join("esc", p);
	EXPECT(wrf(p2(MNT, "tasks"), "%d", l->setter) > 0,
	       "moving the setter thread to the root group: %s", strerror(errno));
	usleep(WARMUP_S * 1e6);
	sent = l->sent;
	a = tid_cpu_ns(p, p);
	t0 = tg_now();
	usleep(MEASURE_S * 1e6);
	share = (tid_cpu_ns(p, p) - a) / 1e9 / (tg_now() - t0);
	sent = l->sent - sent;
	printf("TGTEST-INFO: escape_handler_set_mid_park: %ld signals sent while measured\n", sent);
	esc_expect("escape_handler_set_mid_park",
		   "spinner whose signals get a handler from a thread outside the group", share, p,
		   ESC_TOL);
	EXPECT(sent >= MIN_PARKED_SAMPLES, "the setter sent only %ld signals", sent);
	reap(p);
	rmdir(p2(MNT, "esc"));
}

/*
 * Work pushed onto io_uring's io-wq workers (IOSQE_ASYNC reads of 256 KiB
 * from /dev/zero, ESC_BATCH in flight): the workers are threads of the
 * process, their CPU is the group's, and they must not run on while the
 * group is throttled.
 */
static void __attribute__((noreturn)) uring_offloader(void)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	struct ring r;
	char *buf;
	long inflight = 0, n = 0;
	int zero;

	drop_to(ESC_UID);
	zero = open("/dev/zero", O_RDONLY);
	buf = mmap(NULL, (size_t)ESC_READ_BYTES * ESC_BATCH, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (zero < 0 || buf == MAP_FAILED || ring_setup(&r, 2 * ESC_BATCH, &p))
		_exit(124);
	for (;;) {
		while (inflight < ESC_BATCH) {
			memset(&sqe, 0, sizeof(sqe));
			sqe.opcode = IORING_OP_READ;
			sqe.flags = IOSQE_ASYNC;
			sqe.fd = zero;
			sqe.addr = (unsigned long)(buf + (size_t)ESC_READ_BYTES * (n++ % ESC_BATCH));
			sqe.len = ESC_READ_BYTES;
			ring_submit(&r, &sqe);
			syscall(__NR_io_uring_enter, r.fd, 1, 0, 0, NULL, 0);
			inflight++;
		}
		/* wait for one completion in the kernel (no spinning here) */
		syscall(__NR_io_uring_enter, r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
		while (ring_reap(&r, &cqe, 0))
			inflight--;
	}
}

TEST_T(escape_io_uring_offload, 40)
{
	pid_t p;

	pinned_group("esc", Q10_US);
	p = fork();
	if (p == 0)
		uring_offloader();
	esc_case("escape_io_uring_offload", "IOSQE_ASYNC reads of 256 KiB from /dev/zero", p,
		 ESC_TOL_URING);
}

/*
 * io_uring's SQPOLL thread (iou-sqp-PID, a thread of the ring's owner)
 * issues the SQEs it finds inline: a read of /dev/zero (FMODE_NOWAIT, so not
 * punted to io-wq without IOSQE_ASYNC) runs in the SQ thread itself, and
 * after its last SQE the thread spins for sq_thread_idle. An owner that
 * keeps a ring of SQB_ENTRIES such reads full needs almost no CPU of its own
 * (it writes SQEs and sleeps in io_uring_enter() for completions): the work
 * is the SQ thread's, which is charged to the group but never parked (it
 * runs task_work with sqd->lock held; docs/module.md). A KNOWN GAP: the
 * process's share is far over its quota (0.925 of a CPU at 10 %); printed,
 * not asserted. Asserted, what does hold: the owner itself is held (its own
 * thread within the quota), and the SQ thread's run ends once the owner
 * stops refilling: the backlog drains and, sq_thread_idle later, the thread
 * sleeps (no CPU for SQB_QUIET_S) within SQB_DRAIN_BOUND_S.
 */
#define SQB_ENTRIES		256		/* SQ ring: a backlog of inline reads */
#define SQB_READ_BYTES		(16 << 20)	/* one read from /dev/zero */
#define SQB_IDLE_MS		2000		/* sq_thread_idle: spin 2 s when idle */
#define SQB_DRAIN_BOUND_S	40.0		/* 4 GiB of zeroes under TCG on a busy host,
						 * then sq_thread_idle */
#define SQB_QUIET_S		0.5		/* "asleep": no CPU over this */
#define SQB_SETUP_BOUND_S	20.0		/* 16 MiB populated at 10 % of a CPU */

struct sqb_shared {
	volatile unsigned long long bytes, reads;	/* completed, as reaped */
	volatile int err;				/* setup: errno */
	volatile int fd;				/* the ring, once set up */
	volatile int stop;				/* no more refills */
	volatile int ready;				/* the ring is set up */
};

/* CQEs the kernel posted on @pid's ring @fd so far (its fdinfo), or 0 */
static unsigned int ring_cq_tail(pid_t pid, int fd)
{
	char path[64], buf[2048], *t;
	unsigned int tail = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	if (rd(path, buf, sizeof(buf)) > 0 && (t = strstr(buf, "CqTail:")))
		sscanf(t + 7, "%u", &tail);
	return tail;
}

static void __attribute__((noreturn)) sqpoll_backlog(struct sqb_shared *s)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	unsigned long long inflight = 0;
	struct ring r;
	char *buf;
	int zero, err;

	drop_to(ESC_UID);
	zero = open("/dev/zero", O_RDONLY);
	buf = mmap(NULL, SQB_READ_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	p.flags = IORING_SETUP_SQPOLL;
	p.sq_thread_idle = SQB_IDLE_MS;
	err = zero < 0 || buf == MAP_FAILED ? errno : -ring_setup(&r, SQB_ENTRIES, &p);
	if (err) {
		s->err = err;
		_exit(124);
	}
	s->fd = r.fd;
	s->ready = 1;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_READ;	/* inline: no IOSQE_ASYNC */
	sqe.fd = zero;
	sqe.addr = (unsigned long)buf;
	sqe.len = SQB_READ_BYTES;
	for (;;) {
		while (ring_reap(&r, &cqe, 0)) {
			inflight--;
			if (cqe.res > 0) {
				s->bytes += cqe.res;
				s->reads++;
			}
		}
		/* at most a ring's worth unreaped: the SQ (and the CQ) never overflow */
		while (!s->stop && inflight < p.sq_entries) {
			ring_submit(&r, &sqe);
			inflight++;
		}
		if (s->stop && !inflight)
			pause();
		/* sleep in the kernel until a completion */
		syscall(__NR_io_uring_enter, r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	}
}

/*
 * @p's SQ thread, or 0: its only other thread (the owner is single-threaded
 * and offloads nothing, so io-wq starts no worker); its comm in @comm
 */
static long sq_thread_of(pid_t p, char *comm, size_t n)
{
	long tids[8];
	int i, k = proc_tids(p, tids, 8);

	for (i = 0; i < k; i++)
		if (tids[i] != p) {
			tid_file(p, tids[i], "comm", comm, n);
			return tids[i];
		}
	snprintf(comm, n, "none");
	return 0;
}

TEST_T(escape_sqpoll_backlog, 90)
{
	const char *name = "escape_sqpoll_backlog";
	struct sqb_shared *s = shm(sizeof(*s));
	unsigned long long b0, b1, r0, r1, o0, q0, q1;
	double share, own, t0, t, quiet_t;
	unsigned int c0, c1;
	char comm[32];
	long sqt;
	pid_t p;

	pinned_group("esc", Q10_US);
	p = fork();
	if (p < 0)
		FAIL("fork: %s", strerror(errno));
	if (p == 0)
		sqpoll_backlog(s);
	join("esc", p);
	/* at 10 %, populating the buffer and the ring takes a while under TCG */
	for (t0 = tg_now(); !s->ready && !s->err && tg_now() - t0 < SQB_SETUP_BOUND_S; )
		usleep(10000);
	if (!s->ready)
		reap(p);
	EXPECT(s->ready, "the ring was not set up within %.0f s: io_uring_setup(SQPOLL) as uid "
	       "%d: %s", SQB_SETUP_BOUND_S, ESC_UID, s->err ? strerror(s->err) : "(no error yet)");
	usleep(WARMUP_S * 1e6);
	sqt = sq_thread_of(p, comm, sizeof(comm));
	b0 = s->bytes;
	r0 = s->reads;
	c0 = ring_cq_tail(p, s->fd);
	o0 = tid_cpu_ns(p, p);
	t0 = tg_now();
	share = proc_share(p, MEASURE_S);
	own = (tid_cpu_ns(p, p) - o0) / 1e9 / (tg_now() - t0);
	c1 = ring_cq_tail(p, s->fd);
	b1 = s->bytes;
	r1 = s->reads;
	/* the owner reaps only when it runs: the kernel's count is fdinfo's CqTail */
	printf("TGTEST-INFO: %s: KNOWN GAP: the process got %.3f of one CPU over %.1f s under a "
	       "%.2f quota (the owner thread %.3f, the rest its SQ thread %ld, %s); the SQ thread "
	       "completed %u reads of 16 MiB (CqTail), the owner reaped %llu (%.1f MiB); "
	       "nr_throttled %llu\n", name, share, MEASURE_S, Q10_SHARE, own, sqt, comm, c1 - c0,
	       r1 - r0, (b1 - b0) / 1048576.0, stat_value("esc", "nr_throttled"));

	/* the owner stops refilling: the backlog drains, then the SQ thread sleeps */
	s->stop = 1;
	t0 = tg_now();
	quiet_t = -1;
	while (sqt && tg_now() - t0 < SQB_DRAIN_BOUND_S) {
		q0 = tid_cpu_ns(p, sqt);
		usleep(SQB_QUIET_S * 1e6);
		q1 = tid_cpu_ns(p, sqt);
		if (q1 == q0) {
			quiet_t = tg_now() - t0;
			break;
		}
	}
	printf("TGTEST-INFO: %s: refills stopped: the SQ thread asleep after %.1f s (bound %.1f s: "
	       "a ring of %d reads of 16 MiB, then sq_thread_idle %d ms)\n", name, quiet_t,
	       SQB_DRAIN_BOUND_S, SQB_ENTRIES, SQB_IDLE_MS);
	reap(p);
	rmdir(p2(MNT, "esc"));
	EXPECT(sqt, "no SQ thread in process %d", p);
	t = Q10_SHARE * (1 + ESC_TOL);
	EXPECT(own <= t, "the ring's owner got %.3f of one CPU itself (quota %.2f + %.0f %%): "
	       "not held", own, Q10_SHARE, ESC_TOL * 100);
	EXPECT(quiet_t >= 0, "the SQ thread still ran %.1f s after the owner stopped refilling",
	       SQB_DRAIN_BOUND_S);
}

/* ---- 6. leaving a throttle lets the task run at once ----------------------- */

/* pa (2 burners) and pb (1 burner) deeply parked in g at 1 % */
static void deep_park(const char *g, pid_t *pa, pid_t *pb)
{
	double s;

	set_period_ms(PERIOD_MS);
	mk(g);
	pin(g, Q1_US);
	*pa = spinner_proc(2, NULL);
	*pb = spinner_proc(1, NULL);
	join(g, *pa);
	join(g, *pb);
	usleep(DEEP_PARK_S * 1e6);
	s = proc_share(*pa, 0.5);
	EXPECT(s < PARKED_MAX_SHARE, "not parked at 1 %%: %.3f of one CPU", s);
}

/* seconds from t0 until pid has run RELEASE_CPU_MS more, polling up to limit_s; -1 if not */
static double time_to_run(pid_t pid, double t0, unsigned long long base, double limit_s)
{
	while (tg_now() - t0 < limit_s) {
		if (proc_cpu_ns(pid) - base >= RELEASE_CPU_MS * 1000000ull)
			return tg_now() - t0;
		usleep(1000);
	}
	return -1;
}

/*
 * How slow the host is right now: ms a process in no group takes to run
 * RELEASE_CPU_MS of CPU (the parked ones use almost none meanwhile). TCG's
 * vCPUs are host threads: on a busy host everything in the guest, a release
 * included, takes longer by the same factor.
 */
static double free_run_ms(void)
{
	unsigned long long base;
	pid_t p = spinner_proc(1, NULL);
	double t0 = tg_now(), t;

	base = proc_cpu_ns(p);
	t = time_to_run(p, t0, base, 2.0);
	reap(p);
	return t < 0 ? 2000 : t * 1e3;
}

/* @ref_ms: free_run_ms() just before the release */
static void expect_released(const char *name, const char *how, pid_t pa, double t0,
			    unsigned long long base, double ref_ms)
{
	double t = time_to_run(pa, t0, base, 2.0);
	double bound = RELEASE_BOUND_MS * (ref_ms > RELEASE_CPU_MS ? ref_ms / RELEASE_CPU_MS : 1);

	printf("TGTEST-INFO: %s: after %s the parked process ran %d ms of CPU within %.1f ms "
	       "(bound %.0f ms; a free process took %.1f ms)\n", name, how, RELEASE_CPU_MS,
	       t * 1e3, bound, ref_ms);
	EXPECT(t >= 0 && t * 1e3 <= bound, "after %s: %s", how,
	       t < 0 ? "still parked 2 s later" : "released too late");
}

TEST_T(release_on_move_to_root, 30)
{
	unsigned long long base;
	pid_t pa, pb;
	double t0, s2, ref;

	deep_park("rm", &pa, &pb);
	ref = free_run_ms();
	base = proc_cpu_ns(pa);
	t0 = tg_now();
	join("", pa);
	expect_released("release_on_move_to_root", "its move to the root group", pa, t0, base,
			ref);
	s2 = proc_share(pb, 0.5);
	printf("TGTEST-INFO: release_on_move_to_root: the one left in the group: %.3f of one "
	       "CPU\n", s2);
	EXPECT(s2 < PARKED_MAX_SHARE, "the other process was released too: %.3f", s2);
	reap(pa);
	reap(pb);
	rmdir(p2(MNT, "rm"));
}

/* Park two processes deep in g, release with @release, expect one released. */
static void release_case(const char *test, const char *g, const char *what,
			 void (*release)(const char *g))
{
	unsigned long long base;
	pid_t pa, pb;
	double t0, ref;

	deep_park(g, &pa, &pb);
	ref = free_run_ms();
	base = proc_cpu_ns(pa);
	t0 = tg_now();
	release(g);
	expect_released(test, what, pa, t0, base, ref);
	reap(pa);
	reap(pb);
	rmdir(p2(MNT, g));
}

static void set_high(const char *g)
{
	EXPECT(wr(gp(g, "tgroup.priority"), "high") > 0);
}

static void regulator_off(const char *g)
{
	(void)g;
	EXPECT(wr(gp("", "tgroup.config"), "enabled=0") > 0);
}

static void unpin(const char *g)
{
	pin(g, 0);
}

TEST_T(release_on_priority_high, 30)
{
	release_case("release_on_priority_high", "rp", "priority high", set_high);
}

TEST_T(release_on_enabled_0, 30)
{
	release_case("release_on_enabled_0", "re", "enabled=0", regulator_off);
	wr(gp("", "tgroup.config"), "enabled=1");
}

TEST_T(release_on_unpin, 30)
{
	release_case("release_on_unpin", "ru", "cpu_quota_us=0", unpin);
}

/* ---- 11. the cgroup v2 freezer, again and again ---------------------------- */

#define FREEZE_CYCLES		20
#define THAW_RUN_US		500	/* "runs": half its allowance of a period */
#define THAW_RUN_BOUND_S	3.0	/* the thawed spinner has run THAW_RUN_US: a thaw
					 * lets it overrun until the next slice, and the
					 * debt's floor (100 periods' quota) is 1 s of wall
					 * at 10 %; 0.574 s seen in the guest */

struct cycles {
	const char *cg;
	pid_t pid[2];		/* the spinner, the parked process */
	int dstate;		/* samples of a thread in D */
	char dwhat[1400];
	double max_freeze, max_thaw, max_run;
};

/* sample the threads of both processes: a thread in D is noted */
static void cycles_sample(struct cycles *c)
{
	long tids[16];
	int i, k, n;

	for (k = 0; k < 2; k++) {
		n = proc_tids(c->pid[k], tids, 16);
		for (i = 0; i < n; i++)
			if (tid_state(c->pid[k], tids[i]) == 'D' && !c->dstate++)
				tg_describe_task(tids[i], c->dwhat, sizeof(c->dwhat));
	}
}

/* poll cgroup.events for @want, sampling states meanwhile; seconds taken, -1 if not */
static double cycles_wait(struct cycles *c, const char *want)
{
	double t0 = tg_now();
	char buf[512];

	do {
		cycles_sample(c);
		rd(p2(c->cg, "cgroup.events"), buf, sizeof(buf));
		if (strstr(buf, want))
			return tg_now() - t0;
		usleep(2000);
	} while (tg_now() - t0 < FREEZE_BOUND_S);
	return -1;
}

/* write cgroup.freeze (@v: "0" or "1") and wait for "frozen @v"; 0, or -1 */
static int cycles_freeze(struct cycles *c, const char *v, double *max)
{
	char want[16];
	double t;

	snprintf(want, sizeof(want), "frozen %s", v);
	if (wr(p2(c->cg, "cgroup.freeze"), v) < 0 || (t = cycles_wait(c, want)) < 0)
		return -1;
	*max = t > *max ? t : *max;
	return 0;
}

/* one freeze and thaw; NULL, or what went wrong */
static const char *cycles_one(struct cycles *c)
{
	unsigned long long base;
	double t, t0;

	if (cycles_freeze(c, "1", &c->max_freeze))
		return "did not freeze within the bound";
	base = proc_cpu_ns(c->pid[0]);
	if (cycles_freeze(c, "0", &c->max_thaw))
		return "did not thaw within the bound";
	t0 = tg_now();
	while (proc_cpu_ns(c->pid[0]) - base < THAW_RUN_US * 1000ull) {
		if (tg_now() - t0 > THAW_RUN_BOUND_S)
			return "the thawed spinner did not run";
		cycles_sample(c);
		usleep(1000);
	}
	t = tg_now() - t0;
	c->max_run = t > c->max_run ? t : c->max_run;
	return NULL;
}

/*
 * FREEZE_CYCLES freezes and thaws in a row of a cgroup v2 that holds a
 * spinner of a group pinned at 10 % (throttled, parked most of each
 * period) and a process parked for good (a group pinned at 0.01 %): every
 * freeze completes within FREEZE_BOUND_S and every thaw lets the spinner
 * run THAW_RUN_US within THAW_RUN_BOUND_S; no thread is ever seen in D;
 * afterwards the spinner is held at 10 % +- REQ_TOL, and once both groups
 * are released both processes run: nothing stays parked. The parked
 * process's share over the cycles is printed, not judged: the freezer's
 * trap ends a park and a thawed task runs until the next enforcer slice
 * (docs/module.md), charged to its group.
 */
TEST_T(freeze_thaw_cycles, 120)
{
	struct cycles c = { .cg = "/sys/fs/cgroup/tgcycles" };
	unsigned long long pbase, base[2];
	const char *err = NULL;
	double t0, parked, share, ref;
	double lo = Q10_SHARE * (1 - REQ_TOL), hi = Q10_SHARE * (1 + REQ_TOL);
	int ours, i, k;

	set_period_ms(PERIOD_MS);
	mk("cs");
	pin("cs", Q10_US);
	mk("cp");
	pin("cp", QTINY_US);
	c.pid[0] = spinner_proc(1, NULL);
	c.pid[1] = spinner_proc(1, NULL);
	join("cs", c.pid[0]);
	join("cp", c.pid[1]);
	wait_throttled("cp", 0, 5);
	EXPECT(wait_off_cpu(c.pid[1], c.pid[1], 2.0), "the process at 0.01 %% was never seen parked");
	EXPECT(!cgroup2_mount(&ours), "mount cgroup2: %s", strerror(errno));
	rmdir(c.cg);
	EXPECT_OK(mkdir(c.cg, 0755));
	for (k = 0; k < 2; k++)
		EXPECT(wrf(p2(c.cg, "cgroup.procs"), "%d", c.pid[k]) > 0, "move to %s: %s", c.cg,
		       strerror(errno));
	pbase = proc_cpu_ns(c.pid[1]);
	t0 = tg_now();
	for (i = 0; i < FREEZE_CYCLES && !err; i++)
		err = cycles_one(&c);
	parked = (proc_cpu_ns(c.pid[1]) - pbase) / 1e9 / (tg_now() - t0);
	/* thaw and put them back before judging, so nothing is left frozen */
	wr(p2(c.cg, "cgroup.freeze"), "0");
	for (k = 0; k < 2; k++)
		wrf("/sys/fs/cgroup/cgroup.procs", "%d", c.pid[k]);
	rmdir(c.cg);
	if (ours)
		umount("/sys/fs/cgroup");
	printf("TGTEST-INFO: freeze_thaw_cycles: %d of %d cycles%s%s; longest freeze %.3f s, thaw "
	       "%.3f s (bound %.1f s), spinner ran %d us %.3f s after a thaw at most (bound %.1f s); "
	       "the parked process %.4f of one CPU meanwhile (not judged: a thaw lets it run up to a "
	       "slice); %d D samples\n",
	       err ? i - 1 : i, FREEZE_CYCLES, err ? ": " : "", err ? err : "", c.max_freeze,
	       c.max_thaw, FREEZE_BOUND_S, THAW_RUN_US, c.max_run, THAW_RUN_BOUND_S, parked,
	       c.dstate);
	if (c.dstate)
		printf("TGTEST-INFO: freeze_thaw_cycles: first D sample: %s\n", c.dwhat);
	EXPECT(!err, "cycle %d: %s", i, err);
	EXPECT(!c.dstate, "%d samples in state D, e.g. %.300s", c.dstate, c.dwhat);

	usleep(WARMUP_S * 1e6);
	share = proc_share(c.pid[0], MEASURE_S);
	printf("TGTEST-INFO: freeze_thaw_cycles: then the spinner: %.3f of one CPU over %.1f s "
	       "(quota %.2f, +-%.0f %%: %.3f..%.3f)\n", share, MEASURE_S, Q10_SHARE,
	       REQ_TOL * 100, lo, hi);
	EXPECT(share >= lo && share <= hi, "spinner share %.3f after the cycles, expected %.2f "
	       "+- %.0f %%", share, Q10_SHARE, REQ_TOL * 100);

	/* released, both run at once (the bound scaled by the host's speed now) */
	ref = free_run_ms();
	for (k = 0; k < 2; k++)
		base[k] = proc_cpu_ns(c.pid[k]);
	t0 = tg_now();
	unpin("cs");
	unpin("cp");
	for (k = 0; k < 2; k++)	/* both released at t0: the second is not late for the wait */
		expect_released("freeze_thaw_cycles", k ? "both groups' release (process 2: at 0.01 %)" :
				"both groups' release (process 1: the spinner)", c.pid[k], t0, base[k],
				ref);
	for (k = 0; k < 2; k++)
		reap(c.pid[k]);
	rmdir(p2(MNT, "cs"));
	rmdir(p2(MNT, "cp"));
}

TEST_T(release_on_umount, 40)
{
	unsigned long long base;
	struct bounded b;
	pid_t pa, pb;
	double ref;

	deep_park("ro", &pa, &pb);
	ref = free_run_ms();
	base = proc_cpu_ns(pa);
	bounded_start(&b, do_umount, NULL);
	expect_released("release_on_umount", "umount", pa, b.t0, base, ref);
	if (!bounded_wait(&b, UMOUNT_BOUND_S))
		FAIL("umount did not return within %.0f s: %.300s", UMOUNT_BOUND_S,
		     hung_report("release_on_umount", "umount", &b));
	EXPECT(bounded_rc(&b) == 0, "umount: %s", strerror(bounded_rc(&b)));
	reap(pa);
	reap(pb);
}

/* ---- 9. churn, then unmount and unload cleanly ----------------------------- */

enum { C_MKDIR, C_RMDIR, C_FORK, C_MOVE, C_PERIOD, C_PIN, C_PRIO, NR_C };
static const char *const churn_name[NR_C] = {
	"mkdir", "rmdir", "fork", "move", "period", "pin", "priority"
};

struct churn {
	volatile int stop;
	long ok[NR_C];
	pid_t movable[CHURN_STORMS + CHURN_STABLE];
};

static const char *churn_group(unsigned int *seed)
{
	static char name[16];
	unsigned int k = rand_r(seed) % (CHURN_GROUPS + CHURN_STABLE + 1);

	if (k == CHURN_GROUPS + CHURN_STABLE)
		return "";
	if (k < CHURN_GROUPS)
		snprintf(name, sizeof(name), "c%u", k);
	else
		snprintf(name, sizeof(name), "s%u", k - CHURN_GROUPS);
	return name;
}

static void churn_ok(struct churn *c, int k)
{
	__atomic_add_fetch(&c->ok[k], 1, __ATOMIC_RELAXED);
}

static void *noop_thread(void *arg)
{
	return arg;
}

static pid_t churner(struct churn *c, int kind, unsigned int seed)
{
	pid_t p = fork();

	if (p)
		return p;
	while (!c->stop) {
		const char *g = churn_group(&seed);
		pthread_t t;
		pid_t k;

		switch (kind) {
		case 0:		/* groups come and go */
			if (g[0] == 'c' && !mkdir(p2(MNT, g), 0755))
				churn_ok(c, C_MKDIR);
			g = churn_group(&seed);
			if (g[0] == 'c' && !rmdir(p2(MNT, g)))
				churn_ok(c, C_RMDIR);
			break;
		case 1:		/* fork/exit and thread storm */
			k = fork();
			if (k == 0) {
				if (!pthread_create(&t, NULL, noop_thread, NULL))
					pthread_join(t, NULL);
				_exit(0);
			}
			if (k > 0) {
				waitpid(k, NULL, 0);
				churn_ok(c, C_FORK);
			}
			if (!pthread_create(&t, NULL, noop_thread, NULL))
				pthread_join(t, NULL);
			break;
		case 2:		/* moves of the storms and spinners */
			k = c->movable[rand_r(&seed) % (CHURN_STORMS + CHURN_STABLE)];
			if (k > 0 && wrf(gp(g, "cgroup.procs"), "%d", k) > 0)
				churn_ok(c, C_MOVE);
			usleep(500);
			break;
		case 3:		/* knobs: period, pins, priorities */
			switch (rand_r(&seed) % 3) {
			case 0:
				if (wrf(gp("", "tgroup.config"), "period_ms=%d",
					rand_r(&seed) % 2 ? 1 : PERIOD_MS) > 0)
					churn_ok(c, C_PERIOD);
				break;
			case 1: {
				static const unsigned int q[] = { 0, 50, 200, 1000, 5000 };

				if (g[0] && wrf(INJECT, "pin group=%s cpu_quota_us=%u", g,
						q[rand_r(&seed) % 5]) > 0)
					churn_ok(c, C_PIN);
				break;
			}
			default:
				if (g[0] && wr(gp(g, "tgroup.priority"),
					       rand_r(&seed) % 2 ? "high" : "low") > 0)
					churn_ok(c, C_PRIO);
			}
			usleep(500);
			break;
		}
	}
	_exit(0);
}

/* kernel log after the last `marker`: the first line matching a problem, or NULL */
static const char *kernel_problem(const char *marker)
{
	static const char *const bad[] = {
		/* reports only: a debug kernel names lockdep and kmemleak at boot */
		"WARNING:", "BUG:", "Oops", "general protection", "Call Trace",
		"possible circular locking", "possible recursive locking",
		"inconsistent lock state", "suspicious RCU usage",
		"sleeping function called from invalid context", "KASAN:",
		"suspected memory leaks", "UBSAN", "refcount_t",
		"list_add corruption", "list_del corruption", "INFO: task", "rcu: INFO",
		"self-detected stall",
	};
	static char log[1 << 20], line[256];
	char *from = log, *p, *e;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	unsigned int i;

	if (n < 0)
		return "cannot read the kernel log";
	log[n] = '\0';
	for (p = log; (p = strstr(p, marker)); p++)
		from = p;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = strstr(from, bad[i]);
		if (!p)
			continue;
		while (p > from && p[-1] != '\n')
			p--;
		e = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s", e ? (int)(e - p) : 200, p);
		return line;
	}
	return NULL;
}

/* the runner's bound is generous; the test sets its own alarm from its length */
TEST_T(churn_then_unload, 3600)
{
	const char *env = getenv("TG_CHURN_SECONDS");
	int secs = env && atoi(env) > 0 ? atoi(env) : CHURN_DEFAULT_S;
	struct churn *c = shm(sizeof(*c));
	pid_t procs[64];
	int nprocs = 0, i, err;
	struct bounded b;
	const char *why;
	char marker[64];
	double t0;

	alarm(secs + 120);
	/* orphans of the storms come back to us, to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	snprintf(marker, sizeof(marker), "tgthrottle: churn start %d", getpid());
	wr("/dev/kmsg", marker);
	for (i = 0; i < CHURN_STABLE; i++) {
		char g[8];

		snprintf(g, sizeof(g), "s%d", i);
		mk(g);
		c->movable[CHURN_STORMS + i] = procs[nprocs++] = spinner_proc(1, NULL);
		join(g, c->movable[CHURN_STORMS + i]);
		pin(g, 50 + 200 * i);
	}
	set_period_ms(1);
	for (i = 0; i < CHURN_STORMS; i++)
		c->movable[i] = procs[nprocs++] = churner(c, 1, 100 + i);
	procs[nprocs++] = churner(c, 0, 1);
	procs[nprocs++] = churner(c, 0, 2);
	procs[nprocs++] = churner(c, 2, 3);
	procs[nprocs++] = churner(c, 2, 4);
	procs[nprocs++] = churner(c, 3, 5);
	t0 = tg_now();
	while (tg_now() - t0 < secs)
		usleep(100000);
	c->stop = 1;
	for (i = 0; i < nprocs; i++)
		kill(procs[i], SIGKILL);
	/* reap everything (orphans included), with a deadline */
	t0 = tg_now();
	while (waitpid(-1, NULL, WNOHANG) >= 0) {
		if (tg_now() - t0 > RECOVER_BOUND_S) {
			for (i = 0; i < nprocs; i++)
				if (!kill(procs[i], 0)) {
					struct bounded d = { .pid = procs[i], .secs = tg_now() - t0 };

					FAIL("a churn process did not die after SIGKILL: %.300s",
					     hung_report("churn_then_unload", "SIGKILLed process", &d));
				}
			FAIL("churn children not all reaped within %.0f s", RECOVER_BOUND_S);
		}
		usleep(10000);
	}
	printf("TGTEST-INFO: churn_then_unload: %d s:", secs);
	for (i = 0; i < NR_C; i++)
		printf(" %s %ld", churn_name[i], c->ok[i]);
	printf("\n");
	for (i = 0; i < NR_C; i++)
		EXPECT(c->ok[i] > 0, "no successful %s during the churn", churn_name[i]);
	if (!bounded_run(&b, do_umount, NULL, UMOUNT_BOUND_S))
		FAIL("umount after the churn did not return within %.0f s: %.300s", UMOUNT_BOUND_S,
		     hung_report("churn_then_unload", "umount", &b));
	EXPECT(bounded_rc(&b) == 0, "umount: %s", strerror(bounded_rc(&b)));
	EXPECT(unload_within("churn_then_unload", UNLOAD_BOUND_S, &err),
	       "rmmod after the churn: %s", strerror(err));
	if (!access("/sys/kernel/debug/kmemleak", W_OK)) {
		char leaks[4096];

		wr("/sys/kernel/debug/kmemleak", "scan");
		rd("/sys/kernel/debug/kmemleak", leaks, sizeof(leaks));
		EXPECT(!strstr(leaks, "unreferenced object"), "kmemleak: %.300s", leaks);
	}
	why = kernel_problem(marker);
	EXPECT(!why, "kernel log after the churn: %s", why);
}

/* ---- 2. a stopped or traced member does not block umount or rmmod ---------- */

static void stopped_member_case(const char *name, int traced)
{
	const char *how = traced ? "ptrace-stopped" : "SIGSTOPped";
	char why[600] = "";
	struct bounded um = { 0 }, rm = { .done = 1 };
	int st, err, unloaded = 0, um_rc = -1;
	double t0;
	pid_t burner, m;

	set_period_ms(PERIOD_MS);
	mk("g");
	burner = spinner_proc(1, NULL);
	m = spinner_proc(1, NULL);
	join("g", burner);
	join("g", m);
	pin("g", Q1_US);
	wait_throttled("g", 0, 5);
	if (traced) {
		EXPECT(!ptrace(PTRACE_SEIZE, m, 0, 0), "PTRACE_SEIZE: %s", strerror(errno));
		EXPECT(!ptrace(PTRACE_INTERRUPT, m, 0, 0), "PTRACE_INTERRUPT: %s", strerror(errno));
		t0 = tg_now();
		while (waitpid(m, &st, __WALL | WNOHANG) != m && tg_now() - t0 < STOP_BOUND_S)
			usleep(2000);
		EXPECT(tg_now() - t0 < STOP_BOUND_S, "PTRACE_INTERRUPT did not stop the member "
		       "within %.0f s (state %c)", STOP_BOUND_S, tid_state(m, m));
	} else {
		kill(m, SIGSTOP);
		t0 = tg_now();
		while (tid_state(m, m) != 'T' && tg_now() - t0 < STOP_BOUND_S)
			usleep(2000);
		EXPECT(tid_state(m, m) == 'T', "SIGSTOP did not stop the member within %.0f s "
		       "(state %c)", STOP_BOUND_S, tid_state(m, m));
	}
	printf("TGTEST-INFO: %s: member %d %s (state %c)\n", name, m, how, tid_state(m, m));
	/* throttled again and again while it is stopped */
	wait_throttled("g", stat_value("g", "nr_throttled") + 5, 5);

	if (!bounded_run(&um, do_umount, NULL, STOPPED_UMOUNT_BOUND_S))
		snprintf(why, sizeof(why), "umount with a %s member did not return within %.0f s: "
			 "%.300s", how, STOPPED_UMOUNT_BOUND_S, hung_report(name, "umount", &um));
	else
		um_rc = bounded_rc(&um);
	if (!why[0] && um_rc == 0) {
		if (!bounded_run(&rm, do_rmmod, NULL, RMMOD_PROMPT_S)) {
			snprintf(why, sizeof(why), "rmmod with a %s member did not return within "
				 "%.0f s: %.300s", how, RMMOD_PROMPT_S, hung_report(name, "rmmod", &rm));
		} else {
			err = bounded_rc(&rm);
			unloaded = !err;
			printf("TGTEST-INFO: %s: rmmod with the member still %s: %s\n", name, how,
			       err ? strerror(err) : "unloaded");
			if (err && err != EBUSY && err != EAGAIN)
				snprintf(why, sizeof(why), "rmmod with a %s member: %s (expected "
					 "success, EBUSY or EAGAIN)", how, strerror(err));
		}
	}
	/* let it go, and it exits */
	if (traced)
		ptrace(PTRACE_DETACH, m, 0, 0);
	kill(m, SIGCONT);
	reap(m);
	reap(burner);
	if (!um.done) {
		int back = bounded_wait(&um, RECOVER_BOUND_S);

		FAIL("%s; %s", why, back ? "it returned once the member was let go and exited" :
		     "it did not return even after the member exited");
	}
	EXPECT(um_rc == 0, "umount: %s", strerror(um_rc));
	if (why[0] && !rm.done && !bounded_wait(&rm, RECOVER_BOUND_S))
		FAIL("%s; it did not return even after the member exited", why);
	if (why[0])
		FAIL("%s", why);
	if (!unloaded)
		EXPECT(unload_within(name, UNLOAD_BOUND_S, &err),
		       "rmmod after the member exited: %s", strerror(err));
}

TEST_T(umount_with_sigstopped_member, 60)
{
	stopped_member_case("umount_with_sigstopped_member", 0);
}

TEST_T(umount_with_ptraced_member, 60)
{
	stopped_member_case("umount_with_ptraced_member", 1);
}

/* ---- 1. unmount from inside a throttled group never hangs ----------------- */

/* last: on code that deadlocks here the umount stays stuck for good */
TEST_T(umount_from_throttled_group, 300)
{
	struct bounded b;
	double worst = 0;
	int i, err;
	pid_t burner;

	for (i = 0; i < UMOUNT_TRIES; i++) {
		if (i) {
			if (!bounded_run(&b, do_mount, NULL, UMOUNT_BOUND_S))
				FAIL("try %d: mount did not return: %.300s", i + 1,
				     hung_report("umount_from_throttled_group", "mount", &b));
			EXPECT(bounded_rc(&b) == 0, "try %d: mount: %s", i + 1,
			       strerror(bounded_rc(&b)));
		}
		set_period_ms(1);
		mk("g");
		burner = spinner_proc(1, NULL);
		join("g", burner);
		pin("g", 50);
		wait_throttled("g", 0, 5);
		if (!bounded_run(&b, do_umount_from_group, "g", UMOUNT_BOUND_S))
			FAIL("try %d: umount from inside the throttled group did not return "
			     "within %.0f s: %.300s", i + 1, UMOUNT_BOUND_S,
			     hung_report("umount_from_throttled_group", "umount", &b));
		EXPECT(bounded_rc(&b) == 0, "try %d: umount: %s", i + 1,
		       bounded_rc(&b) == 200 ? "could not join the group" : strerror(bounded_rc(&b)));
		if (b.secs > worst)
			worst = b.secs;
		reap(burner);
	}
	printf("TGTEST-INFO: umount_from_throttled_group: %d tries, slowest umount %.3f s\n",
	       UMOUNT_TRIES, worst);
	EXPECT(unload_within("umount_from_throttled_group", UNLOAD_BOUND_S, &err),
	       "rmmod after the tries: %s", strerror(err));
}

/* ---- the suite script's helpers --------------------------------------------- */

/*
 * After test `name`: unmount (if mounted) and unload, each with a deadline.
 * A stuck module is reported as a failure of `name`_cleanup; exit 1 then,
 * so the script runs nothing more against it.
 */
static int cleanup(const char *name)
{
	struct bounded b;
	int err = 0;

	tg_fail_fd = -1;
	if (mounted()) {
		if (!bounded_run(&b, do_umount, NULL, UNLOAD_BOUND_S)) {
			printf("TGTEST: FAIL %s_cleanup: umount hung: %.300s\n", name,
			       hung_report(name, "cleanup umount", &b));
			return 1;
		}
		if (bounded_rc(&b)) {
			printf("TGTEST: FAIL %s_cleanup: umount: %s\n", name,
			       strerror(bounded_rc(&b)));
			return 1;
		}
	}
	if (module_loaded()) {
		double t0 = tg_now();

		do {
			if (!bounded_run(&b, do_rmmod, NULL, UNLOAD_BOUND_S)) {
				printf("TGTEST: FAIL %s_cleanup: rmmod hung: %.300s\n", name,
				       hung_report(name, "cleanup rmmod", &b));
				return 1;
			}
			err = bounded_rc(&b);
			if (err)
				usleep(100000);
		} while (err && tg_now() - t0 < UNLOAD_BOUND_S);
		if (err) {
			printf("TGTEST: FAIL %s_cleanup: rmmod: %s\n", name, strerror(err));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < tg_nr_tests; i++)
			printf("%s\n", tg_tests[i].name);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--cleanup"))
		return cleanup(argc > 2 ? argv[2] : "throttle");
	return tg_run_all(argc, argv);
}
