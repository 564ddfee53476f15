#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_csig_opt end to end: a sender, one CSIG switch hop (the data plane's
# transit role on a 100 Mbit/s port) and a receiver.
#
#   s1 --insert (mark rule)--> [h1 transit, 100M] --> r (tcp_csig_opt strips)
#
# The module negotiates in the handshake, marks the negotiated flow's data
# so the insertion role tags it, takes the tags out at the receiver,
# reflects them on ACKs and keeps them at the sender, where they must be
# one of the values h1's own model wrote (h1's decision trace).  Then:
# the negotiation matrix (the module's offer and accept_offers switches
# make each end behave as a host without it), IPv6, options on the data
# of a connection with data both ways, GRO on and off at the
# receiver, and 20 unload/load cycles under traffic.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"

CSIGCTL=$top/build/bin/csigctl
INJ=$top/selftests/lib/csig_inject.py
BIDIR=$top/selftests/lib/bidir.py
KO=$top/build/$(uname -r)/tcp_csig_opt.ko
PROBE=$top/build/$(uname -r)/kmod/csig_probe.ko
P=/sys/module/tcp_csig_opt/parameters

ktap_plan 34
[ -f "$KO" ] && [ -x "$CSIGCTL" ] || { echo "Bail out! run make first"; exit 1; }
sx() { topo_csigctl "$@"; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/csig_opt; }
flows() { topo_exec "$1" cat /proc/net/csig_opt_flows; }

# packet sockets and ping may ask for timestamps, which flips
# netstamp_needed_key: hold it on from before any traffic to after the last
# (topo.sh)
topo_hold_netstamp

ktap_run "insmod tcp_csig_opt" insmod "$KO"
topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
trap 'topo_cleanup' EXIT
ktap_expect "its counters are in every namespace" \
	"$(topo_exec r cat /proc/net/csig_opt | wc -l) >= 19"
sx h1 attach p1 transit --capacity 100mbit --t 1ms --interval 20ms --lm 1 --trace on > /dev/null
topo_shape h1 p1 100mbit
MARK=$(topo_csig_mark)
sx s1 attach s1-eth0 insert --select mark --mark "$MARK/$MARK" --types u > /dev/null

flow()	# flow [IPERF ARGS...]: a 3 s flow s1 -> r; returns iperf3's status
{
	topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
	topo_wait_listen r 5201
	topo_exec s1 iperf3 -c "${DST:-$TOPO_RCV_IP}" -t "${SECS:-3}" "$@" > /dev/null 2>&1
}

# both ends: negotiated, tagged, reflected; its tracepoints on meanwhile
T=$KTAP_T
ktap_trace tcp_csig_opt 1
flow
ktap_trace tcp_csig_opt 0
ev=$(grep -oE 'csig_opt_(tag|option|negotiation):' $T/trace 2> /dev/null | sort | uniq -c | tr '\n' ' ')
ktap_diag "tracepoints: $ev"
ktap_expect "tracepoints report tags, options and the handshake" \
	"$(grep -c 'csig_opt_tag:.*recorded=1' $T/trace) > 0 && $(grep -c 'csig_opt_option:.* parsed ' $T/trace) > 0 && $(grep -c 'csig_opt_negotiation:.* negotiated' $T/trace) > 0"
# the receiver's "sent" events, on the data connection (the port with
# the most): r sends no data, so seq stays put (but for its FIN) and
# ack only grows.  The
# header is read after append_opt() moved it; read through the pointer
# from before, the event showed the bytes "len" further on (window and
# checksum)
read -r ns nseq span back <<< "$(awk '/csig_opt_option:.* sent / && / lport=5201 / {
		match($0, / rport=[0-9]+/); r = substr($0, RSTART + 7, RLENGTH - 7)
		match($0, / seq=[0-9]+/); q = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, / ack=[0-9]+/); a = substr($0, RSTART + 5, RLENGTH - 5)
		n[r]++; if (!((r, q) in sq)) { sq[r, q] = 1; nq[r]++ }
		if (n[r] == 1) a0[r] = a
		else { d = (a - last[r] + 4294967296) % 4294967296
			if (d >= 2147483648) bk[r]++ }
		last[r] = a
	}
	END { for (r in n) if (n[r] > n[m] + 0) m = r
		if (m == "") print 0, 0, 0, 0
		else print n[m], nq[m], (last[m] - a0[m] + 4294967296) % 4294967296, bk[m] + 0 }' $T/trace)"
