#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An attacker on the L2 domain, with scapy (selftests/vm/csig_hardening.sh).

    csig_attack.py synflood IFACE DSTMAC DST DPORT COUNT
        COUNT SYNs offering CSIG to DST:DPORT from spoofed sources (random
        addresses of DST's /24 above .100, or of 2001:db8::/64, random ports
        and sequence numbers)
    csig_attack.py synack IFACE DSTMAC SRC SPORT DST DPORT
        a SYN-ACK SRC:SPORT -> DST:DPORT accepting CSIG, its ACK number
        random (not DST's ISN + 1)
    csig_attack.py tags IFACE SNIFF DSTMAC SRC SPORT DST DPORT COUNT
        wait on SNIFF for an ACK DST:DPORT -> SRC:SPORT, then send COUNT
        segments of that connection toward DSTMAC, each in a tag of type 5
        (S 31, LM 99), at sequence numbers half the sequence space away
        from the one acknowledged (random within that half), half of them
        acknowledging what the ACK's sender sent and half a random number
    csig_attack.py mss IFACE SRC SPORT COUNT
        sniff COUNT data segments from SRC:SPORT on IFACE and print the
        largest TCP payload plus TCP options (bytes beyond the fixed
        20-byte header) among them, and how many carried our option

The TPIDs, the tag layout and the option's kind and ExID are read from
include/csig.h and include/csig_opt.h, which own them.
"""
import logging
import random
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import (Ether, IP, IPv6, TCP, Raw, sendp, sniff,  # noqa: E402
                       conf)

from csig_consts import consts  # noqa: E402

conf.verb = 0
C = consts()
TPC = C["CSIG_TPID_COMPACT"]
KIND, EXID = C["CSIG_OPT_KIND"], C["CSIG_OPT_EXID"]
OFFER = [(KIND, bytes([EXID >> 8, EXID & 0xff]))]


def l3(src, dst):
    return IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)


def spoofed(dst):
    if ":" in dst:
        return "2001:db8::%x:%x" % (random.randint(1, 0xffff),
                                    random.randint(1, 0xffff))
    return ".".join(dst.split(".")[:3] + [str(random.randint(101, 250))])


def synflood(iface, mac, dst, dport, count):
    frames = [Ether(dst=mac) / l3(spoofed(dst), dst) /
              TCP(sport=random.randint(1024, 65535), dport=int(dport),
                  seq=random.getrandbits(32), flags="S",
                  options=[("MSS", 1460)] + OFFER)
              for _ in range(int(count))]
    sendp(frames, iface=iface)


def synack(iface, mac, src, sport, dst, dport):
    sendp(Ether(dst=mac) / l3(src, dst) /
          TCP(sport=int(sport), dport=int(dport), flags="SA",
              seq=random.getrandbits(32), ack=random.getrandbits(32),
              options=[("MSS", 1460)] + OFFER), iface=iface)


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
        return TCP in p and p[TCP].sport == int(dport) and \
            p[TCP].dport == int(sport)

    seen = sniff(iface=sniff_if, lfilter=acks, count=1, timeout=20)
    if not seen:
        sys.exit("no segment of the connection seen")
    seq, ack = seen[0][TCP].ack, seen[0][TCP].seq
    et = b"\x86\xdd" if ":" in src else b"\x08\x00"
    tag = TPC.to_bytes(2, "big") + compact_tag(5, 31, 99)
    frames = []
    for i in range(int(count)):
        s = (seq + (1 << 31) + random.randint(-(1 << 29), 1 << 29)) & 0xffffffff
        a = ack if i % 2 == 0 else random.getrandbits(32)
        seg = bytes(l3(src, dst) / TCP(sport=int(sport), dport=int(dport),
                                       seq=s, ack=a, flags="A") / (b"x" * 100))
        eth = bytes(Ether(dst=mac))[:12]
        frames.append(Raw(eth + tag + et + seg))
    sendp(frames, iface=iface)
    print("seen seq %u ack %u" % (seq, ack))


def mss(iface, src, sport, count):
    def ours(p):
        return TCP in p and p[TCP].sport == int(sport) and \
            (IP in p and p[IP].src == src or IPv6 in p and p[IPv6].src == src) \
            and len(p[TCP].payload) > 0

    pkts = sniff(iface=iface, lfilter=ours, count=int(count), timeout=30)
    worst, with_opt = 0, 0
    for p in pkts:
        t = p[TCP]
        opts = t.dataofs * 4 - 20
        worst = max(worst, opts + len(t.payload))
        raw = bytes(t)[20:20 + opts]
        if bytes([KIND]) in raw and bytes([EXID >> 8, EXID & 0xff]) in raw:
            with_opt += 1
    print("%d %d %d" % (len(pkts), worst, with_opt))


cmd = sys.argv[1]
if cmd == "synflood":
    synflood(*sys.argv[2:7])
elif cmd == "synack":
    synack(*sys.argv[2:8])
elif cmd == "tags":
    tags(*sys.argv[2:10])
elif cmd == "mss":
    mss(*sys.argv[2:6])
else:
    sys.exit(__doc__)
