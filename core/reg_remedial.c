// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reg_remedial.c - the remedial policy: noisy neighbours, low-priority
 * groups only (docs/control-law.md, "Remedial"): the steps both laws share,
 * and the window law (cfg law TG_LAW_WINDOW; the default since 27 Nov is
 * the block-mean law, reg_mean.c, built on these steps). It uses what the module
 * measures - latencies, per-group traffic by kind, CPU time - and its own
 * past actions, never a model of the platform:
 *
 *   - allowance: each throttled group has an allowance x, the share of its
 *     unthrottled traffic it may make, on the ladder of its mechanism (NVM
 *     classes: CPU quota; DRAM: MBA steps, then quota under the MBA floor);
 *   - a sized cut: a kind over its threshold (filtered) - the load to
 *     remove comes from the latency slope measured between the lowest
 *     latency seen and now, aimed 1/TG_SETPOINT_DIV of the allowed rise under the
 *     threshold; it falls on the blamed groups in MT²'s order, class by
 *     class, every group of a class cut by the same share (equally noisy
 *     groups alike), the next class only for what the first cannot give;
 *   - dead time: after a cut, no further cut until its effect is measured;
 *   - the search: nothing over - each throttled group steps up towards the
 *     lowest allowance seen unsafe (geometric bisection; growing steps when
 *     none is known), one step per relapse window; a step that brings a
 *     kind over within the window is undone and becomes the new unsafe
 *     bound. Once the bounds are within 1/TG_BISECT_RES (or one MBA step)
 *     the group is held: the largest safe allowance is found;
 *   - a hold ends after its hold time (backoff per relapse): one probe step
 *     to the unsafe bound; if it survives, the bound was stale and the
 *     search resumes. It also ends when the group's traffic halves;
 *   - idle: a throttled group that makes (almost) nothing for TG_IDLE_RUN
 *     periods, measured raw, is released; the allowance it held is
 *     remembered, and its next cut goes at least that far.
 */
#include "reg_internal.h"

/* ---- the allowance ladder ------------------------------------------------- */

/* an MBA level as an allowance (ppm) */
static u32 tg_mba_ppm(const struct tg_reg_cfg *cfg, u32 mba)
{
	return (u32)tg_mul_div(mba, TG_PPM, cfg->mba_max ? cfg->mba_max : 1);
}

/* the MBA level at or above allowance x: mba_max - n x mba_step, >= mba_min */
static u32 tg_x_mba(const struct tg_reg_cfg *cfg, u32 x)
{
	u32 max = cfg->mba_max, step = cfg->mba_step ? cfg->mba_step : 1;
	u32 want = (u32)tg_mul_div((u64)x * max + TG_PPM - 1, 1, TG_PPM), m;

	if (want >= max)
		return max;
	m = max - (max - want) / step * step;
	return m < cfg->mba_min ? cfg->mba_min : m;
}

/* where the DRAM ladder's MBA part ends (ppm) */
static u32 tg_x_lo(const struct tg_reg_cfg *cfg, const struct tg_reg_group *g)
{
	return g->dram_ladder ? tg_mba_ppm(cfg, cfg->mba_min) : 0;
}

/* the smallest allowance: the quota floor (under the MBA floor) */
static u32 tg_x_min(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		    const struct tg_reg_group *g)
{
	u32 q = tg_ppm(r->quota_min, g->u_ref ? g->u_ref : 1), lo = tg_x_lo(cfg, g);

	if (q > TG_PPM)
		q = TG_PPM;
	return lo ? (u32)tg_mul_div(q, lo, TG_PPM) : q;
}

/*
 * The top of the ladder: x (ppm of u_ref, the CPU time the group took when
 * first cut) at which its quota reaches the cap - over TG_PPM: the group
 * may come to want more than it took then.
 */
static u32 tg_x_top(const struct tg_regulator *r, const struct tg_reg_group *g)
{
	u64 top = g->u_ref ? tg_mul_div(r->quota_cap, TG_PPM, (u32)(g->u_ref < 0xffffffffu ?
							   g->u_ref : 0xffffffffu)) : TG_PPM;

	return top > TG_NEVER - 1 ? TG_NEVER - 1 : top < TG_PPM ? TG_PPM : (u32)top;
}

/*
 * The group's remedial throttle for its allowance. The quota ladder: x of
 * u_ref. The DRAM ladder: an MBA level (mba_lvl) for the coarse part and
 * the quota for the rest (x / that level of u_ref), as MT²'s limits use
 * MBA and CPU time together. A cut moves MBA down one level at most (its
 * response is the platform's, often far from linear: the quota, linear
 * in the CPU time, carries the rest of the cut); a step up keeps the
 * level until x outgrows it. Under the MBA floor, the quota alone. A
 * quota at or above the cap is none.
 */
static void tg_x_apply(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		       struct tg_reg_group *g, bool cut)
{
	struct tg_throttle *t = &g->rem;
	u32 x = g->x, lvl, want;

	tg_unthrottle(t, cfg);
	if (x >= tg_x_top(r, g)) {
		g->mba_lvl = cfg->mba_max;
		return;
	}
	if (g->dram_ladder) {
		want = tg_x_mba(cfg, x);
		lvl = g->mba_lvl;
		if (cut)
			lvl = lvl > cfg->mba_min + cfg->mba_step ? lvl - cfg->mba_step :
			      cfg->mba_min;
		t->mba = want > lvl ? want : lvl;
		g->mba_lvl = t->mba;
		lvl = tg_mba_ppm(cfg, t->mba);
		if (x >= lvl && lvl < TG_PPM)
			return;		/* exactly the level: no quota */
		x = (u32)tg_mul_div(x, TG_PPM, lvl ? lvl : 1);
	}
	t->quota_us = tg_scale_quota(r, g->u_ref, x);
}

/* an allowance under x, as near `want` as the floor allows */
static u32 tg_x_down(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		     const struct tg_reg_group *g, u32 want)
{
	u32 min = tg_x_min(r, cfg, g);

	return want < min ? min : want;
}

/* within one resolution step (1/res) of the lowest unsafe allowance: found */
bool tg_x_found(const struct tg_reg_group *g, u32 res)
{
	u32 x = g->x, bad = g->x_bad;

	return bad != TG_NEVER && (bad <= x || bad - x <= x / res);
}

/* the largest m with m * m <= v (digit by digit) */
static u32 tg_isqrt(u64 v)
{
	u64 r = 0, bit = 1ull << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (u32)r;
}

/*
 * The next allowance of the search, above x: the geometric middle of x and
 * the lowest unsafe allowance; with none known, a growing step (x 9/8,
 * 5/4, 3/2, then doubling).
 */
