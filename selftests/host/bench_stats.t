#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench_report.py's statistics over pooled flows: the percentile
# bootstrap of a p50 or p99, drawn in O(1) per resample from the order
# statistic's Beta law, agrees with resampling the flows outright; its
# 95% interval covers a known distribution's true p99 about 95% of the
# time, as does the mean's; a report is reproducible (generators seeded
# from the statistic's label); a p99 over fewer than 100 flows is
# flagged; the pooled table counts every round's flows and queries.
import importlib.util
import math
import os
import random
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "selftests", "lib"))
import ktap  # noqa: E402
spec = importlib.util.spec_from_file_location("bench_report",
                                              os.path.join(TOP, "tools", "bench_report.py"))
br = importlib.util.module_from_spec(spec)
spec.loader.exec_module(br)
ktap.plan(7)

# 1. the Beta draw against resampling outright: the replicates' own
# percentiles, read as ranks in the sorted data, within a few ranks
rng = random.Random(7)
data = [rng.lognormvariate(0, 1) for _ in range(400)]
sv = sorted(data)
B = 3000
fast = sorted(br.boot_reps(data, 99, "check", b=B))
brute_rng = random.Random(8)
brute = sorted(br.pct(brute_rng.choices(data, k=len(data)), 99) for _ in range(B))


def rank(x):
    return sv.index(x)


diffs = [abs(rank(fast[int(q * (B - 1))]) - rank(brute[int(q * (B - 1))]))
         for q in (0.025, 0.25, 0.5, 0.75, 0.975)]
ktap.ok(max(diffs) <= 2, "the p99's Beta draw agrees with resampling the flows",
   "rank differences at 2.5/25/50/75/97.5%%: %s" % diffs)

# 2. coverage of the true p99 of Exp(1), ln 100, by 95% intervals over
# 1000 flows: about 0.91 (the percentile bootstrap of an extreme
# quantile covers less than it says: about 0.64 over 100 flows, 0.82
# over 300, 0.94 over 3000; Documentation/sim.rst); a one-sided interval
# or a misplaced order statistic falls well outside
true99 = math.log(100)
trials, cover = 300, 0
for t in range(trials):
    v = [rng.expovariate(1.0) for _ in range(1000)]
    lo, hi = br.boot_ci(br.boot_reps(v, 99, "cov%d" % t, b=400))
    cover += lo <= true99 <= hi
ktap.ok(0.86 <= cover / trials <= 0.98, "95%% intervals of a p99 over 1000 flows cover the true one "
   "%d of %d times" % (cover, trials), "coverage %.3f" % (cover / trials))

# 3. and the mean's
trials, cover = 120, 0
for t in range(trials):
    v = [rng.expovariate(1.0) for _ in range(200)]
    lo, hi = br.boot_ci(br.boot_reps(v, "mean", "mcov%d" % t, b=300))
    cover += lo <= 1.0 <= hi
ktap.ok(0.85 <= cover / trials <= 0.99, "95%% intervals of a mean cover the true one %d of %d times"
   % (cover, trials), "coverage %.3f" % (cover / trials))

# 4. reproducible: the same label, the same interval; another label, other draws
a = br.estimate(data, 99, "sim-ws30/hpcc/flows/99")
b = br.estimate(data, 99, "sim-ws30/hpcc/flows/99")
c = br.estimate(data, 99, "sim-ws30/dctcp/flows/99")
ktap.ok(a[1] == b[1] and a[3] == b[3] and a[3] != c[3] and a[1][0] <= a[0] <= a[1][1],
   "the same statistic gives the same interval, around its estimate", (a[:3], c[:3]))

# 5. the flag: a p99 over 99 flows is not meaningful, over 100 it is
e99 = br.estimate(data[:99], 99, "x")
e100 = br.estimate(data[:100], 99, "x")
s99, s100 = br.fmt_tail(e99, 99), br.fmt_tail(e100, 99)
ktap.ok("not meaningful" in s99 and "not meaningful" not in s100 and "[" in s100 and
   "not meaningful" not in br.fmt_tail(e99, 50), "a p99 over fewer than 100 flows is flagged",
   (s99, s100))


# 6. the pooled table: every round's flows and queries counted, the ratio's
# interval around the ratio of the estimates
def rec(cc, rnd, flows, qct):
    return {"scenario": "sim-incast64", "kind": "incast", "cc": cc, "round": rnd,
            "bdp": 1e5, "series": {"fct": flows, "qct": qct}, "metrics": {}}


recs = []
for rnd in (1, 2, 3):
    recs.append(rec("hpcc", rnd, [[65536, 10.0, 2.0 + 0.01 * i, 0] for i in range(64)],
                    [3.0, 3.1]))
    recs.append(rec("dctcp", rnd, [[65536, 10.0, 4.0 + 0.01 * i, 0] for i in range(64)],
                    [6.0, 6.2]))
out = "\n".join(br.pooled_table(["hpcc", "dctcp"], recs, False))
row = [ln for ln in out.splitlines() if ln.startswith("| hpcc |")]
ktap.ok(row and row[0].startswith("| hpcc | 192 / 6 |") and "not meaningful" in row[0],
   "the pooled table counts 3 rounds' 192 flows and 6 queries, flags the queries' p99",
   out)
rl = [ln for ln in out.splitlines() if ln.startswith("- hpcc / dctcp:")]
m = rl and rl[0].split("mean ")[1].split(",")[0]
ktap.ok(m and float(m.split(" ")[0]) < 0.6 and "[" in m,
   "hpcc / dctcp's mean slowdown: a ratio with its interval", rl)
ktap.finished()
