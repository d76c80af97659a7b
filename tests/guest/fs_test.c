// SPDX-License-Identifier: GPL-2.0
/*
 * fs_test.c - the tgroup filesystem against docs/abi.md (and the contract
 * it implements): files, modes, formats, errno values, membership.
 *
 * Expects tgroup.ko loaded with max_groups=TG_TEST_MAX_GROUPS and the
 * filesystem mounted on /sys/fs/tgroup (the "fs" suite script does both).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "util.h"

#define TG_TEST_MAX_GROUPS 16

static void rm(const char *g)
{
	if (rmdir(p2(MNT, g)))
		FAIL("rmdir %s: %s", g, strerror(errno));
}

/* the set of names in a directory, sorted, space separated */
static const char *listdir(const char *path)
{
	static char out[1024];
	char names[32][256], tmp[256];
	struct dirent *de;
	int n = 0, i, j;
	DIR *d = opendir(path);

	out[0] = '\0';
	if (!d)
		return out;
	while ((de = readdir(d)) && n < 32)
		if (de->d_name[0] != '.')
			snprintf(names[n++], 256, "%s", de->d_name);
	closedir(d);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) > 0) {
				strcpy(tmp, names[i]);
				strcpy(names[i], names[j]);
				strcpy(names[j], tmp);
			}
	for (i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, names[i]);
	}
	return out;
}

static unsigned int mode_of(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		FAIL("stat %s: %s", path, strerror(errno));
	return st.st_mode & 07777;
}

/* --- module and mount ---------------------------------------------------- */

TEST(mount_point_and_magic)
{
	struct stat st;

	EXPECT(stat(MNT, &st) == 0 && S_ISDIR(st.st_mode));
	EXPECT_STR(listdir(MNT),
		   "cgroup.procs last_cmd_status tasks tgroup.bandwidth tgroup.config tgroup.interference tgroup.stat");
}

TEST(root_file_modes)
{
	EXPECT_EQ_LL(mode_of(gp("", "cgroup.procs")), 0644);
	EXPECT_EQ_LL(mode_of(gp("", "tasks")), 0644);
	EXPECT_EQ_LL(mode_of(gp("", "tgroup.bandwidth")), 0444);
	EXPECT_EQ_LL(mode_of(gp("", "tgroup.stat")), 0444);
	EXPECT_EQ_LL(mode_of(gp("", "tgroup.interference")), 0444);
	EXPECT_EQ_LL(mode_of(gp("", "tgroup.config")), 0644);
	EXPECT_EQ_LL(mode_of(gp("", "last_cmd_status")), 0444);
}

TEST(group_files_and_modes)
{
	mk("files");
	EXPECT_STR(listdir(p2(MNT, "files")),
		   "cgroup.procs tasks tgroup.bandwidth tgroup.limit tgroup.priority tgroup.stat");
	EXPECT_EQ_LL(mode_of(gp("files", "cgroup.procs")), 0644);
	EXPECT_EQ_LL(mode_of(gp("files", "tasks")), 0644);
	EXPECT_EQ_LL(mode_of(gp("files", "tgroup.priority")), 0644);
	EXPECT_EQ_LL(mode_of(gp("files", "tgroup.limit")), 0644);
	EXPECT_EQ_LL(mode_of(gp("files", "tgroup.bandwidth")), 0444);
	EXPECT_EQ_LL(mode_of(gp("files", "tgroup.stat")), 0444);
	EXPECT(!file_exists(gp("files", "tgroup.config")));
	EXPECT(!file_exists(gp("files", "last_cmd_status")));
	EXPECT(!file_exists(gp("files", "tgroup.interference")));
	EXPECT(!file_exists(gp("", "tgroup.priority")));
	EXPECT(!file_exists(gp("", "tgroup.limit")));
	rm("files");
}

TEST(every_mount_shows_one_hierarchy)
{
	mkdir("/tmp/m2", 0755);
	EXPECT_OK(mount("tgroup", "/tmp/m2", "tgroup", 0, NULL));
	mk("shared");
	EXPECT(file_exists("/tmp/m2/shared/tgroup.limit"));
	EXPECT_OK(rmdir("/tmp/m2/shared"));
	EXPECT(!file_exists(p2(MNT, "shared")));
	EXPECT_OK(mkdir("/tmp/m2/other", 0755));
	EXPECT_OK(umount("/tmp/m2"));
	EXPECT(file_exists(gp("other", "tgroup.stat")), "group survives a second umount");
	rm("other");
}

TEST(mount_rejects_options)
{
	mkdir("/tmp/m3", 0755);
	EXPECT_ERRNO(mount("tgroup", "/tmp/m3", "tgroup", 0, "foo=1"), EINVAL);
	EXPECT_ERRNO(mount("tgroup", "/tmp/m3", "tgroup", 0, "max_groups=3"), EINVAL);
}

/* --- mkdir / rmdir --------------------------------------------------------- */

TEST(mkdir_names)
{
	char name[80];

	memset(name, 'a', 64);
	name[64] = '\0';
	mk(name);
	rm(name);
	mk("A-z_0.9");
	rm("A-z_0.9");
	mk("x");
	rm("x");
	name[64] = 'a';
	name[65] = '\0';
	EXPECT_ERRNO(mkdir(p2(MNT, name), 0755), EINVAL);
	EXPECT(strstr(status(), "1..64"), "status: %s", status());
	EXPECT_ERRNO(mkdir(p2(MNT, "a b"), 0755), EINVAL);
	EXPECT_ERRNO(mkdir(p2(MNT, "a:b"), 0755), EINVAL);
	EXPECT_ERRNO(mkdir(p2(MNT, "caf\xc3\xa9"), 0755), EINVAL);
	EXPECT_ERRNO(mkdir(p2(MNT, "a*"), 0755), EINVAL);
	EXPECT(strstr(status(), "[A-Za-z0-9._-]"), "status: %s", status());
	mk("dup");
	EXPECT_ERRNO(mkdir(p2(MNT, "dup"), 0755), EEXIST);
	rm("dup");
}

TEST(mkdir_is_flat)
{
	mk("flat");
	EXPECT_ERRNO(mkdir(MNT "/flat/sub", 0755), EPERM);
	EXPECT(strstr(status(), "flat"), "status: %s", status());
	rm("flat");
}

TEST(max_groups_enospc)
{
	char name[32];
	int i;

	for (i = 0; i < TG_TEST_MAX_GROUPS; i++) {
		snprintf(name, sizeof(name), "many%d", i);
		mk(name);
	}
	EXPECT_ERRNO(mkdir(p2(MNT, "one-too-many"), 0755), ENOSPC);
	EXPECT(strstr(status(), "max_groups"), "status: %s", status());
	rm("many0");
	mk("one-too-many");		/* room again */
	rm("one-too-many");
	for (i = 1; i < TG_TEST_MAX_GROUPS; i++) {
		snprintf(name, sizeof(name), "many%d", i);
		rm(name);
	}
}

/*
 * Run fn(arg) in a child whose real, effective and saved uid and gid are
 * uid (no supplementary groups); an EXPECT that fails there fails the test.
 */
static void as_user(uid_t uid, void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid) || geteuid() != uid)
			FAIL("cannot become uid %u: %s", (unsigned int)uid, strerror(errno));
		fn(arg);
		_exit(0);
	}
	EXPECT(pid > 0);
	EXPECT_OK(waitpid(pid, &st, 0));
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the part run as uid %u failed",
	       (unsigned int)uid);
}

