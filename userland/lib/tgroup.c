// SPDX-License-Identifier: LGPL-2.1-or-later
/* libtgroup - see tgroup.h and docs/abi.md. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tgroup.h"

struct tgroup {
	char *mount;
	char status[512];
	char errbuf[600];
};

const char *const tgroup_limit_keys[TGROUP_NR_KINDS] = {
	"dram_rbps", "dram_wbps", "nvm_rbps", "nvm_wbps",
};

static const char *const stat_byte_keys[TGROUP_NR_KINDS] = {
	"dram_read_bytes", "dram_write_bytes", "nvm_read_bytes", "nvm_write_bytes",
};

static const char *const lat_keys[TGROUP_NR_KINDS] = {
	"dram_read_lat_ns", "dram_write_lat_ns", "nvm_read_lat_ns", "nvm_write_lat_ns",
};

static int fail(struct tgroup *tg, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct tgroup *tg, int err, const char *fmt, ...)
{
	va_list ap;

	if (tg && fmt) {
		int n = snprintf(tg->status, sizeof(tg->status), "libtgroup: ");

		va_start(ap, fmt);
		vsnprintf(tg->status + n, sizeof(tg->status) - n, fmt, ap);
		va_end(ap);
	} else if (tg) {
		tg->status[0] = '\0';
	}
	errno = err;
	return -err;
}

/* read a whole file; *out malloc'ed and NUL-terminated; -errno */
static int slurp(const char *path, char **out)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd, e;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(buf);
		return -e;
	}
	for (;;) {
		if (n + 1 >= cap) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				e = ENOMEM;
				goto err;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto err;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	return 0;
err:
	close(fd);
	free(buf);
	return -e;
}

/* after a kernel failure: keep last_cmd_status unless it says "ok" */
static int kfail(struct tgroup *tg, int err)
{
	char path[PATH_MAX], *s = NULL;
	size_t n;

	tg->status[0] = '\0';
	snprintf(path, sizeof(path), "%s/last_cmd_status", tg->mount);
	if (slurp(path, &s) == 0) {
		n = strcspn(s, "\n");
		s[n] = '\0';
		if (strcmp(s, "ok"))
			snprintf(tg->status, sizeof(tg->status), "%s", s);
		free(s);
	}
	errno = err;
	return -err;
}

