#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_ldcp on a dumbbell with a WRED/ECN bottleneck:
#
#   s1, s2 --> [sw: bridge, sw-r htb 100M + red/ecn] --> r
#
# Checks: parameters are validated; ldcp selected by setsockopt before
# connect() negotiates ECN, and by sysctl; two flows share the link with ECE driving PAWA, the
# receiver (ldcp too: iperf3's server takes the client's congestion
# control) echoing each change of CE; fast start ends when the initial
# window is acknowledged; 32 flows on a BDP of about 10 packets run with
# cw below one packet, complete, and do not time out in a storm; rmmod is
# refused while sockets use ldcp.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/iperf.sh"

LDCP_KO=$top/build/$(uname -r)/tcp_ldcp.ko
P=/sys/module/tcp_ldcp/parameters
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
# WRED/ECN: mark from K_min = 15 KB with probability rising to P_max = 0.2
# at K_max = 45 KB, on as short an average as tc's red allows (burst must
# be at least (2 K_min + K_max) / (3 avpkt))
RED="red limit 1000000 min 15000 max 45000 avpkt 1500 burst 17 probability 0.2 ecn bandwidth $TOPO_RATE"
# IW = bw * base RTT = 100 Mbit/s * 1.5 ms = 18750 bytes, 12-13 packets
IW_ARGS="bw_mbps=$RATE_MBIT base_rtt_us=1500"

ktap_plan 17
[ -f "$LDCP_KO" ] || { echo "Bail out! run make first"; exit 1; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/tcp_ldcp; }

ktap_expect "tcp_ldcp refuses to load with gamma_div=3" \
	"$(insmod "$LDCP_KO" gamma_div=3 2> /dev/null; echo $?) != 0 && $(grep -c '^tcp_ldcp ' /proc/modules) == 0"
ktap_run "insmod tcp_ldcp $IW_ARGS" insmod "$LDCP_KO" $IW_ARGS
bad=0
for kv in alpha_milli=0 alpha_milli=1001 beta_milli=0 beta_milli=2000 gamma_div=3 \
	  gamma_div=17 bw_mbps=0 base_rtt_us=0 fast_start=2 alpha_milli=x; do
	echo "${kv#*=}" > "$P/${kv%%=*}" 2> /dev/null && bad=$((bad + 1))
done
ktap_expect "10 invalid parameter writes refused, the values unchanged" \
	"$bad == 0 && $(cat $P/alpha_milli) == 1000 && $(cat $P/beta_milli) == 500 && $(cat $P/gamma_div) == 8"
ktap_expect "ldcp is an available congestion control" \
	"$(sysctl -n net.ipv4.tcp_available_congestion_control | grep -cw ldcp) == 1"

modprobe -q tcp_diag
modprobe -q sch_red
topo_dumbbell 2 $RED || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
# see hpcc.sh: a namespace may default only to an allowed algorithm.
# ECN is negotiated in the handshake, so ldcp must be the socket's
# algorithm before connect() (iperf3 3.12 sets -C after it) and the
# listener's (the SYN is ECT, which a listener accepts only when its own
# algorithm needs ECN): every namespace defaults to ldcp.
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) ldcp"
for h in s1 s2 r; do topo_exec $h sysctl -qw net.ipv4.tcp_congestion_control=ldcp; done

# setsockopt(TCP_CONGESTION) before connect(), to a listener that set it too
probe=$(mktemp)
topo_exec r python3 "$here/../lib/ccprobe.py" server ldcp 6000 > "$probe" &
pp=$!
sleep 1
cli=$(topo_exec s2 python3 "$here/../lib/ccprobe.py" client ldcp 6000 "$TOPO_RCV_IP" 1000000)
wait $pp
ktap_diag "setsockopt: client $cli; server $(cat "$probe")"
ktap_expect "setsockopt(TCP_CONGESTION, ldcp) before connect(): ldcp on both ends, ECN negotiated" \
	"$(echo "$cli $(cat "$probe")" | grep -o 'cc ldcp ecn 1' | wc -l) == 2"

