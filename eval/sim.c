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

static int own_opt(const char *a, const char *v)
{
	if (!strcmp(a, "--cpu-seed")) {
		cseed = strtoull(v, NULL, 0);
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
	int ext_mba[MAXW], prev_why[MAXW] = { 0 }, i, k, othr_done = 0;
	char err[256];

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
			if (!w->paused) {
				double a = clip(base[i] + fl[i], 0.2, 1);

				cpu_s[i] = w->duty * STEP_S * (a < cap[i] ? a : cap[i]);
			}
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
				for (i = 0; i < P.nw; i++) {
					u64 q = g[i].out.quota_us;

					ext_mba[i] = g[i].out.mba;
					cap[i] = q == TG_QUOTA_UNLIMITED ? 1 : q / (P.w[i].duty * PERIOD_US);
					if (g[i].last.why == TG_WHY_RELAPSE && prev_why[i] != TG_WHY_RELAPSE)
						P.w[i].relapses++;
					prev_why[i] = g[i].last.why;
				}
			}
			if (P.mode == M_ORACLE)	/* the pin, applied at the period */
				for (i = 0; i < P.nw; i++)
					if (!P.w[i].high && P.w[i].want_cap < 1)
						cap[i] = P.w[i].want_cap;
			for (i = 0; i < P.nw; i++) {
				char q[24];

				if (P.w[i].high || P.w[i].state == 0)
					continue;
				if (cap[i] < 1)
					snprintf(q, sizeof(q), "%.0f", cap[i] * P.w[i].duty * PERIOD_US);
				else
					snprintf(q, sizeof(q), "max");
				if (P.w[i].state == 2)
					P.w[i].mba = ext_mba[i];
				plat_applied(&P, i, t, q, cap[i] < 1 ? cap[i] : 1);
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
