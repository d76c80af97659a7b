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
 * tg_rmid_alloc() - take the lowest free RMID above 0
 * @bitmap:  (nr_rmid + 63) / 64 words, bit set = in use; caller-owned
 * @nr_rmid: RMIDs the platform has
 *
 * Return: the RMID, or TG_RMID_NONE (0, shared with the root group) when
 * all are taken: the group then has no MBM of its own.
 */
u32 tg_rmid_alloc(u64 *bitmap, u32 nr_rmid)
{
	u32 i;

	for (i = 1; i < nr_rmid; i++) {
		u64 bit = 1ull << (i % 64);

		if (!(bitmap[i / 64] & bit)) {
			bitmap[i / 64] |= bit;
			return i;
		}
	}
	return TG_RMID_NONE;
}

/**
 * tg_rmid_free() - give an RMID back
 * @bitmap:  as for tg_rmid_alloc()
 * @nr_rmid: RMIDs the platform has
 * @rmid:    RMID from tg_rmid_alloc(); TG_RMID_NONE is ignored
 */
void tg_rmid_free(u64 *bitmap, u32 nr_rmid, u32 rmid)
{
	if (rmid != TG_RMID_NONE && rmid < nr_rmid)
		bitmap[rmid / 64] &= ~(1ull << (rmid % 64));
}
