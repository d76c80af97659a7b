#!/usr/bin/python3
"""eval/report.py - tables, plots and checks from eval/run.sh's CSV files.

    report.py demo DIR             the demo's table (tgroup / none / mba_MBps) + timeline.png
    report.py quick DIR            eval-quick's assertions (exit 1 when one fails)
    report.py summary DIR PROFILE  DIR/summary.md and every PNG
    report.py readme README RESULTS  the results section of README (between markers)

Debian's python3-matplotlib (Agg backend); run with /usr/bin/python3.
"""
import csv
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODES = ["none", "static", "mbps", "memguard", "tgroup"]
MODE_NAME = {"none": "no control", "static": "static MBA (pqos)", "mbps": "resctrl mba_MBps",
             "memguard": "MemGuard-style", "tgroup": "tgroup"}
KINDS = ["nvm_read", "nvm_write", "dram_read", "dram_write"]
SHORT = {"dram_read": "DR", "dram_write": "DW", "nvm_read": "NR", "nvm_write": "NW"}
PERIOD_MS = 10          # tgroup.config period_ms (the guest rounds it to jiffies: ~12 ms)
BACK_PCT = 95           # "victim back within 5 % of solo"
ROLL = 5                # samples (50 ms each) in the plotted rolling mean
BACK_S = 1.0            # "back": the mean over the next second
STARVED_PCT = 40        # a victim that got less of the CPU it asked for: the host starved the guest

# eval-quick's assertions (issue 12)
QUICK_MIN_PCT = 90.0    # tgroup's victim >= 90 % of solo in every pair
QUICK_TOL_PTS = 2.0     # "no worse than any baseline": within this many points (run-to-run noise)


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


# ---- matrix -------------------------------------------------------------

def solo_map(d):
    return {r["kind"]: float(r["gbps"]) for r in rows(os.path.join(d, "solo.csv"))}


def per_cpu(row):
    """The victim's bytes/s per % of CPU it got in its solo phase (None if unknown)."""
    ref, rc = fnum(row.get("ref_gbps")), fnum(row.get("ref_cpu_pct"))
    return ref / rc if ref and rc else None


def victim_pct(row, solo=None, raw=False, pooled=None):
    """The victim's throughput as % of its solo. Solo: the victim alone at the
    start of the same run (ref_gbps), else the solo run. Unless raw: per CPU
    second it got, alone and beside the neighbour - in MT²'s runs a victim has
    a core of its own, in the TCG guest on a shared host its vCPU gets 10-90 %
    of what it asks for, varying by the second; no controller here ever
    throttles the victim's CPU (its final_quota is checked to be max), so
    dividing by its CPU time removes only the host's noise. pooled: the solo
    per CPU-second over every run of the pair (matrix()). Raw: bytes/s."""
    g, ref = float(row["gbps"]), fnum(row.get("ref_gbps"))
    c, rc = fnum(row.get("cpu_pct")), fnum(row.get("ref_cpu_pct"))
    if raw or not (c and rc and ref):
        ref = ref or solo
        return 100 * g / ref if ref else 0
    if row.get("final_quota") not in (None, "", "max", "-"):
        raise SystemExit(f"victim {row['workload']} was CPU-throttled ({row['final_quota']}): per-CPU metric invalid")
    return 100 * (g / c) / (pooled or ref / rc)


def matrix(d):
    """{(victim, noisy, mode): (victim % of solo, noisy GB/s)}"""
    solo = solo_map(d)
    out = {}
    by = {}
    for r in rows(os.path.join(d, "matrix.csv")):
        by.setdefault((r["label"], r["mode"]), {})[r["prio"]] = r
    # The victim's solo phase is the same in every mode of a pair (alone,
    # nothing throttled yet): its per-CPU-second throughput pooled over all of
    # them is the pair's solo. One run's 2 s alone scatters by 2-8 % (eval-quick:
    # the same latency, 554 ns, read as 94.5 % and 97.1 % of each run's own
    # solo), more than what separates the best modes.
    pool = {}
    for (label, mode), g in by.items():
        p = per_cpu(g.get("high", {}))
        if p:
            pool.setdefault(label, []).append(p)
    for (label, mode), g in by.items():
        v, n = label.split("+")
        if "high" not in g or "low" not in g:
            continue
        c = [fnum(g["high"].get(k)) for k in ("cpu_pct", "ref_cpu_pct")]
        starved = any(x is not None and x < STARVED_PCT for x in c)
        pooled = sum(pool[label]) / len(pool[label]) if pool.get(label) else None
        out[(v, n, mode)] = (victim_pct(g["high"], solo.get(v), pooled=pooled), float(g["low"]["gbps"]),
                             g["low"]["final_quota"], g["low"]["final_mba"], victim_pct(g["high"], solo.get(v), raw=True),
                             starved)
    return out


