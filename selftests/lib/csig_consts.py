# SPDX-License-Identifier: GPL-2.0
"""The CSIG constants the test tools use, read from the headers that own
them (include/csig.h: TPIDs, tag layout; include/csig_opt.h: the option's
kind and ExID), so that no script writes a wire value of its own."""
import os
import re

INC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "include")


def consts():
    """Every numeric CSIG_* #define of csig.h and csig_opt.h, by name."""
    c = {}
    for f in ("csig.h", "csig_opt.h"):
        with open(os.path.join(INC, f)) as h:
            for m in re.finditer(
                    r"#define\s+(CSIG_\w+)\s+(0x[0-9a-fA-F]+|\d+)\b",
                    h.read()):
                c[m.group(1)] = int(m.group(2), 0)
    return c
