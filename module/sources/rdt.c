// SPDX-License-Identifier: GPL-2.0
/*
 * rdt.c - the rdt signal source: each group's MBM total (all memory
 * traffic of its tasks, as the memory controllers see it) through an RMID.
 *
 * CPUID.(EAX=0FH,ECX=1): EAX[7:0] counter width offset (width = 24 +
 * offset), EBX bytes per counter unit, ECX highest RMID, EDX[1] MBM total.
 * At mount (unless resctrl is mounted: then it owns RDT) each group gets
 * an RMID from core's pool (tg_rmid_alloc(); when none is free a group
 * shares RMID 0, goes without MBM, which the estimator flags, and tries
 * again next period). A removed group's RMID waits out a limbo of
 * TG_RMID_LIMBO_NS (1 s, core/tg_core.h says why) before another group
 * gets it. The group's RMID is written into PQR_ASSOC at context switch
 * (pqr.c).
 *
 * Each period, under the CPU hotplug read lock, one IPI per package (to
 * the first online CPU of each logical package, topology_max_packages() of
 * them) reads every group's counter there (IA32_QM_EVTSEL, then
 * IA32_QM_CTR). A package whose IPI cannot run (no CPU online, or
 * smp_call_function_single() fails) is read as "unavailable". Core's
 * tg_mbm_sum() handles priming, width, wrap-around, the error/unavailable
 * bits and scaling per package; a group has MBM for a period only if every
 * package gave a delta. The counters' last values live here, per RMID and
 * package, so any number of packages is handled. After a CPU came online
 * or a suspend (tg_pqr_stable()) every counter is primed again.
 *
 * resctrl owns RDT while it is mounted (core tg_rdt_decide(), asked at
 * mount and every period): mounted before tgroup, the source waits
 * (standby); mounted after, it is noticed at the next period and the
 * source stands down (every group back to RMID 0, PQR_ASSOC unhooked and
 * reset to 0 on every CPU). When resctrl is unmounted the source takes
 * RMIDs back at the next period (fresh pool, every counter primed again:
 * resctrl's groups used them meanwhile); tgroup.config says which.
 *
 * Written against the Intel SDM and resctrl's monitor.c; it has not run on
 * MBM hardware (the development machines and the guest have none).
 */
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>

#include "tg_plugin.h"

static bool tg_rdt_hw;
static bool tg_rdt_started;
static enum tg_rdt_state tg_rdt_own;	/* tgroup or resctrl (while mounted) */
static const char *tg_rdt_reason = "unavailable: not initialised";
static u32 tg_rdt_width, tg_rdt_scale, tg_rdt_nr_rmid;
static unsigned int tg_rdt_nr_pkg;	/* logical packages */
static struct tg_rmid_pool tg_rdt_pool;
static u64 *tg_rdt_rmid_state;		/* the pool's, nr_rmid */
static u64 *tg_rdt_prev;		/* [rmid * nr_pkg + pkg], TG_MBM_UNPRIMED */
static u64 *tg_rdt_bytes;		/* [rmid]: the period's MBM total */
static unsigned long *tg_rdt_valid;	/* rmid: tg_rdt_bytes measured */
static int *tg_rdt_pkg_cpu;		/* [pkg]: the CPU read this period */
static u32 tg_rdt_seen;			/* tg_pqr_stable() epoch */

/* one package's reads: rmid[i] -> raw[i * stride] */
struct tg_rdt_batch {
	const u32 *rmid;
	u64 *raw;
	unsigned int nr, stride;
};

static void tg_rdt_read_fn(void *arg)
{
	struct tg_rdt_batch *b = arg;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		wrmsrl(TG_MSR_QM_EVTSEL, tg_qm_evtsel(b->rmid[i], TG_QM_EVT_MBM_TOTAL));
		rdmsrl(TG_MSR_QM_CTR, b->raw[i * b->stride]);
	}
}

static void tg_rdt_unprime(u32 rmid)
{
	unsigned int p;

	for (p = 0; p < tg_rdt_nr_pkg; p++)
		tg_rdt_prev[(size_t)rmid * tg_rdt_nr_pkg + p] = TG_MBM_UNPRIMED;
}

static void tg_rdt_free_state(void)
{
	kfree(tg_rdt_pkg_cpu);
	bitmap_free(tg_rdt_valid);
	kvfree(tg_rdt_bytes);
	kvfree(tg_rdt_prev);
	kvfree(tg_rdt_rmid_state);
	tg_rdt_pkg_cpu = NULL;
	tg_rdt_valid = NULL;
	tg_rdt_bytes = NULL;
	tg_rdt_prev = NULL;
	tg_rdt_rmid_state = NULL;
}

/* resctrl was mounted after tgroup: give RDT back (tg_mutex held) */
static void tg_rdt_stand_down(void)
{
	struct tg_group *grp;

	lockdep_assert_held(&tg_mutex);
	list_for_each_entry(grp, &tg_groups, node)
		WRITE_ONCE(grp->rmid, TG_RMID_NONE);
	tg_pqr_put();
	tg_rdt_free_state();
	tg_rdt_started = false;
	pr_info("tgroup: resctrl mounted: the rdt source stands down until it is unmounted\n");
}

