// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of libtgroup (cmocka): the parsers and units
 * against hand-computed values, and the file plumbing against a fake_root
 * mount (a temporary directory with the files a mount has). Kernel
 * behaviour (errno, last_cmd_status from the module) is the in-guest
 * suite's job (tests/guest/libtgroup_test.c).
 */
#define _GNU_SOURCE
#include <errno.h>
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

#include "tgroup.h"

static void parse_size_accepts(void **state)
{
	static const struct { const char *in; uint64_t v; } t[] = {
		{ "0", 0 }, { "123", 123 }, { "1k", 1000 }, { "1K", 1000 },
		{ "1G", 1000000000ULL }, { "500M", 500000000ULL },
		{ "2.5GB/s", 2500000000ULL }, { "2.5G", 2500000000ULL },
		{ "1.5k", 1500 }, { "1Ki", 1024 }, { "1.5GiB", 1610612736ULL },
		{ "1MiB/s", 1048576 }, { "10MBps", 10000000 }, { "1T", 1000000000000ULL },
		{ "3B", 3 }, { "1.0", 1 }, { "max", TGROUP_MAX },
		{ "18446744073709551614", 18446744073709551614ULL },
		{ "0.001M", 1000 },
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 7;
		if (tgroup_parse_size(t[i].in, &v) != 0 || v != t[i].v)
			fail_msg("\"%s\" -> %llu, expected %llu", t[i].in, (unsigned long long)v,
				 (unsigned long long)t[i].v);
	}
}

static void parse_size_rejects(void **state)
{
	static const struct { const char *in; int err; } t[] = {
		{ "", -EINVAL }, { "G", -EINVAL }, { "-1", -EINVAL }, { "1.5", -EINVAL },
		{ "1.", -EINVAL }, { ".5k", -EINVAL }, { "1 G", -EINVAL }, { "1Gx", -EINVAL },
		{ "1g", -EINVAL }, { "1GB/h", -EINVAL }, { "1.0001k", -EINVAL },
		{ "18446744073709551615", -ERANGE }, { "18446744073709551616", -ERANGE },
		{ "20E", -EINVAL }, { "18446744073709552P", -ERANGE }, { "MAX", -EINVAL },
	};
	uint64_t v = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = tgroup_parse_size(t[i].in, &v);

		if (r != t[i].err)
			fail_msg("\"%s\" -> %d, expected %d", t[i].in, r, t[i].err);
	}
	assert_int_equal(v, 42);	/* untouched on failure */
}

