#!/bin/bash
# A minimal Debian 12 root, as a server would have it: systemd, Debian's cloud
# kernels 6.1 (linux-image-cloud-amd64) and 6.12 (linux-image-6.12-cloud-amd64,
# bookworm-security) with their initramfs; apt's package lists as of its
# creation, and in /var/cache/apt/archives the packages tgroup's .debs
# depend on (dkms and its compiler, the two kernels' headers, the tools'
# libraries, openssl for DKMS's signing key), downloaded but not installed:
# tests/deb/install.sh then installs them the way an operator's apt would,
# without the network.
#
# Built once with mmdebstrap from the mirrors the host's apt uses, into
# ~/.cache/tgroup/debian12-root-<key> (key: this script's text and the
# mirrors), under a lock; later runs reuse it. Prints the directory.
# TG_CACHE overrides ~/.cache/tgroup.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${TG_CACHE:-$HOME/.cache/tgroup}
mirror=$("$top/scripts/apt-mirror.sh" bookworm) || mirror=http://deb.debian.org/debian
security=$("$top/scripts/apt-mirror.sh" bookworm-security) || security=http://deb.debian.org/debian-security
key=$( { cat "$0"; echo "$mirror $security"; } | sha256sum | cut -c1-12)
root=$cache/debian12-root-$key
mkdir -p "$cache"
exec 9>"$cache/debian12-root.lock"
flock 9
if [ -e "$root/.complete" ]; then echo "$root"; exit 0; fi
command -v mmdebstrap >/dev/null || { echo "deb-root: no mmdebstrap (make deps)" >&2; exit 1; }
rm -rf "$root" "$root.tmp"
# what the server has before tgroup: a booting Debian 12 with both kernels
base=systemd,systemd-sysv,udev,kmod,procps,initramfs-tools,linux-image-cloud-amd64,linux-image-6.12-cloud-amd64
# what tgroup's .debs pull in (debian/control, dpkg-shlibdeps), downloaded only
deps="dkms linux-headers-cloud-amd64 linux-headers-6.12-cloud-amd64 intel-cmt-cat libjson-c5 libmicrohttpd12 libpfm4 kmod openssl"
echo "deb-root: mmdebstrap bookworm ($mirror, $security) into $root (once; a few minutes)" >&2
nice mmdebstrap --variant=minbase --include="$base" --skip=cleanup/apt \
	--customize-hook='echo tgroup-server > "$1/etc/hostname"' \
	--customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" > "$1/etc/fstab"' \
	--customize-hook='chroot "$1" passwd -d root >/dev/null' \
	--customize-hook="chroot \"\$1\" apt-get install -y -q --download-only $deps >/dev/null" \
	bookworm "$root.tmp" \
	"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main" >"$cache/debian12-root.log" 2>&1 ||
	{ tail -20 "$cache/debian12-root.log" >&2; exit 1; }
ls "$root.tmp"/boot/vmlinuz-6.1.* "$root.tmp"/boot/vmlinuz-6.12.* "$root.tmp"/boot/initrd.img-6.1.* \
	"$root.tmp"/boot/initrd.img-6.12.* >/dev/null || { echo "deb-root: a kernel or initramfs is missing" >&2; exit 1; }
touch "$root.tmp/.complete"
mv "$root.tmp" "$root"
echo "$root"
