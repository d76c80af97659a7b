// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse.c - table-driven cmocka tests of core/parse.c.
 * Every row states the input and the independent expectation.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tg_parse.h"

#define MAX "max"
#define UNL TG_UNLIMITED

struct pid_case {
	const char *in;
	int ok;
	s32 pid;
	const char *msg;	/* substring of the message on failure */
};

static const struct pid_case pid_cases[] = {
	{ "0", 1, 0, NULL },
	{ "1", 1, 1, NULL },
	{ "1\n", 1, 1, NULL },
	{ "007", 1, 7, NULL },
	{ "4194304", 1, 4194304, NULL },
	{ "4194305", 0, 0, "pid out of range" },
	{ "2147483648", 0, 0, "pid out of range" },
	{ "18446744073709551615", 0, 0, "pid out of range" },
	{ "18446744073709551616", 0, 0, "number out of range" },
	{ "", 0, 0, "empty number" },
	{ "\n", 0, 0, "empty number" },
	{ "1\n\n", 0, 0, "not a decimal" },
	{ "-1", 0, 0, "negative" },
	{ "+1", 0, 0, "not a decimal" },
	{ " 1", 0, 0, "not a decimal" },
	{ "1 ", 0, 0, "not a decimal" },
	{ "1 2", 0, 0, "not a decimal" },
	{ "0x10", 0, 0, "not a decimal" },
	{ "12a", 0, 0, "not a decimal" },
};

static void test_pid(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pid_cases) / sizeof(pid_cases[0]); i++) {
		const struct pid_case *c = &pid_cases[i];
		const char *msg = NULL;
		s32 pid = -42;
		int r = tg_parse_pid(c->in, strlen(c->in), &pid, &msg);

		if (c->ok) {
			assert_int_equal(r, 0);
			assert_int_equal(pid, c->pid);
		} else {
			assert_int_equal(r, -1);
			assert_int_equal(pid, -42);	/* untouched */
			assert_non_null(msg);
			assert_non_null(strstr(msg, c->msg));
		}
	}
}

/* The input is not NUL-terminated: bytes past len must be ignored. */
static void test_pid_uses_len_only(void **state)
{
	const char *msg;
	s32 pid;

	(void)state;
	assert_int_equal(tg_parse_pid("12345", 2, &pid, &msg), 0);
	assert_int_equal(pid, 12);
}

struct prio_case {
	const char *in;
	int ok;
	enum tg_priority prio;
};

static const struct prio_case prio_cases[] = {
	{ "high", 1, TG_PRIO_HIGH }, { "low", 1, TG_PRIO_LOW },
	{ "high\n", 1, TG_PRIO_HIGH }, { "low\n", 1, TG_PRIO_LOW },
	{ "HIGH", 0, 0 }, { "hig", 0, 0 }, { "highh", 0, 0 }, { "", 0, 0 },
	{ "\n", 0, 0 }, { " high", 0, 0 }, { "high ", 0, 0 },
	{ "high\n\n", 0, 0 }, { "high low", 0, 0 }, { "medium", 0, 0 },
};

static void test_priority(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(prio_cases) / sizeof(prio_cases[0]); i++) {
		const struct prio_case *c = &prio_cases[i];
		enum tg_priority p = (enum tg_priority)7;
		const char *msg = NULL;
		int r = tg_parse_priority(c->in, strlen(c->in), &p, &msg);

		assert_int_equal(r, c->ok ? 0 : -1);
		if (c->ok)
			assert_int_equal(p, c->prio);
		else
			assert_int_equal(p, 7);
	}
	assert_string_equal(tg_priority_name(TG_PRIO_HIGH), "high");
	assert_string_equal(tg_priority_name(TG_PRIO_LOW), "low");
}

struct limit_case {
	const char *in;
	int ok;
	u64 out[TG_NR_KINDS];	/* expected after applying to `start` */
	const char *msg;
};

/* every case starts from these limits */
static const u64 start[TG_NR_KINDS] = { 1, 2, UNL, 4 };

