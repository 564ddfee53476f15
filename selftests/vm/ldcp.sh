#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_ldcp on a dumbbell with a WRED/ECN bottleneck:
#
#   s1, s2 --> [sw: bridge, sw-r htb 100M + red/ecn] --> r
#
# (htb at 200M for the two long flows).
#
# Checks: parameters are validated; the IW is the BDP in packets of the
# MSS on a 9000-byte MTU path and on loopback; ldcp selected by
# setsockopt before connect() negotiates ECN, and by sysctl; fast start
# sends every packet ECT, or with fs_not_ect=1 its first IW - 1 packets
# not-ECT (counted on the switch); a loss in its first RTT takes the
# draft's transition; an RTO halves cw once and leaves TCP's loss window
# in place; two flows share the link with ECE driving PAWA, the receiver
# (ldcp too: iperf3's server takes the client's congestion control)
# echoing each change of CE; ccstat reads the per-socket state; the CSIG
# port model's WRED marks for them too; 32 flows on a BDP of about 10
# packets run with cw below one packet, complete, keep the queue bounded
# and do not time out in a storm; 64 KB and 256 KB flows finish sooner
# than dctcp's and cubic's, 1 MB flows no later than 5% after the better;
# rmmod is refused while sockets use ldcp.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/iperf.sh"

LDCP_KO=$top/build/$(uname -r)/tcp_ldcp.ko
CCSTAT=$top/build/bin/ccstat
P=/sys/module/tcp_ldcp/parameters
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
# WRED/ECN: mark from K_min = 15 KB with probability rising to P_max = 1
# at K_max = 45 KB, on as short an average as tc's red allows: burst =
# K_min / avpkt gives the weight W = 1/2 (ewma 1), about the last two
# packets; tc refuses a smaller burst
RED="red limit 1000000 min 15000 max 45000 avpkt 1500 burst 10 probability 1 ecn bandwidth $TOPO_RATE"
# IW = bw * base RTT = 100 Mbit/s * 1.5 ms = 18750 bytes, 12-13 packets
IW_ARGS="bw_mbps=$RATE_MBIT base_rtt_us=1500"

ktap_plan 34
[ -f "$LDCP_KO" ] && [ -x "$CCSTAT" ] || { echo "Bail out! run make first"; exit 1; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/tcp_ldcp; }

ktap_expect "tcp_ldcp refuses to load with gamma_div=3" \
	"$(insmod "$LDCP_KO" gamma_div=3 2> /dev/null; echo $?) != 0 && $(grep -c '^tcp_ldcp ' /proc/modules) == 0"
ktap_run "insmod tcp_ldcp $IW_ARGS" insmod "$LDCP_KO" $IW_ARGS
bad=0
for kv in alpha_milli=0 alpha_milli=1001 beta_milli=0 beta_milli=2000 gamma_div=3 \
	  gamma_div=17 bw_mbps=0 base_rtt_us=0 fast_start=2 fs_not_ect=2 alpha_milli=x \
	  below_one_inc=2 ack_every=2; do
	[ -f "$P/${kv%%=*}" ] || bad=$((bad + 1))	# no such parameter
	echo "${kv#*=}" > "$P/${kv%%=*}" 2> /dev/null && bad=$((bad + 1))
done
ktap_expect "13 invalid parameter writes refused, the values unchanged" \
	"$bad == 0 && $(cat $P/alpha_milli) == 1000 && $(cat $P/beta_milli) == 500 && $(cat $P/gamma_div) == 8"
ktap_expect "ldcp is an available congestion control" \
	"$(sysctl -n net.ipv4.tcp_available_congestion_control | grep -cw ldcp) == 1"

modprobe -q tcp_diag
modprobe -q sch_red
topo_dumbbell 2 $RED || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
ewma=$(topo_red_ewma)
ktap_expect "the red profile averages over about two packets (EWMA weight 1/2)" \
	"\"$ewma\" == \"1\"" "ewma $ewma"
# see hpcc.sh: a namespace may default only to an allowed algorithm.
# ECN is negotiated in the handshake, so ldcp must be the socket's
# algorithm before connect() (iperf3 3.12 sets -C after it) and the
# listener's (the SYN is ECT, which a listener accepts only when its own
# algorithm needs ECN): every namespace defaults to ldcp.
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) ldcp"
topo_set_cc ldcp s1 s2 r

