// SPDX-License-Identifier: GPL-2.0
/*
 * pmdk.c - the pmdk signal source: bytes that processes store into
 * mapped persistent memory through libpmem (no system call, so neither the
 * vfs source nor the scheduler sees them), as counted by libtgpmem.so in a
 * page shared with the module (pmdk-hooks/tgpmem_abi.h).
 *
 * /dev/tgroup_pmem (misc device, 0666). open() gives the calling process
 * its own page - one per address space, pmdk_max_procs pages in all and
 * pmdk_max_procs_per_user per user (EDQUOT past it), so no one user can
 * take every page and blind the source for the others. A user is counted
 * twice: by real uid, and by owner - the uid itself for a process in the
 * initial user namespace, else the creator of its outermost user namespace
 * (a rootless container's 65536 mapped uids are one user's), or that
 * namespace itself when root created it (one pod of a runtime that gives
 * each its own range). Only
 * that process may mmap the page or claim slots in it: a descriptor passed
 * to, or inherited by, another process is refused (EPERM), and the mapping
 * is not copied by fork (VM_DONTCOPY): a child opens its own page. A thread
 * claims a slot (TGPMEM_IOC_CLAIM) and adds its bytes to it with plain
 * stores; when all are taken it gets the overflow slot 0, shared with
 * atomic adds.
 *
 * A slot charges the group its thread is in (slot 0: the process leader's):
 * set when the slot is claimed, and when the thread is moved
 * (tg_pmdk_task_moved(), which first charges what the slot gained to the group
 * it leaves). Each period the loop reads every claimed slot
 * (tg_pmdk_period()) and charges the increase; a slot whose thread has
 * exited is read a last time and freed. Closing the page
 * (exit, exec) reads every slot a last time. The reports are untrusted:
 *  - a count below the highest seen is rejected (tgroup.config source_pmdk
 *    counts them) and charges nothing until it is passed again;
 *  - a slot never charges more than its writer could have stored: its
 *    thread's CPU time since the claim (slot 0: its process's, since the
 *    open) times pmdk_cpu_gbps bytes per ns, computed saturating. What a
 *    report claims beyond that waits, charged as the CPU time comes (the
 *    library reports a call before it copies), and is dropped when the
 *    slot is freed (source_pmdk counts those bytes);
 *  - the estimator caps the input by the group's MBM total when MBM is
 *    present.
 * Reports only ever charge the groups of the reporting process's own
 * threads.
 */
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/overflow.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <linux/version.h>

#include "tg_plugin.h"
#include "tgpmem_abi.h"

static unsigned int tg_pmdk_max_procs = 1024;
module_param_named(pmdk_max_procs, tg_pmdk_max_procs, uint, 0444);
MODULE_PARM_DESC(pmdk_max_procs,
		 "Most processes with a PMDK page at once (0 disables /dev/tgroup_pmem, default 1024)");

static unsigned int tg_pmdk_max_procs_per_user = 64;
module_param_named(pmdk_max_procs_per_user, tg_pmdk_max_procs_per_user, uint, 0444);
MODULE_PARM_DESC(pmdk_max_procs_per_user,
		 "Most PMDK pages one user may hold at once, by real uid and by user namespace owner (EDQUOT past it; 0: no per-user limit, default 64)");

#define TG_PMDK_GBPS_MAX	1024
static unsigned int tg_pmdk_cpu_gbps = 64;
module_param_named(pmdk_cpu_gbps, tg_pmdk_cpu_gbps, uint, 0444);
MODULE_PARM_DESC(pmdk_cpu_gbps,
		 "Most bytes a thread is believed to store per ns of its CPU time (GB/s per CPU, 1..1024, default 64): bounds PMDK reports");

