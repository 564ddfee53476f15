#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host path's option on a data segment that carries a D-SACK block
# (tools/bpf/csig_host.bpf.c, data_room()): hosts s1 and r of
# selftests/host/csig_host.t's chain, both running the host path, s1's
# segments tagged (so r has samples to reflect), timestamps off.
# selftests/lib/csig_dsack.py has r write, corked, a little less than a
# full segment, then s1 send a copy of data r has: r sets a D-SACK and
# pushes a segment of what TCP's MSS is with the D-SACK block (12 bytes
# less).  The option must not take those 12 bytes again: the segment
# would exceed the MTU, and IP refuse it (DF), to be retransmitted after
# an RTO.  Checks: r sent the D-SACK; IP refused nothing and no frame was
# dropped on the way; the data arrived without waiting for a
# retransmission.  Runs in a private mount namespace with a BPF filesystem of
# its own.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/lib/csig_hostns.sh"

DS=$top/selftests/lib/csig_dsack.py

csig_hostns cd jq python3

ktap_plan 4

topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
topo_cgroups s1 r || { ktap_fail "setup: cgroups"; ktap_finished; }
topo_exec s1 sysctl -qw net.ipv4.tcp_timestamps=0
T=$(mktemp -d)
ktap_run "the host path on s1 and r, s1's segments tagged" sh -c \
	"'$H' -n '${TOPO}s1' attach s1-eth0 --cgroup '$(topo_cgroup s1)' &&
	 '$H' -n '${TOPO}r' attach r-eth0 --cgroup '$(topo_cgroup r)' &&
	 '$C' -n '${TOPO}s1' attach s1-eth0 insert --select mark --mark 0x40000000/0x40000000 --types u"
counters() { "$H" -n "${TOPO}r" show --json | jq .counters; }
# frames dropped on the way from r to s1: r's device, h1's ports, s1's
dropped()
{
	{
		topo_exec r cat /sys/class/net/r-eth0/statistics/tx_dropped
		topo_exec h1 sh -c 'cat /sys/class/net/p*/statistics/*_dropped'
		topo_exec s1 cat /sys/class/net/s1-eth0/statistics/rx_dropped
	} | awk '{ n += $1 } END { print n + 0 }'
}
R0=$(counters)
d0=$(dropped)
k0=$(topo_nstat r TcpExtTCPDSACKOldSent)
f0=$(topo_nstat r IpFragFails)
topo_hx r python3 "$DS" serve 5501 > "$T/serve" 2>&1 &
spid=$!
topo_wait_listen r 5501
topo_hx s1 python3 "$DS" client "$TOPO_RCV_IP" 5501 20000 > "$T/client" 2>&1
wait $spid
R=$(counters)
d1=$(dropped)
k1=$(topo_nstat r TcpExtTCPDSACKOldSent)
f1=$(topo_nstat r IpFragFails)
d() { echo $(($(jq ".$1" <<< "$R") - $(jq ".$1" <<< "$R0"))); }
ktap_diag "client: $(cat "$T/client"); server: $(cat "$T/serve"); r's D-SACKs sent $((k1 - k0)), frames dropped between r and s1 $((d1 - d0)), segments over the MTU refused by r's IP (DF set) $((f1 - f0)); r: $(jq -c --argjson a "$R0" 'with_entries(select(.value != $a[.key]) | .value -= $a[.key])' <<< "$R")"
ktap_expect "r negotiated, recorded s1's tags and sent a D-SACK" \
	"$(d confirmed) == 1 && $(d tags_recorded) >= 1 && $((k1 - k0)) >= 1"
ktap_expect "no segment of r's over the MTU: IP refused none (DF), no frame dropped" \
	"$((f1 - f0)) == 0 && $((d1 - d0)) == 0"
ktap_expect "r's data arrived without a retransmission's wait" \
	"$(jq '.got // 0' "$T/client") >= 1000 && $(jq '.wait_ms // 9999' "$T/client") < 150"
rm -rf "$T"
ktap_finished
