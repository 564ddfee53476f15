#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_ldcp's loss episodes and fast start through a tunnel, on the
# dumbbell of ldcp.sh (red/ECN at 100 Mbit/s), with the switch's nftables
# dropping chosen packets:
#
#   s1, s2 --> [sw: bridge + nft, sw-r htb 100M + red/ecn] --> r
#
# Checks: repeated loss without an RTO, two fast recoveries in a row,
# halves cw once each, and three consecutive losses once; without
# SACK, an RTO that TCP counts as a new reduction while ldcp's loss
# episode lasts (NewReno holds fast recovery until data beyond its
# recovery point is acknowledged) halves cw again, once per such RTO;
# through an ipip tunnel, fast start's first IW - 1 segments leave
# not-ECT, counted once each, and the tunnel's outer header keeps the
# ECN field the tunnel gave it.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"

LDCP_KO=$top/build/$(uname -r)/tcp_ldcp.ko
P=/sys/module/tcp_ldcp/parameters
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
RED="red limit 1000000 min 15000 max 45000 avpkt 1500 burst 10 probability 1 ecn bandwidth $TOPO_RATE"
# IW = 100 Mbit/s * 1.5 ms = 18750 bytes (ldcp.sh)
IW_ARGS="bw_mbps=$RATE_MBIT base_rtt_us=1500"
T=$KTAP_T

ktap_plan 8
[ -f "$LDCP_KO" ] || { echo "Bail out! run make first"; exit 1; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/tcp_ldcp; }
# nftc NS FAMILY TABLE CHAIN PATTERN: the packets counted by the rule of
# CHAIN that matches PATTERN
nftc()
{
	topo_exec "$1" nft list chain "$2" "$3" "$4" | grep -- "$5" |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | head -1
}
# episodes RPORT [LPORT]: from the trace, the flow to RPORT's (from
# LPORT's) ldcp_update events after the marker "losstrace: on" (all of
# them without one): "NLOSS
# NHALVED RTO_BEFORE NRTO NPAWA_BETWEEN", the loss events, those that
# halved cw (floored, at least gamma = 1/8 packet), whether an "rto"
# event came before the first loss event, the "rto" events, and the
# "pawa" events between the first and the last loss event
episodes()
{
	awk -v rp="rport=$1" -v lp="${2:+lport=$2 }" \
		-v marked="$(grep -c 'losstrace: on' $T/trace)" '
		BEGIN { on = !marked }
		/tracing_mark_write: losstrace: on/ { on = 1; next }
		!on || !/ldcp_update:/ || index($0, " " lp rp " ") == 0 { next }
		{ ev = $0; sub(/.*event=/, "", ev) }
		ev == "loss" {
			cw = $0; sub(/.* cw=/, "", cw); sub(/ .*/, "", cw)
			split(cw, c, "->")
			h = int(c[1] / 2); if (h < 8192) h = 8192
			nl++; nh += (c[2] + 0 == h); pb += between; between = 0
			next
		}
		ev == "rto" { if (!nl) rb = 1; nr++ }
		ev == "pawa" && nl { between++ }
		END { printf "%d %d %d %d %d\n", nl, nh, rb, nr, pb }' $T/trace
}

ktap_run "insmod tcp_ldcp $IW_ARGS" insmod "$LDCP_KO" $IW_ARGS
modprobe -q tcp_diag
modprobe -q sch_red
topo_dumbbell 2 $RED || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) ldcp"
topo_set_cc ldcp s1 s2 r
# one packet per frame at the switch, so that a rule's count of data
# frames is a count of packets and of TCP's segments
topo_exec s1 ethtool -K s1-eth0 tso off gso off > /dev/null
# and in order: a veth hands each frame to the backlog of the CPU that
# sent it, and s1 sends from its application's CPU and from the softirq
# of the other, so that the two backlogs reorder the flow (TCP counted
# TCPSACKReorder, and took the reordering for loss: fast recoveries
# that no drop made); RPS queues the frames of s1 and those toward r on
# one CPU (rps_needed is a static key: set before any flow)
topo_exec sw sh -c 'echo 1 > /sys/class/net/sw-s1/queues/rx-0/rps_cpus'
topo_exec r sh -c 'echo 1 > /sys/class/net/r-eth0/queues/rx-0/rps_cpus'
echo 16384 > $T/buffer_size_kb

