#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ldcp_bpf, the BPF flavour of ldcp, through selftests/vm/ldcp.sh's
# scenarios on this VM's kernel, with the same topology, queue profiles
# and goals, and no module:
#
#   s1, s2 --> [sw: bridge, sw-r htb 100M + red/ecn] --> r
#
# (htb at 200M for the two long flows).  dccbpf's ldcp_bpf runs on the
# senders and the receiver (every namespace's default, so that ECN is
# negotiated in the handshake), with ldcp.sh's bandwidth and base RTT.
#
# Checks, each one of ldcp.sh's: ldcp_bpf selected by setsockopt before
# connect() negotiates ECN; two flows share the link with ECE driving
# PAWA, the receiver echoing each change of CE and ACKing each ECT
# segment at once; dccbpf show reads the per-socket state; the CSIG port
# model's WRED marks for them too; 32 flows on a BDP of about 10 packets
# run with cw below one packet, complete, keep the queue bounded and do
# not time out in a storm.
#
# Left out, the BPF flavour's documented departures
# (Documentation/bpf.rst): invalid parameters are refused by dccbpf's
# load (selftests/host/dccbpf.t); fs_not_ect (no netfilter hook); the
# loss-in-the-first-RTT and RTO checks, which read the tracepoint; the
# pacing check below one packet, which reads ccstat's srtt (no get_info);
# per-namespace counters; rmmod.  The IW and the short flows' completion
# times are the same controller's as the module's (include/ldcp_ctl.h):
# the benchmark measures the flavours side by side.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/iperf.sh"

D=$top/build/bin/dccbpf
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
# ldcp.sh's WRED/ECN profile: K_min 15 KB, K_max 45 KB, P_max 1
RED="red limit 1000000 min 15000 max 45000 avpkt 1500 burst 10 probability 1 ecn bandwidth $TOPO_RATE"

[ -x "$D" ] || { echo "Bail out! $D missing (make tools)"; exit 1; }
[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "no kernel BTF"
grep -qw ldcp_bpf "$AVAIL" && ktap_skip_all "ldcp_bpf is registered already"

ktap_plan 15
# ctr NAME: ldcp_bpf's counter NAME (dccbpf show: the host's)
ctr()
{
	"$D" show | awk -v n="$1" '/^[a-z]/ { in_cc = ($1 == "ldcp_bpf:") }
		in_cc && $1 == n { print $2 }'
}
# allow CC: CC among the algorithms a namespace may make its default
allow()
{
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) $1"
}
# load BW_MBPS: ldcp_bpf registered afresh with ldcp.sh's base RTT.  A
# namespace's default holds the instance it was set to: the hosts in
# DEFAULT_ON go back to cubic around the load, and to the new one after
# it.  (A global, not set here: ktap_run runs the first load in a
# subshell.)
DEFAULT_ON=
load()
{
	local rc

	[ -n "$DEFAULT_ON" ] && topo_set_cc cubic $DEFAULT_ON
	"$D" unload > /dev/null 2>&1
	"$D" load ldcp "ldcp.bw_mbps=$1" ldcp.base_rtt_us=1500
	rc=$?
	# a new instance is not allowed until it is named again
	allow ldcp_bpf
	[ -n "$DEFAULT_ON" ] && topo_set_cc ldcp_bpf $DEFAULT_ON
	return $rc
}
cleanup()
{
	topo_cleanup
	"$D" unload > /dev/null 2>&1
}

modprobe -q tcp_diag
modprobe -q sch_red
ktap_run "dccbpf load ldcp (bw $RATE_MBIT Mbit/s, base RTT 1.5 ms)" load $RATE_MBIT
topo_dumbbell 2 $RED || { ktap_fail "setup"; ktap_finished; }
trap cleanup EXIT	# topo_dumbbell set its own
topo_set_cc ldcp_bpf s1 s2 r
DEFAULT_ON="s1 s2 r"

