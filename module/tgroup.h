/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tgroup - internal interfaces shared by module/ and cgroup-ui/.
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
 *    last_cmd_status. Sleeping context only. The CPU enforcer never takes
 *    it (it walks tg_groups under RCU).
 *  - tg_move_mutex (membership.c): writers of cgroup.procs and tasks.
 *  - grp->lock, one per group: its member and exiting lists, nr_tasks,
 *    dead, its members' m->grp and m->gone, and its CPU throttle state
 *    (cpu_*). Taken from the fork and exit tracepoints, so it is a
 *    spinlock and nothing allocates under it; two are taken (address
 *    order) only to move a member between groups. The exit tracepoint
 *    takes one only for a task that an RCU lookup found in a group.
 *  - the member index (an rhashtable, its own locks).
 *  - grp->cpu_wq's own lock (wake-ups, taken under grp->lock).
 *  Readers of task->group on hot paths use RCU: members and groups are freed
 *  after a grace period.
 */
#ifndef TGROUP_H
#define TGROUP_H

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

#include "tg_core.h"

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
	u64			cpu_quota_usec;	/* TG_QUOTA_MAX: unthrottled */

	/* regulator slot and its last decision, under tg_mutex */
	int			slot;
	u32			clos;		/* MBA CLOS (hardware mode) */
	u32			rmid;		/* MBM RMID, 0 = none (shared) */
	struct tg_decision	last_decision;

	/* vfs source: DAX bytes written since the last period */
	atomic64_t		vfs_bytes;
	/* pmdk source: bytes reported through shared pages since then */
	atomic64_t		pmdk_bytes;
	/* store sampling: samples since the last period, [0] DRAM [1] slow */
	atomic64_t		store_samples[2];

	/* inject source: deltas waiting for the next period, under inj_lock */
	spinlock_t		inj_lock;
	struct tg_counters	inj;
	u64			inj_read_rem[2];	/* bytes short of a line */

	/* cpu actuator (module/act_cpu.c) */
	u64			cpu_pin_us;	/* inject "pin": fixed quota, 0 = none; tg_mutex */
	u64			cpu_usage_us;	/* CPU time of the last period; tg_mutex */
	/* the throttle, under lock (read locklessly by parked tasks) */
	s64			cpu_allow_us;	/* CPU time left this period */
	u64			cpu_gone_ns;	/* of members that left, not yet collected */
	bool			cpu_throttled;	/* parked tasks wait for false */
	bool			cpu_between;	/* period measured, next not applied */
	u32			cpu_gen;	/* +1 at every unthrottle */
	wait_queue_head_t	cpu_wq;

	/* regulator inputs smoothed over a few periods, loop only */
	struct tg_bw		bps_avg;
	u64			usage_avg_us;
};

#define TG_QUOTA_MAX	U64_MAX

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
	unsigned long		park_busy;	/* bit 0: a park is queued or running */
	struct callback_head	park_cb;	/* act_cpu.c */
	u64			last_runtime;	/* sum_exec_runtime seen, ns */
	struct tg_pcount	*pc;		/* perf source counters, or NULL */
};

/* Global state (module/group.c) */
extern struct tg_group tg_root_group;
extern struct mutex tg_mutex;
extern unsigned int tg_max_groups;
extern struct tg_config tg_cfg;		/* tgroup.config, under tg_mutex */

static inline bool tg_is_root(const struct tg_group *grp)
{
	return grp == &tg_root_group;
}

/* module/group.c */
extern struct list_head tg_groups;
struct tg_group *tg_group_alloc(const char *name, const char **msg);
void tg_group_activate(struct tg_group *grp);
int tg_group_remove(struct tg_group *grp, const char **msg);
void tg_group_remove_all(void);
void tg_group_get(struct tg_group *grp);
bool tg_group_tryget(struct tg_group *grp);
void tg_group_put(struct tg_group *grp);
void tg_group_reset_root(void);

/* module/membership.c */
struct tg_member *tg_member_find(struct task_struct *task);
struct tg_group *tg_member_lock_group(struct tg_member *m);
int tg_membership_init(void);
void tg_membership_exit(void);
int tg_move_pid(struct tg_group *dst, pid_t pid, bool threadgroup,
		const struct file *file, const char **msg);
int tg_group_pids(struct tg_group *grp, bool tgids, pid_t **pids,
		  size_t *nr);
void tg_group_release_members(struct tg_group *grp);
bool tg_group_drain(struct tg_group *grp);
struct tg_group *tg_task_group(struct task_struct *task);
void tg_member_put(struct tg_member *m);
extern atomic64_t tg_inherit_failures;

