// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl - manage tgroup groups from the command line (docs/tgctl.md).
 * Built on libtgroup (userland/lib/tgroup.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tgroup.h"
#include "tgctl.h"

static int raw_bytes;	/* --bytes: plain numbers out */

static const char *const kind_names[TGROUP_NR_KINDS] = {
	"dram_read", "dram_write", "nvm_read", "nvm_write",
};

/* a rate for people (1.5GB/s) or scripts (--bytes) */
static const char *rate(uint64_t v, char *buf, size_t size, const char *suffix)
{
	if (v == TGROUP_MAX)
		snprintf(buf, size, "max");
	else if (raw_bytes)
		snprintf(buf, size, "%" PRIu64, v);
	else
		tgroup_format_size(v, suffix, buf, size);
	return buf;
}

/*
 * A command's options (getopt_long over its own argv, argv[0] = the
 * command): the next option's value, -1 at the end, 'h' after printing
 * help, '?' for a bad option (getopt said why).
 */
static int next_opt(int argc, char **argv, const char *so, const struct option *lo, const char *help)
{
	int c = getopt_long(argc, argv, so, lo, NULL);

	if (c == 'h')
		fputs(help, stdout);
	return c;
}

#define HELP_OPT { "help", no_argument, NULL, 'h' }
#define END_OPT { NULL, 0, NULL, 0 }

static int usage_err(const char *cmd, const char *msg)
{
	if (!msg)	/* getopt printed it */
		msg = "bad option";
	fprintf(stderr, "tgctl %s: %s (tgctl %s --help)\n", cmd, msg, cmd);
	return 2;
}

/* ---- ls ---- */

static const char help_ls[] =
	"usage: tgctl ls [-l|--long]\n"
	"List the child groups, one per line. -l adds priority, processes and\n"
	"the four bandwidths (bytes/s over the last second).\n";

static int cmd_ls(int argc, char **argv)
{
	int lng = 0, r;
	struct tgroup *tg;
	char **names;
	size_t n;

	static const struct option lo[] = { HELP_OPT, { "long", no_argument, NULL, 'l' }, END_OPT };
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "hl", lo, help_ls)) != -1) {
		if (c == 'h')
			return 0;
		if (c != 'l')
			return usage_err("ls", NULL);
		lng = 1;
	}
	if (optind != argc)
		return usage_err("ls", "unexpected argument");
	tg = tgctl_open();
	if (!tg)
		return 1;
	r = tgroup_list(tg, &names, &n);
	if (r) {
		tgctl_err(tg, r, "ls");
		tgroup_close(tg);
		return 1;
	}
	if (lng)
		printf("%-24s %-4s %6s %10s %10s %10s %10s\n", "GROUP", "PRIO", "PROCS",
		       "DRAM_R", "DRAM_W", "NVM_R", "NVM_W");
	for (size_t i = 0; i < n; i++) {
		enum tgroup_priority p;
		struct tgroup_bandwidth bw;
		char b[TGROUP_NR_KINDS][32];
		pid_t *pids;
		size_t np;

		if (!lng) {
			printf("%s\n", names[i]);
			continue;
		}
		/* a group removed meanwhile is skipped */
		if (tgroup_get_priority(tg, names[i], &p) || tgroup_read_bandwidth(tg, names[i], &bw) ||
		    tgroup_pids(tg, names[i], &pids, &np))
			continue;
		free(pids);
		for (int k = 0; k < TGROUP_NR_KINDS; k++)
			rate(bw.bps[k], b[k], sizeof(b[k]), "B/s");
		printf("%-24s %-4s %6zu %10s %10s %10s %10s\n", names[i], p == TGROUP_PRIO_HIGH ? "high" : "low",
		       np, b[0], b[1], b[2], b[3]);
	}
	tgroup_free_names(names);
	tgroup_close(tg);
	return 0;
}

/* ---- mk / rm ---- */

static const char help_mk[] =
	"usage: tgctl mk GROUP...\n"
	"Create groups (names: 1-64 of [A-Za-z0-9._-]). Stops at the first failure.\n";
static const char help_rm[] =
	"usage: tgctl rm GROUP...\n"
	"Remove groups; a group with processes fails with EBUSY (move them first).\n";

