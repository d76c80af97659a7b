// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reg_mean.c - the block-mean law (cfg law TG_LAW_MEAN; docs/control-law.md,
 * "The block-mean law"). The remedial policy's search judged on the mean
 * latency of a block of periods, not on its peaks: a victim's own CPU noise
 * moves its latency by a few % with a correlation time of tens of periods,
 * and a law that keeps every period under the threshold leaves the
 * neighbour far less than the threshold allows. It shares the allowance
 * ladder, the sized cut, the search's steps, undo and holds with
 * reg_remedial.c; what differs is when a step is kept or undone and when
 * a cut is made:
 *
 *  1. block verdicts: a dead time after each change the law makes (a cut,
 *     a step, an undo) a block of TG_BLOCK_MULT dead times starts; its mean
 *     per protected kind, over that kind's own readings, decides: over the
 *     threshold - the pending step is undone; within the setpoint band
 *     (1/TG_BAND_DIV under it, at least 1 ns) - found, held, if the step
 *     raised a mean in the band; under the band - the search goes on.
 *     After TG_BLOCK_EARLY periods a verdict is taken early when the mean
 *     is over, or under the band, by two standard errors; while nothing
 *     changes the blocks slide by half a block;
 *  2. clear violation: readings over the threshold by TG_CLEAR_MULT spreads
 *     twice in a row - the pending step undone, or else a cut, at once;
 *  3. arrival: over the threshold on its first reading (twice in a row
 *     beside a pending step), the latency risen two spreads and the
 *     low-priority load by 1/TG_WIN_RISE of the load (plus what the
 *     pending step adds) over a reference - the last step, kept verdict,
 *     cut or undo while young, else the recent low point: a cut at once,
 *     of the load's whole rise since that low point (the search climbs
 *     back from there). Beside a pending step, only if the groups not
 *     stepping carry that rise: else it is the steps' own, and they are
 *     undone (tg_mean_other_rose()), the undo waiting as long as their
 *     rise took to show and TG_DEAD_ACT, not the whole dead time;
 *  4. segment cut: a block with no step pending whose mean is over the
 *     threshold by the cut margin (1.5 spreads, at most 1/TG_CUT_MARGIN),
 *     the kind's last reading over by it now: a cut sized from the mean,
 *     tried again for a dead time if none was blamed;
 *  5. bookkeeping: no block restart on an idle release or on a change of
 *     the protected kinds; readings clipped (TG_CLIP_DIV) in the mean, and
 *     readings over by the clear margin in a quarter of a block over; a
 *     kind read less often extends the block (TG_BLOCK_SPARSE); a kind no
 *     longer read leaves the verdict, and a verdict with no kind ends the
 *     holds; a hold counts only periods not over by the band.
 */
#include "reg_internal.h"

enum tg_verdict {
	TG_V_WAIT,	/* no verdict yet */
	TG_V_NONE,	/* no kind read in the block */
	TG_V_UNDER,	/* every kind under the setpoint band */
	TG_V_BAND,	/* a kind in the band, none over */
	TG_V_OVER,	/* a kind's mean over its threshold */
};

/*
 * A kind's spread, in 1/TG_MEAN_SUB ns: 1.25 x its mean distance from its
 * EWMA (the standard deviation of a normal noise), at least
 * 1/TG_SPREAD_LO and at most 1/TG_SPREAD_HI of its threshold.
 */
static u64 tg_mean_spread(const struct tg_mean *m, int k, u64 thr)
{
	u64 s = m->dev[k] * 5 * TG_MEAN_SUB / (4 * TG_MEAN_FIX);

	thr *= TG_MEAN_SUB;
	if (s < thr / TG_SPREAD_LO)
		s = thr / TG_SPREAD_LO;
	if (s > thr / TG_SPREAD_HI)
		s = thr / TG_SPREAD_HI;
	return s ? s : 1;
}

/* an EWMA of weight 1/TG_MEAN_EWMA, x TG_MEAN_FIX */
static u64 tg_mean_ewma(u64 avg, u64 x)
{
	return x > avg ? avg + (x - avg) / TG_MEAN_EWMA : avg - (avg - x) / TG_MEAN_EWMA;
}

/* the segment cut's margin, 1/TG_MEAN_SUB ns: 1.5 spreads, at most 1/TG_CUT_MARGIN */
static u64 tg_mean_margin(const struct tg_mean *m, int k, u64 thr)
{
	u64 s = tg_mean_spread(m, k, thr) * 3 / 2;

	thr *= TG_MEAN_SUB;
	return s < thr / TG_CUT_MARGIN ? s : thr / TG_CUT_MARGIN;
}

