// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of tgctl validate's verdict and measurement
 * (userland/tgctl/vcheck.c) and of the sysfs PMU reader (pmu.c), cmocka.
 * Every expected value is computed by hand in the comments from the
 * tolerances' definitions (vcheck.h), not from the code under test.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmu.h"
#include "vcheck.h"

static struct vsample sample(uint64_t dr, uint64_t dw, uint64_t nr, uint64_t nw)
{
	struct vsample s;

	memset(&s, 0, sizeof(s));
	s.tg[VK_DRAM_R] = dr;
	s.tg[VK_DRAM_W] = dw;
	s.tg[VK_NVM_R] = nr;
	s.tg[VK_NVM_W] = nw;
	s.imc_ok = 1;
	s.mbm_ok = 1;
	return s;
}

/* a good DRAM run: every check passes */
static void judge_dram_pass(void **state)
{
	struct vrow rows[VROWS_MAX];
	struct vsample s = sample(10000000000ULL, 200000000ULL, 100000000ULL, 0);
	int n;

	(void)state;
	s.imc_reads = 160000000;	/* x 64 = 10.24 GB: tgroup 2.3 % under, bound 10 % */
	s.mbm_bytes = 11000000000ULL;	/* group total 10.3 GB: 6.4 % under MBM, bound 15 % */
	assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].check, "traffic (dram_read)");
	assert_int_equal(rows[0].state, VS_PASS);
	assert_string_equal(rows[1].check, "iMC CAS reads");
	assert_int_equal(rows[1].reference, 10240000000ULL);
	assert_int_equal(rows[1].tgroup, 10000000000ULL);
	assert_int_equal(rows[1].state, VS_PASS);
	assert_int_equal(rows[2].tgroup, 100000000ULL);	/* 1 % of the tier, bound 5 % */
	assert_int_equal(rows[2].state, VS_PASS);
	assert_int_equal(rows[3].tgroup, 10300000000ULL);
	assert_int_equal(rows[3].reference, 11000000000ULL);
	assert_int_equal(rows[3].state, VS_PASS);
}

/* the iMC bounds: -10 % .. +5 % of the controllers' bytes, edges included */
static void judge_imc_bounds(void **state)
{
	static const struct { uint64_t tg, reads; int pass; } t[] = {
		/* ref = reads x 64 */
		{ 9000000000ULL, 156250000, 1 },	/* ref 10 GB, exactly -10 % */
		{ 8999999999ULL, 156250000, 0 },	/* one byte under */
		{ 10500000000ULL, 156250000, 1 },	/* exactly +5 % */
		{ 10500000001ULL, 156250000, 0 },	/* one byte over */
		{ 10000000000ULL, 180000000, 0 },	/* ref 11.52 GB: -13.2 % */
		{ 10000000000ULL, 170000000, 1 },	/* ref 10.88 GB: -8.1 % */
		{ 10000000000ULL, 140000000, 0 },	/* ref 8.96 GB: +11.6 % */
	};
	struct vrow rows[VROWS_MAX];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vsample s = sample(t[i].tg, 0, 0, 0);

		s.imc_reads = t[i].reads;
		s.mbm_bytes = t[i].tg;
		assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), t[i].pass ? 0 : 1);
		assert_int_equal(rows[1].state, t[i].pass ? VS_PASS : VS_FAIL);
	}
}

