// SPDX-License-Identifier: GPL-2.0
/*
 * regulate_test.c - the regulation loop in the guest, through the inject
 * source: CPU quota accuracy, a closed loop holding a limit, remedial
 * throttling from injected latency, and that every exit path releases.
 *
 * Expects tgroup.ko loaded with inject=1 and mounted (suite "regulate").
 * CPU shares are measured from /proc/PID/schedstat (ns on CPU) against
 * CLOCK_MONOTONIC; tolerances are the (quota +-5 points of one CPU,
 * closed loop +-10 %).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "util.h"

#define QUOTA_TOL	0.05	/* of one CPU */
#define LOOP_TOL	0.10	/* of the limit */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ns a task has been on a CPU */
static unsigned long long runtime_ns(pid_t pid)
{
	char path[64], buf[128];
	unsigned long long ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (rd(path, buf, sizeof(buf)) > 0)
		sscanf(buf, "%llu", &ns);
	return ns;
}

/* a CPU-bound process; *progress (shared) counts its loops */
static pid_t burner(volatile unsigned long *progress)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			if (progress)
				(*progress)++;
	}
	return pid;
}

static volatile unsigned long *shared_counter(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		FAIL("mmap");
	return p;
}


/* the word after "key " in a tgroup.stat snapshot, into out ("?" if none) */
static void stat_word(const char *buf, const char *key, char *out, size_t n)
{
	const char *p = strstr(buf, key);
	char w[32] = "?";

	if (p)
		sscanf(p + strlen(key), " %31s", w);
	snprintf(out, n, "%s", w);
}

/* the word after "key " in g's tgroup.stat now */
static void stat_line(const char *g, const char *key, char *out, size_t n)
{
	char buf[2048];

	buf[0] = 0;
	rd(gp(g, "tgroup.stat"), buf, sizeof(buf));
	stat_word(buf, key, out, n);
}

static int stat_is(const char *g, const char *key, const char *word)
{
	char w[32];

	stat_line(g, key, w, sizeof(w));
	return !strcmp(w, word);
}

/* CPU share (of one CPU) of the given pids over secs seconds */
static double cpu_share(const pid_t *pids, int n, double secs)
{
	unsigned long long a = 0, b = 0;
	double t0, t1;
	int i;

	for (i = 0; i < n; i++)
		a += runtime_ns(pids[i]);
	t0 = now_s();
	usleep(secs * 1e6);
	t1 = now_s();
	for (i = 0; i < n; i++)
		b += runtime_ns(pids[i]);
	return (b - a) / 1e9 / (t1 - t0);
}

/* ---- the CPU actuator on its own ---------------------------------------- */

TEST_T(cpu_quota_25_percent, 60)
{
	pid_t b;
	double share;

	mk("q25");
	b = burner(NULL);
	join("q25", b);
	inject("pin group=q25 cpu_quota_us=2500");	/* 25 % of one CPU per 10 ms */
	usleep(500000);
	share = cpu_share(&b, 1, 5.0);
	printf("TGTEST-INFO: cpu_quota_25_percent: %.3f of one CPU over 5 s\n", share);
	EXPECT(share > 0.25 - QUOTA_TOL && share < 0.25 + QUOTA_TOL,
	       "share %.3f, expected 0.25 +- %.2f", share, QUOTA_TOL);
	EXPECT(stat_value("q25", "nr_throttled") > 0);
	EXPECT_EQ_LL(stat_value("q25", "cpu_quota_usec"), 2500);
	/* unpinned: runs freely again at once */
	inject("pin group=q25 cpu_quota_us=0");
	usleep(100000);
	share = cpu_share(&b, 1, 1.0);
	EXPECT(share > 0.8, "unpinned share %.3f", share);
	EXPECT(stat_is("q25", "cpu_quota_usec", "max"));
	reap(b);
	rmdir(p2(MNT, "q25"));
}

TEST_T(cpu_quota_shared_50_percent, 60)
{
	pid_t b[2];
	double s0, s1, both;
	unsigned long long a0, a1;

	mk("q50");
	b[0] = burner(NULL);
	b[1] = burner(NULL);
	join("q50", b[0]);
	join("q50", b[1]);
	inject("pin group=q50 cpu_quota_us=5000");
	usleep(500000);
	a0 = runtime_ns(b[0]);
	a1 = runtime_ns(b[1]);
	both = cpu_share(b, 2, 5.0);
	s0 = (runtime_ns(b[0]) - a0) / 1e9 / 5.0;
	s1 = (runtime_ns(b[1]) - a1) / 1e9 / 5.0;
	printf("TGTEST-INFO: cpu_quota_shared_50_percent: %.3f (%.3f + %.3f)\n", both, s0, s1);
	EXPECT(both > 0.5 - QUOTA_TOL && both < 0.5 + QUOTA_TOL,
	       "group share %.3f, expected 0.50 +- %.2f", both, QUOTA_TOL);
	/* they share it: neither starves */
	EXPECT(s0 > 0.1 && s1 > 0.1, "shares %.3f and %.3f", s0, s1);
	reap(b[0]);
	reap(b[1]);
	rmdir(p2(MNT, "q50"));
}

/* ---- closed loop: traffic proportional to CPU time, held at a limit ------ */

#define BYTES_PER_CPU_NS 4	/* 4 GB/s per CPU-second */
#define LIMIT_BPS 1000000000ull	/* 1 GB/s: a quarter of one CPU */