# two flows, the second 3 s late; measured from 6 s to 10 s
j1=$(mktemp) j2=$(mktemp)
a0=$(ctr s1 ece_acks) c0=$(ctr r ce_changes) f0=$(ctr s1 fs_iw) n0=$(ctr s1 flows_no_ecn)
topo_iperf_server 5201
topo_exec r iperf3 -s -D -1 -p 5202 > /dev/null 2>&1
sleep 0.3
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 12 -i 0.5 -J > "$j1" 2>&1 &
p1=$!
sleep 3
topo_exec s2 iperf3 -c "$TOPO_RCV_IP" -p 5202 -t 9 -i 0.5 -J > "$j2" 2>&1 &
p2=$!
sleep 2
ssout=$(topo_exec s1 ss -tin dst "$TOPO_RCV_IP")
sleep 1
ts0=$(topo_tx_stamp)
sleep 4
ts1=$(topo_tx_stamp)
wait $p1
rc1=$?
wait $p2
rc2=$?
util=$(topo_util "$ts0" "$ts1" $RATE_MBIT)
jain=$(iperf_jain2 "$j1" "$j2" 3 3 4)
marks=$(topo_qdisc_stat marked)
drops=$(topo_dropped)
ktap_diag "s1 (sysctl) Mbit/s per 0.5 s: $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$j1")"
ktap_diag "s2 (+3 s): $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$j2")"
ktap_diag "utilisation $(printf %.3f "$util"), Jain per 1 s window (lowest of 4) $jain; red marked $marks, dropped $drops"
ktap_diag "s1: ECE ACKs +$(($(ctr s1 ece_acks) - a0)) of $(ctr s1 acks); r: CE changes echoed +$(($(ctr r ce_changes) - c0))"
ktap_expect "ldcp selected with sysctl; both flows complete with ECN negotiated" \
	"$rc1 == 0 && $rc2 == 0 && $(echo "$ssout" | grep -c ldcp) >= 1 && $(ctr s1 flows_no_ecn) == $n0"
ktap_expect "ECE-marked ACKs drive PAWA at the sender" "$(ctr s1 ece_acks) - $a0 > 10"
ktap_expect "the receiver echoes each change of CE at once" "$(ctr r ce_changes) - $c0 > 10"
# measured 0.83-0.93 and Jain 0.87-0.98 (Documentation/tcp_ldcp.rst)
ktap_expect "two flows: utilisation at least 75%" "$util >= 0.75"
ktap_expect "two flows: Jain fairness at least 0.8 in every 1 s window" "${jain:-0} >= 0.8"
# at most once per flow: the ACK of a SYN reaches cong_control before
# init, and once ended a fast start on the zeroed state
ktap_expect "fast start ended with the whole initial window acknowledged, once per flow" \
	"$(ctr s1 fs_iw) - $f0 >= 1 && $(ctr s1 fs_iw) + $(ctr s1 fs_loss) <= $(ctr s1 flows_fast_start)"

# 32 flows on a BDP of about 10 packets: cw below one packet
b0=$(ctr s1 below_one)
to0=$(topo_exec s1 nstat -az TcpExtTCPTimeouts | awk '$1 == "TcpExtTCPTimeouts" { print $2 }')
j=$(mktemp)
topo_iperf_server 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -P 32 -t 8 -J > "$j" 2>&1
rc=$?
to=$(($(topo_exec s1 nstat -az TcpExtTCPTimeouts | awk '$1 == "TcpExtTCPTimeouts" { print $2 }') - to0))
jain=$(jq -r '[.end.streams[].sender.bits_per_second] | (add * add) / (length * (map(. * .) | add))' "$j")
tput=$(jq -r '.end.sum_received.bits_per_second / 1e6 | floor' "$j")
ktap_diag "32 flows: $tput Mbit/s, Jain $jain, ACKs below one packet +$(($(ctr s1 below_one) - b0)), timeouts $to, retransmits $(jq -r '.end.sum_sent.retransmits' "$j")"
ktap_expect "32 flows: all complete at more than half the link" "$rc == 0 && ${tput:-0} > $((RATE_MBIT / 2))"
ktap_expect "32 flows: cw below one packet is in use" "$(ctr s1 below_one) - $b0 > 0"
# measured: no timeout, Jain 0.64-0.76
ktap_expect "32 flows: fewer than 32 timeouts in 8 s, Jain at least 0.5" \
	"$to < 32 && ${jain:-0} >= 0.5"

# rmmod while a socket uses ldcp (and no namespace defaults to it)
for h in s1 s2 r; do topo_exec $h sysctl -qw net.ipv4.tcp_congestion_control=cubic; done
topo_iperf_server 5201
topo_iperf 1 ldcp 3 > /dev/null &
p=$!
sleep 1.5
ktap_diag "during the flow: $(grep '^tcp_ldcp ' /proc/modules)"
ktap_expect "rmmod tcp_ldcp refused while a socket uses it" \
	"$(rmmod tcp_ldcp 2> /dev/null; echo $?) != 0"
wait $p
ktap_expect "... the flow completed" "$? == 0"
topo_cleanup
trap - EXIT
sleep 1
ktap_run "rmmod tcp_ldcp once its sockets are gone" rmmod tcp_ldcp
ktap_finished