static u32 tg_x_next(struct tg_reg_group *g)
{
	u32 x = g->x ? g->x : 1, bad = g->x_bad, next;

	if (bad == TG_NEVER) {
		u32 sh = g->grow < 3 ? g->grow : 3;

		g->grow++;
		next = x + (u32)tg_mul_div(x, 1u << sh, TG_CUT_MIN);
		return next > x ? next : x + 1;
	}
	next = tg_isqrt((u64)x * bad);
	return next > x ? next : x + (bad - x) / 2 + 1;
}

/* ---- inputs ----------------------------------------------------------------- */

/*
 * A group's traffic with its remedial throttle lifted, if traffic scaled
 * linearly with MBA and CPU time: the CPU time it would get is bounded by
 * period x CPUs. raw: the last period's rates and CPU time; 0 when it got
 * no CPU time under a quota (parked: nothing to tell).
 */
static u64 tg_unthrottled_bps(const struct tg_regulator *r,
			      const struct tg_reg_cfg *cfg,
			      const struct tg_reg_group *g, bool raw)
{
	u64 v = 0, use = raw ? g->cpu_now_us : g->cpu_usage_us, cap = r->quota_cap;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		v = tg_sat_add(v, raw ? g->bps_now.v[k] : g->bps.v[k]);
	if (g->rem.mba < cfg->mba_max)
		v = tg_mul_div(v, cfg->mba_max, g->rem.mba ? g->rem.mba : 1);
	if (g->rem.quota_us != TG_QUOTA_UNLIMITED) {
		if (raw && !use)
			return U64_MAX;
		if (cap > 0xffffffffu)
			cap = 0xffffffffu;
		if (use < 1)
			use = 1;
		if (use < cap)
			v = tg_mul_div(v, (u32)cap, (u32)use);
	}
	return v;
}

/* a throttled group with (almost) no traffic even unthrottled */
bool tg_rem_idle(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 struct tg_reg_group *g)
{
	/* what it makes throttled, over the floor: more so unthrottled */
	if (tg_raw_total(g) >= cfg->noise_floor_bps && tg_total(g) >= cfg->noise_floor_bps) {
		g->idle_run = 0;
		return false;
	}
	if (tg_unthrottled_bps(r, cfg, g, true) < cfg->noise_floor_bps)
		g->idle_run += g->idle_run < TG_NEVER;
	else
		g->idle_run = 0;
	return g->idle_run >= TG_IDLE_RUN ||
	       tg_unthrottled_bps(r, cfg, g, false) < cfg->noise_floor_bps;
}

/*
 * This period's weighted load per kind (every active group, high priority
 * included, its rates of the period just ended by the blame matrix: lo, the
 * low-priority groups', and hi, the others'); the lowest latency
 * seen per kind (lat_lo: the bottom of the rise a threshold allows); and
 * the lowest of the last TG_WIN_MULT to 2 x TG_WIN_MULT dead times with the
 * load then (win_*: two buckets) - the point before the rise a cut is
 * sized from, recent enough that the load measured with it is this one's,
 * taken only from periods whose load has been steady for a dead time.
 */
void tg_rem_observe(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		    const struct tg_detector *det, const u64 lo[TG_NR_KINDS],
		    const u64 hi[TG_NR_KINDS])
{
	u64 tot[TG_NR_KINDS];
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		tot[k] = tg_sat_add(lo[k], hi[k]);

	if (++r->win_age > TG_WIN_MULT * cfg->dead_periods) {
		r->win_age = 0;
		for (k = 0; k < TG_NR_KINDS; k++) {
			r->win_lat[1][k] = r->win_lat[0][k];
			r->win_load[1][k] = r->win_load[0][k];
			r->win_nload[1][k] = r->win_nload[0][k];
			r->win_lat[0][k] = 0;
		}
	}
	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 lat = det->lat_ns[k];

		u64 ref = r->steady_load[k];

		r->load[k] = tg_blame_row(tot, tg_blame_w[k]);
		r->nload[k] = tg_blame_row(lo, tg_blame_w[k]);
		/* the load steady (within 1/TG_WIN_RISE) since how long */
		if ((r->load[k] > ref ? r->load[k] - ref : ref - r->load[k]) > ref / TG_WIN_RISE) {
			r->steady_load[k] = r->load[k];
			r->steady_age[k] = 0;
		} else if (r->steady_age[k] < TG_NEVER) {
			r->steady_age[k]++;
		}
		if (!lat)
			continue;
		if (!r->lat_lo[k] || lat < r->lat_lo[k])
			r->lat_lo[k] = lat;
		/*
		 * a low point only where the load has been steady for a dead
		 * time: the latency shows it by then (a cut's effect is measured
		 * within one). Before, it can show a load of before: at start-up
		 * the idle platform's latency beside the traffic just begun (300
		 * ns against 557 solo, optane-clx), a point far under the slope
		 * that sizes a cut too small for a second (docs/control-law.md).
		 */
		if (r->steady_age[k] < cfg->dead_periods)
			continue;
		if (!r->win_lat[0][k] || lat < r->win_lat[0][k]) {
			r->win_lat[0][k] = lat;
			r->win_load[0][k] = r->load[k];
			r->win_nload[0][k] = r->nload[k];
		}
	}
}

/*
 * Readings held over the periods without one (TG_READ_HOLD): a protected
 * kind that reads 0 this period gets back its last reading that counts -
 * one under its threshold, or one over it that a second reading over in a
 * row confirmed (a single reading over, a blip, is never held) - while
 * the last reading of it is at most TG_READ_HOLD x dead_periods periods
 * old (older, the row of readings is broken: forgotten). Readings within a
 * cut's dead time confirm nothing (they may predate its effect), and a cut
 * forgets what is held over (tg_remedial()): a victim whose reads stop
 * gets no second cut from its last readings. r->win.confirm: the kinds whose
 * reading this period confirmed an over after periods without one - the
 * filters count it as the second period over, so the cut is judged in the
 * period of the reading, on the traffic that made it. A held reading over its
 * threshold is over for the detector's rules too: the search waits. A
 * kind read every period never takes these paths: dense readings see no
 * change.
 */
static void tg_rem_hold_readings(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
				 struct tg_detector *det)
{
	int k;

	r->win.held = 0;
	r->win.confirm = 0;
	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 lat = det->lat_ns[k], thr = det->thr_ns[k];

