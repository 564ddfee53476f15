#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF flavour, natively: on the host kernel (no VM, no module), a
# dumbbell of network namespaces (selftests/lib/topo.sh: s1, s2, a
# bridge, r) with an htb bottleneck toward r and the CSIG port model
# (csigctl's transit role) on that port, and two flows of each of
#
#   hpcc_bpf     dccbpf; csighost on s1, s2 and r and U tags inserted on
#                the senders, so that it runs on the port's U, not its
#                fallback (its counters say so: flows, samples_u)
#   ldcp_bpf     dccbpf; the port model marks (--wred K,3K,1)
#   bpf_dctcp    the kernel's own BPF DCTCP, tools/testing/selftests/bpf/
#                progs/bpf_dctcp.c of Debian's linux-source
#                (build/bpf/bpf_dctcp.bpf.o, the Makefile); the port
#                model marks from K (--wred K,K,1)
#   cubic, bbr   the kernel's
#   cubic+csig   cubic with csighost attached and tags inserted: the
#                cost of the CSIG host path
#   CC+segsN     CC with the senders' devices capping super-packets at
#                N segments (gso_max_segs), which a BPF congestion
#                control cannot do per socket: what the bursts cost
#                (hpcc_bpf+segs2, cubic+segs2, ...)
#
# SECS s each, ROUNDS rounds, the algorithms interleaved in each round.
# Measured from 2 s after the start to 1 s before the end: the
# bottleneck's utilisation (htb's bytes), the model's queue p50/p99 (its
# histogram, as the VM benchmarks read it: selftests/lib/longrun.py),
# and, with kernel.bpf_stats_enabled, the run time of the algorithm's
# struct_ops programs over the ACKs the senders received: the senders'
# calls only.  The receivers of ldcp_bpf and bpf_dctcp, which echo CE
# DCTCP's way, run bpf_dctcp_rx, the same BPF DCTCP under other names
# (build/bpf/bpf_dctcp_rx.bpf.o, programs dctcprx_*), whose calls are
# counted apart (runs.log); hpcc_bpf's receiver runs the host's default.
# The bottleneck's rate is RATE_MBIT (default: 3000 Mbit/s, or 0.6 of
# what two cubic flows reach through the unshaped bridge when that is
# less; measured first), then 0.85 of what two cubic flows get through
# htb at that rate (below), CAP_MBIT, also the port model's C,
# hpcc_bpf's and ldcp_bpf's line rate and the utilisation's
# reference.  K is WRED_K bytes (30000), T of hpcc_bpf and
# of the port model T_US (1000 us).  The table and the goals' ratios
# (nativerun.py) go to stdout and, with the runs, to OUT
# (build/bench-native/).  Root, kernel BTF and struct_ops congestion controls are
# needed; without them it says why and exits 0.  Everything runs in a
# private mount namespace with a BPF filesystem of its own.
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/selftests/bench/$(basename "$0")
D=$top/build/bin/dccbpf
C=$top/build/bin/csigctl
DCTCP=$top/build/bpf/bpf_dctcp.bpf.o
DCTCP_RX=$top/build/bpf/bpf_dctcp_rx.bpf.o
PY=$top/selftests/lib/nativerun.py
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control

