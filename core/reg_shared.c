// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reg_shared.c - the regulator's shared layer (reg_internal.h): its
 * defaults, the dead time after a step (settle), recording and releasing
 * what a policy decided, and the quota arithmetic both policies use.
 */
#include "reg_internal.h"

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
	cfg->cut_pct = 75;
	cfg->grow_pct = 25;
	cfg->quota_min_pm = TG_QUOTA_MIN_PM;
	cfg->noise_floor_bps = 1000000;
	cfg->smooth_div = TG_SMOOTH_DIV;
	cfg->dead_periods = tg_dead_periods(TG_SMOOTH_DIV);
	cfg->blame_pct = 5;
	cfg->law = TG_LAW_DEFAULT;
}

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

void tg_settle_start(struct tg_settle *st, const struct tg_reg_cfg *cfg,
		     u32 rest, bool flat, u64 from, u64 expect)
{
	st->left = cfg->dead_periods;
	st->age = 0;
	st->rest = rest ? rest : 1;
	st->flat = flat;
	st->raw = false;
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
bool tg_settle_wait(struct tg_settle *st, u64 now)
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
	if (st->age < (st->raw ? TG_RETURN_MIN : TG_DEAD_ACT) || !change)
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
 * @relapses: the group's relapses since it was last unthrottled
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
void tg_quota_bounds(struct tg_regulator *r, const struct tg_reg_cfg *cfg)
{
	u64 q = tg_mul_div(cfg->period_us, cfg->quota_min_pm, 1000);

	r->quota_min = q ? q : 1;
	r->quota_cap = (u64)cfg->period_us * cfg->nr_cpus;
}

void tg_unthrottle(struct tg_throttle *t, const struct tg_reg_cfg *cfg)
{
	t->mba = cfg->mba_max;
	t->quota_us = TG_QUOTA_UNLIMITED;
}

/* num / den in parts per million (num, den 64-bit; saturates at U32) */
u32 tg_ppm(u64 num, u64 den)
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

/* a group's traffic of the kinds in a mask (bit per enum tg_kind) */
u64 tg_kinds_bps(const struct tg_reg_group *g, u32 kinds)
{
	u64 sum = 0;
	int k;

#pragma GCC unroll 4
	for (k = 0; k < TG_NR_KINDS; k++)
		if (kinds & BIT(k))
			sum = tg_sat_add(sum, g->bps.v[k]);
	return sum;
}

/**
 * tg_reg_group_init() - a new group: nothing imposed, nothing decided
 * @g:   group slot
 * @cfg: configuration (for the unthrottled MBA level)
 */
void tg_reg_group_init(struct tg_reg_group *g, const struct tg_reg_cfg *cfg)
{
	*g = (struct tg_reg_group){ .priority = TG_PRIO_LOW };
	tg_limits_init(&g->limits);
	tg_unthrottle(&g->prev, cfg);
	tg_unthrottle(&g->rem, cfg);
	tg_unthrottle(&g->out, cfg);
	tg_unthrottle(&g->rem_seen, cfg);
	g->x = TG_PPM;
	g->x_bad = TG_NEVER;
	g->x_mem = TG_PPM;
	g->mem_class = -1;
	g->mba_lvl = cfg->mba_max;
	g->relax_age = TG_NEVER;
	g->park_age = TG_NEVER;
	g->last = (struct tg_decision){ .kind = -1 };
}

void tg_decide(struct tg_regulator *r, struct tg_reg_group *g, int idx,
	       enum tg_policy pol, enum tg_action act, enum tg_mech mech,
	       enum tg_reason why, int kind)
{
	g->last = (struct tg_decision){ pol, act, mech, why, kind };
	r->last = g->last;
	r->last_group = idx;
}

/*
 * A remedial release: the search for the group's allowance back to its
 * start. A release for idleness keeps the allowance the group was held at
 * (x_mem; the one before a step still waiting for its verdict): when it
 * comes back, the law's first cut goes at least that far; if it still has
 * tasks and its traffic comes back within TG_QUIET_MEM dead times, it is
 * throttled there again at once (tg_rem_return()).
 */
void tg_rem_reset(struct tg_reg_group *g, const struct tg_reg_cfg *cfg,
		  enum tg_reason why)
{
	if (why == TG_WHY_IDLE && g->x < TG_PPM) {
		/* a step not judged yet is not the level it was held at */
		bool step = (g->pend || g->relax_age <= cfg->dead_periods) && g->x_from < g->x;

		g->x_mem = step ? g->x_from : g->x;
		g->mba_mem = step ? g->mba_from : g->mba_lvl;
		g->mem_left = g->active ? TG_QUIET_MEM * cfg->dead_periods : 0;
	} else if (why != TG_WHY_IDLE) {
		g->x_mem = TG_PPM;
	}
	if (why != TG_WHY_IDLE || !g->active)
		g->mem_left = 0;
	g->hold = false;
	g->probe = false;
	g->pend = false;
	g->relapses = 0;
	g->relax_age = TG_NEVER;
	g->x = TG_PPM;
	g->x_bad = TG_NEVER;
	g->mba_lvl = cfg->mba_max;
	g->grow = 0;
	g->idle_run = 0;
}

/* tg_release() of a throttled group: the throttle lifted, and recorded */
void tg_release_throttle(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *g, int idx, enum tg_policy pol,
			 enum tg_reason why)
{
	tg_unthrottle(pol == TG_POL_PREVENTIVE ? &g->prev : &g->rem, cfg);
	tg_decide(r, g, idx, pol, TG_ACT_RELEASE, TG_MECH_NONE, why, -1);
}

/* The CPU time a quota cut scales: what the group used, within its quota. */
u64 tg_cpu_base(const struct tg_regulator *r, const struct tg_throttle *t,
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
u64 tg_scale_quota(const struct tg_regulator *r, u64 quota, u32 ppm)
{
	u64 q = tg_mul_div(quota, ppm, TG_PPM);

	if (q < r->quota_min)
		q = r->quota_min;
	return q >= r->quota_cap ? TG_QUOTA_UNLIMITED : q;
}
