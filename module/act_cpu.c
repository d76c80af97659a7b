// SPDX-License-Identifier: GPL-2.0
/*
 * act_cpu.c - the CPU quota actuator, enforced by the module itself (a
 * loadable module cannot reach the CFS bandwidth internals).
 *
 * Every period the loop sums the group's CPU time (the members'
 * sum_exec_runtime deltas) and gives the group an allowance for the next
 * period: the quota less any overrun. The enforcer checks several times a
 * period; once the allowance is used the group is throttled until the
 * period ends: each member gets a task_work (TWA_SIGNAL, so a task asleep in
 * an interruptible wait runs it promptly) that parks it, killable, at its
 * next return to user space until the budget is back, the quota is lifted,
 * the group is removed, or everything is released (regulator off, unmount,
 * unload). The wait is on the group, so nothing is ever parked without a
 * wake-up coming.
 *
 * task_work_cancel() is not exported, so a queued park cannot be taken
 * back: each holds a reference on its group and its own memory, and
 * tg_cpu_drain() (unmount, unload) waits for every queued park to have run
 * and for RCU-tasks, so no task is left in or headed for module text.
 */
#include <linux/ktime.h>
#include <linux/rcupdate_wait.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "tgroup.h"

struct tg_park {
	struct callback_head	cb;
	struct tg_group		*grp;	/* reference held */
};

/* parks queued or running; tg_cpu_drain() waits for 0 */
static atomic_t tg_parks = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(tg_parks_wq);

static bool tg_park_done(struct tg_group *grp)
{
	bool moved;

	rcu_read_lock();
	moved = tg_task_group(current) != grp;
	rcu_read_unlock();
	return !READ_ONCE(grp->cpu_throttled) || READ_ONCE(grp->dead) || moved;
}

static void tg_park_fn(struct callback_head *cb)
{
	struct tg_park *p = container_of(cb, struct tg_park, cb);
	struct tg_group *grp = p->grp;
	struct tg_member *m;

	spin_lock(&tg_member_lock);
	m = tg_member_find(current);
	if (m)
		m->park_pending = false;
	spin_unlock(&tg_member_lock);

	if (!(current->flags & PF_EXITING))
		wait_event_killable(grp->cpu_wq, tg_park_done(grp));

	tg_group_put(grp);
	kfree(p);
	if (atomic_dec_and_test(&tg_parks))
		wake_up_all(&tg_parks_wq);
}

/* Queue a park on every member that has none. Context: tg_member_lock. */
static void tg_park_members(struct tg_group *grp)
{
	struct tg_member *m;

	lockdep_assert_held(&tg_member_lock);
	list_for_each_entry(m, &grp->members, gnode) {
		struct tg_park *p;

		if (m->park_pending || (m->task->flags & (PF_EXITING | PF_KTHREAD)))
			continue;
		p = kmalloc(sizeof(*p), GFP_NOWAIT | __GFP_NOWARN);
		if (!p)
			continue;	/* parked next period instead */
		init_task_work(&p->cb, tg_park_fn);
		p->grp = grp;
		tg_group_get(grp);
		atomic_inc(&tg_parks);
		if (task_work_add(m->task, &p->cb, TWA_SIGNAL)) {
			/* the task is exiting: it will never run it */
			tg_group_put(grp);
			kfree(p);
			atomic_dec(&tg_parks);
			continue;
		}
		m->park_pending = true;
	}
}

/* CPU time of the group's members since their last_runtime, in ns */
static u64 tg_cpu_since(struct tg_group *grp, bool advance)
{
	struct tg_member *m;
	u64 ns = 0;

	spin_lock(&tg_member_lock);
	list_for_each_entry(m, &grp->members, gnode) {
		u64 now = READ_ONCE(m->task->se.sum_exec_runtime);

		ns += now - m->last_runtime;
		if (advance)
			m->last_runtime = now;
	}
	spin_unlock(&tg_member_lock);
	return ns;
}

/**
 * tg_cpu_collect() - CPU time the group's tasks ran in the period just ended
 * @grp: child group
 *
 * Context: the regulation loop (tg_mutex held); takes tg_member_lock.
 * Return: microseconds, summed over all members and CPUs.
 */
u64 tg_cpu_collect(struct tg_group *grp)
{
	lockdep_assert_held(&tg_mutex);
	grp->cpu_usage_us = div_u64(tg_cpu_since(grp, true), NSEC_PER_USEC);
	return grp->cpu_usage_us;
}

