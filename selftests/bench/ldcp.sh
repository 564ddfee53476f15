#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ldcp against dctcp and cubic, in one run, on the dumbbell of
# selftests/vm/ldcp.sh: an htb bottleneck of 100 Mbit/s, 1 ms of base
# delay.
#
# 1. N (32) flows from one sender for SECS (8) s, all starting at once;
#    per round and CC: goodput (iperf3's receiver), Jain fairness of the
#    flows over the whole run and over its last 4 s, the bottleneck's
#    queue p50/p99 (htb's backlog every 50 ms from 2 s to SECS - 0.5 s),
#    RTO timeouts and retransmitted segments on the sender.
#
#      ldcp    red, the draft's WRED/ECN profile (K_min 15 KB, K_max
#              45 KB, P_max 1, Documentation/tcp_ldcp.rst)
#      dctcp   red/ECN marking at K = DCTCP_K (30 KB) of the
#              instantaneous queue
#      cubic   fifo of 1000 packets
#
# 2. Receivers: two ldcp flows for SECS s on the 100 Mbit/s dumbbell
#    behind the red profile, against an ldcp receiver, a stock (cubic)
#    one with ECN negotiated (the sender's tcp_ecn=1, ldcp set after
#    connect()), and a stock one whose listener refuses ECN because
#    the sender's SYN is ECT (ldcp its default); goodput, queue, the
#    share of ECE-marked ACKs, flows without ECN.
#
# 3. Short flows, one at a time on an empty path of 25 Mbit/s and 20 ms
#    (a BDP of 62.5 KB) behind the ldcp profile, GSO off on the sender's
#    port: REPS (11) flows of each size per round, the algorithms
#    interleaved (selftests/lib/fct.py); completion time medians.
#
# Then the medians over ROUNDS (3) rounds with their range, and ldcp's
# ratios to dctcp and cubic.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/topo.sh"
. "$here/../lib/bench.sh"

ROUNDS=${ROUNDS:-3}
N=${N:-32}
SECS=${SECS:-8}
REPS=${REPS:-11}
SIZES=${SIZES:-16384,65536,262144,1048576}
DCTCP_K=${DCTCP_K:-30000}
CCS="ldcp dctcp cubic"
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
RED="red limit 1000000 min 15000 max 45000 avpkt 1500 burst 10 probability 1 ecn bandwidth $TOPO_RATE"
P=/sys/module/tcp_ldcp/parameters

insmod "$top/build/$(uname -r)/tcp_ldcp.ko" bw_mbps=$RATE_MBIT base_rtt_us=1500 || exit 1
modprobe -q tcp_dctcp
modprobe -q sch_red
topo_dumbbell 1 $RED || exit 1
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) ldcp dctcp"

# ldcp_ctrs: s1's tcp_ldcp counters flows_no_ecn, ece_acks and acks
ldcp_ctrs()
{
	topo_exec s1 awk '$1 == "flows_no_ecn" { n = $2 } $1 == "ece_acks" { e = $2 }
		$1 == "acks" { a = $2 } END { print n, e, a }' /proc/net/tcp_ldcp
}

# config CC: the bottleneck's leaf for CC, and CC the default on both
# ends (ECN is negotiated in the handshake, before iperf3 sets -C)
config()
{
	case $1 in
	ldcp)	topo_set_leaf $RED ;;
	dctcp)	topo_set_leaf $(topo_red_ecn "$DCTCP_K") ;;
	*)	topo_set_leaf pfifo limit 1000 ;;
	esac
	topo_set_cc "$1" s1 r
}

