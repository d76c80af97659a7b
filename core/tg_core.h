/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tg_core.h - the regulator's brain: estimator, interference detector,
 * regulator and the CLOS/RMID bookkeeping. Freestanding (tg_compat.h),
 * integer-only, no allocation: callers own every array. The control law
 * and its constants are documented in docs/control-law.md.
 */
#ifndef TG_CORE_H
#define TG_CORE_H

#include "tg_parse.h"

/* kind masks */
#define TG_DRAM_KINDS	(BIT(TG_DRAM_READ) | BIT(TG_DRAM_WRITE))
#define TG_NVM_KINDS	(BIT(TG_NVM_READ) | BIT(TG_NVM_WRITE))
#define TG_ALL_KINDS	(TG_DRAM_KINDS | TG_NVM_KINDS)

/* ---- arithmetic ---------------------------------------------------------- */

/* a + b, saturating at U64_MAX */
static inline u64 tg_sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

/**
 * tg_mul_div() - a * b / c without intermediate overflow
 * @a: multiplicand
 * @b: multiplier
 * @c: divisor, not 0
 *
 * Inline: most callers divide by a constant (100, 10^6), which the
 * compiler turns into a multiplication.
 *
 * Return: the exact quotient, or U64_MAX if it does not fit in 64 bits.
 */
static inline u64 tg_mul_div(u64 a, u32 b, u32 c)
{
	/* (hi * 2^32 + lo) / c with hi = (a >> 32) * b, lo = (a & 0xffffffff) * b */
	u64 hi = (a >> 32) * b, lo = (a & 0xffffffffu) * (u64)b;
	u64 h = hi + (lo >> 32), q1, q0;
	u32 r1, r0;

	if (!hi)	/* a < 2^32: a * b fits in 64 bits, one division */
		return tg_div_u64_rem(lo, c, &r0);
	q1 = tg_div_u64_rem(h, c, &r1);
	if (q1 >> 32)
		return U64_MAX;
	q0 = tg_div_u64_rem(((u64)r1 << 32) | (lo & 0xffffffffu), c, &r0);
	return (q1 << 32) + q0;
}

#define TG_USEC_PER_SEC		1000000u
#define TG_CACHE_LINE		64u

/* ---- estimator ----------------------------------------------------------- */

/* Which inputs a period's counters carry (tg_counters.present). */
#define TG_IN_OCR	BIT(0)	/* dram_read_lines, nvm_read_lines */
#define TG_IN_MBM	BIT(1)	/* mbm_bytes */
#define TG_IN_VFS	BIT(2)	/* vfs_nvm_write_bytes */
#define TG_IN_PMDK	BIT(3)	/* pmdk_nvm_write_bytes */
#define TG_IN_SAMPLES	BIT(4)	/* dram/nvm_store_samples */

/* One group's counter deltas over one period. */
struct tg_counters {
	u32 present;
	u64 dram_read_lines;
	u64 nvm_read_lines;
	u64 mbm_bytes;
	u64 vfs_nvm_write_bytes;
	u64 pmdk_nvm_write_bytes;
	u64 dram_store_samples;
	u64 nvm_store_samples;
};

/* tg_estimate.flags */
#define TG_EST_NO_OCR		BIT(0)	/* reads unknown (0) */
#define TG_EST_NO_MBM		BIT(1)	/* DRAM write not from MBM */
#define TG_EST_FROM_SAMPLES	BIT(2)	/* a write figure came from samples */
#define TG_EST_PMDK_CAPPED	BIT(3)	/* PMDK report exceeded MBM */
#define TG_EST_READS_OVER_MBM	BIT(4)	/* reads > MBM total (counter skew) */

/* Bytes of each kind moved in one period. */
struct tg_estimate {
	u64 bytes[TG_NR_KINDS];
	u32 flags;
};

void tg_estimate(const struct tg_counters *in, struct tg_estimate *out);

/* Per-group accounting: cumulative totals, the 1 s window, the last rate. */
#define TG_WINDOW_US		TG_USEC_PER_SEC

struct tg_account {
	struct tg_bw total;		/* bytes since creation (tgroup.stat) */
	struct tg_bw window_bytes;	/* bytes in the open window */
	u32 window_us;			/* its length so far */
	struct tg_bw window_bps;	/* last completed window (tgroup.bandwidth) */
	struct tg_bw rate_bps;		/* last period, for the regulator */
};

void tg_account_update(struct tg_account *acc, const struct tg_estimate *est,
		       u32 period_us);

/* ---- interference detector ------------------------------------------------ */

enum tg_intf_state {
	TG_INTF_NONE,
	TG_INTF_DRAM,
	TG_INTF_NVM,
	TG_INTF_BOTH,
};

const char *tg_intf_name(enum tg_intf_state state);

