#!/bin/bash
# Print the path of a Go toolchain that builds userland/nri (go.mod's "go"
# line), or exit 1. --install obtains one when there is none, the way a
# fresh Debian 12 can: Debian's Go (1.19, package golang-1.19-go, which
# adds no /usr/bin/go) is too old for containerd/nri but is a module
# client: it downloads the Go toolchain that the Go module proxy publishes
# as the module golang.org/toolchain (the module GOTOOLCHAIN=goX.Y.Z
# switching uses) into the module cache, and that toolchain is used from
# there. A newer Go already installed (PATH, /usr/local/go, $GO) is used
# as it is. --modules also downloads userland/nri's modules into the module
# cache (after that, builds and tests work offline: GOPROXY=off).
set -euo pipefail
cd "$(dirname "$0")/.."
# the toolchain --install fetches: the newest patch of go.mod's Go version
TOOLCHAIN=go1.26.8
install=0 modules=0
for a in "$@"; do
	case $a in
	--install) install=1 ;;
	--modules) modules=1 ;;
	*) echo "usage: scripts/go.sh [--install] [--modules]" >&2; exit 2 ;;
	esac
done
need=$(sed -n 's/^go \([0-9]*\.[0-9]*\).*/\1/p' userland/nri/go.mod)
unset GOROOT
export GOTOOLCHAIN=local

# version of a go binary as "X.Y", or nothing
ver() { "$1" version 2>/dev/null | sed -n 's/^go version go\([0-9]*\.[0-9]*\).*/\1/p'; }
newer() { [ "$(printf '%s\n%s\n' "$need" "$1" | sort -V | head -n1)" = "$need" ]; }

clients=()
[ -n "${GO:-}" ] && clients+=("$GO")
command -v go >/dev/null && clients+=("$(command -v go)")
for g in /usr/local/go/bin/go $(ls -d /usr/lib/go-*/bin/go 2>/dev/null | sort -rV); do
	[ -x "$g" ] && clients+=("$g")
done
modcache() {
	local c
	for c in "${clients[@]}"; do
		"$c" env GOMODCACHE 2>/dev/null && return
	done
	echo "${GOPATH:-$HOME/go}/pkg/mod"
}
arch=$(uname -m); case $arch in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; esac
tc=$(modcache)/golang.org/toolchain@v0.0.1-$TOOLCHAIN.linux-$arch/bin/go

found=
for g in "${clients[@]}" "$tc"; do
	v=$(ver "$g") || true
	if [ -n "$v" ] && newer "$v"; then found=$g; break; fi
done

if [ -z "$found" ] && [ $install = 1 ]; then
	if [ ${#clients[@]} = 0 ]; then
		SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
		echo "go: installing golang-1.19-go (Debian) to fetch Go $TOOLCHAIN through the module proxy" >&2
		export DEBIAN_FRONTEND=noninteractive
		$SUDO apt-get update -q >/dev/null
		$SUDO apt-get install -y -q golang-1.19-go >/dev/null
		clients=(/usr/lib/go-1.19/bin/go)
	fi
	echo "go: fetching golang.org/toolchain@v0.0.1-$TOOLCHAIN.linux-$arch with ${clients[0]}" >&2
	"${clients[0]}" mod download golang.org/toolchain@"v0.0.1-$TOOLCHAIN.linux-$arch" >&2
	tc=$(modcache)/golang.org/toolchain@v0.0.1-$TOOLCHAIN.linux-$arch/bin/go
	# module files are unpacked without execute bits; cmd/go sets the same
	# bits when it switches toolchains itself
	chmod a+x "$(dirname "$tc")"/* "$(dirname "$(dirname "$tc")")"/pkg/tool/*/*
	v=$(ver "$tc") || true
	[ -n "$v" ] && newer "$v" && found=$tc
fi
if [ -z "$found" ]; then
	echo "go: no Go >= $need (make deps fetches $TOOLCHAIN)" >&2
	exit 1
fi
if [ $modules = 1 ] && ! (cd userland/nri && GOPROXY=off GOFLAGS=-mod=readonly "$found" list -deps -test ./... >/dev/null 2>&1); then
	echo "go: downloading userland/nri's modules" >&2
	(cd userland/nri && GOFLAGS=-mod=readonly "$found" list -deps -test ./... >/dev/null)
fi
echo "$found"
