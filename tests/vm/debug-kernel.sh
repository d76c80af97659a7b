#!/bin/bash
# Build (once) the debug kernel of make check's "dbg" lane and print the
# directory that holds it:
#   DIR/bzImage      the kernel the guest boots
#   DIR/build/       what external modules build against (make -C DIR/build
#                    M=...): Makefiles, scripts, include, arch headers,
#                    objtool, Module.symvers, .config
#   DIR/System.map, DIR/config, DIR/build-seconds, DIR/build.log.gz
#
# Source: Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz);
# config: `make tinyconfig` + tests/vm/debug-kernel.config + olddefconfig,
# every fragment line checked in the result.
#
# The cache is ${TG_CACHE:-${XDG_CACHE_HOME:-~/.cache}/tgroup}/debug-6.1-<key>,
# key = hash of the fragment, this script's recipe version, the source
# package version and the compiler version; kernels of other keys unused for
# 14 days are removed after a build. A build happens in a temporary
# directory next to it and is renamed into place only when complete, under
# a lock (two checkouts asking at once build once). Progress goes to stderr
# every 30 s; the directory is the only line on stdout.
#
# usage: debug-kernel.sh [--key]     (--key: print the cache key and exit)
set -euo pipefail
# All in one function, read whole before it runs: editing this file during a
# build (it takes a while) cannot change what the running build does.
main() {
	here=$(cd "$(dirname "$0")" && pwd)
	frag=$here/debug-kernel.config
	tarball=/usr/src/linux-source-6.1.tar.xz
	recipe=2	# bump when the way the tree is built or laid out changes

	say() { echo "debug-kernel: $*" >&2; }
	[ -r "$tarball" ] || { say "no $tarball (apt-get install linux-source-6.1, or make deps)"; exit 1; }
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c '%s-%Y' "$tarball")
	ccver=$(${CC:-gcc} --version | head -n1)
	key=$( { echo "recipe $recipe"; echo "source $srcver"; echo "cc $ccver"; cat "$frag"; } | sha256sum | cut -c1-16)
	[ "${1:-}" = --key ] && { echo "$key"; exit 0; }

	cache=${TG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tgroup}
	dir=$cache/debug-6.1-$key
	complete() { [ -s "$1/bzImage" ] && [ -s "$1/build/Module.symvers" ] && [ -s "$1/build/.config" ]; }
	# A use marks the kernel as used (its mtime); kernels of other keys
	# unused for 14 days are removed after a build.
	if complete "$dir"; then touch "$dir"; echo "$dir"; exit 0; fi

	# (a build of this key killed earlier leaves a temporary directory or
	# an incomplete one: removed once the lock is held)
	. "$here/cache.sh"
	cache_begin "debug-6.1-$key" || { echo "$dir"; exit 0; }
	src=$tmp/src out=$tmp/out final=$tmp/final
	mkdir -p "$src" "$out" "$final"
	start=$(date +%s)
	jobs=$(nproc)
	say "building Debian linux-source $srcver with lock/memory debugging into $dir ($jobs jobs; takes a while)"
	nice -n 10 tar -xf "$tarball" -C "$src" --strip-components=1

	kmake() { nice -n 10 make -C "$src" O="$out" "$@"; }
	kmake -s tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >"$tmp/merge.log" 2>&1 ||
		{ cat "$tmp/merge.log" >&2; exit 1; }
	kmake -s olddefconfig >>"$tmp/merge.log" 2>&1 || { cat "$tmp/merge.log" >&2; exit 1; }
	# Every fragment line must hold in the final configuration.
	bad=0
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" "$out/.config" ||
			{ say "config: wanted $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$out/.config" || echo unset)"; bad=1; } ;;
		"# CONFIG_"*" is not set")
			s=${line#\# }; s=${s%% *}
			! grep -q "^$s=" "$out/.config" || { say "config: wanted $s unset, got $(grep "^$s=" "$out/.config")"; bad=1; } ;;
		esac
	done < "$frag"
	[ $bad = 0 ] || { say "the fragment does not apply to this source; fix tests/vm/debug-kernel.config"; exit 1; }

	# Build; a line every 30 s with the number of objects compiled so far.
	log=$tmp/build.log
	( t0=$(date +%s) s=
	  trap '[ -n "$s" ] && kill $s 2>/dev/null; exit 0' TERM
	  while :; do
		sleep 30 & s=$!
		wait $s
		say "$(grep -c '^  CC ' "$log" 2>/dev/null) objects compiled, $(( $(date +%s) - t0 )) s"
	  done ) >&2 9>&- &
	progress=$!
	if ! kmake -j"$jobs" bzImage modules >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -20 >&2; tail -20 "$log" >&2
		say "kernel build failed (log kept in $cache/debug-6.1-$key.failed.log)"
		cp "$log" "$cache/debug-6.1-$key.failed.log"
		exit 1
	fi
	kill "$progress" 2>/dev/null; wait "$progress" 2>/dev/null || true; progress=

	# The tree external modules build against, laid out as Debian's headers
	# packages are (scripts/package/builddeb: deploy_kernel_headers).
	mkdir -p "$final/build"
	( cd "$src"
	  find . arch/x86 -maxdepth 1 -name 'Makefile*'
	  find include scripts -type f -o -type l
	  find arch/x86 -name Kbuild.platforms -o -name Platform
	  find $(find arch/x86 -name include -o -name scripts -type d) -type f
	) > "$tmp/srcfiles"
	( cd "$out"
	  echo tools/objtool/objtool
	  find arch/x86/include Module.symvers include scripts -type f
	) > "$tmp/objfiles"
	tar -cf - -C "$src" -T "$tmp/srcfiles" | tar -xf - -C "$final/build"
	tar -cf - -C "$out" -T "$tmp/objfiles" | tar -xf - -C "$final/build"
	cp "$out/.config" "$final/build/.config"
	cp "$out/.config" "$final/config"
	cp "$out/arch/x86/boot/bzImage" "$final/bzImage"
	cp "$out/System.map" "$final/System.map"
	gzip -9 < "$log" > "$final/build.log.gz"
	secs=$(( $(date +%s) - start ))
	echo "$secs" > "$final/build-seconds"
	echo "$srcver" > "$final/source-version"
	cp "$frag" "$final/debug-kernel.config"
	mv "$final" "$dir"
	find "$cache" -maxdepth 1 -name 'debug-6.1-*' -type d -mtime +14 -exec rm -rf {} + 2>/dev/null || true
	say "built $(cat "$dir/build/include/config/kernel.release") in $((secs / 60)) min $((secs % 60)) s ($(grep -c '^  CC ' "$log") objects): $dir"
	echo "$dir"
}
main "$@"; exit