/* tg_latency_in.present */
#define TG_LAT_UNCORE	BIT(0)	/* RPQ occupancy/inserts + uncore clock */
#define TG_LAT_PROBE	BIT(1)	/* timed probe writes */

struct tg_latency_in {
	u32 present;
	u64 dram_rpq_occupancy, dram_rpq_inserts;
	u64 nvm_rpq_occupancy, nvm_rpq_inserts;
	u32 uncore_khz;
	u64 dram_write_ns, nvm_write_ns;
};

struct tg_detector_cfg {
	u64 threshold_ns[TG_NR_KINDS];	/* enter above */
	u32 low_pct;			/* leave below threshold * low_pct / 100 */
	u32 quiet_periods;		/* ... for this many periods in a row */
};

void tg_detector_cfg_default(struct tg_detector_cfg *cfg);

struct tg_detector {
	u64 lat_ns[TG_NR_KINDS];	/* last estimate per kind (0: no traffic) */
	u32 over;			/* kinds above their threshold now (bit k) */
	u32 hot;			/* kinds in the interfering state (hysteresis) */
	u32 quiet[TG_NR_KINDS];		/* periods below the low mark, per hot kind */
	u32 band[TG_NR_KINDS];		/* periods not over, per hot kind */
	enum tg_intf_state state;	/* from hot */
	/* the configuration of the last tg_detect(), for the regulator */
	u64 thr_ns[TG_NR_KINDS];	/* threshold (0: none) */
	u64 low_ns[TG_NR_KINDS];	/* low mark: far under the threshold */
};

void tg_detector_init(struct tg_detector *d);
u64 tg_read_latency_ns(u64 occupancy, u64 inserts, u32 uncore_khz);
enum tg_intf_state tg_detect(struct tg_detector *d,
			     const struct tg_detector_cfg *cfg,
			     const struct tg_latency_in *in);

/* ---- regulator -------------------------------------------------------------- */

#define TG_QUOTA_UNLIMITED	U64_MAX

struct tg_throttle {
	u32 mba;		/* percent, mba_max = unthrottled */
	u64 quota_us;		/* CPU time per period over all CPUs */
};

struct tg_reg_cfg {
	u32 period_us;
	u32 nr_cpus;
	bool enabled;		/* master switch */
	bool preventive;
	bool remedial;
	u32 mba_min, mba_max, mba_step;	/* platform granularity */
	u32 margin_pct;		/* "under the limit by a margin" */
	u32 deadband_pct;	/* over a limit by more than this before a cut */
	u32 relax_periods;	/* quiet/calm periods before each relax step */
	u32 cut_pct;		/* remedial cut (%) when no latency slope is known */
	u32 grow_pct;		/* CPU quota growth per relax step */
	u32 quota_min_pm;	/* quota floor, per mille of one CPU's period */
	u64 noise_floor_bps;	/* less traffic than this is nobody's noise */
	u32 smooth_div;		/* the caller smooths rates: EWMA weight 1/this */
	u32 dead_periods;	/* wait for a step's effect; relapse window */
	u32 blame_pct;		/* blameless: under this share (%) for every kind over */
	u32 law;		/* the remedial law: TG_LAW_WINDOW or TG_LAW_MEAN */
};

/* TG_LAW_WINDOW, TG_LAW_MEAN, TG_LAW_DEFAULT: tg_parse.h (tgroup.config law) */

/*
 * The caller's rate smoothing (module/loop.c): an EWMA of weight
 * 1/TG_SMOOTH_DIV per period. The remedial dead time is derived from it.
 */
#define TG_SMOOTH_DIV		8

/* core/period.c: the loop's smoothing (EWMA 1/TG_SMOOTH_DIV) and quota pick */
u64 tg_ewma(u64 avg, u64 x);
u64 tg_quota_pick(u64 reg_quota_us, u64 pin_us, bool enabled,
		  enum tg_priority priority);

/*
 * The CPU quota floor (cfg.quota_min_pm): per mille of one CPU's period
 * (25 us at 10 ms). The module's enforcer meters in slices of period / 8
 * and carries any overrun as debt, so a floor under one slice holds as a
 * mean (module/actuators/cpu.c).
 */
#define TG_QUOTA_MIN_PM		2

