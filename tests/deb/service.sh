#!/bin/bash
# userland/install/tgroup-service's diagnoses on the host, where the cases a
# booted guest cannot show are made by stand-ins for uname, modinfo, dkms,
# mokutil and modprobe (first in PATH) that print what the Debian 12 tools
# print in each case: no headers for the running kernel, a module DKMS built
# for another kernel only, Secure Boot refusing an unsigned module or the
# kernel rejecting its key, options in /etc/modprobe.d not in effect. Each
# expected message is the documented one (docs/tgctl.md). Prints PASS/FAIL.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
svc=$top/userland/install/tgroup-service
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/bin" "$d/params" "$d/mnt" "$d/run"
# /lib/modules as a server has it: three kernels, headers (build) for two
mkdir -p "$d/modules/6.1.0-99-cloud-amd64" "$d/modules/6.1.0-98-cloud-amd64/build" \
	"$d/modules/6.12.117+deb12-cloud-amd64/build"
# the stand-ins read their behaviour from files in $d
cat > "$d/bin/uname" <<EOF
#!/bin/sh
cat "$d/kver"
EOF
cat > "$d/bin/modinfo" <<EOF
#!/bin/sh
# modinfo -n tgroup | modinfo -F FIELD tgroup
[ -e "$d/ko" ] || { echo "modinfo: ERROR: Module tgroup not found." >&2; exit 1; }
case \$1 in
-n) cat "$d/ko" ;;
-F) case \$2 in vermagic) echo "\$(cat "$d/vermagic") SMP preempt mod_unload modversions " ;;
	signer) cat "$d/signer" 2>/dev/null ;; esac ;;