		if (!thr) {		/* not protected: nothing to hold */
			r->win.read_ns[k] = 0;
			r->win.read_over[k] = 0;
			continue;
		}
		if (lat) {
			u32 gap = r->win.read_age[k];

			r->win.read_age[k] = 0;	/* periods since a reading, any */
			if (lat <= thr) {
				r->win.read_over[k] = 0;
			} else if (r->dead.left) {
				r->win.read_over[k] = 0;	/* may predate the cut's effect */
				continue;
			} else if (++r->win.read_over[k] < TG_OVER_FILTER) {
				continue;		/* not confirmed: not held */
			} else {
				r->win.read_over[k] = TG_OVER_FILTER;
				if (gap)
					r->win.confirm |= BIT(k);
			}
			r->win.read_ns[k] = lat;
			continue;
		}
		if (r->win.read_age[k] <= TG_READ_HOLD * cfg->dead_periods)
			r->win.read_age[k]++;
		if (!r->win.read_ns[k] || r->win.read_age[k] > TG_READ_HOLD * cfg->dead_periods) {
			r->win.read_ns[k] = 0;
			r->win.read_over[k] = 0;
			continue;
		}
		lat = r->win.read_ns[k];
		det->lat_ns[k] = lat;
		if (lat > thr)		/* confirmed: the search waits too */
			det->over |= BIT(k);
		r->win.held |= BIT(k);
	}
}

/*
 * The kinds over for the law: the detector's, each by more than its noise
 * tolerance - TG_NOISE_MULT x its jitter (measured here, an EWMA of its
 * change per period), at most 1/TG_NOISE_DIV of the threshold, at least
 * 1 ns (the detector's resolution). A kind without a threshold in the
 * detector counts as the detector says. rose: the kinds over that have
 * risen TG_RISE_MULT x that tolerance above their recent low - an arrival,
 * cut as soon as it is over twice in a row, noise tolerance or not.
 */
static u32 tg_rem_over(struct tg_regulator *r, const struct tg_detector *det)
{
	u32 over = 0;
	int k;

	r->rose = 0;
	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 lat = det->lat_ns[k], prev = r->win.lat_prev[k];
		u64 thr = det->thr_ns[k], m, lo;

		if (r->win.held & BIT(k)) {	/* a held reading: flat, no new jitter */
			r->win.falling &= ~BIT(k);
			goto judge;
		}
		/* still falling (a cut's effect still coming): by more than noise */
		m = r->jitter[k] * TG_NOISE_MULT / TG_JITTER_DIV;
		if (lat && prev > lat + (m > 1 ? m : 1))
			r->win.falling |= BIT(k);
		else
			r->win.falling &= ~BIT(k);
		if (lat && prev)
			r->jitter[k] = r->jitter[k] - r->jitter[k] / TG_JITTER_DIV +
				       (lat > prev ? lat - prev : prev - lat);
		r->win.lat_prev[k] = lat;
judge:
		if (!(det->over & BIT(k)))
			continue;
		m = r->jitter[k] * TG_NOISE_MULT / TG_JITTER_DIV;
		if (m > thr / TG_NOISE_DIV)
			m = thr / TG_NOISE_DIV;
		if (!m)
			m = 1;		/* the detector's resolution */
		if (!thr || lat > thr + m)
			over |= BIT(k);
		/* risen well above its recent low: an arrival, not noise */
		lo = r->win_lat[0][k];
		if (r->win_lat[1][k] && (!lo || r->win_lat[1][k] < lo))
			lo = r->win_lat[1][k];
		if (lo && lat >= lo + TG_RISE_MULT * m)
			r->rose |= BIT(k);
	}
	return over;
}

/*
 * How near its threshold a latency is this period (tg_rem_search):
 * TG_NEAR_CLOSE - at it (in whole ns) or within TG_CLOSE_MULT x its
 * jitter, or 1/TG_SETPOINT_DIV of the rise it allows over the lowest
 * latency seen if that is more, at most half that rise; TG_NEAR_CLEAR -
 * under it by more than that and 1/TG_FAR_DIV of that rise, every kind.
 */
#define TG_NEAR_CLOSE	1
#define TG_NEAR_CLEAR	2
#define TG_FAR_DIV	8

static u32 tg_rem_near(const struct tg_regulator *r, const struct tg_detector *det)
{
	u32 near = TG_NEAR_CLEAR;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 thr = det->thr_ns[k], lo = r->lat_lo[k];
		u64 m = r->jitter[k] * TG_CLOSE_MULT / TG_JITTER_DIV, far;
		u64 band = lo && lo < thr ? thr - lo : 0;

		if (!thr)
			continue;
		if (m < band / TG_SETPOINT_DIV)
			m = band / TG_SETPOINT_DIV;
		if (band && m > band / 2)
			m = band / 2;
		if (det->lat_ns[k] + m >= thr)
			return TG_NEAR_CLOSE;
		far = m > band / TG_FAR_DIV ? m : band / TG_FAR_DIV;
		if (det->lat_ns[k] + far >= thr)
			near = 0;
	}
	return near;
}

/* ---- the cut ------------------------------------------------------------------ */

/*
 * The load (kind k's row) a cut must remove to bring kind k's latency to
 * its setpoint - TG_SETPOINT_DIV-th of the rise its threshold allows over
 * the lowest latency seen, under it - on the slope between the recent low
 * point (tg_rem_observe()) and now, x TG_CUT_SAFETY / 4; *share: the
 * share (ppm) of the rise to remove, the most any class of MT²'s order is
 * cut by. Without a recent slope (no load change), the whole load at that
 * share. whole (the block-mean law's arrival on its first reading): with a
 * slope, the whole rise since the low point, all of it (its first reading
 * is of a partial rise). U64_MAX: no threshold or bottom known.
 */
static u64 tg_rem_need(const struct tg_regulator *r, const struct tg_detector *det,
		       int k, u32 *share, bool whole)
{
	u64 lat = det->lat_ns[k], thr = det->thr_ns[k], bot = r->lat_lo[k];
	u64 all = r->load[k], lo = r->win_lat[0][k], wlo = r->win_load[0][k], sp;
	u64 nlo = r->win_nload[0][k];
	u32 f, sh;

	if (r->win_lat[1][k] && (!lo || r->win_lat[1][k] < lo)) {
		lo = r->win_lat[1][k];
		wlo = r->win_load[1][k];
		nlo = r->win_nload[1][k];
	}
	if (lat > 0xffffffffu)
		lat = 0xffffffffu;
	if (!thr || !bot || bot >= thr || lat <= thr)
		return U64_MAX;
	sp = thr - (thr - bot) / TG_SETPOINT_DIV;
	/* the share of the whole rise (from the bottom) to remove */
	sh = (u32)tg_mul_div(tg_ppm(lat - sp, lat - bot), TG_CUT_SAFETY, 4);
	if (!lo || lo >= lat || all <= wlo) {
		f = TG_PPM;	/* no recent slope: every class by sh */
		wlo = 0;
	} else {
		f = (u32)tg_mul_div(tg_ppm(lat - sp, lat - lo), TG_CUT_SAFETY, 4);
		/*
		 * The most a class gives: that share of the rise since the
		 * recent low point if the low-priority groups' load rose since
		 * by 1/TG_WIN_RISE of the whole or more (an arrival), of the
		 * whole rise if not (a marginal over beside a settled level
		 * asks little; a victim's own traffic moving with its noise is
		 * no arrival).
		 */
		if (r->nload[k] > nlo && r->nload[k] - nlo >= all / TG_WIN_RISE)
			sh = f;
		if (whole) {
			f = TG_PPM;
			sh = TG_PPM;
		}
	}
	if (sh > *share)
		*share = sh > TG_PPM ? TG_PPM : sh;
	return tg_mul_div(all - wlo, f, TG_PPM);
}

