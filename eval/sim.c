// SPDX-License-Identifier: GPL-2.0
/*
 * sim.c - the host simulator (tgsim): the guest platform's experiments
 * without the guest, for the sweeps, the seeds and the scenarios that make
 * eval's 60 minutes cannot hold in the TCG guest (docs/eval.md, "Host
 * simulator").
 *
 *   tgsim PROFILE [tgeval run's options] [--cpu-seed N] [--law L] WORKLOAD...
 *
 * The same platform step, baselines, oracle and statistics as the guest
 * (eval/plat.c, eval/model.c) and the same control law: core/'s detector and
 * regulator (build/libtgcore.a), driven as module/loop.c drives them - every
 * period (12 ms: the guest's 10 ms rounded to 3 jiffies at HZ=250; CPU time
 * normalised to the nominal 10 ms), latencies into tg_detect(), per group
 * the period's rates and CPU time smoothed by an EWMA of weight
 * 1/TG_SMOOTH_DIV, tg_regulate(), then its MBA level and CPU quota applied.
 * What is simulated instead of real:
 *   - CPU: a workload gets min(availability, cap) of the CPU it asks for in
 *     each 1 ms step; availability is the guest's: per workload and run a
 *     base drawn around calib_cpu (sd 0.03), plus an AR(1) fluctuation
 *     renewed every 100 ms (sd 0.04), clipped to [0.2, 1] (--cpu-seed; 0:
 *     exactly calib_cpu, no noise). cap: the module's quota over the period
 *     (tgroup), cpu.max's (MemGuard), the pin (oracle) - enforced exactly,
 *     where the guest's module parks a group at 1/8-period slices and CFS at
 *     its own granularity;
 *   - the module's estimator: the regulator gets each group's true rates by
 *     kind (the guest's gets them from the inject counters and store
 *     samples through core's estimator);
 *   - latency reaches the detector as the module's sources report it, in
 *     the guest (eval/tgeval.c through module/sources/inject.c) and on
 *     hardware: a read kind as the period's average, weighted by the lines
 *     read in each step (Little's law over the RPQ counters the period
 *     accumulated); a write kind as the latency at the period's end (the
 *     probe times its writes then; the guest's inject keeps the last
 *     value). A tier read by nobody in the period reads 0 inserts, which
 *     the module takes as no reading (tg_read_latency_ns()), as in the
 *     guest; on hardware other tenants' reads would give one;
 *   - a workload in an off phase (onoff=) wakes once per 1 ms window and
 *     sleeps again, as tgeval's worker does: CPU time the module sees
 *     (WAKE_S per thread and step), no traffic - so it reads as a quiet
 *     group, released as idle, as in the guest (with no CPU time at all,
 *     a throttled group reads as parked, and is kept).
 * Output: the guest's rows ("TGEVAL-CSV FILE,ROW"), so eval/report.py reads
 * both alike; rows are marked by the profile column ("PROFILE/sim").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_core.h"
#include "plat.h"

#define STEP_S 0.001
#define PERIOD_S 0.012		/* the guest's period: 10 ms as 3 jiffies */
#define PERIOD_US 10000u	/* nominal */
#define NCPU 2u
#define NOISE_S 0.1
#define WAKE_S 0.000005	/* a paused worker's wake-up per 1 ms window, s of CPU */

static struct plat P;
static const char *ts_file;

static unsigned long long crng;

static double cuni(void)
{
	unsigned long long z = (crng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return ((z ^ (z >> 31)) >> 11) / (double)(1ull << 53);
}

static double cnorm(void)
{
	double u = cuni(), v = cuni();

	return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static double clip(double x, double a, double b)
{
	return x < a ? a : x > b ? b : x;
}

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "tgsim: %s%s\n", msg, arg ? arg : "");
	exit(1);
}

