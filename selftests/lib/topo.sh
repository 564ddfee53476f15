#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A dumbbell for congestion-control tests, built from network namespaces:
#
#   s1 --\                                          (bottleneck: egress of
#   s2 ---+-- [ br0 in "sw" ] --sw-r--> r            sw-r toward r, htb rate
#   sN --/                                           + leaf qdisc)
#
# Senders s1..sN and the receiver r hang off a Linux bridge in the switch
# namespace sw.  The switch's port toward the receiver (sw-r) is the
# bottleneck: htb at TOPO_RATE with a leaf qdisc given by the test (fifo,
# RED/ECN, ...).  The base delay is netem on the switch's ports toward the
# senders, so it sits on the ACK path and the bottleneck queue holds only
# data.  Addresses are from the benchmarking range 198.18.0.0/15 (RFC 2544)
# and 2001:db8::/32 (RFC 3849); nothing leaves the namespaces.
#
# Names are prefixed with $TOPO (default "t$$-") so that cleanup can find
# everything a test made; topo_cleanup runs on exit.

TOPO=${TOPO:-t$$-}
TOPO_RATE=${TOPO_RATE:-200mbit}
TOPO_DELAY=${TOPO_DELAY:-1ms}
TOPO_GSO=${TOPO_GSO:-on}

TOPO_CSIGCTL=${TOPO_CSIGCTL:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/bin/csigctl}
TOPO_CSIGHOST=${TOPO_CSIGHOST:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/bin/csighost}
# the cgroup v2 hierarchy, where topo_cgroups makes the hosts' cgroups
# (empty without one)
TOPO_CGROOT=${TOPO_CGROOT:-$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)}
TOPO_CGROUPS=		# hosts with a cgroup of their own (topo_cgroups)
TOPO_CSIGHOSTS=		# hosts with the CSIG host path on (topo_csighost)

TOPO_RCV_IP=198.18.0.1
TOPO_RCV_IP6=2001:db8::1

topo_ns()	# topo_ns NAME: the namespace's full name
{
	echo "${TOPO}$1"
}

topo_sender_ip()	# topo_sender_ip I
{
	echo "198.18.0.$((10 + $1))"
}

# topo_csigctl NAME ARGS...: csigctl in namespace NAME.  csigctl -n enters
# the network namespace only: ip netns exec would hide /sys/fs/bpf.
topo_csigctl()
{
	local ns=$1

	shift
	"$TOPO_CSIGCTL" -n "${TOPO}$ns" "$@"
}

# topo_csig_mark: the mark bits tcp_csig_opt sets on the data of flows that
# negotiated CSIG (its insert_mark), in hex, for an insertion rule's
# --mark; fails when the module is not loaded
topo_csig_mark()
{
	local m

	m=$(cat /sys/module/tcp_csig_opt/parameters/insert_mark) || return 1
	printf '0x%x\n' "$m"
}

# topo_nstat NAME COUNTER: COUNTER (nstat's name, e.g. TcpRetransSegs) in
# namespace NAME so far
topo_nstat()
{
	topo_exec "$1" nstat -asz "$2" | awk -v c="$2" '$1 == c { print $2 }'
}

# topo_exec NAME CMD...: run CMD in namespace NAME (s1, sw, r, ...)
topo_exec()
{
	local ns=$1
	shift
	ip netns exec "${TOPO}$ns" "$@"
}

# topo_set_cc CC NAME...: CC the default congestion control of each NAME
topo_set_cc()
{
	local cc=$1 ns

	shift
	for ns in "$@"; do
		topo_exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$cc" || return 1
	done
}

# topo_hold_netstamp: hold netstamp_needed_key on until topo_cleanup.
# ping and packet sockets ask for timestamps, which turns the key (a
# static key in __netif_receive_skb_core) on when the first starts and
# off when the last ends; under TCG, patching it while another vCPU runs
# that code has left a stale int3, an oops in interrupt
# (Documentation/testing.rst).  Call it before any traffic.
topo_hold_netstamp()
{
	python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)	# SO_TIMESTAMP
