#!/bin/bash
# tgctl setup without the hardware: every profile's encodings against the
# perf JSON tables (fixtures/perfjson.txt, from Debian's linux-source-6.1),
# the CPU detection through libpfm4 (LIBPFM_FORCE_PMU), the iMC PMU type
# and resctrl read from a faked sysfs, and the write to a fake mount.
#
# usage: setup.sh TGCTL   (root; prints PASS/FAIL lines)
# It re-executes itself in a private mount namespace (unshare -m): the
# tmpfs over /sys/bus/event_source/devices and /sys/fs exist only there;
# the host's paths are never written.
set -uo pipefail
if [ "${TG_SETUP_NS:-}" != 1 ]; then
	exec env TG_SETUP_NS=1 unshare -m --propagation private "$0" "$@"
fi
tgctl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures/perfjson.txt
ok() { echo "PASS tgctl_setup/$1"; }
ko() { echo "FAIL tgctl_setup/$1${2:+: $2}"; }

ev=/sys/bus/event_source/devices
# before the fake sysfs hides it: the host's msr PMU (its tsc event is a
# clock every x86 kernel exposes) and perf's own rate for it, per task:
# count / time running, in kHz (perf stat -x,: value,unit,event,run_ns,...)
msr_type=$(cat "$ev/msr/type" 2>/dev/null)
tsc_khz=$(perf stat -x, -e msr/tsc/ sleep 0.2 2>&1 | awk -F, '$3 == "msr/tsc/" && $4 > 0 { printf "%d", $1 * 1000000 / $4 }')
mount -t tmpfs tg-fake-evsrc "$ev" || { ko namespace "cannot mount a tmpfs over $ev"; exit 1; }
mount -t tmpfs tg-fake-sysfs /sys/fs || { ko namespace "cannot mount a tmpfs over /sys/fs"; exit 1; }
mkdir -p "$ev/uncore_imc_0" /sys/fs/resctrl
echo 17 > "$ev/uncore_imc_0/type"	# any type other than 4 (raw)

# the expected key=value lines of a model, from the fixture alone:
# config = umask << 8 | event code, config1 = MSRValue
expect() {
	awk -v m="$1" '$1 == m { print $3, $4, $5 }' "$fx" | {
		i=0
		while read -r code umask msr; do
			cfg=$(( (umask << 8) | code ))
			case $i in
			0) echo "perf_type=4"; echo "ocr_dram_read_config=$cfg"; echo "ocr_dram_read_config1=$((msr))" ;;
			1) echo "ocr_nvm_read_config=$cfg"; echo "ocr_nvm_read_config1=$((msr))" ;;
			2) echo "store_sample_type=4"; echo "store_sample_config=$cfg" ;;
			3) echo "uncore_type=17"; echo "uncore_dram_occupancy_config=$cfg" ;;
			4) echo "uncore_dram_inserts_config=$cfg" ;;
			5) echo "uncore_nvm_occupancy_config=$cfg" ;;
			6) echo "uncore_nvm_inserts_config=$cfg" ;;
			esac
			i=$((i + 1))
		done
	}
}

for p in cascadelakex:cascadelake:clx icelakex:icelake:icx sapphirerapids:sapphirerapids:spr; do
	IFS=: read -r model prof pmu <<<"$p"
	want=$(expect "$model" | sort)
	[ "$(echo "$want" | wc -l)" = 12 ] || { ko "fixture_$prof" "fixture has not 7 entries for $model"; continue; }
	# detected through libpfm4 (forced PMU) and forced by --profile
	for how in detect profile; do
		if [ $how = detect ]; then
			out=$(LIBPFM_FORCE_PMU=$pmu "$tgctl" setup --dry-run 2>&1)
		else
			out=$("$tgctl" setup --dry-run --profile "$prof" 2>&1)
		fi
		rc=$?
		got=$(echo "$out" | grep -v '^#' | sort)
		if [ $rc = 0 ] && [ "$got" = "$want" ] && echo "$out" | grep -q "^# profile $prof "; then
			ok "${prof}_$how"
		else
			ko "${prof}_$how" "rc $rc; diff (expected vs got): $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
		fi
	done
done

# Sapphire Rapids: the CXL gap is said
out=$("$tgctl" setup --dry-run --profile sapphirerapids 2>&1)
if echo "$out" | grep -q '^# cxl: no CXL read event'; then ok spr_cxl_said
else ko spr_cxl_said; fi

