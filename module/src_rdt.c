// SPDX-License-Identifier: GPL-2.0
/*
 * src_rdt.c - the rdt signal source: each group's MBM total (all memory
 * traffic of its tasks, as the memory controllers see it) through an RMID.
 *
 * CPUID.(EAX=0FH,ECX=1): EAX[7:0] counter width offset (width = 24 +
 * offset), EBX bytes per counter unit, ECX highest RMID, EDX[1] MBM total.
 * At mount (unless resctrl is mounted: then it owns RDT) each group gets
 * an RMID (core tg_rmid_alloc(); when they run out a group shares RMID 0
 * and goes without MBM, which the estimator flags); the group's RMID is
 * written into PQR_ASSOC at context switch (pqr.c). Each period, one IPI
 * per package reads every group's counter there (IA32_QM_EVTSEL, then
 * IA32_QM_CTR); core tg_mbm_bytes() handles width, wrap-around, the
 * error/unavailable bits and scaling. The first read of a new RMID only
 * primes it.
 *
 * Written against the Intel SDM and resctrl's monitor.c; it has not run on
 * MBM hardware (the development machines and the guest have none).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>

#include "tgroup.h"

#define TG_RDT_MAX_PKG		ARRAY_SIZE(((struct tg_group *)0)->mbm_prev)

static bool tg_rdt_hw;
static bool tg_rdt_started;
static const char *tg_rdt_reason = "unavailable: not initialised";
static u32 tg_rdt_width, tg_rdt_scale, tg_rdt_nr_rmid;
static u64 *tg_rdt_map;			/* RMID bitmap */
static int tg_rdt_pkg_cpu[TG_RDT_MAX_PKG];
static unsigned int tg_rdt_nr_pkg;

/* one package's reads: rmid[i] -> raw[i] */
struct tg_rdt_batch {
	const u32 *rmid;
	u64 *raw;
	unsigned int nr;
};

static void tg_rdt_read_fn(void *arg)
{
	struct tg_rdt_batch *b = arg;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		wrmsrl(TG_MSR_QM_EVTSEL, tg_qm_evtsel(b->rmid[i], TG_QM_EVT_MBM_TOTAL));
		rdmsrl(TG_MSR_QM_CTR, b->raw[i]);
	}
}

/**
 * tg_rdt_period() - read every group's MBM counters, one IPI per package
 *
 * Context: the regulation loop (tg_mutex held); sleeps.
 */
void tg_rdt_period(void)
{
	struct tg_group *grp;
	struct tg_rdt_batch b;
	unsigned int n = 0, i, p;
	u32 *rmid;
	u64 *raw;

	lockdep_assert_held(&tg_mutex);
	if (!tg_rdt_started)
		return;
	list_for_each_entry(grp, &tg_groups, node) {
		grp->mbm_bytes = 0;
		if (!grp->rmid) {
			WRITE_ONCE(grp->rmid, tg_rmid_alloc(tg_rdt_map, tg_rdt_nr_rmid));
			grp->mbm_primed = false;
		}
		n += grp->rmid != TG_RMID_NONE;
	}
	if (!n)
		return;
	rmid = kmalloc_array(n, sizeof(*rmid), GFP_KERNEL);
	raw = kmalloc_array(n, sizeof(*raw), GFP_KERNEL);
	if (!rmid || !raw)
		goto out;
	i = 0;
	list_for_each_entry(grp, &tg_groups, node)
		if (grp->rmid)
			rmid[i++] = grp->rmid;
	b.rmid = rmid;
	b.raw = raw;
	b.nr = n;
	for (p = 0; p < tg_rdt_nr_pkg; p++) {
		smp_call_function_single(tg_rdt_pkg_cpu[p], tg_rdt_read_fn, &b, 1);
		i = 0;
		list_for_each_entry(grp, &tg_groups, node) {
			u64 bytes;

			if (!grp->rmid)
				continue;
			if (!grp->mbm_primed)
				grp->mbm_prev[p] = raw[i] & ~(3ULL << 62);
			else if (!tg_mbm_bytes(&grp->mbm_prev[p], raw[i],
					       tg_rdt_width, tg_rdt_scale, &bytes))
				grp->mbm_bytes += bytes;
			i++;
		}
	}
	list_for_each_entry(grp, &tg_groups, node)
		grp->mbm_primed = grp->rmid != TG_RMID_NONE;
out:
	kfree(raw);
	kfree(rmid);
}

