#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc_bpf on telemetry from the CSIG host path, on the host kernel: the
# module-free flavour's whole path, end to end, as
# selftests/bench/native.sh runs it, in a short test.  topo.sh's
# dumbbell of network namespaces (s1, s2, a bridge, r) with an htb
# bottleneck of RATE Mbit/s toward r and the CSIG port model on that
# port (csigctl's transit role: C the same rate, T 1 ms, U tags
# updated); csighost on s1, s2 and r, each a namespace and a cgroup,
# with U tags inserted on the senders for the sockets it negotiated;
# dccbpf's hpcc_bpf with that line rate and T.  Two iperf3 flows of
# SECS s with cubic, without the host path, then two with hpcc_bpf, with
# it.  Checks: hpcc_bpf counted its flows as flows with CSIG and none
# without, and U samples and commits; dccbpf show has a U input on a
# sender's socket mid-flow; the flows moved at least MIN of cubic's
# Mbit/s; and the port model's queue p99 (its histogram from 1.5 s
# after the start to 0.5 s before the end, as native.sh reads it) is
# below cubic's on the same port.
#
# selftests/host/dccbpf.t tests the algorithms without the host path
# (hpcc_bpf's fallback, and a CSIG state that a helper writes); in the
# guests, selftests/vm/hpcc_bpf.sh runs hpcc_bpf on the host path
# through the module's scenarios.
# Root, kernel BTF, struct_ops congestion controls, a cgroup v2
# hierarchy, iperf3 and jq are needed; the test skips without them.
# Everything runs in a private mount namespace with a BPF filesystem of
# its own, so the host's pins (/sys/fs/bpf/tcp-dcc) are never touched.
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/selftests/host/$(basename "$0")
. "$top/selftests/lib/ktap.sh"
D=$top/build/bin/dccbpf
C=$top/build/bin/csigctl
PY=$top/selftests/lib/nativerun.py
RATE=${HPCC_CSIG_RATE:-1000}	# Mbit/s
MIN=${HPCC_CSIG_MIN:-0.5}
SECS=${HPCC_CSIG_SECS:-5}
T_US=1000
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control

for x in "$D" "$C" "$top/build/bin/csighost"; do
	[ -x "$x" ] || { echo "Bail out! $x missing (make tools)"; exit 1; }
