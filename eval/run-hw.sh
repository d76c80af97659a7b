#!/bin/bash
# eval/run-hw.sh - eval/'s experiments on a real Optane or CXL server.
#
# usage: sudo eval/run-hw.sh optane|cxl OUTDIR
#
# The module runs with its hardware sources (no inject); the workloads are
# fio (libpmem engine on a file in an existing DAX mount, or plain mmap on a
# CXL-bound tmpfs/DRAM file) and intel-cmt-cat's membw, pinned with numactl;
# a victim's throughput is what fio itself reports (JSON). Modes: none
# (regulator off) and tgroup; TG_HW_BASELINES=1 adds static MBA (pqos) and
# resctrl's mba_MBps, which need resctrl and so run with tgroup unloaded.
# MemGuard needs its own out-of-tree kernel module: not run here.
#
# Nothing destructive: it never formats, mounts or partitions anything, and
# only creates (and removes) files under TG_HW_DIR (default
# <DAX mount>/tgroup-eval); it loads tgroup.ko only if not loaded, and
# unloads only what it loaded. On a machine without the hardware it lists
# everything that is missing and exits 1.
#
# Environment:
#   TG_HW_DAX=/mnt/pmem      an existing DAX-mounted filesystem on Optane (optane)
#   TG_HW_CXL_NODE=N         the CXL memory's NUMA node (cxl; default: the
#                            first CPU-less node with memory)
#   TG_HW_CPUS="2 3 4 5"     CPUs for victim and noisy neighbours (one socket)
#   TG_HW_CONFIG=FILE        tgroup.config lines with the event encodings of
#                            this CPU (perf_type, ocr_*_config, uncore_*,
#                            store_sample_*; docs/abi.md) - required
#   TG_HW_SECONDS=20         per run
#
# Not yet run on hardware: what was checked is that it runs to the list of
# missing things on the development machine (no Optane, CXL, RDT or PMU).
set -uo pipefail
plat=${1:-} out=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
missing=()
miss() { missing+=("$1"); }

[ "$plat" = optane ] || [ "$plat" = cxl ] || { echo "usage: $0 optane|cxl OUTDIR"; exit 2; }
[ -n "$out" ] || { echo "usage: $0 optane|cxl OUTDIR"; exit 2; }
[ "$(id -u)" = 0 ] || miss "root (loads tgroup.ko, writes /sys/fs/tgroup)"

# --- tools ----------------------------------------------------------------
for t in fio numactl membw; do
	command -v $t >/dev/null || miss "$t (Debian: $( [ $t = membw ] && echo intel-cmt-cat || echo $t ))"
done
if command -v fio >/dev/null && [ "$plat" = optane ]; then
	fio --enghelp 2>/dev/null | grep -qw libpmem || miss "fio's libpmem engine (Debian's fio is built with it; this fio is not)"
fi
[ "${TG_HW_BASELINES:-0}" = 1 ] && ! command -v pqos >/dev/null && miss "pqos (intel-cmt-cat) for the static-MBA baseline"

# --- CPU, RDT, PMU --------------------------------------------------------
grep -q GenuineIntel /proc/cpuinfo || miss "an Intel CPU (MT²'s OCR and uncore events, MBA)"
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for f in rdt_a mba cqm_mbm_total; do
	grep -qw "$f" <<<"$flags" || miss "CPU flag $f (Intel RDT: $( case $f in rdt_a) echo allocation;; mba) echo memory bandwidth allocation;; *) echo MBM total;; esac))"
done
ls -d /sys/bus/event_source/devices/uncore_imc_* >/dev/null 2>&1 || miss "uncore iMC PMUs (/sys/bus/event_source/devices/uncore_imc_*) for RPQ occupancy/inserts"
[ -d /sys/bus/event_source/devices/cpu ] || miss "a core PMU (/sys/bus/event_source/devices/cpu) for the OCR events"
if [ -z "${TG_HW_CONFIG:-}" ] || [ ! -r "${TG_HW_CONFIG:-}" ]; then
	miss "TG_HW_CONFIG: a file of tgroup.config lines with this CPU's event encodings (ocr_dram_read_config, ocr_nvm_read_config, uncore_type, uncore_*_config; docs/abi.md)"
fi
mountpoint -q /sys/fs/resctrl 2>/dev/null && miss "resctrl unmounted (it owns RDT; tgroup refuses MBA/MBM while it is mounted)"

