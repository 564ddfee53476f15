#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inject bad CSIG input (selftests/vm/csig_opt.sh).

    csig_inject.py tags IFACE DSTMAC SRC DST
        frames toward DSTMAC: a truncated compact tag, a truncated
        expanded tag, nested tags, a runt that is only a TPID, and a valid
        tag on a TCP segment of no connection
    csig_inject.py opts IFACE DSTMAC SRC DST SPORT DPORT
        TCP segments of connection SRC:SPORT -> DST:DPORT carrying, in
        order: an option of bad length, one with reserved bits set, one
        with a compact S above 31, a broken option list, and a valid option
        reflecting type 5 (S 31, LM 99) at a sequence number out of window

The TPIDs and the option's kind and ExID are read from include/csig.h and
include/csig_opt.h, which own them.
"""
import sys

import pkt
from csig_consts import consts

C = consts()
TPC, TPE = C["CSIG_TPID_COMPACT"], C["CSIG_TPID_EXPANDED"]
KIND, EXID = C["CSIG_OPT_KIND"], C["CSIG_OPT_EXID"]


def tags(iface, mac, src, dst):
    eth = pkt.eth(mac, pkt.ifmac(iface))
    seg = pkt.ip(src, dst, pkt.tcp(src, dst, 40000, 40001, 0, 0, pkt.ACK,
                                   win=8192))
    et = pkt.ethertype(src)
    frames = [
        eth + TPC.to_bytes(2, "big") + b"\x12",
        eth + TPE.to_bytes(2, "big") + b"\x00\x01\x70\x00",
        eth + TPC.to_bytes(2, "big") + b"\xe0\x00" +
        TPC.to_bytes(2, "big") + b"\xe0\x00" + et + seg,
        eth + TPC.to_bytes(2, "big"),
        eth + TPC.to_bytes(2, "big") + b"\xe0\x81" + et + seg,
    ]
    pkt.send(iface, frames)


def opts(iface, mac, src, dst, sport, dport):
    def opt(body, length=None):
        b = bytes([KIND, 0, EXID >> 8, EXID & 0xff]) + body
        return bytes([KIND, length if length is not None else len(b)]) + b[2:]

    bad = [
        opt(b"\x00", 5),                                   # length not 4 + 6n
        opt(bytes([0x38 | 1, 0, 0, 5, 0, 1])),             # reserved bit
        opt(bytes([0x38, 0, 0, 32, 0, 1])),                # compact S 32
        bytes([2, 1]) + bytes(6),                          # broken list
    ]
    good = opt(bytes([5 << 3, 0, 0, 31, 0, 99]))          # type 5, S 31, LM 99
    eth = pkt.eth(mac, pkt.ifmac(iface)) + pkt.ethertype(src)
    pkt.send(iface, [eth + pkt.ip(src, dst, pkt.tcp(
        src, dst, int(sport), int(dport), 0x7fff0000, 0x12345678, pkt.ACK, o))
        for o in bad + [good]])


if sys.argv[1] == "tags":
    tags(*sys.argv[2:6])
else:
    opts(*sys.argv[2:8])
