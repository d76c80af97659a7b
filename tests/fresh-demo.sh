#!/bin/bash
# make demo as a new user runs it: a fresh clone (the committed HEAD of this
# checkout) with no build directory, so nothing built by an earlier make is
# reused (KVER computed before deps ran, build/vm missing, the KVM probe not
# cached: issue 12's two first-run failures). The Debian packages are the
# machine's (a fresh machine cannot be tested here). Exits non-zero, with
# the tail of the output, if make demo fails or its story is incomplete.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tgroup-fresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone -q "$top" "$tmp/tgroup" || { echo "fresh-demo: git clone failed"; exit 1; }
cd "$tmp/tgroup"
[ ! -e build ] || { echo "fresh-demo: the clone has a build directory"; exit 1; }
start=$(date +%s)
timeout -s KILL ${TG_FRESH_TIMEOUT:-900} nice -n 10 make demo > "$tmp/demo.out" 2>&1
rc=$?
secs=$(($(date +%s) - start))
bad=
[ $rc = 0 ] || bad="make demo exited $rc"
for want in '% of solo' 'state' 'no control' 'mba_MBps' 'timeline plot:'; do
	grep -q -- "$want" "$tmp/demo.out" || bad="${bad:+$bad; }no '$want' in its output"
done
png=$(sed -n 's/.*timeline plot: //p' "$tmp/demo.out")
[ -n "$png" ] && [ -s "$png" ] || bad="${bad:+$bad; }no timeline PNG"
if [ -n "$bad" ]; then
	tail -25 "$tmp/demo.out"
	echo "fresh-demo: $bad (HEAD $(git rev-parse --short HEAD), ${secs}s)"
	exit 1
fi
echo "fresh-demo: make demo from a fresh clone of $(git rev-parse --short HEAD) with an empty build directory: ok (${secs}s, live lines: $(grep -c '% of solo' "$tmp/demo.out"))"
