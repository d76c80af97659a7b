// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.c - the CPU quota actuator: each period, the quota the regulator
 * chose (or an inject pin) becomes the group's CPU allowance for the next
 * period, enforced by the module's own throttle (throttle.c: metering,
 * the enforcer, parking).
 *
 * The allowance is the quota, scaled to the expected period length, less
 * what the group overran; the debt is floored at TG_CPU_DEBT_PERIODS
 * periods of quota, so a burst can never park a group for longer than
 * that. release() ends a group's throttle at once (rmdir, unmount,
 * priority high, a limit raised, the regulator off).
 */
#include <linux/math64.h>

#include "tg_plugin.h"

/* Past overrun taken from later periods: at most this many periods' quota. */
#define TG_CPU_DEBT_PERIODS	100

/*
 * tg_cpu_apply() - start a period under a quota
 * @grp:        child group whose usage tg_cpu_collect() just measured
 * @quota_us:   CPU time per nominal period over all CPUs, or TG_QUOTA_UNLIMITED
 * @period_us:  the nominal period
 * @elapsed_us: how long the period that just ended really was (the next
 *              one is expected to be as long)
 *
 * The allowance of the new period is the quota, scaled to the expected
 * period length, less what the group overran (never more: unused time is
 * not saved up; the debt is floored at TG_CPU_DEBT_PERIODS periods' quota).
 * With none left the group stays throttled this period (same generation:
 * parked tasks sleep on); otherwise it is unthrottled and
 * the enforcer (tg_cpu_enforce()) throttles it once it has used the
 * allowance.
 *
 * Context: the regulation loop (tg_mutex held); takes grp->lock.
 */
static void tg_cpu_apply(struct tg_group *grp, u64 quota_us, u32 period_us,
			 u32 elapsed_us)
{
	s64 carry, share, floor;
	bool was_limited;

	lockdep_assert_held(&tg_mutex);
	spin_lock(&grp->lock);
	grp->cpu_between = false;
	was_limited = grp->cpu_quota_usec != TG_QUOTA_UNLIMITED;
	WRITE_ONCE(grp->cpu_quota_usec, quota_us);
	if (quota_us == TG_QUOTA_UNLIMITED) {
		grp->cpu_allow_us = 0;
		tg_cpu_unthrottle(grp);
		goto out;
	}
	/* quota and elapsed are bounded (core/parse.c, loop.c): no overflow */
	/* at least 1 µs: a tiny quota must not round to "never run" */
	share = max_t(s64, mul_u64_u32_div(quota_us, elapsed_us, period_us), 1);
	carry = was_limited ? grp->cpu_allow_us - (s64)grp->cpu_usage_us : 0;
	floor = -(s64)min_t(u64, (u64)share * TG_CPU_DEBT_PERIODS, S64_MAX / 2);
	grp->cpu_allow_us = clamp(carry, floor, 0LL) + share;
	if (grp->cpu_allow_us > 0) {
		tg_cpu_unthrottle(grp);
		goto out;
	}
	/* a period that starts throttled counts as one (tgroup.stat) */
	WRITE_ONCE(grp->throttled_usec, grp->throttled_usec + elapsed_us);
	tg_cpu_throttle(grp);
out:
	spin_unlock(&grp->lock);
}

/*
 * Lift the quota and let every parked task of a group run (rmdir, unmount,
 * priority high, a limit raised, regulator off); takes grp->lock.
 */
static void tg_cpu_release(struct tg_group *grp)
{
	spin_lock(&grp->lock);
	grp->cpu_allow_us = 0;
	WRITE_ONCE(grp->cpu_quota_usec, TG_QUOTA_MAX);
	tg_cpu_unthrottle(grp);
	spin_unlock(&grp->lock);
}

/* The period's quotas, group by group. */
static void tg_cpu_apply_all(const struct tg_actuation *a)
{
	u32 i;

	for (i = 0; i < a->nr; i++)
		tg_cpu_apply(a->grp[i], a->quota_us[i], a->period_us,
			     a->elapsed_us);
}

/*
 * No init/start/stop: nothing to find or hook (the throttle's fork/exit
 * paths are membership's), and unmount releases every group before stop()
 * would run.
 */
struct tg_actuator_ops tg_act_cpu __ro_after_init = {
	.p = { .name = "cpu" },
	.apply = tg_cpu_apply_all, .release = tg_cpu_release,
};
