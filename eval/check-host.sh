#!/bin/bash
# eval/check-host.sh - make check's host checks of eval/ (docs/eval.md):
#   eval_model/PROFILE  tgeval model exits 0 on every profile: the solver's
#                       residual <= 1e-6 everywhere it is used, the writers
#                       sweep monotone where the profile has no per-thread
#                       penalty;
#   eval_oracle_at_cpu/PROFILE  tgeval oracle, the guest's item-1 yardstick
#                       at a run's own victim CPU share: at calib_cpu tgeval
#                       model's oracle line and the threshold's level (96 %),
#                       at less CPU more traffic and a lower level; strict
#                       arguments;
#   eval_oracle/PAIR    in tgsim without CPU noise (every load at calib_cpu),
#                       the oracle controller holds the victim at its
#                       threshold: the threshold is where a solo task at
#                       calib_cpu has lost threshold_drop (4 %), so the victim
#                       is at 96 % of solo, within ORACLE_TOL points; no
#                       control leaves it under 80 %.
#   eval_oracle_noise/PROFILE  with CPU noise (--cpu-seed 1, 2, 3; 16 pairs,
#                       60 s) the oracle controller, computed at the run's
#                       own drawn CPU shares, holds the victim's mean latency
#                       at its fixed threshold within ORACLE_LAT_TOL % (the
#                       yardstick of eval_law_wc is reachable on every seed,
#                       and not slack: at calib_cpu it was 3 % off either way);
#   eval_law_wc/PROFILE  issue 21 item 1 where it is met: in tgsim without CPU
#                       noise, 60 s of steady state (11-71 s, the neighbour
#                       from 1 s), in each of the 16 pairs the neighbour keeps
#                       >= WC_MIN of the oracle rate (the model's, the CSV's
#                       oracle_gbps) and the victim >= its threshold level
#                       (96 %) minus VICTIM_PTS;
#   eval_law_stable/PROFILE  issue 21 item 4: the same 60 s in the 16 pairs
#                       with CPU noise (--cpu-seed 1-8): at most
#                       STABLE_MAX_PS throttle changes per second of the
#                       neighbour (the CSV's changes_meas over the window)
#                       in every run, and item 4's goal (CHANGES_PS) missed
#                       in at most STABLE_OVER of the 128 runs (printed);
#   eval_law_leave/PROFILE  issue 21 items 3 and 4: the neighbour leaves at 13 s
#                       (16 pairs, --cpu-seed 0-3): every throttle released
#                       within RELEASE_PERIODS periods (12 ms each, the CSV's
#                       release_ms), and the detector cold again within 3 s
#                       wherever it was cold before the neighbour came (the
#                       CSV's hot_before: a lone NVM-write victim keeps the
#                       other kinds' latencies over their thresholds itself).
#   eval_law_burst/PROFILE  the default law on tgsim's coarse quota
#                       (--quota-slices 8 --park-lag 4: the module parks at
#                       slices and sees a running task's time a tick late, so a
#                       small quota runs in bursts, as in the guest): item 1
#                       per pair on the mean (law_pairs.py --plant, seeds
#                       1-5), and every run of the 16 pairs x seeds 1-5 (43 s,
#                       window 23-43) at most STABLE_MAX_PS changes/s;
#   eval_law_pairs/PROFILE  issue 21 item 1 judged per pair
#                       (eval/law_pairs.py --assert, tgsim seeds 1-20 with
#                       CPU noise; cxl-spr and cxl-miku seeds 1-10): every
#                       pair of the 16 on the mean;
#                       these four run the default law, the block mean
#                       (tgroup.config law=1; docs/control-law.md, "The
#                       block-mean law");
#   eval_law_*/PROFILE/law0  wc, stable and leave under the window law, the
#                       law before it (law=0, TG_LAW=0; it misses item 1
#                       per pair: docs/control-law.md);
#   plant/law0          tests/unit/test_plant.c under the window law
#                       (TG_PLANT_LAW=0 TG_PLANT_SOFT=1; make check's
#                       test_plant runs the default): no hard failure, at
#                       most PLANT0_SOFT soft misses (work conservation,
#                       reaction, stillness) in its 2,000 scenarios;
#   eval_report_frontier  eval/report.py's Pareto frontier and equal-protection
#                       interpolation on hand-worked cases (tests/unit/test_report.py);
#   eval_report_reaction  report.py's reaction per run: tgroup's measured cut,
#                       the oracle's formula and measured pin, old rows' bound.
#   eval_law_pairs_reference  law_pairs.py against a fake tgsim, pairs never
#                       over their threshold included (tests/unit/test_law_pairs.py).
# Prints PASS/FAIL lines as tests/check.sh counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
ORACLE_TOL=1.5 ORACLE_LAT_TOL=1.5
WC_MIN=0.8 VICTIM_PTS=1 CHANGES_PS=1 RELEASE_PERIODS=5 STABLE_MAX_PS=1.5 STABLE_OVER=12 PLANT0_SOFT=2
b=$(pwd)/build
make --no-print-directory -s "$b/tgeval-host" "$b/tgsim" >/dev/null || { echo "FAIL eval_host_build"; exit 1; }
for p in eval/profiles/*.prof; do
	n=$(basename "$p" .prof)
	if err=$("$b/tgeval-host" model "$p" 2>&1 >/dev/null); then echo "PASS eval_model/$n"; else echo "FAIL eval_model/$n: $err"; fi
done
# eval_oracle_at_cpu/PROFILE: tgeval oracle (the guest's item-1 yardstick at a
# run's own victim CPU share, eval/report.py) at calib_cpu gives tgeval
# model's oracle line for each of the 16 pairs, digit for digit; the victim's
# level there is the threshold's definition, 100 (1 - threshold_drop) within
# 0.3 point where a cut is needed (at or over it where none is); at 2 points
# less CPU the rate is higher and the level lower wherever a cut is needed
# (a lower solo latency: more neighbour traffic to reach the fixed
# threshold, a smaller share of solo there); a bad kind or share exits 1.
for p in eval/profiles/*.prof; do
	n=$(basename "$p" .prof)
	c=$(sed -n 's/^calib_cpu *= *\([0-9.]*\).*/\1/p' "$p")
	drop=$(sed -n 's/^threshold_drop *= *\([0-9.]*\).*/\1/p' "$p")
	model=$("$b/tgeval-host" model "$p" 2>/dev/null)
	bad=
	for v in nvm_read nvm_write dram_read dram_write; do for k in nvm_read nvm_write dram_read dram_write; do
		at=$("$b/tgeval-host" oracle "$p" "$v" "$k" "$c") lo=$("$b/tgeval-host" oracle "$p" "$v" "$k" "$(awk -v c="$c" 'BEGIN { print c - 0.02 }')")
		want=$(echo "$model" | awk -v k="oracle.$v.$k" '$1 == k { print $2, $3 }')
		awk -v a="$at" -v l="$lo" -v w="$want" -v d="$drop" 'BEGIN { split(a, x, " "); split(l, y, " "); split(w, z, " ")
			lv = 100 * (1 - d)
			ok = x[1] " " x[2] == z[1] " " z[2] && (x[1] < 1 ? x[3] >= lv - 0.3 && x[3] <= lv + 0.3 : x[3] >= lv - 0.3)
			if (x[1] < 1 && y[1] < 1) ok = ok && y[2] > x[2] && y[3] < x[3]
			exit !ok }' || bad="$bad $v+$k (at calib_cpu: $at; model: $want; 0.02 less: $lo)"
	done; done
	"$b/tgeval-host" oracle "$p" nvm_read bogus "$c" >/dev/null 2>&1 && bad="$bad a bad kind accepted"
	"$b/tgeval-host" oracle "$p" nvm_read nvm_read 1.5 >/dev/null 2>&1 && bad="$bad VCPU 1.5 accepted"
	"$b/tgeval-host" oracle "$p" nvm_read nvm_read 0.9x >/dev/null 2>&1 && bad="$bad VCPU 0.9x accepted"
	if [ -z "$bad" ]; then echo "PASS eval_oracle_at_cpu/$n"; else echo "FAIL eval_oracle_at_cpu/$n:$bad"; fi
