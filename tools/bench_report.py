#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and plots from the evaluation's run records.

    bench_report.py [--rst] [--plots DIR] [--prefix P] [--img URI]
                    RESULTS_DIR...

RESULTS_DIR holds the JSON records of selftests/bench's scenarios
(selftests/lib/longrun.py, fctrun.py, ackcost.py) or of the ns-3 model
(build/sim/dccsim --out, "source": "sim"), one per scenario,
congestion control and round.  Prints Markdown: first the evaluation's
goals at the dc profile that the records hold (GOALS; incast at the
largest fan-in), each a ratio of the medians with each side's range and
its verdict, "inside X's spread" where it turns within the baseline's
range over the rounds; then per scenario, each
congestion control's medians over the rounds with their range (for the
web-search mix also the FCT slowdown per flow-size bin, all rounds'
flows pooled, with each p50's and p99's percentile bootstrap interval
and the flows' count), for the mixes and incast the slowdown's mean,
p50 and p99 over all rounds' flows (and incast's queries) pooled, with
bootstrap intervals and counts and hpcc's and ldcp's ratios to dctcp
and cubic with the intervals of the ratios (a p99 over fewer than
TAIL_MIN flows flagged as not meaningful), then hpcc's and ldcp's
ratios of the medians to dctcp and cubic of the
same run, a variant's (hpcc,KEY=VAL) to its algorithm, and the BPF
flavour's (hpcc_bpf, ldcp_bpf) to its module twin, with whether each
pair's ranges over the rounds overlap, and how many of its rounds ran
as meant (the record's "bpf": hpcc_bpf on U, ldcp_bpf with ECN).
Where records of make bench's dc-dumbbell or dc-convergence and of the
model's sim-vmdumbbell or sim-vmconvergence are both given, a
cross-check follows: each congestion control's window in the VM and in
the model (cwnd, the round trip it covers at the flow's rate, the late
flow's time to a window at 0.8 of the first's), with --plots
P<scenario>-cwnd.png, each flow's cwnd over time in both.
With --plots, writes per scenario P<scenario>-queue.png (the
bottleneck's queue over time, each congestion control's first round),
for long flows P<scenario>-flows.png (each flow's throughput over
time), for the web-search mix P<scenario>-fct.png (p50 and p99 FCT
slowdown against flow size).  --rst prints reStructuredText
instead (list-tables); --img URI links the plots under each table, as
URI<prefix><scenario>-<kind>.png.  Exits 1 when there is no record.
"""
import glob
import json
import math
import os
import random
import sys
import zlib

CC_ORDER = ["hpcc", "hpcc_bpf", "paced", "ldcp", "ldcp_bpf", "dctcp", "cubic", "bbr"]
# the BPF flavour's counters (its records' "bpf") that the report shows
BPF_SHOW = ["flows", "flows_no_csig", "samples_u", "commits", "fallbacks",
            "flows_no_ecn", "ece_acks", "mod_syn_offered", "mod_synack_accepted"]
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
    ("cpu_busy", "CPU %", 100.0, "%.0f"),
    ("mbit_per_cpu_s", "Mbit per CPU s", 1.0, "%.0f"),
]
RATIOS = [("util", "util"), ("queue_p99_us", "queue p99"),
          ("rtt_p99_ms", "RTT p99"), ("jain", "Jain"),
          ("conv_s", "convergence"), ("mbit_per_cpu_s", "Mbit per CPU s")]
# flow-completion scenarios (selftests/lib/fctrun.py)
FCT_COLS = [
    ("offered", "offered %", 100.0, "%.1f"),
    ("util", "util %", 100.0, "%.1f"),
    # the ns-3 model's: over the arrivals' window, without the drain
    ("util_window", "util arrivals %", 100.0, "%.1f"),
    ("queue_p50_us", "queue p50 us", 1.0, "%.0f"),
    ("queue_p99_us", "queue p99 us", 1.0, "%.0f"),
    ("queue_max_us", "queue max us", 1.0, "%.0f"),
    ("rtt_p99_ms", "RTT p99 ms", 1.0, "%.2f"),
    ("flows", "flows", 1.0, "%.0f"),
    ("unfinished", "unfinished", 1.0, "%.0f"),
    ("errors", "failed", 1.0, "%.0f"),
    ("slowdown_p50", "slowdown p50", 1.0, "%.2f"),
    ("slowdown_p99", "slowdown p99", 1.0, "%.1f"),
    ("small_p99", "<=BDP p99", 1.0, "%.1f"),
    ("small_p99_noretx", "<=BDP p99 no retx", 1.0, "%.1f"),
    ("retx_flows", "flows retx", 1.0, "%.0f"),
    ("timeouts", "RTOs", 1.0, "%.0f"),
    ("drops", "drops", 1.0, "%.0f"),
    ("marks", "marks", 1.0, "%.0f"),
]
INCAST_COLS = FCT_COLS[1:2] + FCT_COLS[3:10] + [
    ("slowdown_p50", "flow slowdown p50", 1.0, "%.1f"),
    ("slowdown_p99", "flow slowdown p99", 1.0, "%.1f"),
    ("qct_p50", "query slowdown p50", 1.0, "%.2f"),
    ("qct_p99", "query slowdown p99", 1.0, "%.2f"),
    ("start_skew_ms", "start skew ms", 1.0, "%.0f"),
] + FCT_COLS[14:]
FCT_RATIOS = [("slowdown_p50", "slowdown p50"), ("slowdown_p99", "slowdown p99"),
              ("small_p99", "<=BDP p99"), ("small_p99_noretx", "<=BDP p99 no retx"),
              ("queue_p99_us", "queue p99"),
              ("util", "util")]
INCAST_RATIOS = [("qct_p50", "query slowdown p50"), ("qct_p99", "query slowdown p99"),
                 ("queue_p99_us", "queue p99"), ("timeouts", "RTOs")]
# the cost per ACK (selftests/lib/ackcost.py)
ACK_COLS = [
    ("acks", "ACKs traced", 1.0, "%.0f"),
    ("cc_ns_per_ack", "cc ns/ACK", 1.0, "%.0f"),
    ("cc_calls_per_ack", "cc calls/ACK", 1.0, "%.2f"),
    ("opt_ns_per_ack", "option hooks ns/ACK", 1.0, "%.0f"),
    ("mbit", "Mbit/s", 1.0, "%.1f"),
]
ACK_RATIOS = [("cc_ns_per_ack", "cc ns/ACK"), ("cc_calls_per_ack", "calls/ACK")]
# the parking lot (selftests/lib/parkrun.py)
PARK_COLS = [
    ("mbit_a", "A Mbit/s (2 links)", 1.0, "%.1f"),
    ("mbit_b", "B Mbit/s (link 1)", 1.0, "%.1f"),
    ("mbit_c", "C Mbit/s (link 2)", 1.0, "%.1f"),
    ("min_share", "lowest / fair share", 1.0, "%.2f"),
    ("jain", "Jain", 1.0, "%.3f"),
    ("util1", "util 1 %", 100.0, "%.1f"),
    ("util2", "util 2 %", 100.0, "%.1f"),
    ("queue1_p99_us", "queue 1 p99 us", 1.0, "%.0f"),
    ("queue2_p99_us", "queue 2 p99 us", 1.0, "%.0f"),
    ("rtt_p99_ms", "RTT p99 ms", 1.0, "%.2f"),
    ("drops", "drops", 1.0, "%.0f"),
    ("marks", "marks", 1.0, "%.0f"),
    ("timeouts", "RTOs", 1.0, "%.0f"),
]
PARK_RATIOS = [("min_share", "lowest share"), ("jain", "Jain"), ("util1", "util 1"),
               ("util2", "util 2"), ("queue1_p99_us", "queue 1 p99"),
               ("queue2_p99_us", "queue 2 p99"), ("rtt_p99_ms", "RTT p99")]


def kind(r):
    return r.get("kind", "long")


def columns(k):
    return {"long": (COLS, RATIOS), "poisson": (FCT_COLS, FCT_RATIOS),
            "incast": (INCAST_COLS, INCAST_RATIOS),
            "ackcost": (ACK_COLS, ACK_RATIOS),
            "parking": (PARK_COLS, PARK_RATIOS)}[k]


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
            if "scenario" in r and "metrics" in r and kind(r) != "long":
                recs.append(r)
            elif "scenario" in r and "metrics" in r:
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


def describe(r0, rounds):
    k = kind(r0)
    if k == "ackcost":
        return ("One flow, ftrace function_graph over the algorithm's ops; "
                "kernel %s; %d round(s): median (min-max)." % (r0["kernel"], rounds))
    if k == "parking":
        what = ("flow A over two bottlenecks, B over the first, C over the second, "
                "%g s; measured %g-%g s" % (r0["secs"], r0["window"][0], r0["window"][1]))
    elif k == "poisson":
        what = ("%s flow sizes times %s, Poisson arrivals at %g%% load from "
                "%d senders for %g s (seeds %s in round 1)" %
                ({"hadoop": "Hadoop"}.get(r0.get("mix"), "web-search"),
                 r0.get("size_scale", 1), r0["load_pct"], r0["nsenders"], r0["secs"],
                 r0.get("seeds")))
    elif k == "incast":
        size = r0.get("flow_size") or (r0["series"]["fct"][0][0] if r0["series"]["fct"] else 0)
        what = ("%d senders, %d queries of one %d KB flow each" %
                (r0["nsenders"], r0["metrics"].get("queries") or 0, size // 1024))
        if r0.get("load_pct") and r0.get("flow_size"):
            what += (" beside %s flows at %g%% load (the flows' columns are theirs)" %
                     ({"hadoop": "Hadoop"}.get(r0.get("mix"), "web-search"), r0["load_pct"]))
    else:
        what = "%d flows, %g s; measured %g-%g s" % (r0["nflows"], r0["secs"],
                                                      r0["window"][0], r0["window"][1])
    delay = r0["delay"]
    if len(set(r0.get("delays") or [])) > 1:
        delay = "per flow " + ", ".join(r0["delays"])
    if r0.get("source") == "sim":
        what += " (the ns-3 model, %s topology, MTU %d)" % (r0.get("topo"), r0.get("mtu", 1500))
    return ("%s; %g Mbit/s, base delay %s; kernel %s; %d round(s): median (min-max)." %
            (what, r0["rate_mbit"], delay, r0["kernel"], rounds))


# a flow's restart into a path that filled while it paused (the model's
# --pause-s / --resume-s): the queue it met, the others' before it, and
# its time to 80% of its share
RESTART_COLS = [
    ("restart_q_bytes", "queue met KB (2 RTTs)", 0.001, "%.1f"),
    ("restart_q_before_bytes", "queue before KB", 0.001, "%.1f"),
    ("restart_conv_s", "to 80% of share ms", 1000.0, "%.1f"),
]


def restart_table(ccs, recs, rst):
    rows = []
    for cc in ccs:
        rs = [r for r in recs if r["cc"] == cc]
        rows.append([cc] + [cell(stats(rs, key, scale), len(rs), fmt)
                            for key, _, scale, fmt in RESTART_COLS])
    out = ["The restart:", ""]
    out += (rst_table if rst else md_table)(["cc"] + [c[1] for c in RESTART_COLS], rows)
    return out + [""]


def cell(s, n, fmt):
    if not s:
        return "-"
    if n == 1 or s[1] == s[2]:
        return fmt % s[0]
    return (fmt + " (" + fmt + "-" + fmt + ")") % s


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))] if v else None


# Tails over the flows of all rounds pooled, with a percentile bootstrap
# over flows: BOOT_B resamples, BOOT_LEVEL two-sided; each statistic's
# generator seeded from its label, so that a report is reproducible.  A
# p99 over fewer than TAIL_MIN flows rests on its one or two largest
# values: shown, flagged as not meaningful.
BOOT_B = 1000
BOOT_LEVEL = 0.95
TAIL_MIN = 100


def boot_rng(label):
    return random.Random(zlib.crc32(label.encode()))


def boot_reps(v, stat, label, b=BOOT_B):
    """the bootstrap replicates of stat ("mean" or a percentile, a
    number, as pct() reads it) over the sample v.  A percentile's
    replicate is drawn exactly and in O(1): a resample's element is
    sorted(v)[floor(U n)] for U uniform, so its k-th smallest is
    sorted(v)[floor(U_(k) n)], U_(k) the k-th of n uniforms, Beta(k,
    n + 1 - k)"""
    rng = boot_rng(label)
    n = len(v)
    if stat == "mean":
        return [math.fsum(rng.choices(v, k=n)) / n for _ in range(b)]
    sv = sorted(v)
    k = min(n - 1, int(round(stat / 100.0 * (n - 1)))) + 1
    return [sv[min(n - 1, int(rng.betavariate(k, n + 1 - k) * n))] for _ in range(b)]


def boot_ci(reps, level=BOOT_LEVEL):
    """the percentile interval of the replicates"""
    r = sorted(x for x in reps if x is not None)
    if not r:
        return None
    a = (1 - level) / 2
    return (r[int(math.floor(a * (len(r) - 1)))], r[int(math.ceil((1 - a) * (len(r) - 1)))])


def estimate(v, stat, label):
    """(point, (lo, hi), n, replicates) of stat over v; None when empty"""
    if not v:
        return None
    point = math.fsum(v) / len(v) if stat == "mean" else pct(v, stat)
    reps = boot_reps(v, stat, label)
    return (point, boot_ci(reps), len(v), reps)


def meaningful(stat, n):
    return stat == "mean" or stat < 99 or n >= TAIL_MIN


def fmt_est(e, fmt="%.2f", count=True):
    """point [lo-hi] (n flows), or a flagged p99"""
    if e is None:
        return "-"
    point, ci, n, _ = e
    s = (fmt + " [" + fmt + "-" + fmt + "]") % (point, ci[0], ci[1])
    return s + (" (n=%d)" % n if count else "")


def fmt_tail(e, stat, fmt="%.2f"):
    """an estimate without its count; a p99 over too few flows flagged"""
    if e is None:
        return "-"
    if not meaningful(stat, e[2]):
        return (fmt + " (not meaningful: n < %d)") % (e[0], TAIL_MIN)
    return fmt_est(e, fmt, count=False)


def ratio_est(a, b):
    """a / b of two estimates, with the interval of the replicates'
    ratios (a's and b's resamples independent)"""
    if a is None or b is None or not b[0]:
        return None
    reps = [x / y if y else None for x, y in zip(a[3], b[3])]
    return (a[0] / b[0], boot_ci(reps), min(a[2], b[2]), reps)


def bin_edges(recs):
    # decades from one BDP (fctrun.py; 20 KB in records without it)
    b = recs[0].get("bdp", 20e3)
    return [(0, b), (b, 10 * b), (10 * b, 100 * b), (100 * b, float("inf"))]


def bin_table(ccs, recs, rst):
    """FCT slowdown per size bin, the flows of all rounds pooled: p50
    and p99 with their bootstrap intervals and the flows' count"""
    bins = list(recs[0]["metrics"]["bins"])
    edges = bin_edges(recs)
    scen = recs[0]["scenario"]
    rows = []
    for cc in ccs:
        fl = [f for r in recs if r["cc"] == cc for f in r["series"]["fct"]]
        cells = []
        for (lo, hi), name in zip(edges, bins):
            v = [f[2] for f in fl if lo < f[0] <= hi]
            p50 = estimate(v, 50, "%s/%s/%s/p50" % (scen, cc, name))
            p99 = estimate(v, 99, "%s/%s/%s/p99" % (scen, cc, name))
            cells.append("%s / %s (n=%d)" % (fmt_tail(p50, 50, "%.1f"), fmt_tail(p99, 99, "%.1f"),
                                             len(v)) if v else "-")
        rows.append([cc] + cells)
    out = ["", "FCT slowdown p50 / p99 [%d%% bootstrap interval] (flows) per flow size, "
           "all rounds' flows pooled:" % (BOOT_LEVEL * 100), ""]
    out += (rst_table if rst else md_table)(["cc"] + bins, rows)
    return out + [""]


def pooled_table(ccs, recs, rst):
    """the flows (and incast's queries) of all rounds pooled: count,
    mean, p50 and p99 slowdown with bootstrap intervals, and hpcc's and
    ldcp's ratios to dctcp and cubic with the intervals of the ratios"""
    scen = recs[0]["scenario"]
    inc = kind(recs[0]) == "incast"
    bdp = recs[0].get("bdp", 20e3)
    cols = [("flows", "mean", lambda f: True), ("flows", 50, lambda f: True),
            ("flows", 99, lambda f: True)]
    if not inc:
        cols.append(("<=BDP", 99, lambda f: f[0] <= bdp))
    has_q = inc and all("qct" in r["series"] for r in recs)
    if has_q:
        cols += [("queries", "mean", None), ("queries", 50, None), ("queries", 99, None)]
    est = {}
    rows = []
    for cc in ccs:
        rs = [r for r in recs if r["cc"] == cc]
        fl = [f for r in rs for f in r["series"]["fct"]]
        qs = [q for r in rs for q in r["series"].get("qct", []) if q is not None]
        cells = []
        for what, stat, sel in cols:
            v = qs if sel is None else [f[2] for f in fl if sel(f)]
            e = estimate(v, stat, "%s/%s/%s/%s" % (scen, cc, what, stat))
            est[(cc, what, stat)] = e
            cells.append(fmt_tail(e, stat))
        counts = "%d" % len(fl)
        if has_q:
            counts += " / %d" % len(qs)
        rows.append([cc, counts] + cells)
    name = {"mean": "mean", 50: "p50", 99: "p99"}
    head = ["cc", "flows" + (" / queries" if has_q else "")]
    head += ["%s %s" % ({"flows": "slowdown", "<=BDP": "<=BDP slowdown",
                         "queries": "query slowdown"}[w], name[st]) for w, st, _ in cols]
    out = ["Slowdown over all rounds' %s pooled: estimate [%d%% percentile bootstrap over "
           "%s, %d resamples]; a p99 over fewer than %d is flagged:" %
           ("flows and queries" if has_q else "flows", BOOT_LEVEL * 100,
            "flows and queries" if has_q else "flows", BOOT_B, TAIL_MIN), ""]
    out += (rst_table if rst else md_table)(head, rows)
    lines = []
    for a in ("hpcc", "ldcp"):
        for b in ("dctcp", "cubic"):
            if a not in ccs or b not in ccs:
                continue
            parts = []
            for what, stat, _ in cols:
                r = ratio_est(est[(a, what, stat)], est[(b, what, stat)])
                lab = {"flows": "", "<=BDP": "<=BDP ", "queries": "query "}[what] + name[stat]
                if r is None:
                    parts.append("%s -" % lab)
                elif not meaningful(stat, r[2]):
                    parts.append("%s %.2f (not meaningful: n < %d)" % (lab, r[0], TAIL_MIN))
                else:
                    parts.append("%s %s" % (lab, fmt_est(r, count=False)))
            lines.append("- %s / %s: %s" % (a, b, ", ".join(parts)))
    if lines:
        out += ["", "Ratios of the pooled estimates [bootstrap interval of the ratio]:", ""]
        out += lines
    return [""] + out + [""]


def table(scen, recs, rst, img):
    ccs = [c for c in CC_ORDER if any(r["cc"] == c for r in recs)]
    ccs += sorted({r["cc"] for r in recs} - set(ccs))
    r0 = recs[0]
    k = kind(r0)
    cols, ratios = columns(k)
    rounds = max(r["round"] for r in recs)
    title = scen
    out = [title, "-" * len(title)] if rst else ["### %s" % title]
    out += ["", describe(r0, rounds), ""]
    rows = []
    med = {}
    rng = {}
    for cc in ccs:
        rs = [r for r in recs if r["cc"] == cc]
        cells = []
        for key, _, scale, fmt in cols:
            st = stats(rs, key, scale)
            med[(cc, key)] = st[0] if st else None
            rng[(cc, key)] = st[1:] if st else None
            cells.append(cell(st, len(rs), fmt))
        rows.append([cc] + cells)
    head = ["cc"] + [c[1] for c in cols]
    out += (rst_table if rst else md_table)(head, rows)
    out.append("")
    if any(r["metrics"].get("restart_q_bytes") is not None for r in recs):
        out += restart_table(ccs, recs, rst)
    if k == "poisson":
        out += bin_table(ccs, recs, rst)
    if k in ("poisson", "incast") and all("fct" in r["series"] for r in recs):
        out += pooled_table(ccs, recs, rst)
    lines = []
    # each algorithm against the baselines; a variant (hpcc,KEY=VAL)
    # against its algorithm with the defaults
    pairs = [(a, b) for a in ("hpcc", "ldcp") for b in ("dctcp", "cubic")]
    pairs.append(("hpcc", "paced"))
    pairs += [(a, a.split(",")[0]) for a in ccs if "," in a]
    # the BPF flavour against its module twin (hpcc_bpf / hpcc)
    bpf = [(a, a[:-4]) for a in ccs if a.endswith("_bpf")]
    for a, b in pairs + bpf:
        if a not in ccs or b not in ccs:
            continue
        parts = []
        for key, name in ratios:
            x, y = med.get((a, key)), med.get((b, key))
            parts.append("%s %s" % (name, "%.2f" % (x / y) if x is not None and y else "-"))
        line = "- %s / %s: %s" % (a, b, ", ".join(parts))
        if (a, b) in bpf:
            # the two flavours agree where each one's range over the
            # rounds overlaps the other's
            agree = []
            for key, name in [kn for kn in ratios if kn[0] in ("util", "queue_p99_us")]:
                x, y = rng.get((a, key)), rng.get((b, key))
                agree.append("%s %s" % (name, "-" if not x or not y else
                                        "yes" if x[0] <= y[1] and y[0] <= x[1] else "no"))
            line += "; ranges over the rounds overlap: " + ", ".join(agree)
        lines.append(line)
    if lines:
        out += ["Ratios of the medians, same run:", ""] + lines + [""]
    out += bpf_lines(ccs, recs)
    if img:
        for kd in plot_kinds(k):
            f = "%s%s-%s.png" % (img, scen, kd)
            out += (["", ".. image:: %s" % f, ""] if rst else ["![%s %s](%s)" % (scen, kd, f), ""])
    return out


def bpf_lines(ccs, recs):
    """for each BPF flavour's CC with counters: the rounds that ran as
    meant, and its counters per run (medians)"""
    lines = []
    for cc in ccs:
        rs = [r for r in recs if r["cc"] == cc and "bpf" in r]
        if not rs:
            continue
        good = [r for r in rs if r["bpf"]["ok"]]
        what = {"hpcc_bpf": "on U", "ldcp_bpf": "with ECN"}.get(cc, "as meant")
        cs = ["%s %g" % (k, median([r["bpf"]["counters"][k] for r in rs]))
              for k in BPF_SHOW if all(k in r["bpf"]["counters"] for r in rs)]
        bad = sorted({r["bpf"]["check"] for r in rs if not r["bpf"]["ok"]})
        lines.append("- %s %s in %d of %d rounds (dccbpf's counters per run, medians: %s)%s" %
                     (cc, what, len(good), len(rs), ", ".join(cs),
                      "; " + "; ".join(bad) if bad else ""))
    return ["The BPF flavour's runs:", ""] + lines + [""] if lines else []


def plot_kinds(k):
    return {"long": ("queue", "flows"), "poisson": ("queue", "fct"),
            "incast": ("queue",), "ackcost": (), "parking": ("flows",)}[k]


def fct_plot(scen, recs, ccs, outdir, prefix, plt):
    """p50 and p99 slowdown against flow size (all rounds' flows), bins
    of a fifth of a decade"""
    fig, ax = plt.subplots(figsize=(8, 4))
    drawn = 0
    for i, cc in enumerate(ccs):
        fl = [f for r in recs if r["cc"] == cc for f in r["series"]["fct"]]
        by = {}
        for size, _, sd in (f[:3] for f in fl):
            by.setdefault(round(5 * math.log10(max(size, 1))), []).append(sd)
        xs = sorted(b for b in by if len(by[b]) >= 3)
        drawn += len(xs)
        c = "C%d" % i
        ax.plot([10 ** (b / 5.0) for b in xs], [pct(by[b], 99) for b in xs], c + "-",
                marker="o", ms=3, label="%s p99" % cc)
        ax.plot([10 ** (b / 5.0) for b in xs], [pct(by[b], 50) for b in xs], c + "--",
                lw=1, label="%s p50" % cc)
    # a run of few flows may leave no bin with 3: the axes stay linear
    if drawn:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("flow size, bytes")
    ax.set_ylabel("FCT slowdown")
    ax.set_title("%s: FCT slowdown against flow size (bins with 3+ flows)" % scen)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "%s%s-fct.png" % (prefix, scen)), dpi=80)
    plt.close(fig)