static void judge_failures(void **state)
{
	struct vrow rows[VROWS_MAX];
	struct vsample s;
	int n;

	(void)state;
	/* too little traffic: 1 byte short of 1 GB (the iMC agrees exactly) */
	s = sample(999999936ULL, 0, 0, 0);
	s.imc_reads = 999999936ULL / 64;
	s.mbm_bytes = 999999936ULL;
	assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), 1);
	assert_int_equal(rows[0].state, VS_FAIL);

	/* no iMC count: a failure that says why; MBM missing is only n/a */
	s = sample(4000000000ULL, 0, 200000001ULL, 0);	/* other tier: 5 % + 1 byte */
	s.imc_ok = 0;
	s.mbm_ok = 0;
	snprintf(s.imc_why, sizeof(s.imc_why), "no uncore_imc PMU");
	snprintf(s.mbm_why, sizeof(s.mbm_why), "resctrl is not mounted");
	assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), 2);	/* iMC, and 5 % leak */
	assert_int_equal(rows[1].state, VS_FAIL);
	assert_non_null(strstr(rows[1].note, "no uncore_imc PMU"));
	assert_int_equal(rows[1].has_ref, 0);
	assert_int_equal(rows[3].state, VS_NA);
	assert_non_null(strstr(rows[3].note, "resctrl is not mounted"));

	/* slow tier: the DRAM reads in the group at exactly 5 % pass, one byte more fails */
	s = sample(200000000ULL, 0, 4000000000ULL, 0);
	s.imc_reads = 4000000000ULL / 64;
	s.mbm_bytes = 4200000000ULL;
	assert_int_equal(vcheck_judge(VT_SLOW, &s, rows, &n), 0);
	assert_string_equal(rows[1].check, "iMC PMM RPQ inserts");
	assert_string_equal(rows[2].check, "other tier (dram_read)");
	s.tg[VK_DRAM_R] = 200000001ULL;
	s.mbm_bytes = 4200000001ULL;
	assert_int_equal(vcheck_judge(VT_SLOW, &s, rows, &n), 1);
	assert_int_equal(rows[2].state, VS_FAIL);

	/* slow tier behind no iMC (CXL): the controllers saw nothing */
	s = sample(0, 0, 4000000000ULL, 0);
	s.imc_reads = 0;
	s.mbm_bytes = 4000000000ULL;
	assert_int_equal(vcheck_judge(VT_SLOW, &s, rows, &n), 1);
	assert_non_null(strstr(rows[1].note, "CXL"));

	/* MBM: 10 GB against 12 GB is 16.7 % under (bound 15 %); 11.7 GB is 14.5 % */
	s = sample(10000000000ULL, 0, 0, 0);
	s.imc_reads = 10000000000ULL / 64;
	s.mbm_bytes = 12000000000ULL;
	assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), 1);
	assert_int_equal(rows[3].state, VS_FAIL);
	s.mbm_bytes = 11700000000ULL;
	assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), 0);
}

/* ---- vcheck_measure through fixture readers ---- */

struct fake {
	int tg_calls, imc_calls, mbm_calls, starts, stops;
	uint64_t tg[2][VK_NR], imc[2], mbm[2];
	int load_fails, imc_fails_at, mbm_fails;	/* imc_fails_at: call number (1-based), 0 never */
	unsigned int waited;
	enum vtier tier;
};

static int f_load_start(void *ctx, enum vtier t, char *why, size_t n)
{
	struct fake *f = ctx;

	f->starts++;
	f->tier = t;
	if (f->load_fails) {
		snprintf(why, n, "membw: exec failed");
		return -1;
	}
	return 0;
}

static void f_load_stop(void *ctx)
{
	((struct fake *)ctx)->stops++;
}

static int f_tg(void *ctx, uint64_t out[VK_NR], char *why, size_t n)
{
	struct fake *f = ctx;

	(void)why;
	(void)n;
	memcpy(out, f->tg[f->tg_calls++ ? 1 : 0], sizeof(f->tg[0]));
	return 0;
}

static int f_imc(void *ctx, enum vtier t, uint64_t *count, char *why, size_t n)
{
	struct fake *f = ctx;

	assert_int_equal(t, f->tier);
	if (++f->imc_calls == f->imc_fails_at) {
		snprintf(why, n, "uncore_imc_3: read failed");
		return -1;
	}
	*count = f->imc[f->imc_calls - 1];
	return 0;
}

static int f_mbm(void *ctx, uint64_t *bytes, char *why, size_t n)
{
	struct fake *f = ctx;

	if (f->mbm_fails) {
		snprintf(why, n, "resctrl is not mounted");
		return -1;
	}
	*bytes = f->mbm[f->mbm_calls++];
	return 0;
}

static void f_wait(void *ctx, unsigned int ms)
{
	((struct fake *)ctx)->waited += ms;
}

static const struct vops fake_ops = {
	.load_start = f_load_start, .load_stop = f_load_stop, .tg_bytes = f_tg,
	.imc_reads = f_imc, .mbm_bytes = f_mbm, .wait_ms = f_wait,
};

