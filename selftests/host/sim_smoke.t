#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ns-3 model (build/sim/dccsim, make sim; Documentation/sim.rst), a
# short pass of its baselines and its CSIG path:
# - dctcp on a dumbbell (1 Gbit/s, two long flows) holds the
#   bottleneck's queue near K: the median within K/2..3K/2, p99 below
#   3K, no drops, the link busy;
# - a flow alone on an idle path (dumbbell at 1 Gbit/s, leaf-spine at
#   100 Gbit/s) completes within 5% of the ideal that dccsim computes
#   (its frames through the path, propagation both ways, the answer);
# - the CSIG port's U on a link one cubic flow saturates (sender at the
#   link's rate: no standing queue) is about 1 at the port and in the
#   sample its sender keeps from the receiver's reflection, fresh;
# - the records: valid JSON that tools/bench_report.py tabulates;
# - hpcc (include/hpcc_ctl.h in ns-3) on a 10 Gbit/s dumbbell, two long
#   flows: the link at least 90% busy with a p99 queue under 10 frames,
#   on the reflected U (samples taken, no fallback);
# - ldcp's first window is a BDP (its IW from the dumbbell's rate and
#   base RTT): the cwnd at the flow's first data segment within 10% of
#   the BDP, and at least 3/4 of a BDP sent in the first base RTT (the
#   frames' headers and pacing's gaps take the rest).
# dctcp runs the same dumbbell beside them, for the record.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
S=$top/build/sim/dccsim

if [ ! -x "$S" ]; then
	pkg-config --exists ns3-core 2> /dev/null ||
		ktap_skip_all "needs libns3-dev (make deps) and make sim"
	echo "Bail out! build/sim/dccsim missing (make sim)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_plan 8

# key=value of a summary
val() { sed -n "s/.*[[:space:]]$2=\([^[:space:]]*\).*/\1/p" "$1" | head -n 1; }
run() { local out=$1; shift; nice -n 19 "$S" "$@" > "$tmp/$out.txt" 2>&1; }

mkdir -p "$tmp/rec"
run dctcp --topo=dumbbell --rate=1Gbps --delay=10us --senders=2 --flows=2 \
	--workload=long --secs=0.05 --cc=dctcp --out="$tmp/rec/dctcp.json" \
	--scenario=smoke-dumbbell
k=$(val "$tmp/dctcp.txt" ecn_k_bytes)
kus=$(awk -v k="$k" 'BEGIN { print k * 8 / 1000 }')	# at 1 Gbit/s
p50=$(val "$tmp/dctcp.txt" queue_p50_us)
p99=$(val "$tmp/dctcp.txt" queue_p99_us)
util=$(val "$tmp/dctcp.txt" util)
drops=$(val "$tmp/dctcp.txt" drops)
ktap_expect "dctcp holds the dumbbell's queue near K" \
	"$p50 >= 0.5 * $kus && $p50 <= 1.5 * $kus && $p99 <= 3 * $kus && $drops == 0 && $util >= 0.95" \
	"K $k bytes ($kus us), queue p50 $p50 us p99 $p99 us, util $util, drops $drops"

run single1 --topo=dumbbell --rate=1Gbps --delay=10us --workload=single \
	--size=2000000 --cc=cubic
fct=$(val "$tmp/single1.txt" fct_us)
ideal=$(val "$tmp/single1.txt" ideal_us)
ktap_expect "a flow alone on the dumbbell: FCT within 5% of the ideal" \
	"${fct:-0} > 0 && ${fct:-0} <= 1.05 * ${ideal:-0} && ${fct:-0} >= 0.95 * ${ideal:-0}" \
	"2 MB at 1 Gbit/s: FCT $fct us, ideal $ideal us"

run single2 --topo=leafspine --rate=100Gbps --delay=1us --workload=single \
	--size=10000000 --cc=dctcp
fct=$(val "$tmp/single2.txt" fct_us)
ideal=$(val "$tmp/single2.txt" ideal_us)
ktap_expect "a flow alone across the leaf-spine: FCT within 5% of the ideal" \
	"${fct:-0} > 0 && ${fct:-0} <= 1.05 * ${ideal:-0} && ${fct:-0} >= 0.95 * ${ideal:-0}" \
	"10 MB at 100 Gbit/s, 4 links: FCT $fct us, ideal $ideal us"

run csig --topo=dumbbell --rate=1Gbps --delay=10us --senders=1 --flows=1 \
	--workload=long --secs=0.03 --cc=cubic
