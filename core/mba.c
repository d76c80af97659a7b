// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mba.c - MBA MSR values and the MSR writes a CLOS map needs, computed here
 * so unit tests can assert the exact hardware traffic.
 *
 * Intel (SDM vol. 3, "Memory Bandwidth Allocation"): CPUID.(EAX=10H,
 * ECX=3) gives EAX[11:0] = max delay - 1, ECX[2] = linear response,
 * EDX[15:0] = highest CLOS. IA32_L2_QOS_EXT_BW_THRTL_n (0xD50 + n) holds a
 * delay: 100 - percent, in steps of the granularity 100 - max delay. Only
 * the linear mode is supported. Levels are rounded down to the
 * granularity: never looser than the regulator asked.
 *
 * AMD (PQoS Extensions): L3QOS_BW_CONTROL_n (0xC0000200 + n) holds an
 * absolute limit in 1/8 GB/s units; bit 11 (0x800) means no limit. A
 * percent is taken of the platform's full bandwidth (profile data).
 *
 * PQR_ASSOC (0xC8F): CLOS in bits 63:32, RMID in the low bits; written at
 * context switch by the module.
 */
#include "tg_core.h"

#define TG_MBA_LINEAR	BIT(2)

/**
 * tg_mba_hw_intel() - Intel MBA parameters from CPUID leaf 0x10 subleaf 3
 * @eax: EAX (max delay - 1 in 11:0)
 * @ecx: ECX (bit 2: linear delay)
 * @edx: EDX (highest CLOS in 15:0)
 * @hw:  filled on success
 *
 * Return: 0, or -1 for a non-linear delay scale (not supported).
 */
int tg_mba_hw_intel(u32 eax, u32 ecx, u32 edx, struct tg_mba_hw *hw)
{
	u32 max_delay = (eax & 0xfff) + 1;

	if (!(ecx & TG_MBA_LINEAR) || max_delay >= 100)
		return -1;
	hw->amd = false;
	hw->nr_clos = (edx & 0xffff) + 1;
	hw->gran = 100 - max_delay;
	hw->amd_full_units = 0;
	return 0;
}

/**
 * tg_mba_hw_amd() - AMD MBA parameters
 * @nr_clos:   CLOS ids (CPUID 0x80000020 subleaf 1 EDX + 1)
 * @full_gbps: the platform's memory bandwidth in GB/s (profile data)
 * @hw:        filled
 */
void tg_mba_hw_amd(u32 nr_clos, u32 full_gbps, struct tg_mba_hw *hw)
{
	hw->amd = true;
	hw->nr_clos = nr_clos;
	hw->gran = 1;
	hw->amd_full_units = full_gbps * 8;
}

/**
 * tg_mba_msr() - the MSR that holds a CLOS's MBA setting
 * @hw:   platform
 * @clos: CLOS id
 *
 * Return: MSR address.
 */
u32 tg_mba_msr(const struct tg_mba_hw *hw, u32 clos)
{
	return (hw->amd ? TG_MSR_MBA_AMD_BASE : TG_MSR_MBA_INTEL_BASE) + clos;
}

/**
 * tg_mba_value() - what to write for a level
 * @hw:      platform
 * @percent: MBA level, 100 = unthrottled
 *
 * Return: Intel: the delay; AMD: the limit in 1/8 GB/s units (or unlimited).
 */
u64 tg_mba_value(const struct tg_mba_hw *hw, u32 percent)
{
	u64 units;

	if (hw->amd) {
		if (percent >= 100)
			return TG_MBA_AMD_UNLIMITED;
		units = tg_mul_div(hw->amd_full_units, percent, 100);
		if (!units)
			units = 1;
		return units > TG_MBA_AMD_MAX_UNITS ? TG_MBA_AMD_MAX_UNITS : units;
	}
	if (percent >= 100)
		return 0;
	percent -= percent % hw->gran;		/* round down: never looser */
	if (percent < hw->gran)
		percent = hw->gran;
	return 100 - percent;
}

