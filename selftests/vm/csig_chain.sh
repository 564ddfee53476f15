#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CSIG data plane end to end on this kernel: a sender, three switch hops
# and a receiver (selftests/lib/topo.sh topo_chain).
#
#   s1 --insert--> [h1 10G] --> [h2 100M, shaped] --> [h3 300M] --strip--> r
#
# h1 is loaded with plain iproute2 and its defaults (then configured with
# csigctl set --prog), h2 and h3 with csigctl.  h2 is the bottleneck for
# every signal.  For each signal type in both formats, the tags that reach
# the receiver (seen by a packet socket before its tc ingress strips them)
# carry h2's locator and, within one quantisation step, the value h2's own
# model computed for that packet (h2's decision trace, csigctl show --json,
# matched by TCP sequence number).  Then: GSO
# super-packets keep their tags and their offload, a boundary port strips,
# and a socket flagged in the flow table gets tags of its own types.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"

CSIGCTL=$top/build/bin/csigctl
OBJ=$top/build/bpf/csig_port.bpf.o
CAP=$top/selftests/lib/csig_capture.py

ktap_plan 26
[ -x "$CSIGCTL" ] && [ -f "$OBJ" ] || { echo "Bail out! run make first"; exit 1; }

# Buckets scaled to these links (the default table is sized for 100G):
# ABW in 10 Mbit/s steps, PD in 20 us steps; expanded quanta 1/64 of a
# unit interval for ABW/C and U so that a live flow's jitter is one step.
seq_csv() { seq -s, "$1" "$1" $(($1 * 31)); }
QUANT="--bounds abw=$(seq_csv 10000) --bounds pd=$(seq_csv 20000)
	--quantum abwc=16384 --quantum u=16384 --quantum pd=10000"
COMMON="--t 1ms --interval 50ms $QUANT"

topo_chain 3 || { ktap_fail "setup"; ktap_finished; }
sx() { topo_csigctl "$@"; }

# h1: plain tc, defaults; then the domain's quantisation with csigctl
tc -n "${TOPO}h1" qdisc add dev p1 clsact
if tc -n "${TOPO}h1" filter add dev p1 egress bpf da obj "$OBJ" sec csig/transit; then
	h1=$(tc -n "${TOPO}h1" filter show dev p1 egress | sed -n 's/.* id \([0-9]*\) .*/\1/p')
	sx h1 set --prog "$h1" $QUANT --t 1ms --interval 50ms
	ktap_expect "plain iproute2 loads csig/transit with defaults (prog $h1)" \
		"$(sx h1 --json show --prog "$h1" | jq '.[0].config.capacity_kbps') == 10000000"
else
	ktap_fail "plain iproute2 loads csig/transit with defaults"
fi
sx h2 attach p1 transit --capacity 100mbit --lm 2 --trace on $COMMON > /dev/null
topo_shape h2 p1 100mbit
sx h3 attach p1 transit --capacity 300mbit --lm 3 $COMMON > /dev/null
sx r attach r-eth0 strip --ingress > /dev/null
sx s1 attach s1-eth0 insert --select all --types u $COMMON > /dev/null
ktap_expect "csigctl attached the transit, strip and insert roles" \
	"$(sx h2 --json show | jq length) == 5"

# Paced 1500-byte segments at a tenth of the bottleneck, 1.2 ms apart: a
# steady model.  The expanded tag needs 4 bytes more than a VLAN tag's room
# on full-size frames: the sender's MTU leaves them (Documentation/csig.rst).
topo_exec s1 ethtool -K s1-eth0 tso off gso off > /dev/null
ip -n "${TOPO}s1" link set s1-eth0 mtu 1496
topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
topo_wait_listen r 5201
# longer than the eight captures below, each a python start and 2 s
# (under TCG 4-6 s in all); stopped after them
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 120 --fq-rate 10M > /dev/null 2>&1 &
flow=$!
# under TCG the connection takes a while: wait for h2 to see data
for k in $(seq 50); do
	[ "$(sx h2 --json show p1 | jq '.[0].counters.packets')" -gt 200 ] && break
	sleep 0.2
done

# the first python start reads it over 9p: not inside a measurement
ip netns exec "${TOPO}r" python3 "$CAP" r-eth0 0.1 > /dev/null

# cap_ready FILE: wait (up to 15 s) for a capture to bind its socket;
# its window starts then, however long python took to start
cap_ready()
{
	local k

	for k in $(seq 150); do
		grep -q '^# ready' "$1" && return 0
		sleep 0.1
	done
	return 1
}