/*
 * Of `kinds`, those over now: a kind's last reading (a sparse kind's too,
 * over its gaps) over its threshold by the cut margin. A block's mean is
 * of the past; a latency already back under it (the neighbour left, its
 * averages not yet) is cut for no more.
 */
static u32 tg_mean_now(const struct tg_mean *m, const struct tg_detector *det, u32 kinds)
{
	u32 now = 0;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 thr = det->thr_ns[k];

		if ((kinds & BIT(k)) && thr &&
		    m->cur[k] * TG_MEAN_SUB > thr * TG_MEAN_SUB + tg_mean_margin(m, k, thr))
			now |= BIT(k);
	}
	return now;
}

/*
 * The bottom of a kind's setpoint band, in 1/TG_MEAN_SUB ns: 1/TG_BAND_DIV
 * under its threshold, at least the readings' resolution (1 ns)
 */
static u64 tg_mean_lo(u64 thr)
{
	u64 t = thr * TG_MEAN_SUB;

	return t - (t / TG_BAND_DIV > TG_MEAN_SUB ? t / TG_BAND_DIV : TG_MEAN_SUB);
}

/*
 * A kind read within this many periods is still read: runs of readings
 * hold over the gap, and it stays in the verdict (a block waits for its
 * second reading as long). Longer: its reads stopped.
 */
static u32 tg_mean_live(const struct tg_reg_cfg *cfg)
{
	return TG_BLOCK_SPARSE * TG_BLOCK_MULT * (cfg->dead_periods ? cfg->dead_periods : 1);
}

/*
 * A new block, `wait` periods from now. After a verdict that changed
 * nothing (wait 0) the new block begins with the old one's second half:
 * with no change of the law the blocks slide by half a block, so an over
 * that begins within a block is judged on a whole block of it half a
 * block later, not a whole block.
 */
static void tg_mean_restart(struct tg_mean *m, const struct tg_reg_cfg *cfg, u32 wait)
{
	u32 half = TG_BLOCK_MULT * (cfg->dead_periods ? cfg->dead_periods : 1) / 2;
	int k;

	m->wait = wait;
	m->age = !wait && m->age > half ? m->age - half : 0;
	for (k = 0; k < TG_NR_KINDS; k++) {
		m->n[k] = m->age ? m->n2[k] : 0;
		m->sum[k] = m->age ? m->sum2[k] : 0;
		m->clr[k] = m->age ? m->clr2[k] : 0;
		m->n2[k] = 0;
		m->sum2[k] = 0;
		m->clr2[k] = 0;
	}
	m->bst = m->age ? m->bst2 : 0;
	m->bst2 = 0;
}

/*
 * This period's readings: each kind's spread, its runs of readings over
 * (a period without a reading neither breaks nor extends a run, for up to
 * tg_mean_live() periods), and the block's sums. Readings within a cut's
 * dead time may predate its effect: they count in no run and no block,
 * but for a return's: in the block once TG_RETURN_COUNT periods of it have
 * passed. A period none of the groups the block judges is there in
 * (TG_PERIOD_IDLE) counts in no block.
 * *clear: kinds over by the clear margin twice in a row; *reached: over
 * the threshold now (TG_ARRIVE_FILTER), twice in a row beside a pending
 * step; return: kinds read over the band now.
 */
