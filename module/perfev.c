// SPDX-License-Identifier: GPL-2.0
/*
 * perfev.c - the one way the sources create perf counters.
 *
 * They are kernel counters (perf_event_create_kernel_counter(), from the
 * loop or a work item), so neither perf_event_paranoid nor CAP_PERFMON
 * applies to them: what makes them safe is who chooses them and what they
 * may be. The encodings come from tgroup.config, which only CAP_SYS_ADMIN
 * in the initial user namespace may write (cgroup-ui/files.c), and they
 * may only name a counting PMU of the kind the source needs
 * (docs/abi.md, "What the encodings may be"):
 *
 *  - TG_PMU_CPU (perf's per-task OCR counters, store sampling per CPU): the
 *    CPU's own PMU - perf types RAW, HARDWARE, HW_CACHE, or a dynamic type
 *    whose PMU has the hardware task context (the core PMUs of hybrid
 *    parts);
 *  - TG_PMU_UNCORE (the iMC's RPQ counters): a dynamic type whose PMU
 *    counts system-wide only (no task context: uncore and similar PMUs);
 *  - for both, PERF_TYPE_SOFTWARE: the stand-ins the guest tests use
 *    (task-clock, page faults...), which count nothing another user could
 *    not learn from /proc.
 *
 * Refused: tracepoints (they would count any kernel event as a kernel
 * counter), breakpoints, and the dynamic PMUs that are neither (kprobe,
 * uprobe, ...). A type is checked before the counter is made, and the PMU
 * the kernel picked for it after.
 */
#include <linux/perf_event.h>
#include <linux/sched.h>

#include "tg_plugin.h"

static bool tg_pmu_type_ok(u32 type, enum tg_pmu_use use)
{
	switch (type) {
	case PERF_TYPE_SOFTWARE:
		return true;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return use == TG_PMU_CPU;
	default:
		return type >= PERF_TYPE_MAX;	/* a dynamic PMU: checked below */
	}
}

static bool tg_pmu_ok(const struct perf_event *ev, enum tg_pmu_use use)
{
	if (ev->attr.type == PERF_TYPE_SOFTWARE)
		return true;
	if (use == TG_PMU_CPU)
		return ev->pmu->task_ctx_nr == perf_hw_context;
	return ev->pmu->task_ctx_nr == perf_invalid_context;
}

/**
 * tg_perf_counter() - a kernel perf counter on a PMU a source may use
 * @attr:    the event (its type is checked against @use)
 * @cpu:     CPU, or -1 with @task
 * @task:    task, or NULL for a per-CPU counter
 * @handler: overflow handler, or NULL
 * @use:     the kind of PMU the source needs
 *
 * Context: process context (may sleep).
 * Return: the counter, ERR_PTR(-EPERM) for a PMU of another kind, or
 * perf_event_create_kernel_counter()'s error.
 */
struct perf_event *tg_perf_counter(struct perf_event_attr *attr, int cpu,
				   struct task_struct *task,
				   perf_overflow_handler_t handler,
				   enum tg_pmu_use use)
{
	struct perf_event *ev;

	if (!tg_pmu_type_ok(attr->type, use))
		return ERR_PTR(-EPERM);
	ev = perf_event_create_kernel_counter(attr, cpu, task, handler, NULL);
	if (IS_ERR(ev))
		return ev;
	if (!tg_pmu_ok(ev, use)) {
		perf_event_release_kernel(ev);
		return ERR_PTR(-EPERM);
	}
	return ev;
}
