#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the CSIG tags of frames arriving on an interface.

    csig_capture.py [--pcap FILE] IFACE SECONDS [MAXFRAMES]

A packet socket sees a frame before tc ingress does, so the tag is still
there when a strip role runs on the same device.  One line per tagged
frame: "FORMAT TYPE S LM LENGTH SEQ" (format 0 compact, 1 expanded; SEQ
the TCP sequence number, 0 when not IPv4 TCP), then a summary line
"# frames N tagged M".  The TPIDs and the bit layout are read from
include/csig.h, which owns them.

The window of SECONDS starts once the socket is bound, which the first
line, "# ready", says (flushed at once): under TCG starting python takes
a second or more, so a caller that needs tags from a moment on waits for
that line.  SIGTERM ends the window early, the summary still printed: a
caller that needs the tags up to an event of its own stops the capture
after it.  --pcap FILE also writes every frame of the window, both
directions, to FILE (pcap, Ethernet), for a dissector to read
(tools/wireshark/csig.lua).
"""
import signal
import socket
import struct
import sys
import time

from csig_consts import consts


def main():
    c = consts()
    args = sys.argv[1:]
    pcap = None
    if args[:1] == ["--pcap"]:
        pcap = open(args[1], "wb")
        # pcap's header: version 2.4, GMT, snapshot length, Ethernet
        pcap.write(struct.pack("=IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        args = args[2:]
    ifname, secs = args[0], float(args[1])
    maxf = int(args[2]) if len(args) > 2 else 1 << 30
    tp = {c["CSIG_TPID_COMPACT"]: 0, c["CSIG_TPID_EXPANDED"]: 1}
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((ifname, 0))
    s.settimeout(0.2)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print("# ready", flush=True)
    end = time.time() + secs
    frames = tagged = 0
    while time.time() < end and tagged < maxf and not stop:
        try:
            buf, addr = s.recvfrom(262144)
        except socket.timeout:
            continue
        if pcap:
            t = time.time()
            pcap.write(struct.pack("=IIII", int(t), int(t % 1 * 1e6), len(buf), len(buf)))
            pcap.write(buf)
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        frames += 1
        off = 12
        while len(buf) >= off + 2:
            et = struct.unpack_from("!H", buf, off)[0]
            if et in (0x8100, 0x88a8):
                off += 4
                continue
            break
        if len(buf) < off + 8 or et not in tp:
            continue
        tagged += 1
        if tp[et] == 0:
            d = struct.unpack_from("!H", buf, off + 2)[0]
            t = (d >> c["CSIG_COMPACT_T_SHIFT"]) & c["CSIG_COMPACT_T_MASK"]
            v = (d >> c["CSIG_COMPACT_S_SHIFT"]) & c["CSIG_COMPACT_S_MASK"]
            lm = d & c["CSIG_COMPACT_LM_MASK"]
        else:
            lm, tsr = struct.unpack_from("!HI", buf, off + 2)
            t = (tsr >> c["CSIG_EXPANDED_T_SHIFT"]) & c["CSIG_EXPANDED_T_MASK"]
            v = (tsr >> c["CSIG_EXPANDED_S_SHIFT"]) & c["CSIG_EXPANDED_S_MASK"]
        seq = 0
        l3 = off + (4 if tp[et] == 0 else 8) + 2
        if len(buf) >= l3 + 28 and struct.unpack_from("!H", buf, l3 - 2)[0] == 0x0800 \
                and buf[l3 + 9] == 6:
            l4 = l3 + (buf[l3] & 0xf) * 4
            if len(buf) >= l4 + 8:
                seq = struct.unpack_from("!I", buf, l4 + 4)[0]
        print(tp[et], t, v, lm, len(buf), seq)
    print("# frames %d tagged %d" % (frames, tagged))
    if pcap:
        pcap.close()


main()