static u32 tg_mean_read(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			const struct tg_detector *det, u32 flags, u32 *clear, u32 *reached)
{
	struct tg_mean *m = &r->mean;
	bool count = !m->wait && !r->dead.left, burst = flags & TG_PERIOD_BURST, block;
	u32 hot = 0, arrive = m->pend ? TG_OVER_FILTER : TG_ARRIVE_FILTER;
	int k;

	/*
	 * the block: not while none of the groups it judges is there (their
	 * levels act on nothing), and in a return's dead time once
	 * TG_RETURN_COUNT periods of it have passed (rules 2 and 3 wait it out)
	 */
	block = (count || (!m->wait && r->dead.raw && r->dead.age >= TG_RETURN_COUNT)) &&
		!(flags & TG_PERIOD_IDLE);
	if (block)
		m->age++;
	else if (m->wait)
		m->wait--;
	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 lat = det->lat_ns[k], thr = det->thr_ns[k], x, d;

		if (!thr || !lat) {
			if (m->gap[k] < TG_NEVER)
				m->gap[k]++;
			if (!thr || m->gap[k] > tg_mean_live(cfg)) {
				m->clear_run[k] = 0;
				m->reach_run[k] = 0;
			}
			continue;
		}
		m->gap[k] = 0;
		if (lat > 0xffffffffu)
			lat = 0xffffffffu;
		m->cur[k] = lat;
		x = lat * TG_MEAN_FIX;
		if (!m->avg[k] || !count) {
			/*
			 * a change of the law moves the level: the spread is
			 * the noise around a level, measured within blocks
			 */
			m->avg[k] = x;
		} else {
			m->avg[k] = tg_mean_ewma(m->avg[k], x);
			d = x > m->avg[k] ? x - m->avg[k] : m->avg[k] - x;
			m->dev[k] = tg_mean_ewma(m->dev[k], d);
		}
		if (lat > thr + thr / TG_BAND_DIV)
			hot |= BIT(k);
		if (r->dead.left || burst) {
			/* rules 2 and 3 wait: a dead time, a burst */
			m->clear_run[k] = 0;
			m->reach_run[k] = 0;
		} else {
			if (lat > thr &&
			    (lat - thr) * TG_MEAN_SUB > TG_CLEAR_MULT * tg_mean_spread(m, k, thr))
				m->clear_run[k] += m->clear_run[k] < TG_NEVER;
			else
				m->clear_run[k] = 0;
			if (lat > thr)
				m->reach_run[k] += m->reach_run[k] < TG_NEVER;
			else
				m->reach_run[k] = 0;
		}
		if (m->clear_run[k] >= TG_OVER_FILTER)
			*clear |= BIT(k);
		if (m->reach_run[k] >= arrive)
			*reached |= BIT(k);
		if (block) {
			/* a burst's reading counts (almost) whole: the victim bears it */
			u64 cap = burst ? TG_BURST_CLIP * thr : thr + thr / TG_CLIP_DIV;
			u64 v = lat < cap ? lat : cap;

			m->n[k]++;
			m->sum[k] += v;
			m->clr[k] += !!m->clear_run[k];
			if (m->age > TG_BLOCK_MULT * cfg->dead_periods / 2) {
				m->n2[k]++;	/* its second half */
				m->sum2[k] += v;
				m->clr2[k] += !!m->clear_run[k];
			}
		}
	}
	if (block && burst) {
		m->bst++;
		if (m->age > TG_BLOCK_MULT * cfg->dead_periods / 2)
			m->bst2++;
	}
	return hot;
}

/*
 * The block's verdict (TG_V_WAIT: none yet). mean: each kind's block mean
 * in 1/TG_MEAN_SUB ns (0: not in the verdict) - readings are whole ns (the
 * detector's resolution, a reading at the threshold is not over), their
 * mean is not: a 2 % over of a 100 ns threshold is not lost to rounding;
 * *over: the kinds whose mean is over. A kind is
 * in it while protected and read within tg_mean_live() periods; read
 * fewer than twice in the block, the block waits for it (at most
 * TG_BLOCK_SPARSE blocks). The standard error of a mean over `age`
 * periods is taken as spread x sqrt(dead / age): readings a dead time
 * apart are about independent.
 */
static enum tg_verdict tg_mean_verdict(const struct tg_regulator *r,
				       const struct tg_reg_cfg *cfg,
				       const struct tg_detector *det,
				       u64 mean[TG_NR_KINDS], u32 *over)
{
	const struct tg_mean *m = &r->mean;
	u32 dead = cfg->dead_periods ? cfg->dead_periods : 1;
	u32 full = TG_BLOCK_MULT * dead, clearly = 0;
	bool done = m->age >= full, any = false, band = false, under = true;
	int k;

	*over = 0;
	for (k = 0; k < TG_NR_KINDS; k++)
		mean[k] = 0;
	if (m->age < TG_BLOCK_EARLY)
		return TG_V_WAIT;
	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 thr = det->thr_ns[k] * TG_MEAN_SUB, lo, s, se2, v;

		/* not protected, never read, or no longer read: not in it */
		if (!thr || !m->avg[k] || m->gap[k] > tg_mean_live(cfg))
			continue;
		if (m->n[k] < 2) {
			if (m->age < TG_BLOCK_SPARSE * full) {
				done = false;	/* read too rarely yet: wait */
				under = false;
				continue;
			}
			if (!m->n[k])
				continue;	/* none in the whole block: not in it */
		}
		lo = tg_mean_lo(det->thr_ns[k]);
		v = tg_div_u64(m->sum[k] * TG_MEAN_SUB, m->n[k]);
		any = true;
		s = tg_mean_spread(m, k, det->thr_ns[k]);
		se2 = tg_div_u64(s * s * dead, m->age > dead ? m->age : dead);
		if (v > thr) {
			*over |= BIT(k);
			if ((v - thr) * (v - thr) > 4 * se2)
				clearly |= BIT(k);
		}
		/*
		 * readings over by the clear margin in 1/TG_WINDOW_OVER of the
		 * block, not in a row (a pattern the clipped mean would hide):
		 * over, whatever the mean
		 */
		if (m->n[k] >= TG_BLOCK_EARLY && m->clr[k] * TG_WINDOW_OVER >= m->n[k]) {
			*over |= BIT(k);
			clearly |= BIT(k);
			/* and a cut's size: just over the cut margin */
			if (v <= thr + thr / TG_CUT_MARGIN)
				v = thr + thr / TG_CUT_MARGIN + 1;
		}
		mean[k] = v;
		if (v >= lo && v <= thr)
			band = true;
		if (v >= lo || (lo - v) * (lo - v) <= 4 * se2)
			under = false;
	}
	if (clearly) {
		*over = clearly;
		return TG_V_OVER;
	}
	if (!done)
		return any && under ? TG_V_UNDER : TG_V_WAIT;
	if (*over)
		return TG_V_OVER;
	if (band)
		return TG_V_BAND;
	return any ? TG_V_UNDER : TG_V_NONE;
}

