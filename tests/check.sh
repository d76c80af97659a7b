#!/bin/bash
# make check: every test tgroup has, in order of cost. Each step reports
# its own tests; the last line is the total, "N passed, N failed".
set -uo pipefail
# warnings are errors here (release builds leave -Werror out: Makefile WERROR)
export WERROR=1
cd "$(dirname "$0")/.."
top=$PWD
build=$top/build
mkdir -p "$build"
pass=0
fail=0
failed=()

# The in-guest suites, for the cloud kernel (step 5) and, without nri, the
# debug kernel (step 6, DBG_SUITES overrides).
suites=${VM_SUITES:-fs,lifecycle,regulate,pmdk,throttle,userland,nri}

ok() { pass=$((pass + 1)); echo "PASS $1"; }
# lap STEP: the time at which STEP starts (where make check's time goes)
lap() { echo "time: step $1 starts at ${SECONDS} s"; }
# host_speed: one core's speed now (sha256 of 300 MB), at the start and the
# end: the shared host's speed varies by 1.5-2x from day to day, and with it
# every step's time (docs/testing.md); a run's times are read beside it
host_speed() {
	local t0
	t0=$(date +%s%N)
	head -c 300M /dev/zero | sha256sum >/dev/null
	echo "time: host reference $1: sha256 of 300 MB on one core in $((($(date +%s%N) - t0) / 1000000)) ms (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}
# vm_count OUT CONSOLE LABEL NAME: a guest run's result (OUT, tests/vm/run.sh's
# output) into the totals, its lines and the passes listed from CONSOLE
# under LABEL ("vm: " -> "LABEL: ", "PASS LABEL/..."); a failure is named NAME
vm_count() {
	local vp vf
	echo "$1" | sed "s/^vm: /$3: /"
	grep '^TGTEST: PASS ' "$2" 2>/dev/null | sed "s/^TGTEST: PASS /PASS $3\//"
	read -r vp vf < <(echo "$1" | sed -n 's/^vm: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
	pass=$((pass + ${vp:-0}))
	fail=$((fail + ${vf:-1}))
	[ "${vf:-1}" = 0 ] || failed+=("$4 (see ${2#"$top"/})")
}
ko() { fail=$((fail + 1)); failed+=("$1"); echo "FAIL $1${2:+: $2}"; }
# Ctrl-C or a TERM: the steps in the background (the guests side by side,
# check-host, the package test, the fresh demo) ignore SIGINT, as a script's
# background jobs do, and a guest's qemu runs under timeout(1), which puts
# itself in a process group of its own (so Ctrl-C misses it) and outlives
# a killed run.sh as an orphan. Every process this run starts carries
# TG_CHECK_RUN in its environment: on INT or TERM they are all stopped (TERM,
# then KILL a second later) and the guest lock goes with them. A TERM that
# arrives during a foreground step takes effect when that step ends (bash).
TG_CHECK_RUN=$$.$RANDOM$RANDOM
export TG_CHECK_RUN
check_run_pids() {
	grep -lsz "^TG_CHECK_RUN=$TG_CHECK_RUN\$" /proc/[0-9]*/environ | sed 's|^/proc/\([0-9]*\)/environ$|\1|' |
		grep -vx -e "$$" -e "$BASHPID"
}
interrupted() {
	local p
	trap - INT TERM
	for p in $(check_run_pids); do kill -TERM "$p" 2>/dev/null; done
	sleep 1
	for p in $(check_run_pids); do kill -KILL "$p" 2>/dev/null; done
	echo "make check: interrupted ($1), every process it started stopped"
	exit $((128 + $2))
}
trap 'interrupted INT 2' INT
trap 'interrupted TERM 15' TERM

host_speed start
kver=$(tests/vm/kver.sh) || { echo "no Debian cloud kernel image + headers (make deps)"; echo "0 passed, 1 failed"; exit 1; }

lap 1
# 1. tgroup.ko against the guest kernel's headers, warning-free with W=1.
log=$build/module-build.log
if make --no-print-directory -j"$(nproc)" -C "/lib/modules/$kver/build" M="$top" W=1 modules >"$log" 2>&1; then
	if grep -E 'warning:|error:' "$log"; then ko module_build_w1 "warnings (see $log)"; else ok module_build_w1; fi
else
	tail -20 "$log"; ko module_build_w1 "build failed"
fi

lap 1a
# 1a. The layout (docs/module.md): cgroup-ui/ -> module/ one way, through
#     tgroup.h; plug-ins independent; only registry.c names them. Read from
#     the objects step 1 made.
if out=$(tests/layout.sh 2>&1); then ok module_layout; else echo "$out"; ko module_layout "see above"; fi

lap 1c
# 1c. The build-time guards fail the build when they should: a probe whose
#     prototype differs from its tracepoint's, a PREEMPT_RT kernel.
out=$(tests/build-guards.sh "/lib/modules/$kver/build" 2>&1)
while read -r t; do ok "module_guard/$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
while read -r t; do ko "module_guard/${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
grep -qE '^(PASS|FAIL) ' <<<"$out" || ko module_guard "no results: $(echo "$out" | head -3)"

lap 1b
# 1b. The other supported kernel: Debian 12's 6.12 cloud headers (make deps
#     installs them), built in a copy so objects never mix. Never skipped.
h612=$(ls -d /usr/src/linux-headers-6.12*-cloud-amd64 2>/dev/null | sort -V | tail -n1)
if [ -n "$h612" ]; then
	src=$build/src-6.12
	rm -rf "$src" && mkdir -p "$src"
	cp -r Kbuild module cgroup-ui core pmdk-hooks "$src/"
	find "$src" \( -name '*.o' -o -name '.*.cmd' -o -name '*.ko' \) -delete
	if make --no-print-directory -j"$(nproc)" -C "$h612" M="$src" W=1 modules >"$build/module-build-6.12.log" 2>&1; then
		if grep -E 'warning:|error:' "$build/module-build-6.12.log"; then ko module_build_6_12_w1 "warnings"
		else ok "module_build_6_12_w1 ($(basename "$h612"))"; fi
	else
		tail -20 "$build/module-build-6.12.log"; ko module_build_6_12_w1 "build failed"
	fi
else
	ko module_build_6_12_w1 "no 6.12 cloud headers installed (make deps)"
fi

lap 2
# 2. core/ is freestanding: compiler headers only, kernel-like flags, and the
#    objects reference no symbol outside core/.
rm -rf "$build/freestanding" && mkdir -p "$build/freestanding/obj"
fs_ok=1
for f in core/*.c; do
	o=$build/freestanding/obj/$(basename "$f" .c).o
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin -mgeneral-regs-only \
		-nostdinc -isystem "$(gcc -print-file-name=include)" -Icore -c "$f" -o "$o" || fs_ok=0
done
ld -r -o "$build/freestanding/core.o" "$build"/freestanding/obj/*.o || fs_ok=0
undef=$(nm -u "$build/freestanding/core.o" 2>/dev/null)
if [ $fs_ok = 1 ] && [ -z "$undef" ]; then ok core_freestanding; else ko core_freestanding "undefined: $undef"; fi

lap 3
# 3. core/ unit tests (cmocka), one binary per tests/unit/test_*.c.
if make --no-print-directory -s user >/dev/null; then
	for src in tests/unit/test_*.c; do
		bin=$build/$(basename "$src" .c)
		if ! gcc -O1 -g -Wall -Wextra -Werror -Icore -o "$bin" "$src" "$build/libtgcore.a" -lcmocka; then
			ko "unit_build/$(basename "$src" .c)"; continue
		fi
		out=$("$bin" 2>&1)
		while read -r t; do ok "unit/$t"; done < <(echo "$out" | sed -n 's/^\[       OK \] //p')
		while read -r t; do ko "unit/$t"; done < <(echo "$out" | sed -n 's/^\[  FAILED  \] \([a-z_0-9]*\)$/\1/p')
		echo "$out" | grep -B1 -A3 -E '^\[  (ERROR|FAILED) ' | grep -v '^\[  (PASSED|FAILED) \]' | head -20
		grep -q '^\[  PASSED  \]' <<<"$out" || ko "unit_runner/$(basename "$src" .c)" "no summary"
	done
else
	ko unit_build "libtgcore.a did not build"
fi

lap 3g
# 3g. eval/ on the host: the model's solver, the oracle controller and the
#     control law's 60 s steady state in the host simulator
#     (eval/check-host.sh; docs/eval.md, docs/control-law.md). Its
#     simulations are deterministic (seeded) and need no quiet host: built
#     here, they run at nice 19 in the background, beside steps 3a-3f and
#     then the guests of steps 5 and 5a (which leave about 40 % of the host idle and, at
#     nice 0, keep the CPU whenever they want it); their lines print after
#     those guests' (check_host_join). About 70 s of 2 cores alone.
check_host_pid=
if make --no-print-directory -s "$build/tgeval-host" "$build/tgsim" >"$build/check-host-build.log" 2>&1; then
	nice -n 19 eval/check-host.sh > "$build/check-host.out" 2>&1 &
	check_host_pid=$!
else
	tail -20 "$build/check-host-build.log"; ko eval_host_build "tgsim or tgeval-host did not build"
fi
check_host_join() {
	local line
	[ -n "$check_host_pid" ] || return 0
	wait "$check_host_pid" || echo "check-host.sh exited $?"
	while read -r line; do
		case $line in
		PASS\ *) ok "${line#PASS }" ;;
		FAIL\ *) t=${line#FAIL }; ko "${t%%:*}" "${t#*: }" ;;
		esac
	done < "$build/check-host.out"
	grep -qx 'END check-host' "$build/check-host.out" || ko eval_host "did not finish: $(tail -3 "$build/check-host.out")"
}

lap 3a
# 3a. pmdk-hooks over Debian's libpmem, preloaded (cmocka).
if make --no-print-directory -s "$build/libtgpmem.so" "$build/test_tgpmem" >"$build/pmdk.log" 2>&1; then
	out=$(LD_PRELOAD="$build/libtgpmem.so" "$build/test_tgpmem" 2>&1)
	while read -r t; do ok "pmdk/$t"; done < <(echo "$out" | sed -n 's/^\[       OK \] //p')
	while read -r t; do ko "pmdk/$t"; done < <(echo "$out" | sed -n 's/^\[  FAILED  \] \([a-z_0-9]*\)$/\1/p')
	echo "$out" | grep -A3 -E '^\[  ERROR' | head -10
	grep -q '^\[  PASSED  \]' <<<"$out" || ko pmdk_runner "no summary"
else
	tail -20 "$build/pmdk.log"; ko pmdk_build "libtgpmem or its test did not build"
fi

lap 3c
# 3c. userland/: libtgroup's host tests (cmocka: parsers, units, a fake
#     mount), tgctl validate's verdict (cmocka, fixture counters) and tgctl setup against the perf JSON fixtures in a private
#     mount namespace (faked sysfs), tgroup-exporter on a fake mount (values,
#     promtool lint, HTTP scrape). The real-mount tests are the in-guest
#     suite "userland" (step 5).
if make --no-print-directory -s userland "$build/userland/test_libtgroup" "$build/userland/test_validate" "$build/userland/test_apply" \
	>"$build/userland.log" 2>&1; then
	ok userland_build
	# libtgroup; tgctl validate's verdict and measurement on fixture counters
	for u in libtgroup:test_libtgroup validate:test_validate apply:test_apply; do
		out=$("$build/userland/${u#*:}" 2>&1)
		while read -r t; do ok "${u%%:*}/$t"; done < <(echo "$out" | sed -n 's/^\[       OK \] //p')
		while read -r t; do ko "${u%%:*}/$t"; done < <(echo "$out" | sed -n 's/^\[  FAILED  \] \([a-z_0-9]*\)$/\1/p')
		echo "$out" | grep -A3 -E '^\[  ERROR' | head -10
		grep -q '^\[  PASSED  \]' <<<"$out" || ko "${u%%:*}_runner" "no summary"
	done
	# release builds leave -Werror out (a newer compiler's warning must not
	# break make install or a package build); make check keeps it
	if ! grep -q -- -Werror <<<"$(make --no-print-directory -s -n -B WERROR=0 "$build/userland/tgctl")" &&
		grep -q -- -Werror <<<"$(make --no-print-directory -s -n -B WERROR=1 "$build/userland/tgctl")"; then
		ok werror_only_in_check
	else ko werror_only_in_check "make -n shows -Werror without WERROR=1 (or not with it)"; fi
	out=$(userland/tests/setup.sh "$build/userland/tgctl" 2>&1)
	while read -r t; do ok "$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
	while read -r t; do ko "${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
	grep -q '^PASS ' <<<"$out" || ko tgctl_setup "no results: $(echo "$out" | head -3)"
	out=$(userland/tests/exporter.sh "$build/userland/tgroup-exporter" 2>&1)
	while read -r t; do ok "$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
	while read -r t; do ko "${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
	grep -q '^PASS ' <<<"$out" || ko exporter "no results: $(echo "$out" | head -3)"
else
	tail -20 "$build/userland.log"; ko userland_build "libtgroup or tgctl did not build (see $build/userland.log)"
fi

lap 3f
# 3f. userland/nri: tgroup-nri (Go). go vet, the binary, and go test: a
#     fake runtime (nri's adaptation on a unix socket) driving the plugin
#     against a directory stand-in of the mount and of the cgroup tree; the
#     Helm chart (deploy/helm/tgroup) linted and rendered by helm (built
#     from its Go module by make deps: scripts/helm.sh) with its defaults
#     and each ci/*-values.yaml, every manifest decoded strictly into
#     k8s.io/api's types and its rules checked (package deploytest); the
#     Containerfile checked statically (deploy/check-containerfile.sh).
#     Offline: the modules come from the cache make deps filled
#     (GOPROXY=off); the toolchain from scripts/go.sh. CGO_ENABLED=0
#     throughout, as the guest's nri_test (step 5): one set of compiled
#     packages in Go's build cache (first run about 2 min, then about 10 s).
if gobin=$(scripts/go.sh 2>"$build/nri-go.log"); then
	export GOTOOLCHAIN=local
	mkdir -p "$build/userland"
	goenv=(env GOPROXY=off GOFLAGS=-mod=readonly CGO_ENABLED=0 ${NRI_GOMAXPROCS:+GOMAXPROCS=$NRI_GOMAXPROCS} nice -n 10 "$gobin")
	if out=$(cd userland/nri && "${goenv[@]}" vet ./... 2>&1); then ok nri/vet; else echo "$out" | head -20; ko nri/vet; fi
	if out=$(cd userland/nri && "${goenv[@]}" build -o "$build/userland/tgroup-nri" ./cmd/tgroup-nri 2>&1); then ok nri/build
	else echo "$out" | head -20; ko nri/build; fi
	chart=deploy/helm/tgroup
	rm -rf "$build/helm" && mkdir -p "$build/helm"
	if helm=$(scripts/helm.sh 2>"$build/helm.log"); then
		# helm's own state in the build directory, not the user's
		export HELM_CACHE_HOME=$build/helm-home/cache HELM_CONFIG_HOME=$build/helm-home/config HELM_DATA_HOME=$build/helm-home/data
		for v in default $chart/ci/*-values.yaml; do
			n=default args=()
			[ "$v" = default ] || { n=$(basename "$v" -values.yaml); args=(-f "$v"); }
			if out=$("$helm" lint --strict "$chart" "${args[@]}" 2>&1); then ok "chart/lint_$n"; else echo "$out" | tail -8; ko "chart/lint_$n"; fi
			if out=$("$helm" template tgroup "$chart" --namespace tgroup "${args[@]}" 2>&1 >"$build/helm/$n.yaml"); then ok "chart/template_$n"
			else echo "$out" | tail -8; rm -f "$build/helm/$n.yaml"; ko "chart/template_$n"; fi
		done
		# a misspelt value is refused by the chart's values.schema.json
		if out=$("$helm" template tgroup "$chart" --set nri.polcy.rules=x 2>&1); then ko chart/schema_rejects_a_misspelt_value "rendered"
		elif grep -q "additional properties 'polcy' not allowed" <<< "$out"; then ok chart/schema_rejects_a_misspelt_value
		else echo "$out" | tail -3; ko chart/schema_rejects_a_misspelt_value "another error"; fi
		# module.mount reaches a root shell on the host (the loader): the
		# schema takes a plain absolute path only
		if out=$("$helm" template tgroup "$chart" --set 'module.mount=/x;reboot' 2>&1); then ko chart/schema_rejects_a_shell_mount_path "rendered"
		elif grep -q "at '/module/mount'" <<< "$out"; then ok chart/schema_rejects_a_shell_mount_path
		else echo "$out" | tail -3; ko chart/schema_rejects_a_shell_mount_path "another error"; fi
		# a NetworkPolicy rule without peers would let everyone in
		if out=$("$helm" template tgroup "$chart" --set networkPolicy.enabled=true --set-json 'networkPolicy.from=[]' 2>&1); then ko chart/network_policy_needs_peers "rendered"
		elif grep -q "networkPolicy.from: name the peers" <<< "$out"; then ok chart/network_policy_needs_peers
		else echo "$out" | tail -3; ko chart/network_policy_needs_peers "another error"; fi
	else
		cat "$build/helm.log"; ko chart_helm "no helm (make deps builds it: scripts/helm.sh --install)"
	fi
	out=$(cd userland/nri && TG_CHART_RENDERED=$build/helm TG_NRI_BIN=$build/userland/tgroup-nri "${goenv[@]}" test -count=1 -v ./... 2>&1)
	echo "$out" > "$build/nri-go-test.log"
	while read -r t; do ok "nri/$t"; done < <(echo "$out" | sed -n 's/^ *--- PASS: \([^ ]*\) .*/\1/p')
	while read -r t; do ko "nri/$t"; done < <(echo "$out" | sed -n 's/^ *--- FAIL: \([^ ]*\) .*/\1/p')
	echo "$out" | grep -E '^\s+\S+_test.go:[0-9]+: ' | grep -v 'plugin: ' | head -20
	for p in tgroup/userland/nri tgroup/userland/nri/deploytest; do
		# a here-string, not a pipe: grep -q stops reading at the match and, with
		# pipefail, echo's SIGPIPE on the long output would count as no match
		grep -qE "^ok\s+$p\s" <<< "$out" || { echo "$out" | grep -E "^(FAIL|panic|fatal)|\s$p\s" | head -5; ko "nri/go_test $p" "no ok line (the whole output: $build/nri-go-test.log)"; }
	done
else
	cat "$build/nri-go.log"; ko nri_toolchain "no Go toolchain (make deps)"
fi
out=$(deploy/check-containerfile.sh 2>&1)
while read -r t; do ok "$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
while read -r t; do ko "${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
grep -q '^PASS ' <<< "$out" || ko containerfile "no results: $(echo "$out" | head -3)"

lap 3d
# 3d. deps.sh --with-6.12 reuses the configured mirror (scripts/apt-mirror.sh
#     on faked apt directories; nothing is written to /etc/apt).
out=$(tests/apt-mirror.sh 2>&1)
while read -r t; do ok "$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
while read -r t; do ko "${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
grep -q '^PASS ' <<<"$out" || ko apt_mirror "no results"

# 3b, 4, 5v and 3e need no guest and little of the host: they run beside
# the k8s guest and the package test (steps 5e and 5d), which time nothing,
# and their results print after the k8s step's (host_late_join). Only 3e
# builds in the tree (tests/install.sh: the module, in-tree kbuild): it
# starts once the package test's make deb has copied the tree and built
# the packages; the k8s guest boots the initramfs step 5 made.
host_late_tools() {
	lap 3b
	# 3b. The parser fuzzer, bounded (FUZZ_SECONDS, default 15).
	if make --no-print-directory -s fuzz >"$build/fuzz.log" 2>&1; then
		ok "fuzz_parse ($(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz.log") inputs)"
	else
		tail -30 "$build/fuzz.log"; ko fuzz_parse "crash or build failure (see $build/fuzz.log)"
	fi

	lap 4
	# 4. checkpatch --strict.
	if scripts/checkpatch.sh >"$build/checkpatch.log" 2>&1; then ok checkpatch_strict
	else grep -v 'total: 0 errors, 0 warnings, 0 checks' "$build/checkpatch.log" | head -20; ko checkpatch_strict; fi

	lap 5v
	# 5v. The guest runner's own logic on the host: its reading of QEMU's
	#     registers when a guest stalls (tests/vm/int3-test.sh).
	if out=$(tests/vm/int3-test.sh 2>&1); then
		while read -r t; do ok "vm_runner/$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
	else
		echo "$out"; ko vm_runner_int3 "see above"
	fi
}
host_late() {
	pass=0 fail=0 failed=()
	host_late_tools
	# make deb copies the tree (git ls-files) while this would build the
	# module in it (tests/install.sh): 3e waits until the packages are built
	while kill -0 "$deb_pid" 2>/dev/null && ! grep -q '^deb: packages built' "$build/deb.out"; do sleep 2; done
	lap 3e
	# 3e. Installing: make install into a DESTDIR, systemd-analyze verify of the
	#     units, the kernel checks of make module/install-module, dkms build in
	#     private trees against the cloud headers; tgroup-service's diagnoses
	#     (no headers, another kernel's module, Secure Boot) with stand-ins.
	out=$(tests/install.sh 2>&1; tests/deb/service.sh 2>&1)
	while read -r t; do ok "$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
	while read -r t; do ko "${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
	grep -q '^PASS ' <<<"$out" || { echo "$out" | tail -5; ko install "no results"; }

	echo "$pass $fail" > "$build/host-late.count"
	printf '%s\n' "${failed[@]}" > "$build/host-late.failed"
}
host_late_join() {
	local hp hf t
	wait "$1"
	cat "$build/host-late.out"
	read -r hp hf < "$build/host-late.count" || { hp=0 hf=1; failed+=("host_late (no result)"); }
	pass=$((pass + hp)) fail=$((fail + hf))
	while read -r t; do [ -z "$t" ] || failed+=("$t"); done < "$build/host-late.failed"
}