/*
 * The remedial law (docs/control-law.md, "Remedial"): a group's allowance
 * x is the share (ppm) of its unthrottled traffic it may make, as the
 * linear ladder of its mechanism maps it (quota, or MBA then quota).
 *  - TG_SETPOINT_DIV: a cut aims under the threshold by 1/this of the
 *    rise it allows over the lowest latency seen (the search settles just
 *    under the threshold: a marginal over asks for a small cut);
 *  - TG_CUT_SAFETY: the load a cut removes is what the measured latency
 *    slope asks for x this / 4 (a convex latency curve needs more);
 *  - TG_CUT_MIN: every cut removes at least 1/this of what it cuts;
 *  - TG_BISECT_RES: the search for the largest safe allowance stops once
 *    the lowest unsafe one is within 1/this of it (or one MBA step);
 *  - TG_IDLE_RUN: periods in a row with (almost) no traffic, unthrottled,
 *    before an idle group is released;
 *  - TG_QUIET_MEM: dead times a group released as idle (its tasks still
 *    there) is remembered: its traffic back within them, it is throttled
 *    again at once at the allowance it was released from (x_mem), not
 *    after the periods a detection takes (a neighbour switching on and off
 *    every 0.1-1 s, issue 21 item 3);
 *  - TG_RETURN_MIN: periods the dead time after such a return lasts at
 *    least - what a cut's takes for its group's smoothed traffic (EWMA
 *    1/TG_SMOOTH_DIV) to show 3/4 of a step ((7/8)^11 < 1/4): a latency
 *    follows traffic with the platform's own delay, and the raw traffic
 *    the return's dead time watches shows none of it;
 *  - TG_RETURN_COUNT: once this many periods of a return's dead time have
 *    passed, the block law (reg_mean.c) counts the readings in its block's
 *    mean (the platform's lag is past: 1-5 periods in the plants tested;
 *    its rules acting on one reading wait the whole dead time out): an on
 *    phase of 0.3 s otherwise gives a block two thirds of its readings;
 *  - TG_JITTER_DIV, TG_NOISE_MULT, TG_NOISE_DIV: a latency counts as over
 *    for the law only above its threshold + TG_NOISE_MULT x its measured
 *    jitter (an EWMA of weight 1/TG_JITTER_DIV of its change from one
 *    period to the next), that tolerance at most 1/TG_NOISE_DIV of the
 *    threshold (at least 1 ns, the detector's resolution): noise around a
 *    settled level neither cuts nor undoes, and a victim's latency sits at
 *    most that much over its threshold;
 *  - TG_CLOSE_MULT: a search step whose window saw a latency within this
 *    many times its jitter of its threshold (at least 1/TG_SETPOINT_DIV of
 *    the rise it allows) is where the search stops: it survived, but
 *    noise decided it;
 *  - TG_RISE_MULT: a kind over its threshold that rose this many times its
 *    noise tolerance above its recent low point is cut when over twice in
 *    a row, without the tolerance (an arrival, not noise);
 *  - TG_CLASS_PEER: a cut falls on the groups of a class whose traffic
 *    there is at least 1/this of the class's largest (its peers);
 *  - TG_WIN_MULT: a cut's slope starts from the lowest latency of the last
 *    TG_WIN_MULT to 2 x TG_WIN_MULT dead times (and the load then); where
 *    the load rose by 1/TG_WIN_RISE since (an arrival), a class may be cut
 *    by the share of the rise since then, else by that of the whole rise;
 *    a period counts for that low point only when its load has stayed
 *    within 1/TG_WIN_RISE of where it stood a dead time before (the
 *    latency then shows that load: a start-up's idle latency, paired
 *    with the traffic that has just begun, is no point on the slope);
 *  - TG_WINDOW_OVER: a step whose window had a latency over its threshold
 *    in 1/this of its periods or more (not in a row: noise) is undone as
 *    if it had relapsed - its mean is over.
 */
#define TG_SETPOINT_DIV		16
#define TG_CUT_SAFETY		5
#define TG_CUT_MIN		8
#define TG_BISECT_RES		8
#define TG_IDLE_RUN		2
#define TG_QUIET_MEM		8
#define TG_RETURN_MIN		11
#define TG_RETURN_COUNT		5
#define TG_JITTER_DIV		16
#define TG_NOISE_MULT		2
#define TG_NOISE_DIV		100
#define TG_CLOSE_MULT		1
#define TG_WINDOW_OVER		4
#define TG_WIN_MULT		4
#define TG_CLASS_PEER		2
#define TG_WIN_RISE		16
#define TG_RISE_MULT		4
/*
 * TG_USE_DIV: a latency kind is protected when the active high-priority
 * groups make at least 1/TG_USE_DIV of the noise floor of it (1 KB/s at
 * the default 1 MB/s): less is an EWMA's residue, not a victim's traffic.
 */
#define TG_USE_DIV		1000
/*
 * TG_USE_SHARE: ... counting from each group only the kinds it makes at
 * least 1/TG_USE_SHARE of its own traffic of: an estimate's residue is not
 * demand (the MBM total less the reads counted in whole lines leaves a pure
 * DRAM reader some KB/s of DRAM writes: about 1/3,000,000 of its traffic).
 * Small, since bytes are not time: an NVM write ordered by a fence costs
 * a whole latency per line, overlapped DRAM reads a fraction of one.
 */
#define TG_USE_SHARE		4096

/*
 * Remedial over filter: a kind counts as over for the remedial policy only
 * when the detector has it over this many periods in a row (a one-period
 * blip neither cuts, undoes a relax nor restarts a wait).
 */