static unsigned long long cseed = 1;
static u32 slaw = TG_LAW_DEFAULT;	/* --law: the remedial law (cfg law) */
/*
 * --quota-slices N: tgroup's CPU quota enforced as the guest's module does
 * (docs/module.md, "Throttling", "Accounting") instead of as an exact cap:
 * a group runs at its own pace until a check at every 1/N of the period
 * finds it has used its allowance, then it is parked for the rest of the
 * period; what it ran past the allowance is owed by the next periods
 * (floored at DEBT_PERIODS periods of quota), unused time is not saved.
 * A small quota then runs in bursts of a slice every few periods, as in the
 * guest. 0 (the default): the exact cap of each 1 ms step.
 */
static int qslices;
/*
 * --park-lag MS (with --quota-slices): how long a group found over its
 * allowance runs on before its park takes effect. The TCG guest's groups
 * run far past a slice: at quotas of 20-100 us a DRAM or NVM reader moves
 * 0.3-2 GB/s for a 50 ms sample, then nothing for 0.3-1.5 s (the debt
 * floor), about 15 ms of running per burst (the 28 Nov timelines,
 * tg.tlpair=dr.nr); on hardware the park follows within a slice.
 */
static double park_lag;
#define DEBT_PERIODS 100	/* TG_CPU_DEBT_PERIODS */

static int own_opt(const char *a, const char *v)
{
	if (!strcmp(a, "--cpu-seed")) {
		cseed = strtoull(v, NULL, 0);
	} else if (!strcmp(a, "--quota-slices")) {
		char *end;
		long n = strtol(v, &end, 10);

		if (*end || end == v || n < 0 || n > 64)
			die("--quota-slices must be 0..64: ", v);
		qslices = (int)n;
	} else if (!strcmp(a, "--park-lag")) {
		char *end;

		park_lag = strtod(v, &end) / 1e3;
		if (*end || end == v || !(park_lag >= 0 && park_lag <= 1))
			die("--park-lag must be 0..1000 ms: ", v);
	} else if (!strcmp(a, "--ts")) {
		ts_file = v;
	} else if (!strcmp(a, "--law")) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			die("--law must be 0 (window) or 1 (block mean): ", v);
		slaw = (u32)(*v - '0');
	} else {
		return -1;
	}
	return 0;
}

static int tgroup_mode(void)
{
	return P.mode == M_TGROUP || P.mode == M_TGROUP_OTHR;
}