static int mk_rm(int argc, char **argv, int mk)
{
	static const struct option lo[] = { HELP_OPT, END_OPT };
	const char *cmd = mk ? "mk" : "rm";
	struct tgroup *tg;
	int rc = 0, c;

	optind = 0;
	while ((c = next_opt(argc, argv, "h", lo, mk ? help_mk : help_rm)) != -1)
		return c == 'h' ? 0 : usage_err(cmd, NULL);
	if (optind >= argc)
		return usage_err(cmd, "name a group");
	tg = tgctl_open();
	if (!tg)
		return 1;
	for (int i = optind; i < argc && !rc; i++) {
		int r = mk ? tgroup_create(tg, argv[i]) : tgroup_remove(tg, argv[i]);

		if (r) {
			tgctl_err(tg, r, "%s %s", cmd, argv[i]);
			rc = 1;
		}
	}
	tgroup_close(tg);
	return rc;
}

static int cmd_mk(int argc, char **argv) { return mk_rm(argc, argv, 1); }
static int cmd_rm(int argc, char **argv) { return mk_rm(argc, argv, 0); }

/* ---- mv ---- */

static const char help_mv[] =
	"usage: tgctl mv [-t|--thread] PID GROUP\n"
	"Move a process (all its threads) into GROUP; \"/\" is the root group\n"
	"(out of any group). --thread moves only the thread with id PID.\n";

static int cmd_mv(int argc, char **argv)
{
	static const struct option lo[] = { HELP_OPT, { "thread", no_argument, NULL, 't' }, END_OPT };
	int thread = 0, i, r, c;
	struct tgroup *tg;
	char *end;
	long pid;

	optind = 0;
	while ((c = next_opt(argc, argv, "+ht", lo, help_mv)) != -1) {
		if (c == 'h')
			return 0;
		if (c != 't')
			return usage_err("mv", NULL);
		thread = 1;
	}
	i = optind;
	if (argc - i != 2)
		return usage_err("mv", "need PID GROUP");
	errno = 0;
	pid = strtol(argv[i], &end, 10);
	if (errno || *end || end == argv[i] || pid < 0 || pid > 4194304)
		return usage_err("mv", "PID must be a number 0..4194304");
	tg = tgctl_open();
	if (!tg)
		return 1;
	r = thread ? tgroup_move_tid(tg, argv[i + 1], pid) : tgroup_move_pid(tg, argv[i + 1], pid);
	if (r)
		tgctl_err(tg, r, "mv %ld %s", pid, argv[i + 1]);
	tgroup_close(tg);
	return r ? 1 : 0;
}

/* ---- set ---- */

static const char help_set[] =
	"usage: tgctl set GROUP KEY=VALUE...\n"
	"Set a group's priority and limits; all limits in one write (all or nothing).\n"
	"  priority=high|low\n"
	"  dram_rbps= dram_wbps= nvm_rbps= nvm_wbps=   bytes/s, human units or max:\n"
	"      1G = 10^9, 500M, 2.5GB/s, 1.5GiB/s (binary), 123, max\n"
	"Example: tgctl set db priority=high nvm_wbps=1G\n";

static int cmd_set(int argc, char **argv)
{
	static const struct option lo[] = { HELP_OPT, END_OPT };
	struct tgroup_limits l = { .mask = 0 };
	int prio = -1, r = 0, k, c;
	struct tgroup *tg;

	optind = 0;
	while ((c = next_opt(argc, argv, "+h", lo, help_set)) != -1)
		return c == 'h' ? 0 : usage_err("set", NULL);
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3)
		return usage_err("set", "need GROUP KEY=VALUE...");
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *val;

		if (!eq)
			return usage_err("set", "arguments are KEY=VALUE");
		*eq = '\0';
		val = eq + 1;
		if (!strcmp(argv[i], "priority")) {
			if (prio >= 0)
				return usage_err("set", "priority given twice");
			if (!strcmp(val, "high"))
				prio = TGROUP_PRIO_HIGH;
			else if (!strcmp(val, "low"))
				prio = TGROUP_PRIO_LOW;
			else
				return usage_err("set", "priority is high or low");
			continue;
		}
		for (k = 0; k < TGROUP_NR_KINDS; k++)
			if (!strcmp(argv[i], tgroup_limit_keys[k]))
				break;
		if (k == TGROUP_NR_KINDS) {
			fprintf(stderr, "tgctl set: unknown key \"%s\" (tgctl set --help)\n", argv[i]);
			return 2;
		}
		if (l.mask & (1u << k))
			return usage_err("set", "a key given twice");
		r = tgroup_parse_size(val, &l.bps[k]);
		if (r) {
			fprintf(stderr, "tgctl set: %s=%s: %s\n", argv[i], val,
				r == -ERANGE ? "too large" : "not a rate (e.g. 1G, 500M, 2.5GB/s, max)");
			return 2;
		}
		l.mask |= 1u << k;
	}
	tg = tgctl_open();
	if (!tg)
		return 1;
	/* the priority first: high is the write the kernel may refuse (EPERM) */
	if (prio >= 0) {
		r = tgroup_set_priority(tg, argv[1], prio);
		if (r)
			tgctl_err(tg, r, "set %s: tgroup.priority", argv[1]);
	}
	if (!r && l.mask) {
		r = tgroup_set_limits(tg, argv[1], &l);
		if (r)
			tgctl_err(tg, r, "set %s: tgroup.limit", argv[1]);
	}
	tgroup_close(tg);
	return r ? 1 : 0;
}

