// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl apply (userland/tgctl/apply.c): the file's parser against fixture
 * files (userland/tests/fixtures/apply/: every rule of docs/tgctl.md's
 * APPLY, each error with its line), and apply_run() on a fake mount: only
 * what differs is written, a second run writes nothing, groups not in the
 * file are left alone unless --prune.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "fake_files.h"

#define FIX "userland/tests/fixtures/apply/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/* run fn with fd 1 or 2 into a file; returns what it printed */
static char *capture(int fd, int (*fn)(void *), void *arg, int *ret)
{
	char path[] = "/tmp/tgapply-out.XXXXXX";
	int tmp = mkstemp(path), saved = dup(fd);

	assert_true(tmp >= 0 && saved >= 0);
	fflush(fd == 1 ? stdout : stderr);
	dup2(tmp, fd);
	*ret = fn(arg);
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	close(tmp);
	{
		char *s = slurp(path, NULL);

		unlink(path);
		return s;
	}
}

struct parse_arg {
	const char *text, *name;
	size_t len;
	struct ap_file f;
};

static int do_parse(void *a)
{
	struct parse_arg *p = a;

	return apply_parse(p->text, p->len, p->name, &p->f);
}

static void parse_good(void **state)
{
	struct parse_arg p = { .name = "good.conf" };
	char *text = slurp(FIX "good.conf", &p.len), *err;
	int r;

	(void)state;
	p.text = text;
	err = capture(2, do_parse, &p, &r);
	assert_string_equal(err, "");
	assert_int_equal(r, 0);
	assert_int_equal(p.f.ncfg, 2);
	assert_string_equal(p.f.cfg[0].key, "remedial");
	assert_true(p.f.cfg[0].val == 1 && p.f.cfg[0].line == 5);
	assert_string_equal(p.f.cfg[1].key, "nvm_write_lat_ns");
	assert_true(p.f.cfg[1].val == 1500 && p.f.cfg[1].line == 6);
	assert_int_equal(p.f.ngrp, 3);
	assert_string_equal(p.f.grp[0].name, "db");
	assert_int_equal(p.f.grp[0].line, 8);
	assert_int_equal(p.f.grp[0].prio, TGROUP_PRIO_HIGH);
	assert_true(p.f.grp[0].bps[TGROUP_DRAM_READ] == 2500000000ULL);
	assert_true(p.f.grp[0].bps[TGROUP_NVM_WRITE] == TGROUP_MAX);
	assert_true(p.f.grp[0].bps[TGROUP_DRAM_WRITE] == TGROUP_MAX);	/* not given: default */
	assert_string_equal(p.f.grp[1].name, "batch");
	assert_int_equal(p.f.grp[1].prio, TGROUP_PRIO_LOW);
	assert_true(p.f.grp[1].bps[TGROUP_NVM_WRITE] == 500000000ULL);
	assert_string_equal(p.f.grp[2].name, "fresh");
	apply_free(&p.f);
	free(err);
	free(text);
}

/* every error, with its line, in file order; nothing returned */
static void parse_bad_names_every_line(void **state)
{
	struct parse_arg p = { .name = "bad.conf" };
	char *text = slurp(FIX "bad.conf", &p.len), *want = slurp(FIX "bad.expected", NULL), *err;
	int r;

	(void)state;
	p.text = text;
	err = capture(2, do_parse, &p, &r);
	assert_string_equal(err, want);
	assert_int_equal(r, 16);
	assert_null(p.f.cfg);
	assert_null(p.f.grp);
	free(err);
	free(want);
	free(text);
}

static void parse_limits(void **state)
{
	static const struct { const char *text; int errors; } cases[] = {
		{ "", 0 },
		{ "# only a comment\n\n", 0 },
		{ "[config]\nperiod_ms=20", 0 },			/* no final newline */
		{ "[config]\nperiod_ms=20\r\n", 1 },			/* DOS line ending */
		{ "[config]\nperiod_ms=2\0", 1 },			/* NUL */
		{ "[group x]\n[group y]\n[group x]\n", 1 },
		{ "[group]\n", 1 },
		{ "[group x]\nnvm_wbps=99999999999999999999\n", 1 },	/* too large */
		{ "[config]\nmax_groups=5\n", 1 },			/* read-only */
		{ "[config]\nuncore_khz=10000001\n", 1 },		/* the module's range */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct parse_arg p = { .text = cases[i].text, .name = "t",
				       .len = strlen(cases[i].text) + (i == 4) };
		int r;
		char *err = capture(2, do_parse, &p, &r);

		if (r != cases[i].errors)
			fail_msg("case %zu: %d errors (want %d): %s", i, r, cases[i].errors, err);
		apply_free(&p.f);
		free(err);
	}
	{	/* a line of 4096 bytes */
		char *l = malloc(4200);
		struct parse_arg p = { .text = l, .name = "t" };
		int r;
		char *err;

		strcpy(l, "[config]\n");
		memset(l + 9, 'a', 4096);
		l[9 + 4096] = '\0';
		p.len = strlen(l);
		err = capture(2, do_parse, &p, &r);
		assert_int_equal(r, 1);
		assert_non_null(strstr(err, "t:2: line longer than 4095 bytes"));
		free(err);
		free(l);
	}
}

#define CONFIG_TEXT "period_ms=10\nenabled=1\nremedial=0\nnvm_write_lat_ns=1500\nsource_perf=active\n"
#define LIMIT_TEXT "dram_rbps=2500000000 dram_wbps=max nvm_rbps=max nvm_wbps=max\n"

