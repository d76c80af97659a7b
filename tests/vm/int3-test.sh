#!/bin/bash
# The guest runner's stall watch (tests/vm/stall.sh) on the host, against a
# real hang's "info registers -a" (testdata/int3-livelock-regs.txt): the
# register reading, then the whole watch with a fake QEMU and monitor - a
# silent console with a vCPU at the int3 entry ends the run early as the
# TCG int3 livelock; a silent console without one does not; and the line a
# failed run prints of where the vCPUs were; the int3 artifact's verdict
# on a real oops (testdata/int3-oops-6.1.txt).
set -u
here=$(cd "$(dirname "$0")" && pwd)
regs=$here/testdata/int3-livelock-regs.txt
rc=0
pass() { echo "PASS $1"; }
failt() { echo "FAIL $1: $2"; rc=1; }

# t NAME ADDR EXPECTED [SED]: the vCPUs found at ADDR (registers edited by SED)
t() {
	local got
	got=$(sed -e "${4:-}" "$regs" | awk -v a="$2" -f "$here/int3-vcpus.awk")
	if [ "$got" = "$3" ]; then pass "$1"; else failt "$1" "vCPUs at $2: '$got', expected '$3'"; fi
}
t int3_vcpus_finds_vcpu0 ffffffffa8600ba0 "0 "
t int3_vcpus_finds_vcpu1 ffffffffa7ae0be0 "1 "
t int3_vcpus_exact_address ffffffffa8600ba1 ""
t int3_vcpus_other_slide ffffffff9da00ba0 ""
t int3_vcpus_not_with_interrupts_on ffffffffa8600ba0 "" 's/RFL=00000002/RFL=00000202/'
t int3_vcpus_not_halted ffffffffa8600ba0 "" 's/HLT=0$/HLT=1/'

# The watch itself: QEMU is a sleeping child of a subshell (the watch kills
# the children of the pid it is given), the monitor a function answering
# from the saved registers, the console a file that stops growing.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
accel=tcg mon=$tmp/mon stall_s=60 int3_s=2
look_s=1 sysrq_wait_s=0 nmi_wait_s=0
. "$here/stall.sh"
monitor() {
	local c
	for c in "$@"; do
		echo "$c" >> "$tmp/asked"
		case $c in
		"info cpus") echo "* CPU #0: thread_id=1"; echo "  CPU #1: thread_id=2" ;;
		"info registers -a") sed -e "$regs_sed" "$regs" ;;
		esac
	done
}
# w ADDR SED LIFE: watch the silent console $log whose guest printed ADDR as the
# int3 entry, with the registers edited by SED; s: how long the watch ran
w() {
	regs_sed=$2
	printf '\033c\033[?7lTGTEST-INFO: ksym asm_exc_int3 %s\r\nTGTEST-SUITE: x\r\n' "$1" > "$log"
	: > "$tmp/asked"
	( sleep "$3"; : ) & local q=$!
	local t0=$SECONDS
	stall_watch $q 2>> "$tmp/watch.err"
	wait $q 2>/dev/null
	s=$((SECONDS - t0))
}
log=$tmp/livelock.log
w ffffffffa8600ba0 "" 30
if int3_livelock && [ "$s" -lt 15 ] && grep -q '^info registers -a$' "$tmp/asked" && grep -q 'sysrq-t' "$tmp/asked"; then
	pass stall_watch_ends_int3_livelock
else
	failt stall_watch_ends_int3_livelock "after ${s}s: $(head -c 300 "$log.stall.txt" 2>/dev/null)"
fi
log=$tmp/nolivelock.log
w ffffffffa8600ba0 's/RIP=ffffffffa8600ba0/RIP=ffffffffa8600ba4/' 10
if [ ! -s "$log.stall.txt" ] && [ "$s" -ge 9 ] && [ "$(grep -c '^info registers -a$' "$tmp/asked")" -ge 3 ]; then
	pass stall_watch_no_livelock_elsewhere
