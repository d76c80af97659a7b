/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ui.h - the tgroup filesystem's file table. cgroup-ui/ reaches the engine
 * only through module/tgroup.h.
 *
 * Every file a group directory has is one struct tg_cftype entry (in the
 * manner of cgroup's cftype and resctrl's rftype): adding a file is adding
 * an entry to tg_files[] in files.c.
 */
#ifndef TG_UI_H
#define TG_UI_H

#include <linux/seq_file.h>

#include "tgroup.h"

/* tg_cftype.flags */
#define TG_CFT_ROOT_ONLY	BIT(0)	/* only in the mount root */
#define TG_CFT_NOT_ROOT		BIT(1)	/* only in child groups */
#define TG_CFT_PIDS		BIT(2)	/* lists the group's thread ids (no show) */
#define TG_CFT_TGIDS		BIT(3)	/* with TG_CFT_PIDS: its process ids */

/* Upper bound on tg_files[] (checked at build time in files.c). */
#define TG_MAX_FILES		16

/* Largest accepted write(2), in bytes. */
#define TG_WRITE_MAX		4096

struct tg_cftype {
	const char *name;
	umode_t mode;
	unsigned int flags;
	/* print the whole file (not for TG_CFT_PIDS: fs.c iterates those) */
	int (*show)(struct seq_file *sf, struct tg_group *grp);
	/*
	 * apply one write: buf is NUL-terminated, len excludes the NUL.
	 * Return 0 or -errno with *msg set for last_cmd_status.
	 */
	int (*write)(struct tg_group *grp, const char *buf, size_t len,
		     const struct file *file, const char **msg);
};

extern const struct tg_cftype tg_files[];
extern const size_t tg_nr_files;

/* cgroup-ui/fs.c */
int tg_fs_init(void);
void tg_fs_exit(void);
bool tg_may_leave(struct tg_group *grp, const struct file *file);

static inline bool tg_cft_applies(const struct tg_cftype *cft,
				  const struct tg_group *grp)
{
	if (tg_is_root(grp))
		return !(cft->flags & TG_CFT_NOT_ROOT);
	return !(cft->flags & TG_CFT_ROOT_ONLY);
}

#endif /* TG_UI_H */
