# Sourced by tests/vm/run.sh (and tests/vm/int3-test.sh): watching a guest's
# console for silence, and asking QEMU's monitor where its vCPUs are.
# Uses: log (QEMU's console file), mon (its monitor socket), accel, here,
# stall_s, int3_s; look_s, sysrq_wait_s, nmi_wait_s (the waits, shortened
# by the test).
look_s=${look_s:-5} sysrq_wait_s=${sysrq_wait_s:-20} nmi_wait_s=${nmi_wait_s:-30}
# monitor CMD...: send each command to QEMU's human monitor, log its answers
monitor() {
	command -v python3 >/dev/null || { echo "vm: no python3 to reach the QEMU monitor"; return; }
	python3 - "$mon" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
def drain():
    out = b""
    try:
        while True:
            time.sleep(0.3)
            b = s.recv(65536)
            if not b:
                break
            out += b
            if out.rstrip().endswith(b"(qemu)"):
                break
    except socket.timeout:
        pass
    return out.decode(errors="replace")
drain()
for c in sys.argv[2:]:
    s.sendall(c.encode() + b"\n")
    print(drain())
    time.sleep(2)
PY
}
# stall_watch PID: while the guest runs, notice a silent console and ask
# (once) for everything that says where it is stuck, then end the run: a
# guest silent that long is not coming back. If QEMU itself does not answer
# its monitor, the guest is not the one stuck (no guest state can block the
# monitor under multi-threaded TCG): that is marked, and the run is booted
# again once, as for the int3 artifact below.
# int3_entry: the int3 entry's address the guest printed (after the
# console's escape sequences, maybe); nothing if it did not
int3_entry() {
	tr -d '\r' < "$log" 2>/dev/null | sed -n 's/.*TGTEST-INFO: ksym asm_exc_int3 \([0-9a-f]*\)$/\1/p' | head -n1
}
# int3_vcpus: the vCPUs QEMU now shows at the first byte of the kernel's int3
# entry (int3_entry; nothing if the guest did not print it).
int3_vcpus() {
	local a
	a=$(int3_entry)
	[ -n "$a" ] || return 0
	monitor "info registers -a" 2>/dev/null | tr -d '\r' | awk -v a="$a" -f "$here/int3-vcpus.awk"
}
# console: the console so far, one line per line, without the kernel's
# timestamps (the cloud kernels print them, the debug kernel does not)
console() { tr -d '\r' < "$log" 2>/dev/null | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //'; }
# progress: how much the guest has printed that is not a kernel stall
# report (RCU stalls, soft lockups, hung tasks, NMI backtraces: their
# headers, registers, stack frames). A wedged guest keeps printing RCU stall
# reports about every minute; they are no sign of progress, and counted as
# such they kept one debug-kernel guest's console "active" for the whole
# 2400 s timeout (27 Nov, make check).
progress() {
	console | grep -a -c -v -E \
		'^(rcu: |[[:space:]]|Call Trace:|task:|CPU: [0-9]+ (UID: [0-9]+ )?PID:|Hardware name:|Modules linked in:|RIP: |Code: |RSP: |RAX: |RDX: |RBP: |R1[03]: |FS: |CS: |CR2: |DR[0-7]: |PKRU: |Sending NMI |NMI backtrace |watchdog: |INFO: task |irq event stamp:|hardirqs last|softirqs last|$)'
}
# stuck_rip: the kernel instruction the last two RCU stall reports both
# show their stalled CPU at (each report's first kernel-mode "RIP: 0010:"
# line: the debug kernel's console shows it; the cloud kernels' loglevel
# 4 does not), when it is a site the kernel patches at run time - the
# "Code:" line's marked byte an int3, a jump (e9, eb) or the 5- or 2-byte
# nop of a static branch - in the kernel itself, not a module; else
# nothing. RCU reports a stall after 21 s and again about every minute: a
# CPU at the very same patched instruction in two reports has not moved.
# Seen on 27 Nov at handle_mm_fault+0x14a (<e9>), the static-branch jump
# that the store-sampling test's perf software event patches (its first
# event flips perf_swevent_enabled) while the test's child faulted in a
# loop: the TCG text-patching livelock of "A guest hang" in
# docs/testing.md, not at the int3 entry this time. A spin of the module's
# own, or on a pause, is not taken for it: the run fails with its dump.
stuck_rip() {
	console | awk '
		/^rcu: INFO: .*detected stall/ { n++; got = 0 }
		n && !got && /^RIP: 0010:/ { rip[n] = $2; mod[n] = ($3 ~ /^\[/); got = 1; next }
		n && got == 1 && /^Code: / { code[n] = $0; got = 2 }
		END {
			if (n < 2 || rip[n] == "" || rip[n] != rip[n - 1] || mod[n]) exit
			if (code[n] !~ /<(cc|e9|eb)>|<0f> 1f|<66> 90/) exit
			print substr(rip[n], 6)
		}'
}
rcu_reports() { console | grep -a -c -E '^rcu: INFO: .*detected stall'; }
stall_watch() {
	local qpid=$1 last=-1 size quiet=0 since=$SECONDS cpus at3 prev3= rip rcu0=0
	[ "$stall_s" -gt 0 ] || return 0
	while kill -0 "$qpid" 2>/dev/null; do
		sleep "$look_s"
		size=$(progress)
		if [ "$size" != "$last" ]; then last=$size since=$SECONDS prev3= rcu0=$(rcu_reports); continue; fi
		quiet=$((SECONDS - since))
		# a vCPU at one kernel instruction in two RCU stall reports in a
		# row, both printed since the last progress
		rip=
		if [ "$accel" = tcg ] && [ $quiet -ge "$int3_s" ] && [ $quiet -lt "$stall_s" ] &&
			[ $(($(rcu_reports) - rcu0)) -ge 2 ]; then
			rip=$(stuck_rip)
			if [ -n "$rip" ]; then
				echo "vm: no progress for ${quiet}s, a vCPU at $rip in the last two RCU stall reports: a TCG livelock" >&2
				echo "TGSTALL: stuck vCPU: at $rip in the last two RCU stall reports (a minute apart), no other output for ${quiet}s" > "$log.stall.txt"
			fi
		fi
		# The TCG livelock (docs/testing.md, "A guest hang"): a vCPU that
		# sits on the int3 entry, interrupts off, in two looks in a row
		# (about 8 s apart: a look takes 2-3 s), the console silent.
		at3=
		if [ -z "$rip" ] && [ "$accel" = tcg ] && [ $quiet -ge "$int3_s" ] && [ $quiet -lt "$stall_s" ]; then
			at3=$(int3_vcpus)
			if [ -n "$at3" ] && [ "$at3" = "$prev3" ]; then
				echo "vm: console silent for ${quiet}s with vCPU ${at3}at the int3 entry in two looks in a row: the TCG int3 livelock" >&2
				echo "TGSTALL: int3 livelock: vCPU ${at3}at asm_exc_int3+0 with interrupts off in two looks in a row, console silent ${quiet}s" > "$log.stall.txt"
			fi
			prev3=$at3
		fi
		[ $quiet -ge "$stall_s" ] || [ -s "$log.stall.txt" ] || continue
		echo "vm: console silent for ${quiet}s: asking the guest for its state" >&2
		echo "TGSTALL: console silent for ${quiet}s" >> "$log.stall.txt"
		cpus=$(monitor "info cpus" 2>&1)
		echo "$cpus" >> "$log.stall.txt"
		if command -v python3 >/dev/null && ! grep -q 'CPU #0' <<<"$cpus"; then
			echo "TGSTALL: QEMU does not answer its monitor" >> "$log.stall.txt"
		else
			size=$(stat -c %s "$log" 2>/dev/null || echo 0)
			monitor "info registers -a" "sendkey alt-sysrq-9" "sendkey alt-sysrq-w" \
				"sendkey alt-sysrq-l" "sendkey alt-sysrq-t" >> "$log.stall.txt" 2>&1
			sleep "$sysrq_wait_s"
			if [ "$(stat -c %s "$log" 2>/dev/null || echo 0)" = "$size" ]; then
				echo "vm: sysrq printed nothing: NMI" >&2
				monitor "nmi" >> "$log.stall.txt" 2>&1
			fi
			sleep "$nmi_wait_s"
		fi
		pkill -KILL -P "$qpid" 2>/dev/null
		return 0
	done
}
qemu_hung() { grep -qs '^TGSTALL: QEMU does not answer' "$log.stall.txt"; }
int3_livelock() { grep -qs '^TGSTALL: int3 livelock' "$log.stall.txt"; }
stuck_vcpu() { grep -qs '^TGSTALL: stuck vCPU' "$log.stall.txt"; }
# either livelock, and what the watch said of it
tcg_livelock() { int3_livelock || stuck_vcpu; }
livelock_what() { sed -n 's/^TGSTALL: \(int3 livelock\|stuck vCPU\): //p' "$log.stall.txt"; }
# stall_rips FILE: each vCPU's RIP, interrupt flag and halt state from the
# first "info registers -a" in FILE (a stall dump), on one line, with the
# int3 entry the guest printed: CI keeps the run's output, not its files.
stall_rips() {
	local a
	a=$(int3_entry)
	tr -d '\r' < "$1" | awk -v a="${a:-unknown}" '
		/^CPU#[0-9]+/ { if (seen[$1]++) exit; c = $1 }
		/^RIP=/ && c != "" {
			rfl = ""; hlt = ""
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^RFL=/) rfl = substr($i, 5)
				if ($i ~ /^HLT=/) hlt = substr($i, 5)
			}
			out = out sprintf("%s%s %s RFL=%s HLT=%s", out == "" ? "" : "; ", c, substr($1, 5), rfl, hlt)
			c = ""
		}
		END { if (out != "") printf "%s (int3 entry %s)\n", out, a }'
}
# kernel_bug_first CONSOLE [ERE]: the kernel reported a bug (KASAN, UBSAN,
# lockdep, a GPF, a BUG, a WARN) in CONSOLE - before its first line matching
# ERE, if given. A run that did is not booted again for a TCG livelock or
# artifact: the second boot would replace the console, and the debug lane
# (panic_on_warn=0: reports pile up) reads only the last one.
kernel_bug_first() {
	tr -d '\r' < "$1" 2>/dev/null | awk -v p="${2:-}" 'p != "" && $0 ~ p { exit } { print }' |
		grep -qE 'KASAN|UBSAN|possible circular locking|inconsistent lock state|general protection|kernel BUG at|WARNING: CPU:'
}
# int3_heading: an int3 oops's first line ("int3: 0000 [#1] ..." on 6.1,
# "Oops: int3: 0000 [#1] ..." on 6.12), anywhere in a console line
int3_heading='(Oops: )?int3: [0-9a-f]+ \[#[0-9]+\]'
# tcg_int3_artifact CONSOLE: a TCG artifact, not a kernel bug - an int3 trap
# in the kernel's own text (not a module's) at a site the kernel patches
# (docs/testing.md, "A guest hang"): a vCPU ran a stale translation of
# kernel text that another vCPU was patching (static keys and tracepoints
# switch with text_poke_bp: int3 on the first byte, then the new tail, then
# the new first byte; perf events, insmod/rmmod and cpu.max writes flip
# keys). The trap's RIP is the byte after the int3 (the "Code:" line's
# <xx>), so the byte before it is the trap's, and either
#  - it is no longer cc and the bytes read as a patched site's: a jump or
#    call (e9, eb, e8 <...>) or a static branch's nop (0f <1f> 44 00 00,
#    66 <90>) - the patch finished by the time the oops printed; or
#  - it is cc before a 5-byte nop's tail (cc <1f> 44 00 00): a nop site
#    half-way, either way (enabling: the old nop's tail not yet replaced;
#    disabling: the new nop's tail written).
# Seen on 6.1 at __schedule+0x281 right after regulate's
# perf_source_counts_per_task, whose per-task events flip
# perf_sched_events (27 Nov, testdata/int3-oops-6.1.txt), and on 6.12 about
# once in a dozen full runs (21 Nov, by the earlier check, which read the
# byte after the int3: not verified by this one). Not recognised, so the run
# fails: a real int3 left in the text (cc <cc>, or cc before an ordinary
# instruction), one in a module, and a jump site half-way (cc before a
# rel32: not told apart from a real int3). Such a run is booted again, once,
# and says so (not after a kernel bug report: kernel_bug_first).
tcg_int3_artifact() {
	[ "$accel" = tcg ] || return 1
	tr -d '\r' < "$1" 2>/dev/null | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | awk -v h="$int3_heading" '
		BEGIN { r = 1 }
		!f && $0 ~ h { f = 1; next }
		f == 1 && /^RIP: 0010:/ { if ($3 ~ /^\[/) exit; f = 2; next }
		f == 2 && /^Code: / {
			for (i = 2; i <= NF; i++) if ($i ~ /^<..>$/) break
			if (i > 2 && i <= NF) {
				b = $(i - 1); m = substr($i, 2, 2)
				nop5 = m == "1f" && $(i + 1) == "44" && $(i + 2) == "00" && $(i + 3) == "00"
				if (b == "cc")
					r = !nop5
				else
					r = !(b == "e9" || b == "eb" || b == "e8" || (b == "0f" && nop5) || (b == "66" && m == "90"))
			}
			exit
		}
		END { exit r }'
}
