#!/usr/bin/python3
"""eval/calibrate.py - each profile's calibration targets beside what the model produces.

    calibrate.py TGEVAL DOC

Runs `TGEVAL model PROFILE` (the model alone, eval/model.h) for every
eval/profiles/*.prof, matches its figures with the profile's `target.*` lines
and rewrites the part of DOC between the markers
<!-- calibrate:begin --> and <!-- calibrate:end -->. If results of `make
eval` exist (eval/results/PROFILE/), the no-control figures measured in the
guest are shown too.
"""
import csv
import glob
import os
import re
import subprocess
import sys

BEGIN, END = "<!-- calibrate:begin -->", "<!-- calibrate:end -->"


def targets(path):
    out = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        m = re.match(r"target\.(\S+)\s*=\s*(\S+)\s*(.*)", line)
        if m:
            out.append((m.group(1), m.group(2), m.group(3)))
    return out


def measured(profile):
    """no-control figures measured in the guest by make eval, same keys as the model's"""
    d = os.path.join(os.path.dirname(__file__), "results", profile)
    got = {}
    solo = {}
    p = os.path.join(d, "solo.csv")
    if os.path.exists(p):
        for r in csv.DictReader(open(p)):
            solo[r["kind"]] = float(r["gbps"])
            got["solo." + r["kind"]] = float(r["gbps"])
    p = os.path.join(d, "matrix.csv")
    if os.path.exists(p):
        by = {}
        for r in csv.DictReader(open(p)):
            if r["mode"] == "none":
                by.setdefault(r["label"], {})[r["prio"]] = r
        for label, g in by.items():
            v, n = label.split("+")
            ref = float(g["high"].get("ref_gbps") or 0) if "high" in g else 0
            ref = ref or solo.get(v)
            if "high" in g and ref:
                got[f"pair.{v}.{n}"] = 100 * float(g["high"]["gbps"]) / ref
    p = os.path.join(d, "alloc.csv")
    if os.path.exists(p):
        for r in csv.DictReader(open(p)):
            if r["mode"] == "none":
                got["mix." + r["kind"]] = float(r["gbps"])
    return got


def main(tgeval, doc):
    parts = []
    for prof in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiles", "*.prof"))):
        name = os.path.basename(prof)[:-5]
        model = {}
        for line in subprocess.run([tgeval, "model", prof], check=True, capture_output=True, text=True).stdout.splitlines():
            k, v = line.split()
            model[k] = float(v)
        meas = measured(name)
        parts.append(f"### `{name}`\n")
        parts.append("| figure | target | source | model | measured in the guest (no control) |")
        parts.append("|---|---|---|---|---|")
        for key, val, src in targets(prof):
            unit = " %" if key.startswith("pair.") else ("×" if key.startswith("latratio") else " GB/s")
            mv = model.get(key)
            ms = meas.get(key)
            parts.append(f"| `{key}` | {val}{unit} | {src or '–'} | "
                         + (f"{mv:.2f}{unit}" if mv is not None else "–") + " | "
                         + (f"{ms:.2f}{unit}" if ms is not None else "–") + " |")
        parts.append("")
        parts.append("Detector thresholds written to `tgroup.config` (ns): " +
                     ", ".join(f"{k.split('.', 1)[1]} {model[k]:.0f}" for k in sorted(model) if k.startswith("threshold.")) + ".")
        pairs = [k for k in model if k.startswith("pair.")]
        if pairs:
            parts.append("")
            parts.append("Model, whole matrix (victim 1 thread ← noisy neighbour, % of solo): " +
                         ", ".join(f"{k[5:]} {model[k]:.0f}" for k in sorted(pairs)) + ".")
        parts.append("")
    text = open(doc).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{doc}: no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(doc, "w").write(head + BEGIN + "\n" + "\n".join(parts) + END + tail)
    print(f"{doc}: calibration tables updated")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
