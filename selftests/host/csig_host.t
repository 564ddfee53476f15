#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CSIG host path in BPF (tools/bpf/csig_host.bpf.c, csighost) on the
# host kernel, hosts being network namespaces each with a cgroup of its own
# (the sock_ops program is a cgroup's):
#
#   s1 --insert (mark)--> [h1: bridge, transit on p1] --> r
#                               \--> x (no host path)
#
# s1 and r run the host path; x does not.  Checks: s1 -> r negotiates on
# both ends, the receiver takes every tag out and records it, the sender's
# socket storage holds reflected U samples carrying h1's locator, and
# keeps a forged reflection only when TCP takes its segment (sequence
# number in window, ACK number not beyond what was sent); s1 -> x and
# x -> r do not negotiate and their flows are untouched (no tags, no
# state, not even on s1 for the offers x declined, the transfer
# completes); spoofed SYNs that offer CSIG, and a
# spoofed confirmation, leave no state; a peer whose SYN did not offer and
# that sends our option after the handshake (a confirmation, a
# reflection) neither negotiates nor gets reflections, where one that
# offered does; IPv6 works as IPv4; csighost exits 2 for usage errors
# and 1 for errors at run time.  The flows
# run at RATE Mbit/s (default 20).  The counters are the host's, summed
# over s1 and r.  Everything runs in a private mount
# namespace with a BPF filesystem of its own, so the host's pins (another
# loader's, at /sys/fs/bpf/tcp-dcc) are never touched.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/lib/csig_hostns.sh"

SPOOF=$top/selftests/lib/csig_spoof.py

csig_hostns ch iperf3 jq

ktap_plan 30

# exit statuses: 2 for a command line that is not csighost's, 1 for what
# fails at run time (nothing attached yet in this BPF filesystem, no such
# network namespace, no such device)
"$H" frobnicate 2> /dev/null; u1=$?
"$H" attach 2> /dev/null; u2=$?
"$H" attach lo --mark bogus 2> /dev/null; u3=$?
"$H" show 2> /dev/null; r1=$?
"$H" -n "${TOPO}nosuch" show 2> /dev/null; r2=$?
"$H" attach "${TOPO}nosuch" 2> /dev/null; r3=$?
ktap_expect "csighost exits 2 for usage errors ($u1 $u2 $u3)" \
	"$u1 == 2 && $u2 == 2 && $u3 == 2"
ktap_expect "csighost exits 1 for errors at run time ($r1 $r2 $r3)" \
	"$r1 == 1 && $r2 == 1 && $r3 == 1"

topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
ip netns add "${TOPO}x" &&
ip -n "${TOPO}h1" link add p2 type veth peer name x-eth0 netns "${TOPO}x" ||
	{ ktap_fail "setup: x"; ktap_finished; }
ip -n "${TOPO}h1" link set p2 master br0 up
ip -n "${TOPO}x" link set lo up
ip -n "${TOPO}x" link set x-eth0 up
XIP=198.18.0.20
ip -n "${TOPO}x" addr add "$XIP/24" dev x-eth0
topo_cgroups s1 r x || { ktap_fail "setup: cgroups"; ktap_finished; }
show() { "$H" -n "$TOPO$1" --json show --sockets; }
ctr() { jq -r ".counters.$2" <<< "$1"; }
# sockets of a dump toward PEER (the remote address), as a JSON array
toward() { jq -c "[.sockets[] | select(.remote == \"$2\")]" <<< "$1"; }
from_port() { jq -c "[.sockets[] | select(.remote == \"$2\" and .rport == $3)]" <<< "$1"; }

# flow SRC DST ADDR: a SECS (4) s flow at RATE Mbit/s (default 20: a light load
# that leaves the CPU to anything else on the host); its JSON in $T/SRC-DST
RATE=${RATE:-20}
BYTES=$((RATE * 1000000 / 8 * 4 / 2))	# half of what the flow sends
ktap_run "csighost attaches to s1 (device and cgroup)" \
	"$H" -n "${TOPO}s1" attach s1-eth0 --cgroup "$(topo_cgroup s1)"
ktap_run "csighost attaches to r" \
	"$H" -n "${TOPO}r" attach r-eth0 --cgroup "$(topo_cgroup r)"
