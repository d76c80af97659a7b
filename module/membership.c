// SPDX-License-Identifier: GPL-2.0
/*
 * membership.c - which task is in which group.
 *
 * A loadable module cannot add a field to task_struct or hook
 * cgroup_post_fork(), so membership is an rhashtable (it grows and shrinks
 * with the number of members) of struct tg_member keyed by
 * task_struct pointer, holding only tasks in child groups. It is kept
 * correct by two tracepoints found by name:
 *
 *  - task_newtask (end of copy_process(), every process and thread the
 *    kernel creates, before it first runs): the new task joins the group of
 *    the task that created it, unless someone already moved it;
 *  - sched_process_exit (do_exit(), after PF_EXITING is set): the task
 *    leaves; what it consumed stays in its group's totals.
 *
 * Locking: the index (an rhashtable) has its own; a member's record, its
 * place on a list and its m->grp are under the lock of the group it is in
 * (grp->lock; changing m->grp takes both groups' locks, in address order).
 * A member holds a reference on its group, so m->grp can be locked by
 * anyone who keeps the record alive (tg_member_lock_group()). Movers are
 * serialised by tg_move_mutex; forks and exits take one group lock only.
 *
 * Movers skip PF_EXITING tasks. The exit hook looks the task up under RCU
 * and takes a lock only when it is in a group, so tasks in no group exit
 * without touching anything shared. A mover that inserts a record
 * re-checks PF_EXITING after a full barrier, and the exit hook looks up
 * after one (exit_signals() set PF_EXITING before): either the hook finds
 * the record or the mover sees PF_EXITING and takes it out again, so no
 * record outlives its task.
 *
 * A process move is done thread by thread, pass after pass, until a pass
 * changes nothing: a thread forked by one not yet moved joined the old
 * group, but it is on the thread list before its parent moves, so the next
 * pass sees it.
 *
 * Metering. Every period the loop takes each group's CPU time
 * (tg_group_cpu_collect()): the members' sum_exec_runtime deltas, plus
 * what members that left during the period (moved out, removed) ran before
 * leaving, plus what exited members ran up to their very last context
 * switch: an exited member is not freed at once, it waits on its group's
 * exiting list until its task has switched out for the last time.
 *
 * Plug-ins hear of every member joining and leaving a group (member_joined,
 * member_left in struct tg_plugin), under the group's lock: the CPU
 * actuator parks a task that joins a throttled group.
 *
 * Removal. A group is removed (rmdir) only when no live task is in it;
 * unmount sends every member back to the root group first.
 */
#include <linux/capability.h>
#include <linux/math64.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "tg_plugin.h"

/* Passes of a process move before it gives up (threads keep appearing). */
#define TG_MOVE_PASSES		16

/* Serialises writers of cgroup.procs and tasks (never taken by forks, exits). */
static DEFINE_MUTEX(tg_move_mutex);
static struct rhashtable tg_members;
static const struct rhashtable_params tg_member_params = {
	.key_len		= sizeof(struct task_struct *),
	.key_offset		= offsetof(struct tg_member, task),
	.head_offset		= offsetof(struct tg_member, hnode),
	.automatic_shrinking	= true,
};

static struct kmem_cache *tg_member_cache;
/* New tasks that could not inherit a child group (cannot happen: a reserve). */
atomic64_t tg_inherit_failures = ATOMIC64_INIT(0);

/**
 * tg_member_find() - the member record of a task in a child group
 * @task: task
 *
 * Context: rcu_read_lock(), preemption off, or the lock of the group the
 * task is in.
 * Return: the record, or NULL for a task in the root group.
 */
struct tg_member *tg_member_find(struct task_struct *task)
{
	struct tg_member *m;

	/* a no-op for callers already in an RCU section, correct for all */
	rcu_read_lock();
	m = rhashtable_lookup(&tg_members, &task, tg_member_params);
	rcu_read_unlock();
	return m;
}

/**
 * tg_task_group() - the group a task belongs to
 * @task: task
 *
 * Context: rcu_read_lock() or preemption off.
 * Return: its child group, or the root group.
 */
struct tg_group *tg_task_group(struct task_struct *task)
{
	struct tg_member *m = tg_member_find(task);

	return m ? m->grp : &tg_root_group;
}

/**
 * tg_member_lock_group() - lock the group a member is in
 * @m: member record, kept alive by the caller
 *
 * Context: rcu_read_lock() held (a group the member just left may be on
 * its way out); takes grp->lock.
 * Return: the locked group; m->grp stays that group until it is unlocked.
 */
struct tg_group *tg_member_lock_group(struct tg_member *m)
{
	struct tg_group *grp;

	for (;;) {
		grp = READ_ONCE(m->grp);
		spin_lock(&grp->lock);
		if (likely(READ_ONCE(m->grp) == grp))
			return grp;
		spin_unlock(&grp->lock);
	}
}