TEST_T(closed_loop_holds_limit, 60)
{
	unsigned long long rt, last_rt, rt0 = 0, rt1 = 0, bytes0 = 0, bytes1, span_b0 = 0, q;
	double t, last_t, start, w0 = 0, span_t0 = 0, allowed_s = 0, win_allowed_s = 0;
	double rate, cpu, allowed;
	int windows = 0;
	pid_t b;

	mk("loop");
	EXPECT(wrf(gp("loop", "tgroup.limit"), "nvm_rbps=%llu", LIMIT_BPS) > 0);
	b = burner(NULL);
	join("loop", b);
	last_rt = runtime_ns(b);
	start = now_s();
	last_t = start;
	/*
	 * The emulated platform: every 5 ms, the traffic its CPU time made.
	 * After 1 s, 1 s windows, each never over the limit by more than 10 %.
	 * The other side is judged over all the windows together: the burner's
	 * CPU time against what the quota allowed (integrated every 5 ms, the
	 * quota moves), and if it got at least 90 % of that, the rate within
	 * 10 % under the limit. A single window is not judged on that side: on
	 * a loaded host this injector runs late and feeds two periods' traffic
	 * into one, the regulator answers the burst and the quota moves by up
	 * to a fifth from window to window (0.83-0.99 GB/s per window, mean
	 * 0.92, with four spinning processes beside the guest on 2 cores;
	 * 0.95-1.02 on a quiet host); a quota that stays too low still fails.
	 * A span in which the burner got under 90 % of its allowance was
	 * decided by the host (a TCG vCPU it did not run), not by the loop.
	 */
	for (t = start; t - start < 9.2 && windows < 8; t = now_s()) {
		rt = runtime_ns(b);
		if (rt > last_rt)
			inject("group=loop nvm_read_bytes=%llu", (rt - last_rt) * BYTES_PER_CPU_NS);
		last_rt = rt;
		q = stat_value("loop", "cpu_quota_usec");
		allowed = q == ~0ull ? 1.0 : q / 10000.0;
		if (w0) {
			allowed_s += allowed * (t - last_t);
			win_allowed_s += allowed * (t - last_t);
		}
		last_t = t;
		usleep(5000);
		t = now_s();
		if (t - start >= 1.0 && !w0) {
			w0 = t;
			span_t0 = t;
			last_t = t;
			bytes0 = stat_value("loop", "nvm_read_bytes");
			span_b0 = bytes0;
			rt0 = runtime_ns(b);
			rt1 = rt0;
		} else if (w0 && t - w0 >= 1.0) {
			bytes1 = stat_value("loop", "nvm_read_bytes");
			rate = (bytes1 - bytes0) / (t - w0);
			cpu = (runtime_ns(b) - rt0) / 1e9 / (t - w0);
			printf("TGTEST-INFO: closed_loop window %d: %.3f GB/s (limit 1), quota %llu us, CPU %.3f of %.3f allowed, throttled %llu\n",
			       windows, rate / 1e9, q, cpu, win_allowed_s / (t - w0),
			       stat_value("loop", "nr_throttled"));
			EXPECT(rate < LIMIT_BPS * (1 + LOOP_TOL), "window %d: %.0f B/s over limit %llu",
			       windows, rate, LIMIT_BPS);
			windows++;
			w0 = t;
			win_allowed_s = 0;
			bytes0 = bytes1;
			rt0 = runtime_ns(b);
		}
	}
	EXPECT(windows >= 4, "only %d windows", windows);
	rate = (stat_value("loop", "nvm_read_bytes") - span_b0) / (t - span_t0);
	cpu = (runtime_ns(b) - rt1) / 1e9 / (t - span_t0);
	allowed = allowed_s / (t - span_t0);
	printf("TGTEST-INFO: closed_loop over %.1f s: %.3f GB/s (limit 1), CPU %.3f of %.3f allowed\n",
	       t - span_t0, rate / 1e9, cpu, allowed);
	EXPECT(cpu >= 0.9 * allowed, "the host starved the burner: CPU %.3f of %.3f allowed", cpu, allowed);
	EXPECT(rate > LIMIT_BPS * (1 - LOOP_TOL), "%.0f B/s over the windows vs limit %llu",
	       rate, LIMIT_BPS);
	/* held by the CPU quota, not by luck */
	EXPECT(stat_value("loop", "nr_throttled") > 0);
	/* the limit lifted: released within a period or two */
	EXPECT(wr(gp("loop", "tgroup.limit"), "nvm_rbps=max") > 0);
	usleep(100000);
	EXPECT(stat_is("loop", "cpu_quota_usec", "max"));
	reap(b);
	rmdir(p2(MNT, "loop"));
}

/* ---- remedial: a closed loop through a latency-coupled platform model ---- */

/*
 * The emulated platform (issue 11): three CPU-bound processes, each making
 * traffic in proportion to the CPU time it gets and inversely to the
 * latency of its kind (MBA, as tgroup.stat publishes it, scales DRAM
 * traffic); the latency of every kind rises with every kind's traffic
 * (NVM writes weigh most: 60 ns per GB/s on DRAM reads, against
 * PL_DR_PER_GBS for DRAM reads) and moves halfway to its new value each 5 ms
 * step. Latency reaches the detector from this model through the inject
 * file (uncore for reads, probe for writes), never as a fixed value.
 *   vic  high priority, DRAM reads, 1 GB/s per CPU at idle latency
 *   nz   low priority, NVM writes (MBM + NVM store samples), 1 GB/s per CPU
 *   by   low priority, DRAM reads, 1/30 of the victim's: the bystander,
 *        whose share of the traffic is negligible - never throttled.
 * Thresholds where the victim loses 10 % (DRAM read: 111 ns over 100 ns
 * idle); low_pct 85 puts the low mark (94 ns) under the idle latency, so
 * whenever nothing is over the latency is in the band - the starvation
 * case of issue 11 (the detector's state now cools there too, after 10 x
 * quiet_periods: the law does not wait for it).
 */
enum { VIC, NZ, BY, NPROC };
static const char *const pl_name[NPROC] = { "vic", "nz", "by" };
#define PL_L0_DR	100.0
#define PL_L0_DW	120.0
#define PL_L0_NR	300.0
#define PL_L0_NW	500.0
#define PL_THR_DR	111
#define PL_THR_NW	555
#define PL_LOW_PCT	85	/* low mark 94 ns: under the idle latency */
#define PL_QUIET	50	/* periods under the low mark to leave hot */
/*
 * DRAM read latency per GB/s of DRAM reads, ns. The victim alone (at most
 * 1 GB/s: one CPU) stays 7 ns under the threshold even when a 5 ms step
 * doubles its rate (runtime is seen up to a tick late, then caught up):
 * nothing is over once the writer is quiet, as the release test needs.
 */
#define PL_DR_PER_GBS	4.0

struct plant {
	pid_t pid[NPROC];
	unsigned long long rt[NPROC];
	double bpns[NPROC];		/* bytes per CPU ns at idle latency */
	double l_dr, l_nw;		/* latency now, ns */
	double t;
};

static void plant_init(struct plant *p)
{
	int i;

	for (i = 0; i < NPROC; i++)
		p->rt[i] = runtime_ns(p->pid[i]);
	p->l_dr = PL_L0_DR;
	p->l_nw = PL_L0_NW;
	p->t = now_s();
}