# Repeated loss without an RTO: the switch drops s1's 3001st to 3003rd
# data packets (three losses in one window, before any later packet: one
# fast recovery) and its 6001st (a second recovery, long after the first
# ended).  Each fast recovery halves cw once, whatever number of losses
# it repairs.  TCP may make more than these two (once, on 6.12, a third
# followed one with no ACK outside recovery between them, the rule
# having dropped no more and no RTO having fired): the checks count TCP's
# recoveries, fewer than the drops, and ldcp's halvings, as many as the
# recoveries.
topo_exec sw nft -f - <<EOF
table bridge ldcpl {
	chain f {
		type filter hook forward priority 0; policy accept;
		ip daddr $TOPO_RCV_IP tcp dport 5202 ip length > 1000 numgen inc mod 1000000 { 3000-3002, 6000 } counter drop
	}
}
EOF
to0=$(topo_nstat s1 TcpExtTCPTimeouts) sr0=$(topo_nstat s1 TcpExtTCPSackRecovery)
ro0=$(topo_nstat s1 TcpExtTCPSACKReorder) l0=$(ctr s1 losses) u0=$(ctr s1 undos)
rt0=$(topo_nstat s1 TcpRetransSegs) ds0=$(topo_nstat s1 TcpExtTCPDSACKRecv)
ktap_trace tcp_ldcp/ldcp_update 1
topo_iperf_server 5202
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -p 5202 -t 3 > /dev/null 2>&1
rc=$?
ktap_trace tcp_ldcp/ldcp_update 0
dr=$(nftc sw bridge ldcpl f numgen)
to=$(($(topo_nstat s1 TcpExtTCPTimeouts) - to0)) sr=$(($(topo_nstat s1 TcpExtTCPSackRecovery) - sr0))
lo=$(($(ctr s1 losses) - l0)) ro=$(($(topo_nstat s1 TcpExtTCPSACKReorder) - ro0))
rt=$(($(topo_nstat s1 TcpRetransSegs) - rt0)) ds=$(($(topo_nstat s1 TcpExtTCPDSACKRecv) - ds0))
read -r nl nh _ _ pb <<< "$(episodes 5202)"
ktap_diag "repeated loss: $dr dropped, fast recoveries +$sr, timeouts +$to, retransmitted +$rt, reordering seen +$ro, DSACKs +$ds; ldcp losses +$lo, undos +$(($(ctr s1 undos) - u0)), $nl loss events ($nh halved cw), $pb PAWA updates between the first and the last"
ktap_diag "loss events: $(grep -o 'rport=5202 cw=[0-9>-]* .*event=loss' $T/trace | sed 's/ n=.*cwnd=/ cwnd=/; s/ rate=.*//' | xargs)"
ktap_expect "repeated loss without an RTO: four drops, at least two fast recoveries but fewer than the drops, no timeout" \
	"$rc == 0 && ${dr:-0} == 4 && $sr >= 2 && $sr < ${dr:-0} && $to == 0"
ktap_expect "... cw halved once per fast recovery, the three consecutive losses once" \
	"$lo == $sr && $nl == $sr && $nh == $nl && $pb > 0"
topo_exec sw nft delete table bridge ldcpl

