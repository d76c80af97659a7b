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
	SOLO_DUR=5
	solos "$KINDS"
	matrix "$KINDS" "$KINDS" "$MODES" 6 3.5:6
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

if [ $failed = 0 ]; then echo "TGTEST: PASS eval"; else echo "TGTEST: FAIL eval: $failed runs failed"; fi