static const struct limit_case limit_cases[] = {
	{ "dram_rbps=10", 1, { 10, 2, UNL, 4 }, NULL },
	{ "dram_wbps=max", 1, { 1, UNL, UNL, 4 }, NULL },
	{ "nvm_rbps=0\n", 1, { 1, 2, 0, 4 }, NULL },
	{ "nvm_wbps=5 dram_rbps=6", 1, { 6, 2, UNL, 5 }, NULL },
	{ "dram_rbps=1 dram_wbps=2 nvm_rbps=3 nvm_wbps=4", 1, { 1, 2, 3, 4 }, NULL },
	{ "  dram_rbps=9\t nvm_wbps=max  \n", 1, { 9, 2, UNL, UNL }, NULL },
	{ "dram_rbps=18446744073709551614", 1, { 18446744073709551614ULL, 2, UNL, 4 }, NULL },
	{ "dram_rbps=18446744073709551616", 0, { 0 }, "out of range" },
	{ "dram_rbps=99999999999999999999", 0, { 0 }, "out of range" },
	{ "dram_rbps=-1", 0, { 0 }, "negative" },
	{ "dram_rbps=1 bogus=2", 0, { 0 }, "unknown limit key" },
	{ "DRAM_RBPS=1", 0, { 0 }, "unknown limit key" },
	{ "dram_rbps=1 dram_rbps=2", 0, { 0 }, "twice" },
	{ "dram_rbps=1x", 0, { 0 }, "not a decimal" },
	{ "dram_rbps=", 0, { 0 }, "empty number" },
	{ "dram_rbps", 0, { 0 }, "expected key=value" },
	{ "=1", 0, { 0 }, "expected key=value" },
	{ "dram_rbps=Max", 0, { 0 }, "not a decimal" },
	{ "dram_rbps==1", 0, { 0 }, "not a decimal" },
	{ "dram_rbps=1,nvm_rbps=2", 0, { 0 }, "not a decimal" },
	{ "", 0, { 0 }, "no limit given" },
	{ " \n", 0, { 0 }, "no limit given" },
};

static void test_limits(void **state)
{
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(limit_cases) / sizeof(limit_cases[0]); i++) {
		const struct limit_case *c = &limit_cases[i];
		struct tg_limits l;
		const char *msg = NULL;
		int r;

		memcpy(l.bps, start, sizeof(start));
		r = tg_parse_limits(c->in, strlen(c->in), &l, &msg);
		if (c->ok) {
			assert_int_equal(r, 0);
			for (k = 0; k < TG_NR_KINDS; k++)
				assert_int_equal(l.bps[k], c->out[k]);
		} else {
			assert_int_equal(r, -1);
			assert_memory_equal(l.bps, start, sizeof(start));
			assert_non_null(msg);
			assert_non_null(strstr(msg, c->msg));
		}
	}
}

static void test_limits_format_roundtrip(void **state)
{
	struct tg_limits l, back;
	char buf[TG_LINE_MAX];
	const char *msg;

	(void)state;
	tg_limits_init(&l);
	assert_int_equal(tg_fmt_limits(buf, sizeof(buf), &l),
			 (int)strlen("dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max\n"));
	assert_string_equal(buf, "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max\n");
	l.bps[TG_DRAM_WRITE] = 0;
	l.bps[TG_NVM_READ] = 18446744073709551614ULL;
	tg_fmt_limits(buf, sizeof(buf), &l);
	assert_string_equal(buf, "dram_rbps=max dram_wbps=0 nvm_rbps=18446744073709551614 nvm_wbps=max\n");
	/* what the file prints, written back, gives the same limits */
	tg_limits_init(&back);
	back.bps[TG_DRAM_READ] = 5;
	assert_int_equal(tg_parse_limits(buf, strlen(buf), &back, &msg), 0);
	assert_memory_equal(back.bps, l.bps, sizeof(l.bps));
	/* too small a buffer is reported, not overrun */
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(tg_fmt_limits(buf, 20, &l), -1);
	assert_int_equal(buf[20], 'Z');
	/* the longest line fits TG_LINE_MAX */
	l.bps[0] = l.bps[1] = l.bps[2] = l.bps[3] = 18446744073709551614ULL;
	assert_true(tg_fmt_limits(buf, sizeof(buf), &l) > 0);
}