/* One slot as the module tracks it. */
struct tg_pslot {
	struct pid		*pid;	/* owner thread (slot 0: the process); NULL: free */
	struct task_struct	*task;	/* that thread (slot 0: the leader), referenced */
	struct tg_group		*grp;	/* group charged, referenced; NULL: none */
	u64			seen;	/* highest count read */
	u64			charged; /* of it, charged (or let go unmounted) */
	u64			cpu0;	/* the writer's CPU time at the claim, ns */
	unsigned long		gone;	/* jiffies its thread was first seen gone */
	bool			going;	/* ... and it was */
};

/* One process's page. */
struct tg_pproc {
	struct list_head	node;	/* tg_pprocs */
	struct mm_struct	*mm;	/* owner's address space (mmgrab) */
	kuid_t			uid;	/* opener's real uid: the per-user cap */
	kuid_t			owner;	/* ... and its owner (tg_pmdk_owner()) */
	struct user_namespace	*owner_ns;	/* referenced; NULL: owner alone */
	unsigned long		closed;	/* jiffies of the close (tg_pclosing) */
	struct page		*page;
	struct tgpmem_page	*shared;	/* page_address(page) */
	unsigned long		used;	/* bit i: slot[i] has an owner */
	struct tg_pslot		slot[TGPMEM_NR_SLOTS];
};

/*
 * A writer's CPU time (sum_exec_runtime) is brought up to date when it
 * switches out and at every tick: for a task running when it reported, it
 * lags by up to a tick. A slot is let go (its writer exited, or its page
 * was closed) only this many jiffies after, so that the last charge counts
 * all the CPU time the writer had. (On a nohz_full CPU the tick can stay
 * off for up to a second; those are not in use unless booted with
 * nohz_full=, and there the last charge can miss up to that much.)
 */
#define TG_PMDK_SETTLE	2

/* Pages, slot state and the counters below; taken after tg_mutex. */
static DEFINE_MUTEX(tg_pmdk_lock);
static LIST_HEAD(tg_pprocs);
static LIST_HEAD(tg_pclosing);		/* closed while mounted, not yet settled */
static bool tg_pmdk_mounted;
static unsigned int tg_pmdk_nr;
static unsigned int tg_pmdk_slots;	/* thread slots claimed */
static u64 tg_pmdk_rejected;
static u64 tg_pmdk_dropped;		/* reported bytes beyond the CPU bound */
static bool tg_pmdk_registered;
static int tg_pmdk_err;

/* A group's bytes reported since the last period (its slot). */
struct tg_pmdk_grp {
	atomic64_t	bytes;
};

static struct tg_pmdk_grp *tg_pmdk_of(struct tg_group *grp)
{
	return tg_grp_slot(grp, &tg_src_pmdk.p);
}

/* s->grp = grp, taking over a reference the caller holds on grp */
static void tg_pslot_set_grp(struct tg_pslot *s, struct tg_group *grp)
{
	if (s->grp)
		tg_group_put(s->grp);
	s->grp = grp;
}

/* Charge the slot's bytes to t's group from now on (t may be exiting). */
static void tg_pslot_regroup(struct tg_pslot *s, struct task_struct *t)
{
	struct tg_group *grp;

	rcu_read_lock();
	grp = tg_task_group(t);
	if (grp != s->grp && tg_group_tryget(grp))
		tg_pslot_set_grp(s, grp);
	rcu_read_unlock();
}

/*
 * CPU time a slot's writer has run, ns: its thread's (slot 0: its
 * process's, live threads and exited ones). Read without the scheduler's
 * locks: a running thread's figure lags by up to a tick (TG_PMDK_SETTLE),
 * and a process's can count a thread that is exiting right then twice
 * (__exit_signal() adds it to sum_sched_runtime before unlinking it), by
 * that thread's CPU time at most; tg_pslot_charge() only ever charges
 * more, so a figure that steps back only delays a charge.
 */
