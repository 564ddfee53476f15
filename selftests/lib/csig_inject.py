#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inject bad CSIG input with scapy (selftests/vm/csig_opt.sh).

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
import logging
import socket
import struct
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, IPv6, TCP, Raw, sendp, conf  # noqa: E402
from scapy.utils import checksum  # noqa: E402

from csig_consts import consts  # noqa: E402

conf.verb = 0
C = consts()
TPC, TPE = C["CSIG_TPID_COMPACT"], C["CSIG_TPID_EXPANDED"]
KIND, EXID = C["CSIG_OPT_KIND"], C["CSIG_OPT_EXID"]


def l3(src, dst):
    return IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)


def tags(iface, mac, src, dst):
    eth = Ether(dst=mac)
    seg = bytes(l3(src, dst) / TCP(sport=40000, dport=40001, flags="A"))
    et = b"\x86\xdd" if ":" in src else b"\x08\x00"
    frames = [
        bytes(eth)[:12] + TPC.to_bytes(2, "big") + b"\x12",
        bytes(eth)[:12] + TPE.to_bytes(2, "big") + b"\x00\x01\x70\x00",
        bytes(eth)[:12] + TPC.to_bytes(2, "big") + b"\xe0\x00" +
        TPC.to_bytes(2, "big") + b"\xe0\x00" + et + seg,
        bytes(eth)[:12] + TPC.to_bytes(2, "big"),
        bytes(eth)[:12] + TPC.to_bytes(2, "big") + b"\xe0\x81" + et + seg,
    ]
    for f in frames:
        sendp(Raw(f), iface=iface)


def tcp_raw(src, dst, sport, dport, seq, ack, options):
    """A TCP header with @options as given (no re-encoding), checksummed."""
    off = (20 + len(options)) // 4
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, 0x10,
                      65535, 0, 0) + options
    if ":" in src:
        pseudo = (socket.inet_pton(socket.AF_INET6, src) +
                  socket.inet_pton(socket.AF_INET6, dst) +
                  struct.pack("!I3xB", len(hdr), 6))
    else:
        pseudo = (socket.inet_aton(src) + socket.inet_aton(dst) +
                  struct.pack("!BBH", 0, 6, len(hdr)))
    c = checksum(pseudo + hdr)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:]


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
    for o in bad + [good]:
        o = b"\x01" * ((4 - len(o) % 4) % 4) + o
        tcp = tcp_raw(src, dst, int(sport), int(dport), 0x7fff0000,
                      0x12345678, o)
        net = IPv6(src=src, dst=dst, nh=6) if ":" in src else \
            IP(src=src, dst=dst, proto=6)
        sendp(Ether(dst=mac) / net / Raw(tcp), iface=iface)


if sys.argv[1] == "tags":
    tags(*sys.argv[2:6])
else:
    opts(*sys.argv[2:8])
