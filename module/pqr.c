// SPDX-License-Identifier: GPL-2.0
/*
 * pqr.c - PQR_ASSOC at context switch, for the MBA actuator (CLOS) and the
 * rdt source (RMID). A sched_switch probe (found by name) writes the
 * incoming task's group's CLOS and RMID, skipping the write when the CPU
 * already holds that value (per-CPU cache). It is registered only while a
 * user needs it: the switch path costs nothing otherwise, and for a task
 * outside every group it is one hash lookup and a compare.
 *
 * The cache must never claim a value the MSR has lost:
 *  - a CPU that comes online has PQR_ASSOC reset (by the CPU, and by
 *    resctrl's own online callback, which writes 0): a dynamic cpuhp state
 *    (CPUHP_AP_ONLINE_DYN, on that CPU, before tasks are scheduled there)
 *    invalidates its cache;
 *  - suspend and hibernation lose the MSRs of every CPU, the boot CPU's
 *    included (the others go through cpuhp): from PM_*_PREPARE to
 *    PM_POST_* a PM notifier makes every switch write, and at PM_POST_*
 *    every cache is invalidated. register_syscore_ops() would be exact too,
 *    but its API differs between 6.1 and Debian's 6.12 (register_syscore());
 *    the notifier is the same in both.
 * Both also bump an epoch that the rdt source (MBM counters may have been
 * reset: re-prime) and the MBA actuator (CLOS MSRs may have been reset:
 * reprogram) check each period through tg_pqr_stable().
 *
 * resctrl owns RDT while it is mounted: tg_resctrl_mounted() looks for a
 * live resctrl superblock (any mount point), at tgroup's mount and every
 * period, so MBA and MBM stand down when resctrl is mounted after tgroup.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/suspend.h>
#include <linux/tracepoint.h>
#include <asm/msr.h>
#include <trace/events/sched.h>

#include "tg_internal.h"

static DEFINE_MUTEX(tg_pqr_lock);
static unsigned int tg_pqr_users;
static struct tracepoint *tg_switch_tp;
static DEFINE_PER_CPU(u64, tg_pqr_cache);
static int tg_pqr_hp;			/* the dynamic cpuhp state while hooked */
static atomic_t tg_pqr_epoch = ATOMIC_INIT(0);
static bool tg_pqr_transition;		/* suspend/resume: write at every switch */
static bool tg_resctrl_absent;		/* no resctrl filesystem type at all */

static void tg_on_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct tg_member *m = tg_member_find(next);	/* preemption is off */
	u64 val = m ? tg_pqr_assoc(READ_ONCE(m->grp->clos), READ_ONCE(m->grp->rmid)) : 0;

	if (tg_pqr_switch(this_cpu_ptr(&tg_pqr_cache), val, READ_ONCE(tg_pqr_transition)))
		wrmsrl(TG_MSR_PQR_ASSOC, val);
}

static void tg_resctrl_sb(struct super_block *sb, void *mounted)
{
	*(bool *)mounted = true;
}

/**
 * tg_resctrl_mounted() - whether resctrl owns RDT right now
 *
 * A live resctrl superblock, wherever it is mounted. resctrl is built into
 * the kernel: if its filesystem type is not registered at the first call
 * it never will be, and later calls return at once.
 *
 * Context: process context; sleeps. If the type is not registered the
 * first call asks for module fs-resctrl (get_fs_type()), once.
 * Return: true if resctrl is mounted.
 */
bool tg_resctrl_mounted(void)
{
	struct file_system_type *type;
	bool mounted = false;

	if (READ_ONCE(tg_resctrl_absent))
		return false;
	type = get_fs_type("resctrl");
	if (!type) {
		WRITE_ONCE(tg_resctrl_absent, true);
		return false;
	}
	iterate_supers_type(type, tg_resctrl_sb, &mounted);
	module_put(type->owner);	/* get_fs_type()'s reference */
	return mounted;
}

/**
 * tg_pqr_stable() - whether the RDT MSRs kept their state since the last call
 * @seen: the caller's copy of the epoch (updated)
 *
 * False after a CPU came online or a suspend/hibernation began or ended
 * since the caller last looked, and all through a suspend/resume: counters
 * and CLOS settings may have been reset then.
 *
 * Return: true if nothing happened.
 */
