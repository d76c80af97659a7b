// SPDX-License-Identifier: GPL-2.0
/*
 * group.c - the group registry: the static root group and the child groups
 * created by mkdir, bounded by the max_groups module parameter.
 *
 * A group is built fully (tg_group_alloc), given its directory by the
 * filesystem, and only then made visible (tg_group_activate), with its slot
 * of the regulator (the slots are an array, tg_slots, that the loop hands
 * to core/'s regulator). Removal (membership.c: a group is removed once no
 * live task is in it) marks it dead under both locks so that no task can
 * join it afterwards, then unlists it (tg_group_unlist()); the memory
 * lives on until the last inode pointing at it is freed.
 */
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "tg_parse.h"
#include "tg_plugin.h"

/* Serialises group creation/removal, settings and config (see tgroup.h). */
DEFINE_MUTEX(tg_mutex);

/* tgroup.config; the loop reads period_ms with READ_ONCE() */
struct tg_config tg_cfg;

struct tg_group tg_root_group = {
	.node		= LIST_HEAD_INIT(tg_root_group.node),
	.members	= LIST_HEAD_INIT(tg_root_group.members),
	.exiting	= LIST_HEAD_INIT(tg_root_group.exiting),
	.slot		= -1,
	.lock		= __SPIN_LOCK_UNLOCKED(tg_root_group.lock),
	.last_decision	= { .kind = -1 },
	.priority	= TG_PRIO_HIGH,		/* never throttled */
	.mba_percent	= 100,
	.cpu_quota_usec	= TG_QUOTA_MAX,
};

/* Child groups in creation order; RCU for the regulation loop. */
LIST_HEAD(tg_groups);
static unsigned int tg_nr_groups;
static u64 tg_next_id = 1;

#define TG_GRP_PRIV_OFF	ALIGN(sizeof(struct tg_group), TG_SLOT_ALIGN)

/* The regulator's slots, one per possible group; under tg_mutex. */
struct tg_reg_group *tg_slots;
u32 tg_slots_hi;			/* highest slot in use + 1 */
static unsigned long *tg_slot_map;

/**
 * tg_reg_cfg_from() - the regulator's configuration from tgroup.config
 * @rc: output
 * @c:  tgroup.config
 *
 * Context: tg_mutex held.
 */
void tg_reg_cfg_from(struct tg_reg_cfg *rc, const struct tg_config *c)
{
	tg_reg_cfg_default(rc, c->period_ms * USEC_PER_MSEC, num_online_cpus());
	rc->enabled = c->enabled;
	rc->preventive = c->preventive;
	rc->remedial = c->remedial;
	rc->relax_periods = c->relax_periods;
	rc->law = c->law;
}

/* A new group's regulator slot (cannot fail below max_groups). */
static void tg_slot_alloc(struct tg_group *grp)
{
	struct tg_reg_cfg rc;
	unsigned long i;

	lockdep_assert_held(&tg_mutex);
	i = find_first_zero_bit(tg_slot_map, tg_max_groups);
	if (WARN_ON_ONCE(i >= tg_max_groups))
		return;
	set_bit(i, tg_slot_map);
	tg_reg_cfg_from(&rc, &tg_cfg);
	tg_reg_group_init(&tg_slots[i], &rc);
	grp->slot = i;
	if (i + 1 > tg_slots_hi)
		tg_slots_hi = i + 1;
}

/* A removed group's slot goes back (inactive). */
static void tg_slot_free(struct tg_group *grp)
{
	lockdep_assert_held(&tg_mutex);
	if (grp->slot < 0)
		return;
	tg_slots[grp->slot].active = false;
	clear_bit(grp->slot, tg_slot_map);
	while (tg_slots_hi && !test_bit(tg_slots_hi - 1, tg_slot_map))
		tg_slots_hi--;
	grp->slot = -1;
}

/**
 * tg_groups_init() - one regulator slot per possible group
 *
 * Context: module init, after max_groups is checked.
 * Return: 0 or -ENOMEM.
 */
int tg_groups_init(void)
{
	tg_slots = kvcalloc(tg_max_groups, sizeof(*tg_slots), GFP_KERNEL);
	if (!tg_slots)
		return -ENOMEM;
	tg_slot_map = bitmap_zalloc(tg_max_groups, GFP_KERNEL);
	if (!tg_slot_map) {
		kvfree(tg_slots);
		return -ENOMEM;
	}
	return 0;
}

/**
 * tg_groups_exit() - free the slots (nothing mounted: no group exists)
 *
 * Context: module exit.
 */
void tg_groups_exit(void)
{
	bitmap_free(tg_slot_map);
	kvfree(tg_slots);
}