/* a step's or a cut's rise is accepted load from now: the arrival's reference */
static void tg_mean_ref(struct tg_regulator *r)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		r->mean.ref_nload[k] = r->nload[k];
		r->mean.ref_lat[k] = r->mean.cur[k];
	}
	r->mean.ref_age = 0;
}

/*
 * Rule 3, the arrival: kinds over the threshold (tg_mean_read()'s reached:
 * on the first reading, twice in a row beside a pending step) whose
 * latency rose two spreads and whose low-priority load rose by
 * 1/TG_WIN_RISE of the whole load - plus what the pending step adds - over
 * a reference: the latency and load at the last step, kept verdict, cut or
 * undo (the step's own: an undone step is no accepted load) while younger
 * than TG_WIN_MULT dead times, else the recent low point's
 * (tg_rem_observe()). A step's own rise is no arrival.
 */
static u32 tg_mean_arrival(const struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			   const struct tg_detector *det, u32 reached)
{
	const struct tg_mean *m = &r->mean;
	u32 kinds = 0;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 ref = r->win_nload[0][k], lo = r->win_lat[0][k], need;

		if (!(reached & BIT(k)))
			continue;
		if (r->win_lat[1][k] && (!lo || r->win_lat[1][k] < lo)) {
			lo = r->win_lat[1][k];
			ref = r->win_nload[1][k];
		}
		/* the reference while young: the load and latency it was set at */
		if (m->ref_age < TG_WIN_MULT * cfg->dead_periods && m->ref_lat[k]) {
			lo = m->ref_lat[k];
			ref = m->ref_nload[k];
		}
		/* risen: two spreads over it */
		if (!lo || det->lat_ns[k] * TG_MEAN_SUB <
			   lo * TG_MEAN_SUB + 2 * tg_mean_spread(m, k, det->thr_ns[k]))
			continue;
		need = r->load[k] / TG_WIN_RISE;
		if (m->pend)
			need = tg_sat_add(need, m->add[k]);
		if (r->nload[k] > ref && r->nload[k] - ref >= need)
			kinds |= BIT(k);
	}
	return kinds;
}

/*
 * The low-priority load of the groups with no step pending, in the rows of
 * nload (this period's rates): nload less the stepping groups'.
 */
static void tg_mean_others(const struct tg_regulator *r, const struct tg_reg_group *groups,
			   u32 nr, u64 other[TG_NR_KINDS])
{
	u64 b[TG_NR_KINDS] = { 0 }, p;
	u32 i;
	int k;

	for (i = 0; i < nr; i++) {
		if (!groups[i].pend || !groups[i].active)
			continue;
		for (k = 0; k < TG_NR_KINDS; k++)
			b[k] = tg_sat_add(b[k], groups[i].bps_now.v[k]);
	}
	for (k = 0; k < TG_NR_KINDS; k++) {
		p = tg_blame_row(b, tg_blame_w[k]);
		other[k] = r->nload[k] > p ? r->nload[k] - p : 0;
	}
}

/*
 * Beside a pending step, an arrival in `kinds` (tg_mean_arrival(), whose
 * rise counts what the steps' loads predict: m->add): whether the groups
 * not stepping carry it - their load risen by 1/TG_WIN_RISE of the whole
 * over theirs at the step (m->ref_other). Else the rise is the steps' own,
 * larger than their loads predicted (an MBA level whose response is not
 * linear in it), and the steps are undone, not cut for.
 */
static bool tg_mean_other_rose(const struct tg_regulator *r, const struct tg_reg_group *groups,
			       u32 nr, u32 kinds)
{
	const u64 *ref = r->mean.ref_other;
	u64 other[TG_NR_KINDS];
	int k;

	tg_mean_others(r, groups, nr, other);
	for (k = 0; k < TG_NR_KINDS; k++)
		if ((kinds & BIT(k)) && other[k] > ref[k] &&
		    other[k] - ref[k] >= r->load[k] / TG_WIN_RISE)
			return true;
	return false;
}

