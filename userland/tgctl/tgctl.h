/* SPDX-License-Identifier: GPL-2.0 */
/* tgctl internals shared by its commands. */
#ifndef TGCTL_H
#define TGCTL_H

#include <stdarg.h>
#include <stddef.h>

#include "tgroup.h"

/* "tgctl: WHAT: strerror (ENAME): last_cmd_status" on stderr */
void tgctl_err(struct tgroup *tg, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* open the mount (-m, $TGROUP_MOUNT or the default); prints why not */
struct tgroup *tgctl_open(void);
/* -m or $TGROUP_MOUNT, or NULL (the default) */
const char *tgctl_mount(void);
void tgctl_set_mount(const char *path);

/* tgroup.config's source_* and actuator_* lines, and max_groups */
#define TGCTL_MAX_PLUGINS 16
struct tgctl_plugin_state {
	char name[32];		/* "perf", "mba" */
	char state[160];	/* "active", "unavailable: ..." */
	int actuator;
};
struct tgctl_states {
	struct tgctl_plugin_state p[TGCTL_MAX_PLUGINS];
	int n;
	unsigned long long max_groups;	/* 0 if not reported */
};
int tgctl_read_states(struct tgroup *tg, struct tgctl_states *s);
/* 1 if the plug-in works: "active" (or an actuator's "published") */
int tgctl_state_up(const struct tgctl_plugin_state *p);
/*
 * 1 if a resctrl filesystem is mounted (its first mount point in where),
 * 0 if not, -errno if mountinfo (NULL: /proc/self/mountinfo) is unreadable
 */
int tgctl_resctrl_mount(const char *mountinfo, char *where, size_t size);

/* now as RFC 3339 UTC with milliseconds: 2024-05-01T10:00:00.123Z */
void tgctl_timestamp(char *buf, size_t size);

int tgctl_apply(int argc, char **argv);

int tgctl_setup(int argc, char **argv);
int tgctl_top(int argc, char **argv);
int tgctl_validate(int argc, char **argv);

#endif
