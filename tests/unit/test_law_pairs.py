#!/usr/bin/python3
"""tests/unit/test_law_pairs.py - eval/law_pairs.py's per-pair verdicts against a fake tgsim.

The fake prints, per run, the victim's % of solo, the neighbour's GB/s and the
oracle rate as tgsim's CSV does. Two pairs never go over their threshold
(oracle_gbps 0 in the oracle's run too, as tgsim writes it when the oracle
computed no cut: cxl-spr's DR <- DW and DW <- DW): their reference is the
neighbour's rate in the oracle's own run. In one of them tgroup throttled anyway
(half of it): that pair fails. In NW <- NR tgroup's run has no oracle rate of
its own (it cut before its victim went over): the oracle run's counts.
Before the fallback, law_pairs.py divided by the 0 (a ZeroDivisionError on the
CXL profiles).

Prints PASS/FAIL lines as tests/check.sh counts them (eval/check-host.sh runs it).
"""
import os
import stat
import subprocess
import sys
import tempfile

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FAKE = r'''#!/usr/bin/python3
import sys
a = sys.argv[2:]
mode = a[a.index("--mode") + 1]
v = [x for x in a if x.startswith("v_")][0].split(":")[1]
n = [x for x in a if x.startswith("n_")][0].split(":")[1]
never = n == "dram_write" and v in ("dram_read", "dram_write")
if never:            # not over unregulated: the oracle computes nothing
    og, gb = 0.0, 40.0
    if mode != "oracle" and v == "dram_read":
        gb = 20.0    # tgroup cut it anyway: half the rate
    pct = 97.0
else:
    og = 2.0
    gb = 2.1 if mode == "oracle" else 1.8    # the oracle's run a little over its rate
    pct = 96.0 if mode == "oracle" else 95.5
    if v == "nvm_write" and n == "nvm_read" and mode != "oracle":
        og = 0.0     # tgroup cut before its victim went over: the oracle run's rate
print("TGEVAL-CSV x.csv,#prio,pct,gbps,oracle_gbps")
print(f"TGEVAL-CSV x.csv,high,{pct},0.5,{og}")
print(f"TGEVAL-CSV x.csv,low,0,{gb},{og}")
'''

fails = []
with tempfile.TemporaryDirectory() as d:
    fake = os.path.join(d, "tgsim")
    with open(fake, "w") as f:
        f.write(FAKE)
    os.chmod(fake, stat.S_IRWXU)
    prof = os.path.join(d, "p.prof")
    with open(prof, "w") as f:
        f.write("noisy_threads = 2\n")
    csv = os.path.join(d, "out.csv")
    r = subprocess.run([sys.executable, os.path.join(top, "eval", "law_pairs.py"), fake, prof,
                        "--seeds", "1-3", "--jobs", "2", "--csv", csv], capture_output=True, text=True)
    out = r.stdout
    if r.returncode:
        fails.append(f"exit {r.returncode}: {r.stderr.strip().splitlines()[-1:]}")
    rows = {ln.split("|")[1].strip(): ln for ln in out.splitlines() if ln.startswith("| ") and "←" in ln}
    if len(rows) != 16:
        fails.append(f"{len(rows)} pair rows, 16 expected")
    else:
        # 1.8 of 2.0 GB/s, victim 0.5 points under the oracle's: met
        if "| 0.90 ± 0.00 | -0.50 ± 0.00 | yes | yes |" not in rows["NR ← NR"]:
            fails.append(f"NR <- NR: {rows['NR ← NR']}")
        # tgroup's own run has no oracle rate (it cut first): the oracle run's 2.0
        if "| 0.90 ± 0.00 | -0.50 ± 0.00 | yes | yes |" not in rows["NW ← NR"]:
            fails.append(f"NW <- NR: {rows['NW ← NR']}")
        # never over, left alone: all of the oracle run's 40 GB/s
        if "| 1.00 ± 0.00 | +0.00 ± 0.00 | yes | yes |" not in rows["DW ← DW"]:
            fails.append(f"DW <- DW: {rows['DW ← DW']}")
        # never over, cut to half anyway: 0.50, missed
        if "| 0.50 ± 0.00 | +0.00 ± 0.00 | no | no |" not in rows["DR ← DW"]:
            fails.append(f"DR <- DW: {rows['DR ← DW']}")
    if "15 of 16 pairs on the mean" not in out:
        fails.append("summary: " + (out.strip().splitlines() or ["(none)"])[-2:][0])
    if "never over its threshold unregulated" not in out or "DR ← DW, DW ← DW" not in out:
        fails.append("the never-over pairs are not named")
    if os.path.exists(csv):
        got = [ln.strip().split(",") for ln in open(csv)][1:]
        ref = {(x[0], x[1]): float(x[6]) for x in got}
        if ref.get(("nvm_write", "nvm_read")) != 2.0:
            fails.append(f"CSV reference of NW <- NR: {ref.get(('nvm_write', 'nvm_read'))}, 2.0 expected")
        if ref.get(("dram_write", "dram_write")) != 40.0:
            fails.append(f"CSV reference of DW <- DW: {ref.get(('dram_write', 'dram_write'))}, 40.0 expected")
    else:
        fails.append("no CSV")

if fails:
    for f in fails:
        print("FAIL eval_law_pairs_reference:", f)
else:
    print("PASS eval_law_pairs_reference")
sys.exit(1 if fails else 0)