static u64 tg_pslot_cpu_ns(const struct tg_pslot *s, unsigned int i)
{
	struct task_struct *t;
	u64 ns;

	if (i != TGPMEM_OVERFLOW)
		return READ_ONCE(s->task->se.sum_exec_runtime);
	rcu_read_lock();
	ns = READ_ONCE(s->task->signal->sum_sched_runtime);
	for_each_thread(s->task, t)
		ns += READ_ONCE(t->se.sum_exec_runtime);
	rcu_read_unlock();
	return ns;
}

/* Give free slot i to the calling thread (slot 0: to its process). */
static void tg_pslot_own(struct tg_pproc *p, unsigned int i, struct pid *pid)
{
	struct tg_pslot *s = &p->slot[i];

	lockdep_assert_held(&tg_pmdk_lock);
	__set_bit(i, &p->used);
	s->pid = pid;
	s->task = get_task_struct(i == TGPMEM_OVERFLOW ? current->group_leader : current);
	s->seen = 0;
	s->charged = 0;
	s->cpu0 = tg_pslot_cpu_ns(s, i);
	s->going = false;
	tg_pslot_regroup(s, current);
}

/* What the writer could have stored since the claim, saturating. */
static u64 tg_pslot_bound(const struct tg_pslot *s, unsigned int i)
{
	u64 now = tg_pslot_cpu_ns(s, i), bytes;

	if (now <= s->cpu0)
		return 0;
	if (check_mul_overflow(now - s->cpu0, (u64)tg_pmdk_cpu_gbps, &bytes))
		return U64_MAX;
	return bytes;
}

/* *a += d, as an unsigned count that stops at its largest value */
static void tg_add_sat(atomic64_t *a, u64 d)
{
	s64 old = atomic64_read(a);
	u64 sum;

	do {
		if (check_add_overflow((u64)old, d, &sum))
			sum = U64_MAX;
	} while (!atomic64_try_cmpxchg(a, &old, (s64)sum));
}

/* The slot's thread while it can still run user code, else NULL. */
static struct task_struct *tg_pslot_task(const struct tg_pslot *s,
					 unsigned int i)
{
	struct task_struct *t;

	t = pid_task(s->pid, i == TGPMEM_OVERFLOW ? PIDTYPE_TGID : PIDTYPE_PID);
	return t && !(t->flags & PF_EXITING) ? t : NULL;
}

/*
 * Read slot i and charge what it gained to the slot's group. A count below
 * the high-water mark is rejected: nothing is charged until it is passed.
 * What is charged in all never exceeds what the writer could have stored
 * (tg_pslot_bound()); the rest waits for more CPU time.
 */
static void tg_pslot_charge(struct tg_pproc *p, unsigned int i)
{
	struct tg_pslot *s = &p->slot[i];
	u64 v = READ_ONCE(p->shared->slot[i].bytes), want;

	lockdep_assert_held(&tg_pmdk_lock);
	if (v < s->seen) {
		tg_pmdk_rejected++;
		return;
	}
	s->seen = v;
	if (v <= s->charged)
		return;
	want = min(v, tg_pslot_bound(s, i));
	if (want <= s->charged)
		return;
	if (s->grp && !tg_is_root(s->grp) && !READ_ONCE(s->grp->dead))
		tg_add_sat(&tg_pmdk_of(s->grp)->bytes, want - s->charged);
	s->charged = want;
}

/* The slot's writer is gone: what it claimed beyond the bound goes. */
static void tg_pslot_drop(struct tg_pslot *s)
{
	lockdep_assert_held(&tg_pmdk_lock);
	tg_pmdk_dropped += s->seen - s->charged;
	s->seen = 0;
	s->charged = 0;
	if (s->task)
		put_task_struct(s->task);
	s->task = NULL;
}

