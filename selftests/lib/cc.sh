#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The congestion controls of the evaluation on topo.sh's dumbbell, each
# with the bottleneck it is meant for (Documentation/results.rst):
#
#   hpcc    fifo, the CSIG data plane: transit on the bottleneck port,
#           insertion of U on the senders; T = CC_T_MS (4 ms,
#           selftests/vm/hpcc.sh)
#   ldcp    red, the draft's WRED/ECN profile (Documentation/tcp_ldcp.rst)
#   dctcp   red/ECN marking at CC_DCTCP_K (30 KB) of the instantaneous
#           queue
#   cubic   fifo of 1000 packets
#   bbr     fifo of 1000 packets
#   paced   fifo of 1000 packets, cubic flows each held by
#           SO_MAX_PACING_RATE (iperf3 --fq-rate) at its share of eta's
#           load (95%) in super-packets of 2 segments, hpcc's: a sender
#           that knows its fair rate exactly and has no control loop,
#           what the emulated hosts give at hpcc's target and packet
#           size (long-flow scenarios only: cc_flow_args)
#
# The transit role sits on the bottleneck port in every configuration:
# its model's queue histogram gives the queue percentiles for all of
# them alike (an upper bound when the fifo drops, since the model does
# not).  Needs topo.sh; RATE_MBIT is the bottleneck's rate.

CC_ALL="hpcc ldcp dctcp cubic bbr"

# PROFILE, the scale of the path (Documentation/results.rst), and what
# scales with its BDP:
#
#   small  100 Mbit/s, 1 ms of netem on the ACK path: an idle round trip
#          of 1.2-1.5 ms, a BDP of about 13 full-size packets
#   dc     100 Mbit/s, 10 ms: about 10.2 ms idle, 128 KB, 88 packets,
#          the BDP of a 100 Gbit/s fabric with 10 us of round trip
#
# hpcc's T (CC_T_MS) is the idle round trip and 3 ms for the emulated
# hosts' delays under TCG (selftests/vm/hpcc.sh), W_init C T with it;
# dctcp's K the DCTCP paper's C RTT / 7 in whole packets at dc (30 KB,
# above it, at small, where it is 2.1-2.7 KB, below two packets and TCG's
# bursts); ldcp's IW C times CC_LDCP_RTT_US, the idle round trip, and
# its K_min and K_max (CC_LDCP_KMIN, three times it) one and three BDPs
# at small (Documentation/tcp_ldcp.rst), dctcp's K and three times it
# at dc.  Scenario names, and so the records, carry the profile at dc
# (CC_PREFIX, "dc-"); CC_BDP, the BDP in bytes (about), is the flow
# scenarios' first size bin.
PROFILE=${PROFILE:-small}
case $PROFILE in
small)	CC_PREFIX=
	CC_BDP=20000
	CC_T_MS=${CC_T_MS:-4}
	CC_DCTCP_K=${CC_DCTCP_K:-30000}
	CC_LDCP_RTT_US=${CC_LDCP_RTT_US:-1500}
	CC_LDCP_KMIN=${CC_LDCP_KMIN:-15000} ;;
dc)	CC_PREFIX=dc-
	CC_BDP=128000
	TOPO_DELAY=10ms
	CC_T_MS=${CC_T_MS:-13}
	CC_DCTCP_K=${CC_DCTCP_K:-19500}
	CC_LDCP_RTT_US=${CC_LDCP_RTT_US:-10200}
	CC_LDCP_KMIN=${CC_LDCP_KMIN:-19500} ;;
*)	echo "cc.sh: PROFILE is small or dc, not '$PROFILE'" >&2
	return 2 ;;
esac
# C of the port model, per cent of the rate (selftests/bench/hpcc.sh)
CC_CAP_PCT=${CC_CAP_PCT:-100}
_cc_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# cc_red_ldcp: ldcp's leaf at RATE_MBIT, K_min CC_LDCP_KMIN and K_max
# three times it, with the least burst tc takes (an average over about
# two packets, Documentation/tcp_ldcp.rst)
cc_red_ldcp()
{
	echo "red limit 1000000 min $CC_LDCP_KMIN max $((CC_LDCP_KMIN * 3))" \
		"avpkt 1500 burst $(topo_red_burst "$CC_LDCP_KMIN")" \
		"probability 1 ecn bandwidth ${RATE_MBIT}mbit"
}