static void tg_cpu_unthrottle(struct tg_group *grp)
{
	if (!READ_ONCE(grp->cpu_throttled))
		return;
	WRITE_ONCE(grp->cpu_throttled, false);
	wake_up_all(&grp->cpu_wq);
}

static void tg_cpu_throttle(struct tg_group *grp)
{
	WRITE_ONCE(grp->cpu_throttled, true);
	spin_lock(&tg_member_lock);
	tg_park_members(grp);
	spin_unlock(&tg_member_lock);
}

/**
 * tg_cpu_apply() - start a period under a quota
 * @grp:        child group whose usage tg_cpu_collect() just measured
 * @quota_us:   CPU time per nominal period over all CPUs, or TG_QUOTA_UNLIMITED
 * @period_us:  the nominal period
 * @elapsed_us: how long the period that just ended really was (the next
 *              one is expected to be as long)
 *
 * The allowance of the new period is the quota, scaled to the expected
 * period length, less what the group overran (never more: unused time is
 * not saved up). With none left the group stays throttled this period;
 * otherwise tg_cpu_enforce() throttles it once it has used the allowance.
 *
 * Context: the regulation loop (tg_mutex held).
 */
void tg_cpu_apply(struct tg_group *grp, u64 quota_us, u32 period_us,
		  u32 elapsed_us)
{
	bool was_limited = READ_ONCE(grp->cpu_quota_usec) != TG_QUOTA_UNLIMITED;
	s64 carry, share;

	lockdep_assert_held(&tg_mutex);
	WRITE_ONCE(grp->cpu_quota_usec, quota_us);
	if (quota_us == TG_QUOTA_UNLIMITED) {
		grp->cpu_allow_us = 0;
		tg_cpu_unthrottle(grp);
		return;
	}
	carry = was_limited ? grp->cpu_allow_us - (s64)grp->cpu_usage_us : 0;
	if (carry > 0)
		carry = 0;
	share = div_u64(quota_us * elapsed_us, period_us);
	grp->cpu_allow_us = carry + share;
	if (grp->cpu_allow_us > 0) {
		tg_cpu_unthrottle(grp);
		return;
	}
	WRITE_ONCE(grp->nr_throttled, grp->nr_throttled + 1);
	WRITE_ONCE(grp->throttled_usec, grp->throttled_usec + elapsed_us);
	tg_cpu_throttle(grp);
}

/**
 * tg_cpu_enforce() - mid-period check: park a group that used its allowance
 * @grp: child group
 *
 * Called several times a period (the enforcer), so a group overruns its
 * quota by at most a fraction of a period; the overrun is taken from the
 * next period's allowance.
 *
 * Context: tg_mutex held.
 */
void tg_cpu_enforce(struct tg_group *grp)
{
	lockdep_assert_held(&tg_mutex);
	if (READ_ONCE(grp->cpu_quota_usec) == TG_QUOTA_UNLIMITED ||
	    READ_ONCE(grp->cpu_throttled))
		return;
	if ((s64)div_u64(tg_cpu_since(grp, false), NSEC_PER_USEC) >= grp->cpu_allow_us) {
		WRITE_ONCE(grp->nr_throttled, grp->nr_throttled + 1);
		tg_cpu_throttle(grp);
	}
}

/**
 * tg_cpu_release() - lift the quota and wake every parked task of a group
 * @grp: group (rmdir, priority high, limit lifted, regulator off)
 *
 * Context: any process context.
 */
void tg_cpu_release(struct tg_group *grp)
{
	grp->cpu_allow_us = 0;
	WRITE_ONCE(grp->cpu_quota_usec, TG_QUOTA_MAX);
	WRITE_ONCE(grp->cpu_throttled, false);
	wake_up_all(&grp->cpu_wq);
}

/**
 * tg_cpu_drain() - wait until no park is queued or running
 *
 * Called at unmount (after every group has been removed: dead, woken) and
 * at unload. Queued parks run promptly (TWA_SIGNAL) and return at once on
 * their dead group; RCU-tasks then guarantees no task is still executing
 * module text.
 *
 * Context: process context, no tgroup lock held.
 */
void tg_cpu_drain(void)
{
	wait_event(tg_parks_wq, !atomic_read(&tg_parks));
	synchronize_rcu_tasks();
}
