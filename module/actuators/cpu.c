// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.c - the CPU quota actuator, in one place: each period's quota (the
 * regulator's, or a pin) becomes the group's CPU allowance; an enforcer
 * within the period throttles a group that has used it; and throttled
 * members are parked. A loadable module cannot reach the CFS bandwidth
 * internals (it cannot dequeue a task), so it enforces quotas itself, at
 * the members' returns to user space. Membership (membership.c) meters the
 * groups' CPU time and tells this file, through the plug-in table, about
 * members joining and leaving (member_joined/member_left).
 *
 * Allowance. The quota, scaled to the expected period length, less what
 * the group overran; the debt is floored at TG_CPU_DEBT_PERIODS periods of
 * quota, so a burst can never park a group for longer than that.
 * release() ends a group's throttle at once (rmdir, unmount, priority
 * high, a limit raised, the regulator off).
 *
 * Enforcer. While some group has a quota, an hrtimer every period /
 * TG_ENFORCE_SLICES queues a work item that walks the groups under RCU
 * (never tg_mutex): a group that used its allowance is throttled, and on
 * every slice of a throttled period each member without a park gets one.
 *
 * The park. A task_work queued with TWA_RESUME on the member's task: it
 * runs at the task's next return to user space (an IPI brings a running
 * task there at once), never interrupts a system call (no signal is made
 * pending: nothing sees EINTR), and sleeps in TASK_INTERRUPTIBLE |
 * TASK_FREEZABLE (state S, not in loadavg) until the group's throttle
 * generation moves on (unthrottle, release), the task leaves the group, or
 * the group is removed. As under CFS bandwidth control, a parked task runs
 * no user code, signal handlers included: for the park, the signals the
 * task has a handler for are blocked (they stay pending, and are delivered
 * once it runs again; ignored ones are dropped as usual; one that gets a
 * handler mid-park is blocked when it comes), so only these end a park
 * early:
 *  - a fatal signal (SIGKILL, or a signal whose default action kills);
 *  - a job-control stop of an untraced task (SIGSTOP, a stop signal of
 *    default action, a group stop): the stop happens, and a member
 *    continued by SIGCONT while its group is still throttled is parked
 *    again before it returns to user space (SIGCONT is caught where it is
 *    sent, the signal_generate tracepoint);
 *  - the freezer: the system freezer freezes the park in place; the cgroup
 *    v2 freezer's trap ends it.
 * A traced task keeps its park across ptrace traps and signals, as a
 * throttled tracee under CFS cannot reach its stop: its tracer could
 * otherwise stop and continue it (PTRACE_CONT, no signal: nothing re-parks
 * it) as often as it likes. It sleeps TASK_KILLABLE (a pending trap would
 * end an interruptible sleep at once): state I in /proc, not in loadavg;
 * its tracer's waitpid() waits for the group's runtime.
 * The enforcer queues parks on stopped and traced-stopped members too: they
 * run when such a task resumes.
 *
 * Never parked: kernel threads, exiting tasks, user workers that are not
 * io_uring's (vhost), KVM vCPU threads inside KVM_RUN (tg_park_here():
 * parked once back in user space), and io_uring's SQPOLL thread, which runs
 * task_work with its sqd->lock held (ring teardown in a kworker waits for
 * that lock): its CPU time is the group's, but it is not held. io_uring's io-wq
 * workers are parked before their next work item (io-wq runs task_work
 * there with no lock held), so work pushed onto them (IOSQE_ASYNC) waits
 * while the group is throttled; their park ends at any wake-up (exit,
 * cancellation, a signal) so nothing that waits for a worker waits on a
 * park. Sleeping tasks get no park (they use no CPU; a queued park would
 * hold the module until they next return to user space): if they run in a
 * throttled period, the next slice parks them.
 *
 * Lifetimes. task_work_cancel() is not exported, so a queued park cannot
 * be taken back; nothing ever waits for one either. The callback is
 * embedded in the member, and a queued or running park holds a reference
 * on the member and on the module: unmount releases every throttle and
 * returns at once; rmmod is refused (EBUSY) while a park is still queued on
 * a task that has not run since, and module exit waits for RCU-tasks so no
 * task is still executing module text.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <trace/events/signal.h>

#include "tg_plugin.h"

/* Past overrun taken from later periods: at most this many periods' quota. */
#define TG_CPU_DEBT_PERIODS	100
/* Enforcer slices per period. */
#define TG_ENFORCE_SLICES	8