skip() { echo "native: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root"
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	grep -q "STRUCT 'bpf_struct_ops_tcp_congestion_ops'" ||
	skip "the kernel has no struct_ops congestion controls"
for x in "$D" "$top/build/bin/csighost" "$C" "$DCTCP" "$DCTCP_RX"; do
	[ -e "$x" ] || { echo "native: $x missing (make tools, make $x)" >&2; exit 1; }
done
command -v iperf3 > /dev/null && command -v jq > /dev/null || skip "needs iperf3 and jq"
for cc in hpcc_bpf ldcp_bpf bpf_dctcp bpf_dctcp_rx; do
	grep -qw "$cc" "$AVAIL" && skip "$cc is registered already (by whom?)"
done
if [ -z "${NATIVE_PRIVATE:-}" ]; then
	NATIVE_PRIVATE=1 exec unshare -m --propagation private \
		sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$self"
fi

SECS=${SECS:-8}
ROUNDS=${ROUNDS:-3}
CCS=${CCS:-hpcc_bpf ldcp_bpf bpf_dctcp cubic bbr cubic+csig}
WRED_K=${WRED_K:-30000}
T_US=${T_US:-1000}
OUT=${OUT:-$top/build/bench-native}
mkdir -p "$OUT"
rm -f "$OUT/runs.tsv" "$OUT/runs.log" "$OUT/hpcc_counters.txt"

# shellcheck disable=SC2034 # topo.sh's
TOPO=nb$$- TOPO_DELAY=0 TOPO_RATE=10000mbit
. "$top/selftests/lib/topo.sh"
[ -n "$TOPO_CGROOT" ] || skip "needs a cgroup v2 hierarchy"

stats0=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup()
{
	topo_cleanup	# the host path and the hosts' cgroups too
	"$D" unload > /dev/null 2>&1
	grep -qw bpf_dctcp "$AVAIL" && bpftool struct_ops unregister name dctcp > /dev/null 2>&1
	grep -qw bpf_dctcp_rx "$AVAIL" && bpftool struct_ops unregister name dctcp_rx > /dev/null 2>&1
	echo "$stats0" > /proc/sys/kernel/bpf_stats_enabled
}
trap cleanup EXIT

in_segs() { topo_exec "$1" awk '$1 == "Tcp:" && $11 ~ /^[0-9]/ { print $11 }' /proc/net/snmp; }

# flows CC SECS TAG: two flows, s1 and s2 to r, of CC; prints the sum of
# their Mbit/s; with TAG, snapshots of the measured window in $w/TAG.*
flows()
{
	local cc=$1 secs=$2 i pids=()

	for i in 1 2; do
		topo_hx r iperf3 -s -1 -p "530$i" > /dev/null 2>&1 &
	done
	sleep 0.4
	for i in 1 2; do
		topo_hx "s$i" iperf3 -c "$TOPO_RCV_IP" -p "530$i" -C "$cc" -t "$secs" \
			-J > "$w/f$i.json" 2> /dev/null &
		pids+=($!)
	done
	if [ -n "${3:-}" ]; then
		sleep 2
		snap "$3.0"
		ss -N "${TOPO}s1" -tni > "$w/$3.ss"
		sleep $((secs - 3))
		snap "$3.1"
	fi
	wait "${pids[@]}"
	wait
	for i in 1 2; do
		jq '.end.sum_received.bits_per_second // 0' "$w/f$i.json" 2> /dev/null || echo 0
	done | awk '{ s += $1 } END { printf "%.1f\n", s / 1e6 }'
}

# snap NAME: the bottleneck's bytes, the model's histogram, the BPF
# programs' statistics and the senders' received segments, now
snap()
{
	topo_tx_stamp > "$w/$1.tx"
	"$C" -n "${TOPO}sw" --json show sw-r > "$w/$1.qh"
	bpftool prog show -j > "$w/$1.progs"
	echo $(($(in_segs s1) + $(in_segs s2))) > "$w/$1.segs"
}

# bpf_cost PREFIX: "ns_per_ack calls_per_ack" of the struct_ops programs
# we loaded whose names start with PREFIX, between $w/m.0 and $w/m.1
bpf_cost()
{
	local s0 s1 a

	sum() { jq -r --argjson pre "$pre_ids" --arg p "$1" '[.[] | select(.type == "struct_ops"
		and (.name | startswith($p)) and (.id as $i | $pre | index($i) | not))] |
		"\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0)"' "$2"; }
	s0=$(sum "$1" "$w/m.0.progs")
	s1=$(sum "$1" "$w/m.1.progs")
	a=$(($(cat "$w/m.1.segs") - $(cat "$w/m.0.segs")))
	awk -v a="$a" -v s0="$s0" -v s1="$s1" 'BEGIN { split(s0, x); split(s1, y)
		if (a <= 0) { print "- -"; exit }
		printf "%.1f %.3f\n", (y[1] - x[1]) / a, (y[2] - x[2]) / a }'
}

# routes CC [RXCC]: the senders' routes with congctl CC (ECN from the
# handshake on), the receiver's with RXCC (its echo of CE), or none
routes()
{
	local i cg=${1:+congctl $1} rcg=${2:+congctl $2}

	for i in 1 2; do
		# shellcheck disable=SC2086 # cg is words
		topo_exec "s$i" ip route replace 198.18.0.0/24 dev "s$i-eth0" proto kernel \
			scope link src "$(topo_sender_ip "$i")" $cg
	done
	# shellcheck disable=SC2086
	topo_exec r ip route replace 198.18.0.0/24 dev r-eth0 proto kernel \
		scope link src "$TOPO_RCV_IP" $rcg
}

# csig on|off: the CSIG host path on s1, s2 and r, U tags inserted on
# the senders for the sockets it marked
csig() { topo_csighost "$1" s1 s2 r; }

t_start=$(date +%s)
topo_dumbbell 2 pfifo limit 1000 || { echo "native: no dumbbell" >&2; exit 1; }
trap cleanup EXIT	# topo_dumbbell set its own
topo_cgroups s1 s2 r || { echo "native: no cgroups" >&2; exit 1; }
for h in s1 s2 r; do
	topo_exec "$h" sysctl -qw net.ipv4.tcp_ecn=1
