/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu.h - perf PMUs as sysfs describes them (/sys/bus/event_source/devices/
 * NAME/{type,cpumask,format/,events/}), and system-wide counting on them.
 */
#ifndef TGCTL_PMU_H
#define TGCTL_PMU_H

#include <stddef.h>
#include <stdint.h>

#define PMU_EVSRC "/sys/bus/event_source/devices"

/*
 * The config of a named event of a PMU directory: its events/NAME string
 * ("event=0x04,umask=0x03") placed by its format/ files ("config:0-7",
 * "config:8-15"). Only config fields are supported (config1/config2 terms
 * fail, with the reason): pmu_encode() places those. 0, or -1 with why.
 */
int pmu_event_config(const char *dev, const char *event, uint64_t *config, char *why, size_t n);

/*
 * Terms as perf writes them ("event=0x2a,umask=0x1,offcore_rsp=0x104004477")
 * placed by the PMU's format/ files into cfg[0..2] (config, config1,
 * config2). A field may have several ranges ("config:0-7,32-35"): the
 * value's low bits fill its lowest bits first, as perf does. 0, or -1 with
 * why (a term without a format/ file, a value wider than its field).
 */
int pmu_encode(const char *dev, const char *terms, uint64_t cfg[3], char *why, size_t n);

/* the PMU's type (its type file); 0 or -1 with why */
int pmu_type(const char *dev, uint32_t *type, char *why, size_t n);

/* the first CPU of the PMU's cpumask (one per socket for uncore; 0 if no cpumask) */
int pmu_first_cpu(const char *dev);

/* a system-wide counter on one CPU (perf_event_open pid -1); fd or -1 with why */
int pmu_open(uint32_t type, uint64_t config, int cpu, char *why, size_t n);

/* the counter's value; 0 or -1 */
int pmu_read(int fd, uint64_t *v);

/* kHz of a clock that ticked `ticks` times in `ns` nanoseconds (0 if ns is 0 or it overflows) */
uint64_t pmu_khz(uint64_t ticks, uint64_t ns);

#endif