# capture: one capture of the tags of type $t in format $fmt at r, against
# h2's trace; sets n, lm2, m, eq, w1 and score, the run's least ratio to
# the checks' goals below
capture()
{
	local cap cpid

	sx s1 set s1-eth0 --types "$t" --format $fmt --select all
	sleep 0.3
	cap=$(mktemp)
	timeout 20 ip netns exec "${TOPO}r" python3 "$CAP" r-eth0 15 > "$cap" &
	cpid=$!
	cap_ready "$cap"
	sleep 1.2
	# pause tagging, then stop the capture once the last tagged frames
	# are through: h2's trace then ends with packets r has seen,
	# however long csigctl takes to start
	sx s1 set s1-eth0 --select sk
	sleep 0.3
	kill -TERM $cpid
	wait $cpid
	sx h2 --json show p1 | jq -r '.[0].trace[] | @tsv' > "$cap.trace"
	# h2's decisions (replaced, by TCP sequence number) against the tags
	# r saw: matched, equal, within one step
	read -r n lm2 m eq w1 < <(awk -v f="$f" -v t="${codes[$i]}" '
		FILENAME ~ /trace$/ { if ($2 == t && $3 == f && $4 == 1) loc[$1] = $6; next }
		!/^#/ && $1 == f && $2 == t {
			n++; if ($4 == 2) l++
			if ($4 == 2 && ($6 in loc)) {
				m++; d = $3 - loc[$6]
				if (d == 0) e++
				if (d <= 1 && d >= -1) w++
			}
		}
		END { print n + 0, (n ? l / n : 0), m + 0, e + 0, w + 0 }' "$cap.trace" "$cap")
	rm -f "$cap" "$cap.trace"
	ktap_diag "$fmt $t: $n tags at r, LM 2 in $(printf %.3f "$lm2"); $m matched with h2's trace: $eq equal, $w1 within one step"
	score=$(awk "BEGIN { s = $m / 50; if ($n / 100 < s) s = $n / 100
			     if ($lm2 / 0.85 < s) s = $lm2 / 0.85
			     if ($w1 != $m) s = 0; print s }" < /dev/null)
}

names=(abw abwc pd u)
codes=(0 1 2 7)
for fmt in compact expanded; do
	f=$([ $fmt = compact ] && echo 0 || echo 1)
	for i in 0 1 2 3; do
		t=${names[$i]}
		# 99-100% of the tags carry h2's locator in most runs; a flow's
		# first windows, and TCG's bursts into h3's 50 ms windows, can
		# make another hop the path's extreme for a while (one run:
		# 73.6% for compact u, and fewer of h2's decisions to match):
		# short of a goal, the capture is taken once more
		ktap_best_of_two capture n lm2 m eq w1
		ktap_expect "$fmt $t: the tags reaching r carry h2's own S (within one step)" \
			"$m >= 50 && $w1 == $m"
		ktap_expect "$fmt $t: ... and h2's locator" "$n >= 100 && $lm2 >= 0.85"
	done
done
# both ends (one PID namespace): the flow would run on for its 120 s
pkill iperf3
wait $flow 2> /dev/null

