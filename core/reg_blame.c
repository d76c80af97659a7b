// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reg_blame.c - who the remedial policy may cut, and in which order
 * (docs/control-law.md, "Blame"):
 *   - blame: a group whose share of what drives the latency of every kind
 *     over is under blame_pct - its traffic weighted by that kind's row of
 *     tg_blame_w against all groups' - is never cut. A group whose
 *     preventive cut is not measured yet is judged on the traffic that
 *     cut predicts;
 *   - MT²'s order: most NVM write, then most NVM read, then most DRAM
 *     traffic; a class counts for a group only where it drives a kind over
 *     (tg_order_values()).
 */
#include "reg_internal.h"

/*
 * The blame matrix (docs/control-law.md, "Blame"): row = the latency that
 * is over, column = the traffic that drives it, per byte/s. Channel: DRAM
 * read 1, DRAM write 1, NVM read 3, NVM write 10 (NVM's lower bandwidth
 * occupies the channel and the controller's queues longer per byte, MT²);
 * media, NVM latencies only: NVM read 3, NVM write 10 on top.
 */
#define TG_BW_DRAM		1	/* channel: DRAM read, DRAM write */
#define TG_BW_NR		3	/* channel: NVM read */
#define TG_BW_NW		10	/* channel: NVM write */
#define TG_BW_MEDIA_NR		3	/* media (NVM latencies): NVM read */
#define TG_BW_MEDIA_NW		10	/* media (NVM latencies): NVM write */

/*
 * tg_sat_mul_w() is overflow-free only for weights up to TG_BLAME_W_MAX:
 * every entry of the table below (written with these names only) and the
 * class count it is also applied with, checked at build time as the
 * kernel's static_assert() would (core/ includes no kernel headers): a
 * division by zero in an enumerator's value is a compile error.
 */
enum {
	TG_BLAME_W_FITS = 1 / !!(TG_BW_DRAM <= TG_BLAME_W_MAX &&
				 TG_BW_NR <= TG_BLAME_W_MAX &&
				 TG_BW_NW <= TG_BLAME_W_MAX &&
				 TG_BW_NR + TG_BW_MEDIA_NR <= TG_BLAME_W_MAX &&
				 TG_BW_NW + TG_BW_MEDIA_NW <= TG_BLAME_W_MAX &&
				 TG_ORDER_CLASSES <= TG_BLAME_W_MAX),
	/* tg_blame_loads() writes each row's four terms out */
	TG_BLAME_FOUR_KINDS = 1 / !!(TG_NR_KINDS == 4),
};

const u32 tg_blame_w[TG_NR_KINDS][TG_NR_KINDS] = {
	[TG_DRAM_READ]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR, TG_BW_NW },
	[TG_DRAM_WRITE]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR, TG_BW_NW },
	[TG_NVM_READ]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR + TG_BW_MEDIA_NR,
			    TG_BW_NW + TG_BW_MEDIA_NW },
	[TG_NVM_WRITE]	= { TG_BW_DRAM, TG_BW_DRAM, TG_BW_NR + TG_BW_MEDIA_NR,
			    TG_BW_NW + TG_BW_MEDIA_NW },
};

/* a * w for w <= TG_BLAME_W_MAX, saturating */
static u64 tg_sat_mul_w(u64 a, u32 w)
{
	return a >> 56 ? U64_MAX : a * w;
}

/*
 * While a cut of a group is not measured yet, the share of its measured
 * traffic of the kinds that cut acts on (st->kinds: MBA the DRAM kinds,
 * CPU quota all) that it leaves (ppm): their predicted sum over their
 * measured one; else all of it.
 */
static u32 tg_pending_ppm(const struct tg_reg_group *g, const struct tg_settle *st)
{
	u64 total;

	if (!st->left || st->expect >= st->from)
		return TG_PPM;		/* no cut waits to be measured */
	total = tg_kinds_bps(g, st->kinds);
	return st->expect < total ? tg_ppm(st->expect, total) : TG_PPM;
}

/**
 * tg_blame_row() - rates weighted by one row of tg_blame_w, saturating
 * @b: rates per kind (enum tg_kind)
 * @w: the row
 *
 * Return: the sum of b[j] * w[j], or U64_MAX where it does not fit.
 */
u64 tg_blame_row(const u64 b[TG_NR_KINDS], const u32 w[TG_NR_KINDS])
{
	u64 sum = 0;
	int j;

	for (j = 0; j < TG_NR_KINDS; j++)
		sum = tg_sat_add(sum, tg_sat_mul_w(b[j], w[j]));
	return sum;
}

/* what the pending cuts of a group leave of its traffic (ppm) */
struct tg_pend {
	u32 prev, rem;		/* its last preventive, remedial cut */
};

static void tg_pending(const struct tg_reg_group *g, struct tg_pend *p)
{
	p->prev = tg_pending_ppm(g, &g->prev_settle);
	p->rem = tg_pending_ppm(g, &g->rem_pend);
}