# guest_lock_take / guest_lock_drop: with TG_GUEST_LOCK (one guest at a
# time across checkouts), the guests this script runs side by side hold the
# lock together; their tests/vm/run.sh see TG_GUEST_LOCK_HELD
guest_lock=
guest_lock_take() {
	[ -n "${TG_GUEST_LOCK:-}" ] && [ -z "${TG_GUEST_LOCK_HELD:-}" ] || return 0
	echo "check: waiting for the guest lock $TG_GUEST_LOCK ($1)"
	if exec 7>>"$TG_GUEST_LOCK" && flock 7; then
		export TG_GUEST_LOCK_HELD=1
		guest_lock=1
	else
		echo "check: could not take the guest lock $TG_GUEST_LOCK: $1 each wait for it"
	fi
}
guest_lock_drop() {
	[ -n "$guest_lock" ] || return 0
	flock -u 7; exec 7>&-
	unset TG_GUEST_LOCK_HELD
	guest_lock=
}

lap 5
# 5. In-guest suites under QEMU, on the cloud kernel; and, side by side
#    with it, step 5a. Each guest leaves most of the host idle (37 % of its
#    2 cores on average, 27 Nov: the suites wait on timers, periods and
#    quotas), so the two together take about 235 s against 215 + 195 s one
#    after the other. The throttle suite's release and overrun-debt bounds
#    scale with a free process timed in the same guest just before; its
#    fixed bounds held with 4x margin or more side by side (27 Nov: io_uring
#    NOPs 41 ms of 200, freezes 7 ms of 2 s). VM_SERIAL=1 runs them one
#    after the other.
# vm_build LABEL KVER: the initramfs for KVER into $initramfs ("" if it did
# not build). One at a time: both builds share the tree's user space.
vm_build() {
	if initramfs=$(make --no-print-directory -s GUEST_KVER="$2" initramfs 2>"$build/initramfs-$1.log" | tail -n1) &&
		[ -s "$initramfs" ]; then
		return 0
	fi
	tail -20 "$build/initramfs-$1.log"; ko "${1}_build" "initramfs for $2 did not build"
	initramfs=
	return 1
}
# vm_log LABEL: the console of guest LABEL (build/vm/console.log for vm)
vm_log() { if [ "$1" = vm ]; then echo "$build/vm/console.log"; else echo "$build/vm/console-$1.log"; fi; }
# vm_start LABEL KVER INITRAMFS SUITES: the guest in the background (its
# pid in $started), tests/vm/run.sh's output in build/vm-LABEL.out
vm_start() {
	local log
	log=$(vm_log "$1")
	rm -f "$log" "$log.txt"	# no earlier run's PASS lines if this one never boots
	TG_VM_LOG=$log tests/vm/run.sh "$2" "$3" "$4" > "$build/vm-$1.out" &
	started=$!
}
# vm_join LABEL PID: the guest's results into the totals
vm_join() {
	local log
	log=$(vm_log "$1")
	wait "$2"
	vm_count "$(cat "$build/vm-$1.out")" "$log.txt" "$1" "$1"
}
vm_pid= vm612_pid=
vm_build vm "$kver" && vm_initramfs=$initramfs	# the k8s suite boots it too (5e)
# 5a. The same module on Debian 12's 6.12 cloud kernel: the suites whose
#     kernel paths differ between 6.1 and 6.12 (VM_SUITES_612, default fs,
#     lifecycle, throttle, pmdk, userland: the filesystem, membership and
#     exit hooks, the context-switch and CPU-quota path, the VFS/DAX hooks,
#     the tools on the real mount); regulate (the control law over inject,
#     the same core/ code) and nri (user space over fs's paths) run on 6.1
#     only. About 3 min. Never skipped: no 6.12 kernel is a failure.
k612=$(TG_KSERIES=6.12 tests/vm/kver.sh)
case $k612 in
6.12.*) vm_build vm612 "$k612" && vm612_initramfs=$initramfs ;;
*) ko vm612 "no Debian 6.12 cloud kernel image + headers (make deps)" ;;
esac
[ -z "${vm_initramfs:-}${vm612_initramfs:-}" ] || guest_lock_take "the guests of steps 5 and 5a"
[ -z "${vm_initramfs:-}" ] || { vm_start vm "$kver" "$vm_initramfs" "$suites"; vm_pid=$started; }
if [ "${VM_SERIAL:-0}" = 1 ] && [ -n "$vm_pid" ]; then vm_join vm "$vm_pid"; vm_pid=; fi
lap 5a
[ -z "${vm612_initramfs:-}" ] ||
	{ vm_start vm612 "$k612" "$vm612_initramfs" "${VM_SUITES_612:-fs,lifecycle,throttle,pmdk,userland}"; vm612_pid=$started; }