time.sleep(86400)' &
	TOPO_TSHOLDER=$!
	disown "$TOPO_TSHOLDER"	# a caller's bare wait does not wait for it
	sleep 1
}

topo_cleanup()
{
	local ns h

	[ -n "$TOPO_TSHOLDER" ] && kill "$TOPO_TSHOLDER" 2> /dev/null
	TOPO_TSHOLDER=
	# shellcheck disable=SC2086 # a list of names
	[ -n "$TOPO_CSIGHOSTS" ] && topo_csighost off $TOPO_CSIGHOSTS
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${TOPO}"); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	for h in $TOPO_CGROUPS; do
		xargs -r kill < "$(topo_cgroup "$h")/cgroup.procs" 2> /dev/null
	done
	[ -n "$TOPO_CGROUPS" ] && sleep 0.2
	for h in $TOPO_CGROUPS; do
		rmdir "$(topo_cgroup "$h")" 2> /dev/null
	done
	TOPO_CGROUPS=
	return 0
}

# topo_cgroups NAME...: a cgroup v2 group of its own for each host NAME,
# under TOPO_CGROOT: the CSIG host path's sock_ops program is attached
# to a cgroup, so a host is a namespace and a cgroup (topo_hx runs
# commands in both); topo_cleanup kills what they hold and removes them
topo_cgroups()
{
	local h

	[ -n "$TOPO_CGROOT" ] || return 1
	for h in "$@"; do
		mkdir -p "$(topo_cgroup "$h")" || return 1
		TOPO_CGROUPS="$TOPO_CGROUPS $h"
	done
}

# topo_cgroup NAME: host NAME's cgroup directory
topo_cgroup() { echo "$TOPO_CGROOT/${TOPO}$1"; }

# topo_hx NAME CMD...: CMD on host NAME, in its namespace and its cgroup
topo_hx()
{
	local h=$1

	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && ns=$1 && shift &&
		exec ip netns exec "$ns" "$@"' \
		"$(topo_cgroup "$h")" "${TOPO}$h" "$@"
}

# topo_csighost on|off NAME...: the BPF CSIG host path (csighost) on each
# host NAME, on its device NAME-eth0 and its cgroup (topo_cgroups); on a
# sender (sN), also csigctl's insertion of U tags into the segments of
# the sockets the host path negotiated and marked (csighost's default
# mark, 0x40000000).  off takes both away again (topo_cleanup does).
topo_csighost()
{
	local on=$1 h

	shift
	for h in "$@"; do
		if [ "$on" = on ]; then
			"$TOPO_CSIGHOST" -n "${TOPO}$h" attach "$h-eth0" \
				--cgroup "$(topo_cgroup "$h")" > /dev/null || return 1
			TOPO_CSIGHOSTS="$TOPO_CSIGHOSTS $h"
		else
			"$TOPO_CSIGHOST" -n "${TOPO}$h" detach "$h-eth0" \
				--cgroup "$(topo_cgroup "$h")" > /dev/null 2>&1
			TOPO_CSIGHOSTS=$(echo "$TOPO_CSIGHOSTS" | sed "s/ $h\b//g")
		fi
		case $h in
		s[0-9]*)
			if [ "$on" = on ]; then
				topo_csigctl "$h" attach "$h-eth0" insert --select mark \
					--mark 0x40000000/0x40000000 --types u > /dev/null || return 1
			else
				topo_csigctl "$h" detach "$h-eth0" > /dev/null 2>&1
			fi
			;;
		esac
	done
}

_topo_port()	# _topo_port HOSTNS IF SWPORT IP4 IP6
{
	local host=$1 ifn=$2 port=$3
	ip netns add "${TOPO}$host" || return 1
	ip -n "${TOPO}sw" link add "$port" type veth peer name "$ifn" \
		netns "${TOPO}$host" || return 1
	ip -n "${TOPO}sw" link set "$port" master br0 up || return 1
	ip -n "${TOPO}$host" link set lo up
	ip -n "${TOPO}$host" link set "$ifn" up
	ip -n "${TOPO}$host" addr add "$4/24" dev "$ifn"
	ip -n "${TOPO}$host" addr add "$5/64" dev "$ifn" nodad
	if [ "$TOPO_GSO" = off ]; then
		ip netns exec "${TOPO}$host" ethtool -K "$ifn" tso off gso off \
			> /dev/null 2>&1
	fi
}

