#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Patch the network stack's run-once code before any test runs.

    warm.py

tools/vm/run runs this in the guest before its script, in a network
namespace of its own with its loopback up.  The stack keeps
its hash secrets behind DO_ONCE() (net_get_random_once()): the first
caller draws the secret and a work item then turns the once-key's jump
into a NOP, patching kernel text.  Under TCG that patching can leave a
stale int3 to a vCPU running the same code (Documentation/testing.rst,
"TCG and code patching"): 6.12 oopsed so in inet6_ehashfn() in softirq
on the first IPv6 TCP segment of a run, while a test sent forged frames.
So the first caller is this script, on an idle guest: TCP over IPv4 and
IPv6 loopback (the established hash, the ephemeral-port and sequence
secrets, IPv6 flow labels), again with SYN cookies always on (their
secrets), and UDP both ways; then it waits for the work items to patch.
Prints one line; exits non-zero when a step fails.
"""
import socket
import sys
import time


def tcp(family, addr):
    ls = socket.socket(family, socket.SOCK_STREAM)
    ls.bind((addr, 0))
    ls.listen(1)
    c = socket.create_connection((addr, ls.getsockname()[1]), timeout=5)
    s, _ = ls.accept()
    c.sendall(b"x")
    ok = s.recv(1) == b"x"
    for k in (c, s, ls):
        k.close()
    return ok


def udp(family, addr):
    r = socket.socket(family, socket.SOCK_DGRAM)
    r.bind((addr, 0))
    r.settimeout(5)
    t = socket.socket(family, socket.SOCK_DGRAM)
    t.connect(r.getsockname()[:2])
    t.send(b"x")
    ok = r.recv(1) == b"x"
    r.close()
    t.close()
    return ok


def main():
    fams = [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")]
    ok = all(tcp(f, a) and udp(f, a) for f, a in fams)
    # per namespace, and the namespace is this script's alone
    with open("/proc/sys/net/ipv4/tcp_syncookies", "w") as f:
        f.write("2")
    ok = all(tcp(f, a) for f, a in fams) and ok
    # the once-keys are disabled from a work item (once_disable_jump())
    time.sleep(0.5)
    print("warm: TCP and UDP over IPv4 and IPv6 loopback, SYN cookies: %s"
          % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
