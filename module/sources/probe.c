// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - the probe signal source: write latency per tier, measured
 * each period by timing non-temporal stores + sfence to one page on a node
 * with CPUs (DRAM) and one page on a memory-only node (the slow tier: CXL
 * memory, or PMem onlined as system RAM, appears as a CPU-less node).
 *
 * Opt-in (module parameter probe=1): a guest under TCG has no meaningful
 * write latency, so there the inject source speaks for the hardware.
 */
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/preempt.h>
#include <linux/topology.h>

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "tg_plugin.h"

#define TG_PROBE_LINES	8	/* cache lines written per tier and period */

static bool tg_probe_enabled;
module_param_named(probe, tg_probe_enabled, bool, 0444);
MODULE_PARM_DESC(probe, "Enable the probe source: timed writes to a DRAM and a slow-tier page");

static struct page *tg_probe_page[2];	/* [0] DRAM, [1] slow tier */
static const char *tg_probe_reason = "unavailable: module parameter probe=0";

#ifdef CONFIG_X86_64
/* ns per 64-byte non-temporal line, stores drained by sfence */
static u64 tg_time_nt_lines(void *dst)
{
	u64 *p = dst, t0, t1;
	unsigned int i, w;

	preempt_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < TG_PROBE_LINES; i++)
		for (w = 0; w < 8; w++)
			asm volatile("movnti %1, %0" : "=m"(p[i * 8 + w]) : "r"((u64)i));
	asm volatile("sfence" ::: "memory");
	t1 = ktime_get_ns();
	preempt_enable();
	return div_u64(t1 - t0, TG_PROBE_LINES);
}
#endif

/* Measure both tiers for this period (the probe fields of @in). */
static void tg_probe_take_latency(struct tg_latency_in *in)
{
#ifdef CONFIG_X86_64
	if (!tg_probe_page[0])
		return;
	in->present |= TG_LAT_PROBE;
	in->dram_write_ns = tg_time_nt_lines(page_address(tg_probe_page[0]));
	in->nvm_write_ns = tg_time_nt_lines(page_address(tg_probe_page[1]));
#endif
}

static void tg_probe_state(char *buf, size_t size)
{
	scnprintf(buf, size, "%s", tg_probe_page[0] ? "active" : tg_probe_reason);
}

/*
 * Mount: find the tiers and allocate one page on each. Without a CPU-less
 * node (or off x86-64) the source is unavailable, with the reason in
 * tgroup.config; not an error.
 */
static void tg_probe_start(void)
{
	int nid, dram = numa_node_id(), slow = NUMA_NO_NODE;

	if (!tg_probe_enabled)
		return;
	if (!IS_ENABLED(CONFIG_X86_64)) {
		tg_probe_reason = "unavailable: needs x86-64 non-temporal stores";
		return;
	}
	for_each_node_state(nid, N_MEMORY)
		if (!node_state(nid, N_CPU)) {
			slow = nid;
			break;
		}
	if (slow == NUMA_NO_NODE) {
		tg_probe_reason = "unavailable: no CPU-less (slow-tier) memory node";
		return;
	}
	tg_probe_page[0] = alloc_pages_node(dram, GFP_KERNEL | __GFP_THISNODE, 0);
	tg_probe_page[1] = alloc_pages_node(slow, GFP_KERNEL | __GFP_THISNODE, 0);
	if (!tg_probe_page[0] || !tg_probe_page[1]) {
		if (tg_probe_page[0])
			__free_page(tg_probe_page[0]);
		if (tg_probe_page[1])
			__free_page(tg_probe_page[1]);
		tg_probe_page[0] = NULL;
		tg_probe_page[1] = NULL;
		tg_probe_reason = "unavailable: no page on a tier";
		return;
	}
	pr_info("tgroup: probe pages on node %d (DRAM) and node %d (slow tier)\n",
		page_to_nid(tg_probe_page[0]), page_to_nid(tg_probe_page[1]));
}

/* Unmount (the loop is stopped): free the probe pages. */
static void tg_probe_stop(void)
{
	if (!tg_probe_page[0])
		return;
	__free_page(tg_probe_page[0]);
	__free_page(tg_probe_page[1]);
	tg_probe_page[0] = NULL;
	tg_probe_page[1] = NULL;
}

struct tg_source_ops tg_src_probe __ro_after_init = {
	.p = { .name = "probe", .start = tg_probe_start, .stop = tg_probe_stop,
	       .state = tg_probe_state },
	.take_latency = tg_probe_take_latency,
};
