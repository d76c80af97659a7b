/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tg_parse.h - strict parsers and formatters for every writable tgroup file.
 *
 * Every parser takes the raw bytes of one write(2) (not NUL-terminated),
 * is all-or-nothing (outputs are written only on success) and on failure
 * returns -1 and points *msg at a static one-line explanation suitable for
 * last_cmd_status. A single trailing newline is accepted, never required.
 */
#ifndef TG_PARSE_H
#define TG_PARSE_H

#include "tg_compat.h"

enum tg_priority {
	TG_PRIO_LOW = 0,
	TG_PRIO_HIGH = 1,
};

/* The four bandwidth kinds, in the order the files print them. */
enum tg_kind {
	TG_DRAM_READ,
	TG_DRAM_WRITE,
	TG_NVM_READ,
	TG_NVM_WRITE,
	TG_NR_KINDS,
};

/* bytes/s (or bytes) per kind */
struct tg_bw {
	u64 v[TG_NR_KINDS];
};

/* A limit of TG_UNLIMITED prints and parses as "max". */
#define TG_UNLIMITED U64_MAX

struct tg_limits {
	u64 bps[TG_NR_KINDS];
};

/*
 * The writable settings of tgroup.config. Every field is one key=value
 * (see tg_config_keys in parse.c for names and ranges); switches are 0/1.
 */
struct tg_config {
	u32 period_ms;			/* regulation period */
	u32 enabled;			/* master switch of the regulator */
	u32 preventive;			/* limits policy */
	u32 remedial;			/* noisy-neighbour policy */
	u64 threshold_ns[TG_NR_KINDS];	/* interference thresholds by kind */
	u32 low_pct;			/* detector leaves below threshold * low_pct % */
	u32 quiet_periods;		/* ... for this many periods */
	u32 relax_periods;		/* periods between relax steps */
	u32 law;			/* remedial law: 0 window, 1 block mean */
	u32 perf_type;			/* perf event type of the OCR events */
	u64 ocr_config[2];		/* raw config: [0] DRAM read, [1] NVM read */
	u64 ocr_config1[2];		/* their config1 (response MSR value) */
	u32 uncore_type;		/* perf type of the memory controller PMU */
	/* DRAM occupancy, DRAM inserts, NVM occupancy, NVM inserts */
	u64 uncore_config[4];
	u32 uncore_khz;			/* uncore clock */
	u32 store_type;			/* perf type of the precise store event */
	u64 store_config;		/* its config (0: store sampling off) */
	u64 store_period;		/* stores per sample */
};

#define TG_PERIOD_MS_MIN	1
#define TG_PERIOD_MS_MAX	1000
#define TG_PERIOD_MS_DEFAULT	10

/*
 * The remedial law (docs/control-law.md): TG_LAW_MEAN judges each search
 * step on the mean latency of a block (reg_mean.c, the default);
 * TG_LAW_WINDOW, the law before it, on a window of dead_periods and on
 * periods in a row over the threshold (reg_remedial.c).
 */
#define TG_LAW_WINDOW		0
#define TG_LAW_MEAN		1
#define TG_LAW_DEFAULT		TG_LAW_MEAN

/* Largest pid the kernel can hand out (PID_MAX_LIMIT on 64-bit). */
#define TG_PID_MAX		(4 * 1024 * 1024)

/* Key names of tgroup.limit / tgroup.bandwidth, indexed by enum tg_kind. */
extern const char *const tg_limit_keys[TG_NR_KINDS];

int tg_parse_u64(const char *s, size_t len, u64 *out, const char **msg);
int tg_parse_pid(const char *buf, size_t len, s32 *pid, const char **msg);
int tg_parse_priority(const char *buf, size_t len, enum tg_priority *prio,
		      const char **msg);
int tg_parse_limits(const char *buf, size_t len, struct tg_limits *limits,
		    const char **msg);
int tg_parse_config(const char *buf, size_t len, struct tg_config *cfg,
		    const char **msg);
void tg_config_default(struct tg_config *cfg);
int tg_fmt_config(char *buf, size_t size, const struct tg_config *cfg);
int tg_valid_group_name(const char *name, size_t len, const char **msg);

/*
 * One line written to the inject source (debugfs tgroup/inject):
 *   group=NAME [dram_read_bytes=N] [nvm_read_bytes=N] [mbm_bytes=N]
 *              [dram_store_samples=N] [nvm_store_samples=N]
 *   uncore [dram_rpq_occupancy=N] [dram_rpq_inserts=N] [nvm_rpq_occupancy=N]
 *          [nvm_rpq_inserts=N] [uncore_clock_khz=N]
 *   probe [dram_write_ns=N] [nvm_write_ns=N]
 *   pin group=NAME cpu_quota_us=N   (test control: 0 removes the pin)
 * At least one key=value; each key at most once. v[] is indexed by the
 * TG_INJ_* key of the line's kind; present has bit i for v[i].
 */
enum tg_inject_kind { TG_INJ_GROUP, TG_INJ_UNCORE, TG_INJ_PROBE, TG_INJ_PIN };
enum {
	TG_INJ_DRAM_READ, TG_INJ_NVM_READ, TG_INJ_MBM, TG_INJ_DRAM_SAMPLES,
	TG_INJ_NVM_SAMPLES,
};

enum {
	TG_INJ_DRAM_OCC, TG_INJ_DRAM_INS, TG_INJ_NVM_OCC, TG_INJ_NVM_INS,
	TG_INJ_KHZ,
};

enum { TG_INJ_DRAM_WRITE_NS, TG_INJ_NVM_WRITE_NS };

enum { TG_INJ_PIN_CPU_QUOTA };

/*
 * Largest cpu_quota_us a pin takes: the longest period (TG_PERIOD_MS_MAX,
 * 1 s) on 1024 CPUs. The CPU actuator scales a quota by the measured period
 * length (at most 4 periods) over the nominal one, quota_us * elapsed_us:
 * with this bound that is at most 1.024e9 * 4e6 = 4.1e15, far below 2^64.
 */
#define TG_PIN_QUOTA_US_MAX	(1024ull * TG_PERIOD_MS_MAX * 1000)

struct tg_inject {
	enum tg_inject_kind kind;
	const char *name;	/* group and pin lines: points into the input */
	size_t name_len;
	u32 present;
	u64 v[5];
};

int tg_parse_inject(const char *line, size_t len, struct tg_inject *out,
		    const char **msg);

void tg_limits_init(struct tg_limits *limits);
const char *tg_priority_name(enum tg_priority prio);

/*
 * Formatters write a NUL-terminated line into buf and return its length
 * (without the NUL), or -1 if it would not fit in size bytes.
 */
#define TG_LINE_MAX 160
#define TG_CONFIG_TEXT_MAX 1024
int tg_fmt_limits(char *buf, size_t size, const struct tg_limits *limits);
int tg_fmt_bw(char *buf, size_t size, const struct tg_bw *bw);
int tg_fmt_u64(char *buf, size_t size, u64 v);

#endif /* TG_PARSE_H */