/* a group the cut of this period has already cut */
static bool tg_rem_cut_now(const struct tg_reg_group *g)
{
	return g->last.policy == TG_POL_REMEDIAL && g->last.action == TG_ACT_THROTTLE;
}

/*
 * The class of MT²'s order a group is cut in: the first it ranks in
 * (tg_order_values(), above the noise floor) while it can go lower; -1 if
 * none or it is not blamed.
 */
static int tg_rem_class(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			const struct tg_reg_group *g, const u64 level[TG_NR_KINDS],
			u32 over, u64 *val)
{
	u64 v[TG_ORDER_CLASSES];
	int o;

	if (!tg_rem_candidate(g) || !tg_blamed_load(g->cut_load, level, over))
		return -1;
	/* its limit has just cut it: what that leaves is not measured yet */
	if (g->prev_settle.left && g->prev_settle.expect < g->prev_settle.from &&
	    g->prev_settle.age <= cfg->dead_periods / 2)
		return -1;
	/* its last period: (almost) nothing - the averages still show what it stopped */
	if (tg_unthrottled_bps(r, cfg, g, true) < cfg->noise_floor_bps)
		return -1;
	if (tg_throttled(&g->rem, cfg) && g->x <= tg_x_min(r, cfg, g))
		return -1;
	tg_order_values(g, g->cut_load, level, over, v);
	for (o = 0; o < TG_ORDER_CLASSES; o++)
		if (v[o] > cfg->noise_floor_bps) {
			*val = v[o];
			return o;
		}
	return -1;
}

/*
 * The class a group is cut in by this pass: tg_rem_class(), among the
 * class's peers - its traffic there at least 1/TG_CLASS_PEER of the most
 * any group of the class has (top[]); smaller ones are left to a later
 * cut, if one is needed once the large ones are measured.
 */
static int tg_rem_peer(const struct tg_reg_group *g, const u64 top[TG_ORDER_CLASSES])
{
	int o = g->cut_class;

	if (tg_rem_cut_now(g))
		return -1;
	return o >= 0 && g->cut_val >= top[o] / TG_CLASS_PEER ? o : -1;
}

/* cut one group to keep `keep` (ppm) of its allowance; the drop it predicts */
static u64 tg_rem_cut_group(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			    struct tg_reg_group *g, int idx, int o, u32 keep)
{
	u64 from = tg_total(g), expect;
	u32 x0 = g->x, want;
	u32 mba0 = g->rem.mba;

	if (!tg_throttled(&g->rem, cfg)) {	/* the first cut of an episode */
		g->x = TG_PPM;
		x0 = TG_PPM;
		g->dram_ladder = tg_order_kinds[o] == TG_DRAM_KINDS;
		/* the CPU time it takes unthrottled: raw, the average may lag */
		g->u_ref = g->cpu_usage_us > g->cpu_now_us ? g->cpu_usage_us : g->cpu_now_us;
		if (!g->u_ref)
			g->u_ref = r->quota_cap;
		/* its traffic per CPU time unthrottled (both averages lag alike) */
		g->mem_rate = tg_div64_u64(tg_total(g), g->cpu_usage_us ? g->cpu_usage_us : 1);
		g->x_bad = TG_NEVER;
	}
	want = (u32)tg_mul_div(x0, keep, TG_PPM);
	if (g->x_mem < want)
		want = g->x_mem;	/* as far as it was held before it idled */
	g->x_mem = TG_PPM;
	g->mem_left = 0;
	want = tg_x_down(r, cfg, g, want);
	if (want >= x0)
		return 0;
	/* it was settled there: that allowance is unsafe now */
	if (g->relax_age > cfg->dead_periods && (g->x_bad == TG_NEVER || x0 < g->x_bad))
		g->x_bad = x0;
	if (g->dram_ladder && want > tg_x_lo(cfg, g)) {
		/*
		 * The MBA level the cut steps down by comes on top of the
		 * quota's share: counted on, a response that is not there (no
		 * effect above a knee) would leave the cut short. At worst it
		 * cuts one level's ratio deeper; the search gives it back.
		 */
		u32 old = tg_mba_ppm(cfg, g->mba_lvl), lvl = g->mba_lvl;

		lvl = lvl > cfg->mba_min + cfg->mba_step ? lvl - cfg->mba_step : cfg->mba_min;
		if (tg_x_mba(cfg, want) < lvl && old)
			want = (u32)tg_mul_div(want, tg_mba_ppm(cfg, lvl), old);
	}
	g->x = want;
	g->hold = false;
	g->probe = false;
	g->grow = 0;
	g->idle_run = 0;
	g->mem_class = (s8)o;
	tg_x_apply(r, cfg, g, true);
	tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_THROTTLE,
		  g->rem.mba < mba0 ? TG_MECH_MBA : TG_MECH_CPU, tg_order_why[o],
		  o == 0 ? TG_NVM_WRITE : o == 1 ? TG_NVM_READ : TG_DRAM_READ);
	expect = tg_mul_div(from, tg_ppm(want, x0), TG_PPM);
	/*
	 * judged on what it predicts until its smoothed traffic shows all of
	 * it or dead_periods passed (reg_blame.c)
	 */
	tg_settle_start(&g->rem_pend, cfg, TG_NEVER, false, from, expect);
	return from - expect;
}

/*
 * One pass of the sized cut over the groups not cut yet, blamed at
 * `level`: the load each kind over still needs removed (need, updated)
 * taken class by class in MT²'s order, every group of a class by the same
 * share - at most `share` (of the latency's rise to remove), at least
 * 1/TG_CUT_MIN; the next class only for what the classes before it could
 * not give. Without a slope (share 0), the first class alone by cut_pct.
 * whole (an arrival's whole rise): only the groups that rose
 * (tg_rem_rising()) - the rise a steady group did not make is not taken
 * from it (their smoothed loads lag the rise: the arrivals give less than
 * it, and the rest would fall on the next class). gave: the load removed,
 * per kind; *best, *best_drop: the group whose cut predicts the largest
 * drop.
 */
