// SPDX-License-Identifier: GPL-2.0
/*
 * throttle.c - the CPU throttle the module enforces itself (a loadable
 * module cannot reach the CFS bandwidth internals): the meter of each
 * group's CPU time, the enforcer within a period, and parking. The CPU
 * actuator (actuators/cpu.c) decides each period's allowance and throttles
 * or unthrottles through it; membership (membership.c) tells it about
 * members joining and leaving, from under the group's lock.
 *
 * Metering. Every period the loop sums the group's CPU time
 * (tg_cpu_collect()): the members' sum_exec_runtime deltas, plus what
 * members that left during the period (moved out, removed) ran before
 * leaving, plus what exited members ran up to their very last context
 * switch (they stay on the group's exiting list until their CPU time is
 * final).
 *
 * Throttling. The enforcer (loop.c, every period / 8 while a group has a
 * quota) throttles a group that used its allowance, and on every slice of a
 * throttled period parks its running members that are not parked yet
 * (newcomers, tasks a signal let go). A park is a task_work queued with
 * TWA_RESUME on the member's task: it runs at the task's next return to user
 * space (an IPI brings a running task there at once), never interrupts a
 * system call (no signal is made pending: nothing sees EINTR), and waits in
 * TASK_INTERRUPTIBLE | TASK_FREEZABLE (state S, not in loadavg, frozen like
 * any sleeper, any signal ends it; the task is parked again at a later slice
 * if the group is still throttled). It waits until the group's throttle
 * generation moves on (unthrottle, release), the task leaves the group, or
 * the group is removed; each of those wakes the group's queue.
 *
 * Never parked: kernel threads, io_uring and other user workers (they may
 * hold locks other rings need), exiting, stopped and ptraced tasks, and
 * sleeping ones (they use no CPU; they are parked at a later slice if they
 * run). A child forked into a throttled group starts parked.
 *
 * Lifetimes. task_work_cancel() is not exported, so a queued park cannot be
 * taken back; nothing ever waits for one either. The callback is embedded
 * in the member, and a queued or running park holds a reference on the
 * member and on the module: unmount releases every throttle and returns at
 * once; rmmod is refused (EBUSY) while a park is still queued on a task that
 * has not returned to user space since, and module exit waits for RCU-tasks
 * so no task is still executing module text.
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/task_work.h>

#include "tg_internal.h"

/* m->park_busy */
#define TG_PARK_BUSY		0

#ifdef PF_USER_WORKER
#define TG_PF_NEVER_PARK	(PF_EXITING | PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define TG_PF_NEVER_PARK	(PF_EXITING | PF_KTHREAD | PF_IO_WORKER)
#endif

static bool tg_parkable(struct task_struct *t)
{
	return !(READ_ONCE(t->flags) & TG_PF_NEVER_PARK) && !READ_ONCE(t->ptrace);
}

/*
 * task_work also runs inside a few system calls, not only at the return to
 * user space: io_uring's io_run_task_work() (in execve it runs under
 * cred_guard_mutex), KVM before entering a guest. A park never waits there
 * while the task may hold a lock: not during execve, and on lockdep
 * kernels not with any lock held. It is parked again at a later slice.
 */
static bool tg_park_here(void)
{
	if (current->in_execve)
		return false;
#ifdef CONFIG_LOCKDEP
	if (current->lockdep_depth)
		return false;
#endif
	return tg_parkable(current);
}

static bool tg_park_done(struct tg_member *m, struct tg_group *grp, u32 gen)
{
	return READ_ONCE(m->gone) || READ_ONCE(m->grp) != grp ||
	       !READ_ONCE(grp->cpu_throttled) || READ_ONCE(grp->cpu_gen) != gen;
}

/*
 * Park in the member's group while it is throttled. A move to another
 * throttled group parks on in that one; the generation moving on, leaving
 * for an unthrottled group or the root group, or a signal end it.
 */