def plots(scen, recs, outdir, prefix):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = kind(recs[0])
    if not plot_kinds(k):
        return
    first = {}
    for r in sorted(recs, key=lambda r: r["round"]):
        first.setdefault(r["cc"], r)
    ccs = [c for c in CC_ORDER if c in first] + sorted(set(first) - set(CC_ORDER))
    if "queue" in plot_kinds(k):
        queue_plot(scen, first, ccs, outdir, prefix, plt)
    if k == "poisson":
        fct_plot(scen, recs, ccs, outdir, prefix, plt)
    if "flows" in plot_kinds(k):
        flows_plot(scen, first, ccs, outdir, prefix, plt)


def queue_plot(scen, first, ccs, outdir, prefix, plt):
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


def flows_plot(scen, first, ccs, outdir, prefix, plt):
    fig, axs = plt.subplots(len(ccs), 1, figsize=(8, 1.8 * len(ccs) + 0.6),
                            sharex=True, squeeze=False)
    for ax, cc in zip(axs[:, 0], ccs):
        # the ns-3 model's records (sim/, "source": "sim") bin finer
        dt = first[cc]["series"].get("flow_dt", 0.5)
        for i, f in enumerate(first[cc]["series"]["flows"]):
            t = [f["start"] + dt * (k + 1) for k in range(len(f["mbit"]))]
            ax.plot(t, f["mbit"], lw=1, label="flow %s" % f.get("name", i + 1))
        ax.set_ylabel("%s\nMbit/s" % cc)
        ax.set_ylim(bottom=0)
        if any("name" in f for f in first[cc]["series"]["flows"]):
            ax.legend(fontsize=7, loc="upper right")
    axs[-1, 0].set_xlabel("time, s (%g s intervals)" %
                          first[ccs[0]]["series"].get("flow_dt", 0.5))
    axs[0, 0].set_title("%s: throughput of each flow" % scen)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "%s%s-flows.png" % (prefix, scen)), dpi=80)
    plt.close(fig)


