// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * regulator.c - MT²'s two orthogonal policies over all groups, per period.
 *
 * Preventive (limits, every group that has them):
 *   (over = more than deadband_pct above: measurement noise does not cut)
 *   - over a limit, DRAM kinds only, MBA above its floor, and one MBA step
 *     down still leaves the group at or above its limit: MBA one step down;
 *   - otherwise (NVM over, MBA at its floor, or the MBA step would
 *     undershoot): CPU quota = min(quota, usage) * limit / rate, for the
 *     kind furthest over: proportional, so a linear plant lands on the limit;
 *   - under every limit by margin_pct for relax_periods periods: relax one
 *     step - quota grows by at most grow_pct and never past what the rates
 *     say keeps each limit (with half the margin), then MBA one step up if
 *     the predicted DRAM rates stay under their limits.
 *
 * Remedial (interference; low-priority groups only):
 *   - a detector kind over its threshold now: throttle one step of one
 *     group, picked in MT²'s order - most NVM write, then most NVM read,
 *     then most DRAM traffic (above noise_floor_bps). NVM traffic is cut
 *     by CPU quota (cut_pct), DRAM-only traffic by MBA, then quota once
 *     MBA is at its floor;
 *   - blame: a group whose share of what drives the latency of every kind
 *     over is under blame_pct - its traffic weighted by that kind's row of
 *     tg_blame_w against all groups' - is never picked; if only such groups
 *     are left, nothing is cut (hold). A group whose preventive cut is not
 *     measured yet is judged on the traffic that cut predicts;
 *   - dead time: after a cut, no further cut (of any group) until its
 *     effect is measured - the cut group's smoothed traffic has fallen by
 *     3/4 of the predicted drop - or dead_periods have passed (derived from
 *     the caller's rate smoothing, tg_dead_periods());
 *   - relapse: a kind over within dead_periods of a group's relax - every
 *     such relax is undone and the group held there (no relax) until its
 *     traffic has halved (the noise stopped). This keeps the steady state
 *     still;
 *   - no kind over for relax_periods periods (in the detector's band too,
 *     not only when its state is none), no dead time pending: relax every
 *     throttled group that is not held by one step (quota first, then
 *     MBA), so the release time does not grow with the number of groups;
 *   - a throttled group whose traffic, scaled up by what its throttle
 *     takes (linearly), is under noise_floor_bps is released at once,
 *     whatever the detector says: throttling an idle group protects nobody.
 *
 * High priority, no tasks, a disabled policy or regulator: what the policy
 * imposed is released in the same period.
 */
#include "tg_core.h"

#define TG_PPM			1000000u
#define TG_NEVER		0xffffffffu

/**
 * tg_reg_cfg_default() - documented defaults (docs/control-law.md)
 * @cfg:       configuration to fill
 * @period_us: regulation period
 * @nr_cpus:   CPUs the quota is spread over
 */
void tg_reg_cfg_default(struct tg_reg_cfg *cfg, u32 period_us, u32 nr_cpus)
{
	cfg->period_us = period_us;
	cfg->nr_cpus = nr_cpus ? nr_cpus : 1;
	cfg->enabled = true;
	cfg->preventive = true;
	cfg->remedial = true;
	cfg->mba_min = 10;
	cfg->mba_max = 100;
	cfg->mba_step = 10;
	cfg->margin_pct = 5;
	cfg->deadband_pct = 2;
	cfg->relax_periods = 5;
	cfg->cut_pct = 25;
	cfg->grow_pct = 25;
	cfg->quota_min_pct = 1;
	cfg->noise_floor_bps = 1000000;
	cfg->smooth_div = TG_SMOOTH_DIV;
	cfg->dead_periods = tg_dead_periods(TG_SMOOTH_DIV);
	cfg->blame_pct = 5;
}

/* periods for a cut to act and a whole period to be counted at its level */
#define TG_DEAD_ACT		2

/**
 * tg_dead_periods() - the remedial dead time for a rate smoothing
 * @smooth_div: the caller smooths rates with an EWMA of weight 1/smooth_div
 *
 * Return: the periods until a step in a group's traffic shows at 90 % in
 * its smoothed rate, plus TG_DEAD_ACT (20 for smooth_div 8).
 */
u32 tg_dead_periods(u32 smooth_div)
{
	u32 left = TG_PPM, n = TG_DEAD_ACT;

	if (smooth_div < 1)
		smooth_div = 1;
	if (smooth_div > 1024)
		smooth_div = 1024;
	while (left > TG_PPM / 10) {
		left -= left / smooth_div;
		n++;
	}
	return n;
}

/*
 * Settled when 3/4 of a remedial cut's effect is seen, 2/3 of a preventive
 * step's (its cuts are proportional, its relax steps bounded by the limits)
 */
#define TG_SETTLE_REM		4
#define TG_SETTLE_PREV		3

/*
 * A remedial cut's traffic is flat when it moved by at most 1/TG_SETTLE_FLAT
 * of the predicted change over the last two periods: a step seen through
 * the EWMA moves that little once 3/4 of it shows, traffic still falling
 * from an earlier step (or not yet showing this one) moves more.
 */
#define TG_SETTLE_FLAT		16

static void tg_settle_start(struct tg_settle *st, const struct tg_reg_cfg *cfg,
			    u32 rest, bool flat, u64 from, u64 expect)
{
	st->left = cfg->dead_periods;
	st->age = 0;
	st->rest = rest ? rest : 1;
	st->flat = flat;
	st->kinds = TG_ALL_KINDS;
	st->from = from;
	st->expect = expect;
	st->seen[0] = from;
	st->seen[1] = from;
}

static u64 tg_absdiff(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/*
 * One period of a dead time: counts it down, ends it once the group's
 * smoothed traffic (now) is within 1/rest of the way from `from` to
 * `expect` and, if st->flat, has stopped moving.
 * Return: true while still waiting.
 */
static bool tg_settle_wait(struct tg_settle *st, u64 now)
{
	u64 change = tg_absdiff(st->from, st->expect), part;
	u64 moved = tg_absdiff(now, st->seen[1]);

	if (!st->left)
		return false;
	st->left--;
	st->age++;
	st->seen[1] = st->seen[0];
	st->seen[0] = now;
	/* nothing predicted (an undo): the whole wait */
	if (st->age < TG_DEAD_ACT || !change)
		return st->left;
	if (st->flat && moved > tg_mul_div(change, 1, TG_SETTLE_FLAT))
		return st->left;	/* still moving: not settled */
	part = tg_mul_div(change, 1, st->rest);
	if (st->expect < st->from ? now <= st->expect + part
				  : now >= st->expect - part)
		st->left = 0;
	return st->left;
}

/**
 * tg_hold_periods() - how long a relapse holds a group
 * @cfg:      configuration (dead_periods)
 * @relapses: the group's relapses since it was last unthrottled (>= 1)
 *
 * Return: periods with nothing over before the hold ends: TG_HOLD_MULT x
 * dead_periods, doubled per further relapse, at most TG_HOLD_MAX_SHIFT times.
 */
u32 tg_hold_periods(const struct tg_reg_cfg *cfg, u32 relapses)
{
	u32 shift = relapses > 1 ? relapses - 1 : 0;

	if (shift > TG_HOLD_MAX_SHIFT)
		shift = TG_HOLD_MAX_SHIFT;
	return (cfg->dead_periods ? cfg->dead_periods : 1) * TG_HOLD_MULT << shift;
}

/* Quota floor and cap of a configuration, once per tg_regulate(). */
static void tg_quota_bounds(struct tg_regulator *r, const struct tg_reg_cfg *cfg)
{
	u64 q = tg_mul_div(cfg->period_us, cfg->quota_min_pct, 100);

	r->quota_min = q ? q : 1;
	r->quota_cap = (u64)cfg->period_us * cfg->nr_cpus;
}

static void tg_unthrottle(struct tg_throttle *t, const struct tg_reg_cfg *cfg)
{
	t->mba = cfg->mba_max;
	t->quota_us = TG_QUOTA_UNLIMITED;
}

static bool tg_throttled(const struct tg_throttle *t,
			 const struct tg_reg_cfg *cfg)
{
	return t->mba < cfg->mba_max || t->quota_us != TG_QUOTA_UNLIMITED;
}

/* num / den in parts per million (num, den 64-bit; saturates at U32) */
static u32 tg_ppm(u64 num, u64 den)
{
	u64 v;

	while (den >> 32 || num >> 32) {
		den >>= 1;
		num >>= 1;
	}
	if (!den)
		return TG_NEVER;
	v = tg_mul_div(num, TG_PPM, (u32)den);
	return v > TG_NEVER ? TG_NEVER : (u32)v;
}

static u64 tg_total(const struct tg_reg_group *g)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		sum = tg_sat_add(sum, g->bps.v[k]);
	return sum;
}

/* a group's traffic of the kinds in a mask (bit per enum tg_kind) */
static u64 tg_kinds_bps(const struct tg_reg_group *g, u32 kinds)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		if (kinds & BIT(k))
			sum = tg_sat_add(sum, g->bps.v[k]);
	return sum;
}

