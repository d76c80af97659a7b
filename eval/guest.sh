#!/bin/sh
# Suite "eval" (in the guest): the experiments of eval/ against tgroup.ko
# loaded with inject=1. The plan and the profile come from the kernel command
# line: tg.eval=demo|quick|full|matrix|timeline|scen|alloc|overhead|cpuloss
# (comma-separated) and tg.profile=NAME (eval/profiles/NAME.prof).
# Everything the host keeps is printed as "TGEVAL-CSV file,row" lines
# (eval/run.sh splits them into files).
cd "$(dirname "$0")"
M=/sys/fs/tgroup
arg() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
plan=$(arg tg.eval | tr ',' ' ')
profile=$(arg tg.profile)
[ -n "$plan" ] || plan=quick
[ -n "$profile" ] || profile=optane-clx
P=./profiles/$profile.prof
KINDS="nvm_read nvm_write dram_read dram_write"
MODES="none tgroup"
# tg.modes=a+b+c: the modes of the matrix and the timeline
[ -z "$(arg tg.modes)" ] || MODES=$(arg tg.modes | tr '+' ' ')
# tg.tlmodes=a+b: the timeline's (default: tg.modes)
TLMODES=$(arg tg.tlmodes | tr '+' ' '); [ -n "$TLMODES" ] || TLMODES=$MODES
# tg.reps=N: runs per cell (default 5)
REPS=$(arg tg.reps); [ -n "$REPS" ] || REPS=5
# tg.pairs=nr.nw+dr.dr: the matrix's pairs (default: all 16)
PAIRS=$(arg tg.pairs | tr '+' ' ')
# tg.knobs=static:20+mbps:1+memguard:0.5+memguard-rw:0.5/0.2: each baseline's setting
KNOBS=$(arg tg.knobs | tr '+' ' ')
# tg.law=N: tgroup's remedial law (tgroup.config law); without it tgeval
# writes none and the module's default runs (TG_LAW_DEFAULT)
LAW=$(arg tg.law)
failed=0

load() {
	lsmod | grep -q '^tgroup ' || insmod ./tgroup.ko inject=1 || { echo "TGTEST: FAIL eval_insmod"; exit 1; }
	grep -q " $M " /proc/mounts || mount -t tgroup tgroup $M || { echo "TGTEST: FAIL eval_mount"; exit 1; }
}
unload() {
	grep -q " $M " /proc/mounts && umount $M
	# a workload killed a moment ago may still hold the module briefly
	for i in 1 2 3 4 5 6 7 8 9 10; do
		lsmod | grep -q '^tgroup ' || return 0
		rmmod tgroup 2>/dev/null && return 0
		sleep 0.2
	done
	echo "TGTEST: FAIL eval_rmmod"
}
knob() {	# the setting of mode $1 from tg.knobs
	for kv in $KNOBS; do [ "${kv%%:*}" = "$1" ] && { echo "--knob ${kv#*:}"; return; }; done
}
# tgeval with the profile, on a freshly loaded module (no detector or
# regulator state carried from the last run); a failure is reported, the
# plan goes on
ev() {
	unload; load
	./tgeval run $P ${LAW:+--law $LAW} "$@" || { failed=$((failed + 1)); echo "TGTEST-INFO: eval: tgeval $* failed"; }
}
short() { case $1 in dram_read) echo dr ;; dram_write) echo dw ;; nvm_read) echo nr ;; nvm_write) echo nw ;; esac; }
long() { case $1 in dr) echo dram_read ;; dw) echo dram_write ;; nr) echo nvm_read ;; nw) echo nvm_write ;; esac; }

NT=$(sed -n 's/^noisy_threads *= *\([0-9.]*\).*/\1/p' $P)