/* Both groups' locks, in address order (lockdep: one class, nested). */
static void tg_lock_two(struct tg_group *a, struct tg_group *b)
{
	if (a > b)
		swap(a, b);
	spin_lock(&a->lock);
	spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

static void tg_unlock_two(struct tg_group *a, struct tg_group *b)
{
	spin_unlock(&a->lock);
	spin_unlock(&b->lock);
}

static int tg_member_attach(struct tg_member *m, struct task_struct *task,
			    struct tg_group *grp)
{
	int ret;

	lockdep_assert_held(&grp->lock);
	/* complete before lookups can find it */
	m->task = task;
	m->grp = grp;
	refcount_set(&m->ref, 1);	/* the group's */
	m->gone = false;
	m->last_runtime = READ_ONCE(task->se.sum_exec_runtime);
	m->pc = NULL;
	m->park_busy = 0;
	m->refill_busy = 0;
	m->reserve = NULL;
	ret = rhashtable_lookup_insert_fast(&tg_members, &m->hnode,
					    tg_member_params);
	if (ret)
		return ret;	/* -EEXIST: placed already; or out of memory */
	get_task_struct(task);
	tg_group_get(grp);
	list_add_tail(&m->gnode, &grp->members);
	grp->nr_tasks++;
	return 0;
}

/* --- metering ------------------------------------------------------------ */

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
 * tg_group_cpu_since() - CPU time of a group since its period began
 * @grp: child group
 *
 * Context: grp->lock held.
 * Return: nanoseconds, summed over all members and CPUs.
 */
u64 tg_group_cpu_since(struct tg_group *grp)
{
	return tg_cpu_since(grp, false);
}

/**
 * tg_group_cpu_collect() - CPU time the group's tasks ran in the period just ended
 * @grp: child group
 *
 * Starts the next period's metering.
 *
 * Context: the regulation loop (tg_mutex held); takes grp->lock.
 * Return: microseconds, summed over all members and CPUs.
 */
u64 tg_group_cpu_collect(struct tg_group *grp)
{
	u64 ns;

	lockdep_assert_held(&tg_mutex);
	spin_lock(&grp->lock);
	ns = tg_cpu_since(grp, true);
	spin_unlock(&grp->lock);
	return div_u64(ns, NSEC_PER_USEC);
}

/* Let exited members go: every one (@all: the group is going), or the final. */
static void tg_group_reap_exiting(struct tg_group *grp, bool all)
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

/* The plug-ins hear of it (the CPU actuator parks a joiner of a throttled group). */
static void tg_member_joined(struct tg_member *m, bool new_task)
{
	struct tg_plugin *p;
	unsigned int i;

	lockdep_assert_held(&m->grp->lock);
	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->member_joined)
			p->member_joined(m, new_task);
}

/* What it ran in @from is @from's; the plug-ins hear of it. */
static void tg_member_left(struct tg_member *m, struct tg_group *from)
{
	struct tg_plugin *p;
	unsigned int i;

	lockdep_assert_held(&from->lock);
	from->cpu_gone_ns += tg_member_ran(m, true);
	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->member_left)
			p->member_left(m, from);
}

static void tg_member_free_rcu(struct rcu_head *rcu)
{
	struct tg_member *m = container_of(rcu, struct tg_member, rcu);

	if (m->reserve)
		kmem_cache_free(tg_member_cache, m->reserve);
	put_task_struct(m->task);
	tg_group_put(m->grp);
	kmem_cache_free(tg_member_cache, m);
}

/**
 * tg_member_put() - drop a reference on a member record
 * @m: record (the group's reference, or a park's)
 *
 * Context: any context.
 */
void tg_member_put(struct tg_member *m)
{
	if (refcount_dec_and_test(&m->ref))
		call_rcu(&m->rcu, tg_member_free_rcu);
}

/* Out of the index and the group; what it ran is charged, a park ends. */
static void tg_member_unlink(struct tg_member *m)
{
	struct tg_group *grp = m->grp;
	struct tg_source_ops *src;
	unsigned int i;

	lockdep_assert_held(&grp->lock);
	for (i = 0; (src = tg_source(i)); i++)	/* perf: its counters to the loop */
		if (src->member_gone)
			src->member_gone(m);
	rhashtable_remove_fast(&tg_members, &m->hnode, tg_member_params);
	list_del(&m->gnode);
	grp->nr_tasks--;
	WRITE_ONCE(m->gone, true);
	tg_member_left(m, grp);
}

static void tg_member_detach(struct tg_member *m)
{
	tg_member_unlink(m);
	tg_member_put(m);
}

