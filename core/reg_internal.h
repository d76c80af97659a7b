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
u64 tg_total(const struct tg_reg_group *g);
u64 tg_kinds_bps(const struct tg_reg_group *g, u32 kinds);
void tg_decide(struct tg_regulator *r, struct tg_reg_group *g, int idx,
	       enum tg_policy pol, enum tg_action act, enum tg_mech mech,
	       enum tg_reason why, int kind);
void tg_release(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		struct tg_reg_group *g, int idx, enum tg_policy pol,
		enum tg_reason why);
u64 tg_cpu_base(const struct tg_regulator *r, const struct tg_throttle *t,
		const struct tg_reg_group *g);
u64 tg_scale_quota(const struct tg_regulator *r, u64 quota, u32 ppm);

/* ---- reg_preventive.c ---- */
void tg_preventive(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		   struct tg_reg_group *g, int idx);

/* ---- reg_blame.c ---- */
#define TG_ORDER_CLASSES	3	/* MT²'s order: NVM write, NVM read, DRAM */
extern const u32 tg_order_kinds[TG_ORDER_CLASSES];
extern const enum tg_reason tg_order_why[TG_ORDER_CLASSES];

/* a group the remedial policy may throttle: low priority, with tasks */
static inline bool tg_rem_candidate(const struct tg_reg_group *g)
{
	return g->active && g->priority == TG_PRIO_LOW;
}

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
		    const struct tg_detector *det, const u64 tot[TG_NR_KINDS],
		    const u64 ntot[TG_NR_KINDS]);
void tg_rem_cut(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		const struct tg_detector *det, struct tg_reg_group *groups,
		u32 nr, u32 over);
void tg_rem_hold_here(const struct tg_reg_cfg *cfg, struct tg_reg_group *g,
		      u64 bps, bool relapse);
void tg_rem_relax(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		  struct tg_reg_group *g, int idx, u32 res);
void tg_rem_undo(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 struct tg_reg_group *g, int idx, u32 res);
void tg_rem_dead(struct tg_regulator *r, const struct tg_reg_group *groups,
		 u32 nr);
void tg_rem_hold(struct tg_reg_group *g, bool over);
void tg_rem_forget(struct tg_regulator *r);
bool tg_rem_count(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		  struct tg_reg_group *g, int idx, u64 tot[TG_NR_KINDS],
		  u64 ntot[TG_NR_KINDS]);

/* ---- reg_mean.c ---- */
void tg_rem_mean(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *seen, struct tg_reg_group *groups,
		 u32 nr, u32 used);

#endif /* TG_REG_INTERNAL_H */
