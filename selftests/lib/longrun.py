#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One run of a long-flow scenario as a JSON record (selftests/bench/).

    longrun.py OUT.json key=value... -- IPERF.json@START[@END] ...

key=value pairs give the run's description and the raw readings:

    scenario, cc, round, kernel, rate_mbit, delay, secs: the run
    delays            each flow's base delay (netem on its ACK path)
    t0, t1            the measured window, s from the first flow's start
    util              utilisation of the bottleneck over it (0..1)
    qh0, qh1          csigctl --json show of the port before and after
    ping              ping RTTs over the window, ms, one per line
    backlog           the queue sampled every `backlog_dt` s (bytes)
    drops, marks      the bottleneck qdisc's counters for the run
    syn_retrans       SYNs the senders retransmitted
    cpu, hz           the guest's CPU ticks at the window's ends, "BUSY0
                      TOTAL0 BUSY1 TOTAL1" (all vCPUs), and ticks per s:
                      cpu_busy (0..1) and the goodput per busy CPU
                      second, mbit_per_cpu_s
    bpf_counters, bpf_ok, bpf_check
                      for the BPF flavour's CCs (selftests/lib/cc.sh):
                      its dccbpf counters over the run, "NAME=N ...",
                      and whether it ran as meant (1 or 0) with the
                      verdict, e.g. "on U": the record's "bpf"

