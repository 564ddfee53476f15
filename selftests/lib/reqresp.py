#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A request and a bulk response over one TCP connection, the passive
end sending the data (selftests/vm/hpcc_late.sh).

    reqresp.py server CC PORT REQ SECS
        listen with TCP_CONGESTION CC (the accepted socket inherits it),
        accept one connection, read REQ bytes, then send for SECS
        seconds and close; print "req N sent M"
    reqresp.py client HOST PORT REQ
        connect and send REQ bytes at once (the first segment full-sized:
        no room for a TCP option of the peer's module), then read to the
        end; print "got M"
"""
import socket
import sys
import time

TCP_CONGESTION = 13


def server(cc, port, req, secs):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    s, _ = ls.accept()
    got = 0
    while got < req:
        d = s.recv(65536)
        if not d:
            break
        got += len(d)
    chunk = b"x" * 65536
    sent = 0
    end = time.monotonic() + secs
    while time.monotonic() < end:
        sent += s.send(chunk)
    s.close()
    print("req %d sent %d" % (got, sent), flush=True)


def client(host, port, req):
    s = socket.create_connection((host, port))
    s.sendall(b"r" * req)
    got = 0
    while True:
        d = s.recv(1 << 16)
        if not d:
            break
        got += len(d)
    s.close()
    print("got %d" % got, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
               float(sys.argv[5]))
    else:
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
