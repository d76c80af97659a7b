// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bookkeeping.c - CLOS ids for MBA levels and RMIDs for groups.
 */
#include "tg_core.h"

#define TG_CLOS_SLOTS	(sizeof(((struct tg_clos_map *)0)->level) / sizeof(u32))

/**
 * tg_clos_assign() - map the groups' MBA levels to CLOS ids
 * @map:     out: the level of each CLOS in use (CLOS 0 = @mba_max)
 * @nr_clos: CLOS the platform has, CLOS 0 included
 * @mba_max: the unthrottled level
 * @mba:     each group's MBA percent
 * @clos:    out: each group's CLOS id
 * @nr:      number of groups
 *
 * Levels, not groups, consume CLOS: all groups at one level share it.
 * Distinct levels are given CLOS in ascending order (tightest first); a
 * level left without one shares the CLOS of the nearest lower level, so a
 * group is never throttled less than asked.
 *
 * Return: CLOS ids in use, or -1 if some group needs throttling and the
 * platform has no CLOS besides 0 (those groups are left in CLOS 0).
 */
int tg_clos_assign(struct tg_clos_map *map, u32 nr_clos, u32 mba_max,
		   const u32 *mba, u32 *clos, u32 nr)
{
	u32 cap = nr_clos < TG_CLOS_SLOTS ? nr_clos : (u32)TG_CLOS_SLOTS;
	u32 i, j, k, n = 1;
	bool unmet = false;

	map->nr_clos = nr_clos;
	map->level[0] = mba_max;
	/* distinct levels below max, ascending, as many as there are CLOS */
	for (i = 0; i < nr; i++) {
		u32 v = mba[i];

		if (v >= mba_max)
			continue;
		for (j = 1; j < n && map->level[j] < v; j++)
			;
		if (j < n && map->level[j] == v)
			continue;
		if (n == cap) {
			/* full: keep the tightest; v only displaces a looser one */
			if (j == n)
				continue;
			n--;
		}
		for (k = n; k > j; k--)
			map->level[k] = map->level[k - 1];
		map->level[j] = v;
		n++;
	}
	map->nr_used = n;
	for (i = 0; i < nr; i++) {
		clos[i] = 0;
		if (mba[i] >= mba_max)
			continue;
		/* the largest assigned level <= mba[i] (always one: ascending) */
		for (j = n - 1; j >= 1; j--)
			if (map->level[j] <= mba[i]) {
				clos[i] = j;
				break;
			}
		if (!clos[i])
			unmet = true;
	}
	return unmet ? -1 : (int)n;
}

/**
 * tg_rmid_pool_init() - every RMID free
 * @pool:     the pool
 * @state:    nr_rmid entries, caller-owned (tg_rmid_pool.state)
 * @nr_rmid:  RMIDs the platform has (CPUID.(0FH,1):ECX + 1)
 * @limbo_ns: how long a freed RMID waits before it is handed out again
 */
void tg_rmid_pool_init(struct tg_rmid_pool *pool, u64 *state, u32 nr_rmid,
		       u64 limbo_ns)
{
	u32 i;

	pool->nr_rmid = nr_rmid;
	pool->limbo_ns = limbo_ns;
	pool->state = state;
	for (i = 0; i < nr_rmid; i++)
		state[i] = 0;
}

/**
 * tg_rmid_alloc() - take the lowest RMID above 0 that is free and out of limbo
 * @pool:   the pool
 * @now_ns: the time now, on the clock tg_rmid_free() was given
 *
 * Return: the RMID, or TG_RMID_NONE (0, shared with the root group) when
 * every RMID is allocated or in limbo: the group then has no MBM of its
 * own until a later call succeeds.
 */
u32 tg_rmid_alloc(struct tg_rmid_pool *pool, u64 now_ns)
{
	u32 i;

	for (i = 1; i < pool->nr_rmid; i++) {
		u64 s = pool->state[i];

		if (s != TG_RMID_BUSY && s <= now_ns) {
			pool->state[i] = TG_RMID_BUSY;
			return i;
		}
	}
	return TG_RMID_NONE;
}

/**
 * tg_rmid_free() - give an RMID back: it is in limbo for limbo_ns
 * @pool:   the pool
 * @rmid:   RMID from tg_rmid_alloc(); TG_RMID_NONE and RMIDs not allocated
 *          are ignored
 * @now_ns: the time now
 */
void tg_rmid_free(struct tg_rmid_pool *pool, u32 rmid, u64 now_ns)
{
	u64 until = now_ns + pool->limbo_ns;

	if (rmid == TG_RMID_NONE || rmid >= pool->nr_rmid ||
	    pool->state[rmid] != TG_RMID_BUSY)
		return;
	if (until < now_ns || until == TG_RMID_BUSY)	/* the clock's end */
		until = TG_RMID_BUSY - 1;
	pool->state[rmid] = until;	/* 0 (no limbo at time 0): free */
}

/**
 * tg_rmid_in_limbo() - how many RMIDs wait out their limbo
 * @pool:   the pool
 * @now_ns: the time now
 *
 * Return: the count (for tgroup.config).
 */
u32 tg_rmid_in_limbo(const struct tg_rmid_pool *pool, u64 now_ns)
{
	u32 i, n = 0;

	for (i = 1; i < pool->nr_rmid; i++)
		n += pool->state[i] != TG_RMID_BUSY && pool->state[i] > now_ns;
	return n;
}