# The evaluation's goals at the dc profile (Documentation/results.rst,
# "Goals"): (what, scenarios, cc, against, key, sense, bound).  A ratio
# of the medians of one run; "<=": cc's median at most bound times the
# other's, ">=": at least.
GOALS = [
    ("hpcc, web-search 60%: <=BDP p99", ["dc-websearch60"], "hpcc", "dctcp",
     "small_p99", "<=", 0.5),
    ("hpcc, web-search 60%: all flows p99", ["dc-websearch60"], "hpcc", "dctcp",
     "slowdown_p99", "<=", 0.7),
    ("hpcc, web-search 60%: queue p99", ["dc-websearch60"], "hpcc", "dctcp",
     "queue_p99_us", "<=", 0.25),
    ("hpcc, long flows: util of paced's", ["dc-dumbbell", "dc-convergence"], "hpcc",
     "paced", "util", ">=", 0.98),
    ("hpcc, long flows: queue p99", ["dc-dumbbell", "dc-convergence"], "hpcc", "dctcp",
     "queue_p99_us", "<=", 0.25),
    ("hpcc, late flow at 80% of its share", ["dc-convergence", "dc-rtt"], "hpcc", "dctcp",
     "conv_s", "<=", 0.2),
    ("hpcc, mixed RTTs: Jain", ["dc-rtt"], "hpcc", None, "jain", ">=", 0.95),
    ("hpcc, mixed RTTs: util of dctcp's", ["dc-rtt"], "hpcc", "dctcp", "util", ">=", 0.9),
    ("ldcp, web-search 60%: <=BDP p99", ["dc-websearch60"], "ldcp", "dctcp",
     "small_p99", "<=", 0.7),
    ("ldcp, incast: queue p99", ["dc-incast"], "ldcp", "dctcp", "queue_p99_us", "<=", 0.5),
]