static void tg_group_init_settings(struct tg_group *grp)
{
	grp->priority = TG_PRIO_LOW;
	tg_limits_init(&grp->limits);
	grp->mba_percent = 100;
	grp->cpu_quota_usec = TG_QUOTA_MAX;
}

/**
 * tg_group_alloc() - build a new, not yet visible group
 * @name: a name already checked by tg_valid_group_name()
 * @msg:  explanation on failure
 *
 * Context: Process context, tg_mutex held.
 * Return: the group with one reference (the registry's), or ERR_PTR:
 * -ENOSPC when max_groups groups exist, -ENOMEM.
 */
struct tg_group *tg_group_alloc(const char *name, const char **msg)
{
	struct tg_group *grp;
	struct tg_plugin *p;
	unsigned int i;

	lockdep_assert_held(&tg_mutex);
	if (tg_nr_groups >= tg_max_groups) {
		*msg = "max_groups reached";
		return ERR_PTR(-ENOSPC);
	}
	/* the plug-ins' slots live behind the group, freed with it */
	grp = kzalloc(TG_GRP_PRIV_OFF + tg_plugins_grp_size(), GFP_KERNEL);
	if (!grp) {
		*msg = "out of memory";
		return ERR_PTR(-ENOMEM);
	}
	grp->priv = (char *)grp + TG_GRP_PRIV_OFF;
	kref_init(&grp->ref);
	INIT_LIST_HEAD(&grp->node);
	INIT_LIST_HEAD(&grp->members);
	INIT_LIST_HEAD(&grp->exiting);
	spin_lock_init(&grp->lock);
	grp->slot = -1;
	grp->last_decision.kind = -1;
	strscpy(grp->name, name, sizeof(grp->name));
	tg_group_init_settings(grp);
	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->group_added)
			p->group_added(grp);
	return grp;
}

/**
 * tg_group_activate() - make a fully built group visible
 * @grp: group from tg_group_alloc()
 *
 * Context: Process context, tg_mutex held.
 */
void tg_group_activate(struct tg_group *grp)
{
	lockdep_assert_held(&tg_mutex);
	tg_slot_alloc(grp);
	grp->id = tg_next_id++;
	list_add_tail_rcu(&grp->node, &tg_groups);
	tg_nr_groups++;
}

static void tg_group_release(struct kref *ref)
{
	struct tg_group *grp = container_of(ref, struct tg_group, ref);

	kfree_rcu(grp, rcu);
}

/**
 * tg_group_get() - take a reference on a child group
 * @grp: group (the root group is static and not counted)
 */
void tg_group_get(struct tg_group *grp)
{
	if (!tg_is_root(grp))
		kref_get(&grp->ref);
}

/**
 * tg_group_tryget() - take a reference unless the group is being freed
 * @grp: group found under RCU without tg_mutex
 *
 * Context: rcu_read_lock() held.
 * Return: true if a reference was taken (always for the root group).
 */
bool tg_group_tryget(struct tg_group *grp)
{
	return tg_is_root(grp) || kref_get_unless_zero(&grp->ref);
}

/**
 * tg_group_put() - drop a reference; the last one frees after a grace period
 * @grp: group
 *
 * Context: Any context.
 */
void tg_group_put(struct tg_group *grp)
{
	if (!tg_is_root(grp))
		kref_put(&grp->ref, tg_group_release);
}

/**
 * tg_group_unthrottle() - every actuator ends what it imposes on a group now
 * @grp: group
 *
 * Actuators without release() (MBA: it holds no task back) are lifted by
 * the next period's apply().
 *
 * Context: tg_mutex held.
 */
void tg_group_unthrottle(struct tg_group *grp)
{
	struct tg_actuator_ops *a;
	unsigned int i;

	lockdep_assert_held(&tg_mutex);
	for (i = 0; (a = tg_actuator(i)); i++)
		if (a->release)
			a->release(grp);
}

/**
 * tg_group_unlist() - let a dead, empty group go
 * @grp: child group, dead, with no member and no exited member left
 *
 * Every actuator lets go of it (anything parked on it is woken), its
 * regulator slot is freed, the plug-ins let go of it, and the registry's
 * reference is dropped.
 *
 * Context: tg_mutex held.
 */
void tg_group_unlist(struct tg_group *grp)
{
	struct tg_plugin *p;
	unsigned int i;

	lockdep_assert_held(&tg_mutex);
	tg_group_unthrottle(grp);
	tg_slot_free(grp);
	for (i = 0; (p = tg_plugin(i)); i++)
		if (p->group_gone)
			p->group_gone(grp);
	list_del_rcu(&grp->node);
	tg_nr_groups--;
	tg_group_put(grp);
}

/**
 * tg_group_reset_root() - forget the root group's accounting (new mount)
 *
 * Context: Process context, tg_mutex held, no mount exists.
 */
