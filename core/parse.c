// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * parse.c - strict, all-or-nothing parsers for the writable tgroup files,
 * and the matching formatters. Freestanding: see tg_compat.h.
 */
#include "tg_parse.h"

const char *const tg_limit_keys[TG_NR_KINDS] = {
	[TG_DRAM_READ]	= "dram_rbps",
	[TG_DRAM_WRITE]	= "dram_wbps",
	[TG_NVM_READ]	= "nvm_rbps",
	[TG_NVM_WRITE]	= "nvm_wbps",
};

static size_t tg_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* true if the len bytes at s spell exactly the NUL-terminated word */
static bool tg_word_eq(const char *s, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!word[i] || word[i] != s[i])
			return false;
	return word[len] == '\0';
}

static bool tg_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Drop one trailing newline: "accepted, not required". */
static size_t tg_chomp(const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return len;
}

/**
 * tg_parse_u64() - parse an unsigned decimal number, nothing else
 * @s:   digits (not NUL-terminated)
 * @len: number of bytes
 * @out: result, written only on success
 * @msg: explanation on failure
 *
 * Return: 0, or -1 for an empty string, a sign, a non-digit or overflow.
 */
int tg_parse_u64(const char *s, size_t len, u64 *out, const char **msg)
{
	u64 v = 0;
	size_t i;

	if (!len) {
		*msg = "empty number";
		return -1;
	}
	if (s[0] == '-') {
		*msg = "negative number";
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9') {
			*msg = "not a decimal number";
			return -1;
		}
		d = (unsigned int)(s[i] - '0');
		if (v > tg_div_u64(U64_MAX - d, 10)) {
			*msg = "number out of range";
			return -1;
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/**
 * tg_parse_pid() - parse one pid/tid as written to cgroup.procs or tasks
 * @buf: the write, one decimal number and an optional trailing newline
 * @len: its length
 * @pid: result (0 means "the writer itself")
 * @msg: explanation on failure
 *
 * Return: 0, or -1 if the input is not exactly one pid in 0..TG_PID_MAX.
 */
int tg_parse_pid(const char *buf, size_t len, s32 *pid, const char **msg)
{
	u64 v;

	len = tg_chomp(buf, len);
	if (tg_parse_u64(buf, len, &v, msg))
		return -1;
	if (v > TG_PID_MAX) {
		*msg = "pid out of range";
		return -1;
	}
	*pid = (s32)v;
	return 0;
}

/**
 * tg_parse_priority() - parse "high" or "low"
 * @buf:  the write
 * @len:  its length
 * @prio: result
 * @msg:  explanation on failure
 *
 * Return: 0 or -1.
 */
int tg_parse_priority(const char *buf, size_t len, enum tg_priority *prio,
		      const char **msg)
{
	len = tg_chomp(buf, len);
	if (tg_word_eq(buf, len, "high")) {
		*prio = TG_PRIO_HIGH;
		return 0;
	}
	if (tg_word_eq(buf, len, "low")) {
		*prio = TG_PRIO_LOW;
		return 0;
	}
	*msg = "priority must be 'high' or 'low'";
	return -1;
}

/**
 * tg_priority_name() - the word tgroup.priority prints
 * @prio: priority
 *
 * Return: "high" or "low".
 */
const char *tg_priority_name(enum tg_priority prio)
{
	return prio == TG_PRIO_HIGH ? "high" : "low";
}

/*
 * One "key=value" token. tg_kv_next() skips separators and returns 1 with
 * the next token, 0 at the end, -1 (with *msg) for a token without '='.
 */
struct tg_kv {
	const char *key, *val;
	size_t klen, vlen;
};

static int tg_kv_next(const char **pos, const char *end, struct tg_kv *kv,
		      const char **msg)
{
	const char *p = *pos, *tok, *eq = NULL;

	while (p < end && tg_is_space(*p))
		p++;
	if (p == end)
		return 0;
	tok = p;
	while (p < end && !tg_is_space(*p)) {
		if (*p == '=' && !eq)
			eq = p;
		p++;
	}
	*pos = p;
	if (!eq || eq == tok) {
		*msg = "expected key=value";
		return -1;
	}
	kv->key = tok;
	kv->klen = (size_t)(eq - tok);
	kv->val = eq + 1;
	kv->vlen = (size_t)(p - eq - 1);
	return 1;
}

/**
 * tg_limits_init() - no limit on any kind (what a new group starts with)
 * @limits: limits to reset
 */
void tg_limits_init(struct tg_limits *limits)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		limits->bps[k] = TG_UNLIMITED;
}

/*
 * A key=value writer's grammar, as data: a key table, the messages for the
 * structural errors, and set() which validates one value into the caller's
 * copy of the settings. Keys are indexes into the table (at most 32).
 */
struct tg_kv_grammar {
	const void *keys;	/* array whose elements start with the name */
	size_t stride;		/* size of one element */
	unsigned int nr;
	int (*set)(void *obj, unsigned int key, const char *val, size_t vlen,
		   const char **msg);
	const char *unknown_msg;
	const char *twice_msg;
	const char *empty_msg;
};

/*
 * Apply every key=value of buf to obj through g->set(). Unknown and
 * repeated keys and input without any pair are errors. obj must be a copy
 * that the caller commits only on success.
 */
static int tg_parse_kv(const char *buf, size_t len,
		       const struct tg_kv_grammar *g, void *obj,
		       const char **msg)
{
	const char *p = buf, *end = buf + len;
	u32 seen = 0;
	struct tg_kv kv;
	unsigned int k;
	int r;

	while ((r = tg_kv_next(&p, end, &kv, msg)) > 0) {
		for (k = 0; k < g->nr; k++)
			if (tg_word_eq(kv.key, kv.klen,
				       *(const char *const *)((const char *)g->keys +
							      k * g->stride)))
				break;
		if (k == g->nr) {
			*msg = g->unknown_msg;
			return -1;
		}
		if (seen & (1u << k)) {
			*msg = g->twice_msg;
			return -1;
		}
		seen |= 1u << k;
		if (g->set(obj, k, kv.val, kv.vlen, msg))
			return -1;
	}
	if (r < 0)
		return -1;
	if (!seen) {
		*msg = g->empty_msg;
		return -1;
	}
	return 0;
}

static int tg_limit_set(void *obj, unsigned int key, const char *val,
			size_t vlen, const char **msg)
{
	struct tg_limits *limits = obj;

	if (tg_word_eq(val, vlen, "max")) {
		limits->bps[key] = TG_UNLIMITED;
		return 0;
	}
	return tg_parse_u64(val, vlen, &limits->bps[key], msg);
}

static const struct tg_kv_grammar tg_limit_grammar = {
	.keys		= tg_limit_keys,
	.stride		= sizeof(tg_limit_keys[0]),
	.nr		= TG_NR_KINDS,
	.set		= tg_limit_set,
	.unknown_msg	= "unknown limit key (dram_rbps dram_wbps nvm_rbps nvm_wbps)",
	.twice_msg	= "limit key given twice",
	.empty_msg	= "no limit given",
};

/**
 * tg_parse_limits() - apply "key=V ..." to a set of limits
 * @buf:    the write: a non-empty subset of dram_rbps, dram_wbps, nvm_rbps,
 *          nvm_wbps, each at most once, V a byte rate or "max"
 * @len:    its length
 * @limits: current limits in, new limits out (unchanged on failure)
 * @msg:    explanation on failure
 *
 * Return: 0 or -1.
 */
int tg_parse_limits(const char *buf, size_t len, struct tg_limits *limits,
		    const char **msg)
{
	struct tg_limits next = *limits;

	if (tg_parse_kv(buf, len, &tg_limit_grammar, &next, msg))
		return -1;
	*limits = next;
	return 0;
}

/* The writable keys of tgroup.config: name, field, range. */
struct tg_config_key {
	const char *name;
	size_t off;		/* of a u32 or u64 field in struct tg_config */
	bool wide;		/* u64 field */
	u64 min, max;
	const char *range_msg;
};

#define TG_CFG_U32(n, field, lo, hi, m) \
	{ n, offsetof(struct tg_config, field), false, lo, hi, m }
#define TG_CFG_U64(n, field, lo, hi, m) \
	{ n, offsetof(struct tg_config, field), true, lo, hi, m }

static const struct tg_config_key tg_config_table[] = {
	TG_CFG_U32("period_ms", period_ms, TG_PERIOD_MS_MIN, TG_PERIOD_MS_MAX,
		   "period_ms must be 1..1000"),
	TG_CFG_U32("enabled", enabled, 0, 1, "enabled must be 0 or 1"),
	TG_CFG_U32("preventive", preventive, 0, 1, "preventive must be 0 or 1"),
	TG_CFG_U32("remedial", remedial, 0, 1, "remedial must be 0 or 1"),
	TG_CFG_U64("dram_read_lat_ns", threshold_ns[TG_DRAM_READ], 1, 10000000,
		   "thresholds must be 1..10000000 ns"),
	TG_CFG_U64("nvm_read_lat_ns", threshold_ns[TG_NVM_READ], 1, 10000000,
		   "thresholds must be 1..10000000 ns"),
	TG_CFG_U64("dram_write_lat_ns", threshold_ns[TG_DRAM_WRITE], 1, 10000000,
		   "thresholds must be 1..10000000 ns"),
	TG_CFG_U64("nvm_write_lat_ns", threshold_ns[TG_NVM_WRITE], 1, 10000000,
		   "thresholds must be 1..10000000 ns"),
	TG_CFG_U32("low_pct", low_pct, 1, 99, "low_pct must be 1..99"),
	TG_CFG_U32("quiet_periods", quiet_periods, 1, 1000,
		   "quiet_periods must be 1..1000"),
	TG_CFG_U32("relax_periods", relax_periods, 1, 1000,
		   "relax_periods must be 1..1000"),
	TG_CFG_U32("law", law, 0, 1,
		   "law must be 0 (window) or 1 (block mean)"),
	TG_CFG_U32("perf_type", perf_type, 0, 0xffffffffu,
		   "perf_type must be a 32-bit perf event type"),
	TG_CFG_U64("ocr_dram_read_config", ocr_config[0], 0, U64_MAX, ""),
	TG_CFG_U64("ocr_nvm_read_config", ocr_config[1], 0, U64_MAX, ""),
	TG_CFG_U64("ocr_dram_read_config1", ocr_config1[0], 0, U64_MAX, ""),
	TG_CFG_U64("ocr_nvm_read_config1", ocr_config1[1], 0, U64_MAX, ""),
	TG_CFG_U32("uncore_type", uncore_type, 0, 0xffffffffu,
		   "uncore_type must be a 32-bit perf event type"),
	TG_CFG_U64("uncore_dram_occupancy_config", uncore_config[0], 0, U64_MAX, ""),
	TG_CFG_U64("uncore_dram_inserts_config", uncore_config[1], 0, U64_MAX, ""),
	TG_CFG_U64("uncore_nvm_occupancy_config", uncore_config[2], 0, U64_MAX, ""),
	TG_CFG_U64("uncore_nvm_inserts_config", uncore_config[3], 0, U64_MAX, ""),
	TG_CFG_U32("uncore_khz", uncore_khz, 1, 10000000, "uncore_khz must be 1..10000000"),
	TG_CFG_U32("store_sample_type", store_type, 0, 0xffffffffu,
		   "store_sample_type must be a 32-bit perf event type"),
	TG_CFG_U64("store_sample_config", store_config, 0, U64_MAX, ""),
	TG_CFG_U64("store_sample_period", store_period, 1000, U64_MAX,
		   "store_sample_period must be at least 1000"),
};

#define TG_NR_CFG_KEYS ARRAY_SIZE(tg_config_table)

static void *tg_config_field(const struct tg_config *cfg, unsigned int key)
{
	return (char *)cfg + tg_config_table[key].off;
}

static int tg_config_set(void *obj, unsigned int key, const char *val,
			 size_t vlen, const char **msg)
{
	const struct tg_config_key *k = &tg_config_table[key];
	u64 v;

	if (tg_parse_u64(val, vlen, &v, msg))
		return -1;
	if (v < k->min || v > k->max) {
		*msg = k->range_msg;
		return -1;
	}
	if (k->wide)
		*(u64 *)tg_config_field(obj, key) = v;
	else
		*(u32 *)tg_config_field(obj, key) = (u32)v;
	return 0;
}

static const struct tg_kv_grammar tg_config_grammar = {
	.keys		= tg_config_table,
	.stride		= sizeof(tg_config_table[0]),
	.nr		= TG_NR_CFG_KEYS,
	.set		= tg_config_set,
	.unknown_msg	= "unknown or read-only config key",
	.twice_msg	= "config key given twice",
	.empty_msg	= "no key=value given",
};

/**
 * tg_parse_config() - apply "key=value ..." to the configuration
 * @buf: the write: one or more key=value pairs separated by spaces or lines
 * @len: its length
 * @cfg: current configuration in, new one out (unchanged on failure)
 * @msg: explanation on failure
 *
 * Keys (each at most once) and ranges: tg_config_table; docs/abi.md.
 *
 * Return: 0 or -1.
 */
int tg_parse_config(const char *buf, size_t len, struct tg_config *cfg,
		    const char **msg)
{
	struct tg_config next = *cfg;

	if (tg_parse_kv(buf, len, &tg_config_grammar, &next, msg))
		return -1;
	*cfg = next;
	return 0;
}

/* ---- inject lines -------------------------------------------------------- */

static const char *const tg_inj_group_keys[] = {
	[TG_INJ_DRAM_READ] = "dram_read_bytes", [TG_INJ_NVM_READ] = "nvm_read_bytes",
	[TG_INJ_MBM] = "mbm_bytes", [TG_INJ_DRAM_SAMPLES] = "dram_store_samples",
	[TG_INJ_NVM_SAMPLES] = "nvm_store_samples",
};

static const char *const tg_inj_uncore_keys[] = {
	[TG_INJ_DRAM_OCC] = "dram_rpq_occupancy", [TG_INJ_DRAM_INS] = "dram_rpq_inserts",
	[TG_INJ_NVM_OCC] = "nvm_rpq_occupancy", [TG_INJ_NVM_INS] = "nvm_rpq_inserts",
	[TG_INJ_KHZ] = "uncore_clock_khz",
};

static const char *const tg_inj_probe_keys[] = {
	[TG_INJ_DRAM_WRITE_NS] = "dram_write_ns", [TG_INJ_NVM_WRITE_NS] = "nvm_write_ns",
};

static const char *const tg_inj_pin_keys[] = {
	[TG_INJ_PIN_CPU_QUOTA] = "cpu_quota_us",
};

static int tg_inject_set(void *obj, unsigned int key, const char *val,
			 size_t vlen, const char **msg)
{
	struct tg_inject *in = obj;

	if (tg_parse_u64(val, vlen, &in->v[key], msg))
		return -1;
	if (in->kind == TG_INJ_PIN && in->v[key] > TG_PIN_QUOTA_US_MAX) {
		*msg = "cpu_quota_us above 1024000000 (1000 ms on 1024 CPUs)";
		return -1;
	}
	in->present |= 1u << key;
	return 0;
}

#define TG_INJ_MSGS						\
	.set = tg_inject_set,					\
	.unknown_msg = "unknown inject key",			\
	.twice_msg = "inject key given twice",			\
	.empty_msg = "inject line without counters"

static const struct tg_kv_grammar tg_inj_grammar[] = {
	[TG_INJ_GROUP] = {
		.keys = tg_inj_group_keys, .stride = sizeof(char *),
		.nr = ARRAY_SIZE(tg_inj_group_keys), TG_INJ_MSGS,
	},
	[TG_INJ_UNCORE] = {
		.keys = tg_inj_uncore_keys, .stride = sizeof(char *),
		.nr = ARRAY_SIZE(tg_inj_uncore_keys), TG_INJ_MSGS,
	},
	[TG_INJ_PROBE] = {
		.keys = tg_inj_probe_keys, .stride = sizeof(char *),
		.nr = ARRAY_SIZE(tg_inj_probe_keys), TG_INJ_MSGS,
	},
	[TG_INJ_PIN] = {
		.keys = tg_inj_pin_keys, .stride = sizeof(char *),
		.nr = ARRAY_SIZE(tg_inj_pin_keys), TG_INJ_MSGS,
	},
};

/* the next whitespace-separated token of [*p, end) */
static size_t tg_token(const char **p, const char *end, const char **tok)
{
	while (*p < end && tg_is_space(**p))
		(*p)++;
	*tok = *p;
	while (*p < end && !tg_is_space(**p))
		(*p)++;
	return (size_t)(*p - *tok);
}

/* "group=NAME" with a valid name */
static int tg_group_token(const char *tok, size_t tlen, struct tg_inject *in,
			  const char **msg)
{
	if (tlen <= 6 || !tg_word_eq(tok, 6, "group=")) {
		*msg = "expected group=NAME";
		return -1;
	}
	in->name = tok + 6;
	in->name_len = tlen - 6;
	return tg_valid_group_name(in->name, in->name_len, msg);
}

/**
 * tg_parse_inject() - parse one line for the inject source
 * @line: the line, without its newline
 * @len:  its length
 * @out:  the parsed line (name points into @line)
 * @msg:  explanation on failure
 *
 * Return: 0 or -1.
 */
int tg_parse_inject(const char *line, size_t len, struct tg_inject *out,
		    const char **msg)
{
	const char *p = line, *end = line + len, *tok;
	struct tg_inject next = { .present = 0 };
	size_t tlen;

	tlen = tg_token(&p, end, &tok);
	if (tg_word_eq(tok, tlen, "uncore")) {
		next.kind = TG_INJ_UNCORE;
	} else if (tg_word_eq(tok, tlen, "probe")) {
		next.kind = TG_INJ_PROBE;
	} else if (tg_word_eq(tok, tlen, "pin")) {
		next.kind = TG_INJ_PIN;
		tlen = tg_token(&p, end, &tok);
		if (tg_group_token(tok, tlen, &next, msg))
			return -1;
	} else if (tlen > 6 && tg_word_eq(tok, 6, "group=")) {
		next.kind = TG_INJ_GROUP;
		if (tg_group_token(tok, tlen, &next, msg))
			return -1;
	} else {
		*msg = "inject line must start with group=NAME, uncore, probe or pin";
		return -1;
	}
	if (tg_parse_kv(p, (size_t)(end - p), &tg_inj_grammar[next.kind], &next, msg))
		return -1;
	*out = next;
	return 0;
}

/**
 * tg_valid_group_name() - check a group directory name
 * @name: the name (not necessarily NUL-terminated)
 * @len:  its length
 * @msg:  explanation on failure
 *
 * Return: 0 for 1..64 bytes of [A-Za-z0-9._-] other than "." and "..", else -1.
 */
int tg_valid_group_name(const char *name, size_t len, const char **msg)
{
	size_t i;

	if (len < 1 || len > 64) {
		*msg = "group name must be 1..64 bytes";
		return -1;
	}
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) {
			*msg = "group name may only use [A-Za-z0-9._-]";
			return -1;
		}
	}
	if (tg_word_eq(name, len, ".") || tg_word_eq(name, len, "..")) {
		*msg = "group name may not be . or ..";
		return -1;
	}
	return 0;
}

