#!/bin/bash
# Run eval/ plans in the QEMU guest and collect their CSV files.
#
# usage: eval/run.sh PLAN[,PLAN...] PROFILE OUTDIR
#   PLAN: demo quick full matrix timeline alloc writers overhead cpuloss (eval/guest.sh)
#   PROFILE: eval/profiles/PROFILE.prof
# Needs the initramfs (make initramfs); prints the guest's TGEVAL-LIVE lines
# as they come (TG_EVAL_LIVE=1) and writes OUTDIR/*.csv from the guest's
# "TGEVAL-CSV file,row" lines. Exits non-zero if the guest run failed.
set -uo pipefail
plan=$1 profile=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${KVER:-$(cd "$top" && tests/vm/kver.sh)} || { echo "eval: no guest kernel (make deps)"; exit 1; }
initramfs=${INITRAMFS:-$top/build/k/$kver/initramfs.cpio.gz}
[ -s "$initramfs" ] || { echo "eval: no $initramfs (make initramfs)"; exit 1; }
[ -r "$top/eval/profiles/$profile.prof" ] || { echo "eval: no profile eval/profiles/$profile.prof"; exit 1; }
mkdir -p "$out" "$top/build/vm"
log=$top/build/vm/eval-${plan//,/_}-$profile.log
export TG_VM_LOG=$log
export TG_GUEST_ARGS="tg.eval=$plan tg.profile=$profile${TG_GUEST_ARGS:+ $TG_GUEST_ARGS}"
export TG_VM_TIMEOUT=${TG_VM_TIMEOUT:-1800}
rm -f "$log" "$log.txt"
"$top/tests/vm/run.sh" "$kver" "$initramfs" eval > "$top/build/vm/eval.out" &
pid=$!
if [ "${TG_EVAL_LIVE:-0}" = 1 ]; then
	# the guest's lines as they come (the console log is written by QEMU)
	while [ ! -e "$log" ] && kill -0 $pid 2>/dev/null; do sleep 0.2; done
	tail -n +1 -F --pid=$pid "$log" 2>/dev/null | tr -d '\r' | grep --line-buffered -E '^(  |==|TGEVAL-ERROR|TGTEST: FAIL|tgeval:)' &
	tailpid=$!
fi
wait $pid
rc=$?
[ -n "${tailpid:-}" ] && { sleep 0.3; kill $tailpid 2>/dev/null; wait $tailpid 2>/dev/null; }
# split TGEVAL-CSV lines into files: "TGEVAL-CSV name,row"; "#" starts a
# header, written once per file
rm -f "$out"/.seen
tr -d '\r' < "$log" | sed -n 's/^TGEVAL-CSV //p' | awk -v dir="$out" '
	{ i = index($0, ","); f = substr($0, 1, i - 1); row = substr($0, i + 1)
	  path = dir "/" f
	  if (!(f in opened)) { opened[f] = 1; printf "" > path }
	  if (substr(row, 1, 1) == "#") { if (!(f in hdr)) { hdr[f] = 1; print substr(row, 2) >> path } }
	  else print row >> path }'
if [ $rc != 0 ]; then
	cat "$top/build/vm/eval.out"
	echo "eval: the guest run failed (console: $log.txt)"
fi
exit $rc
