#!/usr/bin/python3
"""eval/calibrate.py - each profile's calibration targets beside what the model produces.

    calibrate.py TGEVAL DOC

Runs `TGEVAL model PROFILE` (the model alone, eval/model.h) for every
eval/profiles/*.prof and writes the profile's detector thresholds into it
(`threshold_ns`: per kind, the latency at which a solo one-thread task of
that kind has lost `threshold_drop` of its throughput, MT²'s calibration,
done once per platform; every run and mode then uses them unchanged). Then
it matches the model's figures with the profile's `target.*` lines
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


KINDS = ["dram_read", "dram_write", "nvm_read", "nvm_write"]   # the profile's line order


def write_thresholds(prof, model):
    """threshold_ns = the model's threshold.* (whole ns), in the profile file"""
    line = ("threshold_ns = " + " ".join(f"{model['threshold.' + k]:.0f}" for k in KINDS)
            + "   # written by make calibrate (eval/calibrate.py) from threshold_drop")
    text = open(prof).read().splitlines()
    out = [x for x in text if not re.match(r"\s*threshold_ns\s*=", x)]
    at = next((i for i, x in enumerate(out) if re.match(r"\s*threshold_drop\s*=", x)), len(out) - 1)
    out.insert(at + 1, line)
    if out != text:
        open(prof, "w").write("\n".join(out) + "\n")
        print(f"{prof}: {line.split('#')[0].strip()}")


def model_of(tgeval, prof):
    model = {}
    for line in subprocess.run([tgeval, "model", prof], check=True, capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        model[f[0]] = [float(x) for x in f[1:]] if len(f) > 2 else float(f[1])
    return model


def main(tgeval, doc):
    parts = []
    for prof in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiles", "*.prof"))):
        name = os.path.basename(prof)[:-5]
        model = model_of(tgeval, prof)
        write_thresholds(prof, model)
        model = model_of(tgeval, prof)   # the oracle references at the thresholds written
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
        parts.append(f"Detector thresholds (`threshold_ns` in the profile, threshold_drop {model['threshold_drop'] * 100:.0f} %;"
                     " every run and mode uses them, ns): " +
                     ", ".join(f"{k.split('.', 1)[1]} {model[k]:.0f}" for k in sorted(model) if k.startswith("threshold.")) + ".")
        orc = sorted(k for k in model if k.startswith("oracle."))
        if orc:
            parts.append("")
            parts.append("Oracle reference (model, both at `calib_cpu`): the largest neighbour traffic that keeps the victim"
                         " at its threshold, GB/s (the neighbour's CPU share it is, when under 1), per victim ← neighbour: " +
                         ", ".join(f"{k[7:].replace('.', ' ← ')} {model[k][1]:.2f}" + (f" ({model[k][0]:.2f})" if model[k][0] < 1 else "")
                                   for k in orc) + ".")
        wr = sorted((int(k.split(".")[1]), model[k]) for k in model if k.startswith("writers."))
        if wr:
            parts.append("")
            parts.append("Writers (MT²'s observation 3, model): an NVM-read victim beside N NVM-writer threads; victim's"
                         " read latency ns / writers' GB/s / victim GB/s: " +
                         ", ".join(f"{n}: {v[0]:.0f} / {v[1]:.2f} / {v[2]:.2f}" for n, v in wr) +
                         f" (solver residual ≤ {model['maxres']:.0e}).")
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