# tags: inserted on s1's egress for the sockets the host path marked, and
# updated on h1's port toward r (U, locator 1)
"$C" -n "${TOPO}s1" attach s1-eth0 insert --select mark \
	--mark 0x40000000/0x40000000 --types u > /dev/null &&
"$C" -n "${TOPO}h1" attach p1 transit --capacity "$((2 * RATE))mbit" --t 1ms \
	--interval 5ms --lm 1 --types u > /dev/null ||
	{ ktap_fail "setup: csigctl"; ktap_finished; }
inserted() { "$C" -n "${TOPO}s1" --json show s1-eth0 | jq '.[0].counters.inserted'; }

T=$(mktemp -d)
flow()
{
	topo_hx "$2" iperf3 -s -1 -D > /dev/null 2>&1
	topo_wait_listen "$2" 5201
	topo_hx "$1" iperf3 -c "$3" -t "${SECS:-4}" -b "${RATE}M" -J > "$T/$1-$2" 2> /dev/null
}
received() { jq '.end.sum_received.bytes // 0' "$T/$1-$2" 2> /dev/null || echo 0; }

# --- s1 -> r: both ends run the host path ------------------------------
ins0=$(inserted)
SECS=8 flow s1 r "$TOPO_RCV_IP" &
fpid=$!
sleep 1.5
S=$(show s1)
R=$(show r)
# r's reflections, forged on iperf3's control connection (idle: the
# socket with the oldest sample), from s1's rcv_nxt and snd_nxt: out of
# window (type 5), ACK beyond what s1 sent (type 4), and in window (type
# 6, the control: injection works).  On the data connection, s1's
# snd_una moves by more than a window while the forger starts, and TCP
# would refuse the ACK as too old.
read -r dport dseq dack <<< "$(jq -r '[.sockets[] | select(.rport == 5201) | . as $k | .samples[] | select(.type == 7) | {lport: $k.lport, age: .age_us, seq: $k.rcv_nxt, ack: $k.snd_nxt}] | sort_by(.age) | .[-1] | "\(.lport) \(.seq) \(.ack)"' <<< "$(show s1)")"
oow0=$(ctr "$S" opts_out_of_window)
forge() { topo_exec r python3 "$SPOOF" opt "$TOPO_RCV_IP" "$(topo_sender_ip 1)" 5201 "$dport" "$@"; }
forge $((dseq + (1 << 30))) "$dack" 5 31 99
forge "$dseq" $((dack + (1 << 30))) 4 30 98
forge "$dseq" "$dack" 6 29 97
sleep 0.2
F=$(show s1)
# ten looks at the data connection's latest U sample on s1, 0.1 s apart:
# TYPE/S/LM/AGE_US each
looks=
for _ in 1 2 3 4 5 6 7 8 9 10; do
	looks="$looks $(show s1 | jq -r '[.sockets[] | select(.rport == 5201) | .samples[] | select(.type == 7)] | sort_by(.age_us) | .[0] | "\(.type)/\(.s)/\(.lm)/\(.age_us)"')"
	sleep 0.1
done
wait $fpid
fd=$(jq -c "[.sockets[] | select(.lport == $dport) | .samples[] | select(.type >= 4 and .type <= 6)]" <<< "$F")
ktap_diag "forged on s1's port $dport (seq $dseq, ack $dack): samples of types 4-6 kept: $fd"
ktap_expect "forged reflections: the in-window one kept, the out-of-window one and the one with a bad ACK not" \
	"$(jq '[.[] | select(.type == 6 and .s == 29 and .lm == 97)] | length' <<< "$fd") == 1 && $(jq '[.[] | select(.type == 4 or .type == 5)] | length' <<< "$fd") == 0 && $(ctr "$F" opts_out_of_window) - $oow0 == 1"
sd=$(toward "$S" "$TOPO_RCV_IP")
rd=$(toward "$R" "$(topo_sender_ip 1)")
ktap_diag "s1's sockets toward r: $(jq -c '[.[] | {lport, rport, state, have, samples: [.samples[] | {type, s, lm, age_us}]}]' <<< "$sd")"
ktap_diag "r's sockets from s1: $(jq -c '[.[] | {lport, rport, state, rx: [.rx[] | {type, s, lm, gen, sent}]}]' <<< "$rd")"
ktap_expect "s1 -> r: both connections (control, data) negotiated on s1" \
	"$(jq '[.[] | select(.negotiated and .offered)] | length' <<< "$sd") >= 2"