static void measure_deltas(void **state)
{
	struct fake f = {
		.tg = { { 1000, 50, 7, 0 }, { 5000001000ULL, 150, 10000007, 0 } },
		.imc = { 123456789, 123456789 + 79000000 },
		.mbm = { 1ULL << 40, (1ULL << 40) + 5200000000ULL },
	};
	struct vsample s;
	struct vrow rows[VROWS_MAX];
	char why[256];
	int n;

	(void)state;
	assert_int_equal(vcheck_measure(&fake_ops, &f, VT_DRAM, 5000, &s, why, sizeof(why)), 0);
	assert_int_equal(f.starts, 1);
	assert_int_equal(f.stops, 1);
	assert_int_equal(f.waited, 5000);
	assert_int_equal(s.tg[VK_DRAM_R], 5000000000ULL);
	assert_int_equal(s.tg[VK_DRAM_W], 100);
	assert_int_equal(s.tg[VK_NVM_R], 10000000ULL);
	assert_int_equal(s.imc_ok, 1);
	assert_int_equal(s.imc_reads, 79000000);
	assert_int_equal(s.mbm_bytes, 5200000000ULL);
	/* 5 GB against 79e6 x 64 = 5.056 GB (-1.1 %); MBM 5.2 GB against 5.01 GB (-3.6 %) */
	assert_int_equal(vcheck_judge(VT_DRAM, &s, rows, &n), 0);
}

static void measure_missing_counters(void **state)
{
	struct fake f = {
		.tg = { { 0, 0, 0, 0 }, { 0, 0, 3000000000ULL, 0 } },
		.imc_fails_at = 2, .mbm_fails = 1,
	};
	struct vsample s;
	char why[256];

	(void)state;
	assert_int_equal(vcheck_measure(&fake_ops, &f, VT_SLOW, 100, &s, why, sizeof(why)), 0);
	assert_int_equal(s.imc_ok, 0);
	assert_non_null(strstr(s.imc_why, "uncore_imc_3"));
	assert_int_equal(s.mbm_ok, 0);
	assert_non_null(strstr(s.mbm_why, "resctrl"));
	assert_int_equal(s.tg[VK_NVM_R], 3000000000ULL);

	/* the load does not start: no result, nothing left running */
	memset(&f, 0, sizeof(f));
	f.load_fails = 1;
	assert_int_equal(vcheck_measure(&fake_ops, &f, VT_DRAM, 100, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "membw: exec failed"));
	assert_int_equal(f.waited, 0);

	/* tgroup's counters going backwards (a remount mid-run) is no result */
	memset(&f, 0, sizeof(f));
	f.tg[0][VK_DRAM_R] = 100;
	assert_int_equal(vcheck_measure(&fake_ops, &f, VT_DRAM, 100, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "backwards"));
	assert_int_equal(f.stops, 1);
}

/* ---- pmu.c on a fake sysfs PMU directory ---- */

#include "fake_files.h"