[ -z "$vm_pid" ] || vm_join vm "$vm_pid"
[ -z "$vm612_pid" ] || vm_join vm612 "$vm612_pid"
guest_lock_drop
check_host_join

lap 5d
# 5d. The Debian packages as an operator installs them (tests/deb/install.sh):
#     make deb, lintian, apt-get install into a copy of a cached Debian 12
#     root (DKMS builds for its 6.1 and 6.12 kernels), then that root booted
#     under QEMU with systemd on each kernel (the unit at boot, restart,
#     reload, stop, start, a failing setup). About 5 min.
#     It runs beside the k8s guest (step 5e): neither times anything (their
#     bounds are timeouts of minutes), and the k8s guest keeps one host core
#     (single-threaded TCG), so the two together take about 2 min less than
#     one after the other (27 Nov: 425-485 s against 303 + 316 s). Its lines
#     print after the k8s step's. With TG_GUEST_LOCK (one guest at a time
#     across checkouts) the pair holds the lock together.
guest_lock_take "deb and k8s"
tests/deb/install.sh > "$build/deb.out" 2>&1 &
deb_pid=$!
rm -f "$build/host-late.count" "$build/host-late.failed"
host_late > "$build/host-late.out" 2>&1 &
host_late_pid=$!
deb_join() {
	local out
	wait "$deb_pid"
	out=$(cat "$build/deb.out")
	echo "$out" | grep '^deb: '
	while read -r t; do ok "$t"; done < <(echo "$out" | sed -n 's/^PASS //p')
	while read -r t; do ko "${t%%:*}" "${t#*: }"; done < <(echo "$out" | sed -n 's/^FAIL //p')
	grep -q '^PASS deb/make_deb' <<<"$out" || { echo "$out" | tail -20; ko deb "no results"; }
}

