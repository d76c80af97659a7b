/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcheck.h - tgctl validate's measurement and verdict, apart from the
 * hardware: the counters are read through struct vops (validate.c has the
 * real ones, userland/tests/test_validate.c fixtures), and vcheck_judge()
 * is a pure function of the deltas.
 */
#ifndef TGCTL_VCHECK_H
#define TGCTL_VCHECK_H

#include <stddef.h>
#include <stdint.h>

/*
 * Named tolerances (docs/tgctl.md, "validate"). They are chosen from how
 * the counters differ by construction, not measured on hardware (none here):
 *
 * VAL_MIN_BYTES: the run must move at least this much in the group's tier
 *   (membw at the default 2000 MB/s for 5 s moves about 10 GB): less means
 *   the load did not run or tgroup did not count it, and the percentages
 *   below would compare noise.
 * VAL_IMC_UNDER_PCT: tgroup (one group) may read up to 10 % less than the
 *   memory controllers (the whole machine): other tasks' and the kernel's
 *   traffic on an otherwise idle machine, and the requests OCR does not
 *   see as core data reads (LLC prefetches, page walks).
 * VAL_IMC_OVER_PCT: tgroup may read at most 5 % more than the controllers:
 *   a group cannot read more than the machine did; what remains is the
 *   window's edges (tgroup counts whole periods, 10 ms each end of a 5 s
 *   window is 0.4 %) and counter skew.
 * VAL_LEAK_PCT: the other tier's reads in the group stay under 5 % of the
 *   run's tier (membw's code, stack and page tables live on the DRAM node
 *   even when its buffer is bound to the slow tier).
 * VAL_MBM_PCT: MBM (all of the core's L3-external traffic, reads and
 *   writebacks, in units of the RMID scale factor) within 15 % of the
 *   group's four byte counters together.
 */
#define VAL_MIN_BYTES		1000000000ULL
#define VAL_IMC_UNDER_PCT	10
#define VAL_IMC_OVER_PCT	5
#define VAL_LEAK_PCT		5
#define VAL_MBM_PCT		15
#define VAL_LINE_BYTES		64	/* one CAS / one PMM RPQ insert moves a cache line */

enum vtier { VT_DRAM = 0, VT_SLOW = 1 };

/* tgroup.stat's byte counters, in the order of the file */
enum { VK_DRAM_R = 0, VK_DRAM_W, VK_NVM_R, VK_NVM_W, VK_NR };

/* what one run measured: deltas over the same window */
struct vsample {
	uint64_t tg[VK_NR];		/* the group's tgroup.stat bytes */
	int imc_ok;			/* imc_reads measured */
	uint64_t imc_reads;		/* iMC read requests of the tier, system-wide */
	char imc_why[200];		/* why not */
	int mbm_ok;
	uint64_t mbm_bytes;		/* pqos MBM total of the load's core */
	char mbm_why[200];
};

enum vstate { VS_FAIL = 0, VS_PASS = 1, VS_NA = 2 };

struct vrow {
	const char *check;
	uint64_t tgroup, reference;	/* bytes; reference 0 and has_ref 0: none */
	int has_ref;
	char bound[64];
	enum vstate state;
	char note[256];
};

#define VROWS_MAX 4

/*
 * Rows for one run (traffic, iMC reads, other tier, MBM) into rows[], their
 * number in *nrows. Returns how many rows failed. A missing iMC count is a
 * failure (the tier has no independent count); a missing MBM count is
 * VS_NA (optional: needs resctrl).
 */
int vcheck_judge(enum vtier t, const struct vsample *s, struct vrow *rows, int *nrows);

/* The counter readers; every reader returns 0, or -1 with why. */
struct vops {
	/* start the load bound to the tier's node and let it warm up */
	int (*load_start)(void *ctx, enum vtier t, char *why, size_t n);
	void (*load_stop)(void *ctx);
	/* cumulative values */
	int (*tg_bytes)(void *ctx, uint64_t out[VK_NR], char *why, size_t n);
	int (*imc_reads)(void *ctx, enum vtier t, uint64_t *count, char *why, size_t n);
	int (*mbm_bytes)(void *ctx, uint64_t *bytes, char *why, size_t n);
	void (*wait_ms)(void *ctx, unsigned int ms);
};

/*
 * One run: start the load, read every counter, wait ms, read them again,
 * stop the load; deltas into *s. -1 with why if the load or tgroup's own
 * counters could not be read (the run has no result); a missing reference
 * counter is recorded in *s.
 */
int vcheck_measure(const struct vops *o, void *ctx, enum vtier t, unsigned int ms,
		   struct vsample *s, char *why, size_t n);

#endif
