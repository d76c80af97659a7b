// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl validate - check tgroup's bandwidth against independent counters
 * on real hardware (docs/tgctl.md, "validate").
 *
 * Prerequisites are checked and named first. Then two runs in a fresh
 * group: intel-cmt-cat's membw (x86 loads) on one CPU of the DRAM node,
 * its memory bound with numactl to the DRAM node, then to the slow-tier
 * node. Over the same window it reads the group's tgroup.stat bytes, the
 * memory controllers' read requests system-wide (perf, every uncore_imc_N:
 * cas_count_read for DRAM, UNC_M_PMM_RPQ_INSERTS for PMM; 64 B each) and,
 * with resctrl mounted, pqos MBM of the load's core (libpqos in a child,
 * like setup). vcheck.c turns the deltas into the pass/fail table.
 * PAPI is not used (help text says why).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pqos.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmu.h"
#include "tgctl.h"
#include "vcheck.h"

/* UNC_M_PMM_RPQ_INSERTS: EventCode 0xE3, UMask 0 in the CLX, ICX and SPR
 * perf JSON tables (userland/tests/fixtures/perfjson.txt) */
#define PMM_RPQ_INSERTS_EVENT	0xe3
#define VAL_GROUP		"tgctl-validate"
#define VAL_WARMUP_MS		1000	/* membw allocates and touches its buffer first */

static const char help_validate[] =
	"usage: tgctl validate [--seconds N] [--mbps N]\n"
	"Compare tgroup's byte counters with independent counters on real hardware:\n"
	"intel-cmt-cat's membw (--read) on a CPU of the DRAM node, its memory bound\n"
	"with numactl to the DRAM node and then to the slow-tier node, in a fresh group\n"
	"(" VAL_GROUP "), against the memory controllers' read requests system-wide\n"
	"(perf: uncore_imc_*/cas_count_read/ and UNC_M_PMM_RPQ_INSERTS, 64 B each) and\n"
	"pqos MBM of that CPU (only with resctrl mounted). Named tolerances; a\n"
	"pass/fail table per run.\n"
	"  --seconds N   measured window per run (default 5, 1..600)\n"
	"  --mbps N      membw's target bandwidth in MB/s (default 2000)\n"
	"Checks every prerequisite first (ok / MISSING and why); exit 1 if any is\n"
	"missing, 4 if a check failed, 0 if every check passed.\n"
	"PAPI: not used - Debian's libpapi (7.0) reads uncore events through its\n"
	"perf_event_uncore component, i.e. perf_event_open on the same uncore_imc PMUs\n"
	"(the same counters as the iMC row, not an independent measurement), with\n"
	"libpfm4 4.13's names, which have iMC events only for Skylake-X-class uncore.\n";

static int in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		path += n;
		if (*path)
			path++;
	}
	return 0;
}

static int file_has(const char *path)
{
	FILE *f = fopen(path, "r");
	int c = EOF;

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c != EOF && c != '\n';
}

/* nodes: with CPUs and memory (DRAM) and with memory but no CPU (slow tier) */
static void numa_nodes(int *dram, int *slow)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	char p[512];

	*dram = *slow = -1;
	if (!d)
		return;
	while ((e = readdir(d))) {
		int id, cpus, mem = 0;
		FILE *f;
		char line[256];

		if (sscanf(e->d_name, "node%d", &id) != 1)
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/node/%s/cpulist", e->d_name);
		cpus = file_has(p);
		snprintf(p, sizeof(p), "/sys/devices/system/node/%s/meminfo", e->d_name);
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f)) {
			unsigned long kb;

			if (sscanf(line, "Node %*d MemTotal: %lu kB", &kb) == 1)
				mem = kb > 0;
		}
		if (f)
			fclose(f);
		if (cpus && mem && *dram < 0)
			*dram = id;
		else if (!cpus && mem && *slow < 0)
			*slow = id;
	}
	closedir(d);
}

