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

# bench_cpu: "BUSY TOTAL", the guest's CPU time so far, all CPUs, in
# ticks (the first line of /proc/stat: user nice system idle iowait irq
# softirq steal; busy is all of them but idle and iowait)
bench_cpu()
{
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat
}

# bench_cpu_pct "BUSY0 TOTAL0" "BUSY1 TOTAL1": bench_cpu before and
# after; the per cent of the CPU time in between that was busy (0 when
# no tick passed)
bench_cpu_pct()
{
	echo "$1 $2" | awk '{ print ($4 > $2) ? 100 * ($3 - $1) / ($4 - $2) : 0 }'
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
