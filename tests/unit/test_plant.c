// SPDX-License-Identifier: GPL-2.0
/*
 * test_plant.c - the control law against randomized latency-coupled plants
 * (issue 11). Not test_core.c's plant: here
 *   - each group's traffic of kind k is its demand x the CPU share it gets
 *     x (DRAM kinds) a non-linear MBA response x L0[k] / L[k]: it slows
 *     down as the latency of its kind rises;
 *   - the latency of every kind rises with every kind's traffic of every
 *     group, high priority included, through a random coupling matrix in
 *     which NVM writes weigh most; the latency moves halfway to its new
 *     value each period (queues fill and drain);
 *   - the regulator sees everything lag (1-5) periods late, and rates and
 *     CPU time smoothed by the module's EWMA (core's tg_ewma());
 *   - 1-8 groups of each priority, random demands per kind, random
 *     thresholds (where a victim loses 5-10 % of its throughput), random
 *     low_pct, random limits on some groups.
 * Each scenario is seeded (TG_PLANT_SEED, TG_PLANT_N override the base
 * seed and the count); a failure prints its seed and the whole scenario.
 * TG_PLANT_LAW selects the remedial law (cfg law; default the shipped one).
 * Floating point is the test's own business: core/ stays integer.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tg_core.h"

#define NK		TG_NR_KINDS
#define MAXG		20
#define PERIOD_US	10000u
#define NCPU		2u
#define LAGMAX		5
#define RING		(LAGMAX + 1)

/* tolerances the issue names */
#define VICTIM_MIN	0.90	/* of solo throughput */
#define LIMIT_TOL	0.05	/* of a limit */
#define STILL_WINDOW	200	/* periods: at most one step per group */
/*
 * Blame expectations, all on the plant's TRUE coupling C (kind_share():
 * a group's share of what drives a kind's latency rise) with fixed
 * fractions - never on the law's matrix (tg_blame_w) or its blame_pct, so
 * a law that blames too little or too much fails here (docs/control-law.md,
 * "Verification"):
 *   NEGL_SHARE   under this share of every kind the detector has over, a
 *                group is negligible: never cut (the law's 5 % on its
 *                matrix, which the random coupling misjudges by up to 12x,
 *                on smoothed, lagged rates - a tenth of it);
 *   ACHIEVE_SHARE  the closure that decides whether throttling can protect
 *                the victims cuts a low-priority group while its share of
 *                a kind over is at least this: a group that makes a tenth
 *                of the rise is one the law must be able to cut;
 *   STILL_SHARE  still over at the end: a low-priority group making at
 *                least this share of an over kind's rise must be at its
 *                quota floor (or under the noise floor).
 */
#define NEGL_SHARE	0.005
#define ACHIEVE_SHARE	0.10
#define STILL_SHARE	0.20
/*
 * still over: a latency more than this share over its threshold (at least
 * the detector's 1 ns) - what a victim whose throughput falls as its
 * latency rises loses in one point of its solo throughput (the issue's
 * tolerance on the victim)
 */
#define OVER_TOL	0.01
/*
 * the blame closure's margin, of the latency rise the threshold allows:
 * discrete steps on lagged inputs stop short of the closure
 */
#define ACHIEVE_MARGIN	0.9
/*
 * The law's own yardstick (issue 21), against the oracle references of
 * issue 20 computed here on the known plant (oracle_find()):
 *   WC_MIN       at steady state the low-priority groups keep at least this
 *                share of the oracle rate - the most traffic they can make,
 *                every one at the same CPU share, with every latency under
 *                its threshold;
 *   VICTIM_PTS   while each high-priority group keeps its throughput at the
 *                oracle point less this share of its solo throughput (its
 *                threshold level minus one point);
 *   REACT_MAX    from the neighbours' arrival, the law has every latency
 *                back within BACK_TOL of its allowed rise over its threshold
 *                or OVER_TOL of it (the end of the first excursion out of
 *                that; a rise within it needs no reaction) within this many
 *                times what the oracle controller takes:
 *                one exact cut to the oracle rate at the first period it
 *                sees a latency over (with the law's lag);
 *   QUIET_MAX    a neighbour that goes quiet (no traffic) is released within
 *                lag + this many periods.
 */
#define WC_MIN		0.80
/*
 * A resolution-limited scenario (res_limited()) is judged against the rate
 * at the threshold + 1/2 ns (oracle_half()), and against this much of the
 * oracle's own rate in any case (the misses of that class sat at
 * 0.748-0.796 of it; below 0.70 a law stopped short, whatever the ns).
 */
#define WC_RES_FLOOR	0.70
#define VICTIM_PTS	0.01
#define REACT_MAX	1.5
#define BACK_TOL	0.10
#define QUIET_MAX	5
/* seen latency and traffic: each +- up to this share (uniform), per scenario */
#define NOISE_MAX	0.005
/* periods the high-priority groups run alone before the neighbours arrive */
#define WARMUP		300

static const char *const kname[NK] = { "dram_read", "dram_write", "nvm_read", "nvm_write" };

struct pgroup {
	int high;
	double d[NK];		/* B/s at full CPU, idle latency, no MBA */
	double cpu_us;		/* CPU time per period it wants */
	u64 limit[NK];		/* TG_UNLIMITED or B/s */
};

struct scen {
	u64 seed;
	int n, nh, lag, mba_shape;
	struct pgroup g[MAXG];
	double L0[NK], C[NK][NK];	/* ns; ns per GB/s of kind j */
	double thr[NK];
	double mba_a, knee;
	u32 low_pct;
	int phase;			/* 2: the noise fell; d1 had phase 1's demands */
	double d1[MAXG][NK];
	double noise;			/* seen latency and traffic: +-this share, uniform */
};

/* ---- deterministic randomness ---------------------------------------------- */

static u64 rng_state;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unif(double a, double b)
{
	return a + (b - a) * (double)(rnd() >> 11) / (double)(1ull << 53);
}

static int irand(int a, int b)
{
	return a + (int)(rnd() % (u64)(b - a + 1));
}

/* ---- the plant --------------------------------------------------------------- */

/* fraction of its DRAM bandwidth a group keeps at MBA level m (percent) */
static double mba_resp(const struct scen *s, u32 m)
{
	double x = m / 100.0;

	switch (s->mba_shape) {
	case 0:		/* convex: throttles more than asked at low levels */
		return s->mba_a * x + (1 - s->mba_a) * x * x;
	case 1:		/* concave: less than asked */
		return s->mba_a * x + (1 - s->mba_a) * (2 * x - x * x);
	default:	/* no effect above the knee, linear below it */
		return x >= s->knee ? 1.0 : 0.1 + 0.9 * (x - 0.1) / (s->knee - 0.1);
	}
}

struct pstate {
	double L[NK];			/* latency now, ns */
	double b[MAXG][NK];		/* traffic now, B/s */
	double usage[MAXG];		/* CPU us in the period */
};

struct knobs {
	double frac[MAXG];		/* CPU share it gets, of what it wants */
	u32 mba[MAXG];
	int absent[MAXG];		/* not running at all */
};

static void plant_traffic(const struct scen *s, const struct knobs *kn, struct pstate *p)
{
	double slow[NK];
	int i, k;

	for (k = 0; k < NK; k++)
		slow[k] = s->L0[k] / p->L[k];
	for (i = 0; i < s->n; i++) {
		const double *d = s->g[i].d;
		double f = kn->absent[i] ? 0 : kn->frac[i];
		double m = kn->mba[i] < 100 ? mba_resp(s, kn->mba[i]) : 1.0;

		p->usage[i] = s->g[i].cpu_us * f;
		p->b[i][TG_DRAM_READ] = d[TG_DRAM_READ] * f * m * slow[TG_DRAM_READ];
		p->b[i][TG_DRAM_WRITE] = d[TG_DRAM_WRITE] * f * m * slow[TG_DRAM_WRITE];
		p->b[i][TG_NVM_READ] = d[TG_NVM_READ] * f * slow[TG_NVM_READ];
		p->b[i][TG_NVM_WRITE] = d[TG_NVM_WRITE] * f * slow[TG_NVM_WRITE];
	}
}

/* latency of each kind for the traffic in p */
static void plant_target(const struct scen *s, const struct pstate *p, double *tgt)
{
	double tot[NK] = { 0 };
	int i, j, k;

	for (i = 0; i < s->n; i++)
		for (j = 0; j < NK; j++)
			tot[j] += p->b[i][j];
	for (k = 0; k < NK; k++) {
		tgt[k] = s->L0[k];
		for (j = 0; j < NK; j++)
			tgt[k] += s->C[k][j] * tot[j] / 1e9;
	}
}

/* one period: traffic under the latency of the last, latency halfway on */
static void plant_step(const struct scen *s, const struct knobs *kn, struct pstate *p)
{
	double tgt[NK];
	int k;

	plant_traffic(s, kn, p);
	plant_target(s, p, tgt);
	for (k = 0; k < NK; k++)
		p->L[k] = (p->L[k] + tgt[k]) / 2;
}

/* the steady state for fixed knobs, from p's latency (warm) or idle */
static void plant_settle(const struct scen *s, const struct knobs *kn, struct pstate *p,
			 int warm)
{
	int it, k;

	if (!warm)
		for (k = 0; k < NK; k++)
			p->L[k] = s->L0[k];
	for (it = 0; it < (warm ? 40 : 200); it++)
		plant_step(s, kn, p);
	plant_traffic(s, kn, p);
}

static void plant_solve(const struct scen *s, const struct knobs *kn, struct pstate *p)
{
	plant_settle(s, kn, p, 0);
}

/* every group running, at full CPU and MBA */
static void knobs_free(const struct scen *s, struct knobs *kn)
{
	int i;

	for (i = 0; i < s->n; i++) {
		kn->frac[i] = 1;
		kn->mba[i] = 100;
		kn->absent[i] = 0;
	}
}

static double total_bps(const struct pstate *p, int i)
{
	return p->b[i][0] + p->b[i][1] + p->b[i][2] + p->b[i][3];
}

/*
 * a group's share of what drives kind k's latency rise, with the plant's
 * true coupling (C[k][j] per GB/s of kind j): what the law's blame matrix
 * stands for
 */
static double kind_share(const struct scen *s, const struct pstate *p, int g, int k)
{
	double mine = 0, all = 0;
	int i, j;

	for (i = 0; i < s->n; i++)
		for (j = 0; j < NK; j++) {
			double c = s->C[k][j] * p->b[i][j];

			all += c;
			if (i == g)
				mine += c;
		}
	return all > 0 ? mine / all : 0;
}

/* a group's largest true share of a kind in `kinds` (the kinds over) */
static double true_share(const struct scen *s, const struct pstate *p, int g, u32 kinds)
{
	double best = 0, sh;
	int k;

	for (k = 0; k < NK; k++)
		if ((kinds & (1u << k)) && (sh = kind_share(s, p, g, k)) > best)
			best = sh;
	return best;
}

/*
 * The latencies a victim lives with: the kinds some high-priority group
 * makes traffic of (every kind with none: victims outside the groups). A
 * latency over its threshold that no victim lives with harms nobody: the
 * law must leave it to the neighbours (issue 21: the eval's NVM-write
 * victim holds the DRAM read latency over its threshold on its own).
 */
static u32 prot_mask(const struct scen *s)
{
	u32 m = 0;
	int i, k;

	for (i = 0; i < s->nh; i++)
		for (k = 0; k < NK; k++)
			if (s->g[i].d[k] > 0)
				m |= 1u << k;
	return s->nh ? m : (1u << NK) - 1;
}

static int prot(const struct scen *s, int k)
{
	return !!(prot_mask(s) & (1u << k));
}

/* a protected kind over its threshold as the detector sees it: whole ns */
static int is_over(const struct scen *s, const struct pstate *p, int k)
{
	return prot(s, k) && (u64)p->L[k] > (u64)s->thr[k];
}

/* ---- scenarios ------------------------------------------------------------------ */

static void scen_print(const struct scen *s)
{
	int i, k;

	printf("scenario seed=%llu: %d groups (%d high), lag %d, low_pct %u, mba shape %d (a %.2f knee %.2f), noise %.4f, failed in phase %d\n",
	       (unsigned long long)s->seed, s->n, s->nh, s->lag, s->low_pct, s->mba_shape,
	       s->mba_a, s->knee, s->noise, s->phase ? s->phase : 1);
	for (k = 0; k < NK; k++)
		printf("  %-10s L0 %6.1f thr %6.1f  C/GBps: %7.2f %7.2f %7.2f %7.2f\n", kname[k],
		       s->L0[k], s->thr[k], s->C[k][0], s->C[k][1], s->C[k][2], s->C[k][3]);
	for (i = 0; i < s->n; i++) {
		printf("  g%-2d %s cpu %5.0f us  demand GB/s %.4f %.4f %.4f %.4f", i,
		       s->g[i].high ? "high" : "low ", s->g[i].cpu_us, s->g[i].d[0] / 1e9,
		       s->g[i].d[1] / 1e9, s->g[i].d[2] / 1e9, s->g[i].d[3] / 1e9);
		if (s->phase == 2)
			printf(" (phase 1: %.4f %.4f %.4f %.4f)", s->d1[i][0] / 1e9,
			       s->d1[i][1] / 1e9, s->d1[i][2] / 1e9, s->d1[i][3] / 1e9);
		for (k = 0; k < NK; k++)
			if (s->g[i].limit[k] != TG_UNLIMITED)
				printf("  limit %s %.4f", kname[k], s->g[i].limit[k] / 1e9);
		printf("\n");
	}
}

