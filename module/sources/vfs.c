// SPDX-License-Identifier: GPL-2.0
/*
 * vfs.c - the vfs signal source: bytes that group members write
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

#include "tg_plugin.h"

#define TG_VFS_WANT	(IOMAP_WRITE | IOMAP_DAX)
#define TG_VFS_SKIP	(IOMAP_FAULT | IOMAP_ZERO | IOMAP_UNSHARE | IOMAP_REPORT)

static struct tracepoint *tg_iomap_tp;
static const char *tg_vfs_reason = "available (starts at mount)";

/* A group's DAX bytes written since the last period (its slot). */
struct tg_vfs_grp {
	atomic64_t	bytes;
};

static struct tg_vfs_grp *tg_vfs_of(struct tg_group *grp)
{
	return tg_grp_slot(grp, &tg_src_vfs.p);
}

/*
 * The prototype of fs/iomap/trace.h's iomap_iter (read in 6.1's source): unlike
 * the other probes' (task.h, sched.h), it is in no installed header, so
 * the build cannot check it (check_trace_callback_type_*()); kept by hand.
 */
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
		atomic64_add(iter->processed, &tg_vfs_of(READ_ONCE(m->grp))->bytes);
	rcu_read_unlock();
}

static void tg_find_iomap_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "iomap_iter"))
		tg_iomap_tp = tp;
}

/* DAX bytes a group wrote since the last period */
static void tg_vfs_take(struct tg_group *grp, struct tg_counters *c)
{
	if (tg_iomap_tp)
		tg_take_count(c, TG_IN_VFS, &c->vfs_nvm_write_bytes,
			      &tg_vfs_of(grp)->bytes);
}

static void tg_vfs_state(char *buf, size_t size)
{
	scnprintf(buf, size, "%s", tg_iomap_tp ? "active" : tg_vfs_reason);
}

/*
 * Mount: hook the iomap_iter tracepoint. A kernel without it (or without
 * FS_DAX) leaves the source unavailable, with the reason in tgroup.config;
 * not an error. Hooked only while mounted: the probe runs at every DAX
 * write of every task.
 */
static void tg_vfs_start(void)
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

/* Unmount: unhook; no probe runs or will run once this returns. */
static void tg_vfs_stop(void)
{
	if (!tg_iomap_tp)
		return;
	tracepoint_probe_unregister(tg_iomap_tp, tg_on_iomap_iter, NULL);
	tracepoint_synchronize_unregister();
	tg_iomap_tp = NULL;
}

struct tg_source_ops tg_src_vfs __ro_after_init = {
	.p = { .name = "vfs", .slot_size = TG_SLOT_SIZE(struct tg_vfs_grp), .start = tg_vfs_start,
	       .stop = tg_vfs_stop, .state = tg_vfs_state },
	.take = tg_vfs_take,
};
