// SPDX-License-Identifier: GPL-2.0
/*
 * inject.c - the inject signal source: counter deltas written by the
 * emulated platform or by tests to /sys/kernel/debug/tgroup/inject (module
 * parameter inject=1). The only hardware-counter source inside the QEMU
 * guest; never enabled on real hardware unless asked for.
 *
 * One write carries one or more lines (grammar: tg_parse_inject()); it is
 * all-or-nothing: a bad line or an unknown group fails the whole write
 * with EINVAL and last_cmd_status says why. Deltas accumulate until the
 * next period takes them; probe latencies are the latest written.
 * "pin group=NAME cpu_quota_us=N" fixes a group's CPU quota regardless of
 * the regulator (0 removes the pin; regulator off lifts it like any
 * throttle): a control for testing the CPU actuator on its own.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tg_plugin.h"

#define TG_INJECT_WRITE_MAX	16384
#define TG_INJECT_LINES_MAX	256

static struct dentry *tg_debugfs_dir;

/* A group's deltas waiting for the next period (its slot). */
struct tg_inject_grp {
	spinlock_t		lock;		/* the writer against the loop */
	struct tg_counters	c;
	u64			read_rem[2];	/* bytes short of a line */
};

static struct tg_inject_grp *tg_inj_of(struct tg_group *grp)
{
	return tg_grp_slot(grp, &tg_src_inject.p);
}

/* a parsed line and, for group lines, its group */
struct tg_inject_line {
	struct tg_inject in;
	struct tg_group *grp;
};

static DEFINE_SPINLOCK(tg_inj_lat_lock);
static struct tg_latency_in tg_inj_lat;

static struct tg_group *tg_group_by_name(const char *name, size_t len)
{
	struct tg_group *grp;

	lockdep_assert_held(&tg_mutex);
	list_for_each_entry(grp, &tg_groups, node)
		if (strlen(grp->name) == len && !memcmp(grp->name, name, len))
			return grp;
	return NULL;
}

static void tg_inject_group(struct tg_group *grp, const struct tg_inject *in)
{
	struct tg_inject_grp *ig = tg_inj_of(grp);
	struct tg_counters *c = &ig->c;
	u32 has = in->present;

	spin_lock(&ig->lock);
	if (has & (BIT(TG_INJ_DRAM_READ) | BIT(TG_INJ_NVM_READ))) {
		c->present |= TG_IN_OCR;
		/* bytes in, lines out: keep what is short of a line */
		ig->read_rem[0] = tg_sat_add(ig->read_rem[0],
					     in->v[TG_INJ_DRAM_READ]);
		ig->read_rem[1] = tg_sat_add(ig->read_rem[1],
					     in->v[TG_INJ_NVM_READ]);
	}
	if (has & BIT(TG_INJ_MBM)) {
		c->present |= TG_IN_MBM;
		c->mbm_bytes = tg_sat_add(c->mbm_bytes, in->v[TG_INJ_MBM]);
	}
	if (has & (BIT(TG_INJ_DRAM_SAMPLES) | BIT(TG_INJ_NVM_SAMPLES))) {
		c->present |= TG_IN_SAMPLES;
		c->dram_store_samples = tg_sat_add(c->dram_store_samples,
						   in->v[TG_INJ_DRAM_SAMPLES]);
		c->nvm_store_samples = tg_sat_add(c->nvm_store_samples,
						  in->v[TG_INJ_NVM_SAMPLES]);
	}
	spin_unlock(&ig->lock);
}

static void tg_inject_latency(const struct tg_inject *in)
{
	struct tg_latency_in *l = &tg_inj_lat;
	u32 has = in->present;

	spin_lock(&tg_inj_lat_lock);
	if (in->kind == TG_INJ_UNCORE) {
		l->present |= TG_LAT_UNCORE;
		l->dram_rpq_occupancy = tg_sat_add(l->dram_rpq_occupancy, in->v[TG_INJ_DRAM_OCC]);
		l->dram_rpq_inserts = tg_sat_add(l->dram_rpq_inserts, in->v[TG_INJ_DRAM_INS]);
		l->nvm_rpq_occupancy = tg_sat_add(l->nvm_rpq_occupancy, in->v[TG_INJ_NVM_OCC]);
		l->nvm_rpq_inserts = tg_sat_add(l->nvm_rpq_inserts, in->v[TG_INJ_NVM_INS]);
		if (has & BIT(TG_INJ_KHZ))
			l->uncore_khz = (u32)min_t(u64, in->v[TG_INJ_KHZ], U32_MAX);
	} else {
		l->present |= TG_LAT_PROBE;
		if (has & BIT(TG_INJ_DRAM_WRITE_NS))
			l->dram_write_ns = in->v[TG_INJ_DRAM_WRITE_NS];
		if (has & BIT(TG_INJ_NVM_WRITE_NS))
			l->nvm_write_ns = in->v[TG_INJ_NVM_WRITE_NS];
	}
	spin_unlock(&tg_inj_lat_lock);
}

