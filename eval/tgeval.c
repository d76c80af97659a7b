// SPDX-License-Identifier: GPL-2.0
/*
 * tgeval.c - the emulated hybrid-memory platform (eval/, docs/eval.md).
 *
 *   tgeval model PROFILE            calibration figures of the model alone
 *                                   (any host, no processes)
 *   tgeval run PROFILE [options] WORKLOAD...
 *                                   in the guest, against tgroup.ko loaded
 *                                   with inject=1 and mounted
 *
 * A WORKLOAD is NAME:KIND:THREADS:PRIO:START:STOP[:LIMIT] (KIND dram_read,
 * dram_write, nvm_read, nvm_write; PRIO high|low; START/STOP in seconds,
 * STOP 0 = until the end; LIMIT a tgroup.limit line with ',' for ' ').
 * Each workload is a real process in its own tgroup group (named NAME) that
 * spins for `duty` of one CPU in every 2 ms window. Every step (2 ms; 1 ms
 * for memguard) the platform reads the CPU time each got for its work (its
 * own thread CPU clock, capped at the budget of each window, in a shared
 * page), the MBA level of its group (tgroup.stat mba_percent, or the
 * baseline controller's), computes the traffic it made (eval/model.h) and
 * feeds it to the module through the inject file: per group the OCR-style
 * read bytes, the MBM total and store samples by tier; the RPQ occupancy and
 * inserts of both tiers (read latency by Little's law); the probe write
 * latencies. The module's CPU quota parks the real processes, so it acts on
 * the traffic for real.
 *
 * Options:
 *   --mode none|static|mbps|memguard|tgroup   who controls (default tgroup)
 *   --duration S       run length
 *   --measure A:B      window for the per-workload summary
 *   --exp NAME --label TEXT   names in the CSV rows
 *   --ts FILE          time series (one row per --sample ms, default 50)
 *   --live MS          a human line every MS ms (victim = first workload,
 *                      its solo = its mean over --ref A:B)
 *   --ref A:B
 *
 * Output: lines "TGEVAL-CSV FILE,ROW" (first "TGEVAL-CSV FILE,#header") that
 * the host splits into files (eval/run.sh), and "TGEVAL-LIVE ..." lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model.h"

#define MNT "/sys/fs/tgroup"
#define CG2 "/sys/fs/cgroup"
#define INJECT "/sys/kernel/debug/tgroup/inject"
#define MAXW 16
#define UNCORE_KHZ 2000000ull
#define SAMPLE_BYTES 65536.0	/* one store sample per 64 KiB written */
#define WINDOW_NS 2000000ll	/* a workload's duty window */
/*
 * Latency follows traffic with this time constant: a workload runs in bursts
 * (its duty of every 2 ms window, seen in 2 ms steps), which a real
 * memory-bound thread would spread; smoothing over a few windows keeps that
 * artifact out of the latency the detector sees.
 */
#define TAU_S 0.050

enum mode { M_NONE, M_STATIC, M_MBPS, M_MEMGUARD, M_TGROUP };
static const char *const mode_name[] = { "none", "static", "mbps", "memguard", "tgroup" };

struct wl {
	char name[32];
	int kind, high;
	double threads, start, stop;
	char limit[160];
	pid_t pid;
	int state;		/* 0 not started, 1 running, 2 gone */
	unsigned long long last_rt;
	double cpu;		/* EWMA of the fraction of its wanted CPU it got */
	double mba;		/* level applied this step */
	double bytes_sample, bytes_meas, bytes_ref, bytes_live, lat_meas;
	double cpu_meas, cpu_ref, cpu_live;	/* CPU seconds got for its work */
	long n_meas;
	double samples_rem[2];	/* store samples carried: dram, nvm */
	/* baselines */
	double mbps_prev, mbps_delta, mbps_bytes;
	int mbps_comp, mbps_level;
	long cpumax_quota;
	/* what the module says */
	char quota[24];
	int mod_mba;
	double period_us;
	double solo;
	double last_t;		/* the model's last answer: next step's first guess */
	int fd_stat;		/* kept open, read with pread */		/* model: GB/s alone */
};

static struct profile prof;
static struct wl wls[MAXW];
static int nw;
static enum mode mode = M_TGROUP;
static const char *exp_name = "run", *label = "", *ts_file;
static double duration = 10, meas_a = 2, meas_b = 10, ref_a = -1, ref_b = -1;
static int live_ms, sample_ms = 50;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("tgeval: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	printf("TGEVAL-ERROR %s\n", exp_name);
	exit(1);
}

