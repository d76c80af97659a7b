// SPDX-License-Identifier: GPL-2.0
/*
 * pmu.c - named perf events from sysfs, and system-wide counters.
 *
 * The kernel describes each PMU in /sys/bus/event_source/devices/NAME:
 * format/TERM says where a term goes ("config:0-7", "config:8-15",
 * "config:0-63" or a single bit "config:21"), events/EVENT gives the
 * event's terms ("event=0x04,umask=0x03"). perf(1) builds attr.config the
 * same way; terms without "=v" are 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu.h"

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "config:LO-HI" or "config:BIT" -> lo, hi */
static int parse_format(const char *s, unsigned int *lo, unsigned int *hi)
{
	char *end;
	unsigned long a, b;

	if (strncmp(s, "config:", 7))
		return -1;
	s += 7;
	errno = 0;
	a = strtoul(s, &end, 10);
	if (errno || end == s)
		return -1;
	b = a;
	if (*end == '-') {
		s = end + 1;
		b = strtoul(s, &end, 10);
		if (errno || end == s)
			return -1;
	}
	if (*end || a > b || b > 63)
		return -1;
	*lo = (unsigned int)a;
	*hi = (unsigned int)b;
	return 0;
}

int pmu_event_config(const char *dev, const char *event, uint64_t *config, char *why, size_t n)
{
	char path[512], spec[256], fmt[64], *tok, *save = NULL;
	uint64_t cfg = 0;

	snprintf(path, sizeof(path), "%s/events/%s", dev, event);
	if (read_line(path, spec, sizeof(spec))) {
		snprintf(why, n, "no %s", path);
		return -1;
	}
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		unsigned long long v = 1;
		unsigned int lo, hi, width;

		if (eq) {
			*eq = '\0';
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end) {
				snprintf(why, n, "%s/events/%s: bad value in term %s", dev, event, tok);
				return -1;
			}
		}
		snprintf(path, sizeof(path), "%s/format/%s", dev, tok);
		if (read_line(path, fmt, sizeof(fmt))) {
			snprintf(why, n, "%s/events/%s: term %s has no %s", dev, event, tok, path);
			return -1;
		}
		if (parse_format(fmt, &lo, &hi)) {
			snprintf(why, n, "%s: \"%s\" is not a config field this reader supports", path, fmt);
			return -1;
		}
		width = hi - lo + 1;
		if (width < 64 && v >> width) {
			snprintf(why, n, "%s/events/%s: %s=%#llx does not fit %s", dev, event, tok, v, fmt);
			return -1;
		}
		cfg |= (uint64_t)v << lo;
	}
	*config = cfg;
	return 0;
}

int pmu_type(const char *dev, uint32_t *type, char *why, size_t n)
{
	char path[512], line[32], *end;
	unsigned long v;

	snprintf(path, sizeof(path), "%s/type", dev);
	if (read_line(path, line, sizeof(line))) {
		snprintf(why, n, "no %s", path);
		return -1;
	}
	errno = 0;
	v = strtoul(line, &end, 10);
	if (errno || end == line || *end || v > UINT32_MAX) {
		snprintf(why, n, "%s: \"%s\" is not a perf type", path, line);
		return -1;
	}
	*type = (uint32_t)v;
	return 0;
}

int pmu_first_cpu(const char *dev)
{
	char path[512], line[256];

	snprintf(path, sizeof(path), "%s/cpumask", dev);
	if (read_line(path, line, sizeof(line)))
		return 0;
	return atoi(line);
}

int pmu_open(uint32_t type, uint64_t config, int cpu, char *why, size_t n)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		snprintf(why, n, "perf_event_open(type %" PRIu32 ", config %#" PRIx64 ", cpu %d): %s",
			 type, config, cpu, strerror(errno));
	return fd;
}

int pmu_read(int fd, uint64_t *v)
{
	return read(fd, v, sizeof(*v)) == (ssize_t)sizeof(*v) ? 0 : -1;
}

uint64_t pmu_khz(uint64_t ticks, uint64_t ns)
{
	unsigned __int128 k;

	if (!ns)
		return 0;
	k = (unsigned __int128)ticks * 1000000u / ns;
	return k > UINT64_MAX ? 0 : (uint64_t)k;
}