# topo_delay I: sender I's base delay: the I-th word of TOPO_DELAYS where
# it has one (senders of different round trips), else TOPO_DELAY
topo_delay()
{
	local d

	read -ra d <<< "${TOPO_DELAYS:-}"
	echo "${d[$1 - 1]:-$TOPO_DELAY}"
}

# topo_gso_segs HOST [IF]: the gso_max_segs of HOST's device IF
# (HOST-eth0)
topo_gso_segs()
{
	ip -n "$TOPO$1" -d link show dev "${2:-$1-eth0}" |
		sed -n 's/.* gso_max_segs \([0-9]*\).*/\1/p'
}

# topo_dumbbell NSENDERS LEAF...: build the dumbbell; LEAF is the leaf
# qdisc under the bottleneck's htb class, e.g. "pfifo limit 1000" or
# "red limit 400000 min 30000 max 31000 avpkt 1500 burst 21 probability 1 ecn".
topo_dumbbell()
{
	local n=$1 i d
	shift
	modprobe -q veth 2>/dev/null
	modprobe -q bridge 2>/dev/null
	modprobe -q sch_htb 2>/dev/null
	modprobe -q sch_netem 2>/dev/null
	trap topo_cleanup EXIT

	ip netns add "${TOPO}sw" || return 1
	ip -n "${TOPO}sw" link set lo up
	ip -n "${TOPO}sw" link add br0 type bridge forward_delay 0 || return 1
	ip -n "${TOPO}sw" link set br0 up
	_topo_port r r-eth0 sw-r "$TOPO_RCV_IP" "$TOPO_RCV_IP6" || return 1
	for i in $(seq 1 "$n"); do
		_topo_port "s$i" s$i-eth0 "sw-s$i" "$(topo_sender_ip "$i")" \
			"2001:db8::$((10 + i))" || return 1
		d=$(topo_delay "$i")
		if [ "$d" != 0 ]; then
			tc -n "${TOPO}sw" qdisc add dev "sw-s$i" root netem \
				delay "$d" limit 100000 || return 1
		fi
	done
	topo_set_leaf "$@"
}

# topo_set_leaf LEAF...: (re)build the bottleneck: htb at TOPO_RATE, LEAF.
topo_set_leaf()
{
	tc -n "${TOPO}sw" qdisc del dev sw-r root 2>/dev/null
	tc -n "${TOPO}sw" qdisc add dev sw-r root handle 1: htb default 1 || return 1
	tc -n "${TOPO}sw" class add dev sw-r parent 1: classid 1:1 htb \
		rate "$TOPO_RATE" ceil "$TOPO_RATE" quantum 60000 || return 1
	tc -n "${TOPO}sw" qdisc add dev sw-r parent 1:1 handle 10: "$@"
}

# topo_red_burst MIN: red's burst for a min of MIN bytes (avpkt 1500).
# red averages the queue with a weight tc derives from burst; the least
# burst tc takes, MIN / avpkt rounded up, gives the largest, 1/2 ("ewma 1"
# in tc -d qdisc show), the nearest red comes to the instantaneous queue
# (burst one more gives 1/4, an average over about four packets).
topo_red_burst() { echo $((($1 + 1499) / 1500)); }

# topo_red_ewma: the EWMA weight's log2 of the red leaf at the
# bottleneck, as tc -d shows it ("none" without one)
topo_red_ewma()
{
	local e

	e=$(tc -n "${TOPO}sw" -d qdisc show dev sw-r |
		sed -n 's/.* red .* ewma \([0-9]*\) .*/\1/p')
	echo "${e:-none}"
}

