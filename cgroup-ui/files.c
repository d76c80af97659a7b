// SPDX-License-Identifier: GPL-2.0
/*
 * files.c - the files of a tgroup directory: one table, one show and one
 * write handler per file. Parsing is core/'s (tg_parse.h); handlers parse,
 * call the engine (module/tgroup.h, which takes its own locks) and print.
 * The ABI is docs/abi.md.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/user_namespace.h>

#include "ui.h"

/*
 * The administrator: CAP_SYS_ADMIN in the initial user namespace, in the
 * credentials the file was opened with (a descriptor handed to, or
 * inherited by, a more privileged process does not gain it privilege).
 */
static bool tg_file_admin(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

/* --- last_cmd_status ---------------------------------------------------- */

static int tg_status_show(struct seq_file *sf, struct tg_group *grp)
{
	char buf[TG_STATUS_MAX];

	tg_status_read(buf, sizeof(buf));
	seq_printf(sf, "%s\n", buf);
	return 0;
}

/* --- membership --------------------------------------------------------- */

static int tg_pid_write(struct tg_group *grp, const char *buf, size_t len,
			const struct file *file, const char **msg,
			bool threadgroup)
{
	s32 pid;

	if (tg_parse_pid(buf, len, &pid, msg))
		return -EINVAL;
	return tg_move_pid(grp, pid, threadgroup, file, tg_may_leave, msg);
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

static int tg_priority_show(struct seq_file *sf, struct tg_group *grp)
{
	seq_printf(sf, "%s\n", tg_priority_name(tg_group_priority(grp)));
	return 0;
}

static int tg_priority_write(struct tg_group *grp, const char *buf, size_t len,
			     const struct file *file, const char **msg)
{
	enum tg_priority prio;

	if (tg_parse_priority(buf, len, &prio, msg))
		return -EINVAL;
	/* high exempts the group from the remedial policy: the opener's call */
	if (prio == TG_PRIO_HIGH && !tg_file_admin(file)) {
		*msg = "high needs CAP_SYS_ADMIN in the initial user namespace";
		return -EPERM;
	}
	return tg_group_set_priority(grp, prio, msg);
}

static int tg_limit_show(struct seq_file *sf, struct tg_group *grp)
{
	struct tg_limits limits;
	char line[TG_LINE_MAX];

	tg_group_limits(grp, &limits);
	if (tg_fmt_limits(line, sizeof(line), &limits) < 0)
		return -EOVERFLOW;
	seq_puts(sf, line);
	return 0;
}

static int tg_limit_write(struct tg_group *grp, const char *buf, size_t len,
			  const struct file *file, const char **msg)
{
	return tg_group_write_limits(grp, buf, len, msg);
}

/* --- accounting (written by the regulation loop) ------------------------ */

static int tg_bandwidth_show(struct seq_file *sf, struct tg_group *grp)
{
	char line[TG_LINE_MAX];
	struct tg_bw bw;

	tg_group_bandwidth(grp, &bw);
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
	struct tg_group_stat st;
	int k;

	tg_group_stat(grp, &st);
	for (k = 0; k < TG_NR_KINDS; k++)
		seq_printf(sf, "%s %llu\n", tg_stat_byte_keys[k], st.total.v[k]);
	seq_printf(sf, "nr_periods %llu\n", st.nr_periods);
	seq_printf(sf, "nr_throttled %llu\n", st.nr_throttled);
	seq_printf(sf, "throttled_usec %llu\n", st.throttled_usec);
	seq_printf(sf, "mba_percent %u\n", st.mba_percent);
	if (st.cpu_quota_usec == TG_QUOTA_MAX)
		seq_puts(sf, "cpu_quota_usec max\n");
	else
		seq_printf(sf, "cpu_quota_usec %llu\n", st.cpu_quota_usec);
	seq_printf(sf, "cpu_period_usec %u\n", st.cpu_period_usec);
	seq_printf(sf, "last_action %s\nlast_mechanism %s\nlast_reason %s\n",
		   tg_action_name(st.last.action), tg_mech_name(st.last.mech),
		   tg_reason_name(st.last.why));
	return 0;
}

static int tg_interference_show(struct seq_file *sf, struct tg_group *grp)
{
	u64 lat[TG_NR_KINDS];
	enum tg_intf_state state;

	tg_interference_read(lat, &state);
	seq_printf(sf,
		   "dram_read_lat_ns=%llu nvm_read_lat_ns=%llu dram_write_lat_ns=%llu nvm_write_lat_ns=%llu\n",
		   lat[TG_DRAM_READ], lat[TG_NVM_READ], lat[TG_DRAM_WRITE],
		   lat[TG_NVM_WRITE]);
	seq_printf(sf, "state=%s\n", tg_intf_name(state));
	return 0;
}

/* --- tgroup.config ------------------------------------------------------ */

static int tg_config_show(struct seq_file *sf, struct tg_group *grp)
{
	char text[TG_CONFIG_TEXT_MAX];
	struct tg_engine_info info;
	struct tg_config cfg;
	char line[TG_STATE_LINE_MAX];
	unsigned int i;

	tg_config_read(&cfg);
	if (tg_fmt_config(text, sizeof(text), &cfg) < 0)
		return -EOVERFLOW;
	seq_puts(sf, text);
	/* read-only: every source and actuator, active or why not */
	for (i = 0; tg_plugin_state(i, line, sizeof(line)); i++)
		seq_printf(sf, "%s\n", line);
	tg_engine_info(&info);
	seq_printf(sf, "max_groups=%u\n", info.max_groups);
	seq_printf(sf, "inherit_failures=%lld\n", info.inherit_failures);
	seq_printf(sf, "period_last_us=%llu\n", info.period_last_us);
	seq_printf(sf, "period_max_us=%llu\n", info.period_max_us);
	seq_printf(sf, "period_phases_us=%llu,%llu,%llu,%llu\n",
		   info.period_phase_us[TG_PHASE_COLLECT],
		   info.period_phase_us[TG_PHASE_ESTIMATE],
		   info.period_phase_us[TG_PHASE_REGULATE],
		   info.period_phase_us[TG_PHASE_APPLY]);
	return 0;
}

/*
 * The whole node's regulator and the perf encodings: the administrator's,
 * whatever the file's mode or owner.
 */
static int tg_config_write_file(struct tg_group *grp, const char *buf,
				size_t len, const struct file *file,
				const char **msg)
{
	if (!tg_file_admin(file)) {
		*msg = "writing it needs CAP_SYS_ADMIN in the initial user namespace";
		return -EPERM;
	}
	return tg_config_write(buf, len, msg);
}

/* --- the table ---------------------------------------------------------- */

const struct tg_cftype tg_files[] = {
	{
		.name	= "cgroup.procs",
		.mode	= 0644,
		.flags	= TG_CFT_PIDS | TG_CFT_TGIDS,
		.write	= tg_procs_write,
	}, {
		.name	= "tasks",
		.mode	= 0644,
		.flags	= TG_CFT_PIDS,
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
		.write	= tg_config_write_file,
	}, {
		.name	= "last_cmd_status",
		.mode	= 0444,
		.flags	= TG_CFT_ROOT_ONLY,
		.show	= tg_status_show,
	},
};

static_assert(ARRAY_SIZE(tg_files) <= TG_MAX_FILES);
const size_t tg_nr_files = ARRAY_SIZE(tg_files);