inf = float("inf")


def side(recs, scen, cc, key):
    """stats() of cc's key in scen; a convergence time that never came
    (None) counts as infinite"""
    rs = [r for r in recs if r["scenario"] == scen and r["cc"] == cc]
    if key == "conv_s":
        rs = [{"metrics": {key: inf if r["metrics"].get(key) is None else r["metrics"][key]}}
              for r in rs]
    return stats(rs, key, 1.0)


# a goal's figures: scale, unit and format of its key (default: by size)
GOAL_UNITS = {"util": (100.0, " %", None), "queue_p99_us": (1.0, " us", None),
              "conv_s": (1.0, " s", None), "jain": (1.0, "", "%.3f"),
              "timeouts": (1.0, "", "%d")}


def fmt_side(st, key):
    scale, unit, fmt = GOAL_UNITS.get(key, (1.0, "", None))

    def f(x):
        if x == inf:
            return "never"
        x *= scale
        if fmt:
            return fmt % x
        return "%.0f" % x if x >= 100 else "%.1f" % x if x >= 10 else "%.2f" % x

    v = f(st[0]) if st[1] == st[2] else "%s (%s-%s)" % (f(st[0]), f(st[1]), f(st[2]))
    return v + ("" if st[0] == inf else unit)


def ratio(a, b):
    if b == inf:
        return 0.0 if a != inf else None
    return a / b if b else None


