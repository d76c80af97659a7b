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
#include <unistd.h>

#include "tgroup.h"
#include "tgctl.h"

static const char *mount_path;
static int raw_bytes;	/* --bytes: plain numbers out */

static const char *const kind_names[TGROUP_NR_KINDS] = {
	"dram_read", "dram_write", "nvm_read", "nvm_write",
};

void tgctl_err(struct tgroup *tg, int err, const char *fmt, ...)
{
	va_list ap;

	if (err < 0)
		err = -err;
	fprintf(stderr, "tgctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s (%s)", strerror(err), strerrorname_np(err) ? strerrorname_np(err) : "?");
	if (tg && tgroup_last_status(tg)[0])
		fprintf(stderr, ": %s", tgroup_last_status(tg));
	fputc('\n', stderr);
}

const char *tgctl_mount(void)
{
	return mount_path;
}

struct tgroup *tgctl_open(void)
{
	struct tgroup *tg = tgroup_open(mount_path);

	if (!tg) {
		int e = errno;

		fprintf(stderr, "tgctl: %s: %s (%s)%s\n", mount_path ? mount_path : TGROUP_DEFAULT_MOUNT,
			strerror(e), strerrorname_np(e) ? strerrorname_np(e) : "?",
			e == ENODEV || e == ENOENT ? " (is tgroup.ko loaded and the filesystem mounted? "
			"mount -t tgroup tgroup /sys/fs/tgroup)" : "");
	}
	return tg;
}

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

/* true if argv has -h/--help (commands take no other dash options but their own) */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	return 0;
}

static int usage_err(const char *cmd, const char *msg)
{
	fprintf(stderr, "tgctl %s: %s (tgctl %s --help)\n", cmd, msg, cmd);
	return 2;
}

/* ---- ls ---- */

static const char help_ls[] =
	"usage: tgctl ls [-l]\n"
	"List the child groups, one per line. -l adds priority, processes and\n"
	"the four bandwidths (bytes/s over the last second).\n";

