#!/bin/bash
# Print the URI of the Debian mirror the system's apt sources use for
# bookworm (the main archive, not security): from one-line "deb URI
# bookworm ..." entries or deb822 stanzas (Types: deb, URIs:, Suites:
# bookworm). Exit 1 if there is none. APT_ETC overrides /etc/apt (tests).
set -euo pipefail
etc=${APT_ETC:-/etc/apt}
for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	uri=$(awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
		if ($(i + 1) == "bookworm") { print $i; exit } }' "$f")
	[ -n "$uri" ] && { echo "$uri"; exit 0; }
done
for f in "$etc"/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	uri=$(awk 'BEGIN { RS = ""; FS = "\n" }
		{ t = u = s = ""; en = 1
		  for (i = 1; i <= NF; i++) {
			if ($i ~ /^Types:/) t = $i
			else if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
			else if ($i ~ /^Suites:/) s = " " substr($i, 8) " "
			else if ($i ~ /^Enabled:[ \t]*no/) en = 0
		  }
		  if (en && t ~ /[ \t]deb([ \t]|$)/ && s ~ /[ \t]bookworm[ \t]/) { print u; exit } }' "$f")
	[ -n "$uri" ] && { echo "$uri"; exit 0; }
done
exit 1
