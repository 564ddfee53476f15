#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF host path (tools/bpf/csig_host.bpf.c, csighost) against
# tcp_csig_opt on the wire: one host runs the module, the other the BPF
# path, in both roles.
#
#   s1 --insert (mark)--> [h1: p1 transit lm 1] --> r
#   s1 <--[h1: p0 transit lm 2]-- insert (mark)-- r
#
# The module is one for the whole kernel, so each host is made one or the
# other by the module's switches and by where the BPF path is attached (a
# cgroup of its own holds the BPF host's processes; its device gets the tc
# program):
#
#   pass A: s1 BPF, r module (offer=0: the module adds nothing to s1's
#           SYNs; accept_offers=1: r accepts)
#   pass B: s1 module, r BPF (offer=1: s1 offers; accept_offers=0: the
#           module adds nothing to r's SYN-ACKs)
#
# In each pass s1 opens the connections (the active opener) and data goes
# both ways, s1 -> r and r -> s1 (iperf3 -R), so that each flavour is seen
# as active and passive end, as sender and as receiver.  Checks, each way:
# both ends negotiated (the BPF host's socket state, the module's flow
# table), the receiver took tags out and reflected them, the sender keeps
# U samples with the locator of the port the data crossed (1 toward r, 2
# toward s1).  The negotiation matrix's corners follow, and a peer whose
# SYN did not offer, sending our option after the handshake, which the
# BPF passive end must neither take as a confirmation nor reflect to.  With the module on one host, the module's hooks also run in
# the BPF host's namespace: there they find no flow of theirs to add
# options to (tags are gone before its packet handler, the tc program runs
# first), which the checks of the BPF host's counters would show.
#
# Assumes (tools/vm/run's guest): the modules and tools built (make),
# iperf3 and jq, a BPF filesystem at /sys/fs/bpf, the kernel's BTF, and
# either a cgroup v2 mount or a free /sys/fs/cgroup to mount one on.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"

H=$top/build/bin/csighost
KO=$top/build/$(uname -r)/tcp_csig_opt.ko
P=/sys/module/tcp_csig_opt/parameters

[ -f "$KO" ] && [ -x "$H" ] && [ -x "$TOPO_CSIGCTL" ] ||
	{ echo "Bail out! run make first"; exit 1; }
