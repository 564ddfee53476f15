#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Microbenchmark: the cost per ACK of each congestion control.  One flow
# through the dumbbell's 100 Mbit/s bottleneck (1 ms of base delay), each
# congestion control with its own bottleneck (selftests/lib/cc.sh); for
# TRACE_S (2) s in its middle, ftrace's function_graph tracer times every
# call of the algorithm's tcp_congestion_ops functions (their names are
# listed below; those the kernel has are traced) and of tcp_csig_opt's
# option hooks.  ns per ACK: the calls' total time over the segments the
# sender received meanwhile.  Only the sender's calls are counted: the
# receiver of dctcp's flow runs ldcp and that of ldcp's flow dctcp
# (ac_rx_cc), whose CE echo is the same (ldcp's receiver is DCTCP's,
# include/ldcp_ctl_tcp.h) under other function names, so that the
# receiver's in_ack_event and cwnd_event on every data segment are not
# taken for the sender's; the other algorithms do nothing per segment
# received.  The tracer's own cost is in every call's
# time (some hundreds of ns under TCG), so calls per ACK are recorded
# too; ratios between algorithms, measured in the same boot, are what
# these figures are for.  ROUNDS (3) rounds; records ackcost-CC-rROUND.json
# (selftests/lib/ackcost.py).
#
# Needs a guest with one vCPU (make bench boots one: tools/vm/run -c 1):
# enabling the tracer patches the traced functions, and under TCG, code
# patched while another vCPU runs it has left a stale int3 behind
# (Documentation/testing.rst).
SCENARIO=ackcost
here_ac=$(cd "$(dirname "$0")/../lib" && pwd)
. "$here_ac/topo.sh"
# its own path, set below: PROFILE (cc.sh) is for the scenarios
PROFILE=small
. "$here_ac/cc.sh"

ROUNDS=${ROUNDS:-3}
CCS=${CCS:-$CC_ALL}
# shellcheck disable=SC2086
CCS=$(cc_all_scenarios $CCS)
RATE_MBIT=${RATE_MBIT:-100}
TOPO_RATE=${RATE_MBIT}mbit
TRACE_S=${TRACE_S:-2}
RESULTS=${RESULTS:-${VT_OUT:-/tmp}/results}
OPT_HOOKS="csig_rcv csig_in csig_out"
mkdir -p "$RESULTS"

# the ops of each algorithm: Linux's (6.1 to 6.12) and ours
ac_funcs()
{
	case $1 in
	hpcc)	echo hpcc_init hpcc_ssthresh hpcc_undo_cwnd hpcc_cong_control ;;
	ldcp)	echo ldcp_init ldcp_in_ack_event ldcp_cong_control ldcp_cwnd_event \
			ldcp_set_state ldcp_ssthresh ldcp_undo_cwnd ;;
	dctcp)	echo dctcp_init dctcp_update_alpha tcp_reno_cong_avoid dctcp_cwnd_event \
			dctcp_ssthresh dctcp_state dctcp_cwnd_undo ;;
	cubic)	echo cubictcp_init cubictcp_cong_avoid cubictcp_acked cubictcp_cwnd_event \
			cubictcp_recalc_ssthresh cubictcp_state tcp_reno_undo_cwnd ;;
	bbr)	echo bbr_init bbr_main bbr_cwnd_event bbr_ssthresh bbr_undo_cwnd \
			bbr_set_state bbr_sndbuf_expand bbr_min_tso_segs ;;
	esac
}

# ac_rx_cc CC: the receiver's algorithm for CC's flow
ac_rx_cc()
{
	case $(cc_algo "$1") in
	dctcp)	echo ldcp ;;
	ldcp)	echo dctcp ;;
	*)	cc_algo "$1" ;;
	esac
}

if [ "$(nproc)" != 1 ]; then
	echo "ackcost: needs a guest with one vCPU (tools/vm/run -c 1, as make bench boots it):" \
		"the tracer patches code, which under TCG with several vCPUs has left stale int3s" >&2
	exit 1
fi
tr=/sys/kernel/tracing
[ -e $tr/trace ] || mount -t tracefs nodev $tr || exit 1
cc_load 1 || exit 1
topo_dumbbell 1 pfifo limit 1000 || exit 1
cc_hosts 1
topo_hold_netstamp
echo "$SCENARIO: one flow, bottleneck $RATE_MBIT Mbit/s, base delay $TOPO_DELAY," \
	"traced for $TRACE_S s; $ROUNDS rounds of: $CCS"
echo 16384 > $tr/buffer_size_kb
echo 0 > $tr/tracing_on
rc=0
for ((r = 1; r <= ROUNDS; r++)); do
	for cc in $CCS; do
		cc_config "$cc" 1 && topo_set_cc "$(ac_rx_cc "$cc")" r ||
			{ rc=1; continue; }
		w=$(mktemp -d)
		: > $tr/set_ftrace_filter
		for f in $(ac_funcs "$cc") $OPT_HOOKS; do
			grep -qE "^$f( |$)" $tr/available_filter_functions &&
				echo "$f" >> $tr/set_ftrace_filter
		done
		echo function_graph > $tr/current_tracer
		: > $tr/trace
		topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
		topo_wait_listen r 5201
		# not topo_iperf: iperf3 -C sets the algorithm on the
		# server's data socket too; s1's default is the algorithm
		topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t $((TRACE_S + 6)) -J \
			> "$w/iperf.json" &
		sleep 1.5
		a0=$(cc_nstat_sum TcpInSegs 1)
		echo 1 > $tr/tracing_on
		sleep "$TRACE_S"
		echo 0 > $tr/tracing_on
		a1=$(cc_nstat_sum TcpInSegs 1)
		# what r's connections ran, as ss shows it (the flow lasts past
		# the window: a guest saturated by the flow runs this script late)
		topo_exec r ss -tinH state established '( sport = :5201 )' > "$w/ss"
		rx=$(grep -owE "$(echo $CC_ALL | tr ' ' '|')" "$w/ss" | sort -u | tr '\n' ' ')
		wait
		if [ "${rx% }" != "$(ac_rx_cc "$cc")" ]; then
			echo "ackcost: $cc: the receiver ran '${rx% }', not $(ac_rx_cc "$cc"):" >&2
			cat "$w/ss" >&2
			rc=1
		fi
		cp $tr/trace "$w/trace"
		echo nop > $tr/current_tracer
		python3 "$here_ac/ackcost.py" "$RESULTS/$SCENARIO-$cc-r$r.json" "$w/trace" \
			scenario="$SCENARIO" cc="$cc" round="$r" kernel="$(uname -r)" \
			rx_cc="${rx% }" \
			acks=$((a1 - a0)) opt="${OPT_HOOKS// /,}" \
			mbit="$(jq '.end.sum_received.bits_per_second / 1e6' "$w/iperf.json")" || rc=1
		rm -rf "$w"
	done
done
: > $tr/set_ftrace_filter
exit $rc
