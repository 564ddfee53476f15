#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc against dctcp, cubic and bbr on one bottleneck, in one run: two
# senders, an htb bottleneck at each of RATES (100 Mbit/s), 1 ms
# of base delay; the second flow starts LATE seconds after the first,
# both run to SECS (and on for another second, in which the senders'
# sockets are read: run()).
#
#   hpcc    fifo, the CSIG data plane (transit on the bottleneck port,
#           insertion on the senders), T = 4 ms (selftests/vm/hpcc.sh),
#           the port's rate window cc_window's (selftests/lib/cc.sh: 2 ms
#           at 100 Mbit/s, 4 ms at 50)
#   dctcp   RED/ECN marking at K = 30 KB of the instantaneous queue,
#           dctcp the default congestion control of both ends
#   cubic   fifo of 1000 packets
#   bbr     fifo of 1000 packets
#   hpcc,KEY=VAL[,KEY=VAL]
#           hpcc with these of its module parameters for its runs (e.g.
#           hpcc,eta=98), beside hpcc with the defaults; and
#           window_us=N, the port's rate window in microseconds
#   paced   fifo of 1000 packets, two cubic flows each held by
#           SO_MAX_PACING_RATE (iperf3 --fq-rate) at half of the
#           utilisation hpcc reached in the same round (PACED_PCT per cent
#           of the link when hpcc did not run; both of the link's bytes,
#           frames, which run() converts to the TCP payload that TCP
#           paces), in super-packets of 2 segments as hpcc's: a sender
#           that knows its fair rate exactly and has no control loop.
#           Its queue is what this emulated path makes at that load by
#           itself; no RTT run.
#   paced,PCT
#           the same, each flow held at PCT/2 per cent of the link:
#           paced,95 is a sender that holds eta's load exactly, and its
#           utilisation is what senders paced there get from the
#           emulated hosts (Documentation/results.rst, "Per-module
#           benchmarks")
#
# The transit role sits on the bottleneck port in every configuration:
# its model's queue histogram gives the queue percentiles (an upper bound
# when the fifo drops, since the model does not).  Per round and CC, a
# run with nothing beside the flows: utilisation of the link over the
# two-flow period (htb's bytes), queue p50/p99 (port model), Jain
# fairness over 1 s windows, the share of the guest's CPU time (both
# vCPUs, /proc/stat) that was busy over the same period, and the late
# flow's ramp in two readings:
# from its bytes received, sampled every 10 ms (tools/rxsample), the time
# from its connection to the first sample from which its rate over every
# 0.2 s window for 1 s is 80% of its fair share (half of the link's
# utilisation in that run) or more
# (rxsample_settle); and from its iperf3 reports, the end of its first
# 0.1 s interval from which its rate over 0.5 s stays there for 1 s
# (iperf_settle, which cannot tell times under 0.1 s); then a run with a ping
# through the bottleneck every 20 ms beside the flows, for RTT p50/p99
# (run() says why apart).  Then the
# medians over ROUNDS rounds with their range, and hpcc's ratios to dctcp,
# cubic and each paced row.  Under make bench, build/bench/hpcc-runs/
# keeps, per run (rRATE-RUN-CC), the late flow's samples (.txt), its
# iperf3 report (.json) and the senders' ss -tin and retransmission
# counters taken at the end of the measured period (.ss).
# With TRACE=1 (make bench BENCH=hpcc TRACE=1), the hpcc runs also record
# tcp_hpcc's hpcc_update events, and a line after each round's gives
# their summary over the measured period, which trace markers bound
# (selftests/lib/hpcc_trace.py: U over time and at the commits, commits
# per second, the pacing rates); under make bench the events stay beside
# the run's files (.trace).  The events are enabled before the flows
# start and disabled after they end (ktap_trace: under TCG, patching a
# static key that another vCPU runs can oops the guest), and they cost
# the emulated senders CPU: the figures of a traced run are not those of
# an untraced one.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/topo.sh"
. "$here/../lib/bench.sh"
. "$here/../lib/iperf.sh"
. "$here/../lib/ktap.sh"
# its own path, set below: PROFILE (cc.sh) is for the scenarios
PROFILE=small
. "$here/../lib/cc.sh"

