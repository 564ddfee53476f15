#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Spoofed TCP segments with the CSIG option, from a raw IPv4 socket (no
scapy needed; selftests/host/csig_host.t).

    csig_spoof.py syn SRC DST DPORT
        a SYN from SRC (an address nobody has) offering CSIG: kind 253,
        length 4, the ExID, after an MSS option
    csig_spoof.py ack SRC DST SPORT DPORT
        an ACK with the 4-byte handshake option (a confirmation) and
        made-up sequence and ACK numbers, as a blind attacker would send
    csig_spoof.py opt SRC DST SPORT DPORT SEQ ACK TYPE S LM
        an ACK with sequence number SEQ and ACK number ACK reflecting one
        new compact sample of TYPE (S, LM)

The option's kind and ExID are read from include/csig_opt.h, which owns
them.
"""
import random
import socket
import struct
import sys

import pkt
from csig_consts import consts

C = consts()
KIND, EXID = C["CSIG_OPT_KIND"], C["CSIG_OPT_EXID"]
HDR, SMP = C["CSIG_OPT_HDR_LEN"], C["CSIG_OPT_SAMPLE_LEN"]


def segment(src, dst, sport, dport, seq, ack, flags, opts):
    return pkt.ip(src, dst, pkt.tcp(src, dst, sport, dport, seq, ack, flags,
                                    opts, win=64240))


def main():
    offer = struct.pack("!BBH", KIND, 4, EXID)
    if len(sys.argv) == 5 and sys.argv[1] == "syn":
        src, dst, dport = sys.argv[2], sys.argv[3], int(sys.argv[4])
        sport = random.randint(20000, 60000)
        pkt = segment(src, dst, sport, dport, random.getrandbits(32), 0,
                      0x02, struct.pack("!BBH", 2, 4, 1460) + offer)
    elif len(sys.argv) == 6 and sys.argv[1] == "ack":
        src, dst = sys.argv[2], sys.argv[3]
        sport, dport = int(sys.argv[4]), int(sys.argv[5])
        pkt = segment(src, dst, sport, dport, random.getrandbits(32),
                      random.getrandbits(32), 0x10, offer)
    elif len(sys.argv) == 11 and sys.argv[1] == "opt":
        src, dst = sys.argv[2], sys.argv[3]
        sport, dport, seq, ack, typ, sv, lm = (int(a, 0) for a in sys.argv[4:])
        smp = struct.pack("!B", (typ << C["CSIG_OPT_T_SHIFT"]) |
                          C["CSIG_OPT_N_BIT"]) + \
            struct.pack("!I", sv)[1:] + struct.pack("!H", lm)
        opt = struct.pack("!BBH", KIND, HDR + SMP, EXID) + smp
        pkt = segment(src, dst, sport, dport, seq & 0xffffffff,
                      ack & 0xffffffff, 0x10, b"\1\1" + opt)
    else:
        sys.exit(__doc__)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.sendto(pkt, (dst, 0))


if __name__ == "__main__":
    main()