def lost_flows(recs, scen, cc):
    """cc's flows in scen that did not finish or failed, all rounds"""
    return sum((r["metrics"].get("unfinished") or 0) + (r["metrics"].get("errors") or 0)
               for r in recs if r["scenario"] == scen and r["cc"] == cc)


def goal_row(recs, what, scen, cc, other, key, sense, bound):
    """one goal's row: measured (ratio of the medians, each side's
    median and range) and verdict.  "inside the spread" where the
    verdict turns within the two sides' ranges over the rounds (the
    ratios of one's ends to the other's); "not run" where a side has no
    records of a scenario that ran; never "met" with flows that did not
    finish or failed, which are counted instead"""
    if not any(r["scenario"] == scen for r in recs):
        return None
    name, asked = what + " (" + scen + ")", "%s %g" % (sense, bound)
    a = side(recs, scen, cc, key)
    b = side(recs, scen, other, key) if other else None
    missing = ["no %s %s" % (c, "figure of %s" % key if any(
        r["scenario"] == scen and r["cc"] == c for r in recs) else "records")
        for c, st in ((cc, a), (other, b)) if c and st is None]
    if missing:
        return [name, asked, "-", "not run: " + ", ".join(missing)]
    ok = (lambda x: x <= bound) if sense == "<=" else (lambda x: x >= bound)
    if other is None:
        meas, verdict = fmt_side(a, key), "met" if ok(a[0]) else "missed"
    else:
        r = ratio(a[0], b[0])
        meas = "%s against %s's %s" % (fmt_side(a, key), other, fmt_side(b, key))
        if r is None:
            return [name, asked, meas, "not readable"]
        verdict = "met" if ok(r) else "missed"
        ends = [ratio(a[1], b[2]), ratio(a[2], b[1])]
        if any(x is not None and ok(x) != ok(r) for x in ends):
            verdict += ", inside the spread"
        if b[0] != inf:
            meas = "%.2f: %s" % (r, meas)
    lost = [(c, lost_flows(recs, scen, c)) for c in (cc, other) if c]
    if any(n for _, n in lost):
        count = "%d flows unfinished or failed (%s)" % (
            sum(n for _, n in lost), ", ".join("%s %d" % cn for cn in lost))
        verdict = ("not readable: " + count) if verdict.startswith("met") else \
            verdict + "; " + count
    return [name, asked, meas, verdict]