ROUNDS=${ROUNDS:-3}
TRACE=${TRACE:-0}
SECS=${SECS:-12}
LATE=${LATE:-3}
# bottleneck rates, Mbit/s: at 100 the link is the bottleneck; at 200 two
# senders and the data plane keep the VM's two vCPUs busy and the senders
# set the rates (RATES="200 100" measures both)
RATES=${RATES:-100}
# C of the port model, per cent of the rate: at 200 Mbit/s under TCG htb
# drains ~95% (CAP_PCT=95 there), at 100 all of it
CAP_PCT=${CAP_PCT:-100}
T_MS=4
CC_T_MS=$T_MS
CCS=${CCS:-hpcc paced paced,95 dctcp cubic bbr}
for cc in $CCS; do
	case $cc in paced,*)
		[[ ${cc#paced,} =~ ^([1-9][0-9]?|100)$ ]] && continue
		echo "hpcc.sh: paced,PCT takes a per cent of the link (1..100), not '${cc#paced,}'" >&2
		exit 2
	esac
	case ,$cc, in *,window_us=*)
		[[ ,$cc, =~ ,window_us=[1-9][0-9]{0,6}, ]] && continue
		echo "hpcc.sh: window_us takes microseconds (1..9999999), not '$cc'" >&2
		exit 2
	esac
done
PACED_PCT=${PACED_PCT:-93}
RATE_MBIT=${RATES%% *}
TOPO_RATE=${RATE_MBIT}mbit
QH=$top/selftests/lib/qhist.py
RXS=$top/build/bin/rxsample
NRUN=0		# runs so far: the late flow's client port is 5300 + NRUN
sx() { topo_csigctl "$@"; }

insmod "$top/build/$(uname -r)/tcp_csig_opt.ko" || exit 1
# nflows stays at its default, 16, above the 2 flows here: with nflows
# equal to the number of flows, the additive steps put hpcc's fixed point
# at U = 1 whatever eta, which on this path, where the senders fill 89-95%
# of the link, is a standing queue (Documentation/tcp_hpcc.rst, "Choosing
# eta, W_ai and nflows")
insmod "$top/build/$(uname -r)/tcp_hpcc.ko" line_rate_mbps=$RATE_MBIT \
	base_rtt_us=$((T_MS * 1000)) nflows=16 || exit 1
if [ "$TRACE" = 1 ]; then
	ktap_trace tcp_hpcc 0
	# room for a run's events (two flows, about 2000 per second each,
	# under 200 bytes each), allocated here, not in a run
	echo 16384 > $KTAP_T/buffer_size_kb || exit 1
fi
modprobe -q tcp_dctcp
modprobe -q tcp_bbr
modprobe -q sch_red
# a namespace may make dctcp its default only once it is allowed
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n \
	net.ipv4.tcp_allowed_congestion_control) dctcp" || exit 1
[ -z "$VT_OUT" ] || mkdir -p "$VT_OUT/hpcc-runs" || exit 1
topo_dumbbell 2 pfifo limit 1000 || exit 1
topo_hold_netstamp	# ping flips it, between runs but under TCG
MTU=1496
for i in 1 2; do
	ip -n "${TOPO}s$i" link set "s$i-eth0" mtu $MTU
	topo_exec "s$i" sysctl -qw net.ipv4.tcp_ecn=1
done
GSO_SEGS=$(topo_gso_segs s1)

config()	# config CC: the leaf and the CSIG roles for CC
{
	local i def

	sx sw detach sw-r 2> /dev/null
	cc_detach_u
	for i in 1 2; do
		ip -n "${TOPO}s$i" link set "s$i-eth0" gso_max_segs \
			"$([ "$1" = paced ] && echo 2 || echo "$GSO_SEGS")" || exit 1
	done
	if [ "$1" = dctcp ]; then
		topo_set_leaf $(topo_red_ecn 30000)
	else
		topo_set_leaf pfifo limit 1000
	fi
	# dctcp as its deployments run it (Documentation/networking/
	# dctcp.rst): the default on both ends, so that every connection,
	# iperf3's control connection too, sends ECT SYNs, which RED marks
	# rather than drops, and the receiver's listener accepts ECN on an
	# ECT SYN.  With cubic there, a late flow's SYN could meet the
	# queue above K and be dropped, the SYN retransmitted without ECN
	# (RFC 3168), and the flow, dctcp without ECN, dropped at K for the
	# rest of the run (2 of 3 rounds on 6.1 once).
	def=cubic
	[ "$1" = dctcp ] && def=dctcp
	for i in s1 s2 r; do
		topo_exec $i sysctl -qw net.ipv4.tcp_congestion_control=$def || exit 1
	done
	cc_transit sw sw-r ${CAP_MBIT}mbit
	if [ "${1%%,*}" = hpcc ]; then
		cc_insert_u s1 s2
	fi
}

# run CC PING: one run of the two flows of CC.  With PING 1 a ping
# through the bottleneck every 20 ms runs beside them, and only the RTT
# of its replies in the measured period is kept; with PING 0 nothing
# else runs, and the rest is measured.  Under TCG the ping costs the
# senders' CPU, which the queues of dctcp, cubic and bbr cover and
# hpcc's does not: in 5 rounds alternated, 87.5% of utilisation for hpcc
# with it and 90.9% without, 94.9% and 94.7% for dctcp.
run()
{
	local cc=$1 ping=$2 c=${1%%,*} fq= j1 j2 q0 q1 pg rt pp= p1 p2 ts0 ts1 m a b jn pct share
	local kv saved= rx rp cport i keep tr= c0 c1

	# hpcc,KEY=VAL...: the module's parameters for this run only, and
	# window_us, the transit role's rate window (cc_transit)
	local CC_INTERVAL=
	[ "$c" = paced ] || for kv in $(echo "${cc#"$c"}" | tr , ' '); do
		if [ "${kv%%=*}" = window_us ]; then
			# shellcheck disable=SC2034 # cc_transit reads it
			CC_INTERVAL=${kv#*=}us
			continue
		fi
		saved+=" ${kv%%=*}=$(cat "/sys/module/tcp_hpcc/parameters/${kv%%=*}")" || exit 1
		echo "${kv#*=}" > "/sys/module/tcp_hpcc/parameters/${kv%%=*}" || exit 1
	done
	config "$c"
	if [ "$c" = paced ]; then
		case $cc in
		paced,*) pct=${cc#paced,} ;;
		*)	pct=$(last "U[hpcc]")
			[ -n "$pct" ] || pct=$PACED_PCT ;;
		esac
		c=cubic
		# the link's share in frames, the pace in TCP payload at
		# this MTU (cc_pace_kbit)
		fq="--fq-rate $(cc_pace_kbit "$pct" 2)K"
	fi
	j1=$(mktemp) j2=$(mktemp) q0=$(mktemp) q1=$(mktemp) pg=$(mktemp) rt=$(mktemp) rx=$(mktemp)
	# a port of its own per run: the last run's may still be in TIME_WAIT
	NRUN=$((NRUN + 1))
	cport=$((5300 + NRUN))
	# under make bench, this run's files in build/bench/hpcc-runs/
	keep=${VT_OUT:+$VT_OUT/hpcc-runs/r$RATE_MBIT-$NRUN-$cc}
	topo_exec r iperf3 -s -D -1 -p 5201 > /dev/null 2>&1
	topo_exec r iperf3 -s -D -1 -p 5202 > /dev/null 2>&1
	if [ "$TRACE" = 1 ] && [ "$ping" = 0 ] && [ "$c" = hpcc ]; then
		tr=$(mktemp)
		ktap_trace tcp_hpcc 1
	fi
	sleep 0.3
	if [ "$ping" = 1 ]; then
		# started before the flows: a process start takes the
		# senders' CPU for some 100 ms
		topo_exec s1 ping -D -n -i 0.02 -w "$SECS" "$TOPO_RCV_IP" > "$pg" 2> /dev/null &
		pp=$!
		sleep 0.3
	fi
	topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -C "$c" $fq -t $((SECS + 1)) -i 0.5 -J > "$j1" 2>&1 &
	p1=$!
	# the late flow's bytes every 10 ms, at the receiver, from before it
	# starts to the end: an exact sock_diag lookup each, no dump
	topo_exec r "$RXS" "$TOPO_RCV_IP" 5202 "$(topo_sender_ip 2)" $cport 10000 \
		$((SECS * 100)) > "$rx" &
	rp=$!
	sleep "$LATE"
	topo_exec s2 iperf3 -c "$TOPO_RCV_IP" -p 5202 --cport $cport -C "$c" $fq \
		-t $((SECS - LATE + 1)) -i 0.1 -J > "$j2" 2>&1 &
	p2=$!
	sleep 2
	# measured: from LATE + 2 s to SECS - 1 s.  The port model is read
	# in both runs, so that the ping's run starts the same processes at
	# the same times as the measured one.
	m=$((SECS - LATE - 3))
	sx sw --json show sw-r > "$q0"
	[ -n "$tr" ] && echo hpcc_trace_begin > $KTAP_T/trace_marker
	ts0=$(topo_tx_stamp)
	c0=$(bench_cpu)
	sleep "$m"
	c1=$(bench_cpu)
	ts1=$(topo_tx_stamp)
	[ -n "$tr" ] && echo hpcc_trace_end > $KTAP_T/trace_marker
	sx sw --json show sw-r > "$q1"
	# the senders' sockets and retransmissions, after the measured
	# period, beside the late flow's samples.  The flows run a second
	# past SECS for it: the reading of the port model above takes a
	# few hundred ms under TCG, and when they ended at SECS the dump
	# raced their end and listed 0-4 of the 4 connections.
	if [ -n "$keep" ]; then
		for i in 1 2; do
			topo_exec s$i ss -tin
			topo_exec s$i nstat -az TcpRetransSegs TcpExtTCPSynRetrans TcpExtTCPTimeouts
		done > "$keep.ss" 2>&1
	fi
	wait $pp $p1 $p2 $rp || { echo "rxsample failed" >&2; exit 1; }
	if [ -n "$tr" ]; then
		# the flows have ended: no vCPU is in the patched code
		ktap_trace tcp_hpcc 0
		cat $KTAP_T/trace > "$tr"
		TRC[$cc]=$(python3 "$top/selftests/lib/hpcc_trace.py" "$tr" \
			"$(echo "$(cat /sys/module/tcp_hpcc/parameters/eta) / 100" | bc -l)")
		[ -n "$keep" ] && cp "$tr" "$keep.trace"
		rm -f "$tr"
	fi
	if [ "$ping" = 1 ]; then
		sed -n 's/^\[\([0-9.]*\)\].*time=\([0-9.]*\) ms/\1 \2/p' "$pg" |
			awk -v a="${ts0#* }" -v b="${ts1#* }" \
			'$1 * 1e9 >= a && $1 * 1e9 <= b { print $2 }' > "$rt"
		RP50[$cc]+=" $(stat_pct 50 "$rt")"
		RP99[$cc]+=" $(stat_pct 99 "$rt")"
	else
		U[$cc]+=" $(echo "100 * $(topo_util "$ts0" "$ts1" $RATE_MBIT)" | bc -l)"
		CPU[$cc]+=" $(bench_cpu_pct "$c0" "$c1")"
		read -r _ a b _ <<< "$("$QH" "$q0" "$q1" 50 99)"
		QP50[$cc]+=" $(echo "$a / 1000" | bc -l)"
		QP99[$cc]+=" $(echo "$b / 1000" | bc -l)"
		# Jain per 1 s window over the measured period
		jn=$(iperf_jain2 "$j1" "$j2" "$LATE" 2 "$m")
		JAIN[$cc]+=" $(echo "100 * ${jn:-0}" | bc -l)"
		# the late flow's fair share: half of what the link carried
		# in this run, not of its nominal rate, so that a dip of a
		# CC that fills less of the link counts as much as another's
		share=$(echo "$RATE_MBIT * $(last "U[$cc]") / 200" | bc -l)
		# over 0.2 s windows: the senders' CPU stalls under TCG last
		# about 0.1 s (the port model's reading at LATE + 2 s left
		# one in the traces looked at), and over 0.1 s windows a
		# single one failed the hold of a flow long at its share;
		# 0.2 s lets a stall of 0.1 s at 60% by, not a flow that
		# stays short of its share
		LATEF[$cc]+=" $(rxsample_settle "$rx" "$share" 0.8 1 0.2)"
		CONV[$cc]+=" $(iperf_settle "$j2" "$share" 0.8 1)"
		# the samples stay beside the report, to be looked at
		if [ -n "$keep" ]; then
			cp "$rx" "$keep.txt"
			cp "$j2" "$keep.json"
		fi
	fi
	rm -f "$j1" "$j2" "$q0" "$q1" "$pg" "$rt" "$rx"
	for kv in $saved; do
		echo "${kv#*=}" > "/sys/module/tcp_hpcc/parameters/${kv%%=*}"
	done
}

last() { echo "${!1}" | awk '{ print $NF }'; }

bench_rate()
{
CAP_MBIT=$((RATE_MBIT * CAP_PCT / 100))
TOPO_RATE=${RATE_MBIT}mbit
echo "bottleneck $RATE_MBIT Mbit/s (port model C $CAP_MBIT), base delay $TOPO_DELAY, $ROUNDS rounds of $SECS s, second flow at +$LATE s"
unset U QP50 QP99 RP50 RP99 JAIN LATEF CONV TRC CPU med
declare -gA U QP50 QP99 RP50 RP99 JAIN LATEF CONV TRC CPU
for ((r = 1; r <= ROUNDS; r++)); do
	for cc in $CCS; do
		run "$cc" 0
		if [ "${cc%%,*}" = paced ]; then
			printf 'round %d %-6s util %5.1f%%  queue p50 %6.0f us p99 %6.0f us  jain %.3f  cpu %3.0f%%\n' \
				"$r" "$cc" "$(last "U[$cc]")" "$(last "QP50[$cc]")" "$(last "QP99[$cc]")" \
				"$(echo "$(last "JAIN[$cc]") / 100" | bc -l)" "$(last "CPU[$cc]")"
			continue
		fi
		run "$cc" 1
		printf 'round %d %-6s util %5.1f%%  queue p50 %6.0f us p99 %6.0f us  rtt p50 %5.2f ms p99 %5.2f ms  jain %.3f  late flow %5.2f s (iperf %.1f s)  cpu %3.0f%%\n' \
			"$r" "$cc" "$(last "U[$cc]")" "$(last "QP50[$cc]")" "$(last "QP99[$cc]")" \
			"$(last "RP50[$cc]")" "$(last "RP99[$cc]")" \
			"$(echo "$(last "JAIN[$cc]") / 100" | bc -l)" "$(last "LATEF[$cc]")" \
			"$(last "CONV[$cc]")" "$(last "CPU[$cc]")"
		[ -z "${TRC[$cc]}" ] || echo "  trace: ${TRC[$cc]}"
		TRC[$cc]=
	done
done

echo
echo "medians over $ROUNDS rounds (min..max)"
w=6
for cc in $CCS; do [ ${#cc} -gt $w ] && w=${#cc}; done
printf "%-${w}s %-20s %-20s %-20s %-20s %-20s %-20s %-20s\n" cc "utilisation %" "queue p99 us" \
	"rtt p99 ms" "jain %" "late flow s" "(iperf) s" "cpu %"
declare -gA med
pcs=
for cc in $CCS; do
	[ "${cc%%,*}" = paced ] && pcs+=" $cc" && continue
	bench_row $w "$cc" U QP99 RP99 JAIN LATEF:2 CONV CPU
done
if [ -n "$pcs" ]; then
	printf "%-${w}s %-20s %-20s %-20s %-20s\n" cc "utilisation %" "queue p99 us" "jain %" "cpu %"
	for cc in $pcs; do
		bench_row $w "$cc" U QP99 JAIN CPU
	done
fi
for h in $CCS; do
	[ "${h%%,*}" = hpcc ] || continue
	for b in dctcp cubic $pcs; do
		case " $CCS " in *" $b "*) ;; *) continue ;; esac
		line="$h / $b: utilisation $(bench_ratio "${med[U.$h]}" "${med[U.$b]}")"
		line+=", queue p99 $(bench_ratio "${med[QP99.$h]}" "${med[QP99.$b]}")"
		if [ "${b%%,*}" != paced ]; then
			line+=", rtt p99 $(bench_ratio "${med[RP99.$h]}" "${med[RP99.$b]}")"
			line+=", late flow time $(bench_ratio "${med[LATEF.$h]}" "${med[LATEF.$b]}")"
			line+=" (iperf $(bench_ratio "${med[CONV.$h]}" "${med[CONV.$b]}"))"
		fi
		echo "$line"
	done
done
}

for RATE_MBIT in $RATES; do
	echo 16 > /sys/module/tcp_hpcc/parameters/nflows
	echo $RATE_MBIT > /sys/module/tcp_hpcc/parameters/line_rate_mbps
	bench_rate
	echo
done