static void tg_rem_cut_pass(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			    struct tg_reg_group *groups, u32 nr, u32 over,
			    const u64 level[TG_NR_KINDS], u64 need[TG_NR_KINDS],
			    u64 gave[TG_NR_KINDS], u32 share, bool whole, int *best,
			    u64 *best_drop)
{
	u64 cls[TG_ORDER_CLASSES][TG_NR_KINDS] = { { 0 } }, top[TG_ORDER_CLASSES] = { 0 };
	u32 cut[TG_ORDER_CLASSES] = { 0 }, i;
	int k, o;

	/* each group's class, once (cut_class, cut_val: this pass's scratch) */
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];
		u64 v = 0;

		g->cut_class = -1;
		if (tg_rem_cut_now(g))
			continue;
		o = tg_rem_class(r, cfg, g, level, over, &v);
		if (whole && !tg_rem_rising(g))
			o = -1;
		g->cut_class = o;
		g->cut_val = v;
		if (o >= 0 && v > top[o])
			top[o] = v;
	}
	for (i = 0; i < nr; i++) {
		o = tg_rem_peer(&groups[i], top);
		if (o < 0)
			continue;
		for (k = 0; k < TG_NR_KINDS; k++)
			cls[o][k] = tg_sat_add(cls[o][k], groups[i].cut_load[k]);
		cut[o] = 1;
	}
	for (o = 0; o < TG_ORDER_CLASSES; o++) {
		u32 f = 0;

		if (!cut[o])
			continue;
		if (!share) {
			f = TG_PPM / 100 * cfg->cut_pct;
		} else {
			for (k = 0; k < TG_NR_KINDS; k++)
				if (need[k] && cls[o][k] && tg_ppm(need[k], cls[o][k]) > f)
					f = tg_ppm(need[k], cls[o][k]);
			if (f > share)	/* no class by more than the rise to remove */
				f = share;
		}
		if (!f) {
			cut[o] = 0;
			continue;
		}
		if (f < TG_PPM / TG_CUT_MIN)
			f = TG_PPM / TG_CUT_MIN;
		cut[o] = f < TG_PPM ? TG_PPM - f : 1;
		for (k = 0; k < TG_NR_KINDS; k++) {
			u64 g = tg_mul_div(cls[o][k], f, TG_PPM);

			gave[k] = tg_sat_add(gave[k], g);
			need[k] = need[k] > g ? need[k] - g : 0;
		}
		if (!share || !(need[0] | need[1] | need[2] | need[3])) {
			while (++o < TG_ORDER_CLASSES)
				cut[o] = 0;
			break;
		}
	}
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];
		u64 drop;

		o = tg_rem_peer(g, top);
		if (o < 0 || !cut[o])
			continue;
		drop = tg_rem_cut_group(r, cfg, g, (int)i, o, cut[o]);
		if (drop > *best_drop || *best < 0) {
			*best_drop = drop;
			*best = (int)i;
		}
	}
}

/*
 * The sized cut: tg_rem_need() per kind over, taken by tg_rem_cut_pass()
 * from the groups blamed now. A group blamed only once they are cut (it
 * made 2 % of the rise beside a writer now at its floor, 40 % of what is
 * left) is cut after the dead time - not now: the blame rule judges what
 * is measured. The dead time tracks the group whose cut predicts the
 * largest drop. whole: tg_rem_need()'s (the whole rise since the low
 * point), from the groups that rose only; none blamed: the sized cut.
 */
void tg_rem_cut(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		const struct tg_detector *det, struct tg_reg_group *groups,
		u32 nr, u32 over, bool whole)
{
	u64 level[TG_NR_KINDS], all[TG_NR_KINDS], need[TG_NR_KINDS];
	u64 gave[TG_NR_KINDS] = { 0 }, best_drop = 0;
	u32 share = 0;
	bool slope = true;
	int k, best = -1;

	tg_blame_cut(cfg, groups, nr, level, all);
again:
	for (k = 0; k < TG_NR_KINDS; k++) {
		need[k] = over & BIT(k) ? tg_rem_need(r, det, k, &share, whole) : 0;
		if (need[k] == U64_MAX)
			slope = false;
	}
	if (!slope)
		share = 0;
	tg_rem_cut_pass(r, cfg, groups, nr, over, level, need, gave, share,
			whole && slope, &best, &best_drop);
	if (best < 0 && whole && slope) {
		/* none blamed rose: the sized cut of the others */
		whole = false;
		share = 0;
		goto again;
	}
	if (best < 0) {
		/* none to blame: hold, and look again after relax_periods */
		r->cut_wait = cfg->relax_periods;
		return;
	}
	tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, tg_total(&groups[best]),
			tg_total(&groups[best]) - best_drop);
	r->cut_group = best;
}

/*
 * A group released as idle (tg_rem_idle(), its tasks still there) with an
 * allowance remembered (x_mem) for TG_QUIET_MEM dead times: whether its
 * last period's traffic is back over the noise floor.
 */
static bool tg_rem_is_back(const struct tg_reg_cfg *cfg, const struct tg_reg_group *g)
{
	return g->mem_left && g->x_mem < TG_PPM && !tg_throttled(&g->rem, cfg) &&
	       tg_raw_total(g) >= cfg->noise_floor_bps;
}

/* a returning group's CPU time: the larger of this period's and its average (below) */
static u64 tg_rem_cpu(const struct tg_reg_group *g)
{
	return g->cpu_now_us > g->cpu_usage_us ? g->cpu_now_us : g->cpu_usage_us;
}

/*
 * Back as the workload it was: its traffic per CPU time at least
 * 1/TG_RETURN_RATE_DIV of what it was when first cut. A neighbour
 * switching on comes back at its rate per CPU time; one whose traffic fell
 * while its process still runs (its noise stopped: a trickle per CPU
 * second) is not a return, whatever the blame level. The CPU time is the
 * larger of this period's and its average: one back from a long sleep
 * (its average low) is judged on this period's, however little it ran;
 * one that ran on all along (its average high) but barely in this period
 * - a loaded host - is judged on what it runs, not on a sliver beside
 * traffic its counters carried over from the periods before (they need not
 * tick with the scheduler). Seen in the guest's
 * remedial_closed_loop_bystander under load: the trickle read as a return.
 * The price: one back from a short sleep whose average a (of a period)
 * has not decayed yet, and back for less than 7a/15 of this period, waits
 * one period (at 0.1 s off, a <= 0.26: the last 12 % of a period at worst).
 */