/* Free slot i of an exited thread: read it a last time first. */
static void tg_pslot_retire(struct tg_pproc *p, unsigned int i)
{
	struct tg_pslot *s = &p->slot[i];

	lockdep_assert_held(&tg_pmdk_lock);
	smp_rmb();	/* the thread's last stores precede PF_EXITING */
	tg_pslot_charge(p, i);
	tg_pslot_drop(s);
	tg_pslot_set_grp(s, NULL);
	put_pid(s->pid);
	s->pid = NULL;
	WRITE_ONCE(p->shared->slot[i].bytes, 0);
	__clear_bit(i, &p->used);
	tg_pmdk_slots--;
}

/*
 * Has slot i's thread exited long enough ago (TG_PMDK_SETTLE) for its CPU
 * time to be all counted? Notes when it is first seen gone.
 */
static bool tg_pslot_settled(struct tg_pproc *p, unsigned int i)
{
	struct tg_pslot *s = &p->slot[i];
	struct task_struct *t;

	lockdep_assert_held(&tg_pmdk_lock);
	rcu_read_lock();
	t = tg_pslot_task(s, i);
	rcu_read_unlock();
	if (t)
		return false;
	if (!s->going) {
		s->going = true;
		s->gone = jiffies;
	}
	return time_after_eq(jiffies, s->gone + TG_PMDK_SETTLE);
}

/* One period for one page: charge every slot, free exited threads' slots. */
static void tg_pproc_collect(struct tg_pproc *p)
{
	unsigned int i;

	lockdep_assert_held(&tg_pmdk_lock);
	for_each_set_bit(i, &p->used, TGPMEM_NR_SLOTS) {
		if (i != TGPMEM_OVERFLOW && tg_pslot_settled(p, i))
			tg_pslot_retire(p, i);
		else
			tg_pslot_charge(p, i);
	}
}

/* A closed page's last charge: every slot, then what is left over goes. */
static void tg_pproc_finish(struct tg_pproc *p)
{
	unsigned int i;

	lockdep_assert_held(&tg_pmdk_lock);
	for_each_set_bit(i, &p->used, TGPMEM_NR_SLOTS) {
		tg_pslot_charge(p, i);
		tg_pslot_drop(&p->slot[i]);
		tg_pmdk_slots -= i != TGPMEM_OVERFLOW;
	}
}

/* Does slot i belong to task (slot 0: to its process's leader)? */
static bool tg_pslot_of(const struct tg_pproc *p, unsigned int i,
			struct task_struct *task)
{
	if (i == TGPMEM_OVERFLOW)
		return thread_group_leader(task);
	return p->slot[i].pid == task_pid(task);
}

/*
 * A task (or its whole process) changed group: the moved threads' slots are
 * charged what they gained so far - to the group they were in - and follow
 * their threads from now on. Called after the move is committed: of two
 * racing moves, the last call sees the final group. No tgroup lock held.
 */
static void tg_pmdk_task_moved(struct task_struct *task, bool threadgroup)
{
	struct mm_struct *mm = READ_ONCE(task->mm);	/* compared, not used */
	struct task_struct *t;
	struct tg_pproc *p;
	unsigned int i;

	if (!READ_ONCE(tg_pmdk_registered) || !mm)
		return;
	mutex_lock(&tg_pmdk_lock);
	list_for_each_entry(p, &tg_pprocs, node) {
		if (p->mm != mm)
			continue;
		for_each_set_bit(i, &p->used, TGPMEM_NR_SLOTS) {
			if (!threadgroup && !tg_pslot_of(p, i, task))
				continue;
			tg_pslot_charge(p, i);
			rcu_read_lock();
			t = tg_pslot_task(&p->slot[i], i);
			if (t)
				tg_pslot_regroup(&p->slot[i], t);
			rcu_read_unlock();
		}
		break;
	}
	mutex_unlock(&tg_pmdk_lock);
}

static void tg_pproc_free(struct tg_pproc *p);

/*
 * Charge every page's new bytes to the groups; a page closed at least
 * TG_PMDK_SETTLE jiffies ago is charged a last time and freed (tg_mutex
 * held).
 */
