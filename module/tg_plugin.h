/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tg_plugin.h - sources and actuators as plug-ins behind two ops tables.
 *
 * The data path runs one way, once per period (module/loop.c):
 *
 *   sources --take_latency--> detector --+
 *   sources --period, take--> estimator -+-> regulator --apply--> actuators
 *
 * and the files (cgroup-ui/) only read what the loop published. Each
 * source and each actuator is one file in module/sources/ or
 * module/actuators/ that fills one ops structure; the registry
 * (module/registry.c) lists them, in the order they run, and is the only
 * place the core names them. Every callback is optional (NULL: nothing to
 * do).
 *
 * One lifetime model, as perf's struct pmu and resctrl's arch contract:
 *  - init()/exit(): module load and unload. Only what must exist while
 *    nothing is mounted and can be undone without a trace: finding out
 *    whether the hardware is there (CPUID), checking parameters. No hook,
 *    counter or hardware state: those cost while nobody regulates.
 *    init() returning an error fails the module load.
 *  - publish()/unpublish(): module load, the last step, after the
 *    filesystem is registered, and unload, the first: interfaces user
 *    space opens independently of any mount (sources/pmdk.c's device,
 *    sources/inject.c's debugfs file). Nothing can fail the load after
 *    publish() (it cannot fail; a plug-in that cannot publish says so in
 *    its state line), so no process can hold open a file of a module
 *    whose load is being unwound (its text freed under the open file).
 *  - start()/stop(): mount and unmount. Hooks, counters, hardware state.
 *    A source that cannot start says why in its state line and stays off;
 *    stop() runs after every group of the mount is gone and the loop has
 *    stopped, also for a plug-in whose start() found nothing to do.
 *  - group_added()/group_gone(): a group's slot (below) is initialised
 *    when the group is built, before it is visible, and let go when it is
 *    unlisted (dead, empty), both under tg_mutex. group_added() takes no
 *    resources (a group whose directory cannot be built is freed without
 *    group_gone()); anything a plug-in attaches to a group later, it
 *    releases in group_gone() and in stop().
 *
 * Per-group state: a plug-in that keeps state per group sets slot_size;
 * the registry lays the slots out behind each group at load
 * (tg_plugins_init()) and tg_grp_slot() finds a plug-in's slot in a
 * group. The slot is zeroed with the group and owned by the plug-in: no
 * other file reads it. The ops tables are __ro_after_init: the registry
 * writes slot_off at load, nothing writes them after.
 */
#ifndef TG_PLUGIN_H
#define TG_PLUGIN_H

#include "tg_internal.h"

struct perf_sample_data;
struct pt_regs;
struct task_struct;

/**
 * struct tg_plugin - what every source and actuator has
 * @name:	 tgroup.config reports it as source_<name>= or actuator_<name>=
 * @slot_size:	 bytes of per-group state (0: none), see tg_grp_slot()
 * @slot_off:	 where that state sits behind a group; set by tg_plugins_init()
 * @init:	 module load (see the lifetime model); may fail the load
 * @exit:	 module unload
 * @publish:	 module load, after the filesystem: user-space interfaces
 *		 that live without a mount; cannot fail the load
 * @unpublish:	 module unload, before the filesystem goes
 * @start:	 mount, tg_mutex not held, the loop not running yet
 * @stop:	 unmount, after every group is gone and the loop stopped;
 *		 tg_mutex not held
 * @group_added: a new group's slot, before the group is visible; tg_mutex
 *		 held (or module init, for the root group)
 * @group_gone:	 a removed group (dead, empty); tg_mutex held
 * @state:	 one line for tgroup.config ("active" or why not); tg_mutex
 *		 held. NULL: "active"
 * @member_joined: @m joined m->grp (@new_task: created by a fork, not run
 *		 yet; else moved there); under m->grp->lock, must not sleep
 * @member_left: @m leaves @from (moved out, exited, removed); under
 *		 from->lock, must not sleep
 */
struct tg_plugin {
	const char	*name;
	size_t		slot_size;
	size_t		slot_off;
	int	(*init)(void);
	void	(*exit)(void);
	void	(*publish)(void);
	void	(*unpublish)(void);
	void	(*start)(void);
	void	(*stop)(void);
	void	(*group_added)(struct tg_group *grp);
	void	(*group_gone)(struct tg_group *grp);
	void	(*state)(char *buf, size_t size);
	void	(*member_joined)(struct tg_member *m, bool new_task);
	void	(*member_left)(struct tg_member *m, struct tg_group *from);
};

/**
 * struct tg_source_ops - a signal source
 * @p:		  name, slot, lifetime and state (struct tg_plugin)
 * @period:	  once per period before any take, tg_mutex held (sleeps)
 * @take:	  one group's counters of the period, tg_mutex held; fills
 *		  only its own fields and present bits of @c (inject, last,
 *		  overwrites the fields it was given: it stands in for the
 *		  hardware sources in the guest)
 * @take_latency: the period's latency inputs, before @period, tg_mutex held
 * @task_moved:	  @task (its whole process with @threadgroup) changed group;
 *		  after the move, no tgroup lock held
 * @member_gone:  @m leaves its group; under its grp->lock, must not sleep
 */
struct tg_source_ops {
	struct tg_plugin	p;
	void	(*period)(void);
	void	(*take)(struct tg_group *grp, struct tg_counters *c);
	void	(*take_latency)(struct tg_latency_in *in);
	void	(*task_moved)(struct task_struct *task, bool threadgroup);
	void	(*member_gone)(struct tg_member *m);
};

/**
 * struct tg_actuation - one period's decisions, for every child group
 * @nr:		 number of groups
 * @grp:	 the groups, in tg_groups order
 * @quota_us:	 CPU quota per group (TG_QUOTA_UNLIMITED: none)
 * @mba:	 MBA level per group, percent
 * @cpu_us:	 CPU time each group ran in the period measured
 * @period_us:	 the nominal period the quota is expressed in
 * @elapsed_us:	 how long the period that was measured really lasted
 */
struct tg_actuation {
	u32			nr;
	struct tg_group		**grp;
	const u64		*quota_us;
	const u32		*mba;
	const u64		*cpu_us;
	u32			period_us;
	u32			elapsed_us;
};

/**
 * struct tg_actuator_ops - an actuator
 * @p:		name, slot, lifetime and state (struct tg_plugin)
 * @apply:	the period's decisions, tg_mutex held
 * @release:	end what it imposes on @grp now, not at the next period
 *		(priority high, a limit raised, the regulator off, the
 *		group removed); tg_mutex held. NULL: what it imposes cannot
 *		hold a task back and the next period's apply() lifts it
 */
struct tg_actuator_ops {
	struct tg_plugin	p;
	void	(*apply)(const struct tg_actuation *a);
	void	(*release)(struct tg_group *grp);
};

/* Slots are placed at multiples of this; a slot's type may need no more. */
#define TG_SLOT_ALIGN	sizeof(u64)

/* For .p.slot_size: the size of @type, checked to fit the slot alignment. */
#define TG_SLOT_SIZE(type) \
	(sizeof(type) + BUILD_BUG_ON_ZERO(__alignof__(type) > TG_SLOT_ALIGN))

/* A plug-in's state in @grp (its slot_size bytes, zeroed at creation). */
static inline void *tg_grp_slot(struct tg_group *grp, const struct tg_plugin *p)
{
	return (char *)grp->priv + p->slot_off;
}

/*
 * For a source's take(): move a count its hook adds to (in the source's
 * slot) into the period's counters.
 */
static inline void tg_take_count(struct tg_counters *c, u32 present,
				 u64 *field, atomic64_t *count)
{
	c->present |= present;
	*field += atomic64_xchg(count, 0);
}

/*
 * The registry (module/registry.c): the core's only way to the plug-ins.
 * Iterate as for (i = 0; (s = tg_source(i)); i++); stop and exit run in
 * reverse: for (i = tg_nr_plugins(); i--;) p = tg_plugin(i).
 */
struct tg_source_ops *tg_source(unsigned int i);
struct tg_actuator_ops *tg_actuator(unsigned int i);
struct tg_plugin *tg_plugin(unsigned int i);
unsigned int tg_nr_plugins(void);
size_t tg_plugins_grp_size(void);
int tg_plugins_init(void);
void tg_plugins_exit(void);

/*
 * Perf counters for the sources (module/perfev.c): the only PMUs their
 * encodings may name.
 */
enum tg_pmu_use {
	TG_PMU_CPU,	/* the CPU's PMU (per task or per CPU), or software */
	TG_PMU_UNCORE,	/* a system-wide PMU (uncore), or software */
};

struct perf_event;
struct perf_event_attr;
struct perf_event *tg_perf_counter(struct perf_event_attr *attr, int cpu,
				   struct task_struct *task,
				   void (*handler)(struct perf_event *ev,
						   struct perf_sample_data *data,
						   struct pt_regs *regs),
				   enum tg_pmu_use use);

/* The plug-ins, each defined in its own file. */
extern struct tg_source_ops tg_src_perf;	/* sources/perf.c */
extern struct tg_source_ops tg_src_rdt;		/* sources/rdt.c */
extern struct tg_source_ops tg_src_sample;	/* sources/sample.c */
extern struct tg_source_ops tg_src_vfs;		/* sources/vfs.c */
extern struct tg_source_ops tg_src_pmdk;	/* sources/pmdk.c */
extern struct tg_source_ops tg_src_uncore;	/* sources/uncore.c */
extern struct tg_source_ops tg_src_probe;	/* sources/probe.c */
extern struct tg_source_ops tg_src_inject;	/* sources/inject.c */
extern struct tg_actuator_ops tg_act_cpu;	/* actuators/cpu.c */
extern struct tg_actuator_ops tg_act_mba;	/* actuators/mba.c */

#endif /* TG_PLUGIN_H */
