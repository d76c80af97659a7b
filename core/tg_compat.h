/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tg_compat.h - the only place core/ touches its environment.
 *
 * core/ is freestanding C: no libc, no kernel headers, no floating point.
 * This header maps the integer types (and, later, 64-bit division) for each
 * side: the kernel build (tgroup.ko) and user space (unit tests, fuzzers,
 * benchmarks, tgctl). Everything else in core/ includes only this file.
 */
#ifndef TG_COMPAT_H
#define TG_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/limits.h>
static inline uint64_t tg_div_u64(uint64_t a, uint32_t b)
{
	return div_u64(a, b);
}
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif
static inline uint64_t tg_div_u64(uint64_t a, uint32_t b)
{
	return a / b;
}
#endif

#endif /* TG_COMPAT_H */
