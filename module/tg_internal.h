/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tg_internal.h - the engine's object model, shared inside module/ (the
 * core, sources/ and actuators/); cgroup-ui/ never includes it.
 *
 * Object model:
 *  - struct tg_group: one throttling group. The root group is static and
 *    holds every task that is not in a child group; child groups are created
 *    by mkdir and live in tg_groups (creation order, ascending id).
 *  - struct tg_member: one task in a child group. Tasks in the root group
 *    have no member record, so the context-switch path can leave early for
 *    them once it exists.
 *
 * Locking (outermost first):
 *  - tg_mutex: the group list, group settings (priority, limits), config,
 *    plug-in state reports. Sleeping context only. The CPU enforcer never
 *    takes it (it walks tg_groups under RCU).
 *  - tg_move_mutex (membership.c): writers of cgroup.procs and tasks.
 *  - a plug-in's own locks (e.g. sources/pmdk.c's tg_pmdk_lock), taken
 *    after tg_mutex.
 *  - grp->lock, one per group: its member and exiting lists, nr_tasks,
 *    dead, its members' m->grp and m->gone, the CPU metering (cpu_gone_ns,
 *    the members' last_runtime) and the CPU actuator's throttle state (its
 *    slot). Taken from the fork and exit tracepoints, so it is a spinlock
 *    and nothing allocates under it; two are taken (address order) only to
 *    move a member between groups. The exit tracepoint takes one only for
 *    a task that an RCU lookup found in a group.
 *  - the member index (an rhashtable, its own locks).
 *  - the CPU actuator's wait queue lock (wake-ups, taken under grp->lock).
 *  Readers of task->group on hot paths use RCU: members and groups are freed
 *  after a grace period.
 */
#ifndef TG_INTERNAL_H
#define TG_INTERNAL_H

#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/wait.h>

#include "tgroup.h"

#define TG_NAME_MAX	64

struct tg_group {
	struct kref		ref;		/* inodes + registry; not used for root */
	struct list_head	node;		/* tg_groups, under tg_mutex */
	struct rcu_head		rcu;
	u64			id;		/* unique, ascending; root is 0 */
	bool			dead;		/* removed; under tg_mutex and lock */
	char			name[TG_NAME_MAX + 1];

	/* settings, under tg_mutex */
	enum tg_priority	priority;
	struct tg_limits	limits;

	spinlock_t		lock;		/* membership and throttle, see above */

	/* membership, under lock */
	struct list_head	members;
	struct list_head	exiting;	/* exited, CPU time not final yet */
	unsigned int		nr_tasks;

	/*
	 * Accounting published to the files (core/ tg_account_update()):
	 * acct.window_bps is tgroup.bandwidth, acct.total the byte counters
	 * of tgroup.stat. Written by the regulation loop (one writer), read
	 * locklessly by the files.
	 */
	struct tg_account	acct;
	u64			nr_periods;
	u64			nr_throttled;
	u64			throttled_usec;
	u32			mba_percent;
	u64			cpu_quota_usec;	/* TG_QUOTA_MAX: unthrottled (actuators/cpu.c) */

	/* regulator slot and its last decision, under tg_mutex */
	int			slot;
	struct tg_decision	last_decision;

	/*
	 * PQR_ASSOC of the group's members (pqr.c): read at every context
	 * switch of a member, so kept here rather than in a plug-in slot;
	 * written by the two plug-ins that share the MSR (sources/rdt.c,
	 * actuators/mba.c).
	 */
	u32			clos;		/* MBA CLOS (hardware mode) */
	u32			rmid;		/* MBM RMID, 0 = none (shared) */

	/*
	 * Each plug-in's own state for this group (its slot: size and
	 * offset in struct tg_plugin_slot, tg_grp_slot()), allocated with
	 * the group and zeroed; the plug-in's group_added() initialises it.
	 */
	void			*priv;