/* module/loop.c: the regulation loop */
int tg_loop_init(void);
void tg_loop_exit(void);
void tg_loop_start(void);
void tg_loop_stop(void);
void tg_loop_kick(void);
int tg_slot_alloc(struct tg_group *grp);
void tg_slot_free(struct tg_group *grp);
extern bool tg_inject_enabled;

/* module/loop.c: how long the period's own work took (tgroup.config) */
u64 tg_period_last_us(void);
u64 tg_period_max_us(void);

/* module/act_cpu.c: the CPU quota actuator */
u64 tg_cpu_collect(struct tg_group *grp);
void tg_cpu_apply(struct tg_group *grp, u64 quota_us, u32 period_us,
		  u32 elapsed_us);
void tg_cpu_enforce(struct tg_group *grp);
void tg_cpu_release(struct tg_group *grp);
void tg_cpu_member_joined(struct tg_member *m, bool new_task);
void tg_cpu_member_left(struct tg_member *m, struct tg_group *from);
void tg_cpu_member_init(struct tg_member *m);
void tg_cpu_reap_exiting(struct tg_group *grp, bool all);

/* module/src_uncore.c: the uncore source (per-socket RPQ counters) */
void tg_uncore_take_latency(struct tg_latency_in *in);
void tg_uncore_state(char *buf, size_t size);
void tg_uncore_exit(void);

/* module/src_perf.c: the perf source (per-task OCR counters) */
struct tg_pcount;
void tg_perf_member_gone(struct tg_member *m);
void tg_perf_period(void);
void tg_perf_take(struct tg_group *grp, struct tg_counters *c);
void tg_perf_state(char *buf, size_t size);
void tg_perf_exit(void);

/* module/src_sample.c: the store-sampling source */
void tg_sample_period(void);
void tg_sample_take(struct tg_group *grp, struct tg_counters *c);
void tg_sample_state(char *buf, size_t size);
void tg_sample_exit(void);

/* module/pqr.c: PQR_ASSOC at context switch */
int tg_pqr_get(void);
void tg_pqr_put(void);
bool tg_resctrl_mounted(void);
#define TG_RESCTRL_STOPPED \
	"stopped: resctrl was mounted after tgroup (it owns RDT); remount tgroup without resctrl to resume"
bool tg_pqr_stable(u32 *seen);

/* module/src_rdt.c: the rdt source (MBM per group) */
void tg_rdt_init(void);
void tg_rdt_start(void);
void tg_rdt_stop(void);
void tg_rdt_period(void);
void tg_rdt_take(struct tg_group *grp, struct tg_counters *c);
void tg_rdt_group_gone(struct tg_group *grp);
const char *tg_rdt_state(void);

/* module/act_mba.c: the MBA actuator */
void tg_mba_init(void);
void tg_mba_start(void);
void tg_mba_stop(void);
void tg_mba_apply(struct tg_group **grps, const u32 *levels, u32 nr);
const char *tg_mba_state(void);

/* module/src_probe.c: the probe source (timed writes per tier) */
extern bool tg_probe_enabled;
void tg_probe_init(void);
void tg_probe_exit(void);
void tg_probe_take_latency(struct tg_latency_in *in);
const char *tg_probe_state(void);

/* module/src_vfs.c: the vfs source (DAX writes) */
void tg_vfs_init(void);
void tg_vfs_exit(void);
void tg_vfs_take(struct tg_group *grp, struct tg_counters *c);
const char *tg_vfs_state(void);

/* module/src_pmdk.c: the pmdk source (pages shared with libtgpmem.so) */
void tg_pmdk_init(void);
void tg_pmdk_exit(void);
void tg_pmdk_rebase(void);
void tg_pmdk_period(void);
void tg_pmdk_moved(struct task_struct *task, bool threadgroup);
void tg_pmdk_take(struct tg_group *grp, struct tg_counters *c);
void tg_pmdk_state(char *buf, size_t size);

/* module/src_inject.c: the inject source (debugfs) */
int tg_inject_init(void);
void tg_inject_exit(void);
void tg_inject_take(struct tg_group *grp, struct tg_counters *c);
void tg_inject_take_latency(struct tg_latency_in *in);

/* The detector behind tgroup.interference (written by the loop). */
extern struct tg_detector tg_det;

/* cgroup-ui/ */
int tg_fs_init(void);
void tg_fs_exit(void);
void tg_set_status(const char *fmt, ...) __printf(1, 2);
void tg_set_status_ok(void);

#endif /* TGROUP_H */