/* a fake mount: root files, group db (matching the file), stale (not in the file) */
static void fake_mount(void)
{
	char p[128];

	snprintf(fake_root, sizeof(fake_root), "/tmp/tgapply.XXXXXX");
	assert_non_null(mkdtemp(fake_root));
	put("last_cmd_status", "ok\n");
	put("tgroup.config", CONFIG_TEXT);
	put("cgroup.procs", "");
	for (int i = 0; i < 3; i++) {
		static const char *const g[] = { "db", "batch", "stale" };

		snprintf(p, sizeof(p), "%s/%s", fake_root, g[i]);
		assert_int_equal(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/tgroup.limit", g[i]);
		put(p, LIMIT_TEXT);
		snprintf(p, sizeof(p), "%s/tgroup.priority", g[i]);
		put(p, i ? "low\n" : "high\n");
	}
}

static char *get(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", fake_root, rel);
	return slurp(p, NULL);
}

struct run_arg {
	struct tgroup *tg;
	struct ap_file *f;
	unsigned int flags;
};

static int do_run(void *a)
{
	struct run_arg *r = a;

	return apply_run(r->tg, r->f, "good.conf", r->flags);
}

static void expect_file(const char *rel, const char *want)
{
	char *s = get(rel);

	assert_string_equal(s, want);
	free(s);
}

/* one write(2) of exactly "written" over the file's old text (no O_TRUNC on the fake) */
static void expect_written(const char *rel, const char *before, const char *written)
{
	char want[512];

	snprintf(want, sizeof(want), "%s%s", written, before + strlen(written));
	expect_file(rel, want);
}

/*
 * good.conf on the fake mount: db matches but for nothing, batch has a
 * limit it should not (dram_rbps: the file gives none, so max) and lacks
 * nvm_wbps; fresh is created; only remedial differs in [config].
 */
/* what apply must do to the fake mount, in order (the expectation is the fixture's, by hand) */
#define PLAN "config remedial=1 (was 0)\n"				\
	"set batch dram_rbps=max (was 2500000000)\n"			\
	"set batch nvm_wbps=500000000 (was max)\n"			\
	"mk fresh\n"

static void run_writes_only_differences(void **state)
{
	struct parse_arg p = { .name = "good.conf" };
	char *text = slurp(FIX "good.conf", &p.len), *out, *err;
	struct run_arg ra = { 0 };
	int r;

	(void)state;
	p.text = text;
	free(capture(2, do_parse, &p, &r));
	assert_int_equal(r, 0);
	fake_mount();
	ra.tg = tgroup_open(fake_root);
	assert_non_null(ra.tg);
	ra.f = &p.f;

	/* dry run: the plan, nothing written */
	ra.flags = APPLY_DRY_RUN;
	out = capture(1, do_run, &ra, &r);
	assert_int_equal(r, 0);
	assert_string_equal(out, PLAN "tgctl apply: good.conf: 4 changes to make (dry run: nothing written)\n");
	free(out);
	expect_file("tgroup.config", CONFIG_TEXT);
	assert_int_equal(tgroup_exists(ra.tg, "fresh"), 0);

	/* the real run: the same plan, exactly those writes (a fake file shows a write over its old text) */
	ra.flags = 0;
	out = capture(1, do_run, &ra, &r);
	assert_int_equal(r, 0);
	assert_string_equal(out, PLAN "tgctl apply: good.conf: 4 changes\n");
	free(out);
	expect_written("tgroup.config", CONFIG_TEXT, "remedial=1");
	expect_written("batch/tgroup.limit", LIMIT_TEXT, "dram_rbps=max nvm_wbps=500000000");
	expect_file("db/tgroup.limit", LIMIT_TEXT);
	expect_file("db/tgroup.priority", "high\n");
	expect_file("batch/tgroup.priority", "low\n");
	assert_int_equal(tgroup_exists(ra.tg, "fresh"), 1);
	assert_int_equal(tgroup_exists(ra.tg, "stale"), 1);	/* not in the file: left alone */
	expect_file("stale/tgroup.limit", LIMIT_TEXT);

	/* the mount now as the kernel would show it: a second run writes nothing */
	put("tgroup.config", "period_ms=10\nenabled=1\nremedial=1\nnvm_write_lat_ns=1500\n");
	put("batch/tgroup.limit", "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=500000000\n");
	put("db/tgroup.priority", "high\n");
	put("fresh/tgroup.limit", "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max\n");
	put("fresh/tgroup.priority", "low\n");
	out = capture(1, do_run, &ra, &r);
	assert_int_equal(r, 0);
	assert_string_equal(out, "tgctl apply: good.conf: no changes\n");
	free(out);

	/* --prune: stale goes (a rmdir), the file's groups stay */
	ra.flags = APPLY_PRUNE;
	{
		char p2[128];

		snprintf(p2, sizeof(p2), "rm -rf %s/stale/*", fake_root);
		assert_int_equal(system(p2), 0);
	}
	out = capture(1, do_run, &ra, &r);
	assert_int_equal(r, 0);
	assert_string_equal(out, "rm stale\ntgctl apply: good.conf: 1 change\n");
	free(out);
	assert_int_equal(tgroup_exists(ra.tg, "stale"), 0);
	assert_int_equal(tgroup_exists(ra.tg, "db"), 1);

	/* a key this tgroup.ko lacks: named with its line, the rest still written */
	put("tgroup.config", "period_ms=10\n");
	ra.flags = 0;
	err = capture(2, do_run, &ra, &r);
	assert_int_equal(r, 1);
	assert_non_null(strstr(err, "tgctl apply: good.conf:5: [config]: remedial: this tgroup.ko has no such key"));
	free(err);

	tgroup_close(ra.tg);
	apply_free(&p.f);
	free(text);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", fake_root);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_good),
		cmocka_unit_test(parse_bad_names_every_line),
		cmocka_unit_test(parse_limits),
		cmocka_unit_test(run_writes_only_differences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