Each IPERF.json is an iperf3 -J -i 0.5 report of one flow that was
started START s after the first; with END, a file holding the time
iperf3 ended, and tb=, the time the first was started, the flow's series
is placed where it ran (a flow whose SYN was lost ran seconds later).  The record holds the metrics (queue p50/p99/max
from the port model's histogram, RTT p50/p99, the lowest and the mean
Jain index over 1 s windows of the measured window and the index of
the flows' mean rates over all of it, the last flow's
convergence time: from its start to the end of its first 0.5 s interval
at 80% of its fair share of the window's utilisation, retransmits; and, as a cross-check of the
model, the p50 and p99 of the qdisc's sampled backlog) and the time series the plots use
(per-flow Mbit/s per 0.5 s, and the sender's cwnd in bytes and srtt in us
at each interval's end; the queue).  Prints a one-line summary.
"""
import json
import sys


def pct(vals, p):
    if not vals:
        return None
    v = sorted(vals)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def qhist(path):
    with open(path) as f:
        d = json.load(f)
    return {b[0]: b[2] for b in d[0].get("qhist", [])}


def qstats(a_path, b_path):
    """p50, p99, max of the model's queue (us) between two snapshots"""
    a, b = qhist(a_path), qhist(b_path)
    d = sorted((k, b[k] - a.get(k, 0)) for k in b if b[k] > a.get(k, 0))
    n = sum(c for _, c in d)
    out = []
    for p in (50.0, 99.0):
        want, acc, v = n * p / 100.0, 0, 0
        for k, c in d:
            acc += c
            v = k
            if acc >= want:
                break
        out.append(v / 1000.0)
    out.append(d[-1][0] / 1000.0 if d else 0.0)
    return n, out


def late_starts(flows):
    """flows that started 0.8 s or more after the first of those started
    with them (or after their planned start, when alone): a lost SYN
    costs at least 1 s, and starting 8 iperf3 clients under TCG up to
    0.4 s"""
    n = 0
    for f in flows:
        same = [g["start"] for g in flows if g["planned_start"] == f["planned_start"]]
        base = min(same) if len(same) > 1 else f["planned_start"]
        n += f["start"] - base >= 0.8
    return n


def jain(x):
    s, q = sum(x), sum(v * v for v in x)
    return s * s / (len(x) * q) if q else None


def main():
    out = sys.argv[1]
    i = sys.argv.index("--")
    kv = dict(a.split("=", 1) for a in sys.argv[2:i])
    flows = []
    tb = float(kv.get("tb", 0))
    for a in sys.argv[i + 1:]:
        path, start, endf = (a.split("@") + [None])[:3]
        with open(path) as f:
            rep = json.load(f)
        planned = float(start)
        actual = planned
        if endf and tb:
            # iperf3 ended at that time, its test having lasted
            # end.sum_sent.seconds (the exchange of results after it,
            # a few ms, puts the estimate that much late)
            with open(endf) as f:
                actual = max(planned, float(f.read()) - tb -
                             rep["end"]["sum_sent"]["seconds"])
        flows.append({
            "start": round(actual, 2), "planned_start": planned,
            "mbit": [iv["sum"]["bits_per_second"] / 1e6 for iv in rep["intervals"]],
            # the sender's tcpi_snd_cwnd (bytes) and srtt (us) at each
            # interval's end
            "cwnd": [(iv.get("streams") or [{}])[0].get("snd_cwnd")
                     for iv in rep["intervals"]],
            "rtt_us": [(iv.get("streams") or [{}])[0].get("rtt") for iv in rep["intervals"]],
            "retransmits": rep["end"]["sum_sent"].get("retransmits", 0),
            "sent_mbit": rep["end"]["sum_sent"]["bits_per_second"] / 1e6,
            "received_mbit": rep["end"]["sum_received"]["bits_per_second"] / 1e6,
            "error": rep.get("error"),
        })
    t0, t1 = float(kv["t0"]), float(kv["t1"])
    rate = float(kv["rate_mbit"])

    def at(f, t):
        """the flow's Mbit/s in the 0.5 s interval starting at t (absolute)"""
        k = int(round((t - f["start"]) / 0.5))
        return f["mbit"][k] if 0 <= k < len(f["mbit"]) else 0.0

    jw = []
    t = t0
    while t + 1.0 <= t1 + 1e-9:
        jw.append(jain([(at(f, t) + at(f, t + 0.5)) / 2 for f in flows]))
        t += 1.0
    jw = [j for j in jw if j is not None]
    # over the whole window: each flow's mean rate in it
    nb = int(round((t1 - t0) / 0.5))
    jwin = jain([sum(at(f, t0 + 0.5 * k) for k in range(nb)) / nb for f in flows]) if nb else None
    last = max(flows, key=lambda f: f["start"])
    # the fair share of what the flows carried in the window: under TCG
    # the emulated hosts' CPU, not the link, may set the total
    share = float(kv["util"]) * rate / len(flows)
    conv = None
    # only for a flow that joins others
    for k, v in enumerate(last["mbit"] if len({f["planned_start"] for f in flows}) > 1 else []):
        if v >= 0.8 * share:
            conv = (k + 1) * 0.5
            break
    with open(kv["ping"]) as f:
        rtt = [float(x) for x in f if x.strip()]
    with open(kv["backlog"]) as f:
        backlog = [int(float(x)) for x in f if x.strip()]
    npk, (q50, q99, qmax) = qstats(kv["qh0"], kv["qh1"])
    cpu_busy = mbit_cpu = None
    if kv.get("cpu"):
        b0, n0, b1, n1 = (float(x) for x in kv["cpu"].split())
        busy_s = (b1 - b0) / float(kv.get("hz") or 100)
        if n1 > n0:
            cpu_busy = (b1 - b0) / (n1 - n0)
        if busy_s > 0:
            mbit_cpu = float(kv["util"]) * rate * (t1 - t0) / busy_s
    rec = {
        "scenario": kv["scenario"], "cc": kv["cc"], "round": int(kv["round"]),
        "kernel": kv.get("kernel"), "rate_mbit": rate, "delay": kv.get("delay"),
        "delays": kv.get("delays", "").split(),
        "secs": float(kv["secs"]), "window": [t0, t1], "nflows": len(flows),
        "metrics": {
            "util": float(kv["util"]),
            "queue_p50_us": q50, "queue_p99_us": q99, "queue_max_us": qmax,
            "queue_packets": npk,
            "backlog_p50_kb": pct(backlog, 50) / 1000.0 if backlog else None,
            "backlog_p99_kb": pct(backlog, 99) / 1000.0 if backlog else None,
            "rtt_p50_ms": pct(rtt, 50), "rtt_p99_ms": pct(rtt, 99),
            "jain": jwin,
            "jain_min": min(jw) if jw else None,
            "jain_mean": sum(jw) / len(jw) if jw else None,
            "conv_s": conv,
            "drops": int(kv.get("drops") or 0), "marks": int(kv.get("marks") or 0),
            "syn_retrans": int(kv.get("syn_retrans") or 0),
            "late_starts": late_starts(flows),
            "cpu_busy": cpu_busy, "mbit_per_cpu_s": mbit_cpu,
            "retransmits": sum(f["retransmits"] for f in flows),
            "errors": [f["error"] for f in flows if f["error"]],
        },
        "series": {
            "flows": [{"start": f["start"], "planned_start": f["planned_start"],
                       "mbit": f["mbit"], "cwnd": f["cwnd"], "rtt_us": f["rtt_us"],
                       "sent_mbit": f["sent_mbit"], "received_mbit": f["received_mbit"]}
                      for f in flows],
            "backlog_dt": float(kv.get("backlog_dt", 0.1)),
            "backlog_t0": t0, "backlog": backlog,
        },
    }
    if "bpf_counters" in kv:
        rec["bpf"] = {
            "ok": kv.get("bpf_ok") == "1", "check": kv.get("bpf_check", ""),
            "counters": {k: int(v) for k, v in
                         (w.split("=", 1) for w in kv["bpf_counters"].split())},
        }
    with open(out, "w") as f:
        json.dump(rec, f)
    m = rec["metrics"]

    def f(v, fmt):
        return fmt % v if v is not None else "-"
    print("%-11s r%d %-6s util %5.1f%%  queue p50 %s p99 %s us  rtt p99 %s ms  "
          "jain %s (worst 1 s %s)  conv %s s  drops %d marks %d  cpu %s%% (%s Mbit/CPU s)" %
          (rec["scenario"], rec["round"], rec["cc"], 100 * m["util"],
           f(q50, "%.0f"), f(q99, "%.0f"), f(m["rtt_p99_ms"], "%.2f"),
           f(m["jain"], "%.3f"), f(m["jain_min"], "%.3f"), f(conv, "%.1f"), m["drops"], m["marks"],
           f(cpu_busy and 100 * cpu_busy, "%.0f"), f(mbit_cpu, "%.0f")) +
          ("  %s" % rec["bpf"]["check"] if "bpf" in rec else ""))


if __name__ == "__main__":
    main()
