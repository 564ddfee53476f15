#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc on a passive socket whose CSIG negotiation shows up after the
# socket started, on hpcc.sh's dumbbell with the CSIG data plane:
#
#   s1 (server, hpcc) --insert--> [sw: bridge, sw-r transit + htb 100M] --> r (client)
#
# tcp_csig_opt's passive end keeps a flow only once the active opener's
# confirmation (the option on its first segments after the handshake)
# arrives on a segment TCP accepts.  Here s1's input drops r's third ACK
# of the handshake, which carries it; r's first data segment, full-sized
# and without room for the option, then creates s1's socket, and hpcc
# starts before the module knows the flow negotiated (Reno, counted in
# flows_no_csig).  The confirmation comes on r's next segments.
#
# Checks: the transfer completes intact; the drop made the late
# negotiation (one ACK dropped, the socket started without CSIG, the
# module's passive flow confirmed after); hpcc finds it, counts it
# (flows_late_csig) and traces it (hpcc_late_csig); mid-flow the sender
# is negotiated and on U (ccstat), took U samples and came off Reno's
# window (resumes).
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"
. "$here/../lib/cc.sh"

CSIG_KO=$top/build/$(uname -r)/tcp_csig_opt.ko
HPCC_KO=$top/build/$(uname -r)/tcp_hpcc.ko
CCSTAT=$top/build/bin/ccstat
RATE_MBIT=100
TOPO_RATE=${RATE_MBIT}mbit
T_MS=4
CC_T_MS=$T_MS
PORT=7100

ktap_plan 7
[ -f "$HPCC_KO" ] && [ -x "$CCSTAT" ] || { echo "Bail out! run make first"; exit 1; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/tcp_hpcc; }
cctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/csig_opt; }

ktap_run "insmod tcp_csig_opt, tcp_hpcc" sh -c "insmod $CSIG_KO && insmod $HPCC_KO line_rate_mbps=$RATE_MBIT base_rtt_us=$((T_MS * 1000))"
modprobe -q tcp_diag
topo_dumbbell 1 pfifo limit 1000 || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
# the expanded tag needs 4 bytes beyond a VLAN tag's room (hpcc.sh)
ip -n "${TOPO}s1" link set s1-eth0 mtu 1496
cc_insert_u s1 || { ktap_fail "setup"; ktap_finished; }
cc_transit sw sw-r ${RATE_MBIT}mbit
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_allowed_congestion_control) hpcc"
# s1's input: r's first pure ACK to the server's port, the third of the
# handshake, is dropped (ahead of tcp_csig_opt's LOCAL_IN hook, which
# comes last)
topo_exec s1 nft -f - <<EOF
table ip late {
	chain i {
		type filter hook input priority 0; policy accept;
		ip saddr $TOPO_RCV_IP tcp dport $PORT tcp flags & (syn | ack | fin | rst) == ack ip length < 100 numgen inc mod 1000000 == 0 counter drop
	}
}
EOF

f0=$(ctr s1 flows) n0=$(ctr s1 flows_no_csig) lt0=$(ctr s1 flows_late_csig)
s0=$(ctr s1 samples_u) rs0=$(ctr s1 resumes) cf0=$(cctr s1 confirmed)
out=$(mktemp) st=$(mktemp)
ktap_trace tcp_hpcc/hpcc_late_csig 1
topo_exec s1 python3 "$here/../lib/reqresp.py" server hpcc $PORT 20000 4 > "$out" &
ps=$!
topo_wait_listen s1 $PORT
topo_exec r python3 "$here/../lib/reqresp.py" client "$(topo_sender_ip 1)" $PORT 20000 > "$out.c" &
pc=$!
# the sender's state after 2 s of its 4
sleep 2.5
topo_exec s1 "$CCSTAT" --json hpcc > "$st"
wait $ps
rcs=$?
wait $pc
rcc=$?
ktap_trace tcp_hpcc/hpcc_late_csig 0
ev=$(grep -o "hpcc_late_csig: lport=$PORT .*" $KTAP_T/trace)
dr=$(topo_exec s1 nft list chain ip late i | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
topo_exec s1 nft delete table ip late
ktap_diag "server: $(cat "$out"); client: $(cat "$out.c"); r's pure ACKs dropped at s1: $dr"
ktap_diag "s1: hpcc flows +$(($(ctr s1 flows) - f0)), flows_no_csig +$(($(ctr s1 flows_no_csig) - n0)), flows_late_csig +$(($(ctr s1 flows_late_csig) - ${lt0:-0})), U samples +$(($(ctr s1 samples_u) - s0)), resumes +$(($(ctr s1 resumes) - rs0)); csig_opt confirmed +$(($(cctr s1 confirmed) - cf0))"
ktap_diag "s1 mid-flow: $(cat "$st")"
ktap_diag "tracepoint: ${ev:-none}"
sent=$(awk '{ print $4 }' "$out") got=$(awk '{ print $2 }' "$out.c")
ktap_expect "the transfer completes intact" \
	"$rcs == 0 && $rcc == 0 && ${sent:-0} > 1000000 && ${got:-0} == ${sent:-0} && $(grep -c '^req 20000 ' "$out") == 1"
ktap_expect "r's third ACK dropped: s1's hpcc socket started without CSIG, the module's passive flow confirmed after" \
	"${dr:-0} == 1 && $(ctr s1 flows_no_csig) - $n0 == 1 && $(ctr s1 flows) == $f0 && $(cctr s1 confirmed) - $cf0 == 1"
ktap_expect "hpcc found the negotiation late, counted (flows_late_csig) and traced (hpcc_late_csig) once" \
	"$(ctr s1 flows_late_csig) - ${lt0:-0} == 1 && $(grep -c . <<< "$ev") == 1 && $(grep -c ' looks=[1-9]' <<< "$ev") == 1"
ktap_expect "mid-flow the passive sender is negotiated and on U (ccstat)" \
	"$(jq '[.[] | select(.negotiated and .source == "u" and .sampled)] | length' "$st") == 1"
ktap_expect "... it took U samples and came off Reno's window (resumes)" \
	"$(ctr s1 samples_u) - $s0 > 100 && $(ctr s1 resumes) - $rs0 >= 1"

topo_cleanup
trap - EXIT
sleep 1
ktap_run "rmmod tcp_hpcc tcp_csig_opt" rmmod tcp_hpcc tcp_csig_opt
ktap_finished