/* one step: traffic for the CPU time of the step, latency, injected */
static void plant_step(struct plant *p, double *cpu_share)
{
	double t = now_s(), dt = t - p->t, bytes[NPROC], dr_bps, nw_bps, tgt_dr, tgt_nw;
	unsigned long long rt;
	int i;

	if (dt < 1e-4)
		dt = 1e-4;
	for (i = 0; i < NPROC; i++) {
		double m = i == NZ ? 1.0 : stat_value(pl_name[i], "mba_percent") / 100.0;
		double slow = i == NZ ? PL_L0_NW / p->l_nw : PL_L0_DR / p->l_dr;

		rt = runtime_ns(p->pid[i]);
		bytes[i] = (rt - p->rt[i]) * p->bpns[i] * m * slow;
		if (cpu_share)
			cpu_share[i] = (rt - p->rt[i]) / 1e9 / dt;
		p->rt[i] = rt;
	}
	dr_bps = (bytes[VIC] + bytes[BY]) / dt;
	nw_bps = bytes[NZ] / dt;
	/* ns per GB/s: DRAM reads PL_DR_PER_GBS each, NVM writes 60 on DRAM, 100 on NVM */
	tgt_dr = PL_L0_DR + PL_DR_PER_GBS * dr_bps / 1e9 + 60 * nw_bps / 1e9;
	tgt_nw = PL_L0_NW + 10 * dr_bps / 1e9 + 100 * nw_bps / 1e9;
	p->l_dr = (p->l_dr + tgt_dr) / 2;
	p->l_nw = (p->l_nw + tgt_nw) / 2;
	p->t = t;
	inject("group=vic dram_read_bytes=%llu\n"
	       "group=by dram_read_bytes=%llu\n"
	       "group=nz mbm_bytes=%llu nvm_store_samples=100\n"
	       "uncore dram_rpq_occupancy=%llu dram_rpq_inserts=1000 nvm_rpq_occupancy=%llu nvm_rpq_inserts=1000 uncore_clock_khz=2000000\n"
	       "probe dram_write_ns=%llu nvm_write_ns=%llu",
	       (unsigned long long)bytes[VIC], (unsigned long long)bytes[BY],
	       (unsigned long long)bytes[NZ], (unsigned long long)(p->l_dr * 2 * 1000),
	       (unsigned long long)(PL_L0_NR * 2 * 1000), (unsigned long long)PL_L0_DW,
	       (unsigned long long)p->l_nw);
}

static int untouched(const char *g)
{
	return stat_is(g, "cpu_quota_usec", "max") && stat_value(g, "mba_percent") == 100;
}

/*
 * What a throttle after the writer's release came with, for the FAIL line,
 * from one read of tgroup.stat (the last_* keys are the last period's: a
 * decision a period or more before this read shows as "none")
 */
static void rethrottle_why(const struct plant *pl, int period, char *out, size_t n)
{
	char buf[2048], reason[32], mech[32], act[32], quota[32], mba[32];

	buf[0] = 0;
	rd(gp("nz", "tgroup.stat"), buf, sizeof(buf));
	stat_word(buf, "last_reason", reason, sizeof(reason));
	stat_word(buf, "last_mechanism", mech, sizeof(mech));
	stat_word(buf, "last_action", act, sizeof(act));
	stat_word(buf, "cpu_quota_usec", quota, sizeof(quota));
	stat_word(buf, "mba_percent", mba, sizeof(mba));
	snprintf(out, n, "period %d, %s by %s for %s, quota %s mba %s, plant DRAM read %.1f ns, NVM write %.1f ns",
		 period, act, mech, reason, quota, mba, pl->l_dr, pl->l_nw);
}

/*
 * The release bound of docs/control-law.md ("How fast throttles are
 * released") for the writer's quota q (quota ladder, u_ref one CPU's
 * period: the burner takes all of it): the search's bisection towards its
 * stale unsafe allowance, the hold there (its relapse count unknown here:
 * the longest, 1600 periods) and the probe's window, then growing steps
 * to the cap - each step at most `step` periods apart: dead + relax under
 * the window law, a dead time and a block under the block-mean law (the
 * default, "The block-mean law"), whose search resolves 4x finer (two
 * more halvings).
 */
static int release_bound(unsigned long long q, unsigned long long cap, int lag, int filter,
			 int dead, int step, int finer)
{
	double x = q == ~0ull ? 1 : (double)q / 10000, top = (double)cap / 10000, y;
	int n, bisect = 0, grow;

	if (x < 1) {
		for (n = 0, y = x; y < 1; n++)
			y *= 9.0 / 8;
		for (bisect = 1; n > 1; bisect++)
			n = (n + 1) / 2;
		bisect += finer;
	}
	for (grow = 3, y = x; y < top; grow++)
		y *= 2;
	return lag + (filter - 1) + 2 * dead + 16 * 10 * dead / 2 + dead + 1 +
	       step * (bisect + grow + 2);
}

/* tgroup.config's law (1, the block mean, when it cannot be read) */
static int config_law(void)
{
	char buf[2048];
	const char *l;

	if (rd(gp("", "tgroup.config"), buf, sizeof(buf)) <= 0)
		return 1;
	l = strstr(buf, "\nlaw=");
	return l && l[5] == '0' ? 0 : 1;
}

/* the detector's defaults (docs/abi.md) */
#define DETECTOR_DEFAULTS "dram_read_lat_ns=200 nvm_write_lat_ns=1500 low_pct=80 quiet_periods=3"

static void closed_loop_bystander(void);

/*
 * The body runs in a child: whether it passes or fails (a failed EXPECT
 * ends the process that made it), the detector's defaults are written back
 * for the tests after this one.
 */
TEST_T(remedial_closed_loop_bystander, 90)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(85);
		closed_loop_bystander();
		_exit(0);
	}
	EXPECT(pid > 0, "fork: %s", strerror(errno));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	EXPECT(wr(gp("", "tgroup.config"), DETECTOR_DEFAULTS) > 0);
	if (WIFSIGNALED(status))
		FAIL("the test body killed by signal %d", WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		_exit(1);	/* its EXPECT reported why */
}

