// SPDX-License-Identifier: GPL-2.0
/*
 * pmdk_test.c - the pmdk source in the guest: the page shared through
 * /dev/tgroup_pmem (layout, ownership, mapping rules, slots per thread, the
 * overflow slot, slots freed at exit, untrusted reports, the MBM cap), then
 * libtgpmem.so preloaded into real libpmem programs writing to the DAX ext4
 * on the emulated pmem (/mnt/pmem): pmem_writer (tests/pmdk/pmem_writer.c)
 * and fio's libpmem engine.
 *
 * Expects tgroup.ko loaded with inject=1 and mounted (suite "pmdk"). Every
 * expectation is an exact byte count computed here from what was written;
 * the only tolerance is PMDK_TOL (one flush granule, a cache line), which
 * the library's exact counting does not need.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "util.h"
#include "tgpmem_abi.h"

#define PMDK_TOL	64	/* one flush granule */

/* the calling thread's CPU time so far, ns (exact, not ticks) */
static unsigned long long my_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		FAIL("clock_gettime: %s", strerror(errno));
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* pmdk_cpu_gbps: bytes a thread may report per ns of its CPU time (docs/abi.md) */
static unsigned long long pmdk_rate(void)
{
	char buf[32];

	if (rd("/sys/module/tgroup/parameters/pmdk_cpu_gbps", buf, sizeof(buf)) > 0)
		return strtoull(buf, NULL, 10);
	return 64;		/* the documented default */
}

/*
 * A writer that reports bytes it did not store (the tests write counts
 * straight into their slots) spends the CPU time the report claims, twice
 * over, as one that stored them would have: the module charges no more
 * than that (pmdk_cpu_gbps).
 */
static void spend_cpu_for(unsigned long long bytes)
{
	unsigned long long t0 = my_cpu_ns(), need = 2 * bytes / pmdk_rate() + 1000;

	while (my_cpu_ns() - t0 < need)
		;
}
#define PRELOAD		"LD_PRELOAD=/usr/bin/libtgpmem.so"
#define WRITER		"/usr/bin/pmem_writer"

/* a process's state letter from /proc/PID/stat, '?' if unreadable */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (rd(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')) || p[1] != ' ')
		return '?';
	return p[2];
}

static unsigned long long root_periods(void)
{
	return stat_value("", "nr_periods");
}

/* wait until n more regulation periods have started and finished */
static void wait_periods(unsigned int n)
{
	unsigned long long end = root_periods() + n + 1;
	int i;

	for (i = 0; i < 2000 && root_periods() < end; i++)
		usleep(5000);
	if (root_periods() < end)
		FAIL("the regulation loop stalled");
}

static unsigned long long nvm_w(const char *g)
{
	return stat_value(g, "nvm_write_bytes");
}

/* tgroup.config source_pmdk: "active: P processes, S thread slots, R reports rejected" */
static void pmdk_state(unsigned int *procs, unsigned int *slots, unsigned long long *rej)
{
	char buf[4096], *p;

	rd(MNT "/tgroup.config", buf, sizeof(buf));
	p = strstr(buf, "source_pmdk=");
	if (!p || sscanf(p, "source_pmdk=active: %u processes, %u thread slots, %llu reports rejected",
			 procs, slots, rej) != 3)
		FAIL("no active source_pmdk in tgroup.config:\n%s", buf);
}

static unsigned long long rejected(void)
{
	unsigned long long r;
	unsigned int n, s;

	pmdk_state(&n, &s, &r);
	return r;
}

static unsigned int slots_in_use(void)
{
	unsigned long long r;
	unsigned int n, s;

	pmdk_state(&n, &s, &r);
	return s;
}

static int pm_open(void)
{
	int fd = open(TGPMEM_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		FAIL("open %s: %s", TGPMEM_DEVICE, strerror(errno));
	return fd;
}

static struct tgpmem_page *pm_map(int fd)
{
	void *p = mmap(NULL, TGPMEM_PAGE_BYTES, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		FAIL("mmap: %s", strerror(errno));
	return p;
}

static long pm_claim(int fd)
{
	long i = ioctl(fd, TGPMEM_IOC_CLAIM);

	if (i < 0 || i >= TGPMEM_NR_SLOTS)
		FAIL("claim returned %ld (%s)", i, strerror(errno));
	return i;
}

/* a fresh, empty group */
static void fresh(const char *g)
{
	rmdir(p2(MNT, g));
	mk(g);
}

/* a fresh group with the calling process in it */
static void enter(const char *g)
{
	fresh(g);
	join(g, getpid());
}

/* the calling process in a fresh group g, with its page and a slot */
static volatile __u64 *own_slot(const char *g)
{
	struct tgpmem_page *pg;
	int fd;

	enter(g);
	fd = pm_open();
	pg = pm_map(fd);
	return &pg->slot[pm_claim(fd)].bytes;
}

TEST(abi_page_layout)
{
	int fd = pm_open();
	struct tgpmem_page *pg = pm_map(fd);
	long s;

	EXPECT(pg->magic == TGPMEM_MAGIC, "magic %#x", pg->magic);
	EXPECT_EQ_LL(pg->version, TGPMEM_VERSION);
	EXPECT_EQ_LL(slots_in_use(), 0);
	EXPECT_EQ_LL(pg->nr_slots, TGPMEM_NR_SLOTS);
	s = pm_claim(fd);
	EXPECT(s >= 1, "first claim got slot %ld", s);
	EXPECT_EQ_LL(pm_claim(fd), s);			/* a thread keeps its slot */
	EXPECT_EQ_LL(slots_in_use(), 1);
	EXPECT_EQ_LL(pg->slot[s].bytes, 0);
	EXPECT_ERRNO(ioctl(fd, _IO(0xB8, 0x7f)), ENOTTY);
	EXPECT_ERRNO(open(TGPMEM_DEVICE, O_RDWR), EBUSY);	/* one page per process */
}

TEST(abi_mapping_rules)
{
	int fd = pm_open();

	EXPECT(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) == MAP_FAILED &&
	       errno == EINVAL, "private mapping: %s", strerror(errno));
	EXPECT(mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	       errno == EINVAL, "two pages: %s", strerror(errno));
	EXPECT(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096) == MAP_FAILED &&
	       errno == EINVAL, "offset: %s", strerror(errno));
	EXPECT(mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) == MAP_FAILED &&
	       errno == EPERM, "executable: %s", strerror(errno));
	pm_map(fd);
}