/*
 * The per-kind coupling family (test_per_kind_coupling): each latency row
 * its own weighting of NVM traffic. The law's matrix assumes the NVM
 * latencies weigh NVM traffic twice what the DRAM latencies do (the media,
 * TG_BW_MEDIA_*), the base plant (scen_make) weighs it the same in every
 * row; here each NVM latency weighs it PK_NVM_LO to PK_NVM_HI times (the
 * law's 2 within a factor of 2 either way), each DRAM latency PK_DRAM_LO
 * to 1 times - on top of the base's per-entry 0.5-2. The base draws stay
 * as they are (a separate random stream), so a seed is the same scenario
 * with another coupling.
 *
 * Outside that envelope the law's fixed matrix misjudges who drives a
 * kind beyond what the fixed tolerances allow (tried: NVM latencies at
 * 2.5-6x, DRAM at 0.4-1x - seeds 77000126/77000154 cut DRAM readers at
 * 0.50 %/0.40 % of an NVM latency's rise, blamed by the channel row, and
 * 77001857 left a DRAM writer at 20.6 % of the DRAM write rise unblamed,
 * the NVM writers weighed ten times what that latency gives them). A law
 * that learned the coupling would widen it; this one is told its matrix.
 */
static int per_kind_coupling;
#define PK_ENVELOPE	2.0	/* the law's per-kind weights within this factor */
#define PK_NVM_LO	(2.0 / PK_ENVELOPE)
#define PK_NVM_HI	(2.0 * PK_ENVELOPE)
#define PK_DRAM_LO	(1.0 / PK_ENVELOPE)
/*
 * The family's tolerances: the shares the law misjudges by up to
 * PK_ENVELOPE more than in the base plant, so a group is negligible under
 * NEGL_SHARE / PK_ENVELOPE (seed 77001070 at 2x: a DRAM reader cut by
 * MBA, blamed by the channel row, at 0.47 % of an NVM latency's rise).
 */
#define NEGL_SHARE_PK	(NEGL_SHARE / PK_ENVELOPE)

static void per_kind_rows(struct scen *s)
{
	u64 keep = rng_state;
	int j, k;

	rng_state = s->seed ^ 0x5eed5eed5eedull;
	for (k = 0; k < NK; k++) {
		double m = k == TG_NVM_READ || k == TG_NVM_WRITE ? unif(PK_NVM_LO, PK_NVM_HI)
								 : unif(PK_DRAM_LO, 1);

		for (j = TG_NVM_READ; j <= TG_NVM_WRITE; j++)
			s->C[k][j] *= m;
	}
	rng_state = keep;
}

static void scen_make(struct scen *s, u64 seed)
{
	static const double w[NK] = { 1, 1.5, 3, 10 };	/* NVM writes weigh most */
	static const double l0[NK][2] = { { 80, 100 }, { 90, 130 }, { 250, 350 }, { 400, 600 } };
	struct knobs kn;
	struct pstate p;
	double a[NK], rise = 0, want;
	int i, j, k, nl;

	memset(s, 0, sizeof(*s));
	s->seed = seed;
	rng_state = seed;
	s->nh = irand(1, 8);
	nl = irand(1, 8);
	s->n = s->nh + nl;
	s->lag = irand(1, LAGMAX);
	s->low_pct = (u32)irand(50, 99);
	s->mba_shape = irand(0, 2);
	s->mba_a = unif(0, 1);
	s->knee = unif(0.3, 0.9);
	for (k = 0; k < NK; k++) {
		s->L0[k] = unif(l0[k][0], l0[k][1]);
		a[k] = unif(0.02, 0.15);		/* rise per weighted GB/s */
		for (j = 0; j < NK; j++)
			s->C[k][j] = s->L0[k] * a[k] * w[j] * unif(0.5, 2);
		/*
		 * a victim loses 5-10 % there; whole ns as the detector sees them
		 * (under thr + 1, so at most L0 x 1.1)
		 */
		s->thr[k] = (double)((u64)(s->L0[k] * (1 + unif(0.055, 0.1))) - 1);
	}
	if (per_kind_coupling)
		per_kind_rows(s);
	for (i = 0; i < s->n; i++) {
		struct pgroup *g = &s->g[i];
		int cls = i < s->nh ? 3 : irand(0, 2);	/* small, medium, noisy; high */
		static const double mag[4][2] = { { 1e6, 5e7 }, { 5e7, 5e8 }, { 5e8, 8e9 }, { 1e7, 1e9 } };

		g->high = i < s->nh;
		g->cpu_us = PERIOD_US * unif(0.2, cls == 2 ? 2.0 : 1.0);
		for (k = 0; k < NK; k++) {
			g->limit[k] = TG_UNLIMITED;
			if (rnd() & 1)
				g->d[k] = unif(mag[cls][0], mag[cls][1]);
		}
		if (!(g->d[0] + g->d[1] + g->d[2] + g->d[3]))
			g->d[irand(0, NK - 1)] = unif(mag[cls][0], mag[cls][1]);
	}
	/* measurement noise in two scenarios of three */
	s->noise = irand(0, 2) ? unif(0, NOISE_MAX) : 0;
	/* high priority alone: a random fraction of the threshold's rise */
	want = unif(0, 1.1);
	for (j = 0; j < 8; j++) {
		knobs_free(s, &kn);
		for (i = 0; i < s->n; i++)
			kn.absent[i] = !s->g[i].high;
		plant_solve(s, &kn, &p);
		rise = 0;
		for (k = 0; k < NK; k++) {
			double r = (p.L[k] - s->L0[k]) / (s->thr[k] - s->L0[k]);

			if (r > rise)
				rise = r;
		}
		if (rise <= 0)
			break;
		for (i = 0; i < s->nh; i++)
			for (k = 0; k < NK; k++)
				s->g[i].d[k] *= want / rise;
	}
	/* a victim's kind is traffic the law can see (>= 100 KB/s), not a residue */
	for (i = 0; i < s->nh; i++)
		for (k = 0; k < NK; k++)
			if (s->g[i].d[k] > 0 && s->g[i].d[k] < 1e5)
				s->g[i].d[k] = 1e5;
	/* limits on about one group in four, under what it makes unthrottled */
	knobs_free(s, &kn);
	plant_solve(s, &kn, &p);
	for (i = 0; i < s->n; i++)
		if (irand(0, 3) == 0) {
			k = irand(0, NK - 1);
			if (p.b[i][k] > 2e7)
				s->g[i].limit[k] = (u64)(p.b[i][k] * unif(0.3, 0.9));
		}
}

/* ---- the closed loop ------------------------------------------------------------ */

struct loop {
	const struct scen *s;
	struct tg_reg_cfg cfg;
	struct tg_detector_cfg dcfg;
	struct tg_detector det;
	struct tg_regulator reg;
	struct tg_reg_group g[MAXG];
	struct tg_bw avg[MAXG];
	u64 usage_avg[MAXG];
	struct pstate ring[RING];
	struct pstate now;
	long t;
	long last_cut;			/* period of the last remedial cut */
	double lim_sum[MAXG][NK];	/* traffic over the current LIMIT_WINDOW */
	int lim_n;			/* periods in it */
	struct tg_throttle rem_was[MAXG];	/* remedial throttle, last period */
	long rem_tight[MAXG];		/* period of its last remedial tightening */
	long blip_every, blip_from;	/* one-period latency blips (detector input) */
	int absent[MAXG];		/* no tasks yet (or any more) */
	u64 noise_state;		/* the noise's own random stream */
};

static void loop_init(struct loop *l, const struct scen *s)
{
	int i, k;

	memset(l, 0, sizeof(*l));
	l->s = s;
	tg_reg_cfg_default(&l->cfg, PERIOD_US, NCPU);
	if (getenv("TG_PLANT_LAW"))	/* the remedial law (cfg law), default the shipped one */
		l->cfg.law = (u32)atoi(getenv("TG_PLANT_LAW"));
	tg_detector_cfg_default(&l->dcfg);
	for (k = 0; k < NK; k++)
		l->dcfg.threshold_ns[k] = (u64)s->thr[k];
	l->dcfg.low_pct = s->low_pct;
	tg_detector_init(&l->det);
	tg_regulator_init(&l->reg);
	for (i = 0; i < s->n; i++)
		tg_reg_group_init(&l->g[i], &l->cfg);
	for (k = 0; k < NK; k++)
		l->now.L[k] = s->L0[k];
	l->last_cut = -1000;
	l->noise_state = s->seed ^ 0x6e6f697365ull;
	for (i = 0; i < s->n; i++) {
		l->rem_was[i] = l->g[i].rem;
		l->rem_tight[i] = -1000;
	}
}

static void loop_knobs(const struct loop *l, struct knobs *kn)
{
	int i;

	for (i = 0; i < l->s->n; i++) {
		/* as the module's loop picks it (no pin here) */
		u64 q = tg_quota_pick(l->g[i].out.quota_us, 0, l->cfg.enabled,
				      l->s->g[i].high ? TG_PRIO_HIGH : TG_PRIO_LOW);

		kn->absent[i] = l->absent[i];
		kn->mba[i] = l->g[i].out.mba;
		kn->frac[i] = q == TG_QUOTA_UNLIMITED || q >= l->s->g[i].cpu_us ? 1.0 :
			      q / l->s->g[i].cpu_us;
	}
}

/* a factor 1 +- the scenario's noise, from the loop's own stream */
static double noisy(struct loop *l)
{
	u64 z = (l->noise_state += 0x9e3779b97f4a7c15ull);

	if (!l->s->noise)
		return 1;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return 1 + l->s->noise * (2.0 * (double)(z >> 11) / (double)(1ull << 53) - 1);
}

/* one period: the plant under the outputs, the regulator on what it sees */
static void loop_step(struct loop *l)
{
	const struct scen *s = l->s;
	const struct pstate *seen;
	struct tg_latency_in lat = { .present = TG_LAT_UNCORE | TG_LAT_PROBE };
	static struct pstate nz;
	struct knobs kn;
	int i, k;

	loop_knobs(l, &kn);
	plant_step(s, &kn, &l->now);
	l->ring[l->t % RING] = l->now;
	seen = &l->ring[(l->t >= s->lag ? l->t - s->lag : 0) % RING];
	if (s->noise) {
		nz = *seen;
		for (k = 0; k < NK; k++)
			nz.L[k] *= noisy(l);
		for (i = 0; i < s->n; i++)
			for (k = 0; k < NK; k++)
				nz.b[i][k] *= noisy(l);
		seen = &nz;
	}
	for (i = 0; i < s->n; i++) {
		struct tg_reg_group *g = &l->g[i];

		for (k = 0; k < NK; k++) {
			l->avg[i].v[k] = tg_ewma(l->avg[i].v[k], (u64)seen->b[i][k]);
			g->bps_now.v[k] = (u64)seen->b[i][k];
		}
		l->usage_avg[i] = tg_ewma(l->usage_avg[i], (u64)seen->usage[i]);
		g->cpu_now_us = (u64)seen->usage[i];
		g->active = !l->absent[i];
		g->priority = s->g[i].high ? TG_PRIO_HIGH : TG_PRIO_LOW;
		tg_limits_init(&g->limits);
		for (k = 0; k < NK; k++)
			g->limits.bps[k] = s->g[i].limit[k];
		g->bps = l->avg[i];
		g->cpu_usage_us = l->usage_avg[i];
	}
	/* a one-period blip: every kind seen at twice its threshold */
	if (l->blip_every && l->t >= l->blip_from && (l->t - l->blip_from) % l->blip_every == 0) {
		static struct pstate b;

		b = *seen;
		for (k = 0; k < NK; k++)
			b.L[k] = 2 * s->thr[k];
		seen = &b;
	}
	/* read latency by Little's law at 2 GHz, 100000 inserts; writes probed */
	lat.uncore_khz = 2000000;
	lat.dram_rpq_inserts = lat.nvm_rpq_inserts = 100000;
	lat.dram_rpq_occupancy = (u64)(seen->L[TG_DRAM_READ] * 2 * 100000);
	lat.nvm_rpq_occupancy = (u64)(seen->L[TG_NVM_READ] * 2 * 100000);
	lat.dram_write_ns = (u64)seen->L[TG_DRAM_WRITE];
	lat.nvm_write_ns = (u64)seen->L[TG_NVM_WRITE];
	tg_detect(&l->det, &l->dcfg, &lat);
	tg_regulate(&l->reg, &l->cfg, &l->det, l->g, (u32)s->n);
	if (getenv("TG_PLANT_TRACE"))
		for (i = 0; i < s->n; i++) {
			const struct tg_reg_group *g = &l->g[i];

			if (g->last.action == TG_ACT_NONE)
				continue;
			printf("t=%ld L %.1f %.1f %.1f %.1f over %#x state %d: g%d %s %s %s -> mba %u quota %llu (rem %u %llu x %u bad %u uref %llu)\n",
			       l->t, seen->L[0], seen->L[1], seen->L[2], seen->L[3], l->det.over,
			       l->det.state, i, tg_action_name(g->last.action),
			       tg_mech_name(g->last.mech), tg_reason_name(g->last.why), g->out.mba,
			       (unsigned long long)g->out.quota_us, g->rem.mba,
			       (unsigned long long)g->rem.quota_us, g->x, g->x_bad,
			       (unsigned long long)g->u_ref);
		}
	l->t++;
}

static int same_tg(const struct tg_throttle *a, const struct tg_throttle *b)
{
	return a->mba == b->mba && a->quota_us == b->quota_us;
}

