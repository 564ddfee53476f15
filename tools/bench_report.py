#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and plots from the evaluation's run records.

    bench_report.py [--rst] [--plots DIR] [--prefix P] [--img URI]
                    RESULTS_DIR...

RESULTS_DIR holds the JSON records of selftests/bench's scenarios
(selftests/lib/longrun.py), one per scenario, congestion control and
round.  Prints Markdown: per scenario, each congestion control's medians
over the rounds with their range, then hpcc's and ldcp's ratios to
dctcp and cubic of the same run.  With --plots, writes per scenario
P<scenario>-queue.png (the bottleneck's queue over time) and
P<scenario>-flows.png (each flow's throughput over time), from each
congestion control's first round.  --rst prints reStructuredText
instead (list-tables); --img URI links the plots under each table, as
URI<prefix><scenario>-<kind>.png.  Exits 1 when there is no record.
"""
import glob
import json
import os
import sys

CC_ORDER = ["hpcc", "ldcp", "dctcp", "cubic", "bbr"]
# (key, heading, scale, format)
COLS = [
    ("util", "util %", 100.0, "%.1f"),
    ("queue_p50_us", "queue p50 us", 1.0, "%.0f"),
    ("queue_p99_us", "queue p99 us", 1.0, "%.0f"),
    ("queue_max_us", "queue max us", 1.0, "%.0f"),
    ("backlog_p99_kb", "qdisc p99 KB", 1.0, "%.1f"),
    ("rtt_p50_ms", "RTT p50 ms", 1.0, "%.2f"),
    ("rtt_p99_ms", "RTT p99 ms", 1.0, "%.2f"),
    ("jain", "Jain", 1.0, "%.3f"),
    ("jain_min", "Jain (worst 1 s)", 1.0, "%.3f"),
    ("conv_s", "last flow 80% s", 1.0, "%.1f"),
    ("drops", "drops", 1.0, "%.0f"),
    ("marks", "marks", 1.0, "%.0f"),
    ("retransmits", "retx", 1.0, "%.0f"),
    ("syn_retrans", "SYN retx", 1.0, "%.0f"),
    ("late_starts", "late starts", 1.0, "%.0f"),
]
RATIOS = [("util", "util"), ("queue_p99_us", "queue p99"),
          ("rtt_p99_ms", "RTT p99"), ("jain", "Jain"),
          ("conv_s", "convergence")]


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def jain_window(r):
    """Jain index of the flows' mean rates over the measured window
    (for records from before longrun.py stored it)"""
    t0, t1 = r["window"]
    nb = int(round((t1 - t0) / 0.5))
    means = []
    for f in r["series"]["flows"]:
        v = [f["mbit"][k] for k in (int(round((t0 - f["start"]) / 0.5)) + i
                                    for i in range(nb)) if 0 <= k < len(f["mbit"])]
        means.append(sum(v) / nb if nb else 0.0)
    s, q = sum(means), sum(x * x for x in means)
    return s * s / (len(means) * q) if q else None


def load(dirs):
    recs = []
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "*.json"))):
            with open(p) as f:
                r = json.load(f)
            if "scenario" in r and "metrics" in r:
                r["metrics"].setdefault("jain", jain_window(r))
                # convergence is of a flow that joins others
                if len({f.get("planned_start", f["start"])
                        for f in r["series"]["flows"]}) < 2:
                    r["metrics"]["conv_s"] = None
                recs.append(r)
    return recs


def stats(recs, key, scale):
    v = [r["metrics"][key] * scale for r in recs if r["metrics"].get(key) is not None]
    return (median(v), min(v), max(v)) if v else None


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def rst_table(head, rows):
    out = [".. list-table::", "   :header-rows: 1", ""]
    for r in [head] + rows:
        out.append("   * - " + r[0])
        out += ["     - " + c for c in r[1:]]
    return out


def table(scen, recs, rst, img):
    ccs = [c for c in CC_ORDER if any(r["cc"] == c for r in recs)]
    ccs += sorted({r["cc"] for r in recs} - set(ccs))
    r0 = recs[0]
    rounds = max(r["round"] for r in recs)
    title = scen
    out = [title, "-" * len(title)] if rst else ["### %s" % title]
    out += ["",
            "%d flows, %g Mbit/s, base delay %s, %g s; measured %g-%g s; "
            "kernel %s; %d round(s): median (min-max)." %
            (r0["nflows"], r0["rate_mbit"], r0["delay"], r0["secs"],
             r0["window"][0], r0["window"][1], r0["kernel"], rounds), ""]
    rows = []
    med = {}
    for cc in ccs:
        rs = [r for r in recs if r["cc"] == cc]
        cells = []
        for key, _, scale, fmt in COLS:
            s = stats(rs, key, scale)
            med[(cc, key)] = s[0] if s else None
            if not s:
                cells.append("-")
            elif len(rs) == 1 or s[1] == s[2]:
                cells.append(fmt % s[0])
            else:
                cells.append((fmt + " (" + fmt + "-" + fmt + ")") % s)
        rows.append([cc] + cells)
    head = ["cc"] + [c[1] for c in COLS]
    out += (rst_table if rst else md_table)(head, rows)
    out.append("")
    lines = []
    for a in ("hpcc", "ldcp"):
        for b in ("dctcp", "cubic"):
            if a not in ccs or b not in ccs:
                continue
            parts = []
            for key, name in RATIOS:
                x, y = med.get((a, key)), med.get((b, key))
                parts.append("%s %s" % (name, "%.2f" % (x / y) if x is not None and y else "-"))
            lines.append("- %s / %s: %s" % (a, b, ", ".join(parts)))
    if lines:
        out += ["Ratios of the medians, same run:", ""] + lines + [""]
    if img:
        for kind in ("queue", "flows"):
            f = "%s%s-%s.png" % (img, scen, kind)
            out += (["", ".. image:: %s" % f, ""] if rst else ["![%s %s](%s)" % (scen, kind, f), ""])
    return out


def plots(scen, recs, outdir, prefix):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = {}
    for r in sorted(recs, key=lambda r: r["round"]):
        first.setdefault(r["cc"], r)
    ccs = [c for c in CC_ORDER if c in first] + sorted(set(first) - set(CC_ORDER))
    fig, ax = plt.subplots(figsize=(8, 4))
    for cc in ccs:
        s = first[cc]["series"]
        t = [s["backlog_t0"] + i * s["backlog_dt"] for i in range(len(s["backlog"]))]
        ax.plot(t, [b / 1000.0 for b in s["backlog"]], label=cc)
    ax.set_xlabel("time, s")
    ax.set_ylabel("bottleneck queue, KB (qdisc backlog)")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_title("%s: queue over the measured window" % scen)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "%s%s-queue.png" % (prefix, scen)), dpi=80)
    plt.close(fig)

    fig, axs = plt.subplots(len(ccs), 1, figsize=(8, 1.8 * len(ccs) + 0.6),
                            sharex=True, squeeze=False)
    for ax, cc in zip(axs[:, 0], ccs):
        for i, f in enumerate(first[cc]["series"]["flows"]):
            t = [f["start"] + 0.5 * (k + 1) for k in range(len(f["mbit"]))]
            ax.plot(t, f["mbit"], lw=1, label="flow %d" % (i + 1))
        ax.set_ylabel("%s\nMbit/s" % cc)
        ax.set_ylim(bottom=0)
    axs[-1, 0].set_xlabel("time, s (0.5 s intervals)")
    axs[0, 0].set_title("%s: throughput of each flow" % scen)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "%s%s-flows.png" % (prefix, scen)), dpi=80)
    plt.close(fig)


def main():
    args = sys.argv[1:]
    pdir, prefix, rst, img = None, "", False, None
    while args and args[0].startswith("--"):
        if args[0] == "--rst":
            rst = True
            args = args[1:]
            continue
        if args[0] == "--img":
            img = args[1]
        elif args[0] == "--plots":
            pdir = args[1]
        elif args[0] == "--prefix":
            prefix = args[1]
        else:
            sys.exit("bench_report.py: unknown option %s" % args[0])
        args = args[2:]
    recs = load(args)
    if not recs:
        print("bench_report.py: no records in %s" % " ".join(args), file=sys.stderr)
        return 1
    out = []
    for scen in sorted({r["scenario"] for r in recs}):
        rs = [r for r in recs if r["scenario"] == scen]
        out += table(scen, rs, rst, img if img is None else img + prefix)
        if pdir:
            os.makedirs(pdir, exist_ok=True)
            plots(scen, rs, pdir, prefix)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