/* m->park_busy */
#define TG_PARK_BUSY		0
/* how a traced task parks (tg_park_wait()) */
#define TG_PARK_TRACED		(TASK_KILLABLE | TASK_NOLOAD | TASK_FREEZABLE)

/* io_uring's threads are user workers too (6.4+): those are looked at apart */
#define TG_PF_NEVER_PARK_IO	(PF_EXITING | PF_KTHREAD)
#ifdef PF_USER_WORKER
#define TG_PF_NEVER_PARK	(TG_PF_NEVER_PARK_IO | PF_USER_WORKER)
#else
#define TG_PF_NEVER_PARK	TG_PF_NEVER_PARK_IO
#endif

/* A group's throttle: its slot. Under grp->lock, read locklessly by parks. */
struct tg_cpu_grp {
	s64			allow_us;	/* CPU time left this period */
	bool			throttled;	/* parked tasks wait for false */
	u32			gen;		/* +1 at every unthrottle */
	wait_queue_head_t	wq;		/* parked tasks */
};

static struct tg_cpu_grp *tg_cpu(struct tg_group *grp)
{
	return tg_grp_slot(grp, &tg_act_cpu.p);
}

/* groups under a quota, as the last period set them */
static unsigned int tg_quota_groups;
static void tg_enforce_fn(struct work_struct *work);
static DECLARE_WORK(tg_enforce_work, tg_enforce_fn);
static struct hrtimer tg_enforce_timer;
/* the timer is armed (or its callback will re-arm it); irq-safe: the tick */
static DEFINE_SPINLOCK(tg_enforce_lock);
static bool tg_enforce_active;

/* --- the park ------------------------------------------------------------- */

/* io_uring's io-wq worker (its worker_private is set); not the SQPOLL thread */
static bool tg_io_wq_worker(struct task_struct *t)
{
	return (READ_ONCE(t->flags) & PF_IO_WORKER) && READ_ONCE(t->worker_private);
}

/*
 * Whether @t gets a park: not one that is never parked, and not one that
 * sleeps (@new_task: a child that has not run yet is parked; stopped and
 * traced tasks get one that runs when they resume; io-wq workers get one
 * whatever they do, it runs before their next work item).
 */
static bool tg_park_wanted(struct task_struct *t, bool new_task)
{
	unsigned int flags = READ_ONCE(t->flags), state;

	if (flags & (flags & PF_IO_WORKER ? TG_PF_NEVER_PARK_IO : TG_PF_NEVER_PARK))
		return false;
	if (new_task)
		return true;
	state = READ_ONCE(t->__state);
	if (state == TASK_NEW)		/* a mover placed it before its first run */
		return true;
	if (flags & PF_IO_WORKER)
		return tg_io_wq_worker(t);	/* the SQPOLL thread: never */
	return task_is_running(t) || task_is_stopped_or_traced(t);
}

/*
 * task_work also runs inside a few system calls, not only at the return to
 * user space: io_uring's io_run_task_work() (in execve it runs under
 * cred_guard_mutex), KVM before entering a guest (xfer_to_guest_mode_handle_work(),
 * with the vCPU's mutex held). A park never waits there while the task may
 * hold a lock: not during execve, not in a vCPU thread inside KVM_RUN, and
 * on lockdep kernels not with any lock held. It is parked again at a later
 * slice, when it gets back to user space.
 *
 * A vCPU thread: PF_VCPU is set only while in guest mode (cleared before
 * KVM runs task_work), so the sign is KVM's preempt notifier, registered
 * by vcpu_load() for the whole of KVM_RUN (KVM is its only user).
 */
static bool tg_park_here(void)
{
	if (current->in_execve || (current->flags & PF_VCPU))
		return false;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	if (!hlist_empty(&current->preempt_notifiers))
		return false;
#endif
#ifdef CONFIG_LOCKDEP
	if (current->lockdep_depth)
		return false;
#endif
	return !(current->flags & (PF_EXITING | PF_KTHREAD));
}

static bool tg_park_done(struct tg_member *m, struct tg_group *grp, u32 gen)
{
	struct tg_cpu_grp *c = tg_cpu(grp);

	return READ_ONCE(m->gone) || READ_ONCE(m->grp) != grp ||
	       !READ_ONCE(c->throttled) || READ_ONCE(c->gen) != gen;
}

