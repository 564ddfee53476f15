#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc's probe after idle, on hpcc.sh's dumbbell with the CSIG data
# plane:
#
#   s1 (client, hpcc) --insert--> [sw: bridge, sw-r transit + htb 100M] --> r (server)
#
# A connection sends 2 MB, waits until they are all acknowledged, idles
# for 0.3 s (T is 4 ms: its telemetry is stale), and sends 2 MB more.
# At the restart hpcc holds snd_cwnd at 2 segments until a U sample
# that arrived after it answers, then takes W from the W before the
# pause as HPCC's multiplicative step would on the path it found
# (Documentation/tcp_hpcc.rst, "Probes").
#
# Checks: the transfer completes intact; the restart probed once per
# pause (counter probes; a new connection's first write does not);
# the probe is traced with cwnd 2 and the W before the pause; the
# next update took the answer (source u), with Wc not above that W and
# the window open again.  (That a restart within T of the last sample
# does not probe is the unit tests': under TCG the time from the last
# ACK to the next write is not held below T.)  Then W_init: line rate * T,
# or at most the ssthresh the kernel remembers for the destination (a
# route's, kept by tcp_metrics where net.ipv4.tcp_no_ssthresh_metrics_save
# is 0).
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/cc.sh"

CSIG_KO=$top/build/$(uname -r)/tcp_csig_opt.ko
HPCC_KO=$top/build/$(uname -r)/tcp_hpcc.ko
XFER=$here/../lib/tcpxfer.py
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
T_MS=4
CC_T_MS=$T_MS
PORT=7200
BYTES=2000000

ktap_plan 8
[ -f "$HPCC_KO" ] || { echo "Bail out! run make first"; exit 1; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/tcp_hpcc; }

ktap_run "insmod tcp_csig_opt, tcp_hpcc" sh -c "insmod $CSIG_KO && insmod $HPCC_KO line_rate_mbps=$RATE_MBIT base_rtt_us=$((T_MS * 1000))"
topo_dumbbell 1 pfifo limit 1000 || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
# the expanded tag needs 4 bytes beyond a VLAN tag's room (hpcc.sh)
ip -n "${TOPO}s1" link set s1-eth0 mtu 1496
cc_insert_u s1 || { ktap_fail "setup"; ktap_finished; }
cc_transit sw sw-r ${RATE_MBIT}mbit
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) hpcc"

# xfer SECS: one pause of SECS; sets ans, the server's count, and ev,
# the client's hpcc_update events (its local port: the server's is PORT)
xfer()
{
	local out

	out=$(mktemp)
	ktap_trace tcp_hpcc/hpcc_update 1
	topo_exec r python3 "$XFER" server $PORT 1 > "$out" &
	topo_wait_listen r $PORT
	ans=$(topo_exec s1 python3 "$XFER" pause "$TOPO_RCV_IP" $PORT $BYTES "$1" hpcc)
	wait
	ktap_trace tcp_hpcc/hpcc_update 0
	ev=$(grep -o "hpcc_update: lport=[0-9]* rport=$PORT .*" $KTAP_T/trace)
	rm -f "$out"
}

p0=$(ctr s1 probes) f0=$(ctr s1 flows)
xfer 0.3
p1=$(ctr s1 probes)
first=$(head -n 1 <<< "$ev")
probe=$(grep -m1 'source=probe' <<< "$ev")
# the first update after the probe
after=$(awk '/source=probe/ { p = 1; next } p { print; exit }' <<< "$ev")
field() { sed -n "s/.* $1=\([0-9a-z]*\).*/\1/p" <<< "$2"; }
ktap_diag "answer ${ans:-none}; flows +$(($(ctr s1 flows) - f0)), probes +$((p1 - p0)); $(grep -c . <<< "$ev") updates traced"
ktap_diag "probe: ${probe:-none}"
ktap_diag "then: ${after:-none}"
ktap_expect "the transfer with a pause completes intact" "${ans:-0} == $((2 * BYTES))"
ktap_expect "the restart after 0.3 s probed once, the connection's first write not (counter probes)" \
	"$(ctr s1 flows) - $f0 == 1 && $p1 - $p0 == 1"
ktap_expect "the probe is traced: cwnd 2, W of the pause kept" \
	"$(grep -c . <<< "$probe") == 1 && $(field cwnd "$probe") == 2 && $(field W "$probe") > 3000"
ktap_expect "the next update took the answer: source u, Wc not above the W before the pause" \
	"\"$(field source "$after")\" == \"u\" && $(field Wc "$after") <= $(field W "$probe")"
ktap_expect "... and opened the window again (cwnd above 2)" \
	"$(field cwnd "$after") > 2"

# W_init is at most the ssthresh the kernel remembers for the
# destination: a route's locked ssthresh of 6, which tcp_metrics takes
# into the entry the next connection's close makes, read by the one after
# it where tcp_no_ssthresh_metrics_save is 0
r=$(topo_exec s1 ip route get "$TOPO_RCV_IP" | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)
topo_exec s1 ip route replace "$TOPO_RCV_IP/32" dev "$r" ssthresh lock 6
topo_exec s1 ip tcp_metrics flush all 2> /dev/null
topo_exec s1 sysctl -qw net.ipv4.tcp_no_ssthresh_metrics_save=0
w0=$(ctr s1 w_remembered)
xfer 0
w1=$(ctr s1 w_remembered)
xfer 0
w2=$(ctr s1 w_remembered)
m=$(topo_exec s1 ip tcp_metrics show "$TOPO_RCV_IP" 2> /dev/null)
remembered=$(head -n 1 <<< "$ev")
ktap_diag "first update: ${first:-none}"
ktap_diag "with ssthresh 6 remembered: ${remembered:-none}; tcp_metrics: ${m:-none}"
ktap_diag "w_remembered: $w0, $w1, $w2"
ktap_expect "W_init: line rate * T, 50000 bytes; at most 6 segments where the route's ssthresh 6 is remembered, counted" \
	"$(field Wc "$first") == 50000 && $(field Wc "$remembered") <= 6 * 1500 && $(field Wc "$remembered") >= 2000 && $w1 == $w0 && $w2 == $w1 + 1"

topo_cleanup
trap - EXIT
sleep 1
ktap_run "rmmod tcp_hpcc tcp_csig_opt" rmmod tcp_hpcc tcp_csig_opt
ktap_finished
