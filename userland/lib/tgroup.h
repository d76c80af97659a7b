/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtgroup - a small C library over the tgroup filesystem (docs/abi.md).
 *
 * Every call works on a handle opened on a mount of the tgroup filesystem
 * (default /sys/fs/tgroup). A group is named by its directory name; NULL,
 * "" or "/" names the root group.
 *
 * Errors: every int-returning call returns 0 on success and -errno on
 * failure, and also leaves that errno in errno. When the failure came from
 * the kernel (a write, mkdir or rmdir the module refused), the handle keeps
 * the module's explanation: tgroup_last_status() returns it (the text of
 * last_cmd_status read right after the failure, e.g.
 * "tgroup.limit: negative number"). last_cmd_status is global to the
 * mount, like resctrl's: another writer may overwrite it in between, and
 * failures the VFS decides alone (EEXIST, EACCES, ENOENT) leave it at an
 * earlier value; the library then reports the reason only if it is not
 * "ok", and tgroup_strerror() formats "strerror: status". Failures found by
 * the library itself (a bad group name, a malformed file) set a status
 * starting with "libtgroup: ".
 *
 * Not thread-safe per handle (the status buffer); use one handle per thread.
 */
#ifndef LIBTGROUP_H
#define LIBTGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TGROUP_DEFAULT_MOUNT "/sys/fs/tgroup"
/* a limit or quota of "max" (no limit) */
#define TGROUP_MAX UINT64_MAX
#define TGROUP_NAME_MAX 64

struct tgroup;

enum tgroup_priority {
	TGROUP_PRIO_LOW = 0,
	TGROUP_PRIO_HIGH = 1,
};

/* tgroup.limit; bytes per second or TGROUP_MAX */
enum tgroup_kind {
	TGROUP_DRAM_READ = 0,
	TGROUP_DRAM_WRITE,
	TGROUP_NVM_READ,
	TGROUP_NVM_WRITE,
	TGROUP_NR_KINDS,
};

/* the file keys of each kind, in tgroup_kind order */
extern const char *const tgroup_limit_keys[TGROUP_NR_KINDS];	/* dram_rbps ... */

struct tgroup_limits {
	uint64_t bps[TGROUP_NR_KINDS];
	/* tgroup_set_limits(): bit (1 << kind) set = write that key */
	unsigned int mask;
};

/* tgroup.bandwidth: bytes per second over the last 1 s window */
struct tgroup_bandwidth {
	uint64_t bps[TGROUP_NR_KINDS];
};

#define TGROUP_WORD 24
/* tgroup.stat (keys the library does not know are skipped) */
struct tgroup_stat {
	uint64_t bytes[TGROUP_NR_KINDS];	/* dram_read_bytes ... nvm_write_bytes */
	uint64_t nr_periods;
	uint64_t nr_throttled;
	uint64_t throttled_usec;
	uint64_t mba_percent;
	uint64_t cpu_quota_usec;	/* TGROUP_MAX: "max" */
	uint64_t cpu_period_usec;
	char last_action[TGROUP_WORD];
	char last_mechanism[TGROUP_WORD];
	char last_reason[TGROUP_WORD];
};

/* tgroup.interference (root only): latencies in ns, detector state */
struct tgroup_interference {
	uint64_t lat_ns[TGROUP_NR_KINDS];	/* dram_read, dram_write, nvm_read, nvm_write */
	char state[TGROUP_WORD];		/* none, dram, nvm, both */
};

/*
 * Open a mount (NULL: TGROUP_DEFAULT_MOUNT). Fails with ENOENT if the
 * directory does not exist, ENODEV if it is not a tgroup mount (it has no
 * last_cmd_status and tgroup.config). Returns NULL and sets errno.
 */
struct tgroup *tgroup_open(const char *mount);
void tgroup_close(struct tgroup *tg);
const char *tgroup_mount_path(const struct tgroup *tg);

/* the module's reason for the last failure of a call on this handle, or "" */
const char *tgroup_last_status(const struct tgroup *tg);
/* "<strerror(err)>" or "<strerror(err)>: <status>"; valid until the next call */
const char *tgroup_strerror(struct tgroup *tg, int err);

