#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Percentiles of a CSIG switch port's queue between two snapshots.

    qhist.py BEFORE.json AFTER.json [PCT...]

BEFORE and AFTER are `csigctl --json show DEV` outputs of the same
attachment.  The port model's queue histogram (qhist: [delay ns of the
bucket's low edge, bytes at C, packets]) is cumulative; the difference
is the packets in between.  Prints "packets p<PCT>_ns ... max_ns" with
each percentile's bucket low edge (default percentiles 50 99).
"""
import json
import sys


def hist(path):
    with open(path) as f:
        d = json.load(f)
    return {b[0]: b[2] for b in d[0].get("qhist", [])}


def main():
    a, b = hist(sys.argv[1]), hist(sys.argv[2])
    pcts = [float(p) for p in sys.argv[3:]] or [50.0, 99.0]
    d = sorted((k, b[k] - a.get(k, 0)) for k in b if b[k] > a.get(k, 0))
    n = sum(c for _, c in d)
    out = [str(n)]
    for p in pcts:
        want, acc, v = n * p / 100.0, 0, 0
        for k, c in d:
            acc += c
            v = k
            if acc >= want:
                break
        out.append(str(v))
    out.append(str(d[-1][0] if d else 0))
    print(" ".join(out))


if __name__ == "__main__":
    main()