	/* CPU time: metered by membership.c, under lock; the loop's, under tg_mutex */
	u64			cpu_gone_ns;	/* of members that left, not yet collected */
	u64			cpu_usage_us;	/* CPU time of the last period; tg_mutex */
	u64			cpu_pin_us;	/* inject "pin": fixed quota, 0 = none; tg_mutex */

	/* regulator inputs smoothed over a few periods, loop only */
	struct tg_bw		bps_avg;
	u64			usage_avg_us;
};

/*
 * A member lives while it is in a group and while a park of its task is
 * queued or running (ref: one for the group, one per park); it holds a
 * reference on the group it is in (m->grp), moved along with it. After it leaves
 * (gone) it is no longer in the hash; an exited member stays on its
 * group's exiting list until its task's CPU time is final.
 */
struct tg_member {
	struct rhash_head	hnode;		/* the member index (membership.c) */
	struct list_head	gnode;		/* group->members or ->exiting */
	struct task_struct	*task;		/* reference held */
	struct tg_group		*grp;
	struct rcu_head		rcu;
	refcount_t		ref;
	bool			gone;		/* left its group; under grp->lock */
	/* the CPU actuator's park (actuators/cpu.c) */
	unsigned long		park_busy;	/* bit 0: a park is queued or running */
	struct callback_head	park_cb;
	u64			last_runtime;	/* sum_exec_runtime seen, ns; metering */
	/*
	 * The record the task's next fork gives its child when an atomic
	 * allocation fails (under grp->lock); refilled by refill_cb at the
	 * task's next return to user space (membership.c).
	 */
	struct tg_member	*reserve;
	unsigned long		refill_busy;	/* bit 0: refill_cb queued */
	struct callback_head	refill_cb;
	/* the one per-member plug-in state: sources/perf.c's counters */
	struct tg_pcount	*pc;
};

/* Global state (module/group.c, engine.c) */
extern unsigned int tg_max_groups;
extern struct tg_config tg_cfg;		/* tgroup.config, under tg_mutex */
extern bool tg_inject_enabled;		/* module parameter inject (engine.c) */

/* module/group.c */
extern struct list_head tg_groups;
bool tg_group_tryget(struct tg_group *grp);
void tg_group_reset_root(void);
void tg_group_unthrottle(struct tg_group *grp);
void tg_group_unlist(struct tg_group *grp);
int tg_groups_init(void);
void tg_groups_exit(void);

/* module/group.c: the regulator's slots (a group's is grp->slot), tg_mutex */
extern struct tg_reg_group *tg_slots;
extern u32 tg_slots_hi;
void tg_reg_cfg_from(struct tg_reg_cfg *rc, const struct tg_config *c);

/* module/membership.c */
struct tg_member *tg_member_find(struct task_struct *task);
struct tg_group *tg_member_lock_group(struct tg_member *m);
int tg_membership_init(void);
void tg_membership_exit(void);
void tg_group_remove_all(void);
struct tg_group *tg_task_group(struct task_struct *task);
void tg_member_put(struct tg_member *m);
extern atomic64_t tg_inherit_failures;

/* module/membership.c: each group's CPU time */
u64 tg_group_cpu_since(struct tg_group *grp);
u64 tg_group_cpu_collect(struct tg_group *grp);

/* module/loop.c: the regulation loop */
int tg_loop_init(void);
void tg_loop_exit(void);
void tg_loop_start(void);
void tg_loop_stop(void);
void tg_loop_kick(void);
u64 tg_period_last_us(void);
u64 tg_period_max_us(void);
void tg_period_phases_us(u64 *us);

/* The detector behind tgroup.interference (written by the loop). */
extern struct tg_detector tg_det;

/* module/pqr.c: PQR_ASSOC at context switch (shared by rdt and MBA) */
int tg_pqr_get(void);
void tg_pqr_put(void);
bool tg_resctrl_mounted(void);
/* the state line of the MBA actuator and the rdt source while resctrl holds RDT */
#define TG_RESCTRL_STANDBY \
	"standby: resctrl is mounted (it owns RDT); resumes by itself when resctrl is unmounted"
bool tg_pqr_stable(u32 *seen);

#endif /* TG_INTERNAL_H */