done
[ "$(id -u)" = 0 ] || ktap_skip_all "needs root"
[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "no kernel BTF (/sys/kernel/btf/vmlinux)"
bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	grep -q "STRUCT 'bpf_struct_ops_tcp_congestion_ops'" ||
	ktap_skip_all "the kernel has no struct_ops congestion controls"
command -v iperf3 > /dev/null && command -v jq > /dev/null ||
	ktap_skip_all "needs iperf3 and jq"
grep -qw hpcc_bpf "$AVAIL" && ktap_skip_all "hpcc_bpf is registered already (by whom?)"
if [ -z "${HPCC_CSIG_PRIVATE:-}" ]; then
	HPCC_CSIG_PRIVATE=1 exec unshare -m --propagation private \
		sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$self"
fi

TOPO=hc$$-
TOPO_DELAY=0
TOPO_RATE=${RATE}mbit
. "$top/selftests/lib/topo.sh"
[ -n "$TOPO_CGROOT" ] || ktap_skip_all "needs a cgroup v2 hierarchy"
tmp=$(mktemp -d)
cleanup()
{
	topo_cleanup	# the host path and the hosts' cgroups too
	"$D" unload > /dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 10

topo_dumbbell 2 pfifo limit 1000 && topo_cgroups s1 s2 r ||
	{ echo "Bail out! no dumbbell"; exit 1; }
trap cleanup EXIT	# topo_dumbbell set its own
ktap_run "the port model on the bottleneck (csigctl transit, C $RATE Mbit/s, T $T_US us, U)" \
	topo_csigctl sw attach sw-r transit --capacity "${RATE}mbit" \
	--t "${T_US}us" --interval 1ms --lm 1 --types u
ktap_run "dccbpf load hpcc (line rate $RATE Mbit/s, T $T_US us, 2 flows)" \
	"$D" load hpcc "hpcc.line_rate_mbps=$RATE" "hpcc.base_rtt_us=$T_US" hpcc.nflows=2

# counters: hpcc_bpf's counters flows, flows_no_csig, samples_u, commits
# and fallbacks in dccbpf show, on one line
counters()
{
	"$D" show | awk '/^[a-z]/ { in_cc = ($1 == "hpcc_bpf:") }
		in_cc && NF == 2 { v[$1] = $2 }
		END { print v["flows"] + 0, v["flows_no_csig"] + 0, v["samples_u"] + 0,
			v["commits"] + 0, v["fallbacks"] + 0 }'
}

# flows CC: two flows of CC, s1 and s2 to r, SECS s, the hosts in their
# cgroups; prints the sum of their received Mbit/s.  Leaves the port
# model's p50, p99 (us) and number of samples over the window in
# $tmp/CC.q, the bottleneck's utilisation over it in $tmp/CC.util,
# dccbpf show -N s1 from the window's start (mid-flow) in $tmp/CC.show
# and iperf3's exit status in $tmp/CC.rc
flows()
{
	local cc=$1 i pids=() rc=0 t0 t1

	for i in 1 2; do
		topo_hx r iperf3 -s -1 -p "530$i" > /dev/null 2>&1 &
	done
	topo_wait_listen r 5301 5302
	for i in 1 2; do
		topo_hx "s$i" iperf3 -c "$TOPO_RCV_IP" -p "530$i" -C "$cc" \
			-t "$SECS" -J > "$tmp/$cc.$i.json" 2> "$tmp/$cc.$i.err" &
		pids+=($!)
	done
	sleep 1.5
	t0=$(topo_tx_stamp)
	topo_csigctl sw --json show sw-r > "$tmp/$cc.q0"
	"$D" show -N "${TOPO}s1" > "$tmp/$cc.show" 2>&1
	sleep "$(awk -v s="$SECS" 'BEGIN { print s - 2 }')"
	t1=$(topo_tx_stamp)
	topo_csigctl sw --json show sw-r > "$tmp/$cc.q1"
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	wait
	echo "$rc" > "$tmp/$cc.rc"
	python3 "$PY" q "$tmp/$cc.q0" "$tmp/$cc.q1" > "$tmp/$cc.q"
	printf '%.3f\n' "$(topo_util "$t0" "$t1" "$RATE")" > "$tmp/$cc.util"
	for i in 1 2; do
		jq '.end.sum_received.bits_per_second // 0' "$tmp/$cc.$i.json" 2> /dev/null ||
			echo 0
	done | awk '{ s += $1 } END { printf "%.1f\n", s / 1e6 }'
}

cubic=$(flows cubic)
read -r c50 c99 cn < "$tmp/cubic.q"
d=$(cat "$tmp"/cubic.*.err 2> /dev/null | head -n 3)
ktap_expect "cubic, no host path: both flows finished, $cubic Mbit/s" \
	"$(cat "$tmp/cubic.rc") == 0 && $cubic > 0.3 * $RATE" ${d:+"$d"}

ktap_run "csighost on s1, s2 and r, U tags inserted on s1 and s2" \
	topo_csighost on s1 s2 r
read -r f0 n0 s0 c0 b0 <<< "$(counters)"
hpcc=$(flows hpcc_bpf)
read -r h50 h99 hn < "$tmp/hpcc_bpf.q"
read -r f1 n1 s1 c1 b1 <<< "$(counters)"
df=$((f1 - f0)) dn=$((n1 - n0)) ds=$((s1 - s0)) dc=$((c1 - c0)) dfb=$((b1 - b0))
d=$(cat "$tmp"/hpcc_bpf.*.err 2> /dev/null | head -n 3)
ktap_expect "hpcc_bpf, with the host path: both flows finished, $hpcc Mbit/s" \
	"$(cat "$tmp/hpcc_bpf.rc") == 0" ${d:+"$d"}
ktap_expect "hpcc_bpf counted its flows with CSIG (flows +$df), none without (flows_no_csig +$dn)" \
	"$df >= 2 && $dn == 0"
ktap_expect "hpcc_bpf took U samples and committed (samples_u +$ds, commits +$dc; fallbacks +$dfb)" \
	"$ds > 1000 && $dc > 100"
n=$(grep -cE "^$(topo_sender_ip 1):[0-9]+ $TOPO_RCV_IP:530[12] input u U [0-9]+\\.[0-9]{3} " \
	"$tmp/hpcc_bpf.show")
ktap_expect "hpcc_bpf: dccbpf show -N s1 has U as the input of the sender's socket mid-flow" \
	"$n >= 1" "$(grep -E -m 1 "^[0-9]" "$tmp/hpcc_bpf.show" | cut -c 1-200)"
ktap_expect "hpcc_bpf: $hpcc Mbit/s, at least $MIN of cubic's $cubic" \
	"$hpcc >= $MIN * $cubic"
ktap_expect "hpcc_bpf: the port model's queue p99 ${h99:-?} us, below cubic's ${c99:-?} us" \
	"${hn:-0} > 0 && ${cn:-0} > 0 && ${h99:-1e9} < ${c99:-0}" \
	"p50 $h50 and $c50 us, $hn and $cn samples; utilisation of $RATE Mbit/s over the window $(cat "$tmp/hpcc_bpf.util") and $(cat "$tmp/cubic.util")"
ktap_diag "the port: $(topo_csigctl sw --json show sw-r | jq -c '.[0].counters | with_entries(select(.value > 0))')"
ktap_diag "the host path: $("$TOPO_CSIGHOST" -n "${TOPO}s1" --json show | jq -c '.counters | with_entries(select(.value > 0))')"
ktap_finished
