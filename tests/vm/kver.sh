#!/bin/sh
# Print the Debian cloud kernel version to build against and boot: among
# installed versions that have both /usr/src/linux-headers-<ver> and
# /boot/vmlinuz-<ver>, the newest of series $TG_KSERIES (default 6.1, the
# primary target), else the newest of any series. TG_KVER overrides.
if [ -n "${TG_KVER:-}" ]; then echo "$TG_KVER"; exit 0; fi
series=${TG_KSERIES:-6.1}
all=$(for d in $(ls -d /usr/src/linux-headers-*-cloud-amd64 2>/dev/null); do
	v=${d#/usr/src/linux-headers-}
	[ -e "/boot/vmlinuz-$v" ] && echo "$v"
done | sort -V -r)
pick=$(echo "$all" | grep -m1 "^$series\.")
[ -n "$pick" ] || pick=$(echo "$all" | head -n1)
[ -n "$pick" ] && echo "$pick"