# MT²'s matrix: victim (1 thread, high priority) x noisy (NT threads, low),
# every mode, REPS runs, the reps outermost (a host that slows down for a
# while spreads over the cells instead of spoiling one). The victim alone
# 0-ARR s (its solo: REF), the neighbour from ARR; the steady state from
# 10 s after the arrival (every controller converged: mba_MBps takes 9 s
# from 100 % to its floor) for 2 s; the transient is everything between.
ARR=1.0 REF=0.3:1.0 DUR=13 MEAS=11:13
# tg.mdur=S tg.mmeas=A:B: a longer matrix (the steady state once the search
# has converged, e.g. tg.mdur=43 tg.mmeas=23:43; docs/eval.md)
[ -z "$(arg tg.mdur)" ] || DUR=$(arg tg.mdur)
[ -z "$(arg tg.mmeas)" ] || MEAS=$(arg tg.mmeas)
matrix() {	# modes
	pairs=$PAIRS
	[ -n "$pairs" ] || for v in $KINDS; do for n in $KINDS; do pairs="$pairs $(short $v).$(short $n)"; done; done
	for r in $(seq $REPS); do
		for pr in $pairs; do
			v=$(long ${pr%.*}) n=$(long ${pr#*.})
			for m in $1; do
				ev --mode "$m" $(knob $m) --exp matrix --label "$v+$n" --rep "$r" --seed "$r" \
					--duration $DUR --measure $MEAS --ref $REF \
					"v_$(short $v):$v:1:high:0:0" "n_$(short $n):$n:$NT:low:$ARR:0"
			done
		done
	done
}

# timeline: an NVM reader alone, an NVM-write neighbour from 2 s to 12 s,
# a row every 50 ms (rep 1 only); detection, reaction, cooling, release.
# tg.tlpair=dr.dr: another pair (a diagnosis: the rows carry the module's
# latencies beside the platform's; the report's timeline is NR <- NW)
TLP=$(arg tg.tlpair)
TLV=$(long "${TLP%.*}") TLN=$(long "${TLP#*.}")
[ -n "$TLP" ] && [ -n "$TLV" ] && [ -n "$TLN" ] || TLV=nvm_read TLN=nvm_write
# tg.tlopt=onoff=0.3: an option of the timeline's neighbour (a diagnosis:
# the on/off scenario's neighbour with the timeline's rows)
TLOPT=$(arg tg.tlopt)
# tg.tlend=40: the neighbour leaves at 40 s, not 12 (a diagnosis of the
# steady state; the run lasts 4 s longer, the measure window stays)
TLEND=$(arg tg.tlend)
case "$TLEND" in '' | *[!0-9]*) TLEND=12 ;; esac
[ "$TLEND" -ge 3 ] || TLEND=12
timeline() {	# modes [live]
	for r in $(seq $REPS); do
		for m in $1; do
			ts=; [ "$r" = 1 ] && ts="--ts timeline_$m.csv"
			ev --mode "$m" $(knob $m) --exp timeline --label "$TLV+$TLN" --rep "$r" --seed "$r" \
				--duration $((TLEND + 4)) --measure 7:12 --ref 0.5:2 $ts ${2:+--live $2} \
				"victim:$TLV:1:high:0:0" "noisy:$TLN:$NT:low:2:$TLEND${TLOPT:+:$TLOPT}"
		done
	done
}

case " $plan " in *" demo "*)
	echo
	echo "== tgroup demo ($profile): a latency-critical NVM reader (group 'victim', priority high)"
	echo "   alone for 2 s; then a noisy NVM writer ('noisy', $NT threads, priority low) for 10 s; then it leaves."
	echo "   One line per 250 ms: the victim's throughput as % of its solo (per CPU-second it got, over"
	echo "   the last 0.5 s; solo measured from 0.5 s to 2 s), the neighbour's throughput as a share of"
	echo "   what the victim's threshold allows (the model's oracle rate, once the latency first crosses"
	echo "   the threshold), the NVM read latency the module sees, the"
	echo "   detector's state, and what is applied to 'noisy' (MBA level, CPU quota). Thresholds: the"
	echo "   profile's (make calibrate), as every run uses them."
	echo
	REPS=1
	timeline tgroup 250 | sed -n 's/^TGEVAL-LIVE /  /p; /^TGEVAL-CSV/p'
	echo
	echo "== the same schedule without control, and with resctrl's mba_MBps software controller (target 1 GB/s)"
	KNOBS="mbps:1"
	timeline "none mbps"
	unload
	;;
esac

case " $plan " in *" quick "*)
	# eval-quick (make check): three pairs, no control and tgroup, one run
	# each on the profile's fixed thresholds (eval/report.py quick asserts)
	REPS=1 PAIRS="nr.nw nr.dr dr.dr"
	matrix "none tgroup"
	unload
	;;
esac

case " $plan " in *" full "*|*" matrix "*)
	matrix "$MODES"
	unload
	;;
