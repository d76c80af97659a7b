// SPDX-License-Identifier: GPL-2.0
/* bench_tgpmem.c - ns per 64-byte pmem_memcpy_persist (run with and without the preload) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <libpmem.h>

int main(void)
{
	char path[] = "/tmp/tgpmem-bench-XXXXXX", line[64] = { 1 };
	int fd = mkstemp(path), is_pmem, i, n = 2000000;
	struct timespec a, b;
	size_t len;
	char *pm;

	close(fd);
	pm = pmem_map_file(path, 1 << 20, PMEM_FILE_CREATE, 0600, &len, &is_pmem);
	unlink(path);
	if (!pm)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		pmem_memcpy_persist(pm + (i % 16384) * 64, line, 64);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("pmem_memcpy_persist 64 B %s: %.1f ns per call\n",
	       dlsym(RTLD_DEFAULT, "tgpmem_thread_bytes") ? "with libtgpmem" : "plain libpmem  ",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	pmem_unmap(pm, len);
	return 0;
}
