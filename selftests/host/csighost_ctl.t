#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# csighost's commands on the host kernel, around the flows that
# selftests/host/csig_host.t checks: hosts s1 and r (network namespaces,
# each with a cgroup of its own) joined by a bridge, s1 with a second
# device d0 (a veth pair of its own).  Checks:
#
#   options     --json is taken before the command and after it
#   rollback    an attach whose tc part fails (a filter of another
#               protocol holds csighost's priority) leaves nothing behind:
#               no sock_ops on the cgroup, no pins, exit status 1
#   detach      sockets negotiated before a detach no longer act as
#               negotiated after it: their mark is gone (no tags are
#               inserted for them), the host path keeps no state for
#               them, their transfer completes
#   devices     detaching one of two devices of a cgroup leaves its
#               sock_ops program attached; detaching the last removes it
#
# Everything runs in a private mount namespace with a BPF filesystem of
# its own, so the host's pins are never touched.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/lib/csig_hostns.sh"

PINS=/sys/fs/bpf/tcp-dcc

csig_hostns cc iperf3 jq bpftool

ktap_plan 15

topo_chain 1 || { ktap_fail "setup"; ktap_finished; }
topo_cgroups s1 r || { ktap_fail "setup: cgroups"; ktap_finished; }
ip -n "${TOPO}s1" link add d0 type veth peer name d1 &&
ip -n "${TOPO}s1" link set d0 up && ip -n "${TOPO}s1" link set d1 up ||
	{ ktap_fail "setup: d0"; ktap_finished; }
T=$(mktemp -d)
# the pin of a host's sock_ops link, and the sock_ops programs on its cgroup
sockops_pin() { echo "$PINS/csig_host_sockops_$(stat -c %i "$(topo_cgroup "$1")")"; }
sockops_on() { bpftool cgroup show "$(topo_cgroup "$1")" 2> /dev/null | grep -c sock_ops; }

# --- options: --json before and after the command ------------------------
ktap_run "attach s1-eth0" \
	"$H" -n "${TOPO}s1" attach s1-eth0 --cgroup "$(topo_cgroup s1)"
before=$("$H" -n "${TOPO}s1" --json show --sockets 2> "$T/err")
after=$("$H" -n "${TOPO}s1" show --sockets --json 2>> "$T/err")
keys() { jq -c '[keys, (.config | keys), (.counters | keys), (.sockets | type)]' <<< "$1" 2> /dev/null; }
ktap_diag "--json show: $(keys "$before"); show --json: $(keys "$after") $(cat "$T/err")"
ktap_expect "show --json is JSON, as --json show is" \
	"\"$(keys "$before")\" != \"\" && \"$(keys "$after")\" == \"$(keys "$before")\""
out=$("$H" -n "${TOPO}s1" attach s1-eth0 --cgroup "$(topo_cgroup s1)" --json)
ktap_expect "attach ... --json answers in JSON" \
	"\"$(jq -r .dev <<< "$out" 2> /dev/null)\" == \"s1-eth0\""

# --- rollback: an attach whose tc part fails ----------------------------
# a filter of protocol ip at csighost's priority (0xc517) on r-eth0's
# ingress: csighost's (protocol all) cannot go there.  r's cgroup has
# nothing yet; the maps are s1's already (pinned).
tc -n "${TOPO}r" qdisc add dev r-eth0 clsact &&
tc -n "${TOPO}r" filter add dev r-eth0 ingress prio 0xc517 handle 0xc517 \
	protocol ip bpf bytecode '1,6 0 0 0,' || ktap_diag "setup: the blocking filter failed"
cfg0=$("$H" -n "${TOPO}s1" --json show | jq -c .config)
"$H" -n "${TOPO}r" attach r-eth0 --cgroup "$(topo_cgroup r)" --mark 0x10 --no-offer \
	> "$T/out" 2> "$T/err"
rc=$?
cfg1=$("$H" -n "${TOPO}s1" --json show | jq -c .config)
ktap_diag "attach on a blocked r-eth0: exit $rc, '$(cat "$T/err")'; pin $(ls "$(sockops_pin r)" 2>&1); on r's cgroup: $(sockops_on r) sock_ops"
ktap_expect "a failed attach exits 1 and says why" \
	"$rc == 1 && $(grep -c 'r-eth0' "$T/err") >= 1 && $(grep -c . "$T/out") == 0"
ktap_expect "... and leaves no sock_ops on the cgroup, no link pinned, the configuration as it was" \
	"$(sockops_on r) == 0 && $([ -e "$(sockops_pin r)" ] && echo 1 || echo 0) == 0 && \"$cfg1\" == \"$cfg0\""