ktap_diag "r's options on the data connection: $ns events, $nseq distinct seq, ack advanced $span bytes, went back $back times"
ktap_expect "the option tracepoint reports the segment's own seq and ack" \
	"$ns >= 20 && $nseq <= 2 && $span > 1000000 && $back == 0"
ktap_diag "s1: $(topo_exec s1 cat /proc/net/csig_opt | awk '$2 > 0' | tr '\n' ' ')"
ktap_diag "r:  $(topo_exec r cat /proc/net/csig_opt | awk '$2 > 0' | tr '\n' ' ')"
ktap_expect "both ends: the SYN offered, the SYN-ACK accepted" \
	"$(ctr s1 syn_offered) >= 1 && $(ctr r syn_offer_rcvd) >= 1 && $(ctr r synack_accepted) >= 1 && $(ctr s1 negotiated) >= 1"
ktap_expect "both ends: the sender marked the flow's data, the insertion role tagged it" \
	"$(ctr s1 marked) > 0 && $(sx s1 --json show s1-eth0 | jq '.[0].counters.inserted') > 0"
# a tag on a segment TCP would not take is taken out but not recorded: a
# spurious retransmission under TCG's stalls (below the window), at most
# one per connection at its edges; and a tag of a connection that is gone
# (data still in flight when iperf3's server closes it and resets it),
# counted apart: with the socket gone (no socket), or with the reset that
# ended the flow's entry too (unnegotiated)
ktap_diag "r: tags $(ctr r tags), recorded $(ctr r tags_recorded), out of window $(ctr r tags_out_of_window), no socket $(ctr r tags_no_socket), after the flow's end $(ctr r tags_unnegotiated); s1 retransmitted $(topo_nstat s1 TcpRetransSegs) in $(ctr s1 negotiated) connections"
ktap_expect "both ends: the receiver took every tag out and recorded it, but on retransmissions and closed connections" \
	"$(ctr r tags) > 0 && $(ctr r tags_removed) == $(ctr r tags) && $(ctr r tags_recorded) + $(ctr r tags_out_of_window) + $(ctr r tags_no_socket) + $(ctr r tags_unnegotiated) == $(ctr r tags) && $(ctr r tags_out_of_window) <= $(topo_nstat s1 TcpRetransSegs) + $(ctr s1 negotiated) && $(ctr r tags_recorded) >= 0.9 * $(ctr r tags) && $(ctr r tags_malformed) == 0"
ktap_expect "both ends: the receiver reflected, the sender parsed, nothing malformed or out of window" \
	"$(ctr r opts_sent) > 0 && $(ctr s1 opts_parsed) > 0 && $(ctr s1 opts_malformed) == 0 && $(ctr s1 opts_out_of_window) == 0"

