// SPDX-License-Identifier: GPL-2.0
/*
 * pqr.c - PQR_ASSOC at context switch, for the MBA actuator (CLOS) and the
 * rdt source (RMID). A sched_switch probe (found by name) writes the
 * incoming task's group's CLOS and RMID, skipping the write when the CPU
 * already holds that value (per-CPU cache). It is registered only while a
 * user needs it: the switch path costs nothing otherwise, and for a task
 * outside every group it is one hash lookup and a compare.
 */
#include <linux/cpu.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <asm/msr.h>

#include "tgroup.h"

#define TG_RESCTRL_MAGIC	0x7655821	/* RDTGROUP_SUPER_MAGIC */

static DEFINE_MUTEX(tg_pqr_lock);
static unsigned int tg_pqr_users;
static struct tracepoint *tg_switch_tp;
static DEFINE_PER_CPU(u64, tg_pqr_cache);

static void tg_on_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct tg_member *m = tg_member_find(next);	/* preemption is off */
	u64 val = m ? tg_pqr_assoc(READ_ONCE(m->grp->clos), READ_ONCE(m->grp->rmid)) : 0;

	if (this_cpu_read(tg_pqr_cache) != val) {
		wrmsrl(TG_MSR_PQR_ASSOC, val);
		this_cpu_write(tg_pqr_cache, val);
	}
}

/**
 * tg_resctrl_mounted() - whether resctrl owns RDT right now
 *
 * Context: process context.
 * Return: true if /sys/fs/resctrl is a mounted resctrl filesystem.
 */
bool tg_resctrl_mounted(void)
{
	struct path p;
	bool mounted;

	if (kern_path("/sys/fs/resctrl", LOOKUP_FOLLOW, &p))
		return false;
	mounted = p.dentry->d_sb->s_magic == TG_RESCTRL_MAGIC;
	path_put(&p);
	return mounted;
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

/**
 * tg_pqr_get() - start writing PQR_ASSOC at context switch (first user)
 *
 * Context: process context.
 * Return: 0, or -ENOENT without a sched_switch tracepoint, or the error of
 * tracepoint_probe_register().
 */
int tg_pqr_get(void)
{
	int ret = 0;

	mutex_lock(&tg_pqr_lock);
	if (!tg_pqr_users) {
		if (!tg_switch_tp)
			for_each_kernel_tracepoint(tg_find_switch_tp, NULL);
		ret = tg_switch_tp ? tracepoint_probe_register(tg_switch_tp,
							      tg_on_switch, NULL)
				   : -ENOENT;
	}
	if (!ret)
		tg_pqr_users++;
	mutex_unlock(&tg_pqr_lock);
	return ret;
}

/**
 * tg_pqr_put() - the last user gone: unhook, every CPU back to CLOS 0 RMID 0
 *
 * Context: process context.
 */
void tg_pqr_put(void)
{
	mutex_lock(&tg_pqr_lock);
	if (tg_pqr_users && !--tg_pqr_users) {
		tracepoint_probe_unregister(tg_switch_tp, tg_on_switch, NULL);
		tracepoint_synchronize_unregister();
		cpus_read_lock();
		on_each_cpu(tg_pqr_reset_cpu, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&tg_pqr_lock);
}