/* The exit hook: gone from the group, kept until its CPU time is final. */
static void tg_member_retire(struct tg_member *m)
{
	tg_member_unlink(m);
	list_add_tail(&m->gnode, &m->grp->exiting);
}

/* Both groups locked; the record's group reference moves with it. */
static void tg_member_switch(struct tg_member *m, struct tg_group *dst)
{
	struct tg_group *from = m->grp;

	lockdep_assert_held(&from->lock);
	lockdep_assert_held(&dst->lock);
	list_move_tail(&m->gnode, &dst->members);
	from->nr_tasks--;
	dst->nr_tasks++;
	tg_group_get(dst);
	WRITE_ONCE(m->grp, dst);
	/* CPU time so far counts for the old group, from now on for dst */
	tg_member_left(m, from);
	tg_member_joined(m, false);
	tg_group_put(from);	/* not the last: the registry holds one */
}

/* --- the fork reserve -------------------------------------------------- */

/*
 * Inheritance cannot fail. A fork hook runs with preemption off and may
 * only allocate atomically; when that fails the child gets its parent's
 * reserve record, and the parent gets a new reserve at its next return to
 * user space - before it can fork again, since every fork is a system call
 * - allocated where it may sleep, with __GFP_NOFAIL. A child whose own
 * reserve could not be allocated gets it the same way, at its first return
 * to user space, before its first fork. Movers give every thread they
 * place a reserve.
 */
static void tg_refill_fn(struct callback_head *cb)
{
	struct tg_member *m = container_of(cb, struct tg_member, refill_cb);
	struct tg_member *r = NULL;
	struct tg_group *grp;

	if (!(current->flags & PF_EXITING))	/* no fork after exit */
		r = kmem_cache_alloc(tg_member_cache, GFP_KERNEL | __GFP_NOFAIL);
	rcu_read_lock();
	grp = tg_member_lock_group(m);
	if (r && !m->gone && !m->reserve)
		swap(m->reserve, r);
	spin_unlock(&grp->lock);
	rcu_read_unlock();
	if (r)
		kmem_cache_free(tg_member_cache, r);
	clear_bit_unlock(0, &m->refill_busy);
	tg_member_put(m);
	module_put(THIS_MODULE);	/* exit waits for RCU-tasks: returning is safe */
}

/* Refill @m's reserve at its task's next return to user space. */
static void tg_refill_queue(struct tg_member *m)
{
	if (test_and_set_bit_lock(0, &m->refill_busy))
		return;
	if (!try_module_get(THIS_MODULE))
		goto idle;
	if (!refcount_inc_not_zero(&m->ref))
		goto put_module;
	init_task_work(&m->refill_cb, tg_refill_fn);
	if (!task_work_add(m->task, &m->refill_cb, TWA_RESUME))
		return;
	tg_member_put(m);	/* past exit_task_work(): maybe the last reference */
put_module:
	module_put(THIS_MODULE);
idle:
	clear_bit_unlock(0, &m->refill_busy);
}

/* --- tracepoint probes ---------------------------------------------- */

static void tg_on_newtask(void *data, struct task_struct *task,
			  unsigned long clone_flags)
{
	struct tg_member *pm, *m = NULL, *spare;
	bool refill_parent = false;
	struct tg_group *grp;
	int ret;

	/* kernel threads never belong to a child group */
	if (task->flags & PF_KTHREAD)
		return;
	/*
	 * The new task is on its thread list; a mover that inserts the
	 * parent's record then walks that list (after a full barrier in
	 * tg_place_thread()). One of us sees the other's write: either the
	 * parent's record is found here, or the mover's next pass finds the
	 * new thread.
	 */
	smp_mb();
	rcu_read_lock();
	pm = tg_member_find(current);
	if (!pm)
		goto out;
	/* Probes run with preemption disabled: no sleeping allocation. */
	m = kmem_cache_alloc(tg_member_cache, GFP_NOWAIT | __GFP_NOWARN);
	spare = kmem_cache_alloc(tg_member_cache, GFP_NOWAIT | __GFP_NOWARN);
	grp = tg_member_lock_group(pm);
	if (!pm->gone && !grp->dead) {
		if (!m) {		/* the parent's reserve (see above) */
			swap(m, pm->reserve);
			refill_parent = true;
		}
		/* -EEXIST: a mover placed the new task already; it wins */
		ret = m ? tg_member_attach(m, task, grp) : -ENOMEM;
		if (!ret) {
			swap(m->reserve, spare);
			if (!m->reserve)
				tg_refill_queue(m);	/* before its first fork */
			tg_member_joined(m, true);	/* throttled: starts parked */
			m = NULL;
		} else if (ret != -EEXIST) {
			atomic64_inc(&tg_inherit_failures);
		}
		if (refill_parent)
			tg_refill_queue(pm);
	}
	spin_unlock(&grp->lock);
	rcu_read_unlock();
	if (m)
		kmem_cache_free(tg_member_cache, m);
	if (spare)
		kmem_cache_free(tg_member_cache, spare);
	return;
out:
	rcu_read_unlock();
}

