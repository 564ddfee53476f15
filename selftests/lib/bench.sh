#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the benchmarks (selftests/bench/).

# bench_med: numbers (one line, space separated) on stdin -> "median min max"
bench_med()
{
	tr ' ' '\n' | grep . | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.1f %.1f %.1f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
