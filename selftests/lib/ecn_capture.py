#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ECN field of each data packet of one TCP/IPv4 flow, in sequence order.

    ecn_capture.py IFACE DPORT SECONDS

Captures frames arriving on IFACE (a packet socket: before the qdisc, so
a frame the bottleneck drops later is still seen) until the flow's FIN or
SECONDS, and prints

    mss M, F frames
    orig NNNN...EEEE
    rtx F frames, K not-ECT

"orig" has a character per packet of the flow's first transmissions, in
sequence order: N not-ECT, E ECT(0) or ECT(1), C CE.  A frame larger than
M bytes of payload (GSO on a software path) stands for that many packets
of M, rounded up; M is the payload of the first data frame.  A frame that
starts below the highest sequence seen so far is a retransmission and is
counted in "rtx".
"""
import socket
import struct
import sys
import time

ECN_CHAR = "NEEC"


def main():
    ifname, dport, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)   # SO_RCVBUFFORCE
    s.bind((ifname, 0))
    s.settimeout(0.2)
    end = time.time() + secs
    isn = None
    mss = 0
    top = 0                 # highest relative sequence sent so far
    orig = []
    frames = 0
    rtx = rtx_ne = 0
    while time.time() < end:
        try:
            buf, addr = s.recvfrom(256)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING or len(buf) < 14 + 20:
            continue
        off = 12
        et = struct.unpack_from("!H", buf, off)[0]
        while et in (0x8100, 0x88a8) and len(buf) >= off + 6:
            off += 4
            et = struct.unpack_from("!H", buf, off)[0]
        off += 2
        if et != 0x0800 or len(buf) < off + 20 or buf[off + 9] != 6:
            continue
        ihl = (buf[off] & 15) * 4
        tot = struct.unpack_from("!H", buf, off + 2)[0]
        ecn = buf[off + 1] & 3
        th = off + ihl
        if len(buf) < th + 20 or struct.unpack_from("!H", buf, th + 2)[0] != dport:
            continue
        seq = struct.unpack_from("!I", buf, th + 4)[0]
        flags = buf[th + 13]
        plen = tot - ihl - (buf[th + 12] >> 4) * 4
        if flags & 2:                                   # SYN
            isn = (seq + 1) & 0xffffffff
            continue
        if isn is None:
            continue
        rel = (seq - isn) & 0xffffffff
        if plen > 0:
            if not mss:
                mss = plen
            frames += 1
            if rel < top:
                rtx += 1
                rtx_ne += ecn == 0
            else:
                orig.append(ECN_CHAR[ecn] * ((plen + mss - 1) // mss))
                top = rel + plen
        if flags & 1:                                   # FIN
            break
    print("mss %d, %d frames" % (mss, frames))
    print("orig %s" % "".join(orig))
    print("rtx %d frames, %d not-ECT" % (rtx, rtx_ne))


if __name__ == "__main__":
    main()