/* uncore_imc_N (not the free-running PMUs), in /sys/bus/event_source/devices */
static int is_imc(const char *name)
{
	const char *p = name + strlen("uncore_imc_");

	if (strncmp(name, "uncore_imc_", strlen("uncore_imc_")) || !*p)
		return 0;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

#define VAL_IMC_MAX 64

struct vctx {
	struct tgroup *tg;
	int dram_node, slow_node, cpu;
	unsigned int mbps;
	pid_t load;
	int imc_fd[2][VAL_IMC_MAX];
	int nimc[2];
	char imc_why[2][700];
	pid_t mbm_pid;
	int mbm_cmd, mbm_rep;
	char mbm_why[200];
};

/* one counter per iMC PMU for each tier's read requests; the reason if none */
static void imc_open(struct vctx *c)
{
	DIR *d = opendir(PMU_EVSRC);
	struct dirent *e;
	char why[600];

	snprintf(c->imc_why[VT_DRAM], sizeof(c->imc_why[0]), "no uncore_imc_N PMU in %s", PMU_EVSRC);
	snprintf(c->imc_why[VT_SLOW], sizeof(c->imc_why[0]), "no uncore_imc_N PMU in %s", PMU_EVSRC);
	while (d && (e = readdir(d))) {
		char dev[300], path[400], fmt[64] = "";
		uint64_t cfg;
		uint32_t type;
		int cpu, fd;
		FILE *f;

		if (!is_imc(e->d_name))
			continue;
		snprintf(dev, sizeof(dev), "%s/%s", PMU_EVSRC, e->d_name);
		if (pmu_type(dev, &type, why, sizeof(why))) {
			snprintf(c->imc_why[0], sizeof(c->imc_why[0]), "%s", why);
			snprintf(c->imc_why[1], sizeof(c->imc_why[1]), "%s", why);
			continue;
		}
		cpu = pmu_first_cpu(dev);
		if (c->nimc[VT_DRAM] >= VAL_IMC_MAX)
			break;
		if (pmu_event_config(dev, "cas_count_read", &cfg, why, sizeof(why)) ||
		    (fd = pmu_open(type, cfg, cpu, why, sizeof(why))) < 0)
			snprintf(c->imc_why[VT_DRAM], sizeof(c->imc_why[0]), "%s", why);
		else
			c->imc_fd[VT_DRAM][c->nimc[VT_DRAM]++] = fd;
		/* the PMM read requests: the raw event code, where format/event is config:0-7 */
		snprintf(path, sizeof(path), "%s/format/event", dev);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(fmt, sizeof(fmt), f))
				fmt[0] = '\0';
			fclose(f);
		}
		if (strcmp(fmt, "config:0-7\n")) {
			snprintf(c->imc_why[VT_SLOW], sizeof(c->imc_why[0]),
				 "%s/format/event is not config:0-7 (UNC_M_PMM_RPQ_INSERTS not placed)", dev);
			continue;
		}
		fd = pmu_open(type, PMM_RPQ_INSERTS_EVENT, cpu, why, sizeof(why));
		if (fd < 0)
			snprintf(c->imc_why[VT_SLOW], sizeof(c->imc_why[0]), "%s", why);
		else
			c->imc_fd[VT_SLOW][c->nimc[VT_SLOW]++] = fd;
	}
	if (d)
		closedir(d);
}

static int v_imc_reads(void *ctx, enum vtier t, uint64_t *count, char *why, size_t n)
{
	struct vctx *c = ctx;
	uint64_t sum = 0, v;

	if (!c->nimc[t]) {
		snprintf(why, n, "%s", c->imc_why[t]);
		return -1;
	}
	for (int i = 0; i < c->nimc[t]; i++) {
		if (pmu_read(c->imc_fd[t][i], &v)) {
			snprintf(why, n, "reading an iMC counter: %s", strerror(errno));
			return -1;
		}
		sum += v;
	}
	*count = sum;
	return 0;
}

static int v_tg_bytes(void *ctx, uint64_t out[VK_NR], char *why, size_t n)
{
	struct vctx *c = ctx;
	struct tgroup_stat st;
	int r = tgroup_read_stat(c->tg, VAL_GROUP, &st);

	if (r) {
		snprintf(why, n, "%s/tgroup.stat: %s", VAL_GROUP, tgroup_strerror(c->tg, r));
		return -1;
	}
	for (int k = 0; k < VK_NR; k++)
		out[k] = st.bytes[k];
	return 0;
}

