#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc_bpf, the BPF flavour of hpcc, through selftests/vm/hpcc.sh's
# scenarios on this VM's kernel, with the same topology, rates and goals,
# and no module: the CSIG host path in BPF (csighost) on s1, s2 and r,
# each a namespace and a cgroup, U tags inserted on the senders for the
# sockets it negotiated (csigctl), the port model on the bottleneck, and
# dccbpf's hpcc_bpf with the line rate and T of hpcc.sh.
#
#   s1, s2 --insert (mark)--> [sw: bridge, sw-r transit + htb 100M] --> r
#
# Checks, each one of hpcc.sh's: hpcc_bpf selected by sysctl (s1) and by
# setsockopt (s2), reading U; two flows, the second joining late, fill
# the link fairly with the queue below T; 16 flows stay stable; the
# standard signals (PD and ABW/C) drive it as well as U; fq paces it; an
# application-limited flow does not raise W; a stripping path falls back
# to Reno and completes; a flow that did not negotiate runs Reno.
#
# Left out, the BPF flavour's documented departures
# (Documentation/bpf.rst): invalid parameters are refused by dccbpf's
# load (selftests/host/dccbpf.t), not by writes to a module's files;
# tso_cap (a BPF congestion control cannot set the socket's GSO size:
# the senders' devices are capped at two segments instead, as a
# deployment would);
# the tracepoint, and the RTO and repeated-loss checks read through it;
# per-namespace counters (the BPF flavour's are the host's); rmmod.
# The parameters are the load's: each change is a new load (about 25 s
# under TCG), so the scenarios run in the order of their parameters.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/iperf.sh"
. "$here/../lib/cc.sh"

D=$top/build/bin/dccbpf
QH=$top/selftests/lib/qhist.py
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
# hpcc.sh's: 100 Mbit/s, T 4 ms on the port and in hpcc
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
T_MS=4
CC_T_MS=$T_MS
TOPO_EXEC=topo_hx

for x in "$D" "$TOPO_CSIGHOST" "$top/build/bin/csigctl"; do
	[ -x "$x" ] || { echo "Bail out! $x missing (make tools)"; exit 1; }
done
[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "no kernel BTF"
grep -qw hpcc_bpf "$AVAIL" && ktap_skip_all "hpcc_bpf is registered already"
if [ -z "$TOPO_CGROOT" ] && mount -t cgroup2 none /sys/fs/cgroup; then
	TOPO_CGROOT=/sys/fs/cgroup
fi

ktap_plan 15
sx() { topo_csigctl "$@"; }
# ctr NAME: hpcc_bpf's counter NAME (dccbpf show: the host's)
ctr()
{
	"$D" show | awk -v n="$1" '/^[a-z]/ { in_cc = ($1 == "hpcc_bpf:") }
		in_cc && $1 == n { print $2 }'
}
# allow CC: CC among the algorithms a namespace may make its default
allow()
{
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) $1"
}
# load NFLOWS [KEY=VALUE...]: hpcc_bpf registered afresh with hpcc.sh's
# line rate and T.  A namespace's default holds the instance it was set
# to: the hosts in DEFAULT_ON go back to cubic around the load, and to
# the new one after it.  (A global, not set here: ktap_run runs the
# first load in a subshell.)
DEFAULT_ON=
load()
{
	local n=$1 rc

	shift
	[ -n "$DEFAULT_ON" ] && topo_set_cc cubic $DEFAULT_ON
	"$D" unload > /dev/null 2>&1
	"$D" load hpcc "hpcc.line_rate_mbps=$RATE_MBIT" \
		"hpcc.base_rtt_us=$((T_MS * 1000))" "hpcc.nflows=$n" "$@"
	rc=$?
	# a new instance is not allowed until it is named again
	allow hpcc_bpf
	[ -n "$DEFAULT_ON" ] && topo_set_cc hpcc_bpf $DEFAULT_ON
	return $rc
}
cleanup()
{
	topo_cleanup	# the host path and the hosts' cgroups too
	"$D" unload > /dev/null 2>&1
}

modprobe -q tcp_diag
topo_dumbbell 2 pfifo limit 1000 && topo_cgroups s1 s2 r ||
	{ ktap_fail "setup"; ktap_finished; }
trap cleanup EXIT	# topo_dumbbell set its own
# the senders' devices capped at two segments a super-packet, the
# deployment's stand-in for the module's tso_cap (Documentation/bpf.rst,
# "Departures")
for i in 1 2; do
	ip -n "${TOPO}s$i" link set "s$i-eth0" mtu 1496 gso_max_segs 2
