#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Wireshark dissectors (tools/wireshark/csig.lua) on what the CSIG
# data plane and the host path put on the wire, captured on the host
# kernel in the setting of selftests/host/csig_host.t:
#
#   s1 --insert (mark)--> [h1: bridge, transit on p1, LM 1] --> r
#
# s1 and r run the host path in BPF (csighost); csigctl inserts U tags
# on s1 and h1's port writes U with locator 1.  r's device is captured
# (selftests/lib/csig_capture.py --pcap: both directions, the tags
# before r strips them) during a flow with expanded tags, then one with
# compact tags.  Checks: the dissectors' wire values are the headers';
# tshark decodes every tag the capture tool
# counted, with the same format, type, S and LM in the same order;
# beneath a tag it dissects the frame's IPv4 and TCP; the handshake's
# options (no sample) and the ACKs' reflections (type U, LM 1, the
# tag's format) are decoded; a malformed option is flagged, not
# misread.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/lib/csig_hostns.sh"

LUA=$top/tools/wireshark/csig.lua
CAP=$top/selftests/lib/csig_capture.py

csig_hostns ws iperf3 tshark

ktap_plan 12

# the dissectors' wire values are the headers' (csig_consts.py reads
# them from include/csig.h and include/csig_opt.h)
cmp=$(python3 - "$top" "$LUA" <<'EOF'
import re
import sys
sys.path.insert(0, sys.argv[1] + "/selftests/lib")
from csig_consts import consts
c = consts()
lua = dict((m.group(1), int(m.group(2), 0)) for m in re.finditer(
    r"^\s*(CSIG_\w+) = (0x[0-9a-fA-F]+|\d+),", open(sys.argv[2]).read(), re.M))
print(len(lua), " ".join(n for n in lua if c.get(n) != lua[n]))
EOF
)
differ=$(cut -s -d' ' -f2- <<< "$cmp")
ktap_expect "the dissectors' $(cut -d' ' -f1 <<< "$cmp") wire values are include/csig.h's and csig_opt.h's" \
	"$(cut -d' ' -f1 <<< "$cmp") >= 20 && \"$differ\" == \"\"" ${differ:+"differ: $differ"}

topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
topo_cgroups s1 r || { ktap_fail "setup: cgroups"; ktap_finished; }
ktap_run "csighost attaches to s1 and r" sh -c \
	"'$H' -n '${TOPO}s1' attach s1-eth0 --cgroup '$(topo_cgroup s1)' &&
	 '$H' -n '${TOPO}r' attach r-eth0 --cgroup '$(topo_cgroup r)'"
ktap_run "csigctl: U tags inserted on s1, written on h1's port with LM 1" sh -c \
	"'$C' -n '${TOPO}s1' attach s1-eth0 insert --select mark \
		--mark 0x40000000/0x40000000 --types u --format expanded > /dev/null &&
	 '$C' -n '${TOPO}h1' attach p1 transit --capacity 40mbit --t 1ms \
		--interval 5ms --lm 1 --types u > /dev/null"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# capture NAME: a 2 s flow s1 -> r at 20 Mbit/s inside a 5 s capture of
# r's device, from before its connection to after: $T/NAME.pcap and the
# capture tool's own lines, $T/NAME.txt, both complete once it exits
capture()
{
	topo_hx r iperf3 -s -1 -D > /dev/null 2>&1
	topo_wait_listen r 5201
	topo_hx r python3 "$CAP" --pcap "$T/$1.pcap" r-eth0 5 > "$T/$1.txt" &
	for _ in $(seq 100); do
		grep -q '^# ready' "$T/$1.txt" 2> /dev/null && break
		sleep 0.1
	done
	topo_hx s1 iperf3 -c "$TOPO_RCV_IP" -t 2 -b 20M > /dev/null 2>&1
	wait
}

# ts NAME ARGS...: tshark with the dissectors on $T/NAME.pcap
ts() {
	local n=$1

	shift
	tshark -X lua_script:"$LUA" -r "$T/$n.pcap" "$@" 2> /dev/null
}

