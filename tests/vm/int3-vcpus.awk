# awk -v a=ADDR -f int3-vcpus.awk: of QEMU's "info registers -a" (CR-free),
# print the vCPUs whose RIP is ADDR (lower-case hex, 16 digits: where
# /proc/kallsyms puts asm_exc_int3), each followed by a space.
# tests/vm/run.sh's stall watch; tests/vm/int3-test.sh.
/^CPU#[0-9]+/ { c = substr($1, 5) }
/^RIP=/ { if (tolower(substr($1, 5)) == a) printf "%s ", c }