static void tg_park_fn(struct callback_head *cb)
{
	struct tg_member *m = container_of(cb, struct tg_member, park_cb);
	struct tg_group *grp, *locked;
	u32 gen;

	while (tg_park_here() && !signal_pending(current)) {
		grp = NULL;
		rcu_read_lock();
		locked = tg_member_lock_group(m);
		if (!m->gone && locked->cpu_throttled) {
			grp = locked;
			gen = grp->cpu_gen;
			tg_group_get(grp);
		}
		spin_unlock(&locked->lock);
		rcu_read_unlock();
		if (!grp)
			break;
		/* a signal ends it early: -ERESTARTSYS is of no interest here */
		(void)wait_event_freezable(grp->cpu_wq, tg_park_done(m, grp, gen));
		locked = READ_ONCE(m->grp);
		tg_group_put(grp);
		if (locked == grp || READ_ONCE(m->gone))
			break;		/* released, or left for the root group */
	}
	clear_bit_unlock(TG_PARK_BUSY, &m->park_busy);
	tg_member_put(m);
	module_put(THIS_MODULE);	/* exit waits for RCU-tasks: returning is safe */
}

/**
 * tg_cpu_member_init() - prepare a member record's park callback
 * @m: member record, not yet attached
 */
void tg_cpu_member_init(struct tg_member *m)
{
	m->park_busy = 0;
	init_task_work(&m->park_cb, tg_park_fn);
}

/*
 * Queue a park on a member's task unless it is one that is never parked,
 * not running (@new_task: a child that has not run yet is parked too), or
 * already has one.
 */
static void tg_park_queue(struct tg_member *m, bool new_task)
{
	struct task_struct *t = m->task;

	lockdep_assert_held(&m->grp->lock);
	if (!tg_parkable(t) || task_is_stopped_or_traced(t))
		return;
	/* a child a mover placed before its first run is new as well */
	if (!new_task && !task_is_running(t) && READ_ONCE(t->__state) != TASK_NEW)
		return;
	if (test_and_set_bit_lock(TG_PARK_BUSY, &m->park_busy))
		return;
	if (!try_module_get(THIS_MODULE))
		goto idle;
	refcount_inc(&m->ref);
	if (task_work_add(t, &m->park_cb, TWA_RESUME)) {
		/* past exit_task_work(): it never runs again */
		refcount_dec(&m->ref);		/* the group's reference remains */
		module_put(THIS_MODULE);
		goto idle;
	}
	return;
idle:
	clear_bit_unlock(TG_PARK_BUSY, &m->park_busy);
}

static void tg_park_members(struct tg_group *grp)
{
	struct tg_member *m;

	lockdep_assert_held(&grp->lock);
	list_for_each_entry(m, &grp->members, gnode)
		tg_park_queue(m, false);
}

/*
 * What the task of @m ran since last seen, in ns; @advance moves the mark.
 * sum_exec_runtime of a task running elsewhere lags by up to a tick: the
 * rest is seen at the next look, so nothing is lost.
 */
static u64 tg_member_ran(struct tg_member *m, bool advance)
{
	u64 now = READ_ONCE(m->task->se.sum_exec_runtime);
	u64 ran = now - m->last_runtime;

	if (advance)
		m->last_runtime = now;
	return ran;
}

/* The task has switched out for the last time: its CPU time is final. */
static bool tg_task_final(struct task_struct *t)
{
	if (READ_ONCE(t->__state) != TASK_DEAD)
		return false;
	/*
	 * finish_task() clears on_cpu with release ordering after the last
	 * switch accounted the runtime: acquire orders the caller's read of
	 * sum_exec_runtime after it.
	 */
	return !smp_load_acquire(&t->on_cpu);
}

/*
 * CPU time of the group since the period began, in ns; @advance (the loop,
 * at the period's end) starts the next one and lets exited members whose
 * time is final go.
 */
static u64 tg_cpu_since(struct tg_group *grp, bool advance)
{
	struct tg_member *m, *tmp;
	u64 ns = grp->cpu_gone_ns;

	lockdep_assert_held(&grp->lock);
	list_for_each_entry(m, &grp->members, gnode)
		ns += tg_member_ran(m, advance);
	list_for_each_entry_safe(m, tmp, &grp->exiting, gnode) {
		bool final = tg_task_final(m->task);	/* before the read */

		ns += tg_member_ran(m, advance);
		if (advance && final) {
			list_del(&m->gnode);
			tg_member_put(m);
		}
	}
	if (advance)
		grp->cpu_gone_ns = 0;
	return ns;
}

/**
 * tg_cpu_unthrottle() - end a group's throttle: its parked tasks run
 * @grp: group
 *
 * Context: grp->lock held.
 */
