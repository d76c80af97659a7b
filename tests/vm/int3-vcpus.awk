# awk -v a=ADDR -f int3-vcpus.awk: of QEMU's "info registers -a" (CR-free),
# print the vCPUs whose RIP is ADDR (lower-case hex, 16 digits: where
# /proc/kallsyms puts asm_exc_int3) with interrupts off (RFL's IF, bit 9,
# clear) and not halted, each followed by a space.
# tests/vm/stall.sh's stall watch; tests/vm/int3-test.sh.
/^CPU#[0-9]+/ { c = substr($1, 5) }
/^RIP=/ {
	rfl = ""
	for (i = 2; i <= NF; i++)
		if ($i ~ /^RFL=/) rfl = tolower(substr($i, 5))
	# bit 9 is the value-2 bit of the third hex digit from the right
	d = index("0123456789abcdef", substr(rfl, length(rfl) - 2, 1)) - 1
	ifon = d < 0 || int(d / 2) % 2
	if (tolower(substr($1, 5)) == a && !ifon && / HLT=0/)
		printf "%s ", c
}