ktap_expect "s1 -> r: ... and on r" \
	"$(jq '[.[] | select(.negotiated)] | length' <<< "$rd") >= 2"
ktap_expect "s1 -> r: r took tags out for the data connection (rx U, generations counted)" \
	"$(jq '[.[] | select(.lport == 5201) | .rx[] | select(.type == 7 and .gen > 10)] | length' <<< "$rd") >= 1"
# the sender's samples: U (type 7, bit 0x80 of have), under 1 s old (a
# 2 Mbit/s flow sends in bursts), each either h1's
# (locator 1) or the tag as s1 inserted it (S 0, LM 0: h1 kept it, its U
# in bucket 0), and at least one of h1's
ktap_diag "s1's latest U sample of the data connection, 10 looks: $looks"
good=0 bad=0 h1=0
for l in $looks; do
	IFS=/ read -r t sv lm age <<< "$l"
	if [ "$t" = 7 ] && { [ "$lm" = 1 ] || [ "$lm$sv" = 00 ]; } && [ "$age" -lt 1000000 ]; then
		good=$((good + 1))
		[ "$lm" = 1 ] && [ "$sv" -gt 0 ] && h1=$((h1 + 1))
	else
		bad=$((bad + 1))
	fi
done
ktap_expect "s1 -> r: s1's socket storage holds fresh reflected U samples, $h1 of 10 with h1's locator" \
	"$good == 10 && $bad == 0 && $h1 >= 1 && $(jq '[.[] | select(.rport == 5201 and (.have / 128 | floor) % 2 == 1)] | length' <<< "$sd") >= 1"
ktap_diag "h1's port toward r: $("$C" -n "${TOPO}h1" --json show p1 | jq -c '.[0].counters | with_entries(select(.value > 0))')"
ktap_diag "s1: $(jq -c '.counters | with_entries(select(.value > 0))' <<< "$S")"
ktap_diag "r:  $(jq -c '.counters | with_entries(select(.value > 0))' <<< "$R")"
S=$(show s1)
R=$(show r)
ktap_expect "s1 -> r: the handshake counters: offered, offer seen and accepted, negotiated, confirmed" \
	"$(ctr "$S" syn_offered) >= 2 && $(ctr "$R" syn_offer_rcvd) >= 2 && $(ctr "$R" synack_accepted) >= 2 && $(ctr "$S" negotiated) >= 2 && $(ctr "$R" confirmed) >= 2 && $(ctr "$S" confirms_sent) >= 2"
tags=$(ctr "$R" tags)
ktap_expect "s1 -> r: r took every tag out ($tags), recorded nearly all, none malformed" \
	"$tags >= 20 && $(ctr "$R" tags_removed) == $tags && $(ctr "$R" tags_recorded) >= 0.95 * $tags && $(ctr "$R" tags_malformed) == 0 && $(ctr "$R" tags_strip_fail) == 0"
ktap_diag "s1: ACKs TCP coalesced in its backlog: $(topo_nstat s1 TcpExtTCPBacklogCoalesce)"
ktap_expect "s1 -> r: r reflected, s1 parsed, nothing malformed, nothing refused but the forged one" \
	"$(ctr "$R" opts_sent) >= 20 && $(ctr "$S" opts_parsed) >= 20 && $(ctr "$S" opts_malformed) == 0 && $(ctr "$S" opts_out_of_window) == $oow0 + 1"
got=$(received s1 r)
ktap_expect "s1 -> r: the tagged flow works (tags gone before r's stack): $got bytes" \
	"$got > $BYTES && $(inserted) - $ins0 >= 20"

# --- hosts without the host path -----------------------------------------
ins0=$(inserted)
S0=$(show s1)
flow s1 x "$XIP" &
fpid=$!
sleep 2.5
S=$(show s1)
wait $fpid
sd=$(toward "$S" "$XIP")
ktap_diag "s1's sockets toward x: $(jq -c '[.[] | {rport, state, offered, negotiated, have}]' <<< "$sd")"
ktap_expect "s1 -> x: s1 offered, x did not accept: s1 counts the refusals and keeps no state for the connections" \
	"$(jq length <<< "$sd") == 0 && $(ctr "$S" syn_offered) - $(ctr "$S0" syn_offered) >= 2 && $(ctr "$S" peer_declined) - $(ctr "$S0" peer_declined) >= 2"