[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "the kernel has no BTF"
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CGROOT" ]; then
	mount -t cgroup2 none /sys/fs/cgroup 2> /dev/null &&
		CGROOT=/sys/fs/cgroup
fi
[ -n "$CGROOT" ] || ktap_skip_all "no cgroup v2 hierarchy"

ktap_plan 27
sx() { topo_csigctl "$@"; }
ctr() { topo_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/csig_opt; }
flows() { topo_exec "$1" cat /proc/net/csig_opt_flows; }
hshow() { "$H" -n "$TOPO$1" --json show --sockets; }
hctr() { "$H" --json show | jq -r ".counters.$1"; }

topo_hold_netstamp
ktap_run "insmod tcp_csig_opt" insmod "$KO"
topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
CG=$CGROOT/${TOPO}bpf
mkdir "$CG" || { ktap_fail "setup: cgroup $CG"; ktap_finished; }
trap 'topo_cleanup; xargs -r kill < "$CG/cgroup.procs" 2> /dev/null; sleep 0.3; rmdir "$CG"; rmmod tcp_csig_opt 2> /dev/null' EXIT
MARK=$(topo_csig_mark)
sx s1 attach s1-eth0 insert --select mark --mark "$MARK/$MARK" --types u > /dev/null &&
sx r attach r-eth0 insert --select mark --mark "$MARK/$MARK" --types u > /dev/null &&
sx h1 attach p1 transit --capacity 100mbit --t 1ms --interval 20ms --lm 1 --types u > /dev/null &&
sx h1 attach p0 transit --capacity 100mbit --t 1ms --interval 20ms --lm 2 --types u > /dev/null ||
	{ ktap_fail "setup: csigctl"; ktap_finished; }
topo_shape h1 p1 100mbit
topo_shape h1 p0 100mbit

# hx HOST BPF CMD...: CMD on HOST, in the BPF host's cgroup when BPF is 1
hx()
{
	local h=$1 b=$2 cg=$CGROOT

	shift 2
	[ "$b" = 1 ] && cg=$CG
	sh -c 'echo $$ > "$0/cgroup.procs" && ns=$1 && shift &&
		exec ip netns exec "$ns" "$@"' "$cg" "$TOPO$h" "$@"
}

# flow BPFHOST [IPERF ARGS]: a 6 s flow s1 -> r at 50 Mbit/s (-R: r -> s1);
# once both its connections are up and a second has passed, the module
# host's flow table is read into $MFLOWS and the BPF host's sockets into
# $DUMP (entries go at the close: both must be read while it runs, and
# under a loaded TCG each read takes up to seconds)
flow()
{
	local b=$1 fpid

	shift
	hx r "$([ "$b" = r ] && echo 1)" iperf3 -s -D -1 > /dev/null 2>&1
	topo_wait_listen r 5201
	hx s1 "$([ "$b" = s1 ] && echo 1)" iperf3 -c "$TOPO_RCV_IP" -t 6 -b 50M "$@" \
		> /dev/null 2>&1 &
	fpid=$!
	topo_wait_est s1 "dport = :5201" 2
	sleep 1
	MFLOWS=$(flows "$([ "$b" = s1 ] && echo r || echo s1)")
	DUMP=$(hshow "$b")
	wait $fpid
}
# the BPF host's negotiated sockets toward PEER with U samples of LM
bpf_samples() { jq "[.sockets[] | select(.remote == \"$1\" and .negotiated) | .samples[] | select(.type == 7 and .lm == $2)] | length" <<< "$DUMP"; }
bpf_neg() { jq "[.sockets[] | select(.remote == \"$1\" and .negotiated)] | length" <<< "$DUMP"; }
# the module host's negotiated flows with a U sample (tx) of LM
mod_samples() { grep ' negotiated' <<< "$MFLOWS" | grep -c " tx:.* 7/[01]/[0-9]*/$1/"; }
mod_neg() { grep -c ' negotiated' <<< "$MFLOWS"; }

# --- pass A: s1 BPF, r module ------------------------------------------
echo 0 > $P/offer
echo 1 > $P/accept_offers
ktap_run "pass A: csighost attaches to s1" \
	"$H" -n "${TOPO}s1" attach s1-eth0 --cgroup "$CG" --mark "$MARK"
c0=$(ctr r confirmed) t0=$(ctr r tags_recorded) o0=$(ctr r opts_sent)
ms0=$(ctr s1 syn_offered) mo0=$(ctr s1 opts_sent) mc0=$(ctr s1 confirms_sent)
p0=$(hctr opts_parsed) n0=$(hctr negotiated) om0=$(hctr opts_malformed)
flow s1
rc=$?
ktap_diag "A s1 -> r: s1 (BPF) $(jq -c '[.sockets[] | {lport, rport, state, have, samples: [.samples[] | {type, s, lm, age_us}]}]' <<< "$DUMP")"
ktap_diag "A s1 -> r: r (module): $(grep negotiated <<< "$MFLOWS" | tr '\n' ';')"
ktap_expect "A s1 -> r: BPF active end negotiated with the module's passive end, both connections" \
	"$rc == 0 && $(bpf_neg "$TOPO_RCV_IP") >= 2 && $(hctr negotiated) - $n0 >= 2 && $(ctr r confirmed) - $c0 >= 2"
ktap_expect "A s1 -> r: the module took tags out and reflected them" \
	"$(ctr r tags_recorded) - $t0 > 100 && $(ctr r opts_sent) - $o0 > 100"
ktap_expect "A s1 -> r: the BPF sender parsed them: U samples with h1's p1 locator" \
	"$(hctr opts_parsed) - $p0 > 100 && $(bpf_samples "$TOPO_RCV_IP" 1) >= 1 && $(hctr opts_malformed) == $om0"

r0=$(hctr tags_recorded) s0=$(hctr opts_sent) q0=$(ctr r opts_parsed)
tm0=$(hctr tags_malformed)
flow s1 -R
rc=$?
ktap_diag "A r -> s1: r (module): $(grep negotiated <<< "$MFLOWS" | tr '\n' ';')"
ktap_expect "A r -> s1: the BPF receiver took tags out and reflected them" \
	"$rc == 0 && $(hctr tags_recorded) - $r0 > 100 && $(hctr opts_sent) - $s0 > 100 && $(hctr tags_malformed) == $tm0"
ktap_expect "A r -> s1: the module's sender parsed them: U samples with h1's p0 locator" \
	"$(ctr r opts_parsed) - $q0 > 100 && $(mod_samples 2) >= 1 && $(ctr r opts_malformed) == 0"
ktap_expect "A: the BPF host's segments carried one option of ours only (the module's hook added none)" \
	"$(ctr s1 syn_offered) == $ms0 && $(ctr s1 opts_sent) == $mo0 && $(ctr s1 confirms_sent) == $mc0"
ktap_run "pass A: csighost detaches from s1" \
	"$H" -n "${TOPO}s1" detach s1-eth0 --cgroup "$CG"

# --- pass B: s1 module, r BPF ------------------------------------------
echo 1 > $P/offer
echo 0 > $P/accept_offers
ktap_run "pass B: csighost attaches to r" \
	"$H" -n "${TOPO}r" attach r-eth0 --cgroup "$CG" --mark "$MARK"
d0=$(ctr s1 negotiated) c0=$(hctr confirmed) a0=$(hctr synack_accepted)
ma0=$(ctr r synack_accepted) mo0=$(ctr r opts_sent)
r0=$(hctr tags_recorded) s0=$(hctr opts_sent) q0=$(ctr s1 opts_parsed)
flow r
rc=$?
ktap_diag "B s1 -> r: r (BPF) $(jq -c '[.sockets[] | {lport, rport, state, rx: [.rx[] | {type, s, lm, gen}]}]' <<< "$DUMP")"
ktap_diag "B s1 -> r: s1 (module): $(grep negotiated <<< "$MFLOWS" | tr '\n' ';')"
ktap_expect "B s1 -> r: the module's active end negotiated with the BPF passive end, both connections" \
	"$rc == 0 && $(ctr s1 negotiated) - $d0 >= 2 && $(hctr synack_accepted) - $a0 >= 2 && $(hctr confirmed) - $c0 >= 2 && $(bpf_neg "$(topo_sender_ip 1)") >= 2"
ktap_expect "B s1 -> r: the BPF receiver took tags out and reflected them" \
	"$(hctr tags_recorded) - $r0 > 100 && $(hctr opts_sent) - $s0 > 100"
ktap_expect "B s1 -> r: the module's sender parsed them: U samples with h1's p1 locator" \
	"$(ctr s1 opts_parsed) - $q0 > 100 && $(mod_samples 1) >= 1 && $(ctr s1 opts_malformed) == 0"

t0=$(ctr s1 tags_recorded) o0=$(ctr s1 opts_sent) p0=$(hctr opts_parsed)
om0=$(hctr opts_malformed)
flow r -R
rc=$?
ktap_diag "B r -> s1: r (BPF) $(jq -c '[.sockets[] | {lport, rport, have, samples: [.samples[] | {type, s, lm, age_us}]}]' <<< "$DUMP")"
ktap_expect "B r -> s1: the module took tags out and reflected them" \
	"$rc == 0 && $(ctr s1 tags_recorded) - $t0 > 100 && $(ctr s1 opts_sent) - $o0 > 100"
ktap_expect "B r -> s1: the BPF sender parsed them: U samples with h1's p0 locator" \
	"$(hctr opts_parsed) - $p0 > 100 && $(bpf_samples "$(topo_sender_ip 1)" 2) >= 1 && $(hctr opts_malformed) == $om0"
ktap_expect "B: the BPF host's segments carried one option of ours only (the module's hook added none)" \
	"$(ctr r synack_accepted) == $ma0 && $(ctr r opts_sent) == $mo0"

# --- the matrix's other corners --------------------------------------------
# r BPF (pass B's hosts): the module's end does not offer, then the BPF
# end does not accept
echo 0 > $P/offer
n0=$(hctr syn_offer_rcvd) c0=$(hctr confirmed)
flow r
rc=$?
ktap_expect "B, the module does not offer: ordinary TCP, nothing on the BPF end" \
	"$rc == 0 && $(hctr syn_offer_rcvd) == $n0 && $(hctr confirmed) == $c0 && $(bpf_neg "$(topo_sender_ip 1)") == 0"
# s1's TCP still offers nothing: csig_peer.py's client there forges our
# option into its own connection once established (the 4-byte option,
# then on a second connection a reflection), on the third segment r
# receives, and sends tagged data (its SO_MARK is s1's insertion mark).
# r must neither negotiate nor reflect.
PEER=$top/selftests/lib/csig_peer.py
port=5400
for mode in confirm reflect; do
	port=$((port + 1))
	u0=$(hctr opts_unnegotiated) c0=$(hctr confirmed) m0=$(hctr marked)
	r0=$(hctr tags_recorded) tu0=$(hctr tags_unnegotiated) s0=$(hctr opts_sent)
	hx r 1 /usr/bin/python3 "$PEER" serve "$port" > /tmp/peer-serve 2>&1 &
	spid=$!
	topo_wait_listen r "$port"
	hx s1 "" /usr/bin/python3 "$PEER" client "$TOPO_RCV_IP" "$port" "$mode" 2 \
		"$MARK" 3 > /tmp/peer-client 2>&1 &
	cpid=$!
	for _ in $(seq 100); do
		[ -s /tmp/peer-client ] && break
		sleep 0.1
	done
	DUMP=$(hshow r)
	wait $cpid $spid
	PJ=$(cat /tmp/peer-client)
	lp=$(jq .lport <<< "$PJ")
	ktap_diag "B, $mode from a peer that did not offer: the peer $PJ; r received $(cat /tmp/peer-serve) bytes; r's socket: $(jq -c "[.sockets[] | select(.rport == $lp)]" <<< "$DUMP")"
	ktap_expect "B, a peer that did not offer sends our option ($mode): counted unnegotiated, nothing confirmed, no state on r" \
		"$(hctr opts_unnegotiated) - $u0 == 1 && $(hctr confirmed) == $c0 && $(hctr marked) == $m0 && $(jq "[.sockets[] | select(.rport == $lp)] | length" <<< "$DUMP") == 0"
	ktap_expect "B, ... ($mode): r does not reflect: its tags not recorded, none of r's $(jq .peer_segs <<< "$PJ") segments carries the option" \
		"$(jq .peer_segs <<< "$PJ") >= 10 && $(jq .peer_opts <<< "$PJ") == 0 && $(hctr tags_unnegotiated) - $tu0 >= 10 && $(hctr tags_recorded) == $r0 && $(hctr opts_sent) == $s0 && $(cat /tmp/peer-serve) == $(jq .sent <<< "$PJ")"
done
echo 1 > $P/offer
"$H" -n "${TOPO}r" attach r-eth0 --cgroup "$CG" --mark "$MARK" --no-accept > /dev/null
d0=$(ctr s1 peer_declined) a0=$(hctr synack_accepted)
m0=$(sx r --json show r-eth0 | jq '.[0].counters.inserted')
flow r -R
rc=$?
ktap_expect "B, the BPF end does not accept: the module counts the refusal, r's data goes untagged" \
	"$rc == 0 && $(ctr s1 peer_declined) - $d0 >= 2 && $(hctr synack_accepted) == $a0 && $(bpf_neg "$(topo_sender_ip 1)") == 0 && $(sx r --json show r-eth0 | jq '.[0].counters.inserted') == $m0"
ktap_run "pass B: csighost detaches from r" \
	"$H" -n "${TOPO}r" detach r-eth0 --cgroup "$CG"
# s1 BPF (pass A's hosts): the module's end does not accept
echo 0 > $P/offer
echo 0 > $P/accept_offers
"$H" -n "${TOPO}s1" attach s1-eth0 --cgroup "$CG" --mark "$MARK" > /dev/null
d0=$(hctr peer_declined) m0=$(sx s1 --json show s1-eth0 | jq '.[0].counters.inserted')
flow s1
rc=$?
ktap_expect "A, the module does not accept: the BPF end counts the refusal, s1's data goes untagged" \
	"$rc == 0 && $(hctr peer_declined) - $d0 >= 2 && $(bpf_neg "$TOPO_RCV_IP") == 0 && $(sx s1 --json show s1-eth0 | jq '.[0].counters.inserted') == $m0"
ktap_expect "A, the module does not accept: the BPF end keeps no state for the declined connections" \
	"$(jq "[.sockets[] | select(.remote == \"$TOPO_RCV_IP\")] | length" <<< "$DUMP") == 0"
ktap_run "csighost detaches from s1" \
	"$H" -n "${TOPO}s1" detach s1-eth0 --cgroup "$CG"
echo 1 > $P/offer
echo 1 > $P/accept_offers
ktap_run "rmmod tcp_csig_opt" rmmod tcp_csig_opt
ktap_finished
