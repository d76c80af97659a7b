#!/bin/bash
# eval/check-host.sh - make check's host checks of eval/ (docs/eval.md):
#   eval_model/PROFILE  tgeval model exits 0 on every profile: the solver's
#                       residual <= 1e-6 everywhere it is used, the writers
#                       sweep monotone where the profile has no per-thread
#                       penalty;
#   eval_oracle/PAIR    in tgsim without CPU noise (every load at calib_cpu),
#                       the oracle controller holds the victim at its
#                       threshold: the threshold is where a solo task at
#                       calib_cpu has lost threshold_drop (4 %), so the victim
#                       is at 96 % of solo, within ORACLE_TOL points; no
#                       control leaves it under 80 %.
# Prints PASS/FAIL lines as tests/check.sh counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
ORACLE_TOL=1.5
b=$(pwd)/build
make --no-print-directory -s "$b/tgeval-host" "$b/tgsim" >/dev/null || { echo "FAIL eval_host_build"; exit 1; }
for p in eval/profiles/*.prof; do
	n=$(basename "$p" .prof)
	if err=$("$b/tgeval-host" model "$p" 2>&1 >/dev/null); then echo "PASS eval_model/$n"; else echo "FAIL eval_model/$n: $err"; fi
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