/* Another process - here a forked child with the descriptor - is refused. */
TEST(abi_owner_only)
{
	int fd = pm_open(), st;
	struct tgpmem_page *pg = pm_map(fd);
	unsigned char vec;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int own;

		/* the mapping was not inherited, the descriptor is refused */
		EXPECT_ERRNO(mincore(pg, 4096, &vec), ENOMEM);
		EXPECT_ERRNO(ioctl(fd, TGPMEM_IOC_CLAIM), EPERM);
		EXPECT(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
		       errno == EPERM, "child mapped the parent's page: %s", strerror(errno));
		own = pm_open();		/* its own page */
		pm_map(own);
		EXPECT(pm_claim(own) >= 1);
		_exit(0);
	}
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	       "child checks failed");
	EXPECT(pm_claim(fd) >= 1);
}

TEST(abi_count_exact)
{
	volatile __u64 *slot = own_slot("pa_count");
	unsigned long long a = nvm_w("pa_count");

	*slot = 1234567;
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_count") - a, 1234567);
	EXPECT_EQ_LL(stat_value("pa_count", "dram_write_bytes"), 0);
	*slot += 1000;
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_count") - a, 1235567);
}

/* A report below the highest seen is rejected and charges nothing. */
TEST(abi_reports_monotonic)
{
	volatile __u64 *slot = own_slot("pa_mono");
	unsigned long long a = nvm_w("pa_mono"), r;

	*slot = 10000;
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_mono") - a, 10000);
	r = rejected();
	*slot = 4000;			/* going back: rejected */
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_mono") - a, 10000);
	EXPECT(rejected() > r, "rejected %llu -> %llu", r, rejected());
	*slot = 15000;			/* only what passes the mark */
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_mono") - a, 15000);
}

/*
 * With MBM present the period's PMDK input is capped by the MBM total. The
 * report and the MBM figure must land in the same period: retried when a
 * period started between the two writes. Periods of 100 ms for the test:
 * at 10 ms a slow guest (the debug kernel on a busy host) straddled a
 * boundary in all ten tries.
 */
TEST(abi_mbm_caps_report)
{
	volatile __u64 *slot = own_slot("pa_mbm");
	unsigned long long a, d, np, got_nvm = 0, got_dram = 0;
	int tries, landed = 0;

	EXPECT_OK(wr(MNT "/tgroup.config", "period_ms=100"));
	for (tries = 0; tries < 10 && !landed; tries++) {
		wait_periods(1);
		a = nvm_w("pa_mbm");
		d = stat_value("pa_mbm", "dram_write_bytes");
		np = root_periods();
		*slot += 1 << 20;
		inject("group=pa_mbm mbm_bytes=4096");
		landed = root_periods() == np;
		wait_periods(2);
		got_nvm = nvm_w("pa_mbm") - a;
		got_dram = stat_value("pa_mbm", "dram_write_bytes") - d;
	}
	EXPECT_OK(wr(MNT "/tgroup.config", "period_ms=10"));
	if (!landed)
		FAIL("every try straddled a period boundary");
	EXPECT_EQ_LL(got_nvm, 4096);
	EXPECT_EQ_LL(got_dram, 0);
}


/*
 * One slot reports far more than its thread could have stored (2^62 bytes,
 * then 2^64 - 1): its group is charged at most the thread's CPU time since
 * it claimed the slot times pmdk_cpu_gbps, and the group's counter neither
 * wraps nor jumps. Before the bound, any member could charge 2^64 bytes a
 * period and have its co-members throttled.
 */
