#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: runs in the VM (make demo).  Two bulk flows share a 200 Mbit/s
# bottleneck with 1 ms of base delay, once per congestion control, each on
# the queue it is meant for; prints throughput, the bottleneck queue
# (sampled every 50 ms) and the senders' smoothed RTT (ss, every 0.5 s).
#
#   cubic, bbr   1000-packet fifo
#   dctcp        RED marking at 30 KB on the instantaneous queue (ECN)
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/lib/topo.sh"

RATE=${DEMO_RATE:-200}
DUR=${DEMO_SECONDS:-8}
TOPO_RATE=${RATE}mbit
FIFO="pfifo limit 1000"
RED=$(topo_red_ecn 30000)

ccs=()
for cc in cubic bbr dctcp; do
	modprobe -q "tcp_$cc" 2>/dev/null
	grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control &&
		ccs+=("$cc")
done

topo_dumbbell 2 $FIFO > /dev/null || exit 1
for i in 1 2; do topo_exec "s$i" sysctl -qw net.ipv4.tcp_ecn=1; done

srtt_samples()	# srtt_samples FILE: srtt (ms) of s1/s2's flows, every 0.5 s
{
	local end=$(($(date +%s) + DUR - 2))
	: > "$1"
	while [ "$(date +%s)" -lt "$end" ]; do
		for i in 1 2; do
			topo_exec "s$i" ss -tin dst "$TOPO_RCV_IP" |
				sed -n 's/.* rtt:\([0-9.]*\)\/.*/\1/p' >> "$1"
		done
		sleep 0.5
	done
}

exec > >(tee "${VT_OUT:-/tmp}/demo.txt")
printf '%-6s %-5s %8s %6s %9s %9s %9s %9s %7s %6s\n' cc queue Mbit/s util \
	q_p50_KB q_p99_KB rtt50_ms rtt99_ms marks drops
for cc in "${ccs[@]}"; do
	if [ "$cc" = dctcp ]; then leaf=$RED; qn=red; else leaf=$FIFO; qn=fifo; fi
	topo_set_leaf $leaf
	topo_iperf_server 5201
	topo_iperf_server 5202
	topo_iperf 1 "$cc" "$DUR" 5201 > /dev/null &
	pids=$!
	topo_iperf 2 "$cc" "$DUR" 5202 > /dev/null &
	pids="$pids $!"
	sleep 2
	srtt_samples /tmp/demo-rtt &
	pids="$pids $!"
	mbit=$(topo_measure $((DUR - 3)) /tmp/demo-q)
	# not a bare wait: that would also wait for the tee below, forever
	wait $pids
	printf '%-6s %-5s %8.1f %5.0f%% %9.1f %9.1f %9.2f %9.2f %7d %6d\n' \
		"$cc" "$qn" "$mbit" "$(echo "$mbit * 100 / $RATE" | bc -l)" \
		"$(echo "$(stat_pct 50 /tmp/demo-q) / 1000" | bc -l)" \
		"$(echo "$(stat_pct 99 /tmp/demo-q) / 1000" | bc -l)" \
		"$(stat_pct 50 /tmp/demo-rtt)" "$(stat_pct 99 /tmp/demo-rtt)" \
		"$(topo_qdisc_stat marked)" "$(topo_dropped)"
done
echo "# kernel $(uname -r), ${RATE} Mbit/s bottleneck, ${TOPO_DELAY} base delay, 2 flows, ${DUR} s each, GSO ${TOPO_GSO}"