# cc_load NFLOWS: the modules, at RATE_MBIT and the dumbbell's base RTT
cc_load()
{
	local ko

	ko=$_cc_top/build/$(uname -r)
	grep -q '^tcp_csig_opt ' /proc/modules || insmod "$ko/tcp_csig_opt.ko" || return 1
	grep -q '^tcp_hpcc ' /proc/modules ||
		insmod "$ko/tcp_hpcc.ko" line_rate_mbps="$RATE_MBIT" \
			base_rtt_us=$((CC_T_MS * 1000)) nflows="$1" || return 1
	grep -q '^tcp_ldcp ' /proc/modules ||
		insmod "$ko/tcp_ldcp.ko" bw_mbps="$RATE_MBIT" \
			base_rtt_us="$CC_LDCP_RTT_US" || return 1
	# loaded by an earlier scenario of the same boot: this one's values
	echo "$1" > /sys/module/tcp_hpcc/parameters/nflows &&
	echo "$RATE_MBIT" > /sys/module/tcp_hpcc/parameters/line_rate_mbps &&
	echo "$RATE_MBIT" > /sys/module/tcp_ldcp/parameters/bw_mbps &&
	echo "$((CC_T_MS * 1000))" > /sys/module/tcp_hpcc/parameters/base_rtt_us &&
	echo "$CC_LDCP_RTT_US" > /sys/module/tcp_ldcp/parameters/base_rtt_us || return 1
	modprobe -q tcp_dctcp && modprobe -q tcp_bbr && modprobe -q sch_red || return 1
	# a namespace may default only to an allowed algorithm; a refused
	# default leaks a module reference (selftests/vm/hpcc.sh)
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$CC_ALL reno"
}

# cc_hosts NSENDERS: what every configuration needs on the hosts: room
# for a tag under the MTU (hpcc); ECN asked for in the SYN
# (tcp_ecn=1, for hpcc's telemetry-less fallback and any algorithm set
# after connect()); and no fallback to a connection without ECN when a
# SYN is retransmitted (RFC 3168, 6.1.1.1): a dctcp flow that lost its
# ECN that way starved behind the others' queue while an ldcp one took
# most of the link (Documentation/results.rst)
cc_hosts()
{
	local i

	CC_GSO_SEGS=$(topo_gso_segs s1)
	for ((i = 1; i <= $1; i++)); do
		ip -n "${TOPO}s$i" link set "s$i-eth0" mtu 1496
		topo_exec "s$i" sysctl -qw net.ipv4.tcp_ecn=1
		topo_exec "s$i" sysctl -qw net.ipv4.tcp_ecn_fallback=0
	done
}

# cc_leaf CC: the bottleneck leaf (qdisc and its parameters) for CC:
# RED/ECN at dctcp's K for dctcp, ldcp's own RED profile for ldcp, a
# fifo of 1000 packets for the others
cc_leaf()
{
	case $1 in
	dctcp)	topo_red_ecn "$CC_DCTCP_K" ;;
	ldcp)	cc_red_ldcp ;;
	hpcc|cubic|bbr|paced)	echo pfifo limit 1000 ;;
	*)	echo "cc_leaf: unknown $1" >&2; return 1 ;;
	esac
}

# cc_insert_u HOST...: each HOST's eth0 inserts a U tag into the
# segments of the marked sockets (topo_csig_mark), hpcc's, on their way out
cc_insert_u()
{
	local h m

	m=$(topo_csig_mark) || return 1
	for h in "$@"; do
		topo_csigctl "$h" attach "$h-eth0" insert --select mark \
			--mark "$m/$m" --types u --format expanded > /dev/null || return 1
	done
}

# cc_detach_u HOST...: what cc_insert_u attached, gone (none is fine)
cc_detach_u()
{
	local h

	for h in "$@"; do
		topo_csigctl "$h" detach "$h-eth0" 2> /dev/null
	done
}

# cc_window CAPACITY: the rate window of a transit port of CAPACITY
# (NNmbit; anything else gets 1 ms): the whole number of milliseconds
# nearest to the time of 16 full frames (1514 bytes) at that rate, at
# least 1 ms: 1 ms from 130 Mbit/s up, 2 ms at 100, 4 ms at 50
# (Documentation/tcp_hpcc.rst, "Deploying it")
cc_window()
{
	local m=${1%mbit} w

	if ! [[ $1 =~ ^[1-9][0-9]*mbit$ ]]; then
		echo 1ms
		return
	fi
	w=$(( (16 * 1514 * 8 + m * 500) / (m * 1000) ))
	echo "$(( w > 1 ? w : 1 ))ms"
}

# cc_transit SW DEV CAPACITY: the transit role on bottleneck port DEV of
# bridge namespace SW, its model at CAPACITY (tc's units), T CC_T_MS and
# its rate window CC_INTERVAL, by default cc_window's
cc_transit()
{
	topo_csigctl "$1" attach "$2" transit --capacity "$3" \
		--t "${CC_T_MS}ms" --interval "${CC_INTERVAL:-$(cc_window "$3")}" \
		--lm 7 > /dev/null
}