#define TG_OVER_FILTER		2

/*
 * The block-mean law's arrival (rule 3) acts on the first reading over
 * (TG_ARRIVE_FILTER in a row; TG_OVER_FILTER beside a pending step, whose
 * own rise an over then likeliest is): its second witness is the load's
 * rise in the same period, which noise in the latency does not make.
 */
#define TG_ARRIVE_FILTER	1

/*
 * A protected kind read only now and then (a period without reads of it
 * reads 0) keeps its last reading for up to TG_READ_HOLD x dead_periods
 * periods (80 at the defaults): a period without a reading is no evidence
 * either way, and the filter above counts periods in a row.
 */
#define TG_READ_HOLD		4

/*
 * The block-mean law (cfg law TG_LAW_MEAN, reg_mean.c,
 * docs/control-law.md "The block-mean law"):
 *  - TG_BLOCK_MULT: a block is this many dead times of readings, started a
 *    dead time after the law's last change (about three correlation times
 *    of a victim's CPU noise at the defaults: 80 periods);
 *  - TG_BLOCK_EARLY: the fewest periods a verdict is taken on (early: only
 *    when the mean is past its bound by two standard errors);
 *  - TG_BAND_DIV: the setpoint band, 1/this of the threshold under it (at
 *    least 1 ns, the readings' resolution): a block mean in it is the
 *    largest allowance found;
 *  - TG_SPREAD_LO, TG_SPREAD_HI: a kind's spread (1.25 x the EWMA of its
 *    distance from its EWMA, each of weight 1/TG_MEAN_EWMA) is taken as at
 *    least 1/TG_SPREAD_LO and at most 1/TG_SPREAD_HI of its threshold;
 *  - TG_CLEAR_MULT: a reading over by this many spreads, twice in a row,
 *    is a clear violation (a cut, or the pending step undone, at once);
 *  - TG_CLIP_DIV: a reading counts in a block mean at most 1/this over the
 *    threshold (one spike does not make a mean); readings over by the clear
 *    margin in 1/TG_WINDOW_OVER of a block make it over whatever its mean;
 *  - TG_BLOCK_SPARSE: a kind read fewer than twice in a block extends it,
 *    to at most this many blocks; read within that many blocks' periods,
 *    a kind is still read (its runs of readings hold over the gap);
 *  - TG_MEAN_FIX: the EWMAs' fixed point; TG_MEAN_SUB: a block mean's
 *    and a spread's unit, 1/this ns;
 *  - TG_MEAN_RES: the search stops once the lowest unsafe allowance is
 *    within 1/this of it (TG_BISECT_RES for the window law: its band is
 *    finer, 1/TG_BAND_DIV of the latency, than 1/8 of the allowance);
 *  - TG_CUT_MARGIN: a block with no step pending is cut when its mean is
 *    over by 1.5 spreads, at most 1/this of the threshold (the segment cut).
 */
#define TG_BLOCK_MULT		4
#define TG_BLOCK_EARLY		10
#define TG_BAND_DIV		200
#define TG_SPREAD_LO		200
#define TG_SPREAD_HI		20
#define TG_CLEAR_MULT		3
#define TG_BLOCK_SPARSE		4
#define TG_CLIP_DIV		10
#define TG_CUT_MARGIN		100
#define TG_MEAN_RES		32
#define TG_MEAN_FIX		1024
#define TG_MEAN_SUB		16
#define TG_MEAN_EWMA		64

/*
 * A burst is no violation (reg_mean.c, rules 2 and 3): a low-priority group
 * under a CPU quota that ran past it by 1/TG_BURST_DIV of it in the period,
 * within TG_BURST_PARKED periods of a period with no CPU at all under the
 * quota, by no more than the debt the module carries (TG_BURST_DEBT
 * quotas, its TG_CPU_DEBT_PERIODS), is repaying a debt in bursts: the
 * module parks a group at slices and sees a running task's time a tick late
 * (docs/module.md, "Accounting"). Its burst is the actuator's, not new
 * demand: unless a group not in such a cycle rose in the same period, that
 * period's readings act through the block's mean only (clipped at
 * TG_BURST_CLIP x the threshold), and a block over with bursts in it is
 * cut at a burst's reading within TG_BURST_WAIT dead times (the park
 * between two bursts is up to the debt floor).
 */
#define TG_BURST_DIV		2
#define TG_BURST_PARKED		4
#define TG_BURST_DEBT		100
#define TG_BURST_CLIP		2
#define TG_BURST_WAIT		5
#define TG_PERIOD_BURST		BIT(0)	/* tg_mean_classify(): a burst's readings */
#define TG_PERIOD_IDLE		BIT(1)	/* ... no judged group there: not in the block */

