// SPDX-License-Identifier: BSD-3-Clause
/*
 * tgpmem.c - libtgpmem.so: counts the bytes a thread writes to persistent
 * memory through libpmem and libpmem2 (and so libpmemobj, which writes
 * through libpmem), for tgroup's PMDK signal source. Stores into mapped NVM
 * never enter the kernel, so neither the VFS hooks nor the scheduler see
 * them; PMDK's writing and flushing calls do.
 *
 *   LD_PRELOAD=libtgpmem.so ./app      (app linked against PMDK 1.12)
 *
 * Every interposed call adds its length to the calling thread's slot in a
 * page shared with tgroup.ko (pmdk-hooks/tgpmem_abi.h) and forwards to the
 * real libpmem (dlsym(RTLD_NEXT)); arguments, results and errno are
 * untouched. Counted (docs/pmdk-hooks.md):
 *   pmem_memcpy/memmove/memset and their _persist/_nodrain forms: len
 *     (with PMEM_F_MEM_NOFLUSH: not counted - the later flush is);
 *   pmem_persist, pmem_flush, pmem_deep_persist, pmem_deep_flush,
 *   pmem_msync: len (stores made durable by a flush);
 *   libpmem2's routines behind pmem2_get_*_fn and pmem2_deep_flush, alike.
 *
 * Fast path: one thread-local pointer and one plain store to the thread's
 * own slot (one cache line per slot) - no lock, no atomic read-modify-write.
 * A thread's first call opens the process's page (once per process) and
 * claims its slot; threads beyond the page's slots share the overflow slot
 * with atomic adds. Without the module (no device, or any failure) the
 * slot is a thread-local variable: a pure pass-through that counts only
 * for tgpmem_thread_bytes(). fork: the page is not inherited, the child
 * handler forgets it and the child's first call opens its own; exec: the
 * descriptor is O_CLOEXEC and the new image starts afresh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "tgpmem_abi.h"

#define PMEM_F_MEM_NOFLUSH (1U << 5)	/* libpmem.h */

/*
 * Per thread, in one block of static TLS (initial-exec: no __tls_get_addr
 * call on the fast path; fine for a library that is preloaded or linked,
 * not for one dlopen()ed late).
 */
struct tg_thread {
	__u64		*slot;		/* where its bytes go; NULL: not attached */
	bool		shared;		/* the overflow slot: atomic adds */
	unsigned int	depth;		/* interposed calls in progress */
	__u64		bytes;		/* everything it counted */
	__u64		local;		/* the slot without a module */
	long		index;		/* slot index, -1: none */
};
static __thread struct tg_thread tg_t
	__attribute__((tls_model("initial-exec"))) = { .index = -1 };

/* per process: the page, under tg_lock (slow path only) */
static pthread_mutex_t tg_lock = PTHREAD_MUTEX_INITIALIZER;
static int tg_fd = -1;
static struct tgpmem_page *tg_page;
static int tg_proc_state;		/* 0 not tried, 1 attached, -1 none */

/* the calling thread's counted bytes (diagnostics and tests) */
uint64_t tgpmem_thread_bytes(void);
uint64_t tgpmem_thread_bytes(void)
{
	return tg_t.bytes;
}

/* the calling thread's slot in the shared page, or -1 (none yet, or none) */
long tgpmem_thread_slot(void);
long tgpmem_thread_slot(void)
{
	return tg_t.index;
}

