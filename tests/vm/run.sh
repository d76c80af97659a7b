#!/bin/bash
# Boot the Debian cloud kernel in QEMU with an initramfs and run in-guest
# suites. Prints the guest console to $TG_VM_LOG (default build/vm/console.log)
# and a summary; exits non-zero on any failed test, a guest panic/oops/WARNING,
# a missing suite result, or a timeout.
#
# usage: run.sh KVER INITRAMFS SUITE[,SUITE...]
#   TG_ACCEL=tcg|kvm|auto (default auto: KVM only if a probe boot finishes)
#   TG_GUEST_LOCK=file: one guest at a time across checkouts (flock)
#   TG_VM_TIMEOUT seconds (default 600)
#   TG_GUEST_ARGS more kernel command line, e.g. "tg.throttle=name tg.churn_s=300"
#     (suites read their tg.* options from /proc/cmdline)
#   TG_KERNEL=path: boot this image instead of /boot/vmlinuz-KVER (the debug
#     kernel of make check's dbg lane; KVER then only names it)
#   TG_PANIC_ON_WARN=0: a WARN does not end the run (the host still fails it)
#   TG_VM_APPEND: more kernel command line
#   TG_VM_DISK=path: a raw disk image the guest gets as a read-only virtio
#     disk (/dev/vda; the k8s suite's runtimes, tests/e2e/runtimes.sh)
#   TG_VM_STALL_S: seconds of console silence after which the guest is taken
#     for stalled (default 200 + tg.churn_s, 0 = never; the longest regular
#     test is silent for at most 120+5 s): QEMU's view of each vCPU (monitor), sysrq 9
#     (console loglevel), w, l, t through the emulated keyboard, then an NMI
#     (unknown_nmi_panic) for CPUs that no longer take interrupts; then the
#     run ends and fails. A QEMU that no longer answers its monitor is booted
#     again, once. Needs python3 to reach the monitor.
#   TG_VM_INT3_S: seconds of silence after which the stall watch (TCG only,
#     and only while TG_VM_STALL_S is not 0) looks for a vCPU at the kernel's
#     int3 entry with interrupts off, about every 8 s (default 30): two looks
#     in a row that find one end the run early, and it is booted again, once
#     (the TCG int3 livelock, docs/testing.md "A guest hang").
#   TG_TCG_THREAD=multi|single: QEMU's TCG threading (default multi; the k8s
#     suite boots with single: docs/testing.md "A guest hang").
set -uo pipefail
# TG_GUEST_LOCK=file: wait for this lock before booting, so that several
# checkouts on one machine (worktrees, a fresh clone) never run two guests at
# once: TCG on 2 host cores makes the guests' timing tests meaningless.
if [ -n "${TG_GUEST_LOCK:-}" ] && [ -z "${TG_GUEST_LOCK_HELD:-}" ]; then
	echo "vm: waiting for the guest lock $TG_GUEST_LOCK" >&2
	exec env TG_GUEST_LOCK_HELD=1 flock "$TG_GUEST_LOCK" "$0" "$@"
fi
kver=$1 initrd=$2 suites=$3
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath -m "${TG_BUILD:-$here/../../build}/vm")
mkdir -p "$build"
log=${TG_VM_LOG:-$build/console.log}
# a retried boot's evidence, per guest (make check boots two at once):
# build/vm/qemu-hung.*, int3-livelock.*, int3-artifact.* beside the default
# console, CONSOLE.qemu-hung.* etc. (CONSOLE without .log) beside another
if [ "$(realpath -m "$log")" = "$build/console.log" ]; then diag=$build/; else diag=${log%.log}.; fi
kernel=${TG_KERNEL:-/boot/vmlinuz-$kver}
[ -r "$kernel" ] || { echo "vm: no kernel image $kernel"; echo "vm: 0 passed, 1 failed"; exit 1; }
timeout_s=${TG_VM_TIMEOUT:-600}

