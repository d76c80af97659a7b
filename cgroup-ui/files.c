// SPDX-License-Identifier: GPL-2.0
/*
 * files.c - the files of a tgroup directory: one table, one show and one
 * write handler per file. Parsing is core/'s (tg_parse.h); handlers only
 * take locks, apply and print. The ABI is docs/abi.md.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/stdarg.h>

#include "ui.h"

/* --- last_cmd_status ---------------------------------------------------- */

#define TG_STATUS_MAX 256
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

static int tg_status_show(struct seq_file *sf, struct tg_group *grp)
{
	char buf[TG_STATUS_MAX];

	spin_lock(&tg_status_lock);
	strscpy(buf, tg_status, sizeof(buf));
	spin_unlock(&tg_status_lock);
	seq_printf(sf, "%s\n", buf);
	return 0;
}

/* --- membership --------------------------------------------------------- */

static int tg_pids_show(struct seq_file *sf, struct tg_group *grp, bool tgids)
{
	size_t i, nr;
	pid_t *pids;
	int ret;

	ret = tg_group_pids(grp, tgids, &pids, &nr);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++)
		seq_printf(sf, "%d\n", pids[i]);
	kvfree(pids);
	return 0;
}

static int tg_procs_show(struct seq_file *sf, struct tg_group *grp)
{
	return tg_pids_show(sf, grp, true);
}

static int tg_tasks_show(struct seq_file *sf, struct tg_group *grp)
{
	return tg_pids_show(sf, grp, false);
}

static int tg_pid_write(struct tg_group *grp, const char *buf, size_t len,
			const struct file *file, const char **msg,
			bool threadgroup)
{
	s32 pid;

	if (tg_parse_pid(buf, len, &pid, msg))
		return -EINVAL;
	return tg_move_pid(grp, pid, threadgroup, file, msg);
}

static int tg_procs_write(struct tg_group *grp, const char *buf, size_t len,
			  const struct file *file, const char **msg)
{
	return tg_pid_write(grp, buf, len, file, msg, true);
}

static int tg_tasks_write(struct tg_group *grp, const char *buf, size_t len,
			  const struct file *file, const char **msg)
{
	return tg_pid_write(grp, buf, len, file, msg, false);
}

/* --- settings ----------------------------------------------------------- */

static int tg_check_alive(struct tg_group *grp, const char **msg)
{
	lockdep_assert_held(&tg_mutex);
	if (grp->dead) {
		*msg = "group has been removed";
		return -ENODEV;
	}
	return 0;
}

static int tg_priority_show(struct seq_file *sf, struct tg_group *grp)
{
	seq_printf(sf, "%s\n", tg_priority_name(READ_ONCE(grp->priority)));
	return 0;
}

static int tg_priority_write(struct tg_group *grp, const char *buf, size_t len,
			     const struct file *file, const char **msg)
{
	enum tg_priority prio;
	int ret;

	if (tg_parse_priority(buf, len, &prio, msg))
		return -EINVAL;
	mutex_lock(&tg_mutex);
	ret = tg_check_alive(grp, msg);
	if (!ret) {
		WRITE_ONCE(grp->priority, prio);
		/* high is never throttled (pins too): it runs now, not next period */
		if (prio == TG_PRIO_HIGH)
			tg_cpu_release(grp);
	}
	mutex_unlock(&tg_mutex);
	return ret;
}

static int tg_limit_show(struct seq_file *sf, struct tg_group *grp)
{
	struct tg_limits limits;
	char line[TG_LINE_MAX];

	mutex_lock(&tg_mutex);
	limits = grp->limits;
	mutex_unlock(&tg_mutex);
	if (tg_fmt_limits(line, sizeof(line), &limits) < 0)
		return -EOVERFLOW;
	seq_puts(sf, line);
	return 0;
}

/* Some kind's limit is looser in @new than in @old. */
static bool tg_limits_raised(const struct tg_limits *old,
			     const struct tg_limits *new)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		if (new->bps[k] > old->bps[k])
			return true;
	return false;
}

