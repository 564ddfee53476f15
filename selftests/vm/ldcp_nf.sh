#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_ldcp's netfilter LOCAL_OUT hooks, which clear ECT on fast start's
# first packets (fs_not_ect=1), are registered only while fs_not_ect is
# on: with it off (the default) no local packet of any namespace runs
# them.
#
# A kprobe on the hook function (ldcp_fs_out) counts its calls; where
# the kernel has nfnetlink_hook (6.12; 6.1's Debian kernel lacks it),
# "nft list hooks" lists the namespace's hooks as well.  Checks: with
# fs_not_ect=0 neither the initial namespace nor one that existed
# before the module runs the hook; a write of 1 registers it in both and
# in a namespace made afterwards, where an ldcp flow's fast start sends
# its first IW - 1 packets not-ECT; a write of 0 removes it everywhere;
# after concurrent writes racing namespaces' creation, each namespace
# has the hook exactly when the parameter says so; rmmod while it is on
# and under concurrent writes; insmod with fs_not_ect=1 registers it.
# The same count shows fast start's IW capped by the ssthresh the kernel
# remembers for the destination (a route's, through tcp_metrics, read
# only where net.ipv4.tcp_no_ssthresh_metrics_save is 0).
#
# Registering a hook flips netfilter's static keys; a no-op nftables
# table in the initial namespace keeps them on throughout (see
# Documentation/testing.rst, "TCG and code patching"), and the kprobe is
# armed unoptimized, before any traffic.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/topo.sh"

LDCP_KO=$top/build/$(uname -r)/tcp_ldcp.ko
P=/sys/module/tcp_ldcp/parameters
KP=ldcp_nf/fs_out
# IW = 100 Mbit/s * 1.5 ms = 18750 bytes: 12 packets of 1448 bytes
IW_ARGS="bw_mbps=100 base_rtt_us=1500"
IW_PK=12

[ -f "$LDCP_KO" ] || { echo "Bail out! run make first"; exit 1; }
[ -d $KTAP_T/events ] || mount -t tracefs nodev $KTAP_T 2> /dev/null
[ -f $KTAP_T/kprobe_events ] || ktap_skip_all "no kprobe events"
ktap_plan 20

