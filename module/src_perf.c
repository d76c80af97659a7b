// SPDX-License-Identifier: GPL-2.0
/*
 * src_perf.c - the perf signal source: per-task kernel counters for the two
 * core OCR read events (ocr.all_data_rd.l3_miss_local_dram.any_snoop and
 * ocr.all_data_rd.pmm_hit_local_pmm.any_snoop), whose raw encodings
 * tgctl setup resolves with libpfm4 and writes into tgroup.config
 * (perf_type, ocr_dram_read_config, ocr_nvm_read_config).
 *
 * Counters live only in the regulation loop's hands: creating, reading and
 * releasing a perf event may sleep, and the fork/exit hooks may not. So:
 *  - the loop creates a task's pair of counters in the first period it
 *    sees the task in a group without them (a bounded number per period);
 *  - it reads every pair each period (outside the group's lock; a pair stays
 *    valid until the loop itself releases it) and sums them per group;
 *  - a member that leaves (exit, move to the root group, unmount) hands its
 *    pair to a lock-free list, released by the loop at its next period.
 * A move between child groups keeps the pair: the deltas count for the
 * group the task is in when they are read. A task that starts to exit
 * between the gather and the creation (-ESRCH) is simply skipped; only
 * other creation errors turn the source off until the encodings change.
 */
#include <linux/llist.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "tgroup.h"

#define TG_PERF_CREATE_MAX	32	/* new pairs per period */

struct tg_pcount {
	struct llist_node	node;		/* tg_perf_dead */
	struct perf_event	*ev[2];		/* [0] DRAM read, [1] NVM read */
	u64			last[2];
	u32			gen;		/* tg_perf_gen it was made for */
};

static LLIST_HEAD(tg_perf_dead);
static u32 tg_perf_gen;			/* bumps when the encodings change */
static u64 tg_perf_cfg[2];
static u32 tg_perf_type;
static int tg_perf_err;			/* creation failed for this gen */
static struct tg_pcount **tg_perf_scratch;
static size_t tg_perf_scratch_len;

static void tg_pcount_free(struct tg_pcount *pc)
{
	int i;

	for (i = 0; i < 2; i++)
		if (pc->ev[i])
			perf_event_release_kernel(pc->ev[i]);
	kfree(pc);
}

/**
 * tg_perf_member_gone() - a member leaves: its counters go to the loop
 * @m: the member being detached
 *
 * Context: m->grp->lock held (any context: lock-free list).
 */
void tg_perf_member_gone(struct tg_member *m)
{
	lockdep_assert_held(&m->grp->lock);
	if (m->pc) {
		llist_add(&m->pc->node, &tg_perf_dead);
		m->pc = NULL;
	}
}

static void tg_perf_release_dead(void)
{
	struct llist_node *n = llist_del_all(&tg_perf_dead);
	struct tg_pcount *pc, *tmp;

	llist_for_each_entry_safe(pc, tmp, n, node)
		tg_pcount_free(pc);
}

static struct tg_pcount *tg_pcount_create(struct task_struct *task)
{
	struct perf_event_attr attr = {
		.type		= tg_perf_type,
		.size		= sizeof(attr),
		.exclude_hv	= 1,
	};
	struct tg_pcount *pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	u64 en, run;
	int i;

	if (!pc)
		return NULL;
	pc->gen = tg_perf_gen;
	for (i = 0; i < 2; i++) {
		attr.config = tg_perf_cfg[i];
		pc->ev[i] = perf_event_create_kernel_counter(&attr, -1, task,
							     NULL, NULL);
		if (IS_ERR(pc->ev[i])) {
			/*
			 * -ESRCH: the task began to exit after it was gathered
			 * (perf's find_get_context() sees PF_EXITING, or the
			 * context is already TASK_TOMBSTONE). Nothing to count;
			 * any other error means the encodings do not work.
			 */
			if (PTR_ERR(pc->ev[i]) != -ESRCH)
				tg_perf_err = PTR_ERR(pc->ev[i]);
			pc->ev[i] = NULL;
			tg_pcount_free(pc);
			return NULL;
		}
		pc->last[i] = perf_event_read_value(pc->ev[i], &en, &run);
	}
	return pc;
}

/* the pairs of a group's members, and up to max tasks that have none */
static size_t tg_perf_gather(struct tg_group *grp, struct task_struct **need,
			     size_t *nr_need, size_t max_need)
{
	struct tg_member *m;
	size_t n = 0;

	lockdep_assert_held(&grp->lock);
	list_for_each_entry(m, &grp->members, gnode) {
		if (m->pc && m->pc->gen != tg_perf_gen)
			tg_perf_member_gone(m);		/* stale encodings */
		if (m->pc) {
			if (n < tg_perf_scratch_len)
				tg_perf_scratch[n] = m->pc;
			n++;
		} else if (*nr_need < max_need &&
			   !(m->task->flags & (PF_EXITING | PF_KTHREAD))) {
			get_task_struct(m->task);
			need[(*nr_need)++] = m->task;
		}
	}
	return n;
}