TEST(abi_report_bounded_by_cpu_time)
{
	unsigned long long rate = pmdk_rate(), t0, t1, a, got;
	struct tgpmem_page *pg;
	volatile __u64 *slot;
	int fd;

	enter("pa_bound");
	fd = pm_open();
	pg = pm_map(fd);
	t0 = my_cpu_ns();			/* before the claim: a looser bound */
	slot = &pg->slot[pm_claim(fd)].bytes;
	a = nvm_w("pa_bound");
	*slot = 1ull << 62;
	wait_periods(3);
	*slot = ~0ull;
	wait_periods(3);
	got = nvm_w("pa_bound") - a;
	t1 = my_cpu_ns();
	printf("TGTEST-INFO: 2^64-1 reported, %llu charged for %llu ns of CPU time\n", got, t1 - t0);
	EXPECT(rate >= 1 && rate <= 1024, "pmdk_cpu_gbps=%llu", rate);
	EXPECT(got <= (t1 - t0) * rate, "charged %llu > %llu ns x %llu", got, t1 - t0, rate);
	EXPECT(got > 0, "nothing charged at all");
}

/* The same through the overflow slot, bounded by the process's CPU time. */
TEST(abi_overflow_report_bounded)
{
	unsigned long long rate = pmdk_rate(), t0, t1, a, got;
	struct tgpmem_page *pg;
	int fd;

	enter("pa_bound0");
	t0 = my_cpu_ns();			/* one thread: the process's time */
	fd = pm_open();
	pg = pm_map(fd);
	a = nvm_w("pa_bound0");
	pg->slot[TGPMEM_OVERFLOW].bytes = 1ull << 62;
	wait_periods(3);
	got = nvm_w("pa_bound0") - a;
	t1 = my_cpu_ns();
	EXPECT(got <= (t1 - t0) * rate, "charged %llu > %llu ns x %llu", got, t1 - t0, rate);
}

#define NR_THREADS	70
#define THREAD_BYTES	4096

static pthread_barrier_t bar;
static int tfd;
static struct tgpmem_page *tpg;

static void *slot_thread(void *arg)
{
	long s = pm_claim(tfd);

	*(long *)arg = s;
	pthread_barrier_wait(&bar);		/* every thread holds its claim */
	if (s == TGPMEM_OVERFLOW)
		__atomic_fetch_add(&tpg->slot[s].bytes, THREAD_BYTES, __ATOMIC_RELAXED);
	else
		tpg->slot[s].bytes += THREAD_BYTES;
	pthread_barrier_wait(&bar);
	return NULL;
}

/*
 * 70 threads: 62 own slots, the rest share the overflow slot; every byte
 * is charged, and the exited threads' slots are free again.
 */
TEST(abi_overflow_and_free)
{
	long slots[NR_THREADS], again;
	pthread_t t[NR_THREADS];
	int seen[TGPMEM_NR_SLOTS] = { 0 }, i, over = 0;
	unsigned long long a;

	enter("pa_over");
	tfd = pm_open();
	tpg = pm_map(tfd);
	a = nvm_w("pa_over");
	pthread_barrier_init(&bar, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++)
		EXPECT(!pthread_create(&t[i], NULL, slot_thread, &slots[i]));
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NR_THREADS; i++) {
		if (slots[i] == TGPMEM_OVERFLOW) {
			over++;
			continue;
		}
		EXPECT(!seen[slots[i]]++, "slot %ld given twice", slots[i]);
	}
	EXPECT_EQ_LL(over, NR_THREADS - (TGPMEM_NR_SLOTS - 1));
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_over") - a, NR_THREADS * THREAD_BYTES);
	/* the loop freed the exited threads' slots (the only page open) */
	EXPECT_EQ_LL(slots_in_use(), 0);
	again = pm_claim(tfd);			/* this thread: a freed slot */
	EXPECT(again >= 1, "no slot freed after the threads exited");
	EXPECT_EQ_LL(tpg->slot[again].bytes, 0);
}

/* A process that writes and exits at once: its page is read at close. */
TEST(abi_final_report_at_exit)
{
	int st;
	pid_t pid;

	fresh("pa_exit");
	pid = fork();
	if (pid == 0) {
		int fd;
		struct tgpmem_page *pg;

		join("pa_exit", getpid());
		fd = pm_open();
		pg = pm_map(fd);
		pg->slot[pm_claim(fd)].bytes = 777777;
		spend_cpu_for(777777);
		_exit(0);
	}
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_exit"), 777777);
}

/*
 * A process that claimed its slot in the root group, is moved, writes and
 * exits before any period reads its slot: the move made the slot follow it.
 * Slow periods (1 s) so that no period falls between claim and exit.
 */
