// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - the regulation loop.
 *
 * One delayed work item on the unbound workqueue, re-armed every period
 * (tgroup.config period_ms) while the filesystem is mounted: off every hot
 * path. Each period, under tg_mutex, with every source and actuator taken
 * from the registry (registry.c, in its order):
 *   1. sources' latency -> core detector (tg_det, tgroup.interference);
 *   2. sources' period hooks, then per group: sources' counters -> core
 *      estimator -> accounting (tgroup.bandwidth, tgroup.stat), and the
 *      group's CPU time of the period (membership.c meters it);
 *   3. core regulator over all groups (one slot each);
 *   4. actuators: every group's CPU quota (the regulator's, or a pin:
 *      core's tg_quota_pick()) and MBA level. The CPU actuator enforces
 *      the quota within the period itself (actuators/cpu.c).
 *
 * The regulator sees rates and CPU time smoothed over a few periods (core's
 * tg_ewma()): throttling makes both bursty at period scale, and the
 * proportional law needs them measured over the same span, not exact.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "tg_plugin.h"

static void tg_period_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(tg_period_work, tg_period_fn);
static DEFINE_MUTEX(tg_loop_lock);	/* tg_loop_running; never under tg_mutex */
static bool tg_loop_running;

struct tg_detector tg_det;
static struct tg_regulator tg_reg;
static ktime_t tg_last_period;		/* start of the current period */
static struct tg_group **tg_apply_grp;	/* the period's decisions, by group */
static u64 *tg_apply_quota;
static u32 *tg_apply_mba;
static u64 *tg_apply_cpu;
/* how long the period's own work took, for tgroup.config */
static u64 tg_period_last_ns, tg_period_max_ns;
/* ... by phase, the last period: collect, estimate, regulate, apply */
static u64 tg_phase_ns[TG_PHASES];

/**
 * tg_period_last_us() - duration of the last period's work
 *
 * Return: microseconds, 0 before the first period of a mount.
 */
u64 tg_period_last_us(void)
{
	return div_u64(READ_ONCE(tg_period_last_ns), NSEC_PER_USEC);
}

/**
 * tg_period_max_us() - the longest period's work since the mount
 *
 * Return: microseconds.
 */
u64 tg_period_max_us(void)
{
	return div_u64(READ_ONCE(tg_period_max_ns), NSEC_PER_USEC);
}

/**
 * tg_period_phases_us() - the last period's work by phase
 * @us: out, TG_PHASES entries: collect (latency sources, the detector,
 *      every group's counters and CPU time), estimate (estimator,
 *      accounting, smoothing), regulate (tg_regulate()), apply (actuators)
 */
void tg_period_phases_us(u64 *us)
{
	int i;

	for (i = 0; i < TG_PHASES; i++)
		us[i] = div_u64(READ_ONCE(tg_phase_ns[i]), NSEC_PER_USEC);
}

static void tg_det_cfg_from(struct tg_detector_cfg *dc, const struct tg_config *c)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		dc->threshold_ns[k] = c->threshold_ns[k];
	dc->low_pct = c->low_pct;
	dc->quiet_periods = c->quiet_periods;
}

static unsigned long tg_period_jiffies(void)
{
	return max(msecs_to_jiffies(READ_ONCE(tg_cfg.period_ms)), 1UL);
}

/*
 * Measure one group over the period that just ended (elapsed_us long) and
 * fill its regulator inputs; CPU time is normalised to the nominal period
 * the quota is expressed in.
 */