static int tg_perf_grow(size_t want)
{
	struct tg_pcount **s;

	if (want <= tg_perf_scratch_len)
		return 0;
	s = kvmalloc_array(want, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	kvfree(tg_perf_scratch);
	tg_perf_scratch = s;
	tg_perf_scratch_len = want;
	return 0;
}

/* adopt a new pair if its task is still a member of grp without one */
static void tg_perf_adopt(struct tg_group *grp, struct task_struct *task,
			  struct tg_pcount *pc)
{
	struct tg_member *m;
	struct tg_group *locked;

	rcu_read_lock();
	m = tg_member_find(task);
	if (m) {
		locked = tg_member_lock_group(m);
		if (locked == grp && !m->gone && !m->pc) {
			m->pc = pc;
			pc = NULL;
		}
		spin_unlock(&locked->lock);
	}
	rcu_read_unlock();
	if (pc)
		tg_pcount_free(pc);
}

/**
 * tg_perf_take() - a group's OCR line counts since the last period
 * @grp: group
 * @c:   the period's counters: dram/nvm_read_lines added, TG_IN_OCR set
 *
 * Context: the regulation loop (tg_mutex held); sleeps.
 */
void tg_perf_take(struct tg_group *grp, struct tg_counters *c)
{
	struct task_struct *need[TG_PERF_CREATE_MAX];
	size_t n, i, nr_need = 0;
	u64 sum[2] = { 0, 0 };

	lockdep_assert_held(&tg_mutex);
	if (!tg_perf_cfg[0] || !tg_perf_cfg[1] || tg_perf_err)
		return;
	for (;;) {
		spin_lock(&grp->lock);
		n = tg_perf_gather(grp, need, &nr_need, 0);
		spin_unlock(&grp->lock);
		if (n <= tg_perf_scratch_len || tg_perf_grow(n + n / 2 + 16))
			break;
	}
	spin_lock(&grp->lock);
	n = tg_perf_gather(grp, need, &nr_need, ARRAY_SIZE(need));
	spin_unlock(&grp->lock);
	n = min(n, tg_perf_scratch_len);

	/* pairs stay valid: only this loop releases them */
	for (i = 0; i < n; i++) {
		struct tg_pcount *pc = tg_perf_scratch[i];
		int k;

		for (k = 0; k < 2; k++) {
			u64 en, run, v = perf_event_read_value(pc->ev[k], &en, &run);

			sum[k] += v - pc->last[k];
			pc->last[k] = v;
		}
	}
	for (i = 0; i < nr_need; i++) {
		struct tg_pcount *pc = tg_perf_err ? NULL : tg_pcount_create(need[i]);

		if (pc)
			tg_perf_adopt(grp, need[i], pc);
		put_task_struct(need[i]);
	}
	c->present |= TG_IN_OCR;
	c->dram_read_lines += sum[0];
	c->nvm_read_lines += sum[1];
}

/**
 * tg_perf_period() - once per period, before any group: release what left,
 *                    follow encoding changes
 *
 * Context: the regulation loop (tg_mutex held).
 */
void tg_perf_period(void)
{
	lockdep_assert_held(&tg_mutex);
	tg_perf_release_dead();
	if (tg_perf_type != tg_cfg.perf_type ||
	    tg_perf_cfg[0] != tg_cfg.ocr_config[0] ||
	    tg_perf_cfg[1] != tg_cfg.ocr_config[1]) {
		tg_perf_type = tg_cfg.perf_type;
		tg_perf_cfg[0] = tg_cfg.ocr_config[0];
		tg_perf_cfg[1] = tg_cfg.ocr_config[1];
		tg_perf_gen++;
		tg_perf_err = 0;
	}
}

/**
 * tg_perf_state() - for tgroup.config
 * @buf:  output
 * @size: its size
 */
void tg_perf_state(char *buf, size_t size)
{
	if (!tg_cfg.ocr_config[0] || !tg_cfg.ocr_config[1])
		scnprintf(buf, size, "%s",
			  "unavailable: no OCR event encodings (ocr_dram_read_config, ocr_nvm_read_config)");
	else if (tg_perf_err)
		scnprintf(buf, size, "unavailable: cannot create the counters (error %d)",
			  tg_perf_err);
	else
		scnprintf(buf, size, "active");
}

/**
 * tg_perf_exit() - release every pair (unmount: members are gone already)
 *
 * Context: process context, no tgroup lock held; the loop is stopped.
 */
void tg_perf_exit(void)
{
	tg_perf_release_dead();
	kvfree(tg_perf_scratch);
	tg_perf_scratch = NULL;
	tg_perf_scratch_len = 0;
}