/*
 * A preventive MBA step from..to: it acts on the DRAM kinds only, and on
 * what the remedial MBA level lets through - a step above it changes
 * nothing, predicts nothing and has nothing to wait for.
 */
static void tg_prev_mba_settle(struct tg_reg_group *g, const struct tg_reg_cfg *cfg,
			       u32 from, u32 to)
{
	u32 lo = g->rem.mba;
	u64 dram = tg_kinds_bps(g, TG_DRAM_KINDS);

	from = from < lo ? from : lo;
	to = to < lo ? to : lo;
	if (from == to || !from) {
		g->prev_settle.left = 0;
		return;
	}
	tg_settle_start(&g->prev_settle, cfg, TG_SETTLE_PREV, false, dram,
			tg_mul_div(dram, to, from));
	g->prev_settle.kinds = TG_DRAM_KINDS;
}

/**
 * tg_reg_group_init() - a new group: nothing imposed, nothing decided
 * @g:   group slot
 * @cfg: configuration (for the unthrottled MBA level)
 */
void tg_reg_group_init(struct tg_reg_group *g, const struct tg_reg_cfg *cfg)
{
	int k;

	g->active = false;
	g->priority = TG_PRIO_LOW;
	tg_limits_init(&g->limits);
	for (k = 0; k < TG_NR_KINDS; k++)
		g->bps.v[k] = 0;
	g->cpu_usage_us = 0;
	tg_unthrottle(&g->prev, cfg);
	tg_unthrottle(&g->rem, cfg);
	tg_unthrottle(&g->out, cfg);
	g->calm = 0;
	g->prev_settle = (struct tg_settle){ 0 };
	tg_unthrottle(&g->rem_seen, cfg);
	g->rem_wait = 0;
	g->hold = false;
	g->hold_bps = 0;
	g->hold_left = 0;
	g->relapses = 0;
	g->probe = false;
	g->relax_age = TG_NEVER;
	tg_unthrottle(&g->relax_from, cfg);
	g->relax_bps = 0;
	g->last = (struct tg_decision){ .kind = -1 };
}