static void mkdir_deleg(void *arg)
{
	mk(arg);
}

/* stat's owner of a path, as "uid:gid" */
static const char *owner_of(const char *path)
{
	static char buf[2][32];
	static int i;
	char *b = buf[i++ % 2];
	struct stat st;

	if (stat(path, &st))
		FAIL("stat %s: %s", path, strerror(errno));
	snprintf(b, 32, "%u:%u", st.st_uid, st.st_gid);
	return b;
}

/*
 * A group's directory and files belong to whoever created it (their fsuid
 * and fsgid), as cgroup's do: a group the administrator creates under a
 * delegated root stays the administrator's.
 */
TEST(new_group_owned_by_creator)
{
	EXPECT_OK(chown(MNT, 1000, 1001));
	EXPECT_OK(chmod(MNT, 0775));
	as_user(1000, mkdir_deleg, (void *)"deleg");
	mk("notdeleg");				/* root, in the delegated root */
	EXPECT_OK(chown(MNT, 0, 0));
	EXPECT_OK(chmod(MNT, 0755));
	EXPECT_STR(owner_of(p2(MNT, "deleg")), "1000:1000");
	EXPECT_STR(owner_of(gp("deleg", "cgroup.procs")), "1000:1000");
	EXPECT_STR(owner_of(gp("deleg", "tgroup.priority")), "1000:1000");
	EXPECT_STR(owner_of(p2(MNT, "notdeleg")), "0:0");
	EXPECT_STR(owner_of(gp("notdeleg", "tasks")), "0:0");
	EXPECT_ERRNO(rename(p2(MNT, "deleg"), p2(MNT, "renamed")), EPERM);
	rm("deleg");
	rm("notdeleg");
}

TEST(rmdir_busy_while_tasks)
{
	pid_t pid = spawn_sleeper(1);

	mk("busy");
	EXPECT(wrf(gp("busy", "cgroup.procs"), "%d", pid) > 0);
	EXPECT_ERRNO(rmdir(p2(MNT, "busy")), EBUSY);
	EXPECT(strstr(status(), "has tasks"), "status: %s", status());
	EXPECT(wrf(gp("", "cgroup.procs"), "%d", pid) > 0);
	rm("busy");
	EXPECT(!file_exists(p2(MNT, "busy")));
	EXPECT(!strstr(listdir(MNT), "busy"));
	reap(pid);
}

TEST(rmdir_after_exit)
{
	pid_t pid = spawn_sleeper(3);

	mk("exitrm");
	EXPECT(wrf(gp("exitrm", "cgroup.procs"), "%d", pid) > 0);
	reap(pid);
	EXPECT_EQ_LL(read_ids(gp("exitrm", "tasks"), NULL, 0), 0);
	rm("exitrm");
}

TEST(removed_group_files_enodev)
{
	int fd;

	mk("gone");
	fd = open(gp("gone", "tgroup.priority"), O_WRONLY);
	EXPECT(fd >= 0);
	rm("gone");
	EXPECT_ERRNO(write(fd, "high", 4), ENODEV);
	close(fd);
}

/* --- membership ------------------------------------------------------------ */

TEST(procs_moves_every_thread)
{
	long tids[16], ids[16];
	pid_t pid = spawn_sleeper(4);
	int i, n;

	mk("procs");
	n = proc_tids(pid, tids, 16);
	EXPECT_EQ_LL(n, 4);
	EXPECT(wrf(gp("procs", "cgroup.procs"), "%d\n", pid) > 0);
	EXPECT_STR(status(), "ok\n");
	EXPECT_EQ_LL(read_ids(gp("procs", "cgroup.procs"), ids, 16), 1);
	EXPECT_EQ_LL(ids[0], pid);
	EXPECT_EQ_LL(read_ids(gp("procs", "tasks"), ids, 16), 4);
	EXPECT(ids_ascending(gp("procs", "tasks")));
	for (i = 0; i < n; i++) {
		EXPECT(has_id(gp("procs", "tasks"), tids[i]));
		EXPECT(!has_id(gp("", "tasks"), tids[i]));
	}
	EXPECT(!has_id(gp("", "cgroup.procs"), pid));
	EXPECT(ids_ascending(gp("", "cgroup.procs")));
	EXPECT(ids_ascending(gp("", "tasks")));
	/* moving it again to the same group is fine */
	EXPECT(wrf(gp("procs", "cgroup.procs"), "%d", pid) > 0);
	EXPECT(wrf(gp("", "cgroup.procs"), "%d", pid) > 0);
	EXPECT(has_id(gp("", "cgroup.procs"), pid));
	EXPECT_EQ_LL(read_ids(gp("procs", "tasks"), NULL, 0), 0);
	reap(pid);
	rm("procs");
}

TEST(tasks_moves_one_thread)
{
	long tids[16];
	pid_t pid = spawn_sleeper(3);
	long other;
	int n;

	mk("thr");
	n = proc_tids(pid, tids, 16);
	EXPECT_EQ_LL(n, 3);
	other = tids[0] == pid ? tids[1] : tids[0];
	EXPECT(wrf(gp("thr", "tasks"), "%ld", other) > 0);
	EXPECT_EQ_LL(read_ids(gp("thr", "tasks"), NULL, 0), 1);
	EXPECT(has_id(gp("thr", "tasks"), other));
	/* the process has threads in both: it is listed in both */
	EXPECT(has_id(gp("thr", "cgroup.procs"), pid));
	EXPECT(has_id(gp("", "cgroup.procs"), pid));
	EXPECT(has_id(gp("", "tasks"), pid));
	EXPECT(!has_id(gp("", "tasks"), other));
	reap(pid);
	EXPECT_EQ_LL(read_ids(gp("thr", "tasks"), NULL, 0), 0);
	rm("thr");
}

TEST(pid_zero_is_the_writer)
{
	mk("self");
	EXPECT(wr(gp("self", "cgroup.procs"), "0") > 0);
	EXPECT(has_id(gp("self", "cgroup.procs"), getpid()));
	EXPECT(wr(gp("", "cgroup.procs"), "0") > 0);
	EXPECT(!has_id(gp("self", "cgroup.procs"), getpid()));
	rm("self");
}