# Guest shape: 2 vCPUs; NUMA node 0 with the CPUs, node 1 CPU-less (how CXL
# memory appears); 256 MiB of emulated pmem (memmap=) at 1 GiB for DAX.
qemu_args=(-nographic -no-reboot -smp 2 -m 1280M
	-object memory-backend-ram,id=m0,size=768M
	-object memory-backend-ram,id=m1,size=512M
	-numa node,nodeid=0,cpus=0-1,memdev=m0
	-numa node,nodeid=1,memdev=m1
	-kernel "$kernel" -initrd "$initrd")
if [ -n "${TG_VM_DISK:-}" ]; then
	[ -r "$TG_VM_DISK" ] || { echo "vm: no disk image $TG_VM_DISK"; echo "vm: 0 passed, 1 failed"; exit 1; }
	qemu_args+=(-drive "file=$TG_VM_DISK,format=raw,if=virtio,readonly=on")
fi
cmdline="console=ttyS0 loglevel=${TG_LOGLEVEL:-4} sysrq_always_enabled unknown_nmi_panic=1 panic_print=0x41 oops=panic panic=-1 panic_on_warn=${TG_PANIC_ON_WARN:-1} memmap=256M!768M tsc=reliable${TG_GUEST_ARGS:+ $TG_GUEST_ARGS}${TG_VM_APPEND:+ $TG_VM_APPEND}"

accel=${TG_ACCEL:-auto}
if [ "$accel" = auto ]; then
	# /dev/kvm may exist while a guest on it hangs: probe once with a short
	# boot that must reach init, and remember the answer.
	cache=$build/accel
	# one probe at a time: make check boots two guests at once
	exec 6>>"$cache.lock"
	flock 6
	if [ -s "$cache" ]; then
		accel=$(cat "$cache")
	elif [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		if timeout -s KILL 25 qemu-system-x86_64 -accel kvm -cpu host "${qemu_args[@]}" \
			-append "$cmdline tg.suites=" 2>/dev/null | grep -q TGTEST-DONE; then
			accel=kvm
		else
			accel=tcg
		fi
		echo "$accel" > "$cache"
	else
		accel=tcg
	fi
	flock -u 6
	exec 6>&-
fi
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu host)
else
	case ${TG_TCG_THREAD:-multi} in
	multi|single) ;;
	*) echo "vm: TG_TCG_THREAD is multi or single, not '$TG_TCG_THREAD'"; echo "vm: 0 passed, 1 failed"; exit 1 ;;
	esac
	accel_args=(-accel "tcg,thread=${TG_TCG_THREAD:-multi}" -cpu max)
fi
# Boot; a guest that has not reached init within TG_VM_BOOT_TIMEOUT (TCG
# has been seen to stall in early boot, rarely) is killed and booted again,
# once.
boot_timeout=${TG_VM_BOOT_TIMEOUT:-90}
# the throttle suite's churn test is silent for tg.churn_s seconds
churn_s=$(echo " ${TG_GUEST_ARGS:-} " | sed -n 's/.* tg\.churn_s=\([0-9]*\) .*/\1/p')
stall_s=${TG_VM_STALL_S:-$((200 + ${churn_s:-0}))}
# after this much silence the stall watch looks for the int3 livelock
int3_s=${TG_VM_INT3_S:-30}
mon=$build/monitor.$$.sock
# monitor, stall_watch, qemu_hung, int3_livelock, tcg_int3_artifact
# (tests/vm/int3-test.sh runs them)
. "$here/stall.sh"
for run in 1 2; do
	for attempt in 1 2; do
		unset rc
		echo "vm: booting $kver ($accel) suites=$suites$([ $attempt = 2 ] && echo " (second try)")"
		rm -f "$mon" "$log.stall.txt"
		timeout -s KILL "$timeout_s" qemu-system-x86_64 "${accel_args[@]}" "${qemu_args[@]}" \
			-monitor "unix:$mon,server,nowait" \
			-append "$cmdline tg.suites=$suites" > "$log" 2>&1 &
		qpid=$!
		stall_watch $qpid &
		wpid=$!
		waited=0
		while kill -0 $qpid 2>/dev/null && ! grep -qs 'TGTEST-' "$log" && [ $waited -lt "$boot_timeout" ]; do
			sleep 1; waited=$((waited + 1))
		done
		if kill -0 $qpid 2>/dev/null && ! grep -qs 'TGTEST-' "$log"; then
			echo "vm: guest did not reach init in ${boot_timeout}s (attempt $attempt)"
			pkill -KILL -P $qpid 2>/dev/null; kill -KILL $qpid 2>/dev/null; wait $qpid 2>/dev/null
			continue
		fi
		wait $qpid
		rc=$?
		kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
		break
	done
	kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
	rm -f "$mon"
	noboot=0
	[ -n "${rc:-}" ] || { noboot=1; rc=137; }
	tr -d '\r' < "$log" > "$log.txt"
	if [ $run = 1 ] && qemu_hung; then
		cp "$log.txt" "${diag}qemu-hung.log.txt"
		cp "$log.stall.txt" "${diag}qemu-hung.stall.txt"
		echo "vm: QEMU stopped answering its own monitor with the guest silent (see ${diag}qemu-hung.*): booting again"
		continue
	fi
	# neither when the kernel reported a bug first: a second boot would
	# replace the console, and the debug lane reads only the last one
	if [ $run = 1 ] && tcg_livelock && ! kernel_bug_first "$log.txt"; then
		cp "$log.txt" "${diag}int3-livelock.log.txt"
		cp "$log.stall.txt" "${diag}int3-livelock.stall.txt"
		echo "vm: TCG livelock ($(livelock_what); see ${diag}int3-livelock.*): booting again"
		continue
	fi
	if [ $run = 1 ] && tcg_int3_artifact "$log.txt" && ! kernel_bug_first "$log.txt" "$int3_heading"; then
		cp "$log.txt" "${diag}int3-artifact.log.txt"
		echo "vm: TCG int3 artifact (stale translation of patched kernel text, see ${diag}int3-artifact.log.txt): booting again"
		continue
	fi
	break