TEST_T(abi_moved_then_exits, 30)
{
	int go[2], ready[2], st;
	char c;
	pid_t pid;

	fresh("pa_movexit");
	EXPECT_OK(pipe(go));
	EXPECT_OK(pipe(ready));
	EXPECT_OK(wr(MNT "/tgroup.config", "period_ms=1000"));
	pid = fork();
	if (pid == 0) {
		int fd = pm_open();
		struct tgpmem_page *pg = pm_map(fd);
		long s = pm_claim(fd);

		pg->slot[s].bytes = 100;	/* in the root group: not charged */
		spend_cpu_for(100);	/* what it reports is backed by CPU time */
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		pg->slot[s].bytes += 424242;
		spend_cpu_for(424242);
		_exit(0);
	}
	EXPECT(read(ready[0], &c, 1) == 1);
	/*
	 * Moved once it sleeps in read(): the bound reads the CPU time the
	 * scheduler last accounted (at a tick or a switch), so a move while it
	 * still runs could find the 100 bytes not yet backed; they would wait
	 * and be charged to the new group (docs/abi.md, the pmdk bound).
	 */
	for (int k = 0; k < 200 && proc_state(pid) != 'S'; k++)
		usleep(10000);
	join("pa_movexit", pid);
	EXPECT(write(go[1], "g", 1) == 1);
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
	wait_periods(1);
	EXPECT_OK(wr(MNT "/tgroup.config", "period_ms=10"));
	EXPECT_EQ_LL(nvm_w("pa_movexit"), 424242);
}

static volatile int step;

static void *mover_thread(void *arg)
{
	int fd = *(int *)arg;
	struct tgpmem_page *pg = tpg;
	long s = pm_claim(fd);

	pg->slot[s].bytes = 5000;
	__atomic_store_n(&step, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&step, __ATOMIC_SEQ_CST) != 2)
		usleep(1000);
	pg->slot[s].bytes += 7000;
	__atomic_store_n(&step, 3, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&step, __ATOMIC_SEQ_CST) != 4)
		usleep(1000);
	return NULL;
}

/* A thread moved to another group: its later bytes follow it. */
TEST(abi_thread_moved)
{
	pthread_t t;
	pid_t tid;
	int fd;

	enter("pa_from");
	fresh("pa_to");
	fd = pm_open();
	tpg = pm_map(fd);
	EXPECT(!pthread_create(&t, NULL, mover_thread, &fd));
	while (step != 1)
		usleep(1000);
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_from"), 5000);
	/* the thread's tid: the only one besides ours */
	{
		long tids[4];
		int n = proc_tids(getpid(), tids, 4);

		EXPECT(n == 2, "%d threads", n);
		tid = tids[0] == getpid() ? tids[1] : tids[0];
	}
	EXPECT_OK(wrf(gp("pa_to", "tasks"), "%d", tid));
	wait_periods(1);
	step = 2;
	while (step != 3)
		usleep(1000);
	wait_periods(2);
	EXPECT_EQ_LL(nvm_w("pa_from"), 5000);
	EXPECT_EQ_LL(nvm_w("pa_to"), 7000);
	step = 4;
	pthread_join(t, NULL);
}

/*
 * Churn: for a few seconds short-lived processes join group A, B or C, each
 * opens its page and writes from 3 threads and its main thread, then
 * exits, while C is removed and created again. Every byte written in A and
 * B must be charged there exactly (C's are lost when C goes: dead groups
 * charge nothing); the kernel log must stay clean (the host checks).
 */
#define CHURN_SECONDS	3
#define CHURN_PROCS	4

static int churn_fd;
static struct tgpmem_page *churn_pg;

/* claim a slot and add bytes to it in 10 steps; returns what it added */
static void *churn_writer(void *arg)
{
	unsigned long long step = (unsigned long long)(uintptr_t)arg, done = 0;
	long s = ioctl(churn_fd, TGPMEM_IOC_CLAIM);
	int k;

	if (s < 0 || s >= TGPMEM_NR_SLOTS)
		return (void *)(uintptr_t)~0ull;
	for (k = 0; k < 10; k++) {
		if (s == TGPMEM_OVERFLOW)
			__atomic_fetch_add(&churn_pg->slot[s].bytes, step, __ATOMIC_RELAXED);
		else
			churn_pg->slot[s].bytes += step;
		done += step;
		usleep(300);
	}
	return (void *)(uintptr_t)done;
}


/*
 * A child that takes real and effective uid (and gid) uid, opens the device
 * and reports 0 (it holds a page) or the errno over a pipe, then keeps the
 * page until it is killed.
 */
static pid_t holder_as(uid_t uid, int *err)
{
	int p[2], e = -1;
	pid_t pid;

	if (pipe(p))
		FAIL("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (!setgid(uid) && !setuid(uid) && getuid() == uid)
			e = open(TGPMEM_DEVICE, O_RDWR | O_CLOEXEC) < 0 ? errno : 0;
		if (write(p[1], &e, sizeof(e)) != sizeof(e))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &e, sizeof(e)) != sizeof(e) || e < 0)
		FAIL("holder as uid %u did not start", (unsigned int)uid);
	close(p[0]);
	*err = e;
	return pid;
}

