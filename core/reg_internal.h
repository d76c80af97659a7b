/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * reg_internal.h - the regulator's layers (core/, not for callers):
 *
 *   reg_shared.c      shared steps: defaults, settle (dead time), decide,
 *                     release, quota arithmetic
 *   reg_preventive.c  the preventive policy (limits)      -> shared
 *   reg_blame.c       the blame matrix and MT²'s order    -> shared
 *   reg_remedial.c    the steps both remedial laws share, -> blame, shared
 *                     and the window law (cfg law 0)
 *   reg_mean.c        the block-mean law (cfg law 1, the  -> remedial
 *                     default)
 *   regulator.c       tg_regulate(): both policies, out   -> all above
 *
 * Each layer calls only the layers under it (docs/control-law.md).
 */
#ifndef TG_REG_INTERNAL_H
#define TG_REG_INTERNAL_H

#include "tg_core.h"

#define TG_PPM			1000000u
#define TG_NEVER		0xffffffffu

/* periods for a cut to act and a whole period to be counted at its level */
#define TG_DEAD_ACT		2

/*
 * Settled when 3/4 of a remedial cut's effect is seen, 2/3 of a preventive
 * step's (its cuts are proportional, its relax steps bounded by the limits)
 */
#define TG_SETTLE_REM		4
#define TG_SETTLE_RETURN	2	/* a quiet group's return: its raw traffic halfway down */
#define TG_RETURN_RATE_DIV	2	/* ... at half its rate per CPU time when first cut */
#define TG_SETTLE_PREV		3

/*
 * A remedial cut's traffic is flat when it moved by at most 1/TG_SETTLE_FLAT
 * of the predicted change over the last two periods: a step seen through
 * the EWMA moves that little once 3/4 of it shows, traffic still falling
 * from an earlier step (or not yet showing this one) moves more.
 */
#define TG_SETTLE_FLAT		16

/* ---- reg_shared.c ---- */
void tg_settle_start(struct tg_settle *st, const struct tg_reg_cfg *cfg,
		     u32 rest, bool flat, u64 from, u64 expect);
bool tg_settle_wait(struct tg_settle *st, u64 now);
void tg_quota_bounds(struct tg_regulator *r, const struct tg_reg_cfg *cfg);
void tg_unthrottle(struct tg_throttle *t, const struct tg_reg_cfg *cfg);

static inline bool tg_throttled(const struct tg_throttle *t, const struct tg_reg_cfg *cfg)
{
	return t->mba < cfg->mba_max || t->quota_us != TG_QUOTA_UNLIMITED;
}

u32 tg_ppm(u64 num, u64 den);

/* the sum of a set of rates, saturating */
static inline u64 tg_bw_total(const struct tg_bw *b)
{
	u64 sum = 0;
	int k;

#pragma GCC unroll 4
	for (k = 0; k < TG_NR_KINDS; k++)
		sum = tg_sat_add(sum, b->v[k]);
	return sum;
}

/* a group's traffic, smoothed (the module's EWMA) */
static inline u64 tg_total(const struct tg_reg_group *g)
{
	return tg_bw_total(&g->bps);
}

/* a group's traffic in the period just ended (raw, not smoothed) */
static inline u64 tg_raw_total(const struct tg_reg_group *g)
{
	return tg_bw_total(&g->bps_now);
}

/*
 * Risen: its last period's traffic (raw, tg_raw_total()) at least 3/2 of its
 * average (what the module's EWMA of weight 1/8 shows in the first period
 * of an arrival is an eighth of it) - the group that arrived, not one that
 * ran on steadily beside it (its raw rate bursts by far less under a quota).
 */
static inline bool tg_rem_rose(const struct tg_reg_group *g, u64 raw)
{
	u64 avg = tg_total(g);

	return raw >= tg_sat_add(avg, avg / 2);
}

static inline bool tg_rem_rising(const struct tg_reg_group *g)
{
	return tg_rem_rose(g, tg_raw_total(g));
}

u64 tg_kinds_bps(const struct tg_reg_group *g, u32 kinds);
void tg_decide(struct tg_regulator *r, struct tg_reg_group *g, int idx,
	       enum tg_policy pol, enum tg_action act, enum tg_mech mech,
	       enum tg_reason why, int kind);
void tg_rem_reset(struct tg_reg_group *g, const struct tg_reg_cfg *cfg,
		  enum tg_reason why);
void tg_release_throttle(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *g, int idx, enum tg_policy pol,
			 enum tg_reason why);

/*
 * Lift what a policy imposed on a group, recording why; a remedial release
 * also starts the search over (tg_rem_reset()). Inline: every period
 * releases every group a policy may not act on, and most have nothing on.
 */
static inline void tg_release(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			      struct tg_reg_group *g, int idx, enum tg_policy pol,
			      enum tg_reason why)
{
	const struct tg_throttle *t = pol == TG_POL_PREVENTIVE ? &g->prev : &g->rem;

	if (pol == TG_POL_PREVENTIVE) {
		g->calm = 0;
		g->prev_settle.left = 0;
	} else {
		tg_rem_reset(g, cfg, why);
	}
	if (tg_throttled(t, cfg))
		tg_release_throttle(r, cfg, g, idx, pol, why);
}

u64 tg_cpu_base(const struct tg_regulator *r, const struct tg_throttle *t,
		const struct tg_reg_group *g);
u64 tg_scale_quota(const struct tg_regulator *r, u64 quota, u32 ppm);

/* ---- reg_preventive.c ---- */
void tg_prev_limits(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		    struct tg_reg_group *g, int idx);