# cc_base CC: the algorithm of a CC of CCS, which may be a variant
# ALGO,KEY=VAL[,KEY=VAL...] (hpcc,grow_pct=0): ALGO
cc_base()
{
	echo "${1%%,*}"
}

# cc_algo CC: the kernel's congestion control CC runs (cubic for paced)
cc_algo()
{
	local c

	c=$(cc_base "$1")
	echo "${c/#paced/cubic}"
}

# cc_pace_kbit PCT NFLOWS: the pace, Kbit/s, of each of NFLOWS flows
# that together hold PCT per cent of RATE_MBIT in frames, in TCP payload
# (tcp_update_skb_after_send() counts the write queue's skb): 1444 bytes
# of it per frame of 1510 at cc_hosts' MTU of 1496, 52 bytes of IPv4
# and TCP with timestamps, 14 of Ethernet
cc_pace_kbit()
{
	echo "$RATE_MBIT * 10 * $1 / $2 * 1444 / 1510" | bc | cut -d. -f1
}

# cc_flow_args CC NFLOWS: iperf3's arguments for each of NFLOWS flows of
# CC: for paced, the pace of its share of eta's load (95%)
cc_flow_args()
{
	[ "$(cc_base "$1")" = paced ] || return 0
	echo "--fq-rate $(cc_pace_kbit 95 "$2")K"
}

# cc_unpaced CC...: the CCs but paced, a long-flow reference only
cc_unpaced()
{
	local c

	for c in "$@"; do
		[ "$(cc_base "$c")" = paced ] || echo "$c"
	done | xargs
}

# cc_params CC: a variant's KEY=VALs written to its module's parameters
# (tcp_ALGO), for the runs until the next cc_config; the values before
# are kept in CC_SAVED and put back by cc_params_restore
CC_SAVED=()
cc_params_restore()
{
	local kv

	for kv in "${CC_SAVED[@]}"; do
		echo "${kv#*=}" > "/sys/module/${kv%%=*}" || return 1
	done
	CC_SAVED=()
}

cc_params()
{
	local kv f kvs

	cc_params_restore || return 1
	[[ $1 == *,* ]] || return 0
	IFS=, read -ra kvs <<< "${1#*,}"
	for kv in "${kvs[@]}"; do
		f=tcp_$(cc_base "$1")/parameters/${kv%%=*}
		if [[ $kv != *=* || ! -w /sys/module/$f ]]; then
			echo "cc.sh: no parameter $f to set as '$kv'" >&2
			return 1
		fi
		CC_SAVED+=("$f=$(cat "/sys/module/$f")")
		echo "${kv#*=}" > "/sys/module/$f" || return 1
	done
}

# cc_config CC NSENDERS: CC (or the variant CC, cc_params) as every
# host's default, the bottleneck's leaf and the CSIG roles for CC.  The
# default makes dctcp's and ldcp's SYNs ECN-capable (Linux sends an ECT
# SYN when the algorithm needs ECN, and a listener whose algorithm needs
# it accepts one): the RED/ECN profiles then mark a SYN above their
# threshold instead of dropping it.
cc_config()
{
	local leaf senders cc s

	cc_params "$1" || return 1
	cc=$(cc_base "$1")
	set -- "$cc" "$2"
	mapfile -t senders < <(seq -f "s%g" "$2")
	topo_set_cc "$(cc_algo "$1")" "${senders[@]}" r || return 1
	for s in "${senders[@]}"; do
		ip -n "$TOPO$s" link set "$s-eth0" gso_max_segs \
			"$([ "$1" = paced ] && echo 2 || echo "${CC_GSO_SEGS:-65535}")" || return 1
	done

	topo_csigctl sw detach sw-r 2> /dev/null
	cc_detach_u "${senders[@]}"
	leaf=$(cc_leaf "$1") || return 1
	# shellcheck disable=SC2086 # the leaf is words: qdisc, parameters
	topo_set_leaf $leaf || return 1
	cc_transit sw sw-r $((RATE_MBIT * CC_CAP_PCT / 100))mbit || return 1
	[ "$1" = hpcc ] || return 0
	cc_insert_u "${senders[@]}"
}

# cc_nstat_sum COUNTER NSENDERS: COUNTER (nstat's name, e.g.
# TcpExtTCPTimeouts) summed over the senders s1..sNSENDERS
cc_nstat_sum()
{
	local i n=0

	for ((i = 1; i <= $2; i++)); do
		n=$((n + $(topo_nstat "s$i" "$1")))
	done
	echo $n
}
