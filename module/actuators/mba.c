// SPDX-License-Identifier: GPL-2.0
/*
 * mba.c - the MBA actuator.
 *
 * Modes:
 *  - publish (inject=1): the level the regulator chose for each group is
 *    published as mba_percent in tgroup.stat for the emulated platform;
 *  - hardware (Intel MBA in linear mode, or AMD with mba_full_gbps set):
 *    one CLOS per distinct level (core tg_clos_assign()), the MSR writes
 *    core tg_mba_plan() asks for on every CPU, and the group's CLOS in
 *    PQR_ASSOC at context switch (pqr.c, only while a user needs it).
 *    resctrl owns RDT while it is mounted (core tg_rdt_decide(), asked at
 *    mount and every period): mounted before tgroup, the actuator waits
 *    (standby); mounted after, it is noticed at the next period (at most
 *    period_ms later) and the actuator stands down - PQR_ASSOC unhooked
 *    and 0 on every CPU, every CLOS MSR unthrottled (the state resctrl
 *    assumes at its mount: its default group is CLOS 0, and it programs
 *    the others only when schemata are written). A schemata write made in
 *    that first period can be overwritten by the reset. When resctrl is
 *    unmounted (it resets every CLOS MSR and PQR_ASSOC itself) the
 *    actuator takes MBA back at the next period: every CLOS MSR written
 *    again, the switch probe hooked again. tgroup.config says which.
 *    After a CPU came online or a suspend (pqr.c, tg_pqr_stable()) the
 *    CLOS MSRs are written again in full: a package brought up, or
 *    resumed, has them reset.
 *
 * The hardware mode follows the Intel SDM and AMD PQoS documentation; it
 * has not run on MBA hardware (development machines and the QEMU guest
 * have none). What was checked: the MSR values and traffic (unit tests of
 * core/mba.c), the build, and the unavailable/publish paths in the guest.
 */
#include <linux/cpu.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>

#include "tg_plugin.h"

enum tg_mba_mode { TG_MBA_OFF, TG_MBA_PUBLISH, TG_MBA_HW };

static enum tg_mba_mode tg_mba_mode;
static const char *tg_mba_reason = "unavailable: not initialised";
static struct tg_mba_hw tg_mba;
static u64 tg_mba_prog[ARRAY_SIZE(((struct tg_clos_map *)0)->level)];
static struct tg_clos_map tg_clos;
static bool tg_mba_started;
static enum tg_rdt_state tg_mba_own;	/* hardware mode: tgroup or resctrl */
static const char *tg_mba_why_not;	/* hardware mode, not started: why */
static u32 tg_mba_seen;			/* tg_pqr_stable() epoch */

static unsigned int tg_mba_full_gbps;
module_param_named(mba_full_gbps, tg_mba_full_gbps, uint, 0444);
MODULE_PARM_DESC(mba_full_gbps, "AMD: the platform's memory bandwidth in GB/s (MBA limits are absolute)");

/* every CLOS unthrottled (PQR_ASSOC is reset by tg_pqr_put()) */
static void tg_mba_reset_cpu(void *unused)
{
	u32 clos;

	for (clos = 0; clos < tg_mba.nr_clos && clos < ARRAY_SIZE(tg_mba_prog); clos++)
		wrmsrl(tg_mba_msr(&tg_mba, clos), tg_mba_value(&tg_mba, 100));
}

static void tg_mba_state(char *buf, size_t size)
{
	const char *why;

	switch (tg_mba_mode) {
	case TG_MBA_PUBLISH:
		why = "published: mba_percent in tgroup.stat, applied by the emulated platform";
		break;
	case TG_MBA_HW:
		if (tg_mba_started)
			why = "active";
		else
			why = tg_mba_why_not ?: "available (starts at mount)";
		break;
	default:
		why = tg_mba_reason;
	}
	scnprintf(buf, size, "%s", why);
}

/* take MBA (tgroup mounted, resctrl not): every CLOS MSR written at the next apply */
static void tg_mba_take(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(tg_mba_prog); i++)
		tg_mba_prog[i] = U64_MAX;
	if (tg_pqr_get()) {
		tg_mba_reason = "unavailable: no sched_switch tracepoint";
		tg_mba_mode = TG_MBA_OFF;
		tg_mba_own = TG_RDT_OFF;
		return;
	}
	tg_pqr_stable(&tg_mba_seen);	/* from now on */
	tg_mba_why_not = NULL;
	tg_mba_started = true;
}

/* unhook PQR_ASSOC (every CPU to CLOS 0), every CLOS unthrottled */
static void tg_mba_release(void)
{
	tg_pqr_put();
	cpus_read_lock();
	on_each_cpu(tg_mba_reset_cpu, NULL, 1);
	cpus_read_unlock();
	tg_mba_started = false;
}

/*
 * Who owns MBA now (tg_rdt_decide()): take it, give it back to resctrl
 * (every group to CLOS 0), or nothing. @grps: the groups, NULL at mount.
 */