static void closed_loop_bystander(void)
{
	/*
	 * docs/control-law.md: dead_periods 20, relax_periods 5, over filter 2;
	 * the block-mean law's blocks TG_BLOCK_MULT (4) dead times
	 */
	const int dead = 20, relax = 5, lag = 1, filter = 2, block = 4 * dead;
	struct plant pl = { .bpns = { 1.0, 1.0, 1.0 / 30 } };
	double share[NPROC], vic_ns = 0, vic_bytes = 0, vic_cpu = 0, t0, solo;
	unsigned long long p0, q0, m0, cap;
	int i, steps = 0, none_seen = 0, released = -1, again = 0, bound;
	char how[32] = "", why[256] = "";

	/*
	 * quiet_periods 50: a period the plant missed (this process not
	 * scheduled for 10 ms on a loaded TCG host) reads as no DRAM reads,
	 * latency 0, under the low mark; 3 such in a row (the default) would
	 * end the band case the release test is about.
	 */
	EXPECT(wrf(gp("", "tgroup.config"),
		   "dram_read_lat_ns=%d nvm_write_lat_ns=%d low_pct=%d quiet_periods=%d",
		   PL_THR_DR, PL_THR_NW, PL_LOW_PCT, PL_QUIET) > 0);
	for (i = 0; i < NPROC; i++) {
		mk(pl_name[i]);
		pl.pid[i] = burner(NULL);
		join(pl_name[i], pl.pid[i]);
	}
	EXPECT(wr(gp("vic", "tgroup.priority"), "high") > 0);
	plant_init(&pl);
	/* 6 s of interference: the writer is cut, victim and bystander never */
	for (t0 = now_s(); now_s() - t0 < 6.0; ) {
		double r0 = pl.rt[VIC];

		plant_step(&pl, share);
		if (now_s() - t0 > 4.5) {	/* the last 1.5 s: recovered? */
			vic_bytes += (pl.rt[VIC] - r0) * PL_L0_DR / pl.l_dr;
			vic_ns += pl.rt[VIC] - r0;
			vic_cpu += share[VIC];
			steps++;
		}
		EXPECT(untouched("vic"), "the high-priority victim throttled");
		EXPECT(untouched("by"), "the bystander throttled (quota %llu, mba %llu)",
		       stat_value("by", "cpu_quota_usec"), stat_value("by", "mba_percent"));
		usleep(5000);
	}
	EXPECT(!untouched("nz"), "the NVM writer not throttled");
	/* victim: bytes per CPU ns against solo (alone: its own PL_DR_PER_GBS) */
	vic_cpu /= steps ? steps : 1;
	solo = PL_L0_DR / (PL_L0_DR + PL_DR_PER_GBS * vic_cpu);
	printf("TGTEST-INFO: remedial_closed_loop: victim at %.3f of solo (CPU %.2f), writer quota %llu us, DRAM read latency %.1f ns\n",
	       vic_ns ? vic_bytes / vic_ns / solo : 0, vic_cpu, stat_value("nz", "cpu_quota_usec"),
	       pl.l_dr);
	EXPECT(vic_ns && vic_bytes / vic_ns >= 0.9 * solo, "victim at %.3f of solo",
	       vic_ns ? vic_bytes / vic_ns / solo : 0);

	/*
	 * The writer's traffic falls to 1/200 (process still spinning): the
	 * victim alone keeps DRAM read latency in the band (over the low mark,
	 * under the threshold), nothing is over. Released within the law's
	 * bound (release_bound()), and stays released 100 periods.
	 */
	q0 = stat_value("nz", "cpu_quota_usec");
	m0 = stat_value("nz", "mba_percent");
	cap = 10000ull * sysconf(_SC_NPROCESSORS_ONLN);
	bound = config_law() ? release_bound(q0, cap, lag, filter, dead, dead + block, 2) :
			       release_bound(q0, cap, lag, filter, dead, dead + relax, 0);
	pl.bpns[NZ] /= 200;
	p0 = stat_value("", "nr_periods");
	for (;;) {
		unsigned long long p = stat_value("", "nr_periods") - p0;

		if (p > (unsigned long long)bound + 50 ||
		    (released >= 0 && p > (unsigned long long)released + 100))
			break;
		plant_step(&pl, NULL);
		EXPECT(untouched("vic"));
		EXPECT(untouched("by"), "the bystander throttled");
		if (released < 0) {
			/* the band: over the low mark (94 ns) */
			none_seen |= pl.l_dr < PL_THR_DR * PL_LOW_PCT / 100.0;
			if (untouched("nz"))
				released = (int)p;
			if (released >= 0)	/* how: released by the search, or as idle */
				stat_line("nz", "last_reason", how, sizeof(how));
		} else if (!untouched("nz")) {	/* and stays released */
			if (!again++)
				rethrottle_why(&pl, (int)p, why, sizeof(why));
		}
		usleep(5000);
	}
	printf("TGTEST-INFO: remedial_closed_loop: writer released %d periods after its noise fell (bound %d, from quota %llu mba %llu, last_reason %s), DRAM read latency %s\n",
	       released, bound, q0, m0, how, none_seen ? "went under the low mark" : "in the band");
	EXPECT(!none_seen, "the latency went under the low mark: not the band case");
	EXPECT(released >= 0 && released <= bound, "released after %d periods, bound %d", released,
	       bound);
	EXPECT(!again, "throttled again after its release (%d steps; the first: %s)", again, why);
	for (i = 0; i < NPROC; i++) {
		reap(pl.pid[i]);
		rmdir(p2(MNT, pl_name[i]));
	}
}

/* ---- safety: every exit path releases a parked process --------------------- */

/* progress per second of a burner */
static double progress_rate(volatile unsigned long *c, double secs)
{
	unsigned long a = *c;

	usleep(secs * 1e6);
	return (*c - a) / secs;
}

/* a burner in group g pinned at 1 % of a CPU: nearly stopped */
static pid_t parked_burner(const char *g, volatile unsigned long *c, double *free_rate)
{
	pid_t b = burner(c);

	*free_rate = progress_rate(c, 0.3);
	mk(g);
	join(g, b);
	inject("pin group=%s cpu_quota_us=100", g);
	usleep(300000);
	EXPECT(progress_rate(c, 0.5) < *free_rate * 0.2, "pinned burner not slowed");
	return b;
}