/*
 * The group @m is in, referenced, with its generation, if it is throttled;
 * NULL if the park has nothing to wait for.
 */
static struct tg_group *tg_park_group(struct tg_member *m, u32 *gen)
{
	struct tg_group *grp = NULL, *locked;

	rcu_read_lock();
	locked = tg_member_lock_group(m);
	if (!m->gone && tg_cpu(locked)->throttled) {
		grp = locked;
		*gen = tg_cpu(grp)->gen;
		tg_group_get(grp);
	}
	spin_unlock(&locked->lock);
	rcu_read_unlock();
	return grp;
}

/*
 * The signals a park blocks: those the task has a handler for (user code).
 * Those whose default action stops or kills stay open. Ignored ones stay
 * open too: they are dropped where they are sent and wake no one (blocked,
 * they would be queued instead, and a POSIX timer whose queued signal a
 * stop flushes - SIGCONT flushed by SIGSTOP - is never re-armed).
 */
static void tg_park_signals(sigset_t *block)
{
	struct sighand_struct *sh = current->sighand;
	__sighandler_t h;
	int sig;

	sigemptyset(block);
	spin_lock_irq(&sh->siglock);
	for (sig = 1; sig <= _NSIG; sig++) {
		h = sh->action[sig - 1].sa.sa_handler;
		if (!sig_kernel_only(sig) && h != SIG_DFL && h != SIG_IGN)
			sigaddset(block, sig);
	}
	spin_unlock_irq(&sh->siglock);
}

/*
 * What ends a park early: a fatal signal, the cgroup freezer's trap, and
 * for a task that is not traced (@traced: current->ptrace) a job-control
 * stop or a signal that must reach get_signal() (unblocked while parked: its
 * default action stops or kills the task). A signal that got a handler
 * since the park began (set by a task sharing the handlers, outside the
 * group) is blocked too, and the park goes on. A traced task keeps its park
 * across ptrace traps and signals (each would be a signal-delivery-stop its
 * tracer may suppress, then run on): it sleeps killable, see tg_park_wait().
 * A pending task_work notification (TIF_NOTIFY_SIGNAL: io_uring creating a
 * worker through its owner, say) is cleared: that work runs after the park.
 */
static bool tg_park_interrupted(bool traced)
{
	sigset_t block;

	if (fatal_signal_pending(current) || (current->jobctl & JOBCTL_TRAP_FREEZE))
		return true;
	if (test_thread_flag(TIF_NOTIFY_SIGNAL))
		clear_notify_signal();
	if (traced)
		return false;
	if (current->jobctl & (JOBCTL_STOP_PENDING | JOBCTL_TRAP_MASK))
		return true;
	if (!task_sigpending(current))
		return false;
	/* block what has a handler now */
	tg_park_signals(&block);
	sigprocmask(SIG_BLOCK, &block, NULL);
	/* nothing unblocked may be pending any more (a spurious wake-up) */
	spin_lock_irq(&current->sighand->siglock);
	recalc_sigpending();
	spin_unlock_irq(&current->sighand->siglock);
	return task_sigpending(current);
}

/*
 * Sleep on @grp's queue until the park is over or interrupted: in
 * TASK_INTERRUPTIBLE (state S), or for a traced task in a killable sleep:
 * a pending ptrace trap or stop keeps TIF_SIGPENDING set, which would end
 * an interruptible sleep at once (a busy loop). Only SIGKILL, the system
 * freezer (TASK_FREEZABLE) and the park's end wake that one; with
 * TASK_NOLOAD it shows as state I and is not in the load average.
 */
static bool tg_park_wait(struct tg_member *m, struct tg_group *grp, u32 gen,
			 bool once)
{
	struct tg_cpu_grp *c = tg_cpu(grp);
	bool interrupted = false, traced;
	DEFINE_WAIT(wait);

	for (;;) {
		traced = READ_ONCE(current->ptrace);
		prepare_to_wait(&c->wq, &wait, traced ? TG_PARK_TRACED :
				TASK_INTERRUPTIBLE | TASK_FREEZABLE);
		if (tg_park_done(m, grp, gen))
			break;
		if (tg_park_interrupted(traced)) {
			interrupted = true;
			break;
		}
		schedule();
		if (once)	/* an io-wq worker: any wake-up ends it */
			break;
	}
	finish_wait(&c->wq, &wait);
	return interrupted;
}