static int tg_limit_write(struct tg_group *grp, const char *buf, size_t len,
			  const struct file *file, const char **msg)
{
	struct tg_limits limits;
	int ret;

	mutex_lock(&tg_mutex);
	ret = tg_check_alive(grp, msg);
	if (!ret) {
		limits = grp->limits;
		if (tg_parse_limits(buf, len, &limits, msg)) {
			ret = -EINVAL;
		} else {
			/*
			 * A limit lifted or raised ends the throttle now; the
			 * next period throttles again if the regulator still
			 * has reason to.
			 */
			if (tg_limits_raised(&grp->limits, &limits) &&
			    !grp->cpu_pin_us)
				tg_cpu_release(grp);
			grp->limits = limits;
		}
	}
	mutex_unlock(&tg_mutex);
	return ret;
}

/* --- accounting (written by the regulation loop) ------------------------ */

static void tg_read_kinds(struct tg_bw *out, const struct tg_bw *src)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		out->v[k] = READ_ONCE(src->v[k]);
}

static int tg_bandwidth_show(struct seq_file *sf, struct tg_group *grp)
{
	char line[TG_LINE_MAX];
	struct tg_bw bw;

	tg_read_kinds(&bw, &grp->acct.window_bps);
	if (tg_fmt_bw(line, sizeof(line), &bw) < 0)
		return -EOVERFLOW;
	seq_puts(sf, line);
	return 0;
}

/* tgroup.stat keys for the cumulative byte counters, by enum tg_kind */
static const char *const tg_stat_byte_keys[TG_NR_KINDS] = {
	[TG_DRAM_READ]	= "dram_read_bytes",
	[TG_DRAM_WRITE]	= "dram_write_bytes",
	[TG_NVM_READ]	= "nvm_read_bytes",
	[TG_NVM_WRITE]	= "nvm_write_bytes",
};

static int tg_stat_show(struct seq_file *sf, struct tg_group *grp)
{
	struct tg_decision d;
	struct tg_bw total;
	u64 quota;
	int k;

	tg_read_kinds(&total, &grp->acct.total);
	for (k = 0; k < TG_NR_KINDS; k++)
		seq_printf(sf, "%s %llu\n", tg_stat_byte_keys[k], total.v[k]);
	seq_printf(sf, "nr_periods %llu\n", READ_ONCE(grp->nr_periods));
	seq_printf(sf, "nr_throttled %llu\n", READ_ONCE(grp->nr_throttled));
	seq_printf(sf, "throttled_usec %llu\n", READ_ONCE(grp->throttled_usec));
	seq_printf(sf, "mba_percent %u\n", READ_ONCE(grp->mba_percent));
	quota = READ_ONCE(grp->cpu_quota_usec);
	if (quota == TG_QUOTA_MAX)
		seq_puts(sf, "cpu_quota_usec max\n");
	else
		seq_printf(sf, "cpu_quota_usec %llu\n", quota);
	seq_printf(sf, "cpu_period_usec %u\n", READ_ONCE(tg_cfg.period_ms) * 1000);
	mutex_lock(&tg_mutex);
	d = grp->last_decision;
	mutex_unlock(&tg_mutex);
	seq_printf(sf, "last_action %s\nlast_mechanism %s\nlast_reason %s\n",
		   tg_action_name(d.action), tg_mech_name(d.mech),
		   tg_reason_name(d.why));
	return 0;
}

static int tg_interference_show(struct seq_file *sf, struct tg_group *grp)
{
	enum tg_intf_state state = READ_ONCE(tg_det.state);

	seq_printf(sf,
		   "dram_read_lat_ns=%llu nvm_read_lat_ns=%llu dram_write_lat_ns=%llu nvm_write_lat_ns=%llu\n",
		   READ_ONCE(tg_det.lat_ns[TG_DRAM_READ]),
		   READ_ONCE(tg_det.lat_ns[TG_NVM_READ]),
		   READ_ONCE(tg_det.lat_ns[TG_DRAM_WRITE]),
		   READ_ONCE(tg_det.lat_ns[TG_NVM_WRITE]));
	seq_printf(sf, "state=%s\n", tg_intf_name(state));
	return 0;
}

/* --- tgroup.config ------------------------------------------------------ */

