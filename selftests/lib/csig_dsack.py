#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A data segment written while a D-SACK is pending (selftests/host/
csig_host_dsack.t), on a connection the host path negotiated.

    csig_dsack.py serve PORT
        accepts one connection; reads until a byte "T" ends what it
        received, then, corked, writes MSS - 6 bytes (TCP_MAXSEG): less
        than a full segment, so TCP holds them, but more than what a
        segment takes while a D-SACK block is pending; reads to the end
    csig_dsack.py client DST PORT BYTES
        connects, sends BYTES (tagged, when the host path marked the
        socket), waits for them to be acknowledged, sends "T" and then a
        copy of its last 100 bytes from a raw socket at its own sequence
        and ACK numbers (read with TCP_REPAIR): the server's TCP sets a
        D-SACK for it and, with the ACK it must send, pushes what is
        queued, a full segment now; prints, as JSON, how long the server's
        data took to arrive after the copy was sent (ms)

Timestamps must be off (sysctl net.ipv4.tcp_timestamps=0 on the client)
so that the copy, which has none, is not refused for them.
"""
import json
import socket
import sys
import time

import pkt
from csig_peer import sequence


def serve(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    c, _ = ls.accept()
    n = 0
    while True:
        b = c.recv(65536)
        if not b:
            return
        n += len(b)
        if b.endswith(b"T"):
            break
    mss = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    c.sendall(b"\0" * (mss - 6))
    while c.recv(65536):
        pass
    print(json.dumps({"received": n, "mss": mss}), flush=True)


def client(dst, port, nbytes):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.connect((dst, port))
    src, sport = s.getsockname()
    s.sendall(b"\0" * nbytes)
    time.sleep(0.5)
    snd, rcv, _ = sequence(s)
    s.sendall(b"T")
    time.sleep(0.05)	# the server writes its corked data
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    seg = pkt.ip(src, dst, pkt.tcp(src, dst, sport, port, snd + 1 - 100, rcv,
                                   0x10, payload=b"\0" * 99 + b"T",
                                   win=65535))
    t0 = time.monotonic()
    raw.sendto(seg, (dst, 0))
    s.settimeout(3)
    got = 0
    try:
        while got < 1000:
            b = s.recv(65536)
            if not b:
                break
            got += len(b)
    except socket.timeout:
        pass
    ms = (time.monotonic() - t0) * 1000
    s.close()
    print(json.dumps({"got": got, "wait_ms": round(ms, 1)}), flush=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "client":
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