static void test_bw_format(void **state)
{
	struct tg_bw bw = { { 0, 1, 64, UINT64_MAX } };
	char buf[TG_LINE_MAX];

	(void)state;
	tg_fmt_bw(buf, sizeof(buf), &bw);
	/* bandwidth never prints "max" */
	assert_string_equal(buf, "dram_rbps=0 dram_wbps=1 nvm_rbps=64 nvm_wbps=18446744073709551615\n");
}

static void test_fmt_u64(void **state)
{
	static const struct { u64 v; const char *s; } rows[] = {
		{ 0, "0" }, { 9, "9" }, { 10, "10" }, { 4294967296ULL, "4294967296" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	char buf[21];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(tg_fmt_u64(buf, sizeof(buf), rows[i].v), (int)strlen(rows[i].s));
		assert_string_equal(buf, rows[i].s);
	}
	assert_int_equal(tg_fmt_u64(buf, 2, 10), -1);
}

struct cfg_case {
	const char *in;
	int ok;
	const char *key;	/* field checked on success */
	uint64_t val;
	const char *msg;
};

static uint64_t cfg_get(const struct tg_config *c, const char *key)
{
	if (!strcmp(key, "period_ms")) return c->period_ms;
	if (!strcmp(key, "enabled")) return c->enabled;
	if (!strcmp(key, "preventive")) return c->preventive;
	if (!strcmp(key, "remedial")) return c->remedial;
	if (!strcmp(key, "dram_read_lat_ns")) return c->threshold_ns[TG_DRAM_READ];
	if (!strcmp(key, "nvm_read_lat_ns")) return c->threshold_ns[TG_NVM_READ];
	if (!strcmp(key, "dram_write_lat_ns")) return c->threshold_ns[TG_DRAM_WRITE];
	if (!strcmp(key, "nvm_write_lat_ns")) return c->threshold_ns[TG_NVM_WRITE];
	if (!strcmp(key, "low_pct")) return c->low_pct;
	if (!strcmp(key, "quiet_periods")) return c->quiet_periods;
	if (!strcmp(key, "relax_periods")) return c->relax_periods;
	if (!strcmp(key, "law")) return c->law;
	if (!strcmp(key, "perf_type")) return c->perf_type;
	if (!strcmp(key, "ocr_dram_read_config")) return c->ocr_config[0];
	if (!strcmp(key, "ocr_nvm_read_config")) return c->ocr_config[1];
	if (!strcmp(key, "ocr_dram_read_config1")) return c->ocr_config1[0];
	if (!strcmp(key, "ocr_nvm_read_config1")) return c->ocr_config1[1];
	if (!strcmp(key, "uncore_khz")) return c->uncore_khz;
	fail_msg("no key %s", key);
	return 0;
}

static const struct cfg_case cfg_cases[] = {
	{ "period_ms=1", 1, "period_ms", 1, NULL },
	{ "period_ms=1000\n", 1, "period_ms", 1000, NULL },
	{ "  period_ms=30\n", 1, "period_ms", 30, NULL },
	{ "enabled=0", 1, "enabled", 0, NULL },
	{ "remedial=0 preventive=0", 1, "preventive", 0, NULL },
	{ "nvm_write_lat_ns=10000000", 1, "nvm_write_lat_ns", 10000000, NULL },
	{ "dram_read_lat_ns=1\nlow_pct=99", 1, "dram_read_lat_ns", 1, NULL },
	{ "quiet_periods=1000 relax_periods=1", 1, "relax_periods", 1, NULL },
	{ "law=1", 1, "law", 1, NULL },
	{ "law=0", 1, "law", 0, NULL },
	{ "law=2", 0, NULL, 0, "law must be 0 (window) or 1 (block mean)" },
	{ "relax_periods=7 law=2", 0, NULL, 0, "law must be" },
	{ "ocr_nvm_read_config=18446744073709551615", 1, "ocr_nvm_read_config", UINT64_MAX, NULL },
	/* CLX: OCR.ALL_DATA_RD.L3_MISS_LOCAL_DRAM.ANY_SNOOP's MSRValue 0x3f84000491 */
	{ "ocr_dram_read_config1=272797533329", 1, "ocr_dram_read_config1", 0x3f84000491ULL, NULL },
	/* CLX: OCR.ALL_DATA_RD.PMM_HIT_LOCAL_PMM.ANY_SNOOP's MSRValue 0x3F80400491 */
	{ "ocr_nvm_read_config1=272734618769", 1, "ocr_nvm_read_config1", 0x3f80400491ULL, NULL },
	{ "ocr_nvm_read_config1=18446744073709551615", 1, "ocr_nvm_read_config1", UINT64_MAX, NULL },
	{ "ocr_dram_read_config1=0", 1, "ocr_dram_read_config1", 0, NULL },
	{ "ocr_dram_read_config1=18446744073709551616", 0, NULL, 0, "out of range" },
	{ "ocr_nvm_read_config1=-1", 0, NULL, 0, "negative" },
	{ "ocr_nvm_read_config1=0x3f80400491", 0, NULL, 0, "not a decimal" },
	{ "ocr_nvm_read_config1=", 0, NULL, 0, "empty number" },
	{ "ocr_dram_read_config1=1 ocr_dram_read_config1=2", 0, NULL, 0, "twice" },
	{ "ocr_dram_read_config1=5 ocr_read_config1=5", 0, NULL, 0, "unknown" },
	{ "ocr_dram_read_config2=5", 0, NULL, 0, "unknown" },
	{ "perf_type=4294967295", 1, "perf_type", 4294967295u, NULL },
	{ "perf_type=4294967296", 0, NULL, 0, "32-bit" },
	{ "uncore_khz=2400000", 1, "uncore_khz", 2400000, NULL },
	{ "uncore_khz=0", 0, NULL, 0, "1..10000000" },
	{ "store_sample_period=999", 0, NULL, 0, "at least 1000" },
	{ "period_ms=20 period_ms=30", 0, NULL, 0, "twice" },
	{ "period_ms=0", 0, NULL, 0, "1..1000" },
	{ "period_ms=1001", 0, NULL, 0, "1..1000" },
	{ "period_ms=-1", 0, NULL, 0, "negative" },
	{ "period_ms=99999999999999999999999", 0, NULL, 0, "out of range" },
	{ "enabled=2", 0, NULL, 0, "0 or 1" },
	{ "enabled=on", 0, NULL, 0, "not a decimal" },
	{ "nvm_read_lat_ns=0", 0, NULL, 0, "1..10000000" },
	{ "low_pct=100", 0, NULL, 0, "1..99" },
	{ "quiet_periods=0", 0, NULL, 0, "1..1000" },
	{ "period_ms=5 bogus=1", 0, NULL, 0, "unknown" },
	{ "max_groups=3", 0, NULL, 0, "unknown or read-only" },
	{ "inherit_failures=0", 0, NULL, 0, "unknown or read-only" },
	{ "period_ms", 0, NULL, 0, "key=value" },
	{ "", 0, NULL, 0, "no key=value" },
};

static void test_config(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cfg_cases) / sizeof(cfg_cases[0]); i++) {
		const struct cfg_case *c = &cfg_cases[i];
		struct tg_config cfg, before;
		const char *msg = NULL;
		int r;

		memset(&cfg, 0, sizeof(cfg));
		tg_config_default(&cfg);
		memcpy(&before, &cfg, sizeof(cfg));
		r = tg_parse_config(c->in, strlen(c->in), &cfg, &msg);
		assert_int_equal(r, c->ok ? 0 : -1);
		if (c->ok) {
			assert_int_equal(cfg_get(&cfg, c->key), c->val);
		} else {
			assert_memory_equal(&cfg, &before, sizeof(cfg));	/* all or nothing */
			assert_non_null(strstr(msg, c->msg));
		}
	}
}