/*
 * A group's rate of one kind as the remedial policy judges it: smoothed,
 * scaled down to what its pending cuts predict, and never more than its
 * last period's - the average still shows for a while what a deep cut
 * removed (20 periods after a cut to 1 %, 10 % of what it removed).
 */
static inline u64 tg_rem_bps(const struct tg_reg_group *g, int kind, const struct tg_pend *p)
{
	u64 v = g->bps.v[kind];
	u32 ppm = TG_PPM;

	if (p->prev < ppm && (g->prev_settle.kinds & BIT(kind)))
		ppm = p->prev;
	if (p->rem < ppm && (g->rem_pend.kinds & BIT(kind)))
		ppm = p->rem;
	if (ppm < TG_PPM)
		v = tg_mul_div(v, ppm, TG_PPM);
	return g->bps_now.v[kind] < v ? g->bps_now.v[kind] : v;
}

/**
 * tg_blame_loads() - what a group's traffic weighs in each kind's latency
 * @g:    the group
 * @load: out: per kind (enum tg_kind), its rates weighted by that row of
 *        tg_blame_w (saturating)
 *
 * While its last preventive or remedial cut is not measured yet (its dead
 * time runs), the rates of the kinds it acts on (MBA: DRAM; CPU quota:
 * all) are scaled down to the sum that cut predicts: the smoothed, lagging
 * inputs still show traffic the cut has already removed (a sized cut to
 * 1 % shows 18 % of the traffic it removed 13 periods later). A step that
 * changed nothing (an MBA step above the remedial level) predicts nothing.
 */
void tg_blame_loads(const struct tg_reg_group *g, u64 load[TG_NR_KINDS])
{
	struct tg_pend p;
	u64 b[TG_NR_KINDS], any = 0;
	int j, k;

	tg_pending(g, &p);
#pragma GCC unroll 4
	for (j = 0; j < TG_NR_KINDS; j++) {
		b[j] = tg_rem_bps(g, j, &p);
		any |= b[j];
	}
	/*
	 * Rates under 2^54 B/s: no product (weights <= TG_BLAME_W_MAX < 2^8)
	 * nor the sum of four reaches 2^64, so plain arithmetic gives what
	 * the saturating one would (one pass per cut over every group).
	 */
#pragma GCC unroll 4
	for (k = 0; k < TG_NR_KINDS; k++) {
		const u32 *w = tg_blame_w[k];

		if (any >> 54)
			load[k] = tg_blame_row(b, w);
		else
			load[k] = b[0] * w[0] + b[1] * w[1] + b[2] * w[2] + b[3] * w[3];
	}
}

/*
 * Per kind, what drives its latency (all: every active group's load,
 * high priority included) and blame_pct of it (level: the load under
 * which a group is blameless for that kind). keep: the same array,
 * writable, to keep each group's loads in its cut_load (a cut's
 * scratch), or NULL.
 */
static void tg_blame_sum(const struct tg_reg_cfg *cfg,
			 const struct tg_reg_group *groups, u32 nr,
			 u64 level[TG_NR_KINDS], u64 all[TG_NR_KINDS],
			 struct tg_reg_group *keep)
{
	u64 own[TG_NR_KINDS];
	u32 i;
	int k;

	for (k = 0; k < TG_NR_KINDS; k++)
		all[k] = 0;
	for (i = 0; i < nr; i++) {
		u64 *load = keep ? keep[i].cut_load : own;

		if (!groups[i].active)
			continue;
		tg_blame_loads(&groups[i], load);
		for (k = 0; k < TG_NR_KINDS; k++)
			all[k] = tg_sat_add(all[k], load[k]);
	}
	for (k = 0; k < TG_NR_KINDS; k++)
		level[k] = tg_mul_div(all[k], cfg->blame_pct, 100);
}

void tg_blame_all(const struct tg_reg_cfg *cfg,
		  const struct tg_reg_group *groups, u32 nr,
		  u64 level[TG_NR_KINDS], u64 all[TG_NR_KINDS])
{
	tg_blame_sum(cfg, groups, nr, level, all, NULL);
}

/* tg_blame_all(), each active group's loads kept in its cut_load */
void tg_blame_cut(const struct tg_reg_cfg *cfg, struct tg_reg_group *groups,
		  u32 nr, u64 level[TG_NR_KINDS], u64 all[TG_NR_KINDS])
{
	tg_blame_sum(cfg, groups, nr, level, all, groups);
}

/**
 * tg_blame_levels() - per kind, blame_pct of what drives its latency
 * @cfg:    configuration (blame_pct)
 * @groups: every group; the active ones (high priority included) count
 * @nr:     number of groups
 * @level:  out: per kind, the load under which a group is blameless for it
 */
void tg_blame_levels(const struct tg_reg_cfg *cfg,
		     const struct tg_reg_group *groups, u32 nr,
		     u64 level[TG_NR_KINDS])
{
	u64 all[TG_NR_KINDS];

	tg_blame_all(cfg, groups, nr, level, all);
}

