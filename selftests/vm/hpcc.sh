#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc on a dumbbell with the CSIG data plane on the bottleneck port:
#
#   s1, s2 --insert (mark rule)--> [sw: bridge, sw-r transit + htb 100M] --> r
#
# The senders' tcp_csig_opt marks negotiated flows, their insertion role
# tags them with the U signal (expanded), the bottleneck port's transit role
# writes its model's U, r's module reflects it and hpcc reads it.  Base
# delay: 1 ms of netem on the ACK path (topo.sh).
#
# Checks: parameters are validated; hpcc selected by sysctl (s1) and by
# setsockopt (s2); two flows, the second joining late, fill the link fairly
# with a small queue in the port model; 16 flows stay stable; the
# standard signals (PD and ABW/C) drive it as well as U; a path that
# strips the tags falls back to Reno and completes; a flow held back by
# its application does not raise its window; a flow that did not
# negotiate CSIG runs Reno; under fq on the sender's port fq paces the
# flow and hpcc runs as without it; an RTO leaves TCP's loss window in
# place and repeated loss halves W once per episode, U or not; the
# per-socket state is readable (hpccstat) and the tracepoint fires;
# rmmod is refused while sockets use hpcc.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/iperf.sh"
. "$here/../lib/cc.sh"

CSIG_KO=$top/build/$(uname -r)/tcp_csig_opt.ko
HPCC_KO=$top/build/$(uname -r)/tcp_hpcc.ko
HPCCSTAT=$top/build/bin/hpccstat
QH=$top/selftests/lib/qhist.py
P=/sys/module/tcp_hpcc/parameters
# 100 Mbit/s: at 200 the two senders, the data plane and the receiver keep
# the guest's two vCPUs busy under TCG and the senders, not the link, set
# the rates (Documentation/tcp_hpcc.rst, "Limits")
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
# T, on the switch port (--t) and in hpcc (base_rtt_us).  The idle RTT is
# 1.2 ms, but under load under TCG it is 2-10 ms and the emulated hosts
# send in millisecond bursts; T = 4 ms spans them.  The switch measures
# its rate over windows of 16 frames in whole milliseconds, 2 ms at this
# rate, as "Deploying it" in Documentation/tcp_hpcc.rst sets it up
# (cc_transit, cc_window).
T_MS=4
CC_T_MS=$T_MS

ktap_plan 33
[ -f "$HPCC_KO" ] && [ -x "$HPCCSTAT" ] || { echo "Bail out! run make first"; exit 1; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/tcp_hpcc; }
sx() { topo_csigctl "$@"; }

ktap_run "insmod tcp_csig_opt" insmod "$CSIG_KO"
ktap_expect "tcp_hpcc refuses to load with eta=200" \
	"$(insmod "$HPCC_KO" eta=200 2> /dev/null; echo $?) != 0 && $(grep -c '^tcp_hpcc ' /proc/modules) == 0"
ktap_run "insmod tcp_hpcc line_rate_mbps=$RATE_MBIT base_rtt_us=$((T_MS * 1000))" insmod "$HPCC_KO" line_rate_mbps=$RATE_MBIT base_rtt_us=$((T_MS * 1000))
bad=0
for kv in eta=101 eta=49 max_stage=1000 w_ai=999999999 nflows=0 line_rate_mbps=0 \
	  stale_rtts=0 base_rtt_us=2000000 input=bogus eta=x commit_samples=17 \
	  tso_cap=2 grow_pct=101 commit_wait_pct=1001; do
	echo "${kv#*=}" > "$P/${kv%%=*}" 2> /dev/null && bad=$((bad + 1))
done
ktap_expect "14 invalid parameter writes refused, the values unchanged" \
	"$bad == 0 && $(cat $P/eta) == 95 && $(cat $P/max_stage) == 5 && \"$(cat $P/input)\" == \"auto\" && $(cat $P/grow_pct) == 90 && $(cat $P/commit_wait_pct) == 100"
ktap_expect "hpcc is an available congestion control" \
	"$(sysctl -n net.ipv4.tcp_available_congestion_control | grep -cw hpcc) == 1"

