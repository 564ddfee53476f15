#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Statistics of the tests and the benchmarks.

# stat_pct P FILE: the P-th percentile of a file of numbers, one per line
# (empty input prints "0").
stat_pct()
{
	sort -g "$2" | awk -v p="$1" '{ v[NR] = $1 }
		END { if (!NR) { print 0; exit }
		      i = int(p / 100 * NR + 0.999999); if (i < 1) i = 1
		      print v[i] }'
}
