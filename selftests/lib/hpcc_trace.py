#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hpcc_trace.py TRACE [ETA]: one line from tcp_hpcc's hpcc_update events
(the text of /sys/kernel/tracing/trace) of the flows of one run, for the
hpcc benchmark's TRACE=1 (selftests/bench/hpcc.sh).  Where the trace has
the markers hpcc_trace_begin and hpcc_trace_end (written to trace_marker),
only the events between them count.

Per flow with at least 100 events (the flows of the run; a connection
that only opened and closed has fewer): U averaged over time (each
event's U held until the flow's next event) and over events, the 10th,
50th and 90th percentile of U at the commits, the share of the commits
with U at or above ETA (default 0.95), commits per second, and the
pacing rate averaged over time.  Printed, for all flows together: the
means of the flows' U averages, the pooled commit percentiles, the
commits per second and flow, and the sum of the pacing rates (Mbit/s).
Exits 1 when no flow has 100 events."""
import re
import sys

EV = re.compile(r'\s(\d+\.\d+): hpcc_update: lport=(\d+) rport=(\d+) U=(\d+) '
                r'W=(\d+) Wc=(\d+) stage=(\d+) rate=(\d+) committed=(\d)')
FRAC = float(1 << 20)   # U in 2^-20 (include/hpcc.h, HPCC_FRAC_SHIFT)


def pct(v, p):
    """The p-th percentile of sorted v, nearest rank."""
    return v[min(len(v) - 1, int(p / 100.0 * len(v)))]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    eta = float(sys.argv[2]) if len(sys.argv) == 3 else 0.95
    flows = {}
    with open(sys.argv[1]) as f:
        lines = f.readlines()
    mark = 'tracing_mark_write: hpcc_trace_'
    begin = [i for i, ln in enumerate(lines) if mark + 'begin' in ln]
    if begin:
        end = [i for i, ln in enumerate(lines)
               if i > begin[0] and mark + 'end' in ln]
        lines = lines[begin[0] + 1:end[0] if end else len(lines)]
    for line in lines:
        m = EV.search(line)
        if m:
            flows.setdefault((m.group(2), m.group(3)), []).append(
                (float(m.group(1)), int(m.group(4)) / FRAC,
                 int(m.group(8)), m.group(9) == '1'))
    u_time, u_ev, rate, per_s, com = [], [], 0.0, [], []
    for ev in flows.values():
        if len(ev) < 100 or ev[-1][0] <= ev[0][0]:
            continue
        span = ev[-1][0] - ev[0][0]
        su = sr = 0.0
        for a, b in zip(ev, ev[1:]):
            su += a[1] * (b[0] - a[0])
            sr += a[2] * (b[0] - a[0])
        u_time.append(su / span)
        u_ev.append(sum(e[1] for e in ev) / len(ev))
        rate += sr / span
        c = [e[1] for e in ev if e[3]]
        per_s.append(len(c) / span)
        com += c
    if not u_time or not com:
        print("no flow with 100 events and a commit")
        return 1
    com.sort()
    n = len(u_time)
    print("U over time %.3f, per event %.3f; at the commits p10/p50/p90 "
          "%.2f/%.2f/%.2f, %.0f%% at or above %.2f; %.0f commits/s per flow; "
          "pacing rates sum %.1f Mbit/s (%d flows)" %
          (sum(u_time) / n, sum(u_ev) / n, pct(com, 10), pct(com, 50),
           pct(com, 90), 100.0 * sum(1 for u in com if u >= eta) / len(com),
           eta, sum(per_s) / n, rate * 8 / 1e6, n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