static int unthrottled(const struct tg_throttle *t)
{
	return t->mba == 100 && t->quota_us == TG_QUOTA_UNLIMITED;
}

/*
 * No limit cycle (issue 11): under constant demand, once settled, no
 * throttle moves by more than one step in STILL_WINDOW periods. A held
 * group probes (docs/control-law.md: one relax step, undone if it
 * relapses) at most once per hold time, and the shortest hold is
 * STILL_WINDOW. So in a window
 *   - the remedial throttle leaves where it was at most once, and never by
 *     more than one step of each mechanism (MBA by mba_step, the quota by
 *     a factor 1.25): a probe, or one last cut;
 *   - the effective throttle (the tighter of both policies) does the same,
 *     with one exception: a limit's direct answer to a probe. After the
 *     remedial throttle loosened by its probe step, the preventive policy
 *     may cut once (any size: proportional) and then relax back, one step
 *     at a time, every move loosening towards the base, at most
 *     ANSWER_MOVES moves in all, and it must be back at the base - within
 *     the window or within ANSWER_TAIL periods after it. Anything else -
 *     a preventive cut without a probe, two cuts, a relax past the base,
 *     a relax step bigger than one step - is a cycle.
 */
#define ANSWER_MOVES	12
#define ANSWER_TAIL	400
/* still_broken(): a limit's answer on its way back, watch on */
static const char ANSWER_PENDING[] = "a limit's answer to a probe not back at its base";
#define MAXMOVES	64

struct moves {
	int n;
	struct tg_throttle base;	/* at the start of the window */
	long t[MAXMOVES];
	struct tg_throttle from[MAXMOVES], to[MAXMOVES];
	int by_rem[MAXMOVES];		/* the remedial throttle moved in that period */
};

/* a group's remedial and effective throttle over one window */
struct still {
	struct moves rem, out;
};

static void moves_start(struct moves *m, const struct tg_throttle *base)
{
	memset(m, 0, sizeof(*m));
	m->base = *base;
}

static void moves_note(struct moves *m, long t, const struct tg_throttle *from,
		       const struct tg_throttle *to, int by_rem)
{
	if (same_tg(from, to) || m->n >= MAXMOVES)
		return;
	m->t[m->n] = t;
	m->from[m->n] = *from;
	m->to[m->n] = *to;
	m->by_rem[m->n] = by_rem;
	m->n++;
}

static void still_start(struct still *w, const struct tg_reg_group *g)
{
	moves_start(&w->rem, &g->rem);
	moves_start(&w->out, &g->out);
}

/* one period of group g: rem and out were its throttles before it */
static void still_note(struct still *w, long t, const struct tg_throttle *rem,
		       const struct tg_throttle *out, const struct tg_reg_group *g)
{
	int by_rem = !same_tg(rem, &g->rem);

	moves_note(&w->rem, t, rem, &g->rem, 1);
	moves_note(&w->out, t, out, &g->out, by_rem);
}

/*
 * b within one step of a: MBA by at most 10, the quota by at most 1.25x;
 * or MBA one level and the quota the other way with their product (MBA x
 * the quota's share of the cap) within 1.25x (the law's DRAM ladder
 * crossing an MBA level: the level for the coarse part, the quota for
 * the rest - one step of their joint allowance)
 */
static int one_step(const struct tg_throttle *a, const struct tg_throttle *b, u64 cap)
{
	u64 lo = a->quota_us < b->quota_us ? a->quota_us : b->quota_us;
	u64 hi = a->quota_us < b->quota_us ? b->quota_us : a->quota_us;

	if (a->mba > b->mba + 10 || b->mba > a->mba + 10)
		return 0;
	if ((b->mba > a->mba && b->quota_us < a->quota_us) ||
	    (b->mba < a->mba && b->quota_us > a->quota_us)) {
		/* the joint allowance: MBA level x the quota's share of the cap */
		double pa = a->mba * (double)(a->quota_us < cap ? a->quota_us : cap);
		double pb = b->mba * (double)(b->quota_us < cap ? b->quota_us : cap);

		return pa <= pb * 1.25 && pb <= pa * 1.25;
	}
	if (hi == TG_QUOTA_UNLIMITED)
		return lo == hi || lo * 125 / 100 + 1 >= cap;
	return hi <= lo * 125 / 100 + 1;
}

/* the remedial throttle: -1 if still; else the index of the move that breaks it */
static int moves_cycle(const struct moves *m, u64 cap)
{
	int i, away = 0, left = 0;

	for (i = 0; i < m->n; i++) {
		if (!one_step(&m->base, &m->to[i], cap))
			return i;
		if (!away && !same_tg(&m->to[i], &m->base) && ++left > 1)
			return i;
		away = !same_tg(&m->to[i], &m->base);
	}
	return -1;
}

/* q moved towards base by at most one step (quota x1.25, MBA +10) */
static int step_back(const struct tg_throttle *from, const struct tg_throttle *to,
		     const struct tg_throttle *base, u64 cap)
{
	if (to->mba < from->mba || to->quota_us < from->quota_us)
		return 0;		/* not a relax */
	if (to->mba > base->mba || to->quota_us > base->quota_us)
		return 0;		/* past the base */
	return one_step(from, to, cap);
}

/*
 * the effective throttle: -1 if still; -2 if a limit's answer to a probe
 * is still on its way back to the base (more periods needed); else the
 * index of the move that breaks it
 */
static int moves_answer(const struct moves *m, u64 cap)
{
	int i, probe = 0, cut = -1;

	if (moves_cycle(m, cap) < 0)
		return -1;		/* at most one step away, once */
	if (m->n > ANSWER_MOVES)
		return ANSWER_MOVES;
	for (i = 0; i < m->n; i++) {
		const struct tg_throttle *f = &m->from[i], *t = &m->to[i];
		int loosen = t->mba >= f->mba && t->quota_us >= f->quota_us;

		if (m->by_rem[i]) {
			/* the probe and its undo: one step, before the answer */
			if (cut >= 0 || !one_step(f, t, cap))
				return i;
			probe |= loosen;
			continue;
		}
		if (!loosen) {
			if (!probe || cut >= 0)
				return i;	/* no probe to answer, or a second cut */
			cut = i;
			continue;
		}
		if (cut < 0 || !step_back(f, t, &m->base, cap))
			return i;
	}
	if (cut < 0)
		return moves_cycle(m, cap);
	return same_tg(&m->to[m->n - 1], &m->base) ? -1 : -2;
}

/* every change tightens: still converging, not cycling */
static int moves_tighten(const struct moves *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->to[i].mba > m->from[i].mba || m->to[i].quota_us > m->from[i].quota_us)
			return 0;
	return 1;
}

static int still_tighten(const struct still *w)
{
	return moves_tighten(&w->rem) && moves_tighten(&w->out);
}

/* every change loosens */
static int moves_loosen(const struct moves *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->to[i].mba < m->from[i].mba || m->to[i].quota_us < m->from[i].quota_us)
			return 0;
	return 1;
}

/*
 * Still converging: every change tightens (cuts one after the other) -
 * or, under the block-mean law, every change loosens: its search steps
 * once per block (a dead time and TG_BLOCK_MULT more), and a search still
 * climbing to its level is no cycle either (item 4's bound, one change a
 * second, is still held: checked in the windows after it)
 */
static int still_converging(const struct loop *l, const struct still *w)
{
	return still_tighten(w) ||
	       (l->cfg.law == TG_LAW_MEAN && moves_loosen(&w->rem) && moves_loosen(&w->out));
}

/*
 * NULL if the window was still; else what broke it, its first moves
 * (static buffer)
 */
static const char *still_broken(const struct still *w, u64 cap)
{
	static char buf[512];
	const struct moves *m = &w->rem;
	int bad = moves_cycle(m, cap), i, n = 0;
	const char *what = "remedial throttle left its level twice or by more than a step";

	if (bad < 0) {
		m = &w->out;
		bad = moves_answer(m, cap);
		what = "effective throttle: more than one step, not a limit's answer to a probe";
		if (bad == -2)
			return ANSWER_PENDING;
	}
	if (bad < 0)
		return NULL;
	n = snprintf(buf, sizeof(buf), "%s (%d moves):", what, m->n);
	for (i = 0; i < m->n && i <= bad && i < 4 && n < (int)sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " mba %u->%u quota %llu->%llu at %ld;",
			      m->from[i].mba, m->to[i].mba,
			      (unsigned long long)m->from[i].quota_us,
			      (unsigned long long)m->to[i].quota_us, m->t[i]);
	return buf;
}

/* a group's throttles at period t, for the still check's own test */
struct tstate {
	long t;
	u32 rm;
	u64 rq;
	u32 om;
	u64 oq;
};

#define UNL	TG_QUOTA_UNLIMITED

/* the still check over a sequence of states (the first is the base) */
static const char *still_of(const struct tstate *seq, int n)
{
	static struct still w;
	struct tg_reg_group g;
	struct tg_throttle rem, out;
	int i;

	memset(&g, 0, sizeof(g));
	for (i = 0; i < n; i++) {
		rem = g.rem;
		out = g.out;
		g.rem = (struct tg_throttle){ seq[i].rm, seq[i].rq };
		g.out = (struct tg_throttle){ seq[i].om, seq[i].oq };
		if (i)
			still_note(&w, seq[i].t, &rem, &out, &g);
		else
			still_start(&w, &g);
	}
	return still_broken(&w, PERIOD_US * NCPU);
}

/*
 * The still check itself: the probe of a group held by a limit, answered
 * by one cut and its relaxes back to the base (seed 7778369 in round 3) is
 * still; the same answer not yet back is pending; the issue's limit cycle,
 * a second probe, preventive cycles (exact and inexact, round 3's review),
 * a big preventive cut/relax cycle without a probe, a probe answered twice,
 * an answer relaxing past its base, and relax steps still converging after
 * a probe before the window (932154 in round 3: no probe to answer in the
 * window) are not.
 */
static void test_still_check(void **state)
{
	static const struct tstate probe_limit[] = {
		{ 0, 10, UNL, 10, UNL }, { 51, 20, UNL, 20, UNL }, { 55, 10, UNL, 10, UNL },
		{ 56, 10, UNL, 10, 5799 }, { 63, 10, UNL, 10, 7236 }, { 83, 10, UNL, 10, 9045 },
		{ 103, 10, UNL, 10, 11306 }, { 123, 10, UNL, 10, 14132 },
		{ 143, 10, UNL, 10, 17665 }, { 163, 10, UNL, 10, UNL },
	}, probe_limit_pending[] = {
		{ 0, 10, UNL, 10, UNL }, { 51, 20, UNL, 20, UNL }, { 55, 10, UNL, 10, UNL },
		{ 56, 10, UNL, 10, 5799 }, { 63, 10, UNL, 10, 7236 }, { 83, 10, UNL, 10, 9045 },
	}, past_base[] = {
		{ 0, 10, UNL, 10, 9000 }, { 51, 20, UNL, 20, 9000 }, { 56, 20, UNL, 20, 5799 },
		{ 63, 20, UNL, 20, 7236 }, { 83, 20, UNL, 20, 9045 },
	}, converging[] = {
		{ 0, 30, UNL, 30, 10122 }, { 16, 30, UNL, 30, 10840 }, { 36, 30, UNL, 30, 11593 },
		{ 56, 30, UNL, 30, 12397 }, { 76, 30, UNL, 30, 13257 }, { 96, 30, UNL, 30, 14176 },
		{ 116, 30, UNL, 30, 15159 }, { 136, 30, UNL, 30, 16210 },
		{ 156, 30, UNL, 30, 17334 }, { 176, 30, UNL, 30, 18536 },
		{ 196, 30, UNL, 30, 19822 },
	}, issue_cycle[] = {
		{ 0, 10, 2110, 10, 2110 }, { 20, 10, 4120, 10, 4120 }, { 40, 10, 15713, 10, 15713 },
		{ 60, 10, UNL, 10, UNL }, { 80, 10, 3505, 10, 3505 },
	}, two_probes[] = {
		{ 0, 10, UNL, 10, UNL }, { 10, 20, UNL, 20, UNL }, { 20, 10, UNL, 10, UNL },
		{ 110, 20, UNL, 20, UNL }, { 120, 10, UNL, 10, UNL },
	}, prev_cycle[] = {
		{ 0, 100, UNL, 100, 5000 }, { 30, 100, UNL, 100, 3000 },
		{ 60, 100, UNL, 100, 5000 }, { 90, 100, UNL, 100, 3000 },
	}, prev_cycle_inexact[] = {
		{ 0, 100, UNL, 100, 5000 }, { 20, 100, UNL, 100, 3000 }, { 40, 100, UNL, 100, 3750 },
		{ 60, 100, UNL, 100, 4687 }, { 70, 100, UNL, 100, 5858 }, { 80, 100, UNL, 100, 3010 },
		{ 100, 100, UNL, 100, 3762 }, { 120, 100, UNL, 100, 4702 }, { 130, 100, UNL, 100, 5877 },
		{ 140, 100, UNL, 100, 2990 }, { 160, 100, UNL, 100, 3737 }, { 180, 100, UNL, 100, 4671 },
		{ 190, 100, UNL, 100, 5838 },
	}, prev_big[] = {
		{ 0, 100, UNL, 100, UNL }, { 10, 100, UNL, 100, 100 }, { 50, 100, UNL, 100, 19000 },
		{ 60, 100, UNL, 100, 100 }, { 100, 100, UNL, 100, 19000 }, { 110, 100, UNL, 100, 100 },
		{ 150, 100, UNL, 100, 19000 },
	}, probe_two_answers[] = {
		{ 0, 10, UNL, 10, UNL }, { 51, 20, UNL, 20, UNL }, { 55, 10, UNL, 10, UNL },
		{ 56, 10, UNL, 10, 5799 }, { 90, 10, UNL, 10, UNL }, { 120, 10, UNL, 10, 5799 },
	};

	(void)state;
	assert_null(still_of(probe_limit, ARRAY_SIZE(probe_limit)));
	assert_ptr_equal(still_of(probe_limit_pending, ARRAY_SIZE(probe_limit_pending)),
			 ANSWER_PENDING);
	assert_non_null(still_of(past_base, ARRAY_SIZE(past_base)));
	assert_ptr_not_equal(still_of(past_base, ARRAY_SIZE(past_base)), ANSWER_PENDING);
#define REJECTED(seq) do {						\
	const char *b_ = still_of(seq, ARRAY_SIZE(seq));		\
	assert_non_null(b_);						\
	assert_ptr_not_equal(b_, ANSWER_PENDING);			\
} while (0)
	REJECTED(converging);
	REJECTED(issue_cycle);
	REJECTED(two_probes);
	REJECTED(prev_cycle);
	REJECTED(prev_cycle_inexact);
	REJECTED(prev_big);
	REJECTED(probe_two_answers);