got=$(received s1 x)
ktap_expect "s1 -> x: untouched: nothing tagged, the transfer completes ($got bytes)" \
	"$(inserted) == $ins0 && $got > $BYTES"

R0=$(show r)
flow x r "$TOPO_RCV_IP" &
fpid=$!
sleep 2.5
R=$(show r)
wait $fpid
got=$(received x r)
ktap_expect "x -> r: no offer, nothing accepted, no state on r, the transfer completes ($got bytes)" \
	"$(ctr "$R" syn_offer_rcvd) == $(ctr "$R0" syn_offer_rcvd) && $(ctr "$R" synack_accepted) == $(ctr "$R0" synack_accepted) && $(toward "$R" "$XIP" | jq length) == 0 && $got > $BYTES"

# --- spoofed SYN and confirmation ----------------------------------------
topo_hx r iperf3 -s -1 -D -p 5301 > /dev/null 2>&1
topo_wait_listen r 5301
# r retransmits a SYN-ACK that gets no answer, first after 1 s, and a
# retransmitted SYN-ACK answers the offer again (syn_accepts() reads the
# listener's copy of the SYN): none here, so that r answers each spoofed
# SYN once however long the spoofs take
synack_retries=$(topo_exec r sysctl -n net.ipv4.tcp_synack_retries)
topo_exec r sysctl -qw net.ipv4.tcp_synack_retries=0
R0=$(show r)
n0=$(jq '.sockets | length' <<< "$R0")
for _ in 1 2 3 4 5; do
	topo_exec s1 python3 "$SPOOF" syn 198.18.0.99 "$TOPO_RCV_IP" 5301
done
topo_exec s1 python3 "$SPOOF" ack 198.18.0.99 "$TOPO_RCV_IP" 40000 5301
sleep 0.5
R=$(show r)
ktap_diag "r after 5 spoofed SYNs and a spoofed confirmation: $(jq -c '.counters | with_entries(select(.value > 0))' <<< "$R"); SYN-ACKs retransmitted: $(topo_nstat r TcpExtTCPSynRetrans)"
topo_exec r sysctl -qw net.ipv4.tcp_synack_retries="$synack_retries"
ktap_expect "spoofed SYNs: r answered each offer (so they arrived and were seen as offers)" \
	"$(ctr "$R" syn_offer_rcvd) - $(ctr "$R0" syn_offer_rcvd) == 5 && $(ctr "$R" synack_accepted) - $(ctr "$R0" synack_accepted) == 5"
ktap_expect "spoofed SYNs and confirmation: no socket state on r, nothing confirmed" \
	"$(jq '.sockets | length' <<< "$R") == $n0 && $(toward "$R" 198.18.0.99 | jq length) == 0 && $(ctr "$R" confirmed) == $(ctr "$R0" confirmed)"
topo_hx s1 sh -c "iperf3 -c $TOPO_RCV_IP -p 5301 -t 1 > /dev/null 2>&1"

# --- a peer that did not offer sends the option all the same -------------
# x's TCP offers nothing; csig_peer.py's client connects to r, then forges
# our option into its own connection (its sequence and ACK numbers, read
# with TCP_REPAIR) on the third segment r receives, within the segments in
# which r takes a late confirmation: the 4-byte option, and on a second
# connection a reflection.  Its data is then tagged (insertion on x's
# egress, for its SO_MARK).  r must neither negotiate nor reflect.  The
# control: the same client on s1, whose TCP offers, forging nothing; r
# must negotiate and reflect to it.  These checks read the counters, r's
# socket (ss) and what the client saw; only the last of each reads the
# socket dump.
PEER=$top/selftests/lib/csig_peer.py
counters() { "$H" -n "$TOPO$1" --json show; }
"$C" -n "${TOPO}x" attach x-eth0 insert --select mark \
	--mark 0x40000000/0x40000000 --types u > /dev/null ||
	{ ktap_fail "setup: csigctl on x"; ktap_finished; }