TEST_T(release_on_regulator_off, 30)
{
	volatile unsigned long *c = shared_counter();
	double free_rate;
	pid_t b = parked_burner("s_off", c, &free_rate);

	EXPECT(wr(gp("", "tgroup.config"), "enabled=0") > 0);
	usleep(50000);
	EXPECT(progress_rate(c, 0.5) > free_rate * 0.5, "still parked after enabled=0");
	EXPECT(wr(gp("", "tgroup.config"), "enabled=1") > 0);
	reap(b);
	rmdir(p2(MNT, "s_off"));
}

TEST_T(release_on_move_and_rmdir, 30)
{
	volatile unsigned long *c = shared_counter();
	double free_rate;
	pid_t b = parked_burner("s_rm", c, &free_rate);

	join("", b);				/* back to the root group */
	EXPECT_OK(rmdir(p2(MNT, "s_rm")));
	usleep(50000);
	EXPECT(progress_rate(c, 0.5) > free_rate * 0.5, "still parked after move + rmdir");
	reap(b);
}

TEST_T(release_on_priority_high, 30)
{
	unsigned long long lhi = 0, llo;
	volatile unsigned long *c = shared_counter();
	double free_rate;
	pid_t b = burner(c);
	int i;

	free_rate = progress_rate(c, 0.3);
	mk("s_prio");
	join("s_prio", b);
	llo = runtime_ns(b);
	inject("probe nvm_write_ns=5000");
	for (i = 0; i < 60; i++) {
		unsigned long long r = runtime_ns(b);

		inject("group=s_prio nvm_read_bytes=%llu", (r - llo) * BYTES_PER_CPU_NS + 64);
		llo = r;
		usleep(5000);
	}
	EXPECT(!stat_is("s_prio", "cpu_quota_usec", "max"), "not throttled by the remedial policy");
	EXPECT(wr(gp("s_prio", "tgroup.priority"), "high") > 0);
	usleep(50000);
	EXPECT(stat_is("s_prio", "cpu_quota_usec", "max"), "still throttled after priority high");
	EXPECT(stat_is("s_prio", "last_reason", "high_priority") || stat_is("s_prio", "last_action", "none"));
	EXPECT(progress_rate(c, 0.5) > free_rate * 0.5, "still slow after priority high");
	inject("probe nvm_write_ns=100");
	(void)lhi;
	reap(b);
	rmdir(p2(MNT, "s_prio"));
}

TEST(inject_rejects_bad_lines)
{
	EXPECT_ERRNO(wr(INJECT, "group=nosuch mbm_bytes=1"), EINVAL);
	EXPECT(strstr(status(), "no such group"), "%s", status());
	EXPECT_ERRNO(wr(INJECT, "uncore bogus=1"), EINVAL);
	EXPECT_ERRNO(wr(INJECT, "probe nvm_write_ns=-1"), EINVAL);
	EXPECT_ERRNO(wr(INJECT, "probe"), EINVAL);
	EXPECT_ERRNO(wr(INJECT, "hello"), EINVAL);
	mk("inj");
	/* all or nothing: the good first line is not applied either */
	EXPECT_ERRNO(wr(INJECT, "group=inj mbm_bytes=1000000\ngroup=inj bogus=1"), EINVAL);
	usleep(100000);
	EXPECT_EQ_LL(stat_value("inj", "dram_write_bytes"), 0);
	EXPECT(wr(INJECT, "group=inj mbm_bytes=640000\n") > 0);
	usleep(100000);
	/* MBM without OCR: all of it is DRAM write (no NVM write source) */
	EXPECT_EQ_LL(stat_value("inj", "dram_write_bytes"), 640000);
	/* a pin is bounded (1000 ms on 1024 CPUs): one more is refused, not applied */
	EXPECT_ERRNO(wr(INJECT, "pin group=inj cpu_quota_us=1024000001"), EINVAL);
	EXPECT(strstr(status(), "cpu_quota_us above 1024000000"), "%s", status());
	usleep(50000);
	EXPECT(stat_is("inj", "cpu_quota_usec", "max"), "the refused pin was applied");
	EXPECT(wr(INJECT, "pin group=inj cpu_quota_us=1024000000") > 0);
	usleep(50000);
	EXPECT_EQ_LL(stat_value("inj", "cpu_quota_usec"), 1024000000);
	EXPECT(wr(INJECT, "pin group=inj cpu_quota_us=0") > 0);
	rmdir(p2(MNT, "inj"));
}

/* ---- vfs: bytes written to a DAX file land in nvm_write_bytes, exactly --- */

TEST(vfs_dax_writes_counted_exactly)
{
	static char buf[1 << 20];
	struct iovec iov[2] = { { buf, 4096 }, { buf + 4096, 123 } };
	long long want = sizeof(buf) + 300000 + 4096 + 123;
	struct statx sx;
	int fd;

	memset(buf, 0xa5, sizeof(buf));
	mk("vfs");
	EXPECT(wr(gp("vfs", "cgroup.procs"), "0") > 0);
	fd = open("/mnt/pmem/tg-vfs", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	EXPECT(fd >= 0);
	EXPECT_OK(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx));
	EXPECT(sx.stx_attributes & STATX_ATTR_DAX, "/mnt/pmem/tg-vfs is not DAX");
	EXPECT(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	EXPECT(pwrite(fd, buf, 300000, 5 << 20) == 300000);
	EXPECT(writev(fd, iov, 2) == 4096 + 123);
	close(fd);
	/* not DAX: not counted */
	fd = open("/tmp/tg-not-dax", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	EXPECT(write(fd, buf, 50000) == 50000);
	close(fd);
	usleep(100000);		/* a few periods */
	EXPECT_EQ_LL(stat_value("vfs", "nvm_write_bytes"), want);
	EXPECT(wr(gp("", "cgroup.procs"), "0") > 0);
	unlink("/mnt/pmem/tg-vfs");
	rmdir(p2(MNT, "vfs"));
}

/*
 * perf source, with a software event standing in for the OCR encodings at
 * the perf boundary: task-clock (ns on CPU) as "DRAM read lines", context
 * switches as "NVM read lines". The group's dram_read_bytes / 64 must
 * follow the task's own CPU time (schedstat) while it is in the group, and
 * stop when it leaves. With the real raw encodings the guest has no PMU:
 * the source says it cannot create the counters.
 */
TEST_T(perf_source_counts_per_task, 30)
{
	unsigned long long r0, r1, d0, d1, d2, d3;
	char buf[4096];
	double ratio;
	pid_t b;

	EXPECT(wr(gp("", "tgroup.config"),
		  "perf_type=1 ocr_dram_read_config=1 ocr_nvm_read_config=3") > 0);
	mk("perf");
	b = burner(NULL);
	join("perf", b);
	usleep(300000);				/* counters made next period */
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_perf=active\n"), "%s", buf);
	r0 = runtime_ns(b);
	d0 = stat_value("perf", "dram_read_bytes");
	usleep(1000000);
	r1 = runtime_ns(b);
	d1 = stat_value("perf", "dram_read_bytes");
	ratio = (double)(d1 - d0) / 64 / (double)(r1 - r0);
	printf("TGTEST-INFO: perf source: %.3f counted ns per schedstat ns\n", ratio);
	EXPECT(ratio > 0.9 && ratio < 1.1, "ratio %.3f", ratio);
	/* out of the group: its counters are released, nothing more counts */
	join("", b);
	usleep(200000);
	d2 = stat_value("perf", "dram_read_bytes");
	usleep(500000);
	d3 = stat_value("perf", "dram_read_bytes");
	EXPECT_EQ_LL(d3, d2);
	/* the real raw encodings: no PMU in the guest */
	EXPECT(wr(gp("", "tgroup.config"),
		  "perf_type=4 ocr_dram_read_config=4660 ocr_nvm_read_config=22136") > 0);
	join("perf", b);
	usleep(300000);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_perf=unavailable: cannot create the counters"), "%s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "ocr_dram_read_config=0 ocr_nvm_read_config=0") > 0);
	reap(b);
	usleep(100000);
	rmdir(p2(MNT, "perf"));
}