static int wr(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

static void wrx(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wrx(const char *path, const char *fmt, ...)
{
	char buf[512], st[256] = "";
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (wr(path, buf)) {
		int e = errno;

		fd = open(MNT "/last_cmd_status", O_RDONLY);
		if (fd >= 0) {
			ssize_t n = read(fd, st, sizeof(st) - 1);

			st[n > 0 ? n : 0] = 0;
			close(fd);
		}
		die("write '%s' to %s: %s (%s)", buf, path, strerror(e), st);
	}
}

static long rd(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;
	size_t n = 0;

	if (fd < 0)
		return -1;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	buf[n] = 0;
	close(fd);
	return n;
}

/*
 * What each workload has done: the CPU time it spent spinning, at most its
 * budget per window (ns), in a page shared with the platform. The process
 * pays system-call and wake-up overhead on top (under TCG about 10 % of a
 * 0.25 ms budget); counting only the work keeps "got all it wanted" at 1.
 */
static unsigned long long *work_ns;

/* a kept-open file read again from the start (system calls are slow under TCG) */
static long prd(int fd, char *buf, size_t size)
{
	ssize_t r = pread(fd, buf, size - 1, 0);

	buf[r > 0 ? r : 0] = 0;
	return r;
}

/* the CPU time a workload has got for its work (see work_ns) */
static unsigned long long runtime_ns(struct wl *w)
{
	return __atomic_load_n(&work_ns[w - wls], __ATOMIC_RELAXED);
}


/* a workload process: duty x one CPU in every window, whatever it is allowed */
static void worker(double duty, unsigned long long *done)
{
	struct timespec ts, cpu;
	long long w0, budget = duty * WINDOW_NS, c0, c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		w0 = ts.tv_sec * 1000000000ll + ts.tv_nsec;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
		c0 = cpu.tv_sec * 1000000000ll + cpu.tv_nsec;
		do {
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
			c = cpu.tv_sec * 1000000000ll + cpu.tv_nsec;
			clock_gettime(CLOCK_MONOTONIC, &ts);
		} while (c - c0 < budget && ts.tv_sec * 1000000000ll + ts.tv_nsec - w0 < WINDOW_NS);
		__atomic_store_n(done, *done + (c - c0 < budget ? c - c0 : budget), __ATOMIC_RELAXED);
		/* a window lost to a delay is lost: no catching up in a burst */
		w0 += WINDOW_NS;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (w0 < ts.tv_sec * 1000000000ll + ts.tv_nsec)
			continue;
		ts.tv_sec = w0 / 1000000000ll;
		ts.tv_nsec = w0 % 1000000000ll;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/*
 * CPUs: the first workload (the victim) gets CPU 1 to itself; the others and
 * the platform share CPU 0. As in MT²'s runs, tasks do not compete for a
 * core: interference is the memory system's, not the scheduler's (with 2
 * vCPUs and 1 ms budgets, a victim sharing a CPU loses windows to wake-up
 * delays). Nothing happens on a machine with one CPU.
 */
static void pin_cpu(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static const char *gpath(const struct wl *w, const char *f)
{
	static char buf[4][256];
	static int i;
	char *p = buf[i++ % 4];

	snprintf(p, 256, MNT "/%.31s/%s", w->name, f);
	return p;
}

static void start_wl(struct wl *w)
{
	char cg[256];

	w->pid = fork();
	if (w->pid < 0)
		die("fork: %s", strerror(errno));
	if (w->pid == 0) {
		pin_cpu(w == wls ? 1 : 0);
		worker(prof.duty, &work_ns[w - wls]);
	}
	wrx(gpath(w, "cgroup.procs"), "%d", w->pid);
	if (mode == M_MEMGUARD) {
		snprintf(cg, sizeof(cg), CG2 "/%.31s/cgroup.procs", w->name);
		wrx(cg, "%d", w->pid);
	}
	w->last_rt = runtime_ns(w);
	w->cpu = 1;
	w->last_t = -1;
	w->state = 1;
}

static void stop_wl(struct wl *w)
{
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	w->state = 2;
	w->cpu = 0;
}

/* key's value in a "key value" file (tgroup.stat); copies the word */
static int stat_word(const char *buf, const char *key, char *out, int len)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n%s ", key);
	p = strstr(buf, want);
	if (!p && !strncmp(buf, want + 1, strlen(want + 1)))
		p = buf - 1;
	if (!p)
		return -1;
	p += strlen(want);
	snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	return 0;
}

static void read_stat(struct wl *w)
{
	char buf[2048], v[32];

	if (w->fd_stat <= 0)
		w->fd_stat = open(gpath(w, "tgroup.stat"), O_RDONLY);
	if (w->fd_stat < 0 || prd(w->fd_stat, buf, sizeof(buf)) <= 0)
		return;
	if (!stat_word(buf, "mba_percent", v, sizeof(v)))
		w->mod_mba = atoi(v);
	stat_word(buf, "cpu_quota_usec", w->quota, sizeof(w->quota));
	if (!stat_word(buf, "cpu_period_usec", v, sizeof(v)))
		w->period_us = atof(v);
}

/* ---- baselines ----------------------------------------------------------- */

/*
 * resctrl's MBA software controller ("mba_MBps" mount option), as documented
 * in the kernel's Documentation/x86/resctrl.rst ("MBA bandwidth control by
 * MBps") and implemented in arch/x86/kernel/cpu/resctrl/monitor.c
 * (update_mba_bw(), Linux 6.1): once a second, from the group's MBM
 * bandwidth of the last second (cur_bw) and the user's MBps (user_bw):
 *   MBA above its minimum and cur_bw > user_bw       -> one step (bw_gran) down
 *   MBA below 100 and user_bw > cur_bw + delta_bw    -> one step up
 * where delta_bw is the bandwidth change the last MBA change caused
 * (measured at the next sample; it keeps the level from oscillating). MBA
 * only; no latency, no type awareness; only low-priority groups get a target
 * here (baseline.mbps_target_gbps), as an operator would set it.
 */
static void mbps_step(struct wl *w)
{
	double cur = w->mbps_bytes / 1e6;	/* MB over the last second */

	w->mbps_bytes = 0;
	if (w->mbps_comp)
		w->mbps_delta = fabs(cur - w->mbps_prev);
	w->mbps_comp = 0;
	w->mbps_prev = cur;
	if (w->mbps_level > 10 && prof.mbps_target_gbps * 1e3 < cur) {
		w->mbps_level -= 10;
	} else if (w->mbps_level < 100 && prof.mbps_target_gbps * 1e3 > cur + w->mbps_delta) {
		w->mbps_level += 10;
	} else {
		return;
	}
	w->mbps_comp = 1;
}

/*
 * MemGuard (Yun et al., "MemGuard: Memory Bandwidth Reservation System for
 * Efficient Performance Isolation in Multi-core Platforms", RTAS 2013): every
 * core (here: group) has a budget of memory traffic per 1 ms regulation
 * period, counted from LLC misses whatever their type; once it is spent the
 * core is throttled until the period ends. Here the budget is
 * baseline.memguard_gbps for each low-priority group, and the throttle is the
 * kernel's own cgroup v2 cpu.max: the budget in bytes becomes CPU time at the
 * bytes per CPU-second the group achieved in the last step (what the
 * overflow interrupt would have counted), and CFS bandwidth control stops the
 * group when it is spent until the period ends - MemGuard's semantics. CFS
 * refuses a quota under 1 ms, so when the budget is under 1 ms of CPU the
 * period is stretched to keep the same ratio (documented deviation).
 */
static void memguard_step(struct wl *w, double bytes, double cpu_s)
{
	long quota, period = 1000;
	double rate, share;
	char path[256];

	if (cpu_s <= 0 || bytes <= 0)
		return;
	rate = bytes / cpu_s;				/* bytes per CPU-second */
	share = prof.memguard_gbps * 1e9 / rate;	/* CPUs the budget buys */
	if (share >= 2) {
		quota = -1;
	} else {
		quota = share * period;
		if (quota < 1000) {
			period = share > 0.001 ? 1000 / share : 1000000;
			quota = 1000;
		}
	}
	if (quota == w->cpumax_quota ||
	    (quota > 0 && w->cpumax_quota > 0 && labs(quota - w->cpumax_quota) * 20 < w->cpumax_quota))
		return;
	w->cpumax_quota = quota;
	snprintf(path, sizeof(path), CG2 "/%.31s/cpu.max", w->name);
	if (quota < 0)
		wrx(path, "max %ld", period);
	else
		wrx(path, "%ld %ld", quota, period);
}

/* ---- setup ---------------------------------------------------------------- */

static double thresholds[NK];

/*
 * The detector's threshold for kind k: the latency at which a solo one-thread
 * task of kind k has lost threshold_drop of its throughput (MT²: "the
 * latency at which throughput has dropped", measured per platform). A victim
 * of another kind may push kind k's probe latency over it on its own (e.g. an
 * NVM writer raises the DRAM write probe's latency); then any low-priority
 * neighbour with traffic is throttled towards its floor - protection first.
 */
static double threshold(int k)
{
	double lat;

	model_solo(&prof, k, 1, &lat);
	return lat / (1 - prof.thr_drop);
}

static void setup(void)
{
	char cg[256];
	int i, k;

	if (access(INJECT, W_OK))
		die("%s: %s (load tgroup.ko with inject=1)", INJECT, strerror(errno));
	/* detector thresholds: the latency of each kind at which a solo task of
	 * that kind has lost threshold_drop of its throughput (MT² sect. 4) */
	for (k = 0; k < NK; k++)
		thresholds[k] = threshold(k);
	wrx(MNT "/tgroup.config", "enabled=%d remedial=1 preventive=1 dram_read_lat_ns=%.0f nvm_read_lat_ns=%.0f dram_write_lat_ns=%.0f nvm_write_lat_ns=%.0f",
	    mode == M_TGROUP, thresholds[K_DR], thresholds[K_NR], thresholds[K_DW], thresholds[K_NW]);
	if (mode == M_MEMGUARD) {
		if (access(CG2 "/cgroup.controllers", R_OK) &&
		    mount("cgroup2", CG2, "cgroup2", 0, NULL))
			die("mount cgroup2: %s", strerror(errno));
		wrx(CG2 "/cgroup.subtree_control", "+cpu");
	}
	for (i = 0; i < nw; i++) {
		struct wl *w = &wls[i];

		snprintf(cg, sizeof(cg), MNT "/%.31s", w->name);
		if (mkdir(cg, 0755) && errno != EEXIST)
			die("mkdir %s: %s", cg, strerror(errno));
		wrx(gpath(w, "tgroup.priority"), "%s", w->high ? "high" : "low");
		wrx(gpath(w, "tgroup.limit"), "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max");
		if (w->limit[0] && mode == M_TGROUP)
			wrx(gpath(w, "tgroup.limit"), "%s", w->limit);
		if (mode == M_MEMGUARD) {
			snprintf(cg, sizeof(cg), CG2 "/%.31s", w->name);
			if (mkdir(cg, 0755) && errno != EEXIST)
				die("mkdir %s: %s", cg, strerror(errno));
			snprintf(cg, sizeof(cg), CG2 "/%.31s/cpu.max", w->name);
			wrx(cg, "max 100000");
		}
		w->mbps_level = 100;
		w->mod_mba = 100;
		w->cpumax_quota = -1;
		strcpy(w->quota, "max");
		w->solo = model_solo(&prof, w->kind, w->threads, NULL);
	}
}

static void teardown(void)
{
	char cg[256];
	int i;

	for (i = 0; i < nw; i++) {
		if (wls[i].state == 1)
			stop_wl(&wls[i]);
		if (wls[i].fd_stat > 0)
			close(wls[i].fd_stat);
		snprintf(cg, sizeof(cg), MNT "/%.31s", wls[i].name);
		rmdir(cg);
		if (mode == M_MEMGUARD) {
			snprintf(cg, sizeof(cg), CG2 "/%.31s", wls[i].name);
			rmdir(cg);
		}
	}
	/* the latest probe value stays: end interference for the next run */
	wr(INJECT, "probe dram_write_ns=1 nvm_write_ns=1");
	wr(MNT "/tgroup.config", "enabled=1");
}

/* ---- the run ------------------------------------------------------------- */

static void parse_wl(const char *s)
{
	char buf[256], *f[7], *save = NULL, *t;
	struct wl *w = &wls[nw];
	int n = 0;

	if (nw >= MAXW)
		die("too many workloads");
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ":", &save); t && n < 7; t = strtok_r(NULL, ":", &save))
		f[n++] = t;
	if (n < 6)
		die("workload '%s': NAME:KIND:THREADS:PRIO:START:STOP[:LIMIT]", s);
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", f[0]);
	w->kind = kind_parse(f[1]);
	w->threads = atof(f[2]);
	w->high = !strcmp(f[3], "high");
	w->start = atof(f[4]);
	w->stop = atof(f[5]);
	if (w->kind < 0 || w->threads <= 0 || (!w->high && strcmp(f[3], "low")))
		die("workload '%s': bad kind, threads or priority", s);
	if (n == 7) {
		snprintf(w->limit, sizeof(w->limit), "%s", f[6]);
		for (t = w->limit; *t; t++)
			if (*t == ',')
				*t = ' ';
	}
	nw++;
}

static void csv_header(const char *file)
{
	int i;

	printf("TGEVAL-CSV %s,#t_s", file);
	for (i = 0; i < nw; i++)
		printf(",%s_gbps,%s_mba,%s_quota", wls[i].name, wls[i].name, wls[i].name);
	printf(",lat_dram_read,lat_dram_write,lat_nvm_read,lat_nvm_write,state\n");
}

static int inject_fd = -1;

static int run(void)
{
	double t0, t, tprev, step = mode == M_MEMGUARD ? 0.001 : 0.002;
	double next_sample, next_live, next_mbps = 1, lat[NK] = { 0 }, x[NK];
	double rpq_lines_rem[2] = { 0 }, live_lat = 0, live_prev = 0, live_cpu_prev = 0, ref_lat = 0;
	long ref_n = 0;
	int ref_done = 0;
	long live_n = 0;
	char state[16] = "none", ibuf[4096];
	struct timespec ts;
	int i, k, steps = 0, late = 0;

	work_ns = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (work_ns == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	pin_cpu(0);
	setup();
	inject_fd = open(INJECT, O_WRONLY);
	if (inject_fd < 0)
		die("%s: %s", INJECT, strerror(errno));
	for (k = 0; k < NK; k++)
		lat[k] = prof.lat0[k];
	if (ts_file)
		csv_header(ts_file);
	t0 = now();
	tprev = 0;
	next_sample = sample_ms / 1e3;
	next_live = live_ms / 1e3;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (;;) {
		struct mload ml[MAXW];
		double bytes[MAXW] = { 0 }, cpu_s[MAXW] = { 0 }, dt, a;
		double grp[MAXW][NK], lines[2] = { 0 }, lat_sum[2] = { 0 };
		char *p = ibuf;
		int n = 0, idx[MAXW];

		ts.tv_nsec += step * 1e9;
		while (ts.tv_nsec >= 1000000000) {
			ts.tv_nsec -= 1000000000;
			ts.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = now() - t0;
		if (t - tprev > 3 * step) {	/* we were late: no catching up */
			late++;
			clock_gettime(CLOCK_MONOTONIC, &ts);
		}
		dt = t - tprev;
		tprev = t;
		steps++;
		if (t >= duration)
			break;
		a = 1 - exp(-dt / TAU_S);
		for (i = 0; i < nw; i++) {
			struct wl *w = &wls[i];
			unsigned long long rt;

			if (w->state == 0 && t >= w->start)
				start_wl(w);
			if (w->state != 1)
				continue;
			rt = runtime_ns(w);
			cpu_s[i] = (rt - w->last_rt) / 1e9;
			w->last_rt = rt;
			if (w->stop > 0 && t >= w->stop)
				stop_wl(w);
			w->cpu += (cpu_s[i] / dt / prof.duty - w->cpu) * a;
			if (mode == M_TGROUP) {
				read_stat(w);
				w->mba = w->mod_mba;
			} else if (mode == M_STATIC) {
				w->mba = w->high ? 100 : prof.static_mba;
			} else if (mode == M_MBPS) {
				w->mba = w->high ? 100 : w->mbps_level;
			} else {
				w->mba = 100;
			}
			ml[n] = (struct mload){ .kind = w->kind, .threads = w->threads,
						.cpu = w->cpu, .mba = w->mba, .t = w->last_t };
			idx[n++] = i;
		}
		model_solve_warm(&prof, ml, n, x, 12);
		for (i = 0; i < n; i++)
			wls[idx[i]].last_t = ml[i].t;
		for (k = 0; k < NK; k++)
			lat[k] = prof.lat0[k] * x[k];
		memset(grp, 0, sizeof(grp));
		for (i = 0; i < n; i++) {
			struct wl *w = &wls[idx[i]];
			/* GB/s it moves while it gets all the CPU it wants */
			double d = w->threads * prof.d1[w->kind] * mba_factor(&prof, w->kind, w->mba) /
				   x[w->kind];

			/* what its CPU time actually moved */
			bytes[idx[i]] = cpu_s[idx[i]] / prof.duty * d * 1e9;
			grp[idx[i]][w->kind] = bytes[idx[i]];
		}
		/* the inject write: counters per group, RPQ, probes */
		for (i = 0; i < nw; i++) {
			struct wl *w = &wls[i];
			double s[2];
			long ss[2];
			int j;

			if (w->state == 0 || bytes[i] <= 0)
				continue;
			for (j = 0; j < 2; j++) {
				s[j] = grp[i][j ? K_NW : K_DW] / SAMPLE_BYTES + w->samples_rem[j];
				ss[j] = (long)s[j];
				w->samples_rem[j] = s[j] - ss[j];
			}
			p += snprintf(p, ibuf + sizeof(ibuf) - p,
				      "group=%s dram_read_bytes=%.0f nvm_read_bytes=%.0f mbm_bytes=%.0f dram_store_samples=%ld nvm_store_samples=%ld\n",
				      w->name, grp[i][K_DR], grp[i][K_NR], bytes[i], ss[0], ss[1]);
			lines[0] += grp[i][K_DR] / 64;
			lines[1] += grp[i][K_NR] / 64;
			w->bytes_sample += bytes[i];
			w->bytes_live += bytes[i];
			w->cpu_live += cpu_s[i];
			w->mbps_bytes += bytes[i];
			if (t >= meas_a && t < meas_b) {
				w->cpu_meas += cpu_s[i];
				w->bytes_meas += bytes[i];
				w->lat_meas += lat[w->kind];
				w->n_meas++;
			}
			if (t >= ref_a && t < ref_b) {
				w->bytes_ref += bytes[i];
				w->cpu_ref += cpu_s[i];
			}
			if (mode == M_MEMGUARD && !w->high)
				memguard_step(w, bytes[i], cpu_s[i]);
		}
		for (k = 0; k < 2; k++) {
			/* Little's law: occupancy = inserts x latency in uncore cycles */
			double l = lines[k] + rpq_lines_rem[k];
			long ins = (long)l;

			rpq_lines_rem[k] = l - ins;
			lat_sum[k] = (double)ins * lat[k ? K_NR : K_DR] * UNCORE_KHZ / 1e6;
			lines[k] = ins;
		}
		p += snprintf(p, ibuf + sizeof(ibuf) - p,
			      "uncore dram_rpq_occupancy=%.0f dram_rpq_inserts=%.0f nvm_rpq_occupancy=%.0f nvm_rpq_inserts=%.0f uncore_clock_khz=%llu\n",
			      lat_sum[0], lines[0], lat_sum[1], lines[1], UNCORE_KHZ);
		p += snprintf(p, ibuf + sizeof(ibuf) - p, "probe dram_write_ns=%.0f nvm_write_ns=%.0f\n",
			      lat[K_DW], lat[K_NW]);
		if (write(inject_fd, ibuf, p - ibuf) != p - ibuf)
			die("inject: %s\n%s", strerror(errno), ibuf);
		if (mode == M_MBPS && t >= next_mbps) {
			next_mbps += 1;
			for (i = 0; i < nw; i++)
				if (!wls[i].high && wls[i].state == 1)
					mbps_step(&wls[i]);
		}
		if (t >= next_sample) {
			char ib[256], *s;

			if (rd(MNT "/tgroup.interference", ib, sizeof(ib)) > 0 && (s = strstr(ib, "state=")))
				snprintf(state, sizeof(state), "%.*s", (int)strcspn(s + 6, " \n"), s + 6);
			if (ts_file) {
				printf("TGEVAL-CSV %s,%.3f", ts_file, t);
				for (i = 0; i < nw; i++) {
					struct wl *w = &wls[i];
					const char *q = mode == M_TGROUP ? w->quota : "max";
					char qb[24];

					if (mode == M_MEMGUARD && w->cpumax_quota > 0) {
						snprintf(qb, sizeof(qb), "%ld", w->cpumax_quota);
						q = qb;
					}
					if (w->state == 2 && mode == M_TGROUP) {
						read_stat(w);	/* gone: its throttle being released */
						w->mba = w->mod_mba;
					} else if (w->state != 1) {
						q = "-";
						w->mba = 100;
					}
					printf(",%.3f,%.0f,%s", w->bytes_sample / 1e9 / (sample_ms / 1e3),
					       w->mba, q);
					w->bytes_sample = 0;
				}
				printf(",%.0f,%.0f,%.0f,%.0f,%s\n", lat[0], lat[1], lat[2], lat[3], state);
			}
			next_sample += sample_ms / 1e3;
		}
		live_lat += lat[wls[0].kind];
		live_n++;
		/*
		 * MT² measures each threshold on the platform: the victim's own
		 * latency alone, here over --ref, replaces the model's figure for
		 * its kind (the guest gives a workload ~85 % of the CPU it wants,
		 * so its solo latency is under the model's full-CPU one)
		 */
		if (ref_b > ref_a && t >= ref_a && t < ref_b) {
			ref_lat += lat[wls[0].kind];
			ref_n++;
		} else if (ref_b > ref_a && t >= ref_b && ref_n && !ref_done) {
			static const char *const key[NK] = { "dram_read_lat_ns", "dram_write_lat_ns",
							     "nvm_read_lat_ns", "nvm_write_lat_ns" };
			double thr = ref_lat / ref_n / (1 - prof.thr_drop);

			ref_done = 1;
			if (mode == M_TGROUP && thr < thresholds[wls[0].kind]) {
				wrx(MNT "/tgroup.config", "%s=%.0f", key[wls[0].kind], thr);
				printf("TGEVAL-INFO %s: %s threshold %.0f ns (measured solo %.0f ns; model %.0f ns)\n",
				       exp_name, key[wls[0].kind], thr, ref_lat / ref_n, thresholds[wls[0].kind]);
			}
		}
		if (live_ms && t >= next_live) {
			/* per CPU-second the victim got (report.py victim_pct), over the
			 * last two lines' intervals (0.5 s) */
			double ref = wls[0].cpu_ref > 0 ? wls[0].bytes_ref / wls[0].cpu_ref : 0;
			double gb = (wls[0].bytes_live + live_prev) /
				    (wls[0].cpu_live + live_cpu_prev > 0 ? wls[0].cpu_live + live_cpu_prev : 1);
			char thr[160] = "";

			for (i = 1; i < nw; i++) {
				struct wl *w = &wls[i];
				char q[40];

				if (w->state == 0)
					continue;
				if (w->state == 2) {	/* gone: is its throttle released? */
					if (mode == M_TGROUP)
						read_stat(w);
					snprintf(thr + strlen(thr), sizeof(thr) - strlen(thr),
						 " | %s: left, mba %d%% cpu %s", w->name,
						 mode == M_TGROUP ? w->mod_mba : 100,
						 mode == M_TGROUP ? w->quota : "max");
					continue;
				}
				if (!strcmp(w->quota, "max") || mode != M_TGROUP)
					snprintf(q, sizeof(q), "cpu max");
				else
					snprintf(q, sizeof(q), "cpu %.1f%% of a CPU",
						 w->period_us > 0 ? 100 * atof(w->quota) / w->period_us : 0);
				snprintf(thr + strlen(thr), sizeof(thr) - strlen(thr), " | %s: mba %.0f%% %s",
					 w->name, w->state == 1 ? w->mba : 100, q);
			}
			if (t < ref_b || ref <= 0)
				printf("TGEVAL-LIVE %5.2f s  victim %5.2f GB/s (measuring solo)  %s lat %4.0f ns  state %-4s%s\n",
				       t, wls[0].bytes_live / (live_ms / 1e3) / 1e9, prof.label[wls[0].kind],
				       live_lat / live_n, state, thr);
			else
				printf("TGEVAL-LIVE %5.2f s  victim %4.0f %% of solo  %s lat %4.0f ns  state %-4s%s\n",
				       t, 100 * gb / ref, prof.label[wls[0].kind], live_lat / live_n, state, thr);
			fflush(stdout);
			live_prev = wls[0].bytes_live;
			live_cpu_prev = wls[0].cpu_live;
			wls[0].bytes_live = 0;
			wls[0].cpu_live = 0;
			for (i = 1; i < nw; i++)
				wls[i].bytes_live = 0;
			live_lat = 0;
			live_n = 0;
			next_live += live_ms / 1e3;
		}
	}
	/* summary: one row per workload */
	printf("TGEVAL-CSV %s.csv,#exp,profile,mode,label,workload,kind,threads,prio,gbps,lat_ns,model_solo_gbps,steps,late_steps,final_mba,final_quota,ref_gbps,cpu_pct,ref_cpu_pct\n",
	       exp_name);
	for (i = 0; i < nw; i++) {
		struct wl *w = &wls[i];
		double win = meas_b - meas_a;

		if (w->stop > 0 && w->stop < meas_b)
			win = w->stop - (w->start > meas_a ? w->start : meas_a);
		else if (w->start > meas_a)
			win = meas_b - w->start;
		printf("TGEVAL-CSV %s.csv,%s,%s,%s,%s,%s,%s,%g,%s,%.4f,%.1f,%.4f,%d,%d,%.0f,%s,%.4f,%.1f,%.1f\n",
		       exp_name, exp_name, prof.name, mode_name[mode], label, w->name,
		       kind_name[w->kind], w->threads, w->high ? "high" : "low",
		       win > 0 ? w->bytes_meas / 1e9 / win : 0, w->n_meas ? w->lat_meas / w->n_meas : 0,
		       w->solo, steps, late, w->mba, mode == M_TGROUP ? w->quota : "-",
		       ref_b > ref_a ? w->bytes_ref / 1e9 / (ref_b - ref_a) : 0,
		       win > 0 ? 100 * w->cpu_meas / (prof.duty * win) : 0,
		       ref_b > ref_a ? 100 * w->cpu_ref / (prof.duty * (ref_b - ref_a)) : 0);
	}
	fflush(stdout);
	teardown();
	return 0;
}

/* ---- model only ------------------------------------------------------------ */

static int model_report(void)
{
	static const double sweep[] = { 1, 2, 4, 8, 12, 16, 26 };
	struct mload l[4];
	double x[NK], solo[NK];
	int v, j, k, i;

	printf("latratio.read %.3f\n", prof.lat0[K_NR] / prof.lat0[K_DR]);
	for (k = 0; k < NK; k++) {
		double lat;

		solo[k] = model_solo(&prof, k, 1, &lat);
		printf("solo.%s %.3f\n", kind_name[k], solo[k]);
		printf("solo_lat.%s %.0f\n", kind_name[k], lat);
		printf("threshold.%s %.0f\n", kind_name[k], threshold(k));
	}
	for (v = 0; v < NK; v++)
		for (j = 0; j < NK; j++) {
			l[0] = (struct mload){ .kind = v, .threads = 1, .cpu = 1, .mba = 100 };
			l[1] = (struct mload){ .kind = j, .threads = prof.noisy_threads, .cpu = 1, .mba = 100 };
			model_solve(&prof, l, 2, x);
			printf("pair.%s.%s %.1f\n", kind_name[v], kind_name[j], 100 * l[0].t / solo[v]);
		}
	for (v = 0; v < NK; v++) {
		for (i = 0, j = 0; j < NK; j++)
			l[i++] = (struct mload){ .kind = j, .threads = 1, .cpu = 1, .mba = 100 };
		model_solve(&prof, l, NK, x);
		printf("mix.%s %.3f\n", kind_name[v], l[v].t);
	}
	for (k = 0; k < NK; k++)
		for (i = 0; i < (int)(sizeof(sweep) / sizeof(sweep[0])); i++)
			printf("sweep.%s.%g %.2f\n", kind_name[k], sweep[i], model_solo(&prof, k, sweep[i], NULL));
	for (k = 0; k < NK; k++)
		for (i = 10; i <= 100; i += 10)
			printf("mba.%s.%d %.3f\n", kind_name[k], i,
			       (l[0] = (struct mload){ .kind = k, .threads = 1, .cpu = 1, .mba = i },
				model_solve(&prof, l, 1, x), l[0].t / solo[k]));
	return 0;
}

static void range(const char *s, double *a, double *b)
{
	if (sscanf(s, "%lf:%lf", a, b) != 2 || *b <= *a)
		die("bad range '%s' (A:B)", s);
}

int main(int argc, char **argv)
{
	char err[256];
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		die("usage: tgeval model PROFILE | tgeval run PROFILE [options] WORKLOAD...");
	if (profile_load(&prof, argv[2], err, sizeof(err)))
		die("%s", err);
	if (!strcmp(argv[1], "model"))
		return model_report();
	if (strcmp(argv[1], "run"))
		die("unknown command %s", argv[1]);
	for (i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			parse_wl(a);
			continue;
		}
		if (!v)
			die("%s needs a value", a);
		i++;
		if (!strcmp(a, "--mode")) {
			int m;

			for (m = 0; m <= M_TGROUP && strcmp(v, mode_name[m]); m++)
				;
			if (m > M_TGROUP)
				die("mode %s: none|static|mbps|memguard|tgroup", v);
			mode = m;
		} else if (!strcmp(a, "--duration")) {
			duration = atof(v);
		} else if (!strcmp(a, "--measure")) {
			range(v, &meas_a, &meas_b);
		} else if (!strcmp(a, "--ref")) {
			range(v, &ref_a, &ref_b);
		} else if (!strcmp(a, "--exp")) {
			exp_name = v;
		} else if (!strcmp(a, "--label")) {
			label = v;
		} else if (!strcmp(a, "--ts")) {
			ts_file = v;
		} else if (!strcmp(a, "--live")) {
			live_ms = atoi(v);
		} else if (!strcmp(a, "--sample")) {
			sample_ms = atoi(v);
		} else {
			die("unknown option %s", a);
		}
	}
	if (!nw || duration <= 0 || sample_ms <= 0)
		die("nothing to run");
	return run();
}
