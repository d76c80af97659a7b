/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tg_compat.h - the only place core/ touches its environment.
 *
 * core/ is freestanding C: no libc, no kernel headers, no floating point.
 * This header maps the integer types (u64, u32, s32 as in the kernel) and
 * 64-bit division for each
 * side: the kernel build (tgroup.ko) and user space (unit tests, fuzzers,
 * benchmarks, tgctl). Everything else in core/ includes only this file.
 */
#ifndef TG_COMPAT_H
#define TG_COMPAT_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/limits.h>
static inline u64 tg_div_u64(u64 a, u32 b)
{
	return div_u64(a, b);
}

static inline u64 tg_div_u64_rem(u64 a, u32 b, u32 *rem)
{
	return div_u64_rem(a, b, rem);
}

static inline u64 tg_div64_u64(u64 a, u64 b)
{
	return div64_u64(a, b);
}
#else
/* Compiler-provided headers only: these exist in freestanding mode. */
#include <stdbool.h>
#include <stddef.h>
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;
typedef __UINT32_TYPE__ u32;
typedef __INT32_TYPE__ s32;
typedef __INT8_TYPE__ s8;
#define U64_MAX ((u64)~0ULL)
#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
static inline u64 tg_div_u64(u64 a, u32 b)
{
	return a / b;
}

static inline u64 tg_div_u64_rem(u64 a, u32 b, u32 *rem)
{
	*rem = (u32)(a % b);
	return a / b;
}

static inline u64 tg_div64_u64(u64 a, u64 b)
{
	return a / b;
}
#endif

#endif /* TG_COMPAT_H */