/*
 * A task that starts to exit between the loop's gather and the creation of
 * its counters makes perf refuse with ESRCH: that is the task being gone,
 * not the encodings failing. A group whose process forks short-lived
 * children for 3 s (many of them exit inside that window) keeps the source
 * active, and a burner joined afterwards is still counted.
 */
TEST_T(perf_source_survives_exiting_tasks, 40)
{
	unsigned long long d0, d1;
	char buf[4096], after[4096];
	double t_end;
	pid_t churn, b;
	int i;

	EXPECT(wr(gp("", "tgroup.config"),
		  "perf_type=1 ocr_dram_read_config=1 ocr_nvm_read_config=3") > 0);
	mk("pchurn");
	churn = fork();
	if (churn == 0) {
		unsigned int k = 0;

		for (;;) {
			pid_t c = fork();

			if (c == 0) {
				volatile unsigned int spin = 0;

				while (spin < (k % 64) * 500)	/* live 0 to ~1 ms */
					spin++;
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
			k++;
		}
	}
	join("pchurn", churn);
	t_end = now_s() + 3;
	while (now_s() < t_end) {
		rd(gp("", "tgroup.config"), buf, sizeof(buf));
		if (!strstr(buf, "source_perf=active\n"))
			break;
		usleep(20000);
	}
	kill(churn, SIGKILL);
	reap(churn);
	b = burner(NULL);
	join("pchurn", b);
	usleep(300000);				/* counters made next period */
	d0 = stat_value("pchurn", "dram_read_bytes");
	for (i = 0; i < 10 && stat_value("pchurn", "dram_read_bytes") == d0; i++)
		usleep(100000);
	d1 = stat_value("pchurn", "dram_read_bytes");
	rd(gp("", "tgroup.config"), after, sizeof(after));
	wr(gp("", "tgroup.config"), "ocr_dram_read_config=0 ocr_nvm_read_config=0");
	reap(b);
	usleep(100000);
	rmdir(p2(MNT, "pchurn"));
	EXPECT(strstr(buf, "source_perf=active\n"), "after exiting tasks: %s",
	       strstr(buf, "source_perf=") ? strstr(buf, "source_perf=") : buf);
	EXPECT(d1 > d0, "a burner joined after the churn is not counted (%llu): %s", d1,
	       strstr(after, "source_perf=") ? strstr(after, "source_perf=") : after);
}

/*
 * uncore source, with software events standing in for the RPQ encodings:
 * CPU-wide task-clock as "occupancy", context switches as "inserts". The
 * counters are created on one CPU per package and their deltas reach the
 * detector: tgroup.interference shows a read latency. The guest has no
 * iMC PMU, so this checks the plumbing, not the hardware encodings.
 */
TEST_T(uncore_source_feeds_detector, 30)
{
	char buf[4096];
	unsigned long long lat = 0;
	char *p;
	int i;

	EXPECT(wr(gp("", "tgroup.config"),
		  "uncore_type=1 uncore_dram_occupancy_config=1 uncore_dram_inserts_config=3 "
		  "uncore_nvm_occupancy_config=1 uncore_nvm_inserts_config=3") > 0);
	usleep(300000);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_uncore=active on 1 socket(s)\n"), "%s", buf);
	/* a period with no "insert" on that CPU has no latency: sample up to 1 s */
	for (i = 0; i < 100 && !lat; i++) {
		usleep(10000);
		rd(gp("", "tgroup.interference"), buf, sizeof(buf));
		p = strstr(buf, "dram_read_lat_ns=");
		EXPECT(p && sscanf(p, "dram_read_lat_ns=%llu", &lat) == 1, "%s", buf);
	}
	EXPECT(lat > 0, "no latency reached the detector in 1 s: %s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "uncore_type=0") > 0);
	usleep(100000);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_uncore=unavailable: no uncore PMU type"), "%s", buf);
}

/* store sampling: off without an encoding; the guest has no precise store events */
TEST(store_sampling_states)
{
	char buf[4096];

	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_store_sampling=unavailable: no store event encoding"), "%s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "store_sample_type=4 store_sample_config=461") > 0);
	usleep(100000);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_store_sampling=unavailable: cannot create the sampling events"),
	       "%s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "store_sample_config=0") > 0);
}

/* the perf id of tracepoint sched:sched_switch (tracefs under debugfs, or mounted) */
static unsigned long long tracepoint_id(void)
{
	static const char *const paths[] = {
		"/sys/kernel/debug/tracing/events/sched/sched_switch/id",
		"/sys/kernel/tracing/events/sched/sched_switch/id",
	};
	char buf[32];
	unsigned int i;

	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (rd(paths[i], buf, sizeof(buf)) > 0)
			return strtoull(buf, NULL, 10);
	FAIL("no tracefs: sched_switch's id not found");
}