/*
 * A sized cut for `kinds`, at this period's latencies or at `lat` (a
 * block's means, in 1/TG_MEAN_SUB ns); whole: of the load's whole rise
 * since the recent low point (an arrival on its first reading: a partial
 * rise, the smoothed loads lag it, and a secant on it falls short where
 * the latency is concave in the load). Return: whether it cut (a group blamed): a pending step
 * is then forgotten (the cut supersedes it) and so are the runs of
 * readings, which came before it.
 */
static bool tg_mean_cut(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			const struct tg_detector *det, struct tg_reg_group *groups,
			u32 nr, u32 kinds, const u64 *lat, bool whole)
{
	struct tg_detector view = *det;
	u32 i;
	int k;

	for (k = 0; lat && k < TG_NR_KINDS; k++)
		if (kinds & BIT(k))
			view.lat_ns[k] = (lat[k] + TG_MEAN_SUB - 1) / TG_MEAN_SUB;
	tg_rem_cut(r, cfg, &view, groups, nr, kinds, whole);
	if (!r->dead.left)
		return false;
	for (i = 0; i < nr; i++)
		groups[i].pend = false;
	r->mean.pend = false;
	for (k = 0; k < TG_NR_KINDS; k++) {
		r->mean.clear_run[k] = 0;
		r->mean.reach_run[k] = 0;
	}
	tg_mean_ref(r);
	return true;
}

/*
 * The pending step undone: its allowance the new unsafe bound
 * (tg_rem_undo()). No cut before the undo's whole dead time: until then
 * the latency shows the step.
 */
static void tg_mean_undo(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *groups, u32 nr)
{
	u32 i;

	tg_settle_start(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0);
	r->cut_group = -1;
	r->mean.ref_age = 0;	/* the load before the step, from now */
	for (i = 0; i < nr; i++) {
		if (!groups[i].pend)
			continue;
		groups[i].pend = false;
		tg_rem_undo(r, cfg, &groups[i], (int)i, TG_MEAN_RES);
	}
	r->mean.pend = false;
}

/* steps made: their load is the arrival's reference, and the others' apart */
static void tg_mean_stepped(struct tg_regulator *r, const struct tg_reg_group *groups, u32 nr)
{
	tg_mean_ref(r);
	tg_mean_others(r, groups, nr, r->mean.ref_other);
}

/*
 * One step of the search for group g (tg_rem_relax(): found, it is held
 * instead); a step is pending, and adds (m->add) what its loads predict
 * for its allowance's rise.
 */
static void tg_mean_step1(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			  struct tg_reg_group *g, u32 i)
{
	struct tg_mean *m = &r->mean;
	u64 load[TG_NR_KINDS];
	u32 x0 = g->x ? g->x : 1;
	int k;

	if (!g->probe && tg_x_found(g, TG_MEAN_RES)) {
		tg_rem_relax(r, cfg, g, (int)i, TG_MEAN_RES);	/* found: held */
		return;
	}
	tg_blame_loads(g, load);
	tg_rem_relax(r, cfg, g, (int)i, TG_MEAN_RES);
	g->pend = true;
	m->pend = true;
	for (k = 0; g->x > x0 && k < TG_NR_KINDS; k++)
		m->add[k] = tg_sat_add(m->add[k], tg_mul_div(load[k], g->x - x0, x0));
}

/*
 * One step of the search for every throttled group not held. Return:
 * whether one stepped (a change: the next block waits a dead time). add:
 * the load the steps add, predicted from each group's loads and its
 * allowance's rise (for the arrival rule).
 */
static bool tg_mean_step(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			 struct tg_reg_group *groups, u32 nr)
{
	struct tg_mean *m = &r->mean;
	u32 i;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		m->add[k] = 0;
	m->pend = false;
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (tg_rem_candidate(g) && tg_throttled(&g->rem, cfg) && !g->hold)
			tg_mean_step1(r, cfg, g, i);
	}
	if (m->pend) {
		tg_mean_stepped(r, groups, nr);
		m->step_age = 0;
	}
	return m->pend;
}

/*
 * Every throttled group not held is held where it is: the level is found.
 * probe: a group whose hold ended by time probes instead - one step of
 * the search (one resolution step, at most to its unsafe bound), judged
 * by the next block: the search creeps up where the latency sits in the
 * band. Return: whether one stepped.
 */