/*
 * Remedial hold after a relapse: it ends after TG_HOLD_MULT x dead_periods
 * periods with nothing over, doubled for each further relapse of the group
 * while it stays throttled, at most TG_HOLD_MAX_SHIFT times (20 x 10 = 200,
 * 400, 800, 1600 periods at the defaults) - or as soon as its traffic has
 * halved. The shortest hold (200 periods) is the no-limit-cycle window:
 * a settled group probes at most once in it (docs/control-law.md).
 */
#define TG_HOLD_MULT		10
#define TG_HOLD_MAX_SHIFT	3

/*
 * Remedial blame matrix (docs/control-law.md, "Blame"): tg_blame_w[k][j]
 * is how much one byte/s of traffic of kind j weighs in what drives the
 * latency of kind k (tg_kind order both ways). Every latency rises with
 * the load on the shared memory channel, where a byte of NVM read costs 3
 * and a byte of NVM write 10 bytes of DRAM traffic; an NVM latency also
 * rises with the load on the NVM media, which only NVM traffic makes (read
 * 3, write 10 again). Weights are at most TG_BLAME_W_MAX (checked at
 * compile time in regulator.c).
 */
extern const u32 tg_blame_w[TG_NR_KINDS][TG_NR_KINDS];
#define TG_BLAME_W_MAX		255

u32 tg_dead_periods(u32 smooth_div);
struct tg_reg_group;
void tg_blame_loads(const struct tg_reg_group *g, u64 load[TG_NR_KINDS]);
void tg_blame_levels(const struct tg_reg_cfg *cfg,
		     const struct tg_reg_group *groups, u32 nr,
		     u64 level[TG_NR_KINDS]);
bool tg_blamed(const struct tg_reg_group *g, const u64 level[TG_NR_KINDS],
	       u32 over);
u32 tg_hold_periods(const struct tg_reg_cfg *cfg, u32 relapses);

void tg_reg_cfg_default(struct tg_reg_cfg *cfg, u32 period_us, u32 nr_cpus);

enum tg_policy { TG_POL_NONE, TG_POL_PREVENTIVE, TG_POL_REMEDIAL };

enum tg_action {
	TG_ACT_NONE,
	TG_ACT_THROTTLE,	/* one step tighter */
	TG_ACT_RELAX,		/* one step looser */
	TG_ACT_RELEASE,		/* everything this policy imposed lifted */
	TG_ACT_HOLD,		/* relax undone after a relapse; held there */
};

enum tg_mech { TG_MECH_NONE, TG_MECH_MBA, TG_MECH_CPU };

enum tg_reason {
	TG_WHY_NONE,
	TG_WHY_NVM_WRITE,	/* remedial: most NVM write traffic */
	TG_WHY_NVM_READ,	/* remedial: most NVM read traffic */
	TG_WHY_DRAM,		/* remedial: most DRAM traffic */
	TG_WHY_OVER_LIMIT,	/* preventive: above a limit (kind in .kind) */
	TG_WHY_UNDER_LIMIT,	/* preventive: under its limits by the margin */
	TG_WHY_QUIET,		/* remedial: interference gone */
	TG_WHY_RELAPSE,		/* remedial: interference came back after a relax */
	TG_WHY_IDLE,		/* group has (almost) no traffic or no tasks */
	TG_WHY_POLICY_OFF,	/* policy or regulator disabled */
	TG_WHY_HIGH_PRIORITY,	/* remedial never throttles high priority */
	TG_WHY_SETTLED,		/* remedial: the largest safe allowance found */
};

struct tg_decision {
	enum tg_policy policy;
	enum tg_action action;
	enum tg_mech mech;
	enum tg_reason why;
	int kind;		/* enum tg_kind it concerns, -1 if none */
};

const char *tg_action_name(enum tg_action a);
const char *tg_mech_name(enum tg_mech m);
const char *tg_reason_name(enum tg_reason r);

/*
 * Dead time after a step: wait dead_periods, or until the stepped group's
 * smoothed traffic has moved most of the way to what the step predicts:
 * 3/4 after a remedial cut, 2/3 after a preventive step; a remedial cut
 * also waits until that traffic is flat (settled, not still moving).
 */
struct tg_settle {
	u32 left;		/* periods still to wait, 0: settled */
	u32 age;		/* periods since the step */
	u32 rest;		/* settled with 1/rest of the change still to come */
	bool flat;		/* and the traffic must have stopped moving */
	bool raw;		/* judged on the group's raw traffic, not its average */
	u32 kinds;		/* the traffic the step acts on (bit per kind) */
	u64 from, expect;	/* that traffic before, and predicted */
	u64 seen[2];		/* its traffic one and two periods ago */
};