/**
 * tg_regulator_init() - global regulator state before the first period
 * @r: state
 */
void tg_regulator_init(struct tg_regulator *r)
{
	r->quiet = 0;
	r->over_run = 0;
	r->dead = (struct tg_settle){ 0 };
	r->cut_group = -1;
	r->last_group = -1;
	r->last = (struct tg_decision){ .kind = -1 };
	r->quota_min = 1;
	r->quota_cap = TG_QUOTA_UNLIMITED;
}

static void tg_decide(struct tg_regulator *r, struct tg_reg_group *g, int idx,
		      enum tg_policy pol, enum tg_action act, enum tg_mech mech,
		      enum tg_reason why, int kind)
{
	g->last = (struct tg_decision){ pol, act, mech, why, kind };
	r->last = g->last;
	r->last_group = idx;
}

/* Lift what a policy imposed on a group, recording why. */
static void tg_release(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		       struct tg_reg_group *g, int idx, enum tg_policy pol,
		       enum tg_reason why)
{
	struct tg_throttle *t = pol == TG_POL_PREVENTIVE ? &g->prev : &g->rem;

	if (pol == TG_POL_PREVENTIVE) {
		g->calm = 0;
		g->prev_settle.left = 0;
	} else {
		g->hold = false;
		g->probe = false;
		g->relapses = 0;
		g->relax_age = TG_NEVER;
	}
	if (!tg_throttled(t, cfg))
		return;
	tg_unthrottle(t, cfg);
	tg_decide(r, g, idx, pol, TG_ACT_RELEASE, TG_MECH_NONE, why, -1);
}

/* The CPU time a quota cut scales: what the group used, within its quota. */
static u64 tg_cpu_base(const struct tg_regulator *r, const struct tg_throttle *t,
		       const struct tg_reg_group *g)
{
	u64 base = g->cpu_usage_us;

	if (t->quota_us < base)
		base = t->quota_us;
	if (!base)
		base = t->quota_us != TG_QUOTA_UNLIMITED ? t->quota_us
							 : r->quota_cap;
	return base;
}

/* quota * ppm / 10^6, clamped to [floor, cap], cap and above = unlimited */
static u64 tg_scale_quota(const struct tg_regulator *r, u64 quota, u32 ppm)
{
	u64 q = tg_mul_div(quota, ppm, TG_PPM);

	if (q < r->quota_min)
		q = r->quota_min;
	return q >= r->quota_cap ? TG_QUOTA_UNLIMITED : q;
}

/* ---- preventive ---------------------------------------------------------- */

static void tg_prev_over(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *g, int idx, u32 over, int worst,
			 u32 ratio_ppm, bool waiting)
{
	struct tg_throttle *t = &g->prev;
	u64 q, base, from = tg_total(g);

	g->calm = 0;
	/*
	 * a remedial cut or undo of this group not measured yet: the rates
	 * still show traffic it removed (its probe's, say) - no cut on them
	 */
	if (g->rem_wait)
		return;
	if (!(over & TG_NVM_KINDS) && t->mba > cfg->mba_min) {
		u32 next = t->mba > cfg->mba_min + cfg->mba_step ?
			   t->mba - cfg->mba_step : cfg->mba_min;
		u64 lim = g->limits.bps[worst];

		/* coarse MBA step only while it does not undershoot */
		if (tg_mul_div(g->bps.v[worst], next, t->mba) >= lim) {
			if (waiting)
				return;	/* the last step's effect not measured yet */
			tg_prev_mba_settle(g, cfg, t->mba, next);
			t->mba = next;
			tg_decide(r, g, idx, TG_POL_PREVENTIVE, TG_ACT_THROTTLE,
				  TG_MECH_MBA, TG_WHY_OVER_LIMIT, worst);
			return;
		}
	}
	/*
	 * usage * limit / rate: the CPU time that carries exactly the limit
	 * (rate and usage are measured over the same span, so this holds with
	 * smoothed, lagging inputs too: no dead time of its own - a remedial
	 * MBA move changes the rate without the usage, hence rem_wait above);
	 * only ever tightens here.
	 */
	base = g->cpu_usage_us ? g->cpu_usage_us : tg_cpu_base(r, t, g);
	q = tg_scale_quota(r, base, ratio_ppm);
	if (q < t->quota_us) {
		tg_settle_start(&g->prev_settle, cfg, TG_SETTLE_PREV, false,
				from,
				q < base ? tg_mul_div(from, tg_ppm(q, base), TG_PPM)
					 : from);
		t->quota_us = q;
		tg_decide(r, g, idx, TG_POL_PREVENTIVE, TG_ACT_THROTTLE,
			  TG_MECH_CPU, TG_WHY_OVER_LIMIT, worst);
	}
}

/* target rate when relaxing: limit less half the margin */
static u64 tg_relax_target(u64 lim, const struct tg_reg_cfg *cfg)
{
	return tg_mul_div(lim, 200 - cfg->margin_pct, 200);
}