static void tg_pmdk_period(void)
{
	struct tg_pproc *p, *tmp;
	LIST_HEAD(done);

	lockdep_assert_held(&tg_mutex);
	mutex_lock(&tg_pmdk_lock);
	list_for_each_entry(p, &tg_pprocs, node)
		tg_pproc_collect(p);
	list_for_each_entry_safe(p, tmp, &tg_pclosing, node) {
		if (!time_after_eq(jiffies, p->closed + TG_PMDK_SETTLE)) {
			tg_pproc_collect(p);
			continue;
		}
		tg_pproc_finish(p);
		list_move_tail(&p->node, &done);
	}
	mutex_unlock(&tg_pmdk_lock);
	list_for_each_entry_safe(p, tmp, &done, node)
		tg_pproc_free(p);
}

/*
 * Mount and unmount: the mount's groups are let go, and what is counted
 * while nothing is mounted is charged to no one (closed pages: at once).
 * The loop is not running.
 */
static void tg_pmdk_rebase(bool mounted)
{
	struct tg_pproc *p, *tmp;
	unsigned int i;
	LIST_HEAD(done);

	mutex_lock(&tg_pmdk_lock);
	list_for_each_entry(p, &tg_pprocs, node) {
		for_each_set_bit(i, &p->used, TGPMEM_NR_SLOTS) {
			tg_pslot_set_grp(&p->slot[i], NULL);
			tg_pslot_charge(p, i);	/* no group: only moves the mark */
		}
	}
	list_for_each_entry_safe(p, tmp, &tg_pclosing, node) {
		for_each_set_bit(i, &p->used, TGPMEM_NR_SLOTS)
			tg_pslot_set_grp(&p->slot[i], NULL);
		tg_pproc_finish(p);
		list_move_tail(&p->node, &done);
	}
	tg_pmdk_mounted = mounted;
	mutex_unlock(&tg_pmdk_lock);
	list_for_each_entry_safe(p, tmp, &done, node)
		tg_pproc_free(p);
}

static void tg_pmdk_start(void)
{
	tg_pmdk_rebase(true);
}

static void tg_pmdk_stop(void)
{
	tg_pmdk_rebase(false);
}

/* A group's PMDK bytes since the last period (after the period hook). */
static void tg_pmdk_take(struct tg_group *grp, struct tg_counters *c)
{
	if (READ_ONCE(tg_pmdk_registered))
		tg_take_count(c, TG_IN_PMDK, &c->pmdk_nvm_write_bytes,
			      &tg_pmdk_of(grp)->bytes);
}

static void tg_pmdk_state(char *buf, size_t size)
{
	if (!READ_ONCE(tg_pmdk_registered)) {
		if (!tg_pmdk_max_procs)
			snprintf(buf, size, "unavailable: module parameter pmdk_max_procs=0");
		else
			snprintf(buf, size, "unavailable: misc device registration failed (%d)",
				 tg_pmdk_err);
		return;
	}
	mutex_lock(&tg_pmdk_lock);
	snprintf(buf, size,
		 "active: %u processes, %u thread slots, %llu reports rejected, %llu bytes beyond CPU time",
		 tg_pmdk_nr, tg_pmdk_slots, tg_pmdk_rejected, tg_pmdk_dropped);
	mutex_unlock(&tg_pmdk_lock);
}

/*
 * Claim a slot for the calling thread: the one it has, a free one, one
 * freed from an exited thread, or the overflow slot.
 */