esac

case " $plan " in *" full "*|*" timeline "*)
	timeline "$TLMODES"
	unload
	;;
esac

case " $plan " in *" scen "*)
	# the scenarios of docs/eval.md that run in the guest (the rest, and
	# these with more groups, in the host simulator: eval/sim.c)
	for r in $(seq $REPS); do
		for m in $MODES; do
			# 4 equally noisy low-priority groups of mixed kinds + a small bystander
			ev --mode "$m" $(knob $m) --exp groups --label "4+bystander" --rep "$r" --duration $DUR --measure $MEAS --ref $REF \
				"v_nr:nvm_read:1:high:0:0" "g1:dram_read:$NT:low:$ARR:0:duty=0.1" "g2:dram_write:$NT:low:$ARR:0:duty=0.1" \
				"g3:nvm_read:$NT:low:$ARR:0:duty=0.1" "g4:dram_read:$NT:low:$ARR:0:duty=0.1" "by:dram_read:0.05:low:$ARR:0:duty=0.05"
			# a heavy victim (4 DRAM-read threads) beside a harmless neighbour: no throttle allowed
			ev --mode "$m" $(knob $m) --exp heavy --label "dram_read4+harmless" --rep "$r" --duration $DUR --measure $MEAS --ref $REF \
				"v_dr:dram_read:4:high:0:0" "h:dram_read:0.05:low:$ARR:0"
			# a neighbour switching on and off every 0.3 s
			ev --mode "$m" $(knob $m) --exp onoff --label "nvm_read+nvm_write/0.3" --rep "$r" --duration $DUR --measure $MEAS --ref $REF \
				"v_nr:nvm_read:1:high:0:0" "n_nw:nvm_write:$NT:low:$ARR:0:onoff=0.3"
			# a request-level victim (load 0.5 of its solo capacity): p50/p99
			ev --mode "$m" $(knob $m) --exp requests --label "nvm_read+dram_read" --rep "$r" --seed "$r" --duration $DUR --measure $MEAS --ref $REF \
				"v_nr:nvm_read:1:high:0:0:req=0.5" "n_dr:dram_read:$NT:low:$ARR:0"
		done
	done
	unload
	;;
esac

case " $plan " in *" alloc "*)
	# bandwidth allocation: one task of each kind, all high priority; limits on
	# three of them guarantee the DRAM writer its share (preventive policy);
	# each limit binds: >= 20 % under that task's rate without control (the
	# none rows: dram_read 4.34, nvm_read 1.50, nvm_write 1.27 GB/s), rounded
	# down to a round figure; REPS runs per mode (report.py judges ±5 % on the CI)
	load
	for r in $(seq $REPS); do
		for m in none tgroup; do
			ev --mode $m --exp alloc --label "four kinds" --rep "$r" --seed "$r" --duration 12 --measure 4:12 \
				"dw:dram_write:1:high:0:0" \
				"nr:nvm_read:1:high:0:0:lim=nvm_rbps=1000000000" \
				"nw:nvm_write:1:high:0:0:lim=nvm_wbps=400000000" \
				"dr:dram_read:1:high:0:0:lim=dram_rbps=3000000000"
		done
	done
	unload
	;;
esac

case " $plan " in *" overhead "*)
	# the regulation period's own cost vs number of groups (1 sleeping task
	# each), then make bench's guest half: fork/exit and thread rates without
	# and with the module, the context-switch ping-pong
	echo 65536 > /proc/sys/kernel/threads-max
	insmod ./tgroup.ko max_groups=1024 && mount -t tgroup tgroup $M || echo "TGTEST: FAIL eval_overhead_setup"
	echo "TGEVAL-CSV overhead_period.csv,#groups,period_last_us,period_max_us"
	have=0
	for n in 1 16 64 256 1024; do
		while [ $have -lt $n ]; do
			mkdir $M/g$have && { sleep 600 & echo $! > $M/g$have/cgroup.procs; }
			have=$((have + 1))
		done
		echo period_ms=10 > $M/tgroup.config
		sleep 1
		last=$(sed -n 's/^period_last_us=//p' $M/tgroup.config)
		max=$(sed -n 's/^period_max_us=//p' $M/tgroup.config)
		echo "TGEVAL-CSV overhead_period.csv,$n,$last,$max"
	done
	kill $(jobs -p) 2>/dev/null; wait 2>/dev/null
	for g in $M/g*; do rmdir $g 2>/dev/null; done
	umount $M; rmmod tgroup
	./tbench spawn | sed -n 's/^TGTEST-BENCH: \(.*\)/TGEVAL-CSV overhead_bench.txt,\1/p'
	insmod ./tgroup.ko && mount -t tgroup tgroup $M && ./pingpong | sed -n 's/^TGTEST-BENCH: \(.*\)/TGEVAL-CSV overhead_bench.txt,\1/p'
	umount $M; rmmod tgroup
	;;