/* ---- get ---- */

static const char help_get[] =
	"usage: tgctl get [-b|--bytes] GROUP [KEY...]\n"
	"Print a group's settings and numbers as \"key value\" lines: priority,\n"
	"limits (dram_rbps ...), bandwidth (bw_dram_read ...), the tgroup.stat keys,\n"
	"and processes. KEYs pick some. \"/\" is the root group (no priority/limits).\n"
	"Rates and byte counts are in human units unless --bytes.\n";

struct kv {
	char key[40];
	char val[64];
};

/* everything get/status know about one group */
static int collect(struct tgroup *tg, const char *group, struct kv *kv, int max)
{
	int n = 0, root = !group || !strcmp(group, "/"), r, k;
	struct tgroup_bandwidth bw;
	struct tgroup_stat st;
	pid_t *pids;
	size_t np;

#define ADD(k_, ...) do { if (n < max) { snprintf(kv[n].key, sizeof(kv[n].key), "%s", k_);	\
		snprintf(kv[n].val, sizeof(kv[n].val), __VA_ARGS__); n++; } } while (0)
	if (!root) {
		enum tgroup_priority p;
		struct tgroup_limits l;
		char b[32];

		r = tgroup_get_priority(tg, group, &p);
		if (r)
			return r;
		ADD("priority", "%s", p == TGROUP_PRIO_HIGH ? "high" : "low");
		r = tgroup_get_limits(tg, group, &l);
		if (r)
			return r;
		for (k = 0; k < TGROUP_NR_KINDS; k++)
			ADD(tgroup_limit_keys[k], "%s", rate(l.bps[k], b, sizeof(b), "B/s"));
	}
	r = tgroup_pids(tg, group, &pids, &np);
	if (r)
		return r;
	free(pids);
	ADD("procs", "%zu", np);
	r = tgroup_read_bandwidth(tg, group, &bw);
	if (r)
		return r;
	for (k = 0; k < TGROUP_NR_KINDS; k++) {
		char key[40], b[32];

		snprintf(key, sizeof(key), "bw_%s", kind_names[k]);
		ADD(key, "%s", rate(bw.bps[k], b, sizeof(b), "B/s"));
	}
	r = tgroup_read_stat(tg, group, &st);
	if (r)
		return r;
	for (k = 0; k < TGROUP_NR_KINDS; k++) {
		char key[40], b[32];

		snprintf(key, sizeof(key), "%s_bytes", kind_names[k]);
		ADD(key, "%s", rate(st.bytes[k], b, sizeof(b), "B"));
	}
	ADD("nr_periods", "%" PRIu64, st.nr_periods);
	ADD("nr_throttled", "%" PRIu64, st.nr_throttled);
	ADD("throttled_usec", "%" PRIu64, st.throttled_usec);
	ADD("mba_percent", "%" PRIu64, st.mba_percent);
	if (st.cpu_quota_usec == TGROUP_MAX)
		ADD("cpu_quota_usec", "max");
	else
		ADD("cpu_quota_usec", "%" PRIu64, st.cpu_quota_usec);
	ADD("cpu_period_usec", "%" PRIu64, st.cpu_period_usec);
	ADD("last_action", "%s", st.last_action);
	ADD("last_mechanism", "%s", st.last_mechanism);
	ADD("last_reason", "%s", st.last_reason);
#undef ADD
	return n;
}

#define MAX_KV 40