static long tg_pmdk_claim(struct tg_pproc *p)
{
	struct pid *me = task_pid(current);
	unsigned int i;

	mutex_lock(&tg_pmdk_lock);
	for_each_set_bit(i, &p->used, TGPMEM_NR_SLOTS)
		if (i != TGPMEM_OVERFLOW && p->slot[i].pid == me)
			goto out;
	i = find_next_zero_bit(&p->used, TGPMEM_NR_SLOTS, TGPMEM_OVERFLOW + 1);
	if (i == TGPMEM_NR_SLOTS) {
		for (i = TGPMEM_OVERFLOW + 1; i < TGPMEM_NR_SLOTS; i++) {
			if (tg_pslot_settled(p, i)) {
				tg_pslot_retire(p, i);
				break;
			}
		}
	}
	if (i == TGPMEM_NR_SLOTS) {
		i = TGPMEM_OVERFLOW;
	} else {
		tg_pslot_own(p, i, get_pid(me));
		tg_pmdk_slots++;
	}
out:
	mutex_unlock(&tg_pmdk_lock);
	return i;
}

static void tg_pproc_free(struct tg_pproc *p)
{
	unsigned int i;

	for (i = 0; i < TGPMEM_NR_SLOTS; i++) {
		tg_pslot_set_grp(&p->slot[i], NULL);
		put_pid(p->slot[i].pid);
		if (p->slot[i].task)
			put_task_struct(p->slot[i].task);
	}
	if (p->owner_ns)
		put_user_ns(p->owner_ns);
	mmdrop(p->mm);
	put_page(p->page);
	kfree(p);
}

/*
 * Who the opener counts as for pmdk_max_procs_per_user besides its real
 * uid: itself in the initial user namespace; else the user that created
 * its outermost user namespace (everything it maps is that user's), or
 * that namespace when root created it (a runtime giving each container a
 * range of its own).
 */
static void tg_pmdk_owner(struct tg_pproc *p)
{
	struct user_namespace *ns = current_user_ns();

	p->owner = p->uid;
	p->owner_ns = NULL;
	if (ns == &init_user_ns)
		return;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	p->owner = ns->owner;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		p->owner_ns = get_user_ns(ns);
}

static bool tg_pproc_same_owner(const struct tg_pproc *a, const struct tg_pproc *b)
{
	return uid_eq(a->owner, b->owner) && a->owner_ns == b->owner_ns;
}

static int tg_pmdk_open(struct inode *inode, struct file *file)
{
	unsigned int mine = 0, owned = 0;
	struct tg_pproc *p, *q;
	int ret;

	if (!current->mm)
		return -EINVAL;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!p->page) {
		kfree(p);
		return -ENOMEM;
	}
	p->shared = page_address(p->page);
	p->shared->magic = TGPMEM_MAGIC;
	p->shared->version = TGPMEM_VERSION;
	p->shared->nr_slots = TGPMEM_NR_SLOTS;
	p->mm = current->mm;
	mmgrab(p->mm);
	p->uid = current_uid();
	tg_pmdk_owner(p);

	mutex_lock(&tg_pmdk_lock);
	ret = -EBUSY;
	list_for_each_entry(q, &tg_pprocs, node) {
		if (q->mm == p->mm)
			goto err_unlock;
		mine += uid_eq(q->uid, p->uid);
		owned += tg_pproc_same_owner(q, p);
	}
	ret = -EDQUOT;
	if (tg_pmdk_max_procs_per_user &&
	    (mine >= tg_pmdk_max_procs_per_user || owned >= tg_pmdk_max_procs_per_user))
		goto err_unlock;
	ret = -ENOSPC;
	if (tg_pmdk_nr >= tg_pmdk_max_procs)
		goto err_unlock;
	/* under the lock: a move from now on finds the page */
	tg_pslot_own(p, TGPMEM_OVERFLOW, get_pid(task_tgid(current)));
	list_add_tail(&p->node, &tg_pprocs);
	tg_pmdk_nr++;
	mutex_unlock(&tg_pmdk_lock);
	file->private_data = p;
	return 0;

err_unlock:
	mutex_unlock(&tg_pmdk_lock);
	tg_pproc_free(p);
	return ret;
}

