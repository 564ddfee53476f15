#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: a parking lot of two bottlenecks (selftests/lib/parking.sh),
# each 100 Mbit/s with 1 ms of base delay: flow A crosses both, B only
# the first, C only the second, all three for SECS (12) s from the same
# moment; each congestion control with its own bottlenecks (as
# selftests/lib/cc.sh's).  Measured from 2 s to SECS - 1 s: each
# flow's rate, against max-min fairness's half a link; both links'
# utilisation and the queues of both port models; RTT of ECT pings
# over both links.  Records parking-CC-rROUND.json
# (selftests/lib/parkrun.py).
SCENARIO=parking
here_pk=$(cd "$(dirname "$0")/../lib" && pwd)
. "$here_pk/topo.sh"
. "$here_pk/cc.sh" || exit 2
SCENARIO=$CC_PREFIX$SCENARIO
. "$here_pk/parking.sh"

ROUNDS=${ROUNDS:-3}
CCS=${CCS:-$CC_ALL}
# shellcheck disable=SC2086
CCS=$(cc_all_scenarios $CCS)
RATE_MBIT=${RATE_MBIT:-100}
TOPO_RATE=${RATE_MBIT}mbit
SECS=${SECS:-12}
RESULTS=${RESULTS:-${VT_OUT:-/tmp}/results}
mkdir -p "$RESULTS"

# pk_stamp: "bytes1 bytes2 ns"
pk_stamp()
{
	echo "$(pk_stat 1 bytes) $(pk_stat 2 bytes) $(date +%s%N)"
}

cc_load 2 || exit 1
pk_build || exit 1
cc_hosts 3
topo_hold_netstamp
t0=2
t1=$((SECS - 1))
m=$((t1 - t0))
echo "$SCENARIO: flows A (both links), B (link 1), C (link 2), $SECS s, links $RATE_MBIT Mbit/s," \
	"base delay $TOPO_DELAY; measured from $t0 s to $t1 s; $ROUNDS rounds of: $CCS"
rc=0
for ((r = 1; r <= ROUNDS; r++)); do
	for cc in $CCS; do
		pk_config "$cc" || { rc=1; continue; }
		w=$(mktemp -d)
		topo_exec r2 iperf3 -s -D -1 -p 5201 > /dev/null 2>&1
		topo_exec r1 iperf3 -s -D -1 -p 5202 > /dev/null 2>&1
		topo_exec r2 iperf3 -s -D -1 -p 5203 > /dev/null 2>&1
		sleep 0.3
		to0=$(cc_nstat_sum TcpExtTCPTimeouts 3)
		topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -p 5201 -C "$cc" -t "$SECS" -i 0.5 -J > "$w/a.json" 2>&1 &
		topo_exec s2 iperf3 -c "$PK_R1_IP" -p 5202 -C "$cc" -t "$SECS" -i 0.5 -J > "$w/b.json" 2>&1 &
		topo_exec s3 iperf3 -c "$TOPO_RCV_IP" -p 5203 -C "$cc" -t "$SECS" -i 0.5 -J > "$w/c.json" 2>&1 &
		sleep "$t0"
		topo_csigctl sw1 --json show sw1-l > "$w/q1a"
		topo_csigctl sw2 --json show sw2-r2 > "$w/q2a"
		st0=$(pk_stamp)
		topo_exec s1 ping -n -Q 2 -i 0.02 -w "$m" -c $((m * 50)) "$TOPO_RCV_IP" 2> /dev/null |
			sed -n 's/.*time=\([0-9.]*\) ms/\1/p' > "$w/ping"
		st1=$(pk_stamp)
		topo_csigctl sw1 --json show sw1-l > "$w/q1b"
		topo_csigctl sw2 --json show sw2-r2 > "$w/q2b"
		wait
		python3 "$here_pk/parkrun.py" "$RESULTS/$SCENARIO-$cc-r$r.json" \
			scenario="$SCENARIO" cc="$cc" round="$r" kernel="$(uname -r)" \
			rate_mbit="$RATE_MBIT" delay="$TOPO_DELAY" secs="$SECS" t0="$t0" t1="$t1" \
			stamp0="$st0" stamp1="$st1" q1a="$w/q1a" q1b="$w/q1b" q2a="$w/q2a" q2b="$w/q2b" \
			ping="$w/ping" drops=$(($(pk_stat 1 dropped) + $(pk_stat 2 dropped))) \
			marks=$(($(pk_stat 1 marked) + $(pk_stat 2 marked))) \
			timeouts=$(($(cc_nstat_sum TcpExtTCPTimeouts 3) - to0)) \
			a="$w/a.json" b="$w/b.json" c="$w/c.json" || rc=1
		rm -rf "$w"
	done
done
exit $rc