# topo_red_ecn K: the leaf for DCTCP-style marking, RED with ECN at K bytes
# of the instantaneous queue, as the DCTCP paper marks (min K, max K + 1,
# probability 1: every ECN-capable packet arriving above K is marked,
# others are dropped; topo_red_burst's average over about two packets).
topo_red_ecn()
{
	echo "red limit 1000000 min $1 max $(($1 + 1)) avpkt 1500" \
		"burst $(topo_red_burst "$1") probability 1.0 bandwidth $TOPO_RATE ecn"
}

# topo_tx_bytes: bytes sent through the bottleneck so far
topo_tx_bytes()
{
	tc -n "${TOPO}sw" -s class show dev sw-r classid 1:1 |
		awk '$1 == "Sent" { print $2; exit }'
}

# topo_tx_stamp: "bytes ns", topo_tx_bytes and the time it was read
topo_tx_stamp()
{
	echo "$(topo_tx_bytes) $(date +%s%N)"
}

# topo_util STAMP0 STAMP1 MBIT: the bottleneck's utilisation between two
# topo_tx_stamp readings, a fraction of MBIT (the time is measured: under
# TCG the commands between the readings take a noticeable part of it)
topo_util()
{
	local b0 t0 b1 t1

	read -r b0 t0 <<< "$1"
	read -r b1 t1 <<< "$2"
	echo "($b1 - $b0) * 8 * 1000 / ($t1 - $t0) / $3" | bc -l
}

# topo_tc_stat NS DEV WHERE FIELD: the number after the last FIELD in
# "tc -s qdisc show dev DEV WHERE" in namespace NS (WHERE: "root",
# "parent 1:1"), 0 when there is none
topo_tc_stat()
{
	# shellcheck disable=SC2086 # WHERE is words
	tc -n "${TOPO}$1" -s qdisc show dev "$2" $3 |
		awk -v f="$4" '{ for (i = 1; i < NF; i++) if ($i == f) { v = $(i + 1) } }
			END { gsub(/[^0-9]/, "", v); print v + 0 }'
}

# topo_qdisc_stat FIELD: a counter of the bottleneck's leaf qdisc, e.g.
# "marked", "early", "dropped" (RED prints "marked N early N ...").
topo_qdisc_stat() { topo_tc_stat sw sw-r "parent 1:1" "$1"; }

