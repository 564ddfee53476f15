#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc_bpf and ldcp_bpf, the BPF congestion controls, on the host kernel:
# dccbpf registers both; a dumbbell of network namespaces (two senders, a
# bridge, a receiver behind an htb bottleneck of DCCBPF_RATE) carries two
# iperf3 flows with cubic, then with each of them, in the same run; each
# must finish, move at least DCCBPF_MIN of cubic's throughput, show its
# name in ss -ti and its state in dccbpf show while it runs, and count
# its flows and ACKs in dccbpf's counters (hpcc_bpf has no CSIG state
# here: its Reno fallback runs; then, with a CSIG state that the helper
# csig_feed writes for its own socket in place of the host path's
# sock_ops program, a flow told U = 0.5 must fill the link and one told
# U = 2.0 must run at a tenth of that or less (W settles where the
# multiplicative decrease and W_ai balance), with samples and commits
# counted; ldcp_bpf, set on the routes as well,
# negotiates ECN with a receiver that runs it too, whose per-segment
# ACKs are counted, but there is no marking queue here);
# unload then leaves neither registered and nothing pinned.  hpcc_bpf on
# the host path's telemetry, end to end, is selftests/host/hpcc_bpf_csig.t.
#
# Root, kernel BTF and struct_ops congestion controls are needed; the
# test skips without them.  Without a BPF filesystem at /sys/fs/bpf it
# mounts one in a private mount namespace of its own.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
D=$top/build/bin/dccbpf
F=$top/build/selftests/csig_feed
RATE=${DCCBPF_RATE:-1000}	# Mbit/s
MIN=${DCCBPF_MIN:-0.5}
SECS=${DCCBPF_SECS:-5}
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control