static void v_wait_ms(void *ctx, unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	(void)ctx;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* membw in the group, on c->cpu, its memory on the tier's node */
static int v_load_start(void *ctx, enum vtier t, char *why, size_t n)
{
	struct vctx *c = ctx;
	char cpu[16], bind[32], mbps[16];
	int st;
	pid_t pid;

	snprintf(cpu, sizeof(cpu), "%d", c->cpu);
	snprintf(bind, sizeof(bind), "--membind=%d", t == VT_DRAM ? c->dram_node : c->slow_node);
	snprintf(mbps, sizeof(mbps), "%u", c->mbps);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		int r = tgroup_move_pid(c->tg, VAL_GROUP, getpid());

		if (r) {
			fprintf(stderr, "tgctl validate: moving the load into %s: %s\n", VAL_GROUP,
				tgroup_strerror(c->tg, r));
			_exit(126);
		}
		if (fd >= 0)
			dup2(fd, 1);
		execlp("numactl", "numactl", "--physcpubind", cpu, bind, "membw", "-c", cpu, "-b", mbps,
		       "--read", (char *)NULL);
		fprintf(stderr, "tgctl validate: numactl: %s\n", strerror(errno));
		_exit(127);
	}
	c->load = pid;
	v_wait_ms(c, VAL_WARMUP_MS);
	if (waitpid(pid, &st, WNOHANG) == pid) {
		c->load = 0;
		snprintf(why, n, "numactl/membw exited during the warm-up (%s %d)",
			 WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -1;
	}
	return 0;
}

static void v_load_stop(void *ctx)
{
	struct vctx *c = ctx;

	if (c->load > 0) {
		kill(c->load, SIGKILL);
		waitpid(c->load, NULL, 0);
		c->load = 0;
	}
}

/* pqos MBM of c->cpu in a child (libpqos 4.5 crashes on some init paths: setup.c) */
static void mbm_child(int cpu, int cmd, int rep)
{
	struct pqos_config cfg;
	struct pqos_mon_data grp, *g = &grp;
	unsigned int core = (unsigned int)cpu;
	uint64_t sum = 0;
	char ok = 'E', x;

	memset(&cfg, 0, sizeof(cfg));
	memset(&grp, 0, sizeof(grp));
	cfg.fd_log = -1;
	cfg.verbose = -1;
	cfg.interface = PQOS_INTER_OS;		/* resctrl is mounted: ask it, mount nothing */
	if (pqos_init(&cfg) == PQOS_RETVAL_OK) {
		if (pqos_mon_start(1, &core, PQOS_MON_EVENT_TMEM_BW, NULL, &grp) == PQOS_RETVAL_OK)
			ok = 'R';
	}
	if (write(rep, &ok, 1) != 1 || ok != 'R')
		_exit(1);
	while (read(cmd, &x, 1) == 1) {
		uint64_t v = UINT64_MAX;

		if (pqos_mon_poll(&g, 1) == PQOS_RETVAL_OK) {
			sum += grp.values.mbm_total_delta;
			v = sum;
		}
		if (write(rep, &v, sizeof(v)) != (ssize_t)sizeof(v))
			break;
	}
	pqos_mon_stop(&grp);
	pqos_fini();
	_exit(0);
}

static void mbm_begin(struct vctx *c)
{
	struct stat st;
	int cmd[2], rep[2];
	char ok = 0;

	c->mbm_pid = 0;
	if (stat("/sys/fs/resctrl/info", &st)) {
		snprintf(c->mbm_why, sizeof(c->mbm_why),
			 "resctrl is not mounted (pqos's MSR interface would share PQR_ASSOC with tgroup's rdt "
			 "source; mount resctrl to compare, tgroup's rdt source then stands down)");
		return;
	}
	if (pipe(cmd) || pipe(rep)) {
		snprintf(c->mbm_why, sizeof(c->mbm_why), "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	c->mbm_pid = fork();
	if (c->mbm_pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		close(cmd[1]);
		close(rep[0]);
		mbm_child(c->cpu, cmd[0], rep[1]);
	}
	close(cmd[0]);
	close(rep[1]);
	c->mbm_cmd = cmd[1];
	c->mbm_rep = rep[0];
	if (c->mbm_pid < 0 || read(c->mbm_rep, &ok, 1) != 1 || ok != 'R') {
		snprintf(c->mbm_why, sizeof(c->mbm_why), "libpqos (OS interface) could not monitor MBM total on cpu %d",
			 c->cpu);
		close(c->mbm_cmd);
		close(c->mbm_rep);
		if (c->mbm_pid > 0)
			waitpid(c->mbm_pid, NULL, 0);
		c->mbm_pid = 0;
	}
}

static int v_mbm_bytes(void *ctx, uint64_t *bytes, char *why, size_t n)
{
	struct vctx *c = ctx;
	uint64_t v;

	if (!c->mbm_pid) {
		snprintf(why, n, "%s", c->mbm_why);
		return -1;
	}
	if (write(c->mbm_cmd, "p", 1) != 1 || read(c->mbm_rep, &v, sizeof(v)) != (ssize_t)sizeof(v) ||
	    v == UINT64_MAX) {
		snprintf(why, n, "pqos_mon_poll failed");
		return -1;
	}
	*bytes = v;
	return 0;
}

static void mbm_end(struct vctx *c)
{
	if (c->mbm_pid > 0) {
		close(c->mbm_cmd);
		close(c->mbm_rep);
		waitpid(c->mbm_pid, NULL, 0);
	}
}

static const struct vops real_ops = {
	.load_start = v_load_start, .load_stop = v_load_stop, .tg_bytes = v_tg_bytes,
	.imc_reads = v_imc_reads, .mbm_bytes = v_mbm_bytes, .wait_ms = v_wait_ms,
};

/* the first CPU of a node (its cpulist), or -1 */
static int node_cpu(int node)
{
	char p[128];
	FILE *f;
	int cpu = -1;

	snprintf(p, sizeof(p), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%d", &cpu) != 1)
			cpu = -1;
		fclose(f);
	}
	return cpu;
}

static int parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static const char *const state_name[] = { [VS_FAIL] = "FAIL", [VS_PASS] = "PASS", [VS_NA] = "n/a" };

int tgctl_validate(int argc, char **argv)
{
	struct vctx c = { .mbps = 2000 };
	unsigned int seconds = 5;
	char val[256], why[300], dev[300], line[800];
	int missing = 0, dram, slow, checks = 0, failed = 0, r;
	uint64_t cfg;

	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' }, { "seconds", required_argument, NULL, 's' },
		{ "mbps", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 },
	};
	int o;

	optind = 0;
	while ((o = getopt_long(argc, argv, "hs:b:", lo, NULL)) != -1) {
		switch (o) {
		case 'h':
			fputs(help_validate, stdout);
			return 0;
		case 's':
			if (parse_uint(optarg, 1, 600, &seconds)) {
				fprintf(stderr, "tgctl validate: --seconds must be 1..600\n");
				return 2;
			}
			break;
		case 'b':
			if (parse_uint(optarg, 1, 1000000, &c.mbps)) {
				fprintf(stderr, "tgctl validate: --mbps must be 1..1000000\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "tgctl validate: see tgctl validate --help\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tgctl validate: unexpected argument \"%s\" (tgctl validate --help)\n", argv[optind]);
		return 2;
	}
#define ROW(st, what, ...) do {							\
	snprintf(line, sizeof(line), __VA_ARGS__);				\
	printf("%-8s %-22s %s\n", st, what, line);				\
} while (0)
#define NEED(okc, what, ...) do {						\
	ROW((okc) ? "ok" : "MISSING", what, __VA_ARGS__);			\
	missing += !(okc);							\
} while (0)
	printf("%-8s %-22s %s\n", "STATUS", "PREREQUISITE", "DETAIL");
	c.tg = tgroup_open(tgctl_mount());
	NEED(c.tg != NULL, "tgroup mount", "%s", c.tg ? tgroup_mount_path(c.tg) : strerror(errno));
	if (c.tg) {
		static const char *const src[] = { "source_perf", "source_uncore" };

		for (int i = 0; i < 2; i++) {
			r = tgroup_config_get(c.tg, src[i], val, sizeof(val));
			NEED(!r && !strcmp(val, "active"), src[i], "%s%s", r ? "not in tgroup.config" : val,
			     !r && strcmp(val, "active") ? " (tgctl setup on a supported CPU)" : "");
		}
		r = tgroup_exists(c.tg, VAL_GROUP);
		NEED(r == 0, "fresh group", "%s%s", VAL_GROUP,
		     r == 0 ? " (created for the run, removed after)" :
		     r > 0 ? " exists (an earlier run?): tgctl rm " VAL_GROUP : ": cannot tell");
	}
	numa_nodes(&dram, &slow);
	c.dram_node = dram;
	c.slow_node = slow;
	c.cpu = dram >= 0 ? node_cpu(dram) : -1;
	if (dram >= 0)
		NEED(c.cpu >= 0, "DRAM node", "node%d, load on cpu %d", dram, c.cpu);
	else
		NEED(0, "DRAM node", "no NUMA node with CPUs and memory");
	if (slow >= 0)
		NEED(1, "slow-tier node", "node%d", slow);
	else
		NEED(0, "slow-tier node", "no memory-only NUMA node (PMM as system-ram via daxctl, or CXL memory)");
	snprintf(dev, sizeof(dev), "%s/uncore_imc_0", PMU_EVSRC);
	if (pmu_event_config(dev, "cas_count_read", &cfg, why, sizeof(why)))
		NEED(0, "iMC PMU", "%s (CAS counts)", why);
	else
		NEED(1, "iMC PMU", "%s/events/cas_count_read = config %#" PRIx64, dev, cfg);
	NEED(in_path("membw"), "membw", "%s", in_path("membw") ? "in PATH" : "not in PATH (apt-get install intel-cmt-cat)");
	NEED(in_path("numactl"), "numactl", "%s", in_path("numactl") ? "in PATH" : "not in PATH (apt-get install numactl)");
	ROW("n/a", "PAPI", "not used: reads the same uncore_imc counters through perf (tgctl validate --help)");
	if (missing) {
		printf("validate: cannot run: %d prerequisite%s missing\n", missing, missing > 1 ? "s" : "");
		if (c.tg)
			tgroup_close(c.tg);
		return 1;
	}
#undef NEED
#undef ROW

	r = tgroup_create(c.tg, VAL_GROUP);
	if (r) {
		tgctl_err(c.tg, r, "validate: mkdir %s", VAL_GROUP);
		tgroup_close(c.tg);
		return 1;
	}
	imc_open(&c);
	mbm_begin(&c);
	printf("\n%-5s %-24s %14s %14s  %-26s %-4s %s\n", "RUN", "CHECK", "TGROUP_B", "REFERENCE_B",
	       "BOUND", "", "NOTE");
	for (int t = VT_DRAM; t <= VT_SLOW; t++) {
		const char *run = t == VT_DRAM ? "dram" : "slow";
		struct vrow rows[VROWS_MAX];
		struct vsample s;
		int n;

		if (vcheck_measure(&real_ops, &c, (enum vtier)t, seconds * 1000, &s, why, sizeof(why))) {
			printf("%-5s %-24s %14s %14s  %-26s %-4s %s\n", run, "run", "-", "-", "-", "FAIL", why);
			checks++;
			failed++;
			continue;
		}
		failed += vcheck_judge((enum vtier)t, &s, rows, &n);
		for (int i = 0; i < n; i++) {
			char ref[24] = "-";

			if (rows[i].has_ref)
				snprintf(ref, sizeof(ref), "%" PRIu64, rows[i].reference);
			printf("%-5s %-24s %14" PRIu64 " %14s  %-26s %-4s %s\n", run, rows[i].check,
			       rows[i].tgroup, ref, rows[i].bound, state_name[rows[i].state], rows[i].note);
			checks += rows[i].state != VS_NA;
		}
	}
	mbm_end(&c);
	for (int t = 0; t < 2; t++)
		for (int i = 0; i < c.nimc[t]; i++)
			close(c.imc_fd[t][i]);
	/* the load is gone; its membership leaves with it */
	for (int i = 0; i < 100 && (r = tgroup_remove(c.tg, VAL_GROUP)) == -EBUSY; i++)
		v_wait_ms(&c, 20);
	if (r)
		tgctl_err(c.tg, r, "validate: rmdir %s", VAL_GROUP);
	tgroup_close(c.tg);
	printf("validate: %s: %d of %d checks failed (%u s per run, membw %u MB/s; tolerances: "
	       "docs/tgctl.md)\n", failed ? "FAIL" : "PASS", failed, checks, seconds, c.mbps);
	return failed ? 4 : 0;
}