done
pass=$(grep -c '^TGTEST: PASS ' "$log.txt")
fail=$(grep -c '^TGTEST: FAIL ' "$log.txt")
grep -E '^TGTEST: FAIL ' "$log.txt" | sed 's/^TGTEST: /  /'
grep -E '^TGTEST-INFO: suite .* took ' "$log.txt" | sed 's/^TGTEST-INFO: /  /' | tr '\n' ';' | sed 's/;$/\n/; s/;  /;/g'
if [ $noboot = 1 ]; then
	echo "  FAIL vm: the guest did not boot (twice)"; fail=$((fail + 1))
elif tcg_livelock; then
	echo "  FAIL vm: the TCG livelock (or a kernel spin) on the last boot or after a kernel bug report ($(livelock_what)), not booted again; QEMU's view: $log.stall.txt"
	echo "  vm: where the vCPUs were: $(stall_rips "$log.stall.txt")"
	fail=$((fail + 1))
elif [ -s "$log.stall.txt" ]; then
	echo "  FAIL vm: console silent for ${stall_s}s or more, run ended; QEMU's view of the guest: $log.stall.txt, the guest's (sysrq w/l/t) in $log.txt"
	echo "  vm: where the vCPUs were: $(stall_rips "$log.stall.txt")"
	fail=$((fail + 1))
elif [ $rc -eq 137 ]; then
	echo "  FAIL vm: timeout after ${timeout_s}s"; fail=$((fail + 1))
fi
if grep -qE 'Kernel panic|BUG:|WARNING:|Oops|general protection|Call Trace:|UBSAN|KASAN' "$log.txt"; then
	echo "  FAIL vm: kernel reported a problem:"
	grep -m5 -E 'Kernel panic|BUG:|WARNING:|Oops|general protection|UBSAN|KASAN' "$log.txt" | sed 's/^/    /'
	fail=$((fail + 1))
fi
if ! grep -q '^TGTEST-DONE' "$log.txt"; then
	echo "  FAIL vm: guest did not finish its suites (see $log.txt)"; fail=$((fail + 1))
fi
for s in ${suites//,/ }; do
	s=${s%%:*}	# "suite:test1+test2" runs as suite
	grep -q "^TGTEST-SUITE: $s\$" "$log.txt" || { echo "  FAIL vm: suite $s never ran"; fail=$((fail + 1)); }
done
echo "vm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