static void test_config_format_roundtrip(void **state)
{
	static const char defaults[] =
		"period_ms=10\nenabled=1\npreventive=1\nremedial=1\n"
		"dram_read_lat_ns=200\nnvm_read_lat_ns=700\ndram_write_lat_ns=250\n"
		"nvm_write_lat_ns=1500\nlow_pct=80\nquiet_periods=3\nrelax_periods=5\n"
		"law=1\nperf_type=4\nocr_dram_read_config=0\nocr_nvm_read_config=0\n"
		"ocr_dram_read_config1=0\nocr_nvm_read_config1=0\n"
		"uncore_type=0\nuncore_dram_occupancy_config=0\nuncore_dram_inserts_config=0\n"
		"uncore_nvm_occupancy_config=0\nuncore_nvm_inserts_config=0\nuncore_khz=2000000\n"
		"store_sample_type=4\nstore_sample_config=0\nstore_sample_period=20011\n";
	struct tg_config cfg, back;
	char buf[TG_CONFIG_TEXT_MAX];
	const char *msg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));		/* padding too: compared bytewise */
	memset(&back, 0, sizeof(back));
	tg_config_default(&cfg);
	assert_int_equal(tg_fmt_config(buf, sizeof(buf), &cfg), (int)strlen(defaults));
	assert_string_equal(buf, defaults);
	/* everything it prints can be written back and means the same */
	cfg.period_ms = 1000;
	cfg.remedial = 0;
	cfg.threshold_ns[TG_NVM_WRITE] = 10000000;
	cfg.ocr_config1[0] = 0x3f84000491ULL;
	cfg.ocr_config1[1] = UINT64_MAX;
	cfg.law = TG_LAW_WINDOW;		/* not the default */
	tg_fmt_config(buf, sizeof(buf), &cfg);
	tg_config_default(&back);
	assert_int_equal(tg_parse_config(buf, strlen(buf), &back, &msg), 0);
	assert_memory_equal(&back, &cfg, sizeof(cfg));
	assert_int_equal(tg_fmt_config(buf, 40, &cfg), -1);
}