int tgroup_valid_name(const char *name)
{
	size_t i, n;

	if (!name)
		return 0;
	n = strlen(name);
	if (n < 1 || n > TGROUP_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = name[i];

		if (!isascii(c) || !(isalnum(c) || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

static int is_root(const char *group)
{
	return !group || !group[0] || !strcmp(group, "/");
}

/* the path of a group's file (file NULL: the directory) */
static int gpath(struct tgroup *tg, const char *group, const char *file, char *buf, size_t size)
{
	int n;

	if (!is_root(group) && !tgroup_valid_name(group))
		return fail(tg, EINVAL, "bad group name \"%.80s\"", group);
	if (is_root(group))
		n = snprintf(buf, size, "%s%s%s", tg->mount, file ? "/" : "", file ? file : "");
	else
		n = snprintf(buf, size, "%s/%s%s%s", tg->mount, group, file ? "/" : "", file ? file : "");
	if (n < 0 || (size_t)n >= size)
		return fail(tg, ENAMETOOLONG, "path too long");
	return 0;
}

struct tgroup *tgroup_open(const char *mount)
{
	struct tgroup *tg;
	char path[PATH_MAX];
	struct stat st;

	if (!mount)
		mount = TGROUP_DEFAULT_MOUNT;
	if (stat(mount, &st))
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/last_cmd_status", mount);
	if (access(path, F_OK)) {
		errno = ENODEV;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/tgroup.config", mount);
	if (access(path, F_OK)) {
		errno = ENODEV;
		return NULL;
	}
	tg = calloc(1, sizeof(*tg));
	if (!tg)
		return NULL;
	tg->mount = strdup(mount);
	if (!tg->mount) {
		free(tg);
		errno = ENOMEM;
		return NULL;
	}
	/* no trailing slashes (but keep "/") */
	for (size_t n = strlen(tg->mount); n > 1 && tg->mount[n - 1] == '/'; n--)
		tg->mount[n - 1] = '\0';
	return tg;
}

void tgroup_close(struct tgroup *tg)
{
	if (!tg)
		return;
	free(tg->mount);
	free(tg);
}

const char *tgroup_mount_path(const struct tgroup *tg)
{
	return tg->mount;
}

const char *tgroup_last_status(const struct tgroup *tg)
{
	return tg->status;
}

const char *tgroup_strerror(struct tgroup *tg, int err)
{
	if (err < 0)
		err = -err;
	if (tg->status[0])
		snprintf(tg->errbuf, sizeof(tg->errbuf), "%s: %s", strerror(err), tg->status);
	else
		snprintf(tg->errbuf, sizeof(tg->errbuf), "%s", strerror(err));
	return tg->errbuf;
}

int tgroup_read_file(struct tgroup *tg, const char *group, const char *file, char **out)
{
	char path[PATH_MAX];
	int r;

	r = gpath(tg, group, file, path, sizeof(path));
	if (r)
		return r;
	r = slurp(path, out);
	if (r)
		return fail(tg, -r, NULL);
	tg->status[0] = '\0';
	return 0;
}

int tgroup_write_file(struct tgroup *tg, const char *group, const char *file, const char *s)
{
	char path[PATH_MAX];
	size_t len = strlen(s);
	ssize_t w;
	int fd, r, e;

	r = gpath(tg, group, file, path, sizeof(path));
	if (r)
		return r;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return kfail(tg, errno);
	do
		w = write(fd, s, len);
	while (w < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (w < 0)
		return kfail(tg, e);
	if ((size_t)w != len)
		return fail(tg, EIO, "short write to %s (%zd of %zu)", file, w, len);
	tg->status[0] = '\0';
	return 0;
}

int tgroup_create(struct tgroup *tg, const char *group)
{
	char path[PATH_MAX];
	int r;

	if (is_root(group))
		return fail(tg, EEXIST, "the root group always exists");
	r = gpath(tg, group, NULL, path, sizeof(path));
	if (r)
		return r;
	if (mkdir(path, 0755))
		return kfail(tg, errno);
	tg->status[0] = '\0';
	return 0;
}

int tgroup_remove(struct tgroup *tg, const char *group)
{
	char path[PATH_MAX];
	int r;

	if (is_root(group))
		return fail(tg, EINVAL, "the root group cannot be removed");
	r = gpath(tg, group, NULL, path, sizeof(path));
	if (r)
		return r;
	if (rmdir(path))
		return kfail(tg, errno);
	tg->status[0] = '\0';
	return 0;
}

int tgroup_exists(struct tgroup *tg, const char *group)
{
	char path[PATH_MAX];
	struct stat st;
	int r;

	r = gpath(tg, group, NULL, path, sizeof(path));
	if (r)
		return r;
	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode);
	if (errno == ENOENT)
		return 0;
	return fail(tg, errno, NULL);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void tgroup_free_names(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

int tgroup_list(struct tgroup *tg, char ***names, size_t *count)
{
	size_t n = 0, cap = 16;
	char **v = calloc(cap + 1, sizeof(*v)), **nv;
	struct dirent *de;
	DIR *d;

	if (!v)
		return fail(tg, ENOMEM, NULL);
	d = opendir(tg->mount);
	if (!d) {
		free(v);
		return kfail(tg, errno);
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !tgroup_valid_name(de->d_name))
			continue;
		if (n == cap) {
			nv = realloc(v, (cap * 2 + 1) * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
			cap *= 2;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		v[++n] = NULL;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmpstr);
	*names = v;
	if (count)
		*count = n;
	tg->status[0] = '\0';
	return 0;
nomem:
	closedir(d);
	v[n] = NULL;
	tgroup_free_names(v);
	return fail(tg, ENOMEM, NULL);
}

static int move(struct tgroup *tg, const char *group, const char *file, pid_t pid)
{
	char buf[32];

	if (pid < 0)
		return fail(tg, EINVAL, "negative pid %d", (int)pid);
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	return tgroup_write_file(tg, group, file, buf);
}

int tgroup_move_pid(struct tgroup *tg, const char *group, pid_t pid)
{
	return move(tg, group, "cgroup.procs", pid);
}

int tgroup_move_tid(struct tgroup *tg, const char *group, pid_t tid)
{
	return move(tg, group, "tasks", tid);
}

/* strict unsigned decimal; *end after it */
static int parse_u64(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

int tgroup_pids(struct tgroup *tg, const char *group, pid_t **pids, size_t *count)
{
	size_t n = 0, cap = 0;
	pid_t *v = NULL, *nv;
	const char *p, *end;
	char *text;
	uint64_t id;
	int r;

	r = tgroup_read_file(tg, group, "cgroup.procs", &text);
	if (r)
		return r;
	for (p = text; *p; p = end) {
		if (*p == '\n') {
			end = p + 1;
			continue;
		}
		if (parse_u64(p, &end, &id) || id > INT_MAX || (*end && *end != '\n')) {
			free(text);
			free(v);
			return fail(tg, EINVAL, "malformed cgroup.procs");
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(text);
				free(v);
				return fail(tg, ENOMEM, NULL);
			}
			v = nv;
		}
		v[n++] = (pid_t)id;
	}
	free(text);
	*pids = v;
	*count = n;
	return 0;
}

int tgroup_set_priority(struct tgroup *tg, const char *group, enum tgroup_priority p)
{
	if (p != TGROUP_PRIO_LOW && p != TGROUP_PRIO_HIGH)
		return fail(tg, EINVAL, "priority %d is neither low nor high", (int)p);
	return tgroup_write_file(tg, group, "tgroup.priority", p == TGROUP_PRIO_HIGH ? "high" : "low");
}

int tgroup_get_priority(struct tgroup *tg, const char *group, enum tgroup_priority *p)
{
	char *s;
	int r;

	r = tgroup_read_file(tg, group, "tgroup.priority", &s);
	if (r)
		return r;
	s[strcspn(s, "\n")] = '\0';
	if (!strcmp(s, "high"))
		*p = TGROUP_PRIO_HIGH;
	else if (!strcmp(s, "low"))
		*p = TGROUP_PRIO_LOW;
	else
		r = fail(tg, EINVAL, "tgroup.priority reads \"%.32s\"", s);
	free(s);
	return r;
}

/*
 * "k=V k=V ..." with exactly the four keys given (any order, each once);
 * V is decimal or "max".
 */
int tgroup_parse_rates(const char *text, uint64_t out[TGROUP_NR_KINDS],
		       const char *const keys[TGROUP_NR_KINDS])
{
	unsigned int seen = 0;
	const char *p = text, *end;
	int k;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		for (k = 0; k < TGROUP_NR_KINDS; k++) {
			size_t n = strlen(keys[k]);

			if (!strncmp(p, keys[k], n) && p[n] == '=') {
				p += n + 1;
				break;
			}
		}
		if (k == TGROUP_NR_KINDS || (seen & (1u << k)))
			return -EINVAL;
		if (!strncmp(p, "max", 3)) {
			out[k] = TGROUP_MAX;
			end = p + 3;
		} else if (parse_u64(p, &end, &out[k])) {
			return -EINVAL;
		}
		if (*end && *end != ' ' && *end != '\t' && *end != '\n')
			return -EINVAL;
		seen |= 1u << k;
		p = end;
	}
	return seen == (1u << TGROUP_NR_KINDS) - 1 ? 0 : -EINVAL;
}

int tgroup_set_limits(struct tgroup *tg, const char *group, const struct tgroup_limits *l)
{
	char buf[256];
	size_t n = 0;
	int k;

	if (!(l->mask & ((1u << TGROUP_NR_KINDS) - 1)))
		return fail(tg, EINVAL, "no limit to set");
	for (k = 0; k < TGROUP_NR_KINDS; k++) {
		if (!(l->mask & (1u << k)))
			continue;
		if (l->bps[k] == TGROUP_MAX)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s=max", n ? " " : "", tgroup_limit_keys[k]);
		else
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s=%llu", n ? " " : "", tgroup_limit_keys[k],
				      (unsigned long long)l->bps[k]);
	}
	return tgroup_write_file(tg, group, "tgroup.limit", buf);
}

int tgroup_get_limits(struct tgroup *tg, const char *group, struct tgroup_limits *l)
{
	char *s;
	int r;

	r = tgroup_read_file(tg, group, "tgroup.limit", &s);
	if (r)
		return r;
	if (tgroup_parse_rates(s, l->bps, tgroup_limit_keys))
		r = fail(tg, EINVAL, "malformed tgroup.limit: \"%.100s\"", s);
	else
		l->mask = (1u << TGROUP_NR_KINDS) - 1;
	free(s);
	return r;
}

int tgroup_read_bandwidth(struct tgroup *tg, const char *group, struct tgroup_bandwidth *bw)
{
	char *s;
	int r;

	r = tgroup_read_file(tg, group, "tgroup.bandwidth", &s);
	if (r)
		return r;
	if (tgroup_parse_rates(s, bw->bps, tgroup_limit_keys))
		r = fail(tg, EINVAL, "malformed tgroup.bandwidth: \"%.100s\"", s);
	free(s);
	return r;
}

static void copy_word(char *dst, const char *src, size_t len)
{
	if (len >= TGROUP_WORD)
		len = TGROUP_WORD - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

int tgroup_parse_stat(const char *text, struct tgroup_stat *st)
{
	static const struct {
		const char *key;
		size_t off;
		int max_ok;
	} nums[] = {
		{ "dram_read_bytes", offsetof(struct tgroup_stat, bytes[0]), 0 },
		{ "dram_write_bytes", offsetof(struct tgroup_stat, bytes[1]), 0 },
		{ "nvm_read_bytes", offsetof(struct tgroup_stat, bytes[2]), 0 },
		{ "nvm_write_bytes", offsetof(struct tgroup_stat, bytes[3]), 0 },
		{ "nr_periods", offsetof(struct tgroup_stat, nr_periods), 0 },
		{ "nr_throttled", offsetof(struct tgroup_stat, nr_throttled), 0 },
		{ "throttled_usec", offsetof(struct tgroup_stat, throttled_usec), 0 },
		{ "mba_percent", offsetof(struct tgroup_stat, mba_percent), 0 },
		{ "cpu_quota_usec", offsetof(struct tgroup_stat, cpu_quota_usec), 1 },
		{ "cpu_period_usec", offsetof(struct tgroup_stat, cpu_period_usec), 0 },
	};
	unsigned int seen = 0;
	const char *p = text;

	(void)stat_byte_keys;
	memset(st, 0, sizeof(*st));
	while (*p) {
		const char *key = p, *val, *eol = strchr(p, '\n');
		size_t klen, vlen;
		unsigned int i;

		if (!eol)
			eol = p + strlen(p);
		klen = strcspn(key, " \n");
		if (key[klen] != ' ')
			return -EINVAL;
		val = key + klen + 1;
		vlen = eol - val;
		for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
			const char *end;
			uint64_t *dst = (uint64_t *)((char *)st + nums[i].off);

			if (strlen(nums[i].key) != klen || strncmp(nums[i].key, key, klen))
				continue;
			if (nums[i].max_ok && vlen == 3 && !strncmp(val, "max", 3))
				*dst = TGROUP_MAX;
			else if (parse_u64(val, &end, dst) || end != eol)
				return -EINVAL;
			seen |= 1u << i;
			break;
		}
		if (klen == 11 && !strncmp(key, "last_action", 11))
			copy_word(st->last_action, val, vlen);
		else if (klen == 14 && !strncmp(key, "last_mechanism", 14))
			copy_word(st->last_mechanism, val, vlen);
		else if (klen == 11 && !strncmp(key, "last_reason", 11))
			copy_word(st->last_reason, val, vlen);
		p = *eol ? eol + 1 : eol;
	}
	/* the byte counters and the period count are the least a stat has */
	return (seen & 0x1f) == 0x1f ? 0 : -EINVAL;
}

int tgroup_read_stat(struct tgroup *tg, const char *group, struct tgroup_stat *st)
{
	char *s;
	int r;

	r = tgroup_read_file(tg, group, "tgroup.stat", &s);
	if (r)
		return r;
	if (tgroup_parse_stat(s, st))
		r = fail(tg, EINVAL, "malformed tgroup.stat");
	free(s);
	return r;
}

int tgroup_parse_interference(const char *text, struct tgroup_interference *in)
{
	char line[256];
	const char *nl = strchr(text, '\n');
	size_t n = nl ? (size_t)(nl - text) : strlen(text);
	const char *st;

	if (n >= sizeof(line))
		return -EINVAL;
	memcpy(line, text, n);
	line[n] = '\0';
	if (tgroup_parse_rates(line, in->lat_ns, lat_keys))
		return -EINVAL;
	if (!nl || strncmp(nl + 1, "state=", 6))
		return -EINVAL;
	st = nl + 7;
	n = strcspn(st, "\n");
	if (!n || n >= TGROUP_WORD)
		return -EINVAL;
	copy_word(in->state, st, n);
	return 0;
}

int tgroup_read_interference(struct tgroup *tg, struct tgroup_interference *in)
{
	char *s;
	int r;

	r = tgroup_read_file(tg, NULL, "tgroup.interference", &s);
	if (r)
		return r;
	if (tgroup_parse_interference(s, in))
		r = fail(tg, EINVAL, "malformed tgroup.interference");
	free(s);
	return r;
}

int tgroup_config_get(struct tgroup *tg, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	char *s, *p;
	int r;

	r = tgroup_read_file(tg, NULL, "tgroup.config", &s);
	if (r)
		return r;
	r = fail(tg, ENOENT, "tgroup.config has no key \"%.64s\"", key);
	for (p = s; *p; ) {
		char *eol = strchr(p, '\n');
		size_t n;

		if (!eol)
			eol = p + strlen(p);
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			n = eol - (p + klen + 1);
			if (n + 1 > size) {
				r = fail(tg, ERANGE, "value of %.64s too long", key);
			} else {
				memcpy(buf, p + klen + 1, n);
				buf[n] = '\0';
				tg->status[0] = '\0';
				r = 0;
			}
			break;
		}
		p = *eol ? eol + 1 : eol;
	}
	free(s);
	return r;
}

int tgroup_config_set(struct tgroup *tg, const char *settings)
{
	return tgroup_write_file(tg, NULL, "tgroup.config", settings);
}

/* ---- human units ---- */

int tgroup_parse_size(const char *s, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, fdiv = 1, mult = 1, v;
	const char *p = s;
	int nd = 0, i, pow;

	if (!strcmp(s, "max")) {
		*out = TGROUP_MAX;
		return 0;
	}
	for (; isdigit((unsigned char)*p); p++, nd++) {
		unsigned int d = *p - '0';

		if (whole > (UINT64_MAX - d) / 10)
			return -ERANGE;
		whole = whole * 10 + d;
	}
	if (!nd)
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (fdiv >= 1000000000000000000ULL)
				return -EINVAL;	/* more than 18 decimals */
			frac = frac * 10 + (*p - '0');
			fdiv *= 10;
		}
	}
	pow = 0;
	switch (*p) {
	case 'k': case 'K': pow = 1; break;
	case 'M': pow = 2; break;
	case 'G': pow = 3; break;
	case 'T': pow = 4; break;
	case 'P': pow = 5; break;
	}
	if (pow) {
		unsigned int base = 1000;

		p++;
		if (*p == 'i') {
			base = 1024;
			p++;
		}
		for (i = 0; i < pow; i++)
			mult *= base;
	}
	if (*p == 'B')
		p++;
	if (!strcmp(p, "/s") || !strcmp(p, "ps"))
		p += 2;
	if (*p)
		return -EINVAL;
	if (whole > UINT64_MAX / mult)
		return -ERANGE;
	v = whole * mult;
	if (frac) {
		/* frac/fdiv * mult must be whole: exact with 128-bit math */
		unsigned __int128 f = (unsigned __int128)frac * mult;

		if (f % fdiv)
			return -EINVAL;
		f /= fdiv;
		if (f > UINT64_MAX - v)
			return -ERANGE;
		v += (uint64_t)f;
	}
	if (v == TGROUP_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

int tgroup_format_size(uint64_t v, const char *suffix, char *buf, size_t size)
{
	static const char pfx[] = " kMGTPE";
	uint64_t scale = 1;
	int p = 0, n, exact;

	if (!suffix)
		suffix = "";
	if (v == TGROUP_MAX) {
		n = snprintf(buf, size, "max");
		return n < 0 || (size_t)n >= size ? -ERANGE : 1;
	}
	while (v / scale >= 1000 && p < 6) {
		scale *= 1000;
		p++;
	}
	if (!p) {
		n = snprintf(buf, size, "%llu%s", (unsigned long long)v, suffix);
		exact = 1;
	} else {
		uint64_t ip = v / scale, rem = v % scale, keep, fr;
		int dec = ip >= 100 ? 0 : ip >= 10 ? 1 : 2;
		uint64_t unit = scale;

		for (int i = 0; i < dec; i++)
			unit /= 10;
		fr = rem / unit;	/* the dec digits kept */
		keep = fr * unit;
		exact = keep == rem;
		/* drop trailing zeros of the fraction */
		while (dec && fr % 10 == 0) {
			fr /= 10;
			dec--;
		}
		if (dec)
			n = snprintf(buf, size, "%llu.%0*llu%c%s", (unsigned long long)ip, dec,
				     (unsigned long long)fr, pfx[p], suffix);
		else
			n = snprintf(buf, size, "%llu%c%s", (unsigned long long)ip, pfx[p], suffix);
	}
	if (n < 0 || (size_t)n >= size)
		return -ERANGE;
	return exact;
}