static bool tg_open_page(void)
{
	struct tgpmem_page *pg;
	int fd = open(TGPMEM_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	pg = mmap(NULL, TGPMEM_PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, 0);
	if (pg == MAP_FAILED) {
		close(fd);
		return false;
	}
	if (pg->magic != TGPMEM_MAGIC || pg->version != TGPMEM_VERSION ||
	    !pg->nr_slots || pg->nr_slots > TGPMEM_NR_SLOTS) {
		munmap(pg, TGPMEM_PAGE_BYTES);
		close(fd);
		return false;
	}
	tg_fd = fd;
	tg_page = pg;
	return true;
}

/* First call of a thread: find its slot. */
static __attribute__((noinline)) __u64 *tg_attach(void)
{
	int saved = errno;
	long i;

	pthread_mutex_lock(&tg_lock);
	if (!tg_proc_state)
		tg_proc_state = tg_open_page() ? 1 : -1;
	if (tg_proc_state > 0) {
		i = ioctl(tg_fd, TGPMEM_IOC_CLAIM);
		if (i >= 0 && i < (long)tg_page->nr_slots) {
			tg_t.index = i;
			tg_t.shared = i == TGPMEM_OVERFLOW;
			tg_t.slot = &tg_page->slot[i].bytes;
		}
	}
	pthread_mutex_unlock(&tg_lock);
	if (!tg_t.slot)
		tg_t.slot = &tg_t.local;
	errno = saved;
	return tg_t.slot;
}

static inline void tg_count(struct tg_thread *t, size_t len)
{
	__u64 *p = t->slot;

	t->bytes += len;
	if (__builtin_expect(!p, 0))
		p = tg_attach();
	if (__builtin_expect(t->shared, 0))
		__atomic_fetch_add(p, len, __ATOMIC_RELAXED);
	else	/* one writer: a plain (untorn) store is what the module reads */
		__atomic_store_n(p, *p + len, __ATOMIC_RELAXED);
}

static void tg_fork_prepare(void)
{
	pthread_mutex_lock(&tg_lock);
}

static void tg_fork_parent(void)
{
	pthread_mutex_unlock(&tg_lock);
}

/* The child has no mapping (not inherited) and the parent's descriptor. */
static void tg_fork_child(void)
{
	if (tg_fd >= 0)
		close(tg_fd);
	tg_fd = -1;
	tg_page = NULL;
	tg_proc_state = 0;
	tg_t.slot = NULL;
	tg_t.shared = false;
	tg_t.index = -1;
	pthread_mutex_init(&tg_lock, NULL);
}

__attribute__((constructor)) static void tg_init(void)
{
	pthread_atfork(tg_fork_prepare, tg_fork_parent, tg_fork_child);
}

/*
 * libpmem calls some of its own exported functions (pmem_persist calls
 * pmem_flush through the PLT): only the outermost interposed call counts.
 */
static inline void tg_enter(size_t len)
{
	struct tg_thread *t = &tg_t;

	if (!t->depth++ && len)
		tg_count(t, len);
}

static inline void tg_leave(void)
{
	tg_t.depth--;
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

/*
 * libpmem2 does not export its writing functions: pmem2_get_memcpy_fn()
 * and friends return pointers to internal routines chosen per mapping
 * (granularity, CPU features). The getters are interposed and return a
 * counting trampoline for each distinct routine (TG_P2_MAX per kind;
 * beyond that the routine itself, uncounted - libpmem2 1.12 has a handful).
 */
#define TG_P2_MAX 8

struct tg_p2_kind {
	void *real[TG_P2_MAX];		/* routine behind trampoline k */
	void *const *tramp;
};

/* the trampoline for routine fn (registered on first sight) */
static void *tg_p2_wrap(struct tg_p2_kind *kind, void *fn)
{
	void *cur;
	int k;

	if (!fn)
		return fn;
	for (k = 0; k < TG_P2_MAX; k++) {
		cur = __atomic_load_n(&kind->real[k], __ATOMIC_ACQUIRE);
		if (!cur && __atomic_compare_exchange_n(&kind->real[k], &cur, fn, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			cur = fn;
		if (cur == fn)
			return kind->tramp[k];
	}
	return fn;
}

static struct tg_p2_kind tg_p2_copy, tg_p2_set, tg_p2_flush;

#define TG_P2_COPY(k)							\
static void *tg_p2_copy_##k(void *d, const void *s, size_t n, unsigned f) \
{									\
	void *r_;							\
									\
	tg_enter(f & PMEM_F_MEM_NOFLUSH ? 0 : n);			\
	r_ = ((tg_copy_flags_fn)tg_p2_copy.real[k])(d, s, n, f);	\
	tg_leave();							\
	return r_;							\
}
#define TG_P2_SET(k)							\
static void *tg_p2_set_##k(void *d, int c, size_t n, unsigned f)	\
{									\
	void *r_;							\
									\
	tg_enter(f & PMEM_F_MEM_NOFLUSH ? 0 : n);			\
	r_ = ((tg_set_flags_fn)tg_p2_set.real[k])(d, c, n, f);		\
	tg_leave();							\
	return r_;							\
}
#define TG_P2_FLUSH(k)							\
static void tg_p2_flush_##k(const void *a, size_t n)			\
{									\
	tg_enter(n);							\
	((tg_flush_fn)tg_p2_flush.real[k])(a, n);			\
	tg_leave();							\
}
#define TG_P2_ALL(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7)
TG_P2_ALL(TG_P2_COPY)
TG_P2_ALL(TG_P2_SET)
TG_P2_ALL(TG_P2_FLUSH)
#define TG_P2_LIST(p) { (void *)p##0, (void *)p##1, (void *)p##2, (void *)p##3, \
			(void *)p##4, (void *)p##5, (void *)p##6, (void *)p##7 }
static void *const tg_p2_copy_t[TG_P2_MAX] = TG_P2_LIST(tg_p2_copy_);
static void *const tg_p2_set_t[TG_P2_MAX] = TG_P2_LIST(tg_p2_set_);
static void *const tg_p2_flush_t[TG_P2_MAX] = TG_P2_LIST(tg_p2_flush_);
static struct tg_p2_kind tg_p2_copy = { .tramp = tg_p2_copy_t };
static struct tg_p2_kind tg_p2_set = { .tramp = tg_p2_set_t };
static struct tg_p2_kind tg_p2_flush = { .tramp = tg_p2_flush_t };

struct pmem2_map;
typedef void *(*tg_p2_get_fn)(struct pmem2_map *);
typedef int (*tg_p2_deep_fn)(struct pmem2_map *, void *, size_t);

#define TG_P2_GET(name, kind)						\
void *name(struct pmem2_map *map);					\
void *name(struct pmem2_map *map)					\
{									\
	return tg_p2_wrap(&kind, TG_REAL(tg_p2_get_fn, name)(map));	\
}
TG_P2_GET(pmem2_get_memcpy_fn, tg_p2_copy)
TG_P2_GET(pmem2_get_memmove_fn, tg_p2_copy)
TG_P2_GET(pmem2_get_memset_fn, tg_p2_set)
TG_P2_GET(pmem2_get_persist_fn, tg_p2_flush)
TG_P2_GET(pmem2_get_flush_fn, tg_p2_flush)

int pmem2_deep_flush(struct pmem2_map *map, void *ptr, size_t size);
int pmem2_deep_flush(struct pmem2_map *map, void *ptr, size_t size)
{
	int r;

	tg_enter(size);
	r = TG_REAL(tg_p2_deep_fn, pmem2_deep_flush)(map, ptr, size);
	tg_leave();
	return r;
}
