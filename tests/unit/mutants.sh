#!/bin/bash
# tests/unit/mutants.sh - each guarded rule of the control law, broken on
# purpose (docs/control-law.md, "Verification"): the unit tests must fail
# on every mutant. Builds a mutated copy of core/ in build/mut and runs
# tests/unit/test_core.c and test_plant.c against it (test_plant under the
# default law, and under the window law, law 0, when the first two pass).
#
#   tests/unit/mutants.sh            every mutant
#   tests/unit/mutants.sh 3 7        only those (numbers as listed)
#
# A mutant whose pattern no longer matches the source is an error, not a
# survivor: the list must follow the code. Exit status: 0 when every mutant
# was killed.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
mut=$top/build/mut
# file ;; perl substitution (applied with -0, once) ;; the rule it breaks
mutants=(
	# -- blame and MT²'s order (reg_blame.c, the cut's class in reg_remedial.c)
	'reg_remedial.c;;s/ \|\| !tg_blamed_load\(g->cut_load, level, over\)\)/)/;;blame: a group under blame_pct is never cut'
	'reg_blame.c;;s/const u32 \*w = tg_blame_w\[k\];/const u32 *w = tg_blame_w[TG_DRAM_READ];/;;blame: the row of the blame matrix is the kind over'
	'reg_blame.c;;s/(bool tg_blamed[\s\S]*?)if \(!\(over & BIT\(k\)\)\)\n\t\t\tcontinue;/$1;/;;blame: only the kinds over count'
	'reg_blame.c;;s/return st->expect < total \? tg_ppm\(st->expect, total\) : TG_PPM;/return TG_PPM;/;;blame: a pending cut is judged on its prediction'
	'reg_shared.c;;s/cfg->blame_pct = 5;/cfg->blame_pct = 25;/;;blame: blame_pct is 5 % (25 blames too little)'
	'reg_blame.c;;s/(#define TG_BW_NW\t\t)10/${1}3/; s/(#define TG_BW_MEDIA_NW\t\t)10/${1}3/;;blame matrix: NVM writes weigh 10 (20 on NVM latencies), not 3 (6)'
	'reg_blame.c;;s/(#define TG_BW_MEDIA_NR\t\t)3/${1}0/; s/(#define TG_BW_MEDIA_NW\t\t)10/${1}0/;;blame matrix: NVM latencies weigh NVM traffic twice (the media)'
	'reg_blame.c;;s/if \(\(\(1u << k\) & TG_NVM_KINDS\) &&/if (0 \&\&/;;blame: an NVM kind over also blames by the channel row'
	'reg_blame.c;;s/\t\tv\[o\] = 0;/\t\tv[o] = rate;/;;the order: a class ranks only where it alone drives a kind over'
	'reg_blame.c;;s/(void tg_order_values[\s\S]*?)if \(!\(over & BIT\(k\)\)\)\n\t\t\t\tcontinue;/$1;/;;the order: a class ranks by the kinds over only'
	'reg_blame.c;;s/load = tg_sat_mul_w\(load, TG_ORDER_CLASSES\);/load = tg_sat_mul_w(load, 2);/;;the order: a class counts at a third of the level (half: blamed groups ranked in none)'
	'reg_blame.c;;s/load = tg_sat_mul_w\(load, TG_ORDER_CLASSES\);/load = tg_sat_mul_w(load, 4);/;;the order: a class counts at a third of the level (a quarter: small classes jump the order)'
	'reg_blame.c;;s/\(load >= level\[k\] && load >= own\[k\]\)/(load >= level[k])/;;the order: a class carries a third of the group'"'"'s own load too'
	'reg_blame.c;;s/if \(p->prev < ppm && \(g->prev_settle\.kinds & BIT\(kind\)\)\)/if (p->prev < ppm)/;;pending prediction: only the kinds the step'"'"'s mechanism reduces (MBA: DRAM)'
	'reg_preventive.c;;s/from = from < lo \? from : lo;\n\tto = to < lo \? to : lo;/;/;;pending prediction: a preventive MBA step acts through the remedial MBA level'
	'reg_blame.c;;s/if \(p->rem < ppm && \(g->rem_pend\.kinds & BIT\(kind\)\)\)/if (0)/;;pending prediction: a remedial cut is judged on what it predicts'
	'reg_blame.c;;s/return g->bps_now\.v\[kind\] < v \? g->bps_now\.v\[kind\] : v;/return v;/;;judged rates never above the last period'"'"'s'
	'reg_internal.h;;s/return g->active && g->priority == TG_PRIO_LOW;/return g->active;/;;high priority is never throttled by the remedial policy'
	# -- preventive (reg_preventive.c)
	'reg_preventive.c;;s/if \(waiting\)\n\t\t\t\treturn;/;/;;preventive: MBA steps wait for the last step to settle'
	'reg_preventive.c;;s/\|\| waiting\)\n\t\treturn;/)\n\t\treturn;/;;preventive: relax waits for the last step to settle'
	'reg_preventive.c;;s/if \(g->rem_wait\)\n\t\treturn;/;/;;preventive: no cut within dead_periods of a remedial tightening of the group'
	'reg_preventive.c;;s/\t\t\t\tif \(h < ppm\)/\t\t\t\tif (0)/; s/if \(!under \|\| !tg_throttled\(&g->prev, cfg\)\) \{/if (!tg_throttled(\&g->prev, cfg)) {/;;preventive: relax only under the margin and bounded by the limits'
	# -- dead time and settle (reg_shared.c)
	'reg_shared.c;;s/st->left = cfg->dead_periods;/st->left = 0;/;;dead time lasts (no settle tracking at all)'
	'reg_shared.c;;s/if \(st->age < \(st->raw \? TG_RETURN_MIN : TG_DEAD_ACT\) \|\| !change\)/if (0)/;;dead time: no early end before the cut can act, none for an undo'
	'reg_shared.c;;s/if \(st->flat && moved > /if (0 \&\& moved > /;;remedial dead time: the cut group'"'"'s traffic must be flat, not only moved 3\/4'
	'reg_shared.c;;s/u32 shift = relapses > 1 \? relapses - 1 : 0;/u32 shift = 0;/;;hold time backs off per relapse'
	# -- the remedial law (reg_remedial.c)
	'reg_remedial.c;;s/if \(!over \|\| !kinds \|\| r->dead\.left \|\| r->cut_wait \|\| \(kinds & r->win.falling\)\)/if (!over || !kinds || r->cut_wait || (kinds \& r->win.falling))/;;remedial dead time: no cut before the last one is measured'
	'reg_remedial.c;;s/if \(!over \|\| !kinds \|\| r->dead\.left \|\| r->cut_wait \|\| \(kinds & r->win.falling\)\)/if (!over || !kinds || r->dead.left || r->cut_wait)/;;no cut while an over latency still falls'
	'reg_remedial.c;;s/over = r->win.over_run >= TG_OVER_FILTER \|\|/over = r->win.over_run >= 1 ||/;;over filter: a one-period blip is not over'
	'reg_remedial.c;;s/reached = r->win.near_run >= TG_OVER_FILTER;/reached = r->win.near_run >= 1;/;;the search undoes on the threshold reached twice in a row, not once'
	'reg_remedial.c;;s/if \(!thr \|\| lat > thr \+ m\)/if (!thr || lat > thr)/;;noise tolerance: a latency within its noise over the threshold does not cut'
	'reg_remedial.c;;s/ \|\| r->win.over_cnt >= 2 \* cfg->dead_periods \|\|/ ||/;;a latency over more often than not is cut, within the noise tolerance too'
	'reg_remedial.c;;s/ \|\|\n\t       \(reached && \(det->over & r->rose\)\);/;/;;an arrival (a rise well above the recent low) is cut without the noise tolerance'
	'reg_remedial.c;;s/f = \(u32\)tg_mul_div\(tg_ppm\(lat - sp, lat - lo\), TG_CUT_SAFETY, 4\);/f = TG_PPM \/ TG_CUT_MIN;/;;the cut is sized from the measured latency slope'
	'reg_remedial.c;;s/if \(f > share\)\t\/\* no class/if (0)\t\/* no class/;;the cut: no class by more than the share of the rise to remove'
	'reg_remedial.c;;s/return o >= 0 && g->cut_val >= top\[o\] \/ TG_CLASS_PEER \? o : -1;/return o >= 0 \&\& g->cut_val >= top[o] ? o : -1;/;;the cut falls on every peer of a class alike'
	'reg_remedial.c;;s/if \(!share \|\| !\(need\[0\] \| need\[1\] \| need\[2\] \| need\[3\]\)\) \{/if (1) {/;;the cut goes on to the next class in MT²'"'"'s order for what one could not give'
	'reg_remedial.c;;s/next = tg_isqrt\(\(u64\)x \* bad\);/next = bad;/;;the search: bisection towards the lowest unsafe allowance'
	'reg_remedial.c;;s/if \(g->relax_age <= cfg->dead_periods\)\n\t\t\tcontinue;\n\t\ttg_rem_relax/if (0)\n\t\t\tcontinue;\n\t\ttg_rem_relax/;;the search: each step waits out its relapse window'
	'reg_remedial.c;;s/if \(!tg_rem_candidate\(g\) \|\| g->relax_age > cfg->dead_periods\)\n\t\t\tcontinue;\n\t\ttg_rem_undo/if (!tg_rem_candidate(g) || g->relax_age > 3)\n\t\t\tcontinue;\n\t\ttg_rem_undo/;;relapse window = dead_periods'
	'reg_remedial.c;;s/(\nvoid tg_rem_hold_here[\s\S]*?)g->hold = true;/$1g->hold = false;/;;a relapse or a found level holds the group'
	'reg_remedial.c;;s/g->hold = false;\t\/\* its noise stopped \*\//;/;;hold ends when its traffic halves'
	'reg_remedial.c;;s/if \(!g->hold_left\) \{/if (0) {/;;a hold ends after its hold time with nothing over'
	'reg_remedial.c;;s/if \(over\)\n\t\treturn;\n\tif \(g->hold_left\)/if (g->hold_left)/;;a hold counts only periods with nothing over'
	'reg_remedial.c;;s/next = g->x \+ g->x \/ TG_BISECT_RES \+ 1;/next = tg_x_next(g);/;;a probe is one resolution step'
	'reg_remedial.c;;s/if \(!tg_throttled\(&g->rem, cfg\) && g->relax_age > cfg->dead_periods\)/if (!tg_throttled(\&g->rem, cfg))/;;backoff forgotten only once a release survived its window'
	'reg_remedial.c;;s/if \(tg_rem_relapse\(r, cfg, groups, nr\)\) \{\n\t\t\t\/\* wait for the undo \(its whole dead time\) \*\/\n\t\t\ttg_settle_start\(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0\);/if (tg_rem_relapse(r, cfg, groups, nr)) {\n;/;;dead time after a relapse undo'
	'reg_remedial.c;;s/tg_rem_hold_here\(cfg, g, g->relax_bps, true\);/tg_rem_hold_here(cfg, g, tg_total(g), true);/;;held level measured where the relapse returns to'
	'reg_remedial.c;;s/r->over_seen - g->over_mark >= cfg->dead_periods \/ TG_WINDOW_OVER/0/;;a step whose window was over too often is undone'
	'reg_remedial.c;;s/if \(g->close \|\| \(g->probe && !g->clear\)\)/if (g->probe \&\& !g->clear)/;;a step that came close to a threshold settles the search (window law)'
	'reg_remedial.c;;s/if \(tg_throttled\(&g->rem, cfg\) && tg_rem_idle\(r, cfg, g\)\)/if (0)/;;a throttled group that goes quiet is released'
	'reg_remedial.c;;s/return g->idle_run >= TG_IDLE_RUN \|\|/return/;;idle on the last period'"'"'s traffic (released within periods, not the average'"'"'s decay)'
	'reg_remedial.c;;s/if \(g->rem\.mba < cfg->mba_max\)\n\t\tv = tg_mul_div\(v, cfg->mba_max, g->rem\.mba \? g->rem\.mba : 1\);/;/;;idle: the traffic its throttle would let through, not what it makes throttled'
	'reg_remedial.c;;s/g->u_ref = g->cpu_usage_us > g->cpu_now_us \? g->cpu_usage_us : g->cpu_now_us;/g->u_ref = g->cpu_usage_us;/;;the quota ladder scales the CPU time a group takes (its last period'"'"'s, the average lags an arrival)'
	'reg_remedial.c;;s/if \(x >= lvl && lvl < TG_PPM\)/if (x >= lvl)/;;the DRAM ladder goes on above the CPU time a group took (no jump to unthrottled)'
	'reg_remedial.c;;s/if \(g->x_bad == TG_NEVER && tg_quota_slack\(g\)\) \{/if (0) {/;;a quota that binds nothing is lifted'
	'reg_remedial.c;;s/if \(g->x_mem < want\)/if (0)/;;a group back from idle is cut at least as far as it was held'
	# -- detector (detector.c)
	'detector.c;;s/ \|\|\n\t\t\t    d->band\[k\] >= cfg->quiet_periods \* TG_COOL_MULT\) \{/) {/;;the detector cools in the band too (no hot state beside an idle neighbour)'
	# -- the protected kinds (reg_remedial.c)
	'reg_remedial.c;;s/\tprotect\.over &= used;/\t;/;;the law acts only on latencies a high-priority group lives with'
	'regulator.c;;s/return TG_ALL_KINDS;\t\/\* the victims are outside tgroup/return 0;\t\/* the victims are outside tgroup/;;with no high-priority group every threshold counts'
	'reg_remedial.c;;s/if \(r->nload\[k\] > nlo && r->nload\[k\] - nlo >= all \/ TG_WIN_RISE\)/if (all - wlo >= all \/ TG_WIN_RISE)/;;an arrival is the low-priority groups'"'"' rise, not a victim'"'"'s'
	'reg_remedial.c;;s/if \(r->steady_age\[k\] < cfg->dead_periods\)\n\t\t\tcontinue;/;/;;a low point only where the load has been steady for a dead time (start-up)'
	# -- readings held over periods without one (reg_remedial.c)
	'reg_remedial.c;;s/\ttg_rem_hold_readings\(r, cfg, &protect\);/\t;/;;a kind read now and then keeps its last reading (a sparsely read victim is protected)'
	'reg_remedial.c;;s/continue;\t\t\/\* not confirmed: not held \*\//;/;;a single reading over is not held (a one-reading blip)'
	'reg_remedial.c;;s/if \(r->win.read_ns\[k\] > det->thr_ns\[k\]\) \{/if (0) {/;;a cut forgets the readings held over (a victim whose reads stop gets one cut)'
	'reg_remedial.c;;s/ \|\| r->win.read_age\[k\] > TG_READ_HOLD \* cfg->dead_periods\)/)/;;a reading is held for TG_READ_HOLD dead times, not for ever'
	'reg_remedial.c;;s/if \(lat > thr\)\t\t\/\* confirmed: the search waits too \*\/\n\t\t\tdet->over \|= BIT\(k\);/;/;;a confirmed reading held over its threshold is over (the search waits, the filters count it)'
	'reg_remedial.c;;s/\} else if \(r->dead\.left\) \{/} else if (0) {/;;readings within a cut'"'"'s dead time confirm nothing'
	'reg_remedial.c;;s/if \(\(kinds & r->win.confirm\) && r->win.over_run < TG_OVER_FILTER\)/if (0)/; s/if \(\(det->over & r->win.confirm\) && r->win.near_run < TG_OVER_FILTER\)/if (0)/;;a confirming reading is judged in its own period (on the traffic that made it)'
	'reg_remedial.c;;s/r->win.falling &= ~BIT\(k\);\n\t\t\tgoto judge;/goto judge;/;;a held reading is flat, not falling'
	# -- the block-mean law (reg_mean.c, cfg law 1; test_core's test_mean_*)
	'reg_mean.c;;s/if \(m->clear_run\[k\] >= TG_OVER_FILTER\)\n\t\t\t\*clear \|= BIT\(k\);/;/;;mean law: a clear violation acts at once'
	'reg_mean.c;;s/if \(m->clear_run\[k\] >= TG_OVER_FILTER\)/if (m->clear_run[k] >= 1)/;;mean law: a clear violation is two readings in a row, not one'
	'reg_mean.c;;s/kinds = tg_mean_arrival\(r, cfg, det, reached\);/kinds = 0;/;;mean law: an arrival is cut at once'
	'reg_mean.c;;s/need = tg_sat_add\(need, m->add\[k\]\);/;/;;mean law: a step'"'"'s own rise is no arrival'
	'reg_mean.c;;s/if \(!kinds \|\| r->cut_wait \|\| r->dead\.left\)\n\t\t\treturn false;/if (1)\n\t\t\treturn false;/;;mean law: the segment cut (a block over by the cut margin, no step pending)'
	'reg_mean.c;;s/tg_mean_undo\(r, cfg, groups, nr\);\t\/\* no accepted load \*\/\n\t\t\treturn true;/;/;;mean law: a block over undoes the pending step'
	'reg_mean.c;;s/done = false;\t\/\* read too rarely yet: wait \*\//;/;;mean law: a block waits for a sparse kind'"'"'s second reading'
	'reg_mean.c;;s/if \(!m->thr\[k\] \|\| m->pgap\[k\] > tg_mean_live\(cfg\)\) \{/if (1) {/;;mean law: a kind protected a moment ago still counts (a flipping set)'
	'reg_mean.c;;s/if \(v == TG_V_BAND && !tg_mean_rose\(m, det, mean\)\)/if (0)/;;mean law: the band keeps a level only if the step raised a mean'
	'reg_mean.c;;s/\ttg_settle_start\(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0\);\n\tr->cut_group = -1;\n\tr->mean\.ref_age = 0;/\tr->mean.ref_age = 0;/;;mean law: no cut within an undo'"'"'s dead time'
	'reg_mean.c;;s/r->mean\.ref_age = 0;\t\/\* the load before the step, from now \*\//;/;;mean law: after an undo the arrival is measured from the load before the step'
	'reg_mean.c;;s/if \(groups\[i\]\.hold\) \{\n\t\t\t\tgroups\[i\]\.hold = false;/if (groups[i].hold) {\n;/;;mean law: a verdict with no kind read ends the holds'
	'reg_mean.c;;s/if \(!m->avg\[k\] \|\| !count\) \{/if (!m->avg[k]) {/;;mean law: the spread is measured within blocks (a level moved by the law is no noise)'
	'reg_mean.c;;s/if \(!g->probe && tg_x_found\(g, TG_MEAN_RES\)\) \{/if (!g->probe \&\& tg_x_found(g, TG_BISECT_RES)) {/;;mean law: the search resolves to 1\/TG_MEAN_RES'
	'reg_mean.c;;s/m->age = !wait && m->age > half \? m->age - half : 0;/m->age = 0;/;;mean law: blocks slide by half a block while nothing changes'
	'reg_mean.c;;s/if \(m->n\[k\] >= TG_BLOCK_EARLY && m->clr\[k\] \* TG_WINDOW_OVER >= m->n\[k\]\) \{/if (0) {/;;mean law: readings over the clear margin in a quarter of a block make it over'
	'reg_mean.c;;s/if \(!tg_throttled\(&g->rem, cfg\) && !g->pend && /if (!tg_throttled(\&g->rem, cfg) \&\& !(g->pend = false) \&\& /;;mean law: a step that released a group is judged like any other'
	'reg_mean.c;;s/\} else if \(m->want && !r->dead\.left && !m->pend\) \{/} else if (0) {/;;mean law: a segment cut that found none blamed is tried again (a neighbour idle in the verdict'"'"'s period)'
	'reg_remedial.c;;s/if \(res > TG_BISECT_RES && g->relapses && g->x_bad != TG_NEVER &&/if (0 \&\& g->x_bad != TG_NEVER \&\&/;;mean law: a probe after a relapse bisects towards the bound, not the allowance seen unsafe'
	'regulator.c;;s/r->mean = \(struct tg_mean\)\{ 0 \};\n\t\ttg_rem_forget\(r\);\n\t\tfor \(i = 0; i < nr; i\+\+\) \{\n\t\t\tgroups\[i\]\.pend = false;/tg_rem_forget(r);\n\t\tfor (i = 0; i < nr; i++) {/;;the law switched at run time: the block-mean law'"'"'s state forgotten'
	'reg_mean.c;;s/if \(!m->n\[k\]\)\n\t\t\t\tcontinue;\t\/\* none in the whole block: not in it \*\//;/;;mean law: a kind with no reading in the block is not in its verdict (no division by zero)'
	'regulator.c;;s/\n\t\ttg_rem_forget\(r\);//;;the law switched at run time: the window law'"'"'s runs and held readings forgotten'
	'tg_parse.h;;s/(#define TG_LAW_DEFAULT\t\t)TG_LAW_MEAN/${1}TG_LAW_WINDOW/;;the default law is the block mean'
	'reg_shared.c;;s/\n\tcfg->law = TG_LAW_DEFAULT;//;;the regulator'"'"'s defaults set the law'
	'reg_remedial.c;;s/\ttg_rem_forget\(r\);\n\tr->dead\.left = 0;/\tr->dead.left = 0;/;;the remedial policy switched off forgets the window law'"'"'s state'
	'reg_remedial.c;;s/\n\tr->cut_wait = 0;\n\tr->mean = /\n\tr->mean = /;;the remedial policy switched off forgets a cut'"'"'s wait'
	'reg_blame.c;;s/\t\tif \(any >> 54\)/\t\tif (0)/;;blame loads saturate where the weighted sum does not fit (plain arithmetic only under 2^54 bytes per second)'
	'reg_remedial.c;;s/if \(tg_rem_is_back\(cfg, g\)\)\n\t\treturn true;/;/;;a quiet neighbour released as idle is throttled again at once when its traffic is back'
	'reg_remedial.c;;s/if \(!tg_blamed_load\(load, level, used\) \|\| /if (/;;a group back at the noise floor is no neighbour: not throttled again (blame)'
	'reg_remedial.c;;s/\tg->mem_left--;\n\treturn false;\n\}/\treturn false;\n}/;;a quiet group is remembered for TG_QUIET_MEM dead times, not for ever'
	'reg_remedial.c;;s/\tif \(r->dead\.left\) \{\n\t\ttg_settle_start\(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0\);/\tif (0) {\n\t\ttg_settle_start(\&r->dead, cfg, TG_SETTLE_REM, true, 0, 0);/;;a return over a running dead time waits its whole dead time (never shorter than the one running)'
	'reg_shared.c;;s/if \(st->age < \(st->raw \? TG_RETURN_MIN : TG_DEAD_ACT\) \|\| !change\)/if (st->age < TG_DEAD_ACT || !change)/;;a return'"'"'s dead time lasts TG_RETURN_MIN periods at least (the latency follows the traffic)'
	'reg_remedial.c;;s/\tr->dead\.raw = true;\n//;;a return'"'"'s dead time watches the raw traffic (its average rises from its quiet)'
	'reg_shared.c;;s/g->x_mem = step \? g->x_from : g->x;\n\t\tg->mba_mem = step \? g->mba_from : g->mba_lvl;/g->x_mem = g->x;\n\t\tg->mba_mem = g->mba_lvl;/;;a quiet group is remembered at its last judged allowance (and MBA level), not a step still waiting for its verdict'
	'reg_shared.c;;s/\tif \(why != TG_WHY_IDLE \|\| !g->active\)\n\t\tg->mem_left = 0;\n//;;a quiet group that lost its tasks or was high priority is forgotten'
	'reg_remedial.c;;s/g->mba_lvl = g->dram_ladder \? g->mba_mem : cfg->mba_max;/g->mba_lvl = cfg->mba_max;/;;a return on the DRAM ladder comes back at its MBA level'
	'reg_remedial.c;;s/if \(!tg_rem_candidate\(g\) \|\| !tg_rem_is_back\(cfg, g\)\)/if (!tg_rem_candidate(g) || !g->mem_left || tg_throttled(\&g->rem, cfg))/;;a return throttles only the groups back, not one trickling under the noise floor'
	'reg_remedial.c;;s/\t\tif \(cpu && cpu < g->u_ref && g->u_ref <= 0xffffffffu\)\n\t\t\tfrom = tg_mul_div\(from, \(u32\)g->u_ref, \(u32\)cpu\);\n//;;a return'"'"'s unthrottled rate is read over the CPU time of the period it came back in (partway through, it under-reads)'
	'reg_remedial.c;;s/ \|\| !tg_rem_same_rate\(g\)\) \{/) {/;;a return is the workload it was (its traffic per CPU time), not a trickle from a process still running'
	'reg_remedial.c;;s/\tu64 cpu = tg_rem_cpu\(g\);/\tu64 cpu = g->cpu_now_us;/;;a return'"'"'s rate per CPU time is over the larger of this period'"'"'s CPU time and its average (a process that ran all along, barely this period, is no return)'
	'reg_remedial.c;;s/\t\tcpu = tg_rem_cpu\(g\);/\t\tcpu = g->cpu_now_us;/;;a return'"'"'s unthrottled rate is scaled over the guard'"'"'s CPU time (a process that ran all along, barely this period, is not scaled up by the sliver)'
	# -- an arrival on its first reading (reg_mean.c rule 3, tenth session)
	'reg_mean.c;;s/u32 hot = 0, arrive = m->pend \? TG_OVER_FILTER : TG_ARRIVE_FILTER;/u32 hot = 0, arrive = TG_OVER_FILTER;/;;an arrival is cut on its first reading over (its load'"'"'s rise the second witness)'
	'reg_mean.c;;s/u32 hot = 0, arrive = m->pend \? TG_OVER_FILTER : TG_ARRIVE_FILTER;/u32 hot = 0, arrive = TG_ARRIVE_FILTER;/;;beside a pending step an arrival waits for a second reading (an over then is likeliest the step'"'"'s own)'
	'reg_mean.c;;s/kinds, NULL, !clear && !m->pend\);/kinds, NULL, false);/;;an arrival on its first reading is cut of its whole rise since the low point (a secant on a partial rise falls short)'
	# -- a remedial MBA rise under a binding preventive quota (regulator.c, tenth session)
	'regulator.c;;s/ && tg_limited_in\(g, TG_DRAM_KINDS\)\) \{/ \&\& 0) {/;;a remedial MBA rise scales the preventive quota that bound a DRAM limit (the traffic the limit converged on stays)'
	'regulator.c;;s/g->prev.quota_us <= g->rem_seen.quota_us && /1 \&\& /;;only a preventive quota that bound is scaled (the remedial quota bound: nothing converged on it)'
	'regulator.c;;s/tg_limited_in\(g, TG_DRAM_KINDS\)\) \{/tg_limited(g)) {/;;only a DRAM limit is scaled with MBA (NVM traffic does not follow it)'
	'reg_mean.c;;s/kinds, NULL, !clear && !m->pend\);/kinds, NULL, !clear);/;;an arrival found beside a pending step (its second reading) gets the sized cut, not the whole rise (review helper-67)'
	'reg_remedial.c;;s/\t\tif \(whole && !tg_rem_rising\(g\)\)\n\t\t\to = -1;\n//;;the whole cut takes only from the groups that rose: a steady class is not cut for the rise it did not make (review helper-67)'
	'regulator.c;;s/g->prev.quota_us = q > r->quota_min \? q : r->quota_min;/g->prev.quota_us = q ? q : 1;/;;the preventive quota scaled by a remedial MBA rise stays at or over the quota floor'
	# -- an arrival beside a pending step is carried by the groups not stepping (reg_mean.c, eleventh session)
	'reg_mean.c;;s/\(clear \|\| \(kinds && !tg_mean_other_rose\(r, groups, nr, kinds\)\)\)\) \{/clear) {/;;beside a pending step, a rise only the stepping groups carry is the steps'"'"' own: undone, not cut (sweep seeds 14000776, 23000517)'
	'reg_mean.c;;s/other\[k\] = r->nload\[k\] > p \? r->nload\[k\] - p : 0;/other[k] = r->nload[k];/;;the stepping groups'"'"' own load is taken out of the rise an arrival beside a step is judged on'
	'reg_mean.c;;s/\ttg_mean_others\(r, groups, nr, r->mean.ref_other\);\n//;;the groups not stepping are judged against their load at the step'
	'reg_mean.c;;s/\(clear \|\| \(kinds && !tg_mean_other_rose\(r, groups, nr, kinds\)\)\)\) \{/(clear || ((kinds = kinds \&\& tg_mean_other_rose(r, groups, nr, kinds) ? kinds : 0), 0))) {/;;the steps'"'"' own rise is undone at once, not left to a block'"'"'s verdict (review helper-68)'
	'reg_mean.c;;s/if \(!clear && seen \+ TG_DEAD_ACT < r->dead.left\)/if (0)/;;an undo of the steps'"'"' own rise waits only as long as their rise took to show (a stepping group'"'"'s own arrival is cut then)'
	# -- a burst is no violation (reg_mean.c, twelfth session)
	'reg_mean.c;;s/hot = tg_mean_read\(r, cfg, det, tg_mean_classify\(cfg, groups, nr\), &clear, &reached\);/hot = tg_mean_read(r, cfg, det, tg_mean_classify(cfg, groups, nr) \& ~TG_PERIOD_BURST, \&clear, \&reached);/;;a quota group'"'"'s burst past its allowance is no clear violation nor arrival (the module'"'"'s coarse enforcement repaying a debt)'
	'reg_mean.c;;s/if \(g->park_age <= TG_BURST_PARKED && use > q \+ q \/ TG_BURST_DIV &&/if (use > q + q \/ TG_BURST_DIV \&\&/;;a burst is a group just out of a park: over its quota and not parked is demand'
	'reg_mean.c;;s/u64 cap = burst \? TG_BURST_CLIP \* thr : thr \+ thr \/ TG_CLIP_DIV;/u64 cap = thr + thr \/ TG_CLIP_DIV;/;;a burst'"'"'s reading counts whole in the block mean (clipped, the law over-allows a bursting group)'
	'reg_mean.c;;s/if \(g->park_age <= TG_BURST_PARKED && use > q \+ q \/ TG_BURST_DIV &&/if (g->park_age <= TG_BURST_PARKED \&\& use > q \&\&/;;a burst runs past its quota by half (less is the quota'"'"'s own granularity, and demand)'
	'tg_core.h;;s/#define TG_BURST_PARKED\t\t4/#define TG_BURST_PARKED\t\t128/;;a burst follows its park within a few periods (a sleep long ago makes no burst)'
	'reg_mean.c;;s/use - q <= q \* TG_BURST_DEBT\)/1)/;;a burst past the debt the module carries is not repaid: acted on at once'
	'reg_mean.c;;s/\t\t!\(flags & TG_PERIOD_IDLE\);/\t\t1;/;;the block counts no period with every low-priority group idle (a neighbour'"'"'s off phases dilute it: the level relaxes)'
	'reg_mean.c;;s/block = \(count \|\| \(!m->wait && r->dead.raw && r->dead.age >= TG_RETURN_COUNT\)\) &&/block = count \&\&/;;the block counts a return'"'"'s dead time from TG_RETURN_COUNT periods of it on'
	'reg_mean.c;;s/r->dead.age >= TG_RETURN_COUNT\)\)/r->dead.age > TG_RETURN_COUNT))/;;... from that period exactly'
	'reg_mean.c;;s/if \(raw >= cfg->noise_floor_bps && tg_rem_rose\(g, raw\)\)/if (tg_rem_rose(g, raw))/;;a group with no traffic is no arrival beside a burst (review helper-70, HIGH)'
	'reg_mean.c;;s/if \(judged \? !judged_there : any && !there\)/if (any \&\& !there)/;;a bystander'"'"'s traffic does not make a judged group'"'"'s off phase count (review helper-70)'
	'reg_mean.c;;s/here = here \|\| \(thr && !g->idle_run\);/;/;;a throttled group not idle by tg_rem_idle()'"'"'s count is there (throttled to under the noise floor, it still acts)'
	'reg_mean.c;;s/\tif \(\(flags & TG_PERIOD_BURST\) && tg_mean_arrived\(cfg, groups, nr\)\)\n\t\tflags &= ~TG_PERIOD_BURST;\n//;;an arrival of a group outside a debt cycle in a burst'"'"'s period is still cut at once (review helper-69, HIGH)'
	'reg_mean.c;;s/ \|\| m->bst\)\)\n\t\t\t\tnow \|= BIT\(k\);/))\n\t\t\t\tnow |= BIT(k);/;;a block over with bursts in it is cut at a burst'"'"'s reading (the verdict may fall in a park; review helper-69, MEDIUM)'
	# -- the protected kinds (regulator.c, fourteenth session)
	'regulator.c;;s/if \(g->bps.v\[k\] >= min\)/if (1)/;;a kind under 1/TG_USE_SHARE of every victim'"'"'s own traffic (an estimate'"'"'s residue) protects no latency'
)