TEST(fork_clone_exec_inherit)
{
	int go[2], back[2];
	pid_t pid;
	char c;

	mk("inherit");
	EXPECT_OK(pipe(go));
	EXPECT_OK(pipe(back));
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		/* now in the group: a thread and a child process */
		pthread_create(&t, NULL, sleeper_thread, NULL);
		if (fork() == 0) {
			execl("/bin/busybox", "sleep", "30", (char *)NULL);
			_exit(127);
		}
		c = 1;
		if (write(back[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	EXPECT(wrf(gp("inherit", "cgroup.procs"), "%d", pid) > 0);
	EXPECT(write(go[1], "x", 1) == 1);
	EXPECT(read(back[0], &c, 1) == 1);
	usleep(200 * 1000);	/* let the child exec */
	{
		long procs[8], tasks[8];
		int np = read_ids(gp("inherit", "cgroup.procs"), procs, 8);
		int nt = read_ids(gp("inherit", "tasks"), tasks, 8);
		char comm[64] = "";
		char path[64];

		EXPECT_EQ_LL(np, 2);	/* the process and its exec'ed child */
		EXPECT_EQ_LL(nt, 3);	/* + the new thread */
		EXPECT(procs[0] == pid || procs[1] == pid);
		snprintf(path, sizeof(path), "/proc/%ld/comm",
			 procs[0] == pid ? procs[1] : procs[0]);
		rd(path, comm, sizeof(comm));
		EXPECT_STR(comm, "busybox\n");	/* it did exec */
	}
	{
		long procs[8];
		int i, np = read_ids(gp("inherit", "cgroup.procs"), procs, 8);

		for (i = 0; i < np && i < 8; i++)
			kill(procs[i], SIGKILL);
	}
	waitpid(pid, NULL, 0);
	for (int i = 0; i < 250 && read_ids(gp("inherit", "tasks"), NULL, 0); i++)
		usleep(20000);	/* the grandchild is reaped by init */
	rm("inherit");
}

/*
 * Inheritance cannot fail (issue 22): with failslab, the Nth non-sleeping
 * slab allocation of the forking task (/proc/thread-self/fail-nth; failslab
 * by default fails only allocations that cannot sleep, which is what a
 * fork hook may make) is made to fail, for N = 1, 2, ... until a fork no
 * longer reaches the Nth. Every fork and every thread creation that
 * succeeds must put the child in its creator's group, however many of
 * those allocations failed. Kernels without fault injection (the cloud
 * kernel) skip it: the debug-kernel lane runs it.
 */
static int fail_nth_set(int n)
{
	return wrf("/proc/thread-self/fail-nth", "%d", n) > 0 ? 0 : -1;
}

/*
 * failslab's report of each failure without its stack (verbose=1): the
 * debug lane's dmesg_clean takes any "Call Trace" for a kernel problem.
 * Restored (2, the default) after the test.
 */
static void failslab_verbose(int v)
{
	wrf("/sys/kernel/debug/failslab/verbose", "%d", v);
}

static int fail_nth_left(void)
{
	char buf[32] = "";

	rd("/proc/thread-self/fail-nth", buf, sizeof(buf));
	return atoi(buf);
}

static void *fi_thread(void *arg)
{
	long *tid = arg;

	*tid = syscall(SYS_gettid);
	for (;;)
		pause();
	return NULL;
}

TEST(fork_inherits_under_failslab)
{
	int *res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char cfg[4096], *p;
	int st;
	pid_t w;

	if (access("/proc/self/fail-nth", F_OK)) {
		printf("TGTEST-INFO: fork_inherits_under_failslab: no fault injection in this kernel "
		       "(CONFIG_FAULT_INJECTION): runs on the debug kernel\n");
		return;
	}
	failslab_verbose(1);
	mk("fi");
	w = fork();
	if (w == 0) {
		int n, hit_forks = 0, hit_threads = 0, bad = 0, forks = 0, threads = 0;

		if (wr(gp("fi", "cgroup.procs"), "0") < 0)
			_exit(10);
		for (n = 1; n < 200; n++) {
			pid_t c;
			int left;

			if (fail_nth_set(n))
				_exit(11);
			c = fork();
			if (c == 0) {
				for (;;)
					pause();
			}
			left = fail_nth_left();
			fail_nth_set(0);
			if (c > 0) {
				forks++;
				hit_forks += !left;
				bad += !has_id(gp("fi", "tasks"), c);
				kill(c, SIGKILL);
				waitpid(c, NULL, 0);
			}
			if (left && c > 0)
				break;	/* the fork made fewer than n such allocations */
		}
		for (n = 1; n < 200; n++) {
			volatile long tid = 0;
			pthread_t t;
			int left, rc;

			if (fail_nth_set(n))
				_exit(11);
			rc = pthread_create(&t, NULL, fi_thread, (void *)&tid);
			left = fail_nth_left();
			fail_nth_set(0);
			if (!rc) {
				while (!tid)
					usleep(100);
				threads++;
				hit_threads += !left;
				bad += !has_id(gp("fi", "tasks"), tid);
			}
			if (left && !rc)
				break;
		}
		res[0] = forks;
		res[1] = hit_forks;
		res[2] = threads;
		res[3] = hit_threads;
		res[4] = bad;
		_exit(0);
	}
	waitpid(w, &st, 0);
	failslab_verbose(2);
	EXPECT(WIFEXITED(st) && !WEXITSTATUS(st), "forker status %#x", st);
	rd(gp("", "tgroup.config"), cfg, sizeof(cfg));
	p = strstr(cfg, "inherit_failures=");
	printf("TGTEST-INFO: fork_inherits_under_failslab: %d forks (%d with an allocation failed), "
	       "%d threads (%d with an allocation failed), %d not in their creator's group; %.30s\n",
	       res[0], res[1], res[2], res[3], res[4], p ? p : "no inherit_failures");
	EXPECT(res[1] > 0 && res[3] > 0, "no fork or thread creation succeeded with a failed "
	       "allocation: the test did not reach the fork hook");
	EXPECT(res[4] == 0, "%d children or threads escaped to the root group", res[4]);
	EXPECT(p && !strncmp(p, "inherit_failures=0\n", 19), "%.30s", p ? p : "none");
	rm("fi");
}

/*
 * A failed move changes nothing (issue 22): a process of MV_THREADS threads
 * in the root group is moved to a group by a writer whose Nth slab
 * allocation is made to fail (failslab with ignore-gfp-wait=N: sleeping
 * allocations fail too), for N = 1, 2, ... until the write no longer
 * reaches the Nth. A write that fails leaves every thread where it was;
 * one that succeeds moves them all. Runs where fault injection exists.
 */
#define MV_THREADS	8

TEST(move_all_or_nothing_under_failslab)
{
	const char *igw = "/sys/kernel/debug/failslab/ignore-gfp-wait";
	int n, fails = 0, oks = 0, bad = 0, left, nt;
	char why[256] = "";
	long tids[64];
	pid_t p;

	if (access("/proc/self/fail-nth", F_OK) || access(igw, W_OK)) {
		printf("TGTEST-INFO: move_all_or_nothing_under_failslab: no fault injection in this "
		       "kernel (CONFIG_FAILSLAB, debugfs): runs on the debug kernel\n");
		return;
	}
	failslab_verbose(1);
	mk("mv");
	p = spawn_sleeper(MV_THREADS);
	EXPECT(wr(igw, "N") > 0, "%s: %s", igw, strerror(errno));
	for (n = 1; n < 400; n++) {
		long r;
		int i, in_mv = 0;

		fail_nth_set(n);
		r = wrf(gp("mv", "cgroup.procs"), "%d", p);
		left = fail_nth_left();
		fail_nth_set(0);
		nt = proc_tids(p, tids, 64);
		for (i = 0; i < nt; i++)
			in_mv += has_id(gp("mv", "tasks"), tids[i]);
		if (r < 0) {
			fails++;
			if (in_mv && !bad++)
				snprintf(why, sizeof(why), "fail-nth %d: the write failed (%s) with %d "
					 "of %d threads moved", n, strerror(errno), in_mv, nt);
		} else {
			oks++;
			if (in_mv != nt && !bad++)
				snprintf(why, sizeof(why), "fail-nth %d: the write succeeded with %d of "
					 "%d threads moved", n, in_mv, nt);
			EXPECT(wrf(gp("", "cgroup.procs"), "%d", p) > 0, "back to root: %s",
			       strerror(errno));
		}
		if (left)
			break;	/* the write made fewer than n allocations */
	}
	wr(igw, "Y");
	failslab_verbose(2);
	printf("TGTEST-INFO: move_all_or_nothing_under_failslab: %d writes failed, %d succeeded "
	       "(%d threads); %d half done%s%s\n", fails, oks, nt, bad, bad ? ": " : "", why);
	EXPECT(fails > 0 && oks > 0, "no failed or no successful write: fault injection did not "
	       "reach the move");
	EXPECT(!bad, "%s", why);
	reap(p);
	rm("mv");
}

/*
 * A listing is produced as it is read (issue 22, item 6): cgroup.procs and
 * tasks are iterators, so no read walks every task at once (the code before
 * generated the whole listing, under one rcu_read_lock(), at the first
 * read). A group holds a process of LS_THREADS threads, more than one page
 * of ids; the reader takes the first bytes, a new process (a higher pid)
 * joins, and the rest of the same open file must list it. A listing made
 * at the first read cannot.
 */
#define LS_THREADS	1200

TEST(listing_is_read_as_it_goes)
{
	pid_t big, late;
	char buf[65536];
	long n = 0, r, got = 0, last = 0, id;
	int fd, found = 0, ascending = 1;
	char *p, *end;

	mk("ls");
	big = spawn_sleeper(LS_THREADS);
	EXPECT(wrf(gp("ls", "cgroup.procs"), "%d", big) > 0, "move: %s", strerror(errno));
	fd = open(gp("ls", "tasks"), O_RDONLY);
	EXPECT(fd >= 0, "open tasks: %s", strerror(errno));
	r = read(fd, buf, 64);
	EXPECT(r == 64, "first read: %ld", r);
	n = r;
	late = spawn_sleeper(1);
	EXPECT(wrf(gp("ls", "cgroup.procs"), "%d", late) > 0, "move: %s", strerror(errno));
	while (n < (long)sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	for (p = buf; *p; p = end + 1) {
		id = strtol(p, &end, 10);
		if (end == p || *end != '\n')
			break;
		ascending &= id > last;
		last = id;
		found |= id == late;
		got++;
	}
	printf("TGTEST-INFO: listing_is_read_as_it_goes: %ld bytes, %ld ids (%d threads, then "
	       "pid %d joined after the first 64 bytes): %s\n", n, got, LS_THREADS, late,
	       found ? "listed" : "not listed");
	EXPECT(got == LS_THREADS + 1 || (got == LS_THREADS && !found),
	       "%ld ids, expected %d or %d", got, LS_THREADS, LS_THREADS + 1);
	EXPECT(ascending, "ids not strictly ascending");
	EXPECT(n > 4096, "the listing (%ld bytes) fits one page: the test proves nothing", n);
	EXPECT(found, "pid %d, which joined after the first read, is not in the rest of the "
	       "listing: it was made at the first read", late);
	reap(late);
	reap(big);
	rm("ls");
}

TEST(exit_leaves_group)
{
	pid_t pid;
	int i;

	mk("leave");
	EXPECT(wr(gp("leave", "cgroup.procs"), "0") > 0);
	for (i = 0; i < 20; i++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	EXPECT_EQ_LL(read_ids(gp("leave", "tasks"), NULL, 0), 1);
	EXPECT(wr(gp("", "cgroup.procs"), "0") > 0);
	rm("leave");
}

/* --- write errors ------------------------------------------------------------ */

TEST(pid_write_errors)
{
	char big[32];

	mk("err");
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "abc"), EINVAL);
	EXPECT(strstr(status(), "cgroup.procs: not a decimal number"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "-1"), EINVAL);
	EXPECT(strstr(status(), "negative"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "99999999999999999999999"), EINVAL);
	EXPECT(strstr(status(), "out of range"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "4194305"), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), ""), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "\n"), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "1 2"), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "1\n2\n"), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), " 1"), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "+1"), EINVAL);
	EXPECT_ERRNO(wr(gp("err", "tasks"), "0x10"), EINVAL);
	/* no such pid */
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "4000000"), ESRCH);
	EXPECT(strstr(status(), "no such pid"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("err", "tasks"), "4000000"), ESRCH);
	/* kernel thread (kthreadd) */
	EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), "2"), EINVAL);
	EXPECT(strstr(status(), "kernel thread"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("err", "tasks"), "2"), EINVAL);
	/* nothing moved by any of that */
	EXPECT_EQ_LL(read_ids(gp("err", "tasks"), NULL, 0), 0);
	/* a too long write */
	{
		static char huge[8192];

		memset(huge, '1', sizeof(huge) - 1);
		EXPECT_ERRNO(wr(gp("err", "cgroup.procs"), huge), EINVAL);
	}
	snprintf(big, sizeof(big), "%d\n", getpid());
	EXPECT(wr(gp("err", "cgroup.procs"), big) > 0);
	EXPECT_STR(status(), "ok\n");
	EXPECT(wr(gp("", "cgroup.procs"), big) > 0);
	rm("err");
}

