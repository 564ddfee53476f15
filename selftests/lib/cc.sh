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
#   hpcc_bpf, ldcp_bpf
#           the BPF flavour (Documentation/bpf.rst) on its module twin's
#           bottleneck, hpcc's and ldcp's, with the parameters cc_load
#           gives the modules: loaded by build/bin/dccbpf once per
#           scenario when CCS names them (cc_load; cc_unload unloads);
#           for hpcc_bpf the CSIG host path in BPF (csighost) on the
#           senders and the receiver for its runs, in place of
#           tcp_csig_opt, which neither offers nor accepts meanwhile
#           (cc_csighost).  Long-flow scenarios only (cc_all_scenarios);
#           each run's dccbpf counters say whether it ran as meant
#           (cc_bpf_check: hpcc_bpf on U, ldcp_bpf with ECN)
#
# The transit role sits on the bottleneck port in every configuration:
# its model's queue histogram gives the queue percentiles for all of
# them alike (an upper bound when the fifo drops, since the model does
# not).  Needs topo.sh; RATE_MBIT is the bottleneck's rate.

CC_ALL="hpcc ldcp dctcp cubic bbr"
# the BPF flavour's algorithms, named in CCS only
CC_BPF="hpcc_bpf ldcp_bpf"

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
_cc_dccbpf=$_cc_top/build/bin/dccbpf
_cc_csighost=$_cc_top/build/bin/csighost
_cc_csig_p=/sys/module/tcp_csig_opt/parameters

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
	cc_bpf_load "$1" || return 1
	# a namespace may default only to an allowed algorithm; a refused
	# default leaks a module reference (selftests/vm/hpcc.sh), a BPF
	# algorithm's a reference to its map
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$CC_ALL reno${CC_BPF_LOADED:+ $CC_BPF_LOADED}"
}

# cc_bpf_named: the BPF flavour's algorithms that CCS names
cc_bpf_named()
{
	local c

	for c in ${CCS:-}; do
		cc_is_bpf "$c" && cc_base "$c"
	done | sort -u | xargs
}

# cc_bpf_load NFLOWS: the BPF flavour's algorithms that CCS names,
# registered by dccbpf with the parameters cc_load gives the modules
# (the rest are the same defaults); CC_BPF_LOADED their names.  Once per
# scenario: the load takes about 25 s under TCG.
CC_BPF_LOADED=
cc_bpf_load()
{
	local want c

	want=$(cc_bpf_named)
	[ -n "$want" ] || return 0
	for c in ${CCS:-}; do
		if [[ $c == *_bpf,* && ${c#*,} != tso_rtt_log=+([0-9]) ]]; then
			echo "cc.sh: $c: the BPF flavour's parameters are the load's (dccbpf), no variants but tso_rtt_log" >&2
			return 1
		fi
	done
	if ! [ -x "$_cc_dccbpf" ] || ! [ -x "$_cc_csighost" ]; then
		echo "cc.sh: $want need $_cc_dccbpf and $_cc_csighost (make tools)" >&2
		return 1
	fi
	case $want in
	hpcc_bpf)	c=hpcc ;;
	ldcp_bpf)	c=ldcp ;;
	*)		c=all ;;
	esac
	# registered by an earlier scenario of the same boot: this one's values
	"$_cc_dccbpf" unload > /dev/null 2>&1
	"$_cc_dccbpf" load "$c" "hpcc.line_rate_mbps=$RATE_MBIT" \
		"hpcc.base_rtt_us=$((CC_T_MS * 1000))" "hpcc.nflows=$1" \
		"ldcp.bw_mbps=$RATE_MBIT" "ldcp.base_rtt_us=$CC_LDCP_RTT_US" > /dev/null || {
		echo "cc.sh: dccbpf load $c failed" >&2
		return 1
	}
	CC_BPF_LOADED=$want
}

