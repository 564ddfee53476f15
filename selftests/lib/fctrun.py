#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One run of a flow-completion scenario as a JSON record
(selftests/bench/websearch.sh, incast.sh).

    fctrun.py OUT.json key=value... -- FLOWGEN.json...

key=value pairs give the run's description and the raw readings:

    scenario, cc, round, kernel, rate_mbit, delay, secs, kind: the run
                      (kind poisson or incast, as flowgen.py's mode)
    load_pct, seeds   poisson: the offered load, the senders' seeds,
    size_scale        the factor of the flow sizes
    mix               poisson: the size distribution (websearch, hadoop)
    rtt0_ms           the path's round trip before the load (ping min)
    util              utilisation of the bottleneck from the first
                      arrival to the end of the last flow (the record
                      adds "offered", the load of the flows' bytes over
                      the SECS in which they arrive)
    qh0, qh1          csigctl --json show of the port before and after
    ping              ping RTTs under the load, ms, one per line
    backlog           the queue sampled every `backlog_dt` s (bytes)
    drops, marks      the bottleneck qdisc's counters for the run
    timeouts          retransmission timeouts of the senders (nstat)
    bdp               the path's BDP in bytes, the first size bin's
                      bound (20000, the small profile's, by default);
                      the bins are decades from it

FLOWGEN.json are the senders' flowgen.py outputs.  A flow's slowdown is
its completion time over the ideal one, that of the flow alone on the
empty path: rtt0 plus its bytes at the bottleneck's rate for payload
(rate_mbit * PAYLOAD_SHARE: 1444 bytes of payload per 1510 on the wire
at an MTU of 1496).  The record holds its percentiles (50, 95, 99) over
all flows and per size bin, the queue's from the port model's
histogram, the RTT's; for incast also each query's completion time
(its slowest flow) over the ideal time of all its flows' bytes; the
flows that retransmitted (retx_flows) and the p99 of the flows up to a
BDP that did not (small_p99_noretx: what loss adds to the tail); and the
flows ([size, fct_us, slowdown, retransmitted segments]) for the plots.
Prints a one-line summary.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from longrun import pct, qstats  # noqa: E402

PAYLOAD_SHARE = 1444.0 / 1510.0


def size(b):
    """bytes as the bins' labels give them: 20KB, 1.28MB"""
    for unit, div in (("MB", 1e6), ("KB", 1e3)):
        if b >= div:
            return ("%.3g" % (b / div)) + unit
    return "%dB" % b


def bins(bdp):
    """(upper bound in bytes, label): decades from one BDP, "<=20KB",
    "20-200KB", "200KB-2MB", ">2MB" at the small profile's 20 KB"""
    e = [bdp, 10 * bdp, 100 * bdp]
    lab = ["<=" + size(e[0])]
    for lo, hi in zip(e, e[1:]):
        a, b = size(lo), size(hi)
        if a[-2:] == b[-2:]:
            a = a[:-2]
        lab.append(a + "-" + b)
    lab.append(">" + size(e[2]))
    return list(zip(e + [float("inf")], lab))


def slowdowns(v):
    return {"n": len(v), "p50": pct(v, 50), "p95": pct(v, 95), "p99": pct(v, 99)}


def main():
    out = sys.argv[1]
    i = sys.argv.index("--")
    kv = dict(a.split("=", 1) for a in sys.argv[2:i])
    rate = float(kv["rate_mbit"])
    bns = bins(float(kv.get("bdp", 20e3)))
    rtt0_us = float(kv["rtt0_ms"]) * 1000.0
    bps = rate * 1e6 * PAYLOAD_SHARE

    def ideal_us(size):
        return rtt0_us + size * 8 / bps * 1e6

    flows, unfinished, errors, queries, skew = [], 0, 0, {}, 0.0
    offered = []
    for path in sys.argv[i + 1:]:
        with open(path) as f:
            g = json.load(f)
        unfinished += g["unfinished"]
        errors += g["errors"]
        for fl in g["flows"]:
            tag, size, fct = fl[:3]
            offered.append((tag, size))
            if len(fl) > 3:
                skew = max(skew, fl[3])
            if fct < 0:
                continue
            flows.append([size, fct, fct / ideal_us(size), fl[4] if len(fl) > 4 else 0])
            if kv["kind"] == "incast":
                queries.setdefault(tag, []).append((size, fct))
    sd = [f[2] for f in flows]
    m = {
        "util": float(kv["util"]),
        # the load the flows' sizes make over the arrivals' time: with
        # sizes this heavy-tailed, a run's own differs from the mean's
        "offered": sum(g[1] for g in offered) * 8 / (float(kv["secs"]) * rate * 1e6),
        "flows": len(flows), "unfinished": unfinished, "errors": errors,
        "slowdown_p50": pct(sd, 50), "slowdown_p95": pct(sd, 95),
        "slowdown_p99": pct(sd, 99),
        "bins": {lab: slowdowns([f[2] for f in flows
                                 if lo < f[0] <= hi])
                 for (lo, _), (hi, lab) in zip([(0, "")] + bns, bns)},
        "drops": int(kv.get("drops") or 0), "marks": int(kv.get("marks") or 0),
        "timeouts": int(kv.get("timeouts") or 0),
    }
    small = [f[2] for f in flows if f[0] <= bns[0][0]]
    m["small_p99"] = pct(small, 99)
    # the flows that retransmitted, and the tail of those that did not:
    # what loss (a fast start's dropped packets, say) adds to the tail
    m["retx_flows"] = sum(1 for f in flows if f[3] > 0)
    m["small_p99_noretx"] = pct([f[2] for f in flows if f[0] <= bns[0][0] and not f[3]], 99)
    if kv["kind"] == "incast":
        nsend = len(sys.argv) - i - 1
        # a query counts when all its flows finished
        qs = [max(x[1] for x in v) / (rtt0_us + sum(x[0] for x in v) * 8 / bps * 1e6)
              for v in queries.values() if len(v) == nsend]
        m["qct_p50"], m["qct_p99"], m["queries"] = pct(qs, 50), pct(qs, 99), len(qs)
        m["start_skew_ms"] = skew
    with open(kv["ping"]) as f:
        rtt = [float(x) for x in f if x.strip()]
    with open(kv["backlog"]) as f:
        backlog = [int(float(x)) for x in f if x.strip()]
    npk, (q50, q99, qmax) = qstats(kv["qh0"], kv["qh1"])
    m.update({"queue_p50_us": q50, "queue_p99_us": q99, "queue_max_us": qmax,
              "queue_packets": npk,
              "backlog_p99_kb": pct(backlog, 99) / 1000.0 if backlog else None,
              "rtt_p50_ms": pct(rtt, 50), "rtt_p99_ms": pct(rtt, 99)})
    rec = {
        "scenario": kv["scenario"], "kind": kv["kind"], "cc": kv["cc"],
        "round": int(kv["round"]), "kernel": kv.get("kernel"),
        "rate_mbit": rate, "delay": kv.get("delay"), "secs": float(kv["secs"]),
        "load_pct": float(kv["load_pct"]) if "load_pct" in kv else None,
        "seeds": kv.get("seeds"), "rtt0_ms": float(kv["rtt0_ms"]),
        "size_scale": float(kv.get("size_scale", 1)),
        "mix": kv.get("mix", "websearch"),
        "bdp": bns[0][0],
        "nsenders": len(sys.argv) - i - 1, "window": [0.0, float(kv["secs"])],
        "nflows": len(flows) + unfinished + errors,
        "metrics": m,
        "series": {"fct": flows, "backlog_dt": float(kv.get("backlog_dt", 0.1)),
                   "backlog_t0": 0.0, "backlog": backlog, "flows": []},
    }
    with open(out, "w") as f:
        json.dump(rec, f)

    def fmt(v, f):
        return f % v if v is not None else "-"
    extra = ("  qct p50 %s p99 %s (skew %.0f ms)" %
             (fmt(m["qct_p50"], "%.1f"), fmt(m["qct_p99"], "%.1f"), skew)
             if kv["kind"] == "incast" else "")
    print("%-11s r%d %-6s util %5.1f%%  queue p99 %s us  flows %d (unfinished %d, "
          "failed %d)  slowdown p50 %s p99 %s, %s p99 %s%s  timeouts %d drops %d marks %d" %
          (rec["scenario"], rec["round"], rec["cc"], 100 * m["util"], fmt(q99, "%.0f"),
           len(flows), unfinished, errors, fmt(m["slowdown_p50"], "%.1f"),
           fmt(m["slowdown_p99"], "%.1f"), bns[0][1], fmt(m["small_p99"], "%.1f"), extra,
           m["timeouts"], m["drops"], m["marks"]))


if __name__ == "__main__":
    main()