/*
 * Last reference to the page gone (every mapping and descriptor: exit,
 * exec). While mounted its last charge waits TG_PMDK_SETTLE jiffies on
 * tg_pclosing (the exiting writer's CPU time is not all counted yet);
 * otherwise nothing would be charged anyway.
 */
static int tg_pmdk_release(struct inode *inode, struct file *file)
{
	struct tg_pproc *p = file->private_data;

	mutex_lock(&tg_pmdk_lock);
	list_del(&p->node);
	tg_pmdk_nr--;
	if (tg_pmdk_mounted) {
		p->closed = jiffies;
		list_add_tail(&p->node, &tg_pclosing);
		p = NULL;
	} else {
		tg_pproc_finish(p);
	}
	mutex_unlock(&tg_pmdk_lock);
	if (p)
		tg_pproc_free(p);
	return 0;
}

static void tg_vma_flags(struct vm_area_struct *vma, unsigned long set,
			 unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

static int tg_pmdk_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tg_pproc *p = file->private_data;

	BUILD_BUG_ON(sizeof(struct tgpmem_page) != TGPMEM_PAGE_BYTES);
	BUILD_BUG_ON(TGPMEM_NR_SLOTS > BITS_PER_LONG);
	BUILD_BUG_ON(TGPMEM_PAGE_BYTES != PAGE_SIZE);
	if (current->mm != p->mm)
		return -EPERM;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	tg_vma_flags(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
	return vm_insert_page(vma, vma->vm_start, p->page);
}

static long tg_pmdk_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct tg_pproc *p = file->private_data;

	if (cmd != TGPMEM_IOC_CLAIM)
		return -ENOTTY;
	if (current->mm != p->mm)
		return -EPERM;
	return tg_pmdk_claim(p);
}

static const struct file_operations tg_pmdk_fops = {
	.owner		= THIS_MODULE,
	.open		= tg_pmdk_open,
	.release	= tg_pmdk_release,
	.mmap		= tg_pmdk_mmap,
	.unlocked_ioctl	= tg_pmdk_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice tg_pmdk_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tgroup_pmem",
	.fops	= &tg_pmdk_fops,
	.mode	= 0666,
};

/* Load: the parameters (a bad one fails the load). */
static int tg_pmdk_init(void)
{
	if (tg_pmdk_cpu_gbps < 1 || tg_pmdk_cpu_gbps > TG_PMDK_GBPS_MAX) {
		pr_err("tgroup: pmdk_cpu_gbps must be 1..%u\n", TG_PMDK_GBPS_MAX);
		return -EINVAL;
	}
	return 0;
}

/*
 * Load, not mount, and the load's last step (tg_plugin.h): create
 * /dev/tgroup_pmem. Processes open their page when they start, mounted or
 * not, and keep it: a mount later charges their stores from then on. A
 * failure leaves the source unavailable (reason in tgroup.config); not an
 * error for the module.
 */
static void tg_pmdk_publish(void)
{
	if (!tg_pmdk_max_procs)
		return;
	tg_pmdk_err = misc_register(&tg_pmdk_dev);
	WRITE_ONCE(tg_pmdk_registered, !tg_pmdk_err);	/* a mount may be running */
}

/* Unload: remove the device (no page is open: each pins the module). */
static void tg_pmdk_unpublish(void)
{
	if (tg_pmdk_registered)
		misc_deregister(&tg_pmdk_dev);
	WRITE_ONCE(tg_pmdk_registered, false);
}

struct tg_source_ops tg_src_pmdk __ro_after_init = {
	.p = { .name = "pmdk", .slot_size = TG_SLOT_SIZE(struct tg_pmdk_grp), .init = tg_pmdk_init,
	       .publish = tg_pmdk_publish, .unpublish = tg_pmdk_unpublish,
	       .start = tg_pmdk_start, .stop = tg_pmdk_stop, .state = tg_pmdk_state },
	.period = tg_pmdk_period, .take = tg_pmdk_take, .task_moved = tg_pmdk_task_moved,
};
