#!/bin/bash
# scripts/apt-mirror.sh on faked apt directories (APT_ETC): the mirror
# deps.sh --with-6.12 reuses. Prints PASS/FAIL lines.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
t() {	# name expected-output (empty: must fail) [suite]
	local got rc
	got=$(APT_ETC=$d "$top/scripts/apt-mirror.sh" ${3:-} 2>/dev/null); rc=$?
	if { [ -n "$2" ] && [ $rc = 0 ] && [ "$got" = "$2" ]; } || { [ -z "$2" ] && [ $rc = 1 ]; }; then
		echo "PASS apt_mirror/$1"
	else
		echo "FAIL apt_mirror/$1: got \"$got\" rc $rc, expected \"$2\""
	fi
}
mkdir -p "$d/sources.list.d"
t none ""
printf 'deb http://security.debian.org/debian-security bookworm-security main\n' > "$d/sources.list"
t security_only ""
printf 'deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n' >> "$d/sources.list"
t one_line_with_options http://mirror.example/debian
t security_suite http://security.debian.org/debian-security bookworm-security
rm "$d/sources.list"
printf 'Types: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\n\nTypes: deb\nURIs: http://m2.example/debian\nSuites: bookworm-security bookworm\nComponents: main\n' > "$d/sources.list.d/debian.sources"
t deb822 http://m2.example/debian
printf 'Types: deb\nURIs: http://m2.example/debian\nSuites: bookworm\nEnabled: no\n' > "$d/sources.list.d/debian.sources"
t deb822_disabled ""