done
for pr in nvm_read:nvm_write dram_read:dram_read; do
	v=${pr%:*} n=${pr#*:}
	pct() {
		"$b/tgsim" eval/profiles/optane-clx.prof --mode "$1" --cpu-seed 0 --duration 13 --measure 11:13 \
			--ref 0.3:1 "v:$v:1:high:0:0" "n:$n:2:low:1:0" | awk -F, '$11 == "high" { print $15 }'
	}
	o=$(pct oracle) z=$(pct none)
	if awk -v o="$o" -v z="$z" -v t=$ORACLE_TOL 'BEGIN { exit !(o >= 96 - t && o <= 96 + t && z < 80) }'; then
		echo "PASS eval_oracle/$v+$n"
	else
		echo "FAIL eval_oracle/$v+$n: oracle $o % (96 ± $ORACLE_TOL expected), no control $z % (< 80 expected)"
	fi
done
# tgroup (or mode $6) in the 16 pairs, neighbour from 1 s; $1 profile, $2
# seed, $3 the neighbour's leave time (0: never), $4 duration, $5 window.
# Prints per pair "seed pair victim_pct gbps oracle_gbps changes_meas
# release_ms cool_ms hot_before victim_lat_ns thr_ns"
pairs16() {
	local kinds="nvm_read nvm_write dram_read dram_write" v n
	for v in $kinds; do for n in $kinds; do
		# shellcheck disable=SC2086 # TGSIM_PLANT: options, split
		"$b/tgsim" "$1" --mode "${6:-tgroup}" --seed "$2" --cpu-seed "$2" --duration "$4" --measure "$5" ${TG_LAW:+--law "$TG_LAW"} ${TGSIM_PLANT:-} \
			--ref 0.3:1 "v:$v:1:high:0:0" "n:$n:2:low:1:$3" |
			awk -F, -v p="$2 $v+$n" '$11 == "high" { vp = $15; vl = $14 }
				$11 == "low" { print p, vp, $13, $33, $23, $31, $30, $32, vl, $35 }'
	done; done
}
# $1 test name, $2 runs expected, $3 the runs ("out"), $4 awk: a failing
# run, $5 awk: the summary (END block's printf)
judge() {
	local bad
	bad=$(echo "$3" | awk -v w=$WC_MIN -v pts=$VICTIM_PTS -v c=$CHANGES_PS -v cm=$STABLE_MAX_PS -v r=$RELEASE_PERIODS \
		-v lt=$ORACLE_LAT_TOL "NF != 11 || $4" | paste -sd ';')
	if [ "$(echo "$3" | wc -l)" = "$2" ] && [ -z "$bad" ]; then
		echo "PASS $1 ($(echo "$3" | awk -v c=$CHANGES_PS "$5"))"
	else
		echo "FAIL $1: seed pair victim% gbps oracle_gbps changes release_ms cool_ms hot_before lat_ns thr_ns: ${bad:-not $2 runs}"
	fi
}
# law_checks LAW: the checks of the default law (LAW "default": TG_LAW
# empty, tgsim's default, TG_LAW_DEFAULT) or of law LAW (the window law, 0)
law_checks() {
	local law=$1 p=eval/profiles/optane-clx.prof n out k
	export TG_LAW=${law#default}
	n=$(basename "$p" .prof)$([ "$law" = default ] || echo "/law$law")
	[ "$law" = default ] && \
	judge "eval_oracle_noise/$n" 48 "$(for s in 1 2 3; do pairs16 "$p" $s 0 71 11:71 oracle; done)" \
		'$10 > $11 * (1 + lt / 100) || $10 < $11 * (1 - lt / 100)' \
		'{ d = 100 * ($10 / $11 - 1); if (d < lo) lo = d; if (d > hi) hi = d } END { printf "victim latency %+.2f..%+.2f %% of its threshold", lo, hi }'
	judge "eval_law_wc/$n" 16 "$(pairs16 "$p" 0 0 71 11:71)" '$4 < w * $5 || $3 < 96 - pts' \
		'{ s = $4 / $5; if (!m || s < m) m = s } END { printf "neighbour >= %.2f of the oracle rate", m }'
	# item 4's goal (CHANGES_PS) is missed in a few runs: asserted is the
	# margin it holds by (STABLE_MAX_PS per run, STABLE_OVER of the runs
	# over the goal); the seeds over it are printed (docs/control-law.md)
	out=$(for s in 1 2 3 4 5 6 7 8; do pairs16 "$p" $s 0 71 11:71; done)
	k=$(echo "$out" | awk -v c=$CHANGES_PS '$6 > c * 60' | wc -l)
	if [ "$k" -gt "$STABLE_OVER" ]; then
		echo "FAIL eval_law_stable/$n: $k of 128 runs over $CHANGES_PS change/s (at most $STABLE_OVER expected)"
	else
		judge "eval_law_stable/$n" 128 "$out" '$6 > cm * 60' \
			'{ if ($6 > m) m = $6; t += $6; if ($6 > c * 60) { k++; o = o " " $1 ":" $2 } }
			END { printf "at most %.2f changes/s, mean %.2f; over %d/s in %d of %d runs:%s", m / 60, t / NR / 60, c, k, NR, o }'
	fi
	judge "eval_law_leave/$n" 64 "$(for s in 0 1 2 3; do pairs16 "$p" $s 13 16 11:13; done)" \
		'$7 < 0 || $7 > r * 12 || ($9 == 0 && ($8 < 0 || $8 > 3000))' \
		'{ if ($7 > r) r = $7; if ($9 == 0 && $8 > c) c = $8 } END { printf "released within %d ms, cold within %d ms", r, c }'
	[ "$law" = default ] || return 0
	# the module's coarse quota (slices and a tick's accounting lag, so a
	# small quota runs in bursts): item 1 per pair on the mean (law_pairs.py,
	# seeds 1-5), and every run of the 16 pairs x seeds 1-5 at most
	# STABLE_MAX_PS changes/s over 20 s (after 22 s)
	k=$(for s in 1 2 3 4 5; do TGSIM_PLANT="--quota-slices 8 --park-lag 4" pairs16 "$p" $s 0 43 23:43; done |
		awk -v cm=$STABLE_MAX_PS 'NF == 11 { n++; if ($6 > m) m = $6; if ($6 > cm * 20) bad = bad " " $1 ":" $2 ":" $6 }
			END { if (n != 80) bad = bad " " n " runs of 80"; if (bad) print "FAIL" bad; else printf "at most %.2f changes/s", m / 20 }')
	if out=$(/usr/bin/python3 eval/law_pairs.py "$b/tgsim" "$p" --seeds 1-5 --jobs 1 --plant "--quota-slices 8 --park-lag 4" --assert 2>&1) &&
		[ "${k#FAIL}" = "$k" ]; then
		echo "PASS eval_law_burst/$n ($(echo "$out" | grep '^item 1 per pair'); $k)"
	else
		echo "FAIL eval_law_burst/$n: $k; $(echo "$out" | grep -v '| yes | ' | paste -sd ';' | cut -c1-600)"
	fi
	if out=$(/usr/bin/python3 eval/law_pairs.py "$b/tgsim" "$p" --seeds 1-20 --assert 2>&1); then
		echo "PASS eval_law_pairs/$n ($(echo "$out" | tail -1))"
	else
		echo "FAIL eval_law_pairs/$n: $(echo "$out" | grep -v '| yes | ' | paste -sd ';' | cut -c1-600)"
	fi
}
# the randomized plant under the window law (soft misses counted)
plant_law0() {
	local out soft hard other
	if ! gcc -O1 -g -Wall -Wextra -Werror -Icore -o "$b/test_plant_law0" tests/unit/test_plant.c \
		"$b/libtgcore.a" -lcmocka -lm 2>/dev/null; then
		echo "FAIL plant/law0: test_plant did not build"
		return
	fi
	out=$(TG_PLANT_LAW=0 TG_PLANT_SOFT=1 "$b/test_plant_law0" 2>&1)
	soft=$(echo "$out" | grep -c '^SOFT')
	hard=$(echo "$out" | grep -c '^FAILED at')
	other=$(echo "$out" | sed -n 's/^\[  FAILED  \] \(test_[a-z_0-9]*\)$/\1/p' | grep -vx test_randomized_plant | sort -u | paste -sd ' ')
	if [ "$hard" = 0 ] && [ -z "$other" ] && [ "$soft" -le $PLANT0_SOFT ]; then
		echo "PASS plant/law0 ($soft soft misses: $(echo "$out" | sed -n 's/^SOFT seed \([0-9]*\).*): \(.\{0,60\}\).*/\1 \2/p' | paste -sd ';'))"
	else
		echo "FAIL plant/law0: $hard hard failures, tests $other, $soft soft misses (at most $PLANT0_SOFT): $(echo "$out" | grep -E '^(SOFT|FAILED at)' | head -5 | paste -sd ';')"
	fi
}
# item 1 per pair on the CXL profiles (the default law), seeds 1-10: each
# pair's worst victim there is -0.67 points of the oracle's (bound -1), its
# worst share 1.00 (27 Nov)
cxl_pairs() {
	local p n out
	for n in cxl-spr cxl-miku; do
		p=eval/profiles/$n.prof
		if out=$(/usr/bin/python3 eval/law_pairs.py "$b/tgsim" "$p" --seeds 1-10 --jobs 1 --assert 2>&1); then
			echo "PASS eval_law_pairs/$n ($(echo "$out" | grep '^item 1 per pair'))"
		else
			echo "FAIL eval_law_pairs/$n: $(echo "$out" | grep -v '| yes | ' | paste -sd ';' | cut -c1-600)"
		fi
	done
}
# three single-threaded chains side by side (law_pairs.py in the default
# law's runs 2 tgsim at once): the window law's checks and its plant, the
# CXL profiles' pairs, the default law's checks; about 70 s on 2 cores. A
# chain that dies (a signal, the OOM killer) is a failure, not lines missing.
law0=$(mktemp) cxl=$(mktemp)
trap 'rm -f "$law0" "$cxl"' EXIT
(law_checks 0; plant_law0) > "$law0" 2>&1 &
law0_pid=$!
cxl_pairs > "$cxl" 2>&1 &
cxl_pid=$!
(law_checks default) || echo "FAIL eval_chain/default: exited $?"
wait "$law0_pid" || echo "FAIL eval_chain/law0: exited $?" >> "$law0"
wait "$cxl_pid" || echo "FAIL eval_chain/cxl: exited $?" >> "$cxl"
cat "$law0" "$cxl"
# eval_report_frontier, eval_report_reaction: report.py's Pareto frontier and
# equal-protection interpolation (ties in worst-case protection), and its
# reaction per run, on hand-worked cases
/usr/bin/python3 tests/unit/test_report.py
# eval_law_pairs_reference: law_pairs.py's verdicts, and its reference where
# the victim never goes over its threshold, against a fake tgsim
/usr/bin/python3 tests/unit/test_law_pairs.py
# the last line: tests/check.sh counts a run without it as a failure (killed)
echo "END check-host"