def matrix_table(m, modes):
    pairs = sorted({(v, n) for v, n, _ in m}, key=lambda p: (KINDS.index(p[0]), KINDS.index(p[1])))
    hdr = "| victim ← noisy | " + " | ".join(MODE_NAME[x] for x in modes) + " | best baseline | tgroup − best |"
    lines = [hdr, "|" + "---|" * (len(modes) + 3)]
    for v, n in pairs:
        cells, base = [], []
        for x in modes:
            e = m.get((v, n, x))
            cells.append((f"{e[0]:.1f} %" + (" †" if len(e) > 5 and e[5] else "")) if e else "–")
            if e and x not in ("tgroup",):
                base.append((e[0], x))
        best = max(base) if base else None
        t = m.get((v, n, "tgroup"))
        diff = f"{t[0] - best[0]:+.1f}" if (best and t) else "–"
        lines.append(f"| {SHORT[v]} ← {SHORT[n]} | " + " | ".join(cells) +
                     (f" | {MODE_NAME[best[1]]} {best[0]:.1f} %" if best else " | –") + f" | {diff} |")
    return "\n".join(lines)


def matrix_png(m, path, modes):
    pairs = sorted({(v, n) for v, n, _ in m}, key=lambda p: (KINDS.index(p[0]), KINDS.index(p[1])))
    fig, ax = plt.subplots(figsize=(max(6, len(pairs) * 0.9), 4))
    w = 0.8 / len(modes)
    for i, x in enumerate(modes):
        ys = [m.get((v, n, x), (0,))[0] for v, n in pairs]
        ax.bar([j + i * w for j in range(len(pairs))], ys, w, label=MODE_NAME[x])
    ax.set_xticks([j + 0.4 - w / 2 for j in range(len(pairs))])
    ax.set_xticklabels([f"{SHORT[v]}←{SHORT[n]}" for v, n in pairs])
    ax.axhline(100, color="k", lw=0.5)
    ax.axhline(97, color="g", lw=0.5, ls="--")
    ax.set_ylabel("victim throughput, % of solo")
    ax.set_title("victim (1 thread, high) beside a noisy neighbour (low)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---- timeline -----------------------------------------------------------

def timeline(d, mode, arrive, leave, kind="nvm_read"):
    ts = rows(os.path.join(d, f"timeline_{mode}.csv"))
    if not ts:
        return None
    t = [float(r["t_s"]) for r in ts]
    v = [float(r["victim_gbps"]) for r in ts]
    ref = [x for tt, x in zip(t, v) if 1 <= tt < arrive]
    solo = sum(ref) / len(ref) if ref else 0
    pct = [100 * x / solo if solo else 0 for x in v]
    roll = [sum(pct[max(0, i - ROLL + 1):i + 1]) / len(pct[max(0, i - ROLL + 1):i + 1]) for i in range(len(pct))]
    during = [p for tt, p in zip(t, pct) if arrive + 2 <= tt < leave]
    # per CPU-second (as victim_pct): at the CPU it got, the victim moves
    # demand / x, so its throughput ratio is its solo latency / its latency
    lc = "lat_" + (kind or "nvm_read")
    l0 = [float(r[lc]) for tt, r in zip(t, ts) if 1 <= tt < arrive]
    l0 = sum(l0) / len(l0) if l0 else 0
    dl = [l0 / float(r[lc]) * 100 for tt, r in zip(t, ts) if arrive + 2 <= tt < leave and float(r[lc]) > 0]
    res = {"t": t, "pct": pct, "roll": roll, "solo": solo, "rows": ts,
           "during_raw": sum(during) / len(during) if during else 0,
           "during": sum(dl) / len(dl) if dl else 0,
           "noisy": sum(float(r["noisy_gbps"]) for r in ts if arrive + 2 <= float(r["t_s"]) < leave) /
           max(1, len([1 for r in ts if arrive + 2 <= float(r["t_s"]) < leave]))}
    # detection: first sample at/after arrival with the detector hot
    det = next((tt for tt, r in zip(t, ts) if tt >= arrive and r["state"] != "none"), None)
    # first throttle of the neighbour
    thr = next((tt for tt, r in zip(t, ts) if tt >= arrive and
                (r["noisy_quota"] not in ("max", "-") or fnum(r["noisy_mba"]) not in (None, 100.0))), None)
    # back: first time after arrival from which the victim's mean over the
    # next BACK_S seconds is >= BACK_PCT of solo (a 250 ms window jitters by
    # 10-20 % in the TCG guest, a 1 s mean by a few percent)
    back = None
    for i, tt in enumerate(t):
        if tt < arrive or tt + BACK_S > leave:
            continue
        win = [pct[j] for j in range(i, len(t)) if t[j] < tt + BACK_S]
        if win and sum(win) / len(win) >= BACK_PCT:
            back = tt
            break
    # the same from the victim's latency (CPU noise does not enter it): back
    # when its kind's latency, averaged over the next second, is <= solo / 0.95
    # (at the CPU it wants, throughput = demand / latency ratio)
    col = "lat_" + (kind or "nvm_read")
    lat = [float(r[col]) for r in ts]
    lref = [x for tt, x in zip(t, lat) if 1 <= tt < arrive]
    lsolo = sum(lref) / len(lref) if lref else 0
    lroll = [sum(lat[max(0, i - ROLL + 1):i + 1]) / len(lat[max(0, i - ROLL + 1):i + 1]) for i in range(len(lat))]
    back_lat = None
    for i, tt in enumerate(t):
        if tt < arrive or tt + BACK_S > leave:
            continue
        win = [lat[j] for j in range(i, len(t)) if t[j] < tt + BACK_S]
        if win and sum(win) / len(win) <= lsolo * 100 / BACK_PCT:
            back_lat = tt
            break
    res.update(back_lat=back_lat, lat_solo=lsolo)
    rel = next((tt for tt, r in zip(t, ts) if tt >= leave and r["noisy_quota"] in ("max", "-") and
                fnum(r["noisy_mba"]) in (None, 100.0)), None)
    res.update(detect=det, throttle=thr, back=back, release=rel, arrive=arrive, leave=leave)
    return res


def ms_periods(a, b):
    if a is None or b is None:
        return "never"
    ms = 1000 * (b - a)
    return f"{ms:.0f} ms ({ms / PERIOD_MS:.0f} periods)"


def timeline_png(d, modes, arrive, leave, path, kind_lat="lat_nvm_read"):
    tl = {m: timeline(d, m, arrive, leave) for m in modes}
    tl = {m: x for m, x in tl.items() if x}
    if not tl:
        return
    fig, ax = plt.subplots(3, 1, figsize=(9, 7), sharex=True)
    for m, x in tl.items():
        ax[0].plot(x["t"], x["roll"], label=MODE_NAME[m], lw=1)
        ax[1].plot(x["t"], [float(r[kind_lat]) for r in x["rows"]], label=MODE_NAME[m], lw=0.8)
    for a in ax:
        a.axvspan(arrive, leave, color="0.92")
    ax[0].set_ylabel("victim, % of solo\n(250 ms mean)")
    ax[0].axhline(BACK_PCT, color="g", lw=0.5, ls="--")
    ax[0].legend(fontsize=7, ncol=3)
    ax[1].set_ylabel(kind_lat.replace("lat_", "") + " latency, ns")
    if "tgroup" in tl:
        x = tl["tgroup"]
        q = []
        for r in x["rows"]:
            qq = r["noisy_quota"]
            q.append(100.0 if qq in ("max", "-") else 100 * float(qq) / (PERIOD_MS * 1000))
        ax[2].plot(x["t"], q, label="tgroup: neighbour's CPU quota, % of one CPU")
        ax[2].plot(x["t"], [fnum(r["noisy_mba"]) or 100 for r in x["rows"]], label="tgroup: neighbour's MBA %")
        hot = [1 if r["state"] != "none" else 0 for r in x["rows"]]
        ax[2].fill_between(x["t"], 0, [h * 5 for h in hot], color="r", alpha=0.3, step="mid",
                           label="detector hot")
    if "mbps" in tl:
        ax[2].plot(tl["mbps"]["t"], [fnum(r["noisy_mba"]) or 100 for r in tl["mbps"]["rows"]],
                   label="mba_MBps: neighbour's MBA %", ls="--")
    ax[2].set_ylabel("throttle")
    ax[2].set_xlabel("s (grey: the noisy neighbour runs)")
    ax[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return tl


def timeline_table(tl):
    lines = ["| mode | victim during noise (% of solo per CPU-s; raw bytes/s) | neighbour GB/s | detected after | first throttle after | victim back (≥95 %) after | latency back (≤ solo/0.95) after | released after leaving |",
             "|---|---|---|---|---|---|---|---|"]
    for m in MODES:
        x = tl.get(m)
        if not x:
            continue
        a = x["arrive"]
        lines.append(f"| {MODE_NAME[m]} | {x['during']:.1f} % ({x['during_raw']:.1f} %) | {x['noisy']:.2f} | "
                     + (f"{ms_periods(a, x['detect'])} | {ms_periods(a, x['throttle'])} | " if m == "tgroup" else "– | – | ")
                     + f"{ms_periods(a, x['back'])} | {ms_periods(a, x['back_lat'])} | "
                     + (ms_periods(x["leave"], x["release"]) if m == "tgroup" else "–") + " |")
    return "\n".join(lines)


def cpu_table(d, modes):
    by = {}
    for r in rows(os.path.join(d, "matrix.csv")):
        if r["prio"] == "high" and r.get("cpu_pct"):
            by[(r["label"], r["mode"])] = f"{float(r['ref_cpu_pct']):.0f} → {float(r['cpu_pct']):.0f}"
    if not by:
        return ""
    labels = sorted({k[0] for k in by}, key=lambda x: (KINDS.index(x.split("+")[0]), KINDS.index(x.split("+")[1])))
    lines = ["| victim ← noisy | " + " | ".join(MODE_NAME[x] for x in modes) + " |", "|---|" + "---|" * len(modes)]
    for lab in labels:
        v, n = lab.split("+")
        lines.append(f"| {SHORT[v]} ← {SHORT[n]} | " + " | ".join(by.get((lab, x), "–") for x in modes) + " |")
    return "\n".join(lines)


# ---- goals ----------------------------------------------------------------

ALLOC_LIMITS = {"nr": 1.5, "nw": 0.4, "dr": 3.0}   # GB/s, as eval/guest.sh sets them


def reaction_why(tl):
    """Why the reaction took what it did, from the run's own timeline: the
    throttle steps tgroup applied to the neighbour between its arrival and the
    victim's latency being back (or the neighbour leaving), and how far apart."""
    end = tl["back_lat"] if tl["back_lat"] is not None else tl["leave"]
    steps, prev = [], None
    for r in tl["rows"]:
        tt = float(r["t_s"])
        if tt < tl["arrive"] or tt > end:
            continue
        cur = (r["noisy_quota"], r["noisy_mba"])
        if prev is not None and cur != prev:
            steps.append((tt, cur))
        prev = cur
    if not steps:
        return ""
    def fmt(c):
        return (f"{c[0]} µs" if c[0] not in ("max", "-") else "no quota") + (f", MBA {c[1]} %" if c[1] != "100" else "")
    gaps = [b[0] - a[0] for a, b in zip(steps, steps[1:])]
    return (f"; why: tgroup changed the neighbour's throttle {len(steps)} times ({fmt(steps[0][1])} at"
            f" {1000 * (steps[0][0] - tl['arrive']):.0f} ms → {fmt(steps[-1][1])} at {1000 * (steps[-1][0] - tl['arrive']):.0f} ms"
            + (f", {1000 * sum(gaps) / len(gaps):.0f} ms apart on average: the control law waits its dead time"
               " after each cut to see its effect" if gaps else "") + ")")


def goals_table(d, m):
    lines = ["| goal | tgroup | best baseline | met? |", "|---|---|---|---|"]
    if m:
        pairs = {(k[0], k[1]) for k in m}
        t = {k[:2]: v[0] for k, v in m.items() if k[2] == "tgroup"}
        if t:
            worst = min(t.values())
            base = {}
            for x in MODES[:-1]:
                vals = [v[0] for k, v in m.items() if k[2] == x]
                if len(vals) == len(pairs):
                    base[x] = min(vals)
            b = max(base.items(), key=lambda kv: kv[1]) if base else None
            under = sorted((v, k) for k, v in t.items() if v < 97)
            lines.append(f"| victim ≥ 97 % of solo in all {len(pairs)} pairs | worst {worst:.1f} %, {len(under)} pairs under |"
                         + (f" {MODE_NAME[b[0]]}: worst {b[1]:.1f} % |" if b else " – |")
                         + (" yes |" if not under else
                            f" no: worst pair {SHORT[under[0][1][0]]}←{SHORT[under[0][1][1]]} short by {97 - under[0][0]:.1f} points (why: summary.md, under the matrix) |"))
    tl = timeline(d, "tgroup", 4, 14)
    if tl and tl["detect"] is not None:
        def per(a, b):
            return None if (a is None or b is None) else (b - a) * 1000 / PERIOD_MS
        r1, r2 = per(tl["detect"], tl["back"]), per(tl["detect"], tl["back_lat"])
        ok = r2 is not None and r2 <= 5
        lines.append(f"| reaction ≤ 5 periods after detection (timeline) | victim throughput back: "
                     + (f"{r1:.0f} periods" if r1 is not None else "never") + "; its latency back: "
                     + (f"{r2:.0f} periods" if r2 is not None else "never") + " | – (no detector) | "
                     + ("yes |" if ok else "no: " + (f"{r2:.0f} periods, {r2 - 5:.0f} over the goal" if r2 is not None else
                                                    "the latency never came back within 5 % (neighbour at its CPU floor still adds latency)")
                        + reaction_why(tl) + " |"))
    al = rows(os.path.join(d, "alloc.csv"))
    if al:
        dev = []
        free = {r["workload"]: float(r["gbps"]) for r in al if r["mode"] == "none"}
        for r in al:
            if r["mode"] == "tgroup" and r["workload"] in ALLOC_LIMITS:
                lv = ALLOC_LIMITS[r["workload"]]
                # a task that did not reach its limit without control may stay under it
                held = free.get(r["workload"], 0) > lv
                dev.append((100 * (float(r["gbps"]) / lv - 1), r["kind"] + ("" if held else " (demand below)"), held))
        if dev:
            worst = max(dev, key=lambda x: abs(x[0]) if x[2] else 0)
            ok = all(abs(x[0]) <= 5 or (not x[2] and x[0] < 0) for x in dev)
            lines.append(f"| limits within ±5 % (alloc) | " + ", ".join(f"{k} {x:+.1f} %" for x, k, _ in dev)
                         + " | – (no per-kind limits) | " + ("yes |" if ok else f"no: {worst[1]} {worst[0]:+.1f} % |"))
    return "\n".join(lines) if len(lines) > 2 else ""


# ---- commands -----------------------------------------------------------

def cmd_demo(d):
    tl = timeline_png(d, ["tgroup", "none", "mbps"], 4, 14, os.path.join(d, "timeline.png"))
    if not tl:
        print("demo: no timeline data")
        return 1
    print()
    print(f"{'':24s} victim during the noise (per CPU-second it got)  noisy neighbour")
    for m in ["tgroup", "none", "mbps"]:
        if m in tl:
            print(f"  {MODE_NAME[m]:22s} {tl[m]['during']:6.1f} % of solo ({tl[m]['during_raw']:5.1f} % in raw bytes/s)"
                  f"   {tl[m]['noisy']:5.2f} GB/s")
    x = tl.get("tgroup")
    if x:
        print(f"  tgroup: detected {ms_periods(x['arrive'], x['detect'])} after the arrival; victim back within"
              f" 5 % {ms_periods(x['arrive'], x['back'])} after it (its latency:"
              f" {ms_periods(x['arrive'], x['back_lat'])}); throttle released"
              f" {ms_periods(x['leave'], x['release'])} after the neighbour left")
    print(f"  timeline plot: {os.path.abspath(os.path.join(d, 'timeline.png'))}")
    return 0


def cmd_quick(d):
    m = matrix(d)
    pairs = sorted({(v, n) for v, n, _ in m})
    bad = []
    if not pairs:
        bad.append("no matrix results")
    print(matrix_table(m, MODES))
    print("victim CPU, % of wanted (alone -> beside the neighbour):")
    print(cpu_table(d, MODES))
    for v, n in pairs:
        t = m.get((v, n, "tgroup"))
        if not t:
            bad.append(f"{v}+{n}: no tgroup run")
            continue
        if t[5]:
            bad.append(f"{SHORT[v]} victim beside {SHORT[n]}: the tgroup run is not comparable: the victim got under"
                       f" {STARVED_PCT} % of the CPU it asked for (host starved the guest)")
        if t[0] < QUICK_MIN_PCT:
            bad.append(f"{SHORT[v]} victim beside {SHORT[n]}: tgroup {t[0]:.1f} % of solo < {QUICK_MIN_PCT:.0f} %")
        for x in MODES[:-1]:
            b = m.get((v, n, x))
            if not b:
                bad.append(f"{v}+{n}: no {x} run")
            elif t[0] < b[0] - QUICK_TOL_PTS:
                bad.append(f"{SHORT[v]} victim beside {SHORT[n]}: tgroup {t[0]:.1f} % < {MODE_NAME[x]} {b[0]:.1f} %"
                           f" (tolerance {QUICK_TOL_PTS} points)")
    for b in bad:
        print("FAIL eval_quick:", b)
    if not bad:
        print(f"PASS eval_quick: {len(pairs)} pairs, tgroup >= {QUICK_MIN_PCT:.0f} % of solo and no worse than"
              f" any baseline (tolerance {QUICK_TOL_PTS} points)")
    return 1 if bad else 0


def cmd_summary(d, profile):
    out = [f"# eval results: `{profile}`", "",
           "Produced by `make eval` (eval/run.sh, eval/guest.sh, eval/report.py) on the emulated platform in the QEMU",
           "guest (TCG, 2 vCPUs, a busy 2-core host): numbers carry run-to-run noise of a few points.",
           "Victims run 1 thread at high priority, noisy neighbours the profile's `noisy_threads` at low",
           "priority; \"% of solo\" is the victim's throughput per CPU-second it got beside the neighbour over the"
           " same alone at the start of the run, pooled over the five modes of a pair (report.py victim_pct, matrix(): the guest's vCPUs get 10-90 % of"
           " what they ask for on the shared host; the raw bytes/s and the CPU shares are in the tables below). Modes: " +
           ", ".join(f"{MODE_NAME[x]} (`{x}`)" for x in MODES) + " (docs/eval.md).", ""]
    m = matrix(d)
    goals = goals_table(d, m)
    if goals:
        out += ["## Goals (issue 12), measured", "", goals, ""]
    if m:
        modes = [x for x in MODES if any(k[2] == x for k in m)]
        matrix_png(m, os.path.join(d, "matrix.png"), modes)
        out += ["## MT²'s matrix: victim throughput, % of solo", "",
                "The victim alone from 0 to 2 s, the neighbour from 2 s; the victim measured from 6 s to 7.5 s,"
                " 4 s after the neighbour arrived, once tgroup's control law has made its cuts (it waits a dead"
                " time after each: about 3.5 s to cut a DRAM neighbour; the reaction is the timeline's)"
                " (eval/guest.sh, docs/eval.md).", "", matrix_table(m, modes), "",
                "![matrix](matrix.png)", ""]
        raw = {k: (v[4],) + v[1:4] + (v[4], v[5]) for k, v in m.items()}
        out += [f"† the victim got less than {STARVED_PCT} % of the CPU it asked for, alone or beside the neighbour"
                " (the host starved the guest): not comparable.", ""]
        out += ["The same in raw bytes/s (victim beside the neighbour over victim alone, both over the"
                " run's windows; includes the host's CPU noise):", "", matrix_table(raw, modes), ""]
        cpu = cpu_table(d, modes)
        if cpu:
            out += ["The victim's CPU time in the measured window, % of what it asked for (alone at the"
                    " start of the run → beside the neighbour). Throughput is computed from it, so a cell"
                    " of the table above can be low because the victim lost CPU time in the guest, not"
                    " memory bandwidth:", "", cpu, ""]
        t = [v[0] for k, v in m.items() if k[2] == "tgroup"]
        if t:
            miss = [(k, v[0]) for k, v in m.items() if k[2] == "tgroup" and v[0] < 97]
            out += [f"Goal: victim ≥ 97 % of solo in all pairs. tgroup: min {min(t):.1f} %, mean {sum(t) / len(t):.1f} %;"
                    f" {len(miss)} of {len(t)} pairs under 97 %"
                    + (": " + ", ".join(f"{SHORT[k[0]]}←{SHORT[k[1]]} {v:.1f} % (−{97 - v:.1f})" for k, v in sorted(miss))
                       if miss else "") + ".", ""]
            nq = [(k, v[1], v[2], v[3]) for k, v in m.items() if k[2] == "tgroup"]
            out += ["Neighbour under tgroup (GB/s; final CPU quota µs per period, MBA %): " +
                    ", ".join(f"{SHORT[k[0]]}←{SHORT[k[1]]} {g:.2f} ({q}, {b})" for k, g, q, b in sorted(nq)), ""]
            if miss:
                cpu = {}
                for r in rows(os.path.join(d, "matrix.csv")):
                    if r["prio"] == "high" and r["mode"] == "tgroup":
                        cpu[tuple(r["label"].split("+"))] = (fnum(r.get("ref_cpu_pct")), fnum(r.get("cpu_pct")))
                why = []
                for k, v in sorted(miss):
                    q = m[k][2]
                    qf = fnum(q)
                    c0, c1 = cpu.get(k[:2], (None, None))
                    at = ("at the CPU quota floor" if qf is not None and qf <= 200 else
                          f"at a CPU quota of {q} µs" if qf is not None else "not CPU-throttled")
                    why.append(f"{SHORT[k[0]]}←{SHORT[k[1]]}: neighbour {at}, MBA {m[k][3]} %, {m[k][1]:.2f} GB/s;"
                               + (f" victim's CPU {c0:.0f} → {c1:.0f} % of wanted" if c0 and c1 else "")
                               + (" († starved)" if m[k][5] else ""))
                out += ["Why, per missed pair (the neighbour's final throttle and what it still moved; the victim's CPU"
                        " share alone → beside it): " + "; ".join(why) + ". A neighbour at the quota floor (≤ 200 µs"
                        " per 10 ms period) is as far as tgroup's actuators go: what it still moves is what the victim"
                        " lacks (docs/eval.md, \"the CPU floor leaves traffic\"); a neighbour above it was still being"
                        " cut when the window ended, or held in the band between the detector's threshold and its"
                        " low mark; a victim whose CPU share fell is the guest's noise or the CPU loss docs/eval.md"
                        " describes.", ""]
    tl = timeline_png(d, MODES, 4, 14, os.path.join(d, "timeline.png"))
    if tl:
        out += ["## Timeline: an NVM-write neighbour arrives at 4 s and leaves at 14 s", "",
                timeline_table(tl), "",
                f"Victim \"during noise\" is the mean from 6 s to 14 s; \"back\" is the first time its"
                f" {BACK_S:.0f} s mean from then on is ≥ {BACK_PCT} % of solo (\"latency back\": its NVM read latency's mean"
                f" over the next {BACK_S:.0f} s is ≤ the solo latency / 0.95: the same at full CPU, without the guest's"
                " CPU noise); periods are"
                f" the nominal {PERIOD_MS} ms. Goal: reaction"
                " ≤ 5 periods after detection.", "", "![timeline](timeline.png)", ""]
    al = rows(os.path.join(d, "alloc.csv"))
    if al:
        out += ["## Bandwidth allocation: one task of each kind, limits on three", "",
                "| mode | task | GB/s | limit (GB/s) | within ±5 %? |", "|---|---|---|---|---|"]
        lim = {"nr": 1.5, "nw": 0.4, "dr": 3.0}
        for r in al:
            lv = lim.get(r["workload"]) if r["mode"] == "tgroup" else None
            g = float(r["gbps"])
            free = next((float(x["gbps"]) for x in al if x["mode"] == "none" and x["workload"] == r["workload"]), 0)
            ok = "–" if lv is None else ("yes" if abs(g - lv) <= 0.05 * lv else
                                         ("under (it did not reach the limit without control either)" if g < lv and free <= lv
                                          else f"no ({100 * (g / lv - 1):+.1f} %)"))
            out.append(f"| {MODE_NAME[r['mode']]} | {r['kind']} | {g:.2f} | {lv if lv else '–'} | {ok} |")
        out += ["", "MT²: the DRAM writer falls from 7.4 GB/s alone to 2.5 GB/s beside the other three; with"
                " limits on the others it gets its guarantee.", ""]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ks = ["dw", "nr", "nw", "dr"]
        for i, mo in enumerate(["none", "tgroup"]):
            ys = [next((float(r["gbps"]) for r in al if r["mode"] == mo and r["workload"] == k), 0) for k in ks]
            ax.bar([j + i * 0.4 for j in range(4)], ys, 0.4, label=MODE_NAME[mo])
        ax.set_xticks([j + 0.2 for j in range(4)])
        ax.set_xticklabels(["DRAM write", "NVM read\n(limit 1.5)", "NVM write\n(limit 0.4)", "DRAM read\n(limit 3)"])
        ax.set_ylabel("GB/s")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(d, "alloc.png"), dpi=100)
        plt.close(fig)
        out += ["![alloc](alloc.png)", ""]
    wr = rows(os.path.join(d, "writers.csv"))
    if wr:
        solo = solo_map(d).get("nvm_read")
        out += ["## Growing numbers of noisy NVM writers beside an NVM-read victim", "",
                "| writers | mode | victim GB/s | victim % of solo | victim NVM read latency (ns) | writers GB/s |",
                "|---|---|---|---|---|---|"]
        pts = {}
        by = {}
        for r in wr:
            by.setdefault((r["label"], r["mode"]), {})[r["prio"]] = r
        for (n, mo), g in sorted(by.items(), key=lambda x: (int(x[0][0]), x[0][1])):
            v, w = g.get("high"), g.get("low")
            if not v or not w:
                continue
            ref = fnum(v.get("ref_gbps")) or solo
            pct = f"{100 * float(v['gbps']) / ref:.1f} %" if ref else "–"
            out.append(f"| {n} | {MODE_NAME[mo]} | {float(v['gbps']):.2f} | {pct} | {float(v['lat_ns']):.0f} | {float(w['gbps']):.2f} |")
            pts.setdefault(mo, []).append((float(v["lat_ns"]), float(v["gbps"]), n))
        fig, ax = plt.subplots(figsize=(6, 4))
        for mo, p in pts.items():
            ax.plot([x[0] for x in p], [x[1] for x in p], "o-", label=MODE_NAME[mo])
            for x in p:
                ax.annotate(x[2], (x[0], x[1]), fontsize=7)
        ax.set_xlabel("victim's NVM read latency, ns")
        ax.set_ylabel("victim GB/s")
        ax.set_title("1-8 noisy NVM writers (labels: writer threads)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(d, "writers.png"), dpi=100)
        plt.close(fig)
        out += ["", "![writers](writers.png)", ""]
    op = rows(os.path.join(d, "overhead_period.csv"))
    if op:
        out += ["## Overhead", "", "Regulation period's own work vs groups (1 sleeping task each; TCG guest):", "",
                "| groups | period_last_us | period_max_us |", "|---|---|---|"]
        out += [f"| {r['groups']} | {r['period_last_us']} | {r['period_max_us']} |" for r in op]
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot([int(r["groups"]) for r in op], [fnum(r["period_last_us"]) or 0 for r in op], "o-")
        ax.set_xscale("log")
        ax.set_xlabel("groups")
        ax.set_ylabel("period work, µs (TCG)")
        fig.tight_layout()
        fig.savefig(os.path.join(d, "overhead.png"), dpi=100)
        plt.close(fig)
        out += ["", "![overhead](overhead.png)", ""]
    ob = os.path.join(d, "overhead_bench.txt")
    if os.path.exists(ob):
        out += ["Fork/exit, thread and context-switch rates (`make bench`'s guest half):", "", "```"]
        out += [line.rstrip() for line in open(ob) if line.strip()]
        out += ["```", ""]
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print(os.path.join(d, "summary.md"))
    return 0


def cmd_readme(readme, results):
    lines = []
    for prof in sorted(os.listdir(results)):
        d = os.path.join(results, prof)
        m = matrix(d)
        if not m:
            continue
        modes = [x for x in MODES if any(k[2] == x for k in m)]
        lines.append(f"`{prof}` ([summary]({os.path.relpath(d, os.path.dirname(readme))}/summary.md)):"
                     " victim throughput as % of solo beside each noisy neighbour, min / mean over the"
                     f" {len({(k[0], k[1]) for k in m})} pairs of MT²'s matrix:")
        lines.append("")
        lines.append("| | " + " | ".join(MODE_NAME[x] for x in modes) + " |")
        lines.append("|---|" + "---|" * len(modes))
        cells = []
        for x in modes:
            v = [e[0] for k, e in m.items() if k[2] == x]
            cells.append(f"{min(v):.0f} / {sum(v) / len(v):.0f} %")
        lines.append("| victim, % of solo | " + " | ".join(cells) + " |")
        g = goals_table(d, m)
        if g:
            lines += ["", "Issue 12's goals, measured (the summary says why each miss):", "", g]
        tl = {mo: timeline(d, mo, 4, 14) for mo in MODES}
        t = tl.get("tgroup")
        if t:
            lines.append("")
            lines.append(f"Timeline (NVM writer arrives at 4 s, leaves at 14 s): victim {t['during']:.0f} % of solo under"
                         f" tgroup" + "".join(f", {tl[mo]['during']:.0f} % {MODE_NAME[mo]}" for mo in MODES[:-1] if tl.get(mo))
                         + f"; detected {ms_periods(t['arrive'], t['detect'])}, victim back within 5 %"
                         f" {ms_periods(t['arrive'], t['back'])} after the arrival, throttle released"
                         f" {ms_periods(t['leave'], t['release'])} after it left.")
        lines.append("")
    text = open(readme).read()
    b, e = "<!-- results:begin -->", "<!-- results:end -->"
    head, rest = text.split(b, 1)
    _, tail = rest.split(e, 1)
    intro = ("Latest `make eval` (emulated platform in the TCG guest, single runs: a few points of noise;"
             " docs/eval.md says how it works and what is doubtful):\n\n")
    open(readme, "w").write(head + b + "\n" + intro + "\n".join(lines) + e + tail)
    return 0


def main(a):
    if len(a) >= 2 and a[0] == "demo":
        return cmd_demo(a[1])
    if len(a) >= 2 and a[0] == "quick":
        return cmd_quick(a[1])
    if len(a) >= 3 and a[0] == "summary":
        return cmd_summary(a[1], a[2])
    if len(a) >= 3 and a[0] == "readme":
        return cmd_readme(a[1], a[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