/* wait up to 1 s for tgroup.config to hold want; the config in buf */
static int config_says(const char *want, char *buf, size_t size)
{
	int i;

	for (i = 0; i < 20; i++) {
		rd(gp("", "tgroup.config"), buf, size);
		if (strstr(buf, want))
			return 1;
		usleep(50000);
	}
	return 0;
}

/*
 * The encodings may name a counter of the CPU's PMU (perf_type,
 * store_sample_type: raw, hardware, hardware-cache or a dynamic PMU that
 * is the CPU's), an uncore PMU (uncore_type: a PMU that counts system-wide),
 * or a software event (the guest's stand-ins). Anything else is refused and
 * tgroup.config says why: a tracepoint (type 2, a working encoding: it would
 * count kernel events as a kernel counter, past perf_event_paranoid), a
 * breakpoint (type 5), a core PMU as uncore_type. Today's counters keep
 * working afterwards.
 */
TEST_T(perf_encodings_only_counting_pmus, 40)
{
	unsigned long long id = tracepoint_id();
	char buf[4096];
	pid_t b;

	mk("pmus");
	b = burner(NULL);
	join("pmus", b);
	EXPECT(wrf(gp("", "tgroup.config"), "perf_type=2 ocr_dram_read_config=%llu "
		   "ocr_nvm_read_config=%llu", id, id) > 0);
	EXPECT(config_says("source_perf=unavailable: perf_type 2 is not", buf, sizeof(buf)),
	       "%s", strstr(buf, "source_perf=") ? strstr(buf, "source_perf=") : buf);
	EXPECT(wr(gp("", "tgroup.config"), "perf_type=5 ocr_dram_read_config=1 "
		  "ocr_nvm_read_config=1") > 0);
	EXPECT(config_says("source_perf=unavailable: perf_type 5 is not", buf, sizeof(buf)),
	       "%s", strstr(buf, "source_perf=") ? strstr(buf, "source_perf=") : buf);
	/* a software event is still counted */
	EXPECT(wr(gp("", "tgroup.config"), "perf_type=1 ocr_dram_read_config=1 "
		  "ocr_nvm_read_config=3") > 0);
	EXPECT(config_says("source_perf=active\n", buf, sizeof(buf)),
	       "%s", strstr(buf, "source_perf=") ? strstr(buf, "source_perf=") : buf);
	EXPECT(wr(gp("", "tgroup.config"), "ocr_dram_read_config=0 ocr_nvm_read_config=0") > 0);

	EXPECT(wrf(gp("", "tgroup.config"),
		   "uncore_type=2 uncore_dram_occupancy_config=%llu uncore_dram_inserts_config=%llu "
		   "uncore_nvm_occupancy_config=%llu uncore_nvm_inserts_config=%llu",
		   id, id, id, id) > 0);
	EXPECT(config_says("source_uncore=unavailable: uncore_type 2 is not", buf, sizeof(buf)),
	       "%s", strstr(buf, "source_uncore=") ? strstr(buf, "source_uncore=") : buf);
	EXPECT(wr(gp("", "tgroup.config"), "uncore_type=4") > 0);	/* the CPU's raw type */
	EXPECT(config_says("source_uncore=unavailable: uncore_type 4 is not", buf, sizeof(buf)),
	       "%s", strstr(buf, "source_uncore=") ? strstr(buf, "source_uncore=") : buf);
	EXPECT(wr(gp("", "tgroup.config"), "uncore_type=0") > 0);

	EXPECT(wrf(gp("", "tgroup.config"), "store_sample_type=2 store_sample_config=%llu", id) > 0);
	EXPECT(config_says("source_store_sampling=unavailable: store_sample_type 2 is not", buf,
			   sizeof(buf)),
	       "%s", strstr(buf, "source_store_sampling=") ? strstr(buf, "source_store_sampling=")
							  : buf);
	EXPECT(wr(gp("", "tgroup.config"), "store_sample_type=4 store_sample_config=0") > 0);
	reap(b);
	usleep(100000);
	rmdir(p2(MNT, "pmus"));
}

#define SMP_A		5	/* pages bound to node 1 (CPU-less: the slow tier) */
#define SMP_B		2	/* pages bound to node 0 (DRAM) */
#define MPOL_BIND_	2

/*
 * The store-sampling source with a software event standing in at the perf
 * boundary: minor page faults (PERF_COUNT_SW_PAGE_FAULTS_MIN, type 1
 * config 5), one sample per 1000, carry the faulting address as a precise
 * store sample carries its data address, after the fault has mapped the
 * page. A group member faults in 5 pages bound to node 1 and 2 bound to
 * node 0, interleaved, over and over (MADV_DONTNEED in between; 7 is prime
 * to the sample period, so the samples walk every page). In a period with
 * an injected MBM total and no reads, the estimator gives NVM write the
 * sampled slow-tier share of it: 5/7 (+-0.07, stray faults of the process
 * itself), and DRAM write the rest. The pages' nodes are checked with
 * move_pages() first. Before the handler used data->addr, it read
 * data->phys_addr, which perf never sets for a handler of our own.
 */
