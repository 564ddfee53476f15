#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_csig_opt's flow state over connections' lives, as ordinary use has
# them, with the module loaded as max_flows=64:
#
#   s1 --insert (mark rule)--> [h1 transit, 100M] --> r (tcp_csig_opt strips)
#
#  - an entry goes when its connection closes (FINs both ways) or is
#    reset: hundreds of short connections leave a full table behind
#    neither on the sender nor on the receiver, and a new connection
#    still negotiates and gets samples;
#  - connections that end unseen (their FINs and RSTs lost) fill the
#    table; the oldest idle entry then makes room for a new connection;
#  - NAT: a receiver behind its own redirect, and a sender behind SNAT,
#    record tags and get samples, keyed by what their sockets see;
#  - negotiation is on only when both ends chose it: a peer whose SYN did
#    not offer cannot turn it on by sending the option afterwards;
#  - tags on segments whose TCP checksum is wrong are not recorded;
#  - the flow list reads the same in small reads as in one;
#  - entries are charged to their socket's memory cgroup.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"

CSIGCTL=$top/build/bin/csigctl
ATT=$top/selftests/lib/csig_attack.py
XFER=$top/selftests/lib/tcpxfer.py
KO=${CSIG_OPT_KO:-$top/build/$(uname -r)/tcp_csig_opt.ko}
PY=/usr/bin/python3