# The initial window on a path of 9000-byte MTU (a veth pair j1 -> j2) and
# on loopback (in r): IW = bw * base RTT / MSS.  1000 Mbit/s * 1 ms is
# 125000 bytes: 13.97 packets of 8948 bytes, 1.91 of loopback's 65483
# (which the socket has only once the peer's window exceeds 128 KB: the
# MSS right after connect() is 32741 there, lib/iwprobe.py).
# iw_read CLIENT_NS SERVER_NS DST: iwprobe's "MSS IW" pairs, at connect()
# and after 2 MB, on one line
iw_read()
{
	topo_exec "$2" python3 "$here/../lib/ccprobe.py" server cubic 5301 > /dev/null &
	topo_wait_listen "$2" 5301
	topo_exec "$1" python3 "$here/../lib/iwprobe.py" "$3" 5301 2000000 |
		awk '{ printf "%s %s ", $2, $4 }'
	wait $!
}
# iw_ok MSS IW: IW is 125000 bytes in packets of MSS, within [1, 65535]
iw_ok()
{
	echo "${1:-0} ${2:-0}" | awk '{ e = 125000 / ($1 ? $1 : 1); e = e < 1 ? 1 : e > 65535 ? 65535 : e
		exit !($2 - e < 0.001 && e - $2 < 0.001) }'
	echo $?
}
ip netns add "${TOPO}j1" && ip netns add "${TOPO}j2" &&
	ip -n "${TOPO}j1" link add j1 mtu 9000 type veth peer name j2 mtu 9000 netns "${TOPO}j2" &&
	ip -n "${TOPO}j1" addr add 198.19.9.1/24 dev j1 && ip -n "${TOPO}j1" link set j1 up &&
	ip -n "${TOPO}j2" addr add 198.19.9.2/24 dev j2 && ip -n "${TOPO}j2" link set j2 up
echo 1000 > $P/bw_mbps
echo 1000 > $P/base_rtt_us
read -r mss9 iw9 _ <<< "$(iw_read j1 j2 198.19.9.2)"
read -r mssl0 iwl0 mssl iwl <<< "$(iw_read r r 127.0.0.1)"
echo 100 > $P/bw_mbps
echo 1500 > $P/base_rtt_us
ktap_diag "IW of 1000 Mbit/s * 1 ms in packets: MTU 9000: MSS $mss9, IW $iw9; loopback: MSS $mssl0, IW $iwl0 at connect(), MSS $mssl, IW $iwl after 2 MB"
ktap_expect "IW on a 9000-byte MTU path: the BDP in packets of its MSS (8948)" \
	"${mss9:-0} == 8948 && $(iw_ok "$mss9" "$iw9") == 0"
ktap_expect "IW on loopback: the BDP in packets of its MSS, at connect() and at 65483" \
	"${mssl0:-0} > 4295 && $(iw_ok "$mssl0" "$iwl0") == 0 && ${mssl:-0} == 65483 && $(iw_ok "$mssl" "$iwl") == 0"

# setsockopt(TCP_CONGESTION) before connect(), to a listener that set it too
probe=$(mktemp)
topo_exec r python3 "$here/../lib/ccprobe.py" server ldcp 6000 > "$probe" &
pp=$!
topo_wait_listen r 6000
cli=$(topo_exec s2 python3 "$here/../lib/ccprobe.py" client ldcp 6000 "$TOPO_RCV_IP" 1000000)
wait $pp
ktap_diag "setsockopt: client $cli; server $(cat "$probe")"
ktap_expect "setsockopt(TCP_CONGESTION, ldcp) before connect(): ldcp on both ends, ECN negotiated" \
	"$(echo "$cli $(cat "$probe")" | grep -o 'cc ldcp ecn 1' | wc -l) == 2"

