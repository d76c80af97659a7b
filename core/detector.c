// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * detector.c - interference from latency, not bandwidth (MT²'s insight:
 * a victim's achieved bandwidth falls as memory latency rises).
 *
 * Read latency per tier by Little's law: the RPQ occupancy counter adds the
 * queue's length every uncore cycle, so occupancy / inserts is the average
 * number of cycles a read waited; cycles * 10^6 / uncore_khz is ns.
 * Write latency per tier comes from timed probe writes.
 *
 * Per kind: "over" while above its threshold; "hot" (interfering) from the
 * first period over until quiet_periods periods in a row below
 * threshold * low_pct / 100 (the low mark), or TG_COOL_MULT times as many
 * under the threshold: the band between the two delays cooling, it never
 * keeps a kind hot beside an idle neighbour. The tier state is the union
 * of hot kinds.
 */
#include "tg_core.h"

/* Defaults for the Optane/CXL-class profiles; calibrate per platform. */
#define TG_DEF_DRAM_READ_NS	200
#define TG_DEF_NVM_READ_NS	700
#define TG_DEF_DRAM_WRITE_NS	250
#define TG_DEF_NVM_WRITE_NS	1500
#define TG_DEF_LOW_PCT		80
#define TG_DEF_QUIET_PERIODS	3
/* in the band (under the threshold, over the low mark): cools this much later */
#define TG_COOL_MULT		10

/**
 * tg_detector_cfg_default() - documented default thresholds
 * @cfg: configuration to fill
 */
void tg_detector_cfg_default(struct tg_detector_cfg *cfg)
{
	cfg->threshold_ns[TG_DRAM_READ] = TG_DEF_DRAM_READ_NS;
	cfg->threshold_ns[TG_NVM_READ] = TG_DEF_NVM_READ_NS;
	cfg->threshold_ns[TG_DRAM_WRITE] = TG_DEF_DRAM_WRITE_NS;
	cfg->threshold_ns[TG_NVM_WRITE] = TG_DEF_NVM_WRITE_NS;
	cfg->low_pct = TG_DEF_LOW_PCT;
	cfg->quiet_periods = TG_DEF_QUIET_PERIODS;
}

/**
 * tg_detector_init() - no latency known, no interference
 * @d: detector state
 */
void tg_detector_init(struct tg_detector *d)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		d->lat_ns[k] = 0;
		d->quiet[k] = 0;
		d->band[k] = 0;
		d->thr_ns[k] = 0;
		d->low_ns[k] = 0;
	}
	d->over = 0;
	d->hot = 0;
	d->state = TG_INTF_NONE;
}

/**
 * tg_read_latency_ns() - average read latency by Little's law
 * @occupancy:  RPQ occupancy delta (entries summed per uncore cycle)
 * @inserts:    RPQ inserts delta
 * @uncore_khz: uncore clock in kHz
 *
 * Return: ns, or 0 when there were no reads (or no clock).
 */
u64 tg_read_latency_ns(u64 occupancy, u64 inserts, u32 uncore_khz)
{
	u64 entry_ns;

	if (!inserts || !uncore_khz)
		return 0;
	/* occupancy in entry-ns, then per insert */
	entry_ns = tg_mul_div(occupancy, TG_USEC_PER_SEC, uncore_khz);
	return tg_div64_u64(entry_ns, inserts);
}

static const char *const tg_intf_names[] = {
	[TG_INTF_NONE]	= "none",
	[TG_INTF_DRAM]	= "dram",
	[TG_INTF_NVM]	= "nvm",
	[TG_INTF_BOTH]	= "both",
};

/**
 * tg_intf_name() - the word tgroup.interference prints for a state
 * @state: state
 *
 * Return: "none", "dram", "nvm" or "both".
 */
const char *tg_intf_name(enum tg_intf_state state)
{
	return tg_intf_names[state <= TG_INTF_BOTH ? state : TG_INTF_NONE];
}

/**
 * tg_detect() - one period of the detector
 * @d:   state, updated
 * @cfg: thresholds and hysteresis
 * @in:  latency inputs of the period (absent sources read as no traffic)
 *
 * Return: the tier state after this period (also in d->state).
 */
enum tg_intf_state tg_detect(struct tg_detector *d,
			     const struct tg_detector_cfg *cfg,
			     const struct tg_latency_in *in)
{
	u64 lat[TG_NR_KINDS] = { 0 };
	int k;

	if (in->present & TG_LAT_UNCORE) {
		lat[TG_DRAM_READ] = tg_read_latency_ns(in->dram_rpq_occupancy,
						       in->dram_rpq_inserts,
						       in->uncore_khz);
		lat[TG_NVM_READ] = tg_read_latency_ns(in->nvm_rpq_occupancy,
						      in->nvm_rpq_inserts,
						      in->uncore_khz);
	}
	if (in->present & TG_LAT_PROBE) {
		lat[TG_DRAM_WRITE] = in->dram_write_ns;
		lat[TG_NVM_WRITE] = in->nvm_write_ns;
	}

	d->over = 0;
	for (k = 0; k < TG_NR_KINDS; k++) {
		u64 th = cfg->threshold_ns[k];
		u64 low = tg_mul_div(th, cfg->low_pct, 100);
		u32 bit = 1u << k;

		d->lat_ns[k] = lat[k];
		d->thr_ns[k] = th;
		d->low_ns[k] = low;
		if (th && lat[k] > th) {
			d->over |= bit;
			d->hot |= bit;
			d->quiet[k] = 0;
			d->band[k] = 0;
		} else if (d->hot & bit) {
			/* under the low mark, or long enough in the band */
			if (lat[k] < low)
				d->quiet[k]++;
			else
				d->quiet[k] = 0;
			d->band[k]++;
			if (d->quiet[k] >= cfg->quiet_periods ||
			    d->band[k] >= cfg->quiet_periods * TG_COOL_MULT) {
				d->hot &= ~bit;
				d->quiet[k] = 0;
				d->band[k] = 0;
			}
		}
	}
	if ((d->hot & TG_DRAM_KINDS) && (d->hot & TG_NVM_KINDS))
		d->state = TG_INTF_BOTH;
	else if (d->hot & TG_DRAM_KINDS)
		d->state = TG_INTF_DRAM;
	else if (d->hot & TG_NVM_KINDS)
		d->state = TG_INTF_NVM;
	else
		d->state = TG_INTF_NONE;
	return d->state;
}