static void tg_prev_relax(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			  struct tg_reg_group *g, int idx)
{
	struct tg_throttle *t = &g->prev;
	u32 grow = TG_PPM / 100 * (100 + cfg->grow_pct), k;
	u64 lim;

	if (t->quota_us != TG_QUOTA_UNLIMITED) {
		u32 ppm = grow;
		u64 q;

		for (k = 0; k < TG_NR_KINDS; k++) {
			lim = g->limits.bps[k];
			if (lim != TG_UNLIMITED && g->bps.v[k]) {
				u32 h = tg_ppm(tg_relax_target(lim, cfg), g->bps.v[k]);

				if (h < ppm)
					ppm = h;
			}
		}
		q = tg_scale_quota(r, t->quota_us, ppm);
		if (q > t->quota_us) {
			u64 base = tg_cpu_base(r, t, g), from = tg_total(g);

			/* unlimited: it may use what it wants, not predictable */
			tg_settle_start(&g->prev_settle, cfg, TG_SETTLE_PREV, false,
					from,
					q == TG_QUOTA_UNLIMITED || !base ? from :
					tg_mul_div(from, tg_ppm(q, base), TG_PPM));
			t->quota_us = q;
			tg_decide(r, g, idx, TG_POL_PREVENTIVE, TG_ACT_RELAX,
				  TG_MECH_CPU, TG_WHY_UNDER_LIMIT, -1);
		}
		return;
	}
	if (t->mba < cfg->mba_max) {
		u32 next = t->mba + cfg->mba_step;

		if (next > cfg->mba_max)
			next = cfg->mba_max;
		for (k = 0; k < TG_NR_KINDS; k++) {
			lim = g->limits.bps[k];
			if (!((1u << k) & TG_DRAM_KINDS) || lim == TG_UNLIMITED)
				continue;
			if (tg_mul_div(g->bps.v[k], next, t->mba) >
			    tg_relax_target(lim, cfg))
				return;		/* would overshoot: stay */
		}
		tg_prev_mba_settle(g, cfg, t->mba, next);
		t->mba = next;
		tg_decide(r, g, idx, TG_POL_PREVENTIVE, TG_ACT_RELAX,
			  TG_MECH_MBA, TG_WHY_UNDER_LIMIT, -1);
	}
}

static void tg_preventive(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			  struct tg_reg_group *g, int idx)
{
	u32 over = 0, ratio = TG_PPM, k;
	bool any = false, under = true;
	bool waiting = tg_settle_wait(&g->prev_settle,
				      tg_kinds_bps(g, g->prev_settle.kinds));
	int worst = -1;

	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 lim = g->limits.bps[k], b = g->bps.v[k];

		if (lim == TG_UNLIMITED)
			continue;
		any = true;
		if (b > lim + tg_mul_div(lim, cfg->deadband_pct, 100)) {
			u32 ppm = tg_ppm(lim, b);

			over |= 1u << k;
			if (worst < 0 || ppm < ratio) {
				ratio = ppm;
				worst = (int)k;
			}
		}
		if (b > tg_mul_div(lim, 100 - cfg->margin_pct, 100))
			under = false;
	}
	if (!any) {
		tg_release(r, cfg, g, idx, TG_POL_PREVENTIVE, TG_WHY_UNDER_LIMIT);
		return;
	}
	if (over) {
		tg_prev_over(r, cfg, g, idx, over, worst, ratio, waiting);
		return;
	}
	if (!under || !tg_throttled(&g->prev, cfg)) {
		g->calm = 0;		/* at the limit: steady */
		return;
	}
	/* relax on measured rates only: the last step has settled */
	if (++g->calm < cfg->relax_periods || waiting)
		return;
	g->calm = 0;
	tg_prev_relax(r, cfg, g, idx);
}

/* ---- remedial -------------------------------------------------------------- */

static bool tg_rem_candidate(const struct tg_reg_group *g)
{
	return g->active && g->priority == TG_PRIO_LOW;
}

/*
 * The blame matrix (docs/control-law.md, "Blame"): row = the latency that
 * is over, column = the traffic that drives it, per byte/s. Channel: DRAM
 * read 1, DRAM write 1, NVM read 3, NVM write 10 (NVM's lower bandwidth
 * occupies the channel and the controller's queues longer per byte, MT²);
 * media, NVM latencies only: NVM read 3, NVM write 10 on top.
 */
#define TG_BW_DRAM		1	/* channel: DRAM read, DRAM write */
#define TG_BW_NR		3	/* channel: NVM read */
#define TG_BW_NW		10	/* channel: NVM write */
#define TG_BW_MEDIA_NR		3	/* media (NVM latencies): NVM read */
#define TG_BW_MEDIA_NW		10	/* media (NVM latencies): NVM write */
#define TG_ORDER_CLASSES	3	/* MT²'s order: NVM write, NVM read, DRAM */

/*
 * tg_sat_mul_w() is overflow-free only for weights up to TG_BLAME_W_MAX:
 * every entry of the table below (written with these names only) and the
 * class count it is also applied with, checked at build time as the
 * kernel's static_assert() would (core/ includes no kernel headers): a
 * division by zero in an enumerator's value is a compile error.
 */
enum {
	TG_BLAME_W_FITS = 1 / !!(TG_BW_DRAM <= TG_BLAME_W_MAX &&
				 TG_BW_NR <= TG_BLAME_W_MAX &&
				 TG_BW_NW <= TG_BLAME_W_MAX &&
				 TG_BW_NR + TG_BW_MEDIA_NR <= TG_BLAME_W_MAX &&
				 TG_BW_NW + TG_BW_MEDIA_NW <= TG_BLAME_W_MAX &&
				 TG_ORDER_CLASSES <= TG_BLAME_W_MAX),
};

const u32 tg_blame_w[TG_NR_KINDS][TG_NR_KINDS] = {
	[TG_DRAM_READ]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR, TG_BW_NW },
	[TG_DRAM_WRITE]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR, TG_BW_NW },
	[TG_NVM_READ]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR + TG_BW_MEDIA_NR,
			    TG_BW_NW + TG_BW_MEDIA_NW },
	[TG_NVM_WRITE]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR + TG_BW_MEDIA_NR,
			    TG_BW_NW + TG_BW_MEDIA_NW },
};

