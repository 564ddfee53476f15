#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: incast.  NSENDERS (16) senders each send a flow of SIZE
# (64 KB) bytes to one receiver at the same moment, QUERIES (10) times,
# GAP (1) s apart, through the 100 Mbit/s bottleneck (1 ms of base
# delay); each congestion control with its own bottleneck
# (selftests/lib/cc.sh).  The senders' flowgen.py processes agree on the
# wall-clock time of each query.  Records incast-CC-rROUND.json
# (selftests/lib/fctrun.py): each flow's slowdown, each query's
# completion time (its slowest flow) over the ideal of all its bytes,
# retransmission timeouts, queue.
SCENARIO=incast
NSENDERS=${NSENDERS:-16}
SIZE=${SIZE:-65536}
QUERIES=${QUERIES:-10}
GAP=${GAP:-1}

fx_variants()
{
	echo "$SIZE"
}

fx_run()
{
	local cc=$2 w=$4 i start pids=()

	FX_KIND=incast
	FX_NAME=incast
	FX_SECS=$((QUERIES * GAP))
	# room for NSENDERS Python processes to start under TCG
	start=$(($(date +%s) + 2 + NSENDERS / 4))
	for ((i = 1; i <= NSENDERS; i++)); do
		topo_exec "s$i" python3 "$FX_GEN" incast "$TOPO_RCV_IP" "$FX_PORT" "$cc" \
			"$SIZE" "$QUERIES" "$start" "$GAP" 30 > "$w/g$i.json" &
		pids+=($!)
	done
	sleep $((start - $(date +%s)))
	fx_measure "$FX_SECS" "$w"
	wait "${pids[@]}"
	FX_KV=(size="$SIZE" queries="$QUERIES")
}

. "$(dirname "$0")/../lib/fctflows.sh"
exit $rc