static bool tg_mean_settle(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			   struct tg_reg_group *groups, u32 nr, bool probe)
{
	struct tg_mean *m = &r->mean;
	u32 i;
	int k;

	for (k = 0; probe && k < TG_NR_KINDS; k++)
		m->add[k] = 0;
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_candidate(g) || !tg_throttled(&g->rem, cfg) || g->hold)
			continue;
		if (probe && g->probe) {
			tg_mean_step1(r, cfg, g, i);
			continue;
		}
		if (g->x_bad == TG_NEVER || g->x_bad <= g->x)
			g->x_bad = g->x + g->x / TG_BISECT_RES + 1;
		g->probe = false;
		tg_rem_hold_here(cfg, g, tg_total(g), false);
		tg_decide(r, g, (int)i, TG_POL_REMEDIAL, TG_ACT_HOLD, TG_MECH_NONE,
			  TG_WHY_SETTLED, -1);
	}
	if (m->pend) {
		tg_mean_stepped(r, groups, nr);
		m->step_age = 0;
	}
	return m->pend;
}

/*
 * What this period's readings are (flags for tg_mean_read()).
 *
 * TG_PERIOD_BURST, a burst is no violation (tg_core.h): they act through
 * the block's mean only - a low-priority group under a CPU quota ran past
 * it, just out of a park, by no more than the debt the module carries
 * (repaying a debt), and no group outside such a cycle rose to the noise
 * floor or over (an arrival beside a burst is still one; a group with no
 * traffic at all is no arrival).
 *
 * TG_PERIOD_IDLE: none of the groups the block judges is there, so the
 * readings say nothing of their levels (a neighbour's off phase). Judged:
 * the low-priority groups under a throttle, and those released as idle
 * and still remembered (x_mem, mem_left); there: moving data at the noise
 * floor or over, or throttled and not idle by tg_rem_idle()'s count (last
 * period's; a group parked by its debt is not idle: unthrottled, it would
 * move data). With none judged, any low-priority group there will do; a
 * bystander's traffic does not make a judged group's off phase count.
 *
 * Updates each group's park_age. Return: TG_PERIOD_* flags.
 */
/*
 * A low-priority group outside a debt cycle (tg_mean_classify()'s park_age)
 * rose, at the noise floor or over: an arrival beside a burst. Asked only in
 * a period with a burst (the rise costs a pass over every group's rates).
 */
static bool tg_mean_arrived(const struct tg_reg_cfg *cfg, const struct tg_reg_group *groups,
			    u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		const struct tg_reg_group *g = &groups[i];
		u64 raw;

		if (!tg_rem_candidate(g) || g->park_age <= TG_BURST_PARKED)
			continue;
		raw = tg_raw_total(g);
		if (raw >= cfg->noise_floor_bps && tg_rem_rose(g, raw))
			return true;
	}
	return false;
}

static u32 tg_mean_classify(const struct tg_reg_cfg *cfg, struct tg_reg_group *groups, u32 nr)
{
	bool any = false, there = false, judged = false, judged_there = false;
	u32 flags = 0, i;

	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];
		u64 q = g->out.quota_us, use = g->cpu_now_us;
		bool thr, here;

		if (!tg_rem_candidate(g)) {
			g->park_age = TG_NEVER;
			continue;
		}
		if (q == TG_QUOTA_UNLIMITED) {
			g->park_age = TG_NEVER;
		} else {
			if (!use)
				g->park_age = 0;
			else if (g->park_age < TG_NEVER)
				g->park_age++;
			if (g->park_age <= TG_BURST_PARKED && use > q + q / TG_BURST_DIV &&
			    use - q <= q * TG_BURST_DEBT)
				flags |= TG_PERIOD_BURST;
		}
		any = true;
		if (judged_there)
			continue;	/* not idle, whatever the others are */
		here = tg_raw_total(g) >= cfg->noise_floor_bps;
		thr = tg_throttled(&g->out, cfg);
		here = here || (thr && !g->idle_run);
		there |= here;
		if (thr || g->mem_left) {
			judged = true;
			judged_there = here;
		}
	}
	if ((flags & TG_PERIOD_BURST) && tg_mean_arrived(cfg, groups, nr))
		flags &= ~TG_PERIOD_BURST;
	if (judged ? !judged_there : any && !there)
		flags |= TG_PERIOD_IDLE;
	return flags;
}

/*
 * A kind in its band (or over) whose block mean rose by half a ns over the
 * last verdict's block
 */
static bool tg_mean_rose(const struct tg_mean *m, const struct tg_detector *det,
			 const u64 mean[TG_NR_KINDS])
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		if (mean[k] && mean[k] >= tg_mean_lo(det->thr_ns[k]) &&
		    (!m->last[k] || mean[k] >= m->last[k] + TG_MEAN_SUB / 2))
			return true;
	return false;
}

/*
 * Rules 1 and 4: what the block's verdict does. Return: whether the law
 * changed a throttle (the next block waits a dead time).
 */
