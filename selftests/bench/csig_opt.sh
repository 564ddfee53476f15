#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_csig_opt's cost: one cubic flow s1 -> bridge -> r through a RATE
# bottleneck (default 200mbit, the range TCG carries honestly; RATE=none
# for an unshaped, CPU-bound run), alternated ROUNDS times between:
#
#   off      no module, no BPF program
#   module   tcp_csig_opt on both ends: the flow negotiates and its data is
#            marked, but nothing inserts tags (the module's hooks alone)
#   csig     the module plus the data plane: the sender's insertion role
#            tags every data segment, the bridge port's transit role updates
#            them, the receiver's module takes them out and reflects them
#
# Prints Mbit/s and CPU (busy % of both vCPUs, from /proc/stat) per round,
# then medians with min..max and the throughput ratio to "off".  Through
# the bottleneck the throughputs should match and CPU shows the cost.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/topo.sh"
. "$here/../lib/bench.sh"

ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
CSIGCTL=$top/build/bin/csigctl
KO=$top/build/$(uname -r)/tcp_csig_opt.ko
RATE=${RATE:-200mbit}
TOPO_DELAY=0
TOPO_RATE=$([ "$RATE" = none ] && echo 1gbit || echo "$RATE")
topo_dumbbell 1 pfifo limit 1000 || exit 1
[ "$RATE" = none ] && tc -n "${TOPO}sw" qdisc del dev sw-r root
echo "bottleneck: $RATE, $ROUNDS rounds of $SECS s"

sx() { topo_csigctl "$@"; }

config()	# config NAME
{
	sx sw detach sw-r 2> /dev/null
	sx s1 detach s1-eth0 2> /dev/null
	rmmod tcp_csig_opt 2> /dev/null
	case $1 in
	module)
		insmod "$KO" ;;
	csig)
		insmod "$KO"
		sx sw attach sw-r transit --capacity 10gbit > /dev/null
		m=$(topo_csig_mark)
		sx s1 attach s1-eth0 insert --select mark \
			--mark "$m/$m" --types u > /dev/null ;;
	esac
}

declare -A tput cpu
for ((i = 1; i <= ROUNDS; i++)); do
	for c in off module csig; do
		config $c
		topo_iperf_server
		c0=$(bench_cpu)
		v=$(topo_iperf 1 cubic "$SECS" | jq '.end.sum_received.bits_per_second / 1e6')
		c1=$(bench_cpu)
		u=$(bench_cpu_pct "$c0" "$c1")
		tput[$c]="${tput[$c]} $v"
		cpu[$c]="${cpu[$c]} $u"
		printf 'round %d %-7s %7.1f Mbit/s  CPU %5.1f%%\n' "$i" $c "$v" "$u"
	done
done
config off
read -r base lo hi <<< "$(echo "${tput[off]}" | bench_med)"
echo "config   median Mbit/s (min..max)   CPU % median   vs off"
for c in off module csig; do
	read -r m lo hi <<< "$(echo "${tput[$c]}" | bench_med)"
	read -r cm clo chi <<< "$(echo "${cpu[$c]}" | bench_med)"
	printf '%-7s  %7.1f (%s..%s)   %5.1f   %6.3f\n' $c "$m" "$lo" "$hi" "$cm" \
		"$(echo "$m / $base" | bc -l)"
done