done
topo_csighost on s1 s2 r || { ktap_fail "setup: csighost"; ktap_finished; }
cc_transit sw sw-r ${RATE_MBIT}mbit
ktap_run "dccbpf load hpcc (line rate $RATE_MBIT Mbit/s, T $T_MS ms, 2 flows)" load 2
topo_set_cc hpcc_bpf s1
DEFAULT_ON=s1

mbits() { jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | join(" ")' "$1"; }
# flow_mbit SECS: an hpcc_bpf flow from s1 for SECS; its goodput, Mbit/s
flow_mbit()
{
	topo_hx s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc_bpf -t "$1" -J |
		jq '.end.sum_received.bits_per_second / 1e6 | floor'
}

# hpcc.sh's same-boot reference: two Cubic flows of 2-segment
# super-packets, as hpcc_bpf's are here
ref=$(topo_capacity cubic $RATE_MBIT 2)
ktap_diag "reference: two Cubic flows of 2-segment super-packets, utilisation $(printf %.3f "$ref")"
scaled() { topo_scaled "$1" "$ref" 0.95; }
TWO_UTIL=$(scaled 0.80) TWO_JAIN=0.95
flow_best()
{
	flow_secs=$1
	ktap_best_of_two flow_run tput
}
flow_run()
{
	topo_iperf_server 5201
	tput=$(flow_mbit "$flow_secs")
	score=$(awk "BEGIN { t = ${tput:-0}; h = $(scaled "$RATE_MBIT / 2")
			     print (t > h ? 1 : 0.999 * t / h) }" < /dev/null)
}

# --- two flows, the second 4 s late (hpcc.sh's) ------------------------
two_vars="j1 j2 st1 st2 ssout ts0 ts1 rc1 rc2 util npk p50 p99 qmax"
two_flows()
{
	local q0 q1

	q0=$(mktemp) q1=$(mktemp)
	topo_two_flows 14 4 -C hpcc_bpf
	sleep 2
	st1=$("$D" show --json -N "${TOPO}s1")
	st2=$("$D" show --json -N "${TOPO}s2")
	ssout=$(topo_exec s1 ss -tin dst "$TOPO_RCV_IP")
	sleep 1
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
	rm -f "$q0" "$q1"
}
two_score()
{
	jain=$(iperf_jain2 "$j1" "$j2" 4 4 4)
	score=$(awk "BEGIN { u = $util / $TWO_UTIL; j = ${jain:-0} / $TWO_JAIN
			     print (u < j ? u : j) }" < /dev/null)
}
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
ktap_diag "s1: $(jq -c '[.sockets.hpcc_bpf[]? | select(.remote | endswith(":5201"))] | last' <<< "$st1" 2> /dev/null)"
ktap_diag "port model queue over 4 s: $npk packets, p50 ${p50} ns, p99 ${p99} ns, max ${qmax} ns"
# the sender's data socket, by its state in dccbpf show
u1=$(jq '[.sockets.hpcc_bpf[]? | select(.input == "u" and .U >= 0 and .U < 3 and .W > 0)] | length' <<< "$st1" 2> /dev/null)
u2=$(jq '[.sockets.hpcc_bpf[]? | select(.input == "u" and .U >= 0 and .U < 3 and .W > 0)] | length' <<< "$st2" 2> /dev/null)
ktap_expect "hpcc_bpf selected with sysctl (s1) and setsockopt (s2); both flows complete" \
	"$rc1 == 0 && $rc2 == 0 && $(echo "$ssout" | grep -c hpcc_bpf) >= 1"
ktap_expect "dccbpf show: both senders' flows read the U signal, U in [0, 3), W above 0" \
	"${u1:-0} >= 1 && ${u2:-0} >= 1"
ktap_expect "two flows: utilisation at least 80% (scaled to the reference)" "$util >= $TWO_UTIL"
ktap_expect "two flows: Jain fairness at least 0.95 in every 1 s window" "${jain:-0} >= $TWO_JAIN"
share=$(scaled "$RATE_MBIT * 0.95 / 2")
conv50=$(iperf_ramp "$j2" "$share" 0.5)
ktap_diag "late flow at 50% of its fair share after ${conv50} s"
ktap_expect "the late flow gets half its fair share within 2 s" "$conv50 <= 2"
ktap_expect "the port model's p99 queue stays below T ($T_MS ms)" \
	"$npk > 1000 && $p99 < $T_MS * 1000000"

# --- 16 flows (hpcc.sh's; N of W_ai's rule of thumb 16 from here) -------
load 16 > /dev/null || ktap_diag "dccbpf load with nflows=16 failed"
j=$(mktemp) q0=$(mktemp) q1=$(mktemp)
topo_iperf_server 5201
sx sw --json show sw-r > "$q0"
f0=$(ctr fallbacks) fa0=$(ctr fallback_acks)
topo_hx s1 iperf3 -c "$TOPO_RCV_IP" -P 16 -C hpcc_bpf -t 8 -J > "$j" 2>&1 &
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
ktap_diag "16 flows: utilisation $(printf %.3f "$util"), Jain $jain, queue p50 $p50 ns p99 $p99 ns max $qmax ns; fallbacks +$(($(ctr fallbacks) - f0)), fallback ACKs +$(($(ctr fallback_acks) - fa0))"
ktap_expect "16 flows: all complete, utilisation at least 65% (scaled)" "$rc == 0 && $util >= $(scaled 0.65)"
ktap_expect "16 flows: Jain fairness at least 0.7, none fell back" \
	"${jain:-0} >= 0.7 && $(ctr fallbacks) == $f0 && $(ctr fallback_acks) == $fa0"
ktap_expect "16 flows: p99 queue below 2 T" "$p99 < 2 * $T_MS * 1000000"

# --- fq on the sender's port (hpcc.sh's) --------------------------------
fqth() { topo_tc_stat s1 s1-eth0 root throttled; }
tc -n "${TOPO}s1" qdisc add dev s1-eth0 root fq
th0=$(fqth)
f0=$(ctr fallbacks) su0=$(ctr samples_u)
sx sw --json show sw-r > "$q0"
flow_best 4
sx sw --json show sw-r > "$q1"
th1=$(fqth)
tc -n "${TOPO}s1" qdisc del dev s1-eth0 root
read -r npk p50 p99 qmax <<< "$("$QH" "$q0" "$q1" 50 99)"
ktap_diag "fq on s1: $tput Mbit/s, fq throttled a flow $((th1 - th0)) times, $(($(ctr samples_u) - su0)) U samples, queue p99 $p99 ns"
ktap_expect "fq: it paces hpcc_bpf's flow, which runs on U, more than half the link (scaled), p99 queue below T" \
	"$th1 - $th0 > 100 && $(ctr samples_u) - $su0 > 100 && $(ctr fallbacks) == $f0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2") && $p99 < $T_MS * 1000000"