/* Append a string; pos tracks the length, -1 once the buffer is too small. */
static void tg_put(char *buf, size_t size, int *pos, const char *s)
{
	size_t n;

	if (*pos < 0)
		return;
	n = tg_strlen(s);
	if ((size_t)*pos + n + 1 > size) {
		*pos = -1;
		return;
	}
	while (*s)
		buf[(*pos)++] = *s++;
	buf[*pos] = '\0';
}

/**
 * tg_fmt_u64() - decimal representation of v
 * @buf:  output
 * @size: its size
 * @v:    value
 *
 * Return: length written, or -1 if it does not fit.
 */
int tg_fmt_u64(char *buf, size_t size, u64 v)
{
	char tmp[21];
	int n = 0, pos = 0;

	do {
		u32 digit;

		v = tg_div_u64_rem(v, 10, &digit);
		tmp[n++] = (char)('0' + digit);
	} while (v);
	if ((size_t)n + 1 > size)
		return -1;
	while (n)
		buf[pos++] = tmp[--n];
	buf[pos] = '\0';
	return pos;
}

/* "k0=v0 k1=v1 k2=v2 k3=v3\n" with U64_MAX printed as "max" if allowed */
static int tg_fmt_kinds(char *buf, size_t size, const u64 *v,
			bool max_word)
{
	char num[21];
	int pos = 0, k;

	if (!size)
		return -1;
	buf[0] = '\0';
	for (k = 0; k < TG_NR_KINDS; k++) {
		if (k)
			tg_put(buf, size, &pos, " ");
		tg_put(buf, size, &pos, tg_limit_keys[k]);
		tg_put(buf, size, &pos, "=");
		if (max_word && v[k] == TG_UNLIMITED)
			tg_put(buf, size, &pos, "max");
		else if (tg_fmt_u64(num, sizeof(num), v[k]) >= 0)
			tg_put(buf, size, &pos, num);
	}
	tg_put(buf, size, &pos, "\n");
	return pos;
}

