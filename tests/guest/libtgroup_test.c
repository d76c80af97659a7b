// SPDX-License-Identifier: GPL-2.0
/*
 * libtgroup against a real mount (suite "userland"): every call of
 * userland/lib/tgroup.h, its errno and the module's last_cmd_status, and
 * the structs it fills against the raw files (read here with util.h, not
 * through the library). Needs the module loaded with inject=1.
 */
#include "util.h"
#include "../../userland/lib/tgroup.h"

static struct tgroup *open_or_fail(void)
{
	struct tgroup *tg = tgroup_open(MNT);

	if (!tg)
		FAIL("tgroup_open(%s): %s", MNT, strerror(errno));
	return tg;
}

static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	EXPECT(pid > 0);
	return pid;
}

TEST(lt_open)
{
	struct tgroup *tg = open_or_fail();

	EXPECT_STR(tgroup_mount_path(tg), MNT);
	tgroup_close(tg);
	errno = 0;
	EXPECT(tgroup_open("/proc") == NULL && errno == ENODEV, "errno %d", errno);
}

TEST(lt_create_remove)
{
	struct tgroup *tg = open_or_fail();
	char **names;
	size_t n;
	int found = 0;

	EXPECT_EQ_LL(tgroup_create(tg, "lt_a"), 0);
	EXPECT(file_exists(MNT "/lt_a"));
	EXPECT_EQ_LL(tgroup_exists(tg, "lt_a"), 1);
	EXPECT_EQ_LL(tgroup_create(tg, "lt_a"), -EEXIST);
	EXPECT_EQ_LL(errno, EEXIST);
	EXPECT_EQ_LL(tgroup_list(tg, &names, &n), 0);
	for (size_t i = 0; i < n; i++)
		found += !strcmp(names[i], "lt_a");
	tgroup_free_names(names);
	EXPECT_EQ_LL(found, 1);
	/* the kernel's own refusal: a group inside a group */
	EXPECT_ERRNO(mkdir(MNT "/lt_a/sub", 0755), EPERM);
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_a"), 0);
	EXPECT(!file_exists(MNT "/lt_a"));
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_a"), -ENOENT);
	tgroup_close(tg);
}

TEST(lt_kernel_reason)
{
	struct tgroup *tg = open_or_fail();
	char raw[256];

	EXPECT_EQ_LL(tgroup_create(tg, "lt_r"), 0);
	EXPECT_EQ_LL(tgroup_write_file(tg, "lt_r", "tgroup.limit", "dram_rbps=-1"), -EINVAL);
	EXPECT_EQ_LL(errno, EINVAL);
	rd(MNT "/last_cmd_status", raw, sizeof(raw));
	raw[strcspn(raw, "\n")] = '\0';
	EXPECT(strstr(raw, "negative") != NULL, "last_cmd_status \"%s\"", raw);
	EXPECT_STR(tgroup_last_status(tg), raw);
	EXPECT(strstr(tgroup_strerror(tg, EINVAL), "Invalid argument: ") == tgroup_strerror(tg, EINVAL));
	/* tgroup.config: all or nothing, with the reason */
	EXPECT_EQ_LL(tgroup_config_set(tg, "relax_periods=7 period_ms=0"), -EINVAL);
	EXPECT(strstr(tgroup_last_status(tg), "period_ms must be 1..1000") != NULL,
	       "status \"%s\"", tgroup_last_status(tg));
	rd(MNT "/tgroup.config", raw, sizeof(raw));
	EXPECT(strstr(raw, "relax_periods=7") == NULL, "half a failed write applied");
	/* a success clears the handle's status */
	EXPECT_EQ_LL(tgroup_set_priority(tg, "lt_r", TGROUP_PRIO_LOW), 0);
	EXPECT_STR(tgroup_last_status(tg), "");
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_r"), 0);
	tgroup_close(tg);
}

