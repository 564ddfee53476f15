#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A parking lot of two bottlenecks, for selftests/bench/parking.sh:
#
#   s1 --\                              /-- r1
#         [ sw1 ] --sw1-l==>-- [ sw2 ] +
#   s2 --/                     s3 --/   \==sw2-r2==>-- r2
#
# Two switch namespaces, each a Linux bridge; bottleneck 1 is the egress
# of sw1's port toward sw2 (sw1-l), bottleneck 2 that of sw2's port toward
# r2 (sw2-r2), both htb at TOPO_RATE with a leaf qdisc.  Flow A (s1 -> r2)
# crosses both, flow B (s2 -> r1) only the first, flow C (s3 -> r2) only
# the second: max-min fairness gives each half of a link.  The base delay
# is netem on the switches' ports toward the senders (the ACK path).
# Addresses as topo.sh's (r2 is TOPO_RCV_IP, r1 198.18.0.2, sI
# topo_sender_ip I).  Needs topo.sh (names, cleanup, csigctl) and cc.sh.

PK_R1_IP=198.18.0.2

# _pk_host NS IF SW PORT IP: a host NS on bridge SW through PORT
_pk_host()
{
	ip netns add "${TOPO}$1" || return 1
	ip -n "${TOPO}$3" link add "$4" type veth peer name "$2" netns "${TOPO}$1" || return 1
	ip -n "${TOPO}$3" link set "$4" master br0 up || return 1
	ip -n "${TOPO}$1" link set lo up
	ip -n "${TOPO}$1" link set "$2" up
	ip -n "${TOPO}$1" addr add "$5/24" dev "$2"
}

# _pk_shape SW DEV LEAF...: htb at TOPO_RATE on DEV's egress, LEAF under it
_pk_shape()
{
	local sw=$1 dev=$2

	shift 2
	tc -n "${TOPO}$sw" qdisc del dev "$dev" root 2> /dev/null
	tc -n "${TOPO}$sw" qdisc add dev "$dev" root handle 1: htb default 1 &&
	tc -n "${TOPO}$sw" class add dev "$dev" parent 1: classid 1:1 htb \
		rate "$TOPO_RATE" ceil "$TOPO_RATE" quantum 60000 &&
	tc -n "${TOPO}$sw" qdisc add dev "$dev" parent 1:1 handle 10: "$@"
}

# pk_build: the parking lot, fifo leaves
pk_build()
{
	local sw

	modprobe -q veth; modprobe -q bridge; modprobe -q sch_htb; modprobe -q sch_netem
	trap topo_cleanup EXIT
	for sw in sw1 sw2; do
		ip netns add "${TOPO}$sw" || return 1
		ip -n "${TOPO}$sw" link set lo up
		ip -n "${TOPO}$sw" link add br0 type bridge forward_delay 0 || return 1
		ip -n "${TOPO}$sw" link set br0 up
	done
	ip -n "${TOPO}sw1" link add sw1-l type veth peer name sw2-l netns "${TOPO}sw2" || return 1
	ip -n "${TOPO}sw1" link set sw1-l master br0 up || return 1
	ip -n "${TOPO}sw2" link set sw2-l master br0 up || return 1
	_pk_host s1 s1-eth0 sw1 sw1-s1 "$(topo_sender_ip 1)" || return 1
	_pk_host s2 s2-eth0 sw1 sw1-s2 "$(topo_sender_ip 2)" || return 1
	_pk_host s3 s3-eth0 sw2 sw2-s3 "$(topo_sender_ip 3)" || return 1
	_pk_host r1 r1-eth0 sw2 sw2-r1 "$PK_R1_IP" || return 1
	_pk_host r2 r2-eth0 sw2 sw2-r2 "$TOPO_RCV_IP" || return 1
	tc -n "${TOPO}sw1" qdisc add dev sw1-s1 root netem delay "$TOPO_DELAY" limit 100000 &&
	tc -n "${TOPO}sw1" qdisc add dev sw1-s2 root netem delay "$TOPO_DELAY" limit 100000 &&
	tc -n "${TOPO}sw2" qdisc add dev sw2-s3 root netem delay "$TOPO_DELAY" limit 100000 || return 1
	pk_set_leaf pfifo limit 1000
}

# pk_set_leaf LEAF...: both bottlenecks with LEAF
pk_set_leaf()
{
	_pk_shape sw1 sw1-l "$@" && _pk_shape sw2 sw2-r2 "$@"
}

# pk_stat N FIELD: bottleneck N's htb "bytes" (tx bytes), or the leaf's
# "dropped" or "marked"
pk_stat()
{
	local sw dev v

	if [ "$1" = 1 ]; then
		sw=sw1 dev=sw1-l
	else
		sw=sw2 dev=sw2-r2
	fi
	case $2 in
	bytes)	v=$(tc -n "${TOPO}$sw" -s class show dev "$dev" classid 1:1 |
			awk '$1 == "Sent" { print $2; exit }') ;;
	dropped) v=$(tc -n "${TOPO}$sw" -s qdisc show dev "$dev" parent 1:1 |
			sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1) ;;
	*)	v=$(topo_tc_stat "$sw" "$dev" "parent 1:1" "$2") ;;
	esac
	echo "${v:-0}"
}

# pk_config CC: CC as every host's default, both bottlenecks' leaves and
# the CSIG roles for CC (as cc_config does for the dumbbell): the
# transit role on both bottleneck ports, whose models give the queues
# for every algorithm; for hpcc, U inserted on the senders' ports, so
# that a packet of flow A carries the larger of the two links' U
pk_config()
{
	local leaf

	topo_set_cc "$1" s1 s2 s3 r1 r2 || return 1
	topo_csigctl sw1 detach sw1-l 2> /dev/null
	topo_csigctl sw2 detach sw2-r2 2> /dev/null
	cc_detach_u
	leaf=$(cc_leaf "$1") || return 1
	# shellcheck disable=SC2086 # the leaf is words: qdisc, parameters
	pk_set_leaf $leaf || return 1
	cc_transit sw1 sw1-l "${RATE_MBIT}mbit" &&
	cc_transit sw2 sw2-r2 "${RATE_MBIT}mbit" || return 1
	[ "$1" = hpcc ] || return 0
	cc_insert_u s1 s2 s3
}
