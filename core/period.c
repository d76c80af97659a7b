// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * period.c - what the regulation loop (module/loop.c) does to each group
 * between the estimator and the actuators: the smoothing of the
 * regulator's inputs, and which CPU quota a group is given (the
 * regulator's, or a pin).
 */
#include "tg_core.h"

/**
 * tg_ewma() - one period's step of the regulator inputs' smoothing
 * @avg: the average so far
 * @x:   this period's value
 *
 * An EWMA of weight 1/TG_SMOOTH_DIV (the remedial dead time is derived
 * from the same weight): throttling makes rates and CPU time bursty at
 * period scale, and the proportional law needs them over the same span.
 *
 * Return: the new average.
 */
u64 tg_ewma(u64 avg, u64 x)
{
	return avg - avg / TG_SMOOTH_DIV + x / TG_SMOOTH_DIV;
}

/**
 * tg_quota_pick() - the CPU quota a group gets for the next period
 * @reg_quota_us: what the regulator chose (TG_QUOTA_UNLIMITED: none)
 * @pin_us:       a pin (inject's "pin"), 0 for none
 * @enabled:      the regulator is on (tgroup.config enabled=1)
 * @priority:     the group's priority
 *
 * A pin overrides the regulator while it is on, but never for a group of
 * high priority: high priority is never throttled, by a pin neither.
 *
 * Return: the quota in microseconds per period, or TG_QUOTA_UNLIMITED.
 */
u64 tg_quota_pick(u64 reg_quota_us, u64 pin_us, bool enabled,
		  enum tg_priority priority)
{
	if (pin_us && enabled && priority != TG_PRIO_HIGH)
		return pin_us;
	return reg_quota_us;
}