# cc_unload NSENDERS: what cc_load and cc_config added for the BPF
# flavour, gone: csighost, the hosts' defaults (each a reference to its
# algorithm) back to cubic, and the algorithms unregistered.
# selftests/bench/run.sh also clears them after each benchmark.
cc_unload()
{
	local i

	cc_csighost off
	[ -n "$CC_BPF_LOADED" ] || return 0
	for ((i = 1; i <= $1; i++)); do
		topo_set_cc cubic "s$i" 2> /dev/null
	done
	topo_set_cc cubic r 2> /dev/null
	"$_cc_dccbpf" unload > /dev/null || return 1
	CC_BPF_LOADED=
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
	# the senders' devices are all at this value yet (cc_config), and
	# their namespaces at the kernel's tcp_tso_rtt_log
	CC_SEGS_SET=$CC_GSO_SEGS
	CC_RTTLOG_SET=9
	for ((i = 1; i <= $1; i++)); do
		ip -n "${TOPO}s$i" link set "s$i-eth0" mtu 1496
		topo_exec "s$i" sysctl -qw net.ipv4.tcp_ecn=1
		topo_exec "s$i" sysctl -qw net.ipv4.tcp_ecn_fallback=0
	done
}

# cc_leaf CC: the bottleneck leaf (qdisc and its parameters) for CC:
# RED/ECN at dctcp's K for dctcp, ldcp's own RED profile for ldcp and
# ldcp_bpf, a fifo of 1000 packets for the others
cc_leaf()
{
	case $1 in
	dctcp)	topo_red_ecn "$CC_DCTCP_K" ;;
	ldcp|ldcp_bpf)	cc_red_ldcp ;;
	hpcc|hpcc_bpf|cubic|bbr|paced)	echo pfifo limit 1000 ;;
	*)	echo "cc_leaf: unknown $1" >&2; return 1 ;;
	esac
}

# cc_insert_u HOST...: each HOST's eth0 inserts a U tag into the
# segments of the marked sockets (topo_csig_mark), hpcc's, on their way
# out; the HOSTs are kept in CC_U_ON for cc_detach_u
CC_U_ON=
cc_insert_u()
{
	local h m

	m=$(topo_csig_mark) || return 1
	for h in "$@"; do
		CC_U_ON+=" $h"
		topo_csigctl "$h" attach "$h-eth0" insert --select mark \
			--mark "$m/$m" --types u --format expanded > /dev/null || return 1
	done
}

# cc_detach_u: what cc_insert_u attached (CC_U_ON), gone; nothing is
# run where nothing was attached: under TCG each command costs 50-90 ms
cc_detach_u()
{
	local h

	for h in $CC_U_ON; do
		topo_csigctl "$h" detach "$h-eth0" 2> /dev/null
	done
	CC_U_ON=
}

# cc_cgroup2: a cgroup v2 hierarchy, mounted at /sys/fs/cgroup when
# there is none (tools/vm/run's guest mounts none; selftests/vm/csig_bpf.sh)
cc_cgroup2()
{
	awk '$3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup
}

# cc_csighost on HOST... | off: the CSIG host path in BPF, csighost, on
# each HOST's eth0 (its tc program on the ingress) and its sock_ops
# program on the cgroup v2 root, which every process of the guest is
# under (the hosts' iperf3 alike), with tcp_csig_opt's insert_mark for
# cc_insert_u's rule; and the module, which is one for the kernel and
# sees every namespace's packets, told neither to offer nor to accept
# meanwhile (selftests/vm/csig_bpf.sh, whose checks show that it then
# adds nothing to the BPF hosts' segments, and that the tc program takes
# the tags out before the module's handler sees them).  off undoes it
# (nothing to undo is fine).  The sock_ops program is attached to the
# root once, by the first HOST's attach, and goes with the first detach.
CC_CSIGHOST=
cc_csighost()
{
	local h m

	if [ "$1" = off ]; then
		[ -n "$CC_CSIGHOST" ] || return 0
		for h in $CC_CSIGHOST; do
			"$_cc_csighost" -n "$TOPO$h" detach "$h-eth0" > /dev/null 2>&1
		done
		CC_CSIGHOST=
		echo 1 > "$_cc_csig_p/offer" && echo 1 > "$_cc_csig_p/accept_offers"
		return
	fi
	shift
	m=$(topo_csig_mark) && cc_cgroup2 || return 1
	echo 0 > "$_cc_csig_p/offer" && echo 0 > "$_cc_csig_p/accept_offers" || return 1
	for h in "$@"; do
		CC_CSIGHOST+=" $h"
		"$_cc_csighost" -n "$TOPO$h" attach "$h-eth0" --mark "$m" > /dev/null || return 1
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

# cc_all_scenarios CC...: the CCs but the long-flow scenarios' own
# entries: paced, a reference, and the BPF flavour's (named on stderr)
cc_all_scenarios()
{
	local c

	for c in "$@"; do
		case $(cc_base "$c") in
		paced)		;;
		*_bpf)		echo "cc.sh: $c left out: long-flow scenarios only" >&2 ;;
		*)		echo "$c" ;;
		esac
	done | xargs
}

