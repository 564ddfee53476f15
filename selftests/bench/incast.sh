#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: incast.  FANINS (16) senders, each fan-in of the list in
# turn, each send a flow of SIZE (64 KB) bytes to one receiver at the
# same moment, QUERIES (10) times, GAP (1) s apart, through the 100 Mbit/s
# bottleneck (the profile's base delay); each congestion control with its
# own bottleneck (selftests/lib/cc.sh).  The senders' flowgen.py
# processes agree on the wall-clock time of each query.  Records
# incastN-CC-rROUND.json, N the fan-in (selftests/lib/fctrun.py): each
# flow's slowdown, each query's completion time (its slowest flow) over
# the ideal of all its bytes, retransmission timeouts, queue.
SCENARIO=incast
FANINS=${FANINS:-16}
# one dumbbell per fan-in, of its own size: under TCG, configuring 128
# namespaces for each run of 16 senders took a minute of every run
if [ "$(echo $FANINS | wc -w)" -gt 1 ]; then
	rc=0
	for n in $FANINS; do
		FANINS=$n bash "$0" || rc=1
	done
	exit $rc
fi
NSENDERS=$FANINS
SIZE=${SIZE:-65536}
QUERIES=${QUERIES:-10}
GAP=${GAP:-1}

fx_variants()
{
	echo "$FANINS"
}

fx_run()
{
	local n=$1 cc=$2 w=$4 i start pids=()

	FX_KIND=incast
	FX_NAME=incast$n
	FX_N=$n
	FX_SECS=$((QUERIES * GAP))
	# a barrier (flowgen.py): the first query once all n Python
	# processes have started, which under TCG takes seconds each
	mkdir "$w/sync"
	for ((i = 1; i <= n; i++)); do
		topo_exec "s$i" python3 "$FX_GEN" incast "$TOPO_RCV_IP" "$FX_PORT" "$cc" \
			"$SIZE" "$QUERIES" "@$w/sync" "$GAP" 30 > "$w/g$i.json" &
		pids+=($!)
	done
	for ((i = 0; i < 6000; i++)); do
		[ "$(find "$w/sync" -name 'ready.*' | wc -l)" -ge "$n" ] && break
		sleep 0.1
	done
	start=$(echo "$(date +%s.%N) + 2" | bc)
	echo "$start" > "$w/sync/start.tmp" && mv "$w/sync/start.tmp" "$w/sync/start"
	sleep 2
	fx_measure "$FX_SECS" "$w"
	wait "${pids[@]}"
	FX_KV=(size="$SIZE" queries="$QUERIES")
}

. "$(dirname "$0")/../lib/fctflows.sh"
exit $rc
