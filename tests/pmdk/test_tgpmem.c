// SPDX-License-Identifier: GPL-2.0
/*
 * test_tgpmem.c - libtgpmem.so over Debian's libpmem (run with
 * LD_PRELOAD=libtgpmem.so): every interposed call counts exactly its
 * length on the calling thread, NOFLUSH copies are counted at their flush,
 * data reach the file unchanged, threads count independently.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <libpmem.h>
#include <libpmem2.h>
#include <libpmemobj.h>
#include <fcntl.h>

#define MAP_LEN (4u << 20)

static uint64_t (*thread_bytes)(void);
static char *pm;
static size_t pm_len;

static int setup(void **state)
{
	char path[] = "/tmp/tgpmem-XXXXXX";
	int fd = mkstemp(path), is_pmem;

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	pm = pmem_map_file(path, MAP_LEN, PMEM_FILE_CREATE, 0600, &pm_len, &is_pmem);
	unlink(path);
	thread_bytes = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "tgpmem_thread_bytes");
	return pm && thread_bytes ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	pmem_unmap(pm, pm_len);
	return 0;
}

static void test_each_call_counts_its_length(void **state)
{
	char buf[1000];
	uint64_t base = thread_bytes();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	pmem_memcpy_persist(pm, buf, 1000);
	assert_int_equal(thread_bytes() - base, 1000);
	assert_memory_equal(pm, buf, 1000);

	pmem_memset_nodrain(pm + 4096, 0x5a, 4096);
	pmem_drain();
	assert_int_equal(thread_bytes() - base, 5096);
	assert_int_equal(pm[4096], 0x5a);
	assert_int_equal(pm[8191], 0x5a);

	/* NOFLUSH: nothing yet; the flush that follows counts it */
	pmem_memcpy(pm + 8192, buf, 500, PMEM_F_MEM_NOFLUSH);
	assert_int_equal(thread_bytes() - base, 5096);
	pmem_persist(pm + 8192, 500);
	assert_int_equal(thread_bytes() - base, 5596);
	assert_memory_equal(pm + 8192, buf, 500);

	pmem_memmove_persist(pm + 100, pm, 200);
	assert_int_equal(thread_bytes() - base, 5796);
	assert_memory_equal(pm + 100, buf, 200);

	pmem_flush(pm, 64);
	pmem_drain();
	pmem_memset(pm + 12288, 1, 128, 0);
	pmem_memmove(pm + 16384, buf, 10, PMEM_F_MEM_NONTEMPORAL);
	assert_int_equal(thread_bytes() - base, 5796 + 64 + 128 + 10);
	assert_int_equal(pmem_deep_persist(pm, 32), 0);
	pmem_deep_flush(pm, 16);
	assert_int_equal(thread_bytes() - base, 5796 + 64 + 128 + 10 + 32 + 16);
	pmem_memcpy_nodrain(pm, buf, 7);
	pmem_memmove_nodrain(pm, buf, 9);
	pmem_memset_persist(pm, 0, 11);
	assert_int_equal(thread_bytes() - base, 5796 + 64 + 128 + 10 + 32 + 16 + 27);
}

#define THREADS 4
#define ITERS 10000

static void *writer(void *arg)
{
	char line[64];
	uint64_t base = thread_bytes();
	int i;

	memset(line, (int)(intptr_t)arg, sizeof(line));
	for (i = 0; i < ITERS; i++)
		pmem_memcpy_persist(pm + ((intptr_t)arg * ITERS + i) % (MAP_LEN / 64) * 64,
				    line, sizeof(line));
	return (void *)(uintptr_t)(thread_bytes() - base);
}

static void test_threads_count_independently(void **state)
{
	pthread_t t[THREADS];
	uint64_t base = thread_bytes();
	void *ret;
	int i;

	(void)state;
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, writer, (void *)(intptr_t)(i + 1));
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], &ret);
		assert_int_equal((uintptr_t)ret, ITERS * 64);
	}
	assert_int_equal(thread_bytes() - base, 0);	/* not this thread's */
}

/*
 * libpmem2 hands out its routines through getters: the preload returns
 * counting trampolines. Each call counts its length (NOFLUSH: nothing).
 */
