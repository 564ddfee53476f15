#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-sim: the evaluation's datacenter scenarios in the ns-3 model
# (build/sim/dccsim; Documentation/sim.rst, "The datacenter benchmark"),
# every congestion control side by side, one record per scenario, cc and
# seed; then tools/bench_report.py's tables.
#
#   tools/sim_bench.sh OUTDIR
#
# Environment (make bench-sim passes its variables):
#   SIM_BENCH  scenarios (default: all): ws30 ws50 ws70 hd30 hd50 hd70
#              incast64 incast128 incast256 long join leave restart rtt rtt1
#              (join: a late joiner; leave: three of four flows leave;
#              restart: a flow restarts into a path that filled;
#              rtt1: rtt with a 1 ms minimum RTO); not by default, for their cost: ibg64 ibg256
#              ibgl64 (incast of N beside a background; ibgl: of 1 MB
#              flows), vmdumbbell vmconvergence (the VM's dc profile)
#   SIM_CCS    congestion controls (default: hpcc ldcp dctcp cubic) and
#              variants, CC,KEY=VAL[,KEY=VAL...]: for any CC, metrics=1
#              (the hosts keep ssthresh per destination, dccsim
#              --metrics); for hpcc, also probe (0: without its probe
#              after idle), grow_pct, commit_samples, commit_wait_pct,
#              max_stage, w_ai, eta
#   SIM_SEEDS  seeds, one round each (default: 3)
#   SIM_JOBS   simulations at once (default: 2; ns-3 is single-threaded)
#   SIM_WS_SECS  web-search arrivals, s of simulated time (default: 0.005)
#   SIM_QUERIES  incast queries per run (default: 10)
#   SIM_LONG_SECS  long flows and mixed RTTs, s (default: 0.05)
#
# Every simulation runs at nice 19.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
S=$top/build/sim/dccsim
out=${1:?usage: sim_bench.sh OUTDIR}
bench=${SIM_BENCH:-ws30 ws50 ws70 hd30 hd50 hd70 incast64 incast128 incast256 long join leave restart rtt rtt1}
ccs=${SIM_CCS:-hpcc ldcp dctcp cubic}
seeds=${SIM_SEEDS:-3}
jobs=${SIM_JOBS:-2}
ws_secs=${SIM_WS_SECS:-0.005}
queries=${SIM_QUERIES:-10}
long_secs=${SIM_LONG_SECS:-0.05}

[ -x "$S" ] || { echo "sim_bench.sh: $S missing (make sim)" >&2; exit 1; }
mkdir -p "$out/results" "$out/logs"

# 100 Gbit/s links of 1 us.  K is DCTCP's rule at 1500-byte frames (20
# frames, above C x RTT / 7 = 15-18 KB here) for every run, so that the
# jumbo frames taken for speed do not move the marking threshold (the
# model's rule would make it 20 jumbo frames, 180 KB, above a BDP).
# ldcp's switches ramp from it to 3 K (WRED, dccsim's default for ldcp).
dc="--rate=100Gbps --delay=1us --k=30040"
# the leaf-spine: 4 leaves x 8 hosts, 4 spines, non-blocking
ls="--topo=leafspine $dc"

