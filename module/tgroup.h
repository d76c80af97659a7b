/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tgroup.h - the engine's interface to the filesystem (cgroup-ui/).
 *
 * The one header cgroup-ui/ includes from module/, in the manner of
 * include/linux/resctrl.h between fs/resctrl and the arch code: the
 * filesystem owns inodes, directories and the file table; the engine owns
 * groups, membership, the regulation loop and the plug-ins (sources and
 * actuators). A group is opaque here: the files read and change it only
 * through the functions below, which take the engine's locks themselves.
 * Nothing in module/ calls into cgroup-ui/ except through
 * tg_engine_init()'s caller (cgroup-ui/main.c is the module's entry).
 */
#ifndef TGROUP_H
#define TGROUP_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "tg_core.h"

struct file;
struct pid_namespace;
struct tg_group;

#define TG_QUOTA_MAX	U64_MAX

/* --- the engine (module/engine.c) --------------------------------------- */

int tg_engine_init(void);
void tg_engine_exit(void);
void tg_engine_publish(void);
void tg_engine_unpublish(void);
void tg_engine_mount(void);
void tg_engine_unmount(void);

/* last_cmd_status: any context */
#define TG_STATUS_MAX	256
void tg_set_status(const char *fmt, ...) __printf(1, 2);
void tg_set_status_ok(void);
void tg_status_read(char *buf, size_t size);

/* tgroup.config */
void tg_config_read(struct tg_config *cfg);
int tg_config_write(const char *buf, size_t len, const char **msg);

/* the period's phases (tgroup.config period_phases_us=) */
enum { TG_PHASE_COLLECT, TG_PHASE_ESTIMATE, TG_PHASE_REGULATE, TG_PHASE_APPLY, TG_PHASES };

/* the read-only part of tgroup.config */
struct tg_engine_info {
	unsigned int	max_groups;
	s64		inherit_failures;
	u64		period_last_us;
	u64		period_max_us;
	u64		period_phase_us[TG_PHASES];	/* the last, by phase */
};

void tg_engine_info(struct tg_engine_info *info);
#define TG_STATE_LINE_MAX	192	/* one plug-in's line in tgroup.config */
bool tg_plugin_state(unsigned int i, char *line, size_t size);

/* tgroup.interference */
void tg_interference_read(u64 lat_ns[TG_NR_KINDS], enum tg_intf_state *state);

/* --- groups (module/group.c) -------------------------------------------- */

/*
 * tg_mutex serialises group creation and removal: the filesystem holds it
 * from tg_group_alloc() through building the directory to
 * tg_group_activate() (or tg_group_put() on failure), and around
 * tg_group_remove().
 */
extern struct mutex tg_mutex;
extern struct tg_group tg_root_group;

static inline bool tg_is_root(const struct tg_group *grp)
{
	return grp == &tg_root_group;
}

struct tg_group *tg_group_alloc(const char *name, const char **msg);
void tg_group_activate(struct tg_group *grp);
int tg_group_remove(struct tg_group *grp, const char **msg);
void tg_group_get(struct tg_group *grp);
void tg_group_put(struct tg_group *grp);

const char *tg_group_name(const struct tg_group *grp);
enum tg_priority tg_group_priority(struct tg_group *grp);
int tg_group_set_priority(struct tg_group *grp, enum tg_priority prio,
			  const char **msg);
void tg_group_limits(struct tg_group *grp, struct tg_limits *limits);
int tg_group_write_limits(struct tg_group *grp, const char *buf, size_t len,
			  const char **msg);

/* tgroup.stat and tgroup.bandwidth */
struct tg_group_stat {
	struct tg_bw		total;		/* bytes since creation */
	u64			nr_periods;
	u64			nr_throttled;
	u64			throttled_usec;
	u32			mba_percent;
	u32			cpu_period_usec;
	u64			cpu_quota_usec;	/* TG_QUOTA_MAX: none */
	struct tg_decision	last;
};

void tg_group_bandwidth(struct tg_group *grp, struct tg_bw *bps);
void tg_group_stat(struct tg_group *grp, struct tg_group_stat *st);

/* --- membership (module/membership.c) ----------------------------------- */

/*
 * May the opener of @file (cgroup.procs or tasks) move tasks out of @src?
 * The filesystem answers (write permission on @src's file of that name);
 * called in process context with tg_move_mutex held, no spinlock.
 */
typedef bool (*tg_may_leave_fn)(struct tg_group *src, const struct file *file);

int tg_move_pid(struct tg_group *dst, pid_t pid, bool threadgroup,
		const struct file *file, tg_may_leave_fn may_leave,
		const char **msg);
pid_t tg_group_next_pid(struct tg_group *grp, bool tgids,
			struct pid_namespace *ns, pid_t from);

#endif /* TGROUP_H */