echo "$N flows, bottleneck $RATE_MBIT Mbit/s, base delay $TOPO_DELAY, $ROUNDS rounds of $SECS s; dctcp K $DCTCP_K bytes"
declare -A G J J4 QP50 QP99 TO RX
for ((r = 1; r <= ROUNDS; r++)); do
	for cc in $CCS; do
		config "$cc"
		j=$(mktemp) q=$(mktemp)
		to0=$(topo_nstat s1 TcpExtTCPTimeouts)
		topo_exec r iperf3 -s -D -1 -p 5201 > /dev/null 2>&1
		sleep 0.3
		topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -P "$N" -t "$SECS" -i 1 -J > "$j" 2>&1 &
		p1=$!
		sleep 2
		topo_sample_backlog "$(echo "$SECS - 2.5" | bc -l)" 0.05 "$q"
		wait $p1
		to=$(($(topo_nstat s1 TcpExtTCPTimeouts) - to0))
		g=$(jq -r '.end.sum_received.bits_per_second / 1e6' "$j")
		jn=$(jq -r '[.end.streams[].sender.bits_per_second] | (add * add) / (length * (map(. * .) | add))' "$j")
		jn4=$(jq -r --argjson s "$SECS" '[.intervals[($s - 4):$s][].streams | map(.bytes)] |
			transpose | map(add) | (add * add) / (length * (map(. * .) | add))' "$j")
		rx=$(jq -r '.end.sum_sent.retransmits' "$j")
		a=$(stat_pct 50 "$q") b=$(stat_pct 99 "$q")
		G[$cc]="${G[$cc]} ${g:-0}"
		J[$cc]="${J[$cc]} $(echo "100 * ${jn:-0}" | bc -l)"
		J4[$cc]="${J4[$cc]} $(echo "100 * ${jn4:-0}" | bc -l)"
		QP50[$cc]="${QP50[$cc]} $(echo "$a / 1000" | bc -l)"
		QP99[$cc]="${QP99[$cc]} $(echo "$b / 1000" | bc -l)"
		TO[$cc]="${TO[$cc]} $to"
		RX[$cc]="${RX[$cc]} ${rx:-0}"
		printf 'round %d %-6s goodput %5.1f Mbit/s  jain %.3f (last 4 s %.3f)  queue p50 %5.1f KB p99 %5.1f KB  timeouts %d  retransmits %d\n' \
			"$r" "$cc" "${g:-0}" "${jn:-0}" "${jn4:-0}" "$(echo "$a / 1000" | bc -l)" \
			"$(echo "$b / 1000" | bc -l)" "$to" "${rx:-0}"
		rm -f "$j" "$q"
	done
done

echo
echo "$N flows: medians over $ROUNDS rounds (min..max)"
printf '%-6s %-20s %-20s %-20s %-20s %-20s %-20s\n' cc "goodput Mbit/s" "jain %" "jain last 4 s %" \
	"queue p99 KB" "timeouts" "retransmits"
declare -A med
for cc in $CCS; do bench_row 6 "$cc" G J J4 QP99 TO RX; done
for b in dctcp cubic; do
	echo "ldcp / $b: goodput $(bench_ratio "${med[G.ldcp]}" "${med[G.$b]}")," \
	     "jain $(bench_ratio "${med[J.ldcp]}" "${med[J.$b]}")," \
	     "queue p99 $(bench_ratio "${med[QP99.ldcp]}" "${med[QP99.$b]}")"
done

# receivers: what a stock receiver costs (Documentation/tcp_ldcp.rst,
# "ECN-Echo"); iperf3 -C sets ldcp after connect(), so the sender's SYN
# is ECT only where ldcp is its default
echo
echo "receivers: 2 ldcp flows for $SECS s, $ROUNDS rounds"
topo_set_leaf $RED
topo_exec s1 sysctl -qw net.ipv4.tcp_ecn=1
declare -A RG RQ RE
RXS="ldcp stock stock_ect_syn"
for ((r = 1; r <= ROUNDS; r++)); do
	for rx in $RXS; do
		case $rx in
		ldcp)	topo_set_cc cubic s1; topo_set_cc ldcp r ;;
		stock)	topo_set_cc cubic s1 r ;;
		*)	topo_set_cc ldcp s1; topo_set_cc cubic r ;;
		esac
		j=$(mktemp) q=$(mktemp)
		read -r n0 e0 c0 <<< "$(ldcp_ctrs)"
		topo_exec r iperf3 -s -D -1 -p 5201 > /dev/null 2>&1
		sleep 0.3
		topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -P 2 -t "$SECS" -C ldcp -J > "$j" 2>&1 &
		p1=$!
		sleep 2
		topo_sample_backlog "$(echo "$SECS - 2.5" | bc -l)" 0.05 "$q"
		wait $p1
		read -r n1 e1 c1 <<< "$(ldcp_ctrs)"
		g=$(jq -r '.end.sum_received.bits_per_second / 1e6' "$j")
		b=$(stat_pct 99 "$q")
		RG[$rx]="${RG[$rx]} ${g:-0}"
		RQ[$rx]="${RQ[$rx]} $(echo "$b / 1000" | bc -l)"
		RE[$rx]="${RE[$rx]} $(echo "100 * ($e1 - $e0) / ($c1 - $c0 + 1)" | bc -l)"
		printf 'round %d receiver %-13s goodput %5.1f Mbit/s  queue p50 %5.1f KB p99 %5.1f KB  ECE ACKs %d of %d  flows without ECN %d\n' \
			"$r" "$rx" "${g:-0}" "$(echo "$(stat_pct 50 "$q") / 1000" | bc -l)" \
			"$(echo "$b / 1000" | bc -l)" $((e1 - e0)) $((c1 - c0)) $((n1 - n0))
		rm -f "$j" "$q"
	done