static void pmu_sysfs(void **state)
{
	char why[256], p[128];
	uint64_t c = 0;
	uint32_t type = 0;

	(void)state;
	snprintf(fake_root, sizeof(fake_root), "/tmp/tgctl-pmu-XXXXXX");
	assert_non_null(mkdtemp(fake_root));
	snprintf(p, sizeof(p), "%s/format", fake_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/events", fake_root);
	mkdir(p, 0755);
	/* the kernel's strings (6.1 uncore_snbep.c): SKX-class and ICX iMC */
	put("format/event", "config:0-7\n");
	put("format/umask", "config:8-15\n");
	put("format/edge", "config:18\n");
	put("format/ch_mask", "config1:0-7\n");
	put("events/cas_count_read", "event=0x04,umask=0x03\n");
	put("events/cas_count_write", "event=0x04,umask=0x0c\n");
	put("events/icx_cas_read", "event=0x04,umask=0x0f\n");
	put("events/clockticks", "event=0x00,umask=0x00\n");
	put("events/edgy", "event=0x10,edge\n");
	put("events/wide", "event=0x04,umask=0x100\n");
	put("events/nofmt", "event=0x04,thresh=1\n");
	put("events/c1", "event=0x04,ch_mask=1\n");
	put("type", "17\n");
	put("cpumask", "0,28\n");
	assert_int_equal(pmu_event_config(fake_root, "cas_count_read", &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0x304);
	assert_int_equal(pmu_event_config(fake_root, "cas_count_write", &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0xc04);
	assert_int_equal(pmu_event_config(fake_root, "icx_cas_read", &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0xf04);
	assert_int_equal(pmu_event_config(fake_root, "clockticks", &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0);
	assert_int_equal(pmu_event_config(fake_root, "edgy", &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0x40010);			/* bit 18 + 0x10 */
	assert_int_equal(pmu_event_config(fake_root, "wide", &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not fit"));
	assert_int_equal(pmu_event_config(fake_root, "nofmt", &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "term thresh"));
	assert_int_equal(pmu_event_config(fake_root, "c1", &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a config field"));
	assert_int_equal(pmu_event_config(fake_root, "absent", &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "events/absent"));
	{
		/*
		 * pmu_encode: terms into config and config1, a field of two
		 * ranges (the kernel's strings: 6.1 arch/x86/events/intel/core.c
		 * offcore_rsp "config1:0-63", amd/core.c event "config:0-7,32-35")
		 */
		uint64_t cfg[3];

		put("format/offcore_rsp", "config1:0-63\n");
		put("format/amd_event", "config:0-7,32-35\n");
		assert_int_equal(pmu_encode(fake_root, "event=0x2a,umask=0x1,offcore_rsp=0x700C04477", cfg, why,
					    sizeof(why)), 0);
		assert_int_equal(cfg[0], 0x12a);
		assert_int_equal(cfg[1], 0x700c04477ULL);
		assert_int_equal(cfg[2], 0);
		assert_int_equal(pmu_encode(fake_root, "amd_event=0x44,umask=0x80", cfg, why, sizeof(why)), 0);
		assert_int_equal(cfg[0], 0x8044);
		/* event select bits 8-11 go to config bits 32-35 */
		assert_int_equal(pmu_encode(fake_root, "amd_event=0x144", cfg, why, sizeof(why)), 0);
		assert_int_equal(cfg[0], 0x100000044ULL);
		assert_int_equal(pmu_encode(fake_root, "amd_event=0x1044", cfg, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "does not fit config:0-7,32-35"));
		assert_int_equal(pmu_encode(fake_root, "event=0x2a,offcore=1", cfg, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "term offcore has no"));
		put("format/bad", "config:7-3\n");
		assert_int_equal(pmu_encode(fake_root, "bad=1", cfg, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "not a config field"));
		put("format/bad", "config:0-7,\n");
		assert_int_equal(pmu_encode(fake_root, "bad=1", cfg, why, sizeof(why)), -1);
		put("format/bad", "config3:0-7\n");
		assert_int_equal(pmu_encode(fake_root, "bad=1", cfg, why, sizeof(why)), -1);
	}
	assert_int_equal(pmu_type(fake_root, &type, why, sizeof(why)), 0);
	assert_int_equal(type, 17);
	assert_int_equal(pmu_first_cpu(fake_root), 0);
	put("cpumask", "28-55\n");
	assert_int_equal(pmu_first_cpu(fake_root), 28);
	put("type", "4294967296\n");
	assert_int_equal(pmu_type(fake_root, &type, why, sizeof(why)), -1);
	snprintf(p, sizeof(p), "rm -rf %s", fake_root);
	assert_int_equal(system(p), 0);
}

static void khz(void **state)
{
	(void)state;
	/* 2.4 GHz for 1 s; 1466.5 MHz (DDR4-2933's DCLK) for 200 ms; 0 ns */
	assert_int_equal(pmu_khz(2400000000ULL, 1000000000ULL), 2400000);
	assert_int_equal(pmu_khz(293300000ULL, 200000000ULL), 1466500);
	assert_int_equal(pmu_khz(5, 0), 0);
	/* no overflow inside: 2^40 ticks in 2^40 ns is 1 GHz */
	assert_int_equal(pmu_khz(1ULL << 40, 1ULL << 40), 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(judge_dram_pass),
		cmocka_unit_test(judge_imc_bounds),
		cmocka_unit_test(judge_failures),
		cmocka_unit_test(measure_deltas),
		cmocka_unit_test(measure_missing_counters),
		cmocka_unit_test(pmu_sysfs),
		cmocka_unit_test(khz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