# Without SACK (s1's SYN does not offer it), NewReno holds fast recovery
# until data beyond its recovery point is acknowledged: the switch drops
# the data connection's first data packet after the rule goes in (any
# size: a sub-MSS segment at a write's end let through once carried
# the ACK beyond the recovery point, and TCP left recovery before the
# RTO, so that ACKs in the open state came between), passes the next eight
# (duplicate ACKs: fast recovery, ldcp halves cw; all eight left before
# TCP could see the loss, with cwnd above eight packets at that time)
# and then every first transmission, passing retransmissions (each
# sequence number seen before).  Recovery fills the holes up to the
# recovery point and waits there; the RTO that follows is one TCP counts
# as a new reduction (tcp_enter_loss(): CA_EVENT_LOSS), as is a further
# RTO after the retransmissions made progress, while TCP never leaves
# recovery and the loss state (no PAWA update): ldcp's loss episode is
# still on.  Each such RTO halves cw again; the rule goes once the first
# RTO fired.  Where the receiver's socket backlog coalesced the
# duplicates into fewer ACKs than TCP's threshold, the episode starts
# with an RTO instead (one TCP does not count in CWR, or counts), and the
# RTOs TCP counts after its start are the same case.  A kprobe on
# ldcp_cwnd_event() records the CA_EVENT_LOSS events TCP sends the flow:
# not every RTO (one after no progress since the last is not counted).
# shellcheck disable=SC2016 # the kprobe's fetch arguments
KP='p:ldcpt/ca_loss tcp_ldcp:ldcp_cwnd_event ev=$arg2:u32 dport=+12($arg1):x16 sport=+14($arg1):u16'
# the flow's port as +12($arg1) reads it: __be16 in a little-endian u16
DP=$(printf '0x%x' $(((5203 & 255) << 8 | 5203 >> 8)))
echo "$KP" >> $T/kprobe_events
echo 'ev == 3' > $T/events/ldcpt/ca_loss/filter	# CA_EVENT_LOSS
topo_exec s1 sysctl -qw net.ipv4.tcp_sack=0
topo_exec sw nft -f - <<EOF
table bridge ldcpr {
	set seen {
		typeof tcp sequence
		flags dynamic
		size 65536
	}
	chain f {
		type filter hook forward priority 0; policy accept;
	}
	chain rto {
		tcp sequence @seen counter accept comment "rtx"
		update @seen { tcp sequence }
		numgen inc mod 1000000 1-8 counter accept comment "dupack"
		counter drop comment "new"
	}
}
EOF
to0=$(topo_nstat s1 TcpExtTCPTimeouts) rr0=$(topo_nstat s1 TcpExtTCPRenoRecovery)
l0=$(ctr s1 losses)
ktap_trace tcp_ldcp/ldcp_update 1
echo 1 > $T/events/ldcpt/ca_loss/enable
topo_iperf_server 5203
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -p 5203 -t 5 > /dev/null 2>&1 &
p=$!
sleep 1.5
# the data connection: of iperf3's two to the port, the one that sent
# (the rule leaves the control connection alone)
sp=$(topo_exec s1 ss -Htni state established '( dport = :5203 )' | awk '
	!/^[ \t]/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /:5203$/) { l = $i; sub(/.*:/, "", l) }; next }
	{ b = 0; if (match($0, /bytes_acked:[0-9]+/)) b = substr($0, RSTART + 12, RLENGTH - 12) + 0 }
	b > max { max = b; p = l }
	END { print p + 0 }')
# the rule goes in, and later out, while the base chain stays: its hook,
# a static key, changes only between flows (Documentation/testing.rst)
echo "losstrace: on" > $T/trace_marker
topo_exec sw nft "add rule bridge ldcpr f ip daddr $TOPO_RCV_IP tcp sport $sp tcp dport 5203 ip length > 52 jump rto"
for _ in $(seq 20); do
	[ "$(topo_nstat s1 TcpExtTCPTimeouts)" -gt "$to0" ] && break
	sleep 0.2
