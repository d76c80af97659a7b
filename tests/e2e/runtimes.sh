#!/bin/bash
# Build (once) what the k8s e2e suite (tests/guest/k8s) runs in the guest,
# and print the directory that holds it:
#   DIR/disk.img    an ext4 image the guest gets as a second, read-only
#                   virtio disk (mounted on /k8s):
#     containerd/vX.Y.Z/{containerd,containerd-shim-runc-v2,ctr}, one per
#                   version in CONTAINERD_VERSIONS (newest first)
#     bin/{runc,crictl,critest}
#     cni/{dummy,loopback,host-local}  CNI plugins, for critest's pods
#     bin/tg-registry  a read-only registry on loopback (tests/e2e/registry.go)
#                   serving the images to critest, which pulls
#     images/{busybox,pause}.tar  OCI image layouts (tests/e2e/oci-image.sh)
#     VERSIONS      what was built, from which module, with which Go
#   DIR/build.log.gz, DIR/build-seconds, DIR/VERSIONS
#
# Each program is built from its Go module at a pinned version through the
# Go module proxy (`go install module/cmd@version`; critest, a test binary,
# with `go test -c` in the module's directory of the module cache), with
# the Go toolchain scripts/go.sh finds; when that is older than the newest
# module's go line, GOTOOLCHAIN=$GO_TOOLCHAIN makes the go command fetch
# that toolchain through the proxy (the module golang.org/toolchain).
# containerd, its shim, ctr, crictl and critest are pure Go (CGO_ENABLED=0;
# containerd without btrfs). runc needs cgo (its nsenter is C): built
# static against glibc, without the seccomp build tag (no libseccomp), so
# pods run unconfined (what kubelet asks for by default).
#
# Images: busybox from Debian's busybox-static (/bin/busybox and a link per
# applet), the sandbox image from tests/e2e/pause.c (gcc -static); no
# registry is contacted, in the build or in the guest.
#
# The cache is ${TG_CACHE:-${XDG_CACHE_HOME:-~/.cache}/tgroup}/k8s-<key>, key
# = hash of the versions below, this script and the files the images are
# made from, the Go toolchain's and gcc's versions and busybox-static's.
# Built in a temporary directory next to it and renamed into place when
# complete, under a lock (two checkouts asking at once build once); other
# keys unused for 14 days are removed after a build. Progress on stderr
# every 30 s; the directory is the only line on stdout.
#
# usage: runtimes.sh [--key|--cached]
#   --key: print the cache key and exit; --cached: print the directory if
#   it is built, else exit 1 (never builds)
set -euo pipefail
# All in one function, read whole before it runs (as debug-kernel.sh).
main() {
	# newest 2.x, and 2.2 (NRI v0.11.0, older than the plugin's v0.12.5;
	# 2.4.2 ships NRI v0.12.3). 2.0 and 2.1 (NRI v0.8.0) cannot be built
	# with `go install` (their go.mod has exclude directives).
	CONTAINERD_VERSIONS="v2.4.2 v2.2.9"
	RUNC_VERSION=v1.5.2
	CRITOOLS_VERSION=v1.37.0
	CNI_VERSION=v1.9.1	# containernetworking/plugins, the one containerd 2.4.2 requires
	# containerd 2.4.2 and cri-tools 1.37.0 say go 1.26.6
	GO_TOOLCHAIN=go1.26.8
	recipe=1	# bump when the way the disk is built or laid out changes

	here=$(cd "$(dirname "$0")" && pwd)
	top=$(cd "$here/../.." && pwd)
	say() { echo "k8s-runtimes: $*" >&2; }

	go=$("$top/scripts/go.sh") || { say "no Go toolchain (make deps)"; exit 1; }
	unset GOROOT GOFLAGS
	export GOTOOLCHAIN=local CGO_ENABLED=0
	# "X.Y.Z" of a go binary
	gover() { "$1" env GOVERSION 2>/dev/null | sed 's/^go//'; }
	if [ "$(printf '%s\n%s\n' "${GO_TOOLCHAIN#go}" "$(gover "$go")" | sort -V | head -n1)" != "${GO_TOOLCHAIN#go}" ]; then
		export GOTOOLCHAIN=$GO_TOOLCHAIN
	fi
	bbver=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || sha256sum /bin/busybox | cut -c1-16)
	key=$( { echo "recipe $recipe"; echo "containerd $CONTAINERD_VERSIONS runc $RUNC_VERSION cri-tools $CRITOOLS_VERSION cni $CNI_VERSION"
		echo "go $GO_TOOLCHAIN (local $(gover "$go"))"; echo "cc $(${CC:-gcc} --version | head -n1)"; echo "busybox $bbver"
		cat "$0" "$here/pause.c" "$here/oci-image.sh" "$here/registry.go"; } | sha256sum | cut -c1-16)
	[ "${1:-}" = --key ] && { echo "$key"; exit 0; }

	cache=${TG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tgroup}
	dir=$cache/k8s-$key
	complete() { [ -s "$1/disk.img" ] && [ -s "$1/VERSIONS" ]; }
	if complete "$dir"; then touch "$dir"; echo "$dir"; exit 0; fi
	[ "${1:-}" = --cached ] && exit 1

	. "$top/tests/vm/cache.sh"
	cache_begin "k8s-$key" || { echo "$dir"; exit 0; }
	disk=$tmp/disk final=$tmp/final log=$tmp/build.log
	mkdir -p "$disk/bin" "$disk/images" "$final"
	start=$(date +%s)
	: > "$log"
	say "building containerd $CONTAINERD_VERSIONS, runc $RUNC_VERSION, cri-tools $CRITOOLS_VERSION from their Go modules into $dir (Go $(gover "$go")$([ "$GOTOOLCHAIN" = local ] || echo ", switching to $GOTOOLCHAIN through the module proxy"); about 5 min on 2 cores the first time)"

	# step WHAT CMD...: run CMD (output to the log), a line every 30 s
	step() {
		local what=$1 t0 rc=0
		shift
		t0=$(date +%s)
		say "$what"
		echo "== $what: $*" >> "$log"
		( s=
		  trap '[ -n "$s" ] && kill $s 2>/dev/null; exit 0' TERM
		  while :; do
			sleep 30 & s=$!
			wait $s
			say "  ... $what: $(( $(date +%s) - t0 )) s, $(grep -c '^go: downloading' "$log") modules downloaded so far"
		  done ) 9>&- &
		progress=$!
		"$@" >> "$log" 2>&1 || rc=$?
		kill "$progress" 2>/dev/null; wait "$progress" 2>/dev/null || true; progress=
		if [ $rc != 0 ]; then
			tail -30 "$log" >&2
			cp "$log" "$cache/k8s-$key.failed.log"
			say "$what failed (log kept in $cache/k8s-$key.failed.log)"
			exit 1
		fi
		say "  $what: done in $(( $(date +%s) - t0 )) s"
	}

	for v in $CONTAINERD_VERSIONS; do
		m=github.com/containerd/containerd/v2
		mkdir -p "$disk/containerd/$v"
		step "containerd $v (containerd, containerd-shim-runc-v2, ctr)" env GOBIN="$disk/containerd/$v" \
			nice -n 10 "$go" install -tags no_btrfs -ldflags "-s -w -X $m/version.Version=$v" \
			"$m/cmd/containerd@$v" "$m/cmd/containerd-shim-runc-v2@$v" "$m/cmd/ctr@$v"
	done
	# CNI for critest's pods (they have their own network namespace): dummy
	# (an eth0 that reaches nothing) with host-local addresses, loopback
	m=github.com/containernetworking/plugins
	mkdir -p "$disk/cni"
	step "CNI plugins $CNI_VERSION (dummy, loopback, host-local)" env GOBIN="$disk/cni" nice -n 10 "$go" install -ldflags "-s -w" \
		"$m/plugins/main/dummy@$CNI_VERSION" "$m/plugins/main/loopback@$CNI_VERSION" "$m/plugins/ipam/host-local@$CNI_VERSION"
	# runc: cgo, static; -X main.version as runc's Makefile sets it
	step "runc $RUNC_VERSION (static, cgo, no seccomp)" env GOBIN="$disk/bin" CGO_ENABLED=1 \
		nice -n 10 "$go" install -tags 'netgo osusergo urfave_cli_no_docs' \
		-ldflags "-s -w -extldflags -static -X main.version=${RUNC_VERSION#v}" \
		"github.com/opencontainers/runc@$RUNC_VERSION"
	step "crictl $CRITOOLS_VERSION" env GOBIN="$disk/bin" nice -n 10 "$go" install \
		-ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=${CRITOOLS_VERSION#v}" \
		"sigs.k8s.io/cri-tools/cmd/crictl@$CRITOOLS_VERSION"
	# critest is cmd/critest's test binary: built in the module's directory
	# in the module cache (read-only; only the output is written)
	step "critest $CRITOOLS_VERSION (download)" "$go" mod download "sigs.k8s.io/cri-tools@$CRITOOLS_VERSION"
	src=$("$go" mod download -json "sigs.k8s.io/cri-tools@$CRITOOLS_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[ -d "$src" ] || { say "cri-tools $CRITOOLS_VERSION: no module directory"; exit 1; }
	step "critest $CRITOOLS_VERSION" sh -c "cd '$src' && exec nice -n 10 '$go' test -c -ldflags '-s -w' -o '$disk/bin/critest' ./cmd/critest"

	# images, and the loopback registry that serves them to critest
	step "images (busybox from busybox-static, pause)" build_images "$disk/images"
	step "tg-registry (tests/e2e/registry.go)" sh -c "cd '$here' && exec env GOTOOLCHAIN=local '$go' build -ldflags '-s -w' -o '$disk/bin/tg-registry' registry.go"

	{
		echo "# tests/e2e/runtimes.sh, key $key, built $(date -u +%FT%TZ)"
		echo "go $("$go" env GOVERSION)"
		for v in $CONTAINERD_VERSIONS; do echo "containerd $v github.com/containerd/containerd/v2 nri $(nri_of "$v")"; done
		echo "runc $RUNC_VERSION github.com/opencontainers/runc"
		echo "crictl $CRITOOLS_VERSION sigs.k8s.io/cri-tools"
		echo "critest $CRITOOLS_VERSION sigs.k8s.io/cri-tools"
		echo "cni-plugins $CNI_VERSION github.com/containernetworking/plugins (dummy loopback host-local)"
		echo "busybox-static $bbver"
	} > "$disk/VERSIONS"
	cp "$disk/VERSIONS" "$final/VERSIONS"
	# ext4 without a journal, sized to fit with some room
	mb=$(( $(du -sm "$disk" | cut -f1) * 11 / 10 + 16 ))
	step "disk image (ext4, $mb MiB)" mke2fs -q -t ext4 -O ^has_journal -L tgk8s -d "$disk" "$final/disk.img" "${mb}M"
	gzip -9 < "$log" > "$final/build.log.gz"
	secs=$(( $(date +%s) - start ))
	echo "$secs" > "$final/build-seconds"
	mv "$final" "$dir"
	find "$cache" -maxdepth 1 -name 'k8s-*' -type d -mtime +14 -exec rm -rf {} + 2>/dev/null || true
	say "built in $((secs / 60)) min $((secs % 60)) s: $dir"
	echo "$dir"
}

# nri_of VERSION: the NRI version containerd VERSION requires (its go.mod)
nri_of() {
	"$go" mod download -json "github.com/containerd/containerd/v2@$1" 2>/dev/null |
		sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p' | xargs -r sed -n 's/^\tgithub.com\/containerd\/nri \(v[^ ]*\).*/\1/p'
}

# build_images DIR: DIR/busybox.tar (busybox-static, an applet link each,
# entrypoint sh) and DIR/pause.tar (the suite's pause, static)
build_images() {
	local out=$1 r
	r=$(mktemp -d)
	mkdir -p "$r/bb/bin" "$r/bb/tmp" "$r/bb/etc" "$r/pause"
	chmod 1777 "$r/bb/tmp"
	cp /bin/busybox "$r/bb/bin/busybox"
	! ldd /bin/busybox >/dev/null 2>&1 || { echo "/bin/busybox is not static (busybox-static)"; return 1; }
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$r/bb/bin/$a"
	done
	echo "root:x:0:0:root:/:/bin/sh" > "$r/bb/etc/passwd"
	"$here/oci-image.sh" "$r/bb" "$out/busybox.tar" localhost/tgroup-e2e/busybox:1 '["/bin/sh"]' '[]'
	${CC:-gcc} -static -Os -Wall -Wextra -Werror -o "$r/pause/pause" "$here/pause.c"
	strip "$r/pause/pause"
	"$here/oci-image.sh" "$r/pause" "$out/pause.tar" localhost/tgroup-e2e/pause:1 '["/pause"]' '[]'
	rm -rf "$r"
}
main "$@"; exit
