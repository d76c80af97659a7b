// SPDX-License-Identifier: GPL-2.0
/*
 * pmu.c - named perf events from sysfs, and system-wide counters.
 *
 * The kernel describes each PMU in /sys/bus/event_source/devices/NAME:
 * format/TERM says where a term goes ("config:0-7", "config:8-15",
 * "config:0-63", a single bit "config:21", "config1:0-63" for Intel's
 * offcore_rsp, several ranges "config:0-7,32-35" for AMD's event select),
 * events/EVENT gives the event's terms ("event=0x04,umask=0x03"). perf(1)
 * builds attr.config the same way; terms without "=v" are 1.
 */
#define _GNU_SOURCE
#include <ctype.h>
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

/*
 * A format/ file: "config:0-7", "config1:0-63", "config:21" or several
 * ranges "config:0-7,32-35" (AMD's event select). The field's bits, and
 * which attr word they are in (0 config, 1 config1, 2 config2).
 */
static int parse_format(const char *s, uint64_t *bits, int *word)
{
	static const char *const words[] = { "config:", "config1:", "config2:" };
	char *end;
	int w;

	for (w = 0; w < 3 && strncmp(s, words[w], strlen(words[w])); w++)
		;
	if (w == 3)
		return -1;
	s += strlen(words[w]);
	*bits = 0;
	for (;;) {
		unsigned long a, b;

		errno = 0;
		a = strtoul(s, &end, 10);
		if (errno || end == s || !isdigit((unsigned char)*s))
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (errno || end == s || !isdigit((unsigned char)*s))
				return -1;
		}
		if (a > b || b > 63)
			return -1;
		*bits |= (b == 63 ? ~0ULL : (1ULL << (b + 1)) - 1) & ~((1ULL << a) - 1);
		if (!*end)
			break;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
	*word = w;
	return 0;
}

/*
 * v spread over the set bits of a field, lowest first (perf's
 * pmu_format_value()); -1 if v has more bits than the field.
 */
static int place(uint64_t v, uint64_t bits, uint64_t *out)
{
	uint64_t r = 0;

	for (int bit = 0; bit < 64 && v; bit++) {
		if (!(bits >> bit & 1))
			continue;
		r |= (v & 1) << bit;
		v >>= 1;
	}
	if (v)
		return -1;
	*out = r;
	return 0;
}

/* terms into cfg[]; words: which of config/config1/config2 a term used */
static int encode_terms(const char *dev, const char *label, const char *terms, uint64_t cfg[3],
			unsigned int *words, char *why, size_t n)
{
	char path[512], spec[256], fmt[64], *tok, *save = NULL;

	if (snprintf(spec, sizeof(spec), "%s", terms) >= (int)sizeof(spec)) {
		snprintf(why, n, "%s: terms too long", label);
		return -1;
	}
	cfg[0] = cfg[1] = cfg[2] = 0;
	*words = 0;
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		unsigned long long v = 1;
		uint64_t bits, placed;
		int w;

		if (eq) {
			*eq = '\0';
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end) {
				snprintf(why, n, "%s: bad value in term %s", label, tok);
				return -1;
			}
		}
		snprintf(path, sizeof(path), "%s/format/%s", dev, tok);
		if (read_line(path, fmt, sizeof(fmt))) {
			snprintf(why, n, "%s: term %s has no %s", label, tok, path);
			return -1;
		}
		if (parse_format(fmt, &bits, &w)) {
			snprintf(why, n, "%s: \"%s\" is not a config field this reader supports", path, fmt);
			return -1;
		}
		if (place(v, bits, &placed)) {
			snprintf(why, n, "%s: %s=%#llx does not fit %s", label, tok, v, fmt);
			return -1;
		}
		cfg[w] |= placed;
		*words |= 1u << w;
	}
	return 0;
}

int pmu_encode(const char *dev, const char *terms, uint64_t cfg[3], char *why, size_t n)
{
	char label[600];
	unsigned int words;

	snprintf(label, sizeof(label), "%s \"%s\"", dev, terms);
	return encode_terms(dev, label, terms, cfg, &words, why, n);
}

int pmu_event_config(const char *dev, const char *event, uint64_t *config, char *why, size_t n)
{
	char path[512], spec[256];
	uint64_t cfg[3];
	unsigned int words;

	snprintf(path, sizeof(path), "%s/events/%s", dev, event);
	if (read_line(path, spec, sizeof(spec))) {
		snprintf(why, n, "no %s", path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%s", dev, event);
	if (encode_terms(dev, path, spec, cfg, &words, why, n))
		return -1;
	if (words & ~1u) {
		snprintf(why, n, "%s: a term is in config1/config2, not a config field this reader supports", path);
		return -1;
	}
	*config = cfg[0];
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