# --- an application-limited flow (hpcc.sh's, grow_pct's default) -------
h0=$(ctr commits_held)
topo_iperf_server 5201
topo_hx s1 iperf3 -c "$TOPO_RCV_IP" -C hpcc_bpf -b $((RATE_MBIT / 5))M -t 2 > /dev/null 2>&1
h1=$(ctr commits_held)
ktap_diag "a flow at a fifth of the link: $((h1 - h0)) commits held"
ktap_expect "an application-limited flow does not raise W (held)" "$h1 - $h0 > 10"

# --- a path that strips the tags: no samples, Reno, complete -----------
sx sw detach sw-r > /dev/null
sx sw attach sw-r strip > /dev/null
f0=$(ctr fallbacks) a0=$(ctr fallback_acks)
flow_best 4
ktap_diag "stripped path: $tput Mbit/s, fallbacks +$(($(ctr fallbacks) - f0)), fallback ACKs +$(($(ctr fallback_acks) - a0))"
ktap_expect "a stripping path: the flow falls back, counted, and completes at more than half the link (scaled)" \
	"$(ctr fallbacks) > $f0 && $(ctr fallback_acks) > $a0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2")"
sx sw detach sw-r > /dev/null
cc_transit sw sw-r ${RATE_MBIT}mbit

# --- no negotiation (r without the host path): Reno from the start -----
topo_csighost off r
n0=$(ctr flows_no_csig)
flow_best 3
topo_csighost on r
ktap_diag "not negotiated: $tput Mbit/s"
ktap_expect "a flow without CSIG runs Reno, counted, and completes" \
	"$(ctr flows_no_csig) > $n0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2")"

# --- the standard signals: PD and ABW/C, input=std (hpcc.sh's) ---------
for i in 1 2; do sx "s$i" set "s$i-eth0" --types pd,abwc > /dev/null; done
load 16 hpcc.input=std > /dev/null || ktap_diag "dccbpf load with input=std failed"
s0=$(ctr samples_std) f0=$(ctr fallbacks)
flow_best 4
ktap_diag "input=std: $tput Mbit/s, $(($(ctr samples_std) - s0)) PD/ABW-C samples taken"
ktap_expect "input=std: u from PD and ABW/C, no fallback, more than half the link (scaled)" \
	"$(ctr samples_std) - $s0 > 100 && $(ctr fallbacks) == $f0 && ${tput:-0} > $(scaled "$RATE_MBIT / 2")"

rm -f "$j" "$q0" "$q1"
topo_set_cc cubic s1
ktap_finished