[ -x "$D" ] || { echo "Bail out! build/bin/dccbpf missing (make tools)"; exit 1; }
[ -x "$F" ] || { echo "Bail out! build/selftests/csig_feed missing (make unit)"; exit 1; }
[ "$(id -u)" = 0 ] || ktap_skip_all "needs root"
[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "no kernel BTF (/sys/kernel/btf/vmlinux)"
bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	grep -q "STRUCT 'bpf_struct_ops_tcp_congestion_ops'" ||
	ktap_skip_all "the kernel has no struct_ops congestion controls"
if [ "$(stat -f -c %T /sys/fs/bpf 2> /dev/null)" != bpf_fs ]; then
	[ -z "${DCCBPF_UNSHARED:-}" ] || ktap_skip_all "cannot mount a BPF filesystem"
	DCCBPF_UNSHARED=1 exec unshare -m --propagation private \
		sh -c 'mount -t bpf none /sys/fs/bpf && exec "$0"' "$0"
fi
for cc in hpcc_bpf ldcp_bpf; do
	grep -qw "$cc" "$AVAIL" && ktap_skip_all "$cc is registered already (by whom?)"
done
command -v iperf3 > /dev/null || ktap_skip_all "no iperf3"
command -v nsenter > /dev/null || ktap_skip_all "no nsenter"

TOPO=dccbpf$$-
TOPO_DELAY=0
TOPO_RATE=${RATE}mbit
. "$top/selftests/lib/topo.sh"
tmp=$(mktemp -d)
# the CSIG state's map is the host path's too: removed only if ours
csig_pin=/sys/fs/bpf/tcp-dcc/csig_sk
had_csig=$([ -e "$csig_pin" ] && echo 1)
cleanup()
{
	topo_cleanup
	"$D" unload > /dev/null 2>&1
	if [ -z "$had_csig" ]; then
		rm -f "$csig_pin"
		rmdir /sys/fs/bpf/tcp-dcc 2> /dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 28

ktap_run "dccbpf load registers both (hpcc.line_rate_mbps=$RATE hpcc.base_rtt_us=1000 ldcp.bw_mbps=$RATE)" \
	"$D" load "hpcc.line_rate_mbps=$RATE" hpcc.base_rtt_us=1000 "ldcp.bw_mbps=$RATE"
for cc in hpcc_bpf ldcp_bpf; do
	ktap_expect "$cc is in tcp_available_congestion_control" \
		"$(grep -cw "$cc" "$AVAIL") == 1" "available: $(cat "$AVAIL")"
done

topo_dumbbell 2 pfifo limit 1000 || { echo "Bail out! no dumbbell"; exit 1; }
trap cleanup EXIT	# topo_dumbbell set its own
# sysctls are per namespace: the receiver accepts ECN (ldcp_bpf asks)
topo_exec r sysctl -qw net.ipv4.tcp_ecn=1

# counter NAME CC: CC's counter NAME in dccbpf show
counter()
{
	"$D" show | awk -v cc="$2:" -v n="$1" '
		/^[a-z]/ { in_cc = ($1 == cc) } in_cc && $1 == n { print $2 }'
}

# flows CC: two flows of CC, s1 and s2 to r, SECS s; prints the sum of
# their received Mbit/s, and leaves ss -ti of s1 and s2 from mid-flow in
# $tmp/CC.ss and iperf3's exit status in $tmp/CC.rc
flows()
{
	local cc=$1 i pids=() rc=0

	for i in 1 2; do
		topo_exec r iperf3 -s -1 -p "530$i" > /dev/null 2>&1 &
	done
	topo_wait_listen r 5301 5302
	for i in 1 2; do
		topo_exec "s$i" iperf3 -c "$TOPO_RCV_IP" -p "530$i" -C "$cc" \
			-t "$SECS" -J > "$tmp/$cc.$i.json" 2> "$tmp/$cc.$i.err" &
		pids+=($!)
	done
	sleep 2
	for i in 1 2; do
		ss -N "${TOPO}s$i" -tni
	done > "$tmp/$cc.ss"
	"$D" show -N "${TOPO}s1" > "$tmp/$cc.show" 2>&1
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	echo "$rc" > "$tmp/$cc.rc"
	for i in 1 2; do
		jq '.end.sum_received.bits_per_second // 0' "$tmp/$cc.$i.json" 2> /dev/null ||
			echo 0
	done | awk '{ s += $1 } END { printf "%.1f\n", s / 1e6 }'
}

# feed U_MILLI: a flow of csig_feed from s1 to r for 3 s, with
# hpcc_bpf and a CSIG state of U = U_MILLI / 1000 that csig_feed writes
# itself in place of the host path; prints its Mbit/s, leaves dccbpf
# show -N s1 from mid-flow in $tmp/feed.U_MILLI.show.  nsenter, not ip
# netns exec, which would hide /sys/fs/bpf and csig_sk's pin.
feed()
{
	local p

	nsenter --net="/run/netns/${TOPO}r" "$F" -l 5400 &
	sleep 0.3
	nsenter --net="/run/netns/${TOPO}s1" "$F" "$TOPO_RCV_IP" 5400 3 "$1" \
		> "$tmp/feed.$1" 2>&1 &
	p=$!
	sleep 1.5
	"$D" show -N "${TOPO}s1" > "$tmp/feed.$1.show" 2>&1
	wait "$p"
	wait
	tail -n 1 "$tmp/feed.$1"
}

h0=$(counter flows_no_csig hpcc_bpf)
l0=$(counter flows ldcp_bpf)
cubic=$(flows cubic)
d=$(cat "$tmp"/cubic.*.err 2> /dev/null | head -n 3)
ktap_expect "cubic: both flows finished, $cubic Mbit/s in all" \
	"$(cat "$tmp/cubic.rc") == 0 && $cubic > 0.3 * $RATE" ${d:+"$d"}
for cc in hpcc_bpf ldcp_bpf; do
	# ldcp_bpf needs ECN, negotiated in the handshake: iperf3 sets its
	# -C after connect(), too late for the SYN, so the senders' routes
	# to r carry it (as "ip route ... congctl dctcp" does for dctcp); and
	# LDCP's receiver is ldcp too (its echo of CE, section 2.2), which
	# also makes r accept ECN on the ECT SYN a stock listener refuses
	if [ "$cc" = ldcp_bpf ]; then
		for i in 1 2; do
			topo_exec "s$i" ip route replace 198.18.0.0/24 dev "s$i-eth0" \
				proto kernel scope link src "$(topo_sender_ip "$i")" \
				congctl ldcp_bpf
		done
		topo_exec r ip route replace 198.18.0.0/24 dev r-eth0 \
			proto kernel scope link src "$TOPO_RCV_IP" congctl ldcp_bpf
	fi
	t=$(flows "$cc")
	d=$(cat "$tmp/$cc".*.err 2> /dev/null | head -n 3)
	ktap_expect "$cc: both flows finished" "$(cat "$tmp/$cc.rc") == 0" ${d:+"$d"}
	ktap_expect "$cc: $t Mbit/s, at least $MIN of cubic's $cubic" \
		"$t >= $MIN * $cubic"
	n=$(grep -cw "$cc" "$tmp/$cc.ss")
	ktap_expect "$cc: ss -ti shows it on both flows mid-flow" "$n >= 2" \
		"$(grep -w -m 1 "$cc" "$tmp/$cc.ss" | cut -c 1-200)"
	# the socket iterator's line: endpoints, then the algorithm's state
	case $cc in
	hpcc_bpf) want="^$(topo_sender_ip 1):[0-9]+ $TOPO_RCV_IP:530[12] input none U 0.000 W 0 ";;
	ldcp_bpf) want="^$(topo_sender_ip 1):[0-9]+ $TOPO_RCV_IP:530[12] phase stable cw [0-9]+\\.[0-9]{3} iw ";;
	esac
	n=$(grep -cE "$want" "$tmp/$cc.show")
	ktap_expect "$cc: dccbpf show -N lists the sender's socket with its state" \
		"$n >= 1" "$(grep -E -m 1 "^[0-9]" "$tmp/$cc.show" | cut -c 1-200)"
	n=$(jq -r '.end.sender_tcp_congestion // ""' "$tmp/$cc.1.json")
	ktap_expect "$cc: iperf3 read it back from the socket ('$n')" \
		"\"$n\" == \"$cc\""
	[ "$cc" = hpcc_bpf ] || continue
	h1=$(counter flows_no_csig hpcc_bpf)
	ha=$(counter fallback_acks hpcc_bpf)
	hf=$(counter flows hpcc_bpf)
	# hpcc_bpf with telemetry, before the routes carry ldcp_bpf
	hs0=$(counter samples_u hpcc_bpf)
	hc0=$(counter commits hpcc_bpf)
	lo=$(feed 500)
	hi=$(feed 2000)
	hn=$(counter flows hpcc_bpf)
	hs=$(counter samples_u hpcc_bpf)
	hc=$(counter commits hpcc_bpf)
