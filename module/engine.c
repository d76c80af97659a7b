// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - the engine's life: load, mount, unmount, unload; the
 * configuration and last_cmd_status it shares with the filesystem.
 *
 * Module parameters (others are defined by the plug-in they configure):
 *  max_groups  most child groups that may exist at once (mkdir: ENOSPC)
 *  period_ms   initial regulation period, 1..1000 (tgroup.config changes it)
 *  inject      the emulated platform: the inject source speaks for the
 *              hardware, and the hardware plug-ins (rdt, MBA) stand aside
 */
/*
 * Not PREEMPT_RT (dkms.conf excludes it too): the fork and exit
 * tracepoints call their probes with preemption disabled, and those take
 * a group's spinlock_t (a sleeping lock on RT) and allocate with
 * GFP_NOWAIT (slab takes sleeping locks on RT). raw_spinlock_t would fix
 * the first only, and would make every walk of a group's members - the
 * period, moves, rmdir of a large group - non-preemptible on the kernel
 * meant for latency. docs/module.md, "Lock order".
 */
#ifdef CONFIG_PREEMPT_RT
#error "tgroup does not support PREEMPT_RT (probes take spinlock_t, allocate with preemption off)"
#endif

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate_wait.h>
#include <linux/spinlock.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "tg_parse.h"
#include "tg_plugin.h"

/*
 * A park ends with module_put() and then returns through module text;
 * module exit relies on RCU-tasks to wait for that return (engine.c,
 * actuators/cpu.c). Without TASKS_RCU synchronize_rcu_tasks() is plain
 * RCU, which does not.
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

#define TG_MAX_GROUPS_LIMIT 65536

/* --- last_cmd_status ---------------------------------------------------- */

static DEFINE_SPINLOCK(tg_status_lock);
static char tg_status[TG_STATUS_MAX] = "ok";

/**
 * tg_set_status() - record the explanation of the last failed write
 * @fmt: printf format
 *
 * Context: Any context.
 */
void tg_set_status(const char *fmt, ...)
{
	va_list ap;

	spin_lock(&tg_status_lock);
	va_start(ap, fmt);
	vscnprintf(tg_status, sizeof(tg_status), fmt, ap);
	va_end(ap);
	spin_unlock(&tg_status_lock);
}

/**
 * tg_set_status_ok() - the last write succeeded
 *
 * Context: Any context.
 */
void tg_set_status_ok(void)
{
	tg_set_status("ok");
}

/**
 * tg_status_read() - a copy of last_cmd_status
 * @buf:  output
 * @size: its size
 *
 * Context: Any context.
 */
void tg_status_read(char *buf, size_t size)
{
	spin_lock(&tg_status_lock);
	strscpy(buf, tg_status, size);
	spin_unlock(&tg_status_lock);
}

/* --- tgroup.config and tgroup.interference ------------------------------ */

/**
 * tg_config_read() - a copy of the configuration
 * @cfg: output
 *
 * Context: process context, takes tg_mutex.
 */
void tg_config_read(struct tg_config *cfg)
{
	mutex_lock(&tg_mutex);
	*cfg = tg_cfg;
	mutex_unlock(&tg_mutex);
}

/**
 * tg_config_write() - apply a write to tgroup.config, all or nothing
 * @buf: the write, NUL-terminated
 * @len: its length without the NUL
 * @msg: explanation on failure
 *
 * Turning the regulator off ends every throttle (pins too) now; a new
 * period length reschedules the period already queued.
 *
 * Context: process context, takes tg_mutex.
 * Return: 0 or -EINVAL.
 */
int tg_config_write(const char *buf, size_t len, const char **msg)
{
	struct tg_config cfg;
	struct tg_group *g;
	bool kick = false;
	int ret = 0;

	mutex_lock(&tg_mutex);
	cfg = tg_cfg;
	if (tg_parse_config(buf, len, &cfg, msg)) {
		ret = -EINVAL;
	} else {
		if (tg_cfg.enabled && !cfg.enabled)
			list_for_each_entry(g, &tg_groups, node)
				tg_group_unthrottle(g);
		kick = cfg.period_ms != tg_cfg.period_ms;
		tg_cfg = cfg;
	}
	mutex_unlock(&tg_mutex);
	if (kick)
		tg_loop_kick();	/* the queued period was timed with the old length */
	return ret;
}