modprobe -q tcp_diag	# loaded now, not by ss under traffic
topo_dumbbell 2 pfifo limit 1000 || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
# the expanded tag needs 4 bytes beyond a VLAN tag's room (csig_chain.sh)
for i in 1 2; do
	ip -n "${TOPO}s$i" link set "s$i-eth0" mtu 1496
done
cc_insert_u s1 s2 || { ktap_fail "setup"; ktap_finished; }
cc_transit sw sw-r ${RATE_MBIT}mbit
# A namespace may make only the algorithms the initial namespace allows
# its default (EPERM otherwise; on 6.1 and 6.12 that error also leaks a
# module reference, after which rmmod is impossible): allow hpcc first.
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) hpcc"
topo_exec s1 sysctl -qw net.ipv4.tcp_congestion_control=hpcc

# bytes per super-packet at the bottleneck: TX_STAMP0 TX_STAMP1 NPACKETS
# (topo_tx_stamp readings, the port model's packets between them)
per_pkt()
{
	local b0 b1

	read -r b0 _ <<< "$1"
	read -r b1 _ <<< "$2"
	echo $(((b1 - b0) / ($3 > 0 ? $3 : 1)))
}

# iperf3 JSON -> per-interval Mbit/s, one line
mbits() { jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$1"; }
# flow_mbit SECS: an hpcc flow from s1 for SECS; its goodput, whole Mbit/s
flow_mbit()
{
	topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc -t "$1" -J |
		jq '.end.sum_received.bits_per_second / 1e6 | floor'
}

# The same-boot reference for the throughput checks: two Cubic flows
# whose super-packets are as small as tso_cap makes hpcc's (2 segments),
# so that they cost the emulated hosts' CPU as much per byte.  Where
# they fill the link (0.95 of it) the goals below stand as written;
# where the machine under the VM lets them reach less, the goals scale
# with it (topo_scaled).
ref=$(topo_capacity cubic $RATE_MBIT 2)
ktap_diag "reference: two Cubic flows of 2-segment super-packets, utilisation $(printf %.3f "$ref")"
scaled() { topo_scaled "$1" "$ref" 0.95; }
# the two flows' goals (two_score and the checks)
TWO_UTIL=$(scaled 0.80) TWO_JAIN=0.95
# flow_best SECS: sets tput, an hpcc flow's goodput (flow_mbit, with its
# server); not above half the link (scaled), it is measured once more and
# the better run kept (Documentation/testing.rst, "What a guest's
# commands cost")
flow_best()
{
	flow_secs=$1
	ktap_best_of_two flow_run tput
}
flow_run()
{
	topo_iperf_server 5201
	tput=$(flow_mbit "$flow_secs")
	# the goal is strictly above half the link: at it, the score is below 1
	score=$(awk "BEGIN { t = ${tput:-0}; h = $(scaled "$RATE_MBIT / 2")
			     print (t > h ? 1 : 0.999 * t / h) }" < /dev/null)
}

# two flows, the second 4 s late; steady state measured from 8 s to 12 s.
# N of the W_ai rule of thumb is the number of flows expected (draft 5).
echo 2 > $P/nflows
# two_flows: the scenario once; sets the variables in $two_vars
two_vars="j1 j2 q0 q1 p1 p2 st1 fl1 sig st2 ssout ts0 ts1 rc1 rc2 util npk p50 p99 qmax"
two_flows()
{
	q0=$(mktemp) q1=$(mktemp)
	topo_two_flows 14 4 -C hpcc
	sleep 2
	st1=$(topo_exec s1 "$HPCCSTAT" | grep ':5201 ' | tail -1)
	fl1=$(topo_exec s1 cat /proc/net/csig_opt_flows | grep -o ':5201 negotiated.*' | tail -1)
	sig=$(sx sw show sw-r | grep signals)
	st2=$(topo_exec s2 "$HPCCSTAT" --json)
	ssout=$(topo_exec s1 ss -tin dst "$TOPO_RCV_IP")
	sleep 1
	# nothing else runs while the link is measured: under TCG every command
	# takes CPU from the senders
	sx sw --json show sw-r > "$q0"
	ts0=$(topo_tx_stamp)
	sleep 4
	ts1=$(topo_tx_stamp)
	sx sw --json show sw-r > "$q1"
	wait $p1
	rc1=$?
	wait $p2
	rc2=$?
	util=$(topo_util "$ts0" "$ts1" $RATE_MBIT)
	read -r npk p50 p99 qmax <<< "$("$QH" "$q0" "$q1" 50 99)"
}
# two_score: sets jain, the Jain fairness over 1 s windows (s2's seconds
# 4..8, s1's 8..12), and score, how near the run came to its two goals:
# the lesser ratio of utilisation and fairness to them, 1 or more where
# both are met
two_score()
{
	jain=$(iperf_jain2 "$j1" "$j2" 4 4 4)
	score=$(awk "BEGIN { u = $util / $TWO_UTIL; j = ${jain:-0} / $TWO_JAIN
			     print (u < j ? u : j) }" < /dev/null)
}
# Under TCG the emulated hosts' CPU sets the rate, and a stall of the
# machine under the VM takes a share of one run (of one flow's 0.5 s
# intervals) that a regression would take of both: short of a goal, the
# scenario runs once more and the better run is the one checked.
two_run()
{
	two_flows
	two_score
	ktap_diag "two flows: utilisation $(printf %.3f "$util") (goal $(printf %.3f "$TWO_UTIL")), Jain $jain (goal $TWO_JAIN)"
}
# shellcheck disable=SC2086
ktap_best_of_two two_run $two_vars jain
ktap_diag "s1 (sysctl) Mbit/s per 0.5 s: $(mbits "$j1")"
ktap_diag "s2 (setsockopt, +4 s): $(mbits "$j2")"
ktap_diag "s1: $st1"
ktap_diag "s1's flow: $fl1; the port: $sig"
ktap_diag "port model queue over 4 s: $npk packets, p50 ${p50} ns, p99 ${p99} ns, max ${qmax} ns; utilisation $(printf %.3f "$util")"
ktap_expect "hpcc selected with sysctl (s1) and setsockopt (s2); both flows complete" \
	"$rc1 == 0 && $rc2 == 0 && $(echo "$ssout" | grep -c hpcc) >= 1 && $(echo "$st2" | jq length) >= 1"
# U is what the port saw in the last T: under TCG on a slow machine the
# senders stall for milliseconds, and one reading has been 0.002: the
# check is that the U signal is read, its value in range
ktap_expect "hpccstat: the flows read the U signal, U in [0, 3), W above 0" \
	"$(echo "$st1" | grep -c ' u U ') >= 1 && $(echo "$st2" | jq '[.[] | select(.source == "u" and .U >= 0 and .U < 3 and .W > 0)] | length') >= 1"
ktap_diag "Jain fairness per 1 s window, lowest of 4: $jain"
# The goals: at least 90% utilisation, Jain at least 0.95 over 1 s
# windows, the late flow converging to its fair share (measured:
# Documentation/results.rst, "Per-module benchmarks").  The checks are
# regression guards that hold on a machine where everything runs slower;
# a host that takes one of the guest's CPUs fails them, as it should.
ktap_expect "two flows: utilisation at least 80% (scaled to the reference)" "$util >= $TWO_UTIL"
ktap_expect "two flows: Jain fairness at least 0.95 in every 1 s window" "${jain:-0} >= $TWO_JAIN"
# the late flow: first 0.5 s interval at 50% / 80% of its fair share
share=$(scaled "$RATE_MBIT * 0.95 / 2")
conv50=$(iperf_ramp "$j2" "$share" 0.5)
conv80=$(iperf_ramp "$j2" "$share" 0.8)
ktap_diag "late flow at 50% of its fair share after ${conv50} s, at 80% after ${conv80} s"
ktap_expect "the late flow gets half its fair share within 2 s" "$conv50 <= 2"
ktap_expect "the port model's p99 queue stays below T ($T_MS ms)" \
	"$npk > 1000 && $p99 < $T_MS * 1000000"
# tso_cap: super-packets of rate >> pacing_shift, 2 segments at ~45 Mbit/s
# per flow (2.9 KB; 8-16 KB with the kernel's sizing at this min RTT)
spk=$(per_pkt "$ts0" "$ts1" "$npk")
ktap_diag "two flows: $spk bytes per super-packet at the bottleneck"
ktap_expect "tso_cap: super-packets of at most 3 segments" "$npk > 1000 && $spk <= 3 * 1500"

# the tracepoint, on a flow of its own (ktap_trace: under TCG, static
# keys change only between flows)
# with tso_cap=0, the kernel's TSO sizing
T=$KTAP_T
echo 0 > $P/tso_cap
ktap_trace tcp_hpcc 1
topo_iperf_server 5201
sx sw --json show sw-r > "$q0"
ts0=$(topo_tx_stamp)
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 2 > /dev/null 2>&1
ts1=$(topo_tx_stamp)
sx sw --json show sw-r > "$q1"
ktap_trace tcp_hpcc 0
echo 1 > $P/tso_cap
read -r npk _ <<< "$("$QH" "$q0" "$q1" 50 99)"
spk0=$(per_pkt "$ts0" "$ts1" "$npk")
ktap_diag "tso_cap=0, one flow: $spk0 bytes per super-packet"
ktap_expect "tso_cap=0: the kernel's larger super-packets" "$spk0 > 2 * $spk"
ev=$(grep -c 'hpcc_update:.*committed=1.*source=u' $T/trace)
ktap_diag "tracepoint: $ev committed updates in 2 s; last: $(grep hpcc_update: $T/trace | tail -1 | sed 's/.*hpcc_update: //')"
ktap_expect "the hpcc_update tracepoint reports committed updates" "${ev:-0} > 0"

# 16 flows
echo 16 > $P/nflows
j=$(mktemp)
topo_iperf_server 5201
sx sw --json show sw-r > "$q0"
f0=$(ctr s1 fallbacks) fa0=$(ctr s1 fallback_acks)
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -P 16 -C hpcc -t 8 -J > "$j" 2>&1 &
p=$!
sleep 4
ts0=$(topo_tx_stamp)
sleep 3
ts1=$(topo_tx_stamp)
wait $p
rc=$?
sx sw --json show sw-r > "$q1"
util=$(topo_util "$ts0" "$ts1" $RATE_MBIT)
read -r npk p50 p99 qmax <<< "$("$QH" "$q0" "$q1" 50 99)"
jain=$(jq -r '[.end.streams[].sender.bits_per_second] | (add * add) / (length * (map(. * .) | add))' "$j")
rtx=$(jq -r '.end.sum_sent.retransmits' "$j")
ktap_diag "16 flows: utilisation $(printf %.3f "$util"), Jain $jain, retransmits $rtx, queue p50 $p50 ns p99 $p99 ns max $qmax ns"
# measured 0.87-0.95 and Jain 0.99-1.00 (0.76-0.83, 0.92-0.99 before
# tso_cap); 0.71 and 0.77 on the slow host
ktap_expect "16 flows: all complete, utilisation at least 65% (scaled)" "$rc == 0 && $util >= $(scaled 0.65)"
# not one ACK in Reno either (the ACK of each SYN reaches cong_control
# before init, and once counted as a fallback ACK)
ktap_expect "16 flows: Jain fairness at least 0.7, none fell back" \
	"${jain:-0} >= 0.7 && $(ctr s1 fallbacks) == $f0 && $(ctr s1 fallback_acks) == $fa0"
ktap_expect "16 flows: p99 queue below 2 T" "$p99 < 2 * $T_MS * 1000000"

# the standard signals: the senders ask for PD and ABW/C, hpcc derives u
for i in 1 2; do sx "s$i" set "s$i-eth0" --types pd,abwc > /dev/null; done
echo std > $P/input
s0=$(ctr s1 samples_std)
f0=$(ctr s1 fallbacks)
flow_best 4
echo auto > $P/input
for i in 1 2; do sx "s$i" set "s$i-eth0" --types u > /dev/null; done
ktap_diag "input=std: $tput Mbit/s, $(($(ctr s1 samples_std) - s0)) PD/ABW-C samples taken"
ktap_expect "input=std: u from PD and ABW/C, no fallback, more than half the link (scaled)" \
	"$(ctr s1 samples_std) - $s0 > 100 && $(ctr s1 fallbacks) == $f0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2")"

