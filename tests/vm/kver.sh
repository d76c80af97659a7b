#!/bin/sh
# Print the Debian cloud kernel version to build against and boot:
# the newest /usr/src/linux-headers-*-cloud-amd64 that also has /boot/vmlinuz-<ver>.
# Override with TG_KVER.
if [ -n "${TG_KVER:-}" ]; then echo "$TG_KVER"; exit 0; fi
for d in $(ls -d /usr/src/linux-headers-*-cloud-amd64 2>/dev/null | sort -V -r); do
	v=${d#/usr/src/linux-headers-}
	if [ -e "/boot/vmlinuz-$v" ]; then echo "$v"; exit 0; fi
done
exit 1
