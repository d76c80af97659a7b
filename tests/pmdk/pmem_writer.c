// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_writer.c - a small real libpmem program for the in-guest pmdk suite
 * (dynamically linked with Debian's libpmem; run under
 * LD_PRELOAD=libtgpmem.so). It maps FILE with pmem_map_file, prints
 * "ready PID [CHILD_PID]", waits for one byte per process on stdin (time
 * for the harness to move it into a group), writes, and prints
 * "done PID COUNTED SLOT" (COUNTED: the library's count for the writing
 * threads since "go", SLOT: the first thread's slot, -1 without the
 * library's page).
 *
 *   pmem_writer copy FILE BYTES       pmem_memcpy_persist in 4 KiB chunks
 *   pmem_writer mix FILE BYTES        every counted call in turn
 *   pmem_writer threads FILE BYTES N  N threads, BYTES each
 *   pmem_writer fork FILE BYTES       parent and child, BYTES each (the
 *                                     parent writes 4 KiB before fork)
 *   pmem_writer exec FILE BYTES       BYTES, then exec itself for BYTES more
 *   pmem_writer pmem2 FILE BYTES      libpmem2's memcpy routine (4 KiB chunks)
 *   pmem_writer obj FILE BYTES        pmemobj_memcpy_persist into a pool's root,
 *                                     then "closed N": bytes pmemobj_close wrote
 *   pmem_writer hold FILE 0           attach, then sleep until killed
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
#include <libpmem.h>
#include <libpmem2.h>
#include <libpmemobj.h>

#define CHUNK	4096u
#define SPAN	(4u << 20)	/* bytes of FILE each writer cycles through */

static char *pm;
static size_t pm_len;
static uint64_t (*lib_bytes)(void);
static long (*lib_slot)(void);

static __thread uint64_t count_base;	/* the thread's count at "go" */

static uint64_t counted(void)
{
	return lib_bytes ? lib_bytes() - count_base : 0;
}

static long slot(void)
{
	return lib_slot ? lib_slot() : -1;
}

/* pmem_memcpy_persist of len bytes, chunk by chunk, into part `part` */
static void copy(size_t len, unsigned int part)
{
	static const char src[CHUNK] = { 0x5a };
	char *base = pm + (size_t)part * SPAN;
	size_t off = 0, n;

	while (off < len) {
		n = len - off < CHUNK ? len - off : CHUNK;
		pmem_memcpy_persist(base + off % SPAN, src, n);
		off += n;
	}
}

/* every counted call in turn, len bytes in all */
static void mix(size_t len)
{
	static char src[CHUNK];
	size_t off = 0, n;
	unsigned int k = 0;

	while (off < len) {
		char *d = pm + off % SPAN;

		n = len - off < 1000 ? len - off : 1000;
		switch (k++ % 9) {
		case 0: pmem_memcpy_nodrain(d, src, n); pmem_drain(); break;
		case 1: pmem_memmove_persist(d, src, n); break;
		case 2: pmem_memmove_nodrain(d, src, n); pmem_drain(); break;
		case 3: pmem_memset_persist(d, 7, n); break;
		case 4: pmem_memset_nodrain(d, 7, n); pmem_drain(); break;
		case 5: pmem_memcpy(d, src, n, PMEM_F_MEM_NONTEMPORAL); break;
		case 6: /* not counted at the copy: at its flush */
			pmem_memcpy(d, src, n, PMEM_F_MEM_NOFLUSH);
			pmem_persist(d, n);
			break;
		case 7: memset(d, 1, n); pmem_flush(d, n); pmem_drain(); break;
		default: pmem_memset(d, 3, n, 0); break;
		}
		off += n;
	}
}

static struct pmem2_map *map2;
static PMEMobjpool *pool;

/* libpmem2: map FILE again through libpmem2 (its own mapping) */
static void pmem2_setup(const char *file)
{
	struct pmem2_config *cfg;
	struct pmem2_source *src;
	int fd = open(file, O_RDWR);

	if (fd < 0 || pmem2_config_new(&cfg) || pmem2_source_from_fd(&src, fd) ||
	    pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
	    pmem2_map_new(&map2, cfg, src)) {
		pmem2_perror("pmem2");
		exit(1);
	}
}

static void pmem2_copy(size_t len)
{
	static const char src[CHUNK] = { 0x6b };
	pmem2_memcpy_fn cp = pmem2_get_memcpy_fn(map2);
	char *base = pmem2_map_get_address(map2);
	size_t off = 0, n;

	while (off < len) {
		n = len - off < CHUNK ? len - off : CHUNK;
		cp(base + off % SPAN, src, n, 0);
		off += n;
	}
}

/* libpmemobj: a pool in FILE.pool, writes into its root object */
static void obj_setup(const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s.pool", file);
	unlink(path);
	pool = pmemobj_create(path, "tgpmem", PMEMOBJ_MIN_POOL, 0600);
	if (!pool) {
		perror("pmemobj_create");
		exit(1);
	}
	pmemobj_root(pool, CHUNK);
}

static void obj_copy(size_t len)
{
	static const char src[CHUNK] = { 0x7c };
	char *root = pmemobj_direct(pmemobj_root(pool, CHUNK));
	size_t off = 0, n;

	while (off < len) {
		n = len - off < CHUNK ? len - off : CHUNK;
		pmemobj_memcpy_persist(pool, root, src, n);
		off += n;
	}
}

struct job {
	size_t len;
	unsigned int part;
	uint64_t counted;
	long slot;
};

/*
 * Every thread stays alive until all have their slot: the module frees an
 * exited thread's slot at the next period, and a thread that ran later
 * could then be given the same one (lib_threads wants distinct slots).
 */
static pthread_barrier_t threads_done;

static void *thread_main(void *arg)
{
	struct job *j = arg;

	copy(j->len, j->part);
	j->counted = counted();
	j->slot = slot();
	pthread_barrier_wait(&threads_done);
	return NULL;
}

static void wait_go(void)
{
	char c;

	if (read(0, &c, 1) != 1)
		exit(2);
	count_base = lib_bytes ? lib_bytes() : 0;
}

int main(int argc, char **argv)
{
	const char *mode, *file;
	size_t len;
	int is_pmem, nthreads = 1, i;
	pid_t child = 0;

	if (argc < 4)
		return 2;
	mode = argv[1];
	file = argv[2];
	len = strtoull(argv[3], NULL, 0);
	if (argc > 4)
		nthreads = atoi(argv[4]);
	if (nthreads < 1 || nthreads > 16)
		return 2;
	lib_bytes = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "tgpmem_thread_bytes");
	lib_slot = (long (*)(void))dlsym(RTLD_DEFAULT, "tgpmem_thread_slot");
	pm = pmem_map_file(file, (size_t)(nthreads + 1) * SPAN, PMEM_FILE_CREATE,
			   0600, &pm_len, &is_pmem);
	if (!pm) {
		perror("pmem_map_file");
		return 1;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "pmem2"))
		pmem2_setup(file);
	if (!strcmp(mode, "obj"))
		obj_setup(file);
	if (!strcmp(mode, "exec-tail")) {	/* the image after exec: no wait */
		copy(len, 0);
		printf("done %d %llu %ld\n", getpid(), (unsigned long long)counted(), slot());
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		copy(CHUNK, 0);		/* attached before fork */
		child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			wait_go();
			copy(len, 1);
			printf("done %d %llu %ld\n", getpid(),
			       (unsigned long long)counted(), slot());
			return 0;
		}
		printf("ready %d %d\n", getpid(), child);
	} else {
		printf("ready %d\n", getpid());
	}
	wait_go();

	if (!strcmp(mode, "copy") || !strcmp(mode, "fork") || !strcmp(mode, "exec")) {
		copy(len, 0);
	} else if (!strcmp(mode, "mix")) {
		mix(len);
	} else if (!strcmp(mode, "pmem2")) {
		pmem2_copy(len);
	} else if (!strcmp(mode, "obj")) {
		obj_copy(len);
	} else if (!strcmp(mode, "threads")) {
		struct job jobs[16];
		pthread_t t[16];

		if (pthread_barrier_init(&threads_done, NULL, nthreads))
			return 1;
		for (i = 0; i < nthreads; i++) {
			jobs[i] = (struct job){ .len = len, .part = i };
			if (pthread_create(&t[i], NULL, thread_main, &jobs[i]))
				return 1;
		}
		for (i = 0; i < nthreads; i++) {
			pthread_join(t[i], NULL);
			printf("thread %d %llu %ld\n", i,
			       (unsigned long long)jobs[i].counted, jobs[i].slot);
		}
	} else if (!strcmp(mode, "hold")) {
		copy(CHUNK, 0);
		printf("done %d %llu %ld\n", getpid(), (unsigned long long)counted(), slot());
		for (;;)
			pause();
	} else {
		return 2;
	}
	printf("done %d %llu %ld\n", getpid(), (unsigned long long)counted(), slot());
	if (child)
		waitpid(child, NULL, 0);
	if (pool) {	/* closing writes pool metadata: reported apart */
		uint64_t before = counted();

		pmemobj_close(pool);
		printf("closed %llu\n", (unsigned long long)(counted() - before));
	}
	if (map2)
		pmem2_map_delete(&map2);
	if (!strcmp(mode, "exec")) {
		pmem_unmap(pm, pm_len);
		execl("/proc/self/exe", argv[0], "exec-tail", file, argv[3], (char *)NULL);
		return 1;
	}
	return 0;
}