#undef REJECTED
}

/* ---- what the law may achieve: the blame closure ------------------------------ */

/*
 * Low-priority groups go to their floors, a little at a time, as long as
 * they make at least ACHIEVE_SHARE of a kind over by the plant's true
 * coupling (and are above the noise floor). Returns whether every kind is
 * then under its threshold with ACHIEVE_MARGIN to spare, i.e. whether
 * throttling the low-priority groups that matter can protect the victims.
 */
static int achievable(const struct scen *s, const struct loop *l)
{
	double qmin = (double)l->reg.quota_min;
	struct knobs kn;
	struct pstate p;
	int i, k, it, moved = 1;

	knobs_free(s, &kn);
	plant_solve(s, &kn, &p);
	for (it = 0; it < 400 && moved; it++) {
		u32 over = 0;

		plant_settle(s, &kn, &p, 1);
		for (k = 0; k < NK; k++)
			if (prot(s, k) && p.L[k] - s->L0[k] > (s->thr[k] - s->L0[k]) * ACHIEVE_MARGIN)
				over |= 1u << k;
		moved = 0;
		for (i = s->nh; i < s->n; i++) {
			double fmin = qmin / s->g[i].cpu_us;

			if (true_share(s, &p, i, over) < ACHIEVE_SHARE ||
			    total_bps(&p, i) < l->cfg.noise_floor_bps)
				continue;
			if (kn.mba[i] > l->cfg.mba_min && (s->g[i].d[0] || s->g[i].d[1])) {
				kn.mba[i] -= l->cfg.mba_step;
				moved = 1;
			} else if (kn.frac[i] > fmin) {
				kn.frac[i] = kn.frac[i] * 0.9 < fmin ? fmin : kn.frac[i] * 0.9;
				moved = 1;
			}
		}
	}
	plant_solve(s, &kn, &p);
	for (k = 0; k < NK; k++)
		if (prot(s, k) && p.L[k] - s->L0[k] > (s->thr[k] - s->L0[k]) * ACHIEVE_MARGIN)
			return 0;
	return 1;
}

/* a victim's throughput alone on the machine */
static double solo(const struct scen *s, int v)
{
	struct knobs kn;
	struct pstate p;
	int i;

	knobs_free(s, &kn);
	for (i = 0; i < s->n; i++)
		kn.absent[i] = i != v;
	plant_solve(s, &kn, &p);
	return total_bps(&p, v);
}

/* ---- the oracle references ---------------------------------------------------- */

/*
 * Issue 20's yardstick, computed here from the plant (the test knows it;
 * the law never does): the oracle rate - the most traffic the low-priority
 * groups make, every one at the same CPU share f, with every latency under
 * its threshold - and the oracle controller, which cuts every low-priority
 * group to f at the first period it sees a latency over.
 */
struct oracle {
	int na;			/* high priority alone is over: no rate helps */
	int floor_limited;	/* at their quota floors they still keep it over */
	int res_limited;	/* WC_MIN of the share moves no binding latency 1 ns */
	double f;		/* the CPU share of every low-priority group */
	double rate;		/* their traffic there, B/s */
	double half;		/* resolution-limited: the rate at the threshold + 1/2 ns */
	double vic[MAXG];	/* every group's throughput there */
};

static int under_all(const struct scen *s, const struct pstate *p)
{
	int k;

	for (k = 0; k < NK; k++)
		if (is_over(s, p, k))
			return 0;
	return 1;
}

/*
 * every kind back within BACK_TOL of its allowed rise over its threshold,
 * or OVER_TOL of the threshold if that is more (the victim's one point),
 * or the detector's 1 ns
 */
static int back_all(const struct scen *s, const struct pstate *p)
{
	int k;

	for (k = 0; k < NK; k++) {
		double tol = BACK_TOL * (s->thr[k] - s->L0[k]);

		if (tol < OVER_TOL * s->thr[k])
			tol = OVER_TOL * s->thr[k];
		if (tol < 1)
			tol = 1;	/* the detector's resolution */
		if (prot(s, k) && (double)(u64)p->L[k] > s->thr[k] + tol)	/* as is_over() */
			return 0;
	}
	return 1;
}

/* low-priority groups at CPU share f, each at least fmin[i] if given */
static void oracle_knobs(const struct scen *s, double f, const double *fmin, struct knobs *kn)
{
	int i;

	knobs_free(s, kn);
	for (i = s->nh; i < s->n; i++)
		kn->frac[i] = fmin && f < fmin[i] ? fmin[i] : f;
}

/*
 * Resolution-limited: the latencies that bind at the oracle's share f
 * (within the detector's 1 ns of their threshold there) move by less than
 * that 1 ns between WC_MIN x f and f. The detector reads whole ns; the law
 * cannot tell those levels apart but by the measurement noise, and its
 * setpoint band is that 1 ns under the threshold (TG_BAND_DIV). Their work
 * conservation is judged against the rate at the threshold + 1/2 ns
 * (oracle_half()), the victims and the reaction against the oracle's own
 * point; counted apart, and against the oracle's rate too
 * (docs/control-law.md, "Verification", "An arrival on its first reading").
 */
static int res_limited(const struct scen *s, double f)
{
	struct knobs kn;
	struct pstate at, under;
	int k, bind = 0;

	oracle_knobs(s, f, NULL, &kn);
	plant_solve(s, &kn, &at);
	oracle_knobs(s, WC_MIN * f, NULL, &kn);
	plant_solve(s, &kn, &under);
	for (k = 0; k < NK; k++) {
		if (!prot(s, k) || at.L[k] < s->thr[k] - 1)
			continue;
		bind = 1;
		if (at.L[k] - under.L[k] >= 1)
			return 0;
	}
	return bind;
}

/*
 * The largest share f at which every protected latency is at most its
 * threshold + 1/2 ns (noise-free): what a law judged on the mean of the
 * detector's whole-ns readings, which truncate, can tell from the
 * threshold + 1 ns the oracle is allowed (is_over()) - by the noise alone.
 */
static double oracle_half(const struct scen *s, double hi)
{
	double lo = 0;
	struct knobs kn;
	struct pstate p;
	int it, k, ok;

	for (it = 0; it < 40; it++) {
		double m = (lo + hi) / 2;

		oracle_knobs(s, m, NULL, &kn);
		plant_solve(s, &kn, &p);
		for (k = 0, ok = 1; k < NK; k++)
			if (prot(s, k) && p.L[k] > s->thr[k] + 0.5)
				ok = 0;
		if (ok)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

static void oracle_find(const struct scen *s, double qmin, struct oracle *o)
{
	double lo = 0, hi = 1, fmin[MAXG] = { 0 };
	struct knobs kn;
	struct pstate p;
	int i, it;

	memset(o, 0, sizeof(*o));
	oracle_knobs(s, 0, NULL, &kn);
	plant_solve(s, &kn, &p);
	if (!under_all(s, &p)) {
		o->na = 1;
		return;
	}
	oracle_knobs(s, 1, NULL, &kn);
	plant_solve(s, &kn, &p);
	if (under_all(s, &p)) {
		lo = 1;
	} else {
		for (it = 0; it < 40; it++) {
			double m = (lo + hi) / 2;

			oracle_knobs(s, m, NULL, &kn);
			plant_solve(s, &kn, &p);
			if (under_all(s, &p))
				lo = m;
			else
				hi = m;
		}
	}
	o->f = lo;
	oracle_knobs(s, lo, NULL, &kn);
	plant_solve(s, &kn, &p);
	for (i = 0; i < s->n; i++) {
		o->vic[i] = total_bps(&p, i);
		if (i >= s->nh)
			o->rate += o->vic[i];
		fmin[i] = qmin / s->g[i].cpu_us < 1 ? qmin / s->g[i].cpu_us : 1;
	}
	oracle_knobs(s, lo, fmin, &kn);
	plant_solve(s, &kn, &p);
	o->floor_limited = !under_all(s, &p);
	o->res_limited = lo < 1 && res_limited(s, lo);
	if (o->res_limited) {
		double h = oracle_half(s, lo);

		oracle_knobs(s, h, NULL, &kn);
		plant_solve(s, &kn, &p);
		for (i = s->nh; i < s->n; i++)
			o->half += total_bps(&p, i);
	}
}

/*
 * The oracle controller from the neighbours' arrival (the plant at `at`):
 * periods until every latency is back (back_all()) after the first
 * excursion out of it; it cuts to o->f at the first period it sees one
 * over, lag periods late as the law. -1 if nothing goes out.
 */
static long oracle_reaction(const struct scen *s, const struct pstate *at, double f)
{
	static struct pstate ring[RING];
	struct pstate now = *at;
	struct knobs kn;
	int out = 0, cut = 0;
	long t;

	knobs_free(s, &kn);
	for (t = 0; t < RING; t++)
		ring[t] = *at;
	for (t = 0; t < 5000; t++) {
		plant_step(s, &kn, &now);
		ring[t % RING] = now;
		if (!cut && !under_all(s, t >= s->lag ? &ring[(t - s->lag) % RING] : at)) {
			oracle_knobs(s, f, NULL, &kn);
			cut = 1;
		}
		if (!back_all(s, &now))
			out = 1;
		else if (out)
			return t + 1;
	}
	return out ? 5000 : -1;
}

/* ---- one scenario, every assertion --------------------------------------------- */

struct stats {
	long scenarios, achievable, victims_checked, release_checked, release_na;
	long cuts, relapses, max_release, max_settle, extended, still_over, held, answers;
	double min_share;		/* smallest true share of a cut (0: none yet) */
	long wc_floor, quiet_checked, quiet_max;
	long limit_windows;		/* limited kinds' 100 ms windows checked */
	/* against the oracle, [0] several low-priority groups, [1] one */
	struct wc {
		long n, under, victim_under, react_n, react_over, res, res_under, res_half;
		double min, sum, react_max, react_sum;
	} wc[2];
};

/*
 * A test's scenario (sc, filled by scen_make() or hand_scen() and the
 * test) and its loop (lp), as s and l for SCEN_FAIL. Static: they are
 * large.
 */
#define FIXTURE(s, l)							\
	static struct scen sc;						\
	static struct loop lp;						\
	const struct scen *s = &sc;					\
	struct loop *l = &lp

#define SCEN_FAIL(...) do {						\
	scen_print(s);							\
	printf("FAILED at period %ld: ", l->t);				\
	printf(__VA_ARGS__);						\
	printf("\n(rerun: TG_PLANT_%sSEED=%llu TG_PLANT_%sN=1)\n",	\
	       per_kind_coupling ? "PK_" : "", (unsigned long long)s->seed, \
	       per_kind_coupling ? "PK_" : "");				\
	fail_msg("randomized plant: scenario seed %llu failed",		\
		 (unsigned long long)s->seed);				\
} while (0)

/*
 * TG_PLANT_SOFT=1 (a survey, not a test): the oracle and stillness
 * checks print "SOFT seed ..." and go on, so a sweep shows every scenario
 * that misses them; the run fails at its end if any did.
 */
static long soft_misses;

#define SCEN_SOFT(...) do {						\
	if (getenv("TG_PLANT_SOFT")) {					\
		printf("SOFT seed %llu (%d low, lag %d, noise %.4f): ",	\
		       (unsigned long long)s->seed, s->n - s->nh, s->lag, s->noise); \
		printf(__VA_ARGS__);					\
		printf("\n");						\
		soft_misses++;						\
	} else {							\
		SCEN_FAIL(__VA_ARGS__);					\
	}								\
} while (0)

