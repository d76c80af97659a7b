// SPDX-License-Identifier: GPL-2.0
/*
 * uncore.c - the uncore signal source: per-socket memory-controller
 * read-queue occupancy and inserts for DRAM (unc_m_rpq_occupancy,
 * unc_m_rpq_inserts) and NVM (unc_m_pmm_rpq_occupancy.all,
 * unc_m_pmm_rpq_inserts), summed over sockets each period; the detector
 * turns them into read latency by Little's law with uncore_khz.
 *
 * The PMU type (an iMC channel's, from /sys/bus/event_source/devices/
 * uncore_imc_N/type) and the four configs come from tgroup.config (tgctl
 * setup). One channel per socket is sampled: queue latency is shared by
 * the channels of a controller. Counters are bound to the first online CPU
 * of each package, created and read only by the regulation loop. The type
 * must be a PMU that counts system-wide (or a software event, the guest's
 * stand-in): module/perfev.c. An uncore counter has no user or kernel
 * mode to leave out: it counts the memory controller.
 */
#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "tg_plugin.h"

#define TG_UNCORE_EVENTS	4

struct tg_uncore_socket {
	int			cpu;
	struct perf_event	*ev[TG_UNCORE_EVENTS];
	u64			last[TG_UNCORE_EVENTS];
};

static struct tg_uncore_socket *tg_unc;
static unsigned int tg_unc_nr;
static u64 tg_unc_cfg[TG_UNCORE_EVENTS];
static u32 tg_unc_type;
static int tg_unc_err;

static bool tg_uncore_configured(void)
{
	int i;

	for (i = 0; i < TG_UNCORE_EVENTS; i++)
		if (!tg_cfg.uncore_config[i])
			return false;
	return tg_cfg.uncore_type != 0;
}

static void tg_uncore_release(void)
{
	unsigned int s;
	int i;

	for (s = 0; s < tg_unc_nr; s++)
		for (i = 0; i < TG_UNCORE_EVENTS; i++)
			if (tg_unc[s].ev[i])
				perf_event_release_kernel(tg_unc[s].ev[i]);
	kfree(tg_unc);
	tg_unc = NULL;
	tg_unc_nr = 0;
}

/* one CPU per package, four counters on it */
static int tg_uncore_create(void)
{
	struct perf_event_attr attr = {
		.type = tg_unc_type,
		.size = sizeof(attr),
	};
	unsigned int s, n = 0;
	int cpu, other, i;
	u64 en, run;

	tg_unc = kcalloc(num_online_cpus(), sizeof(*tg_unc), GFP_KERNEL);
	if (!tg_unc)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		bool first = true;

		for (s = 0; s < n; s++) {
			other = tg_unc[s].cpu;
			if (topology_physical_package_id(other) ==
			    topology_physical_package_id(cpu))
				first = false;
		}
		if (first)
			tg_unc[n++].cpu = cpu;
	}
	tg_unc_nr = n;
	for (s = 0; s < n; s++)
		for (i = 0; i < TG_UNCORE_EVENTS; i++) {
			struct perf_event *ev;

			attr.config = tg_unc_cfg[i];
			ev = tg_perf_counter(&attr, tg_unc[s].cpu, NULL, NULL,
					     TG_PMU_UNCORE);
			if (IS_ERR(ev))
				return PTR_ERR(ev);
			tg_unc[s].ev[i] = ev;
			tg_unc[s].last[i] = perf_event_read_value(ev, &en, &run);
		}
	return 0;
}

/*
 * The period's RPQ deltas, summed over sockets (the uncore fields of @in).
 * The counters follow tgroup.config: created, or re-created, at the first
 * period after it names them. Sleeps.
 */
static void tg_uncore_take_latency(struct tg_latency_in *in)
{
	u64 sum[TG_UNCORE_EVENTS] = { 0 };
	unsigned int s;
	int i;

	lockdep_assert_held(&tg_mutex);
	if (tg_unc_type != tg_cfg.uncore_type ||
	    memcmp(tg_unc_cfg, tg_cfg.uncore_config, sizeof(tg_unc_cfg))) {
		tg_uncore_release();
		tg_unc_type = tg_cfg.uncore_type;
		memcpy(tg_unc_cfg, tg_cfg.uncore_config, sizeof(tg_unc_cfg));
		tg_unc_err = 0;
		if (tg_uncore_configured()) {
			tg_unc_err = tg_uncore_create();
			if (tg_unc_err)
				tg_uncore_release();
		}
	}
	if (!tg_unc)
		return;
	for (s = 0; s < tg_unc_nr; s++)
		for (i = 0; i < TG_UNCORE_EVENTS; i++) {
			u64 en, run, v = perf_event_read_value(tg_unc[s].ev[i], &en, &run);

			sum[i] += v - tg_unc[s].last[i];
			tg_unc[s].last[i] = v;
		}
	in->present |= TG_LAT_UNCORE;
	in->dram_rpq_occupancy = sum[0];
	in->dram_rpq_inserts = sum[1];
	in->nvm_rpq_occupancy = sum[2];
	in->nvm_rpq_inserts = sum[3];
	in->uncore_khz = tg_cfg.uncore_khz;
}

static void tg_uncore_state(char *buf, size_t size)
{
	if (!tg_uncore_configured())
		scnprintf(buf, size, "%s",
			  "unavailable: no uncore PMU type and RPQ event encodings");
	else if (tg_unc_err == -EPERM)
		scnprintf(buf, size,
			  "unavailable: uncore_type %u is not a system-wide (uncore) PMU or a software event",
			  tg_cfg.uncore_type);
	else if (tg_unc_err)
		scnprintf(buf, size, "unavailable: cannot create the counters (error %d)",
			  tg_unc_err);
	else if (tg_unc)
		scnprintf(buf, size, "active on %u socket(s)", tg_unc_nr);
	else
		scnprintf(buf, size, "%s", "configured (starts next period)");
}

/* Unmount (the loop is stopped): release the counters. */
static void tg_uncore_stop(void)
{
	tg_uncore_release();
	tg_unc_type = 0;
	memset(tg_unc_cfg, 0, sizeof(tg_unc_cfg));
	tg_unc_err = 0;
}

struct tg_source_ops tg_src_uncore __ro_after_init = {
	.p = { .name = "uncore", .stop = tg_uncore_stop, .state = tg_uncore_state },
	.take_latency = tg_uncore_take_latency,
};