/**
 * tg_pqr_assoc() - the PQR_ASSOC value for a CLOS and RMID
 * @clos: CLOS id
 * @rmid: RMID
 *
 * Return: the 64-bit MSR value.
 */
u64 tg_pqr_assoc(u32 clos, u32 rmid)
{
	return ((u64)clos << 32) | (rmid & 0xfff);
}

/**
 * tg_pqr_switch() - whether a context switch must write PQR_ASSOC
 * @cache:      the CPU's copy of what PQR_ASSOC holds, TG_PQR_INVALID when
 *              unknown (the CPU just came online, the system resumed);
 *              updated
 * @val:        the incoming task's value (tg_pqr_assoc())
 * @transition: a suspend or resume is under way: the MSR may have been
 *              reset behind the cache at any moment
 *
 * Return: true if @val must be written (the cache then holds it).
 */
bool tg_pqr_switch(u64 *cache, u64 val, bool transition)
{
	if (*cache == val && !transition)
		return false;
	*cache = val;
	return true;
}

/**
 * tg_pqr_epoch_stable() - whether the RDT MSRs kept their state
 * @epoch:      bumped when a CPU comes online and when a suspend begins
 *              and ends
 * @transition: a suspend or resume is under way
 * @seen:       the caller's copy of the epoch at its last check (updated)
 *
 * Return: true if nothing happened since the caller's last check: MBM
 * counters may be subtracted, CLOS MSRs trusted to hold what was written.
 */
bool tg_pqr_epoch_stable(u32 epoch, bool transition, u32 *seen)
{
	bool stable = epoch == *seen && !transition;

	*seen = epoch;
	return stable;
}

/**
 * tg_rdt_decide() - who owns RDT this period: tgroup or resctrl
 * @st:       the caller's state (updated): TG_RDT_OFF while tgroup is not
 *            mounted or has no such hardware, TG_RDT_WAIT at tgroup's mount
 *            and while resctrl holds RDT, TG_RDT_OWN while tgroup does
 * @resctrl:  a resctrl filesystem is mounted now
 *
 * resctrl owns RDT while it is mounted (it programs CLOSes and RMIDs
 * itself); tgroup's MBA actuator and rdt source take RDT whenever tgroup
 * is mounted and resctrl is not, and give it back as soon as resctrl
 * appears. Called at tgroup's mount (after setting TG_RDT_WAIT) and every
 * period, so an unmount of resctrl is followed by tgroup's resumption
 * within a period, with no remount of tgroup.
 *
 * Return: TG_RDT_TAKE (start: program every CLOS, prime every RMID),
 * TG_RDT_GIVE (stand down: PQR_ASSOC and CLOS MSRs back to resctrl's
 * defaults), or TG_RDT_NONE.
 */
enum tg_rdt_step tg_rdt_decide(enum tg_rdt_state *st, bool resctrl)
{
	if (*st == TG_RDT_WAIT && !resctrl) {
		*st = TG_RDT_OWN;
		return TG_RDT_TAKE;
	}
	if (*st == TG_RDT_OWN && resctrl) {
		*st = TG_RDT_WAIT;
		return TG_RDT_GIVE;
	}
	return TG_RDT_NONE;
}

/**
 * tg_mba_plan() - MSR writes that bring the CLOS settings to a map
 * @hw:         platform
 * @programmed: per CLOS, the value now in the MSRs (updated); U64_MAX =
 *              unknown, always written
 * @map:        CLOS levels wanted (tg_clos_assign()); CLOS past nr_used are
 *              reset to unthrottled
 * @out:        writes, in CLOS order
 * @max:        room in out
 *
 * Return: number of writes (only CLOS whose value changes).
 */