static int cmd_get(int argc, char **argv)
{
	static const struct option lo[] = { HELP_OPT, { "bytes", no_argument, NULL, 'b' }, END_OPT };
	struct kv kv[MAX_KV];
	struct tgroup *tg;
	int i, n, rc = 0, c;

	optind = 0;
	while ((c = next_opt(argc, argv, "hb", lo, help_get)) != -1) {
		if (c == 'h')
			return 0;
		if (c != 'b')
			return usage_err("get", NULL);
		raw_bytes = 1;
	}
	i = optind;
	if (i >= argc)
		return usage_err("get", "name a group");
	tg = tgctl_open();
	if (!tg)
		return 1;
	n = collect(tg, argv[i], kv, MAX_KV);
	if (n < 0) {
		tgctl_err(tg, n, "get %s", argv[i]);
		tgroup_close(tg);
		return 1;
	}
	if (i + 1 == argc) {
		for (int j = 0; j < n; j++)
			printf("%s %s\n", kv[j].key, kv[j].val);
	}
	for (int a = i + 1; a < argc; a++) {
		int j;

		for (j = 0; j < n && strcmp(kv[j].key, argv[a]); j++)
			;
		if (j == n) {
			fprintf(stderr, "tgctl get: no key \"%s\" for %s\n", argv[a], argv[i]);
			rc = 1;
			continue;
		}
		printf("%s %s\n", kv[j].key, kv[j].val);
	}
	tgroup_close(tg);
	return rc;
}

/* ---- status ---- */

static const char help_status[] =
	"usage: tgctl status [--json|--csv]\n"
	"Every group (the root as \"/\") with the keys of tgctl get, in plain\n"
	"numbers (bytes, bytes/s; limits \"max\" or a number), the root's\n"
	"interference latencies and state, each source's and actuator's state,\n"
	"the number of groups against max_groups, and whether resctrl is mounted\n"
	"(then a warning on stderr: it owns RDT, tgroup's MBA and MBM wait).\n"
	"The keys are stable: new keys may be added, none renamed.\n"
	"  -j, --json  one object (schema_version 1, timestamp, ..., groups)\n"
	"  -c, --csv   a header line, then one line per group\n"
	"Default: a table like --csv with spaces, after '# ' lines.\n";

#define STATUS_SCHEMA_VERSION 1

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* the column set: a child group's keys */
static const char *const status_cols[] = {
	"priority", "dram_rbps", "dram_wbps", "nvm_rbps", "nvm_wbps", "procs",
	"bw_dram_read", "bw_dram_write", "bw_nvm_read", "bw_nvm_write",
	"dram_read_bytes", "dram_write_bytes", "nvm_read_bytes", "nvm_write_bytes",
	"nr_periods", "nr_throttled", "throttled_usec", "mba_percent", "cpu_quota_usec",
	"cpu_period_usec", "last_action", "last_mechanism", "last_reason",
};
#define NR_COLS (int)(sizeof(status_cols) / sizeof(status_cols[0]))

static const char *lookup(struct kv *kv, int n, const char *key)
{
	for (int j = 0; j < n; j++)
		if (!strcmp(kv[j].key, key))
			return kv[j].val;
	return NULL;
}

/*
 * resctrl: mounted (where), and what the module's RDT users say. Loud on
 * stderr: while resctrl is mounted tgroup's MBA and MBM wait.
 */
static int resctrl_check(const struct tgctl_states *st, char *where, size_t size)
{
	int m = tgctl_resctrl_mount(NULL, where, size);

	if (m > 0)
		fprintf(stderr, "tgctl: warning: resctrl is mounted at %s: it owns RDT, so tgroup's MBA "
			"actuator and rdt (MBM) source are on standby until it is unmounted; they resume by "
			"themselves then (docs/tgctl.md, \"Living next to resctrl\")\n", where);
	for (int i = 0; i < st->n; i++)
		if (strstr(st->p[i].state, "resctrl") && m <= 0)
			fprintf(stderr, "tgctl: warning: %s_%s: %s\n", st->p[i].actuator ? "actuator" : "source",
				st->p[i].name, st->p[i].state);
	return m > 0;
}

static json_object *json_num_or_str(const char *v)
{
	return is_number(v) ? json_object_new_uint64(strtoull(v, NULL, 10)) : json_object_new_string(v);
}

