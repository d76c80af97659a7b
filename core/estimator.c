// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * estimator.c - per group and period: DRAM read, DRAM write, NVM read and
 * NVM write bytes from whichever counters exist, and the accounting behind
 * tgroup.bandwidth (1 s window) and tgroup.stat (cumulative).
 *
 * Rules (docs/control-law.md):
 *   DRAM read  = OCR l3_miss_local_dram lines * 64
 *   NVM read   = OCR pmm_hit_local_pmm lines * 64
 *   NVM write  = VFS + PMDK bytes, or the NVM share of store samples applied
 *                to the write traffic (MBM - reads) where that is larger
 *                (CXL: plain stores reach NVM without VFS or PMDK)
 *   DRAM write = MBM - the other three, clamped at 0
 *   Without MBM: flagged; DRAM write from the store-sample ratio applied to
 *   NVM write if samples exist, else 0.
 *   PMDK reports are untrusted: capped at the MBM total when MBM exists.
 */
#include "tg_core.h"

static u64 tg_lines_to_bytes(u64 lines)
{
	return lines > U64_MAX / TG_CACHE_LINE ? U64_MAX : lines * TG_CACHE_LINE;
}

/* part * num / den for 64-bit num, den: both scaled to 32 bits first */
static u64 tg_share(u64 part, u64 num, u64 den)
{
	while ((den >> 32) || (num >> 32)) {
		den >>= 1;
		num >>= 1;
	}
	if (!den)
		return 0;
	return tg_mul_div(part, (u32)num, (u32)den);
}

/**
 * tg_estimate() - the four bandwidth kinds of one group for one period
 * @in:  counter deltas; fields whose TG_IN_* bit is clear are ignored
 * @out: bytes per kind and TG_EST_* flags
 */
void tg_estimate(const struct tg_counters *in, struct tg_estimate *out)
{
	bool mbm = in->present & TG_IN_MBM;
	bool samples = (in->present & TG_IN_SAMPLES) &&
		       in->dram_store_samples + in->nvm_store_samples;
	u64 reads, direct = 0, pmdk, traffic, nvm_w, *b = out->bytes;

	out->flags = 0;
	if (in->present & TG_IN_OCR) {
		b[TG_DRAM_READ] = tg_lines_to_bytes(in->dram_read_lines);
		b[TG_NVM_READ] = tg_lines_to_bytes(in->nvm_read_lines);
	} else {
		b[TG_DRAM_READ] = 0;
		b[TG_NVM_READ] = 0;
		out->flags |= TG_EST_NO_OCR;
	}
	reads = tg_sat_add(b[TG_DRAM_READ], b[TG_NVM_READ]);

	if (in->present & TG_IN_VFS)
		direct = in->vfs_nvm_write_bytes;
	if (in->present & TG_IN_PMDK) {
		pmdk = in->pmdk_nvm_write_bytes;
		if (mbm && pmdk > in->mbm_bytes) {
			pmdk = in->mbm_bytes;
			out->flags |= TG_EST_PMDK_CAPPED;
		}
		direct = tg_sat_add(direct, pmdk);
	}

	if (!mbm) {
		out->flags |= TG_EST_NO_MBM;
		b[TG_NVM_WRITE] = direct;
		b[TG_DRAM_WRITE] = 0;
		if (samples && in->nvm_store_samples) {
			/* DRAM : NVM stores as sampled, scaled by what NVM got */
			b[TG_DRAM_WRITE] = tg_share(direct, in->dram_store_samples,
						    in->nvm_store_samples);
			out->flags |= TG_EST_FROM_SAMPLES;
		}
		return;
	}

	if (reads > in->mbm_bytes) {
		out->flags |= TG_EST_READS_OVER_MBM;
		traffic = 0;
	} else {
		traffic = in->mbm_bytes - reads;	/* all writes */
	}
	nvm_w = direct;
	if (samples) {
		u64 sampled = tg_share(traffic, in->nvm_store_samples,
				       in->dram_store_samples + in->nvm_store_samples);

		if (sampled > nvm_w) {
			nvm_w = sampled;
			out->flags |= TG_EST_FROM_SAMPLES;
		}
	}
	b[TG_NVM_WRITE] = nvm_w;
	b[TG_DRAM_WRITE] = traffic > nvm_w ? traffic - nvm_w : 0;
}

/**
 * tg_account_update() - add one period's estimate to a group's accounting
 * @acc:       the group's accounting (zero-initialised at creation)
 * @est:       bytes of the period
 * @period_us: length of the period in microseconds (not 0)
 *
 * Updates the cumulative totals, the rate of the period, and closes the
 * 1 s window once at least TG_WINDOW_US have been accumulated: its average
 * over the exact elapsed time becomes window_bps.
 */
void tg_account_update(struct tg_account *acc, const struct tg_estimate *est,
		       u32 period_us)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		acc->total.v[k] = tg_sat_add(acc->total.v[k], est->bytes[k]);
		acc->window_bytes.v[k] = tg_sat_add(acc->window_bytes.v[k],
						    est->bytes[k]);
		acc->rate_bps.v[k] = tg_mul_div(est->bytes[k], TG_USEC_PER_SEC,
						period_us);
	}
	acc->window_us += period_us;
	if (acc->window_us < TG_WINDOW_US)
		return;
	for (k = 0; k < TG_NR_KINDS; k++) {
		acc->window_bps.v[k] = tg_mul_div(acc->window_bytes.v[k],
						  TG_USEC_PER_SEC, acc->window_us);
		acc->window_bytes.v[k] = 0;
	}
	acc->window_us = 0;
}