# Fast start's ECN field (section 3.1), seen on the switch's port from
# s2 in sequence order (every fast-start packet is its own frame: the
# sender caps TSO to one packet until fast start ends); then a loss in
# the first RTT: the switch drops the 6th data packet of the flow to
# port 6001.
IW_PK=$((RATE_MBIT * 125 * 1500 / 1000 / 1448))
topo_exec sw nft -f - <<EOF
table bridge ldcpt {
	chain f {
		type filter hook forward priority 0; policy accept;
		ip daddr $TOPO_RCV_IP tcp dport 6001 ip length > 100 numgen inc mod 1000000 == 5 counter drop
	}
}
EOF
nftc() { topo_exec sw nft list chain bridge ldcpt f | grep "$1" | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }
cap=$(mktemp)
# fs_flow PORT BYTES: one ldcp flow of BYTES from s2, its packets' ECN
# fields captured on the switch's port from s2 into $cap; sets e0 to
# s2's fs_not_ect before it and orig to the fields in sequence order
fs_flow()
{
	local cp pp

	e0=$(ctr s2 fs_not_ect)
	topo_exec sw python3 "$here/../lib/ecn_capture.py" sw-s2 "$1" 30 > "$cap" &
	cp=$!
	topo_exec r python3 "$here/../lib/ccprobe.py" server ldcp "$1" > "$probe" &
	pp=$!
	topo_wait_listen r "$1"
	topo_exec s2 python3 "$here/../lib/ccprobe.py" client ldcp "$1" "$TOPO_RCV_IP" "$2" > /dev/null
	wait $pp $cp
	orig=$(sed -n 's/^orig //p' "$cap")
}
# by default every packet ECT (Documentation/tcp_ldcp.rst, "Departures
# from the draft"), TSO untouched: a super-packet stands for as many
# packets of the first frame's size (ecn_capture.py)
fs_flow 6004 300000
ktap_diag "fast start, fs_not_ect=$(cat $P/fs_not_ect): $(sed -n 1p "$cap"), $(sed -n 3p "$cap"); fs_not_ect +$(($(ctr s2 fs_not_ect) - e0)); first transmissions ${orig:0:60}..."
ktap_expect "fast start by default: every packet ECT, none counted not-ECT" \
	"$(echo "$orig" | grep -cE "^E{3,}\$") == 1 && $(ctr s2 fs_not_ect) - $e0 == 0"
# the draft's first-RTT packets, not-ECT (fs_not_ect=1)
echo 1 > $P/fs_not_ect
fs_flow 6002 300000
ktap_diag "fast start, IW $IW_PK packets; $(sed -n 1p "$cap"), $(sed -n 3p "$cap"); fs_not_ect +$(($(ctr s2 fs_not_ect) - e0)); $(cat "$probe")"
ktap_diag "first transmissions (N not-ECT, E ECT): ${orig:0:60}..."
ktap_expect "fs_not_ect=1: the first IW - 1 packets leave not-ECT, the IW-th and all later ones ECT" \
	"$(echo "$orig" | grep -cE "^N{$((IW_PK - 1))}E{150,}\$") == 1 && $(ctr s2 fs_not_ect) - $e0 == $IW_PK - 1"

# a message shorter than the IW: its last packet is ECN-capable (3.1), the
# end of the write marked by PSH
fs_flow 6003 5000
ktap_diag "a message of 5000 bytes: $orig; fs_not_ect +$(($(ctr s2 fs_not_ect) - e0)); $(cat "$probe")"
ktap_expect "fs_not_ect=1: a message shorter than the IW leaves not-ECT but for its last packet" \
	"\"$orig\" == \"NNNE\" && $(ctr s2 fs_not_ect) - $e0 == 3"
echo 0 > $P/fs_not_ect

# the loss in the first RTT, with every packet ECT: GSO off on s2's port
# so that the 6th frame is the 6th packet
topo_exec s2 ethtool -K s2-eth0 tso off gso off > /dev/null
l0=$(ctr s2 fs_loss)
ktap_trace tcp_ldcp/ldcp_update 1
topo_exec r python3 "$here/../lib/ccprobe.py" server ldcp 6001 > "$probe" &
pp=$!
topo_wait_listen r 6001
topo_exec s2 python3 "$here/../lib/ccprobe.py" client ldcp 6001 "$TOPO_RCV_IP" 300000 > /dev/null
wait $pp
ktap_trace tcp_ldcp/ldcp_update 0
fsl=$(grep -m1 'rport=6001 .*event=fs_loss' $KTAP_T/trace | sed 's/.*lport=/lport=/')
ktap_diag "dropped $(nftc 'numgen') packet; $fsl; $(cat "$probe")"
ktap_expect "a loss in the first RTT: fast start ends with cw = the 5 packets acknowledged before it" \
	"$(ctr s2 fs_loss) - $l0 == 1 && $(echo "$fsl" | grep -c -- '->327680 ') == 1 && $(grep -c 'bytes 300000' "$probe") == 1"
