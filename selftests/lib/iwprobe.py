#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The initial window tcp_ldcp computes for a connection's MSS.

    iwprobe.py HOST PORT BYTES

Connects to HOST:PORT (a sink: ccprobe.py server), then twice, right
after connect() and again after sending BYTES: reads the MSS TCP sends
with (TCP_INFO's tcpi_snd_mss, the mss_cache a congestion control's init
sees), makes ldcp the socket's algorithm afresh (cubic, then ldcp: init
runs again) and prints "mss N iw X" with X the IW of ldcp's TCP_CC_INFO
(struct ldcp_diag_info, include/ldcp.h) in packets.  The MSS grows after
connect() on a path whose MTU is above the peer's first window (loopback):
TCP bounds it by half the largest window the peer has offered.
"""
import socket
import struct
import sys
import time

TCP_CONGESTION = 13
TCP_CC_INFO = 26
LDCP_ONE = 65536


def probe(s):
    mss = struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 16)[0]
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"cubic")
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"ldcp")
    cw, iw = struct.unpack_from("II", s.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20))
    print("mss %d iw %.4f" % (mss, iw / LDCP_ONE), flush=True)


def main():
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    probe(s)
    s.sendall(b"x" * int(sys.argv[3]))
    time.sleep(0.5)
    probe(s)
    s.close()


if __name__ == "__main__":
    main()
