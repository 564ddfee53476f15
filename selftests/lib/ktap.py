# SPDX-License-Identifier: GPL-2.0
"""selftests/lib/ktap.sh's results for the host tests written in python:
plan(N), ok(COND, WHAT, DIAG) (DIAG printed as comments when COND
fails), finished() (exit 1 when a check failed)."""
import sys

_n = 0
_failed = 0


def plan(count):
    print("TAP version 13")
    print("1..%d" % count)


def ok(cond, what, diag=""):
    global _n, _failed
    _n += 1
    if not cond:
        _failed += 1
        if diag:
            print("# " + str(diag).replace("\n", "\n# "))
    print("%sok %d %s" % ("" if cond else "not ", _n, what))


def finished():
    sys.exit(1 if _failed else 0)
