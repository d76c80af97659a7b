#!/bin/sh
# Suite "eval" (in the guest): the experiments of eval/ against tgroup.ko
# loaded with inject=1. The plan and the profile come from the kernel command
# line: tg.eval=demo|quick|full|matrix|timeline|alloc|writers|overhead
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
MODES="none static mbps memguard tgroup"
# tg.modes=a+b+c: a subset of modes for the matrix and the timeline
[ -z "$(arg tg.modes)" ] || MODES=$(arg tg.modes | tr '+' ' ')
failed=0

load() {
	lsmod | grep -q '^tgroup ' || insmod ./tgroup.ko inject=1 || { echo "TGTEST: FAIL eval_insmod"; exit 1; }
	grep -q " $M " /proc/mounts || mount -t tgroup tgroup $M || { echo "TGTEST: FAIL eval_mount"; exit 1; }
}
unload() {
	grep -q " $M " /proc/mounts && umount $M
	lsmod | grep -q '^tgroup ' && rmmod tgroup
}
# tgeval with the profile; a failure is reported, the plan goes on
ev() {
	./tgeval run $P "$@" || { failed=$((failed + 1)); echo "TGTEST-INFO: eval: tgeval $* failed"; }
}
short() { case $1 in dram_read) echo dr ;; dram_write) echo dw ;; nvm_read) echo nr ;; nvm_write) echo nw ;; esac; }

NT=$(sed -n 's/^noisy_threads *= *\([0-9.]*\).*/\1/p' $P)

# the victim alone, for "% of solo": SOLO_DUR s, measured over the last part
solos() {
	for v in $1; do
		ev --mode none --exp solo --label "$v" --duration "$SOLO_DUR" --measure "1:$SOLO_DUR" "v_$(short $v):$v:1:high:0:0"
	done
}

# MT²'s matrix: victim (1 thread, high priority) x noisy (NT threads, low)
# in every mode. The victim runs alone for ARRIVE s (default 2.5) first: its
# solo in the same run (ref_gbps over 0.5 s..ARRIVE; the guest's CPU
# availability drifts on a busy host), then the noisy neighbour joins; the
# victim is measured over MEASURE.
matrix() {	# victims noisies modes duration measure [arrive]
	a=${6:-2.5}
	for v in $1; do
		for n in $2; do
			for m in $3; do
				ev --mode "$m" --exp matrix --label "$v+$n" --duration "$4" --measure "$5" \
					--ref "0.5:$a" "v_$(short $v):$v:1:high:0:0" "n_$(short $n):$n:$NT:low:$a:0"
			done
		done
	done
}

# timeline: the victim alone, the noisy neighbour arrives at ARR and leaves at
# LEAVE; a row every 50 ms
timeline() {	# victim noisy modes duration arrive leave [live]
	for m in $3; do
		ev --mode "$m" --exp timeline --label "$1+$2" --duration "$4" --measure "$(($5 + 2)):$6" \
			--ref "1:$5" --ts "timeline_$m.csv" ${7:+--live $7} \
			"victim:$1:1:high:0:0" "noisy:$2:$NT:low:$5:$6"
	done
}

case " $plan " in *" demo "*)
	load
	echo
	echo "== tgroup demo ($profile): a latency-critical NVM reader (group 'victim', priority high)"
	echo "   alone for 4 s; then a noisy NVM writer ('noisy', $NT threads, priority low) for 10 s; then it leaves."
	echo "   One line per 250 ms: the victim's throughput as % of its solo (per CPU-second it got, over"
	echo "   the last 0.5 s; solo measured from 1 s to 4 s), the NVM read latency the module sees, the"
	echo "   detector's state (none/dram/nvm/both), and what is applied to 'noisy' (MBA level, CPU quota)."
	echo
	timeline nvm_read nvm_write tgroup 18 4 14 250 | sed -n 's/^TGEVAL-LIVE /  /p; /^TGEVAL-CSV/p'
	echo
	echo "== the same schedule without control, and with resctrl's mba_MBps software controller"
	timeline nvm_read nvm_write "none mbps" 18 4 14
	unload
	;;
esac

case " $plan " in *" quick "*)
	load
	# the neighbour from 2 s; measured from 4 s after it arrived (tgroup
	# needs about 3.5 s to cut a DRAM reader: nine MBA steps, each waiting
	# its dead time, then CPU cuts; docs/eval.md), for 3 s
	matrix nvm_read "nvm_write dram_read" "$MODES" 9 6:9 2
	matrix dram_read nvm_write "$MODES" 9 6:9 2
	unload
	;;
esac

case " $plan " in *" full "*|*" matrix "*)
	load
	SOLO_DUR=3
	solos "$KINDS"
	# as eval-quick: alone for 2 s, the neighbour from 2 s, the victim
	# measured from 4 s after it arrived (the control law of issue 11 waits
	# its dead time after every cut: about 3.5 s to cut a DRAM neighbour;
	# the timeline measures the reaction), for 1.5 s (make eval's 20 min)
	matrix "$KINDS" "$KINDS" "$MODES" 7.5 6:7.5 2
	unload
	;;
esac

case " $plan " in *" full "*|*" timeline "*)
	load
	timeline nvm_read nvm_write "$MODES" 20 4 14
	unload
	;;
esac

case " $plan " in *" full "*|*" alloc "*)
	# bandwidth allocation: one task of each kind, all high priority; limits on
	# three of them guarantee the DRAM writer its share (preventive policy)
	load
	for m in none tgroup; do
		ev --mode $m --exp alloc --label "four kinds" --duration 12 --measure 4:12 \
			"dw:dram_write:1:high:0:0" \
			"nr:nvm_read:1:high:0:0:nvm_rbps=1500000000" \
			"nw:nvm_write:1:high:0:0:nvm_wbps=400000000" \
			"dr:dram_read:1:high:0:0:dram_rbps=3000000000"
	done
	unload
	;;
esac

case " $plan " in *" full "*|*" writers "*)
	# growing numbers of noisy slow-tier writers beside an NVM-read victim
	load
	for n in 1 2 4 8; do
		for m in none tgroup; do
			ev --mode $m --exp writers --label "$n" --duration 6 --measure 3.5:6 --ref 0.5:2.5 \
				"v_nr:nvm_read:1:high:0:0" "n_nw:nvm_write:$n:low:2.5:0"
		done
	done
	unload
	;;
esac

case " $plan " in *" full "*|*" overhead "*)
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
