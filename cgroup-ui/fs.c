// SPDX-License-Identifier: GPL-2.0
/*
 * fs.c - the tgroup filesystem: one superblock shared by every mount, the
 * root directory as the root group, mkdir/rmdir of flat child groups, and
 * the file operations that dispatch to the table in files.c.
 *
 * Dentries of group directories and their files are pinned from creation
 * to removal (as in debugfs), so chmod/chown of a file sticks and readdir is
 * dcache_readdir. Unmounting the last mount tears every group down and moves
 * every task back to the root group, as resctrl does.
 */
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "ui.h"

#define TGROUP_SUPER_MAGIC	0x74677270	/* "tgrp" */

struct tg_inode {
	struct inode vfs_inode;
	struct tg_group *grp;		/* reference held (child groups) */
	const struct tg_cftype *cft;	/* NULL for directories */
};

static struct kmem_cache *tg_inode_cache;

static inline struct tg_inode *TG_I(struct inode *inode)
{
	return container_of(inode, struct tg_inode, vfs_inode);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define TG_MNT_ARG struct mnt_idmap *idmap
#define TG_NO_IDMAP (&nop_mnt_idmap)
#else
#define TG_MNT_ARG struct user_namespace *mnt_userns
#define TG_NO_IDMAP (&init_user_ns)
#endif

static void tg_inode_init_times(struct inode *inode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	simple_inode_init_ts(inode);
#else
	inode->i_atime = current_time(inode);
	inode->i_mtime = inode->i_atime;
	inode->i_ctime = inode->i_atime;
#endif
}

/* --- inodes ------------------------------------------------------------- */

static void tg_inode_init_once(void *obj)
{
	struct tg_inode *ti = obj;

	inode_init_once(&ti->vfs_inode);
}

static struct inode *tg_alloc_inode(struct super_block *sb)
{
	struct tg_inode *ti = alloc_inode_sb(sb, tg_inode_cache, GFP_KERNEL);

	if (!ti)
		return NULL;
	ti->grp = NULL;
	ti->cft = NULL;
	return &ti->vfs_inode;
}

static void tg_free_inode(struct inode *inode)
{
	struct tg_inode *ti = TG_I(inode);

	if (ti->grp)
		tg_group_put(ti->grp);
	kmem_cache_free(tg_inode_cache, ti);
}

static const struct super_operations tg_sops = {
	.alloc_inode	= tg_alloc_inode,
	.free_inode	= tg_free_inode,
	.statfs		= simple_statfs,
	.drop_inode	= generic_delete_inode,
};

/*
 * A new inode owned like its parent directory (a group's files like the
 * group's directory, which mkdir gives to its creator), pointing at grp.
 */
static struct inode *tg_new_inode(struct super_block *sb, struct inode *parent,
				  umode_t mode, struct tg_group *grp,
				  const struct tg_cftype *cft)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	if (parent) {
		inode->i_uid = parent->i_uid;
		inode->i_gid = parent->i_gid;
	}
	tg_inode_init_times(inode);
	tg_group_get(grp);
	TG_I(inode)->grp = grp;
	TG_I(inode)->cft = cft;
	return inode;
}

static struct inode *tg_new_dir(struct super_block *sb, struct inode *parent,
				struct tg_group *grp,
				const struct inode_operations *iops)
{
	struct inode *inode = tg_new_inode(sb, parent, S_IFDIR | 0755, grp, NULL);

	if (!inode)
		return NULL;
	inode->i_op = iops;
	inode->i_fop = &simple_dir_operations;
	set_nlink(inode, 2);
	return inode;
}

/* --- files -------------------------------------------------------------- */

static int tg_seq_show(struct seq_file *sf, void *v)
{
	struct tg_inode *ti = sf->private;

	return ti->cft->show(sf, ti->grp);
}

/*
 * cgroup.procs and tasks: an iterator over the reader's pid namespace, one
 * id at a time (as cgroup's pidlists, but without a list: the engine finds
 * the next id from a position, in ascending order), so no read walks every
 * task at once or again when the buffer grows. The position is the next id
 * to look from.
 */
struct tg_pids_iter {
	struct tg_group *grp;
	struct pid_namespace *ns;	/* the opener's, referenced */
	bool tgids;
};

static void *tg_pids_at(struct seq_file *sf, loff_t *pos)
{
	struct tg_pids_iter *it = sf->private;
	pid_t id;

	if (*pos >= PID_MAX_LIMIT)
		return NULL;
	id = tg_group_next_pid(it->grp, it->tgids, it->ns, *pos);
	if (!id)
		return NULL;
	*pos = id;
	return (void *)(unsigned long)id;
}