lap 5e
# 5e. The k8s e2e suite (tests/guest/k8s, docs/kubernetes.md): tgroup-nri
#     against containerd (each version on the disk), runc and crictl in a
#     guest of its own, with the runtimes' disk (tests/e2e/runtimes.sh:
#     built from their Go modules once into ~/.cache/tgroup, about 5 min
#     the first time, progress on the terminal). critest's NRI tests run
#     once per runtime build: after they pass, a marker in the cache says
#     so and later runs print a SKIP line naming it (TG_K8S_CRITEST=1 runs
#     them again). TG_K8S=0 skips the step.
if [ "${TG_K8S:-1}" = 0 ]; then
	echo "SKIP k8s: the k8s e2e suite (TG_K8S=0)"
elif [ -z "${vm_initramfs:-}" ] || [ ! -s "$vm_initramfs" ]; then
	ko k8s_build "no initramfs (see step 5)"
elif ! rdir=$(tests/e2e/runtimes.sh 2> >(tee "$build/k8s-runtimes.log" >&2)); then
	ko k8s_runtimes "containerd/runc/crictl did not build (see $build/k8s-runtimes.log): the k8s suite did not run"
else
	crit=
	if [ -e "$rdir/critest-passed" ] && [ "${TG_K8S_CRITEST:-0}" != 1 ]; then
		echo "SKIP k8s/critest_nri: passed for this runtime build ($(head -n1 "$rdir/critest-passed"); TG_K8S_CRITEST=1 runs it again)"
	else
		crit=tg.k8s_critest=1
	fi
	# single-threaded TCG: no vCPU runs a stale translation of kernel text
	# another has just patched (docs/testing.md, "A guest hang"); 15 % slower
	vmout=$(TG_VM_DISK=$rdir/disk.img TG_VM_LOG=$build/vm/k8s-console.log TG_VM_TIMEOUT=${K8S_VM_TIMEOUT:-1200} \
		TG_TCG_THREAD=${TG_TCG_THREAD:-single} TG_GUEST_ARGS="$crit" tests/vm/run.sh "$kver" "$vm_initramfs" k8s)
	vm_count "$vmout" "$build/vm/k8s-console.log.txt" vm k8s
	# critest passed on every version the guest ran: remember it for this build
	[ -z "$crit" ] || tests/e2e/critest-mark.sh "$build/vm/k8s-console.log.txt" "$rdir"