static void format_size_values(void **state)
{
	static const struct { uint64_t v; const char *out; int exact; } t[] = {
		{ 0, "0", 1 }, { 999, "999", 1 }, { 1000, "1k", 1 }, { 1500, "1.5k", 1 },
		{ 1999, "1.99k", 0 }, { 500000000ULL, "500M", 1 }, { 2500000000ULL, "2.5G", 1 },
		{ 123456789ULL, "123M", 0 }, { 12345678ULL, "12.3M", 0 },
		{ 1000000000000000000ULL, "1E", 1 }, { TGROUP_MAX, "max", 1 },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = tgroup_format_size(t[i].v, NULL, buf, sizeof(buf));

		if (r != t[i].exact || strcmp(buf, t[i].out))
			fail_msg("%llu -> \"%s\" (%d), expected \"%s\" (%d)", (unsigned long long)t[i].v,
				 buf, r, t[i].out, t[i].exact);
	}
	assert_int_equal(tgroup_format_size(2500000000ULL, "B/s", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "2.5GB/s");
	assert_int_equal(tgroup_format_size(2500000000ULL, "B/s", buf, 4), -ERANGE);
}

/* what format prints, parse reads back to the value, when exact */
static void format_parse_roundtrip(void **state)
{
	char buf[32];
	uint64_t v, back;

	(void)state;
	for (v = 1; v < UINT64_MAX / 7; v = v * 7 + 3) {
		int r = tgroup_format_size(v, "B/s", buf, sizeof(buf));

		assert_true(r >= 0);
		assert_int_equal(tgroup_parse_size(buf, &back), 0);
		if (r == 1)
			assert_true(back == v);
		else
			assert_true(back < v && back >= v - v / 100);	/* 3 digits: < 1 % dropped */
	}
}

static void parse_rates_strict(void **state)
{
	uint64_t v[TGROUP_NR_KINDS];

	(void)state;
	assert_int_equal(tgroup_parse_rates("dram_rbps=1 dram_wbps=2 nvm_rbps=max nvm_wbps=4\n", v,
					    tgroup_limit_keys), 0);
	assert_true(v[0] == 1 && v[1] == 2 && v[2] == TGROUP_MAX && v[3] == 4);
	assert_int_equal(tgroup_parse_rates("nvm_wbps=4 nvm_rbps=3 dram_wbps=2 dram_rbps=1", v,
					    tgroup_limit_keys), 0);
	assert_true(v[0] == 1 && v[3] == 4);
	/* missing, repeated, unknown, malformed */
	assert_int_equal(tgroup_parse_rates("dram_rbps=1 dram_wbps=2 nvm_rbps=3", v, tgroup_limit_keys), -EINVAL);
	assert_int_equal(tgroup_parse_rates("dram_rbps=1 dram_rbps=1 dram_wbps=2 nvm_rbps=3 nvm_wbps=4", v,
					    tgroup_limit_keys), -EINVAL);
	assert_int_equal(tgroup_parse_rates("dram_rbps=1 dram_wbps=2 nvm_rbps=3 nvm_wbps=4 x=1", v,
					    tgroup_limit_keys), -EINVAL);
	assert_int_equal(tgroup_parse_rates("dram_rbps=1x dram_wbps=2 nvm_rbps=3 nvm_wbps=4", v,
					    tgroup_limit_keys), -EINVAL);
	assert_int_equal(tgroup_parse_rates("dram_rbps=-1 dram_wbps=2 nvm_rbps=3 nvm_wbps=4", v,
					    tgroup_limit_keys), -EINVAL);
}

static const char stat_text[] =
	"dram_read_bytes 100\ndram_write_bytes 200\nnvm_read_bytes 300\nnvm_write_bytes 400\n"
	"nr_periods 50\nnr_throttled 7\nthrottled_usec 70000\nmba_percent 40\ncpu_quota_usec max\n"
	"cpu_period_usec 10000\nlast_action throttle\nlast_mechanism cpu\nlast_reason nvm_write\n"
	"future_key 9\n";

static void parse_stat_fields(void **state)
{
	struct tgroup_stat st;
	char buf[sizeof(stat_text)];

	(void)state;
	assert_int_equal(tgroup_parse_stat(stat_text, &st), 0);
	assert_true(st.bytes[TGROUP_DRAM_READ] == 100 && st.bytes[TGROUP_NVM_WRITE] == 400);
	assert_true(st.nr_periods == 50 && st.nr_throttled == 7 && st.throttled_usec == 70000);
	assert_true(st.mba_percent == 40 && st.cpu_quota_usec == TGROUP_MAX && st.cpu_period_usec == 10000);
	assert_string_equal(st.last_action, "throttle");
	assert_string_equal(st.last_mechanism, "cpu");
	assert_string_equal(st.last_reason, "nvm_write");
	/* a numeric quota */
	memcpy(buf, stat_text, sizeof(buf));
	memcpy(strstr(buf, "cpu_quota_usec max"), "cpu_quota_usec 123", 18);
	assert_int_equal(tgroup_parse_stat(buf, &st), 0);
	assert_true(st.cpu_quota_usec == 123);
	/* malformed numbers and missing counters are rejected */
	assert_int_equal(tgroup_parse_stat("dram_read_bytes x\n", &st), -EINVAL);
	assert_int_equal(tgroup_parse_stat("nr_periods 1\n", &st), -EINVAL);
	assert_int_equal(tgroup_parse_stat("nr_periods\n", &st), -EINVAL);
}

static void parse_interference_fields(void **state)
{
	struct tgroup_interference in;

	(void)state;
	assert_int_equal(tgroup_parse_interference(
		"dram_read_lat_ns=90 nvm_read_lat_ns=350 dram_write_lat_ns=110 nvm_write_lat_ns=2000\n"
		"state=nvm\n", &in), 0);
	assert_true(in.lat_ns[TGROUP_DRAM_READ] == 90 && in.lat_ns[TGROUP_NVM_READ] == 350);
	assert_true(in.lat_ns[TGROUP_DRAM_WRITE] == 110 && in.lat_ns[TGROUP_NVM_WRITE] == 2000);
	assert_string_equal(in.state, "nvm");
	assert_int_equal(tgroup_parse_interference("dram_read_lat_ns=90\nstate=nvm\n", &in), -EINVAL);
	assert_int_equal(tgroup_parse_interference(
		"dram_read_lat_ns=90 nvm_read_lat_ns=350 dram_write_lat_ns=110 nvm_write_lat_ns=2000\n", &in),
		-EINVAL);
}

static void names(void **state)
{
	(void)state;
	assert_true(tgroup_valid_name("a") && tgroup_valid_name("db-1.x_y"));
	assert_false(tgroup_valid_name("") || tgroup_valid_name(".") || tgroup_valid_name(".."));
	assert_false(tgroup_valid_name("a/b") || tgroup_valid_name("a b") || tgroup_valid_name("é"));
	assert_true(tgroup_valid_name("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(tgroup_valid_name("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

/* ---- a fake_root mount: a directory with the files ---- */

#include "fake_files.h"

static char *get(const char *rel)
{
	static char buf[1024];
	char p[256];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", fake_root, rel);
	f = fopen(p, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int fake_setup(void **state)
{
	(void)state;
	snprintf(fake_root, sizeof(fake_root), "/tmp/libtgroup-test.XXXXXX");
	if (!mkdtemp(fake_root))
		return -1;
	put("last_cmd_status", "ok\n");
	put("tgroup.config", "period_ms=10\nenabled=1\nsource_perf=unavailable: no encodings\n");
	put("cgroup.procs", "1\n2\n300\n");
	return 0;
}

static int fake_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_root);
	return system(cmd);
}

static void open_checks_mount(void **state)
{
	struct tgroup *tg;

	(void)state;
	errno = 0;
	assert_null(tgroup_open("/nonexistent-tgroup-mount"));
	assert_int_equal(errno, ENOENT);
	assert_null(tgroup_open("/tmp"));	/* no last_cmd_status: not a mount */
	assert_int_equal(errno, ENODEV);
	tg = tgroup_open(fake_root);
	assert_non_null(tg);
	assert_string_equal(tgroup_mount_path(tg), fake_root);
	tgroup_close(tg);
}

static void groups_and_files(void **state)
{
	struct tgroup *tg = tgroup_open(fake_root);
	struct tgroup_limits l = { .mask = 0 };
	char **v, val[64];
	pid_t *pids;
	size_t n;

	(void)state;
	assert_non_null(tg);
	assert_int_equal(tgroup_create(tg, "b"), 0);
	assert_int_equal(tgroup_create(tg, "a"), 0);
	assert_int_equal(tgroup_create(tg, "a"), -EEXIST);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(tgroup_create(tg, "../x"), -EINVAL);
	assert_true(strstr(tgroup_last_status(tg), "libtgroup: bad group name") != NULL);
	assert_int_equal(tgroup_exists(tg, "a"), 1);
	assert_int_equal(tgroup_exists(tg, "zz"), 0);
	assert_int_equal(tgroup_list(tg, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b");
	assert_null(v[2]);
	tgroup_free_names(v);

	/* what the library writes, byte for byte */
	put("a/tgroup.limit", "");
	l.bps[TGROUP_NVM_WRITE] = 1000000000;
	l.bps[TGROUP_DRAM_READ] = TGROUP_MAX;
	l.mask = 1u << TGROUP_NVM_WRITE | 1u << TGROUP_DRAM_READ;
	assert_int_equal(tgroup_set_limits(tg, "a", &l), 0);
	assert_string_equal(get("a/tgroup.limit"), "dram_rbps=max nvm_wbps=1000000000");
	l.mask = 0;
	assert_int_equal(tgroup_set_limits(tg, "a", &l), -EINVAL);
	put("a/tgroup.priority", "");
	assert_int_equal(tgroup_set_priority(tg, "a", TGROUP_PRIO_HIGH), 0);
	assert_string_equal(get("a/tgroup.priority"), "high");
	put("a/cgroup.procs", "");
	assert_int_equal(tgroup_move_pid(tg, "a", 1234), 0);
	assert_string_equal(get("a/cgroup.procs"), "1234");
	assert_int_equal(tgroup_move_pid(tg, "a", -1), -EINVAL);

	/* reads */
	put("a/tgroup.priority", "low\n");
	{
		enum tgroup_priority p = TGROUP_PRIO_HIGH;

		assert_int_equal(tgroup_get_priority(tg, "a", &p), 0);
		assert_int_equal(p, TGROUP_PRIO_LOW);
	}
	put("a/tgroup.limit", "dram_rbps=max dram_wbps=5 nvm_rbps=max nvm_wbps=1000000000\n");
	assert_int_equal(tgroup_get_limits(tg, "a", &l), 0);
	assert_true(l.bps[TGROUP_DRAM_WRITE] == 5 && l.bps[TGROUP_NVM_READ] == TGROUP_MAX);
	put("a/tgroup.stat", stat_text);
	{
		struct tgroup_stat st;

		assert_int_equal(tgroup_read_stat(tg, "a", &st), 0);
		assert_true(st.nr_throttled == 7);
	}
	put("a/tgroup.bandwidth", "garbage\n");
	{
		struct tgroup_bandwidth bw;

		assert_int_equal(tgroup_read_bandwidth(tg, "a", &bw), -EINVAL);
		assert_true(strstr(tgroup_last_status(tg), "malformed tgroup.bandwidth") != NULL);
	}
	assert_int_equal(tgroup_pids(tg, NULL, &pids, &n), 0);
	assert_int_equal(n, 3);
	assert_true(pids[0] == 1 && pids[2] == 300);
	free(pids);
	assert_int_equal(tgroup_config_get(tg, "enabled", val, sizeof(val)), 0);
	assert_string_equal(val, "1");
	assert_int_equal(tgroup_config_get(tg, "source_perf", val, sizeof(val)), 0);
	assert_string_equal(val, "unavailable: no encodings");
	assert_int_equal(tgroup_config_get(tg, "source_perf", val, 5), -ERANGE);
	assert_int_equal(tgroup_config_get(tg, "period", val, sizeof(val)), -ENOENT);

	/* a failed write reports last_cmd_status unless it says ok */
	put("last_cmd_status", "tgroup.limit: negative number\n");
	assert_int_equal(tgroup_write_file(tg, "zz", "tgroup.limit", "x"), -ENOENT);
	assert_string_equal(tgroup_last_status(tg), "tgroup.limit: negative number");
	assert_string_equal(tgroup_strerror(tg, ENOENT), "No such file or directory: tgroup.limit: negative number");
	put("last_cmd_status", "ok\n");
	assert_int_equal(tgroup_write_file(tg, "zz", "tgroup.limit", "x"), -ENOENT);
	assert_string_equal(tgroup_last_status(tg), "");
	assert_string_equal(tgroup_strerror(tg, -ENOENT), "No such file or directory");

	assert_int_equal(tgroup_remove(tg, NULL), -EINVAL);
	assert_int_equal(tgroup_remove(tg, "b"), 0);
	assert_int_equal(tgroup_exists(tg, "b"), 0);
	tgroup_close(tg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_size_accepts),
		cmocka_unit_test(parse_size_rejects),
		cmocka_unit_test(format_size_values),
		cmocka_unit_test(format_parse_roundtrip),
		cmocka_unit_test(parse_rates_strict),
		cmocka_unit_test(parse_stat_fields),
		cmocka_unit_test(parse_interference_fields),
		cmocka_unit_test(names),
		cmocka_unit_test(open_checks_mount),
		cmocka_unit_test(groups_and_files),
	};

	return cmocka_run_group_tests(tests, fake_setup, fake_teardown);
}
