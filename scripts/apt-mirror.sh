#!/bin/bash
# Print the URI of the Debian mirror the system's apt sources use for
# SUITE (default bookworm: the main archive, not security; bookworm-security
# for the security archive): from one-line "deb URI SUITE ..." entries or
# deb822 stanzas (Types: deb, URIs:, Suites: SUITE). Exit 1 if there is
# none. APT_ETC overrides /etc/apt (tests).
# usage: apt-mirror.sh [SUITE]
set -euo pipefail
etc=${APT_ETC:-/etc/apt}
suite=${1:-bookworm}
for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	uri=$(awk -v suite="$suite" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
		if ($(i + 1) == suite) { print $i; exit } }' "$f")
	[ -n "$uri" ] && { echo "$uri"; exit 0; }
done
for f in "$etc"/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	uri=$(awk -v suite="$suite" 'BEGIN { RS = ""; FS = "\n" }
		{ t = u = s = ""; en = 1
		  for (i = 1; i <= NF; i++) {
			if ($i ~ /^Types:/) t = $i
			else if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
			else if ($i ~ /^Suites:/) s = " " substr($i, 8) " "
			else if ($i ~ /^Enabled:[ \t]*no/) en = 0
		  }
		  if (en && t ~ /[ \t]deb([ \t]|$)/ && index(s, " " suite " ")) { print u; exit } }' "$f")
	[ -n "$uri" ] && { echo "$uri"; exit 0; }
done
exit 1