/*
 * The channel row of tg_blame_w: what every latency shares (the DRAM rows
 * are the channel alone). An NVM latency over also blames by it.
 */
#define TG_BLAME_CHANNEL	TG_DRAM_READ

/**
 * tg_blamed() - may a group be cut for the kinds over?
 * @g:     the group
 * @level: from tg_blame_levels()
 * @over:  the kinds over (bit per enum tg_kind)
 *
 * An NVM latency rises with the channel's load and the media's; how much
 * each weighs is the least certain part of the matrix, so a group is
 * blamed for an NVM kind over if it reaches the level by that kind's row
 * or by the channel row alone: traffic that matters on the channel is not
 * excused by the media weighting NVM traffic twice.
 *
 * Return: true if its load reaches the level of at least one kind over.
 */
bool tg_blamed(const struct tg_reg_group *g, const u64 level[TG_NR_KINDS],
	       u32 over)
{
	u64 load[TG_NR_KINDS];

	tg_blame_loads(g, load);
	return tg_blamed_load(load, level, over);
}

/* tg_blamed() on a group's loads (tg_blame_loads()) */
bool tg_blamed_load(const u64 load[TG_NR_KINDS], const u64 level[TG_NR_KINDS],
		    u32 over)
{
	int k;

	for (k = 0; k < TG_NR_KINDS; k++) {
		if (!(over & BIT(k)))
			continue;
		if (load[k] >= level[k])
			return true;
		if (((1u << k) & TG_NVM_KINDS) &&
		    load[TG_BLAME_CHANNEL] >= level[TG_BLAME_CHANNEL])
			return true;
	}
	return false;
}

/* the traffic kinds of each class of MT²'s order */
const u32 tg_order_kinds[TG_ORDER_CLASSES] = {
	BIT(TG_NVM_WRITE), BIT(TG_NVM_READ), TG_DRAM_KINDS,
};

/* the reason each class of MT²'s order gives for a cut */
const enum tg_reason tg_order_why[TG_ORDER_CLASSES] = {
	TG_WHY_NVM_WRITE, TG_WHY_NVM_READ, TG_WHY_DRAM,
};

/*
 * A group's traffic of the classes in MT²'s order (NVM write, NVM read,
 * DRAM) that drives a kind over: a class counts only if its traffic alone,
 * weighted as tg_blamed() weighs it, reaches a third of the blame level of
 * a kind over and a third of the group's own load there - 2 MB/s of NVM
 * writes beside 1.5 GB/s of DRAM reads does not make a group an NVM writer
 * when only DRAM read latency is over, nor do 40 MB/s (400 MB/s weighted,
 * a fifth of its load: review round 6, order3.c).
 *
 * A third, because a blamed group's weighted load is the sum of its three
 * classes' loads, so at least one of them carries a third of it - of its
 * load and so of the level it reaches: every blamed group ranks in some
 * class (with the full level, groups blamed
 * only for their classes together were ranked in none and held forever,
 * however much they made together: review round 5, escape.c). And the
 * classes a group ranks in only shrink as kinds fall out of over - a kind
 * falling out (the noise stopped, the smoothed rates not showing it yet)
 * never opens a new move (plant seed 947452).
 * v[]: that class's rates (as judged, ppm), 0 for the classes that do not
 * count.
 */
void tg_order_values(const struct tg_reg_group *g, const u64 own[TG_NR_KINDS],
		     const u64 level[TG_NR_KINDS], u32 over,
		     u64 v[TG_ORDER_CLASSES])
{
	struct tg_pend p;
	u64 b[TG_NR_KINDS];
	int o, j, k;

	tg_pending(g, &p);
	for (j = 0; j < TG_NR_KINDS; j++)
		b[j] = tg_rem_bps(g, j, &p);
	for (o = 0; o < TG_ORDER_CLASSES; o++) {
		u64 rate = 0;

		for (j = 0; j < TG_NR_KINDS; j++)
			if (tg_order_kinds[o] & BIT(j))
				rate = tg_sat_add(rate, b[j]);
		v[o] = 0;
		for (k = 0; k < TG_NR_KINDS; k++) {
			u64 load = 0, ch = 0;

			if (!(over & BIT(k)))
				continue;
			for (j = 0; j < TG_NR_KINDS; j++) {
				const u32 *ch_w = tg_blame_w[TG_BLAME_CHANNEL];

				if (!(tg_order_kinds[o] & BIT(j)))
					continue;
				load = tg_sat_add(load, tg_sat_mul_w(b[j], tg_blame_w[k][j]));
				ch = tg_sat_add(ch, tg_sat_mul_w(b[j], ch_w[j]));
			}
			load = tg_sat_mul_w(load, TG_ORDER_CLASSES);
			ch = tg_sat_mul_w(ch, TG_ORDER_CLASSES);
			if ((load >= level[k] && load >= own[k]) ||
			    ((BIT(k) & TG_NVM_KINDS) && ch >= level[TG_BLAME_CHANNEL] &&
			     ch >= own[TG_BLAME_CHANNEL]))
				v[o] = rate;
		}
	}
}