def goals(recs, rst):
    """the goals read from the dc profile's records; incast at the
    largest fan-in with records, with its RTOs and start skew"""
    scens = {r["scenario"] for r in recs}
    fanins = sorted(int(x[len("dc-incast"):]) for x in scens
                    if x.startswith("dc-incast") and x[len("dc-incast"):].isdigit())
    incast = "dc-incast%d" % fanins[-1] if fanins else None
    rows = []
    for what, ss, cc, other, key, sense, bound in GOALS:
        for scen in ss:
            if scen == "dc-incast":
                scen = incast
            row = scen and goal_row(recs, what, scen, cc, other, key, sense, bound)
            if row:
                rows.append(row)
    if incast:
        scen = incast
        a, b = (side(recs, scen, c, "timeouts") for c in ("ldcp", "dctcp"))
        if a and b:
            sk = side(recs, scen, "ldcp", "start_skew_ms")
            meas = "ldcp %s, dctcp %s a round" % (fmt_side(a, "timeouts"),
                                                    fmt_side(b, "timeouts"))
            if sk:
                meas += "; start skew %s ms" % fmt_side(sk, "")
            # with none of dctcp's to compare with, the goal cannot
            # be read; ldcp's own RTOs there are worse than dctcp
            verdict = ("met" if a[2] == 0 else "missed") if b[2] > 0 else \
                "not readable: neither had any" if a[2] == 0 else \
                "missed: ldcp had some, dctcp none"
            rows.append(["ldcp, incast: no RTO where dctcp has them (%s)" % scen,
                         "none", meas, verdict])
    if not rows:
        return []
    title = "goals"
    out = [title, "-" * len(title)] if rst else ["### %s" % title]
    out += ["", "The goals at the dc profile (Documentation/results.rst), read from "
            "these records: ratios of the medians of the same run, each side's median "
            "and range over the rounds; \"inside the spread\" where the verdict turns "
            "within the two sides' ranges; \"not run\" where a side has no records; "
            "a run with flows unfinished or failed is not read as met.", ""]
    out += (rst_table if rst else md_table)(["goal (scenario)", "asked", "measured",
                                             "verdict"], rows)
    return out + [""]


