// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - the perf signal source: per-task kernel counters for the two
 * core OCR read events (ocr.all_data_rd.l3_miss_local_dram.any_snoop and
 * ocr.all_data_rd.pmm_hit_local_pmm.any_snoop), whose raw encodings
 * tgctl setup resolves with libpfm4 and writes into tgroup.config
 * (perf_type, ocr_{dram,nvm}_read_config and their _config1: an OCR event
 * is its config and the value of its response MSR, perf's config1).
 *
 * The counters count kernel mode too: a member's read(2) of a DAX or page
 * cache file moves its data in the kernel (copy_to_user() from NVM or
 * DRAM), and those are the member's reads. They count only while a member
 * runs; the encodings are the administrator's and may only name the CPU's
 * PMU or a software event (module/perfev.c).
 *
 * Creating, reading and releasing a perf event may sleep, and the fork/exit
 * hooks may not. So:
 *  - the loop asks for a task's pair of counters in the first period it
 *    sees the task in a group without them (a bounded batch), and a work
 *    item of this source creates them outside tg_mutex (creation can be
 *    slow: it must not hold up the files or the period) with the
 *    encodings of the batch, then hands each pair to the task's member;
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
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "tg_plugin.h"

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
static u64 tg_perf_cfg1[2];
static u32 tg_perf_type;
static int tg_perf_err;			/* creation failed for this gen */
static struct tg_pcount **tg_perf_scratch;
static size_t tg_perf_scratch_len;

/* Tasks waiting for their pair, with the encodings they are wanted for. */
static struct {
	struct mutex		lock;	/* the batch (loop adds, work takes) */
	struct task_struct	*task[TG_PERF_CREATE_MAX];	/* reference held */
	unsigned int		nr;
	u32			gen, type;
	u64			cfg[2], cfg1[2];
} tg_perf_batch = { .lock = __MUTEX_INITIALIZER(tg_perf_batch.lock) };

static void tg_perf_create_fn(struct work_struct *work);
static DECLARE_WORK(tg_perf_create_work, tg_perf_create_fn);

static void tg_pcount_free(struct tg_pcount *pc)
{
	int i;

	for (i = 0; i < 2; i++)
		if (pc->ev[i])
			perf_event_release_kernel(pc->ev[i]);
	kfree(pc);
}

/* A member leaves: its counters go to the loop (lock-free list). */
static void tg_perf_member_gone(struct tg_member *m)
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

static struct tg_pcount *tg_pcount_create(struct task_struct *task, u32 gen,
					  u32 type, const u64 *cfg, const u64 *cfg1)
{
	struct perf_event_attr attr = {
		.type		= type,
		.size		= sizeof(attr),
		.exclude_hv	= 1,
	};
	struct tg_pcount *pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	u64 en, run;
	int i;

	if (!pc)
		return NULL;
	pc->gen = gen;
	for (i = 0; i < 2; i++) {
		attr.config = cfg[i];
		attr.config1 = cfg1[i];
		pc->ev[i] = tg_perf_counter(&attr, -1, task, NULL, TG_PMU_CPU);
		if (IS_ERR(pc->ev[i])) {
			/*
			 * -ESRCH: the task began to exit after it was gathered
			 * (perf's find_get_context() sees PF_EXITING, or the
			 * context is already TASK_TOMBSTONE). Nothing to count;
			 * any other error means the encodings do not work
			 * (-EPERM: not a PMU this source may use, perfev.c).
			 */
			if (PTR_ERR(pc->ev[i]) != -ESRCH && gen == READ_ONCE(tg_perf_gen))
				WRITE_ONCE(tg_perf_err, PTR_ERR(pc->ev[i]));
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

/* A new pair goes to the task's member, if it is still in a group without one. */
static void tg_perf_adopt(struct task_struct *task, struct tg_pcount *pc)
{
	struct tg_member *m;
	struct tg_group *locked;

	rcu_read_lock();
	m = tg_member_find(task);
	if (m) {
		locked = tg_member_lock_group(m);
		if (!m->gone && !m->pc) {
			m->pc = pc;
			pc = NULL;
		}
		spin_unlock(&locked->lock);
	}
	rcu_read_unlock();
	if (pc)
		tg_pcount_free(pc);
}

static void tg_perf_create_fn(struct work_struct *work)
{
	struct task_struct *task[TG_PERF_CREATE_MAX];
	unsigned int i, nr;
	u32 gen, type;
	u64 cfg[2], cfg1[2];

	mutex_lock(&tg_perf_batch.lock);
	nr = tg_perf_batch.nr;
	memcpy(task, tg_perf_batch.task, nr * sizeof(*task));
	tg_perf_batch.nr = 0;
	gen = tg_perf_batch.gen;
	type = tg_perf_batch.type;
	cfg[0] = tg_perf_batch.cfg[0];
	cfg[1] = tg_perf_batch.cfg[1];
	cfg1[0] = tg_perf_batch.cfg1[0];
	cfg1[1] = tg_perf_batch.cfg1[1];
	mutex_unlock(&tg_perf_batch.lock);

	for (i = 0; i < nr; i++) {
		struct tg_pcount *pc = NULL;

		if (!READ_ONCE(tg_perf_err) && gen == READ_ONCE(tg_perf_gen))
			pc = tg_pcount_create(task[i], gen, type, cfg, cfg1);
		if (pc)
			tg_perf_adopt(task[i], pc);
		put_task_struct(task[i]);
	}
}

/* Queue tasks for their pair (each once), with today's encodings. */
static void tg_perf_request(struct task_struct **need, size_t nr_need)
{
	unsigned int i, j;

	lockdep_assert_held(&tg_mutex);
	mutex_lock(&tg_perf_batch.lock);
	if (tg_perf_batch.gen != tg_perf_gen) {
		tg_perf_batch.gen = tg_perf_gen;
		tg_perf_batch.type = tg_perf_type;
		tg_perf_batch.cfg[0] = tg_perf_cfg[0];
		tg_perf_batch.cfg[1] = tg_perf_cfg[1];
		tg_perf_batch.cfg1[0] = tg_perf_cfg1[0];
		tg_perf_batch.cfg1[1] = tg_perf_cfg1[1];
	}
	for (i = 0; i < nr_need; i++) {
		for (j = 0; j < tg_perf_batch.nr; j++)
			if (tg_perf_batch.task[j] == need[i])
				break;
		if (j == tg_perf_batch.nr && j < TG_PERF_CREATE_MAX) {
			tg_perf_batch.task[tg_perf_batch.nr++] = need[i];
			need[i] = NULL;		/* the batch holds the reference */
		}
	}
	mutex_unlock(&tg_perf_batch.lock);
	for (i = 0; i < nr_need; i++)
		if (need[i])
			put_task_struct(need[i]);
	if (nr_need)
		queue_work(system_unbound_wq, &tg_perf_create_work);
}

/* A group's OCR line counts since the last period; sleeps. */
static void tg_perf_take(struct tg_group *grp, struct tg_counters *c)
{
	struct task_struct *need[TG_PERF_CREATE_MAX];
	size_t n, i, nr_need = 0;
	u64 sum[2] = { 0, 0 };

	lockdep_assert_held(&tg_mutex);
	if (!tg_perf_cfg[0] || !tg_perf_cfg[1] || READ_ONCE(tg_perf_err))
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
	tg_perf_request(need, nr_need);
	c->present |= TG_IN_OCR;
	c->dram_read_lines += sum[0];
	c->nvm_read_lines += sum[1];
}

/* Once per period, before any group: release what left, follow encodings. */
static void tg_perf_period(void)
{
	lockdep_assert_held(&tg_mutex);
	tg_perf_release_dead();
	if (tg_perf_type != tg_cfg.perf_type ||
	    tg_perf_cfg[0] != tg_cfg.ocr_config[0] ||
	    tg_perf_cfg[1] != tg_cfg.ocr_config[1] ||
	    tg_perf_cfg1[0] != tg_cfg.ocr_config1[0] ||
	    tg_perf_cfg1[1] != tg_cfg.ocr_config1[1]) {
		tg_perf_type = tg_cfg.perf_type;
		tg_perf_cfg[0] = tg_cfg.ocr_config[0];
		tg_perf_cfg[1] = tg_cfg.ocr_config[1];
		tg_perf_cfg1[0] = tg_cfg.ocr_config1[0];
		tg_perf_cfg1[1] = tg_cfg.ocr_config1[1];
		WRITE_ONCE(tg_perf_gen, tg_perf_gen + 1);
		WRITE_ONCE(tg_perf_err, 0);
	}
}

static void tg_perf_state(char *buf, size_t size)
{
	if (!tg_cfg.ocr_config[0] || !tg_cfg.ocr_config[1])
		scnprintf(buf, size, "%s",
			  "unavailable: no OCR event encodings (ocr_dram_read_config, ocr_nvm_read_config)");
	else if (READ_ONCE(tg_perf_err) == -EPERM)
		scnprintf(buf, size,
			  "unavailable: perf_type %u is not the CPU's PMU or a software event",
			  tg_cfg.perf_type);
	else if (READ_ONCE(tg_perf_err))
		scnprintf(buf, size, "unavailable: cannot create the counters (error %d)",
			  READ_ONCE(tg_perf_err));
	else
		scnprintf(buf, size, "active");
}

/* Unmount (members are gone already, the loop is stopped): every pair. */
static void tg_perf_stop(void)
{
	unsigned int i;

	cancel_work_sync(&tg_perf_create_work);	/* members are gone: adopts fail */
	mutex_lock(&tg_perf_batch.lock);
	for (i = 0; i < tg_perf_batch.nr; i++)
		put_task_struct(tg_perf_batch.task[i]);
	tg_perf_batch.nr = 0;
	mutex_unlock(&tg_perf_batch.lock);
	tg_perf_release_dead();
	kvfree(tg_perf_scratch);
	tg_perf_scratch = NULL;
	tg_perf_scratch_len = 0;
}

struct tg_source_ops tg_src_perf __ro_after_init = {
	.p = { .name = "perf", .stop = tg_perf_stop, .state = tg_perf_state },
	.period = tg_perf_period, .take = tg_perf_take, .member_gone = tg_perf_member_gone,
};
