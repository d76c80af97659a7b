#!/bin/bash
# make install staged in a DESTDIR (the file list), the systemd units
# verified by systemd-analyze with that tree bind-mounted on /usr/local in a
# private mount namespace, and dkms add + build of the module in private
# dkms/source trees against the cloud headers. Prints PASS/FAIL lines.
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
		usr/local/lib/libtgroup.so usr/local/lib/libtgpmem.so etc/tgroup.conf \
		usr/local/lib/systemd/system/tgroup.service usr/local/lib/systemd/system/tgroup-exporter.service; do
		[ -e "$d/root/$f" ] || miss="$miss $f"
	done
	if [ -z "$miss" ] && [ "$(modinfo -F vermagic "$d/root/lib/modules/$kv/updates/tgroup.ko" | cut -d' ' -f1)" = "$kv" ]; then
		ok make_install
	else ko make_install "missing:$miss"; fi
	if out=$(unshare -m --propagation private sh -c "mount --bind '$d/root/usr/local' /usr/local &&
		systemd-analyze verify /usr/local/lib/systemd/system/tgroup.service \
			/usr/local/lib/systemd/system/tgroup-exporter.service" 2>&1) && [ -z "$out" ]; then
		ok systemd_analyze_verify
	else ko systemd_analyze_verify "$out"; fi
else
	tail -5 "$d/install.log"; ko make_install "make install failed"
fi
if ! command -v dkms >/dev/null; then ko dkms_build "no dkms (make deps)"; exit 0; fi
mkdir -p "$d/tree"
if make --no-print-directory -s install-dkms DESTDIR="$d" DKMS_SRC=/src >/dev/null 2>&1 &&
	dkms add tgroup/0.1 --sourcetree "$d/src" --dkmstree "$d/tree" >"$d/dkms.log" 2>&1 &&
	nice -n 10 dkms build tgroup/0.1 -k "$kver" --sourcetree "$d/src" --dkmstree "$d/tree" >>"$d/dkms.log" 2>&1; then
	kofile=$(find "$d/tree/tgroup/0.1/$kver" -name 'tgroup.ko*' | head -1)
	if [ -n "$kofile" ] && [ "$(modinfo -F vermagic "$kofile" | cut -d' ' -f1)" = "$kver" ]; then ok "dkms_build ($kver)"
	else ko dkms_build "no tgroup.ko for $kver"; fi
else
	tail -10 "$d/dkms.log"; ko dkms_build "dkms add/build failed"
fi