static void tg_measure(struct tg_group *grp, u32 period_us, u32 elapsed_us,
		       u64 *phase)
{
	struct tg_reg_group *s = &tg_slots[grp->slot];
	struct tg_counters c = { .present = 0 };
	struct tg_source_ops *src;
	struct tg_estimate e;
	unsigned int i;
	u64 usage;
	int k;
	ktime_t t0 = ktime_get(), t1;

	for (i = 0; (src = tg_source(i)); i++)	/* each fills its own fields */
		if (src->take)
			src->take(grp, &c);
	grp->cpu_usage_us = tg_group_cpu_collect(grp);
	usage = div_u64(grp->cpu_usage_us * period_us, elapsed_us);
	t1 = ktime_get();
	phase[TG_PHASE_COLLECT] += ktime_to_ns(ktime_sub(t1, t0));
	tg_estimate(&c, &e);
	tg_account_update(&grp->acct, &e, elapsed_us);
	grp->usage_avg_us = tg_ewma(grp->usage_avg_us, usage);
	for (k = 0; k < TG_NR_KINDS; k++)
		grp->bps_avg.v[k] = tg_ewma(grp->bps_avg.v[k], grp->acct.rate_bps.v[k]);
	s->cpu_usage_us = grp->usage_avg_us;
	s->cpu_now_us = usage;
	s->bps_now = grp->acct.rate_bps;
	s->active = READ_ONCE(grp->nr_tasks) > 0;
	s->priority = grp->priority;
	s->limits = grp->limits;
	s->bps = grp->bps_avg;
	WRITE_ONCE(grp->nr_periods, grp->nr_periods + 1);
	phase[TG_PHASE_ESTIMATE] += ktime_to_ns(ktime_sub(ktime_get(), t1));
}

static void tg_period_fn(struct work_struct *work)
{
	struct tg_actuation act = {
		.grp = tg_apply_grp, .quota_us = tg_apply_quota, .mba = tg_apply_mba,
		.cpu_us = tg_apply_cpu,
	};
	struct tg_latency_in lat = { .present = 0 };
	struct tg_source_ops *src;
	struct tg_actuator_ops *a;
	struct tg_detector_cfg dc;
	struct tg_reg_cfg rc;
	struct tg_group *grp;
	unsigned int i;
	u32 period_us, elapsed_us, n = 0;
	u64 phase[TG_PHASES] = { 0 };
	ktime_t now = ktime_get(), t0, t;

	mutex_lock(&tg_mutex);
	period_us = tg_cfg.period_ms * USEC_PER_MSEC;
	/*
	 * delayed work runs on jiffies: use the real length of the period
	 * (bounded, so quota x elapsed cannot overflow in actuators/cpu.c)
	 */
	elapsed_us = clamp_t(u64, ktime_us_delta(now, tg_last_period),
			     period_us / 2, 4 * period_us);
	tg_last_period = now;
	t0 = ktime_get();		/* the period's own cost from here */
	tg_reg_cfg_from(&rc, &tg_cfg);
	tg_det_cfg_from(&dc, &tg_cfg);

	for (i = 0; (src = tg_source(i)); i++)	/* inject last: it stands in */
		if (src->take_latency)
			src->take_latency(&lat);
	tg_detect(&tg_det, &dc, &lat);

	WRITE_ONCE(tg_root_group.nr_periods, tg_root_group.nr_periods + 1);
	for (i = 0; (src = tg_source(i)); i++)	/* before any take */
		if (src->period)
			src->period();
	phase[TG_PHASE_COLLECT] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	list_for_each_entry(grp, &tg_groups, node)
		tg_measure(grp, period_us, elapsed_us, phase);

	t = ktime_get();
	tg_regulate(&tg_reg, &rc, &tg_det, tg_slots, tg_slots_hi);
	phase[TG_PHASE_REGULATE] = ktime_to_ns(ktime_sub(ktime_get(), t));
	t = ktime_get();

	list_for_each_entry(grp, &tg_groups, node) {
		const struct tg_reg_group *s = &tg_slots[grp->slot];

		tg_apply_grp[n] = grp;
		tg_apply_quota[n] = tg_quota_pick(s->out.quota_us, grp->cpu_pin_us,
						  rc.enabled, grp->priority);
		tg_apply_cpu[n] = grp->cpu_usage_us;
		tg_apply_mba[n++] = s->out.mba;
		grp->last_decision = s->last;	/* readers take tg_mutex */
	}
	act.nr = n;
	act.period_us = period_us;
	act.elapsed_us = elapsed_us;
	for (i = 0; (a = tg_actuator(i)); i++)
		if (a->apply)
			a->apply(&act);
	phase[TG_PHASE_APPLY] = ktime_to_ns(ktime_sub(ktime_get(), t));
	for (i = 0; i < TG_PHASES; i++)
		WRITE_ONCE(tg_phase_ns[i], phase[i]);
	t0 = ktime_sub(ktime_get(), t0);
	WRITE_ONCE(tg_period_last_ns, t0);
	if (t0 > tg_period_max_ns)
		WRITE_ONCE(tg_period_max_ns, t0);
	mutex_unlock(&tg_mutex);
	queue_delayed_work(system_unbound_wq, &tg_period_work,
			   tg_period_jiffies());
}

