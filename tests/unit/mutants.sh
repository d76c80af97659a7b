#!/bin/bash
# tests/unit/mutants.sh - each guarded rule of the control law, broken on
# purpose (docs/control-law.md, "Verification"): the unit tests must fail
# on every mutant. Builds a mutated copy of core/ in build/mut and runs
# tests/unit/test_core.c and test_plant.c against it.
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
	'regulator.c;;s/ \|\| !tg_blamed\(g, level, over\)\)/)/;;blame: a group under blame_pct is never picked'
	'regulator.c;;s/if \(r->dead\.left\)\n\t\t\treturn;/;/;;remedial dead time: no cut before the last one is measured'
	'regulator.c;;s/st->left = cfg->dead_periods;/st->left = 0;/;;dead time lasts (no settle tracking at all)'
	'regulator.c;;s/if \(st->age < TG_DEAD_ACT \|\| !change\)/if (0)/;;dead time: no early end before the cut can act, none for an undo'
	'regulator.c;;s/if \(\+\+r->quiet < cfg->relax_periods \|\| r->dead\.left\)/if (++r->quiet < cfg->relax_periods || r->dead.left || det->state != TG_INTF_NONE)/;;relax when no kind is over, not only in state none'
	'regulator.c;;s/g->relax_age > cfg->dead_periods\)\n\t\t\tcontinue;/g->relax_age > 3)\n\t\t\tcontinue;/;;relapse window = dead_periods'
	'regulator.c;;s/g->hold = true;/g->hold = false;/;;relapse: the group is held'
	'regulator.c;;s/g->hold = false;\t\/\* its noise stopped \*\//;/;;hold ends when its traffic halves'
	'regulator.c;;s/tg_unthrottled_bps\(r, cfg, g\) < cfg->noise_floor_bps\)/0)/;;a throttled group under the noise floor is released whatever the detector says'
	'regulator.c;;s/tg_unthrottled_bps\(r, cfg, g\) < cfg->noise_floor_bps\)/tg_total(g) < cfg->noise_floor_bps)/;;the noise-floor release looks at the traffic its throttle would let through'
	'regulator.c;;s/if \(waiting\)\n\t\t\t\treturn;/;/;;preventive: MBA steps wait for the last step to settle'
	'regulator.c;;s/\|\| waiting\)\n\t\treturn;/)\n\t\treturn;/;;preventive: relax waits for the last step to settle'
	'regulator.c;;s/tg_settle_start\(&r->dead, cfg, TG_SETTLE_REM, true, 0, 0\);/;/;;dead time after a relapse undo'
	'regulator.c;;s/g->hold_bps = g->relax_bps;/g->hold_bps = tg_total(g);/;;held level measured where the relapse returns to'
	'regulator.c;;s/return g->active && g->priority == TG_PRIO_LOW;/return g->active;/;;high priority is never throttled by the remedial policy'
	'regulator.c;;s/over = r->over_run >= TG_OVER_FILTER;/over = det->state;/;;cut only while a kind is over (not in the band)'
	'regulator.c;;s/over = r->over_run >= TG_OVER_FILTER;/over = r->over_run >= 1;/;;over filter: a one-period blip is not over'
	'regulator.c;;s/if \(st->flat && moved > /if (0 \&\& moved > /;;remedial dead time: the cut group'"'"'s traffic must be flat, not only moved 3\/4'
	'regulator.c;;s/if \(!g->hold_left\) \{/if (0) {/;;a hold ends after its hold time with nothing over'
	'regulator.c;;s/u32 shift = relapses > 1 \? relapses - 1 : 0;/u32 shift = 0;/;;hold time backs off per relapse'
	'regulator.c;;s/if \(g->probe && g->relax_age <= cfg->dead_periods\)\n\t\t\tcontinue;/;/;;a probe is one step, then its relapse window'
	'regulator.c;;s/if \(over\)\n\t\treturn;\n\tif \(g->hold_left\)/if (g->hold_left)/;;a hold counts only periods with nothing over'
	'regulator.c;;s/if \(!tg_throttled\(&g->rem, cfg\) && g->relax_age > cfg->dead_periods\)/if (!tg_throttled(\&g->rem, cfg))/;;backoff forgotten only once a release survived its window'
	'regulator.c;;s/tg_blame_w\[k\]\[j\]/tg_blame_w[TG_DRAM_READ][j]/;;blame: the row of the blame matrix is the kind over'
	'regulator.c;;s/if \(!\(over & BIT\(k\)\)\)\n\t\t\tcontinue;/;/;;blame: only the kinds over count'
	'regulator.c;;s/if \(st->left && st->expect < st->from && st->expect < total\)/if (0)/;;blame: a pending preventive cut is judged on its prediction'
	'regulator.c;;s/cfg->blame_pct = 5;/cfg->blame_pct = 25;/;;blame: blame_pct is 5 % (25 blames too little)'
	'regulator.c;;s/(#define TG_BW_NW\t\t)10/${1}3/; s/(#define TG_BW_MEDIA_NW\t\t)10/${1}3/;;blame matrix: NVM writes weigh 10 (20 on NVM latencies), not 3 (6)'
	'regulator.c;;s/(#define TG_BW_MEDIA_NR\t\t)3/${1}0/; s/(#define TG_BW_MEDIA_NW\t\t)10/${1}0/;;blame matrix: NVM latencies weigh NVM traffic twice (the media)'
	'regulator.c;;s/if \(\(\(1u << k\) & TG_NVM_KINDS\) &&/if (0 \&\&/;;blame: an NVM kind over also blames by the channel row'
	'regulator.c;;s/if \(g->rem_wait\)\n\t\treturn;/;/;;preventive: no cut within dead_periods of a remedial tightening of the group'
	'regulator.c;;s/\t\t\t\tif \(h < ppm\)/\t\t\t\tif (0)/; s/if \(!under \|\| !tg_throttled\(&g->prev, cfg\)\) \{/if (!tg_throttled(\&g->prev, cfg)) {/;;preventive: relax only under the margin and bounded by the limits (else a cut/relax cycle)'
	'regulator.c;;s/\t\tv\[o\] = 0;/\t\tv[o] = rate;/;;the pick: a class ranks only where it alone drives a kind over (not MT²'"'"'s order across kinds)'
	'regulator.c;;s/(tg_order_values\(const[\s\S]*?)if \(!\(over & BIT\(k\)\)\)\n\t\t\t\tcontinue;/$1;/;;the pick: a class ranks by the kinds over only'
	'regulator.c;;s/ppm < TG_PPM && \(g->prev_settle\.kinds & BIT\(kind\)\)/ppm < TG_PPM/;;pending prediction: only the kinds the step'"'"'s mechanism reduces (MBA: DRAM)'
	'regulator.c;;s/from = from < lo \? from : lo;\n\tto = to < lo \? to : lo;/;/;;pending prediction: a preventive MBA step acts through the remedial MBA level (above it, no drop)'
	'regulator.c;;s/load = tg_sat_mul_w\(load, TG_ORDER_CLASSES\);/load = tg_sat_mul_w(load, 2);/;;the pick: a class counts at a third of the level (half: blamed groups ranked in none)'
	'regulator.c;;s/load = tg_sat_mul_w\(load, TG_ORDER_CLASSES\);/load = tg_sat_mul_w(load, 4);/;;the pick: a class counts at a third of the level (a quarter: small classes jump the order)'
	'regulator.c;;s/\(load >= level\[k\] && load >= own\[k\]\)/(load >= level[k])/;;the pick: a class carries a third of the group'"'"'s own load too'
)

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
		if ! out=$("$mut/test_$t" 2>&1); then
			dead="$dead $(echo "$out" | sed -n 's/^\[  FAILED  \] \(test_[a-z_0-9]*\)$/\1/p' | sort -u | tr '\n' ' ')"
		fi
	done
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