# The cross-check of the model against the VM (Documentation/results.rst,
# "The VM's profile in the model"): a VM scenario of make bench's dc
# profile and the model's run of it, where records of both are loaded.
CROSS = [("dc-dumbbell", "sim-vmdumbbell"), ("dc-convergence", "sim-vmconvergence")]


def flow_window(r, f, key):
    """the flow's KEY series over the record's measured window: the
    values at the ends of the intervals that end inside it"""
    dt = r["series"].get("flow_dt", 0.5)
    t0, t1 = r["window"]
    v = f.get(key) or []
    return [(f["start"] + dt * (k + 1), x) for k, x in enumerate(v)
            if x is not None and t0 < f["start"] + dt * (k + 1) <= t1 + 1e-9]


def traj(r):
    """a long-flow record's window figures: the flows' median cwnd (KB),
    the round trip it covers at the flow's rate (cwnd / throughput, ms;
    the base RTT plus the queue where the window is what limits the
    flow), the senders' srtt (ms, the VM's), and the late flow's time
    from its start to the end of its first interval with a cwnd at least
    0.8 of the first flow's then (None: never; absent: one start)"""
    fl = r["series"]["flows"]
    if not fl or not any(f.get("cwnd") for f in fl):
        return None
    dt = r["series"].get("flow_dt", 0.5)
    cw, cover, srtt = [], [], []
    for f in fl:
        c = flow_window(r, f, "cwnd")
        if not c:
            continue
        cw.append(median([x for _, x in c]) / 1000.0)
        m = dict(flow_window(r, f, "mbit"))
        cv = [x * 8 / (m[t] * 1e3) for t, x in c if m.get(t)]
        if cv:
            cover.append(median(cv))
        s = [x / 1000.0 for _, x in flow_window(r, f, "rtt_us")]
        if s:
            srtt.append(median(s))
    out = {"cwnd_kb": median(cw) if cw else None,
           "cover_ms": median(cover) if cover else None,
           "srtt_ms": median(srtt) if srtt else None}
    starts = sorted({f.get("planned_start", f["start"]) for f in fl})
    if len(starts) > 1:
        late = max(fl, key=lambda f: f.get("planned_start", f["start"]))
        first = min(fl, key=lambda f: f.get("planned_start", f["start"]))
        fc = {round(t, 2): x for t, x in
              ((first["start"] + dt * (k + 1), x) for k, x in enumerate(first.get("cwnd") or []))
              if x is not None}
        # the first flow alone, past its first second: from 1 s to the
        # late flow's start
        alone = [x for t, x in fc.items() if 1.0 < t <= late["start"] + 1e-9]
        out["alone_kb"] = median(alone) / 1000.0 if alone else None
        out["wconv_s"] = None
        for k, x in enumerate(late.get("cwnd") or []):
            t = round(late["start"] + dt * (k + 1), 2)
            # the first flow's interval that ends nearest t
            near = min(fc, key=lambda u: abs(u - t)) if fc else None
            if x is not None and near is not None and abs(near - t) <= dt / 2 + 1e-9 and \
                    x >= 0.8 * fc[near]:
                out["wconv_s"] = round(dt * (k + 1), 2)
                break
    return out