# cc_params CC: a variant's KEY=VALs written to its module's parameters
# (tcp_ALGO), for the runs until the next cc_config; the values before
# are kept in CC_SAVED and put back by cc_params_restore.  tso_rtt_log
# is not a module's: cc_config sets it on the senders (cc_tso_rtt_log)
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
		[[ $kv == tso_rtt_log=* ]] && continue
		f=tcp_$(cc_base "$1")/parameters/${kv%%=*}
		if [[ $kv != *=* || ! -w /sys/module/$f ]]; then
			echo "cc.sh: no parameter $f to set as '$kv'" >&2
			return 1
		fi
		CC_SAVED+=("$f=$(cat "/sys/module/$f")")
		echo "${kv#*=}" > "/sys/module/$f" || return 1
	done
}

# cc_tso_rtt_log CC SENDER...: the senders' net.ipv4.tcp_tso_rtt_log,
# the kernel's min-RTT term of a TSO burst (tcp_tso_autosize(): 64 KB
# >> (min RTT >> it)), as the variant CC,tso_rtt_log=N sets it for any
# CC, else the kernel's 9: a host's stand-in, for the BPF flavour, for
# part of the modules' TSO cap (Documentation/bpf.rst).  Set only where
# the last run left it otherwise (CC_RTTLOG_SET), as gso_max_segs.
CC_RTTLOG_SET=9
cc_tso_rtt_log()
{
	local v=9 kv s kvs

	if [[ $1 == *,* ]]; then
		IFS=, read -ra kvs <<< "${1#*,}"
		for kv in "${kvs[@]}"; do
			[[ $kv == tso_rtt_log=* ]] && v=${kv#*=}
		done
	fi
	shift
	[ "$v" = "$CC_RTTLOG_SET" ] && return 0
	for s in "$@"; do
		topo_exec "$s" sysctl -qw net.ipv4.tcp_tso_rtt_log="$v" || return 1
	done
	CC_RTTLOG_SET=$v
}

# cc_config CC NSENDERS: CC (or the variant CC, cc_params) as every
# host's default, the bottleneck's leaf and the CSIG roles for CC.  The
# default makes dctcp's and ldcp's SYNs ECN-capable (Linux sends an ECT
# SYN when the algorithm needs ECN, and a listener whose algorithm needs
# it accepts one): the RED/ECN profiles then mark a SYN above their
# threshold instead of dropping it.  The senders' gso_max_segs is set
# only where the last run's CC left it otherwise (CC_SEGS_SET): under TCG
# each command costs 50-90 ms, half a second a run with eight senders.
CC_SEGS_SET=
cc_config()
{
	local leaf senders cc s segs

	cc_params "$1" || return 1
	mapfile -t senders < <(seq -f "s%g" "$2")
	cc_tso_rtt_log "$1" "${senders[@]}" || return 1
	cc=$(cc_base "$1")
	set -- "$cc" "$2"
	topo_set_cc "$(cc_algo "$1")" "${senders[@]}" r || return 1
	segs=$([ "$1" = paced ] && echo 2 || echo "${CC_GSO_SEGS:-65535}")
	if [ "$segs" != "$CC_SEGS_SET" ]; then
		for s in "${senders[@]}"; do
			ip -n "$TOPO$s" link set "$s-eth0" gso_max_segs "$segs" || return 1
		done
		CC_SEGS_SET=$segs
	fi

	topo_csigctl sw detach sw-r 2> /dev/null
	cc_detach_u
	cc_csighost off
	leaf=$(cc_leaf "$1") || return 1
	# shellcheck disable=SC2086 # the leaf is words: qdisc, parameters
	topo_set_leaf $leaf || return 1
	cc_transit sw sw-r $((RATE_MBIT * CC_CAP_PCT / 100))mbit || return 1
	case $1 in
	hpcc)		cc_insert_u "${senders[@]}" ;;
	hpcc_bpf)	cc_csighost on "${senders[@]}" r && cc_insert_u "${senders[@]}" ;;
	esac
}