/*
 * Park in the member's group while it is throttled. A move to another
 * throttled group parks on in that one; the generation moving on, leaving
 * for an unthrottled group or the root group, or what tg_park_interrupted()
 * names end it.
 */
static void tg_park(struct tg_member *m)
{
	bool worker = current->flags & PF_IO_WORKER;
	sigset_t block, saved;
	struct tg_group *grp;
	bool stop;
	u32 gen;

	if (!tg_park_here() || (worker && !tg_io_wq_worker(current)))
		return;
	if (!worker) {
		tg_park_signals(&block);
		sigprocmask(SIG_BLOCK, &block, &saved);
	}
	while ((grp = tg_park_group(m, &gen))) {
		stop = tg_park_wait(m, grp, gen, worker);
		stop |= READ_ONCE(m->grp) == grp || READ_ONCE(m->gone) || worker;
		tg_group_put(grp);
		if (stop)
			break;	/* released, interrupted, or left for the root group */
	}
	if (!worker)
		sigprocmask(SIG_SETMASK, &saved, NULL);
}

static void tg_park_fn(struct callback_head *cb)
{
	struct tg_member *m = container_of(cb, struct tg_member, park_cb);

	tg_park(m);
	clear_bit_unlock(TG_PARK_BUSY, &m->park_busy);
	tg_member_put(m);
	module_put(THIS_MODULE);	/* exit waits for RCU-tasks: returning is safe */
}

/*
 * Queue a park on a member's task if it wants one (tg_park_wanted()) and
 * has none. Needs only the member alive (its group's lock, or RCU after a
 * lookup): it takes its own reference.
 */
static void tg_park_queue(struct tg_member *m, bool new_task)
{
	struct task_struct *t = m->task;

	if (!tg_park_wanted(t, new_task))
		return;
	if (test_and_set_bit_lock(TG_PARK_BUSY, &m->park_busy))
		return;
	if (!try_module_get(THIS_MODULE))
		goto idle;
	if (!refcount_inc_not_zero(&m->ref))
		goto put_module;	/* being freed: it left its group */
	init_task_work(&m->park_cb, tg_park_fn);
	if (!task_work_add(t, &m->park_cb, TWA_RESUME))
		return;
	/* past exit_task_work(): it never runs again */
	tg_member_put(m);	/* the last one if it left its group meanwhile */
put_module:
	module_put(THIS_MODULE);
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

/* --- throttling ----------------------------------------------------------- */

/* End a group's throttle: its parked tasks run. grp->lock held. */
static void tg_cpu_unthrottle(struct tg_group *grp)
{
	struct tg_cpu_grp *c = tg_cpu(grp);

	lockdep_assert_held(&grp->lock);
	if (!c->throttled)
		return;
	WRITE_ONCE(c->throttled, false);
	WRITE_ONCE(c->gen, c->gen + 1);
	wake_up_all(&c->wq);
}

/* Throttle a group for the rest of the period. grp->lock held. */
static void tg_cpu_throttle(struct tg_group *grp)
{
	lockdep_assert_held(&grp->lock);
	WRITE_ONCE(tg_cpu(grp)->throttled, true);
	WRITE_ONCE(grp->nr_throttled, grp->nr_throttled + 1);
	tg_park_members(grp);
}

/*
 * Mid-period check of one group: throttle a group that used its allowance
 * (so it overruns its quota by at most about a slice; the overrun is taken
 * from the next period), and while it is throttled, park members that have
 * no park (newcomers, tasks a signal or a stop let go).
 * Context: rcu_read_lock() (the enforcer; never tg_mutex); takes grp->lock.
 */
static void tg_cpu_enforce(struct tg_group *grp)
{
	if (READ_ONCE(grp->cpu_quota_usec) == TG_QUOTA_UNLIMITED)
		return;
	spin_lock(&grp->lock);
	if (grp->dead || grp->cpu_quota_usec == TG_QUOTA_UNLIMITED)
		goto out;
	if (tg_cpu(grp)->throttled)
		tg_park_members(grp);
	else if ((s64)div_u64(tg_group_cpu_since(grp), NSEC_PER_USEC) >=
		 tg_cpu(grp)->allow_us)
		tg_cpu_throttle(grp);
out:
	spin_unlock(&grp->lock);
}

static void tg_enforce_fn(struct work_struct *work)
{
	struct tg_group *grp;

	rcu_read_lock();
	list_for_each_entry_rcu(grp, &tg_groups, node)
		tg_cpu_enforce(grp);
	rcu_read_unlock();
}

static ktime_t tg_enforce_slice(void)
{
	return ns_to_ktime((u64)READ_ONCE(tg_cfg.period_ms) * NSEC_PER_MSEC /
			   TG_ENFORCE_SLICES);
}

static enum hrtimer_restart tg_enforce_tick(struct hrtimer *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tg_enforce_lock, flags);
	if (!READ_ONCE(tg_quota_groups)) {
		/* idle: the period arms it again (as CFS's period_active) */
		tg_enforce_active = false;
		spin_unlock_irqrestore(&tg_enforce_lock, flags);
		return HRTIMER_NORESTART;
	}
	spin_unlock_irqrestore(&tg_enforce_lock, flags);
	queue_work(system_highpri_wq, &tg_enforce_work);
	hrtimer_forward_now(t, tg_enforce_slice());
	return HRTIMER_RESTART;
}