int main(int argc, char **argv)
{
	struct tg_config cfg;
	struct tg_reg_cfg rc;
	struct tg_detector_cfg dc;
	struct tg_detector det;
	struct tg_regulator reg;
	struct tg_reg_group g[MAXW];
	double base[MAXW], fl[MAXW], cap[MAXW], pcpu[MAXW] = { 0 }, pbytes[MAXW][NK];
	double t = 0, next_period = PERIOD_S, next_noise = 0, next_sample = 0.05, seen_lat[NK];
	double rd_lat[NK] = { 0 }, rd_lines[NK] = { 0 };
	/* --quota-slices: per group the quota (s of CPU per period; < 0 none), its allowance this period, what it used, parked */
	double qs[MAXW], allow[MAXW] = { 0 }, used[MAXW] = { 0 };
	double park_at[MAXW];
	int parked[MAXW] = { 0 }, slice = 0;
	int ext_mba[MAXW], prev_why[MAXW] = { 0 }, i, k, othr_done = 0;
	char err[256];
	int trace = getenv("TGSIM_TRACE") != NULL;

	if (argc < 2)
		die("usage: tgsim PROFILE [options] WORKLOAD...", NULL);
	if (profile_load(&P.prof, argv[1], err, sizeof(err)))
		die(err, NULL);
	snprintf(P.prof.name + strlen(P.prof.name), sizeof(P.prof.name) - strlen(P.prof.name), "/sim");
	if (plat_args(&P, argc, argv, 2, own_opt, err, sizeof(err)))
		die(err, NULL);
	plat_thresholds(&P.prof, tgroup_mode() ? P.knob : 0, P.thr);
	for (k = 0; k < NK; k++)
		if (P.thr[k] <= 0)
			die("no threshold_ns in the profile (make calibrate)", NULL);
	plat_init(&P);

	/* the module's configuration, as tgeval writes it */
	tg_config_default(&cfg);
	tg_reg_cfg_default(&rc, PERIOD_US, NCPU);
	rc.enabled = tgroup_mode();
	rc.preventive = rc.remedial = tgroup_mode();
	rc.relax_periods = cfg.relax_periods;
	rc.law = slaw;
	tg_detector_cfg_default(&dc);
	for (k = 0; k < NK; k++)
		dc.threshold_ns[k] = (u64)(P.thr[k] + 0.5);
	dc.low_pct = cfg.low_pct;
	dc.quiet_periods = cfg.quiet_periods;
	tg_detector_init(&det);
	tg_regulator_init(&reg);
	crng = cseed * 0x2545f4914f6cdd1dull + 7;
	for (i = 0; i < P.nw; i++) {
		const char *msg;

		tg_reg_group_init(&g[i], &rc);
		tg_limits_init(&g[i].limits);
		if (P.w[i].limit[0] && tgroup_mode() &&
		    tg_parse_limits(P.w[i].limit, strlen(P.w[i].limit), &g[i].limits, &msg))
			die("bad limit: ", msg);
		g[i].priority = P.w[i].high ? TG_PRIO_HIGH : TG_PRIO_LOW;
		base[i] = cseed ? clip(P.prof.calib_cpu + 0.03 * cnorm(), 0.5, 1) : P.prof.calib_cpu;
		P.w[i].share = base[i];	/* the oracle's, at this run's draw */
		fl[i] = 0;
		cap[i] = 1;
		qs[i] = -1;
		park_at[i] = -1;
		ext_mba[i] = 100;
		memset(pbytes[i], 0, sizeof(pbytes[i]));
	}
	if (ts_file) {
		printf("TGEVAL-CSV %s,#t_s", ts_file);
		for (i = 0; i < P.nw; i++)
			printf(",%s_gbps,%s_mba,%s_quota", P.w[i].name, P.w[i].name, P.w[i].name);
		printf(",lat_dram_read,lat_dram_write,lat_nvm_read,lat_nvm_write,state\n");
	}
	for (;;) {
		double cpu_s[MAXW] = { 0 }, bytes[MAXW][NK];

		t += STEP_S;
		if (t >= P.duration)
			break;
		if (cseed && t >= next_noise) {
			next_noise += NOISE_S;
			for (i = 0; i < P.nw; i++)
				fl[i] = 0.7 * fl[i] + 0.04 * cnorm();
		}
		for (i = 0; i < P.nw; i++) {
			struct wl *w = &P.w[i];

			if (w->state == 0 && t >= w->start) {
				w->state = 1;
				w->cpu = 0;
			}
			if (w->state == 1 && w->stop > 0 && t >= w->stop) {
				w->state = 2;
				w->cpu = 0;
			}
			if (w->state != 1)
				continue;
			w->paused = w->onoff > 0 && (long)((t - w->start) / w->onoff) % 2;
			if (!w->paused && !parked[i]) {
				double a = clip(base[i] + fl[i], 0.2, 1);

				cpu_s[i] = w->duty * STEP_S * (a < cap[i] ? a : cap[i]);
			}
			used[i] += cpu_s[i];
		}
		/* the enforcer's check, every 1/qslices of the period */
		if (qslices && (int)((t - (next_period - PERIOD_S)) / (PERIOD_S / qslices)) != slice) {
			slice = (int)((t - (next_period - PERIOD_S)) / (PERIOD_S / qslices));
			for (i = 0; i < P.nw; i++)
				if (qs[i] >= 0 && used[i] >= allow[i] && !parked[i] && park_at[i] < 0)
					park_at[i] = t + park_lag;
		}
		for (i = 0; i < P.nw; i++)
			if (park_at[i] >= 0 && t >= park_at[i]) {
				parked[i] = qs[i] >= 0;
				park_at[i] = -1;
			}
		plat_step(&P, t, STEP_S, cpu_s, ext_mba, bytes);
		for (i = 0; i < P.nw; i++) {
			pcpu[i] += cpu_s[i];
			if (P.w[i].state == 1 && P.w[i].paused)	/* seen, moves nothing */
				pcpu[i] += WAKE_S * P.w[i].threads;
			for (k = 0; k < NK; k++)
				pbytes[i][k] += bytes[i][k];
			/* the RPQ counters: inserts and occupancy accumulate */
			for (k = 0; k < NK; k++) {
				rd_lines[k] += bytes[i][k] / 64;
				rd_lat[k] += bytes[i][k] / 64 * P.lat[k];
			}
		}
		/* baselines' caps take effect at once (CFS, 1 ms periods) */
		for (i = 0; i < P.nw; i++)
			if ((P.mode == M_MEMGUARD || P.mode == M_MEMGUARD_RW) && !P.w[i].high)
				cap[i] = P.w[i].want_cap;
		if (P.mode == M_TGROUP_OTHR && !othr_done && t >= P.ref_b && P.lat_solo_n) {
			int vk = P.w[0].kind;

			othr_done = 1;
			P.thr[vk] = P.lat_solo / P.lat_solo_n / (1 - P.prof.thr_drop);
			dc.threshold_ns[vk] = (u64)(P.thr[vk] + 0.5);
		}
		if (t >= next_period) {	/* the module's period (module/loop.c) */
			struct tg_latency_in lat = { .present = TG_LAT_UNCORE | TG_LAT_PROBE };
			double el = PERIOD_S;

			next_period += PERIOD_S;
			/* what the sources saw over this period (see the top) */
			for (k = 0; k < NK; k++) {
				seen_lat[k] = P.lat[k];
				if (k == K_DR || k == K_NR)	/* no lines read: no reading */
					seen_lat[k] = rd_lines[k] > 0 ? rd_lat[k] / rd_lines[k] : 0;
				rd_lat[k] = rd_lines[k] = 0;
			}
			lat.uncore_khz = 2000000;
			lat.dram_rpq_inserts = seen_lat[K_DR] > 0 ? 100000 : 0;
			lat.nvm_rpq_inserts = seen_lat[K_NR] > 0 ? 100000 : 0;
			lat.dram_rpq_occupancy = (u64)(100000.0 * seen_lat[K_DR] * 2000000 / 1e6);
			lat.nvm_rpq_occupancy = (u64)(100000.0 * seen_lat[K_NR] * 2000000 / 1e6);
			lat.dram_write_ns = (u64)seen_lat[K_DW];
			lat.nvm_write_ns = (u64)seen_lat[K_NW];
			tg_detect(&det, &dc, &lat);
			plat_state(&P, t, det.state != TG_INTF_NONE);
			for (i = 0; i < P.nw; i++) {
				struct tg_reg_group *s = &g[i];

				for (k = 0; k < NK; k++) {
					s->bps_now.v[k] = (u64)(pbytes[i][k] / el);
					s->bps.v[k] = tg_ewma(s->bps.v[k], s->bps_now.v[k]);
				}
				s->cpu_now_us = (u64)(pcpu[i] * 1e6 * PERIOD_US / (el * 1e6));
				s->cpu_usage_us = tg_ewma(s->cpu_usage_us, s->cpu_now_us);
				s->active = P.w[i].state == 1;
				s->priority = P.w[i].high ? TG_PRIO_HIGH : TG_PRIO_LOW;
				pcpu[i] = 0;
				memset(pbytes[i], 0, sizeof(pbytes[i]));
			}
			if (tgroup_mode()) {
				tg_regulate(&reg, &rc, &det, g, P.nw);
				for (i = 0; i < P.nw && trace; i++)	/* TGSIM_TRACE: the law's actions */
					if (g[i].last.action != TG_ACT_NONE)
						fprintf(stderr, "t=%.3f lat %.0f %.0f %.0f %.0f over %#x: %s %s %s %s -> mba %u quota %llu (x %u bad %u) cpu %llu\n",
							t, seen_lat[0], seen_lat[1], seen_lat[2], seen_lat[3], det.over,
							P.w[i].name, tg_action_name(g[i].last.action),
							tg_mech_name(g[i].last.mech), tg_reason_name(g[i].last.why),
							g[i].out.mba, (unsigned long long)g[i].out.quota_us, g[i].x,
							g[i].x_bad, (unsigned long long)g[i].cpu_now_us);
				for (i = 0; i < P.nw; i++) {
					u64 q = g[i].out.quota_us;

					ext_mba[i] = g[i].out.mba;
					cap[i] = q == TG_QUOTA_UNLIMITED ? 1 : q / (P.w[i].duty * PERIOD_US);
					if (qslices) {
						/* the next period's allowance, less what this one overran */
						double over = qs[i] >= 0 && used[i] > allow[i] ? used[i] - allow[i] : 0;

						qs[i] = q == TG_QUOTA_UNLIMITED ? -1 : q * 1e-6 * PERIOD_S / (PERIOD_US * 1e-6);
						if (qs[i] >= 0 && over > DEBT_PERIODS * qs[i])
							over = DEBT_PERIODS * qs[i];
						allow[i] = qs[i] >= 0 ? qs[i] - over : 0;
						/* in debt: parked from the period's start (a park runs on) */
						if (qs[i] < 0 || allow[i] > 0) {
							parked[i] = 0;	/* a new period: a park due ends */
							park_at[i] = -1;
						}
						else if (!parked[i] && park_at[i] < 0)
							park_at[i] = t + park_lag;
						cap[i] = 1;
					}
					if (g[i].last.why == TG_WHY_RELAPSE && prev_why[i] != TG_WHY_RELAPSE)
						P.w[i].relapses++;
					prev_why[i] = g[i].last.why;
				}
			}
			for (i = 0; i < P.nw; i++)
				used[i] = 0;
			if (P.mode == M_ORACLE)	/* the pin, applied at the period */
				for (i = 0; i < P.nw; i++)
					if (!P.w[i].high && P.w[i].want_cap < 1)
						cap[i] = P.w[i].want_cap;
			for (i = 0; i < P.nw; i++) {
				char q[24];

				if (P.w[i].high || P.w[i].state == 0)
					continue;
				/* the quota as a cap (--quota-slices: as the module's allowance) */
				double qf = qslices && qs[i] >= 0 ? qs[i] * PERIOD_US / PERIOD_S / (P.w[i].duty * PERIOD_US) : cap[i];

				if (qf < 1)
					snprintf(q, sizeof(q), "%.0f", qf * P.w[i].duty * PERIOD_US);
				else
					snprintf(q, sizeof(q), "max");
				if (P.w[i].state == 2)
					P.w[i].mba = ext_mba[i];
				plat_applied(&P, i, t, q, qf < 1 ? qf : 1);
			}
		}
		if (ts_file && t >= next_sample) {
			printf("TGEVAL-CSV %s,%.3f", ts_file, t);
			for (i = 0; i < P.nw; i++) {
				struct wl *w = &P.w[i];

				printf(",%.3f,%.0f,%s", w->bytes_sample / 1e9 / 0.05, w->state == 0 ? 100 : w->mba,
				       w->state == 0 ? "-" : w->quota);
				w->bytes_sample = 0;
			}
			printf(",%.0f,%.0f,%.0f,%.0f,%s\n", P.lat[0], P.lat[1], P.lat[2], P.lat[3],
			       tg_intf_name(det.state));
			next_sample += 0.05;
		}
	}
	plat_summary(&P, stdout, "TGEVAL-CSV ");
	return 0;
}
