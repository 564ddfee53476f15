#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flow workloads of the evaluation: short and mixed TCP flows, each
timed from its first byte sent to the receiver's answer.

    flowgen.py server PORT
    flowgen.py poisson HOST PORT CC LOAD_MBIT SECS SEED CDF[*SCALE] [DRAIN_S]
    flowgen.py incast HOST PORT CC SIZE QUERIES START GAP_S [DRAIN_S]

server accepts any number of connections at once; on each, the first 8
bytes are the flow's size and it answers one byte once it has them all.

poisson opens flows with exponentially distributed gaps (seeded: the
same SEED gives the same flows) whose sizes follow CDF, a file of
"bytes percent" lines (websearch.cdf), interpolated linearly between
its points (and multiplied by SCALE, default 1), at a mean of LOAD_MBIT
of payload for SECS seconds; each
flow is a connection of its own with TCP_CONGESTION CC set before
connect().  incast opens QUERIES flows of SIZE bytes, the first at the
time START (seconds since the epoch, so that senders in other
namespaces start together) and one every GAP_S after it; a flow's
connection is made 0.2 s before its time.  START may be @DIR, a
barrier: the generator, once started, makes DIR/ready.PID and waits
(up to 600 s) for DIR/start to hold the time, which its caller writes
once every generator is ready: under TCG, Python processes started
together take seconds each to get there.  Both then wait at most
DRAIN_S (default 60) for the flows still running and print one JSON
object:

    {"flows": [[start_s, size, fct_us, skew_ms, retrans], ...],
     "unfinished": N, "errors": N, "seed": SEED, ...}