/* a * w for w <= TG_BLAME_W_MAX, saturating */
static u64 tg_sat_mul_w(u64 a, u32 w)
{
	return a >> 56 ? U64_MAX : a * w;
}

/*
 * While a group's last preventive cut is not measured yet, the share of
 * its measured traffic of the kinds that cut acts on (prev_settle.kinds:
 * MBA the DRAM kinds, CPU quota all) that it leaves (ppm): their predicted
 * sum over their measured one; else all of it.
 */
static u32 tg_pending_ppm(const struct tg_reg_group *g)
{
	const struct tg_settle *st = &g->prev_settle;
	u64 total = tg_kinds_bps(g, st->kinds);

	if (st->left && st->expect < st->from && st->expect < total)
		return tg_ppm(st->expect, total);
	return TG_PPM;
}

/* a group's rate of one kind as the remedial policy judges it */
static u64 tg_rem_bps(const struct tg_reg_group *g, int kind, u32 ppm)
{
	return ppm < TG_PPM && (g->prev_settle.kinds & BIT(kind)) ?
	       tg_mul_div(g->bps.v[kind], ppm, TG_PPM) : g->bps.v[kind];
}

/**
 * tg_blame_loads() - what a group's traffic weighs in each kind's latency
 * @g:    the group
 * @load: out: per kind (enum tg_kind), its rates weighted by that row of
 *        tg_blame_w (saturating)
 *
 * While its last preventive cut is not measured yet (its dead time runs),
 * the rates of the kinds it acts on (MBA: DRAM; CPU quota: all) are scaled
 * down to the sum that cut predicts: the smoothed, lagging inputs still
 * show traffic the cut has already removed. A step that changed nothing
 * (an MBA step above the remedial level) predicts nothing.
 */
void tg_blame_loads(const struct tg_reg_group *g, u64 load[TG_NR_KINDS])
{
	u32 ppm = tg_pending_ppm(g);
	u64 b[TG_NR_KINDS];
	int j, k;

	for (j = 0; j < TG_NR_KINDS; j++)
		b[j] = tg_rem_bps(g, j, ppm);
	for (k = 0; k < TG_NR_KINDS; k++) {
		load[k] = 0;
		for (j = 0; j < TG_NR_KINDS; j++)
			load[k] = tg_sat_add(load[k],
					     tg_sat_mul_w(b[j], tg_blame_w[k][j]));
	}
}

/**
 * tg_blame_levels() - per kind, blame_pct of what drives its latency
 * @cfg:    configuration (blame_pct)
 * @groups: every group; the active ones (high priority included) count
 * @nr:     number of groups
 * @level:  out: per kind, the load under which a group is blameless for it
 */
void tg_blame_levels(const struct tg_reg_cfg *cfg,
		     const struct tg_reg_group *groups, u32 nr,
		     u64 level[TG_NR_KINDS])
{
	u64 all[TG_NR_KINDS] = { 0 }, load[TG_NR_KINDS];
	u32 i;
	int k;

	for (i = 0; i < nr; i++) {
		if (!groups[i].active)
			continue;
		tg_blame_loads(&groups[i], load);
		for (k = 0; k < TG_NR_KINDS; k++)
			all[k] = tg_sat_add(all[k], load[k]);
	}
	for (k = 0; k < TG_NR_KINDS; k++)
		level[k] = tg_mul_div(all[k], cfg->blame_pct, 100);
}

/*
 * The channel row of tg_blame_w: what every latency shares (the DRAM rows
 * are the channel alone). An NVM latency over also blames by it.
 */
#define TG_BLAME_CHANNEL	TG_DRAM_READ

/**
 * tg_blamed() - may a group be cut for the kinds over?
 * @g:     the group
 * @level: from tg_blame_levels()
 * @over:  the kinds over (bit per enum tg_kind)
 *
 * An NVM latency rises with the channel's load and the media's; how much
 * each weighs is the least certain part of the matrix, so a group is
 * blamed for an NVM kind over if it reaches the level by that kind's row
 * or by the channel row alone: traffic that matters on the channel is not
 * excused by the media weighting NVM traffic twice.
 *
 * Return: true if its load reaches the level of at least one kind over.
 */
bool tg_blamed(const struct tg_reg_group *g, const u64 level[TG_NR_KINDS],
	       u32 over)
{
	u64 load[TG_NR_KINDS];
	int k;

	tg_blame_loads(g, load);
	for (k = 0; k < TG_NR_KINDS; k++) {
		if (!(over & BIT(k)))
			continue;
		if (load[k] >= level[k])
			return true;
		if (((1u << k) & TG_NVM_KINDS) &&
		    load[TG_BLAME_CHANNEL] >= level[TG_BLAME_CHANNEL])
			return true;
	}
	return false;
}

/*
 * A group's traffic with its remedial throttle lifted, if traffic scaled
 * linearly with MBA and CPU time: the CPU time it would get is bounded by
 * period x CPUs.
 */
static u64 tg_unthrottled_bps(const struct tg_regulator *r,
			      const struct tg_reg_cfg *cfg,
			      const struct tg_reg_group *g)
{
	u64 v = tg_total(g), use = g->cpu_usage_us, cap = r->quota_cap;

	if (g->rem.mba < cfg->mba_max)
		v = tg_mul_div(v, cfg->mba_max, g->rem.mba ? g->rem.mba : 1);
	if (g->rem.quota_us != TG_QUOTA_UNLIMITED) {
		if (cap > 0xffffffffu)
			cap = 0xffffffffu;
		if (use < 1)
			use = 1;
		if (use < cap)
			v = tg_mul_div(v, (u32)cap, (u32)use);
	}
	return v;
}

