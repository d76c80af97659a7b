// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - tgroup.ko: find and throttle memory-bandwidth noisy neighbours on
 * hybrid DRAM + slow-tier (Optane PMem, CXL) servers.
 *
 * The module's entry: the engine (module/) comes up first, then the
 * filesystem that exposes it, then - the last step, which cannot fail -
 * the interfaces user space opens without a mount (/dev/tgroup_pmem, the
 * inject file): a load that fails never had them. They go down in
 * reverse. Living here, on the filesystem's side, it keeps every call
 * between the two folders one way: cgroup-ui/ calls module/ (through
 * module/tgroup.h), never the reverse.
 * The module parameters are defined where they are used (docs/module.md).
 */
#include <linux/module.h>

#include "ui.h"

static int __init tg_init(void)
{
	int ret = tg_engine_init();

	if (ret)
		return ret;
	ret = tg_fs_init();
	if (ret) {
		tg_engine_exit();
		return ret;
	}
	tg_engine_publish();
	return 0;
}

static void __exit tg_exit(void)
{
	tg_engine_unpublish();	/* no page or inject file is open */
	tg_fs_exit();		/* nothing is mounted: loop stopped, throttles gone */
	tg_engine_exit();
}

module_init(tg_init);
module_exit(tg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tgroup: memory-bandwidth throttling groups for hybrid DRAM/NVM servers");
