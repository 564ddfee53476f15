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
# the first, the windows from FROM s of the second flow's time on; each
# report's intervals may be 0.1 s or 0.5 s long (as long as 1 s holds a
# whole number of them)
iperf_jain2()
{
	jq -s -r --argjson late "$3" --argjson from "$4" --argjson n "$5" '
		def persec: (1 / .intervals[0].sum.seconds | round) as $g |
			[.intervals[].sum.bits_per_second] as $v |
			[range(0; ($v | length) / $g | floor) |
			 $v[. * $g:(. + 1) * $g] | add / $g];
		(.[0] | persec) as $a | (.[1] | persec) as $b |
		[range($from; $from + $n) |
		 [$a[$late + .], $b[.]] |
		 (add * add) / (2 * (map(. * .) | add))] | min' "$1" "$2"
}

# iperf_settle FILE SHARE FRACTION HOLD: the end (s) of the flow's first
# interval from which its rate, averaged over 0.5 s, stays at FRACTION of
# SHARE Mbit/s or more for HOLD s (every 0.5 s window that starts in the
# HOLD s from that interval on); 99 when there is none.  With 0.1 s
# intervals it resolves a ramp to 0.1 s, and a slow start's overshoot
# that falls back does not count.
iperf_settle()
{
	jq -r --argjson f "$2" --argjson x "$3" --argjson h "$4" '
		[.intervals[].sum] as $iv | ($iv[0].seconds) as $d |
		(0.5 / $d | round) as $w | ($h / $d | round) as $k |
		[range(0; ($iv | length) - $w + 1) as $j | $iv[$j:$j + $w] |
		 (map(.bits_per_second) | add) / $w / 1e6] as $ma |
		[range(0; ($ma | length) - $k) as $i |
		 select($ma[$i:$i + $k + 1] | all(. >= $x * $f)) | $iv[$i].end] |
		first // 99' "$1"
}

# rxsample_settle FILE SHARE FRACTION HOLD WINDOW: from the lines of
# tools/rxsample ("T_US BYTES", BYTES -1 while the connection does not
# exist), the time (s) from the connection's start to the first sample
# from which the flow's rate over WINDOW s, for every sample in the HOLD s
# that follow, is at FRACTION of SHARE Mbit/s or more; 99 when there is
# none in the samples.  The start is the last sample before the
# connection was there (so the figure errs late, by at most one sample
# interval).  The rate over a window from a sample is the bytes to the
# first sample WINDOW s or more later, over their time apart.  With 10 ms
# samples and a 0.1 s window, a flow that jumps from nothing to its share
# at time S gives S less at most 0.02 s.
rxsample_settle()
{
	awk -v f="$2" -v x="$3" -v hold="$4" -v win="$5" '
		BEGIN { n = 0; zero = "" }
		$2 < 0 { if (!n) zero = $1; next }
		{ if (!n && zero == "") zero = $1; t[n] = $1; b[n] = $2; n++ }
		END {
			hold *= 1e6; win *= 1e6
			# ok[i]: the window from sample i holds the rate; -1: no data
			for (i = j = 0; i < n; i++) {
				while (j < n && t[j] < t[i] + win)
					j++
				ok[i] = j < n ? ((b[j] - b[i]) * 8 / (t[j] - t[i]) >= x * f) : -1
			}
			for (i = 0; i < n; i++) {
				for (k = i; k < n && t[k] <= t[i] + hold && ok[k] == 1; k++)
					;
				if (k == n || ok[k] == -1)
					break	# ran out of data
				if (t[k] > t[i] + hold) {
					printf "%.2f\n", (t[i] - zero) / 1e6
					exit
				}
			}
			print 99
		}' "$1"
}