/* Every signal source and actuator, active or why not (read-only). */
static void tg_sources_show(struct seq_file *sf)
{
	char perf[128], uncore[128], sample[128], pmdk[128];

	seq_printf(sf, "source_inject=%s\n", tg_inject_enabled ? "active" :
		   "unavailable: module parameter inject=0");
	seq_printf(sf, "source_vfs=%s\n", tg_vfs_state());
	tg_pmdk_state(pmdk, sizeof(pmdk));
	seq_printf(sf, "source_pmdk=%s\n", pmdk);
	mutex_lock(&tg_mutex);
	tg_perf_state(perf, sizeof(perf));
	tg_uncore_state(uncore, sizeof(uncore));
	tg_sample_state(sample, sizeof(sample));
	mutex_unlock(&tg_mutex);
	seq_printf(sf, "source_perf=%s\n", perf);
	seq_printf(sf, "source_uncore=%s\n", uncore);
	seq_printf(sf, "source_rdt=%s\n", tg_rdt_state());
	seq_printf(sf, "source_store_sampling=%s\n", sample);
	seq_printf(sf, "source_probe=%s\n", tg_probe_state());
	seq_puts(sf, "actuator_cpu=active\n");
	seq_printf(sf, "actuator_mba=%s\n", tg_mba_state());
}

static int tg_config_show(struct seq_file *sf, struct tg_group *grp)
{
	char text[TG_CONFIG_TEXT_MAX];
	struct tg_config cfg;

	mutex_lock(&tg_mutex);
	cfg = tg_cfg;
	mutex_unlock(&tg_mutex);
	if (tg_fmt_config(text, sizeof(text), &cfg) < 0)
		return -EOVERFLOW;
	seq_puts(sf, text);
	/* read-only */
	tg_sources_show(sf);
	seq_printf(sf, "max_groups=%u\n", tg_max_groups);
	seq_printf(sf, "inherit_failures=%lld\n",
		   atomic64_read(&tg_inherit_failures));
	seq_printf(sf, "period_last_us=%llu\n", tg_period_last_us());
	seq_printf(sf, "period_max_us=%llu\n", tg_period_max_us());
	return 0;
}

static int tg_config_write(struct tg_group *grp, const char *buf, size_t len,
			   const struct file *file, const char **msg)
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
		/* regulator off: every throttle (pins too) ends now */
		if (tg_cfg.enabled && !cfg.enabled)
			list_for_each_entry(g, &tg_groups, node)
				tg_cpu_release(g);
		kick = cfg.period_ms != tg_cfg.period_ms;
		tg_cfg = cfg;
	}
	mutex_unlock(&tg_mutex);
	if (kick)
		tg_loop_kick();	/* the queued period was timed with the old length */
	return ret;
}

/* --- the table ---------------------------------------------------------- */

const struct tg_cftype tg_files[] = {
	{
		.name	= "cgroup.procs",
		.mode	= 0644,
		.show	= tg_procs_show,
		.write	= tg_procs_write,
	}, {
		.name	= "tasks",
		.mode	= 0644,
		.show	= tg_tasks_show,
		.write	= tg_tasks_write,
	}, {
		.name	= "tgroup.priority",
		.mode	= 0644,
		.flags	= TG_CFT_NOT_ROOT,
		.show	= tg_priority_show,
		.write	= tg_priority_write,
	}, {
		.name	= "tgroup.limit",
		.mode	= 0644,
		.flags	= TG_CFT_NOT_ROOT,
		.show	= tg_limit_show,
		.write	= tg_limit_write,
	}, {
		.name	= "tgroup.bandwidth",
		.mode	= 0444,
		.show	= tg_bandwidth_show,
	}, {
		.name	= "tgroup.stat",
		.mode	= 0444,
		.show	= tg_stat_show,
	}, {
		.name	= "tgroup.interference",
		.mode	= 0444,
		.flags	= TG_CFT_ROOT_ONLY,
		.show	= tg_interference_show,
	}, {
		.name	= "tgroup.config",
		.mode	= 0644,
		.flags	= TG_CFT_ROOT_ONLY,
		.show	= tg_config_show,
		.write	= tg_config_write,
	}, {
		.name	= "last_cmd_status",
		.mode	= 0444,
		.flags	= TG_CFT_ROOT_ONLY,
		.show	= tg_status_show,
	},
};

static_assert(ARRAY_SIZE(tg_files) <= TG_MAX_FILES);
const size_t tg_nr_files = ARRAY_SIZE(tg_files);
