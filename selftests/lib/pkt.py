# SPDX-License-Identifier: GPL-2.0
"""Ethernet, IPv4/IPv6 and TCP frames from bytes, sent and read on an
AF_PACKET socket, for the tests that forge traffic (csig_attack.py,
csig_inject.py, csig_spoof.py).

Plain struct packing: importing scapy costs seconds of every call under
the emulator, and building thousands of frames with it a minute.
"""
import random
import select
import socket
import struct
import time

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86dd
IPPROTO_TCP = 6

FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def csum(b):
    """The Internet checksum (RFC 1071) of @b."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def is6(addr):
    return ":" in addr


def ethertype(addr):
    """The EtherType, as bytes, of a packet from @addr's family."""
    return struct.pack("!H", ETH_P_IPV6 if is6(addr) else ETH_P_IP)


def tcp(src, dst, sport, dport, seq, ack, flags, opts=b"", payload=b"",
        win=65535):
    """A TCP header with @opts as given (padded with NOPs in front to a
    multiple of 4), and @payload, checksummed for @src -> @dst."""
    opts = b"\x01" * ((4 - len(opts) % 4) % 4) + opts
    th = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff,
                     ack & 0xffffffff, ((20 + len(opts)) // 4) << 4, flags,
                     win, 0, 0) + opts + payload
    if is6(src):
        ph = socket.inet_pton(socket.AF_INET6, src) + \
            socket.inet_pton(socket.AF_INET6, dst) + \
            struct.pack("!I3xB", len(th), IPPROTO_TCP)
    else:
        ph = socket.inet_aton(src) + socket.inet_aton(dst) + \
            struct.pack("!BBH", 0, IPPROTO_TCP, len(th))
    return th[:16] + struct.pack("!H", csum(ph + th)) + th[18:]


def ip(src, dst, payload, proto=IPPROTO_TCP):
    """@payload behind an IPv4 or IPv6 header, by @src's family."""
    if is6(src):
        return struct.pack("!IHBB", 6 << 28, len(payload), proto, 64) + \
            socket.inet_pton(socket.AF_INET6, src) + \
            socket.inet_pton(socket.AF_INET6, dst) + payload
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload),
                    random.getrandbits(16), 0, 64, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ifmac(iface):
    with open("/sys/class/net/%s/address" % iface) as f:
        return mac(f.read().strip())


def eth(dst, src):
    """The first 12 bytes of a frame: destination and source MAC."""
    return mac(dst) + src


def sock(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    return s


def send(iface, frames, rate=0):
    """Send each of @frames (whole Ethernet frames, bytes) on @iface, at
    @rate frames a second if given (in bursts of 10), else at once."""
    s = sock(iface)
    t0 = time.monotonic()
    for i, f in enumerate(frames):
        if rate and i % 10 == 0:
            time.sleep(max(0, t0 + i / rate - time.monotonic()))
        s.send(f)
    s.close()


def parse(f):
    """A dict of an untagged Ethernet frame's TCP segment, or None."""
    if len(f) < 14:
        return None
    et = struct.unpack("!H", f[12:14])[0]
    if et == ETH_P_IP and len(f) >= 34 and f[23] == IPPROTO_TCP:
        hl = (f[14] & 15) * 4
        src, dst = socket.inet_ntoa(f[26:30]), socket.inet_ntoa(f[30:34])
        end = 14 + struct.unpack("!H", f[16:18])[0]
        t = 14 + hl
    elif et == ETH_P_IPV6 and len(f) >= 54 and f[20] == IPPROTO_TCP:
        src = socket.inet_ntop(socket.AF_INET6, f[22:38])
        dst = socket.inet_ntop(socket.AF_INET6, f[38:54])
        end = 54 + struct.unpack("!H", f[18:20])[0]
        t = 54
    else:
        return None
    if len(f) < t + 20:
        return None
    sport, dport, seq, ack, off, flags = struct.unpack("!HHIIBB", f[t:t + 14])
    doff = (off >> 4) * 4
    return {"src": src, "dst": dst, "sport": sport, "dport": dport,
            "seq": seq, "ack": ack, "flags": flags,
            "opts": f[t + 20:t + doff], "payload": f[t + doff:end]}


def sniff(iface, match, count, timeout):
    """Up to @count TCP segments seen on @iface (either direction) for
    which match(segment dict) holds, within @timeout seconds."""
    s = sock(iface)
    got, end = [], time.monotonic() + timeout
    while len(got) < count:
        left = end - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        p = parse(s.recv(65535))
        if p and match(p):
            got.append(p)
    s.close()
    return got
