#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flow-completion scenarios of the evaluation (selftests/bench/websearch.sh,
# incast.sh): NSENDERS senders run selftests/lib/flowgen.py toward one
# receiver through the dumbbell's bottleneck at RATE_MBIT with TOPO_DELAY
# of base delay.  For each of ROUNDS rounds, each variant of the scenario
# and each CC of CCS (cc.sh configures the bottleneck for it; a CC may
# be a variant, hpcc,KEY=VAL: cc_params), one JSON
# record (fctrun.py) in $RESULTS/NAME-CC-rROUND.json and a progress line.
#
# The caller sets SCENARIO and NSENDERS, defines fx_variants (prints the
# variants, one word each) and fx_run VARIANT CC ROUND DIR (starts the
# senders, each writing DIR/gI.json, and waits for them; sets FX_KIND,
# FX_NAME, FX_SECS, FX_KV: the record's name, its kind, the seconds over
# which flows arrive and extra key=value pairs; FX_N, the senders it ran,
# when fewer than NSENDERS), then sources this.
here_fx=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here_fx/topo.sh"
. "$here_fx/cc.sh" || exit 2
SCENARIO=$CC_PREFIX$SCENARIO

ROUNDS=${ROUNDS:-3}
CCS=${CCS:-$CC_ALL}
# paced and the BPF flavour are long-flow entries (cc.sh): not run here
# shellcheck disable=SC2086
CCS=$(cc_all_scenarios $CCS)
RATE_MBIT=${RATE_MBIT:-100}
TOPO_RATE=${RATE_MBIT}mbit
RESULTS=${RESULTS:-${VT_OUT:-/tmp}/results}
FX_PORT=6100
FX_GEN=$here_fx/flowgen.py
mkdir -p "$RESULTS"

# fx_rtt0: the path's round trip with no load, ms (the least of 10 pings)
fx_rtt0()
{
	topo_exec s1 ping -n -Q 2 -i 0.05 -c 10 "$TOPO_RCV_IP" 2> /dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -g | head -n 1
}

# fx_measure SECS DIR: over the next SECS (whole), RTTs of ECT pings
# (DIR/ping) and the queue every 0.1 s (DIR/backlog); FX_TS0 the
# bottleneck's topo_tx_stamp before (FX_TS1 is taken when the last flow
# has ended)
fx_measure()
{
	local p

	FX_TS0=$(topo_tx_stamp)
	topo_exec s1 ping -n -Q 2 -i 0.02 -w "$1" -c $(($1 * 50)) "$TOPO_RCV_IP" 2> /dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms/\1/p' > "$2/ping" &
	p=$!
	topo_sample_backlog "$1" 0.1 "$2/backlog"
	wait "$p"
}

cc_load "$NSENDERS" || exit 1
topo_dumbbell "$NSENDERS" pfifo limit 1000 || exit 1
cc_hosts "$NSENDERS"
topo_hold_netstamp
echo "$SCENARIO: $NSENDERS senders, bottleneck $RATE_MBIT Mbit/s, base delay $TOPO_DELAY;" \
	"$ROUNDS rounds of: $(fx_variants | tr '\n' ' ')x $CCS"
rc=0
for ((r = 1; r <= ROUNDS; r++)); do
	for v in $(fx_variants); do
		for cc in $CCS; do
			cc_config "$cc" "$NSENDERS" || { rc=1; continue; }
			w=$(mktemp -d)
			# a listener of CC's own: the accepted connections take
			# its algorithm (ECN, ldcp's receiver side).  Not through
			# topo_exec: $! would be the subshell's, not the server's
			ip netns exec "$(topo_ns r)" python3 "$FX_GEN" server "$FX_PORT" &
			srv=$!
			sleep 0.5
			rtt0=$(fx_rtt0)
			to0=$(cc_nstat_sum TcpExtTCPTimeouts "$NSENDERS")
			topo_csigctl sw --json show sw-r > "$w/qh0"
			FX_KV=()
			FX_N=$NSENDERS
			fx_run "$v" "$(cc_base "$cc")" "$r" "$w" || rc=1
			FX_TS1=$(topo_tx_stamp)
			topo_csigctl sw --json show sw-r > "$w/qh1"
			kill "$srv" 2> /dev/null
			wait "$srv" 2> /dev/null
			gens=()
			for ((i = 1; i <= FX_N; i++)); do
				gens+=("$w/g$i.json")
			done
			FX_NAME=$CC_PREFIX$FX_NAME
			python3 "$here_fx/fctrun.py" "$RESULTS/$FX_NAME-$cc-r$r.json" \
				scenario="$FX_NAME" kind="$FX_KIND" cc="$cc" round="$r" \
				kernel="$(uname -r)" rate_mbit="$RATE_MBIT" delay="$TOPO_DELAY" \
				secs="$FX_SECS" rtt0_ms="${rtt0:-0}" util="$(topo_util "$FX_TS0" "$FX_TS1" "$RATE_MBIT")" \
				qh0="$w/qh0" qh1="$w/qh1" ping="$w/ping" backlog="$w/backlog" \
				backlog_dt=0.1 drops="$(topo_dropped)" marks="$(topo_qdisc_stat marked)" \
				timeouts=$(($(cc_nstat_sum TcpExtTCPTimeouts "$NSENDERS") - to0)) \
				bdp="$CC_BDP" \
				"${FX_KV[@]}" -- "${gens[@]}" || rc=1
			if [ -n "$KEEP_RAW" ]; then
				mkdir -p "$RESULTS/raw" && mv "$w" "$RESULTS/raw/$FX_NAME-$cc-r$r"
			else
				rm -rf "$w"
			fi
		done
	done
done
cc_params_restore || rc=1