/* Parse every line first; apply only if all are good. */
static int tg_inject_lines(char *buf, struct tg_inject_line *lines,
			   const char **msg)
{
	unsigned int n = 0, i;
	char *line;

	while ((line = strsep(&buf, "\n"))) {
		if (!*line)
			continue;
		if (n == TG_INJECT_LINES_MAX) {
			*msg = "too many lines in one write";
			return -EINVAL;
		}
		if (tg_parse_inject(line, strlen(line), &lines[n].in, msg))
			return -EINVAL;
		n++;
	}
	if (!n) {
		*msg = "empty write";
		return -EINVAL;
	}
	mutex_lock(&tg_mutex);
	for (i = 0; i < n; i++) {
		lines[i].grp = NULL;
		if (lines[i].in.kind != TG_INJ_GROUP && lines[i].in.kind != TG_INJ_PIN)
			continue;
		lines[i].grp = tg_group_by_name(lines[i].in.name,
						lines[i].in.name_len);
		if (!lines[i].grp) {
			mutex_unlock(&tg_mutex);
			*msg = "no such group";
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++) {
		if (lines[i].in.kind == TG_INJ_PIN)
			lines[i].grp->cpu_pin_us = lines[i].in.v[TG_INJ_PIN_CPU_QUOTA];
		else if (lines[i].grp)
			tg_inject_group(lines[i].grp, &lines[i].in);
		else
			tg_inject_latency(&lines[i].in);
	}
	mutex_unlock(&tg_mutex);
	return 0;
}

static ssize_t tg_inject_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	const char *msg = "invalid argument";
	struct tg_inject_line *lines;
	char *buf;
	int ret;

	if (!len || len > TG_INJECT_WRITE_MAX) {
		tg_set_status("inject: %s", len ? "write too long" : "empty write");
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	lines = kvmalloc_array(TG_INJECT_LINES_MAX, sizeof(*lines), GFP_KERNEL);
	if (!lines) {
		kfree(buf);
		return -ENOMEM;
	}
	ret = tg_inject_lines(buf, lines, &msg);
	kvfree(lines);
	kfree(buf);
	if (ret) {
		tg_set_status("inject: %s", msg);
		return ret;
	}
	tg_set_status_ok();
	return len;
}

static const struct file_operations tg_inject_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tg_inject_write,
	.llseek	= noop_llseek,
};

/*
 * A group's injected deltas, for the period. Inject runs last
 * (registry.c): in the guest it stands in for the hardware, so the kinds it
 * was given replace what a hardware source measured.
 */
static void tg_inject_take(struct tg_group *grp, struct tg_counters *c)
{
	struct tg_inject_grp *ig = tg_inj_of(grp);
	const struct tg_counters *in = &ig->c;

	if (!tg_inject_enabled)
		return;
	spin_lock(&ig->lock);
	c->present |= in->present;
	if (in->present & TG_IN_OCR) {
		c->dram_read_lines = div_u64(ig->read_rem[0], TG_CACHE_LINE);
		c->nvm_read_lines = div_u64(ig->read_rem[1], TG_CACHE_LINE);
		ig->read_rem[0] -= c->dram_read_lines * TG_CACHE_LINE;
		ig->read_rem[1] -= c->nvm_read_lines * TG_CACHE_LINE;
	}
	if (in->present & TG_IN_MBM)
		c->mbm_bytes = in->mbm_bytes;
	if (in->present & TG_IN_SAMPLES) {
		c->dram_store_samples = in->dram_store_samples;
		c->nvm_store_samples = in->nvm_store_samples;
	}
	memset(&ig->c, 0, sizeof(ig->c));
	spin_unlock(&ig->lock);
}

/*
 * The period's injected latency inputs: the kinds that were injected
 * (uncore, probe) replace what the hardware sources measured; uncore
 * deltas are consumed, probe values persist.
 */
static void tg_inject_take_latency(struct tg_latency_in *in)
{
	const struct tg_latency_in *l = &tg_inj_lat;

	if (!tg_inject_enabled)
		return;
	spin_lock(&tg_inj_lat_lock);
	if (l->present & TG_LAT_UNCORE) {
		in->present |= TG_LAT_UNCORE;
		in->dram_rpq_occupancy = l->dram_rpq_occupancy;
		in->dram_rpq_inserts = l->dram_rpq_inserts;
		in->nvm_rpq_occupancy = l->nvm_rpq_occupancy;
		in->nvm_rpq_inserts = l->nvm_rpq_inserts;
		in->uncore_khz = l->uncore_khz;
	}
	if (l->present & TG_LAT_PROBE) {
		in->present |= TG_LAT_PROBE;
		in->dram_write_ns = l->dram_write_ns;
		in->nvm_write_ns = l->nvm_write_ns;
	}
	tg_inj_lat.dram_rpq_occupancy = 0;
	tg_inj_lat.dram_rpq_inserts = 0;
	tg_inj_lat.nvm_rpq_occupancy = 0;
	tg_inj_lat.nvm_rpq_inserts = 0;
	tg_inj_lat.present &= ~TG_LAT_UNCORE;
	spin_unlock(&tg_inj_lat_lock);
}

static void tg_inject_group_added(struct tg_group *grp)
{
	spin_lock_init(&tg_inj_of(grp)->lock);
}

static void tg_inject_state(char *buf, size_t size)
{
	scnprintf(buf, size, "%s", tg_inject_enabled ? "active" :
		  "unavailable: module parameter inject=0");
}

/*
 * Load, not mount: the file is how tests and the emulated platform reach
 * the module, and it is the same file for every mount. Published last
 * (tg_plugin.h): no load that fails ever had it.
 */
static void tg_inject_publish(void)
{
	if (!tg_inject_enabled)
		return;
	tg_debugfs_dir = debugfs_create_dir("tgroup", NULL);
	debugfs_create_file("inject", 0200, tg_debugfs_dir, NULL, &tg_inject_fops);
	/* debugfs failures only leave the source without its file */
}

static void tg_inject_unpublish(void)
{
	debugfs_remove(tg_debugfs_dir);
	tg_debugfs_dir = NULL;
}

struct tg_source_ops tg_src_inject __ro_after_init = {
	.p = { .name = "inject", .slot_size = TG_SLOT_SIZE(struct tg_inject_grp),
	       .publish = tg_inject_publish, .unpublish = tg_inject_unpublish,
	       .group_added = tg_inject_group_added,
	       .state = tg_inject_state },
	.take = tg_inject_take, .take_latency = tg_inject_take_latency,
};
