#!/bin/bash
# Print the path of helm (helm.sh/helm/v3, pinned below), or exit 1.
# --install builds it when missing: `go install` of its module with the Go
# toolchain scripts/go.sh gives (the Go module proxy is the only source;
# helm's modules go to the module cache), into a cache outside the checkout
# shared by every checkout on the machine (like the debug kernel):
# ${XDG_CACHE_HOME:-~/.cache}/tgroup/helm-VERSION/helm. About 3 minutes on 2
# cores the first time, with progress; nothing afterwards. make deps runs it;
# make check renders and lints deploy/helm/tgroup with it (tests/check.sh 3f).
set -euo pipefail
cd "$(dirname "$0")/.."
HELM_VERSION=v3.22.0
install=0
case ${1:-} in
--install) install=1 ;;
"") ;;
*) echo "usage: scripts/helm.sh [--install]" >&2; exit 2 ;;
esac
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tgroup/helm-$HELM_VERSION
bin=$cache/helm
good() { [ -x "$bin" ] && "$bin" version --short 2>/dev/null | grep -q "^$HELM_VERSION"; }
if good; then echo "$bin"; exit 0; fi
if [ $install = 0 ]; then
	echo "helm: $bin not built (make deps)" >&2
	exit 1
fi
go=$(scripts/go.sh) || { echo "helm: no Go toolchain (make deps)" >&2; exit 1; }
mkdir -p "$cache"
exec 9>"$cache.lock"
flock 9 # one build at a time across checkouts
if good; then echo "$bin"; exit 0; fi
tmp=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "helm: building helm.sh/helm/v3/cmd/helm@$HELM_VERSION with $("$go" version | cut -d' ' -f3) into $cache (first time only, about 3 min)" >&2
# -v names each package as it is compiled: one progress line per 100
GOTOOLCHAIN=local GOFLAGS=-mod=mod GOBIN=$tmp CGO_ENABLED=0 nice -n 10 "$go" install -v -trimpath \
	-ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
	"helm.sh/helm/v3/cmd/helm@$HELM_VERSION" 2>&1 |
	awk '/^go: downloading/ { d++; if (d % 50 == 1) print "helm: downloading modules (" d ")"; next }
	     /^go: / || /^#/ || /\.go:[0-9]+:/ { print; next }
	     { n++; if (n % 100 == 0) print "helm: " n " packages compiled" }
	     END { print "helm: " n " packages compiled" }' >&2
[ -x "$tmp/helm" ] || { echo "helm: the build failed" >&2; exit 1; }
mv "$tmp/helm" "$bin"
good || { echo "helm: $bin does not say $HELM_VERSION" >&2; exit 1; }
echo "$bin"
