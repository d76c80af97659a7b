// SPDX-License-Identifier: GPL-2.0
/*
 * src_vfs.c - the vfs signal source: bytes that group members write
 * through the VFS to files on DAX (persistent-memory) filesystems.
 *
 * Every write(2), pwrite(2), writev(2), pwritev(2) (and io_uring/aio
 * writes) to a DAX file goes through dax_iomap_rw(), which walks the range
 * with iomap_iter(); the iomap_iter tracepoint (found by name) fires at each
 * step, in the writer's context, with the bytes the previous step wrote.
 * Faults on mapped DAX files (stores: the PMDK source's job), zeroing and
 * unsharing are not counted. Files on a pmem block device mounted without
 * DAX go through the page cache and are not counted (docs/abi.md).
 *
 * The probe leaves at the first test for everything else: flags first,
 * then the member lookup.
 */
#include <linux/iomap.h>
#include <linux/tracepoint.h>

#include "tgroup.h"

#define TG_VFS_WANT	(IOMAP_WRITE | IOMAP_DAX)
#define TG_VFS_SKIP	(IOMAP_FAULT | IOMAP_ZERO | IOMAP_UNSHARE | IOMAP_REPORT)

static struct tracepoint *tg_iomap_tp;
static const char *tg_vfs_reason = "not initialised";

static void tg_on_iomap_iter(void *data, struct iomap_iter *iter,
			     const void *ops, unsigned long caller)
{
	struct tg_member *m;

	if ((iter->flags & (TG_VFS_WANT | TG_VFS_SKIP)) != TG_VFS_WANT ||
	    iter->processed <= 0)
		return;
	rcu_read_lock();
	m = tg_member_find(current);
	if (m)
		atomic64_add(iter->processed, &READ_ONCE(m->grp)->vfs_bytes);
	rcu_read_unlock();
}

static void tg_find_iomap_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "iomap_iter"))
		tg_iomap_tp = tp;
}

/**
 * tg_vfs_take() - DAX bytes a group wrote since the last period
 * @grp: group
 * @c:   the period's counters: vfs_nvm_write_bytes, TG_IN_VFS
 *
 * Context: the regulation loop.
 */
void tg_vfs_take(struct tg_group *grp, struct tg_counters *c)
{
	if (!tg_iomap_tp)
		return;
	c->present |= TG_IN_VFS;
	c->vfs_nvm_write_bytes = atomic64_xchg(&grp->vfs_bytes, 0);
}

/**
 * tg_vfs_state() - "active" or why the source is unavailable
 *
 * Return: a static string.
 */
const char *tg_vfs_state(void)
{
	return tg_iomap_tp ? "active" : tg_vfs_reason;
}

/**
 * tg_vfs_init() - hook the iomap_iter tracepoint
 *
 * Context: module init. A kernel without it (or without FS_DAX) leaves the
 * source unavailable, with the reason in tgroup.config; not an error.
 */
void tg_vfs_init(void)
{
	if (!IS_ENABLED(CONFIG_FS_DAX)) {
		tg_vfs_reason = "unavailable: kernel without FS_DAX";
		return;
	}
	for_each_kernel_tracepoint(tg_find_iomap_tp, NULL);
	if (!tg_iomap_tp) {
		tg_vfs_reason = "unavailable: no iomap_iter tracepoint";
		return;
	}
	if (tracepoint_probe_register(tg_iomap_tp, tg_on_iomap_iter, NULL)) {
		tg_iomap_tp = NULL;
		tg_vfs_reason = "unavailable: tracepoint registration failed";
	}
}

/**
 * tg_vfs_exit() - unhook
 *
 * Context: module exit.
 */
void tg_vfs_exit(void)
{
	if (!tg_iomap_tp)
		return;
	tracepoint_probe_unregister(tg_iomap_tp, tg_on_iomap_iter, NULL);
	tracepoint_synchronize_unregister();
	tg_iomap_tp = NULL;
}
