// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - the one list of sources and the one list of actuators
 * (tg_plugin.h). The core iterates them (tg_source(), tg_actuator(),
 * tg_plugin()) where it needs them - the loop, group lifetime, mount and
 * unmount - and names no plug-in.
 * Adding a source is one file in sources/, one line below and one in
 * Kbuild.
 *
 * The tables are data: the order of a table is the order its plug-ins run
 * in, start in and report in tgroup.config; they stop in reverse.
 */
#include <linux/kernel.h>
#include <linux/slab.h>

#include "tg_plugin.h"

/*
 * Sources, in the order they run each period. Each take() fills only its
 * own fields, so for counters the order matters once: inject comes last,
 * so that in the guest (where it stands in for the hardware) the kinds it
 * was given replace what a hardware source measured, for counters and for
 * latency alike. The period() hooks run before any take() (perf reaps the
 * counters of members that left, rdt reads every RMID in one IPI round,
 * pmdk charges every page to its groups).
 */
static struct tg_source_ops *const tg_sources[] = {
	&tg_src_perf,		/* OCR reads per task (core PMU) */
	&tg_src_rdt,		/* MBM total per group */
	&tg_src_sample,		/* stores sampled by memory tier */
	&tg_src_vfs,		/* write(2) to DAX files */
	&tg_src_pmdk,		/* stores to mapped PMem, reported by libtgpmem */
	&tg_src_uncore,		/* RPQ occupancy/inserts: read latency */
	&tg_src_probe,		/* timed writes: write latency */
	&tg_src_inject,		/* the emulated platform's counters: last */
};

/* Actuators: the CPU quota first (it parks tasks), then MBA. */
static struct tg_actuator_ops *const tg_actuators[] = {
	&tg_act_cpu,
	&tg_act_mba,
};

#define TG_NR_SOURCES	ARRAY_SIZE(tg_sources)
#define TG_NR_ACTUATORS	ARRAY_SIZE(tg_actuators)

static size_t tg_grp_size;	/* all slots, laid out by tg_plugins_init() */

/**
 * tg_source() - the i-th source, in running order
 * @i: 0..
 *
 * Return: the source, or NULL past the last one.
 */
struct tg_source_ops *tg_source(unsigned int i)
{
	return i < TG_NR_SOURCES ? tg_sources[i] : NULL;
}

/**
 * tg_actuator() - the i-th actuator, in running order
 * @i: 0..
 *
 * Return: the actuator, or NULL past the last one.
 */
struct tg_actuator_ops *tg_actuator(unsigned int i)
{
	return i < TG_NR_ACTUATORS ? tg_actuators[i] : NULL;
}

/**
 * tg_plugin() - the common part of the i-th plug-in: sources, then actuators
 * @i: 0..
 *
 * Return: the plug-in, or NULL past the last one.
 */
struct tg_plugin *tg_plugin(unsigned int i)
{
	if (i < TG_NR_SOURCES)
		return &tg_sources[i]->p;
	if (i - TG_NR_SOURCES < TG_NR_ACTUATORS)
		return &tg_actuators[i - TG_NR_SOURCES]->p;
	return NULL;
}

/**
 * tg_nr_plugins() - how many plug-ins there are (for reverse order)
 *
 * Return: sources plus actuators.
 */
unsigned int tg_nr_plugins(void)
{
	return TG_NR_SOURCES + TG_NR_ACTUATORS;
}

/**
 * tg_plugins_grp_size() - bytes of plug-in state behind each group
 *
 * Return: the size group.c allocates for grp->priv.
 */
size_t tg_plugins_grp_size(void)
{
	return tg_grp_size;
}

/**
 * tg_plugins_init() - lay out the slots and init every plug-in (load)
 *
 * Also gives the static root group its slots.
 *
 * Context: module init, before any group exists but the root.
 * Return: 0, -ENOMEM, or the first init() error (every plug-in already
 * initialised is exited again).
 */
int tg_plugins_init(void)
{
	struct tg_plugin *p;
	unsigned int i;
	int ret;

	tg_grp_size = 0;
	for (i = 0; (p = tg_plugin(i)); i++) {
		p->slot_off = ALIGN(tg_grp_size, TG_SLOT_ALIGN);
		if (p->slot_size)
			tg_grp_size = p->slot_off + p->slot_size;
	}
	tg_root_group.priv = kzalloc(max_t(size_t, tg_grp_size, 1), GFP_KERNEL);
	if (!tg_root_group.priv)
		return -ENOMEM;
	for (i = 0; (p = tg_plugin(i)); i++) {
		ret = p->init ? p->init() : 0;
		if (ret)
			goto err;
	}
	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->group_added)
			p->group_added(&tg_root_group);
	return 0;

err:
	while (i--) {
		p = tg_plugin(i);
		if (p->exit)
			p->exit();
	}
	kfree(tg_root_group.priv);
	tg_root_group.priv = NULL;
	return ret;
}

/**
 * tg_plugins_exit() - exit every plug-in, in reverse (unload)
 *
 * Context: module exit; nothing is mounted.
 */
void tg_plugins_exit(void)
{
	struct tg_plugin *p;
	unsigned int i;

	for (i = tg_nr_plugins(); i--;) {
		p = tg_plugin(i);
		if (p->exit)
			p->exit();
	}
	kfree(tg_root_group.priv);
	tg_root_group.priv = NULL;
}

/**
 * tg_plugin_state() - the i-th line of tgroup.config's plug-in report
 * @i:    0.. (sources, then actuators, in table order)
 * @line: output, "source_<name>=<state>" or "actuator_<name>=<state>"
 * @size: its size
 *
 * Context: process context, takes tg_mutex.
 * Return: false past the last plug-in.
 */
bool tg_plugin_state(unsigned int i, char *line, size_t size)
{
	struct tg_plugin *p = tg_plugin(i);
	size_t n;

	if (!p)
		return false;
	n = scnprintf(line, size, "%s_%s=", i < TG_NR_SOURCES ? "source" : "actuator",
		      p->name);
	mutex_lock(&tg_mutex);
	if (p->state)
		p->state(line + n, size - n);
	else
		scnprintf(line + n, size - n, "active");
	mutex_unlock(&tg_mutex);
	return true;
}