static void test_group_names(void **state)
{
	static const struct { const char *name; int ok; } rows[] = {
		{ "a", 1 }, { "A-z_0.9", 1 }, { "...", 1 }, { ".hidden", 1 },
		{ "", 0 }, { ".", 0 }, { "..", 0 }, { "a b", 0 }, { "a/b", 0 },
		{ "a:b", 0 }, { "caf\xc3\xa9", 0 }, { "a\n", 0 }, { "a*", 0 },
	};
	char long_name[70];
	const char *msg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(tg_valid_group_name(rows[i].name, strlen(rows[i].name), &msg),
				 rows[i].ok ? 0 : -1);
	memset(long_name, 'x', sizeof(long_name));
	assert_int_equal(tg_valid_group_name(long_name, 64, &msg), 0);
	assert_int_equal(tg_valid_group_name(long_name, 65, &msg), -1);
	assert_non_null(strstr(msg, "1..64"));
}

/* inject lines (docs/inject.md); pin quotas are bounded (TG_PIN_QUOTA_US_MAX) */
static void test_inject(void **state)
{
	static const struct {
		const char *in;
		int ok;
		enum tg_inject_kind kind;
		const char *name;	/* group of group/pin lines */
		unsigned int key;	/* one key checked on success */
		u64 v;
		const char *msg;	/* substring of the message on failure */
	} rows[] = {
		{ "group=g mbm_bytes=5", 1, TG_INJ_GROUP, "g", TG_INJ_MBM, 5, NULL },
		{ "group=a.b nvm_store_samples=18446744073709551615", 1, TG_INJ_GROUP, "a.b",
		  TG_INJ_NVM_SAMPLES, 18446744073709551615ull, NULL },
		{ "uncore uncore_clock_khz=2000000", 1, TG_INJ_UNCORE, NULL, TG_INJ_KHZ, 2000000, NULL },
		{ "probe nvm_write_ns=5000", 1, TG_INJ_PROBE, NULL, TG_INJ_NVM_WRITE_NS, 5000, NULL },
		{ "pin group=g cpu_quota_us=0", 1, TG_INJ_PIN, "g", TG_INJ_PIN_CPU_QUOTA, 0, NULL },
		{ "pin group=g cpu_quota_us=2500", 1, TG_INJ_PIN, "g", TG_INJ_PIN_CPU_QUOTA, 2500, NULL },
		/* the bound: 1000 ms on 1024 CPUs, and one above it */
		{ "pin group=g cpu_quota_us=1024000000", 1, TG_INJ_PIN, "g", TG_INJ_PIN_CPU_QUOTA,
		  1024000000, NULL },
		{ "pin group=g cpu_quota_us=1024000001", 0, 0, NULL, 0, 0, "cpu_quota_us above" },
		{ "pin group=g cpu_quota_us=18446744073709551615", 0, 0, NULL, 0, 0,
		  "cpu_quota_us above" },
		{ "pin group=g cpu_quota_us=18446744073709551616", 0, 0, NULL, 0, 0,
		  "number out of range" },
		{ "pin group=g cpu_quota_us=-1", 0, 0, NULL, 0, 0, "negative" },
		{ "pin group=g", 0, 0, NULL, 0, 0, "without counters" },
		{ "pin cpu_quota_us=5", 0, 0, NULL, 0, 0, "expected group=NAME" },
		{ "pin group=g mbm_bytes=5", 0, 0, NULL, 0, 0, "unknown inject key" },
		{ "pin group=g cpu_quota_us=1 cpu_quota_us=2", 0, 0, NULL, 0, 0, "twice" },
		/* the bound is the pin's: other keys take any u64 */
		{ "group=g mbm_bytes=1024000001", 1, TG_INJ_GROUP, "g", TG_INJ_MBM, 1024000001, NULL },
		{ "bogus x=1", 0, 0, NULL, 0, 0, "must start with" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tg_inject in, before;
		const char *msg = NULL;
		int r;

		memset(&in, 0x5a, sizeof(in));
		before = in;
		r = tg_parse_inject(rows[i].in, strlen(rows[i].in), &in, &msg);
		if (!rows[i].ok) {
			if (r != -1 || !msg || !strstr(msg, rows[i].msg))
				fail_msg("'%s': r %d msg '%s', want '%s'", rows[i].in, r,
					 msg ? msg : "(none)", rows[i].msg);
			assert_memory_equal(&in, &before, sizeof(in));	/* all or nothing */
			continue;
		}
		if (r != 0)
			fail_msg("'%s': %s", rows[i].in, msg);
		assert_int_equal(in.kind, rows[i].kind);
		assert_int_equal(in.present, 1u << rows[i].key);
		assert_true(in.v[rows[i].key] == rows[i].v);
		if (rows[i].name) {
			assert_int_equal(in.name_len, strlen(rows[i].name));
			assert_memory_equal(in.name, rows[i].name, in.name_len);
		}
	}
	/* what the CPU actuator computes with the largest pin cannot overflow */
	assert_true(TG_PIN_QUOTA_US_MAX <= UINT64_MAX / (4ull * TG_PERIOD_MS_MAX * 1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_pid_uses_len_only),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_limits_format_roundtrip),
		cmocka_unit_test(test_bw_format),
		cmocka_unit_test(test_fmt_u64),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_format_roundtrip),
		cmocka_unit_test(test_group_names),
		cmocka_unit_test(test_inject),
	};

	return cmocka_run_group_tests_name("core_parse", tests, NULL, NULL);
}