u32 tg_mba_plan(const struct tg_mba_hw *hw, u64 *programmed,
		const struct tg_clos_map *map, struct tg_msr_write *out, u32 max)
{
	u32 clos, n = 0, limit = hw->nr_clos < ARRAY_SIZE(map->level) ?
				 hw->nr_clos : (u32)ARRAY_SIZE(map->level);

	for (clos = 0; clos < limit && n < max; clos++) {
		u32 level = clos < map->nr_used ? map->level[clos] : 100;
		u64 want = tg_mba_value(hw, level);

		if (programmed[clos] == want)
			continue;
		programmed[clos] = want;
		out[n].msr = tg_mba_msr(hw, clos);
		out[n].val = want;
		n++;
	}
	return n;
}

/**
 * tg_qm_evtsel() - the IA32_QM_EVTSEL value that selects an RMID's event
 * @rmid:  RMID
 * @event: event id (TG_QM_EVT_MBM_TOTAL)
 *
 * Return: the 64-bit MSR value.
 */
u64 tg_qm_evtsel(u32 rmid, u32 event)
{
	return ((u64)(rmid & 0xfff) << 32) | (event & 0xff);
}

/**
 * tg_mbm_bytes() - bytes since the last read of an MBM counter
 * @prev:  the counter value last read (updated on success)
 * @raw:   IA32_QM_CTR as read
 * @width: counter width in bits (24 + CPUID.(0FH,1):EAX[7:0], at most 62)
 * @scale: bytes per counter unit (CPUID.(0FH,1):EBX)
 * @bytes: out: the delta in bytes (wrap-around handled, saturating)
 *
 * Return: 0, or -1 if the counter reports an error or no data (the
 * caller keeps its previous value and tries next period).
 */
int tg_mbm_bytes(u64 *prev, u64 raw, u32 width, u32 scale, u64 *bytes)
{
	u32 shift = 64 - width;
	u64 delta;

	if (raw & (TG_QM_CTR_ERROR | TG_QM_CTR_UNAVAIL) || width < 24 || width > 62)
		return -1;
	/* as resctrl: compare in the top bits, so a wrap subtracts right */
	delta = ((raw << shift) - (*prev << shift)) >> shift;
	*prev = raw;
	*bytes = delta > tg_div_u64(U64_MAX, scale ? scale : 1) ? U64_MAX :
		 delta * scale;
	return 0;
}

/**
 * tg_mbm_sum() - one RMID's bytes over every package for one period
 * @prev:   per package, the counter last read (TG_MBM_UNPRIMED: none yet);
 *          updated for every package whose read is good
 * @raw:    per package, IA32_QM_CTR as read this period; a package that
 *          could not be read (offline, the IPI failed) is passed as
 *          TG_QM_CTR_UNAVAIL
 * @nr_pkg: packages
 * @width:  counter width (tg_mbm_bytes())
 * @scale:  bytes per unit
 * @bytes:  out: the sum of the packages' deltas (saturating)
 *
 * A package's first good read only primes it. The sum is a measurement
 * of the period only if every package contributed a delta.
 *
 * Return: 0 if it did, -1 if some package was unread, in error, or just
 * primed (*bytes then holds what the others gave, not to be used as MBM).
 */
int tg_mbm_sum(u64 *prev, const u64 *raw, u32 nr_pkg, u32 width, u32 scale,
	       u64 *bytes)
{
	int ret = 0;
	u64 b;
	u32 p;

	*bytes = 0;
	for (p = 0; p < nr_pkg; p++) {
		if (raw[p] & (TG_QM_CTR_ERROR | TG_QM_CTR_UNAVAIL)) {
			ret = -1;
		} else if (prev[p] == TG_MBM_UNPRIMED) {
			prev[p] = raw[p];
			ret = -1;
		} else if (tg_mbm_bytes(&prev[p], raw[p], width, scale, &b)) {
			ret = -1;
		} else {
			*bytes = tg_sat_add(*bytes, b);
		}
	}
	return ret;
}