/*
 * pmdk_max_procs_per_user (default 64): one real uid cannot take every page.
 * uid 1000 fills its share, its next process gets EDQUOT while uid 1001 and
 * root still get pages; a page given back is available to uid 1000 again.
 */
TEST_T(abi_per_user_cap, 60)
{
	unsigned int cap, n0, n, s;
	unsigned long long r;
	pid_t a[256], b, c;
	char buf[32];
	int e, fd;
	unsigned int i;

	EXPECT(rd("/sys/module/tgroup/parameters/pmdk_max_procs_per_user", buf, sizeof(buf)) > 0);
	cap = strtoul(buf, NULL, 10);
	EXPECT(cap >= 1 && cap <= 256, "pmdk_max_procs_per_user=%u: test needs 1..256", cap);
	pmdk_state(&n0, &s, &r);
	for (i = 0; i < cap; i++) {
		a[i] = holder_as(1000, &e);
		EXPECT(e == 0, "uid 1000, page %u of %u: %s", i + 1, cap, strerror(e));
	}
	b = holder_as(1000, &e);
	EXPECT(e == EDQUOT, "uid 1000 past its cap: %s", e ? strerror(e) : "got a page");
	reap(b);
	c = holder_as(1001, &e);
	EXPECT(e == 0, "uid 1001 blinded by uid 1000: %s", strerror(e));
	fd = pm_open();				/* root too */
	pmdk_state(&n, &s, &r);
	EXPECT_EQ_LL(n, n0 + cap + 2);
	close(fd);
	reap(a[0]);				/* its page is released at exit */
	b = holder_as(1000, &e);
	EXPECT(e == 0, "uid 1000 after giving a page back: %s", strerror(e));
	reap(b);
	reap(c);
	for (i = 1; i < cap; i++)
		reap(a[i]);
	pmdk_state(&n, &s, &r);
	EXPECT_EQ_LL(n, n0);
}

/*
 * In a user namespace uid 1000 created ("0 1000 1" and "1 100000 65535"
 * mapped by root, as newuidmap does for a rootless container), start n
 * processes, the k-th as uid k (global 100000 + k - 1), each opening the
 * device; their errnos (0: a page) go to res[]. Returns the namespace's
 * creator, whose process group holds them until it is killed.
 */
static pid_t userns_holders(unsigned int n, int *res)
{
	int up[2], go[2], rep[2], e;
	char path[64], c;
	unsigned int k;
	pid_t pid;

	EXPECT_OK(pipe(up));
	EXPECT_OK(pipe(go));
	EXPECT_OK(pipe(rep));
	/* Debian's switch for unprivileged user namespaces, where it exists */
	wr("/proc/sys/kernel/unprivileged_userns_clone", "1");
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		c = 0;
		if (setgid(1000) || setuid(1000) || unshare(CLONE_NEWUSER))
			c = (char)errno;
		if (write(up[1], &c, 1) != 1 || c || read(go[0], &c, 1) != 1)
			_exit(1);
		for (k = 1; k <= n; k++) {
			if (fork() == 0) {
				e = -1;
				if (!setresuid(k, k, k) && getuid() == k)
					e = open(TGPMEM_DEVICE, O_RDWR | O_CLOEXEC) < 0 ? errno : 0;
				if (write(rep[1], &e, sizeof(e)) != sizeof(e))
					_exit(1);
				for (;;)
					pause();
			}
		}
		for (;;)
			pause();
	}
	close(up[1]);
	close(rep[1]);
	EXPECT(read(up[0], &c, 1) == 1, "namespace creator did not start");
	EXPECT(!c, "uid 1000 cannot create a user namespace: %s", strerror(c));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	EXPECT(wr(path, "0 1000 1\n1 100000 65535\n") > 0, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
	EXPECT(wr(path, "deny") > 0, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	EXPECT(wr(path, "0 1000 1\n1 100000 65535\n") > 0, "%s: %s", path, strerror(errno));
	EXPECT(write(go[1], "g", 1) == 1);
	for (k = 0; k < n; k++) {
		EXPECT(read(rep[0], &res[k], sizeof(res[k])) == sizeof(res[k]),
		       "holder %u of %u did not report", k + 1, n);
		EXPECT(res[k] >= 0, "holder %u could not take uid %u", k + 1, k + 1);
	}
	close(up[0]);
	close(go[0]);
	close(go[1]);
	close(rep[0]);
	return pid;
}

/*
 * pmdk_max_procs_per_user also caps the pages of everything that runs in
 * user namespaces one user created: uid 1000 maps 65536 uids into a
 * namespace (a rootless container) and starts processes as cap + 1 of
 * them; one gets EDQUOT, and so does uid 1000 itself on the host,
 * while uid 1001 still gets a page. Before, each mapped uid had a cap of
 * its own.
 */
TEST_T(abi_per_userns_owner_cap, 60)
{
	unsigned int cap, n0, n, s, i, got, over;
	unsigned long long r;
	int res[257], e;
	pid_t ns, b, c;
	char buf[32];

	EXPECT(rd("/sys/module/tgroup/parameters/pmdk_max_procs_per_user", buf, sizeof(buf)) > 0);
	cap = strtoul(buf, NULL, 10);
	EXPECT(cap >= 1 && cap <= 256, "pmdk_max_procs_per_user=%u: test needs 1..256", cap);
	pmdk_state(&n0, &s, &r);
	ns = userns_holders(cap + 1, res);
	for (i = 0, got = 0, over = 0; i <= cap; i++) {
		got += res[i] == 0;
		over += res[i] == EDQUOT;
		EXPECT(res[i] == 0 || res[i] == EDQUOT, "a namespace uid: %s", strerror(res[i]));
	}
	EXPECT(got == cap && over == 1, "%u uids of uid 1000's namespace got a page, %u EDQUOT "
	       "(cap %u per owner)", got, over, cap);
	b = holder_as(1000, &e);
	EXPECT(e == EDQUOT, "uid 1000 on the host, its namespace at the cap: %s",
	       e ? strerror(e) : "got a page");
	reap(b);
	c = holder_as(1001, &e);
	EXPECT(e == 0, "uid 1001 blinded by uid 1000's namespace: %s", strerror(e));
	reap(c);
	kill(-ns, SIGKILL);
	reap(ns);
	for (i = 0; i < 200; i++) {		/* pages go at exit; the holders are orphans */
		pmdk_state(&n, &s, &r);
		if (n == n0)
			break;
		usleep(10000);
	}
	EXPECT_EQ_LL(n, n0);
}

/* one short-lived process in group g; adds what it wrote to *acc */
static int churn_child(const char *g, unsigned long long *acc, unsigned int seed)
{
	unsigned long long total = 0;
	pthread_t t[3];
	void *r;
	int i;

	if (wrf(gp(g, "cgroup.procs"), "%d", getpid()) < 0)
		return 0;			/* C is gone: nothing written */
	churn_fd = open(TGPMEM_DEVICE, O_RDWR | O_CLOEXEC);
	if (churn_fd < 0)
		return 1;
	churn_pg = mmap(NULL, TGPMEM_PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
			churn_fd, 0);
	if (churn_pg == MAP_FAILED)
		return 1;
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, churn_writer,
				   (void *)(uintptr_t)(64 * (1 + (seed + i) % 7))))
			return 1;
	r = churn_writer((void *)(uintptr_t)(64 * (1 + seed % 5)));
	total += (uintptr_t)r;
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		total += (uintptr_t)r;
	}
	if (total >= ~0ull / 2)
		return 1;
	__atomic_fetch_add(acc, total, __ATOMIC_SEQ_CST);
	return 0;			/* exit: the page is read a last time */
}

