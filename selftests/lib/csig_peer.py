#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP peer that did not negotiate CSIG and sends our option all the
same (selftests/host/csig_host.t, selftests/vm/csig_bpf.sh).

    csig_peer.py serve PORT
        accept one IPv4 connection on PORT, read it to its end and print
        the bytes received
    csig_peer.py client DST PORT MODE SECS MARK HOLD
        connect to DST:PORT with the kernel's TCP (SO_MARK MARK unless 0),
        so that the SYN is whatever this host's TCP sends; once
        established, send one segment of that connection from a raw
        socket, at its sequence and ACK numbers (read with TCP_REPAIR),
        carrying our option: MODE confirm, the 4-byte handshake option
        (a confirmation); reflect, one new sample (type 6, S 29, LM 97);
        none sends no such segment.
        Then write 1000 bytes every 2 ms for SECS seconds, counting the
        peer's segments and those that carry our option; print that as
        one JSON line, and keep the connection open HOLD seconds more.

The option's kind and ExID are read from include/csig_opt.h, which owns
them.
"""
import json
import socket
import struct
import sys
import threading
import time

import pkt
from csig_consts import consts

C = consts()
KIND, EXID = C["CSIG_OPT_KIND"], C["CSIG_OPT_EXID"]
HDR, SMP = C["CSIG_OPT_HDR_LEN"], C["CSIG_OPT_SAMPLE_LEN"]

# serve: how long it waits for its one connection, seconds
ACCEPT_SECS = 30

# <linux/tcp.h>
TCP_INFO = 11
TCP_REPAIR = 19
TCP_REPAIR_QUEUE = 20
TCP_QUEUE_SEQ = 21
TCP_REPAIR_WINDOW = 29
TCP_RECV_QUEUE = 1
TCP_SEND_QUEUE = 2
TCP_REPAIR_ON = 1
TCP_REPAIR_OFF_NO_WP = -1
SO_MARK = 36


def ours(opts):
    """Does the option list @opts hold our option (kind and ExID)?"""
    i = 0
    while i < len(opts):
        k = opts[i]
        if k == 0:
            return False
        if k == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            return False
        n = opts[i + 1]
        if k == KIND and n >= HDR and i + 4 <= len(opts) and \
                struct.unpack("!H", opts[i + 2:i + 4])[0] == EXID:
            return True
        i += n
    return False


def option(mode):
    if mode == "confirm":
        return struct.pack("!BBH", KIND, HDR, EXID)
    smp = struct.pack("!B", (6 << C["CSIG_OPT_T_SHIFT"]) |
                      C["CSIG_OPT_N_BIT"]) + \
        struct.pack("!I", 29)[1:] + struct.pack("!H", 97)
    return struct.pack("!BBH", KIND, HDR + SMP, EXID) + smp


def sequence(s):
    """The connection's next sequence number, the next one it expects and
    the window it advertises, as TCP_REPAIR reads them."""
    u32 = 0xffffffff
    wscale = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 104)[6] >> 4
    s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR, TCP_REPAIR_ON)
    try:
        s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE)
        snd = s.getsockopt(socket.IPPROTO_TCP, TCP_QUEUE_SEQ) & u32
        s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE)
        rcv = s.getsockopt(socket.IPPROTO_TCP, TCP_QUEUE_SEQ) & u32
        rw = struct.unpack("5I", s.getsockopt(socket.IPPROTO_TCP,
                                              TCP_REPAIR_WINDOW, 20))
    finally:
        s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR, TCP_REPAIR_OFF_NO_WP)
    return snd, rcv, min(rw[3] >> wscale, 65535)


def serve(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    # a client that found no listener leaves nothing to accept: give up
    # rather than hold the test until its timeout
    ls.settimeout(ACCEPT_SECS)
    try:
        c, _ = ls.accept()
    except socket.timeout:
        sys.exit("serve: no connection in %d s" % ACCEPT_SECS)
    n = 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        n += len(b)
    print(n, flush=True)


def client(dst, port, mode, secs, mark, hold):
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if mark:
        s.setsockopt(socket.SOL_SOCKET, SO_MARK, mark)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.connect((dst, port))
    src, lport = s.getsockname()
    seen = {"segs": 0, "ours": 0}
    stop = threading.Event()

    def count():
        raw.settimeout(0.1)
        while not stop.is_set():
            try:
                b = raw.recv(65535)
            except socket.timeout:
                continue
            hl = (b[0] & 15) * 4
            if socket.inet_ntoa(b[12:16]) != dst or len(b) < hl + 20:
                continue
            sport, dport, _, _, off = struct.unpack("!HHIIB", b[hl:hl + 13])
            if sport != port or dport != lport:
                continue
            seen["segs"] += 1
            if ours(b[hl + 20:hl + (off >> 4) * 4]):
                seen["ours"] += 1

    time.sleep(0.3)		# the peer's end is established
    snd, rcv, win = sequence(s)
    if mode != "none":
        seg = pkt.ip(src, dst, pkt.tcp(src, dst, lport, port, snd, rcv,
                                       pkt.ACK, option(mode), win=win))
        out = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                            socket.IPPROTO_RAW)
        out.sendto(seg, (dst, 0))
    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.1)
    sent, end = 0, time.monotonic() + secs
    while time.monotonic() < end:
        sent += s.send(b"x" * 1000)
        time.sleep(0.002)
    time.sleep(0.3)		# the last ACKs
    stop.set()
    t.join()
    print(json.dumps({"lport": lport, "seq": snd, "ack": rcv, "win": win,
                      "sent": sent, "peer_segs": seen["segs"],
                      "peer_opts": seen["ours"]}), flush=True)
    time.sleep(hold)
    s.close()


def main():
    a = sys.argv[1:]
    modes = ("confirm", "reflect", "none")
    if len(a) == 2 and a[0] == "serve":
        serve(int(a[1]))
    elif len(a) == 7 and a[0] == "client" and a[3] in modes:
        client(a[1], int(a[2]), a[3], float(a[4]), int(a[5], 0), float(a[6]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
