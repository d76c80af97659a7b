#!/bin/bash
# The Debian packages installed and run the way an operator would (issue 24):
#  1. make deb; lintian (clean but the overrides debian/ justifies).
#  2. A copy of the cached Debian 12 root (tests/deb/root.sh: systemd, Debian's
#     cloud kernels 6.1 and 6.12) gets, in a chroot on the host, README's
#     command for a server running 6.12:
#       apt-get install --no-install-recommends ./tgroup-dkms_*.deb ./tgroup-tools_*.deb \
#           linux-headers-6.12.117+deb12-cloud-amd64      (linux-headers-$(uname -r))
#     DKMS builds tgroup.ko for 6.12 in the package's postinst. Checked: nothing
#     but those headers among the new kernel packages (no flavour metapackage,
#     never an image); tgroup.ko for 6.12 only; the units enabled, not started.
#  2b. The root then boots its older kernel, 6.1, which has no headers (a
#     server behind the archive, or headers of another kernel installed):
#     guest.sh checks tgroup.service failed at boot naming the running kernel
#     and the kernels with headers, nothing left loaded, and the postinst's
#     warning (the postinst's check) names both. Then README's command
#     with $(uname -r) the booted 6.1 runs in the chroot: DKMS builds tgroup.ko
#     for 6.1 (its header hook), only that kernel's headers arrive.
#  3. The root, configured as an operator would (/etc/modprobe.d/tgroup.conf,
#     /etc/tgroup/tgroup.conf), becomes an ext4 disk and boots under QEMU with
#     systemd, once per kernel (6.1, then 6.12): tests/deb/guest.sh checks the
#     service at boot, restart, reload, stop, start and a failing setup; in
#     the last boot, an upgrade of tgroup-tools (dpkg -i of a newer version
#     built in step 1b from the same source, its changelog one entry ahead)
#     under a running service, then apt-get remove and purge.
# The DKMS build runs natively in the chroot (under TCG it would take minutes:
# gcc and the headers' unpacking), the rest in the booted system. Prints
# PASS/FAIL lines. TG_DEB_KERNELS (default "6.1 6.12") picks the boots.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/deb
ok() { echo "PASS deb/$1"; }
ko() { echo "FAIL deb/$1${2:+: $2}"; }
t0=$SECONDS

# 1. the packages
if ! make -C "$top" --no-print-directory -s deb >"$top/build/deb-make.log" 2>&1; then
	tail -20 "$top/build/deb-make.log"; ko make_deb "see build/deb-make.log"; exit 0
fi
ok make_deb
if out=$(cd "$build" && lintian --pedantic -E --fail-on error,warning,info,pedantic *.changes 2>&1) &&
	[ -z "$(echo "$out" | grep -E '^[EWIPX]: ')" ]; then ok lintian_clean
else echo "$out" | head -20; ko lintian_clean "tags above (justified ones go into debian/*.lintian-overrides)"; fi

# the two packages recommend each other at this version or later (apt
# upgrades them together: review 2 LOW-9)
rd=$(dpkg-deb -f "$build"/tgroup-dkms_*_all.deb Recommends) rt=$(dpkg-deb -f "$build"/tgroup-tools_*_amd64.deb Recommends)
dv=$(dpkg-deb -f "$build"/tgroup-dkms_*_all.deb Version)
if [ "$rd" = "tgroup-tools (>= $dv)" ] && [ "$rt" = "tgroup-dkms (>= $dv)" ]; then ok "recommends_versioned ($rt)"
else ko recommends_versioned "tgroup-dkms: $rd; tgroup-tools: $rt"; fi