TEST_T(abi_churn, 60)
{
	static const char *const groups[] = { "pc_a", "pc_b", "pc_c" };
	unsigned long long *acc = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct timespec t0, t;
	unsigned int n = 0, running = 0, bad = 0;
	int st;

	EXPECT(acc != MAP_FAILED);
	fresh("pc_a");
	fresh("pc_b");
	fresh("pc_c");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		while (running < CHURN_PROCS) {
			unsigned int g = n % 3;
			pid_t pid = fork();

			if (pid == 0)
				_exit(churn_child(groups[g], &acc[g], n));
			EXPECT(pid > 0);
			running++;
			n++;
		}
		if (wait(&st) > 0) {
			running--;
			bad += !WIFEXITED(st) || WEXITSTATUS(st);
		}
		/* C comes and goes (rmdir fails while it has tasks) */
		if (!rmdir(p2(MNT, "pc_c")) || errno == ENOENT)
			mkdir(p2(MNT, "pc_c"), 0755);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < CHURN_SECONDS);
	while (running && wait(&st) > 0) {
		running--;
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	printf("TGTEST-INFO: churn: %u processes, %llu/%llu/%llu bytes in a/b/c\n", n, acc[0], acc[1], acc[2]);
	EXPECT(!bad, "%u of %u processes failed", bad, n);
	wait_periods(2);
	EXPECT(n >= 12, "only %u processes in %d s", n, CHURN_SECONDS);
	EXPECT(acc[0] > 0 && acc[1] > 0);
	EXPECT_EQ_LL(nvm_w("pc_a"), acc[0]);
	EXPECT_EQ_LL(nvm_w("pc_b"), acc[1]);
	EXPECT_EQ_LL(slots_in_use(), 0);
}

/* ---- libtgpmem.so in real libpmem programs ------------------------------ */

struct proc {
	pid_t pid;
	FILE *out;
	int go;
};

