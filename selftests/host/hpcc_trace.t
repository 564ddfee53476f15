#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/lib/hpcc_trace.py, the summary of the hpcc benchmark's
# TRACE=1, on synthetic hpcc_update events worked out by hand: one flow
# of 101 events 10 ms apart, U 0.5 for the first 50 and 1.0 after, a
# commit every 10th event, 100 Mbit/s of pacing rate, beside a flow of
# 50 events that is left out, between the markers of the measured period
# with events of U 0 outside them; then ETA, and a trace with no flow.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
S=$top/selftests/lib/hpcc_trace.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_plan 4

ev()	# ev T LPORT U COMMITTED
{
	printf '          <idle>-0       [001] ..s1. %12.6f: hpcc_update: lport=%d rport=5201 U=%d W=50000 Wc=50000 stage=0 rate=12500000 committed=%d mi=0 held=0 source=u\n' \
		"$1" "$2" "$3" "$4"
}

mark()	# mark T TEXT
{
	printf '          iperf3-99      [000] ..... %12.6f: tracing_mark_write: %s\n' "$1" "$2"
}

{
	echo "# tracer: nop"
	for ((i = 0; i < 20; i++)); do
		ev "$(echo "99 + $i / 100" | bc -l)" 5301 0 1
	done
	mark 99.5 hpcc_trace_begin
	for ((i = 0; i <= 100; i++)); do
		u=$((i < 50 ? 524288 : 1048576))
		ev "$(echo "100 + $i / 100" | bc -l)" 5301 $u $((i % 10 == 0))
		[ $i -lt 50 ] && ev "$(echo "100.005 + $i / 100" | bc -l)" 5302 1048576 1
	done
	mark 101.005 hpcc_trace_end
	for ((i = 0; i < 20; i++)); do
		ev "$(echo "101.01 + $i / 100" | bc -l)" 5301 0 1
	done
} > "$tmp/trace"

# U over time: 0.5 for 0.5 s, 1.0 for 0.5 s; per event (50 * 0.5 + 51) /
# 101; the commits 5 * 0.5 and 6 * 1.0; 11 commits in 1 s
want="U over time 0.750, per event 0.752; at the commits p10/p50/p90 0.50/1.00/1.00, 55% at or above 0.95; 11 commits/s per flow; pacing rates sum 100.0 Mbit/s (1 flows)"
got=$(python3 "$S" "$tmp/trace")
[ "$got" = "$want" ] || ktap_diag "got: $got"
ktap_expect "the flow's averages, percentiles and rates between the markers; the short flow left out" \
	"\"$got\" == \"$want\""

got=$(python3 "$S" "$tmp/trace" 0.4)
ktap_expect "ETA 0.4: every commit at or above it" \
	"$(echo "$got" | grep -c '100% at or above 0.40') == 1"

grep -v 'lport=5301' "$tmp/trace" > "$tmp/short"
python3 "$S" "$tmp/short" > "$tmp/out"
rc=$?
ktap_expect "no flow of 100 events: exit status 1, said" \
	"$rc == 1 && $(grep -c 'no flow' "$tmp/out") == 1"

python3 "$S" > /dev/null 2>&1
ktap_expect "no trace named: usage, a failure" "$? != 0"
ktap_finished