/*
 * The enforcer runs only while a group has a quota: the tick stops itself
 * when none has, and the period starts it again. Under tg_enforce_lock a
 * tick that is stopping and a period that needs it cannot miss each other.
 */
static void tg_enforce_arm(unsigned int limited)
{
	unsigned long flags;

	spin_lock_irqsave(&tg_enforce_lock, flags);
	WRITE_ONCE(tg_quota_groups, limited);
	if (limited && !tg_enforce_active) {
		tg_enforce_active = true;
		hrtimer_start(&tg_enforce_timer, tg_enforce_slice(), HRTIMER_MODE_REL);
	}
	spin_unlock_irqrestore(&tg_enforce_lock, flags);
}

/* --- the period's quota ---------------------------------------------------- */

/*
 * Start a period under @quota_us (CPU time per nominal period over all
 * CPUs, or TG_QUOTA_UNLIMITED) for a group that ran @usage_us in the period
 * that just ended, @elapsed_us long (the next is expected to be as long).
 *
 * The allowance of the new period is the quota, scaled to the expected
 * period length, less what the group overran (never more: unused time is
 * not saved up; the debt is floored at TG_CPU_DEBT_PERIODS periods' quota).
 * With none left the group stays throttled this period (same generation:
 * parked tasks sleep on); otherwise it is unthrottled and the enforcer
 * throttles it once it has used the allowance.
 *
 * Context: the regulation loop (tg_mutex held); takes grp->lock.
 */
static void tg_cpu_apply(struct tg_group *grp, u64 quota_us, u64 usage_us,
			 u32 period_us, u32 elapsed_us)
{
	struct tg_cpu_grp *c = tg_cpu(grp);
	s64 carry, share, floor;
	bool was_limited;

	lockdep_assert_held(&tg_mutex);
	spin_lock(&grp->lock);
	was_limited = grp->cpu_quota_usec != TG_QUOTA_UNLIMITED;
	WRITE_ONCE(grp->cpu_quota_usec, quota_us);
	if (quota_us == TG_QUOTA_UNLIMITED) {
		c->allow_us = 0;
		tg_cpu_unthrottle(grp);
		goto out;
	}
	/* quota and elapsed are bounded (core/parse.c, loop.c): no overflow */
	/* at least 1 µs: a tiny quota must not round to "never run" */
	share = max_t(s64, mul_u64_u32_div(quota_us, elapsed_us, period_us), 1);
	carry = was_limited ? c->allow_us - (s64)usage_us : 0;
	floor = -(s64)min_t(u64, (u64)share * TG_CPU_DEBT_PERIODS, S64_MAX / 2);
	c->allow_us = clamp(carry, floor, 0LL) + share;
	if (c->allow_us > 0) {
		tg_cpu_unthrottle(grp);
		goto out;
	}
	/* a period that starts throttled counts as one (tgroup.stat) */
	WRITE_ONCE(grp->throttled_usec, grp->throttled_usec + elapsed_us);
	tg_cpu_throttle(grp);
out:
	spin_unlock(&grp->lock);
}

/* The period's quotas, group by group; the enforcer runs while any has one. */
static void tg_cpu_apply_all(const struct tg_actuation *a)
{
	unsigned int limited = 0;
	u32 i;

	for (i = 0; i < a->nr; i++) {
		tg_cpu_apply(a->grp[i], a->quota_us[i], a->cpu_us[i], a->period_us,
			     a->elapsed_us);
		limited += a->quota_us[i] != TG_QUOTA_UNLIMITED;
	}
	tg_enforce_arm(limited);
}