/* One group as the regulator sees it; the caller owns the array. */
struct tg_reg_group {
	/*
	 * Laid out by use: what every group's period reads or writes comes
	 * first (inputs, outputs, the throttles and what a release resets:
	 * the first 256 bytes, four cache lines where the array is aligned to
	 * them), then what only a throttled group or a cut uses.
	 */
	/* inputs, set by the caller before each tg_regulate() */
	bool active;			/* exists and has tasks */
	enum tg_priority priority;
	struct tg_limits limits;
	struct tg_bw bps;		/* rates, smoothed (the caller's EWMA) */
	u64 cpu_usage_us;		/* CPU time per period, smoothed alike */
	struct tg_bw bps_now;		/* rates of the period just ended, raw */
	u64 cpu_now_us;			/* CPU time it ran in that period, raw */

	/* outputs */
	struct tg_throttle out;		/* effective: the tighter of both */
	struct tg_decision last;	/* what this period did to it */

	/* state, owned by the regulator */
	struct tg_throttle prev;	/* imposed by the preventive policy */
	struct tg_throttle rem;		/* imposed by the remedial policy */
	struct tg_throttle rem_seen;	/* its remedial throttle last period */
	u32 rem_wait;			/* preventive waits: a remedial tightening */
	u32 calm;			/* periods under all limits by the margin */
	u32 x;				/* remedial allowance, ppm (TG_PPM: none) */
	u32 x_bad;			/* lowest allowance seen unsafe, TG_NEVER */
	u32 x_mem;			/* allowance it held when it went idle */
	u32 relapses;			/* since it was last unthrottled (backoff) */
	u32 relax_age;			/* periods since its last remedial relax */
	u32 mba_lvl;			/* its MBA level */
	u32 grow;			/* relax steps in a row without a bound */
	u32 idle_run;			/* periods in a row idle while throttled */
	bool hold;			/* remedial relax blocked: settled/relapsed */
	bool probe;			/* hold ended by time: one relax, then wait */
	bool pend;			/* its step waits for the block's verdict (law 1) */
	u32 mem_left;			/* periods its x_mem is re-applied on return */

	struct tg_settle prev_settle;	/* after its last preventive step */
	struct tg_settle rem_pend;	/* after its last remedial cut */
	u32 x_from;			/* allowance before its last relax */
	u32 mba_from;			/* its MBA level before its last relax */
	u64 u_ref;			/* CPU time the quota ladder scales */
	bool dram_ladder;		/* MBA for the coarse part, quota the rest */
	bool close;			/* a latency came close in its step's window */
	bool clear;			/* ... stayed clear of its threshold in it */
	s8 mem_class;			/* the class of MT²'s order it was cut in */
	u32 mba_mem;			/* its MBA level when it went idle */
	u64 mem_rate;			/* bytes/s per us of CPU when first cut */
	u32 over_mark;			/* the regulator's over_seen at its step */
	int cut_class;			/* scratch of a cut: its class, -1 none */
	u64 cut_val;			/* ... its traffic there */
	u64 cut_load[TG_NR_KINDS];	/* ... its loads (tg_blame_loads()) */
	u64 hold_bps;			/* its total traffic at the held level */
	u32 hold_left;			/* periods with nothing over until it ends */
	u64 relax_bps;			/* its total traffic at x_from */
	u32 park_age;			/* periods since it got no CPU under a quota */
};

/*
 * The block-mean law (reg_mean.c): a block of readings per kind, judged
 * on its mean; each kind's spread; readings over in a row.
 */
struct tg_mean {
	u32 wait;			/* periods until the block starts (after a change) */
	u32 age;			/* periods into the block */
	u32 n[TG_NR_KINDS];		/* readings of each kind in it */
	u64 sum[TG_NR_KINDS];		/* their sum */
	u32 clr[TG_NR_KINDS];		/* ... over the threshold by the clear margin */
	u32 n2[TG_NR_KINDS], clr2[TG_NR_KINDS];	/* the same of its second half */
	u32 bst, bst2;			/* periods with a burst in the block, its second half */
	u64 sum2[TG_NR_KINDS];
	u32 gap[TG_NR_KINDS];		/* periods since the kind's last reading */
	u64 thr[TG_NR_KINDS];		/* its threshold while protected */
	u32 pgap[TG_NR_KINDS];		/* periods since it was protected */
	u64 avg[TG_NR_KINDS];		/* its EWMA, x TG_MEAN_FIX */
	u64 dev[TG_NR_KINDS];		/* EWMA of its distance from avg, x TG_MEAN_FIX */
	u32 clear_run[TG_NR_KINDS];	/* readings in a row over by the clear margin */
	u32 reach_run[TG_NR_KINDS];	/* readings in a row over the threshold */
	u64 ref_nload[TG_NR_KINDS];	/* low-priority load at the last step or kept verdict */
	u64 ref_lat[TG_NR_KINDS];	/* ... the latency then */
	u64 cur[TG_NR_KINDS];		/* each kind's last reading */
	u32 ref_age;			/* periods since then */
	u64 add[TG_NR_KINDS];		/* the load the pending step adds, predicted */
	u64 ref_other[TG_NR_KINDS];	/* ... the load of the groups not stepping, at the step */
	u32 step_age;			/* periods since the search's last steps */
	u64 last[TG_NR_KINDS];		/* each kind's last verdict mean, 1/TG_MEAN_SUB ns */
	bool pend;			/* a search step waits for the verdict */
	u32 want, want_left;		/* a segment cut none was blamed for: kinds, periods */
	u64 want_lat[TG_NR_KINDS];	/* ... the block's means it is sized from */
};

