#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Throughput through a Linux bridge with and without the CSIG helper, in
# one VM run (make bench).  One cubic flow s1 -> bridge -> r, unshaped: under
# TCG the CPU is the bottleneck, so the helper's per-packet cost shows up as
# lost throughput.  Configurations, alternated ROUNDS times:
#
#   none      no BPF program
#   transit   csig/transit on the bridge's port toward r (untagged traffic)
#   path      insert on s1, transit on the bridge port, strip on r's ingress
#             (every data segment tagged, updated and stripped)
#
# Prints Mbit/s per round, the median and min..max, and each median's ratio
# to "none".
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/topo.sh"
. "$here/../lib/bench.sh"

ROUNDS=${ROUNDS:-3}
SECS=${SECS:-5}
CSIGCTL=$top/build/bin/csigctl
TOPO_DELAY=0
topo_dumbbell 1 pfifo limit 1000 || exit 1
tc -n "${TOPO}sw" qdisc del dev sw-r root
sx() { topo_csigctl "$@"; }

config()	# config NAME
{
	sx sw detach sw-r 2> /dev/null
	sx s1 detach s1-eth0 2> /dev/null
	sx r detach r-eth0 --ingress 2> /dev/null
	case $1 in
	transit)
		sx sw attach sw-r transit --capacity 10gbit > /dev/null ;;
	path)
		sx sw attach sw-r transit --capacity 10gbit > /dev/null
		sx s1 attach s1-eth0 insert --select all --types u > /dev/null
		sx r attach r-eth0 strip --ingress > /dev/null ;;
	esac
}

declare -A res
for ((i = 1; i <= ROUNDS; i++)); do
	for c in none transit path; do
		config $c
		topo_iperf_server
		v=$(topo_iperf 1 cubic "$SECS" | jq '.end.sum_received.bits_per_second / 1e6')
		res[$c]="${res[$c]} $v"
		printf 'round %d %-8s %7.1f Mbit/s\n' "$i" $c "$v"
	done
done
config none
read -r base lo hi <<< "$(echo "${res[none]}" | bench_med)"
echo "config    median Mbit/s (min..max)  vs none"
for c in none transit path; do
	read -r m lo hi <<< "$(echo "${res[$c]}" | bench_med)"
	printf '%-8s  %7.1f (%s..%s)  %6.3f\n' $c "$m" "$lo" "$hi" \
		"$(echo "$m / $base" | bc -l)"
done
