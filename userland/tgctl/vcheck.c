// SPDX-License-Identifier: GPL-2.0
/*
 * vcheck.c - tgctl validate's measurement (through struct vops) and its
 * verdict (a pure function of the deltas). vcheck.h names the tolerances.
 */
#include <stdio.h>
#include <string.h>

#include "vcheck.h"

/* |a - b| <= pct % of b, without overflow for byte counts below 2^57 */
static int within_pct(uint64_t a, uint64_t b, unsigned int pct)
{
	uint64_t d = a > b ? a - b : b - a;

	return d * 100 <= b * (uint64_t)pct;
}

int vcheck_judge(enum vtier t, const struct vsample *s, struct vrow *rows, int *nrows)
{
	uint64_t mine = s->tg[t == VT_DRAM ? VK_DRAM_R : VK_NVM_R];
	uint64_t other = s->tg[t == VT_DRAM ? VK_NVM_R : VK_DRAM_R];
	uint64_t all = s->tg[VK_DRAM_R] + s->tg[VK_DRAM_W] + s->tg[VK_NVM_R] + s->tg[VK_NVM_W];
	struct vrow *r;
	int n = 0, failed = 0;

	/* 1. the run moved enough for the percentages to mean something */
	r = &rows[n++];
	memset(r, 0, sizeof(*r));
	r->check = t == VT_DRAM ? "traffic (dram_read)" : "traffic (nvm_read)";
	r->tgroup = mine;
	snprintf(r->bound, sizeof(r->bound), ">= %llu B", (unsigned long long)VAL_MIN_BYTES);
	r->state = mine >= VAL_MIN_BYTES ? VS_PASS : VS_FAIL;

	/* 2. the memory controllers' reads of this tier, system-wide */
	r = &rows[n++];
	memset(r, 0, sizeof(*r));
	r->check = t == VT_DRAM ? "iMC CAS reads" : "iMC PMM RPQ inserts";
	r->tgroup = mine;
	snprintf(r->bound, sizeof(r->bound), "-%d%% .. +%d%% of iMC", VAL_IMC_UNDER_PCT, VAL_IMC_OVER_PCT);
	if (!s->imc_ok) {
		r->state = VS_FAIL;
		snprintf(r->note, sizeof(r->note), "no independent count: %s", s->imc_why);
	} else if (s->imc_reads > UINT64_MAX / VAL_LINE_BYTES) {
		r->state = VS_FAIL;
		snprintf(r->note, sizeof(r->note), "iMC count overflows bytes");
	} else {
		uint64_t ref = s->imc_reads * VAL_LINE_BYTES;

		r->reference = ref;
		r->has_ref = 1;
		/* tgroup in [ref - UNDER %, ref + OVER %] */
		r->state = mine * 100 >= ref * (100 - VAL_IMC_UNDER_PCT) &&
			   mine * 100 <= ref * (100 + VAL_IMC_OVER_PCT) ? VS_PASS : VS_FAIL;
		if (!ref)
			snprintf(r->note, sizeof(r->note), "the controllers saw no reads of this tier%s",
				 t == VT_SLOW ? " (CXL memory is not behind the iMC)" : "");
	}

	/* 3. the other tier stays out of this run */
	r = &rows[n++];
	memset(r, 0, sizeof(*r));
	r->check = t == VT_DRAM ? "other tier (nvm_read)" : "other tier (dram_read)";
	r->tgroup = other;
	snprintf(r->bound, sizeof(r->bound), "<= %d%% of the run's tier", VAL_LEAK_PCT);
	r->state = other * 100 <= mine * (uint64_t)VAL_LEAK_PCT ? VS_PASS : VS_FAIL;

	/* 4. MBM of the load's core against everything the group moved */
	r = &rows[n++];
	memset(r, 0, sizeof(*r));
	r->check = "pqos MBM total";
	r->tgroup = all;
	snprintf(r->bound, sizeof(r->bound), "+-%d%% of MBM", VAL_MBM_PCT);
	if (!s->mbm_ok) {
		r->state = VS_NA;
		snprintf(r->note, sizeof(r->note), "not compared: %s", s->mbm_why);
	} else {
		r->reference = s->mbm_bytes;
		r->has_ref = 1;
		r->state = within_pct(all, s->mbm_bytes, VAL_MBM_PCT) ? VS_PASS : VS_FAIL;
	}

	for (int i = 0; i < n; i++)
		failed += rows[i].state == VS_FAIL;
	*nrows = n;
	return failed;
}

static void reason(char *dst, size_t n, const char *what, const char *why)
{
	snprintf(dst, n, "%s: %s", what, why);
}

int vcheck_measure(const struct vops *o, void *ctx, enum vtier t, unsigned int ms,
		   struct vsample *s, char *why, size_t n)
{
	uint64_t tg0[VK_NR], tg1[VK_NR], imc0 = 0, imc1 = 0, mbm0 = 0, mbm1 = 0;
	char w[200];
	int imc_ok, mbm_ok;

	memset(s, 0, sizeof(*s));
	if (o->load_start(ctx, t, w, sizeof(w))) {
		reason(why, n, "load", w);
		return -1;
	}
	if (o->tg_bytes(ctx, tg0, w, sizeof(w))) {
		o->load_stop(ctx);
		reason(why, n, "tgroup.stat", w);
		return -1;
	}
	imc_ok = !o->imc_reads(ctx, t, &imc0, s->imc_why, sizeof(s->imc_why));
	mbm_ok = !o->mbm_bytes(ctx, &mbm0, s->mbm_why, sizeof(s->mbm_why));
	o->wait_ms(ctx, ms);
	if (o->tg_bytes(ctx, tg1, w, sizeof(w))) {
		o->load_stop(ctx);
		reason(why, n, "tgroup.stat", w);
		return -1;
	}
	if (imc_ok)
		imc_ok = !o->imc_reads(ctx, t, &imc1, s->imc_why, sizeof(s->imc_why));
	if (mbm_ok)
		mbm_ok = !o->mbm_bytes(ctx, &mbm1, s->mbm_why, sizeof(s->mbm_why));
	o->load_stop(ctx);

	for (int k = 0; k < VK_NR; k++) {
		if (tg1[k] < tg0[k]) {
			snprintf(why, n, "tgroup.stat went backwards (kind %d: %llu -> %llu)", k,
				 (unsigned long long)tg0[k], (unsigned long long)tg1[k]);
			return -1;
		}
		s->tg[k] = tg1[k] - tg0[k];
	}
	if (imc_ok && imc1 < imc0) {
		imc_ok = 0;
		snprintf(s->imc_why, sizeof(s->imc_why), "the iMC count went backwards");
	}
	if (mbm_ok && mbm1 < mbm0) {
		mbm_ok = 0;
		snprintf(s->mbm_why, sizeof(s->mbm_why), "the MBM count went backwards");
	}
	s->imc_ok = imc_ok;
	s->imc_reads = imc_ok ? imc1 - imc0 : 0;
	s->mbm_ok = mbm_ok;
	s->mbm_bytes = mbm_ok ? mbm1 - mbm0 : 0;
	return 0;
}
