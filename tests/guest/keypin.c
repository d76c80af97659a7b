// SPDX-License-Identifier: GPL-2.0
/*
 * keypin: hold the kernel's perf static keys on for the guest's whole run,
 * so that no test flips them. Each key's first user patches kernel text
 * (text_poke_bp), and under multi-threaded TCG a vCPU has been seen to run
 * into such a patch half-way: an int3 oops at __schedule (perf_sched_events,
 * flipped by regulate's per-task perf events) and a livelock at
 * handle_mm_fault (perf_swevent_enabled[PAGE_FAULTS], by the store-sampling
 * test's events): docs/testing.md, "A guest hang". The guest's init starts
 * this before the suites (tests/vm/init; tg.keypin=0 leaves it out).
 *
 * Held here: one counting software event per key-carrying type, on this
 * process (a per-task event also holds perf_sched_events). Not held: the
 * hrtimer-driven cpu-clock and task-clock (no key), dummy and bpf-output
 * (no counting path). The process then sleeps; a test that counts tasks
 * sees it in the root group, as it would see any daemon on a server.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	unsigned long long id;
	const char *name;
} held[] = {
	{ PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
	{ PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations" },
	{ PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
	{ PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults" },
	{ PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults" },
	{ PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults" },
	{ PERF_COUNT_SW_CGROUP_SWITCHES, "cgroup-switches" },
};

int main(void)
{
	char missed[256] = "";
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = held[i].id;
		if (syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) >= 0)
			n++;
		else
			snprintf(missed + strlen(missed), sizeof(missed) - strlen(missed), " %s (%s)",
				 held[i].name, strerror(errno));
	}
	printf("TGTEST-INFO: keypin: %u of %zu perf software events held for the run%s%s\n", n,
	       sizeof(held) / sizeof(held[0]), *missed ? ", not:" : "", missed);
	fflush(stdout);
	for (;;)
		pause();
}