static bool tg_rem_same_rate(const struct tg_reg_group *g)
{
	u64 cpu = tg_rem_cpu(g);
	u64 now = tg_div64_u64(tg_raw_total(g), cpu ? cpu : 1);

	return now >= g->mem_rate / TG_RETURN_RATE_DIV;
}

/*
 * tg_rem_back() - tg_rem_is_back(), in the per-group loop: then
 * tg_rem_return() judges it; its memory counts down while it is not back
 * (and in tg_rem_return() while it is back but not blamed).
 */
bool tg_rem_back(const struct tg_reg_cfg *cfg, struct tg_reg_group *g)
{
	if (!g->mem_left || tg_throttled(&g->rem, cfg))
		return false;
	if (tg_rem_is_back(cfg, g))
		return true;
	g->mem_left--;
	return false;
}

/**
 * tg_rem_return() - quiet groups whose traffic is back: throttled again at once
 * @r:      regulator state (r->load: this period's loads, tg_rem_observe())
 * @cfg:    configuration
 * @groups: every group
 * @nr:     number of groups
 * @used:   the kinds the high-priority groups live with (none: nothing to do)
 *
 * Each group back (tg_rem_is_back()) whose last period's traffic, weighted
 * by the blame matrix, reaches blame_pct of this period's load of a kind
 * protected (the same raw rates: a group back at the noise floor is no
 * neighbour) is throttled at the allowance it was released from (x_mem),
 * on the ladder it had (u_ref and its MBA level kept), in the period the
 * module sees it back - not after the periods a reading over and a cut
 * take: a neighbour switching on and off is let through for one period per
 * return, not for the detection's (issue 21 item 3). Its search starts
 * over from there (no bound known: it steps up while the latency allows).
 * Then the dead time: the latency of the period it came back in, and of
 * the inputs' lag after it, shows its unthrottled traffic. It ends once
 * the group's raw traffic has fallen halfway from that period's to what
 * the allowance predicts (its average, rising from its quiet, tells
 * nothing), and no sooner than TG_RETURN_MIN periods (the latency follows
 * the traffic with the platform's delay): a level too high is cut again
 * within the on phase of a neighbour switching every 0.3 s. A dead time
 * already running (a cut not measured yet) becomes the whole wait, as
 * after an undo: never shorter than the one running, and not ended by
 * that cut's group alone. Called only when tg_rem_back() found one;
 * O(groups) then.
 *
 * Return: whether one was throttled again.
 */
bool tg_rem_return(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		   struct tg_reg_group *groups, u32 nr, u32 used)
{
	u64 level[TG_NR_KINDS], load[TG_NR_KINDS], best = 0, best_from = 0;
	int k, cut = -1;
	u32 i;

	for (k = 0; k < TG_NR_KINDS; k++)
		level[k] = tg_mul_div(r->load[k], cfg->blame_pct, 100);
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];
		int o = g->mem_class;
		u64 from, expect, cpu;

		if (!tg_rem_candidate(g) || !tg_rem_is_back(cfg, g))
			continue;
		for (k = 0; k < TG_NR_KINDS; k++)
			load[k] = tg_blame_row(g->bps_now.v, tg_blame_w[k]);
		if (!tg_blamed_load(load, level, used) || !tg_rem_same_rate(g)) {
			g->mem_left--;
			continue;
		}
		g->mem_left = 0;
		g->x = g->x_mem;
		g->x_mem = TG_PPM;
		g->x_bad = TG_NEVER;
		g->hold = false;
		g->probe = false;
		g->grow = 0;
		g->idle_run = 0;
		g->mba_lvl = g->dram_ladder ? g->mba_mem : cfg->mba_max;
		tg_x_apply(r, cfg, g, false);
		if (!tg_throttled(&g->rem, cfg)) {
			g->x = TG_PPM;
			continue;
		}
		if (o < 0 || o >= TG_ORDER_CLASSES)
			o = g->dram_ladder ? TG_ORDER_CLASSES - 1 : 0;
		tg_decide(r, g, (int)i, TG_POL_REMEDIAL, TG_ACT_THROTTLE,
			  g->rem.mba < cfg->mba_max ? TG_MECH_MBA : TG_MECH_CPU, tg_order_why[o],
			  o == 0 ? TG_NVM_WRITE : o == 1 ? TG_NVM_READ : TG_DRAM_READ);
		/*
		 * its rate unthrottled: the period it came back in, over the
		 * CPU time it had then (back partway through, it under-reads),
		 * read as the guard reads it (tg_rem_same_rate()): a group that
		 * ran all along with a sliver of this period is not scaled up
		 * by the sliver
		 */
		from = tg_raw_total(g);
		cpu = tg_rem_cpu(g);
		if (cpu && cpu < g->u_ref && g->u_ref <= 0xffffffffu)
			from = tg_mul_div(from, (u32)g->u_ref, (u32)cpu);
		expect = tg_mul_div(from, g->x, TG_PPM);
		tg_settle_start(&g->rem_pend, cfg, TG_NEVER, false, from, expect);
		if (cut < 0 || from - expect > best) {
			best = from - expect;
			best_from = from;
			cut = (int)i;
		}
	}
	if (cut < 0)
		return false;
	if (r->dead.left) {
		tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0);
		r->cut_group = -1;
		return true;
	}
	tg_settle_start(&r->dead, cfg, TG_SETTLE_RETURN, false, best_from, best_from - best);
	r->dead.raw = true;
	r->cut_group = cut;
	return true;
}

/* ---- the search --------------------------------------------------------------- */

/* hold a group where it is: its largest safe allowance (or a relapse's undo) */
void tg_rem_hold_here(const struct tg_reg_cfg *cfg, struct tg_reg_group *g,
		      u64 bps, bool relapse)
{
	g->hold = true;
	g->hold_bps = bps;
	g->hold_left = tg_hold_periods(cfg, relapse ? g->relapses : 0);
	g->probe = false;
}

/*
 * A quota that binds nothing: the group's CPU time (raw and smoothed)
 * under 1 - 1/TG_BISECT_RES of it, and no MBA throttle - it does not want
 * what it may take (its demand fell); lifting it changes nothing now (the
 * search lifts it when it knows no unsafe allowance above).
 */
static bool tg_quota_slack(const struct tg_reg_group *g)
{
	u64 q = g->rem.quota_us, use = g->cpu_usage_us > g->cpu_now_us ?
				       g->cpu_usage_us : g->cpu_now_us;

	return q != TG_QUOTA_UNLIMITED && g->rem.mba >= 100 &&
	       use < q - q / TG_BISECT_RES;
}

