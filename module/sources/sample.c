// SPDX-License-Identifier: GPL-2.0
/*
 * sample.c - the store-sampling signal source: precise store samples
 * with their data address, classified by the NUMA node of the page - a
 * node with CPUs is DRAM, a memory-only node the slow tier (how CXL memory
 * appears). The estimator uses the ratio to split the group's write
 * traffic (CXL writes are plain stores: no VFS, no PMDK).
 *
 * User mode only (exclude_kernel): stores the kernel makes for a task to a
 * DAX file are the vfs source's, counted exactly, and a sample's data
 * address must be a user address anyway.
 *
 * One sampling event per online CPU (tgroup.config store_sample_type,
 * store_sample_config - e.g. mem_inst_retired.all_stores, precise -
 * store_sample_period), created at the first period it is configured and
 * released at unmount. The overflow handler runs in NMI context: it looks
 * the current task up (lock-free), finds the sampled page and bumps
 * atomics; perf's own sample-rate limit and the period bound the rate.
 *
 * The page comes from the sample's virtual address, not its physical
 * address. With an overflow handler of our own, __perf_event_overflow()
 * (6.1 and 6.12 alike) calls it directly: perf_prepare_sample(), which
 * fills data->phys_addr (perf_virt_to_phys()), runs only in the default
 * handler's output path (and for BPF programs in 6.12), and
 * perf_sample_data_init() sets only sample_flags, period and - when given
 * one - addr. data->addr is valid exactly when sample_flags has
 * PERF_SAMPLE_ADDR: set by perf_sample_data_init() for software events
 * with an address (page faults) and by x86 PEBS with the data linear
 * address (intel/ds.c) - the test perf itself makes before using it for
 * sigtrap. The page is then looked up as perf_virt_to_phys() does from
 * the same NMI context: a user address below TASK_SIZE of a task with an
 * mm, through get_user_page_fast_only(), the lockless GUP-fast walk.
 * Interrupts are off, so the page tables cannot be freed under it; a page
 * being unmapped either fails the walk's recheck or is still held by the
 * unmap's TLB gather until this CPU has answered the flush IPI, so the
 * reference dropped here is not the last. Anything else - no address, a
 * kernel address, a page not present - is not counted.
 *
 * Not run on hardware with precise store events (none here). In the guest
 * the software page-fault event stands in at the perf boundary (it carries
 * the faulting address the same way); the real encodings cannot be
 * created there and tgroup.config says so.
 */
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "tg_plugin.h"

static struct perf_event **tg_smp_ev;
static unsigned int tg_smp_nr;
static u64 tg_smp_cfg[3];		/* type, config, period in use */
static int tg_smp_err;

/* A group's samples since the last period, [0] DRAM [1] slow tier. */
struct tg_sample_grp {
	atomic64_t	n[2];
};

static struct tg_sample_grp *tg_sample_of(struct tg_group *grp)
{
	return tg_grp_slot(grp, &tg_src_sample.p);
}

/* The NUMA node of the page at a user address, or NUMA_NO_NODE (NMI-safe). */
static int tg_sample_node(unsigned long addr)
{
	struct page *page;
	int nid = NUMA_NO_NODE;

	if (!addr || addr >= TASK_SIZE || !current->mm)
		return NUMA_NO_NODE;
	pagefault_disable();
	if (get_user_page_fast_only(addr, 0, &page)) {
		nid = page_to_nid(page);
		put_page(page);
	}
	pagefault_enable();
	return nid;
}

static void tg_on_store_sample(struct perf_event *ev,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct tg_member *m;
	int nid;

	if (!(data->sample_flags & PERF_SAMPLE_ADDR))
		return;		/* data->addr was never written */
	rcu_read_lock();
	m = tg_member_find(current);
	if (m) {
		nid = tg_sample_node(data->addr);
		if (nid != NUMA_NO_NODE)
			atomic64_inc(&tg_sample_of(READ_ONCE(m->grp))->n[!node_state(nid, N_CPU)]);
	}
	rcu_read_unlock();
}

static void tg_sample_release(void)
{
	unsigned int i;

	for (i = 0; i < tg_smp_nr; i++)
		if (tg_smp_ev[i])
			perf_event_release_kernel(tg_smp_ev[i]);
	kfree(tg_smp_ev);
	tg_smp_ev = NULL;
	tg_smp_nr = 0;
}

static int tg_sample_create(void)
{
	struct perf_event_attr attr = {
		.type		= tg_cfg.store_type,
		.size		= sizeof(attr),
		.config		= tg_cfg.store_config,
		.sample_period	= tg_cfg.store_period,
		.sample_type	= PERF_SAMPLE_ADDR,	/* PEBS: record the data address */
		.precise_ip	= 2,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
	};
	int cpu;

	tg_smp_ev = kcalloc(nr_cpu_ids, sizeof(*tg_smp_ev), GFP_KERNEL);
	if (!tg_smp_ev)
		return -ENOMEM;
	tg_smp_nr = nr_cpu_ids;
	for_each_online_cpu(cpu) {
		struct perf_event *ev = tg_perf_counter(&attr, cpu, NULL, tg_on_store_sample,
							TG_PMU_CPU);

		if (IS_ERR(ev))
			return PTR_ERR(ev);
		tg_smp_ev[cpu] = ev;
	}
	return 0;
}

/* Follow the configuration, once per period; sleeps. */
static void tg_sample_period(void)
{
	u64 want[3] = { tg_cfg.store_type, tg_cfg.store_config, tg_cfg.store_period };

	lockdep_assert_held(&tg_mutex);
	if (!memcmp(want, tg_smp_cfg, sizeof(want)))
		return;
	tg_sample_release();
	memcpy(tg_smp_cfg, want, sizeof(want));
	tg_smp_err = 0;
	if (tg_cfg.store_config) {
		tg_smp_err = tg_sample_create();
		if (tg_smp_err)
			tg_sample_release();
	}
}

/* A group's store samples by tier since the last period. */
static void tg_sample_take(struct tg_group *grp, struct tg_counters *c)
{
	struct tg_sample_grp *sg = tg_sample_of(grp);

	if (!tg_smp_ev)
		return;
	tg_take_count(c, TG_IN_SAMPLES, &c->dram_store_samples, &sg->n[0]);
	tg_take_count(c, TG_IN_SAMPLES, &c->nvm_store_samples, &sg->n[1]);
}

static void tg_sample_state(char *buf, size_t size)
{
	if (!tg_cfg.store_config)
		scnprintf(buf, size, "%s",
			  "unavailable: no store event encoding (store_sample_config)");
	else if (tg_smp_err == -EPERM)
		scnprintf(buf, size,
			  "unavailable: store_sample_type %u is not the CPU's PMU or a software event",
			  tg_cfg.store_type);
	else if (tg_smp_err)
		scnprintf(buf, size, "unavailable: cannot create the sampling events (error %d)",
			  tg_smp_err);
	else if (tg_smp_ev)
		scnprintf(buf, size, "%s", "active");
	else
		scnprintf(buf, size, "%s", "configured (starts next period)");
}

/* Unmount (the loop is stopped): release the events. */
static void tg_sample_stop(void)
{
	tg_sample_release();
	memset(tg_smp_cfg, 0, sizeof(tg_smp_cfg));
	tg_smp_err = 0;
}

struct tg_source_ops tg_src_sample __ro_after_init = {
	.p = { .name = "store_sampling", .slot_size = TG_SLOT_SIZE(struct tg_sample_grp),
	       .stop = tg_sample_stop, .state = tg_sample_state },
	.period = tg_sample_period, .take = tg_sample_take,
};