TEST(read_only_files_reject_writes)
{
	/* root may open 0444 files for writing; the write itself fails */
	mk("ro");
	EXPECT_ERRNO(wr(gp("ro", "tgroup.bandwidth"), "dram_rbps=1"), EINVAL);
	EXPECT(strstr(status(), "read-only"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("ro", "tgroup.stat"), "x"), EINVAL);
	EXPECT_ERRNO(wr(gp("", "tgroup.interference"), "x"), EINVAL);
	EXPECT_ERRNO(wr(gp("", "last_cmd_status"), "ok"), EINVAL);
	rm("ro");
}

TEST(priority_file)
{
	char buf[64];

	mk("prio");
	rd(gp("prio", "tgroup.priority"), buf, sizeof(buf));
	EXPECT_STR(buf, "low\n");
	EXPECT(wr(gp("prio", "tgroup.priority"), "high") == 4);
	rd(gp("prio", "tgroup.priority"), buf, sizeof(buf));
	EXPECT_STR(buf, "high\n");
	EXPECT(wr(gp("prio", "tgroup.priority"), "low\n") == 4);
	rd(gp("prio", "tgroup.priority"), buf, sizeof(buf));
	EXPECT_STR(buf, "low\n");
	EXPECT_ERRNO(wr(gp("prio", "tgroup.priority"), "HIGH"), EINVAL);
	EXPECT(strstr(status(), "tgroup.priority: priority must be"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("prio", "tgroup.priority"), "high low"), EINVAL);
	EXPECT_ERRNO(wr(gp("prio", "tgroup.priority"), "high\n\n"), EINVAL);
	EXPECT_ERRNO(wr(gp("prio", "tgroup.priority"), " high"), EINVAL);
	EXPECT_ERRNO(wr(gp("prio", "tgroup.priority"), "hig"), EINVAL);
	EXPECT_ERRNO(wr(gp("prio", "tgroup.priority"), ""), EINVAL);
	rd(gp("prio", "tgroup.priority"), buf, sizeof(buf));
	EXPECT_STR(buf, "low\n");
	rm("prio");
}

