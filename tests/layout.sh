#!/bin/bash
# The module's layout holds (docs/module.md "Layout"), checked on the objects
# the W=1 build just made, so a call is seen whatever header declared it:
#  - calls between cgroup-ui/ and module/ go one way: no object of module/
#    (or core/) uses a symbol that cgroup-ui/ defines;
#  - cgroup-ui/ includes from module/ only tgroup.h;
#  - plug-ins are independent: no source or actuator uses a symbol another
#    plug-in defines (they meet only in the core: registry, loop, pqr.c);
#  - the core reaches plug-ins only through the registry: no core object
#    but module/registry.c uses any symbol a plug-in defines, and
#    registry.c only their ops tables (tg_src_*, tg_act_*).
# Prints one line per broken rule; exits non-zero if any.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
bad() { echo "layout: $*"; rc=1; }

defs() { nm --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRtdbr]/ { print $3 }' | sort -u; }
uses() { nm -u "$1" 2>/dev/null | awk '{ print $2 }' | sort -u; }

# the objects tgroup.ko is linked from (Kbuild), not whatever *.o lies
# around: a tree built before a file moved keeps its old objects
objs=$(printf 'include Kbuild\nall:\n\t@echo $(tgroup-y)\n' | make -s -f - all)
ui_objs=() core_objs=() plug_objs=()
for o in $objs; do
	[ -f "$o" ] || { echo "layout: $o missing: build the module first"; exit 2; }
	case $o in
	cgroup-ui/*) ui_objs+=("$o") ;;
	module/sources/*|module/actuators/*) plug_objs+=("$o") ;;
	*) core_objs+=("$o") ;;
	esac
done
[ ${#ui_objs[@]} -gt 0 ] && [ ${#plug_objs[@]} -gt 0 ] || { echo "layout: no objects in Kbuild"; exit 2; }

ui_defs=$(defs "${ui_objs[@]}")
for o in "${core_objs[@]}" "${plug_objs[@]}"; do
	for s in $(comm -12 <(uses "$o") <(echo "$ui_defs")); do
		bad "$o calls $s of cgroup-ui/ (module/ must not call the filesystem)"
	done
done

for f in cgroup-ui/*.[ch]; do
	while read -r h; do
		case $h in
		ui.h|tgroup.h|tg_core.h|tg_parse.h) ;;
		*) bad "$f includes $h (cgroup-ui/ reaches module/ through tgroup.h only)" ;;
		esac
	done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$f")
done
for f in module/*.[ch] module/*/*.[ch]; do
	grep -q '^#include "ui.h"' "$f" && bad "$f includes ui.h"
done

for o in "${plug_objs[@]}"; do
	mine=$(defs "$o")
	for p in "${plug_objs[@]}"; do
		[ "$p" = "$o" ] && continue
		for s in $(comm -12 <(uses "$o") <(comm -23 <(defs "$p") <(echo "$mine"))); do
			bad "$o uses $s of $p (plug-ins meet only in the core)"
		done
	done
done

plug_defs=$(defs "${plug_objs[@]}")
for o in "${core_objs[@]}"; do
	for s in $(comm -12 <(uses "$o") <(echo "$plug_defs")); do
		if [ "$o" = module/registry.o ]; then
			case $s in tg_src_*|tg_act_*) continue ;; esac
		fi
		bad "$o uses $s of a plug-in (the core reaches plug-ins through registry.c's ops tables)"
	done
done
exit $rc