/**
 * tg_fmt_limits() - the tgroup.limit line
 * @buf:    output
 * @size:   its size (TG_LINE_MAX always fits)
 * @limits: limits to print
 *
 * Return: length written, or -1 if it does not fit.
 */
int tg_fmt_limits(char *buf, size_t size, const struct tg_limits *limits)
{
	return tg_fmt_kinds(buf, size, limits->bps, true);
}

/**
 * tg_fmt_bw() - the tgroup.bandwidth line
 * @buf:  output
 * @size: its size (TG_LINE_MAX always fits)
 * @bw:   bytes/s per kind
 *
 * Return: length written, or -1 if it does not fit.
 */
int tg_fmt_bw(char *buf, size_t size, const struct tg_bw *bw)
{
	return tg_fmt_kinds(buf, size, bw->v, false);
}

/**
 * tg_config_default() - the documented defaults of tgroup.config
 * @cfg: configuration to fill
 */
void tg_config_default(struct tg_config *cfg)
{
	cfg->period_ms = TG_PERIOD_MS_DEFAULT;
	cfg->enabled = 1;
	cfg->preventive = 1;
	cfg->remedial = 1;
	cfg->threshold_ns[TG_DRAM_READ] = 200;
	cfg->threshold_ns[TG_NVM_READ] = 700;
	cfg->threshold_ns[TG_DRAM_WRITE] = 250;
	cfg->threshold_ns[TG_NVM_WRITE] = 1500;
	cfg->low_pct = 80;
	cfg->quiet_periods = 3;
	cfg->relax_periods = 5;
	cfg->law = TG_LAW_DEFAULT;
	cfg->perf_type = 4;		/* PERF_TYPE_RAW */
	cfg->ocr_config[0] = 0;		/* unset: tgctl setup resolves them */
	cfg->ocr_config[1] = 0;
	cfg->ocr_config1[0] = 0;	/* 0: the event takes no config1 */
	cfg->ocr_config1[1] = 0;
	cfg->uncore_type = 0;		/* unset: tgctl setup reads it from sysfs */
	cfg->uncore_config[0] = 0;
	cfg->uncore_config[1] = 0;
	cfg->uncore_config[2] = 0;
	cfg->uncore_config[3] = 0;
	cfg->uncore_khz = 2000000;
	cfg->store_type = 4;		/* PERF_TYPE_RAW */
	cfg->store_config = 0;		/* unset: tgctl setup (mem_inst_retired.all_stores) */
	cfg->store_period = 20011;	/* prime: no lockstep with loops */
}

/**
 * tg_fmt_config() - the writable part of tgroup.config, one key=value a line
 * @buf:  output
 * @size: its size (TG_CONFIG_TEXT_MAX always fits)
 * @cfg:  configuration
 *
 * Return: length written, or -1 if it does not fit.
 */
int tg_fmt_config(char *buf, size_t size, const struct tg_config *cfg)
{
	char num[21];
	unsigned int i;
	int pos = 0;

	if (!size)
		return -1;
	buf[0] = '\0';
	for (i = 0; i < TG_NR_CFG_KEYS; i++) {
		const struct tg_config_key *k = &tg_config_table[i];
		u64 v = k->wide ? *(u64 *)tg_config_field(cfg, i)
				: *(u32 *)tg_config_field(cfg, i);

		tg_fmt_u64(num, sizeof(num), v);
		tg_put(buf, size, &pos, k->name);
		tg_put(buf, size, &pos, "=");
		tg_put(buf, size, &pos, num);
		tg_put(buf, size, &pos, "\n");
	}
	return pos;
}