fi

host_late_join "$host_late_pid"
deb_join
guest_lock_drop

lap 5b
# 5b. eval-quick: three pairs of MT²'s matrix on the emulated platform
#     (eval/), no control and tgroup on the profile's fixed thresholds, one
#     run each, asserting what held on every run (docs/eval.md, "make
#     eval-quick"). About 2 min. TG_EVAL_QUICK=0 skips it.
if [ "${TG_EVAL_QUICK:-1}" != 0 ]; then
	if out=$(make --no-print-directory -s GUEST_KVER="$kver" eval-quick 2>&1); then
		echo "$out" | grep -E '^(\||NOTE)'; ok eval_quick
	else
		echo "$out" | tail -20; ko eval_quick "see above (console: build/vm/eval-quick-optane-clx.log.txt)"
	fi
else
	echo "SKIP eval_quick (TG_EVAL_QUICK=0)"
fi

lap 5c
# 5c. make demo from a fresh clone of the committed HEAD with an empty build
#     directory (tests/fresh-demo.sh). About 1.5 min. TG_FRESH_DEMO=0 skips it.
#     It runs beside the debug-kernel lane (step 6), niced (its checks are
#     its output's shape, not its timing: the demo's control is judged by
#     eval-quick, step 5b; its guest may take up to 5 min to reach init,
#     not 90 s), and its result prints after the lane's. The lane's two
#     guests keep the host near 95 % busy (28 Nov: the lane 391 s, the demo
#     beside it 263 s; one lane guest kept it at 67 %, 511 s).
fresh_pid=
dbg_on=
if [ "${CI:-}" = true ] || [ "${TG_DEBUG_LANE:-1}" != 0 ]; then dbg_on=1; fi
if [ "${TG_FRESH_DEMO:-1}" != 0 ] || [ -n "$dbg_on" ]; then guest_lock_take "the fresh demo and the debug lane"; fi
if [ "${TG_FRESH_DEMO:-1}" != 0 ]; then
	TG_VM_BOOT_TIMEOUT=${TG_FRESH_BOOT_TIMEOUT:-300} tests/fresh-demo.sh > "$build/fresh-demo.out" 2>&1 &
	fresh_pid=$!
