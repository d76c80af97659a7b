// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reg_preventive.c - MT²'s preventive policy: per-group limits, every
 * group that has one, whatever its priority (docs/control-law.md).
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
 */
#include "reg_internal.h"

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

/**
 * tg_prev_limits() - tg_preventive() of a group with a limit
 * @r:   regulator state (decision record, quota bounds)
 * @cfg: configuration
 * @g:   the group (tg_limited())
 * @idx: its index, for the record
 */
void tg_prev_limits(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		    struct tg_reg_group *g, int idx)
{
	u32 over = 0, ratio = TG_PPM, k;
	bool under = true, waiting;
	int worst = -1;

	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 lim = g->limits.bps[k], b = g->bps.v[k];

		if (lim == TG_UNLIMITED)
			continue;
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
	waiting = g->prev_settle.left &&
		  tg_settle_wait(&g->prev_settle, tg_kinds_bps(g, g->prev_settle.kinds));
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