# fq on the sender's port: fq paces the flow at hpcc's sk_pacing_rate
# (TCP's internal pacing stands down once fq marks the socket), and hpcc
# runs on U as without it
# times fq has throttled a flow: the last "throttled" of its statistics
# ("flows N (inactive N throttled N)", then "gc N highprio N throttled N")
fqth() { topo_tc_stat s1 s1-eth0 root throttled; }
tc -n "${TOPO}s1" qdisc add dev s1-eth0 root fq
th0=$(fqth)
f0=$(ctr s1 fallbacks) su0=$(ctr s1 samples_u)
sx sw --json show sw-r > "$q0"
flow_best 4
sx sw --json show sw-r > "$q1"
th1=$(fqth)
tc -n "${TOPO}s1" qdisc del dev s1-eth0 root
read -r npk p50 p99 qmax <<< "$("$QH" "$q0" "$q1" 50 99)"
ktap_diag "fq on s1: $tput Mbit/s, fq throttled a flow $((th1 - th0)) times, $(($(ctr s1 samples_u) - su0)) U samples, queue p99 $p99 ns"
ktap_expect "fq: it paces hpcc's flow, which runs on U, more than half the link (scaled), p99 queue below T" \
	"$th1 - $th0 > 100 && $(ctr s1 samples_u) - $su0 > 100 && $(ctr s1 fallbacks) == $f0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2") && $p99 < $T_MS * 1000000"

