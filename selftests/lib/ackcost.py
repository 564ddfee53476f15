#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cost per ACK of a congestion control, from an ftrace
function_graph trace (selftests/bench/ackcost.sh).

    ackcost.py OUT.json TRACE key=value...

TRACE is the tracer's `trace` file, with set_ftrace_filter limited to
the congestion control's tcp_congestion_ops functions and tcp_csig_opt's
netfilter hooks: the traced calls are leaves, "DURATION us | name();",
or, when a traced function calls another, an opening "name() {" and a
closing "DURATION us | }" at depth 0 (only depth 0 is counted, so
nothing is counted twice).  key=value pairs:

    scenario, cc, round, kernel: the run
    rx_cc         the receiver's congestion control (not traced)
    acks          segments the sender received while tracing (TcpInSegs)
    opt           the option hooks' names, comma separated (counted
                  apart from the congestion control's)
    mbit          the flow's throughput (iperf3), for the record

The record: per function its calls and total ns; the congestion
control's ns and calls per ACK, the option hooks' ns per ACK.  Prints a
one-line summary.
"""
import json
import re
import sys

LINE = re.compile(r"^\s*\d+\)\s+(?:[+!#*@$]\s*)?(?:([\d.]+) us\s+)?\|  (\S.*?)\s*$")


def parse(path):
    funcs, open_name, lost = {}, None, 0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            if "LOST" in line and "EVENTS" in line:
                lost += 1
                continue
            m = LINE.match(line)
            if not m:
                continue
            dur, what = m.groups()
            if what.endswith("{"):
                open_name = what.split("(")[0].split()[0]
                continue
            if what == "}":
                name, open_name = open_name, None
            elif what.endswith("();"):
                name = what.split("(")[0].split()[0]
            else:
                continue
            if name is None or dur is None:
                continue
            c = funcs.setdefault(name, [0, 0.0])
            c[0] += 1
            c[1] += float(dur) * 1000.0
    return funcs, lost


def main():
    out, trace = sys.argv[1], sys.argv[2]
    kv = dict(a.split("=", 1) for a in sys.argv[3:])
    funcs, lost = parse(trace)
    opt = set(filter(None, kv.get("opt", "").split(",")))
    acks = int(kv["acks"])
    cc_ns = sum(v[1] for k, v in funcs.items() if k not in opt)
    cc_calls = sum(v[0] for k, v in funcs.items() if k not in opt)
    opt_ns = sum(v[1] for k, v in funcs.items() if k in opt)
    m = {
        "acks": acks, "mbit": float(kv.get("mbit") or 0),
        "cc_ns_per_ack": cc_ns / acks if acks else None,
        "cc_calls_per_ack": cc_calls / acks if acks else None,
        "opt_ns_per_ack": opt_ns / acks if acks else None,
        "lost_events": lost,
    }
    rec = {"scenario": kv["scenario"], "kind": "ackcost", "cc": kv["cc"],
           "round": int(kv["round"]), "kernel": kv.get("kernel"),
           "rx_cc": kv.get("rx_cc"), "metrics": m,
           "funcs": {k: {"calls": v[0], "ns": round(v[1])} for k, v in funcs.items()}}
    with open(out, "w") as f:
        json.dump(rec, f)

    def fmt(v, f):
        return f % v if v is not None else "-"
    print("%-11s r%d %-6s %6d ACKs  cc %s ns/ACK (%s calls/ACK)  option hooks %s ns/ACK  "
          "%.0f Mbit/s%s" %
          (rec["scenario"], rec["round"], rec["cc"], acks, fmt(m["cc_ns_per_ack"], "%.0f"),
           fmt(m["cc_calls_per_ack"], "%.2f"), fmt(m["opt_ns_per_ack"], "%.0f"), m["mbit"],
           "  LOST EVENTS" if lost else ""))
    return 1 if lost or not acks or not cc_calls else 0


if __name__ == "__main__":
    sys.exit(main())