/* the traffic kinds of each class of MT²'s order */
static const u32 tg_order_kinds[TG_ORDER_CLASSES] = {
	BIT(TG_NVM_WRITE), BIT(TG_NVM_READ), TG_DRAM_KINDS,
};

/*
 * A group's traffic of the classes in MT²'s order (NVM write, NVM read,
 * DRAM) that drives a kind over: a class counts only if its traffic alone,
 * weighted as tg_blamed() weighs it, reaches a third of the blame level of
 * a kind over and a third of the group's own load there - 2 MB/s of NVM
 * writes beside 1.5 GB/s of DRAM reads does not make a group an NVM writer
 * when only DRAM read latency is over, nor do 40 MB/s (400 MB/s weighted,
 * a fifth of its load: review round 6, order3.c).
 *
 * A third, because a blamed group's weighted load is the sum of its three
 * classes' loads, so at least one of them carries a third of it - of its
 * load and so of the level it reaches: every blamed group ranks in some
 * class (with the full level, groups blamed
 * only for their classes together were ranked in none and held forever,
 * however much they made together: review round 5, escape.c). And the
 * classes a group ranks in only shrink as kinds fall out of over - a kind
 * falling out (the noise stopped, the smoothed rates not showing it yet)
 * never opens a new move (plant seed 947452).
 * v[]: that class's rates (as judged, ppm), 0 for the classes that do not
 * count.
 */
static void tg_order_values(const struct tg_reg_group *g,
			    const u64 level[TG_NR_KINDS], u32 over, u32 ppm,
			    u64 v[TG_ORDER_CLASSES])
{
	u64 own[TG_NR_KINDS];
	int o, j, k;

	tg_blame_loads(g, own);
	for (o = 0; o < TG_ORDER_CLASSES; o++) {
		u64 rate = 0;

		for (j = 0; j < TG_NR_KINDS; j++)
			if (tg_order_kinds[o] & BIT(j))
				rate = tg_sat_add(rate, tg_rem_bps(g, j, ppm));
		v[o] = 0;
		for (k = 0; k < TG_NR_KINDS; k++) {
			u64 load = 0, ch = 0;

			if (!(over & BIT(k)))
				continue;
			for (j = 0; j < TG_NR_KINDS; j++) {
				const u32 *ch_w = tg_blame_w[TG_BLAME_CHANNEL];
				u64 b = tg_rem_bps(g, j, ppm);

				if (!(tg_order_kinds[o] & BIT(j)))
					continue;
				load = tg_sat_add(load, tg_sat_mul_w(b, tg_blame_w[k][j]));
				ch = tg_sat_add(ch, tg_sat_mul_w(b, ch_w[j]));
			}
			load = tg_sat_mul_w(load, TG_ORDER_CLASSES);
			ch = tg_sat_mul_w(ch, TG_ORDER_CLASSES);
			if ((load >= level[k] && load >= own[k]) ||
			    ((BIT(k) & TG_NVM_KINDS) && ch >= level[TG_BLAME_CHANNEL] &&
			     ch >= own[TG_BLAME_CHANNEL]))
				v[o] = rate;
		}
	}
}

/*
 * MT²'s order applied to the kinds over: most NVM write, then most NVM
 * read, then most DRAM (read + write) traffic, above the noise floor,
 * among low-priority groups that can still be throttled for that class
 * and are blamed for a kind over (tg_blamed()); a class counts for a group
 * only where it drives a kind over (tg_order_values()). One pass keeps the
 * best of each class.
 */
static int tg_pick_noisy(const struct tg_regulator *r,
			 const struct tg_reg_cfg *cfg,
			 const struct tg_reg_group *groups, u32 nr, u32 over,
			 enum tg_reason *why)
{
	static const enum tg_reason order[] = {
		TG_WHY_NVM_WRITE, TG_WHY_NVM_READ, TG_WHY_DRAM,
	};
	u64 qmin = r->quota_min, best_v[3], level[TG_NR_KINDS];
	int best[3] = { -1, -1, -1 };
	unsigned int o;
	u32 i;

	tg_blame_levels(cfg, groups, nr, level);
	for (o = 0; o < ARRAY_SIZE(order); o++)
		best_v[o] = cfg->noise_floor_bps;
	for (i = 0; i < nr; i++) {
		const struct tg_reg_group *g = &groups[i];
		bool cpu_left = g->rem.quota_us > qmin;
		u64 v[TG_ORDER_CLASSES];

		if (!tg_rem_candidate(g) || !tg_blamed(g, level, over))
			continue;
		tg_order_values(g, level, over, tg_pending_ppm(g), v);
		if (!cpu_left) {
			v[0] = 0;
			v[1] = 0;
			if (g->rem.mba <= cfg->mba_min)
				v[2] = 0;
		}
		for (o = 0; o < ARRAY_SIZE(order); o++)
			if (v[o] > best_v[o]) {
				best_v[o] = v[o];
				best[o] = (int)i;
			}
	}
	for (o = 0; o < ARRAY_SIZE(order); o++)
		if (best[o] >= 0) {
			*why = order[o];
			return best[o];
		}
	return -1;
}