static int cmd_status(int argc, char **argv)
{
	static const struct option lo[] = {
		HELP_OPT, { "json", no_argument, NULL, 'j' }, { "csv", no_argument, NULL, 'c' }, END_OPT,
	};
	enum { TABLE, JSON, CSV } fmt = TABLE;
	struct tgroup_interference in;
	struct tgctl_states states;
	json_object *root = NULL, *groups = NULL;
	struct kv kv[MAX_KV];
	struct tgroup *tg;
	char **names, where[1024] = "", ts[40];
	size_t ng;
	int r, c, rm;

	optind = 0;
	while ((c = next_opt(argc, argv, "hjc", lo, help_status)) != -1) {
		if (c == 'h')
			return 0;
		if (c == 'j')
			fmt = JSON;
		else if (c == 'c')
			fmt = CSV;
		else
			return usage_err("status", NULL);
	}
	if (optind != argc)
		return usage_err("status", "unexpected argument");
	raw_bytes = 1;
	tg = tgctl_open();
	if (!tg)
		return 1;
	tgctl_timestamp(ts, sizeof(ts));
	r = tgroup_read_interference(tg, &in);
	if (r) {
		tgctl_err(tg, r, "status: tgroup.interference");
		goto out;
	}
	r = tgctl_read_states(tg, &states);
	if (r) {
		tgctl_err(tg, r, "status: tgroup.config");
		goto out;
	}
	r = tgroup_list(tg, &names, &ng);
	if (r) {
		tgctl_err(tg, r, "status");
		goto out;
	}
	rm = resctrl_check(&states, where, sizeof(where));
	if (fmt == JSON) {
		json_object *o = json_object_new_object(), *srcs = json_object_new_object(),
			    *acts = json_object_new_object(), *res = json_object_new_object();

		root = json_object_new_object();
		groups = json_object_new_array();
		json_object_object_add(root, "schema_version", json_object_new_int(STATUS_SCHEMA_VERSION));
		json_object_object_add(root, "timestamp", json_object_new_string(ts));
		json_object_object_add(root, "mount", json_object_new_string(tgroup_mount_path(tg)));
		json_object_object_add(o, "dram_read_lat_ns", json_object_new_uint64(in.lat_ns[TGROUP_DRAM_READ]));
		json_object_object_add(o, "dram_write_lat_ns", json_object_new_uint64(in.lat_ns[TGROUP_DRAM_WRITE]));
		json_object_object_add(o, "nvm_read_lat_ns", json_object_new_uint64(in.lat_ns[TGROUP_NVM_READ]));
		json_object_object_add(o, "nvm_write_lat_ns", json_object_new_uint64(in.lat_ns[TGROUP_NVM_WRITE]));
		json_object_object_add(o, "state", json_object_new_string(in.state));
		json_object_object_add(root, "interference", o);
		for (int i = 0; i < states.n; i++)
			json_object_object_add(states.p[i].actuator ? acts : srcs, states.p[i].name,
					       json_object_new_string(states.p[i].state));
		json_object_object_add(root, "sources", srcs);
		json_object_object_add(root, "actuators", acts);
		json_object_object_add(res, "mounted", json_object_new_boolean(rm));
		json_object_object_add(res, "mount_point", rm ? json_object_new_string(where) : NULL);
		json_object_object_add(root, "resctrl", res);
		json_object_object_add(root, "nr_groups", json_object_new_uint64(ng));
		json_object_object_add(root, "max_groups", json_object_new_uint64(states.max_groups));
		json_object_object_add(root, "groups", groups);
	} else {
		const char *sep = fmt == CSV ? "," : " ";

		if (fmt == TABLE) {
			printf("# time %s\n", ts);
			printf("# interference dram_read_lat_ns=%" PRIu64 " dram_write_lat_ns=%" PRIu64
			       " nvm_read_lat_ns=%" PRIu64 " nvm_write_lat_ns=%" PRIu64 " state=%s\n",
			       in.lat_ns[0], in.lat_ns[1], in.lat_ns[2], in.lat_ns[3], in.state);
			for (int i = 0; i < states.n; i++)
				printf("# %s %s: %s\n", states.p[i].actuator ? "actuator" : "source", states.p[i].name,
				       states.p[i].state);
			printf("# groups %zu of max_groups %llu\n", ng, states.max_groups);
			if (rm)
				printf("# resctrl: mounted at %s (it owns RDT: tgroup's MBA and MBM on standby)\n", where);
			else
				printf("# resctrl: not mounted\n");
		}
		printf("group");
		for (int c = 0; c < NR_COLS; c++)
			printf("%s%s", sep, status_cols[c]);
		printf("\n");
	}
	for (size_t g = 0; g <= ng; g++) {
		const char *name = g == 0 ? "/" : names[g - 1];
		int n = collect(tg, name, kv, MAX_KV);

		if (n < 0) {
			if (g && n == -ENOENT)	/* removed meanwhile */
				continue;
			tgctl_err(tg, n, "status %s", name);
			r = n;
			break;
		}
		if (fmt == JSON) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "group", json_object_new_string(name));
			for (int c = 0; c < NR_COLS; c++) {
				const char *v = lookup(kv, n, status_cols[c]);

				if (v)
					json_object_object_add(o, status_cols[c], json_num_or_str(v));
			}
			json_object_array_add(groups, o);
			continue;
		}
		printf("%s", name);
		for (int c = 0; c < NR_COLS; c++) {
			const char *v = lookup(kv, n, status_cols[c]);

			printf("%s%s", fmt == CSV ? "," : " ", v ? v : (fmt == CSV ? "" : "-"));
		}
		printf("\n");
	}
	if (fmt == JSON && !r)
		printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	tgroup_free_names(names);