/*
 * Lift the quota and let every parked task of a group run (rmdir, unmount,
 * priority high, a limit raised, regulator off); takes grp->lock.
 */
static void tg_cpu_release(struct tg_group *grp)
{
	spin_lock(&grp->lock);
	tg_cpu(grp)->allow_us = 0;
	WRITE_ONCE(grp->cpu_quota_usec, TG_QUOTA_MAX);
	tg_cpu_unthrottle(grp);
	spin_unlock(&grp->lock);
}

/* --- membership's calls ----------------------------------------------------- */

/* A task joined m->grp (fork, move): in a throttled group it is parked too. */
static void tg_cpu_member_joined(struct tg_member *m, bool new_task)
{
	lockdep_assert_held(&m->grp->lock);
	if (tg_cpu(m->grp)->throttled)
		tg_park_queue(m, new_task);
}

/* A task leaves @from (move, exit, removal): a park of it there ends now. */
static void tg_cpu_member_left(struct tg_member *m, struct tg_group *from)
{
	lockdep_assert_held(&from->lock);
	if (tg_cpu(from)->throttled)
		wake_up_all(&tg_cpu(from)->wq);
}

static void tg_cpu_group_added(struct tg_group *grp)
{
	init_waitqueue_head(&tg_cpu(grp)->wq);
}

/* --- SIGCONT: a continued member of a throttled group is parked again ----- */

/*
 * signal_generate fires for every signal sent, under the target's siglock,
 * after prepare_signal() has woken its stopped threads for a SIGCONT:
 * those cannot get past the siglock before the park is queued, so they run
 * it before they return to user space. Any context, hard irq included
 * (POSIX timers): no group lock is taken.
 */
static void tg_on_signal(void *data, int sig, struct kernel_siginfo *info,
			 struct task_struct *task, int group, int result)
{
	struct tg_member *m;
	struct task_struct *t;

	if (sig != SIGCONT)
		return;
	rcu_read_lock();
	for_each_thread(task, t) {
		m = tg_member_find(t);
		if (m && !READ_ONCE(m->gone) && READ_ONCE(tg_cpu(READ_ONCE(m->grp))->throttled))
			tg_park_queue(m, false);
	}
	rcu_read_unlock();
}

static struct tracepoint *tg_signal_tp;
static bool tg_signal_hooked;

static void tg_find_signal_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "signal_generate"))
		tg_signal_tp = tp;
}

static int tg_cpu_init(void)
{
	/* the probe's prototype is the kernel's (a mismatch fails the build) */
	check_trace_callback_type_signal_generate(tg_on_signal);
	hrtimer_init(&tg_enforce_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	tg_enforce_timer.function = tg_enforce_tick;
	for_each_kernel_tracepoint(tg_find_signal_tp, NULL);
	return 0;
}

/* Mount: hook SIGCONT. Without the tracepoint the state line says so. */
static void tg_cpu_start(void)
{
	tg_signal_hooked = tg_signal_tp &&
			   !tracepoint_probe_register(tg_signal_tp, tg_on_signal, NULL);
}

/*
 * Unmount: every group is gone and the loop stopped (nothing arms the
 * enforcer any more), so stop it and wait for a running one; unhook SIGCONT.
 */
static void tg_cpu_stop(void)
{
	hrtimer_cancel(&tg_enforce_timer);
	tg_enforce_active = false;
	cancel_work_sync(&tg_enforce_work);
	if (tg_signal_hooked) {
		tracepoint_probe_unregister(tg_signal_tp, tg_on_signal, NULL);
		tracepoint_synchronize_unregister();
		tg_signal_hooked = false;
	}
}

static void tg_cpu_state(char *buf, size_t size)
{
	scnprintf(buf, size, "%s", tg_signal_tp ? "active" :
		  "active; no signal_generate tracepoint: a member continued by SIGCONT runs until the next slice");
}

struct tg_actuator_ops tg_act_cpu __ro_after_init = {
	.p = {
		.name = "cpu", .slot_size = TG_SLOT_SIZE(struct tg_cpu_grp),
		.init = tg_cpu_init, .start = tg_cpu_start, .stop = tg_cpu_stop,
		.group_added = tg_cpu_group_added, .state = tg_cpu_state,
		.member_joined = tg_cpu_member_joined, .member_left = tg_cpu_member_left,
	},
	.apply = tg_cpu_apply_all, .release = tg_cpu_release,
};
