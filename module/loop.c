// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - the periodic regulation loop.
 *
 * One delayed work item on the unbound workqueue, re-armed every period
 * (tgroup.config period_ms) while the filesystem is mounted. Each period is
 * where signal sources are collected, the core estimator, detector and
 * regulator run and actuators are applied; for now it only counts periods,
 * which keeps the seam (and nr_periods in tgroup.stat) real.
 */
#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "tgroup.h"

static void tg_period_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(tg_period_work, tg_period_fn);
static bool tg_loop_running;	/* under tg_mutex */

struct tg_detector tg_det;

static unsigned long tg_period_jiffies(void)
{
	return max(msecs_to_jiffies(READ_ONCE(tg_cfg.period_ms)), 1UL);
}

static void tg_period_fn(struct work_struct *work)
{
	struct tg_group *grp;

	rcu_read_lock();
	WRITE_ONCE(tg_root_group.nr_periods, tg_root_group.nr_periods + 1);
	list_for_each_entry_rcu(grp, &tg_groups, node)
		WRITE_ONCE(grp->nr_periods, grp->nr_periods + 1);
	rcu_read_unlock();
	queue_delayed_work(system_unbound_wq, &tg_period_work,
			   tg_period_jiffies());
}

/**
 * tg_loop_start() - start the regulation loop (first mount)
 *
 * Context: Process context, tg_mutex held.
 */
void tg_loop_start(void)
{
	lockdep_assert_held(&tg_mutex);
	if (tg_loop_running)
		return;
	tg_loop_running = true;
	queue_delayed_work(system_unbound_wq, &tg_period_work,
			   tg_period_jiffies());
}

/**
 * tg_loop_stop() - stop the loop and wait for a running period to finish
 *
 * Context: Process context, tg_mutex held (the work never takes it).
 */
void tg_loop_stop(void)
{
	lockdep_assert_held(&tg_mutex);
	if (!tg_loop_running)
		return;
	cancel_delayed_work_sync(&tg_period_work);
	tg_loop_running = false;
}