esac
EOF
cat > "$d/bin/dkms" <<EOF
#!/bin/sh
cat "$d/dkms" 2>/dev/null
EOF
cat > "$d/bin/mokutil" <<EOF
#!/bin/sh
case \$1 in
--sb-state) cat "$d/sb" ;;
--test-key) if [ -e "$d/enrolled" ]; then echo "\$2 is already enrolled"; else echo "\$2 is not enrolled"; fi ;;
esac
EOF
cat > "$d/bin/modprobe" <<EOF
#!/bin/sh
case \$1 in
-c) cat "$d/modprobe.conf" 2>/dev/null ;;
*) if [ -e "$d/reject" ]; then echo "modprobe: ERROR: could not insert 'tgroup': Key was rejected by service" >&2; exit 1; fi ;;
esac
EOF
chmod +x "$d"/bin/*
run() {	# args...: tgroup-service with the stand-ins; output in $out, status in $rc
	out=$(PATH="$d/bin:$PATH" TGROUP_MOUNT="$d/mnt" TGROUP_MOK_PUB="$d/mok.pub" TGROUP_MODULES="$d/modules" \
		TGROUP_RUN="$d/run" "$svc" "$@" 2>&1); rc=$?
}
t() {	# name expected-rc expected-substring
	if [ "$rc" = "$2" ] && [[ $out == *"$3"* ]]; then echo "PASS service/$1"
	else echo "FAIL service/$1: rc $rc, got: $(echo "$out" | head -6)"; fi
}
reset() { rm -f "$d"/{ko,vermagic,signer,dkms,sb,enrolled,reject,modprobe.conf}; echo 6.1.0-99-cloud-amd64 > "$d/kver"; }
touch "$d/mok.pub"

# no module and no headers for the running kernel (DKMS built for another one)
reset
echo "tgroup/0.1, 6.1.0-98-cloud-amd64, x86_64: installed" > "$d/dkms"
run check
t no_headers_names_both_kernels 1 "no tgroup.ko for the running kernel 6.1.0-99-cloud-amd64: its headers are not installed (headers installed for: 6.1.0-98-cloud-amd64 6.12.117+deb12-cloud-amd64; DKMS built tgroup.ko for: 6.1.0-98-cloud-amd64): apt install linux-headers-6.1.0-99-cloud-amd64 (DKMS then builds the module), then systemctl start tgroup"
# no headers at all, nothing built
rm -f "$d/dkms"
mv "$d/modules" "$d/modules.all" && mkdir -p "$d/modules/6.1.0-99-cloud-amd64"
run start
t no_headers_at_all_says_none 1 "its headers are not installed (headers installed for: none; DKMS built tgroup.ko for: none): apt install linux-headers-6.1.0-99-cloud-amd64"
rm -rf "$d/modules" && mv "$d/modules.all" "$d/modules"

# a module whose vermagic is another kernel's
reset
echo /lib/modules/6.1.0-99-cloud-amd64/updates/tgroup.ko > "$d/ko"
echo 6.1.0-98-cloud-amd64 > "$d/vermagic"
run check
t module_for_other_kernel 1 "was built for 6.1.0-98-cloud-amd64, not for the running kernel 6.1.0-99-cloud-amd64"

# Secure Boot on, module unsigned, DKMS's key not enrolled: refused before modprobe
echo 6.1.0-99-cloud-amd64 > "$d/vermagic"
echo "SecureBoot enabled" > "$d/sb"
run start
t secure_boot_unsigned 1 "is not signed"
[[ $out == *"mokutil --import $d/mok.pub"* ]] && echo "PASS service/secure_boot_says_enroll" ||
	echo "FAIL service/secure_boot_says_enroll: $out"

# signed, but the kernel rejects the key (not enrolled yet): modprobe's own error, then what to do
echo "DKMS module signing key" > "$d/signer"
touch "$d/reject"
run start
t secure_boot_key_rejected 1 "modprobe: ERROR: could not insert 'tgroup': Key was rejected by service"
[[ $out == *"Enroll MOK"* ]] && echo "PASS service/secure_boot_key_rejected_says_enroll" ||
	echo "FAIL service/secure_boot_key_rejected_says_enroll: $out"

# the key is enrolled already: rebuild so DKMS signs with it
touch "$d/enrolled"
run start
t secure_boot_enrolled_says_rebuild 1 "is enrolled: rebuild the module"

# Secure Boot off: the checks pass
reset
echo /lib/modules/6.1.0-99-cloud-amd64/updates/dkms/tgroup.ko > "$d/ko"
echo 6.1.0-99-cloud-amd64 > "$d/vermagic"
echo "SecureBoot disabled" > "$d/sb"
run check
t ready 0 "is ready to load for 6.1.0-99-cloud-amd64 (Secure Boot: disabled)"

# stop outside a restart job, nothing mounted or loaded here: nothing to do, success
run stop
t stop_nothing_mounted 0 ""

# ExecStopPost: after an ordinary stop (SERVICE_RESULT=success) silent, and the
# start's note that it loaded the module is gone; after a failed start that
# loaded nothing, it says so (the teardown itself: deb/failing_setup_*)
touch "$d/run/tgroup-service.loaded"
SERVICE_RESULT=success run stop-post
if [ "$rc" = 0 ] && [ -z "$out" ] && [ ! -e "$d/run/tgroup-service.loaded" ]; then echo "PASS service/stop_post_after_stop_silent"
else echo "FAIL service/stop_post_after_stop_silent: rc $rc, $out, $(ls "$d/run")"; fi
SERVICE_RESULT=exit-code run stop-post
t stop_post_failed_start_nothing_loaded 0 "tgroup: start failed (exit-code): nothing is loaded or mounted"

# a stop that fails (umount busy: a shell cd'd into the mount) after the boot's
# start: stop-post says the stop failed and leaves everything as it is, not
# "start failed ... undoing it" (the boot's start marker lives as long as the
# unit). Stand-ins: mountpoint (mounted), umount (busy).
mkdir -p "$d/bin2"
printf '#!/bin/sh\nexit 0\n' > "$d/bin2/mountpoint"
printf '#!/bin/sh\necho "umount: $1: target is busy." >&2\nexit 32\n' > "$d/bin2/umount"
chmod +x "$d"/bin2/*
touch "$d/run/tgroup-service.loaded"
PATH="$d/bin2:$PATH" run stop
t failed_stop_says_umount_busy 1 "umount $d/mnt failed (a process has a file in it open?)"
SERVICE_RESULT=exit-code PATH="$d/bin2:$PATH" run stop-post
if [ "$rc" = 0 ] && [[ $out == "tgroup: stop failed (exit-code): left as it is: $d/mnt mounted with 0 group(s)"* ]] &&
	[[ $out != *"start failed"* ]] && [ -z "$(ls "$d/run")" ]; then echo "PASS service/failed_stop_not_called_start_failed"
else echo "FAIL service/failed_stop_not_called_start_failed: rc $rc, $out, $(ls "$d/run")"; fi

# debian/tgroup-tools.prerm on removal: a stop job succeeds even when
# ExecStop fails, so the prerm looks at what is left and says it (review 2
# LOW-5). In a private mount namespace: /run/systemd/system (a systemd host),
# /sys/fs/tgroup still mounted (a tmpfs) in the failing case; stand-ins for
# systemctl (tgroup.service active) and deb-systemd-invoke (the stop "succeeds").
prerm=$top/debian/tgroup-tools.prerm
mkdir -p "$d/bin3"
printf '#!/bin/sh\nexit 0\n' > "$d/bin3/systemctl"
printf '#!/bin/sh\necho "$*" >> "%s/invoked"\nexit 0\n' "$d" > "$d/bin3/deb-systemd-invoke"
chmod +x "$d"/bin3/*
prerm_run() {	# busy(0|1): the prerm's output in $out, status in $rc
	out=$(PATH="$d/bin3:$PATH" unshare -m --propagation private sh -c '
		mount -t tmpfs run /run && mkdir -p /run/systemd/system &&
		if [ "$1" = 1 ]; then mount -t tmpfs fs /sys/fs && mkdir /sys/fs/tgroup && mount -t tmpfs tg /sys/fs/tgroup; fi &&
		sh "$2" remove' sh "$1" "$prerm" 2>&1); rc=$?
}
prerm_run 1
if [ "$rc" = 0 ] && [[ $out == *"tgroup-tools: warning: stopping tgroup.service failed"* ]] &&
	[[ $out == *"/sys/fs/tgroup is mounted, tgroup.ko"* ]] && [[ $out == *"umount /sys/fs/tgroup; modprobe -r tgroup"* ]] &&
	grep -qx 'stop tgroup-exporter.service tgroup.service' "$d/invoked"; then echo "PASS service/prerm_failed_teardown_says_so"
else echo "FAIL service/prerm_failed_teardown_says_so: rc $rc, $out"; fi
prerm_run 0
if [ "$rc" = 0 ] && [[ $out == *"stopping tgroup.service: every group"* ]] && [[ $out != *warning* ]]; then
	echo "PASS service/prerm_clean_teardown_no_warning"
else echo "FAIL service/prerm_clean_teardown_no_warning: rc $rc, $out"; fi