# the sender's sample is a value h1 wrote: read both during a flow, the
# data connection's entry (the one with the most samples parsed)
SECS=6 flow &
fl=$!
topo_wait_est s1 "dport = :5201" 2
sleep 1
# U is a snapshot per rate window (20 ms here), so the sample must be
# read just before the trace (128 decisions, about 100 ms): the sample
# first, then the trace; up to 5 tries, each a fresh pair
for try in 1 2 3 4 5; do
	# the freshest U sample of any flow: 7/format/S/LM/age_us
	line=$(flows s1 | grep -o ' 7/[0-9]*/[0-9]*/[0-9]*/[0-9]*' | sort -t/ -k5 -n | head -1)
	trace=$(sx h1 --json show p1)
	sample=${line# }
	s=$(echo "$sample" | cut -d/ -f3)
	lm=$(echo "$sample" | cut -d/ -f4)
	seen=$(echo "$trace" | jq --argjson s "${s:--1}" '[.[0].trace[] | select(.[1] == 7 and .[5] == $s)] | length')
	[ "${seen:-0}" -gt 0 ] && break
done
wait $fl
ktap_diag "s1's freshest U sample mid-flow (type/format/S/LM/age us): ${sample:-none}; h1 wrote that S $seen times in its last 128 decisions (try $try)"
ktap_expect "end to end: the sender's U sample carries h1's locator" "${lm:--1} == 1"
ktap_expect "end to end: ... and a value h1's model wrote" "${seen:-0} > 0"

# a congestion control module reading the samples through the API
# (selftests/kmod/csig_probe.c, Reno plus csig_opt_read() on every ACK)
PP=/sys/module/csig_probe/parameters
ktap_run "insmod csig_probe (a consumer of the API)" insmod "$PROBE"
flow -C csig_probe
rc=$?
ktap_diag "csig_probe: $(cd $PP 2> /dev/null && grep . * | tr '\n' ' ')"
ktap_expect "a CC module reads U samples on its ACKs through the API" \
	"$rc == 0 && $(cat $PP/negotiated) >= 1 && $(cat $PP/reads_ok) > 100"
ktap_expect "... with h1's locator, at most 100 ms old" \
	"$(cat $PP/last_lm) == 1 && $(cat $PP/last_age_us) < 100000"
rmmod csig_probe

# bad input (csig_inject.py, from the switch): malformed tags toward the receiver,
# malformed options and a forged out-of-window one toward the sender
rmac=$(topo_exec r cat /sys/class/net/r-eth0/address)
smac=$(topo_exec s1 cat /sys/class/net/s1-eth0/address)
m0=$(ctr r tags_malformed)
u0=$(ctr r tags_unnegotiated)
ip netns exec "${TOPO}h1" /usr/bin/python3 "$INJ" tags p1 "$rmac" \
	"$(topo_sender_ip 1)" "$TOPO_RCV_IP"
ktap_expect "4 malformed tags (truncated, nested, runt): dropped, counted" \
	"$(ctr r tags_malformed) - $m0 == 4"
ktap_expect "a tag on a segment of no negotiated flow: removed, counted" \
	"$(ctr r tags_unnegotiated) - $u0 == 1"
# a flow that outlives the injection, stopped afterwards
SECS=60 flow --fq-rate 10M &
fl=$!
for k in $(seq 40); do
	# the live data connection: a U sample younger than 200 ms, the
	# freshest
	sport=$(flows s1 | awk '/negotiated/ && $2 ~ /:5201$/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^7\//) {
			split($i, v, "/"); split($1, a, ":")
			if (v[5] + 0 < 200000 && (best == "" || v[5] + 0 < best)) {
				best = v[5] + 0; port = a[2]
			}
		} } END { print port }')
	[ -n "$sport" ] && break
	sleep 0.2
done
mal0=$(ctr s1 opts_malformed)
rej0=$(ctr s1 opts_out_of_window)
ip netns exec "${TOPO}h1" /usr/bin/python3 "$INJ" opts p0 "$smac" \
	"$TOPO_RCV_IP" "$(topo_sender_ip 1)" 5201 "${sport:-1}"
sleep 0.5
ktap_diag "s1 after the injection: $(topo_exec s1 cat /proc/net/csig_opt | awk '$2 > 0' | tr '\n' ' ')"
ktap_diag "forged toward s1 port ${sport:-none}: malformed +$(($(ctr s1 opts_malformed) - mal0)), out of window +$(($(ctr s1 opts_out_of_window) - rej0))"
ktap_expect "4 malformed options: ignored, counted" \
	"$(ctr s1 opts_malformed) - $mal0 == 4"
ktap_expect "a valid option on an out-of-window segment: rejected, its sample never kept" \
	"$(ctr s1 opts_out_of_window) - $rej0 == 1 && $(flows s1 | grep -c ' 5/0/31/99/') == 0"
topo_exec s1 pkill iperf3
wait $fl
topo_exec r pkill iperf3
sleep 0.5