def crosscheck(recs, rst, pdir, prefix):
    out = []
    for vm, sim in CROSS:
        ccs = [c for c in CC_ORDER
               if any(r["scenario"] == vm and r["cc"] == c for r in recs) and
               any(r["scenario"] == sim and r["cc"] == c for r in recs)]
        if not ccs:
            continue
        rows = []
        conv = vm == "dc-convergence"
        # each record's figures, once
        figs = {(scen, cc): [t for t in (traj(r) for r in recs
                                         if r["scenario"] == scen and r["cc"] == cc) if t]
                for scen in (vm, sim) for cc in ccs}

        def side(scen, cc, key):
            """median, min and max of key over the rounds, or None"""
            v = [t[key] for t in figs[scen, cc]
                 if key in t and (t[key] is not None or key == "wconv_s")]
            if key == "wconv_s":
                # a window that never came: infinite, for the order
                v = [inf if x is None else x for x in v]
            v = sorted(v)
            return (median(v), v[0], v[-1]) if v else None

        def show(s, fmt):
            if not s:
                return "-"
            f = (lambda x: "never" if x == inf else fmt % x)
            return f(s[0]) if s[1] == s[2] else "%s (%s-%s)" % (f(s[0]), f(s[1]), f(s[2]))

        def ratio_of(a, b):
            return "%.2f" % (b[0] / a[0]) if a and b and a[0] else "-"

        def agree(a, b):
            """the model's median inside the VM's range"""
            if not a or not b:
                return "-"
            return "yes" if a[1] <= b[0] <= a[2] else "no"
        for cc in ccs:
            a, b = side(vm, cc, "cwnd_kb"), side(sim, cc, "cwnd_kb")
            row = [cc, "%s / %s" % (show(a, "%.0f"), show(b, "%.0f")), ratio_of(a, b),
                   agree(a, b),
                   "%s / %s" % (show(side(vm, cc, "cover_ms"), "%.1f"),
                                show(side(sim, cc, "cover_ms"), "%.1f")),
                   show(side(vm, cc, "srtt_ms"), "%.1f")]
            if conv:
                a1, a2 = side(vm, cc, "alone_kb"), side(sim, cc, "alone_kb")
                c1, c2 = side(vm, cc, "wconv_s"), side(sim, cc, "wconv_s")
                row[1:1] = ["%s / %s" % (show(a1, "%.0f"), show(a2, "%.0f")),
                            ratio_of(a1, a2)]
                row += ["%s / %s" % (show(c1, "%.1f"), show(c2, "%.1f")), agree(c1, c2)]
            rows.append(row)
        head = ["cc", "cwnd KB: VM / model", "model / VM", "inside the VM's range",
                "cwnd / rate, ms: VM / model", "VM srtt ms"]
        if conv:
            head[1:1] = ["first flow alone: cwnd KB, VM / model", "model / VM"]
            head += ["late cwnd at 0.8 of the first's, s: VM / model", "inside"]
        out += ["", "## Cross-check: %s in the VM and %s in the model" % (vm, sim), "",
                "Each flow's cwnd at the ends of its intervals in the measured window: "
                "medians over the flows, then median (range) over the rounds or seeds; "
                "cwnd / rate is the round trip the window covers at the flow's rate" +
                ("; the first flow alone: its cwnd from 1 s to the late flow's start."
                 if conv else "."), ""]
        out += (rst_table if rst else md_table)(head, rows)
        if pdir:
            os.makedirs(pdir, exist_ok=True)
            cross_plot(recs, vm, sim, ccs, pdir, prefix)
    return out


def cross_plot(recs, vm, sim, ccs, outdir, prefix):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axs = plt.subplots(len(ccs), 1, figsize=(8, 1.8 * len(ccs) + 0.6),
                            sharex=True, squeeze=False)
    for ax, cc in zip(axs[:, 0], ccs):
        for scen, ls, who in ((vm, "-", "VM"), (sim, "--", "model")):
            r = min((r for r in recs if r["scenario"] == scen and r["cc"] == cc),
                    key=lambda r: r["round"])
            dt = r["series"].get("flow_dt", 0.5)
            for i, f in enumerate(r["series"]["flows"]):
                v = f.get("cwnd") or []
                t = [f["start"] + dt * (k + 1) for k, x in enumerate(v) if x is not None]
                ax.plot(t, [x / 1000.0 for x in v if x is not None], ls, lw=1,
                        label="%s flow %d" % (who, i + 1))
        ax.set_ylabel("%s\ncwnd KB" % cc)
        ax.set_yscale("log")
        ax.legend(fontsize=6, loc="upper right", ncol=2)
    axs[-1, 0].set_xlabel("time, s (0.5 s intervals; the first round and seed)")
    axs[0, 0].set_title("each flow's cwnd: %s in the VM (solid), the model (dashed)" % vm)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "%s%s-cwnd.png" % (prefix, vm)), dpi=80)
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
    out = goals(recs, rst)
    for scen in sorted({r["scenario"] for r in recs}):
        rs = [r for r in recs if r["scenario"] == scen]
        out += table(scen, rs, rst, img if img is None else img + prefix)
        if pdir:
            os.makedirs(pdir, exist_ok=True)
            plots(scen, rs, pdir, prefix)
    out += crosscheck(recs, rst, pdir, prefix)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