# topo_dropped: packets the bottleneck qdiscs dropped
topo_dropped()
{
	tc -n "${TOPO}sw" -s qdisc show dev sw-r parent 1:1 |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

# topo_sample_backlog SECONDS INTERVAL FILE: sample the bottleneck's queue
# (bytes, from the htb root's backlog) every INTERVAL seconds for SECONDS;
# one value per line in FILE.  One tc process in batch mode does the
# reading and bash's read -t on a FIFO does the waiting: a fork per sample
# costs ~0.4 s under TCG.
topo_sample_backlog()
{
	local n i fd fifo

	n=$(awk -v s="$1" -v i="$2" 'BEGIN { print int(s / i) }')
	fifo=$(mktemp -u)
	mkfifo "$fifo" && exec {fd}<> "$fifo" && rm -f "$fifo"
	for ((i = 0; i < n; i++)); do
		echo "qdisc show dev sw-r"
		read -r -t "$2" -u "$fd"
	done | tc -n "${TOPO}sw" -s -batch - |
		awk '/^qdisc htb 1:/ { f = 1 }
		     f && $1 == "backlog" { v = $2; sub(/b$/, "", v)
			# tc prints a multiple of 1024 as "34Kb", of 2^20 as "1Mb"
			if (v ~ /K$/) { sub(/K$/, "", v); v *= 1024 }
			else if (v ~ /M$/) { sub(/M$/, "", v); v *= 1048576 }
			print v; f = 0 }' > "$3"
	exec {fd}<&-
}

# topo_measure SECONDS FILE: over the next SECONDS (whole), sample the
# bottleneck's queue every 50 ms into FILE and print the throughput through
# the bottleneck in Mbit/s.
topo_measure()
{
	local b0 b1

	b0=$(topo_tx_bytes)
	topo_sample_backlog "$1" 0.05 "$2"
	b1=$(topo_tx_bytes)
	echo "($b1 - $b0) * 8 / $1 / 1000000" | bc -l
}

# topo_capacity CC MBIT [SEGS]: the same-boot reference for a test's
# throughput checks.  Two CC flows, from s1 and s2, through the
# bottleneck as it is set up (MBIT its rate) for 5 s; their utilisation
# over the last 3, a fraction of MBIT, is printed.  SEGS, when given,
# caps the senders' super-packets (their devices' gso_max_segs, restored
# after), to match the per-packet cost of the algorithm under test.
# Under TCG the emulated hosts' CPU, not the link, often sets the rate,
# and how far below the link depends on the machine the VM runs on.
topo_capacity()
{
	local cc=$1 mbit=$2 segs=${3:-} i ts0 ts1 old=() pids=()

	if [ -n "$segs" ]; then
		for i in 1 2; do
			old[i]=$(topo_gso_segs "s$i")
			ip -n "${TOPO}s$i" link set "s$i-eth0" gso_max_segs "$segs"
		done
	fi
	topo_exec r iperf3 -s -D -1 -p 5291 > /dev/null 2>&1
	topo_exec r iperf3 -s -D -1 -p 5292 > /dev/null 2>&1
	topo_wait_listen r 5291 5292
	for i in 1 2; do
		topo_exec "s$i" iperf3 -c "$TOPO_RCV_IP" -p "529$i" -C "$cc" \
			-t 5 > /dev/null 2>&1 &
		pids+=($!)
	done
	sleep 2
	ts0=$(topo_tx_stamp)
	sleep 3
	ts1=$(topo_tx_stamp)
	wait "${pids[@]}"
	if [ -n "$segs" ]; then
		for i in 1 2; do
			ip -n "${TOPO}s$i" link set "s$i-eth0" \
				gso_max_segs "${old[i]:-65535}"
		done
	fi
	topo_util "$ts0" "$ts1" "$mbit"
}

# topo_scaled X REF NOMINAL: X scaled to the reference, X * min(1,
# REF / NOMINAL): a goal set for a machine where the reference reaches
# NOMINAL, on one where the emulated hosts reach less
topo_scaled()
{
	echo "c = $2 / $3; if (c > 1) c = 1; $1 * c" | bc -l
}

# topo_wait_listen NS PORT...: wait until a TCP socket of NS listens on
# each PORT (a server started in the background, or by iperf3 -D, which
# listens only after it returned; python starts slowly under TCG), at
# most 20 s each; 1 if one never does
topo_wait_listen()
{
	local ns=$1 p i

	shift
	for p in "$@"; do
		for i in $(seq 200); do
			[ -n "$(topo_exec "$ns" ss -Hltn "sport = :$p")" ] && break
			[ "$i" = 200 ] && return 1
			sleep 0.1
		done
	done
	return 0
}

# topo_wait_est NS FILTER [N]: wait until NS has at least N (1) TCP
# connections established that match the ss FILTER (a client started in
# the background may take seconds to connect under TCG), at most 20 s;
# 1 if they never are
topo_wait_est()
{
	local i

	for i in $(seq 200); do
		[ "$(topo_exec "$1" ss -Htn state established "( $2 )" | wc -l)" -ge "${3:-1}" ] &&
			return 0
		sleep 0.1
	done
	return 1
}

# TOPO_EXEC: how topo_iperf_server and topo_two_flows run iperf3 on a
# host: topo_exec (default), or topo_hx for hosts whose cgroup carries
# the CSIG host path (topo_csighost)
TOPO_EXEC=${TOPO_EXEC:-topo_exec}

# topo_iperf_server [PORT]: start an iperf3 server in r
topo_iperf_server()
{
	$TOPO_EXEC r iperf3 -s -D -p "${1:-5201}" -1 > /dev/null 2>&1
	topo_wait_listen r "${1:-5201}"
}

# topo_iperf SENDER CC SECONDS [PORT] [EXTRA...]: a bulk flow from sender I
topo_iperf()
{
	local i=$1 cc=$2 t=$3 port=${4:-5201}

	shift $(($# < 4 ? $# : 4))
	topo_exec "s$i" iperf3 -c "$TOPO_RCV_IP" -p "$port" -C "$cc" -t "$t" \
		-J "$@"
}

# topo_two_flows SECS LATE [S2ARGS...]: two bulk flows to r, 0.5 s
# intervals in JSON, s1's for SECS s and s2's (to port 5202, with
# S2ARGS) joining LATE s later and ending with it; sets j1 and j2, their
# files, and p1 and p2, their PIDs, and returns once s2's has started
topo_two_flows()
{
	local t=$1 late=$2

	shift 2
	j1=$(mktemp) j2=$(mktemp)
	topo_iperf_server 5201
	$TOPO_EXEC r iperf3 -s -D -1 -p 5202 > /dev/null 2>&1
	topo_wait_listen r 5202
	$TOPO_EXEC s1 iperf3 -c "$TOPO_RCV_IP" -t "$t" -i 0.5 -J > "$j1" 2>&1 &
	p1=$!
	sleep "$late"
	$TOPO_EXEC s2 iperf3 -c "$TOPO_RCV_IP" -p 5202 -t $((t - late)) -i 0.5 -J "$@" > "$j2" 2>&1 &
	p2=$!
}

# topo_chain NHOPS: a sender, NHOPS switches and a receiver in a line,
#
#   s1 --> [h1] --> [h2] --> ... --> [hN] --> r
#
# each switch hI a namespace with a bridge br0 over its ports p0 (toward
# the sender) and p1 (toward the receiver).  Addresses as in the dumbbell
# (s1 198.18.0.11, r 198.18.0.1).  Shaping and programs are the test's.
topo_chain()
{
	local n=$1 i prev

	modprobe -q veth 2>/dev/null
	modprobe -q bridge 2>/dev/null
	modprobe -q sch_htb 2>/dev/null
	trap topo_cleanup EXIT
	for i in $(seq 1 "$n"); do
		ip netns add "${TOPO}h$i" || return 1
		ip -n "${TOPO}h$i" link set lo up
		ip -n "${TOPO}h$i" link add br0 type bridge forward_delay 0 || return 1
		ip -n "${TOPO}h$i" link set br0 up
	done
	ip netns add "${TOPO}s1" || return 1
	ip netns add "${TOPO}r" || return 1
	prev=s1
	ip -n "${TOPO}h1" link add p0 type veth peer name s1-eth0 netns "${TOPO}s1" || return 1
	for i in $(seq 1 "$n"); do
		if [ "$i" -lt "$n" ]; then
			ip -n "${TOPO}h$i" link add p1 type veth peer name p0 \
				netns "${TOPO}h$((i + 1))" || return 1
		else
			ip -n "${TOPO}h$i" link add p1 type veth peer name r-eth0 \
				netns "${TOPO}r" || return 1
		fi
		ip -n "${TOPO}h$i" link set p0 master br0 up || return 1
		ip -n "${TOPO}h$i" link set p1 master br0 up || return 1
	done
	for prev in s1 r; do
		ip -n "${TOPO}$prev" link set lo up
		ip -n "${TOPO}$prev" link set "$prev-eth0" up
	done
	ip -n "${TOPO}s1" addr add "$(topo_sender_ip 1)/24" dev s1-eth0
	ip -n "${TOPO}r" addr add "$TOPO_RCV_IP/24" dev r-eth0
	ip -n "${TOPO}s1" addr add 2001:db8::11/64 dev s1-eth0 nodad
	ip -n "${TOPO}r" addr add "$TOPO_RCV_IP6/64" dev r-eth0 nodad
}

# topo_shape NS DEV RATE: htb at RATE on DEV's egress (fifo leaf)
topo_shape()
{
	tc -n "${TOPO}$1" qdisc add dev "$2" root handle 1: htb default 1 &&
	tc -n "${TOPO}$1" class add dev "$2" parent 1: classid 1:1 htb \
		rate "$3" ceil "$3" quantum 60000 &&
	tc -n "${TOPO}$1" qdisc add dev "$2" parent 1:1 handle 10: pfifo limit 1000
}