/* 1 if name is a valid group name (1-64 of [A-Za-z0-9._-], not . or ..) */
int tgroup_valid_name(const char *name);

int tgroup_create(struct tgroup *tg, const char *group);
int tgroup_remove(struct tgroup *tg, const char *group);
/* 1 if the group exists, 0 if not, -errno on error */
int tgroup_exists(struct tgroup *tg, const char *group);

/*
 * Child group names, sorted; *names is a NULL-terminated array the caller
 * frees with tgroup_free_names().
 */
int tgroup_list(struct tgroup *tg, char ***names, size_t *count);
void tgroup_free_names(char **names);

/* move a process (all threads; cgroup.procs) or one thread (tasks) */
int tgroup_move_pid(struct tgroup *tg, const char *group, pid_t pid);
int tgroup_move_tid(struct tgroup *tg, const char *group, pid_t tid);
/* the group's TGIDs (cgroup.procs); *pids is malloc'ed */
int tgroup_pids(struct tgroup *tg, const char *group, pid_t **pids, size_t *count);

int tgroup_set_priority(struct tgroup *tg, const char *group, enum tgroup_priority p);
int tgroup_get_priority(struct tgroup *tg, const char *group, enum tgroup_priority *p);

/* writes only the kinds in l->mask (EINVAL if the mask is empty) */
int tgroup_set_limits(struct tgroup *tg, const char *group, const struct tgroup_limits *l);
/* reads all four; mask = all */
int tgroup_get_limits(struct tgroup *tg, const char *group, struct tgroup_limits *l);

int tgroup_read_bandwidth(struct tgroup *tg, const char *group, struct tgroup_bandwidth *bw);
int tgroup_read_stat(struct tgroup *tg, const char *group, struct tgroup_stat *st);
int tgroup_read_interference(struct tgroup *tg, struct tgroup_interference *in);

/*
 * tgroup.config: read one key's value (without newline) into buf, ENOENT if
 * the key is not there, ERANGE if buf is too small; write "k=v k=v ..."
 * (all or nothing, in the kernel).
 */
int tgroup_config_get(struct tgroup *tg, const char *key, char *buf, size_t size);
int tgroup_config_set(struct tgroup *tg, const char *settings);

/*
 * Raw access for anything else: read a group's file into a malloc'ed,
 * NUL-terminated buffer; write a string in one write(2).
 */
int tgroup_read_file(struct tgroup *tg, const char *group, const char *file, char **out);
int tgroup_write_file(struct tgroup *tg, const char *group, const char *file, const char *s);

/*
 * Parsers of the file formats, exposed for tools and tests. 0 or -EINVAL
 * (unknown keys in tgroup.stat are skipped; the kv formats need all four).
 */
int tgroup_parse_rates(const char *text, uint64_t out[TGROUP_NR_KINDS], const char *const keys[TGROUP_NR_KINDS]);
int tgroup_parse_stat(const char *text, struct tgroup_stat *st);
int tgroup_parse_interference(const char *text, struct tgroup_interference *in);

/*
 * Human units. tgroup_parse_size() accepts "max" (TGROUP_MAX), or a
 * decimal number with an optional fraction, an optional SI prefix
 * (k/K, M, G, T, P: powers of 1000) or binary prefix (Ki, Mi, Gi, Ti, Pi:
 * powers of 1024), then an optional "B" and an optional "/s" or "ps":
 * "1G", "500M", "2.5GB/s", "1.5GiB", "123". The result must be a whole
 * number of bytes ("1.5" is EINVAL, "1.5k" is 1500) and fit in 64 bits
 * below TGROUP_MAX (ERANGE). No floating point: exact.
 *
 * tgroup_format_size() writes the value with an SI prefix and at most
 * three significant digits, rounded down ("1.5G", "500M", "999", "max"),
 * then suffix (may be NULL; e.g. "B/s"). Returns 1 if the text is exact, 0
 * if digits were dropped, -ERANGE if buf is too small.
 */
int tgroup_parse_size(const char *s, uint64_t *out);
int tgroup_format_size(uint64_t v, const char *suffix, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* LIBTGROUP_H */
