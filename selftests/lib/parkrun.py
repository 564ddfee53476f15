#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One run of the parking lot (selftests/bench/parking.sh) as a JSON record.

    parkrun.py OUT.json key=value...

key=value pairs:

    scenario, cc, round, kernel, rate_mbit, delay, secs: the run
    t0, t1            the measured window, s from the flows' start
    stamp0, stamp1    "bytes1 bytes2 ns": both bottlenecks' htb byte
                      counters and the time, at t0 and t1
    q1a, q1b, q2a, q2b  csigctl --json show of bottleneck 1's and 2's
                      ports at t0 and t1
    ping              ping RTTs over both links, ms, one per line
    drops, marks      both leaves' counters; timeouts: the senders' RTOs
    a, b, c           iperf3 -J -i 0.5 reports of flows A (both links),
                      B (link 1) and C (link 2)

The record holds each flow's mean rate over the window and the lowest
of them over max-min fairness's share (half a link), the Jain index of
the three rates, both links' utilisation and the p50/p99/max of both
port models' queues, RTT p50/p99, and the flows' series for the plot.
Prints a one-line summary.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from longrun import jain, pct, qstats  # noqa: E402


def main():
    out = sys.argv[1]
    kv = dict(a.split("=", 1) for a in sys.argv[2:])
    rate = float(kv["rate_mbit"])
    t0, t1 = float(kv["t0"]), float(kv["t1"])
    b10, b20, n0 = (float(x) for x in kv["stamp0"].split())
    b11, b21, n1 = (float(x) for x in kv["stamp1"].split())
    dt = (n1 - n0) / 1e9
    flows, rates, retx, errors = [], {}, 0, []
    for name in ("a", "b", "c"):
        with open(kv[name]) as f:
            rep = json.load(f)
        mbit = [iv["sum"]["bits_per_second"] / 1e6 for iv in rep.get("intervals", [])]
        k0, k1 = int(round(t0 / 0.5)), int(round(t1 / 0.5))
        win = mbit[k0:k1]
        rates[name] = sum(win) / len(win) if win else 0.0
        retx += rep.get("end", {}).get("sum_sent", {}).get("retransmits", 0)
        if rep.get("error"):
            errors.append(rep["error"])
        flows.append({"start": 0.0, "planned_start": 0.0, "mbit": mbit, "name": name})
    n1q, (q150, q199, q1max) = qstats(kv["q1a"], kv["q1b"])
    n2q, (q250, q299, q2max) = qstats(kv["q2a"], kv["q2b"])
    with open(kv["ping"]) as f:
        rtt = [float(x) for x in f if x.strip()]
    share = rate / 2
    m = {
        "util1": (b11 - b10) * 8 / dt / (rate * 1e6) if dt > 0 else None,
        "util2": (b21 - b20) * 8 / dt / (rate * 1e6) if dt > 0 else None,
        "mbit_a": rates["a"], "mbit_b": rates["b"], "mbit_c": rates["c"],
        "min_share": min(rates.values()) / share,
        "jain": jain(list(rates.values())),
        "queue1_p50_us": q150, "queue1_p99_us": q199, "queue1_max_us": q1max,
        "queue2_p50_us": q250, "queue2_p99_us": q299, "queue2_max_us": q2max,
        "queue_p99_us": max(q199, q299), "queue_packets": n1q + n2q,
        "rtt_p50_ms": pct(rtt, 50), "rtt_p99_ms": pct(rtt, 99),
        "drops": int(kv.get("drops") or 0), "marks": int(kv.get("marks") or 0),
        "timeouts": int(kv.get("timeouts") or 0), "retransmits": retx,
        "errors": errors,
    }
    rec = {"scenario": kv["scenario"], "kind": "parking", "cc": kv["cc"],
           "round": int(kv["round"]), "kernel": kv.get("kernel"), "rate_mbit": rate,
           "delay": kv.get("delay"), "secs": float(kv["secs"]), "window": [t0, t1],
           "nflows": 3, "metrics": m,
           "series": {"flows": flows, "backlog": [], "backlog_dt": 0.1, "backlog_t0": t0}}
    with open(out, "w") as f:
        json.dump(rec, f)

    def fmt(v, f):
        return f % v if v is not None else "-"
    print("%-11s r%d %-6s A %5.1f B %5.1f C %5.1f Mbit/s (min %.2f of a share, jain %s)  "
          "util %s/%s%%  queue p99 %s/%s us  rtt p99 %s ms  drops %d marks %d" %
          (rec["scenario"], rec["round"], rec["cc"], rates["a"], rates["b"], rates["c"],
           m["min_share"], fmt(m["jain"], "%.3f"), fmt(m["util1"] and 100 * m["util1"], "%.0f"),
           fmt(m["util2"] and 100 * m["util2"], "%.0f"), fmt(q199, "%.0f"), fmt(q299, "%.0f"),
           fmt(m["rtt_p99_ms"], "%.2f"), m["drops"], m["marks"]))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