probe=$(mktemp)
topo_exec r python3 "$here/../lib/ccprobe.py" server ldcp_bpf 6000 > "$probe" &
pp=$!
topo_wait_listen r 6000
cli=$(topo_exec s2 python3 "$here/../lib/ccprobe.py" client ldcp_bpf 6000 "$TOPO_RCV_IP" 1000000)
wait $pp
ktap_diag "setsockopt: client $cli; server $(cat "$probe")"
ktap_expect "setsockopt(TCP_CONGESTION, ldcp_bpf) before connect(): ldcp_bpf on both ends, ECN negotiated" \
	"$(echo "$cli $(cat "$probe")" | grep -o 'cc ldcp_bpf ecn 1' | wc -l) == 2"

# --- two flows at 200 Mbit/s, the second 3 s late (ldcp.sh's) ----------
TWO_MBIT=200
TOPO_RATE=${TWO_MBIT}mbit topo_set_leaf ${RED/bandwidth*/bandwidth ${TWO_MBIT}mbit}
load $TWO_MBIT > /dev/null || ktap_diag "dccbpf load at $TWO_MBIT Mbit/s failed"
# the same-boot reference: two DCTCP flows through the same RED; the
# goals are ldcp.sh's, 0.6 of it and Jain 0.8
ref=$(topo_capacity dctcp $TWO_MBIT)
TWO_UTIL=$(echo "0.6 * $ref" | bc -l) TWO_JAIN=0.8
ktap_diag "reference: two DCTCP flows at $TWO_MBIT Mbit/s, utilisation $(printf %.3f "$ref"); the hosts' default $(topo_exec s1 sysctl -n net.ipv4.tcp_congestion_control)"
a0=$(ctr ece_acks) c0=$(ctr ce_changes) f0=$(ctr fs_iw) n0=$(ctr flows_no_ecn)
k0=$(ctr acks_now) o0=$(topo_nstat r TcpOutSegs)
two_flows()
{
	topo_two_flows 12 3
	sleep 2
	ssout=$(topo_exec s1 ss -tin dst "$TOPO_RCV_IP")
	st=$("$D" show --json -N "${TOPO}s1")
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
ktap_best_of_two two_flows j1 j2 rc1 rc2 ssout st util jain
ktap_diag "s1 Mbit/s per 0.5 s: $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$j1")"
ktap_diag "s2 (+3 s): $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$j2")"
ktap_diag "red marked $(topo_qdisc_stat marked), dropped $(topo_dropped); ECE ACKs +$(($(ctr ece_acks) - a0)) of $(ctr acks); CE changes echoed +$(($(ctr ce_changes) - c0))"
ktap_diag "s1: $(jq -c '[.sockets.ldcp_bpf[]? | select(.remote | endswith(":5201"))] | last' <<< "$st" 2> /dev/null)"
ktap_expect "ldcp_bpf selected with sysctl; both flows complete with ECN negotiated" \
	"$rc1 == 0 && $rc2 == 0 && $(echo "$ssout" | grep -c ldcp_bpf) >= 1 && $(ctr flows_no_ecn) == $n0"
ktap_expect "dccbpf show: the flow's state, stable after the whole IW was acknowledged" \
	"$(jq '[.sockets.ldcp_bpf[]? | select(.phase == "stable" and .exit == "iw" and .cw >= 1 and .acks > 0)] | length' <<< "$st" 2> /dev/null || echo 0) >= 1"
ktap_expect "ECE-marked ACKs drive PAWA at the sender" "$(ctr ece_acks) - $a0 > 10"
ktap_expect "the receiver echoes each change of CE at once" "$(ctr ce_changes) - $c0 > 10"
ka=$(($(ctr acks_now) - k0)) ko=$(($(topo_nstat r TcpOutSegs) - o0))
ktap_diag "r: data segments ACKed at once +$ka, segments sent +$ko"
ktap_expect "the receiver ACKs each ECT data segment at once (ack_every)" \
	"$ka > 1000 && $ko >= $ka"