TEST(limit_file)
{
	const char *f;
	char buf[256];

	mk("lim");
	f = gp("lim", "tgroup.limit");
	rd(f, buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max\n");
	EXPECT(wr(f, "nvm_wbps=1000000") > 0);
	rd(f, buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=1000000\n");
	EXPECT(wr(f, "dram_rbps=5 nvm_rbps=18446744073709551614\n") > 0);
	rd(f, buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=5 dram_wbps=max nvm_rbps=18446744073709551614 nvm_wbps=1000000\n");
	EXPECT(wr(f, "nvm_wbps=max dram_wbps=0") > 0);
	rd(f, buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=5 dram_wbps=0 nvm_rbps=18446744073709551614 nvm_wbps=max\n");
	/* all or nothing: a bad pair after a good one changes nothing */
	EXPECT_ERRNO(wr(f, "dram_rbps=7 bogus=1"), EINVAL);
	EXPECT(strstr(status(), "unknown limit key"), "status: %s", status());
	EXPECT_ERRNO(wr(f, "dram_rbps=7 nvm_wbps=-1"), EINVAL);
	EXPECT(strstr(status(), "negative"), "status: %s", status());
	EXPECT_ERRNO(wr(f, "dram_rbps=18446744073709551616"), EINVAL);
	EXPECT(strstr(status(), "out of range"), "status: %s", status());
	EXPECT_ERRNO(wr(f, "dram_rbps=7 dram_rbps=8"), EINVAL);
	EXPECT(strstr(status(), "twice"), "status: %s", status());
	EXPECT_ERRNO(wr(f, "dram_rbps=7x"), EINVAL);
	EXPECT_ERRNO(wr(f, "dram_rbps="), EINVAL);
	EXPECT_ERRNO(wr(f, "dram_rbps"), EINVAL);
	EXPECT_ERRNO(wr(f, "=5"), EINVAL);
	EXPECT_ERRNO(wr(f, "dram_rbps=Max"), EINVAL);
	EXPECT_ERRNO(wr(f, ""), EINVAL);
	EXPECT_ERRNO(wr(f, " \n"), EINVAL);
	EXPECT(strstr(status(), "no limit given"), "status: %s", status());
	rd(f, buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=5 dram_wbps=0 nvm_rbps=18446744073709551614 nvm_wbps=max\n");
	rm("lim");
}

TEST(bandwidth_stat_interference_formats)
{
	char buf[1024], expect[1024];
	unsigned int period;

	mk("fmt");
	rd(gp("fmt", "tgroup.bandwidth"), buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=0 dram_wbps=0 nvm_rbps=0 nvm_wbps=0\n");
	rd(gp("", "tgroup.bandwidth"), buf, sizeof(buf));
	EXPECT_STR(buf, "dram_rbps=0 dram_wbps=0 nvm_rbps=0 nvm_wbps=0\n");
	rd(gp("", "tgroup.interference"), buf, sizeof(buf));
	EXPECT_STR(buf, "dram_read_lat_ns=0 nvm_read_lat_ns=0 dram_write_lat_ns=0 nvm_write_lat_ns=0\nstate=none\n");
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(sscanf(buf, "period_ms=%u", &period) == 1, "config: %s", buf);
	rd(gp("fmt", "tgroup.stat"), buf, sizeof(buf));
	/* nr_periods counts regulation periods: blank it for the comparison */
	{
		char *p = strstr(buf, "nr_periods ");
		unsigned long long np = 0;

		EXPECT(p && sscanf(p, "nr_periods %llu", &np) == 1, "stat: %s", buf);
	}
	snprintf(expect, sizeof(expect),
		 "dram_read_bytes 0\ndram_write_bytes 0\nnvm_read_bytes 0\nnvm_write_bytes 0\n"
		 "nr_periods %%llu\nnr_throttled 0\nthrottled_usec 0\nmba_percent 100\n"
		 "cpu_quota_usec max\ncpu_period_usec %u\n"
		 "last_action none\nlast_mechanism none\nlast_reason none\n", period * 1000);
	{
		unsigned long long np;
		char again[1024];

		EXPECT(sscanf(buf,
			      "dram_read_bytes 0\ndram_write_bytes 0\nnvm_read_bytes 0\nnvm_write_bytes 0\nnr_periods %llu\n",
			      &np) == 1, "stat: %s", buf);
		snprintf(again, sizeof(again), expect, np);
		EXPECT_STR(buf, again);
	}
	rm("fmt");
}

TEST(nr_periods_advances)
{
	unsigned long long a = 0, b = 0;
	char buf[1024], *p;

	mk("periods");
	rd(gp("periods", "tgroup.stat"), buf, sizeof(buf));
	p = strstr(buf, "nr_periods ");
	EXPECT(p && sscanf(p, "nr_periods %llu", &a) == 1);
	usleep(300 * 1000);
	rd(gp("periods", "tgroup.stat"), buf, sizeof(buf));
	p = strstr(buf, "nr_periods ");
	EXPECT(p && sscanf(p, "nr_periods %llu", &b) == 1);
	/* 300 ms at 10 ms periods: at least a few, never backwards */
	EXPECT(b > a + 3, "nr_periods %llu -> %llu", a, b);
	rm("periods");
}

TEST(config_file)
{
	char buf[4096];

	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "period_ms=10\n"), "config: %s", buf);
	EXPECT(strstr(buf, "max_groups=16\n"), "config: %s", buf);
	/* no inject, no MBA in the guest: said, with the reason */
	EXPECT(strstr(buf, "actuator_mba=unavailable: CPU lacks MBA (CPUID)\n"), "config: %s", buf);
	EXPECT(strstr(buf, "source_inject=unavailable: module parameter inject=0\n"), "config: %s", buf);
	EXPECT(strstr(buf, "source_rdt=unavailable: CPU lacks MBM (CPUID)\n"), "config: %s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "period_ms=20\n") > 0);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "period_ms=20\n"), "config: %s", buf);
	rd(gp("", "tgroup.stat"), buf, sizeof(buf));
	EXPECT(strstr(buf, "cpu_period_usec 20000\n"), "stat: %s", buf);
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "period_ms=0"), EINVAL);
	EXPECT(strstr(status(), "1..1000"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "period_ms=1001"), EINVAL);
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "period_ms=-5"), EINVAL);
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "period_ms=5 bogus=1"), EINVAL);
	EXPECT(strstr(status(), "unknown"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "max_groups=3"), EINVAL);
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), ""), EINVAL);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "period_ms=20\n"), "config: %s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "period_ms=10") > 0);
	EXPECT_STR(status(), "ok\n");
}

/*
 * The OCR events' config1 (response MSR values): CLX's perf JSON MSRValues
 * of OCR.ALL_DATA_RD.L3_MISS_LOCAL_DRAM.ANY_SNOOP (0x3f84000491) and
 * OCR.ALL_DATA_RD.PMM_HIT_LOCAL_PMM.ANY_SNOOP (0x3f80400491), in decimal,
 * read back exactly; bad values change nothing and say why.
 */
