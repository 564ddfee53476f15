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
    csig_attack.py insum IFACE SNIFF DSTMAC SRC SPORT DST DPORT COUNT S LM [bad]
        as tags, but COUNT segments inside the connection's window (20000
        bytes ahead of what DST acknowledged, where TCP queues them), each
        in a tag of type 5 carrying S and LM; with "bad", each with a TCP
        checksum that does not add up
    csig_attack.py unoffered IFACE DSTMAC SRC SPORT DST DPORT
        a handshake SRC:SPORT -> DST:DPORT whose SYN does not offer CSIG,
        then three segments carrying the option (the confirmation, and a
        reflection): a peer that turns CSIG on by itself.  SRC's own stack
        must not reset the connection (the caller drops its RSTs)

The TPIDs, the tag layout and the option's kind and ExID are read from
include/csig.h and include/csig_opt.h, which own them.
"""
import random
import select
import struct
import sys
import time

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


def insum(iface, sniff_if, mac, src, sport, dst, dport, count, s, lm,
          bad=None):
    def acks(p):
        return p["sport"] == int(dport) and p["dport"] == int(sport)

    seen = pkt.sniff(sniff_if, acks, 1, 20)
    if not seen:
        sys.exit("no segment of the connection seen")
    seq, ack = seen[0]["ack"], seen[0]["seq"]
    tag = TPC.to_bytes(2, "big") + compact_tag(5, int(s), int(lm))
    eth, frames = header(iface, mac, src, tag), []
    for i in range(int(count)):
        th = pkt.tcp(src, dst, int(sport), int(dport), seq + 20000 + 100 * i,
                     ack, pkt.ACK, payload=b"z" * 100, win=8192)
        if bad:
            th = th[:16] + bytes([th[16] ^ 0x5a, th[17]]) + th[18:]
        frames.append(eth + pkt.ip(src, dst, th))
    pkt.send(iface, frames)
    print("seen seq %u ack %u" % (seq, ack))


def unoffered(iface, mac, src, sport, dst, dport):
    sport, dport = int(sport), int(dport)
    eth = header(iface, mac, src)
    isn = random.getrandbits(32)
    s = pkt.sock(iface)
    s.send(eth + pkt.ip(src, dst, pkt.tcp(src, dst, sport, dport, isn, 0,
                                          pkt.SYN, struct.pack("!BBH", 2, 4, 1460),
                                          win=8192)))
    end = time.monotonic() + 20
    sa = None
    while not sa and time.monotonic() < end:
        if not select.select([s], [], [], 1)[0]:
            continue
        p = pkt.parse(s.recv(65535))
        if p and p["sport"] == dport and p["dport"] == sport and \
                p["flags"] & (pkt.SYN | pkt.ACK) == pkt.SYN | pkt.ACK:
            sa = p
    if not sa:
        sys.exit("no SYN-ACK")
    confirm = struct.pack("!BBH", KIND, 4, EXID)
    # a sample of type 5 (compact: S 9, LM 3), as a reflection carries it
    refl = struct.pack("!BBH", KIND, 10, EXID) + \
        bytes([5 << 3 | 0x04]) + (9).to_bytes(3, "big") + (3).to_bytes(2, "big")
    una, rcv = isn + 1, sa["seq"] + 1
    for opts, data in ((confirm, b""), (confirm, b"a" * 50), (refl, b"b" * 50)):
        s.send(eth + pkt.ip(src, dst, pkt.tcp(src, dst, sport, dport, una, rcv,
                                              pkt.ACK | pkt.PSH, opts, data,
                                              win=8192)))
        una += len(data)
        time.sleep(0.05)
    s.close()
    print("handshake seq %u ack %u" % (isn, sa["seq"]))


cmd = sys.argv[1]
if cmd == "synflood":
    synflood(*sys.argv[2:8])
elif cmd == "synack":
    synack(*sys.argv[2:8])
elif cmd == "tags":
    tags(*sys.argv[2:10])
elif cmd == "insum":
    insum(*sys.argv[2:13])
elif cmd == "unoffered":
    unoffered(*sys.argv[2:8])
else:
    sys.exit(__doc__)