else
	failt stall_watch_no_livelock_elsewhere "after ${s}s: $(head -c 300 "$log.stall.txt" 2>/dev/null)"
fi
# A wedged guest that keeps printing RCU stall reports (testdata: two of
# the 27 Nov debug-kernel hang, the stalled CPU at handle_mm_fault+0x14a in
# both): the reports are no progress, and two in a row at one instruction
# end the run as a TCG livelock; at two instructions they do not.
rcu=$here/testdata/rcu-stall-reports.txt
log=$tmp/progress.log
{ printf 'TGTEST-SUITE: x\r\nTGTEST-INFO: one\r\n'; cat "$rcu"; printf 'TGTEST: PASS y\r\n'; } > "$log"
if [ "$(progress)" = 3 ] && [ "$(rcu_reports)" = 2 ] && [ "$(stuck_rip)" = "handle_mm_fault+0x14a/0x380" ]; then
	pass progress_ignores_rcu_stall_reports
else
	failt progress_ignores_rcu_stall_reports "progress $(progress), reports $(rcu_reports), stuck at '$(stuck_rip)'"
fi
# the same with the cloud kernels' timestamps on the kernel's lines
{ printf 'TGTEST-SUITE: x\r\nTGTEST-INFO: one\r\n'; sed 's/^/[  278.313103] /' "$rcu"; printf 'TGTEST: PASS y\r\n'; } > "$log"
if [ "$(progress)" = 3 ] && [ "$(rcu_reports)" = 2 ] && [ "$(stuck_rip)" = "handle_mm_fault+0x14a/0x380" ]; then
	pass progress_ignores_timestamped_stall_reports
else
	failt progress_ignores_timestamped_stall_reports "progress $(progress), reports $(rcu_reports), stuck at '$(stuck_rip)'"
fi
# not a patched site: a module's instruction, or a pause (a spin of its own)
sed 's|^RIP: 0010:handle_mm_fault+0x14a/0x380|RIP: 0010:tg_park_wait+0x33/0x90 [tgroup]|' "$rcu" > "$log"
got_mod=$(stuck_rip)
sed 's|<e9> 49 01 00 00|<f3> 90 01 00 00|' "$rcu" > "$log"
got_pause=$(stuck_rip)
if [ -z "$got_mod" ] && [ -z "$got_pause" ]; then pass stuck_rip_only_kernel_patch_sites
else failt stuck_rip_only_kernel_patch_sites "module: '$got_mod', pause: '$got_pause'"; fi
# r SED LIFE: the watch over a console that gets the two reports (the second
# edited by SED) 2.5 and 4.5 s into it and nothing else; s: how long it ran
r() {
	printf '\033c\033[?7lTGTEST-INFO: ksym asm_exc_int3 ffffffff00000ba0\r\nTGTEST-SUITE: x\r\n' > "$log"
	: > "$tmp/asked"
	rm -f "$log.stall.txt"
	( sleep 2.5; sed -n '1,62p' "$rcu" >> "$log"; sleep 2; sed -n '63,$p' "$rcu" | sed -e "$1" >> "$log" ) &
	local feed=$!
	( sleep "$2"; : ) & local q=$!
	local t0=$SECONDS
	stall_watch $q 2>> "$tmp/watch.err"
	wait $q $feed 2>/dev/null
	s=$((SECONDS - t0))
}
log=$tmp/stuck.log
r "" 30
if stuck_vcpu && ! int3_livelock && [ "$s" -lt 20 ] && grep -q 'at handle_mm_fault+0x14a/0x380' "$log.stall.txt" &&
	grep -q '^info registers -a$' "$tmp/asked"; then
	pass stall_watch_ends_stuck_vcpu
else
	failt stall_watch_ends_stuck_vcpu "after ${s}s: $(head -c 300 "$log.stall.txt" 2>/dev/null)"
