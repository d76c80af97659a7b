#!/bin/bash
# make install staged in a DESTDIR (the file list), the systemd units
# verified by systemd-analyze with that tree bind-mounted on /usr/local in a
# private mount namespace, the kernel checks of make module / install-module
# (headers missing, a tgroup.ko built for another kernel: errors naming both
# versions), and dkms add + build of the module in private dkms/source trees
# against the guest kernel's headers. Prints PASS/FAIL lines.
# (dkms keeps its module-signing key in /var/lib/dkms: created once.)
set -uo pipefail
cd "$(dirname "$0")/.."
ok() { echo "PASS install/$1"; }
ko() { echo "FAIL install/$1${2:+: $2}"; }
kver=$(tests/vm/kver.sh)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
if make --no-print-directory -s install DESTDIR="$d/root" KVER="$kver" >"$d/install.log" 2>&1; then
	kv=$(ls "$d/root/lib/modules" 2>/dev/null)
	miss=
	for f in lib/modules/$kv/updates/tgroup.ko usr/local/bin/tgctl usr/local/bin/tgroup-exporter \
		usr/local/include/tgroup.h usr/local/lib/libtgroup.a usr/local/lib/libtgroup.so.0 \
		usr/local/lib/libtgroup.so usr/local/lib/tgroup/libtgpmem.so usr/local/libexec/tgroup/tgroup-service usr/local/sbin/tgroup-headers \
		etc/modprobe.d/tgroup.conf etc/tgroup/tgroup.conf \
		usr/local/lib/systemd/system/tgroup.service usr/local/lib/systemd/system/tgroup-exporter.service; do
		[ -e "$d/root/$f" ] || miss="$miss $f"
	done
	if [ -z "$miss" ] && [ "$kv" = "$kver" ] &&
		[ "$(modinfo -F vermagic "$d/root/lib/modules/$kv/updates/tgroup.ko" | cut -d' ' -f1)" = "$kv" ]; then
		ok make_install
	else ko make_install "missing:$miss (modules for: $kv)"; fi
	if out=$(unshare -m --propagation private sh -c "mount --bind '$d/root/usr/local' /usr/local &&
		systemd-analyze verify /usr/local/lib/systemd/system/tgroup.service \
			/usr/local/lib/systemd/system/tgroup-exporter.service" 2>&1) && [ -z "$out" ]; then
		ok systemd_analyze_verify
	else ko systemd_analyze_verify "$out"; fi
else
	tail -5 "$d/install.log"; ko make_install "make install failed"
fi
# a kernel without headers: make module says which and what to install
out=$(make --no-print-directory -s module KVER=0.0.0-none 2>&1); rc=$?
if [ $rc != 0 ] && grep -q 'module: no kernel headers for 0.0.0-none (/lib/modules/0.0.0-none/build): apt install linux-headers-0.0.0-none' <<<"$out"; then
	ok module_without_headers_says_so
else ko module_without_headers_says_so "rc $rc: $out"; fi
# tgroup.ko built for 6.12 (KDIR) but installed for the 6.1 kernel (KVER): refused, both named
k612=$(TG_KSERIES=6.12 tests/vm/kver.sh)
if [ "${k612%%.*}.$(echo "$k612" | cut -d. -f2)" != 6.12 ]; then
	ko install_refuses_other_kernel "no 6.12 cloud kernel with headers (make deps)"
else
	out=$(make --no-print-directory -s install-module DESTDIR="$d/mm" KVER="$kver" KDIR="/lib/modules/$k612/build" 2>&1); rc=$?
	if [ $rc != 0 ] && [ ! -e "$d/mm" ] &&
		grep -qF "install: tgroup.ko was built for $k612, not for $kver" <<<"$out"; then
		ok install_refuses_other_kernel
	else ko install_refuses_other_kernel "rc $rc: $(echo "$out" | tail -3)"; fi
	make --no-print-directory -s module KVER="$kver" >/dev/null 2>&1
fi
if ! command -v dkms >/dev/null; then ko dkms_build "no dkms (make deps)"; exit 0; fi
mkdir -p "$d/tree"
ver=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
if make --no-print-directory -s install-dkms DESTDIR="$d" DKMS_SRC=/src >/dev/null 2>&1 &&
	dkms add "tgroup/$ver" --sourcetree "$d/src" --dkmstree "$d/tree" >"$d/dkms.log" 2>&1 &&
	nice -n 10 dkms build "tgroup/$ver" -k "$kver" --sourcetree "$d/src" --dkmstree "$d/tree" >>"$d/dkms.log" 2>&1; then
	kofile=$(find "$d/tree/tgroup/$ver/$kver" -name 'tgroup.ko*' | head -1)
	if [ -n "$kofile" ] && [ "$(modinfo -F vermagic "$kofile" | cut -d' ' -f1)" = "$kver" ]; then ok "dkms_build ($kver)"
	else ko dkms_build "no tgroup.ko for $kver"; fi
else
	tail -10 "$d/dkms.log"; ko dkms_build "dkms add/build failed"
fi