/* checks every period: high priority untouched, no blameless cut */
static void check_period(const struct scen *s, struct loop *l, struct stats *st)
{
	int i;

	for (i = 0; i < s->n; i++) {
		const struct tg_reg_group *g = &l->g[i];
		int limited = 0, k;

		for (k = 0; k < NK; k++)
			limited |= s->g[i].limit[k] != TG_UNLIMITED;
		if (s->g[i].high && (!unthrottled(&g->rem) || (!limited && !unthrottled(&g->out))))
			SCEN_FAIL("high-priority g%d throttled (mba %u quota %llu)", i, g->out.mba,
				  (unsigned long long)g->out.quota_us);
		if (g->last.policy == TG_POL_REMEDIAL && g->last.action == TG_ACT_THROTTLE) {
			/* its share of the protected kinds over (none: nothing to cut for) */
			double sh = true_share(s, &l->now, i, l->det.over & prot_mask(s));

			st->cuts++;
			if (!st->min_share || sh < st->min_share)
				st->min_share = sh;
			if (sh < (per_kind_coupling ? NEGL_SHARE_PK : NEGL_SHARE))
				SCEN_FAIL("g%d cut (%s) with a negligible share %.4f of the latency rise",
					  i, tg_reason_name(g->last.why), sh);
			/*
			 * dead time: a cut lag periods after the last one cannot
			 * have seen it (its inputs are lag periods old), one
			 * more and it has seen one period of it at most
			 */
			if (l->t != l->last_cut && l->t - l->last_cut <= s->lag + 1)
				SCEN_FAIL("g%d cut %ld periods after the last cut (lag %d)", i,
					  l->t - l->last_cut, s->lag);
			l->last_cut = l->t;
		}
		/*
		 * no preventive cut on rates that still show what a remedial
		 * cut or undo of the group removed (seed 7778369: a probe undone,
		 * then a quota cut on the probe's lagged traffic): it waits
		 * dead_periods after the remedial throttle tightened
		 */
		if (g->rem.mba < l->rem_was[i].mba || g->rem.quota_us < l->rem_was[i].quota_us)
			l->rem_tight[i] = l->t;
		l->rem_was[i] = g->rem;
		if (g->last.policy == TG_POL_PREVENTIVE && g->last.action == TG_ACT_THROTTLE &&
		    l->t - l->rem_tight[i] <= (long)l->cfg.dead_periods)
			SCEN_FAIL("g%d cut by its limit %ld periods after a remedial tightening (real traffic %.3f of its limit)",
				  i, l->t - l->rem_tight[i],
				  g->last.kind >= 0 ? l->now.b[i][g->last.kind] /
						      (double)s->g[i].limit[g->last.kind] : -1.0);
		if (g->last.action == TG_ACT_HOLD)
			st->relapses++;
	}
}

/* n periods of the loop, each checked */
static void run_periods(struct loop *l, struct stats *st, long n)
{
	long p;

	for (p = 0; p < n; p++) {
		loop_step(l);
		check_period(l->s, l, st);
	}
}

/* n periods, each checked; group g must stay untouched (what: why) */
static void run_untouched(struct loop *l, struct stats *st, long n, int g, const char *what)
{
	const struct scen *s = l->s;
	long p;

	for (p = 0; p < n; p++) {
		run_periods(l, st, 1);
		if (!unthrottled(&l->g[g].out))
			SCEN_FAIL("g%d throttled: %s", g, what);
	}
}

/*
 * a throttle as it acts on group i: a quota at or above the CPU time the
 * group wants, or than its preventive quota, limits nothing more
 */
static struct tg_throttle acting(const struct loop *l, int i, const struct tg_throttle *t)
{
	struct tg_throttle a = *t;
	double cap = l->s->g[i].cpu_us;

	if (l->g[i].prev.quota_us != TG_QUOTA_UNLIMITED && l->g[i].prev.quota_us < cap)
		cap = (double)l->g[i].prev.quota_us;
	if (a.quota_us != TG_QUOTA_UNLIMITED && (double)a.quota_us >= cap)
		a.quota_us = TG_QUOTA_UNLIMITED;
	return a;
}

/* the quota from which on group i's quota limits nothing (acting()) */
static u64 group_cap(const struct loop *l, int i)
{
	u64 c = (u64)l->s->g[i].cpu_us;

	if (l->g[i].prev.quota_us < c)
		c = l->g[i].prev.quota_us;
	return c < l->reg.quota_cap ? c : l->reg.quota_cap;
}

/*
 * Limits within LIMIT_TOL on every LIMIT_WINDOW periods' mean (100 ms), not
 * only at the end (issue 21, item 6): checked through the still windows.
 */
#define LIMIT_WINDOW	10

static void limit_window(struct loop *l, struct stats *st)
{
	const struct scen *s = l->s;
	int i, k;

	for (i = 0; i < s->n; i++)
		for (k = 0; k < NK; k++)
			l->lim_sum[i][k] += l->now.b[i][k];
	if (++l->lim_n < LIMIT_WINDOW)
		return;
	for (i = 0; i < s->n; i++)
		for (k = 0; k < NK; k++) {
			double m = l->lim_sum[i][k] / l->lim_n;

			l->lim_sum[i][k] = 0;
			if (s->g[i].limit[k] == TG_UNLIMITED)
				continue;
			st->limit_windows++;
			if (m > s->g[i].limit[k] * (1 + LIMIT_TOL))
				SCEN_FAIL("g%d %s at %.0f B/s over %d periods, over its limit %llu", i,
					  kname[k], m, LIMIT_WINDOW, (unsigned long long)s->g[i].limit[k]);
		}
	l->lim_n = 0;
}

/* n more periods of still windows w (started), every group's moves noted */
static void still_more(struct loop *l, struct stats *st, struct still *w, int n)
{
	struct tg_throttle rem[MAXG], out[MAXG];
	struct tg_reg_group g;
	int i, p;

	for (p = 0; p < n; p++) {
		for (i = 0; i < l->s->n; i++) {
			rem[i] = acting(l, i, &l->g[i].rem);
			out[i] = acting(l, i, &l->g[i].out);
		}
		run_periods(l, st, 1);
		limit_window(l, st);
		for (i = 0; i < l->s->n; i++) {
			g = l->g[i];
			g.rem = acting(l, i, &g.rem);
			g.out = acting(l, i, &g.out);
			still_note(&w[i], l->t, &rem[i], &out[i], &g);
		}
	}
}

/*
 * one still window: STILL_WINDOW periods, every group's moves noted - and,
 * while a limit's answer to a probe is on its way back, up to ANSWER_TAIL
 * periods more
 */
static void still_window(struct loop *l, struct stats *st, struct still *w)
{
	int i, p, pending;

	for (i = 0; i < l->s->n; i++) {
		struct tg_reg_group g = l->g[i];

		g.rem = acting(l, i, &g.rem);
		g.out = acting(l, i, &g.out);
		still_start(&w[i], &g);
	}
	still_more(l, st, w, STILL_WINDOW);
	for (p = 0; p < ANSWER_TAIL; p++) {
		for (i = 0, pending = 0; i < l->s->n; i++)
			pending |= still_broken(&w[i], group_cap(l, i)) == ANSWER_PENDING;
		if (!pending)
			break;
		still_more(l, st, w, 1);
	}
	st->answers += p > 0;
}

/* phase 1: settling time, then still windows (extended while converging) */
#define PHASE1		3000
#define MAX_EXTEND	4

/*
 * documented release bound of group i's remedial throttle once nothing is
 * over even unthrottled (docs/control-law.md, "How fast throttles are
 * released"): the inputs and a pending dead time; the search's bisection
 * towards its (now stale) unsafe bound, ceil(log2(ln(1/x) / ln(9/8))) + 1
 * steps; the hold there (its hold time at its relapse count) and the
 * probe's window; then growing steps (9/8, 5/4, 3/2, then doubling) to
 * the top of its ladder (the quota cap over the CPU time it took when
 * first cut), 3 + ceil(log2(top / x)) - one step per relapse window, at
 * most dead_periods + relax_periods periods apart (the block-mean law: a
 * dead time and a block, 5 dead times); 2 steps of slack. Where
 * the latency unthrottled comes close to its threshold (creep), every step
 * from x to the top is a probe held for the shortest hold time first.
 */
static long release_bound(const struct loop *l, int i, int creep)
{
	const struct tg_reg_group *g = &l->g[i];
	double top = g->u_ref ? (double)l->reg.quota_cap / g->u_ref : 1, x = g->x / 1e6, y;
	long step = (long)l->cfg.dead_periods + (long)l->cfg.relax_periods;
	long bisect = 0, grow = 0, n, b;

	/* the block-mean law steps at a block's verdict: a dead time, then the block */
	if (l->cfg.law == TG_LAW_MEAN)
		step = (long)l->cfg.dead_periods * (1 + TG_BLOCK_MULT);
	if (top < 1)
		top = 1;
	if (x < 1) {		/* n: ln(1/x) / ln(9/8), rounded up */
		for (n = 0, y = x; y < 1; n++)
			y *= 9.0 / 8;
		for (bisect = 1; n > 1; bisect++)
			n = (n + 1) / 2;
	}
	for (grow = 3, y = x; y < top; grow++)
		y *= creep ? 9.0 / 8 : 2;
	b = l->s->lag + (TG_OVER_FILTER - 1) + 2 * (long)l->cfg.dead_periods +
	    (long)tg_hold_periods(&l->cfg, g->relapses) + l->cfg.dead_periods + 1 +
	    step * (bisect + grow + 2);
	if (creep)
		b += grow * (long)tg_hold_periods(&l->cfg, 0);
	return b;
}

static double total_d(const struct scen *s, int i)
{
	return s->g[i].d[0] + s->g[i].d[1] + s->g[i].d[2] + s->g[i].d[3];
}

/*
 * Phase 2's premise, a neighbour's noise clearly fallen: every latency,
 * unthrottled, at least RELEASE_MARGIN of its allowed rise and 4 times
 * the measurement noise under its threshold, plus the detector's
 * resolution (whole ns).
 */
#define RELEASE_MARGIN	0.25

static int released_over(const struct scen *s, const struct pstate *p, int k)
{
	double m = RELEASE_MARGIN * (s->thr[k] - s->L0[k]);

	if (m < 4 * s->noise * p->L[k])
		m = 4 * s->noise * p->L[k];
	return prot(s, k) && p->L[k] + m + 1 > s->thr[k];
}

/* phase 2's noise: -1 random per scenario, else that mode for all */
static int phase2_mode = -1;

