// SPDX-License-Identifier: BSD-3-Clause
/*
 * tgpmem.c - libtgpmem.so: counts the bytes a thread writes to persistent
 * memory through libpmem, for tgroup's PMDK signal source. Stores into
 * mapped NVM never enter the kernel, so neither the VFS hooks nor the
 * scheduler see them; libpmem's writing and flushing calls do.
 *
 *   LD_PRELOAD=libtgpmem.so ./app      (app linked against libpmem.so.1)
 *
 * Every interposed call adds its length to the calling thread's counter
 * and forwards to the real libpmem (dlsym(RTLD_NEXT)); arguments and
 * results are untouched. Counted (docs/pmdk-hooks.md):
 *   pmem_memcpy/memmove/memset and their _persist/_nodrain forms: len
 *     (with PMEM_F_MEM_NOFLUSH: not counted - the later flush is);
 *   pmem_persist, pmem_flush, pmem_deep_persist, pmem_deep_flush,
 *   pmem_msync: len (stores made durable by a flush).
 * The counter is thread-local and written only by its thread (no lock, no
 * atomic read-modify-write on the fast path). Publishing it to the module
 * through a shared page is the next step (issue 5); until then this
 * library is a pure pass-through that counts, and
 * tgpmem_thread_bytes() reports the calling thread's total.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#define PMEM_F_MEM_NOFLUSH (1U << 5)	/* libpmem.h */

static __thread uint64_t tg_bytes;

/* the calling thread's counted bytes (diagnostics and tests) */
uint64_t tgpmem_thread_bytes(void);
uint64_t tgpmem_thread_bytes(void)
{
	return tg_bytes;
}

/*
 * libpmem calls some of its own exported functions (pmem_persist calls
 * pmem_flush through the PLT): only the outermost interposed call counts.
 */
static __thread unsigned int tg_depth;

static inline void tg_enter(size_t len)
{
	/* one writer (this thread); a plain store is what readers see */
	if (!tg_depth++)
		__atomic_store_n(&tg_bytes, tg_bytes + len, __ATOMIC_RELAXED);
}

static inline void tg_leave(void)
{
	tg_depth--;
}

static void *tg_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "libtgpmem: %s not found: is the program linked with libpmem?\n",
			name);
		abort();
	}
	return f;
}

/* resolve the real function once per symbol; racing resolvers agree */
#define TG_REAL(type, name) ({						\
	static type real_;						\
	type r_ = __atomic_load_n(&real_, __ATOMIC_ACQUIRE);		\
	if (!r_) {							\
		r_ = (type)tg_real(#name);				\
		__atomic_store_n(&real_, r_, __ATOMIC_RELEASE);		\
	}								\
	r_;								\
})

typedef void *(*tg_copy_fn)(void *, const void *, size_t);
typedef void *(*tg_set_fn)(void *, int, size_t);
typedef void *(*tg_copy_flags_fn)(void *, const void *, size_t, unsigned);
typedef void *(*tg_set_flags_fn)(void *, int, size_t, unsigned);
typedef void (*tg_flush_fn)(const void *, size_t);
typedef int (*tg_iflush_fn)(const void *, size_t);

#define TG_COPY(name)							\
void *name(void *dst, const void *src, size_t len)			\
{									\
	void *r_;							\
									\
	tg_enter(len);							\
	r_ = TG_REAL(tg_copy_fn, name)(dst, src, len);			\
	tg_leave();							\
	return r_;							\
}
#define TG_SET(name)							\
void *name(void *dst, int c, size_t len)				\
{									\
	void *r_;							\
									\
	tg_enter(len);							\
	r_ = TG_REAL(tg_set_fn, name)(dst, c, len);			\
	tg_leave();							\
	return r_;							\
}
#define TG_FLUSH(name)							\
void name(const void *addr, size_t len)					\
{									\
	tg_enter(len);							\
	TG_REAL(tg_flush_fn, name)(addr, len);				\
	tg_leave();							\
}
#define TG_IFLUSH(name)							\
int name(const void *addr, size_t len)					\
{									\
	int r_;								\
									\
	tg_enter(len);							\
	r_ = TG_REAL(tg_iflush_fn, name)(addr, len);			\
	tg_leave();							\
	return r_;							\
}

TG_COPY(pmem_memcpy_persist)
TG_COPY(pmem_memcpy_nodrain)
TG_COPY(pmem_memmove_persist)
TG_COPY(pmem_memmove_nodrain)
TG_SET(pmem_memset_persist)
TG_SET(pmem_memset_nodrain)
TG_FLUSH(pmem_persist)
TG_FLUSH(pmem_flush)
TG_FLUSH(pmem_deep_flush)
TG_IFLUSH(pmem_deep_persist)
TG_IFLUSH(pmem_msync)

void *pmem_memcpy(void *dst, const void *src, size_t len, unsigned flags)
{
	void *r;

	tg_enter(flags & PMEM_F_MEM_NOFLUSH ? 0 : len);
	r = TG_REAL(tg_copy_flags_fn, pmem_memcpy)(dst, src, len, flags);
	tg_leave();
	return r;
}

void *pmem_memmove(void *dst, const void *src, size_t len, unsigned flags)
{
	void *r;

	tg_enter(flags & PMEM_F_MEM_NOFLUSH ? 0 : len);
	r = TG_REAL(tg_copy_flags_fn, pmem_memmove)(dst, src, len, flags);
	tg_leave();
	return r;
}

void *pmem_memset(void *dst, int c, size_t len, unsigned flags)
{
	void *r;

	tg_enter(flags & PMEM_F_MEM_NOFLUSH ? 0 : len);
	r = TG_REAL(tg_set_flags_fn, pmem_memset)(dst, c, len, flags);
	tg_leave();
	return r;
}