/**
 * tg_rdt_take() - a group's MBM total for the period
 * @grp: group
 * @c:   the period's counters: mbm_bytes, TG_IN_MBM (not for RMID 0)
 *
 * Context: the regulation loop, after tg_rdt_period().
 */
void tg_rdt_take(struct tg_group *grp, struct tg_counters *c)
{
	if (!tg_rdt_started || !grp->rmid)
		return;
	c->present |= TG_IN_MBM;
	c->mbm_bytes += grp->mbm_bytes;
}

/**
 * tg_rdt_group_gone() - give a removed group's RMID back
 * @grp: group being removed
 *
 * Context: tg_mutex held.
 */
void tg_rdt_group_gone(struct tg_group *grp)
{
	lockdep_assert_held(&tg_mutex);
	if (tg_rdt_map)
		tg_rmid_free(tg_rdt_map, tg_rdt_nr_rmid, grp->rmid);
	WRITE_ONCE(grp->rmid, TG_RMID_NONE);
}

/**
 * tg_rdt_start() - take RMIDs over at mount
 *
 * Context: process context (mount), no tgroup lock held.
 */
void tg_rdt_start(void)
{
	int cpu;
	unsigned int p;

	if (!tg_rdt_hw || tg_rdt_started)
		return;
	if (tg_resctrl_mounted()) {
		tg_rdt_reason = "unavailable: resctrl is mounted (it owns RDT)";
		return;
	}
	tg_rdt_map = kcalloc(DIV_ROUND_UP(tg_rdt_nr_rmid, 64), sizeof(u64),
			     GFP_KERNEL);
	if (!tg_rdt_map) {
		tg_rdt_reason = "unavailable: out of memory";
		return;
	}
	tg_rdt_nr_pkg = 0;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		for (p = 0; p < tg_rdt_nr_pkg; p++)
			if (topology_physical_package_id(tg_rdt_pkg_cpu[p]) ==
			    topology_physical_package_id(cpu))
				break;
		if (p == tg_rdt_nr_pkg && p < TG_RDT_MAX_PKG)
			tg_rdt_pkg_cpu[tg_rdt_nr_pkg++] = cpu;
	}
	cpus_read_unlock();
	if (tg_pqr_get()) {
		kfree(tg_rdt_map);
		tg_rdt_map = NULL;
		tg_rdt_reason = "unavailable: no sched_switch tracepoint";
		return;
	}
	tg_rdt_started = true;
}

/**
 * tg_rdt_stop() - every task back to RMID 0 (unmount; groups are gone)
 *
 * Context: process context, no tgroup lock held.
 */
void tg_rdt_stop(void)
{
	if (!tg_rdt_started)
		return;
	tg_pqr_put();
	kfree(tg_rdt_map);
	tg_rdt_map = NULL;
	tg_rdt_started = false;
}

/**
 * tg_rdt_state() - for tgroup.config
 *
 * Return: a static string.
 */
const char *tg_rdt_state(void)
{
	return tg_rdt_started ? "active" : tg_rdt_reason;
}

/**
 * tg_rdt_init() - MBM parameters from CPUID
 *
 * Context: module init; no MBM is not an error (tgroup.config says why).
 */
void tg_rdt_init(void)
{
	u32 eax, ebx, ecx, edx;

	if (tg_inject_enabled) {
		tg_rdt_reason = "unavailable: inject=1 (the VM's counters come from inject)";
		return;
	}
	if (!boot_cpu_has(X86_FEATURE_CQM_MBM_TOTAL)) {
		tg_rdt_reason = "unavailable: CPU lacks MBM (CPUID)";
		return;
	}
	cpuid_count(0xf, 1, &eax, &ebx, &ecx, &edx);
	tg_rdt_width = TG_MBM_WIDTH_BASE + (eax & 0xff);
	tg_rdt_scale = ebx;
	tg_rdt_nr_rmid = ecx + 1;
	if (tg_rdt_width > 62 || !tg_rdt_scale) {
		tg_rdt_reason = "unavailable: unexpected MBM counter parameters";
		return;
	}
	tg_rdt_hw = true;
	tg_rdt_reason = "available (starts at mount)";
}