# a CPU without a profile: exit 1 and say so; unknown profile: exit 2
# no libpfm4 profile (skx forced): the kernel's own aliases. /proc/cpuinfo
# and the core PMU are faked: an Emerald Rapids (family 6 model 0xcf) whose
# kernel names mem-stores as for Sapphire Rapids on (linux-source-6.1
# arch/x86/events/intel/core.c mem_st_spr "event=0xcd,umask=0x2"): store
# sampling from it (0x2cd = 717), perf and uncore off with the reason, exit 3
scratch=$(mktemp -d)
fakecpu() { printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\nmodel name\t: fake\n\n' "$@" > "$scratch/cpuinfo"; mount --bind "$scratch/cpuinfo" /proc/cpuinfo; }
mkdir -p "$ev/cpu/format" "$ev/cpu/events"
echo 4 > "$ev/cpu/type"
echo config:0-7 > "$ev/cpu/format/event"; echo config:8-15 > "$ev/cpu/format/umask"
echo 'event=0xcd,umask=0x2' > "$ev/cpu/events/mem-stores"
fakecpu GenuineIntel 6 $((0xcf))
out=$(LIBPFM_FORCE_PMU=skx "$tgctl" setup --dry-run 2>"$scratch/err"); rc=$?
if [ $rc = 3 ] && echo "$out" | grep -q '^# no profile for this CPU (libpfm4 core PMU: skx; CPU: GenuineIntel family 0x6 model 0xcf, Emerald Rapids)' &&
	[ "$(echo "$out" | grep -v '^#' | tr '\n' ' ')" = "store_sample_type=4 store_sample_config=717 " ] &&
	echo "$out" | grep -q '^# off: perf: .*emeraldrapids/other.json.*OCR.READS_TO_CORE.LOCAL_DRAM .*no OCR event for PMM or CXL reads' &&
	echo "$out" | grep -q '^# off: uncore: ' && ! echo "$out" | grep -q '^# off: store_sampling' &&
	grep -q '^tgctl setup: partly configured: off: perf uncore ' "$scratch/err"; then ok fallback_kernel_alias
else ko fallback_kernel_alias "rc $rc: $(echo "$out" | grep -v '^# resctrl\|^# libpqos' | tr '\n' '|') $(cat "$scratch/err")"; fi
umount /proc/cpuinfo
# an unknown CPU without the alias: nothing configured, each source named, exit 1
rm -r "$ev/cpu"
fakecpu GenuineIntel 6 $((0x55))
out=$(LIBPFM_FORCE_PMU=skx "$tgctl" setup --dry-run 2>"$scratch/err"); rc=$?
if [ $rc = 1 ] && ! echo "$out" | grep -qv '^#' &&
	echo "$out" | grep -q '^# off: store_sampling: no mem-stores alias' && echo "$out" | grep -q '^# off: perf: no OCR encodings for this CPU' &&
	echo "$out" | grep -q '^# off: uncore: ' && grep -q '^tgctl setup: nothing configured: 3 sources stay off' "$scratch/err"; then
	ok no_profile
else ko no_profile "rc $rc: $out $(cat "$scratch/err")"; fi
umount /proc/cpuinfo
"$tgctl" setup --dry-run --profile nehalem >/dev/null 2>&1; rc=$?
if [ $rc = 2 ]; then ok unknown_profile; else ko unknown_profile "rc $rc"; fi

# no iMC PMU: no uncore keys, and the reason
rm -r "$ev/uncore_imc_0"
out=$("$tgctl" setup --dry-run --profile icelake 2>&1); rc=$?
if [ $rc = 3 ] && ! echo "$out" | grep -q '^uncore' && echo "$out" | grep -q '^# off: uncore: no iMC PMU'; then ok no_uncore_pmu
else ko no_uncore_pmu; fi
mkdir -p "$ev/uncore_imc_0" && echo 17 > "$ev/uncore_imc_0/type"

# uncore_khz: measured from uncore_imc_0/events/clockticks; said why not
# when there is no such event or it cannot be counted
out=$("$tgctl" setup --dry-run --profile icelake 2>&1)
if ! echo "$out" | grep -q '^uncore_khz=' &&
	echo "$out" | grep -q "^# uncore_khz: not set (the module keeps its value; default 2000000): no $ev/uncore_imc_0/events/clockticks$"; then
	ok uncore_khz_no_event
else ko uncore_khz_no_event "$(echo "$out" | grep khz)"; fi
mkdir -p "$ev/uncore_imc_0/format" "$ev/uncore_imc_0/events"
echo config:0-7 > "$ev/uncore_imc_0/format/event"
echo config:8-15 > "$ev/uncore_imc_0/format/umask"
echo event=0x00,umask=0x00 > "$ev/uncore_imc_0/events/clockticks"	# the kernel's ICX string
out=$("$tgctl" setup --dry-run --profile icelake 2>&1)
if ! echo "$out" | grep -q '^uncore_khz=' &&
	echo "$out" | grep -q '^# uncore_khz: not set .*perf_event_open(type 17, config 0, cpu 0): '; then
	ok uncore_khz_cannot_count
else ko uncore_khz_cannot_count "$(echo "$out" | grep khz)"; fi
# a real clock through the same path: uncore_imc_0 faked as the host's msr
# PMU, clockticks = its tsc event; setup's rate against perf's within
# TSC_TOL_PCT (the TSC is invariant: both measure one fixed rate; 2 % is
# far above the microseconds either timing can be off in 200 ms)
TSC_TOL_PCT=2
if [ -n "$msr_type" ] && [ -n "$tsc_khz" ] && [ "$tsc_khz" -gt 0 ]; then
	echo "$msr_type" > "$ev/uncore_imc_0/type"
	echo config:0-63 > "$ev/uncore_imc_0/format/event"
	rm "$ev/uncore_imc_0/format/umask"
	echo event=0x00 > "$ev/uncore_imc_0/events/clockticks"
	out=$("$tgctl" setup --dry-run --profile icelake 2>&1)
	got=$(echo "$out" | sed -n 's/^uncore_khz=//p')
	if [ -n "$got" ] && [ $(( (got > tsc_khz ? got - tsc_khz : tsc_khz - got) * 100 )) -le $((tsc_khz * TSC_TOL_PCT)) ] &&
		echo "$out" | grep -q '^# uncore_khz: measured: .*/uncore_imc_0/events/clockticks (config 0) counted '; then
		ok uncore_khz_measured; echo "INFO uncore_khz_measured: setup $got kHz, perf $tsc_khz kHz"
	else ko uncore_khz_measured "setup \"$got\", perf $tsc_khz kHz: $(echo "$out" | grep khz)"; fi
else
	ko uncore_khz_measured "no msr PMU or perf stat -e msr/tsc/ failed on this host"
fi
rm -r "$ev/uncore_imc_0" && mkdir -p "$ev/uncore_imc_0" && echo 17 > "$ev/uncore_imc_0/type"

# resctrl: empty mount point = not mounted; with info/ = mounted
out=$("$tgctl" setup --dry-run --profile icelake 2>&1)
if echo "$out" | grep -q '^# resctrl: not mounted' && echo "$out" | grep -q '^# libpqos: '; then ok resctrl_absent
else ko resctrl_absent; fi
mkdir -p /sys/fs/resctrl/info/MB
out=$("$tgctl" setup --dry-run --profile icelake 2>&1)
if echo "$out" | grep -q '^# resctrl: mounted - tgroup leaves RDT to it' && echo "$out" | grep -q '^# libpqos: '; then
	ok resctrl_mounted
else ko resctrl_mounted; fi
rm -r /sys/fs/resctrl/info

# the write, to a fake mount, in one write(2) of space-separated pairs:
# every profile's full set, compared key by key with the fixture's values
# (e.g. CLX ocr_dram_read_config1 = 0x3f84000491, ocr_nvm_read_config1 =
# 0x3F80400491); a module without ocr_*_config1 keys (an older tgroup.ko)
# gets everything but the OCR pair, and is told so
fake=$(mktemp -d)
trap 'rm -rf "$fake" "$scratch"' EXIT
echo ok > "$fake/last_cmd_status"
for p in cascadelakex:cascadelake icelakex:icelake sapphirerapids:sapphirerapids; do
	IFS=: read -r model prof <<<"$p"
	want=$(expect "$model" | sort)
	printf 'period_ms=10\nocr_dram_read_config1=0\n' > "$fake/tgroup.config"
	out=$("$tgctl" -m "$fake" setup --profile "$prof" 2>&1); rc=$?
	got=$(tr ' ' '\n' < "$fake/tgroup.config" | sort)
	if [ $rc = 0 ] && [ "$got" = "$want" ] && [ "$(wc -l < "$fake/tgroup.config")" = 0 ]; then
		ok "write_${prof}"
	else ko "write_${prof}" "rc $rc; diff (expected vs written): $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"; fi
done
want=$(expect cascadelakex | grep -v -e '^ocr_' -e '^perf_type=' | sort)
printf 'period_ms=10\nperf_type=4\n' > "$fake/tgroup.config"
out=$("$tgctl" -m "$fake" setup --profile cascadelake 2>&1); rc=$?
got=$(tr ' ' '\n' < "$fake/tgroup.config" | sort)
if [ $rc = 3 ] && echo "$out" | grep -q "^# off: perf: this tgroup.ko has no ocr_\*_config1 keys" && [ "$got" = "$want" ] &&
	echo "$out" | grep -q "^# not written: ocr_nvm_read_config1=$((0x3F80400491)) (this tgroup.ko has no ocr_\*_config1 keys"; then
	ok write_without_config1
else ko write_without_config1 "rc $rc, wrote \"$(cat "$fake/tgroup.config")\""; fi
