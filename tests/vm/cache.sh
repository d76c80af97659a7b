# shellcheck shell=bash
# Sourced by the scripts that build something once into the cache
# (tests/vm/debug-kernel.sh, tests/e2e/runtimes.sh). The caller defines
# say() and complete DIR, and sets cache.
#
# cache_begin NAME: take the lock $cache/NAME.lock (two checkouts asking at
# once build once: the second waits, saying so); if $cache/NAME is complete
# by then, return 1. Else, holding the lock, remove what a killed build of
# NAME left ($cache/.tmp-NAME.*, an incomplete $cache/NAME), make the
# temporary directory $tmp next to it (removed at exit, with the progress
# printer $progress if one runs) and return 0. The lock is fd 9, held until
# the caller exits.
cache_begin() {
	mkdir -p "$cache"
	exec 9>"$cache/$1.lock"
	if ! flock -n 9; then
		say "another build of $cache/$1 is running; waiting for it"
		flock 9
	fi
	complete "$cache/$1" && return 1
	rm -rf "$cache/.tmp-$1".*
	[ -e "$cache/$1" ] && { say "removing incomplete $cache/$1"; rm -rf "${cache:?}/$1"; }
	tmp=$(mktemp -d "$cache/.tmp-$1.XXXXXX")
	progress=
	trap cache_cleanup EXIT
	trap 'exit 130' INT TERM
}
cache_cleanup() {
	[ -n "$progress" ] && kill "$progress" 2>/dev/null
	rm -rf "$tmp"
}