/* one step of the search; or, found, the hold */
void tg_rem_relax(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		  struct tg_reg_group *g, int idx, u32 res)
{
	struct tg_throttle was = g->rem;
	u32 next;

	if (!g->probe && tg_x_found(g, res)) {
		tg_rem_hold_here(cfg, g, tg_total(g), false);
		tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_HOLD, TG_MECH_NONE,
			  TG_WHY_SETTLED, -1);
		return;
	}
	if (g->x_bad == TG_NEVER && tg_quota_slack(g)) {
		next = tg_x_top(r, g);	/* its quota binds nothing: lifted */
	} else if (g->probe) {	/* one resolution step, at most to the bound */
		next = g->x + g->x / TG_BISECT_RES + 1;
		if (g->x_bad != TG_NEVER && g->x_bad > g->x && next > g->x_bad)
			next = g->x_bad;
		/*
		 * A search finer than the step (res, the block-mean law's),
		 * the bound within the step but not found at res, and the
		 * group relapsed before (its bound seen unsafe, not only
		 * guessed): halfway to the bound (tg_x_next()), not the
		 * allowance seen unsafe again - else the probes retry the
		 * bound, and the band's verdict leaves the search at 1/8.
		 */
		if (res > TG_BISECT_RES && g->relapses && g->x_bad != TG_NEVER &&
		    next >= g->x_bad && !tg_x_found(g, res))
			next = tg_x_next(g);
	} else {
		next = tg_x_next(g);
	}
	g->close = false;
	g->clear = true;
	g->over_mark = r->over_seen;
	g->x_from = g->x;
	g->mba_from = g->mba_lvl;
	g->relax_bps = tg_total(g);
	g->relax_age = 0;
	g->x = next;
	tg_x_apply(r, cfg, g, false);
	if (!tg_throttled(&g->rem, cfg))
		g->x_bad = TG_NEVER;	/* released */
	tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_RELAX,
		  g->rem.mba > was.mba ? TG_MECH_MBA : TG_MECH_CPU, TG_WHY_QUIET, -1);
}

/*
 * A kind over within the relapse window of a group's relax step: the step
 * is undone and its allowance is the new unsafe bound - every group that
 * stepped in the window, not only those whose traffic could explain the
 * over: within the window the inputs do not yet show the steps (that is
 * why it is the dead time). If the bounds are then found (or it was a
 * probe), the group is held, for longer at each relapse.
 */
void tg_rem_undo(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 struct tg_reg_group *g, int idx, u32 res)
{
	bool probe = g->probe;

	g->relax_age = TG_NEVER;
	if (g->x_bad == TG_NEVER || g->x < g->x_bad)
		g->x_bad = g->x;
	g->x = g->x_from;
	g->mba_lvl = g->mba_from;
	g->grow = 0;
	tg_x_apply(r, cfg, g, false);
	if (probe || tg_x_found(g, res)) {
		if (g->relapses < TG_NEVER)
			g->relapses++;
		tg_rem_hold_here(cfg, g, g->relax_bps, true);
	}
	g->probe = false;
	tg_decide(r, g, idx, TG_POL_REMEDIAL, TG_ACT_HOLD, TG_MECH_NONE,
		  TG_WHY_RELAPSE, -1);
}

static bool tg_rem_relapse(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			   struct tg_reg_group *groups, u32 nr)
{
	bool any = false;
	u32 i;

	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_candidate(g) || g->relax_age > cfg->dead_periods)
			continue;
		tg_rem_undo(r, cfg, g, (int)i, TG_BISECT_RES);
		any = true;
	}
	return any;
}

/* counts the dead time down; ends it once the cut's effect is measured */
void tg_rem_dead(struct tg_regulator *r, const struct tg_reg_group *groups,
		 u32 nr)
{
	const struct tg_reg_group *g = NULL;

	if (r->cut_group >= 0 && (u32)r->cut_group < nr &&
	    tg_rem_candidate(&groups[r->cut_group]))
		g = &groups[r->cut_group];
	/* without its group, the full wait */
	tg_settle_wait(&r->dead, !g ? r->dead.from : r->dead.raw ? tg_raw_total(g) : tg_total(g));
}

/*
 * One period of a group's hold: it ends once its traffic has halved (the
 * noise stopped: the unsafe bound is stale, the search grows again) or
 * after its hold time with nothing over (then a probe: one step to the
 * unsafe bound).
 */