void tg_group_reset_root(void)
{
	struct tg_group *root = &tg_root_group;

	lockdep_assert_held(&tg_mutex);
	memset(&root->acct, 0, sizeof(root->acct));
	root->nr_periods = 0;
	root->nr_throttled = 0;
	root->throttled_usec = 0;
}

/* --- settings and accounting, for the files ---------------------------- */

static int tg_check_alive(struct tg_group *grp, const char **msg)
{
	lockdep_assert_held(&tg_mutex);
	if (grp->dead) {
		*msg = "group has been removed";
		return -ENODEV;
	}
	return 0;
}

/**
 * tg_group_priority() - a group's priority (tgroup.priority)
 * @grp: group
 *
 * Context: any context.
 * Return: the priority.
 */
enum tg_priority tg_group_priority(struct tg_group *grp)
{
	return READ_ONCE(grp->priority);
}

/**
 * tg_group_name() - a child group's name (its directory's), fixed at creation
 * @grp: child group, referenced by the caller
 *
 * Return: the name; "" for the root group.
 */
const char *tg_group_name(const struct tg_group *grp)
{
	return grp->name;
}

/**
 * tg_group_set_priority() - change a group's priority
 * @grp:  child group
 * @prio: new priority
 * @msg:  explanation on failure
 *
 * High priority is never throttled (pins neither): every throttle of the
 * group ends now, not at the next period.
 *
 * Context: process context, takes tg_mutex.
 * Return: 0, or -ENODEV for a removed group.
 */
int tg_group_set_priority(struct tg_group *grp, enum tg_priority prio,
			  const char **msg)
{
	int ret;

	mutex_lock(&tg_mutex);
	ret = tg_check_alive(grp, msg);
	if (!ret) {
		WRITE_ONCE(grp->priority, prio);
		if (prio == TG_PRIO_HIGH)
			tg_group_unthrottle(grp);
	}
	mutex_unlock(&tg_mutex);
	return ret;
}

/**
 * tg_group_limits() - a copy of a group's limits (tgroup.limit)
 * @grp:    group
 * @limits: output
 *
 * Context: process context, takes tg_mutex.
 */
void tg_group_limits(struct tg_group *grp, struct tg_limits *limits)
{
	mutex_lock(&tg_mutex);
	*limits = grp->limits;
	mutex_unlock(&tg_mutex);
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

/**
 * tg_group_write_limits() - apply a write to tgroup.limit, all or nothing
 * @grp: child group
 * @buf: the write, NUL-terminated
 * @len: its length without the NUL
 * @msg: explanation on failure
 *
 * Keys not written keep their limit. A limit lifted or raised ends the
 * group's throttles now (unless a pin holds them); the next period
 * throttles again if the regulator still has reason to.
 *
 * Context: process context, takes tg_mutex.
 * Return: 0, -EINVAL (parse error), -ENODEV (removed group).
 */
int tg_group_write_limits(struct tg_group *grp, const char *buf, size_t len,
			  const char **msg)
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
			if (tg_limits_raised(&grp->limits, &limits) &&
			    !grp->cpu_pin_us)
				tg_group_unthrottle(grp);
			grp->limits = limits;
		}
	}
	mutex_unlock(&tg_mutex);
	return ret;
}

static void tg_read_kinds(struct tg_bw *out, const struct tg_bw *src)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		out->v[k] = READ_ONCE(src->v[k]);
}

/**
 * tg_group_bandwidth() - the last completed 1 s window (tgroup.bandwidth)
 * @grp: group
 * @bps: output, bytes/s per kind
 *
 * Context: any context; lockless (the loop is the one writer).
 */
void tg_group_bandwidth(struct tg_group *grp, struct tg_bw *bps)
{
	tg_read_kinds(bps, &grp->acct.window_bps);
}

/**
 * tg_group_stat() - what tgroup.stat shows
 * @grp: group
 * @st:  output
 *
 * Context: process context, takes tg_mutex (for the last decision).
 */
void tg_group_stat(struct tg_group *grp, struct tg_group_stat *st)
{
	tg_read_kinds(&st->total, &grp->acct.total);
	st->nr_periods = READ_ONCE(grp->nr_periods);
	st->nr_throttled = READ_ONCE(grp->nr_throttled);
	st->throttled_usec = READ_ONCE(grp->throttled_usec);
	st->mba_percent = READ_ONCE(grp->mba_percent);
	st->cpu_quota_usec = READ_ONCE(grp->cpu_quota_usec);
	st->cpu_period_usec = READ_ONCE(tg_cfg.period_ms) * USEC_PER_MSEC;
	mutex_lock(&tg_mutex);
	st->last = grp->last_decision;
	mutex_unlock(&tg_mutex);
}
