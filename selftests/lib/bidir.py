#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A connection with data both ways (selftests/vm/csig_opt.sh).

    bidir.py server PORT SECS
        accept one connection; for SECS seconds read what the client sends
        and answer with 100 random bytes every 10 ms, with one 256 KB
        burst half way; then close the write side, read to the end and
        print "<bytes sent> <sha256 of them>"
    bidir.py client HOST PORT
        connect, send as fast as the connection takes until the server
        closes its side, and print "<bytes received> <sha256 of them>"

The receiver of the bulk direction (the server) sends small data segments,
the ones a reflection option fits on, and full-sized ones in the burst;
the client's digest proves every byte arrived intact.
"""
import hashlib
import os
import select
import socket
import sys
import time


def server(port, secs):
    ls = socket.socket(socket.AF_INET6)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("::", port))
    ls.listen(1)
    s, _ = ls.accept()
    h, sent = hashlib.sha256(), 0
    end = time.monotonic() + secs
    burst = end - secs / 2
    nxt = time.monotonic()
    pending = b""
    while time.monotonic() < end:
        now = time.monotonic()
        if not pending and now >= nxt:
            pending = os.urandom(100)
            if burst and now >= burst:
                pending += os.urandom(256 * 1024)
                burst = 0
            h.update(pending)
            sent += len(pending)
            nxt = now + 0.01
        r, w, _ = select.select([s], [s] if pending else [], [], 0.005)
        if r and not s.recv(1 << 16):
            break
        if w:
            pending = pending[s.send(pending):]
    s.setblocking(True)
    if pending:
        s.sendall(pending)
    s.shutdown(socket.SHUT_WR)
    while s.recv(1 << 16):
        pass
    print(sent, h.hexdigest())


def client(host, port):
    s = socket.create_connection((host, port))
    s.setblocking(False)
    h, got = hashlib.sha256(), 0
    chunk = b"x" * 65536
    while True:
        r, w, _ = select.select([s], [s], [], 1)
        if r:
            d = s.recv(1 << 16)
            if not d:
                break
            h.update(d)
            got += len(d)
        if w:
            try:
                s.send(chunk)
            except BlockingIOError:
                pass
    s.close()
    print(got, h.hexdigest())


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(int(sys.argv[2]), float(sys.argv[3]))
    else:
        client(sys.argv[2], int(sys.argv[3]))