static void run_scenario(u64 seed, struct stats *st)
{
	FIXTURE(s, l);
	struct tg_throttle last[MAXG];
	static struct still still[MAXG];
	long released[MAXG], bound[MAXG], end, react = -1, or_react = -1;
	int i, k, p, ach, any_over = 0, release_ok = 1, ext, bad = -1, was_over = 0, limited = 0;
	int react_done = 0;
	const char *why = NULL;
	struct oracle orc;
	struct knobs kn;
	struct pstate ps, arrive;

	scen_make(&sc, seed);
	loop_init(&lp, s);
	st->scenarios++;
	/* the high-priority groups alone, then the neighbours arrive */
	for (i = s->nh; i < s->n; i++)
		l->absent[i] = 1;
	run_periods(l, st, WARMUP);
	arrive = l->now;
	for (i = s->nh; i < s->n; i++)
		l->absent[i] = 0;
	oracle_find(s, (double)l->reg.quota_min, &orc);
	if (!orc.na && orc.f < 1)
		or_react = oracle_reaction(s, &arrive, orc.f);
	/* phase 1: constant demand until settled, then STILL_WINDOW periods still */
	for (p = 0; p < PHASE1; p++) {
		for (i = 0; i < s->n; i++)
			last[i] = l->g[i].out;
		run_periods(l, st, 1);
		for (i = 0; i < s->n; i++)
			if (!same_tg(&last[i], &l->g[i].out) && p > st->max_settle)
				st->max_settle = p;
		if (react_done)
			continue;
		if (!back_all(s, &l->now))
			was_over = 1;
		else if (was_over)
			react = p + 1;
		react_done = react > 0;
	}
	/*
	 * never out of the band: the law cut before the latency left it (an
	 * arrival cut on its first reading can), nothing to be back from - 0,
	 * not "never back"
	 */
	if (!was_over) {
		react = 0;
		react_done = 1;
	}
	/*
	 * The still window: at most one change or one probe per group. Only
	 * tightening moves in it: still converging (8 groups cut one after
	 * the other, each waiting out a dead time) - another window, at most
	 * MAX_EXTEND times.
	 */
	for (ext = 0; ext <= MAX_EXTEND; ext++) {
		int conv = 1;

		still_window(l, st, still);
		for (i = 0, bad = -1; i < s->n; i++) {
			const char *b = still_broken(&still[i], group_cap(l, i));

			if (b || ((still[i].rem.n > 1 || still[i].out.n > 1) &&
				  still_converging(l, &still[i]))) {
				bad = i;
				why = b;
				conv &= still_converging(l, &still[i]);
			}
		}
		if (bad < 0)
			break;
		if (!conv || ext == MAX_EXTEND) {
			SCEN_SOFT("g%d not still in %d periods, %s: %s", bad, STILL_WINDOW,
				  conv ? "still converging" : "a cycle",
				  why ? why : "tightened more than once");
			break;
		}
		st->extended++;
	}
	/*
	 * the end state: not in the middle of a probe (a one-step transient,
	 * undone within dead_periods if it relapses) - out of it, and the
	 * plant and the inputs settled again
	 */
	for (p = 0, k = 0; p < 400 && k < 2 * (int)l->cfg.dead_periods; p++) {
		int probing = 0;

		run_periods(l, st, 1);
		for (i = 0; i < s->n; i++)
			probing |= l->g[i].probe;
		k = probing ? 0 : k + 1;
	}
	/* limits held within 5 % */
	for (i = 0; i < s->n; i++)
		for (k = 0; k < NK; k++)
			if (s->g[i].limit[k] != TG_UNLIMITED &&
			    l->now.b[i][k] > s->g[i].limit[k] * (1 + LIMIT_TOL))
				SCEN_FAIL("g%d %s %.0f B/s over its limit %llu", i, kname[k],
					  l->now.b[i][k], (unsigned long long)s->g[i].limit[k]);
	/* victims: at least 90 % of solo where throttling can achieve it */
	ach = achievable(s, l);
	st->achievable += ach;
	for (k = 0; k < NK; k++)
		any_over |= is_over(s, &l->now, k);
	for (i = 0; i < s->nh && ach; i++) {
		double v = total_bps(&l->now, i), so;
		int limited = 0;

		for (k = 0; k < NK; k++)
			limited |= s->g[i].limit[k] != TG_UNLIMITED;
		if (limited)
			continue;	/* held by its own limit (checked above) */
		so = solo(s, i);
		st->victims_checked++;
		if (v < VICTIM_MIN * so)
			SCEN_FAIL("victim g%d at %.3f of solo (%.0f of %.0f B/s), achievable", i,
				  v / so, v, so);
	}
	/*
	 * Work-conserving, against the oracle: where the blame closure can
	 * protect the victims, no limit holds anyone, something must be cut
	 * and the floors let the oracle's cut through - the neighbours keep
	 * WC_MIN of the oracle rate, every victim its oracle throughput less
	 * VICTIM_PTS of solo; and the reaction is within REACT_MAX of the
	 * oracle controller's. Asserted with one low-priority group (the
	 * oracle's: the eval's pairs); with several, where the law's blame and
	 * MT²'s order share the room differently from the oracle's equal CPU
	 * shares, measured (stats, docs/control-law.md).
	 */
	for (i = 0; i < s->n; i++)
		for (k = 0; k < NK; k++)
			limited |= s->g[i].limit[k] != TG_UNLIMITED;
	st->wc_floor += ach && !limited && !orc.na && orc.f < 1 && orc.floor_limited;
	if (ach && !limited && !orc.na && orc.f < 1 && !orc.floor_limited) {
		double rate = 0, r;
		int one = s->n - s->nh == 1;
		struct wc *w = &st->wc[one];

		for (i = s->nh; i < s->n; i++)
			rate += total_bps(&l->now, i);
		r = rate / orc.rate;
		w->n++;
		w->sum += r;
		if (!w->min || r < w->min)
			w->min = r;
		w->under += r < WC_MIN;
		if (orc.res_limited) {
			w->res++;
			w->res_under += r < WC_MIN;
			w->res_half += rate < WC_MIN * orc.half;
		}
		/*
		 * resolution-limited: judged against the rate at the threshold
		 * + 1/2 ns, where a law on the mean of whole-ns readings sits,
		 * and WC_RES_FLOOR of the oracle's (counted against the
		 * oracle's WC_MIN as well: res_under)
		 */
		if (one && (orc.res_limited ? rate < WC_MIN * orc.half || r < WC_RES_FLOOR :
					      r < WC_MIN))
			SCEN_SOFT("the neighbours keep %.3f of the oracle rate (%.0f of %.0f B/s, oracle CPU share %.4f%s; %.3f of the rate at the threshold + 1/2 ns)",
				  r, rate, orc.rate, orc.f, orc.res_limited ? ", resolution-limited" : "",
				  orc.half > 0 ? rate / orc.half : 0);
		for (i = 0; i < s->nh; i++) {
			double so = solo(s, i);

			if (total_bps(&l->now, i) < orc.vic[i] - VICTIM_PTS * so) {
				w->victim_under++;
				if (one)
					SCEN_SOFT("victim g%d at %.4f of solo, %.4f at the oracle point", i,
						  total_bps(&l->now, i) / so, orc.vic[i] / so);
			}
		}
		if (or_react > 0 && or_react < 5000) {
			double q = react_done ? (double)react / or_react : 1e9;

			w->react_n++;
			w->react_sum += q < 1e9 ? q : 0;
			if (q > w->react_max)
				w->react_max = q;
			w->react_over += q > REACT_MAX;
			if (one && q > REACT_MAX)
				SCEN_SOFT("reaction %ld periods, the oracle's %ld", react, or_react);
		}
	}
	/* still over: every group that makes STILL_SHARE of an over kind is at its floor */
	for (i = s->nh; i < s->n && any_over; i++) {
		const struct tg_reg_group *g = &l->g[i];

		st->still_over += i == s->nh;
		if (g->rem.quota_us <= l->reg.quota_min ||
		    total_bps(&l->now, i) < 2.0 * l->cfg.noise_floor_bps)
			continue;
		for (k = 0; k < NK; k++)
			if (prot(s, k) && (double)(u64)l->now.L[k] >
			    s->thr[k] + (OVER_TOL * s->thr[k] > 1 ? OVER_TOL * s->thr[k] : 1) &&
			    kind_share(s, &l->now, i, k) >= STILL_SHARE)
				SCEN_FAIL("still over (%s) but g%d, %.3f of its rise, left at quota %llu",
					  kname[k], i, kind_share(s, &l->now, i, k),
					  (unsigned long long)g->rem.quota_us);
	}

	/*
	 * phase 2: the noise falls - in a third of the scenarios every
	 * low-priority group's demand to at most 3/10 (some to nothing), in a
	 * third to 50-80 % (the hold must end by time: its traffic does not
	 * halve), in a third either per group - halved again while anything is
	 * over even unthrottled (at most 6 times, then to nothing), or within
	 * RELEASE_MARGIN of it (clearly fallen: a latency within noise of its
	 * threshold is not a neighbour gone quiet). Every remedial throttle is
	 * released within the bound and stays released.
	 */
	{
		struct scen *w = &sc;
		double worst = 1;
		int mode = irand(0, 2), tries;

		if (phase2_mode >= 0)
			mode = phase2_mode;
		w->phase = 2;
		for (i = 0; i < s->n; i++)
			memcpy(w->d1[i], s->g[i].d, sizeof(w->d1[i]));

		for (k = 0; k < NK; k++)
			if (l->now.L[k] / s->L0[k] > worst)
				worst = l->now.L[k] / s->L0[k];
		for (i = s->nh; i < s->n; i++) {
			int m = mode == 2 ? irand(0, 1) : mode;
			double f = m == 1 ? unif(0.5, 0.8) :
				   irand(0, 2) == 0 ? 0 : unif(0, 0.3 / worst);

			for (k = 0; k < NK; k++)
				w->g[i].d[k] *= f;
		}
		knobs_free(s, &kn);
		for (tries = 0; tries <= 7; tries++) {
			int over = 0;

			plant_solve(s, &kn, &ps);
			for (k = 0; k < NK; k++)
				over |= released_over(s, &ps, k);
			if (!over)
				break;
			for (i = s->nh; i < s->n; i++)
				for (k = 0; k < NK; k++)
					w->g[i].d[k] *= tries < 6 ? 0.5 : 0;
		}
		for (k = 0; k < NK; k++)
			if (released_over(s, &ps, k))
				release_ok = 0;	/* high priority alone is over */
	}
	if (!release_ok) {
		st->release_na++;
		return;
	}
	st->release_checked++;
	for (i = 0, end = 0; i < s->n; i++) {
		released[i] = unthrottled(&l->g[i].rem) ? 0 : -1;
		/* its demand under 0.45 of phase 1's: its traffic halves (latency falls) */
		bound[i] = release_bound(l, i, 0);
		st->held += l->g[i].hold || l->g[i].probe;
		if (bound[i] > end)
			end = bound[i];
	}
	/* until every bound has passed, or 100 periods after the last release */
	for (p = 1; p <= end + 100; p++) {
		int left = 0;

		run_periods(l, st, 1);
		for (i = 0; i < s->n; i++) {
			if (released[i] < 0 && unthrottled(&l->g[i].rem))
				released[i] = p;
			if (released[i] > 0 && !unthrottled(&l->g[i].rem))
				SCEN_FAIL("g%d throttled again after its release (noise stopped)", i);
			if (released[i] < 0 && i >= s->nh && !total_d(s, i) && p > s->lag + QUIET_MAX)
				SCEN_FAIL("g%d quiet (no traffic) but not released %d periods later (lag %d)",
					  i, p, s->lag);
			if (released[i] < 0 && p > bound[i])
				SCEN_FAIL("g%d not released %ld periods after the noise fell (mba %u quota %llu, hold %d relapses %u)",
					  i, bound[i], l->g[i].rem.mba,
					  (unsigned long long)l->g[i].rem.quota_us, l->g[i].hold,
					  l->g[i].relapses);
			if (released[i] < 0 || p - released[i] < 100)
				left = 1;
		}
		if (!left)
			break;
	}
	for (i = 0; i < s->n; i++) {
		if (released[i] > st->max_release)
			st->max_release = released[i];
		if (i >= s->nh && !total_d(s, i) && released[i] > 0) {
			st->quiet_checked++;
			if (released[i] - s->lag > st->quiet_max)
				st->quiet_max = released[i] - s->lag;
		}
	}
}

/* the work-conserving and reaction figures against the oracle */
static void stats_oracle(const struct stats *st)
{
	int one;

	for (one = 1; one >= 0; one--) {
		const struct wc *w = &st->wc[one];

		printf("  against the oracle, %s: work-conserving in %ld: neighbours at %.3f of the oracle rate at worst, %.3f mean, %ld under %.2f, %ld victims under their oracle level - %.2f; "
		       "reaction in %ld: %.2f x the oracle's at worst (1e9: not back), %.2f mean, %ld over %.1f; "
		       "resolution-limited %ld of the %ld, %ld of them under %.2f (%ld under %.2f of the rate at the threshold + 1/2 ns)\n",
		       one ? "one neighbour (asserted)" : "several neighbours (measured)", w->n, w->min,
		       w->n ? w->sum / w->n : 0, w->under, WC_MIN, w->victim_under, VICTIM_PTS,
		       w->react_n, w->react_max, w->react_n ? w->react_sum / w->react_n : 0,
		       w->react_over, REACT_MAX, w->res, w->n, w->res_under, WC_MIN, w->res_half, WC_MIN);
	}
	printf("  %ld floor-limited (the oracle's cut under the quota floor); %ld quiet neighbours released within %ld periods after the lag\n",
	       st->wc_floor, st->quiet_checked, st->quiet_max);
}

static void test_randomized_plant(void **state)
{
	const char *e = getenv("TG_PLANT_SEED"), *ne = getenv("TG_PLANT_N");
	u64 base = e ? strtoull(e, NULL, 0) : 20240611;
	long n = ne ? strtol(ne, NULL, 0) : 2000, i;
	struct stats st = { 0 };
	clock_t c0 = clock();

	(void)state;
	for (i = 0; i < n; i++)
		run_scenario(base + (u64)i, &st);
	printf("randomized plant: %ld scenarios (seeds %llu..%llu) in %.1f s: %ld achievable, %ld victims checked, "
	       "%ld still over, %ld cuts, %ld relapses, release checked in %ld (n/a %ld, %ld held groups), slowest release %ld periods, "
	       "last move in phase 1 at period %ld, %ld still windows extended, %ld limit answers to a probe watched back, smallest true share of a cut %.4f, "
	       "%ld limit windows of 100 ms within 5 %%\n",
	       st.scenarios, (unsigned long long)base, (unsigned long long)(base + n - 1),
	       (double)(clock() - c0) / CLOCKS_PER_SEC, st.achievable, st.victims_checked,
	       st.still_over, st.cuts, st.relapses, st.release_checked, st.release_na, st.held,
	       st.max_release, st.max_settle, st.extended, st.answers, st.min_share, st.limit_windows);
	stats_oracle(&st);
	if (soft_misses)
		fail_msg("TG_PLANT_SOFT: %ld misses (SOFT lines above)", soft_misses);
	/*
	 * The properties were exercised, not vacuous: about 38 % of scenarios
	 * are achievable, 54 % checked for release (phase 2's premise: the
	 * noise clearly fell); the limits sit over 4 standard deviations
	 * below those rates at N = 100 (10 and 33 of 100 against 38 and 54),
	 * more at larger N.
	 */
	if (n < 100)
		return;
	if (st.achievable * 10 < st.scenarios || st.release_checked * 3 < st.scenarios ||
	    !st.relapses || !st.held)
		fail_msg("randomized plant, seed base %llu (TG_PLANT_SEED=%llu TG_PLANT_N=%ld): the properties were not exercised "
			 "(%ld achievable, %ld release checked of %ld, %ld relapses, %ld held)",
			 (unsigned long long)base, (unsigned long long)base, n, st.achievable,
			 st.release_checked, st.scenarios, st.relapses, st.held);
}

/*
 * Per-kind coupling (round 3's review, finding 5): the randomized plant
 * with a different coupling per latency kind, so per-kind blame (the row
 * of the kind over, only the kinds over) is exercised in a closed loop,
 * not only by test_core's hand cases. PK_N scenarios from PK_BASE
 * (TG_PLANT_PK_SEED, TG_PLANT_PK_N choose others).
 */
#define PK_BASE		77000000ull
#define PK_N		250

static void test_per_kind_coupling(void **state)
{
	const char *e = getenv("TG_PLANT_PK_SEED"), *ne = getenv("TG_PLANT_PK_N");
	u64 base = e ? strtoull(e, NULL, 0) : PK_BASE;
	long n = ne ? strtol(ne, NULL, 0) : PK_N, i;
	struct stats st = { 0 };

	(void)state;
	per_kind_coupling = 1;
	for (i = 0; i < n; i++)
		run_scenario(base + (u64)i, &st);
	per_kind_coupling = 0;
	printf("per-kind coupling: %ld scenarios (seeds %llu..%llu): %ld achievable, %ld still over, %ld cuts, release checked in %ld, smallest true share of a cut %.4f\n",
	       st.scenarios, (unsigned long long)base, (unsigned long long)(base + n - 1),
	       st.achievable, st.still_over, st.cuts, st.release_checked, st.min_share);
	if (n >= 100 && (st.achievable * 10 < st.scenarios || st.release_checked * 2 < st.scenarios))
		fail_msg("per-kind coupling: the properties were not exercised (%ld achievable, %ld release checked of %ld)",
			 st.achievable, st.release_checked, st.scenarios);
}

