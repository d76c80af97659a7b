#!/bin/bash
# Build the guest initramfs: busybox, the kernel modules the guest needs
# (pmem/DAX), tgroup.ko, the in-guest suites and any host programs (with
# their shared libraries) the suites run.
#
# usage: mkinitramfs.sh OUT.cpio.gz KVER MODULE.ko SUITE_DIR [HOST_PROGRAM...]
#   KVER "none": a kernel with those drivers built in (the debug kernel of
#   make check's dbg lane), no kernel modules are packed
#   TG_KMODS_EXTRA="mod ...": also pack these (with their dependencies),
#   listed in /kmods.extra in load order, for the suites that load them
#   (k8s: virtio_blk for its disk, overlay for containerd)
set -euo pipefail
out=$1 kver=$2 ko=$3 suites=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt/pmem,kmods,tgroup,lib64,usr/lib,etc}
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
cp "$here/init" "$root/init"
chmod 755 "$root/init"
cp "$ko" "$root/tgroup/tgroup.ko"
cp -r "$suites"/. "$root/tgroup/"

# Kernel modules, in load order (dependencies first), for the emulated pmem
# (memmap=) and DAX. Resolved with modinfo: modprobe --show-depends skips
# modules that have an install rule (libnvdimm has one, from ndctl).
: > "$root/kmods.order"
add_kmod() {
	local path dep
	grep -qx "$1" "$root/kmods.order.names" 2>/dev/null && return 0
	path=$(modinfo -k "$kver" -n "$1") || return 1
	[ "$path" != "(builtin)" ] || return 0	# in the kernel (6.12: some virtio drivers)
	for dep in $(modinfo -k "$kver" -F depends "$1" | tr ',' ' '); do
		add_kmod "$dep"
	done
	grep -qx "$1" "$root/kmods.order.names" 2>/dev/null && return 0
	echo "$1" >> "$root/kmods.order.names"
	cp "$path" "$root/kmods/"
	basename "$path" >> "$root/kmods.order"
}
[ "$kver" = none ] || for m in nd_e820 nd_pmem dax_pmem; do add_kmod "$m"; done
# the extra modules: loaded by the suites that need them, not at boot
mv "$root/kmods.order" "$root/kmods.boot"
: > "$root/kmods.order"
[ "$kver" = none ] || for m in ${TG_KMODS_EXTRA:-}; do add_kmod "$m" || { echo "mkinitramfs: no module $m for $kver" >&2; exit 1; }; done
mv "$root/kmods.order" "$root/kmods.extra"
mv "$root/kmods.boot" "$root/kmods.order"
rm -f "$root/kmods.order.names"

# Host programs with their libraries (ldd), so suites can run real tools.
for p in "$@"; do
	dst="$root/usr/bin/$(basename "$p")"
	mkdir -p "$root/usr/bin"
	cp "$p" "$dst"
	ldd "$p" 2>/dev/null | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' |
	while read -r lib; do
		[ -e "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
echo "tguser:x:1000:1000::/tmp:/bin/sh" >> "$root/etc/passwd"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