void tg_cpu_unthrottle(struct tg_group *grp)
{
	lockdep_assert_held(&grp->lock);
	if (!grp->cpu_throttled)
		return;
	WRITE_ONCE(grp->cpu_throttled, false);
	WRITE_ONCE(grp->cpu_gen, grp->cpu_gen + 1);
	wake_up_all(&grp->cpu_wq);
}

/**
 * tg_cpu_throttle() - throttle a group for the rest of the period
 * @grp: group
 *
 * Its running members are parked now, the others when they run.
 *
 * Context: grp->lock held.
 */
void tg_cpu_throttle(struct tg_group *grp)
{
	lockdep_assert_held(&grp->lock);
	WRITE_ONCE(grp->cpu_throttled, true);
	WRITE_ONCE(grp->nr_throttled, grp->nr_throttled + 1);
	tg_park_members(grp);
}

/**
 * tg_cpu_member_joined() - a task joined a group (fork, move)
 * @m:        its member record, attached to m->grp
 * @new_task: the task was just created and has not run yet
 *
 * A task joining a throttled group is parked like its members.
 *
 * Context: m->grp->lock held (any context).
 */
void tg_cpu_member_joined(struct tg_member *m, bool new_task)
{
	lockdep_assert_held(&m->grp->lock);
	if (m->grp->cpu_throttled)
		tg_park_queue(m, new_task);
}

/**
 * tg_cpu_member_left() - a task is leaving @from (move, exit, removal)
 * @m:    its member record, still counting for @from
 * @from: the group it leaves
 *
 * What it ran in @from since the period began is charged to @from, and a
 * park of it in @from ends now.
 *
 * Context: from->lock held (any context).
 */
void tg_cpu_member_left(struct tg_member *m, struct tg_group *from)
{
	lockdep_assert_held(&from->lock);
	from->cpu_gone_ns += tg_member_ran(m, true);
	if (from->cpu_throttled)
		wake_up_all(&from->cpu_wq);
}

/**
 * tg_cpu_reap_exiting() - let exited members go
 * @grp: group
 * @all: every one (the group is going away), not only those that are final
 *
 * Context: grp->lock held.
 */
void tg_cpu_reap_exiting(struct tg_group *grp, bool all)
{
	struct tg_member *m, *tmp;

	lockdep_assert_held(&grp->lock);
	list_for_each_entry_safe(m, tmp, &grp->exiting, gnode) {
		if (!all && !tg_task_final(m->task))
			continue;
		list_del(&m->gnode);
		tg_member_put(m);
	}
}

/**
 * tg_cpu_collect() - CPU time the group's tasks ran in the period just ended
 * @grp: child group
 *
 * Context: the regulation loop (tg_mutex held); takes grp->lock.
 * Return: microseconds, summed over all members and CPUs.
 */
u64 tg_cpu_collect(struct tg_group *grp)
{
	u64 ns;

	lockdep_assert_held(&tg_mutex);
	spin_lock(&grp->lock);
	ns = tg_cpu_since(grp, true);
	/* until the CPU actuator's apply(): the allowance is the old period's */
	grp->cpu_between = true;
	spin_unlock(&grp->lock);
	grp->cpu_usage_us = div_u64(ns, NSEC_PER_USEC);
	return grp->cpu_usage_us;
}

/**
 * tg_cpu_enforce() - mid-period check of one group
 * @grp: child group, found on tg_groups under RCU
 *
 * Throttles a group that used its allowance (so it overruns its quota by at
 * most about a slice; the overrun is taken from the next period), and while
 * it is throttled parks members that run (newcomers, tasks a signal woke).
 *
 * Context: rcu_read_lock() (the enforcer; never tg_mutex); takes
 * grp->lock.
 */
void tg_cpu_enforce(struct tg_group *grp)
{
	if (READ_ONCE(grp->cpu_quota_usec) == TG_QUOTA_UNLIMITED)
		return;
	spin_lock(&grp->lock);
	if (grp->dead || grp->cpu_quota_usec == TG_QUOTA_UNLIMITED ||
	    grp->cpu_between)
		goto out;
	if (grp->cpu_throttled)
		tg_park_members(grp);
	else if ((s64)div_u64(tg_cpu_since(grp, false), NSEC_PER_USEC) >=
		 grp->cpu_allow_us)
		tg_cpu_throttle(grp);
out:
	spin_unlock(&grp->lock);
}