static int cmd_ls(int argc, char **argv)
{
	int lng = 0, r;
	struct tgroup *tg;
	char **names;
	size_t n;

	if (wants_help(argc, argv)) {
		fputs(help_ls, stdout);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l"))
			lng = 1;
		else
			return usage_err("ls", "unexpected argument");
	}
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
	struct tgroup *tg;
	int rc = 0;

	if (wants_help(argc, argv)) {
		fputs(mk ? help_mk : help_rm, stdout);
		return 0;
	}
	if (argc < 2)
		return usage_err(argv[0], "name a group");
	tg = tgctl_open();
	if (!tg)
		return 1;
	for (int i = 1; i < argc && !rc; i++) {
		int r = mk ? tgroup_create(tg, argv[i]) : tgroup_remove(tg, argv[i]);

		if (r) {
			tgctl_err(tg, r, "%s %s", argv[0], argv[i]);
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
	"usage: tgctl mv [--thread] PID GROUP\n"
	"Move a process (all its threads) into GROUP; \"/\" is the root group\n"
	"(out of any group). --thread moves only the thread with id PID.\n";

static int cmd_mv(int argc, char **argv)
{
	int thread = 0, i = 1, r;
	struct tgroup *tg;
	char *end;
	long pid;

	if (wants_help(argc, argv)) {
		fputs(help_mv, stdout);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "--thread")) {
		thread = 1;
		i++;
	}
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
	struct tgroup_limits l = { .mask = 0 };
	int prio = -1, r = 0, k;
	struct tgroup *tg;

	if (wants_help(argc, argv)) {
		fputs(help_set, stdout);
		return 0;
	}
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
	"usage: tgctl get [--bytes] GROUP [KEY...]\n"
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
	struct kv kv[MAX_KV];
	struct tgroup *tg;
	int i = 1, n, rc = 0;

	if (wants_help(argc, argv)) {
		fputs(help_get, stdout);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "--bytes")) {
		raw_bytes = 1;
		i++;
	}
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
	"numbers (bytes, bytes/s; limits \"max\" or a number), and the root's\n"
	"interference latencies and state. The keys are stable: new keys may be\n"
	"added, none renamed. --json: one object {\"mount\", \"interference\",\n"
	"\"groups\": [{\"group\": NAME, KEY: VALUE...}]}; numbers are JSON numbers,\n"
	"\"max\" and words are strings. --csv: a header line, then one line per\n"
	"group (columns group,KEY...; root groups leave priority and limits empty).\n"
	"Default: a table like --csv with spaces.\n";

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

static int cmd_status(int argc, char **argv)
{
	enum { TABLE, JSON, CSV } fmt = TABLE;
	struct tgroup_interference in;
	struct kv kv[MAX_KV];
	struct tgroup *tg;
	char **names;
	size_t ng;
	int r;

	if (wants_help(argc, argv)) {
		fputs(help_status, stdout);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			fmt = JSON;
		else if (!strcmp(argv[i], "--csv"))
			fmt = CSV;
		else
			return usage_err("status", "unexpected argument");
	}
	raw_bytes = 1;
	tg = tgctl_open();
	if (!tg)
		return 1;
	r = tgroup_read_interference(tg, &in);
	if (r) {
		tgctl_err(tg, r, "status: tgroup.interference");
		goto out;
	}
	r = tgroup_list(tg, &names, &ng);
	if (r) {
		tgctl_err(tg, r, "status");
		goto out;
	}
	if (fmt == JSON) {
		printf("{\"mount\":\"%s\",\"interference\":{\"dram_read_lat_ns\":%" PRIu64
		       ",\"dram_write_lat_ns\":%" PRIu64 ",\"nvm_read_lat_ns\":%" PRIu64
		       ",\"nvm_write_lat_ns\":%" PRIu64 ",\"state\":\"%s\"},\"groups\":[",
		       tgroup_mount_path(tg), in.lat_ns[0], in.lat_ns[1], in.lat_ns[2], in.lat_ns[3], in.state);
	} else {
		const char *sep = fmt == CSV ? "," : " ";

		if (fmt == TABLE)
			printf("# interference dram_read_lat_ns=%" PRIu64 " dram_write_lat_ns=%" PRIu64
			       " nvm_read_lat_ns=%" PRIu64 " nvm_write_lat_ns=%" PRIu64 " state=%s\n",
			       in.lat_ns[0], in.lat_ns[1], in.lat_ns[2], in.lat_ns[3], in.state);
		printf("group");
		for (int c = 0; c < NR_COLS; c++)
			printf("%s%s", sep, status_cols[c]);
		printf("\n");
	}
	for (size_t g = 0; g <= ng; g++) {
		const char *name = g == 0 ? "/" : names[g - 1];
		int n = collect(tg, name, kv, MAX_KV), first = 1;

		if (n < 0) {
			if (g && n == -ENOENT)	/* removed meanwhile */
				continue;
			tgctl_err(tg, n, "status %s", name);
			r = n;
			break;
		}
		if (fmt == JSON) {
			printf("%s{\"group\":\"%s\"", g ? "," : "", name);
			for (int c = 0; c < NR_COLS; c++) {
				const char *v = lookup(kv, n, status_cols[c]);

				if (!v)
					continue;
				printf(is_number(v) ? ",\"%s\":%s" : ",\"%s\":\"%s\"", status_cols[c], v);
			}
			printf("}");
			continue;
		}
		printf("%s", name);
		for (int c = 0; c < NR_COLS; c++) {
			const char *v = lookup(kv, n, status_cols[c]);

			printf("%s%s", fmt == CSV ? "," : " ", v ? v : (fmt == CSV ? "" : "-"));
		}
		(void)first;
		printf("\n");
	}
	if (fmt == JSON)
		printf("]}\n");
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
	struct tgroup *tg;
	char *s, buf[4096];
	size_t n = 0;
	int r;

	if (wants_help(argc, argv)) {
		fputs(help_config, stdout);
		return 0;
	}
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
	int i = 1;

	mount_path = getenv("TGROUP_MOUNT");
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if ((!strcmp(argv[i], "-m") || !strcmp(argv[i], "--mount")) && i + 1 < argc) {
			mount_path = argv[i + 1];
			i += 2;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].fn(argc - i, argv + i);
	fprintf(stderr, "tgctl: unknown command \"%s\"\n", argv[i]);
	usage(stderr);
	return 2;
}