done
for h in s1 s2; do
	topo_exec "$h" sysctl -qw net.ipv4.tcp_ecn_fallback=0
done
w=$(mktemp -d)

# what the host sustains: the unshaped bridge
tc -n "${TOPO}sw" qdisc del dev sw-r root 2> /dev/null
unshaped=$(flows cubic 4)
if [ -z "${RATE_MBIT:-}" ]; then
	RATE_MBIT=$(awk -v u="$unshaped" 'BEGIN { r = int(u * 0.6 / 100) * 100
		print (r < 3000 ? (r < 100 ? 100 : r) : 3000) }')
fi
TOPO_RATE=${RATE_MBIT}mbit
topo_set_leaf pfifo limit 1000 || exit 1
# what htb delivers at that rate (two cubic flows, over 3 s): on the
# development machine 0.67-0.9 of it, varying with the CPU the other
# work leaves.  The port model's queue is only meaningful where the
# model's C is no less than what leaves the port (beyond it, it grows
# without bound), so the bottleneck is then set to 0.85 of what htb
# delivered, in steps of 100 Mbit/s: a rate htb holds, the model's C,
# hpcc_bpf's and ldcp_bpf's line rate and the utilisation's reference.
if [ -z "${CAP_MBIT:-}" ]; then
	delivered=$(awk -v f="$(topo_capacity cubic "$RATE_MBIT")" -v r="$RATE_MBIT" \
		'BEGIN { printf "%d", f * r }')
	CAP_MBIT=$(awk -v d="$delivered" -v r="$RATE_MBIT" 'BEGIN {
		c = int(d * 0.85 / 100) * 100; print (c > r ? r : (c < 100 ? 100 : c)) }')
	htb_at=$RATE_MBIT
	RATE_MBIT=$CAP_MBIT
	# shellcheck disable=SC2034 # topo_set_leaf's
	TOPO_RATE=${RATE_MBIT}mbit
	topo_set_leaf pfifo limit 1000 || exit 1
fi
"$C" -n "${TOPO}sw" attach sw-r transit --capacity "${CAP_MBIT}mbit" \
	--t "${T_US}us" --interval 1ms --lm 1 --types u > /dev/null ||
	{ echo "native: csigctl transit failed" >&2; exit 1; }

pre_ids=$(bpftool prog show -j | jq -c '[.[].id]')
"$D" load "hpcc.line_rate_mbps=$CAP_MBIT" "hpcc.base_rtt_us=$T_US" hpcc.nflows=2 \
	"ldcp.bw_mbps=$CAP_MBIT" "ldcp.base_rtt_us=$T_US" > /dev/null ||
	{ echo "native: dccbpf load failed" >&2; exit 1; }
# the object's other struct_ops, bpf_dctcp_nouse (init and set_state
# only), is refused by the kernel (no ssthresh, undo_cwnd or
# cong_avoid), and bpftool then exits 1: bpf_dctcp's presence decides
bpftool struct_ops register "$DCTCP" > "$OUT/bpf_dctcp.register" 2>&1
bpftool struct_ops register "$DCTCP_RX" >> "$OUT/bpf_dctcp.register" 2>&1
for cc in hpcc_bpf ldcp_bpf bpf_dctcp bpf_dctcp_rx; do
	grep -qw "$cc" "$AVAIL" ||
		{ echo "native: $cc not registered ($(cat "$AVAIL"))" >&2; exit 1; }
done
echo 1 > /proc/sys/kernel/bpf_stats_enabled

echo "native: $(uname -r), $(nproc) CPUs; unshaped bridge: $unshaped Mbit/s (two cubic flows);" \
	"htb at ${htb_at:-$RATE_MBIT} Mbit/s delivered ${delivered:-?};" \
	"bottleneck htb $RATE_MBIT Mbit/s, port model C $CAP_MBIT Mbit/s, T $T_US us," \
	"WRED K $WRED_K B; $ROUNDS rounds of $SECS s of: $CCS"
