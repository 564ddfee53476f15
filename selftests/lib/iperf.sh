#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Readings of iperf3 -J -i 0.5 reports, for the tests and the benchmarks.

# iperf_ramp FILE SHARE FRACTION: the end (s) of the flow's first 0.5 s
# interval at FRACTION of SHARE Mbit/s or more; 99 when there is none
iperf_ramp()
{
	jq -r --argjson f "$2" --argjson x "$3" '[.intervals[] |
		select(.sum.bits_per_second / 1e6 >= $x * $f) | .sum.end] | first // 99' "$1"
}

# iperf_jain2 FILE1 FILE2 LATE FROM N: the lowest Jain fairness index of
# two flows over N windows of 1 s, the second flow started LATE s after
# the first, the windows from FROM s of the second flow's time on
iperf_jain2()
{
	jq -s -r --argjson o $(($3 * 2)) --argjson from "$4" --argjson n "$5" '
		[.[0].intervals[].sum.bits_per_second] as $a |
		[.[1].intervals[].sum.bits_per_second] as $b |
		[range($from; $from + $n) |
		 [$a[$o + 2*.] + $a[$o + 2*. + 1], $b[2*.] + $b[2*. + 1]] |
		 (add * add) / (2 * (map(. * .) | add))] | min' "$1" "$2"
}