static void *tg_pids_start(struct seq_file *sf, loff_t *pos)
{
	return tg_pids_at(sf, pos);
}

static void *tg_pids_next(struct seq_file *sf, void *v, loff_t *pos)
{
	*pos = (unsigned long)v + 1;
	return tg_pids_at(sf, pos);
}

static void tg_pids_stop(struct seq_file *sf, void *v)
{
}

static int tg_pids_show(struct seq_file *sf, void *v)
{
	seq_printf(sf, "%lu\n", (unsigned long)v);
	return 0;
}

static const struct seq_operations tg_pids_seq_ops = {
	.start	= tg_pids_start,
	.next	= tg_pids_next,
	.stop	= tg_pids_stop,
	.show	= tg_pids_show,
};

static int tg_file_open(struct inode *inode, struct file *file)
{
	struct tg_inode *ti = TG_I(inode);
	struct tg_pids_iter *it;

	if (!(ti->cft->flags & TG_CFT_PIDS))
		return single_open(file, tg_seq_show, ti);
	it = __seq_open_private(file, &tg_pids_seq_ops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->grp = ti->grp;
	it->ns = get_pid_ns(task_active_pid_ns(current));
	it->tgids = ti->cft->flags & TG_CFT_TGIDS;
	return 0;
}

static int tg_file_release(struct inode *inode, struct file *file)
{
	struct tg_pids_iter *it;

	if (!(TG_I(inode)->cft->flags & TG_CFT_PIDS))
		return single_release(inode, file);
	it = ((struct seq_file *)file->private_data)->private;
	put_pid_ns(it->ns);
	return seq_release_private(inode, file);
}

static ssize_t tg_file_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct tg_inode *ti = TG_I(file_inode(file));
	const struct tg_cftype *cft = ti->cft;
	const char *msg = "invalid argument";
	char *buf;
	int ret;

	if (!cft->write) {
		msg = "file is read-only";
		ret = -EINVAL;
		goto out;
	}
	if (!len || len > TG_WRITE_MAX) {
		msg = len ? "write too long" : "empty write";
		ret = -EINVAL;
		goto out;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf)) {
		msg = "bad user buffer";
		ret = PTR_ERR(buf);
		goto out;
	}
	ret = cft->write(ti->grp, buf, len, file, &msg);
	kfree(buf);
out:
	if (ret)
		tg_set_status("%s: %s", cft->name, msg);
	else
		tg_set_status_ok();
	return ret ? ret : len;
}

/**
 * tg_may_leave() - may the opener of @file move tasks out of @grp?
 * @grp:  the group the tasks are in (a reference held by the caller)
 * @file: cgroup.procs or tasks, open for writing (in any group)
 *
 * Write permission on @grp's file of the same name, with the credentials
 * @file was opened with - as the VFS checked the destination's at open
 * (cgroup v2 checks the common ancestor's cgroup.procs; groups here are
 * flat, so the group left is the one to ask). A group whose directory is
 * gone or belongs to another group of the same name now: no.
 *
 * Context: process context (tg_move_mutex held by the engine).
 * Return: true if allowed.
 */
bool tg_may_leave(struct tg_group *grp, const struct file *file)
{
	const char *fname = TG_I(file_inode(file))->cft->name;
	struct dentry *root = file->f_path.dentry->d_sb->s_root;
	struct qstr q = QSTR_INIT(fname, strlen(fname));
	const struct cred *old;
	struct dentry *dir, *f;
	bool ok = false;

	if (tg_is_root(grp)) {
		dir = dget(root);
	} else {
		struct qstr dq = QSTR_INIT(tg_group_name(grp), strlen(tg_group_name(grp)));

		dir = d_hash_and_lookup(root, &dq);
		if (IS_ERR_OR_NULL(dir))
			return false;
		if (d_really_is_negative(dir) || TG_I(d_inode(dir))->grp != grp)
			goto out;
	}
	f = d_hash_and_lookup(dir, &q);
	if (!IS_ERR_OR_NULL(f)) {
		if (d_really_is_positive(f)) {
			old = override_creds(file->f_cred);
			/* no FS_ALLOW_IDMAP: no mount of ours is idmapped */
			ok = !inode_permission(TG_NO_IDMAP, d_inode(f), MAY_WRITE);
			revert_creds(old);
		}
		dput(f);
	}
out:
	dput(dir);
	return ok;
}