/* one step tighter; the dead time starts, with the drop it should show */
static void tg_rem_throttle(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			    struct tg_reg_group *g, int idx, enum tg_reason why)
{
	struct tg_throttle *t = &g->rem;
	int kind = why == TG_WHY_NVM_WRITE ? TG_NVM_WRITE :
		   why == TG_WHY_NVM_READ ? TG_NVM_READ : TG_DRAM_READ;
	u64 from = tg_total(g), expect;

	if (why == TG_WHY_DRAM && t->mba > cfg->mba_min) {
		u32 next = t->mba > cfg->mba_min + cfg->mba_step ?
			   t->mba - cfg->mba_step : cfg->mba_min;

		expect = tg_mul_div(from, next, t->mba);
		t->mba = next;
		tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_THROTTLE,
			  TG_MECH_MBA, why, kind);
	} else {
		u64 base = tg_cpu_base(r, t, g);
		u64 q = tg_scale_quota(r, base,
				       TG_PPM / 100 * (100 - cfg->cut_pct));

		if (q < t->quota_us)
			t->quota_us = q;
		expect = q < base ? tg_mul_div(from, tg_ppm(q, base), TG_PPM)
				  : from;
		tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_THROTTLE,
			  TG_MECH_CPU, why, kind);
	}
	if (g->hold && expect < g->hold_bps)
		g->hold_bps = expect;	/* held at the tighter level now */
	tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, from, expect);
	r->cut_group = idx;
}

static void tg_rem_relax(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *g, int idx)
{
	struct tg_throttle *t = &g->rem;

	/* the first relax of a window: where a relapse returns to */
	if (g->relax_age > cfg->dead_periods) {
		g->relax_from = *t;
		g->relax_bps = tg_total(g);
	}
	g->relax_age = 0;
	if (t->quota_us != TG_QUOTA_UNLIMITED) {
		u64 q = tg_scale_quota(r, t->quota_us,
				       TG_PPM / 100 * (100 + cfg->grow_pct));

		t->quota_us = q > t->quota_us ? q : t->quota_us + 1;
		tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_RELAX, TG_MECH_CPU,
			  TG_WHY_QUIET, -1);
		return;
	}
	t->mba = t->mba + cfg->mba_step > cfg->mba_max ? cfg->mba_max
						       : t->mba + cfg->mba_step;
	tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_RELAX, TG_MECH_MBA,
		  TG_WHY_QUIET, -1);
}

/*
 * Every relax within the relapse window is undone and its group held, for
 * longer at each relapse (tg_hold_periods()). All of them, not only those
 * whose traffic could explain the over: within the window the inputs do
 * not show the relaxes yet (that is why it is the dead time), so the
 * blame rule would judge each on its traffic before its relax - a group
 * around blame_pct then kept relaxes that a later cut took back, a cycle.
 * A group held wrongly is released by its hold time (the bound).
 */
static bool tg_rem_relapse(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			   struct tg_reg_group *groups, u32 nr)
{
	bool any = false;
	u32 i;

	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_candidate(g) || g->relax_age > cfg->dead_periods)
			continue;
		g->relax_age = TG_NEVER;
		g->rem = g->relax_from;
		g->hold = true;
		g->hold_bps = g->relax_bps;
		if (g->relapses < TG_NEVER)
			g->relapses++;
		g->hold_left = tg_hold_periods(cfg, g->relapses);
		g->probe = false;
		tg_decide(r, g, (int)i, TG_POL_REMEDIAL, TG_ACT_HOLD,
			  TG_MECH_NONE, TG_WHY_RELAPSE, -1);
		any = true;
	}
	return any;
}

/* counts the dead time down; ends it once the cut's effect is measured */
static void tg_rem_dead(struct tg_regulator *r, const struct tg_reg_group *groups,
			u32 nr)
{
	const struct tg_reg_group *g = NULL;

	if (r->cut_group >= 0 && (u32)r->cut_group < nr &&
	    tg_rem_candidate(&groups[r->cut_group]))
		g = &groups[r->cut_group];
	/* without its group, the full wait */
	tg_settle_wait(&r->dead, g ? tg_total(g) : r->dead.from);
}

/*
 * One period of a group's hold: it ends once its traffic has halved (the
 * noise stopped) or after its hold time with nothing over; then a single
 * relax (a probe) before it relaxes at the usual pace.
 */
static void tg_rem_hold(struct tg_reg_group *g, bool over)
{
	if (!g->hold)
		return;
	if (tg_total(g) < g->hold_bps / 2) {
		g->hold = false;	/* its noise stopped */
		return;
	}
	if (over)
		return;
	if (g->hold_left)
		g->hold_left--;
	if (!g->hold_left) {
		g->hold = false;	/* held long enough: probe */
		g->probe = true;
	}
}

static void tg_remedial(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			const struct tg_detector *det,
			struct tg_reg_group *groups, u32 nr)
{
	enum tg_reason why;
	int i, pick = -1;
	bool over;