/* ---- the issue's three faults, as fixed scenarios in this plant ------------- */

/*
 * The issue's platform: latency of every kind rising with every kind's
 * traffic (6 % of idle per weighted GB/s, NVM writes weighing 10), each
 * threshold where a victim loses 10 %, low_pct 95; n groups, d[] their
 * demands. g0 is the high-priority victim.
 */
struct dem {
	int g, k;
	double bps;
};

static void hand_scen(struct scen *s, int lag, int n, const struct dem *d, int nd)
{
	static const double l0[NK] = { 90, 110, 300, 500 }, w[NK] = { 1, 1.5, 3, 10 };
	int i, j, k;

	memset(s, 0, sizeof(*s));
	s->seed = 0;
	s->n = n;
	s->nh = 1;
	s->lag = lag;
	s->low_pct = 95;
	s->mba_shape = 0;
	s->mba_a = 0.5;
	s->knee = 0.5;
	for (k = 0; k < NK; k++) {
		s->L0[k] = l0[k];
		s->thr[k] = (double)((u64)(l0[k] * 1.1) - 1);
		for (j = 0; j < NK; j++)
			s->C[k][j] = l0[k] * 0.06 * w[j];
	}
	for (i = 0; i < n; i++) {
		s->g[i].high = i == 0;
		s->g[i].cpu_us = PERIOD_US;
		for (k = 0; k < NK; k++)
			s->g[i].limit[k] = TG_UNLIMITED;
	}
	for (i = 0; i < nd; i++)
		s->g[d[i].g].d[d[i].k] = d[i].bps;
}

/* hand_scen() with demands {group, kind, B/s}, ... */
#define HAND_SCEN(s, lag, n, ...) do {					\
	static const struct dem d_[] = { __VA_ARGS__ };			\
	hand_scen(s, lag, n, d_, (int)ARRAY_SIZE(d_));			\
} while (0)

/* the static plant with group g at CPU fraction f, every other one free */
static int over_at(const struct scen *s, int g, double f)
{
	struct knobs kn;
	struct pstate p;
	int k;

	knobs_free(s, &kn);
	kn.frac[g] = f;
	plant_solve(s, &kn, &p);
	for (k = 0; k < NK; k++)
		if (is_over(s, &p, k))
			return 1;
	return 0;
}

static double cpu_frac(const struct loop *l, int i)
{
	u64 q = l->g[i].out.quota_us;

	return q == TG_QUOTA_UNLIMITED ? 1.0 : (double)q / l->s->g[i].cpu_us;
}

/*
 * Fault 1, over-throttling under lag: an NVM writer and a group with
 * negligible DRAM traffic (1/15 of the victim's). The writer is cut no
 * further than two steps below the loosest CPU share that clears the
 * interference; the small group is never touched; the victim recovers.
 */
static void test_fault1_no_overthrottle_under_lag(void **state)
{
	FIXTURE(s, l);
	struct stats st = { 0 };
	double need = 1, so;
	int lag;

	(void)state;
	for (lag = 1; lag <= LAGMAX; lag++) {
		/* the victim, the noisy neighbour, 1/15 of the victim's DRAM reads */
		HAND_SCEN(&sc, lag, 3, { 0, TG_DRAM_READ, 0.9e9 }, { 1, TG_NVM_WRITE, 2e9 },
			  { 2, TG_DRAM_READ, 0.06e9 });
		while (need > 0.001 && over_at(s, 1, need))
			need *= 0.99;
		assert_true(need < 0.5);		/* it is noisy */
		loop_init(&lp, s);
		run_untouched(l, &st, 2000, 2, "the negligible group");
		if (cpu_frac(l, 1) < need * 0.75 * 0.75)
			SCEN_FAIL("lag %d: the writer at %.4f of its CPU, %.4f clears it", lag,
				  cpu_frac(l, 1), need);
		so = solo(s, 0);
		if (total_bps(&l->now, 0) < VICTIM_MIN * so)
			SCEN_FAIL("lag %d: victim at %.3f of solo", lag, total_bps(&l->now, 0) / so);
	}
}

/*
 * Blame: the victim's own traffic keeps DRAM read latency over its
 * threshold whatever low priority does. The NVM writer is cut (it makes
 * most of the latency at first) until it no longer explains it; the group
 * with 1/15 of the victim's DRAM traffic is never a candidate: the law
 * holds instead.
 */
static void test_blame_holds_on_negligible(void **state)
{
	struct stats st = { 0 };
	FIXTURE(s, l);

	(void)state;
	HAND_SCEN(&sc, 3, 3, { 0, TG_DRAM_READ, 1.2e9 }, { 0, TG_NVM_READ, 0.5e9 },
		  { 1, TG_NVM_WRITE, 2e9 }, { 2, TG_DRAM_READ, 0.08e9 });
	loop_init(&lp, s);
	run_untouched(l, &st, 2000, 2, "the negligible group");
	assert_true(is_over(s, &l->now, TG_DRAM_READ));	/* still over: held */
	/*
	 * the writer cut until it no longer explains the over (the law stops
	 * where it is blameless - at its floor, or under ACHIEVE_SHARE of the
	 * rise by the true coupling)
	 */
	assert_false(unthrottled(&l->g[1].rem));
	if (l->g[1].rem.quota_us > l->reg.quota_min &&
	    kind_share(s, &l->now, 1, TG_DRAM_READ) >= ACHIEVE_SHARE)
		SCEN_FAIL("the writer left at quota %llu with %.3f of the DRAM read rise",
			  (unsigned long long)l->g[1].rem.quota_us,
			  kind_share(s, &l->now, 1, TG_DRAM_READ));
}

/*
 * Fault 2, starvation in the band: the noisy neighbour's NVM writes fall
 * from 2 GB/s to 4 MB/s (process still there, over the noise floor) while the victim's own NVM writes keep that
 * latency between the low mark and the threshold - the detector's state
 * never becomes none. Released within the documented bound. And a
 * neighbour that goes quiet is released even while a kind stays over.
 */
static void release_case(double victim_nw, double after, int want_over, long blips)
{
	FIXTURE(s, l);
	struct stats st = { 0 };
	struct knobs kn;
	struct pstate ps;
	long bound;
	int p, k, in_band = 0, over = 0;

	HAND_SCEN(&sc, 3, 2, { 0, TG_DRAM_READ, 0.3e9 }, { 1, TG_NVM_WRITE, 2e9 });
	sc.g[0].d[TG_NVM_WRITE] = victim_nw;
	loop_init(&lp, s);
	run_periods(l, &st, 2000);
	assert_false(unthrottled(&l->g[1].rem));
	sc.g[1].d[TG_NVM_WRITE] *= after;
	/* the premise: unthrottled, the band (or over, for want_over) */
	knobs_free(s, &kn);
	plant_solve(s, &kn, &ps);
	for (k = 0; k < NK; k++) {
		over |= is_over(s, &ps, k);
		in_band |= ps.L[k] > s->thr[k] * s->low_pct / 100 && !is_over(s, &ps, k);
	}
	assert_int_equal(over, want_over);
	assert_true(want_over || in_band);
	bound = release_bound(l, 1, 0);
	/* a one-period blip of every kind every `blips` periods: not over */
	l->blip_every = blips;
	l->blip_from = l->t + 7;
	for (p = 1; p <= bound; p++) {
		run_periods(l, &st, 1);
		if (unthrottled(&l->g[1].rem))
			break;
	}
	if (p > bound)
		SCEN_FAIL("not released within %ld periods (mba %u quota %llu hold %d)", bound,
			  l->g[1].rem.mba, (unsigned long long)l->g[1].rem.quota_us, l->g[1].hold);
	printf("released %d periods after the noise fell to %.3f (bound %ld, blips every %ld)\n", p,
	       after, bound, blips);
	/* and stays released through the blips */
	run_untouched(l, &st, 400, 1, "again after its release");
}

static void test_fault2_release_in_band(void **state)
{
	(void)state;
	release_case(0.12e9, 0.002, 0, 0);	/* 4 MB/s left; the victim's NVM writes: band */
	release_case(0.3e9, 0.0, 1, 0);	/* ... over the threshold: quiet neighbour */
}

/*
 * Review finding 3: one-period "over" blips (measurement noise) neither
 * undo a release nor restart its waits - every 100 periods, and every 60.
 */
static void test_blips_do_not_block_release(void **state)
{
	(void)state;
	release_case(0.12e9, 0.002, 0, 100);
	release_case(0.12e9, 0.002, 0, 60);
	release_case(0.12e9, 0.002, 0, 23);
}

/*
 * Review finding 2: a relapse, then the noise falls to 60 % - nothing is
 * over even unthrottled, but the held group's traffic does not halve. The
 * hold ends by time (its hold time with nothing over) and the throttle is
 * released within the bound.
 */
static void test_hold_ends_by_time(void **state)
{
	FIXTURE(s, l);
	struct stats st = { 0 };
	double need = 1;
	long bound;
	int p, by_time = 0;

	(void)state;
	HAND_SCEN(&sc, 3, 2, { 0, TG_DRAM_READ, 0.9e9 }, { 1, TG_NVM_WRITE, 2e9 });
	while (need > 0.001 && over_at(s, 1, need))
		need *= 0.99;
	/* over unthrottled; at 65 % of its demand just not */
	sc.g[1].d[TG_NVM_WRITE] *= need / 0.65;
	assert_true(over_at(s, 1, 1.0));
	loop_init(&lp, s);
	run_periods(l, &st, 3000);
	/* the premise: held after a relapse (the block-mean law: held in its band) */
	if (!l->g[1].hold || (!l->g[1].relapses && l->cfg.law != TG_LAW_MEAN))
		SCEN_FAIL("not held (hold %d relapses %u)", l->g[1].hold, l->g[1].relapses);
	sc.g[1].d[TG_NVM_WRITE] *= 0.6;
	assert_false(over_at(s, 1, 1.0));
	bound = release_bound(l, 1, 1);
	for (p = 1; p <= bound && !unthrottled(&l->g[1].rem); p++) {
		int held = l->g[1].hold;

		run_periods(l, &st, 1);
		/* the hold ended with its traffic over half its held level */
		if (held && !l->g[1].hold)
			by_time = l->g[1].bps.v[0] + l->g[1].bps.v[1] + l->g[1].bps.v[2] +
				  l->g[1].bps.v[3] >= l->g[1].hold_bps / 2;
	}
	if (!unthrottled(&l->g[1].rem))
		SCEN_FAIL("not released within %ld periods (mba %u quota %llu hold %d)", bound,
			  l->g[1].rem.mba, (unsigned long long)l->g[1].rem.quota_us, l->g[1].hold);
	assert_true(by_time);
	printf("held group released %d periods after the noise fell to 60 %% (bound %ld)\n", p, bound);
}

/*
 * Fixed regressions: the reviewer's failing seeds (dead time ending on
 * traffic still falling from an earlier step; slow convergence of 8
 * groups); round 2's failures in 34,000 scenarios - a limit answering the
 * probe of a group it holds (7778369: the probe and the limit's cut and
 * relax back, one departure), a limit's relax steps still converging after
 * a probe (932154), a group blamed on inputs that did not show its limit's
 * cut yet (32034, a true share of 0.3 %); and the first seed that failed
 * with the noise falling to 50-80 %.
 */