void tg_rem_held(struct tg_reg_group *g, bool over)
{
	if (tg_total(g) < g->hold_bps / 2) {
		g->hold = false;	/* its noise stopped */
		g->x_bad = TG_NEVER;
		g->grow = 3;
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

/**
 * tg_rem_forget() - the window law's own state back to its start
 * @r: regulator state
 *
 * Its runs and counts of periods over, its held readings, its last
 * period's latency and the kinds falling (tg_rem_over()): what it kept
 * while the block-mean law ran is hours old when it runs again (a held
 * reading over would undo or cut at once; a stale last latency would mark
 * a kind falling and block a cut). Kept: each kind's jitter, its last
 * estimate of the latency's noise, which the next readings update (zero
 * would be the start's narrow tolerance), and the state both laws keep up
 * (tg_rem_observe()'s lows and loads; the dead time). The forgotten state
 * is struct tg_window, whole: a field added to it is forgotten too. Also
 * called when the remedial policy is switched off (tg_rem_off()).
 */
void tg_rem_forget(struct tg_regulator *r)
{
	r->win = (struct tg_window){ 0 };
}

/**
 * tg_remedial() - one period of the remedial policy over all groups
 * @r:      regulator state
 * @cfg:    configuration
 * @seen:   the detector after this period's tg_detect()
 * @groups: every group
 * @nr:     number of groups
 * @used:   the kinds it protects (tg_regulate(): what the victims live with)
 */
void tg_remedial(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *seen, struct tg_reg_group *groups, u32 nr,
		 u32 used)
{
	struct tg_detector protect = *seen;
	const struct tg_detector *det = &protect;
	u64 lo[TG_NR_KINDS] = { 0 }, hi[TG_NR_KINDS] = { 0 };
	u32 kinds, near;
	bool over, reached, close, undone = false, back = false;
	int i, k;

	/* the law sees only the latencies a high-priority group lives with */
	protect.over &= used;
	for (k = 0; k < TG_NR_KINDS; k++)
		if (!(used & BIT(k)))
			protect.thr_ns[k] = 0;
	tg_rem_hold_readings(r, cfg, &protect);
	kinds = tg_rem_over(r, det);
	near = tg_rem_near(r, det);

	/*
	 * Over for TG_OVER_FILTER periods in a row: a blip is not over. The
	 * law's over (past the noise tolerance) cuts; the detector's (at the
	 * threshold: reached) undoes the search's steps - the search settles
	 * where noise stays under the threshold, well under what cuts - and
	 * cuts too once it is over more often than not (a leaky count: +1 a
	 * period over, -1 one not, cut at 2 x dead_periods): no noise, a
	 * median latency over its threshold.
	 */
	r->win.over_run = kinds ? r->win.over_run + (r->win.over_run < TG_NEVER) : 0;
	r->win.near_run = det->over ? r->win.near_run + (r->win.near_run < TG_NEVER) : 0;
	/* a reading that confirmed an over after held periods: its second */
	if ((kinds & r->win.confirm) && r->win.over_run < TG_OVER_FILTER)
		r->win.over_run = TG_OVER_FILTER;
	if ((det->over & r->win.confirm) && r->win.near_run < TG_OVER_FILTER)
		r->win.near_run = TG_OVER_FILTER;
	if (det->over) {
		r->win.over_cnt += r->win.over_cnt < TG_NEVER;
		r->over_seen++;
	} else if (r->win.over_cnt) {
		r->win.over_cnt--;
	}
	reached = r->win.near_run >= TG_OVER_FILTER;
	/* close for TG_OVER_FILTER periods in a row: a blip is not close */
	r->win.close_run = near == TG_NEAR_CLOSE ?
			   r->win.close_run + (r->win.close_run < TG_NEVER) : 0;
	close = r->win.close_run >= TG_OVER_FILTER;
	over = r->win.over_run >= TG_OVER_FILTER || r->win.over_cnt >= 2 * cfg->dead_periods ||
	       (reached && (det->over & r->rose));
	if (!kinds || r->win.over_run < TG_OVER_FILTER)
		kinds = det->over;
	for (i = 0; i < (int)nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_count(r, cfg, g, i, lo, hi))
			continue;
		if (g->relax_age < TG_NEVER)
			g->relax_age++;
		if (g->rem_pend.left)
			tg_settle_wait(&g->rem_pend, tg_total(g));
		if (g->relax_age <= cfg->dead_periods) {
			g->close |= close;
			g->clear &= near == TG_NEAR_CLEAR;
		}
		/*
		 * A step survived its window. Close to a threshold in it: the
		 * search stops there (noise decided it); so does a probe that
		 * was not clear of it all along - one step up, held again. A
		 * probe clear of it: the unsafe bound was stale, the search goes
		 * on.
		 */
		if (g->relax_age == cfg->dead_periods + 1 &&
		    r->over_seen - g->over_mark >= cfg->dead_periods / TG_WINDOW_OVER) {
			/* over too often in its window: a mean over, not noise */
			tg_rem_undo(r, cfg, g, i, TG_BISECT_RES);
			undone = true;
		} else if (g->relax_age == cfg->dead_periods + 1 && tg_throttled(&g->rem, cfg)) {
			if (g->close || (g->probe && !g->clear)) {
				if (g->x_bad == TG_NEVER || g->x_bad <= g->x)
					g->x_bad = g->x + g->x / TG_BISECT_RES + 1;
				tg_rem_hold_here(cfg, g, tg_total(g), false);
				tg_decide(r, g, i, TG_POL_REMEDIAL, TG_ACT_HOLD,
					  TG_MECH_NONE, TG_WHY_SETTLED, -1);
			} else if (g->probe) {
				g->x_bad = TG_NEVER;
				g->grow = 0;
			}
			g->probe = false;
		}
		/* released, and the release survived its window: backoff forgotten */
		if (!tg_throttled(&g->rem, cfg) && g->relax_age > cfg->dead_periods)
			g->relapses = 0;
		if (tg_rem_back(cfg, g))
			back = true;	/* tg_rem_return() below */
		else if (tg_throttled(&g->rem, cfg) && tg_rem_idle(r, cfg, g))
			tg_release(r, cfg, g, i, TG_POL_REMEDIAL, TG_WHY_IDLE);
		else
			tg_rem_hold(g, reached);
	}
	tg_rem_observe(r, cfg, det, lo, hi);
	tg_rem_dead(r, groups, nr);
	if (back)
		tg_rem_return(r, cfg, groups, nr, used);
	if (undone) {		/* wait for the undo (its whole dead time) */
		tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0);
		r->cut_group = -1;
	}

	if (reached || over) {
		r->win.quiet = 0;
		if (tg_rem_relapse(r, cfg, groups, nr)) {
			/* wait for the undo (its whole dead time) */
			tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0);
			r->cut_group = -1;
			return;
		}
		/*
		 * the last cut's effect not measured yet, or not all of it in
		 * the latency: one still falling gets no cut for what it has
		 */
		if (r->cut_wait)
			r->cut_wait--;
		if (!over || !kinds || r->dead.left || r->cut_wait || (kinds & r->win.falling))
			return;
		tg_rem_cut(r, cfg, det, groups, nr, kinds, false);
		r->win.over_cnt = 0;
		/* what is held over came before the cut: forgotten (none made: kept) */
		for (k = 0; k < TG_NR_KINDS && r->dead.left; k++)
			if (r->win.read_ns[k] > det->thr_ns[k]) {
				r->win.read_ns[k] = 0;
				r->win.read_over[k] = 0;
			}
		return;
	}
	/*
	 * No kind over (in the detector's band too): the search, a step each;
	 * not in a period the detector has a kind over, if only within its
	 * noise tolerance or for one period (a blip delays the step, it does
	 * not restart the wait).
	 */
	r->cut_wait = 0;
	if (det->over)
		return;
	if (++r->win.quiet < cfg->relax_periods || r->dead.left)
		return;
	r->win.quiet = 0;
	for (i = 0; i < (int)nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_candidate(g) || !tg_throttled(&g->rem, cfg) || g->hold)
			continue;
		/* each step waits out its relapse window */
		if (g->relax_age <= cfg->dead_periods)
			continue;
		tg_rem_relax(r, cfg, g, i, TG_BISECT_RES);
	}
}

/*
 * The remedial policy or the regulator off: everything it imposed is
 * lifted in the same period, its state forgotten.
 */
void tg_rem_off(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		struct tg_reg_group *groups, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		tg_release(r, cfg, &groups[i], (int)i, TG_POL_REMEDIAL,
			   TG_WHY_POLICY_OFF);
	tg_rem_forget(r);
	r->dead.left = 0;
	r->cut_group = -1;
	r->cut_wait = 0;
	r->mean = (struct tg_mean){ 0 };
}