done
l1=$(counter flows ldcp_bpf)
la=$(counter acks ldcp_bpf)
le=$(counter flows_no_ecn ldcp_bpf)
ln=$(counter acks_now ldcp_bpf)
ktap_expect "hpcc_bpf counted its 2 flows without CSIG state (flows_no_csig $h0 -> $h1)" \
	"${h1:-0} - ${h0:-0} >= 2 && ${hf:--1} == 0"
ktap_expect "hpcc_bpf's Reno fallback took the ACKs (fallback_acks $ha)" "${ha:-0} > 100"
d=$(grep -v '^[0-9.]*$' "$tmp/feed.500" | head -n 3)
ktap_expect "hpcc_bpf, U = 0.5 from its CSIG state: $lo Mbit/s, at least 0.3 of the link" \
	"${lo:-0} >= 0.3 * $RATE" ${d:+"$d"}
d=$(grep -v '^[0-9.]*$' "$tmp/feed.2000" | head -n 3)
ktap_expect "hpcc_bpf, U = 2.0: $hi Mbit/s, under 0.1 of U = 0.5's (W = W_ai / (1 - eta / U))" \
	"${hi:-0} > 0 && ${hi:-0} < 0.1 * ${lo:-0}" ${d:+"$d"}
for u in 500:0.500 2000:2.000; do
	n=$(grep -cE "^$(topo_sender_ip 1):[0-9]+ $TOPO_RCV_IP:5400 input u U ${u#*:} " \
		"$tmp/feed.${u%:*}.show")
	ktap_expect "hpcc_bpf, U = ${u#*:}: dccbpf show has it as its input mid-flow" \
		"$n == 1" "$(grep -E -m 1 "^[0-9]" "$tmp/feed.${u%:*}.show" | cut -c 1-200)"
done
ktap_expect "hpcc_bpf counted 2 flows with CSIG, their U samples and commits (flows $hf -> $hn, samples_u $hs0 -> $hs, commits $hc0 -> $hc)" \
	"${hn:-0} - ${hf:-0} == 2 && ${hs:-0} - ${hs0:-0} > 1000 && ${hc:-0} - ${hc0:-0} > 100"
ktap_expect "ldcp_bpf counted its 2 flows (flows $l0 -> $l1), ECN on both (flows_no_ecn $le)" \
	"${l1:-0} - ${l0:-0} >= 2 && ${le:--1} == 0"
ktap_expect "ldcp_bpf's PAWA took the ACKs (acks $la)" "${la:-0} > 100"
ktap_expect "ldcp_bpf's receiver ACKed ECN-capable segments at once (acks_now $ln)" \
	"${ln:-0} > 100"
"$D" show > "$tmp/show" 2>&1
ktap_diag "$(awk '/^[a-z]/ { printf "%s ", $1 } /^  / { printf "%s=%s ", $1, $2 }' "$tmp/show")"

ktap_run "dccbpf unload" "$D" unload
for cc in hpcc_bpf ldcp_bpf; do
	ktap_expect "$cc: not registered after unload" \
		"$(grep -cw "$cc" "$AVAIL") == 0" "available: $(cat "$AVAIL")"
done
ktap_expect "nothing of theirs left pinned in /sys/fs/bpf/tcp-dcc" \
	"$(ls /sys/fs/bpf/tcp-dcc 2> /dev/null | grep -c -e _bpf)== 0" \
	"left: $(ls /sys/fs/bpf/tcp-dcc 2> /dev/null | tr '\n' ' ')"
ktap_finished
