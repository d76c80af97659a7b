#!/bin/bash
# Install the Debian packages tgroup needs to build, test and demo, if any is
# missing. Runs apt-get as root (or through sudo when available).
set -euo pipefail
# build-essential: gcc, make, libc6-dev (static guest programs)
# linux-image/headers-cloud-amd64: the kernel the QEMU guest boots, and the
#   headers tgroup.ko builds against
# qemu-system-x86, busybox-static, cpio, gzip, kmod, e2fsprogs: the guest,
#   its initramfs and the ext4 on the emulated pmem
# libcmocka-dev: unit tests; clang + libclang-rt-14-dev: libFuzzer;
# libpmem-dev, libpmem2-dev, libpmemobj-dev: pmdk-hooks and its tests; fio: its libpmem engine in the
#   pmdk suite; linux-source-6.1: checkpatch.pl, and the source of the debug
#   kernel make check builds (tests/vm/debug-kernel.sh) with flex, bison, bc,
#   libelf-dev (objtool) and xz-utils (the source tarball)
# libpfm4-dev, intel-cmt-cat: tgctl setup (libpfm4's event tables; libpqos
#   and its pqos/membw tools); libmicrohttpd-dev: tgroup-exporter's HTTP;
#   libjson-c-dev: tgctl's JSON (status --json);
#   prometheus: promtool, which lints the exposition in make check (on a
#   systemd host the package also enables a prometheus service); dkms:
#   make install-dkms and its test
# python3-matplotlib: eval/'s plots (make demo, make eval)
pkgs=(
	build-essential
	linux-image-cloud-amd64
	linux-headers-cloud-amd64
	qemu-system-x86
	busybox-static
	cpio gzip kmod e2fsprogs
	libcmocka-dev
	clang libclang-rt-14-dev
	libpmem-dev libpmem2-dev libpmemobj-dev fio
	linux-source-6.1
	flex bison bc libelf-dev xz-utils
	libpfm4-dev intel-cmt-cat libmicrohttpd-dev libjson-c-dev prometheus dkms
	perl
	python3-matplotlib
)
if [ "${1:-}" = --with-6.12 ]; then
	# bookworm-backports carries Debian's 6.12 kernel for Debian 12. Nothing
	# is written into the system's apt sources: if backports is not
	# configured, apt is pointed (for these two calls only) at a private
	# source list that adds bookworm-backports on the mirror the system
	# already uses for bookworm (deb822 .sources or one-line .list).
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	apt_opts=()
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		mirror=$(scripts/apt-mirror.sh) || { echo "deps: no bookworm mirror in the apt sources to reuse" >&2; exit 1; }
		state=$(mktemp -d)
		trap 'rm -rf "$state"' EXIT
		{ cat /etc/apt/sources.list 2>/dev/null || true
		  echo "deb $mirror bookworm-backports main"; } > "$state/sources.list"
		mkdir -p "$state/lists/partial"
		# the private list and a private lists dir: apt's own state stays as it was
		apt_opts=(-o "Dir::Etc::sourcelist=$state/sources.list" -o "Dir::State::Lists=$state/lists")
		echo "deps: bookworm-backports from $mirror (not added to /etc/apt)"
	fi
	if ! ls -d /usr/src/linux-headers-6.12*-cloud-amd64 >/dev/null 2>&1; then
		$SUDO apt-get "${apt_opts[@]}" update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${apt_opts[@]}" install -y -q -t bookworm-backports \
			linux-image-6.12-cloud-amd64 linux-headers-6.12-cloud-amd64 >/dev/null
	fi
	shift
fi
# Go for userland/nri (tgroup-nri): a Go >= the one its go.mod names, else
# Debian's golang-1.19-go fetching that toolchain (the golang.org/toolchain
# module) through the Go module proxy; then the plugin's modules into the
# module cache (scripts/go.sh). Not fatal here: make check reports it.
scripts/go.sh --install --modules >/dev/null ||
	echo "deps: no Go toolchain or modules for userland/nri (make check reports nri_toolchain failed)" >&2
# helm, built once from its Go module into ~/.cache/tgroup (scripts/helm.sh):
# make check lints and renders the chart with it.
scripts/helm.sh --install >/dev/null ||
	echo "deps: no helm (make check reports chart_helm failed)" >&2
missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
# Also need the headers that match an installed cloud image (a fresh image
# metapackage may pull a newer kernel than the headers, or the reverse).
if [ ${#missing[@]} -eq 0 ] && tests/vm/kver.sh >/dev/null 2>&1; then
	exit 0
fi
[ ${#missing[@]} -eq 0 ] && missing=(linux-image-cloud-amd64 linux-headers-cloud-amd64)
echo "deps: installing ${missing[*]}"
SUDO=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q "${missing[@]}" >/dev/null
tests/vm/kver.sh >/dev/null || { echo "deps: no matching cloud kernel image + headers" >&2; exit 1; }