# --- the slow tier --------------------------------------------------------
dir=
if [ "$plat" = optane ]; then
	dax=${TG_HW_DAX:-}
	[ -n "$dax" ] || dax=$(awk '$4 ~ /(^|,)dax(=always)?(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -z "$dax" ]; then
		miss "a DAX-mounted filesystem on Optane PMem (TG_HW_DAX; e.g. ndctl create-namespace -m fsdax, mkfs, mount -o dax - not done by this script)"
	elif ! grep -q " $dax .*dax" /proc/mounts; then
		miss "$dax is not mounted with -o dax"
	else
		dir=${TG_HW_DIR:-$dax/tgroup-eval}
	fi
	ls /sys/bus/nd/devices/region* >/dev/null 2>&1 || miss "an NVDIMM region (/sys/bus/nd/devices/region*): no Optane PMem"
else
	node=${TG_HW_CXL_NODE:-}
	if [ -z "$node" ]; then
		for n in /sys/devices/system/node/node*; do
			[ -s "$n/cpulist" ] && [ -n "$(tr -d '\n' < "$n/cpulist")" ] && continue
			grep -q 'MemTotal: *[1-9]' "$n/meminfo" && { node=${n##*node}; break; }
		done
	fi
	[ -n "$node" ] || miss "a CPU-less NUMA node with memory (CXL memory; TG_HW_CXL_NODE)"
	ls -d /sys/bus/cxl/devices/mem* >/dev/null 2>&1 || miss "a CXL memory device (/sys/bus/cxl/devices/mem*)"
	dir=${TG_HW_DIR:-/dev/shm/tgroup-eval}
fi
ko=$top/tgroup.ko
[ -r "$ko" ] || lsmod | grep -q '^tgroup ' || miss "tgroup.ko (make module)"

if [ ${#missing[@]} -gt 0 ]; then
	echo "run-hw: this machine cannot run the hardware experiments ($plat). Missing:"
	printf '  - %s\n' "${missing[@]}"
	exit 1
fi

# --- the runs ---------------------------------------------------------------
secs=${TG_HW_SECONDS:-20}
read -r -a cpus <<< "${TG_HW_CPUS:-2 3 4 5}"
M=/sys/fs/tgroup
mkdir -p "$out" "$dir"
loaded=0
if ! lsmod | grep -q '^tgroup '; then
	insmod "$ko" || { echo "run-hw: insmod failed"; exit 1; }
	loaded=1
fi
grep -q " $M " /proc/mounts || mount -t tgroup tgroup $M
grep -v '^#' "$TG_HW_CONFIG" | while read -r l; do [ -n "$l" ] && echo "$l" > $M/tgroup.config; done
cleanup() {
	rm -rf "$dir"
	for g in victim noisy; do rmdir $M/$g 2>/dev/null; done
	if [ $loaded = 1 ]; then umount $M; rmmod tgroup; fi
}
trap cleanup EXIT
mkdir -p $M/victim $M/noisy
echo high > $M/victim/tgroup.priority
echo low > $M/noisy/tgroup.priority

# a workload of a kind, as a command line; victims are fio (they report)
slow_bind() { [ "$plat" = cxl ] && echo "--membind=$node" || echo "--membind=0"; }
cmd() {	# kind cpu name
	case $1 in
	nvm_read|nvm_write)
		rw=read; [ $1 = nvm_write ] && rw=write
		if [ "$plat" = optane ]; then
			echo "numactl --physcpubind=$2 fio --name=$3 --ioengine=libpmem --filename=$dir/$3 --size=1g --bs=256k --rw=$rw --direct=1 --time_based --runtime=$secs --output-format=json"
		else
			echo "numactl --physcpubind=$2 $(slow_bind) fio --name=$3 --ioengine=mmap --filename=$dir/$3 --size=1g --bs=256k --rw=$rw --time_based --runtime=$secs --output-format=json"
		fi ;;
	dram_read|dram_write)
		rw=read; [ $1 = dram_write ] && rw=write
		echo "numactl --physcpubind=$2 --membind=0 fio --name=$3 --ioengine=mmap --filename=/dev/shm/tgroup-eval-$3 --size=1g --bs=256k --rw=$rw --time_based --runtime=$secs --output-format=json" ;;
	esac
}
noisy_cmd() {	# kind cpu: membw for DRAM kinds, fio for the slow tier
	case $1 in
	dram_read) echo "numactl --physcpubind=$2 --membind=0 membw -c $2 -b 100000 --read" ;;
	dram_write) echo "numactl --physcpubind=$2 --membind=0 membw -c $2 -b 100000 --nt-write" ;;
	*) cmd "$1" "$2" noisy ;;
	esac
}
bw() {	# fio JSON -> bytes/s of its read or write
	/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["read"]["bw_bytes"]+j["write"]["bw_bytes"])' "$1"
}
run_one() {	# mode victim noisy|- -> prints victim bytes/s
	local mode=$1 v=$2 n=$3 vp np
	case $mode in none) echo enabled=0 > $M/tgroup.config ;; tgroup) echo enabled=1 > $M/tgroup.config ;; esac
	sh -c "echo \$\$ > $M/victim/cgroup.procs; exec $(cmd "$v" "${cpus[0]}" victim)" > "$out/fio-victim.json" &
	vp=$!
	if [ "$n" != - ]; then
		sh -c "echo \$\$ > $M/noisy/cgroup.procs; exec $(noisy_cmd "$n" "${cpus[1]}")" > /dev/null 2>&1 &
		np=$!
	fi
	wait $vp
	[ -n "${np:-}" ] && { kill $np 2>/dev/null; wait $np 2>/dev/null; }
	bw "$out/fio-victim.json"
}
echo "mode,victim,noisy,victim_bps,solo_bps,pct" > "$out/matrix.csv"
for v in nvm_read nvm_write dram_read dram_write; do
	solo=$(run_one none "$v" -)
	for n in nvm_read nvm_write dram_read dram_write; do
		for m in none tgroup; do
			b=$(run_one $m "$v" "$n")
			echo "$m,$v,$n,$b,$solo,$(awk -v b="$b" -v s="$solo" 'BEGIN { printf "%.1f", 100 * b / s }')" | tee -a "$out/matrix.csv"
		done
	done
done
rm -f /dev/shm/tgroup-eval-*
echo "run-hw: $out/matrix.csv"
