#!/usr/bin/python3
"""tests/unit/test_report.py - eval/report.py's Pareto arithmetic against hand-worked cases.

Prints PASS/FAIL lines as tests/check.sh counts them (eval/check-host.sh runs it).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "eval"))
import report  # noqa: E402

fails = []


def check(name, got, want):
    if got != want:
        fails.append(f"{name}: got {got!r}, want {want!r}")


def pts(*settings):
    """[(knob, worst, tput)] of one baseline as pareto() gives them"""
    return {("sim", "memguard-rw", k): {"worst": (w, 0.0, 5), "tput": (t, 0.0, 5)} for k, w, t in settings}


# the review's case (optane-clx, MemGuard-rw): three settings tie at 95.196 %; only the one with the
# most traffic is on the frontier, and the interpolation at 95.902 % uses it:
# 3.20 + (4.80 - 3.20) * (96.668 - 95.902) / (96.668 - 95.196) = 4.0326
p = pts(("0.3/0.1", 96.668, 3.20), ("0.5/0.02", 95.196, 4.16), ("0.5/0.05", 95.196, 4.40),
        ("0.5/0.1", 95.196, 4.80), ("0.5/0.2", 93.338, 5.60), ("0.3/0.05", 97.118, 2.80),
        ("0.2/0.1", 96.0, 3.00))       # 0.2/0.1 dominated by 0.3/0.1 (more protective, more traffic)
env = report.frontier(p, "memguard-rw")
check("frontier_ties", [e[2] for e in env], ["0.3/0.05", "0.3/0.1", "0.5/0.1", "0.5/0.2"])
a = report.at_protection(env, 95.902)
check("at_protection_step", (a[0], a[1]), (3.20, "0.3/0.1"))
check("at_protection_interp", round(a[2], 4), 4.0326)
# equal points (same worst, same traffic): one kept; a point alone is its own frontier
check("frontier_dup", [e[2] for e in report.frontier(pts(("a", 90.0, 1.0), ("b", 90.0, 1.0)), "memguard-rw")], ["a"])
check("frontier_one", len(report.frontier(pts(("a", 90.0, 1.0)), "memguard-rw")), 1)
# a tie on traffic: the more protective point is kept, the other dropped, and the interpolation at
# 96.5 % runs from (97, 3.0) to (95, 4.0): 3.0 + 1.0 * 0.5 / 2 = 3.25 (review 2, L-a)
tie = report.frontier(pts(("a", 97.0, 3.0), ("b", 96.0, 3.0), ("c", 95.0, 4.0)), "memguard-rw")
check("frontier_traffic_tie", [e[2] for e in tie], ["a", "c"])
check("at_protection_traffic_tie", round(report.at_protection(tie, 96.5)[2], 4), 3.25)
# a tie on protection: the one with more traffic is kept
check("frontier_protection_tie", [e[2] for e in report.frontier(pts(("a", 96.0, 3.0), ("b", 96.0, 3.5)), "memguard-rw")], ["b"])
# never as protective: None
check("at_protection_none", report.at_protection(env, 99.5), None)

frontier_fails, fails = fails, []

# react_runs(): the later of the cut and the victim back within 5 %, per run (ms; back 0: never under).
# tgroup's cut is its measured first throttle (cut_ms); the oracle's one period (12 ms) after the
# victim's first step over (over_s); rows without cut_ms fall back to over + detection + a period.
c = {"back": [0.0, 40.0, -1.0, 0.0, 0.0], "over": [0.003, 0.002, 0.001, -1.0, 0.004],
     "detect": [9.0, 9.0, 9.0, None, 2.0], "cut": [21.0, 21.0, 33.0, -1.0, -1.0]}
# run 1: the cut; 2: back after the cut; 3: never back (12 s); 4: never over, never cut: 0;
# 5: over and never cut: never; the oracle with no step over: its back (no cut needed)
check("react_measured", report.react_runs(c, "sim", "tgroup"), [21.0, 40.0, 12000.0, 0.0, 12000.0])
check("react_oracle_formula", report.react_runs(c, "sim", "oracle"), [15.0, 40.0, 12000.0, 0.0, 16.0])
check("react_oracle_strict", report.oracle_cut_runs(c), [21.0, 40.0, 12000.0, 0.0, 0.0])
old = {k: v for k, v in c.items() if k != "cut"}
check("react_fallback_bound", report.react_runs(old, "sim", "tgroup"), [24.0, 40.0, 12000.0, 0.0, 18.0])

for name, fl in (("eval_report_frontier", frontier_fails), ("eval_report_reaction", fails)):
    for f in fl:
        print(f"FAIL {name}:", f)
    if not fl:
        print(f"PASS {name}")
sys.exit(1 if frontier_fails or fails else 0)