# cc_is_bpf CC: whether CC is one of the BPF flavour's
cc_is_bpf()
{
	[[ " $CC_BPF " == *" $(cc_base "$1") "* ]]
}

# cc_bpf_counters CC: for a BPF flavour's CC, its counters in dccbpf
# show (the host's, all namespaces) as NAME=VALUE words; for hpcc_bpf
# also tcp_csig_opt's offers (s1's mod_syn_offered) and acceptances
# (r's mod_synack_accepted), which its runs must leave alone.  Nothing
# for other CCs.
cc_bpf_counters()
{
	local c

	cc_is_bpf "$1" || return 0
	c=$(cc_base "$1")
	{
		"$_cc_dccbpf" show 2> /dev/null |
			awk -v cc="$c:" '/^[a-z]/ { f = ($1 == cc) }
				f && /^  [a-z_]+ [0-9]+$/ { print $1 "=" $2 }'
		if [ "$c" = hpcc_bpf ]; then
			# shellcheck disable=SC2016 # awk's
			topo_exec s1 awk '$1 == "syn_offered" { print "mod_" $1 "=" $2 }' /proc/net/csig_opt
			# shellcheck disable=SC2016
			topo_exec r awk '$1 == "synack_accepted" { print "mod_" $1 "=" $2 }' /proc/net/csig_opt
		fi
	} | xargs
}

# cc_bpf_delta BEFORE AFTER: cc_bpf_counters' words, AFTER less BEFORE
cc_bpf_delta()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " ")
		for (i = 1; i <= n; i++) { split(x[i], kv, "="); v[kv[1]] = kv[2] }
		n = split(b, y, " ")
		for (i = 1; i <= n; i++) {
			split(y[i], kv, "=")
			printf "%s%s=%d", (i > 1 ? " " : ""), kv[1], kv[2] - v[kv[1]]
		}
		print "" }'
}

# cc_bpf_check CC NFLOWS DELTA: whether a run of CC (hpcc_bpf, ldcp_bpf)
# ran as its module twin's does, from its counters over the run
# (cc_bpf_delta): hpcc_bpf on U, every flow it started negotiated CSIG
# (flows, at least NFLOWS: the receivers' and iperf3's control
# connections count too) and none ran the fallback from the start
# (flows_no_csig), U samples taken, tcp_csig_opt out of the way; ldcp_bpf
# with ECN on every flow.  Prints the verdict: "on U" or "with ECN", or
# what failed (and returns 1).
cc_bpf_check()
{
	local -A c
	local kv

	for kv in $3; do
		c[${kv%%=*}]=${kv#*=}
	done
	case $(cc_base "$1") in
	hpcc_bpf)
		if ((${c[flows]:-0} >= $2 && ${c[flows_no_csig]:-1} == 0 &&
		     ${c[samples_u]:-0} > 0 && ${c[mod_syn_offered]:-1} == 0 &&
		     ${c[mod_synack_accepted]:-1} == 0)); then
			echo "on U"
			return 0
		fi
		echo "NOT on U: flows +${c[flows]:-?} (>= $2), flows_no_csig" \
			"+${c[flows_no_csig]:-?} (0), samples_u +${c[samples_u]:-?} (> 0)," \
			"tcp_csig_opt's offers +${c[mod_syn_offered]:-?} and acceptances" \
			"+${c[mod_synack_accepted]:-?} (0)" ;;
	ldcp_bpf)
		if ((${c[flows]:-0} >= $2 && ${c[flows_no_ecn]:-1} == 0)); then
			echo "with ECN"
			return 0
		fi
		echo "NOT with ECN: flows +${c[flows]:-?} (>= $2)," \
			"flows_no_ecn +${c[flows_no_ecn]:-?} (0)" ;;
	*)	echo "cc_bpf_check: $1 is not the BPF flavour's" ;;
	esac
	return 1
}

# cc_nstat_sum COUNTER NSENDERS: COUNTER (nstat's name, e.g.
# TcpExtTCPTimeouts) summed over the senders s1..sNSENDERS, read all at
# once: one after the other, incast's 16 senders took 2 s under TCG,
# twice a run
cc_nstat_sum()
{
	local i

	for ((i = 1; i <= $2; i++)); do
		topo_nstat "s$i" "$1" &
	done | awk '{ n += $1 } END { print n + 0 }'
}