up=$(val "$tmp/csig.txt" csig_u_port)
ue=$(val "$tmp/csig.txt" csig_u_echo)
age=$(val "$tmp/csig.txt" csig_echo_age_us)
n=$(val "$tmp/csig.txt" csig_echo_samples)
ktap_expect "the CSIG port's U on a saturated link is about 1" \
	"$up >= 0.95 && $up <= 1.1" "port U $up"
ktap_expect "the sender reads it from the reflected tag, fresh" \
	"$ue >= 0.95 && $ue <= 1.1 && $n > 100 && $age < 1000" \
	"sender's sample U $ue (the bucket's upper edge), $n samples, the newest $age us old"

run incast --topo=leafspine --rate=100Gbps --delay=1us --workload=incast \
	--senders=8 --size=100000 --queries=2 --cc=dctcp \
	--out="$tmp/rec/incast.json" --flows-out="$tmp/rec/incast.jsonl"
ok=1
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["source"] == "sim"; [json.loads(l) for l in open(sys.argv[2])]' \
	"$tmp/rec/incast.json" "$tmp/rec/incast.jsonl" 2> "$tmp/err" || ok=0
python3 "$top/tools/bench_report.py" "$tmp/rec" > "$tmp/report.md" 2>> "$tmp/err" || ok=0
grep -q "smoke-dumbbell" "$tmp/report.md" && grep -q "sim-leafspine-incast" "$tmp/report.md" || ok=0
ktap_expect "the records are JSON that bench_report.py tabulates" "$ok == 1"
[ -s "$tmp/err" ] && ktap_diag "$(head -c 300 "$tmp/err")"
# hpcc and ldcp, with dctcp on the same dumbbell as the baseline
db="--topo=dumbbell --rate=10Gbps --delay=10us --workload=long"
run dctcp10 $db --senders=2 --flows=2 --secs=0.05 --cc=dctcp
run hpcc $db --senders=2 --flows=2 --secs=0.05 --cc=hpcc
util=$(val "$tmp/hpcc.txt" util)
p99=$(val "$tmp/hpcc.txt" queue_p99_us)
# frames of 1502 bytes (1500 + PPP) at 10 Gbit/s
p99f=$(awk -v q="${p99:-1e9}" 'BEGIN { print q * 1e4 / 8 / 1502 }')
su=$(val "$tmp/hpcc.txt" samples_u)
fb=$(val "$tmp/hpcc.txt" fallbacks)
dutil=$(val "$tmp/dctcp10.txt" util)
dp99=$(val "$tmp/dctcp10.txt" queue_p99_us)
dp99f=$(awk -v q="${dp99:-0}" 'BEGIN { print q * 1e4 / 8 / 1502 }')
ktap_expect "hpcc on a dumbbell: utilisation >= 0.9, p99 queue under 10 frames" \
	"${util:-0} >= 0.9 && $p99f < 10 && ${su:-0} > 100 && ${fb:-1} == 0" \
	"hpcc util $util, queue p99 $p99 us ($p99f frames), $su U samples, $fb fallbacks; dctcp util $dutil, p99 $dp99 us ($dp99f frames)"

run ldcp $db --senders=1 --flows=1 --secs=0.002 --cc=ldcp
run dctcp1 $db --senders=1 --flows=1 --secs=0.002 --cc=dctcp
bdp=$(val "$tmp/ldcp.txt" bdp_bytes)
cw=$(val "$tmp/ldcp.txt" first_cwnd_bytes)
fr=$(val "$tmp/ldcp.txt" first_rtt_bytes)
dcw=$(val "$tmp/dctcp1.txt" first_cwnd_bytes)
dfr=$(val "$tmp/dctcp1.txt" first_rtt_bytes)
ktap_expect "ldcp's first window is one BDP" \
	"${cw:-0} >= 0.9 * ${bdp:-1e12} && ${cw:-0} <= 1.1 * ${bdp:-0} && ${fr:-0} >= 0.75 * ${bdp:-1e12}" \
	"BDP $bdp bytes: ldcp first cwnd $cw bytes, $fr bytes sent in the first base RTT; dctcp $dcw and $dfr"

for f in "$tmp"/*.txt; do
	ktap_diag "$(basename "$f" .txt): $(grep -o 'pkts_per_s=[0-9.]*' "$f") (packets per wall-clock s)"
done
ktap_finished