static void tg_mba_owner(struct tg_group **grps, u32 nr)
{
	u32 i;

	switch (tg_rdt_decide(&tg_mba_own, tg_resctrl_mounted())) {
	case TG_RDT_TAKE:
		tg_mba_take();
		if (grps && tg_mba_started)
			pr_info("tgroup: resctrl unmounted: the MBA actuator resumes\n");
		break;
	case TG_RDT_GIVE:
		for (i = 0; i < nr; i++)
			WRITE_ONCE(grps[i]->clos, 0);
		tg_mba_release();
		pr_info("tgroup: resctrl mounted: the MBA actuator stands down until it is unmounted\n");
		break;
	case TG_RDT_NONE:
		break;
	}
	if (tg_mba_own == TG_RDT_WAIT)
		tg_mba_why_not = TG_RESCTRL_STANDBY;
}

/* Mount: take MBA unless resctrl has it. */
static void tg_mba_start(void)
{
	if (tg_mba_mode != TG_MBA_HW || tg_mba_own != TG_RDT_OFF)
		return;
	tg_mba_own = TG_RDT_WAIT;
	tg_mba_owner(NULL, 0);
}

/* Unmount: every CLOS unthrottled, every CPU back to CLOS 0. */
static void tg_mba_stop(void)
{
	if (tg_mba_started)
		tg_mba_release();
	tg_mba_own = TG_RDT_OFF;
	tg_mba_why_not = NULL;
}

/*
 * Program the levels the regulator chose. Publishes every level; in
 * hardware mode maps levels to CLOS and writes the MSRs whose value changes
 * on every CPU (MBA MSRs are per package; writing them everywhere is correct
 * and keeps hotplug simple), every MSR after a CPU came online or a
 * suspend. Stands down while resctrl is mounted, resumes once it is not.
 */
static void tg_mba_apply(const struct tg_actuation *a)
{
	struct tg_msr_write w[ARRAY_SIZE(tg_mba_prog)];
	struct tg_group **grps = a->grp;
	const u32 *levels = a->mba;
	u32 clos[64], i, n, cpu, done = 0, nr = a->nr;

	lockdep_assert_held(&tg_mutex);
	for (i = 0; i < nr; i++)
		WRITE_ONCE(grps[i]->mba_percent, levels[i]);
	if (tg_mba_own != TG_RDT_OFF)
		tg_mba_owner(grps, nr);
	if (!tg_mba_started)
		return;
	if (!tg_pqr_stable(&tg_mba_seen))	/* MSRs may have been reset */
		for (i = 0; i < ARRAY_SIZE(tg_mba_prog); i++)
			tg_mba_prog[i] = U64_MAX;
	while (done < nr) {
		u32 chunk = min_t(u32, nr - done, ARRAY_SIZE(clos));

		tg_clos_assign(&tg_clos, tg_mba.nr_clos, 100, levels + done,
			       clos, chunk);
		for (i = 0; i < chunk; i++)
			WRITE_ONCE(grps[done + i]->clos, clos[i]);
		done += chunk;
	}
	n = tg_mba_plan(&tg_mba, tg_mba_prog, &tg_clos, w, ARRAY_SIZE(w));
	cpus_read_lock();
	for_each_online_cpu(cpu)
		for (i = 0; i < n; i++)
			wrmsr_on_cpu(cpu, w[i].msr, (u32)w[i].val,
				     (u32)(w[i].val >> 32));
	cpus_read_unlock();
}

/*
 * Load: the mode, from inject=1 and CPUID. No MBA is not an error: the
 * reason is shown in tgroup.config.
 */
static int tg_mba_init(void)
{
	u32 eax, ebx, ecx, edx;

	if (tg_inject_enabled) {
		tg_mba_mode = TG_MBA_PUBLISH;
		return 0;
	}
	if (!boot_cpu_has(X86_FEATURE_MBA)) {
		tg_mba_reason = "unavailable: CPU lacks MBA (CPUID)";
		return 0;
	}
	if (boot_cpu_data.x86_vendor == X86_VENDOR_INTEL) {
		cpuid_count(0x10, 3, &eax, &ebx, &ecx, &edx);
		if (tg_mba_hw_intel(eax, ecx, edx, &tg_mba)) {
			tg_mba_reason = "unavailable: non-linear MBA delay scale";
			return 0;
		}
	} else if (boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
		   boot_cpu_data.x86_vendor == X86_VENDOR_HYGON) {
		if (!tg_mba_full_gbps) {
			tg_mba_reason = "unavailable: AMD MBA needs module parameter mba_full_gbps";
			return 0;
		}
		cpuid_count(0x80000020, 1, &eax, &ebx, &ecx, &edx);
		tg_mba_hw_amd((edx & 0xffff) + 1, tg_mba_full_gbps, &tg_mba);
	} else {
		tg_mba_reason = "unavailable: unknown MBA vendor";
		return 0;
	}
	tg_mba_mode = TG_MBA_HW;
	return 0;
}

/*
 * No release(): an MBA level holds no task back, and the next period's
 * apply() sets the level the regulator then chooses (100 % for a group it
 * no longer throttles).
 */
struct tg_actuator_ops tg_act_mba __ro_after_init = {
	.p = { .name = "mba", .init = tg_mba_init, .start = tg_mba_start, .stop = tg_mba_stop,
	       .state = tg_mba_state },
	.apply = tg_mba_apply,
};