# window validation: a flow that its application holds to a fifth of the
# link does not raise W (commits_held counts it), unless grow_pct is 0
h0=$(ctr s1 commits_held)
topo_iperf_server 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc -b $((RATE_MBIT / 5))M -t 2 > /dev/null 2>&1
h1=$(ctr s1 commits_held)
echo 0 > $P/grow_pct
topo_iperf_server 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc -b $((RATE_MBIT / 5))M -t 2 > /dev/null 2>&1
h2=$(ctr s1 commits_held)
echo 90 > $P/grow_pct
ktap_diag "a flow at a fifth of the link: $((h1 - h0)) commits held with grow_pct=90, $((h2 - h1)) with 0"
ktap_expect "an application-limited flow does not raise W (held); grow_pct=0 turns that off" \
	"$h1 - $h0 > 10 && $h2 == $h1"

# Loss with fresh telemetry (Documentation/tcp_hpcc.rst, "Departures
# from the draft"): drops that U does not show, by netem as
# the bottleneck's leaf (a fifo of 1000 packets like the one before,
# which drops what it is told to).  First an RTO: everything dropped for
# 0.6 s in the middle of a flow; the first ACK after it must find TCP's
# loss window, not the window before the loss.  The flow's packets are
# marked CE for 0.3 s first (the flow negotiated ECN), as a
# queue that marks would: an ECE puts TCP in CWR, and an RTO in CWR is
# one TCP does not count as a new reduction (no CA_EVENT_LOSS), but it
# is a loss episode for hpcc, whose W CWR does not touch.  The samples stop with
# the ACKs for longer than stale_rtts (4) round trips, and the loss
# state's ACKs, whose SACK blocks can leave no room for a sample, ack
# more than its window of one: the flow must not fall back to Reno
# there (Documentation/tcp_hpcc.rst, "Fallback").  Then repeated loss behind a port whose U reads
# next to 0 (its model at 100 Gbit/s: U about 0.001, a peer as good as
# reflecting U = 0): 2% of the packets dropped, W halves once per
# episode and does not stay at the line rate.
LT=$top/selftests/lib/losstrace.py
loss() { tc -n "${TOPO}sw" qdisc change dev sw-r parent 1:1 handle 10: netem limit 1000 loss "$1"; }
topo_set_leaf netem limit 1000
echo 16384 > $KTAP_T/buffer_size_kb
to0=$(topo_nstat s1 TcpExtTCPTimeouts) l0=$(ctr s1 losses) fb0=$(ctr s1 fallbacks)
ktap_trace tcp_hpcc 1
topo_iperf_server 5201
topo_exec s1 sysctl -qw net.ipv4.tcp_ecn=1
# CE is set on s1's way out, before its tag goes on: the switch's
# bridge sees tagged frames, which an "ip" match does not
topo_exec s1 nft add table ip hpcct
topo_exec s1 nft add chain ip hpcct f '{ type filter hook output priority 0; policy accept; }'
ce0=$(topo_nstat s1 TcpExtTCPDeliveredCE)
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc -t 3 > /dev/null 2>&1 &
p=$!
sleep 1.5
topo_exec s1 nft add rule ip hpcct f ip daddr "$TOPO_RCV_IP" tcp dport 5201 ip ecn set ce
sleep 0.3
loss 100%
echo "losstrace: on" > $KTAP_T/trace_marker
sleep 0.6
loss 0%
echo "losstrace: off" > $KTAP_T/trace_marker
topo_exec s1 nft delete table ip hpcct
wait $p
rc=$?
topo_exec s1 sysctl -qw net.ipv4.tcp_ecn=2
ktap_trace tcp_hpcc 0
ce=$(($(topo_nstat s1 TcpExtTCPDeliveredCE) - ce0))
lt=$(python3 "$LT" $KTAP_T/trace hpcc_update 5201)
l1=$(ctr s1 losses)
to=$(($(topo_nstat s1 TcpExtTCPTimeouts) - to0)) lo=$((${l1:-0} - ${l0:-0})) fb=$(($(ctr s1 fallbacks) - fb0))
read -r gap cpre cnext src <<< "$(jq -r '.gap | "\(.s) \(.before.cwnd) \(.next.cwnd) \(.next.source)"' <<< "$lt")"
# the RTO's episode: the loss records within the blackout, the longest
# silence of the flow's ACKs between the markers (under TCG reordering
# can make another episode, of fast recovery, elsewhere in the flow, and
# a stall of the emulated host a longer silence)
nl=$(jq '(.gap.before.t // 0) as $a | (.gap.next.t // 0) as $b |
	[.losses[] | select(.t > $a and .t <= $b)] | length' <<< "$lt")
ktap_diag "RTO: $ce packets delivered CE before it; timeouts +$to, loss episodes +$lo ($nl in the blackout), no ACK for $(printf %.2f "${gap:-0}") s; cwnd $cpre before, $cnext on the next ACK (source $src); fallbacks +$fb"
ktap_expect "an RTO in CWR with fresh telemetry: a loss episode, no fallback; the next ACK finds TCP's loss window, not the window before the loss" \
	"$rc == 0 && $ce > 0 && $to >= 1 && $lo >= 1 && ${nl:-0} == 1 && ${gap:-0} >= 0.3 && ${cpre:-0} >= 4 && ${cnext:-1000} <= ${cpre:-0} / 2 && $fb == 0"

sx sw detach sw-r > /dev/null
cc_transit sw sw-r 100000mbit
loss 2%
f0=$(ctr s1 fallbacks) d0=$(topo_dropped)
ktap_trace tcp_hpcc 1
topo_iperf_server 5201
# 8 s: the median W of a 4 s flow's second half, some 25 episodes, read
# 4-14 KB in most runs and 25.5 KB in one in about ten, where a few of
# W's returns to the line rate (below) fell in that half; twice the
# episodes narrow it
tput=$(flow_mbit 8)
ktap_trace tcp_hpcc 0
dropped=$(($(topo_dropped) - d0))
topo_set_leaf pfifo limit 1000
sx sw detach sw-r > /dev/null
cc_transit sw sw-r ${RATE_MBIT}mbit
lt=$(python3 "$LT" $KTAP_T/trace hpcc_update 5201)
read -r nl nh umax wmed <<< "$(jq -r '[(.losses | length),
	([.losses[] | select(.after.W <= (.before.W // 0) / 2 + 1 or .after.W <= 256)] | length),
	([.losses[].before.U // -1] | max // -1), (.w_median_late // -1)] | map(tostring) | join(" ")' <<< "$lt")"
# W at the line rate: line rate * T, the least w_max can be
wline=$((RATE_MBIT * 125 * T_MS))
ktap_diag "U next to 0 and 2% loss ($dropped dropped): $tput Mbit/s, $nl loss episodes ($nh halved W), largest U at a loss $umax; median W of the flow's second half $wmed bytes (line rate * T $wline)"
# the episodes that did not halve W, each with its neighbours' records
ktap_diag "... not halved: $(jq -c '[.losses[] | select((.after.W <= (.before.W // 0) / 2 + 1 or .after.W <= 256) | not) |
	{t, dt: (.t - (.before.t // 0)), before: (.before | {W, Wc, U, cwnd}), after: (.after | {W, Wc, U, cwnd}), next: (.next | {W, Wc, U, cwnd})}]' <<< "$lt" 2>&1 | head -c 1500)"
ktap_expect "repeated loss, U next to 0: W halves once per episode, no fallback" \
	"${nl:-0} >= 3 && ${nh:-0} == ${nl:-0} && ${umax:-1} >= 0 && ${umax:-1} < 0.05 * 1048576 && $(ctr s1 fallbacks) == $f0"
# W halves at each episode and grows back by W_ai per update below the
# W before it, where U, next to 0, takes it to the line rate at once;
# a W that U alone drove back after each halving would hold the median
# at line rate * T
ktap_expect "... and W does not stay at the line rate (median at most half of it)" \
	"${wmed:--1} >= 0 && ${wmed:--1} <= $wline / 2"

# a path that strips the tags: no samples, fall back to Reno, complete
sx sw detach sw-r > /dev/null
sx sw attach sw-r strip > /dev/null
f0=$(ctr s1 fallbacks)
a0=$(ctr s1 fallback_acks)
flow_best 4
ktap_diag "stripped path: $tput Mbit/s, fallbacks +$(($(ctr s1 fallbacks) - f0)), fallback ACKs +$(($(ctr s1 fallback_acks) - a0))"
ktap_expect "a stripping path: the flow falls back, counted" \
	"$(ctr s1 fallbacks) > $f0 && $(ctr s1 fallback_acks) > $a0"
ktap_expect "... and completes at more than half the link (scaled)" "${tput:-0} > $(scaled "$RATE_MBIT / 2")"
sx sw detach sw-r > /dev/null
cc_transit sw sw-r ${RATE_MBIT}mbit

# no negotiation (the receiver does not accept): Reno from the start
echo 0 > /sys/module/tcp_csig_opt/parameters/accept_offers
n0=$(ctr s1 flows_no_csig)
flow_best 3
echo 1 > /sys/module/tcp_csig_opt/parameters/accept_offers
ktap_diag "not negotiated: $tput Mbit/s"
ktap_expect "a flow without CSIG runs Reno, counted, and completes" \
	"$(ctr s1 flows_no_csig) > $n0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2")"
ktap_expect "the counters are per namespace (sw has no hpcc flow)" \
	"$(ctr sw flows) == 0 && $(ctr s1 flows) > 0"

# rmmod while a socket uses hpcc: refused; after: done
topo_iperf_server 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc -t 3 > /dev/null 2>&1 &
p=$!
sleep 1.5
ktap_expect "rmmod tcp_hpcc refused while a socket uses it" \
	"$(rmmod tcp_hpcc 2> /dev/null; echo $?) != 0 && $(grep -c '^tcp_hpcc ' /proc/modules) == 1"
ktap_expect "rmmod tcp_csig_opt refused while tcp_hpcc uses its API" \
	"$(rmmod tcp_csig_opt 2> /dev/null; echo $?) != 0"
wait $p
ktap_expect "... the flow completed" "$? == 0"
topo_exec s1 sysctl -qw net.ipv4.tcp_congestion_control=cubic
sleep 0.5
ktap_run "rmmod tcp_hpcc once its sockets are gone" rmmod tcp_hpcc
ktap_run "rmmod tcp_csig_opt" rmmod tcp_csig_opt
ktap_expect "nothing left loaded" "$(grep -c '^tcp_hpcc \|^tcp_csig_opt ' /proc/modules) == 0"
ktap_finished