static bool tg_mean_judge(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
			  const struct tg_detector *det, struct tg_reg_group *groups,
			  u32 nr, enum tg_verdict v, const u64 mean[TG_NR_KINDS], u32 over)
{
	struct tg_mean *m = &r->mean;
	u32 kinds = 0, now, i;
	int k;

	if (m->pend) {
		if (v == TG_V_OVER) {
			tg_mean_undo(r, cfg, groups, nr);	/* no accepted load */
			return true;
		}
		/*
		 * In the band, but the step raised no mean by half a ns (the
		 * readings' resolution) over the block before it: the latency
		 * sits there without this traffic - not its level, search on.
		 */
		if (v == TG_V_BAND && !tg_mean_rose(m, det, mean))
			v = TG_V_UNDER;
		tg_mean_ref(r);		/* kept: its load is accepted */
		for (i = 0; i < nr; i++) {
			struct tg_reg_group *g = &groups[i];

			if (!g->pend)
				continue;
			g->pend = false;
			if (g->probe && v != TG_V_BAND) {
				g->x_bad = TG_NEVER;	/* a probe under: the bound was stale */
				g->grow = 0;
			}
			g->probe = false;
		}
		m->pend = false;
		if (v == TG_V_BAND) {
			tg_mean_settle(r, cfg, groups, nr, false);
			return false;
		}
		return tg_mean_step(r, cfg, groups, nr);
	}
	switch (v) {
	case TG_V_OVER:
		for (k = 0; k < TG_NR_KINDS; k++) {
			u64 thr = det->thr_ns[k] * TG_MEAN_SUB;

			if ((over & BIT(k)) && mean[k] > thr + tg_mean_margin(m, k, det->thr_ns[k]))
				kinds |= BIT(k);
		}
		if (!kinds || r->cut_wait || r->dead.left)
			return false;	/* within the cut margin: the next block judges */
		now = tg_mean_now(m, det, kinds);
		if (now && tg_mean_cut(r, cfg, det, groups, nr, now, mean, false))
			return true;
		/*
		 * over now but none blamed now (a neighbour idle this very
		 * period: the cut looks at its last period), or not over now in
		 * a block made over by its readings over the clear margin (a
		 * neighbour on and off): tried again every period for a dead
		 * time, while a reading is over, the block's means kept. A mean
		 * over of a latency already back under it (the neighbour left)
		 * is cut for no more.
		 */
		for (k = 0; !now && k < TG_NR_KINDS; k++)
			if ((kinds & BIT(k)) && (m->clr[k] * TG_WINDOW_OVER >= m->n[k] || m->bst))
				now |= BIT(k);
		if (!now)
			return false;
		m->want = now;
		/* over with bursts in it: cut at the next burst's reading */
		m->want_left = cfg->dead_periods ? cfg->dead_periods : 1;
		if (m->bst)
			m->want_left *= TG_BURST_WAIT;
		for (k = 0; k < TG_NR_KINDS; k++)
			m->want_lat[k] = mean[k];
		return false;
	case TG_V_BAND:
		return tg_mean_settle(r, cfg, groups, nr, true);
	case TG_V_NONE:
		/* no kind read: what held a group protects nothing now */
		for (i = 0; i < nr; i++)
			if (groups[i].hold) {
				groups[i].hold = false;
				groups[i].x_bad = TG_NEVER;
			}
		return tg_mean_step(r, cfg, groups, nr);
	default:
		return tg_mean_step(r, cfg, groups, nr);
	}
}

/**
 * tg_rem_mean() - one period of the remedial policy under the block-mean law
 * @r:      regulator state
 * @cfg:    configuration (cfg->law == TG_LAW_MEAN)
 * @seen:   the detector after this period's tg_detect()
 * @groups: every group
 * @nr:     number of groups
 * @used:   the kinds it protects
 *
 * Context: the caller's period; no locks of its own.
 */
