#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The native benchmark's arithmetic (selftests/bench/native.sh).

    nativerun.py q QH0 QH1      p50 and p99 of the port model's queue (us)
                                between two csigctl --json show snapshots
    nativerun.py report TSV     the table: medians and ranges per
                                algorithm, and the ratios the goals name

Each TSV line is one run: cc, round, Mbit/s (iperf3, the two flows),
utilisation (the bottleneck's bytes over the measured window, a fraction
of its rate), queue p50 and p99 (us), BPF ns per ACK, BPF calls per ACK
("-" where the algorithm is no BPF program), the senders' ACKs.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from longrun import qstats  # noqa: E402

COLS = ("mbit", "util", "q50", "q99", "ns_ack", "calls_ack")


def load(path):
    runs = {}
    order = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 9:
                continue
            cc = w[0]
            if cc not in runs:
                runs[cc] = {c: [] for c in COLS}
                order.append(cc)
            for c, v in zip(COLS, w[2:8]):
                if v not in ("-", "nan"):
                    runs[cc][c].append(float(v))
    return order, runs


def med(v):
    return statistics.median(v) if v else None


def cell(v, fmt):
    if not v:
        return "n/a"
    m = statistics.median(v)
    if len(v) == 1:
        return fmt % m
    return (fmt + " (" + fmt + "-" + fmt + ")") % (m, min(v), max(v))


def ratio(name, a, b, goal, ok):
    if a is None or not b:
        print("%-44s n/a" % name)
        return
    r = a / b
    print("%-44s %.3f  (goal %s: %s)" % (name, r, goal, "met" if ok(r) else "MISSED"))


def per_round(cc, runs):
    """The ratio of each round's ns per ACK, the algorithms of a round
    having run side by side."""
    a = runs.get(cc, {}).get("ns_ack", [])
    b = runs.get("bpf_dctcp", {}).get("ns_ack", [])
    r = [x / y for x, y in zip(a, b) if y]
    if len(r) > 1:
        print("%-44s %.3f-%.3f over %d rounds" % ("... per round", min(r), max(r), len(r)))


def report(path):
    order, runs = load(path)
    hdr = ("algorithm", "Mbit/s", "utilisation", "queue p50 us", "queue p99 us",
           "BPF ns/ACK", "BPF calls/ACK")
    rows = []
    for cc in order:
        r = runs[cc]
        rows.append((cc, cell(r["mbit"], "%.0f"), cell(r["util"], "%.3f"),
                     cell(r["q50"], "%.0f"), cell(r["q99"], "%.0f"),
                     cell(r["ns_ack"], "%.0f"), cell(r["calls_ack"], "%.2f")))
    wd = [max(len(x[i]) for x in rows + [hdr]) for i in range(len(hdr))]
    for x in [hdr] + rows:
        print("  ".join(s.ljust(w) for s, w in zip(x, wd)).rstrip())
    print("(medians, ranges in brackets, over %d rounds)" %
          max(len(runs[c]["mbit"]) for c in order))
    print()

    def m(cc, c):
        return med(runs.get(cc, {}).get(c, []))

    ratio("hpcc_bpf p99 queue / bpf_dctcp's", m("hpcc_bpf", "q99"),
          m("bpf_dctcp", "q99"), "<= 0.25", lambda r: r <= 0.25)
    ratio("hpcc_bpf utilisation / bpf_dctcp's", m("hpcc_bpf", "util"),
          m("bpf_dctcp", "util"), ">= 0.95", lambda r: r >= 0.95)
    # the senders' calls only, on both sides of the ratio: the receivers
    # of bpf_dctcp and ldcp_bpf run bpf_dctcp_rx (native.sh)
    for cc in ("hpcc_bpf", "ldcp_bpf"):
        ratio("%s ns per ACK / bpf_dctcp's, senders'" % cc, m(cc, "ns_ack"),
              m("bpf_dctcp", "ns_ack"), "<= 1.25", lambda r: r <= 1.25)
        per_round(cc, runs)
    ratio("CSIG host path: cubic Mbit/s with / without", m("cubic+csig", "mbit"),
          m("cubic", "mbit"), ">= 0.95", lambda r: r >= 0.95)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "q":
        n, (q50, q99, _) = qstats(sys.argv[2], sys.argv[3])
        print("%.1f %.1f %d" % (q50, q99, n))
    elif len(sys.argv) == 3 and sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