out:
	tgroup_close(tg);
	return r ? 1 : 0;
}

/* ---- config ---- */

static const char help_config[] =
	"usage: tgctl config [KEY | KEY=VALUE...]\n"
	"Without arguments print tgroup.config; with KEY print its value; with\n"
	"KEY=VALUE pairs write them in one write (all or nothing; docs/abi.md).\n";

static int cmd_config(int argc, char **argv)
{
	static const struct option lo[] = { HELP_OPT, END_OPT };
	struct tgroup *tg;
	char *s, buf[4096];
	size_t n = 0;
	int r, c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+h", lo, help_config)) != -1)
		return c == 'h' ? 0 : usage_err("config", NULL);
	argc -= optind - 1;
	argv += optind - 1;
	tg = tgctl_open();
	if (!tg)
		return 1;
	if (argc == 1) {
		r = tgroup_read_file(tg, NULL, "tgroup.config", &s);
		if (!r) {
			fputs(s, stdout);
			free(s);
		} else {
			tgctl_err(tg, r, "config");
		}
	} else if (argc == 2 && !strchr(argv[1], '=')) {
		r = tgroup_config_get(tg, argv[1], buf, sizeof(buf));
		if (!r)
			printf("%s\n", buf);
		else
			tgctl_err(tg, r, "config %s", argv[1]);
	} else {
		for (int i = 1; i < argc; i++) {
			if (!strchr(argv[i], '=') || n + strlen(argv[i]) + 2 > sizeof(buf)) {
				tgroup_close(tg);
				return usage_err("config", "give KEY or KEY=VALUE pairs");
			}
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? " " : "", argv[i]);
		}
		r = tgroup_config_set(tg, buf);
		if (r)
			tgctl_err(tg, r, "config");
	}
	tgroup_close(tg);
	return r ? 1 : 0;
}

/* ---- main ---- */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{ "ls", cmd_ls, "list groups" },
	{ "mk", cmd_mk, "create groups" },
	{ "rm", cmd_rm, "remove groups" },
	{ "mv", cmd_mv, "move a process (or thread) into a group" },
	{ "set", cmd_set, "set priority and limits" },
	{ "get", cmd_get, "show a group's settings and numbers" },
	{ "status", cmd_status, "every group, as a table, --json or --csv" },
	{ "top", tgctl_top, "a live view per group (bandwidth, MBA, quota, throttled %)" },
	{ "config", cmd_config, "read or write tgroup.config" },
	{ "apply", tgctl_apply, "make the mount match /etc/tgroup/tgroup.conf (tunables, boot-time groups)" },
	{ "validate", tgctl_validate, "check tgroup's counters against iMC CAS and MBM on real hardware" },
	{ "setup", tgctl_setup, "write the platform's event encodings into tgroup.config" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tgctl [-m MOUNT] COMMAND [ARGS]   (tgctl COMMAND --help)\n"
		"Manage tgroup groups (docs/tgctl.md). MOUNT defaults to $TGROUP_MOUNT or %s.\n\n",
		TGROUP_DEFAULT_MOUNT);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		HELP_OPT, { "mount", required_argument, NULL, 'm' }, END_OPT,
	};
	int c;

	tgctl_set_mount(getenv("TGROUP_MOUNT"));
	/* options before the command only ("+"): the command parses its own */
	while ((c = getopt_long(argc, argv, "+hm:", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'm':
			tgctl_set_mount(optarg);
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[optind], cmds[i].name))
			return cmds[i].fn(argc - optind, argv + optind);
	fprintf(stderr, "tgctl: unknown command \"%s\"\n", argv[optind]);
	usage(stderr);
	return 2;
}