void tg_rem_mean(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *seen, struct tg_reg_group *groups,
		 u32 nr, u32 used)
{
	struct tg_detector protect = *seen;
	const struct tg_detector *det = &protect;
	struct tg_mean *m = &r->mean;
	u64 lo[TG_NR_KINDS] = { 0 }, hi[TG_NR_KINDS] = { 0 }, mean[TG_NR_KINDS];
	u32 clear = 0, reached = 0, hot, kinds, over = 0, i;
	enum tg_verdict v;
	bool change = false, back = false;
	int k;

	protect.over &= used;
	for (k = 0; k < TG_NR_KINDS; k++) {
		if ((used & BIT(k)) && seen->thr_ns[k]) {
			m->thr[k] = seen->thr_ns[k];
			m->pgap[k] = 0;
			continue;
		}
		protect.thr_ns[k] = 0;
		if (!seen->thr_ns[k])
			m->thr[k] = 0;	/* no threshold now: nothing to keep */
		/*
		 * a kind the victims lived with a moment ago still counts (a
		 * flipping set of protected kinds does not switch the law off)
		 */
		if (m->pgap[k] < TG_NEVER)
			m->pgap[k]++;
		if (!m->thr[k] || m->pgap[k] > tg_mean_live(cfg)) {
			m->thr[k] = 0;
			continue;
		}
		protect.thr_ns[k] = m->thr[k];
		if (seen->lat_ns[k] > m->thr[k])
			protect.over |= BIT(k);
	}
	/* a burst is no violation (its readings count in the block's mean only); idle: not there */
	hot = tg_mean_read(r, cfg, det, tg_mean_classify(cfg, groups, nr), &clear, &reached);
	m->pend = false;
	for (i = 0; i < nr; i++) {
		struct tg_reg_group *g = &groups[i];

		if (!tg_rem_count(r, cfg, g, (int)i, lo, hi))
			continue;	/* released (tg_release(): nothing pending) */
		if (g->relax_age < TG_NEVER)
			g->relax_age++;
		if (g->rem_pend.left)
			tg_settle_wait(&g->rem_pend, tg_total(g));
		/*
		 * an idle release is no change of the law: the block goes on;
		 * nor is the return to where it was (but its dead time)
		 */
		if (g->mem_left && tg_rem_back(cfg, g))
			back = true;	/* tg_rem_return() below */
		else if (tg_throttled(&g->rem, cfg) && tg_rem_idle(r, cfg, g))
			tg_release(r, cfg, g, (int)i, TG_POL_REMEDIAL, TG_WHY_IDLE);
		else
			tg_rem_hold(g, hot);
		/*
		 * a step that released it is judged like any other (pend kept:
		 * over, it is undone); a release that survived: backoff forgotten
		 */
		if (!tg_throttled(&g->rem, cfg) && !g->pend && g->relax_age > cfg->dead_periods)
			g->relapses = 0;
		m->pend |= g->pend;
	}
	tg_rem_observe(r, cfg, det, lo, hi);
	tg_rem_dead(r, groups, nr);
	/*
	 * a return is a change an arrival is judged from (as a cut); beside a
	 * pending step, the groups not stepping are judged from it too
	 */
	if (back && tg_rem_return(r, cfg, groups, nr, used)) {
		if (m->pend)
			tg_mean_stepped(r, groups, nr);
		else
			tg_mean_ref(r);
	}
	if (r->cut_wait)
		r->cut_wait--;
	if (m->ref_age < TG_NEVER)
		m->ref_age++;
	if (m->step_age < TG_NEVER)
		m->step_age++;

	/* 2 and 3: a clear violation or an arrival acts at once */
	kinds = 0;
	if (!clear && !r->dead.left && !r->cut_wait)
		kinds = tg_mean_arrival(r, cfg, det, reached);
	else if (!r->dead.left && !r->cut_wait)
		kinds = clear;
	if (m->pend && (clear || (kinds && !tg_mean_other_rose(r, groups, nr, kinds)))) {
		u32 seen = m->step_age;

		/* a clear violation or the steps' own rise: the steps undone */
		tg_mean_undo(r, cfg, groups, nr);
		/*
		 * the steps' rise showed within `seen` periods of them: so does
		 * the undo's fall. Still over then, with the load still risen
		 * over the step's reference, it was a stepping group's own
		 * arrival: rule 3 cuts it then, not after the whole dead time.
		 */
		if (!clear && seen + TG_DEAD_ACT < r->dead.left)
			r->dead.left = seen + TG_DEAD_ACT;
		change = true;
	} else if (kinds) {
		/*
		 * an arrival on its first reading (not a clear violation, no
		 * step pending: then it waited for a second): its whole rise
		 */
		change = tg_mean_cut(r, cfg, det, groups, nr, kinds, NULL, !clear && !m->pend);
	} else if (m->want && !r->dead.left && !m->pend) {
		/* a segment cut not made, again: for the kinds still over */
		kinds = tg_mean_now(m, det, m->want);
		if (kinds)
			change = tg_mean_cut(r, cfg, det, groups, nr, kinds, m->want_lat, false);
	}
	if (m->want_left && !--m->want_left)
		m->want = 0;
	if (change)
		m->want = 0;
	if (change) {
		tg_mean_restart(m, cfg, cfg->dead_periods);
		return;
	}
	/* 1 and 4: the block's verdict */
	if (m->wait || r->dead.left)
		return;
	v = tg_mean_verdict(r, cfg, det, mean, &over);
	if (v == TG_V_WAIT)
		return;
	change = tg_mean_judge(r, cfg, det, groups, nr, v, mean, over);
	for (k = 0; k < TG_NR_KINDS; k++)
		m->last[k] = mean[k];
	tg_mean_restart(m, cfg, change ? cfg->dead_periods : 0);
}