TEST(config_ocr_config1)
{
	char buf[4096];

	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "\nocr_dram_read_config1=0\nocr_nvm_read_config1=0\n"), "config: %s", buf);
	EXPECT(wr(gp("", "tgroup.config"),
		  "ocr_dram_read_config1=272797533329 ocr_nvm_read_config1=272734618769") > 0);
	EXPECT_STR(status(), "ok\n");
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "\nocr_dram_read_config1=272797533329\n"), "config: %s", buf);
	EXPECT(strstr(buf, "\nocr_nvm_read_config1=272734618769\n"), "config: %s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "ocr_nvm_read_config1=18446744073709551615") > 0);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "\nocr_nvm_read_config1=18446744073709551615\n"), "config: %s", buf);

	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "ocr_nvm_read_config1=18446744073709551616"), EINVAL);
	EXPECT(strstr(status(), "out of range"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "ocr_dram_read_config1=-1"), EINVAL);
	EXPECT(strstr(status(), "negative"), "status: %s", status());
	/* all or nothing: the good key before the bad one is not applied */
	EXPECT_ERRNO(wr(gp("", "tgroup.config"),
			"ocr_dram_read_config1=5 ocr_nvm_read_config1=0x3f80400491"), EINVAL);
	EXPECT(strstr(status(), "not a decimal"), "status: %s", status());
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "ocr_dram_read_config2=5"), EINVAL);
	EXPECT(strstr(status(), "unknown"), "status: %s", status());
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "\nocr_dram_read_config1=272797533329\n"), "config: %s", buf);
	EXPECT(strstr(buf, "\nocr_nvm_read_config1=18446744073709551615\n"), "config: %s", buf);

	EXPECT(wr(gp("", "tgroup.config"), "ocr_dram_read_config1=0 ocr_nvm_read_config1=0") > 0);
	EXPECT_STR(status(), "ok\n");
}

/* --- permissions and namespaces --------------------------------------------- */

TEST(non_root_writer)
{
	pid_t victim = spawn_sleeper(1);	/* owned by root */
	int res[2];
	pid_t pid;
	int st;
	char c;

	mk("perm");
	EXPECT_OK(chown(gp("perm", "cgroup.procs"), 1000, 1000));
	/* the task leaves the root group: its cgroup.procs too (docs/abi.md) */
	EXPECT_OK(chown(gp("", "cgroup.procs"), 1000, 1000));
	{
		struct stat sb;

		EXPECT_OK(stat(gp("perm", "cgroup.procs"), &sb));
		EXPECT_EQ_LL(sb.st_uid, 1000);
	}
	EXPECT_OK(pipe(res));
	pid = fork();
	if (pid == 0) {
		if (setgid(1000) || setuid(1000))
			_exit(10);
		/* no write permission on a root-owned 0644 file */
		if (open(gp("perm", "tasks"), O_WRONLY) != -1 || errno != EACCES)
			_exit(11);
		if (open(gp("", "tgroup.config"), O_WRONLY) != -1 || errno != EACCES)
			_exit(12);
		/* write permission, own process: allowed */
		{
			int fd = open(gp("perm", "cgroup.procs"), O_WRONLY);

			if (fd < 0)
				_exit(100 + errno);
			if (write(fd, "0", 1) != 1)
				_exit(150 + errno);
			close(fd);
		}
		/* write permission, someone else's process: EPERM */
		if (wrf(gp("perm", "cgroup.procs"), "%d", victim) != -1 || errno != EPERM)
			_exit(14);
		if (!strstr(status(), "not permitted"))
			_exit(15);
		c = 0;
		if (write(res[1], &c, 1) != 1)
			_exit(16);
		pause();
		_exit(0);
	}
	close(res[1]);
	if (read(res[0], &c, 1) != 1) {
		waitpid(pid, &st, 0);
		FAIL("non-root child failed with %d", WEXITSTATUS(st));
	}
	EXPECT_OK(chown(gp("", "cgroup.procs"), 0, 0));
	EXPECT(has_id(gp("perm", "cgroup.procs"), pid));
	EXPECT(!has_id(gp("perm", "cgroup.procs"), victim));
	reap(pid);
	reap(victim);
	rm("perm");
}

/* --- the permission model (docs/abi.md, "Who may do what") --------------- */

/* root's files back to root, the mount root to 0755 root:root */
static void undelegate(void)
{
	EXPECT_OK(chown(MNT, 0, 0));
	EXPECT_OK(chmod(MNT, 0755));
	EXPECT_OK(chown(gp("", "cgroup.procs"), 0, 0));
	EXPECT_OK(chown(gp("", "tasks"), 0, 0));
	EXPECT_OK(chmod(gp("", "tgroup.config"), 0644));
}

/* the mount root, and the root group's cgroup.procs and tasks, to uid 1000 */
static void delegate(void)
{
	EXPECT_OK(chown(MNT, 1000, 1000));
	EXPECT_OK(chown(gp("", "cgroup.procs"), 1000, 1000));
	EXPECT_OK(chown(gp("", "tasks"), 1000, 1000));
}

static void delegate_high(void *arg __attribute__((unused)))
{
	char buf[64];

	mk("dlg");
	EXPECT_ERRNO(wr(gp("dlg", "tgroup.priority"), "high"), EPERM);
	EXPECT(strstr(status(), "tgroup.priority: high needs CAP_SYS_ADMIN"), "status: %s",
	       status());
	rd(gp("dlg", "tgroup.priority"), buf, sizeof(buf));
	EXPECT_STR(buf, "low\n");
	/* malformed input is still EINVAL, checked first */
	EXPECT_ERRNO(wr(gp("dlg", "tgroup.priority"), "hi"), EINVAL);
	/* low, limits and moving its own process are the delegate's */
	EXPECT(wr(gp("dlg", "tgroup.priority"), "low") == 3);
	EXPECT(wr(gp("dlg", "tgroup.limit"), "nvm_wbps=1000000") > 0);
	EXPECT(wr(gp("dlg", "cgroup.procs"), "0") > 0);
	EXPECT(has_id(gp("dlg", "cgroup.procs"), getpid()));
	EXPECT(wr(gp("", "cgroup.procs"), "0") > 0);
	EXPECT_OK(rmdir(p2(MNT, "dlg")));
}

/*
 * A delegate (the mount root and the root's cgroup.procs chowned to it)
 * creates groups and sets low and limits, but cannot make a group high
 * (that exempts it from the remedial policy): EPERM, said in
 * last_cmd_status. The administrator can.
 */
TEST(delegate_cannot_set_high)
{
	char buf[64];

	undelegate();
	delegate();
	as_user(1000, delegate_high, NULL);
	as_user(1000, mkdir_deleg, (void *)"dlg2");
	undelegate();
	EXPECT(wr(gp("dlg2", "tgroup.priority"), "high") == 4);
	rd(gp("dlg2", "tgroup.priority"), buf, sizeof(buf));
	EXPECT_STR(buf, "high\n");
	rm("dlg2");
}

/* the config file made writable to uid 1000: the write is still refused */
static void config_write_denied(void *arg __attribute__((unused)))
{
	char buf[4096];

	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "enabled=0"), EPERM);
	EXPECT(strstr(status(), "tgroup.config: writing it needs CAP_SYS_ADMIN"), "status: %s",
	       status());
	/* even a malformed write: permission comes first */
	EXPECT_ERRNO(wr(gp("", "tgroup.config"), "bogus"), EPERM);
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "\nenabled=1\n"), "config: %s", buf);
}