static const struct file_operations tg_file_fops = {
	.owner		= THIS_MODULE,
	.open		= tg_file_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= tg_file_release,
	.write		= tg_file_write,
};

static const struct inode_operations tg_file_iops = {
	.setattr	= simple_setattr,
	.getattr	= simple_getattr,
};

/*
 * A directory's files are made in two steps so that a failure leaves
 * nothing behind: tg_prepare_files() allocates every dentry and inode (the
 * directory's dentry may still be negative), tg_commit_files() adds them
 * once the directory is positive, with its inode locked so no lookup races.
 */
struct tg_files_prep {
	struct dentry *dentry[TG_MAX_FILES];
	struct inode *inode[TG_MAX_FILES];
	unsigned int nr;
};

static void tg_abort_files(struct tg_files_prep *prep)
{
	while (prep->nr--) {
		dput(prep->dentry[prep->nr]);	/* never hashed: freed */
		iput(prep->inode[prep->nr]);
	}
}

static int tg_prepare_files(struct tg_files_prep *prep, struct dentry *dir,
			    struct inode *dir_inode, struct tg_group *grp)
{
	size_t i;

	prep->nr = 0;
	for (i = 0; i < tg_nr_files; i++) {
		const struct tg_cftype *cft = &tg_files[i];
		struct dentry *dentry;
		struct inode *inode;

		if (!tg_cft_applies(cft, grp))
			continue;
		dentry = d_alloc_name(dir, cft->name);
		if (!dentry)
			goto err;
		inode = tg_new_inode(dir->d_sb, dir_inode, S_IFREG | cft->mode,
				     grp, cft);
		if (!inode) {
			dput(dentry);
			goto err;
		}
		inode->i_fop = &tg_file_fops;
		inode->i_op = &tg_file_iops;
		prep->dentry[prep->nr] = dentry;
		prep->inode[prep->nr] = inode;
		prep->nr++;
	}
	return 0;
err:
	tg_abort_files(prep);
	return -ENOMEM;
}

/* Context: the directory is positive and its inode locked (or unreachable). */
static void tg_commit_files(struct tg_files_prep *prep)
{
	unsigned int i;

	for (i = 0; i < prep->nr; i++)
		d_add(prep->dentry[i], prep->inode[i]);	/* pinned */
}

/* Unpin and delete a group directory's files (rmdir, dir inode locked). */
static void tg_clear_dir(struct dentry *dir)
{
	struct inode *dir_inode = d_inode(dir);
	struct tg_group *grp = TG_I(dir_inode)->grp;
	size_t i;

	for (i = 0; i < tg_nr_files; i++) {
		const struct tg_cftype *cft = &tg_files[i];
		struct qstr name = QSTR_INIT(cft->name, strlen(cft->name));
		struct dentry *dentry;

		if (!tg_cft_applies(cft, grp))
			continue;
		dentry = d_hash_and_lookup(dir, &name);
		if (IS_ERR_OR_NULL(dentry))
			continue;
		simple_unlink(dir_inode, dentry);	/* drops the pin */
		d_delete(dentry);
		dput(dentry);
	}
}

/* --- directories -------------------------------------------------------- */

static const struct inode_operations tg_root_dir_iops;
static const struct inode_operations tg_group_dir_iops;

static int tg_mkdir(TG_MNT_ARG, struct inode *dir, struct dentry *dentry,
		    umode_t mode)
{
	struct tg_files_prep prep;
	const char *msg = "";
	struct tg_group *grp;
	struct inode *inode;
	int ret;

	if (tg_valid_group_name(dentry->d_name.name, dentry->d_name.len, &msg)) {
		tg_set_status("mkdir: %s", msg);
		return -EINVAL;
	}
	mutex_lock(&tg_mutex);
	grp = tg_group_alloc(dentry->d_name.name, &msg);
	if (IS_ERR(grp)) {
		ret = PTR_ERR(grp);
		goto err_status;
	}
	ret = -ENOMEM;
	msg = "out of memory";
	inode = tg_new_dir(dir->i_sb, dir, grp, &tg_group_dir_iops);
	if (!inode)
		goto err_put;
	/* the creator's, its files too (as cgroup's): see docs/abi.md */
	inode->i_uid = current_fsuid();
	inode->i_gid = current_fsgid();
	ret = tg_prepare_files(&prep, dentry, inode, grp);
	if (ret)
		goto err_iput;

	/* nothing can fail from here on */
	inode_lock_nested(inode, I_MUTEX_CHILD);
	d_instantiate(dentry, inode);
	dget(dentry);		/* pinned until rmdir */
	tg_commit_files(&prep);
	inode_unlock(inode);
	inc_nlink(dir);
	tg_group_activate(grp);	/* the registry keeps the first reference */
	mutex_unlock(&tg_mutex);
	tg_set_status_ok();
	return 0;

err_iput:
	iput(inode);
err_put:
	tg_group_put(grp);
err_status:
	mutex_unlock(&tg_mutex);
	tg_set_status("mkdir: %s", msg);
	return ret;
}

