#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flow completion times of short TCP flows, one congestion control per flow.

    fct.py server PORT
    fct.py client HOST PORT CC[,CC...] SIZE[,SIZE...] REPS [GAP_MS]

The server accepts connections one after another; each sends SIZE bytes,
the first 8 of them the size, and the server answers with one byte once
it has them all.  The client runs REPS rounds; in each round, for each size
and then each algorithm in turn (so that the algorithms see the same
conditions, side by side), it opens a connection with TCP_CONGESTION set
before connect() (where ECN is negotiated), sends, and waits for the
answer.  A flow's completion time runs from the first send() to the
answer: the data's transfer plus half a round trip; the handshake is not
in it.  GAP_MS (default 50) separates flows so that queues drain.

The client prints one JSON object: {"CC": {"SIZE": [fct_us, ...]}}.
"""
import json
import socket
import struct
import sys
import time

TCP_CONGESTION = 13


def recv_all(c, n):
    got = 0
    while got < n:
        d = c.recv(min(n - got, 1 << 20))
        if not d:
            return False
        got += len(d)
    return True


def server(port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(64)
    while True:
        c, _ = ls.accept()
        hdr = c.recv(8, socket.MSG_WAITALL)
        if len(hdr) == 8 and recv_all(c, struct.unpack("!Q", hdr)[0] - 8):
            c.sendall(b"k")
        c.close()


def one_flow(host, port, cc, size):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.connect((host, port))
    data = struct.pack("!Q", size) + b"x" * (size - 8)
    t0 = time.perf_counter_ns()
    s.sendall(data)
    ok = s.recv(1) == b"k"
    t1 = time.perf_counter_ns()
    s.close()
    if not ok:
        raise RuntimeError("flow of %d bytes with %s got no answer" % (size, cc))
    return (t1 - t0) // 1000


def client(host, port, ccs, sizes, reps, gap_ms):
    res = {cc: {str(sz): [] for sz in sizes} for cc in ccs}
    for _ in range(reps):
        for sz in sizes:
            for cc in ccs:
                res[cc][str(sz)].append(one_flow(host, port, cc, sz))
                time.sleep(gap_ms / 1000.0)
    print(json.dumps(res))


def main():
    if sys.argv[1] == "server":
        server(int(sys.argv[2]))
    elif min(int(x) for x in sys.argv[5].split(",")) < 8:
        sys.exit("fct.py: a flow is at least 8 bytes")
    else:
        client(sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","),
               [int(x) for x in sys.argv[5].split(",")], int(sys.argv[6]),
               int(sys.argv[7]) if len(sys.argv) > 7 else 50)


if __name__ == "__main__":
    main()