/* a group with a limit of at least one of `kinds` */
static inline bool tg_limited_in(const struct tg_reg_group *g, u32 kinds)
{
	int k;

#pragma GCC unroll 4
	for (k = 0; k < TG_NR_KINDS; k++)
		if ((kinds & BIT(k)) && g->limits.bps[k] != TG_UNLIMITED)
			return true;
	return false;
}

/* a group with a limit of at least one kind */
static inline bool tg_limited(const struct tg_reg_group *g)
{
	return tg_limited_in(g, TG_ALL_KINDS);
}

/**
 * tg_preventive() - one period of the preventive policy for one group
 * @r:   regulator state (decision record, quota bounds)
 * @cfg: configuration
 * @g:   the group
 * @idx: its index, for the record
 *
 * A group without limits is released (inline: most groups have none).
 */
static inline void tg_preventive(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
				 struct tg_reg_group *g, int idx)
{
	if (tg_limited(g))
		tg_prev_limits(r, cfg, g, idx);
	else
		tg_release(r, cfg, g, idx, TG_POL_PREVENTIVE, TG_WHY_UNDER_LIMIT);
}

/* ---- reg_blame.c ---- */
#define TG_ORDER_CLASSES	3	/* MT²'s order: NVM write, NVM read, DRAM */
extern const u32 tg_order_kinds[TG_ORDER_CLASSES];
extern const enum tg_reason tg_order_why[TG_ORDER_CLASSES];

/* a group the remedial policy may throttle: low priority, with tasks */
static inline bool tg_rem_candidate(const struct tg_reg_group *g)
{
	return g->active && g->priority == TG_PRIO_LOW;
}

u64 tg_blame_row(const u64 b[TG_NR_KINDS], const u32 w[TG_NR_KINDS]);
void tg_blame_all(const struct tg_reg_cfg *cfg,
		  const struct tg_reg_group *groups, u32 nr,
		  u64 level[TG_NR_KINDS], u64 all[TG_NR_KINDS]);
void tg_blame_cut(const struct tg_reg_cfg *cfg, struct tg_reg_group *groups,
		  u32 nr, u64 level[TG_NR_KINDS], u64 all[TG_NR_KINDS]);
bool tg_blamed_load(const u64 load[TG_NR_KINDS], const u64 level[TG_NR_KINDS],
		    u32 over);
void tg_order_values(const struct tg_reg_group *g, const u64 own[TG_NR_KINDS],
		     const u64 level[TG_NR_KINDS], u32 over,
		     u64 v[TG_ORDER_CLASSES]);

/* ---- reg_remedial.c ---- */
void tg_remedial(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *seen, struct tg_reg_group *groups,
		 u32 nr, u32 used);
void tg_rem_off(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		struct tg_reg_group *groups, u32 nr);
/* the law's steps, shared with the block-mean law (reg_mean.c) */
bool tg_x_found(const struct tg_reg_group *g, u32 res);
bool tg_rem_idle(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 struct tg_reg_group *g);
void tg_rem_observe(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		    const struct tg_detector *det, const u64 lo[TG_NR_KINDS],
		    const u64 hi[TG_NR_KINDS]);
void tg_rem_cut(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		const struct tg_detector *det, struct tg_reg_group *groups,
		u32 nr, u32 over, bool whole);
bool tg_rem_back(const struct tg_reg_cfg *cfg, struct tg_reg_group *g);
bool tg_rem_return(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		   struct tg_reg_group *groups, u32 nr, u32 used);
void tg_rem_hold_here(const struct tg_reg_cfg *cfg, struct tg_reg_group *g,
		      u64 bps, bool relapse);
void tg_rem_relax(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		  struct tg_reg_group *g, int idx, u32 res);
void tg_rem_undo(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 struct tg_reg_group *g, int idx, u32 res);
void tg_rem_dead(struct tg_regulator *r, const struct tg_reg_group *groups,
		 u32 nr);
void tg_rem_held(struct tg_reg_group *g, bool over);

/* one period of a group's hold, if it is held (tg_rem_held()) */
static inline void tg_rem_hold(struct tg_reg_group *g, bool over)
{
	if (g->hold)
		tg_rem_held(g, over);
}

void tg_rem_forget(struct tg_regulator *r);

/**
 * tg_rem_count() - a group's part of this period's loads, and its release
 * if the remedial policy may not throttle it
 * @r:   regulator state
 * @cfg: configuration
 * @g:   the group
 * @idx: its index
 * @lo:  the active low-priority groups' raw rates, summed (updated)
 * @hi:  the other active groups' (updated; tg_rem_observe() adds both)
 *
 * Return: whether the group is a candidate (low priority, with tasks).
 */
static inline bool tg_rem_count(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
				struct tg_reg_group *g, int idx, u64 lo[TG_NR_KINDS],
				u64 hi[TG_NR_KINDS])
{
	u64 *sum = g->priority == TG_PRIO_LOW ? lo : hi;
	int k;

	if (g->active) {
#pragma GCC unroll 4
		for (k = 0; k < TG_NR_KINDS; k++)
			sum[k] = tg_sat_add(sum[k], g->bps_now.v[k]);
	}
	if (tg_rem_candidate(g))
		return true;
	tg_release(r, cfg, g, idx, TG_POL_REMEDIAL,
		   g->active ? TG_WHY_HIGH_PRIORITY : TG_WHY_IDLE);
	return false;
}

/* ---- reg_mean.c ---- */
void tg_rem_mean(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *seen, struct tg_reg_group *groups,
		 u32 nr, u32 used);

#endif /* TG_REG_INTERNAL_H */