/* start argv, under the preload library or not */
static void start_env(struct proc *p, char *const argv[], bool preload)
{
	int in[2], out[2];

	EXPECT_OK(pipe(in));
	EXPECT_OK(pipe(out));
	p->pid = fork();
	if (p->pid == 0) {
		char *envp[] = { "PATH=/usr/bin:/bin",
				 "LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu",
				 PRELOAD, NULL };

		if (!preload)
			envp[2] = NULL;

		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->go = in[1];
	p->out = fdopen(out[0], "r");
}

/* start argv under the preload library; it waits for a byte per process */
static void start(struct proc *p, char *const argv[])
{
	start_env(p, argv, true);
}

/* the next line of the program's output that starts with word */
static const char *line(struct proc *p, const char *word)
{
	static char buf[512];

	while (fgets(buf, sizeof(buf), p->out))
		if (!strncmp(buf, word, strlen(word)))
			return buf;
	FAIL("%s: no \"%s\" line", p->pid > 0 ? "program" : "?", word);
}

static void finish(struct proc *p)
{
	int st;

	EXPECT(waitpid(p->pid, &st, 0) == p->pid && WIFEXITED(st) && !WEXITSTATUS(st),
	       "program failed (status %#x)", st);
	fclose(p->out);
	close(p->go);
}

/*
 * run the writer in group g; returns its count of the bytes it wrote, and
 * in *closed (if not NULL) what closing the pool wrote
 */
static unsigned long long writer_c(const char *g, const char *mode, unsigned long long bytes,
				   int threads, unsigned long long *closed)
{
	char b[32], n[16], file[64];
	char *argv[] = { WRITER, (char *)mode, file, b, n, NULL };
	unsigned long long counted = 0, c;
	struct proc p;
	long pid, slot;

	snprintf(b, sizeof(b), "%llu", bytes);
	snprintf(n, sizeof(n), "%d", threads);
	snprintf(file, sizeof(file), "/mnt/pmem/%s.%s", g, mode);
	start(&p, argv);
	EXPECT(sscanf(line(&p, "ready "), "ready %ld", &pid) == 1);
	wait_periods(2);	/* what setup wrote (a pool's metadata) is root's */
	join(g, pid);
	EXPECT(write(p.go, "g", 1) == 1);
	EXPECT(sscanf(line(&p, "done "), "done %ld %llu %ld", &pid, &c, &slot) == 3);
	counted += c;
	EXPECT(slot >= 1, "writer not attached to a page (slot %ld)", slot);
	if (closed)
		EXPECT(sscanf(line(&p, "closed "), "closed %llu", closed) == 1);
	finish(&p);
	unlink(file);
	return counted;
}

static unsigned long long writer(const char *g, const char *mode, unsigned long long bytes,
				 int threads)
{
	return writer_c(g, mode, bytes, threads, NULL);
}

static void expect_near(unsigned long long got, unsigned long long want)
{
	EXPECT(got + PMDK_TOL >= want && got <= want + PMDK_TOL,
	       "nvm_write_bytes %llu, expected %llu +- %d", got, want, PMDK_TOL);
}

static void need_dax(void)
{
	char buf[4096];

	rd("/proc/mounts", buf, sizeof(buf));
	if (!strstr(buf, "/mnt/pmem ext4 rw,relatime,dax"))
		FAIL("no DAX filesystem on /mnt/pmem:\n%s", buf);
}

/* one writer in a fresh group: exactly its bytes in nvm_write_bytes */
static void expect_writer(const char *g, const char *mode, unsigned long long bytes)
{
	need_dax();
	fresh(g);
	EXPECT_EQ_LL(writer(g, mode, bytes, 1), bytes);
	wait_periods(2);
	expect_near(nvm_w(g), bytes);
}

TEST(lib_copy_exact)
{
	expect_writer("pl_copy", "copy", (3ull << 20) + 100);
}

TEST(lib_every_call)
{
	expect_writer("pl_mix", "mix", 1000003);
}

TEST(lib_threads)
{
	const unsigned long long bytes = 1ull << 20;
	char *argv[] = { WRITER, "threads", "/mnt/pmem/pl_thr", "1048576", "4", NULL };
	long slots[4], pid, s;
	unsigned long long c;
	struct proc p;
	int i, j;

	need_dax();
	fresh("pl_thr");
	start(&p, argv);
	EXPECT(sscanf(line(&p, "ready "), "ready %ld", &pid) == 1);
	join("pl_thr", pid);
	EXPECT(write(p.go, "g", 1) == 1);
	for (i = 0; i < 4; i++) {
		EXPECT(sscanf(line(&p, "thread "), "thread %*d %llu %ld", &c, &s) == 2);
		EXPECT_EQ_LL(c, bytes);
		EXPECT(s >= 1, "thread without its own slot");
		for (j = 0; j < i; j++)
			EXPECT(slots[j] != s, "threads share slot %ld", s);
		slots[i] = s;
	}
	finish(&p);
	unlink("/mnt/pmem/pl_thr");
	wait_periods(2);
	expect_near(nvm_w("pl_thr"), 4 * bytes);
}

/* fork: the child gets its own page and, once moved, its own group */
TEST(lib_fork_child_own_group)
{
	const unsigned long long bytes = 1ull << 20;
	char *argv[] = { WRITER, "fork", "/mnt/pmem/pl_fork", "1048576", NULL };
	long parent, child, pid, s1, s2;
	unsigned long long c1, c2;
	struct proc p;

	need_dax();
	fresh("pl_parent");
	fresh("pl_child");
	start(&p, argv);
	EXPECT(sscanf(line(&p, "ready "), "ready %ld %ld", &parent, &child) == 2);
	wait_periods(2);	/* the parent's write before fork: charged to root */
	join("pl_parent", parent);
	join("pl_child", child);
	EXPECT(write(p.go, "gg", 2) == 2);
	EXPECT(sscanf(line(&p, "done "), "done %ld %llu %ld", &pid, &c1, &s1) == 3);
	EXPECT(sscanf(line(&p, "done "), "done %ld %llu %ld", &pid, &c2, &s2) == 3);
	EXPECT(s1 >= 1 && s2 >= 1, "slots %ld %ld", s1, s2);
	finish(&p);
	unlink("/mnt/pmem/pl_fork");
	wait_periods(2);
	expect_near(nvm_w("pl_parent"), bytes);
	expect_near(nvm_w("pl_child"), bytes);
}

/* libpmem2's routines (through the getters' trampolines) */
TEST(lib_pmem2)
{
	expect_writer("pl_pmem2", "pmem2", (2ull << 20) + 10);
}

/*
 * libpmemobj, which writes through libpmem's exported calls; closing the
 * pool writes some metadata of its own (counted too, reported apart).
 */
TEST(lib_pmemobj)
{
	const unsigned long long bytes = 1000000;
	unsigned long long closed;

	need_dax();
	fresh("pl_obj");
	EXPECT_EQ_LL(writer_c("pl_obj", "obj", bytes, 1, &closed), bytes);
	EXPECT(closed < 65536, "pmemobj_close wrote %llu bytes", closed);
	wait_periods(2);
	expect_near(nvm_w("pl_obj"), bytes + closed);
	unlink("/mnt/pmem/pl_obj.obj.pool");
}

/* exec: the new image opens a new page; both halves are counted */
TEST(lib_exec)
{
	const unsigned long long bytes = 1ull << 20;

	need_dax();
	fresh("pl_exec");
	writer("pl_exec", "exec", bytes, 1);
	wait_periods(2);
	expect_near(nvm_w("pl_exec"), 2 * bytes);
}

/* fio in group g, preloaded or not; returns the group's nvm_write_bytes */
static unsigned long long fio_in(const char *g, bool preload)
{
	char *argv[] = { "/usr/bin/fio", "--name=w", "--ioengine=libpmem", "--rw=write",
			 "--bs=64k", "--size=8m", "--filename=/mnt/pmem/pl_fio",
			 "--output=/tmp/fio.txt", NULL };
	char out[8192];
	struct proc p;

	fresh(g);
	/* fio cannot wait for a byte: it starts in the group (forked from it) */
	join(g, getpid());
	start_env(&p, argv, preload);
	close(p.go);
	finish(&p);
	join("", getpid());
	unlink("/mnt/pmem/pl_fio");
	rd("/tmp/fio.txt", out, sizeof(out));
	EXPECT(strstr(out, "WRITE: bw=") && strstr(out, "io=8192KiB"), "fio output:\n%s", out);
	wait_periods(2);
	return nvm_w(g);
}

/*
 * fio's libpmem engine, unmodified. fio first prepopulates the file with
 * write(2) - 8 MiB the vfs source counts with or without the library; the
 * engine's 8 MiB of pmem_memcpy into the mapping are seen only through it.
 */
TEST_T(lib_fio, 120)
{
	const unsigned long long size = 8ull << 20;
	unsigned long long plain, hooked;

	need_dax();
	plain = fio_in("pl_fio_plain", false);
	hooked = fio_in("pl_fio", true);
	EXPECT_EQ_LL(plain, size);		/* the prepopulation only */
	expect_near(hooked - plain, size);
}

/*
 * A new mount charges nothing for what was counted while nothing was
 * mounted, and the page keeps counting. Slow periods (1 s) so that the
 * process is in its group before the mount's first period.
 */
TEST_T(abi_remount_rebase, 30)
{
	struct tgpmem_page *pg;
	volatile __u64 *slot;
	int fd;

	EXPECT_OK(wr(MNT "/tgroup.config", "period_ms=1000"));
	fd = pm_open();
	pg = pm_map(fd);
	slot = &pg->slot[pm_claim(fd)].bytes;
	*slot = 1000;
	EXPECT_OK(umount(MNT));
	*slot += 300000;			/* while unmounted */
	EXPECT_OK(mount("tgroup", MNT, "tgroup", 0, NULL));
	enter("pa_remount");
	wait_periods(1);
	EXPECT_EQ_LL(nvm_w("pa_remount"), 0);
	*slot += 500;
	wait_periods(1);
	EXPECT_EQ_LL(nvm_w("pa_remount"), 500);
	EXPECT_OK(wr(MNT "/tgroup.config", "period_ms=10"));
}

int main(int argc, char **argv)
{
	return tg_run_all(argc, argv);
}