/*
 * The window law's own state (reg_remedial.c): its runs and counts of
 * periods over, its held readings, the last latency and the kinds falling.
 * What it kept is stale after the block-mean law ran: a switch of law
 * forgets all of it in one assignment (tg_rem_forget()).
 */
struct tg_window {
	u32 quiet;			/* periods in a row with no kind over */
	u32 over_run;			/* periods in a row with a kind over (law) */
	u32 near_run;			/* ... over its threshold (detector) */
	u32 over_cnt;			/* leaky count of periods over (detector) */
	u32 close_run;			/* periods in a row close to a threshold */
	u64 lat_prev[TG_NR_KINDS];	/* last period's latency */
	u32 falling;			/* kinds whose latency fell by more than noise */
	/* per protected kind: its reading that counts, periods since one, overs in a row */
	u64 read_ns[TG_NR_KINDS];
	u32 read_age[TG_NR_KINDS];
	u32 read_over[TG_NR_KINDS];
	u32 held;			/* kinds whose latency this period is a held reading */
	u32 confirm;			/* kinds whose reading confirmed an over after one held */
};

struct tg_regulator {
	struct tg_window win;		/* the window law's own state */
	u32 over_seen;			/* periods over (detector), wrapping */
	struct tg_settle dead;		/* after the last remedial cut */
	int cut_group;			/* its group, -1 if none */
	u32 cut_wait;			/* periods before a cut that found none looks again */
	int last_group;			/* group of the last decision, -1 */
	struct tg_decision last;	/* the last decision that was not NONE */
	u64 quota_min, quota_cap;	/* of this step's cfg, computed once */
	/* per kind: the lowest latency seen and the weighted load then */
	u64 lat_lo[TG_NR_KINDS];
	/* per kind, two buckets: the lowest latency and the load then */
	u64 win_lat[2][TG_NR_KINDS], win_load[2][TG_NR_KINDS];
	u64 win_nload[2][TG_NR_KINDS];	/* ... the low-priority groups' part of it */
	u32 win_age;			/* periods into bucket 0 */
	/* per kind: the load a steady stretch began at, and its periods */
	u64 steady_load[TG_NR_KINDS];
	u32 steady_age[TG_NR_KINDS];
	u64 jitter[TG_NR_KINDS];	/* its mean change per period, x TG_JITTER_DIV */
	u32 rose;			/* kinds over that rose well above their low */
	u64 load[TG_NR_KINDS];		/* this period's weighted load */
	u64 nload[TG_NR_KINDS];		/* ... the low-priority groups' part */
	u32 law;			/* the law of the last period (cfg law) */
	struct tg_mean mean;		/* the block-mean law's state (reg_mean.c) */
};

void tg_reg_group_init(struct tg_reg_group *g, const struct tg_reg_cfg *cfg);
void tg_regulator_init(struct tg_regulator *r);
void tg_regulate(struct tg_regulator *r, const struct tg_reg_cfg *cfg,
		 const struct tg_detector *det, struct tg_reg_group *groups,
		 u32 nr);

/* ---- CLOS / RMID bookkeeping ------------------------------------------------ */

/*
 * MBA levels, not groups, consume CLOS: CLOS 0 is unthrottled (mba_max),
 * every other distinct level gets its own CLOS while there are CLOS left.
 * With more distinct levels than CLOS, a level shares the CLOS of the
 * nearest lower (tighter) level that has one: never looser than asked.
 */
struct tg_clos_map {
	u32 nr_clos;			/* platform CLOS count (>= 1) */
	u32 level[64];			/* MBA percent of each CLOS in use */
	u32 nr_used;
};

int tg_clos_assign(struct tg_clos_map *map, u32 nr_clos, u32 mba_max,
		   const u32 *mba, u32 *clos, u32 nr);

/*
 * RMIDs: one per group while they last (RMID 0 belongs to the root group).
 * A group that gets none shares RMID 0 and has no MBM of its own: the
 * estimator then runs it without MBM (TG_EST_NO_MBM) and uses store samples.
 *
 * Limbo: a freed RMID is not handed out again for limbo_ns (the module uses
 * TG_RMID_LIMBO_NS, 1 s). Until the CPU it runs on next switches, a task
 * that has left a group still carries the group's RMID in PQR_ASSOC, and
 * requests already issued are still counted against it: a new owner must
 * not inherit those. resctrl keeps a freed RMID in limbo until its LLC
 * occupancy drops below a threshold, checked every second
 * (CQM_LIMBOCHECK_INTERVAL); tgroup reads MBM only, not occupancy, so it
 * takes a fixed limbo of that interval - far longer than a time slice.
 * Among RMIDs out of limbo the lowest is taken.
 */