# peer HOST MODE PORT MARK: the client on HOST toward r:PORT; sets R0 and
# R (r's counters before and while the connection is open), D (r's socket
# dump then), SSR (r's socket in ss -e) and P (the client's JSON)
peer()
{
	local spid cpid

	R0=$(counters r)
	topo_hx r python3 "$PEER" serve "$3" > "$T/serve-$3" 2>&1 &
	spid=$!
	topo_wait_listen r "$3"
	topo_hx "$1" python3 "$PEER" client "$TOPO_RCV_IP" "$3" "$2" 2 "$4" 2 \
		> "$T/peer-$3" 2>&1 &
	cpid=$!
	for _ in $(seq 60); do
		[ -s "$T/peer-$3" ] && break
		sleep 0.1
	done
	R=$(counters r)
	D=$(show r)
	SSR=$(topo_exec r ss -tenH state established "( sport = :$3 )")
	wait $cpid $spid
	P=$(cat "$T/peer-$3")
	ktap_diag "$1, $2: the client: $P; r received $(cat "$T/serve-$3") bytes; r's socket: $SSR"
	ktap_diag "$1, $2: r's counters, their changes: $(jq -c --argjson a "$(jq .counters <<< "$R0")" '.counters | with_entries(select(.value != $a[.key]) | .value -= $a[.key])' <<< "$R")"
}
d() { echo $(($(ctr "$R" "$1") - $(ctr "$R0" "$1"))); }
pj() { jq ".$1" <<< "$P"; }
port=5400
for mode in confirm reflect; do
	port=$((port + 1))
	peer x "$mode" "$port" 0x40000000
	ktap_expect "$mode: a peer that did not offer: its option counted unnegotiated, nothing confirmed, r's socket not marked" \
		"$(d opts_unnegotiated) == 1 && $(d confirmed) == 0 && $(d marked) == 0 && $(grep -c 'fwmark' <<< "$SSR") == 0 && $(grep -c . <<< "$SSR") == 1"
	ktap_expect "$mode: ... r does not reflect: tags taken out but not recorded, none of r's $(pj peer_segs) segments carries the option" \
		"$(pj peer_segs) >= 10 && $(pj peer_opts) == 0 && $(d tags_unnegotiated) >= 10 && $(d tags_recorded) == 0 && $(d opts_sent) == 0 && $(cat "$T/serve-$port") == $(pj sent)"
	ktap_expect "$mode: ... r keeps no state for the connection (socket dump)" \
		"$(from_port "$D" "$XIP" "$(pj lport)" | jq length) == 0"
done
port=$((port + 1))
peer s1 none "$port" 0
ktap_expect "control: s1's client, which offered: confirmed on both ends, r's socket marked" \
	"$(d confirmed) == 1 && $(d negotiated) == 1 && $(d opts_unnegotiated) == 0 && $(grep -c 'fwmark:0x40000000' <<< "$SSR") == 1"
ktap_expect "control: ... r reflects: its tags recorded, $(pj peer_opts) of r's $(pj peer_segs) segments carry the option, s1 parsed them" \
	"$(pj peer_opts) >= 10 && $(d tags_recorded) >= 10 && $(d opts_sent) >= 10 && $(d opts_parsed) >= 10 && $(cat "$T/serve-$port") == $(pj sent)"
ktap_expect "control: ... r's state for the connection is negotiated (socket dump)" \
	"$(from_port "$D" "$(topo_sender_ip 1)" "$(pj lport)" | jq '[.[] | select(.negotiated)] | length') == 1"

# --- IPv6 --------------------------------------------------------------
flow s1 r "$TOPO_RCV_IP6" &
fpid=$!
sleep 2
S=$(show s1)
R=$(show r)
wait $fpid
got=$(received s1 r)
ktap_expect "s1 -> r over IPv6: negotiated on both ends, U samples on s1, $got bytes" \
	"$(toward "$S" "$TOPO_RCV_IP6" | jq '[.[] | select(.negotiated and (.have / 128 | floor) % 2 == 1)] | length') >= 1 && $(toward "$R" 2001:db8::11 | jq '[.[] | select(.negotiated)] | length') >= 2 && $got > $BYTES"

ktap_run "csighost detaches from s1" \
	"$H" -n "${TOPO}s1" detach s1-eth0 --cgroup "$(topo_cgroup s1)"
ktap_run "csighost detaches from r" \
	"$H" -n "${TOPO}r" detach r-eth0 --cgroup "$(topo_cgroup r)"
rm -rf "$T"
ktap_finished