done
echo
echo "receivers: medians over $ROUNDS rounds (min..max)"
printf '%-14s %-20s %-20s %-20s\n' receiver "goodput Mbit/s" "queue p99 KB" "ECE ACKs %"
for rx in $RXS; do bench_row 14 "$rx" RG RQ RE; done
topo_exec s1 sysctl -qw net.ipv4.tcp_ecn=2

# short flows
config ldcp
topo_set_cc cubic s1
TOPO_RATE=25mbit
topo_set_leaf ${RED/bandwidth*/bandwidth $TOPO_RATE}
tc -n "${TOPO}sw" qdisc change dev sw-s1 root netem delay 20ms limit 100000
topo_exec s1 ethtool -K s1-eth0 tso off gso off > /dev/null
echo 25 > $P/bw_mbps
echo 20000 > $P/base_rtt_us
# exec: no shell of ours waits for it and reports "Terminated" when
# topo_cleanup ends it
(exec ip netns exec "${TOPO}r" python3 "$here/../lib/fct.py" server 7000) &
disown $!
sleep 1
echo
echo "short flows, one at a time: 25 Mbit/s, 20 ms, $REPS of each size and CC per round, $ROUNDS rounds"
declare -A F
for ((r = 1; r <= ROUNDS; r++)); do
	f=$(mktemp)
	topo_exec s1 python3 "$here/../lib/fct.py" client "$TOPO_RCV_IP" 7000 \
		"$(echo $CCS | tr ' ' ,)" "$SIZES" "$REPS" > "$f" || exit 1
	for sz in ${SIZES//,/ }; do
		line=$(printf 'round %d %5d KB' "$r" $((sz / 1024)))
		for cc in $CCS; do
			m=$(jq -r --arg c "$cc" --arg s "$sz" '.[$c][$s] | sort | .[length / 2 | floor] / 1000' "$f")
			F[$cc.$sz]="${F[$cc.$sz]} $m"
			line="$line $(printf ' %s %7.1f ms' "$cc" "$m")"
		done
		echo "$line"
	done
	rm -f "$f"
done
echo
echo "short flows: completion time, median of the rounds' medians (min..max), ms; ldcp's ratios"
printf '%-8s %-22s %-22s %-22s %-10s %-10s\n' size ldcp dctcp cubic "ldcp/dctcp" "ldcp/cubic"
for sz in ${SIZES//,/ }; do
	line=$(printf '%-8s' "$((sz / 1024)) KB")
	for cc in $CCS; do
		read -r m lo hi <<< "$(echo "${F[$cc.$sz]}" | bench_med)"
		med[F.$cc]=$m
		line="$line $(printf '%-22s' "$m ($lo..$hi)")"
	done
	echo "$line $(printf '%-10s %-10s' "$(bench_ratio "${med[F.ldcp]}" "${med[F.dctcp]}")" \
		"$(bench_ratio "${med[F.ldcp]}" "${med[F.cubic]}")")"
done
topo_cleanup
trap - EXIT
sleep 1
rmmod tcp_ldcp