# failed BIN OUTPUT STATUS: the tests that failed, or the binary's exit when
# none says so (a crash)
failed() { echo "$2" | sed -n 's/^\[  FAILED  \] \(test_[a-z_0-9]*\)$/\1/p' | sort -u | tr '\n' ' ' |
	grep . || echo "$1(exit $3) "; }
want=("$@")
make --no-print-directory -s user >/dev/null || { echo "core does not build"; exit 1; }
killed=0 survived=0 broken=0
for i in "${!mutants[@]}"; do
	n=$((i + 1))
	if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $n " ]]; then continue; fi
	m=${mutants[$i]}
	file=${m%%;;*}
	rest=${m#*;;}
	expr=${rest%%;;*}
	what=${rest#*;;}
	rm -rf "$mut" && mkdir -p "$mut/obj" && cp -r core "$mut/core"
	perl -0pi -e "$expr" "$mut/core/$file"
	if cmp -s "core/$file" "$mut/core/$file"; then
		echo "BROKEN  $n: pattern no longer matches core/$file ($what)"
		broken=$((broken + 1)); continue
	fi
	ok=1
	for f in "$mut"/core/*.c; do
		gcc -O2 -Wall -Wextra -std=gnu11 -ffreestanding -I"$mut/core" -c "$f" \
			-o "$mut/obj/$(basename "$f" .c).o" 2>"$mut/build.log" || ok=0
	done
	ar rcs "$mut/libtgcore.a" "$mut"/obj/*.o
	for t in core plant; do
		gcc -O1 -g -I"$mut/core" -o "$mut/test_$t" "tests/unit/test_$t.c" "$mut/libtgcore.a" \
			-lcmocka 2>>"$mut/build.log" || ok=0
	done
	if [ $ok = 0 ]; then
		echo "BROKEN  $n: does not compile ($what)"; broken=$((broken + 1)); continue
	fi
	dead=""
	for t in core plant; do
		out=$("$mut/test_$t" 2>&1) || dead="$dead $(failed "test_$t" "$out" $?)"
	done
	# test_plant runs the default law (the block mean); a mutant in what the
	# window law uses must also die under it: test_plant again with law 0
	if [ -z "${dead// /}" ]; then
		out=$(TG_PLANT_LAW=0 "$mut/test_plant" 2>&1) || dead=" law0: $(failed test_plant "$out" $?)"
	fi
	if [ -n "${dead// /}" ]; then
		echo "KILLED  $n: $what - by$dead"
		killed=$((killed + 1))
	else
		echo "SURVIVED $n: $what"
		survived=$((survived + 1))
	fi
done
echo "$killed killed, $survived survived, $broken broken"
[ $survived = 0 ] && [ $broken = 0 ]
