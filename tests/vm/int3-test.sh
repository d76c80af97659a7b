#!/bin/bash
# The stall watch's reading of QEMU's registers (tests/vm/run.sh,
# int3_vcpus) against a real hang's "info registers -a": the vCPU at the
# address asked for, and nothing for an address no vCPU is at.
set -u
here=$(cd "$(dirname "$0")" && pwd)
regs=$here/testdata/int3-livelock-regs.txt
rc=0
# t NAME ADDR EXPECTED
t() {
	local got
	got=$(awk -v a="$2" -f "$here/int3-vcpus.awk" "$regs")
	if [ "$got" = "$3" ]; then echo "PASS $1"
	else echo "FAIL $1: vCPUs at $2: '$got', expected '$3'"; rc=1; fi
}
t int3_vcpus_finds_vcpu0 ffffffffa8600ba0 "0 "
t int3_vcpus_finds_vcpu1 ffffffffa7ae0be0 "1 "
t int3_vcpus_exact_address ffffffffa8600ba1 ""
t int3_vcpus_other_slide ffffffff9da00ba0 ""
exit $rc
