#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the benchmarks (selftests/bench/).

. "$(dirname "${BASH_SOURCE[0]}")/stat.sh"

# bench_med: numbers (one line, space separated) on stdin -> "median min max"
bench_med()
{
	tr ' ' '\n' | grep . | sort -g |
		awk -v d="${1:-1}" '{ v[NR] = $1 }
			END { f = "%." d "f"; printf f " " f " " f, v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# bench_ratio A B: A / B to three places ("-" when B is 0 or missing)
bench_ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.3f\n", a / b }'
}

# bench_row WIDTH ROW ARRAY[:DIGITS]...: ROW, left-aligned in WIDTH
# columns, then for each associative ARRAY the "median (min..max)" of
# ${ARRAY[ROW]} (numbers, space separated) in 20 columns, to DIGITS
# places (default 1).  Each median also goes to med[ARRAY.ROW], the
# caller's associative array med (declare -A).
bench_row()
{
	local w=$1 row=$2 a d v m lo hi line

	shift 2
	line=$(printf "%-${w}s" "$row")
	for a in "$@"; do
		d=1
		[ "${a#*:}" != "$a" ] && d=${a#*:} a=${a%%:*}
		eval "v=\${$a[\$row]}"
		read -r m lo hi <<< "$(echo "$v" | bench_med "$d")"
		med[$a.$row]=$m
		line="$line $(printf '%-20s' "$m ($lo..$hi)")"
	done
	echo "$line"
}