with start_s from the first arrival (poisson) or the query's number
(incast), fct_us -1 for a flow that had not finished, skew_ms how late
an incast flow started (0 for poisson) and retrans the segments its
connection retransmitted (tcp_info's tcpi_total_retrans at the answer).  The handshake
is not part of a flow's time: it runs from the first send() to the
answer, the data's transfer plus half a round trip.
"""
import bisect
import json
import os
import random
import socket
import struct
import sys
import threading
import time

TCP_CONGESTION = 13
TCP_INFO = 11
TCPI_TOTAL_RETRANS = 100      # offset of tcpi_total_retrans (u32)
MIN_SIZE = 64


def server(port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(512)

    def serve(c):
        buf = bytearray(1 << 18)
        try:
            hdr = c.recv(8, socket.MSG_WAITALL)
            if len(hdr) != 8:
                return
            left = struct.unpack("!Q", hdr)[0] - 8
            while left > 0:
                n = c.recv_into(buf, min(left, len(buf)))
                if not n:
                    return
                left -= n
            c.sendall(b"k")
        except OSError:
            pass
        finally:
            c.close()

    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


class Cdf:
    """a flow-size distribution: points (bytes, cumulative percent)"""

    def __init__(self, path, scale=1.0):
        pts = []
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].split()
                if line:
                    pts.append((float(line[0]) * scale, float(line[1])))
        if len(pts) < 2 or pts[0][1] != 0 or pts[-1][1] != 100 or \
                any(b[0] < a[0] or b[1] < a[1] for a, b in zip(pts, pts[1:])):
            sys.exit("flowgen.py: %s: want rising (bytes, percent) "
                     "points from 0 to 100 percent" % path)
        self.pts = pts
        self.cum = [p[1] for p in pts]

    def sample(self, rnd):
        u = rnd.uniform(0, 100)
        i = max(1, bisect.bisect_left(self.cum, u))
        (x0, c0), (x1, c1) = self.pts[i - 1], self.pts[i]
        x = x0 if c1 == c0 else x0 + (x1 - x0) * (u - c0) / (c1 - c0)
        return max(MIN_SIZE, int(x))

    def mean(self):
        return sum((a[0] + b[0]) / 2 * (b[1] - a[1]) / 100
                   for a, b in zip(self.pts, self.pts[1:]))

    def max(self):
        return int(self.pts[-1][0])


class Flows:
    """flows running in threads, one each; their results in order"""

    def __init__(self, host, port, cc, maxsize):
        self.host, self.port, self.cc = host, port, cc
        self.data = memoryview(bytearray(max(maxsize, MIN_SIZE)))
        self.res = []
        self.threads = []
        self.socks = []
        self.lock = threading.Lock()
        self.errors = 0

    def connect(self):
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, self.cc.encode())
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.connect((self.host, self.port))
        return s

    def _run(self, k, s, size, at):
        try:
            if s is None:
                s = self.connect()
            with self.lock:
                self.socks.append(s)
            if at is not None:
                time.sleep(max(0.0, at - time.time()))
                # how late this flow starts: the senders' skew
                self.res[k][3] = round((time.time() - at) * 1000, 2)
            bufs = [memoryview(struct.pack("!Q", size)), self.data[:size - 8]]
            t0 = time.perf_counter_ns()
            while bufs:
                # a signal can cut a blocking send short
                n = s.sendmsg(bufs)
                while n and bufs:
                    if n >= len(bufs[0]):
                        n -= len(bufs[0])
                        bufs.pop(0)
                    else:
                        bufs[0], n = bufs[0][n:], 0
            ok = s.recv(1) == b"k"
            t1 = time.perf_counter_ns()
            ti = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCPI_TOTAL_RETRANS + 4)
            if len(ti) >= TCPI_TOTAL_RETRANS + 4:
                self.res[k][4] = struct.unpack_from("I", ti, TCPI_TOTAL_RETRANS)[0]
            if ok:
                self.res[k][2] = (t1 - t0) // 1000
            else:
                with self.lock:
                    self.errors += 1
        except OSError:
            with self.lock:
                self.errors += 1
        finally:
            if s is not None:
                s.close()

    def start(self, tag, size, s=None, at=None):
        self.res.append([tag, size, -1, 0.0, 0])
        t = threading.Thread(target=self._run, daemon=True,
                             args=(len(self.res) - 1, s, size, at))
        t.start()
        self.threads.append(t)

    def failed(self, running):
        """flows that ended without their answer"""
        return sum(1 for r in self.res if r[2] < 0) - running

    def finish(self, drain):
        """wait at most drain s; the number of flows still running"""
        end = time.monotonic() + drain
        for t in self.threads:
            t.join(max(0.0, end - time.monotonic()))
        running = sum(1 for t in self.threads if t.is_alive())
        # a flow still running is cut short: its connection's reset
        # tells the server
        with self.lock:
            for s in self.socks:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        return running


def poisson(host, port, cc, load_mbit, secs, seed, cdf_path, drain):
    path, _, scale = cdf_path.partition("*")
    cdf = Cdf(path, float(scale or 1))
    rnd = random.Random(seed)
    lam = load_mbit * 1e6 / 8 / cdf.mean()     # flows per second
    plan, t = [], rnd.expovariate(lam)
    while t < secs:
        plan.append((t, cdf.sample(rnd)))
        t += rnd.expovariate(lam)
    fl = Flows(host, port, cc, cdf.max())
    t0 = time.monotonic()
    for at, size in plan:
        time.sleep(max(0.0, t0 + at - time.monotonic()))
        fl.start(round(at, 4), size)
    unfinished = fl.finish(drain)
    print(json.dumps({"flows": fl.res, "unfinished": unfinished,
                      "errors": fl.failed(unfinished), "seed": seed,
                      "load_mbit": load_mbit, "secs": secs,
                      "mean_size": cdf.mean(), "cdf": cdf_path}))


def barrier(start):
    """START, or the time the caller writes once all are ready (@DIR)"""
    if not start.startswith("@"):
        return float(start)
    d = start[1:]
    open(os.path.join(d, "ready.%d" % os.getpid()), "w").close()
    end = time.monotonic() + 600
    while time.monotonic() < end:
        try:
            with open(os.path.join(d, "start")) as f:
                return float(f.read())
        except (OSError, ValueError):
            time.sleep(0.05)
    sys.exit("flowgen.py: no start time in %s" % d)


def incast(host, port, cc, size, queries, start, gap, drain):
    fl = Flows(host, port, cc, size)
    start = barrier(start)
    for q in range(queries):
        at = start + q * gap
        time.sleep(max(0.0, at - 0.2 - time.time()))
        try:
            s = fl.connect()
        except OSError:
            fl.res.append([q, size, -1])
            with fl.lock:
                fl.errors += 1
            continue
        fl.start(q, size, s, at)
    unfinished = fl.finish(drain)
    print(json.dumps({"flows": fl.res, "unfinished": unfinished,
                      "errors": fl.failed(unfinished), "size": size,
                      "queries": queries, "gap_s": gap}))


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "server":
        server(int(a[1]))
    elif len(a) in (8, 9) and a[0] == "poisson":
        poisson(a[1], int(a[2]), a[3], float(a[4]), float(a[5]), int(a[6]),
                a[7], float(a[8]) if len(a) > 8 else 60.0)
    elif len(a) in (8, 9) and a[0] == "incast":
        if int(a[4]) < MIN_SIZE:
            sys.exit("flowgen.py: a flow is at least %d bytes" % MIN_SIZE)
        incast(a[1], int(a[2]), a[3], int(a[4]), int(a[5]), a[6],
               float(a[7]), float(a[8]) if len(a) > 8 else 60.0)
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
