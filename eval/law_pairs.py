#!/usr/bin/python3
"""eval/law_pairs.py - issue 21 item 1 judged per pair (docs/control-law.md, "Issue 21").

    law_pairs.py TGSIM PROFILE [--seeds A-B] [--mode M] [--knob K] [--law L] [--plant 'OPTS'] [--jobs N]
                 [--csv FILE] [--assert]

Item 1: with the profile's fixed thresholds the neighbour keeps >= 80 % of the
traffic at which the victim reaches its threshold (the oracle rate), while the
victim stays no worse than its threshold level minus 1 point, "CI judged", in
each of the 16 pairs. Per pair, over tgsim seeds A-B (each seed also its CPU
noise seed), 60 s of steady state (11-71 s, the neighbour from 1 s):
  - share: the neighbour's GB/s over the oracle rate of the same run (the
    CSV's oracle_gbps: the model's, at the run's own drawn CPU shares,
    computed when the run's victim first goes over its threshold; where it
    never did, the oracle run's; where the oracle run's victim never went
    over either, nothing needs a cut and the reference is the neighbour's
    rate in the oracle's run, unthrottled: reference_gbps in --csv);
  - victim: the victim's % of solo minus the oracle controller's victim at the
    same seed (the same CPU draw: the threshold level at that draw).
A pair meets the item on the mean when mean share >= SHARE_MIN and mean victim
>= -VICTIM_PTS, and with its CI when both 95 % CI bounds are on the right side.
Prints one row per pair and a summary line; exits 1 with --assert when a pair
misses on the mean (make check asserts it for the default law, the block
mean; the window law, --law 0, misses it).
"""
import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402
from report import ci  # noqa: E402

SHARE_MIN = 0.8   # of the oracle rate
VICTIM_PTS = 1.0  # points of solo under the oracle's victim
DUR, MEAS = "71", "11:71"


def one(tgsim, prof, mode, knob, v, n, nt, seed, law=None, plant=()):
    """(victim % of solo, neighbour GB/s, oracle GB/s) of one run"""
    a = ["--mode", mode, "--seed", str(seed), "--cpu-seed", str(seed), "--duration", DUR,
         "--measure", MEAS, "--ref", sweep.REF] + (["--knob", str(knob)] if knob is not None else []) + \
        (["--law", str(law)] if law is not None and mode == "tgroup" else []) + list(plant)
    out = sweep.run(tgsim, prof, a + sweep.pair_args(v, n, nt))
    vp = gb = og = None
    hdr = None
    for line in out.splitlines():
        if not line.startswith("TGEVAL-CSV "):
            continue
        row = line[11:].split(",", 1)[1]
        if row.startswith("#"):
            hdr = row[1:].split(",")
            continue
        r = dict(zip(hdr, row.split(",")))
        if r["prio"] == "high":
            vp = float(r["pct"])
        else:
            gb = (gb or 0.0) + float(r["gbps"])
            og = float(r["oracle_gbps"])
    if None in (vp, gb, og):
        raise SystemExit(f"tgsim {mode} {v}+{n} seed {seed}: no result")
    return vp, gb, og


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tgsim")
    ap.add_argument("profile")
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--mode", default="tgroup")
    ap.add_argument("--knob")
    ap.add_argument("--law", help="tgroup's remedial law (tgsim --law: 0 window, 1 block mean)")
    ap.add_argument("--plant", default="",
                    help="tgsim's plant options for every run, e.g. '--quota-slices 8 --park-lag 4'")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--csv")
    ap.add_argument("--assert", dest="strict", action="store_true")
    o = ap.parse_args()
    lo, _, hi = o.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    nt = sweep.profile_values(o.profile).get("noisy_threads", "2")
    pairs = [(v, n) for v in sweep.KINDS for n in sweep.KINDS]
    jobs = [(m, k, v, n, s) for v, n in pairs for s in seeds
            for m, k in ((o.mode, o.knob), ("oracle", None))]
    with ThreadPoolExecutor(max_workers=o.jobs) as ex:
        res = dict(zip(jobs, ex.map(lambda j: one(o.tgsim, o.profile, j[0], j[1], j[2], j[3], nt, j[4], o.law,
                                                          o.plant.split()), jobs)))
    def ref(v, n, s):
        """the oracle rate of a run: tgsim computes it when the run's victim
        first goes over its threshold (0: never). A controller that cut
        before that in its own run: the oracle run's. A victim that never
        went over in the oracle's run either: nothing to cut, and the
        neighbour's rate there, unthrottled, is the reference"""
        og, oo = res[(o.mode, o.knob, v, n, s)][2], res[("oracle", None, v, n, s)]
        return og if og > 0 else oo[2] if oo[2] > 0 else oo[1]

    rows, mean_ok, ci_ok, never = [], 0, 0, []
    print(f"| pair | share of the oracle rate | victim − oracle's victim (points) | on the mean | with the CI |")
    print("|---|---|---|---|---|")
    for v, n in pairs:
        sh = [res[(o.mode, o.knob, v, n, s)][1] / ref(v, n, s) for s in seeds]
        if all(res[("oracle", None, v, n, s)][2] <= 0 for s in seeds):
            never.append(f"{sweep.SHORT[v].upper()} ← {sweep.SHORT[n].upper()}")
        dv = [res[(o.mode, o.knob, v, n, s)][0] - res[("oracle", None, v, n, s)][0] for s in seeds]
        cs, cd = ci(sh), ci(dv)
        m = cs[0] >= SHARE_MIN and cd[0] >= -VICTIM_PTS
        c = cs[0] - cs[1] >= SHARE_MIN and cd[0] - cd[1] >= -VICTIM_PTS
        mean_ok += m
        ci_ok += c
        lab = f"{sweep.SHORT[v].upper()} ← {sweep.SHORT[n].upper()}"
        print(f"| {lab} | {cs[0]:.2f} ± {cs[1]:.2f} | {cd[0]:+.2f} ± {cd[1]:.2f} | {'yes' if m else 'no'} |"
              f" {'yes' if c else 'no'} |")
        rows += [(v, n, s, res[(o.mode, o.knob, v, n, s)][0], res[("oracle", None, v, n, s)][0],
                  res[(o.mode, o.knob, v, n, s)][1], ref(v, n, s)) for s in seeds]
    both = sum(1 for r in rows if r[5] >= SHARE_MIN * r[6] and r[3] >= r[4] - VICTIM_PTS)
    print(f"item 1 per pair ({o.mode}{' ' + o.knob if o.knob else ''}, seeds {o.seeds}): {mean_ok} of 16 pairs"
          f" on the mean, {ci_ok} of 16 with the whole 95 % CI; per run, both bounds in {both} of {len(rows)}")
    if never:
        print(f"never over its threshold unregulated (the reference: the oracle run's neighbour rate): {', '.join(never)}")
    if o.csv:
        with open(o.csv, "w") as f:
            f.write("victim,noisy,seed,victim_pct,oracle_victim_pct,gbps,reference_gbps\n")
            f.writelines(",".join(str(x) for x in r) + "\n" for r in rows)
    return 1 if o.strict and mean_ok < 16 else 0


if __name__ == "__main__":
    sys.exit(main())