tc -n "${TOPO}r" filter del dev r-eth0 ingress prio 0xc517
tc -n "${TOPO}r" qdisc del dev r-eth0 clsact

# --- detach: sockets negotiated before it --------------------------------
ktap_run "attach r-eth0" \
	"$H" -n "${TOPO}r" attach r-eth0 --cgroup "$(topo_cgroup r)"
"$C" -n "${TOPO}s1" attach s1-eth0 insert --select mark \
	--mark 0x40000000/0x40000000 --types u > /dev/null ||
	{ ktap_fail "setup: csigctl"; ktap_finished; }
inserted() { "$C" -n "${TOPO}s1" --json show s1-eth0 | jq '.[0].counters.inserted'; }
show() { "$H" -n "$TOPO$1" --json show --sockets; }
marked() { topo_exec "$1" ss -tenH state established "( dport = :5201 or sport = :5201 )" 2> /dev/null | grep -c 'fwmark:0x40000000'; }
topo_hx r iperf3 -s -1 -D > /dev/null 2>&1
topo_wait_listen r 5201
topo_hx s1 iperf3 -c "$TOPO_RCV_IP" -t 6 -b 20M -J > "$T/flow" 2> /dev/null &
fpid=$!
topo_wait_est s1 "dport = :5201" 2
sleep 1
m0=$(marked s1)
i0=$(inserted)
sleep 0.5
i1=$(inserted)
n0=$(show s1 | jq '[.sockets[] | select(.negotiated)] | length')
ktap_diag "before the detach: s1's sockets marked $m0, negotiated $n0; tags inserted $i0, then $i1"
ktap_run "detach s1-eth0" "$H" -n "${TOPO}s1" detach s1-eth0 --cgroup "$(topo_cgroup s1)"
ktap_run "detach r-eth0" "$H" -n "${TOPO}r" detach r-eth0 --cgroup "$(topo_cgroup r)"
sleep 0.3
i2=$(inserted)
R2=$(show r)
sleep 1
i3=$(inserted)
R3=$(show r)
m1=$(marked s1)
S=$(show s1)
R=$(show r)
wait $fpid
got=$(jq '.end.sum_received.bytes // 0' "$T/flow" 2> /dev/null || echo 0)
ktap_diag "after it: s1's sockets marked $m1; tags inserted $i2, a second later $i3; r's opts_sent $(jq .counters.opts_sent <<< "$R2"), then $(jq .counters.opts_sent <<< "$R3"); $got bytes received"
ktap_expect "the connections were negotiated and tagged before the detach" \
	"$m0 >= 2 && $n0 >= 2 && $i1 > $i0"
ktap_expect "after the detach s1's sockets are no longer marked: no tags inserted for them" \
	"$m1 == 0 && $i3 == $i2"
ktap_expect "... no option sent, no socket left negotiated on either host" \
	"$(jq .counters.opts_sent <<< "$R3") == $(jq .counters.opts_sent <<< "$R2") && $(jq '[.sockets[] | select(.negotiated)] | length' <<< "$S") == 0 && $(jq '[.sockets[] | select(.negotiated)] | length' <<< "$R") == 0"
ktap_expect "... and the transfer completes ($got bytes)" "$got > 10000000"
"$C" -n "${TOPO}s1" detach s1-eth0 > /dev/null

# --- devices: two of a cgroup, detached one by one -----------------------
ktap_run "attach s1-eth0 and d0, one cgroup" sh -c \
	"'$H' -n '${TOPO}s1' attach s1-eth0 --cgroup '$(topo_cgroup s1)' && '$H' -n '${TOPO}s1' attach d0 --cgroup '$(topo_cgroup s1)'"
"$H" -n "${TOPO}s1" detach d0 --cgroup "$(topo_cgroup s1)" > /dev/null 2> "$T/err"
rc=$?
ktap_diag "detach d0: exit $rc $(cat "$T/err"); on s1's cgroup: $(sockops_on s1) sock_ops"
ktap_expect "detaching d0 leaves sock_ops on the cgroup that s1-eth0 still uses" \
	"$rc == 0 && $(sockops_on s1) == 1 && $([ -e "$(sockops_pin s1)" ] && echo 1 || echo 0) == 1"
"$H" -n "${TOPO}s1" detach s1-eth0 --cgroup "$(topo_cgroup s1)" > /dev/null 2> "$T/err"
rc=$?
ktap_diag "detach s1-eth0: exit $rc $(cat "$T/err"); on s1's cgroup: $(sockops_on s1) sock_ops"
ktap_expect "detaching s1-eth0, the last, removes it" \
	"$rc == 0 && $(sockops_on s1) == 0 && $([ -e "$(sockops_pin s1)" ] && echo 1 || echo 0) == 0"

rm -rf "$T"
ktap_finished