/* open tgroup.config as uid 1000, tell the parent, wait to be killed */
static void config_open_and_wait(void *arg)
{
	int *fds = arg, fd = open(gp("", "tgroup.config"), O_WRONLY);
	char c = fd >= 0 ? (char)fd : -1;

	EXPECT(write(fds[1], &c, 1) == 1);
	for (;;)
		pause();
}

/*
 * Any write to tgroup.config needs CAP_SYS_ADMIN in the initial user
 * namespace, whatever the file's mode: a chmod 0666 does not let uid 1000
 * turn the regulator off. The capability is that of the opener (the
 * file's credentials): root writing through a descriptor uid 1000 opened is
 * refused, uid 1000 writing through one root opened is not.
 */
TEST(config_needs_cap_sys_admin)
{
	int fds[2], fd, theirs, pidfd, st;
	char c, buf[4096];
	pid_t pid;

	undelegate();
	EXPECT_OK(chmod(gp("", "tgroup.config"), 0666));
	as_user(1000, config_write_denied, NULL);

	/* a descriptor opened by uid 1000, written by root */
	EXPECT_OK(pipe(fds));
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (setgroups(0, NULL) || setgid(1000) || setuid(1000))
			_exit(1);
		config_open_and_wait(fds);
	}
	close(fds[1]);
	EXPECT(read(fds[0], &c, 1) == 1 && c >= 0, "uid 1000 could not open tgroup.config");
	theirs = c;
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	EXPECT(pidfd >= 0, "pidfd_open: %s", strerror(errno));
	fd = syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
	EXPECT(fd >= 0, "pidfd_getfd: %s", strerror(errno));
	EXPECT_ERRNO(write(fd, "enabled=0", 9), EPERM);
	close(fd);
	close(pidfd);
	reap(pid);
	close(fds[0]);
	EXPECT_OK(chmod(gp("", "tgroup.config"), 0644));

	/* a descriptor opened by root, written after dropping to uid 1000 */
	pid = fork();
	if (pid == 0) {
		fd = open(gp("", "tgroup.config"), O_WRONLY);
		if (fd < 0 || setgroups(0, NULL) || setgid(1000) || setuid(1000))
			_exit(1);
		_exit(write(fd, "period_ms=11", 12) == 12 ? 0 : 2);
	}
	EXPECT_OK(waitpid(pid, &st, 0));
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d", WEXITSTATUS(st));
	rd(gp("", "tgroup.config"), buf, sizeof(buf));
	EXPECT(strstr(buf, "period_ms=11\n") && strstr(buf, "\nenabled=1\n"), "config: %s", buf);
	EXPECT(wr(gp("", "tgroup.config"), "period_ms=10") > 0);
}