static void test_pmem2_routines_count(void **state)
{
	char path[] = "/tmp/tgpmem2-XXXXXX", buf[1000];
	struct pmem2_config *cfg;
	struct pmem2_source *src;
	struct pmem2_map *map;
	uint64_t base;
	int fd = mkstemp(path);
	char *a;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	assert_int_equal(pmem2_config_new(&cfg), 0);
	assert_int_equal(pmem2_source_from_fd(&src, fd), 0);
	assert_int_equal(pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE), 0);
	assert_int_equal(pmem2_map_new(&map, cfg, src), 0);
	a = pmem2_map_get_address(map);
	memset(buf, 0x33, sizeof(buf));
	base = thread_bytes();
	pmem2_get_memcpy_fn(map)(a, buf, 1000, 0);
	assert_int_equal(thread_bytes() - base, 1000);
	assert_memory_equal(a, buf, 1000);
	pmem2_get_memcpy_fn(map)(a + 4096, buf, 1000, PMEM2_F_MEM_NOFLUSH);
	assert_int_equal(thread_bytes() - base, 1000);
	pmem2_get_persist_fn(map)(a + 4096, 1000);
	assert_int_equal(thread_bytes() - base, 2000);
	pmem2_get_memset_fn(map)(a, 7, 300, 0);
	pmem2_get_memmove_fn(map)(a + 10, a, 200, 0);
	pmem2_get_flush_fn(map)(a, 100);
	assert_int_equal(pmem2_deep_flush(map, a, 50), 0);
	assert_int_equal(thread_bytes() - base, 2650);
	assert_int_equal(a[0], 7);
	pmem2_map_delete(&map);
	pmem2_source_delete(&src);
	pmem2_config_delete(&cfg);
	close(fd);
}

/* libpmemobj (Debian 1.12) writes through libpmem's exported calls. */
static void test_pmemobj_counts(void **state)
{
	char path[] = "/tmp/tgpmemobj-XXXXXX", buf[1000];
	PMEMobjpool *pop;
	uint64_t base;
	int fd = mkstemp(path);
	char *r;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	pop = pmemobj_create(path, "tgpmem", PMEMOBJ_MIN_POOL, 0600);
	assert_non_null(pop);
	unlink(path);
	r = pmemobj_direct(pmemobj_root(pop, 4096));
	memset(buf, 0x44, sizeof(buf));
	base = thread_bytes();
	pmemobj_memcpy_persist(pop, r, buf, 1000);
	assert_int_equal(thread_bytes() - base, 1000);
	pmemobj_memset_persist(pop, r + 1000, 0, 700);
	memset(r + 2000, 5, 300);
	pmemobj_persist(pop, r + 2000, 300);
	assert_int_equal(thread_bytes() - base, 2000);
	assert_memory_equal(r, buf, 1000);
	pmemobj_close(pop);
}

/*
 * Without the module (no /dev/tgroup_pmem: this host), a process's first
 * call finds no page: it stays a pure pass-through - data written, errno
 * untouched, no slot - counting only for tgpmem_thread_bytes(). Run in a
 * forked child: the fork handler makes its first call look for the page
 * again.
 */
static int first_call(void)
{
	long (*slot)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "tgpmem_thread_slot");
	static const char data[256] = { 9 };
	uint64_t base = thread_bytes();
	int bad = 0;

	errno = EDOM;
	pmem_memcpy_persist(pm + 65536, data, sizeof(data));
	bad |= (errno != EDOM) << 0;
	bad |= (!slot || slot() != -1) << 1;
	bad |= (thread_bytes() - base != sizeof(data)) << 2;
	bad |= (memcmp(pm + 65536, data, sizeof(data)) != 0) << 3;
	return bad;
}

static void test_without_module_pass_through(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (access("/dev/tgroup_pmem", F_OK) == 0)
		skip();
	pid = fork();
	if (pid == 0)
		_exit(first_call());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);	/* bit set: the check that failed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_call_counts_its_length),
		cmocka_unit_test(test_threads_count_independently),
		cmocka_unit_test(test_pmem2_routines_count),
		cmocka_unit_test(test_pmemobj_counts),
		cmocka_unit_test(test_without_module_pass_through),
	};

	return cmocka_run_group_tests_name("tgpmem", tests, setup, teardown);
}