static int tg_mkdir_flat(TG_MNT_ARG, struct inode *dir, struct dentry *dentry,
			 umode_t mode)
{
	tg_set_status("mkdir: groups are flat, create them in the mount root");
	return -EPERM;
}

static int tg_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct tg_group *grp = TG_I(d_inode(dentry))->grp;
	const char *msg = "";
	int ret;

	mutex_lock(&tg_mutex);
	ret = tg_group_remove(grp, &msg);
	if (!ret) {
		tg_clear_dir(dentry);
		ret = simple_rmdir(dir, dentry);	/* drops the mkdir pin */
	}
	mutex_unlock(&tg_mutex);
	if (ret)
		tg_set_status("rmdir: %s", msg);
	else
		tg_set_status_ok();
	return ret;
}

static const struct inode_operations tg_root_dir_iops = {
	.lookup		= simple_lookup,
	.mkdir		= tg_mkdir,
	.rmdir		= tg_rmdir,
	.setattr	= simple_setattr,
	.getattr	= simple_getattr,
};

static const struct inode_operations tg_group_dir_iops = {
	.lookup		= simple_lookup,
	.mkdir		= tg_mkdir_flat,
	.setattr	= simple_setattr,
	.getattr	= simple_getattr,
};

/* --- superblock and mount ----------------------------------------------- */

static int tg_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct tg_files_prep prep;
	struct inode *root;
	int ret;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = TGROUP_SUPER_MAGIC;
	sb->s_op = &tg_sops;
	sb->s_d_op = &simple_dentry_operations;
	sb->s_time_gran = 1;

	root = tg_new_dir(sb, NULL, &tg_root_group, &tg_root_dir_iops);
	if (!root)
		return -ENOMEM;
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	ret = tg_prepare_files(&prep, sb->s_root, root, &tg_root_group);
	if (ret)
		return ret;	/* kill_sb cleans up */
	tg_commit_files(&prep);	/* not mounted yet: nothing can race */

	tg_engine_mount();
	return 0;
}

static int tg_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, tg_fill_super);
}

static const struct fs_context_operations tg_context_ops = {
	.get_tree	= tg_get_tree,
};

static int tg_init_fs_context(struct fs_context *fc)
{
	fc->ops = &tg_context_ops;
	return 0;
}

/*
 * Last mount gone: stop regulating, move every task back to the root group,
 * remove every group (ending every park: nothing here waits for one, so the
 * unmounting task may be throttled itself and members may be stopped), then
 * let the dentries go.
 */
static void tg_kill_sb(struct super_block *sb)
{
	tg_engine_unmount();	/* every throttle released; nothing waits for a park */
	kill_litter_super(sb);
}

static struct file_system_type tg_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "tgroup",
	.init_fs_context	= tg_init_fs_context,
	.kill_sb		= tg_kill_sb,
};

/**
 * tg_fs_init() - register the tgroup filesystem and /sys/fs/tgroup
 *
 * Context: Module init.
 * Return: 0 or -errno.
 */
int tg_fs_init(void)
{
	int ret;

	tg_inode_cache = kmem_cache_create("tg_inode", sizeof(struct tg_inode),
					   0, SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					   tg_inode_init_once);
	if (!tg_inode_cache)
		return -ENOMEM;
	ret = sysfs_create_mount_point(fs_kobj, "tgroup");
	if (ret)
		goto err_cache;
	ret = register_filesystem(&tg_fs_type);
	if (ret)
		goto err_mount_point;
	return 0;

err_mount_point:
	sysfs_remove_mount_point(fs_kobj, "tgroup");
err_cache:
	kmem_cache_destroy(tg_inode_cache);
	return ret;
}

/**
 * tg_fs_exit() - unregister the filesystem (no mount can exist any more)
 *
 * Context: Module exit.
 */
void tg_fs_exit(void)
{
	unregister_filesystem(&tg_fs_type);
	sysfs_remove_mount_point(fs_kobj, "tgroup");
	rcu_barrier();		/* tg_free_inode() runs after a grace period */
	kmem_cache_destroy(tg_inode_cache);
}