done
topo_exec sw nft flush chain bridge ldcpr f
echo "losstrace: off" > $T/trace_marker
wait $p
rc=$?
nnew=$(nftc sw bridge ldcpr rto '"new"') nrtx=$(nftc sw bridge ldcpr rto '"rtx"')
topo_exec sw nft delete table bridge ldcpr
echo 0 > $T/events/ldcpt/ca_loss/enable
ktap_trace tcp_ldcp/ldcp_update 0
topo_exec s1 sysctl -qw net.ipv4.tcp_sack=1
to=$(($(topo_nstat s1 TcpExtTCPTimeouts) - to0)) rr=$(($(topo_nstat s1 TcpExtTCPRenoRecovery) - rr0))
lo=$(($(ctr s1 losses) - l0))
read -r nl nh rb nr pb <<< "$(episodes 5203 "$sp")"
# The flow's events from the rule on, in order: L ldcp's loss event, C a
# CA_EVENT_LOSS, r an ACK in the loss state, p a PAWA update.  The
# episode starts at the first L (after a C where an RTO TCP counted
# started it); then each C must be followed by an L at once, and no L
# come without one.  Prints "NC_IN UNHALVED EXTRA SEQ": the C after the
# start, those not followed by an L, the L without a C, and the events
# with runs counted (the first 60).
read -r nci unh ext evs <<< "$(awk -v rp=" lport=$sp rport=5203 " -v dp="dport=$DP sport=$sp" '
	/tracing_mark_write: losstrace: on/ { on = 1; next }
	!on { next }
	{ c = "" }
	/ ca_loss: / && index($0, dp) { c = "C" }
	/ldcp_update:/ && index($0, rp) {
		ev = $0; sub(/.*event=/, "", ev)
		c = ev == "loss" ? "L" : ev == "rto" ? "r" : ev == "pawa" ? "p" : ""
	}
	c == "" { next }
	c == "C" && started { nci++ }
	c != "L" && pend { unh++ }
	c == "L" && started && !pend { ext++ }
	c == "L" { started = 1 }
	{ pend = c == "C" && started }
	c == last { n++; next }
	{ if (last != "") seq = seq last (n > 1 ? n : "") " "; last = c; n = 1 }
	END {
		if (pend) unh++
		if (last != "") seq = seq last (n > 1 ? n : "")
		k = split(seq, w, " "); s = ""
		for (i = 1; i <= k && i <= 60; i++) s = s (i > 1 ? "," : "") w[i]
		printf "%d %d %d %s\n", nci, unh, ext, s
	}' $T/trace)"
ktap_diag "no SACK (data connection from port $sp): the switch dropped $nnew first transmissions, passed $nrtx retransmissions; fast recoveries +$rr, timeouts +$to; ldcp losses +$lo, $nl loss events after the rule ($nh halved cw), $pb PAWA updates between the first and the last"
ktap_diag "the episode's events (L loss, C CA_EVENT_LOSS, r ACK in the loss state, p PAWA): ${evs:-none}; RTOs TCP counted after its start: $nci, $unh of them without a halving, $ext halvings without one"
ktap_diag "loss events: $(awk -v f="lport=$sp rport=5203 " '/losstrace: on/ { on = 1 } on && index($0, f) && /event=loss/' $T/trace | grep -o 'cw=[0-9>-]* .*cwnd=[0-9]*' | sed 's/ n=.*cwnd=/ cwnd=/' | xargs)"
# removing the event clears the trace buffers: after the readings
echo "-:ldcpt/ca_loss" >> $T/kprobe_events
ktap_expect "no SACK: one loss episode, TCP in recovery or the loss state throughout, and RTOs in it that TCP counts as new reductions" \
	"$rc == 0 && $to >= 1 && $nl >= 1 && $rb == 0 && $pb == 0 && $nr > 0 && ${nci:-0} >= 1"
ktap_expect "... each of them halves cw again, and nothing else does: 1 + $nci halvings" \
	"${unh:-1} == 0 && ${ext:-1} == 0 && $nl == 1 + ${nci:-0} && $nh == $nl && $lo == $nl"

