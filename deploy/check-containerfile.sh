#!/bin/bash
# deploy/Containerfile checked without building it (no container engine on
# the development and CI machines, and no registry to pull the base from):
#   - only known instructions, one FROM, the Debian release the binaries are
#     built on (they link its glibc and libraries);
#   - every COPY source exists (the repository's files, make's build outputs);
#   - every shared library the copied binaries need (their ELF NEEDED) comes
#     from a Debian package the RUN apt-get install names, or libc6 (in the
#     base image);
#   - the ENTRYPOINT is the copied deploy/tgroup-node-start, and that script
#     runs tgctl setup on the mount and then execs tgroup-nri with its
#     arguments (run here with stand-ins for both), skips setup when told or
#     when the mount is not one, and goes on when setup fails;
#   - the chart runs that entry point.
# usage: deploy/check-containerfile.sh  (from the repository root, after
# make userland nri). Prints PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/.."
cf=deploy/Containerfile
ok() { echo "PASS containerfile/$1"; }
ko() { echo "FAIL containerfile/$1${2:+: $2}"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# the instructions, continuation lines joined, comments dropped
sed -e 's/^[[:space:]]*#.*$//' "$cf" | sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' | grep -v '^[[:space:]]*$' > "$d/ins"
bad=$(awk '{print $1}' "$d/ins" | grep -vxE 'FROM|RUN|COPY|ENTRYPOINT|CMD|ENV|ARG|LABEL|USER|WORKDIR' | tr '\n' ' ')
[ -z "$bad" ] && ok instructions || ko instructions "unknown: $bad"

codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
from=$(awk '$1 == "FROM" {print $2}' "$d/ins")
if [ "$(echo "$from" | wc -l)" = 1 ] && [[ $from == debian:${codename}* ]]; then
	ok "base_release ($from on a $codename build host)"
else
	ko base_release "FROM $from, want one debian:$codename* (the binaries are built on $codename)"
fi

# COPY sources (the last word is the destination; JSON form not used)
srcs=() missing=()
while read -r _ args; do
	read -ra w <<< "$args"
	for ((i = 0; i < ${#w[@]} - 1; i++)); do
		[[ ${w[i]} == --* ]] && continue
		srcs+=("${w[i]}")
		[ -e "${w[i]}" ] || missing+=("${w[i]}")
	done
done < <(grep '^COPY ' "$d/ins")
[ ${#srcs[@]} -gt 0 ] && [ ${#missing[@]} = 0 ] && ok "copy_sources (${#srcs[@]})" ||
	ko copy_sources "missing: ${missing[*]:-none copied} (make userland nri)"
# (a here-string, not a pipe: grep -q leaves at its first match, and under
# pipefail the printf it left writing fails the test - seen once, 28 Nov)
for b in tgroup-nri tgroup-exporter tgctl tgroup-node-start; do
	grep -q "/$b\$" <<< "$(printf '%s\n' "${srcs[@]}")" || ko "copies_$b" "no COPY of $b"
done

# the packages of the libraries the binaries need
pkgs=" $(grep '^RUN ' "$d/ins" | grep -o 'apt-get install [^&;|]*' | sed 's/apt-get install//; s/ -[-a-z]*//g') "
need_ok=1
for s in "${srcs[@]}"; do
	[ -f "$s" ] && head -c4 "$s" | grep -q ELF || continue
	for so in $(readelf -d "$s" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ {print $NF; exit}')
		[ -n "$path" ] || { ko "library_$so" "$s needs $so, not installed here"; need_ok=0; continue; }
		pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null)
		pkg=${pkg%%:*}
		if [ "$pkg" = libc6 ] || [[ $pkgs == *" $pkg "* ]]; then
			echo "  $s: $so from $pkg"
		else
			ko "library_$so" "$s needs $so from Debian's $pkg, which the Containerfile does not install"; need_ok=0
		fi
	done
done
[ $need_ok = 1 ] && ok "libraries_installed (apt-get install $(echo $pkgs))"

ep=$(awk '$1 == "ENTRYPOINT"' "$d/ins")
if [[ $ep == *'"/usr/local/bin/tgroup-node-start"'* ]] && grep -q '^COPY deploy/tgroup-node-start /usr/local/bin/tgroup-node-start$' "$d/ins"; then
	ok entrypoint
else
	ko entrypoint "$ep"
fi
grep -q 'command: \[/usr/local/bin/tgroup-node-start\]' deploy/helm/tgroup/templates/daemonset.yaml &&
	ok chart_runs_the_entrypoint || ko chart_runs_the_entrypoint

# the entry point, with stand-ins for tgctl and tgroup-nri on PATH
sh -n deploy/tgroup-node-start && ok entrypoint_syntax || ko entrypoint_syntax
mkdir -p "$d/bin" "$d/mnt"
: > "$d/mnt/tgroup.config"
cat > "$d/bin/tgctl" <<EOF
#!/bin/sh
echo "tgctl \$*" >> "$d/calls"
exit \${TGCTL_RC:-0}
EOF
cat > "$d/bin/tgroup-nri" <<EOF
#!/bin/sh
echo "tgroup-nri \$* pid \$\$" >> "$d/calls"
EOF
chmod +x "$d/bin/tgctl" "$d/bin/tgroup-nri"
# run ENV...: the script in the background, its pid in $d/pid
run() {
	rm -f "$d/calls"
	env PATH="$d/bin:$PATH" "$@" deploy/tgroup-node-start -idx=50 -config=/x.yaml > "$d/out" 2>&1 &
	echo $! > "$d/pid"
	wait $!
}
run TGROUP_MOUNT="$d/mnt" TGROUP_SETUP_ARGS="--profile icelake"
want="tgctl -m $d/mnt setup --profile icelake
tgroup-nri -mount=$d/mnt -idx=50 -config=/x.yaml"
if [ "$(sed 's/ pid [0-9]*$//' "$d/calls")" = "$want" ]; then ok entrypoint_setup_then_plugin; else ko entrypoint_setup_then_plugin "calls: $(tr '\n' '|' < "$d/calls")"; fi
run TGROUP_MOUNT="$d/mnt" TGCTL_RC=1
if [ "$(grep -c . "$d/calls")" = 2 ] && grep -q 'tgctl setup exited 1' "$d/out"; then ok entrypoint_setup_failure_goes_on
else ko entrypoint_setup_failure_goes_on "$(tr '\n' '|' < "$d/calls")"; fi
run TGROUP_MOUNT="$d/mnt" TGROUP_SETUP=0
if [ "$(cat "$d/calls" | sed 's/ pid [0-9]*$//')" = "tgroup-nri -mount=$d/mnt -idx=50 -config=/x.yaml" ]; then ok entrypoint_setup_off
else ko entrypoint_setup_off "$(tr '\n' '|' < "$d/calls")"; fi
run TGROUP_MOUNT="$d/nomount"
if ! grep -q '^tgctl' "$d/calls" && grep -q 'not a tgroup mount: tgctl setup skipped' "$d/out"; then ok entrypoint_no_mount
else ko entrypoint_no_mount "$(tr '\n' '|' < "$d/calls")"; fi
# exec: the plugin replaces the script (the container's pid 1 gets signals)
run TGROUP_MOUNT="$d/mnt" TGROUP_SETUP=0
if grep -q "^tgroup-nri .* pid $(cat "$d/pid")\$" "$d/calls"; then ok entrypoint_execs_the_plugin
else ko entrypoint_execs_the_plugin "the plugin ran as another process than the script ($(cat "$d/pid")): $(cat "$d/calls")"; fi