esac

case " $plan " in *" cpuloss "*)
	# docs/eval.md, "the victim's CPU loss": an NVM-read victim (vCPU 1) and a
	# DRAM-read neighbour (vCPU 0, wants 25 % of a CPU) with the regulator's
	# policies off, the neighbour's CPU held from 2.5 s by the module (pin) or
	# by CFS (cgroup v2 cpu.max), or not at all; the victim's CPU share from
	# 5 s to 9 s, and vCPU 1's time and interrupts over that window
	load
	CPULOSS_REPS=$(arg tg.reps)
	mount | grep -q ' /sys/fs/cgroup type cgroup2' || mount -t cgroup2 none /sys/fs/cgroup
	echo +cpu > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/cl
	# the cfs_bandwidth static key held on (tests/guest/k8s: the guest hang)
	mkdir -p /sys/fs/cgroup/tg-keypin && echo "10000000 100000" > /sys/fs/cgroup/tg-keypin/cpu.max
	echo "TGEVAL-CSV cpuloss_cpu.csv,#variant,rep,cpu,user,nice,system,irq,softirq,idle,LOC,RES,CAL,enforce_timer_cpu"
	snap() {	# /proc/stat's cpuN line (ticks), LOC/RES/CAL column N
		c=$1
		set -- $(sed -n "s/^cpu$c //p" /proc/stat)
		st="$1 $2 $3 $6 $7 $4"
		for k in LOC RES CAL; do
			st="$st $(awk -v k="$k:" -v c=$((c + 2)) '$1 == k { print $c }' /proc/interrupts)"
		done
		echo "$st"
	}
	for rep in $(seq ${CPULOSS_REPS:-2}); do
		for var in free pin:1300 pin:100 cpumax:1300:10000 cpumax:1000:100000; do
			(
				sleep 0.3
				echo "remedial=0 preventive=0" > $M/tgroup.config
				sleep 2.2
				pid=$(head -1 $M/n_dr/cgroup.procs)
				case $var in
				pin:*) echo "pin group=n_dr cpu_quota_us=${var#pin:}" > /sys/kernel/debug/tgroup/inject ;;
				cpumax:*) q=${var#cpumax:}; echo "${q%%:*} ${q#*:}" > /sys/fs/cgroup/cl/cpu.max
					echo "$pid" > /sys/fs/cgroup/cl/cgroup.procs ;;
				esac
				sleep 2.5
				a0=$(snap 0) a1=$(snap 1)
				sleep 2
				# the CPU whose hrtimer queue holds the module's enforcer (armed while a group has a quota)
				et=$(awk '/^cpu:/ { c = $2 } /tg_enforce_tick/ { print c; exit }' /proc/timer_list)
				sleep 2
				b0=$(snap 0) b1=$(snap 1)
				for c in 0 1; do
					eval "x=\$a$c y=\$b$c"
					echo "TGEVAL-CSV cpuloss_cpu.csv,$var,$rep,$c,$(echo $x $y | awk '{ n = NF / 2; s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") ($(i + n) - $i); print s }'),${et:--}"
				done
			) &
			ev --mode tgroup --exp cpuloss --label "$var/$rep" --duration 9 --measure 5:9 --ref 0.5:2 \
				"v_nr:nvm_read:1:high:0:0" "n_dr:dram_read:$NT:low:2:0"
			wait
			echo "pin group=n_dr cpu_quota_us=0" > /sys/kernel/debug/tgroup/inject 2>/dev/null
			echo "max 100000" > /sys/fs/cgroup/cl/cpu.max
		done
	done
	unload
	;;
esac

if [ $failed = 0 ]; then echo "TGTEST: PASS eval"; else echo "TGTEST: FAIL eval: $failed runs failed"; fi