# GSO: super-packets with tags through the bottleneck, against no tags.
# Offload is kept when h2 sees packets far above the MTU.
gso_run()	# gso_run: Mbit/s at the receiver over 4 s, B/packet at h2
{
	local a0 p0 a1 p1 out

	a0=$(sx h2 --json show p1 | jq '.[0].model.arrived')
	p0=$(sx h2 --json show p1 | jq '.[0].counters.packets')
	topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
	topo_wait_listen r 5201
	out=$(topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 4 -J)
	a1=$(sx h2 --json show p1 | jq '.[0].model.arrived')
	p1=$(sx h2 --json show p1 | jq '.[0].counters.packets')
	echo "$(echo "$out" | jq '.end.sum_received.bits_per_second / 1e6')" \
		"$(((a1 - a0) / (p1 - p0 + 1)))"
}
topo_exec s1 ethtool -K s1-eth0 tso on gso on > /dev/null
sx s1 detach s1-eth0
# gso_pair: one tagged run and one untagged run, back to back.  A single
# 4 s run under TCG loses 5-10% to a stall of the machine under the VM
# (the 6.1 guest once measured tagged 80.6 against untagged 85.5 Mbit/s),
# so a pair short of its goals is measured once more (ktap_best_of_two)
gso_pair()
{
	sx s1 attach s1-eth0 insert --select all --types u --format expanded \
		$COMMON > /dev/null
	ins0=$(sx s1 --json show s1-eth0 | jq '.[0].counters.inserted')
	str0=$(sx r --json show r-eth0 --ingress | jq '.[0].counters.stripped')
	read -r tagged tagged_avg < <(gso_run)
	ins=$(($(sx s1 --json show s1-eth0 | jq '.[0].counters.inserted') - ins0))
	str=$(($(sx r --json show r-eth0 --ingress | jq '.[0].counters.stripped') - str0))
	sx s1 detach s1-eth0
	read -r plain plain_avg < <(gso_run)
	# the goals: the bottleneck's 90%, scaled by what the untagged
	# flow reaches on this machine in the same boot (topo_scaled: TCG
	# may not fill 100 Mbit/s), and 95% of the untagged flow
	gso_goal=$(topo_scaled 90 "$plain" 95)
	gso_plain=$(echo "0.95 * $plain" | bc -l)
	# the score: tagged over the higher goal, below 1 when either is missed
	score=$(awk "BEGIN { g = $gso_goal; p = $gso_plain
		if (p > g) g = p; if (g < 1) g = 1
		print $tagged / g }" < /dev/null)
}
ktap_best_of_two gso_pair tagged tagged_avg ins str plain plain_avg gso_goal gso_plain
ktap_diag "GSO: tagged $(printf %.1f "$tagged") Mbit/s, $tagged_avg B/packet at h2; untagged $(printf %.1f "$plain") Mbit/s, $plain_avg B/packet; $ins inserted, $str stripped"
ktap_expect "GSO: tagged super-packets stay super-packets at the bottleneck" \
	"$tagged_avg > 3000"
ktap_expect "GSO: tagged throughput >= 90% of the 100 Mbit/s bottleneck (scaled)" \
	"$tagged >= $gso_goal"
ktap_expect "GSO: tagged throughput >= 95% of untagged" "$tagged >= $gso_plain"
ktap_expect "GSO: every tag inserted was stripped at the receiver" \
	"$ins > 100 && $str == $ins"

# The socket flow table: only the flagged socket, with its own types.
sx s1 attach s1-eth0 insert --format compact --types abw > /dev/null
topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
topo_wait_listen r 5201
# long enough for two captures, each after python's start (seconds
# under TCG); the flow is stopped once they are done
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 30 --fq-rate 20M > /dev/null 2>&1 &
flow=$!
sleep 1
cap=$(mktemp)
topo_exec r python3 "$CAP" r-eth0 0.8 > "$cap"
before=$(awk '!/^#/' "$cap" | wc -l)
pid=$(pgrep -f "iperf3 -c $TOPO_RCV_IP" | head -1)
for fd in $(ls -l /proc/"$pid"/fd 2> /dev/null | awk '/socket:/ { print $9 }'); do
	sx s1 flow add --pid "$pid" --fd "$fd" --types pd,u --format expanded
done
topo_exec r python3 "$CAP" r-eth0 1.5 > "$cap"
kinds=$(awk '!/^#/ { print $1 "-" $2 }' "$cap" | sort -u | tr '\n' ' ')
pkill iperf3
wait $flow
ktap_diag "flow table: $before tags before flagging, then kinds (format-type): $kinds"
ktap_expect "flow table: a flagged socket rotates its own types, unflagged ones get none" \
	"$before == 0 && \"$kinds\" == \"1-2 1-7 \""

# Domain boundary: h3's port strips, the receiver sees no tags.
sx s1 set s1-eth0 --select all
sx h3 attach p1 strip > /dev/null
sx r detach r-eth0 --ingress
topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
topo_wait_listen r 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 5 > /dev/null 2>&1 &
flow=$!
sleep 0.5
topo_exec r python3 "$CAP" r-eth0 1.5 > "$cap"
wait $flow
rc=$?
ktap_diag "boundary: $(tail -1 "$cap"); h3 $(sx h3 show p1 | tail -1)"
ktap_expect "boundary: a stripping port lets no tag out, the flow completes" \
	"$(awk '/^# frames/ { print ($3 > 0 && $5 == 0) }' "$cap") == 1 && $rc == 0"
ktap_expect "boundary: h3 stripped, failed nothing" \
	"$(sx h3 --json show p1 | jq '.[0].counters | (.stripped > 0 and .strip_fail == 0 and .error == 0)') == true"
ktap_expect "no helper errors on any port" \
	"$(for n in h1 h2 s1; do sx $n --json show; done | jq -s 'map(.[].counters.error) | add') == 0"
rm -f "$cap"
ktap_finished