bool tg_pqr_stable(u32 *seen)
{
	return tg_pqr_epoch_stable(atomic_read(&tg_pqr_epoch),
				   READ_ONCE(tg_pqr_transition), seen);
}

static void tg_find_switch_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		tg_switch_tp = tp;
}

static void tg_pqr_reset_cpu(void *unused)
{
	wrmsrl(TG_MSR_PQR_ASSOC, 0);
	this_cpu_write(tg_pqr_cache, 0);
}

static void tg_pqr_invalidate_cpu(void *unused)
{
	this_cpu_write(tg_pqr_cache, TG_PQR_INVALID);
}

/* CPUHP_AP_ONLINE_DYN: runs on @cpu, before tasks are scheduled there */
static int tg_pqr_cpu_online(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(tg_pqr_cache, cpu), TG_PQR_INVALID);
	atomic_inc(&tg_pqr_epoch);
	return 0;
}

static int tg_pqr_pm(struct notifier_block *nb, unsigned long action,
		     void *unused)
{
	switch (action) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
		WRITE_ONCE(tg_pqr_transition, true);
		atomic_inc(&tg_pqr_epoch);
		break;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		cpus_read_lock();
		on_each_cpu(tg_pqr_invalidate_cpu, NULL, 1);
		cpus_read_unlock();
		WRITE_ONCE(tg_pqr_transition, false);
		atomic_inc(&tg_pqr_epoch);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block tg_pqr_pm_nb = {
	.notifier_call = tg_pqr_pm,
};

/* first user: caches invalid, probe, cpuhp state, PM notifier */
static int tg_pqr_hook(void)
{
	int cpu, ret;

	lockdep_assert_held(&tg_pqr_lock);
	if (!tg_switch_tp)
		for_each_kernel_tracepoint(tg_find_switch_tp, NULL);
	if (!tg_switch_tp)
		return -ENOENT;
	for_each_possible_cpu(cpu)
		per_cpu(tg_pqr_cache, cpu) = TG_PQR_INVALID;
	WRITE_ONCE(tg_pqr_transition, false);
	check_trace_callback_type_sched_switch(tg_on_switch);	/* the kernel's prototype */
	ret = tracepoint_probe_register(tg_switch_tp, tg_on_switch, NULL);
	if (ret)
		return ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "tgroup/pqr:online",
					tg_pqr_cpu_online, NULL);
	if (ret < 0)
		goto err_probe;
	tg_pqr_hp = ret;
	ret = register_pm_notifier(&tg_pqr_pm_nb);
	if (ret)
		goto err_hp;
	return 0;

err_hp:
	cpuhp_remove_state_nocalls(tg_pqr_hp);
err_probe:
	tracepoint_probe_unregister(tg_switch_tp, tg_on_switch, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

/**
 * tg_pqr_get() - start writing PQR_ASSOC at context switch (first user)
 *
 * Context: process context, no CPU hotplug lock held.
 * Return: 0, or -ENOENT without a sched_switch tracepoint, or the error of
 * tracepoint_probe_register(), cpuhp_setup_state_nocalls() or
 * register_pm_notifier().
 */
int tg_pqr_get(void)
{
	int ret = 0;

	mutex_lock(&tg_pqr_lock);
	if (!tg_pqr_users)
		ret = tg_pqr_hook();
	if (!ret)
		tg_pqr_users++;
	mutex_unlock(&tg_pqr_lock);
	return ret;
}

/**
 * tg_pqr_put() - the last user gone: unhook, every CPU back to CLOS 0 RMID 0
 *
 * Context: process context, no CPU hotplug lock held.
 */
void tg_pqr_put(void)
{
	mutex_lock(&tg_pqr_lock);
	if (tg_pqr_users && !--tg_pqr_users) {
		unregister_pm_notifier(&tg_pqr_pm_nb);
		cpuhp_remove_state_nocalls(tg_pqr_hp);
		tracepoint_probe_unregister(tg_switch_tp, tg_on_switch, NULL);
		tracepoint_synchronize_unregister();
		cpus_read_lock();
		on_each_cpu(tg_pqr_reset_cpu, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&tg_pqr_lock);
}
