#!/bin/bash
# usage: critest-mark.sh CONSOLE RUNTIMES_DIR
# After a k8s guest run that ran critest's NRI specs (tg.k8s_critest=1):
# when critest_nri passed on every containerd version the guest ran
# (CONSOLE, the run's console log), write RUNTIMES_DIR/critest-passed (the
# runtime build's cache directory, tests/e2e/runtimes.sh), so that later
# runs of make check skip critest for this build, printing a SKIP line
# that names the marker. critest checks the runtime (the plugin is
# stopped), so a pass holds for the build, not for a checkout.
set -euo pipefail
con=$1 rdir=$2
[ -d "$rdir" ] && [ -r "$con" ] || exit 0
nv=$(grep -c '^TGTEST-INFO: k8s: containerd v[0-9.]*: scenarios' "$con" || true)
np=$(grep -c '^TGTEST: PASS k8s/[0-9.]*/critest_nri' "$con" || true)
if [ "$np" -gt 0 ] && [ "$np" = "$nv" ]; then
	{ echo "$(date -u +%FT%TZ) on $np containerd versions"; grep '^TGTEST: PASS k8s/[0-9.]*/critest_nri' "$con"; } > "$rdir/critest-passed"
	echo "k8s: critest_nri passed on $np containerd versions: $rdir/critest-passed (make check skips it for this runtime build)"
fi