# scenario name -> dccsim's arguments
args()
{
	case $1 in
	ws[0-9]*|hd[0-9]*)
		# the web-search mix, or Hadoop's (mostly small flows, about
		# 8000 a run at 50%); 9000-byte frames: six times fewer
		# packets, more simulated time
		cdf=websearch
		[ "${1#hd}" != "$1" ] && cdf=hadoop
		echo "$ls --mtu=9000 --workload=poisson --cdf=$cdf" \
			"--load=0.${1#??} --secs=$ws_secs" ;;
	ibg[0-9]*|ibgl[0-9]*)
		# incast beside the web-search mix at 30% on every host's
		# link: ibgN, N senders x 64 KB, five queries 2 ms apart
		# while the background arrives for 10 ms; ibglN, N x 1 MB,
		# three queries 6 ms apart, background for 18 ms.  1500-byte
		# frames for both.
		if [ "${1#ibgl}" != "$1" ]; then
			echo "$ls --workload=incast --senders=${1#ibgl} --size=1048576" \
				"--queries=3 --gap=0.006 --secs=0.018" \
				"--jitter-us=5 --bg-load=0.3 --cdf=websearch"
		else
			echo "$ls --workload=incast --senders=${1#ibg} --size=65536" \
				"--queries=5 --gap=0.002 --secs=0.01" \
				"--jitter-us=5 --bg-load=0.3 --cdf=websearch"
		fi ;;
	incast[0-9]*)
		# 64 KB a flow; queries 0.25 s apart, past the 200 ms minimum
		# RTO, so that each finds an idle fabric; 1500-byte frames
		# (few packets a query, and a jumbo first window would be the
		# whole flow)
		echo "$ls --workload=incast --senders=${1#incast} --size=65536" \
			"--queries=$queries --gap=0.25 --jitter-us=5" ;;
	long)
		# 8 long flows through a 100 Gbit/s dumbbell, starts jittered
		# by up to 20 us (a few round trips; else seeds repeat)
		echo "--topo=dumbbell $dc --mtu=9000 --workload=long" \
			"--senders=8 --flows=8 --secs=$long_secs --jitter-us=20" ;;
	join)
		# 4 long flows, the fourth 10 ms after the others: its
		# convergence time in 200 us bins
		echo "--topo=dumbbell $dc --mtu=9000 --workload=long" \
			"--senders=4 --flows=4 --secs=$long_secs --jitter-us=20" \
			"--late-s=0.01 --flow-dt=0.0002" ;;
	restart)
		# 4 long flows, 1500-byte frames: the fourth alone from the
		# start, pausing at 2 ms while the others start, writing
		# again at 6 ms into the full path; the queue its restart
		# meets over two round trips, sampled every 100 ns (hpcc's
		# probe; SIM_CCS="hpcc hpcc,probe=0" compares it without)
		echo "--topo=dumbbell $dc --workload=long --senders=4 --flows=4" \
			"--secs=0.01 --jitter-us=20 --pause-s=0.002 --resume-s=0.006" \
			"--flow-dt=0.0001" ;;
	leave)
		# 4 long flows, three of which stop writing 10 ms in: the
		# last one's time to 80% of the link once their sockets
		# have drained, in 100 us bins
		echo "--topo=dumbbell $dc --mtu=9000 --workload=long" \
			"--senders=4 --flows=4 --secs=0.02 --jitter-us=20" \
			"--leave-s=0.011 --flow-dt=0.0001" ;;
	vmdumbbell|vmconvergence)
		# the VM's dc profile (selftests/lib/cc.sh) for the
		# cross-check: 100 Mbit/s, a base RTT of 10.2 ms, 1500-byte
		# frames, dctcp's K and ldcp's K_min 19.5 KB, hpcc's T 13 ms
		# and line rate 100 Mbit/s, a port of 1000 frames; eight flows
		# for 8 s, or two, the second 3 s late, for 12 s, in 0.5 s bins
		# as make bench reads them.  The senders' links at 10 Gbit/s:
		# the VM's veth ports have no rate, and a sender whose own
		# link were the bottleneck's would queue in its own NIC,
		# unmarked, where the VM's queue is the switch port's
		vm="--topo=dumbbell --rate=100Mbps --host-rate=10Gbps --delay=1700us --mtu=1500"
		vm="$vm --k=19500 --hpcc-t-us=13000 --hpcc-line-mbps=100 --buffer=1500000"
		vm="$vm --workload=long --flow-dt=0.5"
		if [ "$1" = vmdumbbell ]; then
			echo "$vm --senders=8 --flows=8 --secs=8 --jitter-us=1000"
		else
			echo "$vm --senders=2 --flows=2 --secs=12 --late-s=3 --jitter-us=1000"
		fi ;;
	rtt|rtt1)
		# 4 long flows whose senders' links are 1, 3, 10, 30 us long:
		# round trips of about 8, 12, 26 and 66 us; hpcc's T one
		# for the fabric, as the draft's T is set, above every base
		# RTT (70 us); rtt1: TCP's minimum RTO 1 ms rather than 200
		r=""
		[ "$1" = rtt1 ] && r="--min-rto-ms=1"
		echo "--topo=dumbbell $dc --mtu=9000 --workload=long" \
			"--senders=4 --flows=4 --secs=$long_secs --jitter-us=20" \
			"--host-delays=1us,3us,10us,30us --hpcc-t-us=70 $r" ;;
	*)
		echo "sim_bench.sh: unknown scenario $1" >&2
		return 1 ;;
	esac
}

# a variant's arguments: hpcc,KEY=VAL[,KEY=VAL...] sets hpcc's
# parameters by the module's names (the model's attributes,
# Documentation/sim.rst), the record labelled with the variant's name
variant()
{
	local kv a=""

	[ "${1#*,}" != "$1" ] || return 0
	for kv in $(echo "${1#*,}" | tr , ' '); do
		case ${kv%%=*} in
		metrics) a="$a --metrics=${kv#*=}"; continue ;;
		esac
		[ "${1%%,*}" = hpcc ] ||
			{ echo "sim_bench.sh: $1: ${1%%,*} has no variant ${kv%%=*}" >&2; return 1; }
		case ${kv%%=*} in
		probe) a="$a --hpcc-probe=${kv#*=}" ;;
		grow_pct) a="$a --ns3::TcpHpccDcc::GrowPct=${kv#*=}" ;;
		commit_samples) a="$a --ns3::TcpHpccDcc::CommitSamples=${kv#*=}" ;;
		commit_wait_pct) a="$a --ns3::TcpHpccDcc::CommitWaitPct=${kv#*=}" ;;
		max_stage) a="$a --ns3::TcpHpccDcc::MaxStage=${kv#*=}" ;;
		w_ai) a="$a --ns3::TcpHpccDcc::WAi=${kv#*=}" ;;
		eta) a="$a --ns3::TcpHpccDcc::Eta=${kv#*=}" ;;
		*) echo "sim_bench.sh: $1: no hpcc parameter ${kv%%=*} in the model" >&2; return 1 ;;
		esac
	done
	echo "$a --label=$1"
}

list=$out/runs.txt
: > "$list"
for b in $bench; do
	a=$(args "$b")
	for seed in $(seq 1 "$seeds"); do
		for cc in $ccs; do
			c="--cc=${cc%%,*} $(variant "$cc")" || exit 1
			n=sim-$b-${cc//[,=]/-}-r$seed
			echo "$n $a $c --seed=$seed --round=$seed --scenario=sim-$b" \
				"--out=$out/results/$n.json" >> "$list"
		done
	done
done

echo "  SIM     $(wc -l < "$list") runs, $jobs at a time: $bench; $ccs; $seeds seeds"
t0=$(date +%s)
export S out
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 bash -c '
	n=$0
	s=$(date +%s)
	if nice -n 19 "$S" "$@" > "$out/logs/$n.txt" 2>&1; then
		echo "  SIM     $n $(($(date +%s) - s)) s"
	else
		echo "  SIM     $n FAILED (logs/$n.txt)"
		exit 1
	fi' < "$list" || rc=1
echo "  SIM     done in $(($(date +%s) - t0)) s"
exit "${rc:-0}"