/* a thread that takes uid 1000 for itself alone (the raw system call) */
static void *thread_as_1000(void *arg)
{
	int *fds = arg;
	pid_t tid = syscall(SYS_gettid);

	if (syscall(SYS_setresuid, 1000, 1000, 1000) ||
	    write(fds[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	for (;;)
		pause();
	return NULL;
}

static void move_mixed(void *arg)
{
	const pid_t *ids = arg;		/* [0] the process, [1] its uid-1000 thread */

	/* one thread is the writer's; the process (uid 0) is not */
	EXPECT_ERRNO(wrf(gp("mixed", "cgroup.procs"), "%d", ids[1]), EPERM);
	EXPECT(strstr(status(), "cgroup.procs: not permitted to move this task"), "status: %s",
	       status());
	EXPECT_ERRNO(wrf(gp("mixed", "cgroup.procs"), "%d", ids[0]), EPERM);
	/* that thread alone is the writer's to move */
	EXPECT(wrf(gp("mixed", "tasks"), "%d", ids[1]) > 0);
}

/*
 * The move check looks at every thread a move takes: a root process one of
 * whose threads switched to uid 1000 (setresuid on that thread only) cannot
 * be dragged into a group by uid 1000 naming that thread in cgroup.procs;
 * the thread alone (tasks) can be moved.
 */
TEST(move_checks_every_thread)
{
	pid_t ids[2], pid;
	int fds[2];

	undelegate();
	mk("mixed");
	EXPECT_OK(chown(gp("mixed", "cgroup.procs"), 1000, 1000));
	EXPECT_OK(chown(gp("mixed", "tasks"), 1000, 1000));
	delegate();				/* the source: the root group */
	EXPECT_OK(pipe(fds));
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		close(fds[0]);
		if (pthread_create(&t, NULL, thread_as_1000, fds))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	EXPECT(read(fds[0], &ids[1], sizeof(ids[1])) == sizeof(ids[1]), "no uid 1000 thread");
	close(fds[0]);
	ids[0] = pid;
	as_user(1000, move_mixed, ids);
	undelegate();
	EXPECT(!has_id(gp("mixed", "tasks"), pid), "the root thread was moved");
	EXPECT(has_id(gp("", "tasks"), pid));
	EXPECT(has_id(gp("mixed", "tasks"), ids[1]));
	reap(pid);
	rm("mixed");
}

static void move_from_pen(void *arg)
{
	const pid_t *ids = arg;		/* [0] uid 1000's process in "pen", [1] one in root */

	mk("mine");
	mk("mine2");
	/* its own process, but "pen" is the administrator's */
	EXPECT_ERRNO(wrf(gp("mine", "cgroup.procs"), "%d", ids[0]), EPERM);
	EXPECT(strstr(status(), "cgroup.procs: not permitted to move tasks out of their group"),
	       "status: %s", status());
	EXPECT_ERRNO(wrf(gp("mine", "tasks"), "%d", ids[0]), EPERM);
	EXPECT_ERRNO(wrf(gp("", "cgroup.procs"), "%d", ids[0]), EPERM);
	/* between groups it may write: root -> mine -> mine2 -> root */
	EXPECT(wrf(gp("mine", "cgroup.procs"), "%d", ids[1]) > 0);
	EXPECT(wrf(gp("mine2", "cgroup.procs"), "%d", ids[1]) > 0);
	EXPECT(has_id(gp("mine2", "cgroup.procs"), ids[1]));
	EXPECT(wrf(gp("", "cgroup.procs"), "%d", ids[1]) > 0);
	EXPECT(wrf(gp("mine", "cgroup.procs"), "%d", ids[1]) > 0);
}

static void move_from_root(void *arg)
{
	const pid_t *ids = arg;

	EXPECT_ERRNO(wrf(gp("mine2", "cgroup.procs"), "%d", ids[1]), EPERM);
	EXPECT(strstr(status(), "cgroup.procs: not permitted to move tasks out of their group"),
	       "status: %s", status());
}

/*
 * The group a task leaves is checked as well as the one it joins: uid 1000
 * cannot take its own process out of a group the administrator put it in
 * ("pen"), neither to a group of its own nor to the root group; it moves
 * its tasks between groups it may write (the root group is one: its
 * cgroup.procs must be writable too).
 */
/* a process of uid 1000's that sleeps until killed; returns once it is uid 1000 */
static pid_t spawn_as_1000(void)
{
	int fds[2];
	pid_t pid;
	char c = 0;

	EXPECT_OK(pipe(fds));
	pid = fork();
	if (pid == 0) {
		if (setgid(1000) || setuid(1000) || write(fds[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	EXPECT(read(fds[0], &c, 1) == 1, "the uid 1000 process did not start");
	close(fds[0]);
	return pid;
}

TEST(move_checks_source_group)
{
	pid_t ids[2];

	undelegate();
	mk("pen");
	ids[0] = spawn_as_1000();
	join("pen", ids[0]);
	ids[1] = spawn_as_1000();
	delegate();
	as_user(1000, move_from_pen, ids);
	EXPECT_OK(chown(gp("", "cgroup.procs"), 0, 0));
	EXPECT(wrf(gp("", "cgroup.procs"), "%d", ids[1]) > 0);
	as_user(1000, move_from_root, ids);
	undelegate();
	EXPECT(has_id(gp("pen", "cgroup.procs"), ids[0]), "left the administrator's group");
	reap(ids[0]);
	reap(ids[1]);
	rm("pen");
	rm("mine");
	rm("mine2");
}

/* read one decimal number a process wrote to fd before closing it */
static long read_number(int fd)
{
	char buf[64];
	ssize_t n = 0, r;

	while (n < (ssize_t)sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? atol(buf) : -1;
}

TEST(pid_namespace_of_the_writer)
{
	int code_pipe[2], pid_pipe[2];
	pid_t mid, outer = getpid();
	long inner_global, code;

	mk("ns");
	EXPECT_OK(pipe(code_pipe));
	EXPECT_OK(pipe(pid_pipe));
	mid = fork();
	if (mid == 0) {
		char buf[32];
		pid_t inner;

		close(code_pipe[0]);
		close(pid_pipe[0]);
		if (unshare(CLONE_NEWPID))
			_exit(20);
		inner = fork();
		if (inner == 0) {
			long ids[4];
			int c = 0;

			close(pid_pipe[1]);
			/* pid 1 in its namespace */
			if (getpid() != 1)
				c = 1;
			else if (wr(gp("ns", "cgroup.procs"), "1") < 0)
				c = 2;
			else if (read_ids(gp("ns", "cgroup.procs"), ids, 4) != 1 || ids[0] != 1)
				c = 3;
			else if (wrf(gp("ns", "tasks"), "%d", outer) != -1 || errno != ESRCH)
				c = 4;
			else if (wr(gp("ns", "cgroup.procs"), "0") < 0)
				c = 5;
			snprintf(buf, sizeof(buf), "%d", c);
			if (write(code_pipe[1], buf, strlen(buf)) < 0)
				_exit(1);
			close(code_pipe[1]);
			pause();
			_exit(0);
		}
		close(code_pipe[1]);
		snprintf(buf, sizeof(buf), "%d", inner);
		if (write(pid_pipe[1], buf, strlen(buf)) < 0)
			_exit(21);
		close(pid_pipe[1]);
		waitpid(inner, NULL, 0);
		_exit(0);
	}
	close(code_pipe[1]);
	close(pid_pipe[1]);
	inner_global = read_number(pid_pipe[0]);
	code = read_number(code_pipe[0]);
	EXPECT_EQ_LL(code, 0);
	/* seen from here, the group holds the inner process by its global pid */
	EXPECT(inner_global > 1);
	EXPECT(has_id(gp("ns", "cgroup.procs"), inner_global));
	kill(inner_global, SIGKILL);
	waitpid(mid, NULL, 0);
	rm("ns");
}

/* --- stress ------------------------------------------------------------------- */

static void *short_thread(void *arg)
{
	return arg;
}

/* Shared with the forker's children: inheritance checks they made. */
struct inherit_tally {
	int checked;
	int bad;
	int bad_pid;
};

/*
 * Forks and spawns threads as fast as it can. Every 4th child checks that
 * it inherited a group: its parent is always in sa or sb and only the
 * parent is ever moved, so the child must be in one of them for life.
 */
static void forker(struct inherit_tally *t)
{
	unsigned int n;

	for (n = 0;; n++) {
		pthread_t th;
		pid_t c = fork();

		if (c == 0) {
			if (n % 4 == 0) {
				pid_t me = getpid();

				if (has_id(gp("sa", "tasks"), me) ||
				    has_id(gp("sb", "tasks"), me)) {
					__atomic_add_fetch(&t->checked, 1, __ATOMIC_SEQ_CST);
				} else {
					t->bad_pid = me;
					__atomic_add_fetch(&t->bad, 1, __ATOMIC_SEQ_CST);
				}
			}
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		if (!pthread_create(&th, NULL, short_thread, NULL))
			pthread_join(th, NULL);
	}
}

TEST_T(stress_moves_forks_mkdir, 120)
{
	struct inherit_tally *tally;
	pid_t f, churn;
	int i;

	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT(tally != MAP_FAILED);
	mk("sa");
	mk("sb");
	EXPECT(wr(gp("sa", "cgroup.procs"), "0") > 0);
	f = fork();		/* starts in sa, like its children */
	if (f == 0)
		forker(tally);
	EXPECT(wr(gp("", "cgroup.procs"), "0") > 0);
	churn = fork();
	if (churn == 0) {
		char name[32];

		for (i = 0;; i++) {
			snprintf(name, sizeof(name), "churn%d", i % 4);
			if (mkdir(p2(MNT, name), 0755) == 0)
				rmdir(p2(MNT, name));
		}
	}
	for (i = 0; i < 400; i++) {
		const char *g = (i & 1) ? "sb" : "sa";

		if (wrf(gp(g, "cgroup.procs"), "%d", f) < 0)
			FAIL("move %d to %s: %s (%s)", i, g, strerror(errno), status());
		if (i % 16 == 0)
			EXPECT(has_id(gp(g, "cgroup.procs"), f));
		/* a moved process takes its new children along */
		if (i % 50 == 0) {
			usleep(2000);
			EXPECT(!has_id(gp((i & 1) ? "sa" : "sb", "cgroup.procs"), f));
		}
	}
	/* the children's own checks: none bad, and enough of them ran */
	for (i = 0; i < 2000 && __atomic_load_n(&tally->checked, __ATOMIC_SEQ_CST) < 20; i++)
		usleep(5000);
	EXPECT(tally->bad == 0, "%d children in neither group, e.g. %d",
	       tally->bad, tally->bad_pid);
	EXPECT(tally->checked >= 20, "only %d children checked", tally->checked);
	reap(churn);
	reap(f);
	for (i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "churn%d", i);
		rmdir(p2(MNT, name));
	}
	/* nothing leaked: both groups are empty and can go */
	for (i = 0; i < 100 && (read_ids(gp("sa", "tasks"), NULL, 0) ||
				read_ids(gp("sb", "tasks"), NULL, 0)); i++)
		usleep(10000);
	EXPECT_EQ_LL(read_ids(gp("sa", "tasks"), NULL, 0), 0);
	EXPECT_EQ_LL(read_ids(gp("sb", "tasks"), NULL, 0), 0);
	rm("sa");
	rm("sb");
}

TEST(last_cmd_status_tracks_last_write)
{
	mk("st");
	EXPECT_ERRNO(wr(gp("st", "tgroup.priority"), "medium"), EINVAL);
	EXPECT(strstr(status(), "priority"), "status: %s", status());
	EXPECT(wr(gp("st", "tgroup.priority"), "high") > 0);
	EXPECT_STR(status(), "ok\n");
	rm("st");
}

int main(int argc, char **argv)
{
	return tg_run_all(argc, argv);
}
