/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * tgpmem_abi.h - the page libtgpmem.so shares with tgroup.ko (the PMDK
 * signal source). Included by the module and by the library.
 *
 *   fd = open(TGPMEM_DEVICE, O_RDWR | O_CLOEXEC);       one per process
 *   page = mmap(NULL, TGPMEM_PAGE_BYTES, PROT_READ | PROT_WRITE,
 *               MAP_SHARED, fd, 0);                     only the opener
 *   slot = ioctl(fd, TGPMEM_IOC_CLAIM);                 once per thread
 *   page->slot[slot].bytes += len;                      plain store
 *
 * A thread owns the slot it claimed until it exits; the module then frees
 * it and a later claim gets it back zeroed. Slot TGPMEM_OVERFLOW (0) is
 * what CLAIM returns when every other slot is taken: threads sharing it add
 * with an atomic read-modify-write. A slot's count only grows; the module
 * rejects a report below the highest it has seen (docs/pmdk-hooks.md).
 *
 * The mapping is not inherited by fork (a child opens its own page) and
 * the file is not meant to survive exec (O_CLOEXEC).
 */
#ifndef TGPMEM_ABI_H
#define TGPMEM_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TGPMEM_DEVICE		"/dev/tgroup_pmem"
#define TGPMEM_MAGIC		0x4d504754u	/* "TGPM" */
#define TGPMEM_VERSION		1u
#define TGPMEM_PAGE_BYTES	4096u
#define TGPMEM_LINE_BYTES	64u
/* one header line, then one cache line per slot: no false sharing */
#define TGPMEM_NR_SLOTS		(TGPMEM_PAGE_BYTES / TGPMEM_LINE_BYTES - 1)
#define TGPMEM_OVERFLOW		0

struct tgpmem_slot {
	__u64 bytes;		/* written by the owning thread(s) only */
	__u64 reserved[7];
};

struct tgpmem_page {
	__u32 magic;		/* written by the module at open */
	__u32 version;
	__u32 nr_slots;
	__u32 reserved0;
	__u64 reserved[6];
	struct tgpmem_slot slot[TGPMEM_NR_SLOTS];
};

/* Claim a slot for the calling thread: returns its index (0 = overflow). */
#define TGPMEM_IOC_CLAIM	_IO(0xB8, 0x01)

#endif /* TGPMEM_ABI_H */