ktap_plan 18
[ -f "$KO" ] && [ -x "$CSIGCTL" ] || { echo "Bail out! run make first"; exit 1; }
sx() { topo_csigctl "$@"; }
# a counter of /proc/net/csig_opt (0 when the module has no such counter)
ctr()
{
	topo_exec "$1" awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' \
		/proc/net/csig_opt
}
flows() { topo_exec "$1" cat /proc/net/csig_opt_flows; }
flowline() { flows "$1" | grep -E "^[^ ]*:$2 |^[^ ]* [^ ]*:$2 " | head -1; }
att() { ip netns exec "${TOPO}h1" $PY "$ATT" "$@"; }
xfer() { topo_exec s1 timeout 120 $PY "$XFER" "$@" 2>&1; }
# flows NS stays at most $2 within 3 s
settles()
{
	local i

	for i in $(seq 15); do
		[ "$(ctr "$1" flows)" -le "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

topo_hold_netstamp
ktap_run "insmod tcp_csig_opt max_flows=64" insmod "$KO" max_flows=64
topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
sx h1 attach p1 transit --capacity 100mbit --t 1ms --interval 20ms --lm 1 > /dev/null
topo_shape h1 p1 100mbit
MARK=$(topo_csig_mark)
sx s1 attach s1-eth0 insert --select mark --mark "$MARK/$MARK" --types u > /dev/null
rmac=$(topo_exec r cat /sys/class/net/r-eth0/address)
S1=$(topo_sender_ip 1)
R=$TOPO_RCV_IP

# --- short connections, closed and reset ------------------------------------
topo_exec r timeout 200 $PY "$XFER" sink 5301 180 > /dev/null 2>&1 &
topo_wait_listen r 5301
fs0=$(ctr s1 flows_full) fr0=$(ctr r flows_full)
got=$(xfer many "$R" 5301 300 2000)
sleep 1
ktap_diag "300 short connections: $got complete; flows_full s1 +$(($(ctr s1 flows_full) - fs0)), r +$(($(ctr r flows_full) - fr0)); flows s1 $(ctr s1 flows), r $(ctr r flows); closed s1 $(ctr s1 flows_closed), r $(ctr r flows_closed)"
ktap_expect "300 short connections, each closed, all complete" "\"$got\" == 300"
ktap_expect "... none was refused a flow entry on either end (max_flows 64)" \
	"$(ctr s1 flows_full) == $fs0 && $(ctr r flows_full) == $fr0"
settles s1 2; settles r 2
ktap_expect "... and their entries are gone on both ends" \
	"$(ctr s1 flows) <= 2 && $(ctr r flows) <= 2"
topo_exec r iperf3 -s -D -p 5201 > /dev/null 2>&1
topo_wait_listen r 5201
n0=$(ctr s1 negotiated) p0=$(ctr s1 opts_parsed) g0=$(ctr r tags_recorded)
topo_exec s1 iperf3 -c "$R" -t 3 > /dev/null 2>&1
rc=$?
ktap_diag "a flow after them: rc $rc, s1 negotiated +$(($(ctr s1 negotiated) - n0)), samples +$(($(ctr s1 opts_parsed) - p0)), r tags recorded +$(($(ctr r tags_recorded) - g0))"
ktap_expect "a connection after them negotiates and gets samples" \
	"$rc == 0 && $(ctr s1 negotiated) - $n0 >= 2 && $(ctr s1 opts_parsed) > $p0 && $(ctr r tags_recorded) > $g0"
settles s1 2; settles r 2
b1=$(ctr s1 flows) b2=$(ctr r flows)
got=$(xfer many "$R" 5301 50 2000 rst)
settles s1 "$b1"; settles r "$b2"
ktap_diag "50 connections reset: $got complete; flows s1 $b1 -> $(ctr s1 flows), r $b2 -> $(ctr r flows)"
ktap_expect "50 connections ended by RST: their entries are gone on both ends" \
	"\"$got\" == 50 && $(ctr s1 flows) <= $b1 && $(ctr r flows) <= $b2"

# --- connections that end unseen -------------------------------------------
# their FINs and RSTs are lost on both ends' way out, so neither end sees
# them close: 64 entries on each end stay until something makes room.
# Their ports are above the ephemeral range, where the connections before
# left sockets in TIME_WAIT.
for ns in s1 r; do
	topo_exec $ns nft -f - <<'NFT'
table inet lost {
	chain out {
		type filter hook output priority 0;
		tcp sport 61000-61099 tcp flags & (fin | rst) != 0 drop
		tcp dport 61000-61099 tcp flags & (fin | rst) != 0 drop
	}
}
NFT
done
got=$(xfer open "$R" 5301 61000 64 2000)
sleep 1.5
full_s=$(ctr s1 flows) full_r=$(ctr r flows)
lines=$(flows s1 | grep -vc '^#')
small=$(topo_exec s1 dd if=/proc/net/csig_opt_flows bs=97 2> /dev/null | grep -vc '^#')
ktap_diag "64 connections ended unseen: $got opened; flows s1 $full_s, r $full_r; s1's list $lines lines, in 97-byte reads $small"
ktap_expect "the flow list reads the same in small reads, one line a flow" \
	"$lines == $full_s && $small == $lines"
e0=$(ctr s1 flows_evicted) e1=$(ctr r flows_evicted)
n0=$(ctr s1 negotiated) k0=$(ctr r confirmed) p0=$(ctr s1 opts_parsed)
topo_exec s1 iperf3 -c "$R" -t 3 > /dev/null 2>&1
rc=$?
ktap_diag "a new flow: rc $rc, s1 negotiated +$(($(ctr s1 negotiated) - n0)), r confirmed +$(($(ctr r confirmed) - k0)), samples +$(($(ctr s1 opts_parsed) - p0)); evicted s1 +$(($(ctr s1 flows_evicted) - e0)), r +$(($(ctr r flows_evicted) - e1))"
ktap_expect "64 connections that ended unseen fill the table on both ends" \
	"\"$got\" == 64 && $full_s == 64 && $full_r == 64"
ktap_expect "... the oldest idle entries make room: a new flow negotiates and gets samples" \
	"$rc == 0 && $(ctr s1 negotiated) - $n0 >= 2 && $(ctr r confirmed) - $k0 >= 2 && $(ctr s1 opts_parsed) > $p0 && $(ctr s1 flows_evicted) > $e0 && $(ctr r flows_evicted) > $e1"
for ns in s1 r; do topo_exec $ns nft delete table inet lost; done
topo_exec r pkill iperf3

# the rest on a table of the default size, whatever the above left in it
rmmod tcp_csig_opt
ktap_run "insmod tcp_csig_opt (default max_flows)" insmod "$KO"

# --- NAT ---------------------------------------------------------------------
modprobe -qa nft_chain_nat nft_nat nft_redir 2> /dev/null
topo_exec r nft -f - <<'NFT'
table ip csig_redir {
	chain pre {
		type nat hook prerouting priority -100;
		tcp dport 5302 redirect to :5202
	}
}
NFT
topo_exec r iperf3 -s -D -p 5202 > /dev/null 2>&1
topo_wait_listen r 5202
g0=$(ctr r tags_recorded) p0=$(ctr s1 opts_parsed)
topo_exec s1 iperf3 -c "$R" -p 5302 -t 3 > /dev/null 2>&1
rc=$?
ktap_diag "r behind its redirect 5302 -> 5202: rc $rc, r tags recorded +$(($(ctr r tags_recorded) - g0)), s1 samples +$(($(ctr s1 opts_parsed) - p0))"
ktap_expect "a receiver behind its own redirect records tags, its sender gets samples" \
	"$rc == 0 && $(ctr r tags_recorded) > $g0 && $(ctr s1 opts_parsed) > $p0"
topo_exec r nft delete table ip csig_redir
topo_exec r pkill iperf3
topo_exec s1 ip addr add 198.18.0.12/24 dev s1-eth0
topo_exec s1 nft -f - <<NFT
table ip csig_snat {
	chain post {
		type nat hook postrouting priority 100;
		ip saddr $S1 tcp dport 5203 snat to 198.18.0.12
	}
}
NFT
topo_exec r iperf3 -s -D -p 5203 > /dev/null 2>&1
topo_wait_listen r 5203
g0=$(ctr r tags_recorded) p0=$(ctr s1 opts_parsed)
topo_exec s1 iperf3 -c "$R" -p 5203 -t 3 > /dev/null 2>&1
rc=$?
ktap_diag "s1 behind SNAT to .12: rc $rc, r tags recorded +$(($(ctr r tags_recorded) - g0)), s1 samples +$(($(ctr s1 opts_parsed) - p0)); r $(flowline r 5203)"
ktap_expect "a sender behind SNAT: tags recorded, samples arrive" \
	"$rc == 0 && $(ctr r tags_recorded) > $g0 && $(ctr s1 opts_parsed) > $p0"
topo_exec s1 nft delete table ip csig_snat
topo_exec r pkill iperf3

# --- negotiation both ends chose -------------------------------------------
# h1 plays s1 from a port where s1 has no socket (s1's resets dropped)
topo_exec s1 nft add table ip norst
topo_exec s1 nft add chain ip norst out '{ type filter hook output priority 0; }'
topo_exec s1 nft add rule ip norst out tcp sport 40700 tcp flags rst drop
topo_exec r timeout 30 $PY "$XFER" sink 5304 20 > /dev/null 2>&1 &
topo_wait_listen r 5304
u0=$(ctr r opts_unnegotiated) o0=$(ctr r opts_sent) k0=$(ctr r confirmed)
hs=$(att unoffered p1 "$rmac" "$S1" 40700 "$R" 5304 2>&1)
sleep 0.5
ktap_diag "a handshake without the offer, then the option ($hs): r $(flowline r 40700); confirmed +$(($(ctr r confirmed) - k0)), options unnegotiated +$(($(ctr r opts_unnegotiated) - u0)), unaccepted $(ctr r confirm_unaccepted)"
ktap_expect "a peer whose SYN did not offer cannot turn CSIG on by sending the option" \
	"$(echo "$hs" | grep -c '^handshake') == 1 && $(ctr r confirmed) == $k0 && $(flowline r 40700 | grep -c negotiated) == 0"
ktap_expect "... its options are counted and nothing is reflected to it" \
	"$(ctr r opts_unnegotiated) - $u0 >= 3 && $(ctr r opts_sent) == $o0"
topo_exec s1 nft delete table ip norst

# --- tags with a bad TCP checksum -------------------------------------------
# The forged segments go 20 KB past the ACK h1 sniffs, inside r's window:
# the flow must not pass them before they arrive, 0.8 s at 200 kbit/s
# (at 1 Mbit/s, 160 ms, which a stall under TCG outlasted once)
topo_exec r iperf3 -s -D -1 -p 5205 > /dev/null 2>&1
topo_wait_listen r 5205
topo_exec s1 iperf3 -c "$R" -p 5205 -t 30 --fq-rate 200K --cport 40800 > /dev/null 2>&1 &
fl=$!
topo_wait_est s1 "sport = :40800"
sleep 0.5
c0=$(ctr r tags_csum_bad)
seen=$(att insum p1 p1 "$rmac" "$S1" 40800 "$R" 5205 50 17 77 bad 2>&1)
sleep 0.5
bad=$(flowline r 40800)
seen2=$(att insum p1 p1 "$rmac" "$S1" 40800 "$R" 5205 5 19 55 2>&1)
sleep 0.5
good=$(flowline r 40800)
ktap_diag "in-window tags, bad checksum ($seen): r csum_bad +$(($(ctr r tags_csum_bad) - c0)); r $bad"
ktap_diag "... good checksum ($seen2): r $good"
ktap_expect "50 in-window tags with a bad TCP checksum: none recorded, counted" \
	"$(echo "$bad" | grep -c ' 5/0/17/77') == 0 && $(ctr r tags_csum_bad) - $c0 == 50"
ktap_expect "... the same tags with a good checksum are recorded" \
	"$(echo "$good" | grep -c ' 5/0/19/55') == 1"
topo_exec s1 pkill iperf3
wait $fl
topo_exec r pkill iperf3
topo_exec r pkill -f "$XFER"
wait

# --- charged to the memory cgroup -------------------------------------------
# a process of s1's, in a cgroup of its own, opens 4000 connections toward a port r
# drops (they stay in SYN_SENT), once offering CSIG (an entry each, about
# a kilobyte) and once not; its cgroup's memory.current grows by the
# entries' share more the first time.  The cgroup's charge moves in
# batches of 64 pages a CPU (up to 256 KB a CPU either way in each
# reading), so the process keeps to one CPU and the margin is half of
# what the entries cost.
memcg_grow()	# memcg_grow OFFER: bytes the cgroup grew by
{
	local cg before after i pid

	cg=$(topo_cgroup s1)
	echo "$1" > /sys/module/tcp_csig_opt/parameters/offer
	rm -f /tmp/memcg.ready
	before=$(cat "$cg/memory.current")
	# (ip netns exec mounts a /sys of its own: the cgroup is read here)
	topo_hx s1 $PY -c '
import os, resource, socket, sys, time
os.sched_setaffinity(0, {0})
resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
socks = []
for i in range(4000):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex((sys.argv[1], 5310))
    socks.append(s)
time.sleep(0.5)
open("/tmp/memcg.ready", "w").close()
time.sleep(30)' "$R" &
	pid=$!
	for i in $(seq 300); do
		[ -e /tmp/memcg.ready ] && break
		sleep 0.1
	done
	after=$(cat "$cg/memory.current")
	kill $pid
	wait $pid 2> /dev/null
	echo 1 > /sys/module/tcp_csig_opt/parameters/offer
	[ -e /tmp/memcg.ready ] && echo $((after - before))
}
# (the guest mounts no cgroup v2 hierarchy of its own)
if [ -z "$TOPO_CGROOT" ] && mount -t cgroup2 none /sys/fs/cgroup; then
	TOPO_CGROOT=/sys/fs/cgroup
fi
echo +memory > "$TOPO_CGROOT/cgroup.subtree_control"
topo_cgroups s1
topo_exec r nft add table ip hole
topo_exec r nft add chain ip hole in '{ type filter hook input priority 0; }'
topo_exec r nft add rule ip hole in tcp dport 5310 drop
f0=$(ctr s1 flows)
g1=$(memcg_grow 1)
f1=$(ctr s1 flows)
g0=$(memcg_grow 0)
topo_exec r nft delete table ip hole
ktap_diag "4000 connections from a cgroup: it grew by $g1 bytes offering (s1's entries $f0 -> $f1), by $g0 not offering"
ktap_expect "flow entries are charged to their socket's memory cgroup" \
	"$f1 - $f0 >= 4000 && ${g1:-0} - ${g0:-0} >= 4000 * 512"

ktap_run "rmmod" rmmod tcp_csig_opt
ktap_finished