# kp_on, kp_off: the kprobe on the module's hook function
kp_on()
{
	echo "p:$KP tcp_ldcp:ldcp_fs_out" >> $KTAP_T/kprobe_events &&
		echo 1 > "$KTAP_T/events/$KP/enable"
}
kp_off()
{
	echo 0 > "$KTAP_T/events/$KP/enable" 2> /dev/null
	echo "-:$KP" >> $KTAP_T/kprobe_events 2> /dev/null
}
hits() { awk -v k="${KP#*/}" '$1 == k { print $2 }' $KTAP_T/kprobe_profile; }
# listening NS PORT: wait up to 10 s for a listener on PORT in NS (the
# initial namespace for ""): a python3 server may take more than a
# second to start in a guest that shares its host
listening()
{
	local x=() i

	[ -n "$1" ] && x=(ip netns exec "$1")
	for i in $(seq 100); do
		"${x[@]}" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
# lo_flow NS PORT: a cubic connection over loopback in namespace NS
# (the initial one for ""), 100 KB
lo_flow()
{
	local x=()

	[ -n "$1" ] && x=(ip netns exec "$1")
	"${x[@]}" ip link set lo up
	"${x[@]}" python3 "$here/../lib/ccprobe.py" server cubic "$2" > /dev/null &
	listening "$1" "$2"
	"${x[@]}" python3 "$here/../lib/ccprobe.py" client cubic "$2" 127.0.0.1 100000 > /dev/null
	wait $!
}
# calls NS PORT: the hook's calls during a loopback flow in NS
calls()
{
	local h0

	h0=$(hits)
	lo_flow "$1" "$2"
	echo $(($(hits) - h0))
}
# nf_hooks NS: the number of ldcp hooks "nft list hooks" shows in NS, or
# "-" where the kernel cannot list them (it must show the holding
# table's own hook in the initial namespace)
NFT_HOOKS=0
modprobe -q nfnetlink_hook 2> /dev/null &&
	nft list hooks 2> /dev/null | grep -q nft_do_chain && NFT_HOOKS=1
nf_hooks()
{
	local x=()

	[ "$NFT_HOOKS" = 1 ] || { echo -; return; }
	[ -n "$1" ] && x=(ip netns exec "$1")
	"${x[@]}" nft list hooks 2> /dev/null | grep -c ldcp_fs_out
}
# nf_expect NAME NS COUNT: nft list hooks shows COUNT ldcp hooks in NS
nf_expect()
{
	local n

	n=$(nf_hooks "$2")
	if [ "$n" = - ]; then
		ktap_skip "$1" "no nfnetlink_hook in this kernel"
	else
		ktap_expect "$1" "$n == $3" "nft list hooks: $n ldcp hooks"
	fi
}
NIPV=2
[ -d /proc/sys/net/ipv6 ] || NIPV=1

cleanup()
{
	kp_off
	topo_cleanup
	nft delete table inet ldcp_nf_hold 2> /dev/null
}
trap cleanup EXIT
nft -f - <<'NFT'
table inet ldcp_nf_hold {
	chain out { type filter hook output priority 0; policy accept; }
}
NFT
[ "$NFT_HOOKS" = 0 ] && modprobe -q nfnetlink_hook 2> /dev/null &&
	nft list hooks 2> /dev/null | grep -q nft_do_chain && NFT_HOOKS=1
sysctl -qw debug.kprobes-optimization=0 2> /dev/null
modprobe -q tcp_diag

ip netns add "${TOPO}old"
ktap_run "insmod tcp_ldcp $IW_ARGS (fs_not_ect=0)" insmod "$LDCP_KO" $IW_ARGS
kp_on || { ktap_fail "kprobe on ldcp_fs_out"; ktap_finished; }

c0=$(calls "" 7001)
c1=$(calls "${TOPO}old" 7002)
ktap_expect "fs_not_ect=0: no local packet runs the hook, in the initial namespace or one made before" \
	"$c0 == 0 && $c1 == 0" "hook calls: $c0 initial, $c1 earlier namespace"
nf_expect "fs_not_ect=0: no ldcp hook registered" "" 0

echo 1 > $P/fs_not_ect
c0=$(calls "" 7003)
c1=$(calls "${TOPO}old" 7004)
ktap_expect "fs_not_ect=1: the hook runs in the initial namespace and in one made before" \
	"$c0 > 0 && $c1 > 0" "hook calls: $c0 initial, $c1 earlier namespace"
nf_expect "fs_not_ect=1: ldcp's IPv4 and IPv6 hooks registered" "" $NIPV

# a pair of namespaces made while fs_not_ect=1, an ldcp flow between them
ip netns add "${TOPO}a" && ip netns add "${TOPO}b" &&
	ip -n "${TOPO}a" link add a0 type veth peer name b0 netns "${TOPO}b" &&
	ip -n "${TOPO}a" addr add 198.19.10.1/24 dev a0 && ip -n "${TOPO}a" link set a0 up &&
	ip -n "${TOPO}b" addr add 198.19.10.2/24 dev b0 && ip -n "${TOPO}b" link set b0 up &&
	ip -n "${TOPO}a" link set lo up && ip -n "${TOPO}b" link set lo up
# ctr NAME: counter NAME of /proc/net/tcp_ldcp in namespace a
ctr() { topo_exec a awk -v k="$1" '$1 == k { print $2 }' /proc/net/tcp_ldcp; }
e0=$(ctr fs_not_ect)
h0=$(hits)
probe=$(mktemp)
topo_exec b python3 "$here/../lib/ccprobe.py" server ldcp 7005 > "$probe" &
listening "${TOPO}b" 7005
cli=$(topo_exec a python3 "$here/../lib/ccprobe.py" client ldcp 7005 198.19.10.2 300000)
wait $!
e=$(($(ctr fs_not_ect) - e0))
c2=$(($(hits) - h0))
ktap_expect "a namespace made while fs_not_ect=1 has the hook: fast start's first IW - 1 packets leave not-ECT" \
	"$c2 > 0 && $e == $IW_PK - 1 && $(echo "$cli $(cat "$probe")" | grep -o 'cc ldcp ecn 1' | wc -l) == 2" \
	"hook calls $c2; fs_not_ect +$e (IW $IW_PK packets); client $cli, server $(cat "$probe")"
nf_expect "... and nft list hooks shows it there" "${TOPO}a" $NIPV

# fs_flow PORT: an ldcp flow from a to b; prints fast start's not-ECT
# packets (IW - 1)
fs_flow()
{
	local e0

	e0=$(ctr fs_not_ect)
	topo_exec b python3 "$here/../lib/ccprobe.py" server ldcp "$1" > /dev/null &
	listening "${TOPO}b" "$1"
	topo_exec a python3 "$here/../lib/ccprobe.py" client ldcp "$1" 198.19.10.2 100000 > /dev/null
	wait $!
	echo $(($(ctr fs_not_ect) - e0))
}
# The IW is at most the ssthresh the kernel remembers for the
# destination: here a route's locked ssthresh of 5, which tcp_metrics
# takes into the entry the first flow's close makes, and which the next
# flow reads only where tcp_no_ssthresh_metrics_save is 0
ip -n "${TOPO}a" route replace 198.19.10.2/32 dev a0 ssthresh lock 5 &&
	ip -n "${TOPO}a" tcp_metrics flush all 2> /dev/null
topo_exec a sysctl -qw net.ipv4.tcp_no_ssthresh_metrics_save=0
r0=$(ctr iw_remembered)
e1=$(fs_flow 7009)
r1=$(ctr iw_remembered)
e2=$(fs_flow 7010)
r2=$(ctr iw_remembered)
m=$(ip -n "${TOPO}a" tcp_metrics show 198.19.10.2 2> /dev/null)
ktap_expect "a route's ssthresh 5, kept by tcp_metrics: the next flow's fast start has an IW of 5, counted" \
	"$e1 == $IW_PK - 1 && $e2 == 4 && $r1 == $r0 && $r2 == $r1 + 1" \
	"not-ECT packets: $e1 (a flow before the entry), then $e2; iw_remembered $r0 $r1 $r2; tcp_metrics: ${m:-none}"
topo_exec a sysctl -qw net.ipv4.tcp_no_ssthresh_metrics_save=1
e3=$(fs_flow 7011)
ktap_expect "... and the IW again where tcp_no_ssthresh_metrics_save is 1 (the default)" \
	"$e3 == $IW_PK - 1 && $(ctr iw_remembered) == $r2" "not-ECT packets: $e3; iw_remembered $(ctr iw_remembered)"

echo 0 > $P/fs_not_ect
c0=$(calls "" 7006)
c1=$(calls "${TOPO}old" 7007)
c2=$(calls "${TOPO}a" 7008)
ktap_expect "fs_not_ect=0 again: the hook runs in no namespace" \
	"$c0 == 0 && $c1 == 0 && $c2 == 0" "hook calls: $c0 initial, $c1 earlier, $c2 later namespace"
nf_expect "fs_not_ect=0 again: no ldcp hook in the initial namespace" "" 0
nf_expect "... nor in the later one" "${TOPO}a" 0

# concurrent writes while namespaces come and go
flip()
{
	local i

	for i in $(seq "$1"); do
		echo 1 > $P/fs_not_ect
		echo 0 > $P/fs_not_ect
	done 2> /dev/null
}
flip 40 & f1=$!
flip 40 & f2=$!
for i in $(seq 8); do
	ip netns add "${TOPO}z$i"
	ip netns add "${TOPO}t$i" && ip netns del "${TOPO}t$i"
done
wait $f1 $f2
ktap_expect "80 writes of 1 and 0 from two writers racing 16 namespaces' creation: the last one holds" \
	"$(cat $P/fs_not_ect) == 0"
miss=
echo 1 > $P/fs_not_ect
for i in $(seq 8); do
	[ "$(calls "${TOPO}z$i" $((7100 + i)))" -gt 0 ] || miss="$miss z$i"
done
ktap_expect "then fs_not_ect=1: each of the 8 namespaces made meanwhile runs the hook" \
	"\"$miss\" == \"\"" "without it:${miss:- none}"
extra=
echo 0 > $P/fs_not_ect
for i in $(seq 8); do
	[ "$(calls "${TOPO}z$i" $((7200 + i)))" -eq 0 ] || extra="$extra z$i"
done
ktap_expect "and fs_not_ect=0: none of them does" "\"$extra\" == \"\"" "with it:${extra:- none}"

# unload while on, and while writes race the unload
echo 1 > $P/fs_not_ect
kp_off
ktap_run "rmmod with fs_not_ect=1" rmmod tcp_ldcp
insmod "$LDCP_KO" $IW_ARGS
flip 50 & f1=$!
sleep 0.3
for i in $(seq 50); do
	rmmod tcp_ldcp 2> /dev/null && break
	sleep 0.1
done
wait $f1
ktap_expect "rmmod under concurrent writes of fs_not_ect" "$(grep -c '^tcp_ldcp ' /proc/modules) == 0"

ktap_run "insmod tcp_ldcp fs_not_ect=1" insmod "$LDCP_KO" $IW_ARGS fs_not_ect=1
kp_on
c0=$(calls "" 7009)
c1=$(calls "${TOPO}old" 7010)
ktap_expect "loaded with fs_not_ect=1: the hook runs in every namespace from the start" \
	"$c0 > 0 && $c1 > 0" "hook calls: $c0 initial, $c1 earlier namespace"
kp_off
ktap_run "rmmod tcp_ldcp" rmmod tcp_ldcp
ktap_finished