# the matrix: a sender that does not offer, a receiver that does not accept
for c in "offer=0 accept_offers=1" "offer=1 accept_offers=0" "offer=0 accept_offers=0"; do
	for kv in $c; do echo "${kv#*=}" > "$P/${kv%%=*}"; done
	m0=$(ctr s1 marked)
	t0=$(ctr r tags)
	o0=$(ctr r opts_sent)
	d0=$(ctr s1 peer_declined)
	flow
	rc=$?
	ktap_expect "$c: ordinary TCP (completes, no marks, no tags, no options)" \
		"$rc == 0 && $(ctr s1 marked) == $m0 && $(ctr r tags) == $t0 && $(ctr r opts_sent) == $o0"
	if [ "$c" = "offer=1 accept_offers=0" ]; then
		ktap_expect "$c: the sender counts the refusal" "$(ctr s1 peer_declined) > $d0"
	fi
done
echo 1 > $P/offer
echo 1 > $P/accept_offers

# tags on flows that did not negotiate: removed, counted, still delivered;
# mixed on one interface with a negotiated flow's
echo 0 > $P/offer
sx s1 set s1-eth0 --select all
topo_exec r iperf3 -s -D -1 -p 5202 > /dev/null 2>&1
u0=$(ctr r tags_unnegotiated)
g0=$(ctr r tags_recorded)
topo_wait_listen r 5202
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -p 5202 -t 3 > /dev/null 2>&1 &
plain=$!
# offer again only once both of its connections (control, data) are up,
# their SYNs sent without the offer: iperf3 may take longer than a fixed
# wait to start under TCG
topo_wait_est s1 "dport = :5202" 2
echo 1 > $P/offer
flow
rc=$?
wait $plain
prc=$?
sx s1 set s1-eth0 --select mark
ktap_diag "mixed: unnegotiated tags +$(($(ctr r tags_unnegotiated) - u0)), negotiated +$(($(ctr r tags_recorded) - g0))"
ktap_expect "mixed flows: both complete, tags of the unnegotiated one removed and counted" \
	"$rc == 0 && $prc == 0 && $(ctr r tags_unnegotiated) - $u0 > 100 && $(ctr r tags_recorded) - $g0 > 100"

# IPv6 (the flow table read during the flow: entries go at the close)
p0=$(ctr s1 opts_parsed)
DST=$TOPO_RCV_IP6 flow &
fl=$!
v6=0
while kill -0 $fl 2> /dev/null; do
	v6=$(flows s1 | grep -c '^\[2001:db8::11\].* negotiated')
	[ "$v6" -ge 1 ] && break
	sleep 0.1
done
wait $fl
rc=$?
ktap_expect "IPv6: negotiated, reflected and parsed" "$rc == 0 && $(ctr s1 opts_parsed) > $p0"
ktap_expect "IPv6: the flow table has the v6 flow negotiated" "$v6 >= 1"

# data both ways: the receiver's small data segments carry the option, its
# full-sized ones do not; r's checksum offload is off so that s1 verifies
# every checksum the module rewrote
topo_exec r ethtool -K r-eth0 tx off > /dev/null 2>&1
d0=$(ctr r opts_sent_data)
n0=$(ctr r opts_data_no_fit)
p0=$(ctr s1 opts_parsed)
o0=$(ctr s1 opts_out_of_window)
q0=$(ctr s1 oow_seq)
m0=$(ctr s1 opts_malformed)
x0=$(topo_nstat r TcpRetransSegs)
w0=$(topo_nstat r TcpExtTCPWinProbe)
topo_exec r timeout 30 /usr/bin/python3 "$BIDIR" server 5203 3 > /tmp/bidir.srv 2>&1 &
bs=$!
topo_wait_listen r 5203
cli=$(topo_exec s1 timeout 30 /usr/bin/python3 "$BIDIR" client "$TOPO_RCV_IP" 5203 2>&1)
wait $bs
srv=$(cat /tmp/bidir.srv)
topo_exec r ethtool -K r-eth0 tx on > /dev/null 2>&1
same=0
[ "$(echo "$srv" | wc -w)" = 2 ] && [ "$srv" = "$cli" ] && same=1
ktap_diag "bidir: r sent '$srv', s1 got '$cli'; r options on data +$(($(ctr r opts_sent_data) - d0)), data without room +$(($(ctr r opts_data_no_fit) - n0))"
ktap_expect "data both ways: every byte the receiver sent arrived intact" \
	"$same == 1"