# 1b. a newer version of the same source (its changelog one entry ahead), for
#     the upgrade test in the last boot: dpkg -i of its tgroup-tools
src=$(ls -d "$build"/tgroup-*/ | head -1)
up=$build/newer
ver=$(cd "$src" && dpkg-parsechangelog -S Version)
if rm -rf "$up" && mkdir -p "$up" && cp -a "$src" "$up/src" && (cd "$up/src" &&
	{ printf 'tgroup (%s+upgradetest1) bookworm; urgency=medium\n\n  * The upgrade test'"'"'s newer version (tests/deb/install.sh).\n\n -- tgroup maintainers <maintainers@users.noreply.a-seed-432ed2c0.example>  %s\n\n' \
		"$ver" "$(date -R)"; cat debian/changelog; } > debian/changelog.new && mv debian/changelog.new debian/changelog &&
	nice dpkg-buildpackage -us -uc -b >"$up/build.log" 2>&1) && ls "$up"/tgroup-tools_"$ver"+upgradetest1_amd64.deb >/dev/null; then
	ok "newer_version_built ($ver+upgradetest1)"
else
	tail -20 "$up/build.log"; ko newer_version_built "see build/deb/newer/build.log"
fi

# 2. the operator's apt install in a copy of the Debian 12 root
base=$("$top/tests/deb/root.sh") || { ko debian_root "tests/deb/root.sh failed"; exit 0; }
root=$build/server
rm -rf "$root" && cp -a "$base" "$root" && rm -f "$root/.complete"
cp "$build"/tgroup-dkms_*_all.deb "$build"/tgroup-tools_*_amd64.deb "$root/tmp/"
kernels=$(cd "$root/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V)
newest=$(echo "$kernels" | tail -1) oldest=$(echo "$kernels" | head -1)
# README's server command, as written there: sudo and the .debs' directory
# left out, $(uname -r) the kernel named ($1); run in the root's chroot
readme_cmd=$(grep -m1 '^ *sudo apt install .*tgroup-\*\.deb.*linux-headers-\$(uname -r)' "$top/README.md" | sed 's/^ *sudo //')
readme_install() {	# kernel log
	local cmd=${readme_cmd//\$(uname -r)/$1}
	cmd=${cmd//.\/tgroup-\*.deb//tmp/tgroup-*.deb}
	echo "+ $cmd" >"$2"
	# a private mount namespace: /proc, /sys, /dev for the maintainer
	# scripts, gone with the command
	unshare -m --propagation private sh -c "
		mount -t proc proc '$root/proc' && mount --rbind /sys '$root/sys' && mount --rbind /dev '$root/dev' &&
		DEBIAN_FRONTEND=noninteractive chroot '$root' sh -c '${cmd/apt install/apt-get install -y}'" >>"$2" 2>&1
}
headers_only() {	# before after kernel...: the new linux-* packages are only the named kernels' headers
	local p bad= k
	for p in $(comm -13 "$1" "$2" | grep '^linux-'); do
		case $p in
		linux-headers-*-common|linux-kbuild-*|linux-compiler-*) ;;
		linux-headers-*) k=${p#linux-headers-}; [[ " ${*:3} " == *" $k "* ]] || bad="$bad $p" ;;
		*) bad="$bad $p" ;;
		esac
	done
	echo "$bad"
}
built_for() {	# kernel: tgroup.ko installed by DKMS for it, its vermagic that kernel
	local f
	f=$(ls "$root/lib/modules/$1/updates/dkms/tgroup.ko"* 2>/dev/null | head -1)
	[ -n "$f" ] && [ "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" = "$1" ]
}
dpkg --root="$root" -l | awk '/^ii/ { print $2 }' | sort > "$build/pkgs.before"
if [ -z "$readme_cmd" ]; then ko apt_install "no 'sudo apt install ... ./tgroup-*.deb ... linux-headers-\$(uname -r)' in README.md"; exit 0
elif readme_install "$newest" "$build/apt-install.log"; then ok "apt_install ($(head -1 "$build/apt-install.log"))"
else tail -30 "$build/apt-install.log"; ko apt_install "see build/deb/apt-install.log"; exit 0; fi
dpkg --root="$root" -l | awk '/^ii/ { print $2 }' | sort > "$build/pkgs.after"
new=$(comm -13 "$build/pkgs.before" "$build/pkgs.after")
bad=$(headers_only "$build/pkgs.before" "$build/pkgs.after" "$newest")
if [ -z "$bad" ]; then ok "server_gets_only_headers_of_its_kernel ($(echo "$new" | grep '^linux-headers-[0-9]' | tr '\n' ' '))"
else ko server_gets_only_headers_of_its_kernel "$bad"; fi
if built_for "$newest" && ! built_for "$oldest"; then ok "dkms_built_for_kernel_with_headers ($newest; not $oldest)"
else grep -iE 'error|dkms' "$build/apt-install.log" | tail -10; ko dkms_built_for_kernel_with_headers "built for $newest: $(built_for "$newest" && echo yes || echo no), for $oldest: $(built_for "$oldest" && echo yes || echo no)"; fi
if grep -q 'Building initial module for' "$build/apt-install.log" &&
	[ -L "$root/etc/systemd/system/multi-user.target.wants/tgroup.service" ] &&
	[ -L "$root/etc/systemd/system/multi-user.target.wants/tgroup-exporter.service" ]; then ok units_enabled
else ko units_enabled "tgroup.service / tgroup-exporter.service not enabled by the package"; fi
# the exporter starts with tgroup.service (its WantedBy=tgroup.service, linked
# by debhelper's enable step: deb-systemd-helper)
if [ "$(readlink "$root/etc/systemd/system/tgroup.service.wants/tgroup-exporter.service")" = /lib/systemd/system/tgroup-exporter.service ]; then
	ok exporter_wanted_by_tgroup_service
else ko exporter_wanted_by_tgroup_service "$(ls -l "$root/etc/systemd/system/tgroup.service.wants" 2>&1)"; fi
# DKMS's postinst block once in the built tgroup-dkms postinst (a second
# #DEBHELPER#, even in a comment, builds every kernel twice), and the install
# log shows one build per kernel
ctl=$(mktemp -d) && dpkg-deb -e "$build"/tgroup-dkms_*_all.deb "$ctl"
n=$(grep -c 'common.postinst' "$ctl/postinst"); rm -rf "$ctl"
nb=$(grep -c "Building initial module for $newest" "$build/apt-install.log")
if [ "$n" = 1 ] && [ "$nb" = 1 ] && ! grep -q 'Deleting module tgroup.* completely' "$build/apt-install.log"; then
	ok "dkms_postinst_builds_once (1 block, 1 build for $newest)"
else ko dkms_postinst_builds_once "$n DKMS block(s) in the postinst, $nb build(s) for $newest in build/deb/apt-install.log"; fi
# the next kernel (review 2 MEDIUM-3): tgroup-headers (README's second
# command) adds the headers metapackage of each image metapackage the server
# has; this root has linux-image-cloud-amd64 and linux-image-6.12-cloud-amd64
# (tests/deb/root.sh), so apt-get -s's plan installs exactly their headers
# metapackages (the running kernel's headers are installed) and no image
hout=$(chroot "$root" tgroup-headers --dry-run --kernel "$newest" 2>&1); hrc=$?
hwant=$(echo "$hout" | sed -n 's/^tgroup-headers: installing: //p' | tr ' ' '\n' | sort | tr '\n' ' ')
if [ $hrc = 0 ] && [ "$hwant" = "linux-headers-6.12-cloud-amd64 linux-headers-cloud-amd64 " ] &&
	grep -q '^Inst linux-headers-cloud-amd64 ' <<<"$hout" && grep -q '^Inst linux-headers-6.12-cloud-amd64 ' <<<"$hout" &&
	! grep -q '^Inst linux-image-' <<<"$hout"; then ok "headers_helper_adds_metapackages_no_image ($hwant)"
else ko headers_helper_adds_metapackages_no_image "rc $hrc, would install: $hwant; $(echo "$hout" | grep -E 'tgroup-headers|^Inst linux-image' | head -5)"; fi
# a server running a kernel whose headers left the mirror (review 2
# MEDIUM-2): README's command fails with the message README quotes and
# installs nothing; tgroup-headers says what to do
gone=6.1.0-1-cloud-amd64
cmd=${readme_cmd//\$(uname -r)/$gone}; cmd=${cmd//.\/tgroup-\*.deb//tmp/tgroup-*.deb}
gout=$(chroot "$root" sh -c "${cmd/apt install/apt-get -s install}" 2>&1); grc=$?
hout=$(chroot "$root" tgroup-headers --dry-run --kernel "$gone" 2>&1); hrc=$?
if [ $grc = 100 ] && grep -qxF "E: Unable to locate package linux-headers-$gone" <<<"$gout" &&
	grep -qF "E: Unable to locate package linux-headers-KVER" "$top/README.md" && [ $hrc = 1 ] &&
	grep -qF "the running kernel $gone's headers are not in the archive any more" <<<"$hout" &&
	grep -qF "apt upgrade, reboot into the newer kernel" <<<"$hout"; then ok "headers_gone_from_mirror_readme_message (apt-get rc $grc)"
else ko headers_gone_from_mirror_readme_message "apt-get rc $grc: $(echo "$gout" | grep '^E:' | head -2); helper rc $hrc: $(echo "$hout" | tail -1)"; fi
echo "deb: packages built and installed in $((SECONDS - t0)) s"

# 3. configured as an operator would, then booted
echo 'options tgroup max_groups=77' >> "$root/etc/modprobe.d/tgroup.conf"
cat >> "$root/etc/tgroup/tgroup.conf" <<'EOF'

[group db]
priority = high

[group batch]
nvm_wbps = 500M
EOF
mkdir -p "$root/etc/systemd/system/tgroup.service.d"
# the TCG CPU has no PMU: the cascadelake profile forced; no iMC PMU either, so
# the uncore source stays off (setup exits 3), accepted as the docs say
printf '[Service]\nEnvironment="TGROUP_SETUP_ARGS=--profile cascadelake"\nSuccessExitStatus=3\n' > "$root/etc/systemd/system/tgroup.service.d/setup.conf"
install -m 0755 "$top/tests/deb/guest.sh" "$root/root/tgroup-deb-guest.sh"
# the last boot upgrades tgroup-tools to the newer version, then removes and
# purges it (guest.sh steps 9 and 10: the disk is not reset between boots)
cp "$up"/tgroup-tools_*+upgradetest1_amd64.deb "$root/root/" 2>/dev/null
last=$(echo ${TG_DEB_KERNELS:-6.1 6.12} | awk '{ print $NF }')
echo "$kernels" | grep "^$last\." | tail -1 > "$root/root/tgroup-deb-upgrade-kernel"
# the first boot runs every step; the others skip those that are systemd and
# user space only (guest.sh: the exporter's enablement, the failing setups)
first=$(echo ${TG_DEB_KERNELS:-6.1 6.12} | awk '{ print $1 }')
echo "$kernels" | grep "^$first\." | tail -1 > "$root/root/tgroup-deb-full-kernel"
cat > "$root/etc/systemd/system/tgroup-deb-test.service" <<'EOF'
[Unit]
Description=tgroup's package test (tests/deb/guest.sh)
After=multi-user.target tgroup.service
[Service]
Type=oneshot
ExecStart=/root/tgroup-deb-guest.sh
StandardOutput=journal+console
StandardError=journal+console
EOF
ln -sf ../tgroup-deb-test.service "$root/etc/systemd/system/multi-user.target.wants/tgroup-deb-test.service"
# nothing on a timer during the test, no login prompt on the console
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer \
	serial-getty@ttyS0.service getty@tty1.service; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
img=$build/server.img
mkimage() {
	local tb=$SECONDS
	rm -f "$img"
	if ! mke2fs -q -t ext4 -L tgroot -d "$root" "$img" 4G >"$build/mke2fs.log" 2>&1; then
		cat "$build/mke2fs.log"; ko disk_image "mke2fs -d failed"; exit 0
	fi
	echo "deb: the root as an ext4 disk in $((SECONDS - tb)) s"
}
accel=$(cat "$top/build/vm/accel" 2>/dev/null || echo tcg)
if [ "$accel" = kvm ]; then accel_args=(-accel kvm -cpu host); else accel_args=(-accel tcg,thread=multi -cpu max); fi
boot() {	# kernel name: boot the disk on that kernel, print guest.sh's lines
	local k=$1 log=$build/console-$2.log tb=$SECONDS
	timeout -s KILL "${TG_DEB_TIMEOUT:-600}" \
		qemu-system-x86_64 "${accel_args[@]}" -nographic -no-reboot -smp 2 -m 1536M \
		-kernel "$root/boot/vmlinuz-$k" -initrd "$root/boot/initrd.img-$k" \
		-drive "file=$img,format=raw,if=virtio" -nic none \
		-append "root=/dev/vda rw console=ttyS0 quiet panic=-1" </dev/null >"$log" 2>&1
	tr -d '\r' < "$log" > "$log.txt"
	# the unit's console lines: "[ time] tgroup-deb-guest.sh[pid]: TGDEB: ..."
	sed -n 's/^.*TGDEB: PASS /PASS deb\//p; s/^.*TGDEB: FAIL /FAIL deb\//p' "$log.txt"
	if grep -q "TGDEB: END $k" "$log.txt"; then
		echo "deb: $k booted and tested in $((SECONDS - tb)) s"
	else
		tail -30 "$log.txt"; ko "guest_run_$2" "no end of the guest test (console: $log.txt)"
	fi
}
mkimage
# one guest at a time on this machine: the lock held for all boots
# (TG_GUEST_LOCK_HELD: the caller holds it for this and its k8s guest)
lock=
if [ -n "${TG_GUEST_LOCK:-}" ] && [ -z "${TG_GUEST_LOCK_HELD:-}" ]; then
	echo "deb: waiting for the guest lock $TG_GUEST_LOCK"
	exec 8>>"$TG_GUEST_LOCK" && flock 8 && lock=1
fi
# 2b. the older kernel without its headers, then README's command for it
boot "$oldest" "$oldest-noheaders"
tf=$SECONDS
dpkg --root="$root" -l | awk '/^ii/ { print $2 }' | sort > "$build/pkgs.before-fix"
if readme_install "$oldest" "$build/apt-fix.log"; then ok "readme_fix_installs ($(head -1 "$build/apt-fix.log"))"
else tail -20 "$build/apt-fix.log"; ko readme_fix_installs "see build/deb/apt-fix.log"; fi
dpkg --root="$root" -l | awk '/^ii/ { print $2 }' | sort > "$build/pkgs.after-fix"
bad=$(headers_only "$build/pkgs.before-fix" "$build/pkgs.after-fix" "$oldest")
if [ -z "$bad" ] && grep -qx "linux-headers-$oldest" "$build/pkgs.after-fix" && built_for "$oldest" && built_for "$newest"; then
	ok "readme_fix_builds_module ($oldest's headers only, tgroup.ko built by DKMS's header hook)"
else ko readme_fix_builds_module "new:$bad, tgroup.ko for $oldest: $(built_for "$oldest" && echo yes || echo no)"; fi
echo "deb: README's command for $oldest in the chroot (DKMS build included) in $((SECONDS - tf)) s"
mkimage
for series in ${TG_DEB_KERNELS:-6.1 6.12}; do
	k=$(echo "$kernels" | grep "^$series\." | tail -1)
	[ -n "$k" ] || { ko "boot_$series" "no $series kernel in the root"; continue; }
	boot "$k" "$k"
done
[ -z "$lock" ] || flock -u 8
echo "deb: $((SECONDS - t0)) s in all"
