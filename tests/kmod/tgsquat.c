// SPDX-License-Identifier: GPL-2.0
/*
 * tgsquat.c - a test module for the lifecycle suite: it registers a
 * filesystem type named "tgroup" (that cannot be mounted) and nothing
 * else, so that loading tgroup.ko beside it fails at the very end, when
 * tgroup registers its filesystem. The suite checks that such a failed
 * load never published /dev/tgroup_pmem (tests/guest/lifecycle).
 */
#include <linux/fs.h>
#include <linux/module.h>

static struct file_system_type tgsquat_fs = {
	.owner	= THIS_MODULE,
	.name	= "tgroup",
};

static int __init tgsquat_init(void)
{
	return register_filesystem(&tgsquat_fs);
}

static void __exit tgsquat_exit(void)
{
	unregister_filesystem(&tgsquat_fs);
}

module_init(tgsquat_init);
module_exit(tgsquat_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tgroup tests: a squatter on the filesystem name \"tgroup\"");