static void tg_on_exit(void *data, struct task_struct *task)
{
	struct tg_member *m;
	struct tg_group *grp;

	/* PF_EXITING is set: pairs with the barrier in tg_place_thread() */
	smp_mb();
	rcu_read_lock();
	m = tg_member_find(task);
	if (m) {
		grp = tg_member_lock_group(m);
		if (!m->gone)
			tg_member_retire(m);
		spin_unlock(&grp->lock);
	}
	rcu_read_unlock();		/* in no group: nothing shared touched */
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} tg_tracepoints[] = {
	{ .name = "task_newtask",	.probe = tg_on_newtask },
	{ .name = "sched_process_exit",	.probe = tg_on_exit },
};

static void tg_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tg_tracepoints); i++)
		if (!strcmp(tp->name, tg_tracepoints[i].name))
			tg_tracepoints[i].tp = tp;
}

/* --- moving tasks ----------------------------------------------------- */

static unsigned int tg_count_threads(struct task_struct *task, bool threadgroup)
{
	struct task_struct *t;
	unsigned int n = 0;

	if (!threadgroup)
		return 1;
	rcu_read_lock();
	for_each_thread(task, t)
		n++;
	rcu_read_unlock();
	return n;
}

/*
 * A move's resources, allocated where sleeping is allowed, before each
 * pass: records for threads that join a group (two each: its record and
 * its fork reserve), and the undo log - each thread the write changed and
 * the group it was in - for a write that fails.
 */
struct tg_undo {
	struct task_struct	*task;		/* referenced */
	struct tg_group		*was;		/* referenced */
};

struct tg_spares {
	struct tg_member	**m;
	unsigned int		nr, cap;
	struct tg_undo		*undo;
	unsigned int		nr_undo, cap_undo;
};