topo_exec s2 ethtool -K s2-eth0 tso on gso on > /dev/null

# An RTO in the stable stage: everything to port 5201 dropped for 0.6 s
# in the middle of a flow (a rule in the chain above, made before the
# flows).  cw halves once for the episode however many times the timer
# fires, and the ACKs after it grow cwnd from TCP's loss window: the
# first must not find the halved cw already in place.  The switch marks
# the flow's packets CE for 0.3 s first, as a congested queue would: an
# ECE puts TCP in CWR, and an RTO in CWR is one TCP does not count as a
# new reduction (no CA_EVENT_LOSS), but it is a loss episode for ldcp,
# whose window CWR does not touch.  beta is 0.001 while the switch marks,
# so that the marks leave cw where it was.
to0=$(topo_nstat s1 TcpExtTCPTimeouts) l0=$(ctr s1 losses) fl0=$(ctr s1 fs_loss)
echo 16384 > $KTAP_T/buffer_size_kb
ktap_trace tcp_ldcp/ldcp_update 1
topo_iperf_server 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 5 > /dev/null 2>&1 &
p=$!
sleep 1.5
echo 1 > $P/beta_milli
topo_exec sw nft add rule bridge ldcpt f ip daddr "$TOPO_RCV_IP" tcp dport 5201 ip ecn set ce
sleep 0.3
topo_exec sw nft add rule bridge ldcpt f ip daddr "$TOPO_RCV_IP" tcp dport 5201 drop
echo "losstrace: on" > $KTAP_T/trace_marker
sleep 0.6
topo_exec sw nft flush chain bridge ldcpt f
echo "losstrace: off" > $KTAP_T/trace_marker
echo 500 > $P/beta_milli
wait $p
rc=$?
ktap_trace tcp_ldcp/ldcp_update 0
lt=$(python3 "$here/../lib/losstrace.py" $KTAP_T/trace ldcp_update 5201)
l1=$(ctr s1 losses)
to=$(($(topo_nstat s1 TcpExtTCPTimeouts) - to0)) lo=$((${l1:-0} - ${l0:-0}))
# the RTO's episode: the loss records within the blackout, the longest
# silence of the flow's ACKs between the markers (under TCG reordering
# can make another episode, of fast recovery, elsewhere in the flow, and
# a stall of the emulated host a longer silence)
read -r nl cw0 cw1 cnext ev <<< "$(jq -r '(.gap.before.t // 0) as $a | (.gap.next.t // 0) as $b |
	[.losses[] | select(.t > $a and .t <= $b)] as $l |
	[($l | length), ($l[0].after.cw_old // -1), ($l[0].after.cw // -1),
	 ($l[0].next.cwnd // -1), ($l[0].next.event // "none")] |
	map(tostring) | join(" ")' <<< "$lt")"
evs=$(grep -o 'rport=5201 .*event=[a-z_]*' $KTAP_T/trace | sed 's/.*event=//' | sort | uniq -c | xargs)
ktap_diag "RTO: events $evs; fs_loss +$(($(ctr s1 fs_loss) - fl0))"
ktap_diag "RTO: timeouts +$to, losses +$lo, $nl loss events in the blackout, cw $cw0 -> $cw1 (2^-16 packets); the next ACK: cwnd $cnext (event $ev)"
ktap_expect "an RTO: cw halved once for the episode; the next ACK finds TCP's loss window, below the halved cw" \
	"$rc == 0 && $to >= 1 && $lo >= 1 && $nl == 1 && $cw1 == int($cw0 / 2) && $cw0 >= 4 * 65536 && $cnext >= 1 && $cnext < int($cw1 / 65536)"
topo_exec sw nft delete table bridge ldcpt

# two flows at 200 Mbit/s, the second 3 s late; measured from 6 s to
# 10 s.  IW is the BDP at that rate (26 packets).
TWO_MBIT=200
TOPO_RATE=${TWO_MBIT}mbit topo_set_leaf ${RED/bandwidth*/bandwidth ${TWO_MBIT}mbit}
echo $TWO_MBIT > $P/bw_mbps
# The same-boot reference for the throughput checks: two DCTCP flows
# through the same RED (the connections start as ldcp, every
# namespace's default, so ECN is negotiated; iperf3 then switches them
# to dctcp).  At this rate the emulated hosts' CPU, not the link, sets
# both: over 14 boots ldcp's two flows reached 0.70-1.25 of the
# reference's utilisation, about 1.0 in the median, so the check is a
# guard at 0.6 of it (Documentation/testing.rst); ldcp's 75% of the
# link is the benchmark's to measure (Documentation/results.rst).
ref=$(topo_capacity dctcp $TWO_MBIT)
# the goals of the two flows (ktap_best_of_two's score and the checks)
TWO_UTIL=$(echo "0.6 * $ref" | bc -l) TWO_JAIN=0.8
ktap_diag "reference: two DCTCP flows at $TWO_MBIT Mbit/s, utilisation $(printf %.3f "$ref")"
a0=$(ctr s1 ece_acks) c0=$(ctr r ce_changes) f0=$(ctr s1 fs_iw) n0=$(ctr s1 flows_no_ecn)
k0=$(ctr r acks_now) o0=$(topo_nstat r TcpOutSegs)
# two_flows: the scenario once; sets j1 j2 rc1 rc2 ssout st stl util jain
# and score, the lesser ratio of utilisation and fairness to their goals
two_flows()
{
	topo_two_flows 12 3
	sleep 2
	ssout=$(topo_exec s1 ss -tin dst "$TOPO_RCV_IP")
	st=$(topo_exec s1 "$CCSTAT" --json ldcp) stl=$(topo_exec s1 "$CCSTAT" ldcp | head -1)
	sleep 1
	ts0=$(topo_tx_stamp)
	sleep 4
	ts1=$(topo_tx_stamp)
	wait $p1
	rc1=$?
	wait $p2
	rc2=$?
	util=$(topo_util "$ts0" "$ts1" $TWO_MBIT)
	jain=$(iperf_jain2 "$j1" "$j2" 3 3 4)
	score=$(awk "BEGIN { u = $util / $TWO_UTIL; j = ${jain:-0} / $TWO_JAIN
			     print (u < j ? u : j) }" < /dev/null)
	ktap_diag "two flows: utilisation $(printf %.3f "$util"), Jain $jain"
}
ktap_best_of_two two_flows j1 j2 rc1 rc2 ssout st stl util jain
marks=$(topo_qdisc_stat marked)
drops=$(topo_dropped)
ktap_diag "s1 (sysctl) Mbit/s per 0.5 s: $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$j1")"
ktap_diag "s2 (+3 s): $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$j2")"
ktap_diag "utilisation $(printf %.3f "$util"), Jain per 1 s window (lowest of 4) $jain; red marked $marks, dropped $drops"
ktap_diag "s1: ECE ACKs +$(($(ctr s1 ece_acks) - a0)) of $(ctr s1 acks); r: CE changes echoed +$(($(ctr r ce_changes) - c0))"
ktap_expect "ldcp selected with sysctl; both flows complete with ECN negotiated" \
	"$rc1 == 0 && $rc2 == 0 && $(echo "$ssout" | grep -c ldcp) >= 1 && $(ctr s1 flows_no_ecn) == $n0"
ktap_diag "ccstat: $stl"
ktap_expect "ccstat: the flow's state, stable after the whole IW was acknowledged" \
	"$(echo "$st" | jq '[.[] | select(.phase == "stable" and .fs_exit == "iw" and .cw >= 1 and .acks > 0)] | length') >= 1"
ktap_expect "ECE-marked ACKs drive PAWA at the sender" "$(ctr s1 ece_acks) - $a0 > 10"
ktap_expect "the receiver echoes each change of CE at once" "$(ctr r ce_changes) - $c0 > 10"
ka=$(($(ctr r acks_now) - k0)) ko=$(($(topo_nstat r TcpOutSegs) - o0))
ktap_diag "r: data segments ACKed at once +$ka, segments sent +$ko"
ktap_expect "the receiver ACKs each ECT data segment at once (ack_every)" \
	"$ka > 1000 && $ko >= $ka"
# measured: Documentation/results.rst, "Per-module benchmarks"
ktap_expect "two flows at 200 Mbit/s: utilisation at least 0.6 of two DCTCP flows' in this boot" \
	"$util >= $TWO_UTIL"
ktap_expect "two flows at 200 Mbit/s: Jain fairness at least 0.8 in every 1 s window" "${jain:-0} >= $TWO_JAIN"
# at most once per flow: the ACK of a SYN reaches cong_control before
# init, and once ended a fast start on the zeroed state
ktap_expect "fast start ended with the whole initial window acknowledged, once per flow" \
	"$(ctr s1 fs_iw) - $f0 >= 1 && $(ctr s1 fs_iw) + $(ctr s1 fs_loss) <= $(ctr s1 flows_fast_start)"

# The same profile from the CSIG data plane's port model: a fifo at the
# bottleneck and the transit role on its port, marking with WRED on the
# model's queue (csigctl --wred, Documentation/csig.rst); two flows at
# once, measured from 2.5 s to 5.5 s.  The model drains at C evenly;
# under TCG htb's timer runs late and the fifo lags it by bursts, so C
# is 90% of the rate: the model's queue then covers the fifo's
# (Documentation/tcp_ldcp.rst).
echo $RATE_MBIT > $P/bw_mbps
# the reference again, at this rate, for the checks that follow
topo_set_leaf $RED
ref=$(topo_capacity dctcp $RATE_MBIT)
# the 32 flows' goal, Mbit/s: 40% of the link, scaled (topo_scaled)
MANY_MBIT=$(echo "$RATE_MBIT * $(topo_scaled 0.4 "$ref" 0.90)" | bc -l)
ktap_diag "reference: two DCTCP flows at $RATE_MBIT Mbit/s, utilisation $(printf %.3f "$ref")"
topo_set_leaf pfifo limit 1000
topo_csigctl sw attach sw-r transit --capacity $((RATE_MBIT * 90 / 100))mbit \
	--wred 15000,45000,1 > /dev/null
a0=$(ctr s1 ece_acks)
topo_iperf_server 5201
topo_exec r iperf3 -s -D -1 -p 5202 > /dev/null 2>&1
topo_wait_listen r 5202
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 7 -J > "$j1" 2>&1 &
p1=$!
topo_exec s2 iperf3 -c "$TOPO_RCV_IP" -p 5202 -t 7 -J > "$j2" 2>&1 &
p2=$!
sleep 2.5
q=$(mktemp)
mbit=$(topo_measure 3 "$q")
wait $p1
rc1=$?
wait $p2
rc2=$?
cs=$(topo_csigctl sw --json show sw-r)
wm=$(jq '.[0].counters.ecn_marked' <<< "$cs") wd=$(jq '.[0].counters.ecn_dropped' <<< "$cs")
qp99=$(stat_pct 99 "$q")
topo_csigctl sw detach sw-r
topo_set_leaf $RED
ktap_diag "port model WRED: $(printf %.1f "$mbit") Mbit/s, flows $(jq -r '.end.sum_received.bits_per_second / 1e6 | floor' "$j1") and $(jq -r '.end.sum_received.bits_per_second / 1e6 | floor' "$j2"), queue p50 $(stat_pct 50 "$q") p99 $qp99 bytes; port marked $wm, dropped $wd (not-ECT); ECE ACKs at s1 +$(($(ctr s1 ece_acks) - a0))"
ktap_expect "WRED from the CSIG port model: both flows complete, the port marks, ECE drives PAWA" \
	"$rc1 == 0 && $rc2 == 0 && ${wm:-0} > 10 && $(ctr s1 ece_acks) - $a0 > 10"
ktap_expect "... utilisation at least 75% (scaled), median queue below K_max (45 KB)" \
	"$mbit >= $RATE_MBIT * $(topo_scaled 0.75 "$ref" 0.90) && $(stat_pct 50 "$q") < 45000"

# 32 flows on a BDP of about 10 packets: cw below one packet.  All
# start at once, their first windows overflow the queue: fairness is
# measured over the last 4 of the 8 s, the queue over 3 s of them.
b0=$(ctr s1 below_one)
# many_flows: the scenario once; sets j q cs rc nb nok to jain jain4 tput
# qp99, and score, the rate over its goal (strictly above it: at it,
# below 1)
many_flows()
{
	local to0

	to0=$(topo_nstat s1 TcpExtTCPTimeouts)
	j=$(mktemp) q=$(mktemp)
	topo_iperf_server 5201
	topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -P 32 -t 8 -i 1 -J > "$j" 2>&1 &
	p1=$!
	sleep 4.5
	# the senders' state meanwhile: below one packet, one packet per RTT / cw
	cs=$(mktemp)
	for i in 1 2 3 4 5 6; do topo_exec s1 "$CCSTAT" --json ldcp; sleep 0.3; done > "$cs" &
	csp=$!
	topo_measure 3 "$q" > /dev/null
	wait $p1
	rc=$?
	wait $csp
	# stable flows below one packet, and those paced at cw * MSS / srtt
	# within 15% (the rate is set per ACK, the dump reads it between two;
	# MSS 1448: MTU 1500 with timestamps)
	read -r nb nok <<< "$(jq -rs --argjson mss 1448 '[.[][] | select(.phase == "stable" and .cw < 1 and .rtt_us > 0) |
		.pacing_rate / (.cw * $mss * 1e6 / .rtt_us)] | "\(length) \(map(select(. > 0.85 and . < 1.15)) | length)"' "$cs")"
	to=$(($(topo_nstat s1 TcpExtTCPTimeouts) - to0))
	jain=$(jq -r '[.end.streams[].sender.bits_per_second] | (add * add) / (length * (map(. * .) | add))' "$j")
	jain4=$(jq -r '[.intervals[4:8][].streams | map(.bytes)] | transpose | map(add) |
		(add * add) / (length * (map(. * .) | add))' "$j")
	tput=$(jq -r '.end.sum_received.bits_per_second / 1e6 | floor' "$j")
	qp99=$(stat_pct 99 "$q")
	score=$(awk "BEGIN { t = ${tput:-0}; g = $MANY_MBIT
			     print ($rc != 0 ? 0 : t > g ? 1 : 0.999 * t / g) }" < /dev/null)
	ktap_diag "32 flows: $tput Mbit/s"
}
ktap_best_of_two many_flows j q cs rc nb nok to jain jain4 tput qp99
ktap_diag "32 flows: $tput Mbit/s, Jain $jain (last 4 s: $jain4), queue p50 $(stat_pct 50 "$q") p99 $qp99 bytes, ACKs below one packet +$(($(ctr s1 below_one) - b0)), timeouts $to, retransmits $(jq -r '.end.sum_sent.retransmits' "$j")"
# a guard against flows stalled below one packet: 81-90 Mbit/s where
# the reference fills the link (Documentation/results.rst), and under
# TCG on a slower machine 0.6 of the reference, whose two flows are not
# clocked by a round trip that the emulated hosts stretch
ktap_expect "32 flows: all complete at more than 40% of the link (scaled)" \
	"$rc == 0 && ${tput:-0} > $MANY_MBIT"
ktap_expect "32 flows: cw below one packet is in use" "$(ctr s1 below_one) - $b0 > 0"
ktap_diag "32 flows: $nb readings below one packet in 6 dumps, $nok of them paced at cw * MSS / srtt (+-15%)"
ktap_expect "32 flows: below one packet, one packet per RTT / cw (the pacing rate)" \
	"${nb:-0} >= 5 && ${nok:-0} >= 0.9 * ${nb:-0}"
ktap_expect "32 flows: fewer than 32 timeouts in 8 s, p99 queue below 2 K_max (90 KB)" \
	"$to < 32 && $qp99 < 90000"
# With the draft's gamma as the increase below one packet, flows
# settled on either side of one packet (Jain 0.53-0.68); below_one_inc=1
# gives both regimes one equilibrium (Documentation/tcp_ldcp.rst).
ktap_expect "32 flows: Jain fairness at least 0.8 over the 8 s and over the last 4 s" \
	"${jain:-0} >= 0.8 && ${jain4:-0} >= 0.8"

# Short flows on an empty path: 25 Mbit/s and 20 ms, a BDP of 62.5 KB
# (43 packets), about what a peer's first window allows (a SYN's window
# is not scaled: Documentation/tcp_ldcp.rst).  GSO off on the sender's
# port, so that every algorithm's packets cross the switch as MTU
# frames, as on a wire (ldcp's fast start sends single-packet frames).
# Median completion times of ldcp, dctcp and cubic flows, side by side.
modprobe -q tcp_dctcp
TOPO_RATE=25mbit
topo_set_leaf ${RED/bandwidth*/bandwidth $TOPO_RATE}
tc -n "${TOPO}sw" qdisc change dev sw-s1 root netem delay 20ms limit 100000
topo_exec s1 ethtool -K s1-eth0 tso off gso off > /dev/null
echo 25 > $P/bw_mbps
echo 20000 > $P/base_rtt_us
topo_exec r python3 "$here/../lib/fct.py" server 7000 &
topo_wait_listen r 7000
f=$(mktemp)
fl0=$(ctr s1 fs_loss) fi0=$(ctr s1 fs_iw) d0=$(topo_dropped)
topo_exec s1 python3 "$here/../lib/fct.py" client "$TOPO_RCV_IP" 7000 ldcp,dctcp,cubic \
	65536,262144,1048576 11 > "$f"
ktap_diag "short flows: fast start ended by fs_iw +$(($(ctr s1 fs_iw) - fi0)), fs_loss +$(($(ctr s1 fs_loss) - fl0)); bottleneck drops +$(($(topo_dropped) - d0))"
# fct_medians FILE SIZE...: a line "SIZE LDCP DCTCP CUBIC RATIO" per
# SIZE of fct.py's FILE: the median completion times (us, 0 when
# missing) and ldcp's over the lesser of the baselines' (1e9 when one is
# missing); one jq for all (520 ms a call under TCG:
# Documentation/testing.rst)
fct_medians()
{
	local f=$1

	shift
	jq -r --arg sizes "$*" '. as $r | ($sizes | split(" ")[]) as $s | [$s] +
		([$r.ldcp, $r.dctcp, $r.cubic] | map((.[$s] // []) | sort | .[length / 2 | floor] // 0)) |
		@tsv' "$f" |
		awk '{ m = $3 < $4 ? $3 : $4
		       printf("%s %s %s %s %.4f\n", $1, $2, $3, $4, ($2 > 0 && m > 0 ? $2 / m : 1e9)) }'
}
# What fast start can gain is the slow start it skips: at 64 KB (one
# BDP) most of the flow, at 1 MB (17 BDPs) one or two round trips of
# some 18, 3-7% in the runs measured, while one run's
# medians move by as much when the machine under the VM stalls.  So
# 64 KB and 256 KB flows must finish sooner than the baselines', and a
# 1 MB flow no later than 5% after the better of them (a fast start that
# cost an RTO would add 200 ms, 50%).  A size that falls short is
# measured once more, and the better run is checked.
sizes="65536 262144 1048576"
m1=$(fct_medians "$f" $sizes) m2=
short=$(awk '$5 >= ($1 == 1048576 ? 1.05 : 1) { printf("%s%s", n++ ? "," : "", $1) }' <<< "$m1")
if [ -n "$short" ]; then
	ktap_diag "short flows: ldcp short of its goal at $short bytes in the first run: $(jq -c . "$f"); measured once more"
	f2=$(mktemp)
	topo_exec s1 python3 "$here/../lib/fct.py" client "$TOPO_RCV_IP" 7000 ldcp,dctcp,cubic \
		"$short" 11 > "$f2"
	m2=$(fct_medians "$f2" ${short//,/ })
fi
echo $RATE_MBIT > $P/bw_mbps
echo 1500 > $P/base_rtt_us
topo_exec s1 ethtool -K s1-eth0 tso on gso on > /dev/null
tc -n "${TOPO}sw" qdisc change dev sw-s1 root netem delay "$TOPO_DELAY" limit 100000
TOPO_RATE=${RATE_MBIT}mbit
topo_set_leaf $RED
for sz in $sizes; do
	g=$f
	read -r _ l d c r <<< "$(grep "^$sz " <<< "$m1")"
	read -r _ l2 d2 c2 r2 <<< "$(grep "^$sz " <<< "$m2")"
	if [ -n "$r2" ] && awk "BEGIN { exit !($r2 < ${r:-1e9}) }" < /dev/null; then
		g=$f2 l=$l2 d=$d2 c=$c2 r=$r2
	fi
	ktap_diag "$((sz / 1024)) KB: FCT median ldcp ${l:-?} us, dctcp ${d:-?} us, cubic ${c:-?} us; ldcp/cubic $(echo "${l:-0} ${c:-0}" | awk '{ printf("%.2f", $2 > 0 ? $1 / $2 : 0) }'); all: $(jq -c --arg s $sz '[.[][$s]]' "$g")"
	if [ "$sz" = 1048576 ]; then
		ktap_expect "1024 KB flows: ldcp's median completion time at most 1.05 of the better baseline's" \
			"${r:-1e9} <= 1.05"
	else
		ktap_expect "$((sz / 1024)) KB flows: ldcp's median completion time below dctcp's and cubic's" \
			"${r:-1e9} < 1"
	fi
done

# rmmod while a socket uses ldcp (and no namespace defaults to it)
topo_set_cc cubic s1 s2 r
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