for fmt in expanded compact; do
	[ $fmt = compact ] && "$C" -n "${TOPO}s1" set s1-eth0 --format compact > /dev/null
	capture $fmt
	tool=$(grep -v '^#' "$T/$fmt.txt" | awk '{ print $1, $2, $3, $4 }')
	n=$(grep -c . <<< "$tool")
	dec=$(ts $fmt -Y csig -T fields -E separator=' ' -e csig.format -e csig.type \
		-e csig.s -e csig.lm)
	f=$([ $fmt = expanded ] && echo 1 || echo 0)
	ktap_diag "$fmt: $(tail -1 "$T/$fmt.txt"); tshark decoded $(grep -c . <<< "$dec") tags; first: $(head -1 <<< "$dec")"
	same=0
	[ "$dec" = "$tool" ] && same=1
	ktap_expect "$fmt tags: tshark decodes every tag the capture counted, format, type, S and LM alike" \
		"$n > 20 && $(grep -c "^$f 7 " <<< "$tool") == $n && $same == 1"
	ktap_expect "$fmt tags: the frame beneath each is IPv4 TCP to port 5201" \
		"$(ts $fmt -Y 'csig && ip && tcp.dstport == 5201' | grep -c .) == $n"
	opt=$(ts $fmt -Y 'csig_opt.samples > 0 && tcp.srcport == 5201' -T fields \
		-E separator=' ' -e csig_opt.sample.format -e csig_opt.sample.type \
		-e csig_opt.sample.lm | sort | uniq -c)
	# iperf3's two connections (control and data): two offers, two acceptances
	hs=$(ts $fmt -Y 'csig_opt.samples == 0 && tcp.flags.syn == 1' -T fields -e tcp.flags.ack |
		sort | tr '\n' ' ')
	ktap_diag "$fmt reflections (count format type lm): $(tr '\n' ';' <<< "$opt"); handshake options (SYN, SYN-ACK): $hs"
	ktap_expect "$fmt: the ACKs' reflections decoded, U with LM 1 in the tag's format; the handshake's offer and acceptance" \
		"$(awk -v f="$f" '$2 == f && $3 == 7 && $4 == 1 { n += $1 } END { print n + 0 }' <<< "$opt") > 10 &&
		 \"$hs\" == \"0 0 1 1 \""
done

# a malformed option (length 7, not 4 + 6n) and one with a reserved bit
# set, in frames of their own
python3 - "$T/bad.pcap" <<'EOF'
import struct
import sys

def frame(opt):
    opt += b"\x01" * (-len(opt) % 4)
    tcp = struct.pack("!HHIIBBHHH", 40000, 5201, 1, 1, (5 + len(opt) // 4) << 4, 0x10,
                      1000, 0, 0) + opt
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0,
                     bytes([198, 18, 0, 11]), bytes([198, 18, 0, 1]))
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp

good = bytes([0xfd, 10, 0xc5, 0x16, (1 << 7) | (7 << 3) | 0x04, 0, 0, 42, 0, 1])
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("=IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for opt in (bytes([0xfd, 7, 0xc5, 0x16, 0, 0, 0]), good[:4] + bytes([0xbf]) + good[5:],
                good):
        fr = frame(opt)
        f.write(struct.pack("=IIII", 1, 0, len(fr), len(fr)) + fr)
EOF
bad=$(ts bad -T fields -E separator=' ' -e frame.number -e csig_opt.samples \
	-e csig_opt.sample.type -e csig_opt.sample.s -e csig_opt.sample.lm -e _ws.expert)
ktap_diag "crafted: $(tr '\n' ';' <<< "$bad")"
ktap_expect "a length of 7 is flagged malformed and no sample is read from it" \
	"$(ts bad -Y 'frame.number == 1 && csig_opt.bad_len && !csig_opt.sample' | grep -c .) == 1"
ktap_expect "a reserved bit set is flagged, the sample still read" \
	"$(ts bad -Y 'frame.number == 2 && csig_opt.rsvd && csig_opt.sample.s == 42' | grep -c .) == 1"
ktap_expect "a well-formed sample: expanded, type 7, new, S 42, LM 1, nothing of ours flagged" \
	"$(ts bad -Y 'frame.number == 3 && csig_opt.sample.format == 1 && csig_opt.sample.type == 7 && csig_opt.sample.new && csig_opt.sample.s == 42 && csig_opt.sample.lm == 1 && !csig_opt.rsvd && !csig_opt.bad_len' | grep -c .) == 1"
ktap_finished
