#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Long-flow scenarios of the evaluation (selftests/bench/dumbbell.sh,
# convergence.sh): NFLOWS senders, one iperf3 flow each, through the
# dumbbell's bottleneck at RATE_MBIT with TOPO_DELAY of base delay; flow
# i starts (i - 1) * LATE s after the first and all run to SECS.  For
# each of ROUNDS rounds and each CC of CCS (cc.sh configures the
# bottleneck for it; a CC may be a variant, hpcc,KEY=VAL: cc_params, or
# the BPF flavour's hpcc_bpf or ldcp_bpf), one JSON record (longrun.py)
# in $RESULTS/SCENARIO-CC-rROUND.json and a progress line.  A BPF
# flavour's record also holds its dccbpf counters over the run and
# cc_bpf_check's verdict (hpcc_bpf on U, ldcp_bpf with ECN); a run that
# fails it says so and fails the scenario.  Measured: from
# 2 s after the last flow started to 1 s before the end, with the guest's
# CPU time over the same window (all vCPUs: the senders, the switch and
# the receiver alike, and the measuring tools, the same for every CC).
#
# The caller sets SCENARIO, NFLOWS, LATE and SECS, then sources this.
here_lf=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here_lf/topo.sh"
. "$here_lf/cc.sh" || exit 2
. "$here_lf/bench.sh"
SCENARIO=$CC_PREFIX$SCENARIO
# RTT_MULTS, one word per sender: its base delay in multiples of the
# profile's (TOPO_DELAY, whole ms; topo_delay)
if [ -n "${RTT_MULTS:-}" ]; then
	TOPO_DELAYS=
	for x in $RTT_MULTS; do
		TOPO_DELAYS+="$((${TOPO_DELAY%ms} * x))ms "
	done
fi

ROUNDS=${ROUNDS:-3}
CCS=${CCS:-$CC_ALL}
RATE_MBIT=${RATE_MBIT:-100}
TOPO_RATE=${RATE_MBIT}mbit
RESULTS=${RESULTS:-${VT_OUT:-/tmp}/results}
mkdir -p "$RESULTS"

cc_load "$NFLOWS" || exit 1
topo_dumbbell "$NFLOWS" pfifo limit 1000 || exit 1
cc_hosts "$NFLOWS"
topo_hold_netstamp	# ping flips it, between runs but under TCG
t_last=$(((NFLOWS - 1) * LATE))
t0=$((t_last + 2))
t1=$((SECS - 1))
m=$((t1 - t0))
[ "$m" -ge 2 ] || { echo "$SCENARIO: SECS too short for the flows' starts" >&2; exit 1; }
delays=$(for ((i = 1; i <= NFLOWS; i++)); do topo_delay "$i"; done | tr '\n' ' ')
echo "$SCENARIO: $NFLOWS flows, one every $LATE s, $SECS s, bottleneck $RATE_MBIT Mbit/s," \
	"base delay ${TOPO_DELAYS:-$TOPO_DELAY}; measured from $t0 s to $t1 s; $ROUNDS rounds of: $CCS"
rc=0
for ((r = 1; r <= ROUNDS; r++)); do
	for cc in $CCS; do
		cc_config "$cc" "$NFLOWS" || { rc=1; continue; }
		bpf0=$(cc_bpf_counters "$cc")
		w=$(mktemp -d)
		# the servers started at once (each daemonizes), as
		# cc_nstat_sum reads: under TCG a process costs 40-700 ms
		srvs=()
		for ((i = 1; i <= NFLOWS; i++)); do
			topo_exec r iperf3 -s -D -1 -p $((5200 + i)) > /dev/null 2>&1 &
			srvs+=($!)
		done
		wait "${srvs[@]}"
		sleep 0.3
		syn0=$(cc_nstat_sum TcpExtTCPSynRetrans "$NFLOWS")
		args=()
		tb=$(date +%s.%N)
		for ((i = 1; i <= NFLOWS; i++)); do
			st=$(((i - 1) * LATE))
			# the time iperf3 ends places its report: a flow whose
			# SYN was lost starts seconds after the others
			(sleep "$st"; topo_exec "s$i" iperf3 -c "$TOPO_RCV_IP" -p $((5200 + i)) \
				-C "$(cc_algo "$cc")" $(cc_flow_args "$cc" "$NFLOWS") \
				-t $((SECS - st)) -i 0.5 -J > "$w/f$i.json" 2>&1
			 date +%s.%N > "$w/f$i.end") &
			args+=("$w/f$i.json@$st@$w/f$i.end")
		done
		sleep "$t0"
		topo_csigctl sw --json show sw-r > "$w/qh0"
		ts0=$(topo_tx_stamp)
		cpu0=$(bench_cpu)
		topo_sample_backlog "$m" 0.1 "$w/backlog" &
		# ECT(0) (-Q 2): a RED/ECN queue marks the probes as it marks
		# the flows' packets, where it would drop a not-ECT probe, and
		# the RTT would miss the moments the queue is above threshold
		topo_exec s1 ping -n -Q 2 -i 0.02 -w "$m" -c $((m * 50)) "$TOPO_RCV_IP" 2> /dev/null |
			sed -n 's/.*time=\([0-9.]*\) ms/\1/p' > "$w/ping"
		ts1=$(topo_tx_stamp)
		cpu1=$(bench_cpu)
		topo_csigctl sw --json show sw-r > "$w/qh1"
		wait
		bpf=()
		if cc_is_bpf "$cc"; then
			bpf_d=$(cc_bpf_delta "$bpf0" "$(cc_bpf_counters "$cc")")
			if bpf_v=$(cc_bpf_check "$cc" "$NFLOWS" "$bpf_d"); then
				bpf=(bpf_ok=1)
			else
				echo "$SCENARIO r$r $cc: $bpf_v; dccbpf's counters over the run: $bpf_d" >&2
				bpf=(bpf_ok=0)
				rc=1
			fi
			bpf+=(bpf_check="$bpf_v" bpf_counters="$bpf_d")
		fi
		python3 "$here_lf/longrun.py" "$RESULTS/$SCENARIO-$cc-r$r.json" \
			scenario="$SCENARIO" cc="$cc" round="$r" kernel="$(uname -r)" \
			rate_mbit="$RATE_MBIT" delay="$TOPO_DELAY" delays="${delays% }" secs="$SECS" \
			t0="$t0" t1="$t1" tb="$tb" util="$(topo_util "$ts0" "$ts1" "$RATE_MBIT")" \
			qh0="$w/qh0" qh1="$w/qh1" ping="$w/ping" backlog="$w/backlog" \
			backlog_dt=0.1 drops="$(topo_dropped)" marks="$(topo_qdisc_stat marked)" \
			syn_retrans=$(($(cc_nstat_sum TcpExtTCPSynRetrans "$NFLOWS") - syn0)) \
			cpu="$cpu0 $cpu1" hz="$(getconf CLK_TCK)" "${bpf[@]}" \
			-- "${args[@]}" || rc=1
		if [ -n "$KEEP_RAW" ]; then
			mkdir -p "$RESULTS/raw" && mv "$w" "$RESULTS/raw/$SCENARIO-$cc-r$r"
		else
			rm -rf "$w"
		fi
	done
done
cc_params_restore || rc=1
cc_unload "$NFLOWS" || rc=1