ktap_expect "two flows at 200 Mbit/s: utilisation at least 0.6 of two DCTCP flows' in this boot" \
	"$util >= $TWO_UTIL"
ktap_expect "two flows at 200 Mbit/s: Jain fairness at least 0.8 in every 1 s window" "${jain:-0} >= $TWO_JAIN"
ktap_expect "fast start ended with the whole initial window acknowledged, once per flow" \
	"$(ctr fs_iw) - $f0 >= 1 && $(ctr fs_iw) + $(ctr fs_loss) <= $(ctr flows_fast_start)"

# --- WRED from the CSIG port model (ldcp.sh's) ---------------------------
load $RATE_MBIT > /dev/null || ktap_diag "dccbpf load at $RATE_MBIT Mbit/s failed"
topo_set_leaf $RED
ref=$(topo_capacity dctcp $RATE_MBIT)
MANY_MBIT=$(echo "$RATE_MBIT * $(topo_scaled 0.4 "$ref" 0.90)" | bc -l)
ktap_diag "reference: two DCTCP flows at $RATE_MBIT Mbit/s, utilisation $(printf %.3f "$ref")"
topo_set_leaf pfifo limit 1000
topo_csigctl sw attach sw-r transit --capacity $((RATE_MBIT * 90 / 100))mbit \
	--wred 15000,45000,1 > /dev/null
a0=$(ctr ece_acks)
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
wm=$(jq '.[0].counters.ecn_marked' <<< "$cs")
topo_csigctl sw detach sw-r
topo_set_leaf $RED
ktap_diag "port model WRED: $(printf %.1f "$mbit") Mbit/s, queue p50 $(stat_pct 50 "$q") p99 $(stat_pct 99 "$q") bytes; port marked $wm; ECE ACKs +$(($(ctr ece_acks) - a0))"
ktap_expect "WRED from the CSIG port model: both flows complete, the port marks, ECE drives PAWA" \
	"$rc1 == 0 && $rc2 == 0 && ${wm:-0} > 10 && $(ctr ece_acks) - $a0 > 10"
ktap_expect "... utilisation at least 75% (scaled), median queue below K_max (45 KB)" \
	"$mbit >= $RATE_MBIT * $(topo_scaled 0.75 "$ref" 0.90) && $(stat_pct 50 "$q") < 45000"

# --- 32 flows on a BDP of about 10 packets (ldcp.sh's) -------------------
b0=$(ctr below_one)
many_flows()
{
	local to0

	to0=$(topo_nstat s1 TcpExtTCPTimeouts)
	j=$(mktemp) q=$(mktemp)
	topo_iperf_server 5201
	topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -P 32 -t 8 -i 1 -J > "$j" 2>&1 &
	p1=$!
	sleep 4.5
	topo_measure 3 "$q" > /dev/null
	wait $p1
	rc=$?
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
ktap_best_of_two many_flows j q rc to jain jain4 tput qp99
ktap_diag "32 flows: $tput Mbit/s, Jain $jain (last 4 s: $jain4), queue p50 $(stat_pct 50 "$q") p99 $qp99 bytes, ACKs below one packet +$(($(ctr below_one) - b0)), timeouts $to"
ktap_expect "32 flows: all complete at more than 40% of the link (scaled), cw below one packet in use" \
	"$rc == 0 && ${tput:-0} > $MANY_MBIT && $(ctr below_one) - $b0 > 0"
ktap_expect "32 flows: fewer than 32 timeouts in 8 s, p99 queue below 2 K_max (90 KB)" \
	"$to < 32 && $qp99 < 90000"
ktap_expect "32 flows: Jain fairness at least 0.8 over the 8 s and over the last 4 s" \
	"${jain:-0} >= 0.8 && ${jain4:-0} >= 0.8"

rm -f "$probe" "$j" "$q" "$j1" "$j2"
topo_set_cc cubic s1 s2 r
ktap_finished