#define TG_RMID_NONE		0u
#define TG_RMID_LIMBO_NS	1000000000ull
#define TG_RMID_BUSY		U64_MAX		/* tg_rmid_pool.state: allocated */

struct tg_rmid_pool {
	u32 nr_rmid;		/* RMIDs the platform has, 0 included */
	u64 limbo_ns;
	/*
	 * Per RMID, caller-owned, nr_rmid entries: 0 free, TG_RMID_BUSY
	 * allocated, else in limbo until that time (caller's ns clock).
	 */
	u64 *state;
};

void tg_rmid_pool_init(struct tg_rmid_pool *pool, u64 *state, u32 nr_rmid,
		       u64 limbo_ns);
u32 tg_rmid_alloc(struct tg_rmid_pool *pool, u64 now_ns);
void tg_rmid_free(struct tg_rmid_pool *pool, u32 rmid, u64 now_ns);
u32 tg_rmid_in_limbo(const struct tg_rmid_pool *pool, u64 now_ns);

/* ---- MBA hardware values (Intel SDM vol. 3 ch. 18 RDT; AMD PQoS) ---------- */

#define TG_MSR_PQR_ASSOC	0xc8fu		/* RMID 9:0 (AMD 11:0), CLOS 63:32 */
#define TG_MSR_MBA_INTEL_BASE	0xd50u		/* IA32_L2_QOS_EXT_BW_THRTL_n */
#define TG_MSR_MBA_AMD_BASE	0xc0000200u	/* L3QOS_BW_CONTROL_n */
#define TG_MBA_AMD_UNLIMITED	0x800u		/* bit 11: no limit */
#define TG_MBA_AMD_MAX_UNITS	0x7ffu		/* 1/8 GB/s units */

struct tg_mba_hw {
	bool amd;
	u32 nr_clos;		/* CLOS ids available (highest + 1) */
	u32 gran;		/* Intel: percent step = smallest level */
	u32 amd_full_units;	/* AMD: platform bandwidth, 1/8 GB/s units */
};

struct tg_msr_write {
	u32 msr;
	u64 val;
};

/* ---- MBM (Intel SDM vol. 3 "Memory Bandwidth Monitoring") ------------------- */

#define TG_MSR_QM_EVTSEL	0xc8du		/* RMID 41:32 (AMD 43:32), event 7:0 */
#define TG_MSR_QM_CTR		0xc8eu		/* bit 63 error, 62 unavailable */
#define TG_QM_EVT_MBM_TOTAL	2u
#define TG_MBM_WIDTH_BASE	24u		/* + CPUID.(0FH,1):EAX[7:0] */

#define TG_QM_CTR_ERROR		BIT_ULL(63)
#define TG_QM_CTR_UNAVAIL	BIT_ULL(62)	/* also: "not read" for callers */
#define TG_MBM_UNPRIMED		U64_MAX		/* prev of a counter not read yet */

u64 tg_qm_evtsel(u32 rmid, u32 event);
int tg_mbm_bytes(u64 *prev, u64 raw, u32 width, u32 scale, u64 *bytes);
int tg_mbm_sum(u64 *prev, const u64 *raw, u32 nr_pkg, u32 width, u32 scale,
	       u64 *bytes);

int tg_mba_hw_intel(u32 eax, u32 ecx, u32 edx, struct tg_mba_hw *hw);
void tg_mba_hw_amd(u32 nr_clos, u32 full_gbps, struct tg_mba_hw *hw);
u32 tg_mba_msr(const struct tg_mba_hw *hw, u32 clos);
u64 tg_mba_value(const struct tg_mba_hw *hw, u32 percent);
u64 tg_pqr_assoc(u32 clos, u32 rmid);

/* the per-CPU PQR_ASSOC cache (module/pqr.c): "unknown", never written */
#define TG_PQR_INVALID		U64_MAX
bool tg_pqr_switch(u64 *cache, u64 val, bool transition);
bool tg_pqr_epoch_stable(u32 epoch, bool transition, u32 *seen);

/* RDT ownership between tgroup and resctrl (tg_rdt_decide(), core/mba.c) */
enum tg_rdt_state { TG_RDT_OFF, TG_RDT_WAIT, TG_RDT_OWN };
enum tg_rdt_step { TG_RDT_NONE, TG_RDT_TAKE, TG_RDT_GIVE };
enum tg_rdt_step tg_rdt_decide(enum tg_rdt_state *st, bool resctrl);
u32 tg_mba_plan(const struct tg_mba_hw *hw, u64 *programmed,
		const struct tg_clos_map *map, struct tg_msr_write *out, u32 max);

#endif /* TG_CORE_H */