# Fast start through an ipip tunnel from s2 to r (fs_not_ect=1): the
# LOCAL_OUT hook sees the socket's segment and then, skb->sk still the
# socket, the tunnel's outer packet.  Only the segment is the socket's
# own: its first IW - 1 packets leave not-ECT, counted once each; the
# outer header's ECN field is the tunnel's (RFC 6040), here ECT(0),
# which s2's output chain, ahead of ldcp's hook, gives every outer
# packet (a tunnel that does not copy the inner field).  A hook that
# took the outer packet for the segment would clear it too, and count
# those packets twice.  A fifo at the bottleneck: red would mark the
# ECT outer header, and the receiver drop a not-ECT inner packet with CE
# outside.  MSS through the tunnel (MTU 1480, timestamps): 1428 bytes,
# IW 13.13 packets.
IW_T=$((RATE_MBIT * 125 * 1500 / 1000 / 1428))
modprobe -q ipip
# r logs each not-ECT packet in an ECT(0) outer header otherwise
echo 0 > /sys/module/ipip/parameters/log_ecn_error
topo_set_leaf pfifo limit 1000
ip -n "${TOPO}s2" link add tun0 type ipip local "$(topo_sender_ip 2)" remote "$TOPO_RCV_IP" &&
	ip -n "${TOPO}s2" addr add 198.19.10.2/24 dev tun0 && ip -n "${TOPO}s2" link set tun0 up &&
	ip -n "${TOPO}r" link add tun0 type ipip local "$TOPO_RCV_IP" remote "$(topo_sender_ip 2)" &&
	ip -n "${TOPO}r" addr add 198.19.10.1/24 dev tun0 && ip -n "${TOPO}r" link set tun0 up
topo_exec s2 nft -f - <<EOF
table ip tunecn {
	chain o {
		type filter hook output priority -200; policy accept;
		ip protocol 4 ip ecn set ect0
	}
}
EOF
topo_exec sw nft -f - <<EOF
table bridge tunc {
	chain f {
		type filter hook forward priority 0; policy accept;
		ip saddr $(topo_sender_ip 2) ip protocol 4 ip length > 1000 ip ecn not-ect counter comment "notect"
		ip saddr $(topo_sender_ip 2) ip protocol 4 ip length > 1000 counter comment "all"
	}
}
EOF
topo_exec r nft -f - <<EOF
table ip tunr {
	chain i {
		type filter hook input priority 0; policy accept;
		ip daddr 198.19.10.1 tcp dport 6010 ip length > 1000 ip ecn not-ect counter
	}
}
EOF
echo 1 > $P/fs_not_ect
e0=$(ctr s2 fs_not_ect)
probe=$(mktemp)
topo_exec r python3 "$here/../lib/ccprobe.py" server ldcp 6010 > "$probe" &
pp=$!
topo_wait_listen r 6010
cli=$(topo_exec s2 python3 "$here/../lib/ccprobe.py" client ldcp 6010 198.19.10.1 300000)
wait $pp
echo 0 > $P/fs_not_ect
e=$(($(ctr s2 fs_not_ect) - e0))
on=$(nftc sw bridge tunc f '"notect"') oa=$(nftc sw bridge tunc f '"all"')
rn=$(nftc r ip tunr i 'not-ect')
ktap_diag "ipip: client $cli, server $(cat "$probe"); fs_not_ect +$e (IW $IW_T packets); at r $rn inner packets not-ECT; on the switch $on of $oa outer packets not-ECT"
ktap_expect "through an ipip tunnel: fast start's first IW - 1 segments arrive not-ECT, each counted once" \
	"$(grep -c 'cc ldcp ecn 1 bytes 300000' "$probe") == 1 && $e == $IW_T - 1 && ${rn:-0} == $e"
ktap_expect "... the tunnel's outer header keeps its own ECN field (ECT(0)): no outer packet cleared" \
	"${oa:-0} >= $IW_T && ${on:-1} == 0"

topo_cleanup
trap - EXIT
echo 1 > /sys/module/ipip/parameters/log_ecn_error
modprobe -qr ipip
sleep 1
ktap_run "rmmod tcp_ldcp" rmmod tcp_ldcp
ktap_finished