TEST_T(store_sampling_classifies_by_node, 60)
{
	const unsigned long long mbm = 7000000;
	unsigned long long w0[2], w1[2], end;
	long pg = sysconf(_SC_PAGESIZE);
	int to_child[2], from_child[2];
	int st[SMP_A + SMP_B];
	char buf[4096];
	volatile unsigned long *loops;
	unsigned long l0, l1;
	double share, samples, tol;
	pid_t c;
	int i;

	loops = mmap(NULL, sizeof(*loops), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT(loops != MAP_FAILED);
	EXPECT_OK(pipe(to_child));
	EXPECT_OK(pipe(from_child));
	mk("smp");
	c = fork();
	if (c == 0) {
		unsigned long m1 = 1ul << 1, m0 = 1ul << 0;
		char *a = mmap(NULL, SMP_A * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *b = mmap(NULL, SMP_B * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		/* interleaved: a0 b0 a1 a2 b1 a3 a4 */
		char *order[SMP_A + SMP_B] = { a, b, a + pg, a + 2 * pg, b + pg,
					       a + 3 * pg, a + 4 * pg };
		void *pages[SMP_A + SMP_B];
		char go;

		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || a == MAP_FAILED || b == MAP_FAILED ||
		    madvise(a, SMP_A * pg, MADV_NOHUGEPAGE) ||
		    madvise(b, SMP_B * pg, MADV_NOHUGEPAGE) ||
		    syscall(SYS_mbind, a, SMP_A * pg, MPOL_BIND_, &m1, 64, 0) ||
		    syscall(SYS_mbind, b, SMP_B * pg, MPOL_BIND_, &m0, 64, 0))
			_exit(1);
		for (i = 0; i < SMP_A + SMP_B; i++) {
			order[i][0] = 1;
			pages[i] = i < SMP_A ? a + i * pg : b + (i - SMP_A) * pg;
		}
		if (syscall(SYS_move_pages, 0, SMP_A + SMP_B, pages, NULL, st, 0) ||
		    write(from_child[1], st, sizeof(st)) != sizeof(st) ||
		    read(to_child[0], &go, 1) != 1)
			_exit(1);
		for (;;) {
			for (i = 0; i < SMP_A + SMP_B; i++)
				order[i][0] = 1;
			madvise(a, SMP_A * pg, MADV_DONTNEED);
			madvise(b, SMP_B * pg, MADV_DONTNEED);
			++*loops;
		}
	}
	EXPECT(read(from_child[0], st, sizeof(st)) == sizeof(st), "the child could not place its pages");
	for (i = 0; i < SMP_A + SMP_B; i++)
		EXPECT(st[i] == (i < SMP_A ? 1 : 0), "page %d on node %d", i, st[i]);
	join("smp", c);
	EXPECT(wr(gp("", "tgroup.config"),
		  "period_ms=1000 store_sample_type=1 store_sample_config=5 store_sample_period=1000 "
		  "ocr_dram_read_config=0 ocr_nvm_read_config=0") > 0);	/* no reads */
	/*
	 * The child starts faulting only once the events exist: creating the
	 * first page-fault event flips perf_swevent_enabled, a static key whose
	 * patching of the fault path (text_poke_bp()) a vCPU faulting in a loop
	 * on it can livelock under multi-threaded TCG (27 Nov, the debug
	 * kernel: docs/testing.md, "A guest hang").
	 */
	for (i = 0; i < 5 && !config_says("source_store_sampling=active\n", buf, sizeof(buf)); i++)
		;
	EXPECT(write(to_child[1], "g", 1) == 1);
	/*
	 * A whole period of faulting with MBM injected at its start. The
	 * group's nr_periods moves after its accounting of the period.
	 */
	end = stat_value("smp", "nr_periods") + 2;
	while (stat_value("smp", "nr_periods") < end)
		usleep(5000);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	w0[0] = stat_value("smp", "dram_write_bytes");
	w0[1] = stat_value("smp", "nvm_write_bytes");
	l0 = *loops;
	inject("group=smp mbm_bytes=%llu", mbm);
	end = stat_value("smp", "nr_periods") + 1;
	while (stat_value("smp", "nr_periods") < end)
		usleep(5000);
	l1 = *loops;
	w1[0] = stat_value("smp", "dram_write_bytes");
	w1[1] = stat_value("smp", "nvm_write_bytes");
	reap(c);
	EXPECT(wr(gp("", "tgroup.config"), "period_ms=10 store_sample_config=0 store_sample_period=20011") > 0);
	/* the period already queued still waits 1 s: let the loop get back to 10 ms */
	end = stat_value("", "nr_periods") + 3;
	for (i = 0; i < 600 && stat_value("", "nr_periods") < end; i++)
		usleep(5000);
	rmdir(p2(MNT, "smp"));
	EXPECT(strstr(buf, "source_store_sampling=active\n"), "%s", buf);
	EXPECT_EQ_LL((w1[0] - w0[0]) + (w1[1] - w0[1]), mbm);
	share = (double)(w1[1] - w0[1]) / mbm;
	/*
	 * One sample per 1000 faults (the parser's minimum period) and 7
	 * faults per loop in a fixed order: 1000 = 6 mod 7, so every 7
	 * consecutive samples hit each page once and N samples are within
	 * 10/7 slow-tier hits of 5N/7. TCG faults slowly (12-31 samples in
	 * the 1 s period, fewer on a loaded host: 11 gave 7/11 = 0.636), so
	 * the tolerance follows N: 10/7 hits plus one sample for the period's
	 * edges (counted here within a 5 ms poll), over N, plus 0.02 for the
	 * child's other faults.
	 */
	samples = (double)(l1 - l0) * (SMP_A + SMP_B) / 1000;
	tol = (10.0 / 7 + 1) / (samples > 1 ? samples : 1) + 0.02;
	printf("TGTEST-INFO: store sampling: slow-tier share %.3f (5/7 = 0.714), about %.0f samples, tolerance %.3f\n",
	       share, samples, tol);
	EXPECT(samples >= 5, "only %.1f samples: the child barely ran", samples);
	EXPECT(share > 5.0 / 7 - tol && share < 5.0 / 7 + tol, "slow-tier share %.3f", share);
	munmap((void *)loops, sizeof(*loops));
}

TEST(config_lists_sources_and_actuators)
{
	char buf[4096];

	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "source_inject=active\n"), "%s", buf);
	EXPECT(strstr(buf, "source_vfs=active\n"), "%s", buf);
	EXPECT(strstr(buf, "source_rdt=unavailable: inject=1"), "%s", buf);
	EXPECT(strstr(buf, "actuator_cpu=active\n"), "%s", buf);
	EXPECT(strstr(buf, "actuator_mba=published"), "%s", buf);
}

/* last: unmount and unload while a process is parked; it must run on */
TEST_T(release_on_unmount_and_rmmod, 30)
{
	volatile unsigned long *c = shared_counter();
	double free_rate;
	pid_t b = parked_burner("s_umount", c, &free_rate);
	int i;

	EXPECT_OK(umount(MNT));
	for (i = 0; i < 50 && syscall(SYS_delete_module, "tgroup", O_NONBLOCK); i++)
		usleep(100000);
	EXPECT(i < 50, "rmmod failed: %s", strerror(errno));
	EXPECT(progress_rate(c, 0.5) > free_rate * 0.5, "still parked after umount + rmmod");
	reap(b);
}

int main(int argc, char **argv)
{
	return tg_run_all(argc, argv);
}
