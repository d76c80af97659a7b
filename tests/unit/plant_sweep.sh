#!/bin/bash
# tests/unit/plant_sweep.sh - the randomized plant test over many seed bases
# (docs/control-law.md, "Verification"): TG_PLANT_N scenarios from each base,
# two bases at a time, niced. Prints each base's summary line and every
# failure's scenario; exit status 0 when every base passed.
#
#   tests/unit/plant_sweep.sh                 the 17 documented bases x 2000
#   TG_PLANT_N=500 tests/unit/plant_sweep.sh 1 2 3
set -uo pipefail
cd "$(dirname "$0")/../.."
bases=("$@")
[ ${#bases[@]} -gt 0 ] || bases=(1 31000 100000 905000 931000 933000 947000 2000000 3141592
	4242424 5000000 6000000 7777000 8888888 20240611 123456789 987654321)
export TG_PLANT_N=${TG_PLANT_N:-2000}
out=build/plant_sweep
make --no-print-directory -s user >/dev/null || exit 1
mkdir -p "$out"
gcc -O1 -g -Wall -Wextra -Werror -Icore -o "$out/test_plant" tests/unit/test_plant.c \
	build/libtgcore.a -lcmocka || exit 1
start=$(date +%s)
printf '%s\n' "${bases[@]}" | xargs -P 2 -I{} sh -c \
	'TG_PLANT_SEED={} nice -n 10 "$0/test_plant" >"$0/base_{}.log" 2>&1; echo "base {}: exit $?"' "$out"
fail=0
for b in "${bases[@]}"; do
	grep -a '^randomized plant' "$out/base_$b.log" || { echo "base $b: no summary"; fail=1; }
	if grep -aq 'FAILED' "$out/base_$b.log"; then
		fail=1
		grep -a -B2 -A30 '^scenario seed=' "$out/base_$b.log"
	fi
done
echo "${#bases[@]} bases x $TG_PLANT_N scenarios in $(($(date +%s) - start)) s: $([ $fail = 0 ] && echo 'no failure' || echo FAILURES)"
exit $fail
