#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A transfer over one TCP connection (selftests/vm/csig_hardening.sh).

    tcpxfer.py server PORT COUNT [MD5KEY PEER]
        accept COUNT connections one after the other; read each to the
        end, answer with the number of bytes read and close; print
        that number per connection
    tcpxfer.py client HOST PORT SPORT BYTES [MD5KEY]
        connect from port SPORT (the same four-tuple every time), send
        BYTES, close the write side, print the server's answer
    tcpxfer.py chunks PORT SIZE SECS
        accept one connection; read it to the end while writing, every
        10 ms for SECS seconds, SIZE bytes and then 100 (TCP_NODELAY: a
        segment each); then close
    tcpxfer.py pause HOST PORT BYTES SECS CC
        connect with TCP_CONGESTION CC, send BYTES, wait until the peer
        has acknowledged them all (SIOCOUTQ 0), idle for SECS, send
        BYTES again, close the write side, print the server's answer
    tcpxfer.py hold HOST PORT SPORT SECS
        connect from port SPORT without waiting, keep the attempt open
        for SECS seconds (a SYN_SENT socket to forge against)

    tcpxfer.py sink PORT SECS
        accept every connection for SECS seconds, each read to the end
        in a thread of its own, then closed
    tcpxfer.py many HOST PORT COUNT BYTES [rst]
        COUNT connections one after the other, each sending BYTES,
        closing its write side and reading until the server closes
        (with "rst": aborting after the send, SO_LINGER 0, so that an RST
        ends it); print how many completed
    tcpxfer.py open HOST PORT SPORT COUNT BYTES
        COUNT connections at once, from ports SPORT, SPORT + 1, ...,
        each sending BYTES; then close them all; print how many

The server closes first, so that its end holds TIME_WAIT and a
reconnection on the same four-tuple reuses it, as TCP allows.  MD5KEY
signs the connection with TCP-MD5 (RFC 2385) for PEER / HOST.
"""
import errno
import fcntl
import socket
import struct
import sys
import threading
import time

TCP_MD5SIG = 14
TCP_CONGESTION = 13
SIOCOUTQ = 0x5411


def md5(s, peer, key):
    fam = socket.AF_INET6 if ":" in peer else socket.AF_INET
    if fam == socket.AF_INET:
        sa = struct.pack("=H2s4s8x", fam, b"\0\0", socket.inet_aton(peer))
    else:
        sa = struct.pack("=H2s4x16s4x", fam, b"\0\0",
                         socket.inet_pton(fam, peer))
    sa = sa.ljust(128, b"\0")
    k = key.encode()
    # struct tcp_md5sig: sockaddr_storage, flags, prefixlen, keylen, ifindex, key[80]
    s.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG,
                 sa + struct.pack("=BBHI", 0, 0, len(k), 0) + k.ljust(80, b"\0"))


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def server(port, count, key=None, peer=None):
    ls = socket.socket(socket.AF_INET6)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if key:
        md5(ls, "::ffff:" + peer if ":" not in peer else peer, key)
    ls.bind(("::", int(port)))
    ls.listen(16)
    for _ in range(int(count)):
        c, _ = ls.accept()
        n = 0
        while True:
            b = c.recv(65536)
            if not b:
                break
            n += len(b)
        c.sendall(b"%d\n" % n)
        c.close()
        print(n, flush=True)


def answer(s):
    """close the write side, print the server's count (or the length
    of what it answered) and close"""
    s.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        b = s.recv(100)
        if not b:
            break
        got += b
    s.close()
    print(got.decode().strip() if got.strip().isdigit() else len(got))


def client(host, port, sport, nbytes, key=None):
    s = socket.socket(family(host))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if key:
        md5(s, host, key)
    s.bind(("", int(sport)))
    s.settimeout(30)
    s.connect((host, int(port)))
    left = int(nbytes)
    buf = b"x" * 65536
    while left > 0:
        left -= s.send(buf[:min(left, len(buf))])
    answer(s)


def pause(host, port, nbytes, secs, cc):
    s = socket.socket(family(host))
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    s.settimeout(60)
    s.connect((host, int(port)))
    buf = b"x" * int(nbytes)
    for i in range(2):
        s.sendall(buf)
        if i:
            break
        # everything acknowledged: nothing in flight from here
        t = time.time() + 30
        while struct.unpack("i", fcntl.ioctl(s, SIOCOUTQ, b"\0" * 4))[0]:
            if time.time() > t:
                sys.exit("pause: the first BYTES not acknowledged in 30 s")
            time.sleep(0.001)
        time.sleep(float(secs))
    answer(s)


def chunks(port, size, secs):
    ls = socket.socket(socket.AF_INET6)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("::", int(port)))
    ls.listen(1)
    c, _ = ls.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    got = [0]

    def drain():
        while True:
            b = c.recv(65536)
            if not b:
                break
            got[0] += len(b)

    t = threading.Thread(target=drain)
    t.start()
    end = time.time() + float(secs)
    sent = 0
    while time.time() < end:
        for n in (int(size), 100):
            c.sendall(b"y" * n)
            sent += n
            time.sleep(0.01)
    c.shutdown(socket.SHUT_WR)
    t.join()
    c.close()
    print(sent, got[0])


def hold(host, port, sport, secs):
    s = socket.socket(family(host))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", int(sport)))
    s.setblocking(False)
    err = s.connect_ex((host, int(port)))
    if err not in (errno.EINPROGRESS, 0):
        sys.exit("connect: %s" % errno.errorcode.get(err, err))
    time.sleep(float(secs))
    s.close()


def sink(port, secs):
    ls = socket.socket(socket.AF_INET6)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("::", int(port)))
    ls.listen(128)
    ls.settimeout(0.5)

    def drain(c):
        c.settimeout(float(secs))
        try:
            while c.recv(65536):
                pass
        except OSError:
            pass
        c.close()

    end = time.time() + float(secs)
    while time.time() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        threading.Thread(target=drain, args=(c,), daemon=True).start()


def many(host, port, count, nbytes, how=None):
    done = 0
    for _ in range(int(count)):
        s = socket.socket(family(host))
        s.settimeout(10)
        try:
            s.connect((host, int(port)))
            s.sendall(b"x" * int(nbytes))
            if how != "rst":
                # a request and its answer: the server closes after it
                s.shutdown(socket.SHUT_WR)
                while s.recv(4096):
                    pass
            done += 1
        except OSError:
            pass
        if how == "rst":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        s.close()
    print(done)


def opened(host, port, sport, count, nbytes):
    socks = []
    for i in range(int(count)):
        s = socket.socket(family(host))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("", int(sport) + i))
        s.settimeout(10)
        try:
            s.connect((host, int(port)))
            s.sendall(b"x" * int(nbytes))
            socks.append(s)
        except OSError:
            s.close()
    time.sleep(0.5)
    for s in socks:
        s.close()
    print(len(socks))


cmd = sys.argv[1]
if cmd == "server":
    server(*sys.argv[2:])
elif cmd == "client":
    client(*sys.argv[2:])
elif cmd == "chunks":
    chunks(*sys.argv[2:5])
elif cmd == "sink":
    sink(*sys.argv[2:4])
elif cmd == "many":
    many(*sys.argv[2:7])
elif cmd == "open":
    opened(*sys.argv[2:7])
elif cmd == "pause":
    pause(*sys.argv[2:7])
elif cmd == "hold":
    hold(*sys.argv[2:6])
else:
    sys.exit(__doc__)