ktap_expect "... its small data segments carried the option, its full ones did not" \
	"$(ctr r opts_sent_data) - $d0 > 50 && $(ctr r opts_data_no_fit) - $n0 > 0"
# a segment r sends again that s1 already has (a spurious retransmission
# under TCG's stalls) carries its option below s1's window, and is counted
# so: at most one per retransmission, and only by its sequence number
# ... or a zero-window probe (sent below the window by design) when the
# client's buffer fills under TCG, or a segment at the edge of the
# moving window, which the module reads without the socket's lock
# (Documentation/tcp_csig_opt.rst): one, or 1% of the options parsed,
# more (a CI run saw two); a window test that were
# wrong would reject far more
oow=$(($(ctr s1 opts_out_of_window) - o0)) oseq=$(($(ctr s1 oow_seq) - q0))
rtx=$(($(topo_nstat r TcpRetransSegs) - x0))
wp=$(($(topo_nstat r TcpExtTCPWinProbe) - w0))
np=$(($(ctr s1 opts_parsed) - p0))
ktap_diag "bidir: s1 parsed $np options, out of window +$oow (sequence +$oseq), r retransmitted $rtx, sent $wp window probes"
ktap_expect "... and the sender parsed them, nothing malformed, out of window only if retransmitted, a probe, or at a moving edge" \
	"$np > 0 && $oow <= $rtx + $wp + 1 + $np / 100 && $oseq == $oow && $(ctr s1 opts_malformed) == $m0"

# TSO off at the sender: every segment tagged on its own
topo_exec s1 ethtool -K s1-eth0 tso off gso off > /dev/null 2>&1
r0=$(ctr r tags_recorded)
p0=$(ctr s1 opts_parsed)
flow
rc=$?
topo_exec s1 ethtool -K s1-eth0 tso on gso on > /dev/null 2>&1
ktap_expect "TSO off at the sender: tags recorded, options parsed" \
	"$rc == 0 && $(ctr r tags_recorded) - $r0 > 1000 && $(ctr s1 opts_parsed) > $p0"

# GRO at the receiver, off and on
for g in off on; do
	topo_exec r ethtool -K r-eth0 gro $g > /dev/null 2>&1
	r0=$(ctr r tags_recorded)
	p0=$(ctr s1 opts_parsed)
	flow
	rc=$?
	ktap_expect "GRO $g at the receiver: tags recorded, options parsed" \
		"$rc == 0 && $(ctr r tags_recorded) > $r0 && $(ctr s1 opts_parsed) > $p0"
done

# 20 unload/load cycles under traffic: the flow survives, nothing leaks.
# The module's netfilter hooks turn the global nf_hooks_needed static keys
# on and off; under TCG, flipping a static key while another vCPU runs
# the patched code can leave it a stale int3 (a CI run of the suite
# locked up both vCPUs here).  A no-op nftables table's hooks keep the
# keys on, so that only the module comes and goes.
nft -f - <<'NFT'
table inet csig_hold {
	chain in { type filter hook input priority 0; policy accept; }
	chain out { type filter hook output priority 0; policy accept; }
}
NFT
topo_exec r iperf3 -s -D -1 > /dev/null 2>&1
topo_wait_listen r 5201
topo_exec s1 iperf3 -c "$TOPO_RCV_IP" -t 12 > /dev/null 2>&1 &
f=$!
ok=0
for i in $(seq 20); do
	sleep 0.2
	rmmod tcp_csig_opt && insmod "$KO" && ok=$((ok + 1))
done
wait $f
rc=$?
nft delete table inet csig_hold
ktap_expect "20 unload/load cycles under traffic" "$ok == 20"
ktap_expect "... and the flow completed" "$rc == 0"
ktap_run "rmmod at the end" rmmod tcp_csig_opt
ktap_expect "no module left holding the flows" "$(grep -c '^tcp_csig_opt ' /proc/modules) == 0"
ktap_finished