static void test_regression_seeds(void **state)
{
	static const u64 seeds[] = { 905864, 933600, 947452, 7778369, 932154, 32034 };
	struct stats st = { 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		run_scenario(seeds[i], &st);
	phase2_mode = 1;
	run_scenario(20240626, &st);
	phase2_mode = -1;
	assert_int_equal(st.scenarios, ARRAY_SIZE(seeds) + 1);
}

/*
 * Fault 3, limit cycle: a DRAM-write neighbour held by MBA plus a CPU quota
 * (round 1: at the MBA floor plus a quota), every lag, narrow band:
 * settled, no throttle moves more than one step in the last 1000 periods.
 */
static void test_fault3_no_limit_cycle(void **state)
{
	FIXTURE(s, l);
	struct stats st = { 0 };
	static struct still still[MAXG];
	const char *bad;
	int lag, w;

	(void)state;
	for (lag = 1; lag <= LAGMAX; lag++) {
		HAND_SCEN(&sc, lag, 2, { 0, TG_DRAM_READ, 1e9 }, { 1, TG_DRAM_WRITE, 8e9 });
		sc.mba_shape = 1;		/* MBA throttles less than asked */
		loop_init(&lp, s);
		run_periods(l, &st, 3000);
		for (w = 0; w < 1000 / STILL_WINDOW; w++) {
			still_window(l, &st, still);
			bad = still_broken(&still[1], group_cap(l, 1));
			if (bad)
				SCEN_FAIL("lag %d: not still within %d periods: %s", lag,
					  STILL_WINDOW, bad);
		}
		/* the premise: held by MBA plus a CPU quota */
		if (l->g[1].out.mba == l->cfg.mba_max || l->g[1].out.quota_us == TG_QUOTA_UNLIMITED)
			SCEN_FAIL("lag %d: not held by MBA plus a quota (mba %u quota %llu)", lag,
				  l->g[1].out.mba, (unsigned long long)l->g[1].out.quota_us);
	}
}

/*
 * A small but guilty NVM writer on a low-bandwidth platform (latency 100x
 * as sensitive as the others) while the victim's own traffic keeps DRAM
 * reads over: the writer is cut until it is blameless, its throttled
 * traffic then under the noise floor - and held there (that is not
 * idleness: unthrottled it would be 6 MB/s), not released and cut again.
 */
static void test_throttled_under_floor_held(void **state)
{
	FIXTURE(s, l);
	struct stats st = { 0 };
	struct tg_throttle last = { 0, 0 };
	int p, j, k, moves = 0;

	(void)state;
	HAND_SCEN(&sc, 2, 2, { 0, TG_DRAM_READ, 20e6 }, { 1, TG_NVM_WRITE, 6e6 });
	for (k = 0; k < NK; k++)
		for (j = 0; j < NK; j++)
			sc.C[k][j] *= 100;
	loop_init(&lp, s);
	for (p = 0; p < 3000; p++) {
		run_periods(l, &st, 1);
		if (p >= 2000 && !same_tg(&last, &l->g[1].out) && ++moves > 1)
			SCEN_FAIL("moved twice in the last 1000 periods (quota %llu)",
				  (unsigned long long)l->g[1].out.quota_us);
		last = l->g[1].out;
	}
	/* the premise: still over, the writer throttled under the noise floor */
	assert_true(is_over(s, &l->now, TG_DRAM_READ));
	assert_false(unthrottled(&l->g[1].rem));
	assert_true(total_bps(&l->now, 1) < l->cfg.noise_floor_bps);
}

/*
 * A limit under lag: demand falls to 60 % of what the limit allowed; the
 * quota relaxes stepwise on measured rates, never past the limit by more
 * than 5 % (relaxing on stale rates overshoots).
 */
static void test_limit_relax_under_lag(void **state)
{
	struct stats st = { 0 };
	FIXTURE(s, l);
	int p;

	(void)state;
	/* a bystander victim and a limited NVM writer */
	HAND_SCEN(&sc, 5, 2, { 0, TG_DRAM_READ, 1e6 }, { 1, TG_NVM_WRITE, 0.5e9 });
	sc.g[1].limit[TG_NVM_WRITE] = 0.1e9;
	loop_init(&lp, s);
	lp.cfg.remedial = false;
	run_periods(l, &st, 1000);
	sc.g[1].d[TG_NVM_WRITE] *= 0.6;
	for (p = 0; p < 2000; p++) {
		loop_step(l);
		if (l->now.b[1][TG_NVM_WRITE] > 0.1e9 * (1 + LIMIT_TOL))
			SCEN_FAIL("%.0f B/s over the limit 1e8 %d periods after the demand fell",
				  l->now.b[1][TG_NVM_WRITE], p);
	}
	assert_true(l->now.b[1][TG_NVM_WRITE] > 0.1e9 * (1 - 2 * LIMIT_TOL));	/* relaxed */
}

/* Jain's fairness index of x[0..n-1]: 1 when all are equal */
static double jain(const double *x, int n)
{
	double sum = 0, sq = 0;
	int i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / (n * sq) : 1;
}

/*
 * Blame among many (issue 21, item 5): a victim (DRAM and NVM reads), n
 * low-priority groups - half of them equal NVM writers, half equal DRAM
 * readers - and a bystander with 1/50 of the victim's DRAM reads; every
 * lag. Settled (3000 periods), then 60 s (6000 periods):
 *  - the bystander and the victim are never touched;
 *  - MT²'s order: no DRAM reader is cut before every NVM writer is, nor
 *    keeps a smaller share of its demand than the writers;
 *  - equally noisy groups are treated alike: Jain's index of the writers'
 *    throughput, and of the readers', at least JAIN_MIN;
 *  - the victim ends within VICTIM_PTS of its oracle level (or the
 *    closure's VICTIM_MIN of solo where the floors limit);
 *  - at most one throttle change per second per group (60 in 6000
 *    periods) - the issue's stability bound.
 */
#define JAIN_MIN	0.9

static void test_blame_many_groups(void **state)
{
	static const int ns[] = { 4, 8, 16 };
	FIXTURE(s, l);
	struct stats st = { 0 };
	unsigned int c;
	int lag;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(ns); c++)
		for (lag = 1; lag <= LAGMAX; lag += 2) {
			int n = ns[c], by = n + 1, i, p, changes[MAXG] = { 0 };
			long first[MAXG], wfirst = 0;
			double wt[MAXG], rd[MAXG], so, v, wkeep = 0, rkeep = 1;
			struct tg_throttle last[MAXG];

			HAND_SCEN(&sc, lag, n + 2, { 0, TG_DRAM_READ, 0.9e9 }, { 0, TG_NVM_READ, 0.2e9 });
			for (i = 1; i <= n; i++) {
				if (i % 2)
					sc.g[i].d[TG_NVM_WRITE] = 1.6e9 / n;
				else
					sc.g[i].d[TG_DRAM_READ] = 2e9 / n;
			}
			sc.g[by].d[TG_DRAM_READ] = 0.9e9 / 50;
			loop_init(&lp, s);
			for (i = 0; i < s->n; i++)
				first[i] = -1;
			for (p = 0; p < 3000; p++) {
				run_untouched(l, &st, 1, by, "the bystander");
				for (i = 1; i <= n; i++)
					if (first[i] < 0 && !unthrottled(&l->g[i].rem))
						first[i] = l->t;
			}
			for (i = 1; i <= n; i += 2)
				if (first[i] < 0 || first[i] > wfirst)
					wfirst = first[i] < 0 ? LONG_MAX : first[i];
			for (i = 0; i < s->n; i++)
				last[i] = l->g[i].out;
			for (p = 0; p < 6000; p++) {
				run_untouched(l, &st, 1, by, "the bystander");
				for (i = 0; i < s->n; i++) {
					changes[i] += !same_tg(&last[i], &l->g[i].out);
					last[i] = l->g[i].out;
				}
			}
			for (i = 1; i <= n; i++) {
				if (changes[i] > 60)
					SCEN_FAIL("n %d lag %d: g%d changed %d times in 60 s", n, lag, i,
						  changes[i]);
				if (i % 2 == 0 && first[i] >= 0 && first[i] < wfirst)
					SCEN_FAIL("n %d lag %d: DRAM reader g%d cut at %ld, before every NVM writer was (%ld)",
						  n, lag, i, first[i], wfirst);
				(i % 2 ? wt : rd)[(i - 1) / 2] = total_bps(&l->now, i);
				if (i % 2 && total_bps(&l->now, i) / total_d(s, i) > wkeep)
					wkeep = total_bps(&l->now, i) / total_d(s, i);
				if (!(i % 2) && total_bps(&l->now, i) / total_d(s, i) < rkeep)
					rkeep = total_bps(&l->now, i) / total_d(s, i);
			}
			if (rkeep < wkeep)
				SCEN_FAIL("n %d lag %d: the DRAM readers keep %.3f of their demand, the NVM writers up to %.3f",
					  n, lag, rkeep, wkeep);
			if (jain(wt, n / 2) < JAIN_MIN || jain(rd, n / 2) < JAIN_MIN)
				SCEN_FAIL("n %d lag %d: Jain's index %.3f (NVM writers), %.3f (DRAM readers)",
					  n, lag, jain(wt, n / 2), jain(rd, n / 2));
			so = solo(s, 0);
			v = total_bps(&l->now, 0) / so;
			if (v < VICTIM_MIN)
				SCEN_FAIL("n %d lag %d: victim at %.3f of solo", n, lag, v);
			printf("blame among %d: lag %d, victim %.3f of solo, writers %.1f MB/s each (Jain %.3f), readers %.0f MB/s each (Jain %.3f), at most %d changes in 60 s\n",
			       n, lag, v, wt[0] / 1e6, jain(wt, n / 2), rd[0] / 1e6, jain(rd, n / 2),
			       changes[1] > changes[2] ? changes[1] : changes[2]);
		}
}

/*
 * A neighbour that switches on and off (issue 21, item 3): an NVM writer
 * beside a DRAM-read victim, on for 10-100 periods, then quiet (no
 * traffic, its process still there) for 10-100 (0.1-1 s at 10 ms), every
 * second lag. Each time it comes back, every latency is back (back_all())
 * within REACT_MAX of what the oracle controller takes from the same
 * state; each time it goes quiet, it is released within lag + QUIET_MAX
 * periods; each time it comes back released, it is throttled again in the
 * period its traffic is seen (lag + 1), at the allowance it was released
 * from (tg_rem_return()). A cycle whose on phase ends before the law's
 * latency is back and is no longer than REACT_MAX x the oracle's reaction
 * is censored (counted, not judged).
 */
static void test_on_off_neighbour(void **state)
{
	FIXTURE(s, l);
	struct stats st = { 0 };
	struct oracle orc;
	int lag, cyc;

	(void)state;
	for (lag = 1; lag <= LAGMAX; lag += 2) {
		u64 keep = rng_state;
		double worst = 0;
		int censored = 0;
		u32 xm = 0;

		HAND_SCEN(&sc, lag, 2, { 0, TG_DRAM_READ, 0.9e9 }, { 1, TG_NVM_WRITE, 2e9 });
		loop_init(&lp, s);
		oracle_find(s, (double)l->reg.quota_min, &orc);
		assert_true(!orc.na && orc.f < 1 && !orc.floor_limited);
		rng_state = 0x0f0f0f + (u64)lag;
		l->absent[1] = 1;
		run_periods(l, &st, 300);
		for (cyc = 0; cyc < 12; cyc++) {
			int on = irand(10, 100), off = irand(10, 100), p, out = 0;
			long react = -1, oreact;
			struct pstate at = l->now;

			int freed = unthrottled(&l->g[1].rem), seen = -1;
			u32 xs = 0;

			l->absent[1] = 0;
			oreact = oracle_reaction(s, &at, orc.f);
			for (p = 0; p < on; p++) {
				run_periods(l, &st, 1);
				if (seen < 0 && !unthrottled(&l->g[1].rem)) {
					seen = p + 1;
					xs = l->g[1].x;
				}
				if (!back_all(s, &l->now))
					out = 1;
				else if (out && react < 0)
					react = p + 1;
			}
			/*
			 * released while quiet: throttled again in the period
			 * its traffic is seen back (lag + 1), not after a reading
			 * over and a cut (tg_rem_return())
			 */
			if (cyc && freed && on > lag + 1 && (seen < 0 || seen > lag + 1))
				SCEN_FAIL("lag %d, cycle %d: throttled again %d periods after coming back (bound %d)",
					  lag, cyc, seen, lag + 1);
			if (cyc && freed && seen > 0 && seen <= lag + 1 && xs != xm)
				SCEN_FAIL("lag %d, cycle %d: back at allowance %u, released from %u", lag,
					  cyc, xs, xm);
			if (oreact > 0 && oreact < 5000 && out && react < 0 &&
			    on <= REACT_MAX * oreact) {
				/*
				 * not back within an on phase no longer than the
				 * bound: censored, its reaction unknown (a law
				 * back with the oracle is not yet back either)
				 */
				censored++;
			} else if (oreact > 0 && oreact < 5000 && out) {
				if (react < 0 || react > REACT_MAX * oreact)
					SCEN_FAIL("lag %d, cycle %d (on %d): reaction %ld periods, the oracle's %ld",
						  lag, cyc, on, react, oreact);
				if ((double)react / oreact > worst)
					worst = (double)react / oreact;
			}
			/* quiet: its process there, no traffic */
			sc.g[1].d[TG_NVM_WRITE] = 0;
			for (p = 1; p <= off; p++) {
				run_periods(l, &st, 1);
				if (unthrottled(&l->g[1].rem))
					break;
			}
			xm = l->g[1].x_mem;
			if (p > lag + QUIET_MAX && p <= off)
				SCEN_FAIL("lag %d, cycle %d: released %d periods after going quiet", lag,
					  cyc, p);
			if (p > off && off > lag + QUIET_MAX)
				SCEN_FAIL("lag %d, cycle %d: not released in %d quiet periods", lag, cyc,
					  off);
			sc.g[1].d[TG_NVM_WRITE] = 2e9;
		}
		/* most cycles judged: a law never back in short phases fails */
		if (censored > 2)
			SCEN_FAIL("lag %d: %d of 12 cycles censored", lag, censored);
		printf("on/off neighbour, lag %d: 12 cycles, reaction at worst %.2f x the oracle's (%d censored: on for no longer than the bound, not back yet)\n",
		       lag, worst, censored);
		rng_state = keep;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_still_check),
		cmocka_unit_test(test_fault1_no_overthrottle_under_lag),
		cmocka_unit_test(test_blame_holds_on_negligible),
		cmocka_unit_test(test_fault2_release_in_band),
		cmocka_unit_test(test_fault3_no_limit_cycle),
		cmocka_unit_test(test_throttled_under_floor_held),
		cmocka_unit_test(test_limit_relax_under_lag),
		cmocka_unit_test(test_blame_many_groups),
		cmocka_unit_test(test_on_off_neighbour),
		cmocka_unit_test(test_blips_do_not_block_release),
		cmocka_unit_test(test_hold_ends_by_time),
		cmocka_unit_test(test_regression_seeds),
		cmocka_unit_test(test_randomized_plant),
		cmocka_unit_test(test_per_kind_coupling),
	};

	/* TG_PLANT_ONLY=test_name runs that test alone (cmocka's filter pattern) */
	if (getenv("TG_PLANT_ONLY"))
		cmocka_set_test_filter(getenv("TG_PLANT_ONLY"));
	return cmocka_run_group_tests_name("plant", tests, NULL, NULL);
}
