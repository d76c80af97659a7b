// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core.c - make bench: ns per regulator step at 16..4096 groups and
 * per estimator update. A benchmark, not a test: it prints numbers and the
 * target (<= 20 us mean per step at 1024 groups, judged on the median of
 * TARGET_RUNS runs, each printed), it does not fail.
 *
 * Each period the groups' rates and CPU usage change (a cheap LCG), limits
 * are set on a quarter of them and interference toggles (the latency over
 * its threshold for 50 periods, then under for 50), so preventive and
 * remedial paths - the sized cut, the search - all run.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_core.h"

/* runs at 1024 groups, the target's size (<= 20 us mean per step) */
#define TARGET_RUNS	5

static uint64_t lcg = 0x12345678;

static uint64_t rnd(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return lcg >> 17;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* this thread's CPU time: what the step cost, not what others took meanwhile */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* one run at n groups: prints its line, returns its mean CPU time per step */
static double bench_regulator(uint32_t n, int periods)
{
	struct tg_reg_group *g = calloc(n, sizeof(*g));
	struct tg_reg_cfg cfg;
	struct tg_regulator r;
	struct tg_detector det;
	double t0, c0, total = 0, best = 1e30, ctotal = 0, *cpu = calloc(periods, sizeof(*cpu));
	uint32_t i;
	int p, k;

	tg_reg_cfg_default(&cfg, 10000, 64);
	if (getenv("TG_BENCH_LAW"))	/* the remedial law (cfg law), default the shipped one */
		cfg.law = (uint32_t)atoi(getenv("TG_BENCH_LAW"));
	tg_regulator_init(&r);
	tg_detector_init(&det);
	for (i = 0; i < n; i++) {
		tg_reg_group_init(&g[i], &cfg);
		g[i].active = true;
		g[i].priority = i % 5 ? TG_PRIO_LOW : TG_PRIO_HIGH;
		if (i % 4 == 0)
			g[i].limits.bps[i % TG_NR_KINDS] = 1000000000;
	}
	for (p = 0; p < periods; p++) {
		double dt;

		for (i = 0; i < n; i++) {
			for (k = 0; k < TG_NR_KINDS; k++) {
				g[i].bps.v[k] = rnd() % 4000000000ull;
				g[i].bps_now.v[k] = g[i].bps.v[k];
			}
			g[i].cpu_usage_us = rnd() % 20000;
			g[i].cpu_now_us = g[i].cpu_usage_us;
		}
		/* interference on and off: the latency over its threshold, then under */
		det.over = (p / 50) % 2 ? BIT(TG_NVM_WRITE) : 0;
		det.state = det.over ? TG_INTF_NVM : TG_INTF_NONE;
		for (k = 0; k < TG_NR_KINDS; k++) {
			det.thr_ns[k] = 500;
			det.lat_ns[k] = det.over & BIT(k) ? 600 + p % 7 : 400 + p % 7;
		}
		t0 = now_ns();
		c0 = cpu_ns();
		tg_regulate(&r, &cfg, &det, g, n);
		cpu[p] = cpu_ns() - c0;
		dt = now_ns() - t0;
		ctotal += cpu[p];
		total += dt;
		if (dt < best)
			best = dt;
	}
	qsort(cpu, periods, sizeof(*cpu), cmp_double);
	printf("regulator step  %5u groups: %9.0f ns mean, %9.0f ns best (wall); CPU time %9.0f ns mean, %9.0f median, %9.0f p99\n",
	       n, total / periods, best, ctotal / periods, cpu[periods / 2],
	       cpu[periods * 99 / 100]);
	free(cpu);
	free(g);
	return ctotal / periods;
}

static void bench_estimator(int iters)
{
	struct tg_counters in = {
		.present = TG_IN_OCR | TG_IN_MBM | TG_IN_VFS | TG_IN_PMDK | TG_IN_SAMPLES,
	};
	struct tg_account acc;
	struct tg_estimate e;
	double t0;
	uint64_t sink = 0;
	int i;

	memset(&acc, 0, sizeof(acc));
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		in.dram_read_lines = rnd() % 1000000;
		in.nvm_read_lines = rnd() % 1000000;
		in.mbm_bytes = rnd() % 400000000;
		in.vfs_nvm_write_bytes = rnd() % 1000000;
		in.pmdk_nvm_write_bytes = rnd() % 1000000;
		in.dram_store_samples = rnd() % 100;
		in.nvm_store_samples = rnd() % 100;
		tg_estimate(&in, &e);
		tg_account_update(&acc, &e, 10000);
		sink += e.bytes[TG_DRAM_WRITE];
	}
	printf("estimator update (estimate + account), per group: %.1f ns  [%llu]\n",
	       (now_ns() - t0) / iters, (unsigned long long)(sink & 1));
}

int main(void)
{
	static const uint32_t sizes[] = { 16, 256, 1024, 4096 };
	double run[TARGET_RUNS];
	unsigned int i;
	int j;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i] != 1024) {
			bench_regulator(sizes[i], sizes[i] > 1024 ? 2000 : 10000);
			continue;
		}
		/*
		 * The target's size, TARGET_RUNS runs: the shared host's speed
		 * moves within seconds (another tenant on the core), one run's
		 * mean with it; the target is judged on the median run
		 */
		for (j = 0; j < TARGET_RUNS; j++)
			run[j] = bench_regulator(1024, 2000);
		qsort(run, TARGET_RUNS, sizeof(run[0]), cmp_double);
		printf("regulator step   1024 groups, %d runs: CPU time mean %.0f ns in the median run (runs %.0f..%.0f)   (target <= 20000 ns mean: %s)\n",
		       TARGET_RUNS, run[TARGET_RUNS / 2], run[0], run[TARGET_RUNS - 1],
		       run[TARGET_RUNS / 2] <= 20000 ? "met" : "MISSED");
	}
	bench_estimator(2000000);
	return 0;
}
