#!/bin/bash
# The module's build-time guards fail the build when they should
# (docs/testing.md, make check step 1c). Each builds one object of a copy of
# the module, changed the way the guard is meant to catch, against KDIR:
#  - probe_prototypes: a fork, exit, context-switch or SIGCONT probe whose prototype
#    no longer matches the kernel's tracepoint (check_trace_callback_type_*)
#    does not compile; the unchanged object does;
#  - preempt_rt: on a PREEMPT_RT kernel (its autoconf emulated with
#    -DCONFIG_PREEMPT_RT) engine.o does not compile, saying why, and
#    dkms.conf excludes such kernels.
# Prints "PASS name" or "FAIL name: reason" per check.
# Usage: tests/build-guards.sh KDIR
set -uo pipefail
cd "$(dirname "$0")/.."
kdir=$1
top=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tg-guards.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# copy the sources into $tmp/$1 (no objects)
copy() {
	mkdir -p "$tmp/$1"
	cp -r Kbuild module cgroup-ui core pmdk-hooks "$tmp/$1/"
	find "$tmp/$1" \( -name '*.o' -o -name '.*.cmd' -o -name '*.ko' \) -delete
}

# build object $2 of copy $1 (extra make arguments after); output in $tmp/$1.log
build() {
	local d=$1 obj=$2
	shift 2
	make --no-print-directory -C "$kdir" M="$tmp/$d" "$@" "$obj" >"$tmp/$d.log" 2>&1
}

# the probes: file, function, a changed prototype (one more argument)
probes=(
	"module/membership.c tg_on_newtask"
	"module/membership.c tg_on_exit"
	"module/pqr.c tg_on_switch"
	"module/actuators/cpu.c tg_on_signal"
)
bad=""
copy plain
for f in module/membership.c module/pqr.c module/actuators/cpu.c; do
	build plain "${f%.c}.o" || bad="$bad unchanged ${f##*/} does not build ($(grep -m1 error: "$tmp/plain.log"));"
done
i=0
for p in "${probes[@]}"; do
	read -r f fn <<<"$p"
	d=mut$i
	i=$((i + 1))
	copy "$d"
	# void fn(void *data, ...) -> void fn(void *data, int tg_extra, ...)
	sed -i "s/^static void $fn(void \*data, /static void $fn(void *data, int tg_extra, /" "$tmp/$d/$f"
	if ! grep -q "^static void $fn(void \*data, int tg_extra, " "$tmp/$d/$f"; then
		bad="$bad $fn not found in $f;"
	elif build "$d" "${f%.c}.o"; then
		bad="$bad $fn with a wrong prototype still builds;"
	elif ! grep -q "check_trace_callback_type" "$tmp/$d.log"; then
		bad="$bad $fn: the build failed for another reason ($(grep -m1 error: "$tmp/$d.log"));"
	fi
done
if [ -z "$bad" ]; then echo "PASS probe_prototypes"; else echo "FAIL probe_prototypes:$bad"; fi

bad=""
build plain module/engine.o || bad="$bad engine.o does not build;"
copy rt
if build rt module/engine.o KCFLAGS=-DCONFIG_PREEMPT_RT=1; then
	bad="$bad engine.o builds for PREEMPT_RT;"
elif ! grep -q "does not support PREEMPT_RT" "$tmp/rt.log"; then
	bad="$bad the PREEMPT_RT build failed for another reason ($(grep -m1 error: "$tmp/rt.log"));"
fi
grep -qE '^BUILD_EXCLUSIVE_CONFIG=".*!CONFIG_PREEMPT_RT' "$top/dkms.conf" ||
	bad="$bad dkms.conf does not exclude CONFIG_PREEMPT_RT;"
if [ -z "$bad" ]; then echo "PASS preempt_rt"; else echo "FAIL preempt_rt:$bad"; fi
