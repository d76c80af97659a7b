// SPDX-License-Identifier: GPL-2.0
/*
 * bench_tgpmem.c - the hook's cost on a loop of 64-byte pmem_memcpy_persist.
 * Run with LD_PRELOAD=libtgpmem.so: rounds through the hook and through
 * libpmem's own symbol (dlopen RTLD_NOLOAD) alternate, and the medians of
 * each and their difference are printed. Without the preload both are the
 * plain call (the difference is the noise floor).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <libpmem.h>

#define ROUNDS	9
#define CALLS	500000

typedef void *(*copy_fn)(void *, const void *, size_t);

static double round_ns(copy_fn f, char *pm)
{
	static const char line[64] = { 1 };
	struct timespec a, b;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < CALLS; i++)
		f(pm + (i % 16384) * 64, line, 64);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / CALLS;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	char path[] = "/tmp/tgpmem-bench-XXXXXX";
	double hooked[ROUNDS], plain[ROUNDS];
	int fd = mkstemp(path), is_pmem, r;
	void *lib = dlopen("libpmem.so.1", RTLD_NOW | RTLD_NOLOAD);
	copy_fn real = lib ? (copy_fn)dlsym(lib, "pmem_memcpy_persist") : NULL;
	size_t len;
	char *pm;

	close(fd);
	pm = pmem_map_file(path, 1 << 20, PMEM_FILE_CREATE, 0600, &len, &is_pmem);
	unlink(path);
	if (!pm || !real)
		return 1;
	for (r = 0; r < ROUNDS; r++) {
		hooked[r] = round_ns(pmem_memcpy_persist, pm);
		plain[r] = round_ns(real, pm);
	}
	qsort(hooked, ROUNDS, sizeof(double), cmp);
	qsort(plain, ROUNDS, sizeof(double), cmp);
	printf("pmem_memcpy_persist 64 B (%s): libpmem %.1f ns, through the hook %.1f ns, hook cost %.1f ns per call (medians of %d x %d calls)\n",
	       dlsym(RTLD_DEFAULT, "tgpmem_thread_bytes") ? "libtgpmem preloaded" : "no preload",
	       plain[ROUNDS / 2], hooked[ROUNDS / 2],
	       hooked[ROUNDS / 2] - plain[ROUNDS / 2], ROUNDS, CALLS);
	pmem_unmap(pm, len);
	return 0;
}
