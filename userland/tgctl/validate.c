// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl validate - check tgroup's bandwidth against independent counters
 * on real hardware. This version checks and names the prerequisites; the
 * measurement itself (membw runs, iMC CAS / MBM comparison) is not
 * implemented yet (userland/STATUS.md), and validate says so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tgctl.h"

static const char help_validate[] =
	"usage: tgctl validate\n"
	"Compare tgroup.bandwidth with independent counters on real hardware: known\n"
	"traffic from intel-cmt-cat's membw, pinned with numactl to a DRAM node and to\n"
	"the slow-tier node, against iMC CAS counts (perf, system-wide), MBM (pqos).\n"
	"Checks every prerequisite first and prints a table (ok / MISSING and why);\n"
	"exits 1 if anything is missing. The measurement step is not implemented in\n"
	"this version: with everything present it says so and exits 3.\n";

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

int tgctl_validate(int argc, char **argv)
{
	struct tgroup *tg;
	char val[256], why[300];
	int missing = 0, dram, slow;
	struct stat st;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(help_validate, stdout);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "tgctl validate: unexpected argument (tgctl validate --help)\n");
		return 2;
	}
#define ROW(okc, what, ...) do {						\
	snprintf(why, sizeof(why), __VA_ARGS__);				\
	printf("%-8s %-22s %s\n", (okc) ? "ok" : "MISSING", what, why);	\
	missing += !(okc);							\
} while (0)
	printf("%-8s %-22s %s\n", "STATUS", "PREREQUISITE", "DETAIL");
	tg = tgroup_open(tgctl_mount());
	ROW(tg != NULL, "tgroup mount", "%s", tg ? tgroup_mount_path(tg) : strerror(errno));
	/* (tgroup_mount_path is read before the handle closes below) */
	if (tg) {
		static const char *const src[] = { "source_perf", "source_uncore" };

		for (int i = 0; i < 2; i++) {
			int r = tgroup_config_get(tg, src[i], val, sizeof(val));

			ROW(!r && !strcmp(val, "active"), src[i], "%s%s", r ? "not in tgroup.config" : val,
			    !r && strcmp(val, "active") ? " (tgctl setup on a supported CPU)" : "");
		}
		tgroup_close(tg);
	}
	numa_nodes(&dram, &slow);
	if (dram >= 0)
		ROW(1, "DRAM node", "node%d", dram);
	else
		ROW(0, "DRAM node", "no NUMA node with CPUs and memory");
	if (slow >= 0)
		ROW(1, "slow-tier node", "node%d", slow);
	else
		ROW(0, "slow-tier node", "no memory-only NUMA node (PMM as system-ram via daxctl, or CXL memory)");
	ROW(stat("/sys/bus/event_source/devices/uncore_imc_0", &st) == 0, "iMC PMU",
	    "/sys/bus/event_source/devices/uncore_imc_0%s",
	    stat("/sys/bus/event_source/devices/uncore_imc_0", &st) == 0 ? "" : " absent (CAS counts)");
	ROW(in_path("membw"), "membw", "%s", in_path("membw") ? "in PATH" : "not in PATH (apt-get install intel-cmt-cat)");
	ROW(in_path("numactl"), "numactl", "%s", in_path("numactl") ? "in PATH" : "not in PATH (apt-get install numactl)");
	ROW(in_path("perf"), "perf", "%s", in_path("perf") ? "in PATH" : "not in PATH (apt-get install linux-perf)");
#undef ROW
	if (missing) {
		printf("validate: cannot run: %d prerequisite%s missing\n", missing, missing > 1 ? "s" : "");
		return 1;
	}
	printf("validate: every prerequisite is present, but the measurement step is not implemented in "
	       "this version of tgctl (userland/STATUS.md)\n");
	return 3;
}