static void tg_rdt_take_over(void);

/* who owns RMIDs now (tg_rdt_decide()); @period: at a period, not at mount */
static void tg_rdt_owner(bool period)
{
	switch (tg_rdt_decide(&tg_rdt_own, tg_resctrl_mounted())) {
	case TG_RDT_TAKE:
		tg_rdt_take_over();
		if (period && tg_rdt_started)
			pr_info("tgroup: resctrl unmounted: the rdt source resumes\n");
		break;
	case TG_RDT_GIVE:
		tg_rdt_stand_down();
		break;
	case TG_RDT_NONE:
		break;
	}
	if (tg_rdt_own == TG_RDT_WAIT)
		tg_rdt_reason = TG_RESCTRL_STANDBY;
}

/*
 * The first online CPU of each package, -1 for a package with none.
 * Context: the CPU hotplug read lock held (lockdep_assert_cpus_held() is
 * not exported in 6.12).
 */
static void tg_rdt_pick_cpus(void)
{
	unsigned int p;
	int cpu;

	for (p = 0; p < tg_rdt_nr_pkg; p++)
		tg_rdt_pkg_cpu[p] = -1;
	for_each_online_cpu(cpu) {
		p = topology_logical_package_id(cpu);
		if (p < tg_rdt_nr_pkg && tg_rdt_pkg_cpu[p] < 0)
			tg_rdt_pkg_cpu[p] = cpu;
	}
}

/* every RMID's counters, one IPI per package; raw[i * nr_pkg + pkg] */
static void tg_rdt_read(const u32 *rmid, u64 *raw, unsigned int n)
{
	struct tg_rdt_batch b = { .rmid = rmid, .nr = n, .stride = tg_rdt_nr_pkg };
	unsigned int p;
	size_t i;

	for (i = 0; i < (size_t)n * tg_rdt_nr_pkg; i++)
		raw[i] = TG_QM_CTR_UNAVAIL;	/* what a package not read shows */
	cpus_read_lock();
	tg_rdt_pick_cpus();
	for (p = 0; p < tg_rdt_nr_pkg; p++) {
		if (tg_rdt_pkg_cpu[p] < 0)
			continue;
		b.raw = raw + p;
		if (smp_call_function_single(tg_rdt_pkg_cpu[p], tg_rdt_read_fn, &b, 1))
			for (i = 0; i < n; i++)	/* not run, or not all of it */
				raw[i * tg_rdt_nr_pkg + p] = TG_QM_CTR_UNAVAIL;
	}
	cpus_read_unlock();
}

/* Read every group's MBM counters, one IPI per package; sleeps. */
static void tg_rdt_period(void)
{
	bool exhausted = false;
	struct tg_group *grp;
	unsigned int n = 0, i;
	u64 now, *raw;
	u32 *rmid, r;

	lockdep_assert_held(&tg_mutex);
	if (tg_rdt_own != TG_RDT_OFF)
		tg_rdt_owner(true);
	if (!tg_rdt_started)
		return;
	if (!tg_pqr_stable(&tg_rdt_seen))	/* counters may have been reset */
		for (r = 0; r < tg_rdt_nr_rmid; r++)
			tg_rdt_unprime(r);
	bitmap_zero(tg_rdt_valid, tg_rdt_nr_rmid);
	now = ktime_get_ns();
	list_for_each_entry(grp, &tg_groups, node) {
		if (!grp->rmid && !exhausted) {
			r = tg_rmid_alloc(&tg_rdt_pool, now);
			exhausted = r == TG_RMID_NONE;
			if (!exhausted)
				tg_rdt_unprime(r);
			WRITE_ONCE(grp->rmid, r);
		}
		n += grp->rmid != TG_RMID_NONE;
	}
	if (!n)
		return;
	rmid = kmalloc_array(n, sizeof(*rmid), GFP_KERNEL);
	raw = kmalloc_array(array_size(n, tg_rdt_nr_pkg), sizeof(*raw), GFP_KERNEL);
	if (!rmid || !raw)
		goto out;
	i = 0;
	list_for_each_entry(grp, &tg_groups, node)
		if (grp->rmid)
			rmid[i++] = grp->rmid;
	tg_rdt_read(rmid, raw, n);
	for (i = 0; i < n; i++) {
		r = rmid[i];
		if (!tg_mbm_sum(&tg_rdt_prev[(size_t)r * tg_rdt_nr_pkg],
				&raw[(size_t)i * tg_rdt_nr_pkg], tg_rdt_nr_pkg,
				tg_rdt_width, tg_rdt_scale, &tg_rdt_bytes[r]))
			__set_bit(r, tg_rdt_valid);
	}
out:
	kfree(raw);
	kfree(rmid);
}