static int tg_undo_reserve(struct tg_spares *sp, unsigned int threads)
{
	struct tg_undo *u;

	if (sp->nr_undo + threads <= sp->cap_undo)
		return 0;
	u = krealloc_array(sp->undo, sp->nr_undo + threads, sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	sp->undo = u;
	sp->cap_undo = sp->nr_undo + threads;
	return 0;
}

static int tg_spares_fill(struct tg_spares *sp, unsigned int want)
{
	if (want > sp->cap) {
		struct tg_member **m = krealloc_array(sp->m, want, sizeof(*m),
						      GFP_KERNEL);

		if (!m)
			return -ENOMEM;
		sp->m = m;
		sp->cap = want;
	}
	while (sp->nr < want) {
		sp->m[sp->nr] = kmem_cache_alloc(tg_member_cache, GFP_KERNEL);
		if (!sp->m[sp->nr])
			return -ENOMEM;
		sp->nr++;
	}
	return 0;
}

static void tg_spares_free(struct tg_spares *sp)
{
	while (sp->nr)
		kmem_cache_free(tg_member_cache, sp->m[--sp->nr]);
	kfree(sp->m);
	while (sp->nr_undo) {
		struct tg_undo *u = &sp->undo[--sp->nr_undo];

		put_task_struct(u->task);
		tg_group_put(u->was);
	}
	kfree(sp->undo);
}

/* --- who may move what (docs/abi.md) -------------------------------------- */

/* The cgroup v1 rule for one thread: the opener's euid is its uid or suid. */
static bool tg_owns(const struct cred *fcred, struct task_struct *t)
{
	const struct cred *tcred = __task_cred(t);

	return uid_eq(fcred->euid, tcred->uid) || uid_eq(fcred->euid, tcred->suid);
}

/* The groups a move takes threads out of, each referenced once. */
struct tg_left {
	struct tg_group	**g;
	unsigned int	nr, cap;
};

static void tg_left_put(struct tg_left *src)
{
	while (src->nr)
		tg_group_put(src->g[--src->nr]);
	kfree(src->g);
	src->g = NULL;
}

/*
 * Check one thread the move takes and note the group it is in.
 * Context: rcu_read_lock() held. Return: 0, -EPERM (not the opener's),
 * -EAGAIN (more groups than room, or one being freed: again).
 */
static int tg_left_add(struct tg_left *src, const struct file *file,
		       struct task_struct *t)
{
	struct tg_group *g;
	unsigned int i;

	if (!tg_owns(file->f_cred, t))
		return -EPERM;
	if (READ_ONCE(t->flags) & PF_EXITING)
		return 0;	/* movers skip it */
	g = tg_task_group(t);
	for (i = 0; i < src->nr; i++)
		if (src->g[i] == g)
			return 0;
	if (src->nr == src->cap || !tg_group_tryget(g))
		return -EAGAIN;
	src->g[src->nr++] = g;
	return 0;
}

/* Context: rcu_read_lock() held. Return: as tg_left_add(). */
static int tg_left_gather(struct tg_left *src, const struct file *file,
			  struct task_struct *task, bool threadgroup)
{
	struct task_struct *t;
	int ret;

	if (!threadgroup)
		return tg_left_add(src, file, task);
	for_each_thread(task, t) {
		ret = tg_left_add(src, file, t);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * tg_may_move() - may the opener of @file move @task (its process with
 * @threadgroup)? With CAP_SYS_ADMIN in the initial user namespace, yes.
 * Otherwise every thread the move takes must be the opener's (checked on
 * each: a thread that switched its credentials must not drag its process
 * along), and the opener must be allowed to write the same file in every
 * group those threads leave (@may_leave; the VFS checked the destination
 * when the file was opened). The opener's credentials throughout, as
 * cgroup v1 does, against a descriptor handed to someone else.
 *
 * Context: tg_move_mutex held, so no other move changes those groups
 * before this one. Return: 0, -EPERM, -ENOMEM, -EAGAIN.
 */
static int tg_may_move(const struct file *file, struct task_struct *task,
		       bool threadgroup, tg_may_leave_fn may_leave,
		       const char **msg)
{
	struct tg_left src = { };
	unsigned int i, tries;
	int ret = -EAGAIN;

	lockdep_assert_held(&tg_move_mutex);
	if (file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return 0;
	for (tries = 0; ret == -EAGAIN && tries < TG_MOVE_PASSES; tries++) {
		tg_left_put(&src);
		/* a thread's group at most, and the root group */
		src.cap = tg_count_threads(task, threadgroup) + 1;
		src.g = kmalloc_array(src.cap, sizeof(*src.g), GFP_KERNEL);
		if (!src.g) {
			*msg = "out of memory";
			return -ENOMEM;
		}
		rcu_read_lock();
		ret = tg_left_gather(&src, file, task, threadgroup);
		rcu_read_unlock();
	}
	if (ret == -EPERM)
		*msg = "not permitted to move this task (a thread it moves is not the writer's)";
	for (i = 0; !ret && i < src.nr; i++)
		if (!may_leave(src.g[i], file))
			ret = -EACCES;
	if (ret == -EACCES) {
		*msg = "not permitted to move tasks out of their group (no write permission there)";
		ret = -EPERM;
	}
	if (ret == -EAGAIN)
		*msg = "threads kept appearing, try again";
	tg_left_put(&src);
	return ret;
}

enum { TG_PLACE_SKIP, TG_PLACE_SAME, TG_PLACE_CHANGED };

/*
 * Place one thread into dst, with a spare record if it has none.
 * Context: rcu_read_lock() held (tg_member_lock_group()), tg_move_mutex.
 * Return: TG_PLACE_SKIP (exiting), TG_PLACE_SAME (there already),
 * TG_PLACE_CHANGED, or -ENOSPC (no spare), -EAGAIN (it changed under us:
 * try again), -ENODEV (dst removed), -ENOMEM (the index could not grow).
 */
static int tg_place_thread(struct task_struct *t, struct tg_group *dst,
			   struct tg_spares *sp, struct tg_group **was)
{
	struct tg_member *m;
	struct tg_group *src;
	int ret;

	*was = &tg_root_group;

	if (READ_ONCE(t->flags) & PF_EXITING)
		return TG_PLACE_SKIP;
	m = tg_member_find(t);
	if (m) {
		src = tg_member_lock_group(m);
		if (m->gone || src == dst || tg_is_root(dst)) {
			ret = m->gone ? -EAGAIN : TG_PLACE_SAME;
			if (!m->gone && src != dst) {
				tg_group_get(src);
				*was = src;
				tg_member_detach(m);	/* back to root */
				ret = TG_PLACE_CHANGED;
			}
			spin_unlock(&src->lock);
			return ret;
		}
		spin_unlock(&src->lock);
		tg_lock_two(src, dst);
		if (READ_ONCE(m->grp) != src || m->gone) {
			ret = -EAGAIN;
		} else if (dst->dead) {
			ret = -ENODEV;
		} else {
			tg_group_get(src);
			*was = src;
			tg_member_switch(m, dst);
			ret = TG_PLACE_CHANGED;
		}
		tg_unlock_two(src, dst);
		return ret;
	}
	if (tg_is_root(dst))
		return TG_PLACE_SAME;
	if (sp->nr < 2)		/* its record and its fork reserve */
		return -ENOSPC;

	spin_lock(&dst->lock);
	if (dst->dead) {
		ret = -ENODEV;
		goto unlock;
	}
	m = sp->m[sp->nr - 1];
	ret = tg_member_attach(m, t, dst);
	if (ret) {
		/* -EEXIST: a fork hook placed it meanwhile; -EBUSY: a rehash */
		ret = ret == -EEXIST || ret == -EBUSY ? -EAGAIN : -ENOMEM;
		goto unlock;
	}
	m->reserve = sp->m[sp->nr - 2];
	sp->nr -= 2;
	/* pairs with the barrier in tg_on_exit(): one of us sees the other */
	smp_mb();
	if (READ_ONCE(t->flags) & PF_EXITING) {
		tg_member_detach(m);	/* the exit hook may have missed it */
		ret = TG_PLACE_SKIP;
		goto unlock;
	}
	tg_member_joined(m, false);
	ret = TG_PLACE_CHANGED;
unlock:
	spin_unlock(&dst->lock);
	return ret;
}

/* What one pass of a move did. */
struct tg_pass {
	unsigned int	placed, changed;
	bool		again;
	int		err;
};

/* Return: true to stop the pass (an error). */
static bool tg_pass_thread(struct task_struct *t, struct tg_group *dst,
			   struct tg_spares *sp, struct tg_pass *ps)
{
	struct tg_group *was;
	int r;

	if (sp->nr_undo == sp->cap_undo) {	/* a thread new since the count */
		ps->again = true;
		return false;
	}
	r = tg_place_thread(t, dst, sp, &was);
	if (r == TG_PLACE_CHANGED)
		sp->undo[sp->nr_undo++] = (struct tg_undo){ get_task_struct(t), was };

	if (r == -ENOSPC || r == -EAGAIN)
		ps->again = true;
	else if (r < 0)
		ps->err = r;
	ps->placed += r > 0;
	ps->changed += r == TG_PLACE_CHANGED;
	return ps->err;
}

/*
 * A failed write changes nothing: every thread it moved goes back to the
 * group it was in, newest change first (the spares left cover a way back
 * out of the root group). A group removed meanwhile sends it to the root
 * group, and so does a way back that needs memory the member index cannot
 * get (the one thing a failed write can leave changed). Threads created
 * during the write by threads it had moved were never elsewhere: they
 * stay where their creator was when it created them.
 */
static void tg_move_undo(struct tg_spares *sp)
{
	struct tg_group *was;
	unsigned int i;
	int r;

	lockdep_assert_held(&tg_move_mutex);
	for (i = sp->nr_undo; i--;) {
		struct tg_undo *u = &sp->undo[i];

		rcu_read_lock();
		r = tg_place_thread(u->task, u->was, sp, &was);
		if (r == TG_PLACE_CHANGED)
			tg_group_put(was);
		if (r == -ENODEV || r == -ENOMEM || r == -ENOSPC) {
			r = tg_place_thread(u->task, &tg_root_group, sp, &was);
			if (r == TG_PLACE_CHANGED)
				tg_group_put(was);
		}
		rcu_read_unlock();
	}
}

/*
 * Move task (or its whole thread group) to dst: pass after pass until one
 * changes nothing, so threads forked meanwhile by threads not yet moved
 * follow too; all or nothing (tg_move_undo()). Context: tg_move_mutex held.
 */
static int tg_move_task(struct tg_group *dst, struct task_struct *task,
			bool threadgroup, const char **msg)
{
	struct tg_spares sp = { };
	struct task_struct *t;
	struct tg_pass ps;
	unsigned int pass;
	int ret = 0;

	lockdep_assert_held(&tg_move_mutex);
	for (pass = 0; pass < TG_MOVE_PASSES; pass++) {
		unsigned int threads = tg_count_threads(task, threadgroup);

		/* records for moving in, and for moving back out of the root */
		if (tg_spares_fill(&sp, 2 * threads) || tg_undo_reserve(&sp, threads)) {
			ret = -ENOMEM;
			break;
		}
		ps = (struct tg_pass){ .err = 0 };
		rcu_read_lock();
		if (threadgroup) {
			for_each_thread(task, t)
				if (tg_pass_thread(t, dst, &sp, &ps))
					break;
		} else {
			tg_pass_thread(task, dst, &sp, &ps);
		}
		rcu_read_unlock();
		ret = ps.err;
		if (ret)
			break;
		if (!ps.again && !ps.placed) {
			ret = -ESRCH;
			break;
		}
		if (!ps.again && (!ps.changed || !threadgroup))
			break;		/* stable */
	}
	if (pass == TG_MOVE_PASSES)
		ret = -EAGAIN;
	if (ret)
		tg_move_undo(&sp);
	tg_spares_free(&sp);

	switch (ret) {
	case -ESRCH:
		*msg = "task is exiting";
		break;
	case -ENODEV:
		*msg = "group has been removed";
		break;
	case -ENOMEM:
		*msg = "out of memory";
		break;
	case -EAGAIN:
		*msg = "threads kept appearing, try again";
		break;
	}
	return ret;
}

/* After a move: the sources that follow tasks (pmdk's slots) catch up. */
static void tg_sources_moved(struct task_struct *task, bool threadgroup)
{
	struct tg_source_ops *src;
	unsigned int i;

	for (i = 0; (src = tg_source(i)); i++)
		if (src->task_moved)
			src->task_moved(task, threadgroup);
}

/**
 * tg_move_pid() - the write side of cgroup.procs and tasks
 * @dst:         destination group (the root group moves tasks out)
 * @nr:          pid in the writer's pid namespace, 0 for the writer itself
 * @threadgroup: move every thread of the process (cgroup.procs)
 * @file:        the file written, for the permission check
 * @may_leave:   may the opener of @file move tasks out of a group?
 * @msg:         explanation on failure
 *
 * Context: Process context; takes tg_move_mutex and group locks.
 * Return: 0, -ESRCH (no such pid, or exiting), -EINVAL (kernel thread),
 * -EPERM (not CAP_SYS_ADMIN, and a thread moved is not the opener's or a
 * group left is not writable, see tg_may_move()), -ENODEV (group removed),
 * -ENOMEM, -EAGAIN.
 */
int tg_move_pid(struct tg_group *dst, pid_t nr, bool threadgroup,
		const struct file *file, tg_may_leave_fn may_leave,
		const char **msg)
{
	struct task_struct *task;
	struct pid *pid;
	int ret;

	if (nr) {
		pid = find_get_pid(nr);
		task = get_pid_task(pid, PIDTYPE_PID);
		put_pid(pid);
	} else {
		task = get_task_struct(current);
	}
	if (!task) {
		*msg = "no such pid in the writer's pid namespace";
		return -ESRCH;
	}
	if (task->flags & PF_KTHREAD) {
		*msg = "kernel threads cannot be moved";
		ret = -EINVAL;
	} else {
		mutex_lock(&tg_move_mutex);
		ret = tg_may_move(file, task, threadgroup, may_leave, msg);
		if (!ret)
			ret = tg_move_task(dst, task, threadgroup, msg);
		mutex_unlock(&tg_move_mutex);
		if (!ret)
			tg_sources_moved(task, threadgroup);
	}
	put_task_struct(task);
	return ret;
}

/*
 * Empty a group about to be removed, if it can be: a group whose only
 * members are exiting (PF_EXITING, exit hook not yet run) is empty for
 * rmdir, as it is for cgroup.procs and tasks: those members are detached
 * now and their exit hook finds nothing. False if a live task is in it.
 */
static bool tg_group_drain(struct tg_group *grp)
{
	struct tg_member *m, *tmp;

	lockdep_assert_held(&grp->lock);
	list_for_each_entry(m, &grp->members, gnode)
		if (!(m->task->flags & PF_EXITING))
			return false;
	list_for_each_entry_safe(m, tmp, &grp->members, gnode)
		tg_member_detach(m);
	return true;
}

/* A dead group: every member back to root, every exited member let go. */
static void tg_group_release_members(struct tg_group *grp)
{
	struct tg_member *m, *tmp;

	spin_lock(&grp->lock);
	list_for_each_entry_safe(m, tmp, &grp->members, gnode)
		tg_member_detach(m);
	tg_group_reap_exiting(grp, true);
	spin_unlock(&grp->lock);
}

/**
 * tg_group_remove() - remove an empty child group (rmdir)
 * @grp: group
 * @msg: explanation on failure
 *
 * Context: Process context, tg_mutex held.
 * Return: 0, or -EBUSY while a task that is not exiting is in the group.
 */
int tg_group_remove(struct tg_group *grp, const char **msg)
{
	lockdep_assert_held(&tg_mutex);
	spin_lock(&grp->lock);
	if (!tg_group_drain(grp)) {
		spin_unlock(&grp->lock);
		*msg = "group has tasks";
		return -EBUSY;
	}
	grp->dead = true;	/* under lock: nothing can join it now */
	tg_group_reap_exiting(grp, true);
	spin_unlock(&grp->lock);
	tg_group_unlist(grp);
	return 0;
}

/**
 * tg_group_remove_all() - unmount: every task back to root, every group gone
 *
 * Context: Process context, tg_mutex held.
 */
void tg_group_remove_all(void)
{
	struct tg_group *grp, *tmp;

	lockdep_assert_held(&tg_mutex);
	/*
	 * Dead first: from here no task can join any of them, not even by
	 * fork or by a move between two of them; then empty and unlist each.
	 */
	list_for_each_entry(grp, &tg_groups, node) {
		spin_lock(&grp->lock);
		grp->dead = true;
		spin_unlock(&grp->lock);
	}
	list_for_each_entry_safe(grp, tmp, &tg_groups, node) {
		tg_group_release_members(grp);
		tg_group_unlist(grp);
	}
}

/* --- listing ------------------------------------------------------------ */

/* Pids looked at between two reschedule points of a listing. */
#define TG_LIST_BATCH		64

/* Is @t, a live task, in @grp? (the root group: in no child group) */
static bool tg_listed_in(struct task_struct *t, struct tg_group *grp)
{
	/* leaving at its exit hook; movers skip it too */
	if (t->flags & PF_EXITING)
		return false;
	return tg_task_group(t) == grp;
}

/**
 * tg_group_next_pid() - the read side of cgroup.procs and tasks, one id at a time
 * @grp:   group
 * @tgids: thread-group ids (cgroup.procs: a process with a thread in @grp)
 *         instead of thread ids
 * @ns:    the reader's pid namespace; tasks not visible there are left out
 * @from:  the smallest id wanted
 *
 * Walks the pids of @ns upwards from @from, so the listing comes out in
 * ascending order without duplicates and can be resumed anywhere: each
 * call holds rcu_read_lock() for a few pids at a time and reschedules in
 * between, however many tasks the system has.
 *
 * Context: process context, no lock held.
 * Return: the id, or 0 if there is none from @from on.
 */
pid_t tg_group_next_pid(struct tg_group *grp, bool tgids,
			struct pid_namespace *ns, pid_t from)
{
	struct task_struct *p, *t;
	unsigned int n = 0;
	struct pid *pid;
	pid_t nr = max(from, 1);

	for (;;) {
		rcu_read_lock();
		for (; n < TG_LIST_BATCH; n++, nr++) {
			pid = find_ge_pid(nr, ns);
			if (!pid) {
				rcu_read_unlock();
				return 0;
			}
			nr = pid_nr_ns(pid, ns);
			p = pid_task(pid, tgids ? PIDTYPE_TGID : PIDTYPE_PID);
			if (!p)
				continue;
			if (!tgids) {
				if (tg_listed_in(p, grp))
					goto found;
				continue;
			}
			for_each_thread(p, t)
				if (tg_listed_in(t, grp))
					goto found;
		}
		rcu_read_unlock();
		n = 0;
		cond_resched();
		if (nr <= 0)	/* wrapped: past pid_max */
			return 0;
	}
found:
	rcu_read_unlock();
	return nr;
}

/* --- init / exit -------------------------------------------------------- */

/**
 * tg_membership_init() - set up the member cache and the fork/exit hooks
 *
 * Context: Module init.
 * Return: 0, -ENOMEM, -ENOENT if a tracepoint does not exist, or the error
 * of tracepoint_probe_register().
 */
int tg_membership_init(void)
{
	int i, ret;

	/* the probes' prototypes are the kernel's (a mismatch fails the build) */
	check_trace_callback_type_task_newtask(tg_on_newtask);
	check_trace_callback_type_sched_process_exit(tg_on_exit);

	tg_member_cache = KMEM_CACHE(tg_member, 0);
	if (!tg_member_cache)
		return -ENOMEM;
	ret = rhashtable_init(&tg_members, &tg_member_params);
	if (ret)
		goto err_cache;
	for_each_kernel_tracepoint(tg_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(tg_tracepoints); i++) {
		if (!tg_tracepoints[i].tp) {
			pr_err("tgroup: tracepoint %s not found\n",
			       tg_tracepoints[i].name);
			ret = -ENOENT;
			goto err_unregister;
		}
		ret = tracepoint_probe_register(tg_tracepoints[i].tp,
						tg_tracepoints[i].probe, NULL);
		if (ret)
			goto err_unregister;
	}
	return 0;

err_unregister:
	while (i--)
		tracepoint_probe_unregister(tg_tracepoints[i].tp,
					    tg_tracepoints[i].probe, NULL);
	tracepoint_synchronize_unregister();
	rhashtable_destroy(&tg_members);
err_cache:
	kmem_cache_destroy(tg_member_cache);
	return ret;
}

/**
 * tg_membership_exit() - unhook, free the index and the cache
 *
 * Every member left with its group at unmount (tg_group_remove_all()), and
 * no park holds one (each holds a module reference).
 *
 * Context: Module exit, after the filesystem is gone.
 */
void tg_membership_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(tg_tracepoints) - 1; i >= 0; i--)
		tracepoint_probe_unregister(tg_tracepoints[i].tp,
					    tg_tracepoints[i].probe, NULL);
	tracepoint_synchronize_unregister();
	rhashtable_destroy(&tg_members);
	rcu_barrier();		/* tg_member_free_rcu() callbacks */
	kmem_cache_destroy(tg_member_cache);
}