/**
 * tg_loop_start() - start regulating (first mount)
 *
 * Context: process context; takes tg_mutex.
 */
void tg_loop_start(void)
{
	mutex_lock(&tg_loop_lock);
	if (!tg_loop_running) {
		mutex_lock(&tg_mutex);
		tg_detector_init(&tg_det);
		tg_regulator_init(&tg_reg);
		tg_last_period = ktime_get();
		mutex_unlock(&tg_mutex);
		WRITE_ONCE(tg_period_last_ns, 0);
		WRITE_ONCE(tg_period_max_ns, 0);
		tg_loop_running = true;
		/* the first period arms the enforcer if a group has a quota */
		queue_delayed_work(system_unbound_wq, &tg_period_work,
				   tg_period_jiffies());
	}
	mutex_unlock(&tg_loop_lock);
}

/**
 * tg_loop_kick() - run the next period one new period from now
 *
 * After period_ms changed: the period already queued was timed with the
 * old length (up to 1000 ms).
 *
 * Context: process context, tg_mutex NOT held.
 */
void tg_loop_kick(void)
{
	mutex_lock(&tg_loop_lock);
	if (tg_loop_running)
		mod_delayed_work(system_unbound_wq, &tg_period_work,
				 tg_period_jiffies());
	mutex_unlock(&tg_loop_lock);
}

/**
 * tg_loop_stop() - stop and wait for a running period to finish
 *
 * Context: process context, tg_mutex NOT held (the period takes it).
 */
void tg_loop_stop(void)
{
	mutex_lock(&tg_loop_lock);
	if (tg_loop_running) {
		cancel_delayed_work_sync(&tg_period_work);
		tg_loop_running = false;
	}
	mutex_unlock(&tg_loop_lock);
}

/**
 * tg_loop_init() - the period's decisions, one entry per possible group
 *
 * Context: module init, after max_groups is checked.
 * Return: 0 or -ENOMEM.
 */
int tg_loop_init(void)
{
	tg_apply_grp = kvcalloc(tg_max_groups, sizeof(*tg_apply_grp), GFP_KERNEL);
	tg_apply_quota = kvcalloc(tg_max_groups, sizeof(*tg_apply_quota), GFP_KERNEL);
	tg_apply_mba = kvcalloc(tg_max_groups, sizeof(*tg_apply_mba), GFP_KERNEL);
	tg_apply_cpu = kvcalloc(tg_max_groups, sizeof(*tg_apply_cpu), GFP_KERNEL);
	if (tg_apply_grp && tg_apply_quota && tg_apply_mba && tg_apply_cpu)
		return 0;
	tg_loop_exit();
	return -ENOMEM;
}

/**
 * tg_loop_exit() - free them (the loop is stopped: nothing mounted)
 *
 * Context: module exit, or tg_loop_init() failing.
 */
void tg_loop_exit(void)
{
	kvfree(tg_apply_cpu);
	kvfree(tg_apply_mba);
	kvfree(tg_apply_quota);
	kvfree(tg_apply_grp);
	tg_apply_cpu = NULL;
	tg_apply_mba = NULL;
	tg_apply_quota = NULL;
	tg_apply_grp = NULL;
}