fi
log=$tmp/moving.log
r 's/^RIP: 0010:handle_mm_fault+0x14a/RIP: 0010:handle_mm_fault+0x150/' 12
if [ ! -s "$log.stall.txt" ] && [ "$s" -ge 11 ]; then
	pass stall_watch_rcu_reports_moving_not_stuck
else
	failt stall_watch_rcu_reports_moving_not_stuck "after ${s}s: $(head -c 300 "$log.stall.txt" 2>/dev/null)"
fi

# the one line a failed run prints of a stall dump (CI keeps output, not files)
log=$tmp/rips.log
printf 'x\033[2JTGTEST-INFO: ksym asm_exc_int3 ffffffffa8600ba0\r\n' > "$log"
got=$(stall_rips "$regs")
want="CPU#0 ffffffffa8600ba0 RFL=00000002 HLT=0; CPU#1 ffffffffa7ae0be0 RFL=00000002 HLT=0 (int3 entry ffffffffa8600ba0)"
if [ "$got" = "$want" ]; then pass stall_rips_one_line; else failt stall_rips_one_line "'$got'"; fi
# The int3 artifact (tcg_int3_artifact): the 6.1 cloud guest's oops of 27 Nov
# (testdata/int3-oops-6.1.txt: an int3 at __schedule+0x281, "cc <1f> 44 00
# 00", the patch of a static branch half-way), its 6.12 heading, and a trap
# whose int3 is gone since; not a real int3 (before an ordinary instruction
# or in padding), one in a module, another oops, or a KVM guest.
oops=$here/testdata/int3-oops-6.1.txt
# a NAME WANT SED [ACCEL]: the verdict on the oops edited by SED
a() {
	local got=no
	sed -e "$3" "$oops" > "$tmp/oops.txt"
	accel=${4:-tcg} tcg_int3_artifact "$tmp/oops.txt" && got=yes
	if [ "$got" = "$2" ]; then pass "$1"; else failt "$1" "taken for the artifact: $got, expected $2"; fi
}
a int3_artifact_6_1_patch_half_way yes ""
a int3_artifact_6_12_heading yes 's/^\(\[ *[0-9.]*\] \)int3: /\1Oops: int3: /'
a int3_artifact_int3_gone yes 's/ cc <1f> 44 00 00 / 0f <1f> 44 00 00 /'
a int3_artifact_int3_gone_jump yes 's/ cc <1f> 44 00 00 / e9 <dd> 01 00 00 /'
a int3_artifact_not_gone_elsewhere no 's/ cc <1f> 44 00 00 / 48 <89> e5 00 00 /'
a int3_artifact_not_a_real_int3 no 's/ cc <1f> 44 00 00 / cc <48> 89 e5 00 /'
a int3_artifact_not_in_padding no 's/ cc <1f> 44 00 00 / cc <cc> 44 00 00 /'
a int3_artifact_not_in_a_module no 's|RIP: 0010:__schedule+0x281/0xa00|RIP: 0010:tg_park+0x1/0x90 [tgroup]|'
a int3_artifact_not_another_oops no 's/\] int3: 0000/] general protection fault: 0000/'
a int3_artifact_not_under_kvm no "" kvm
# not booted again after a kernel bug report before the oops (the debug
# lane's reports would go with the first console); one after it is the
# oops's own consequence
{ echo "[   70.1] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2"; cat "$oops"; } > "$tmp/oops.txt"
b1=no; kernel_bug_first "$tmp/oops.txt" "$int3_heading" && b1=yes
{ cat "$oops"; echo "[   73.1] WARNING: CPU: 1 PID: 9 at kernel/sched/core.c:1 f+0x1/0x2"; } > "$tmp/oops.txt"
b2=no; kernel_bug_first "$tmp/oops.txt" "$int3_heading" && b2=yes
if [ $b1 = yes ] && [ $b2 = no ]; then pass int3_artifact_not_after_a_bug_report
else failt int3_artifact_not_after_a_bug_report "a WARN before the oops: $b1 (want yes), after it: $b2 (want no)"; fi
exit $rc