rc=0
# the senders' own gso_max_segs, for the entries without +segsN
gso_segs=$(topo_gso_segs s1)
for ((r = 1; r <= ROUNDS; r++)); do
	for cc in $CCS; do
		algo=${cc%+csig}
		segs=
		if [[ $algo == *+segs* ]]; then
			segs=${algo##*+segs}
			algo=${algo%+segs*}
		fi
		for i in 1 2; do
			ip -n "${TOPO}s$i" link set "s$i-eth0" gso_max_segs "${segs:-$gso_segs}"
		done
		case $algo in
		bpf_dctcp)	wred=$WRED_K,$WRED_K,1 ;;
		ldcp_bpf)	wred=$WRED_K,$((3 * WRED_K)),1 ;;
		*)		wred=off ;;
		esac
		"$C" -n "${TOPO}sw" set sw-r --wred "$wred" > /dev/null || rc=1
		case $algo in
		bpf_dctcp|ldcp_bpf)	routes "$algo" bpf_dctcp_rx ;;
		*)			routes ;;
		esac
		case $cc in
		hpcc_bpf*|*+csig)	csig on || { echo "native: csig on failed" >&2; rc=1; } ;;
		esac
		[ "$algo" = hpcc_bpf ] && h0=$("$D" show)
		mbit=$(flows "$algo" "$SECS" m)
		[ "$algo" = hpcc_bpf ] && h1=$("$D" show)
		case $cc in
		hpcc_bpf*|*+csig)	csig off ;;
		esac
		util=$(topo_util "$(cat "$w/m.0.tx")" "$(cat "$w/m.1.tx")" "$CAP_MBIT")
		read -r q50 q99 _ <<< "$(python3 "$PY" q "$w/m.0.qh" "$w/m.1.qh")"
		case $algo in
		hpcc_bpf)	cost=$(bpf_cost hpcc_) ;;
		ldcp_bpf)	cost=$(bpf_cost ldcp_) ;;
		bpf_dctcp)	cost=$(bpf_cost dctcp_) ;;
		*)		cost="- -" ;;
		esac
		acks=$(($(cat "$w/m.1.segs") - $(cat "$w/m.0.segs")))
		printf '%s %d %s %.4f %s %s %s %d\n' "$cc" "$r" "$mbit" "$util" \
			"${q50:-nan}" "${q99:-nan}" "$cost" "$acks" >> "$OUT/runs.tsv"
		# the port's counters (marks, drops) over the window, s1's sockets
		{
			echo "$cc r$r port, over the window: $(jq -s -c '.[0][0].counters as $a |
				.[1][0].counters | with_entries(.value -= $a[.key]) |
				with_entries(select(.value > 0))' "$w/m.0.qh" "$w/m.1.qh")"
			grep -E -A1 ":530[12]( |$)" "$w/m.ss" | cut -c 1-400
			# each struct_ops program of ours: calls, ns over the window
			jq -s -r --argjson pre "$pre_ids" '(.[0] | map({key: (.id | tostring),
				value: .}) | from_entries) as $a | .[1][] |
				select(.type == "struct_ops" and (.id as $i | $pre | index($i) | not)) |
				select((.run_cnt // 0) > ($a[.id | tostring].run_cnt // 0)) |
				"  \(.name) calls \((.run_cnt // 0) - ($a[.id | tostring].run_cnt // 0)) ns \((.run_time_ns // 0) - ($a[.id | tostring].run_time_ns // 0))"' \
				"$w/m.0.progs" "$w/m.1.progs"
			echo "  sender ACKs $(($(cat "$w/m.1.segs") - $(cat "$w/m.0.segs")))"
		} >> "$OUT/runs.log"
		extra=
		if [ "$algo" = hpcc_bpf ]; then
			extra=$(for n in flows flows_no_csig samples_u commits fallbacks fallback_acks; do
				a=$(awk -v n="$n" '/^[a-z]/ { c = ($1 == "hpcc_bpf:") } c && $1 == n { print $2 }' <<< "$h0")
				b=$(awk -v n="$n" '/^[a-z]/ { c = ($1 == "hpcc_bpf:") } c && $1 == n { print $2 }' <<< "$h1")
				printf ' %s +%d' "$n" $((${b:-0} - ${a:-0}))
			done)
			echo "r$r hpcc_bpf counters:$extra" >> "$OUT/hpcc_counters.txt"
			# telemetry, not the fallback: flows with CSIG and U
			# samples (the second test is literal)
			# shellcheck disable=SC2076
			[[ $extra =~ " flows +"([0-9]+)" flows_no_csig" ]] &&
				[ "${BASH_REMATCH[1]}" -gt 0 ] && [[ ! $extra =~ " samples_u +0 " ]] ||
				{ echo "native: hpcc_bpf ran without telemetry:$extra" >&2; rc=1; }
		fi
		printf '%-11s r%d %7.1f Mbit/s  util %.3f  queue p50 %s p99 %s us  BPF %s ns/ACK %s calls/ACK%s\n' \
			"$cc" "$r" "$mbit" "$util" "${q50:-?}" "${q99:-?}" ${cost} "$extra"
	done
done
echo
python3 "$PY" report "$OUT/runs.tsv" | tee "$OUT/table.txt"
echo "native: $(($(date +%s) - t_start)) s, exit $rc"
rm -rf "$w"
exit $rc
