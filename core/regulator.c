// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * regulator.c - MT²'s two orthogonal policies over all groups, per period
 * (docs/control-law.md): the preventive policy (reg_preventive.c: limits)
 * for every group, then the remedial one (reg_remedial.c: noisy
 * neighbours, low priority only); each group gets the tighter of the two.
 * The layers under this file: reg_internal.h.
 *
 * High priority, no tasks, a disabled policy or regulator: what the policy
 * imposed is released in the same period.
 */
#include "reg_internal.h"

/**
 * tg_regulator_init() - global regulator state before the first period
 * @r: state
 */
void tg_regulator_init(struct tg_regulator *r)
{
	*r = (struct tg_regulator){ .cut_group = -1, .last_group = -1 };
	r->last.kind = -1;
	r->quota_min = 1;
	r->quota_cap = TG_QUOTA_UNLIMITED;
}

/*
 * After the remedial policy: a remedial throttle that tightened (a cut, a
 * relapse undo) starts the preventive policy's wait of dead_periods - its
 * inputs show traffic the move has removed. A loosening does not: inputs
 * that do not show it yet only make the preventive act later.
 */
static void tg_rem_moved(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *g)
{
	u32 was, now;

	if (g->rem_wait)
		g->rem_wait--;
	if (g->rem.mba == g->rem_seen.mba && g->rem.quota_us == g->rem_seen.quota_us)
		return;		/* not moved (most groups, most periods) */
	if (g->rem.mba < g->rem_seen.mba || g->rem.quota_us < g->rem_seen.quota_us)
		g->rem_wait = cfg->dead_periods;
	/*
	 * A remedial MBA level that rose under a preventive quota that bound
	 * (its limit's, on a DRAM kind): the quota scaled by the MBA level it
	 * loses, so the DRAM traffic the limit was converged on stays (the
	 * preventive relaxes it from there), never under the quota floor.
	 * Else it would wait for its inputs (smoothed: over a dozen periods)
	 * to show the limit overrun.
	 */
	was = g->prev.mba < g->rem_seen.mba ? g->prev.mba : g->rem_seen.mba;
	now = g->prev.mba < g->rem.mba ? g->prev.mba : g->rem.mba;
	if (now > was && was && g->prev.quota_us != TG_QUOTA_UNLIMITED &&
	    g->prev.quota_us <= g->rem_seen.quota_us && tg_limited_in(g, TG_DRAM_KINDS)) {
		u64 q = tg_mul_div(g->prev.quota_us, was, now);

		g->prev.quota_us = q > r->quota_min ? q : r->quota_min;
	}
	g->rem_seen = g->rem;
}

/*
 * A high-priority group's traffic of the kinds it lives with, added to
 * sum[]: each kind it makes at least 1/TG_USE_SHARE of its own traffic of
 * (an estimate's residue is not its demand; a group with no traffic adds 0)
 */
static void tg_victim_kinds(const struct tg_reg_group *g, u64 sum[TG_NR_KINDS])
{
	u64 min = tg_total(g) / TG_USE_SHARE;
	int k;

#pragma GCC unroll 4
	for (k = 0; k < TG_NR_KINDS; k++)
		if (g->bps.v[k] >= min)
			sum[k] = tg_sat_add(sum[k], g->bps.v[k]);
}

/*
 * The kinds whose latency the remedial policy protects: those the active
 * high-priority groups make traffic of (sum[], smoothed: tg_victim_kinds(),
 * each counting only the kinds that are at least 1/TG_USE_SHARE of its own
 * traffic), at least 1/TG_USE_DIV of the noise floor together. A DRAM
 * reader's few KB/s of "writes" (the MBM total less its reads counted in
 * whole lines) protected the DRAM write latency and held its neighbour at
 * half of what its own threshold allows in the guest. A latency over its threshold
 * that no such group lives with exceeds nobody's tolerance: not
 * interference, the neighbours keep it (a solo NVM writer's own traffic
 * can hold the DRAM read latency over its threshold; the DRAM reader
 * beside it is nobody's noise). With no active high-priority group the
 * victims are outside tgroup, unseen: every threshold counts.
 */
static u32 tg_protected(const struct tg_reg_cfg *cfg, bool any,
			const u64 sum[TG_NR_KINDS])
{
	u32 used = 0;
	int k;

	if (!any)
		return TG_ALL_KINDS;	/* the victims are outside tgroup: every threshold */
	for (k = 0; k < TG_NR_KINDS; k++)
		if (sum[k] && sum[k] >= cfg->noise_floor_bps / TG_USE_DIV)
			used |= BIT(k);
	return used;
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
	u64 victims[TG_NR_KINDS] = { 0 };
	bool any = false, prev_on = cfg->enabled && cfg->preventive;
	u32 i;

	tg_quota_bounds(r, cfg);
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		g->last = (struct tg_decision){ .kind = -1 };
		if (g->active && g->priority == TG_PRIO_HIGH) {
			any = true;
			tg_victim_kinds(g, victims);
		}
		if (!prev_on || !g->active)
			tg_release(r, cfg, g, (int)i, TG_POL_PREVENTIVE,
				   g->active ? TG_WHY_POLICY_OFF : TG_WHY_IDLE);
		else
			tg_preventive(r, cfg, g, (int)i);
	}
	if (cfg->law != r->law) {	/* switched: the other law's state forgotten */
		r->mean = (struct tg_mean){ 0 };
		tg_rem_forget(r);
		for (i = 0; i < nr; i++) {
			groups[i].pend = false;
			groups[i].park_age = TG_NEVER;
		}
		r->law = cfg->law;
	}
	if (cfg->enabled && cfg->remedial && cfg->law == TG_LAW_MEAN)
		tg_rem_mean(r, cfg, det, groups, nr, tg_protected(cfg, any, victims));
	else if (cfg->enabled && cfg->remedial)
		tg_remedial(r, cfg, det, groups, nr, tg_protected(cfg, any, victims));
	else
		tg_rem_off(r, cfg, groups, nr);
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		tg_rem_moved(r, cfg, g);
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
	[TG_WHY_HIGH_PRIORITY] = "high_priority", [TG_WHY_SETTLED] = "settled",
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
	return r <= TG_WHY_SETTLED ? tg_reason_names[r] : "?";
}