/**
 * tg_engine_info() - the read-only figures of tgroup.config
 * @info: output
 *
 * Context: any context.
 */
void tg_engine_info(struct tg_engine_info *info)
{
	info->max_groups = tg_max_groups;
	info->inherit_failures = atomic64_read(&tg_inherit_failures);
	info->period_last_us = tg_period_last_us();
	info->period_max_us = tg_period_max_us();
	tg_period_phases_us(info->period_phase_us);
}

/**
 * tg_interference_read() - the detector's last estimate
 * @lat_ns: output, latency per kind
 * @state:  output, the tier state
 *
 * Context: any context; lockless (the loop is the one writer).
 */
void tg_interference_read(u64 lat_ns[TG_NR_KINDS], enum tg_intf_state *state)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		lat_ns[k] = READ_ONCE(tg_det.lat_ns[k]);
	*state = READ_ONCE(tg_det.state);
}

/* --- mount and unmount -------------------------------------------------- */

/**
 * tg_engine_mount() - a mount: start the plug-ins (in registry order), then
 * the loop
 *
 * Context: process context, tg_mutex not held; one mount at a time.
 */
void tg_engine_mount(void)
{
	struct tg_plugin *p;
	unsigned int i;

	mutex_lock(&tg_mutex);
	tg_group_reset_root();
	mutex_unlock(&tg_mutex);
	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->start)
			p->start();
	tg_loop_start();
}

/**
 * tg_engine_unmount() - an unmount: every group gone, every throttle
 * released, the loop and the plug-ins (in reverse) stopped
 *
 * Nothing here waits for a parked task: each park holds its own member
 * and module reference.
 *
 * Context: process context, tg_mutex not held.
 */
void tg_engine_unmount(void)
{
	struct tg_plugin *p;
	unsigned int i;

	tg_loop_stop();
	mutex_lock(&tg_mutex);
	tg_group_remove_all();
	mutex_unlock(&tg_mutex);
	for (i = tg_nr_plugins(); i--;) {
		p = tg_plugin(i);
		if (p->stop)
			p->stop();	/* also one whose start() found nothing */
	}
}

/* --- load and unload ---------------------------------------------------- */

/**
 * tg_engine_init() - check the parameters, build the engine (module load)
 *
 * Context: module init, before the filesystem is registered.
 * Return: 0, -EINVAL (bad parameter), -ENOMEM, or a plug-in's init error.
 */
int tg_engine_init(void)
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
	ret = tg_groups_init();
	if (ret)
		goto err_membership;
	ret = tg_loop_init();
	if (ret)
		goto err_groups;
	ret = tg_plugins_init();
	if (ret)
		goto err_loop;
	return 0;

err_loop:
	tg_loop_exit();
err_groups:
	tg_groups_exit();
err_membership:
	tg_membership_exit();
	return ret;
}

/**
 * tg_engine_publish() - the plug-ins' user-space interfaces (module load)
 *
 * The last step of the load: nothing can fail it after this, so no file
 * of a module whose load is being unwound can be open (tg_plugin.h).
 *
 * Context: module init, after the filesystem is registered.
 */
void tg_engine_publish(void)
{
	struct tg_plugin *p;
	unsigned int i;

	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->publish)
			p->publish();
}

/**
 * tg_engine_unpublish() - remove them again (module unload), in reverse
 *
 * Context: module exit, first: nothing is mounted and no file is open
 * (each open file holds a module reference).
 */
void tg_engine_unpublish(void)
{
	struct tg_plugin *p;
	unsigned int i;

	for (i = tg_nr_plugins(); i--;) {
		p = tg_plugin(i);
		if (p->unpublish)
			p->unpublish();
	}
}

/**
 * tg_engine_exit() - take the engine down (module unload)
 *
 * Context: module exit, after the filesystem is unregistered: nothing is
 * mounted, the loop is stopped, every throttle is gone.
 */
void tg_engine_exit(void)
{
	tg_plugins_exit();
	/*
	 * No park is queued or running (each holds a module reference, so
	 * rmmod got here only after the last one ended); one may still be
	 * returning through module text after its module_put().
	 */
	synchronize_rcu_tasks();
	tg_loop_exit();
	tg_groups_exit();
	tg_membership_exit();
}
