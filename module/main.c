// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - tgroup.ko: find and throttle memory-bandwidth noisy neighbours on
 * hybrid DRAM + slow-tier (Optane PMem, CXL) servers.
 *
 * Module parameters:
 *  max_groups  most child groups that may exist at once (mkdir: ENOSPC)
 *  period_ms   initial regulation period, 1..1000 (tgroup.config changes it)
 *  inject      enable the inject signal source (emulated platform, tests)
 *  probe       enable the probe source (timed writes per memory tier)
 *  pmdk_max_procs  processes with a PMDK page at once (src_pmdk.c)
 *  pmdk_max_procs_per_user  pages one real uid may hold (src_pmdk.c)
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate_wait.h>

#include "tgroup.h"

/*
 * A park ends with module_put() and then returns through module text;
 * module exit relies on RCU-tasks to wait for that return (main.c, act_cpu.c).
 * Without TASKS_RCU synchronize_rcu_tasks() is plain RCU, which does not.
 */
#ifndef CONFIG_TASKS_RCU
#error "tgroup needs CONFIG_TASKS_RCU (module exit waits for parked tasks leaving module text)"
#endif

unsigned int tg_max_groups = 256;
module_param_named(max_groups, tg_max_groups, uint, 0444);
MODULE_PARM_DESC(max_groups, "Maximum number of groups (1..65536, default 256)");

static unsigned int tg_period_ms = TG_PERIOD_MS_DEFAULT;
module_param_named(period_ms, tg_period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "Initial regulation period in ms (1..1000, default 10)");

bool tg_inject_enabled;
module_param_named(inject, tg_inject_enabled, bool, 0444);
MODULE_PARM_DESC(inject, "Enable the inject signal source (debugfs tgroup/inject; emulated platform and tests)");

bool tg_probe_enabled;
module_param_named(probe, tg_probe_enabled, bool, 0444);
MODULE_PARM_DESC(probe, "Enable the probe source: timed writes to a DRAM and a slow-tier page");

#define TG_MAX_GROUPS_LIMIT 65536

static int __init tg_init(void)
{
	int ret;

	if (tg_max_groups < 1 || tg_max_groups > TG_MAX_GROUPS_LIMIT) {
		pr_err("tgroup: max_groups must be 1..%u\n", TG_MAX_GROUPS_LIMIT);
		return -EINVAL;
	}
	if (tg_period_ms < TG_PERIOD_MS_MIN || tg_period_ms > TG_PERIOD_MS_MAX) {
		pr_err("tgroup: period_ms must be %u..%u\n", TG_PERIOD_MS_MIN,
		       TG_PERIOD_MS_MAX);
		return -EINVAL;
	}
	tg_config_default(&tg_cfg);
	tg_cfg.period_ms = tg_period_ms;
	ret = tg_membership_init();
	if (ret)
		return ret;
	ret = tg_loop_init();
	if (ret)
		goto err_membership;
	tg_inject_init();
	tg_vfs_init();
	tg_probe_init();
	tg_mba_init();
	tg_rdt_init();
	tg_pmdk_init();
	ret = tg_fs_init();
	if (ret)
		goto err_pmdk;
	return 0;

err_pmdk:
	tg_pmdk_exit();
	tg_probe_exit();
	tg_vfs_exit();
	tg_inject_exit();
	tg_loop_exit();
err_membership:
	tg_membership_exit();
	return ret;
}

static void __exit tg_exit(void)
{
	tg_fs_exit();		/* nothing is mounted: loop stopped, throttles gone */
	tg_pmdk_exit();
	tg_probe_exit();
	tg_vfs_exit();
	tg_inject_exit();
	/*
	 * No park is queued or running (each holds a module reference, so
	 * rmmod got here only after the last one ended); one may still be
	 * returning through module text after its module_put().
	 */
	synchronize_rcu_tasks();
	tg_loop_exit();
	tg_membership_exit();
}

module_init(tg_init);
module_exit(tg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tgroup: memory-bandwidth throttling groups for hybrid DRAM/NVM servers");
