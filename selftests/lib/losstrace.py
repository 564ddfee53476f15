#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""losstrace.py TRACE EVENT RPORT: one flow's loss episodes in a trace of
tcp_hpcc's hpcc_update or tcp_ldcp's ldcp_update events, as JSON.

The flow is the connection to RPORT with the most events.  Its loss
records (hpcc: source=loss, ldcp: event=loss) are the episodes; the
others are the per-ACK records.  Prints

  {"records": N, "losses": [{"t": T, "before": {...}, "after": {...},
                             "next": {...}}],
   "gap": {"s": S, "before": {...}, "next": {...}},
   "w_median_late": W}

"before", "after" and "next" of a loss: the last per-ACK record before
it, the loss record itself and the first per-ACK record after it; "gap": the longest silence between two per-ACK
records (a path that dropped everything), the records on either side;
If the trace holds the markers "losstrace: on" and "losstrace: off"
(written to trace_marker when the test starts and ends a blackout),
"gap" is the longest silence that ends after the first and begins
before the second: a stall of the emulated host elsewhere in the flow
can be longer than the blackout.
"w_median_late": the median W (hpcc) or cw (ldcp, 2^-16 packets) of the
per-ACK records in the second half of the flow's time.  A record's
fields are the event's key=value pairs (numbers as numbers; ldcp's
cw=A->B as cw_old and cw), with its time as "t".
"""
import json
import re
import sys

LINE = re.compile(r'\s(\d+\.\d+): (\w+): (.*)$')


def fields(text):
    rec = {}
    for kv in text.split():
        if '=' not in kv:
            continue
        k, v = kv.split('=', 1)
        if k == 'cw' and '->' in v:
            a, b = v.split('->')
            rec['cw_old'], rec['cw'] = int(a), int(b)
            continue
        try:
            rec[k] = int(v)
        except ValueError:
            rec[k] = v
    return rec


def main():
    path, event, rport = sys.argv[1], sys.argv[2], int(sys.argv[3])
    flows = {}
    mark = {}
    with open(path) as f:
        for ln in f:
            m = LINE.search(ln)
            if m and m.group(2) == 'tracing_mark_write':
                w = m.group(3).split()
                if w[:1] == ['losstrace:'] and len(w) == 2:
                    mark.setdefault(w[1], float(m.group(1)))
                continue
            if not m or m.group(2) != event:
                continue
            rec = fields(m.group(3))
            if rec.get('rport') != rport:
                continue
            rec['t'] = float(m.group(1))
            flows.setdefault(rec.get('lport'), []).append(rec)
    recs = max(flows.values(), key=len) if flows else []
    is_loss = lambda r: r.get('source') == 'loss' or r.get('event') == 'loss'
    out = {"records": len(recs), "losses": [], "gap": None, "w_median_late": None}
    prev = None
    for r in recs:
        if is_loss(r):
            out["losses"].append({"t": r['t'], "before": prev, "after": r, "next": None})
        else:
            prev = r
            for lo in out["losses"]:
                if lo["next"] is None:
                    lo["next"] = r
    acks = [r for r in recs if not is_loss(r)]
    on, off = mark.get('on', float('-inf')), mark.get('off', float('inf'))
    for a, b in zip(acks, acks[1:]):
        if b['t'] <= on or a['t'] >= off:
            continue
        if out["gap"] is None or b['t'] - a['t'] > out["gap"]["s"]:
            out["gap"] = {"s": b['t'] - a['t'], "before": a, "next": b}
    if acks:
        mid = (acks[0]['t'] + acks[-1]['t']) / 2
        late = sorted(r.get('W', r.get('cw', 0)) for r in acks if r['t'] >= mid)
        out["w_median_late"] = late[len(late) // 2] if late else None
    print(json.dumps(out))


if __name__ == "__main__":
    main()