else
	echo "SKIP fresh_clone_demo (TG_FRESH_DEMO=0)"
fi
fresh_join() {
	[ -n "$fresh_pid" ] || return 0
	if wait "$fresh_pid"; then tail -1 "$build/fresh-demo.out"; ok fresh_clone_demo
	else cat "$build/fresh-demo.out"; ko fresh_clone_demo; fi
}

lap 6
# 6. The debug-kernel lane: the same suites on Debian's 6.1 built with
#    lockdep, KASAN, kmemleak and debugobjects (built once, about half an
#    hour on 2 cores, then cached in ~/.cache/tgroup); any report fails it.
#    Two guests side by side, throttle and lifecycle in the second
#    (tests/vm/dbg-lane.sh: TG_DBG_SPLIT, TG_DBG_GUESTS=1 for one).
#    TG_DEBUG_LANE=0 skips it for a quick local run; CI=true always runs it.
if [ -n "$dbg_on" ]; then
	mkdir -p "$build/dbg"
	# nri left out: its kernel paths (mkdir, cgroup.procs, tgroup.limit/priority, rmdir) are fs's and userland's, run here already
	dbg_suites=$(echo ",$suites," | sed 's/,nri,/,/g; s/^,//; s/,$//')
	TG_DBG_SUITES=${DBG_SUITES:-$dbg_suites} tests/vm/dbg-lane.sh 2>&1 | tee "$build/dbg/lane.out"
	rc=${PIPESTATUS[0]}
	dp=$(grep -c '^PASS dbg/' "$build/dbg/lane.out")
	df=$(grep -c '^FAIL dbg/' "$build/dbg/lane.out")
	pass=$((pass + dp))
	fail=$((fail + df))
	while read -r t; do failed+=("$t"); done < <(sed -n 's/^FAIL \(dbg\/[^: ]*\).*/\1/p' "$build/dbg/lane.out")
	if [ "$rc" != 0 ] && [ "$df" = 0 ]; then ko dbg/lane "exited $rc without naming a failure"; fi
else
	echo "SKIP dbg/*: the debug-kernel lane (TG_DEBUG_LANE=0)"
fi
fresh_join
guest_lock_drop

lap end
host_speed end
echo
[ $fail -eq 0 ] || printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
