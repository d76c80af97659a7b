#!/bin/bash
# scripts/checkpatch.pl --strict and scripts/kernel-doc over the kernel
# sources (module/, cgroup-ui/, core/), from Debian's linux-source tarball.
#
# Ignored, with the reason:
#  LINUX_VERSION_CODE, CONSTANT_COMPARISON: tgroup is an out-of-tree module
#    that builds against 6.1 and 6.12; the version checks are the compat
#    shims for VFS signatures that changed in between (cgroup-ui/fs.c).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$top/build/checkpatch
cp=$cache/scripts/checkpatch.pl
if [ ! -x "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
	[ -n "$tarball" ] || { echo "checkpatch: no /usr/src/linux-source-*.tar.xz (make deps)"; exit 1; }
	mkdir -p "$cache"
	d=$(basename "$tarball" .tar.xz)
	tar xJf "$tarball" -C "$cache" --strip-components=1 \
		"$d/scripts/checkpatch.pl" "$d/scripts/spelling.txt" "$d/scripts/const_structs.checkpatch" \
		"$d/scripts/kernel-doc"
fi
cd "$top"
rc=0
"$cp" --strict --no-tree --terse --show-types --quiet \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
	-f module/*.[ch] module/sources/*.c module/actuators/*.c cgroup-ui/*.[ch] core/*.[ch] pmdk-hooks/tgpmem_abi.h || rc=1
# kernel-doc comments must parse (and match the functions they document)
kd=$("$cache/scripts/kernel-doc" -none module/*.c module/sources/*.c module/actuators/*.c module/*.h cgroup-ui/*.c core/*.c core/*.h 2>&1)
[ -z "$kd" ] || { echo "$kd"; echo "kernel-doc: warnings above"; rc=1; }
exit $rc