	/* over for TG_OVER_FILTER periods in a row: a blip is not over */
	r->over_run = det->over ? r->over_run + (r->over_run < TG_NEVER) : 0;
	over = r->over_run >= TG_OVER_FILTER;
	for (i = 0; i < (int)nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_candidate(g)) {
			tg_release(r, cfg, g, i, TG_POL_REMEDIAL,
				   g->active ? TG_WHY_HIGH_PRIORITY : TG_WHY_IDLE);
			continue;
		}
		if (g->relax_age < TG_NEVER)
			g->relax_age++;
		/* a probe's relax survived its window: the usual pace again */
		if (g->probe && g->relax_age != TG_NEVER &&
		    g->relax_age > cfg->dead_periods)
			g->probe = false;
		/* released, and the release survived its window: backoff forgotten */
		if (!tg_throttled(&g->rem, cfg) && g->relax_age > cfg->dead_periods)
			g->relapses = 0;
		if (tg_throttled(&g->rem, cfg) &&
		    tg_unthrottled_bps(r, cfg, g) < cfg->noise_floor_bps)
			tg_release(r, cfg, g, i, TG_POL_REMEDIAL, TG_WHY_IDLE);
		else
			tg_rem_hold(g, over);
	}
	tg_rem_dead(r, groups, nr);

	if (over) {
		r->quiet = 0;
		if (tg_rem_relapse(r, cfg, groups, nr)) {
			/* wait for the undo (its whole dead time) */
			tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0);
			r->cut_group = -1;
			return;
		}
		if (r->dead.left)
			return;		/* the last cut's effect is not measured yet */
		pick = tg_pick_noisy(r, cfg, groups, nr, det->over, &why);
		if (pick >= 0)
			tg_rem_throttle(r, cfg, &groups[pick], pick, why);
		return;		/* none to blame: hold */
	}
	/* no kind over (in the detector's band too): relax, one step at a time */
	if (++r->quiet < cfg->relax_periods || r->dead.left)
		return;
	r->quiet = 0;
	for (i = 0; i < (int)nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_candidate(g) || !tg_throttled(&g->rem, cfg) ||
		    g->hold)
			continue;
		/* a probe: one step, then its whole relapse window */
		if (g->probe && g->relax_age <= cfg->dead_periods)
			continue;
		tg_rem_relax(r, cfg, g, i);
	}
}

/*
 * After the remedial policy: a remedial throttle that tightened (a cut, a
 * relapse undo) starts the preventive policy's wait of dead_periods - its
 * inputs show traffic the move has removed. A loosening does not: inputs
 * that do not show it yet only make the preventive act later.
 */
static void tg_rem_moved(const struct tg_reg_cfg *cfg, struct tg_reg_group *g)
{
	if (g->rem_wait)
		g->rem_wait--;
	if (g->rem.mba < g->rem_seen.mba || g->rem.quota_us < g->rem_seen.quota_us)
		g->rem_wait = cfg->dead_periods;
	g->rem_seen = g->rem;
}

/**
 * tg_regulate() - one regulation period over all groups
 * @r:      global regulator state
 * @cfg:    configuration
 * @det:    the detector after this period's tg_detect()
 * @groups: every group (inputs set; state and outputs updated)
 * @nr:     number of groups
 *
 * Sets every group's out (the tighter of the two policies) and last; the
 * newest decision is also in r->last / r->last_group.
 */
void tg_regulate(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *det, struct tg_reg_group *groups,
		 u32 nr)
{
	u32 i;

	tg_quota_bounds(r, cfg);
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		g->last = (struct tg_decision){ .kind = -1 };
		if (!cfg->enabled || !cfg->preventive || !g->active)
			tg_release(r, cfg, g, (int)i, TG_POL_PREVENTIVE,
				   g->active ? TG_WHY_POLICY_OFF : TG_WHY_IDLE);
		else
			tg_preventive(r, cfg, g, (int)i);
	}
	if (cfg->enabled && cfg->remedial) {
		tg_remedial(r, cfg, det, groups, nr);
	} else {
		for (i = 0; i < nr; i++)
			tg_release(r, cfg, &groups[i], (int)i, TG_POL_REMEDIAL,
				   TG_WHY_POLICY_OFF);
		r->quiet = 0;
		r->over_run = 0;
		r->dead.left = 0;
		r->cut_group = -1;
	}
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		tg_rem_moved(cfg, g);
		g->out.mba = g->prev.mba < g->rem.mba ? g->prev.mba : g->rem.mba;
		g->out.quota_us = g->prev.quota_us < g->rem.quota_us ?
				  g->prev.quota_us : g->rem.quota_us;
	}
}

static const char *const tg_action_names[] = {
	[TG_ACT_NONE] = "none", [TG_ACT_THROTTLE] = "throttle",
	[TG_ACT_RELAX] = "relax", [TG_ACT_RELEASE] = "release",
	[TG_ACT_HOLD] = "hold",
};

static const char *const tg_mech_names[] = {
	[TG_MECH_NONE] = "none", [TG_MECH_MBA] = "mba", [TG_MECH_CPU] = "cpu",
};

static const char *const tg_reason_names[] = {
	[TG_WHY_NONE] = "none", [TG_WHY_NVM_WRITE] = "nvm_write",
	[TG_WHY_NVM_READ] = "nvm_read", [TG_WHY_DRAM] = "dram",
	[TG_WHY_OVER_LIMIT] = "over_limit", [TG_WHY_UNDER_LIMIT] = "under_limit",
	[TG_WHY_QUIET] = "quiet", [TG_WHY_RELAPSE] = "relapse",
	[TG_WHY_IDLE] = "idle", [TG_WHY_POLICY_OFF] = "policy_off",
	[TG_WHY_HIGH_PRIORITY] = "high_priority",
};

/**
 * tg_action_name() - name of an action for the decision record
 * @a: action
 *
 * Return: a static string.
 */
const char *tg_action_name(enum tg_action a)
{
	return a <= TG_ACT_HOLD ? tg_action_names[a] : "?";
}

/**
 * tg_mech_name() - name of a mechanism for the decision record
 * @m: mechanism
 *
 * Return: a static string.
 */
const char *tg_mech_name(enum tg_mech m)
{
	return m <= TG_MECH_CPU ? tg_mech_names[m] : "?";
}

/**
 * tg_reason_name() - name of a reason for the decision record
 * @r: reason
 *
 * Return: a static string.
 */
const char *tg_reason_name(enum tg_reason r)
{
	return r <= TG_WHY_HIGH_PRIORITY ? tg_reason_names[r] : "?";
}