TEST(lt_move_and_busy)
{
	struct tgroup *tg = open_or_fail();
	pid_t pid = sleeper(), *pids;
	char buf[4096], want[32];
	size_t n;

	EXPECT_EQ_LL(tgroup_create(tg, "lt_m"), 0);
	EXPECT_EQ_LL(tgroup_move_pid(tg, "lt_m", pid), 0);
	rd(MNT "/lt_m/cgroup.procs", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%d\n", pid);
	EXPECT_STR(buf, want);
	EXPECT_EQ_LL(tgroup_pids(tg, "lt_m", &pids, &n), 0);
	EXPECT(n == 1 && pids[0] == pid, "n %zu", n);
	free(pids);
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_m"), -EBUSY);
	EXPECT_EQ_LL(tgroup_move_pid(tg, "/", pid), 0);
	rd(MNT "/lt_m/cgroup.procs", buf, sizeof(buf));
	EXPECT_STR(buf, "");
	/* the thread file too */
	EXPECT_EQ_LL(tgroup_move_tid(tg, "lt_m", pid), 0);
	rd(MNT "/lt_m/tasks", buf, sizeof(buf));
	EXPECT_STR(buf, want);
	EXPECT_EQ_LL(tgroup_move_pid(tg, NULL, pid), 0);
	reap(pid);
	/* a pid that does not exist (the kernel's ESRCH) */
	EXPECT_EQ_LL(tgroup_move_pid(tg, "lt_m", 4194304), -ESRCH);
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_m"), 0);
	tgroup_close(tg);
}

TEST(lt_priority_limits)
{
	struct tgroup *tg = open_or_fail();
	struct tgroup_limits l = { .mask = 0 };
	enum tgroup_priority p = TGROUP_PRIO_LOW;
	char buf[256];

	EXPECT_EQ_LL(tgroup_create(tg, "lt_p"), 0);
	EXPECT_EQ_LL(tgroup_set_priority(tg, "lt_p", TGROUP_PRIO_HIGH), 0);
	rd(MNT "/lt_p/tgroup.priority", buf, sizeof(buf));
	EXPECT_STR(buf, "high\n");
	EXPECT_EQ_LL(tgroup_get_priority(tg, "lt_p", &p), 0);
	EXPECT_EQ_LL(p, TGROUP_PRIO_HIGH);
	l.bps[TGROUP_NVM_WRITE] = 1000000000ULL;
	l.bps[TGROUP_DRAM_READ] = 2500000000ULL;
	l.mask = 1u << TGROUP_NVM_WRITE | 1u << TGROUP_DRAM_READ;
	EXPECT_EQ_LL(tgroup_set_limits(tg, "lt_p", &l), 0);
	rd(MNT "/lt_p/tgroup.limit", buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=2500000000 dram_wbps=max nvm_rbps=max nvm_wbps=1000000000\n");
	memset(&l, 0, sizeof(l));
	EXPECT_EQ_LL(tgroup_get_limits(tg, "lt_p", &l), 0);
	EXPECT(l.bps[TGROUP_DRAM_READ] == 2500000000ULL && l.bps[TGROUP_DRAM_WRITE] == TGROUP_MAX &&
	       l.bps[TGROUP_NVM_READ] == TGROUP_MAX && l.bps[TGROUP_NVM_WRITE] == 1000000000ULL);
	/* back to max */
	l.bps[TGROUP_NVM_WRITE] = TGROUP_MAX;
	l.mask = 1u << TGROUP_NVM_WRITE;
	EXPECT_EQ_LL(tgroup_set_limits(tg, "lt_p", &l), 0);
	rd(MNT "/lt_p/tgroup.limit", buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=2500000000 dram_wbps=max nvm_rbps=max nvm_wbps=max\n");
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_p"), 0);
	tgroup_close(tg);
}

/* the stat the library fills, against the raw file and the injected bytes */
TEST(lt_stat_and_bandwidth)
{
	struct tgroup *tg = open_or_fail();
	struct tgroup_interference in;
	struct tgroup_bandwidth bw;
	struct tgroup_stat st;
	char buf[1024], val[64], *p;
	unsigned long long raw_periods;
	pid_t pid = sleeper();

	EXPECT_EQ_LL(tgroup_create(tg, "lt_s"), 0);
	EXPECT_EQ_LL(tgroup_move_pid(tg, "lt_s", pid), 0);
	/* 10000 lines of NVM reads: the group's cumulative bytes grow by exactly that */
	EXPECT_OK(wr(INJECT, "group=lt_s nvm_read_bytes=640000"));
	usleep(300000);	/* 30 periods of 10 ms: consumed */
	EXPECT_EQ_LL(tgroup_read_stat(tg, "lt_s", &st), 0);
	EXPECT_EQ_LL(st.bytes[TGROUP_NVM_READ], 640000);
	EXPECT_EQ_LL(st.bytes[TGROUP_DRAM_READ], 0);
	EXPECT_EQ_LL(tgroup_config_get(tg, "period_ms", val, sizeof(val)), 0);
	EXPECT_EQ_LL(st.cpu_period_usec, atoll(val) * 1000);
	EXPECT(st.nr_periods >= 5, "nr_periods %llu after 300 ms", (unsigned long long)st.nr_periods);
	EXPECT(st.last_action[0] && st.last_reason[0]);
	/* and the raw file says the same, read a moment later: never fewer periods */
	rd(MNT "/lt_s/tgroup.stat", buf, sizeof(buf));
	p = strstr(buf, "nr_periods ");
	EXPECT(p && sscanf(p, "nr_periods %llu", &raw_periods) == 1);
	EXPECT(raw_periods >= st.nr_periods);
	EXPECT(strstr(buf, "nvm_read_bytes 640000\n") != NULL);
	/* bandwidth: a 1 s average of what was injected within it cannot exceed it */
	EXPECT_EQ_LL(tgroup_read_bandwidth(tg, "lt_s", &bw), 0);
	EXPECT(bw.bps[TGROUP_NVM_READ] <= 640000, "nvm_rbps %llu",
	       (unsigned long long)bw.bps[TGROUP_NVM_READ]);
	EXPECT_EQ_LL(tgroup_read_interference(tg, &in), 0);
	EXPECT(!strcmp(in.state, "none") || !strcmp(in.state, "dram") || !strcmp(in.state, "nvm") ||
	       !strcmp(in.state, "both"), "state %s", in.state);
	/* root-only file from a child group: ENOENT */
	EXPECT_EQ_LL(tgroup_read_file(tg, "lt_s", "tgroup.interference", &p), -ENOENT);
	reap(pid);
	usleep(50000);
	EXPECT_EQ_LL(tgroup_remove(tg, "lt_s"), 0);
	tgroup_close(tg);
}

int main(int argc, char **argv)
{
	return tg_run_all(argc, argv);
}