/*
 * A group's MBM total for the period, only when every package gave a delta
 * for the group's own RMID.
 */
static void tg_rdt_take(struct tg_group *grp, struct tg_counters *c)
{
	if (!tg_rdt_started || !grp->rmid || !test_bit(grp->rmid, tg_rdt_valid))
		return;
	c->present |= TG_IN_MBM;
	c->mbm_bytes += tg_rdt_bytes[grp->rmid];
}

/* A removed group's RMID goes back (into limbo). */
static void tg_rdt_group_gone(struct tg_group *grp)
{
	lockdep_assert_held(&tg_mutex);
	if (tg_rdt_started)
		tg_rmid_free(&tg_rdt_pool, grp->rmid, ktime_get_ns());
	WRITE_ONCE(grp->rmid, TG_RMID_NONE);
}

/* take RMIDs (tgroup mounted, resctrl not); groups get RMIDs at the next period */
static void tg_rdt_take_over(void)
{
	tg_rdt_nr_pkg = max(topology_max_packages(), 1U);
	tg_rdt_rmid_state = kvcalloc(tg_rdt_nr_rmid, sizeof(u64), GFP_KERNEL);
	tg_rdt_prev = kvmalloc_array(array_size(tg_rdt_nr_rmid, tg_rdt_nr_pkg),
				     sizeof(u64), GFP_KERNEL);
	tg_rdt_bytes = kvcalloc(tg_rdt_nr_rmid, sizeof(u64), GFP_KERNEL);
	tg_rdt_valid = bitmap_zalloc(tg_rdt_nr_rmid, GFP_KERNEL);
	tg_rdt_pkg_cpu = kcalloc(tg_rdt_nr_pkg, sizeof(int), GFP_KERNEL);
	if (!tg_rdt_rmid_state || !tg_rdt_prev || !tg_rdt_bytes || !tg_rdt_valid ||
	    !tg_rdt_pkg_cpu) {
		tg_rdt_free_state();
		tg_rdt_reason = "unavailable: out of memory";
		tg_rdt_own = TG_RDT_OFF;
		return;
	}
	tg_rmid_pool_init(&tg_rdt_pool, tg_rdt_rmid_state, tg_rdt_nr_rmid,
			  TG_RMID_LIMBO_NS);
	if (tg_pqr_get()) {
		tg_rdt_free_state();
		tg_rdt_reason = "unavailable: no sched_switch tracepoint";
		tg_rdt_own = TG_RDT_OFF;
		return;
	}
	tg_pqr_stable(&tg_rdt_seen);	/* from now on */
	tg_rdt_started = true;
}

/* Mount: take RMIDs unless resctrl has them. */
static void tg_rdt_start(void)
{
	if (!tg_rdt_hw || tg_rdt_own != TG_RDT_OFF)
		return;
	tg_rdt_own = TG_RDT_WAIT;
	tg_rdt_owner(false);
}

/* Unmount (groups are gone): every task back to RMID 0. */
static void tg_rdt_stop(void)
{
	if (tg_rdt_started) {
		tg_pqr_put();
		tg_rdt_free_state();
		tg_rdt_started = false;
	}
	if (tg_rdt_hw && tg_rdt_own != TG_RDT_OFF)
		tg_rdt_reason = "available (starts at mount)";
	tg_rdt_own = TG_RDT_OFF;
}

static void tg_rdt_state(char *buf, size_t size)
{
	scnprintf(buf, size, "%s", tg_rdt_started ? "active" : tg_rdt_reason);
}

/*
 * Load: MBM parameters from CPUID; no MBM is not an error (tgroup.config
 * says why).
 */
static int tg_rdt_init(void)
{
	u32 eax, ebx, ecx, edx;

	if (tg_inject_enabled) {
		tg_rdt_reason = "unavailable: inject=1 (the VM's counters come from inject)";
		return 0;
	}
	if (!boot_cpu_has(X86_FEATURE_CQM_MBM_TOTAL)) {
		tg_rdt_reason = "unavailable: CPU lacks MBM (CPUID)";
		return 0;
	}
	cpuid_count(0xf, 1, &eax, &ebx, &ecx, &edx);
	tg_rdt_width = TG_MBM_WIDTH_BASE + (eax & 0xff);
	tg_rdt_scale = ebx;
	tg_rdt_nr_rmid = ecx + 1;
	if (tg_rdt_width > 62 || !tg_rdt_scale) {
		tg_rdt_reason = "unavailable: unexpected MBM counter parameters";
		return 0;
	}
	tg_rdt_hw = true;
	tg_rdt_reason = "available (starts at mount)";
	return 0;
}

struct tg_source_ops tg_src_rdt __ro_after_init = {
	.p = { .name = "rdt", .init = tg_rdt_init, .start = tg_rdt_start, .stop = tg_rdt_stop,
	       .group_gone = tg_rdt_group_gone, .state = tg_rdt_state },
	.period = tg_rdt_period, .take = tg_rdt_take,
};
