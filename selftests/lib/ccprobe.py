#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP connection whose congestion control is set with setsockopt.

    ccprobe.py server CC PORT
    ccprobe.py client CC PORT HOST BYTES

Each side sets TCP_CONGESTION to CC before listen() or connect() (so that
it applies to the handshake, where ECN is negotiated), the client sends
BYTES, and each prints "cc NAME ecn 0|1 bytes N" from its connected
socket: the algorithm in use and whether ECN was negotiated (TCP_INFO's
tcpi_options, TCPI_OPT_ECN).
"""
import socket
import sys

TCP_CONGESTION = 13
TCPI_OPT_ECN = 8


def report(s, n):
    cc = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0")
    opts = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[5]
    print("cc %s ecn %d bytes %d" % (cc.decode(), bool(opts & TCPI_OPT_ECN), n),
          flush=True)


def main():
    mode, cc, port = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
    if mode == "server":
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc)
        ls.bind(("0.0.0.0", port))
        ls.listen(1)
        c, _ = ls.accept()
        n = 0
        while True:
            d = c.recv(65536)
            if not d:
                break
            n += len(d)
        report(c, n)
    else:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc)
        s.connect((sys.argv[4], port))
        n = int(sys.argv[5])
        s.sendall(b"x" * n)
        report(s, n)
        s.close()


if __name__ == "__main__":
    main()
