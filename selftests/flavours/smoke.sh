#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smoke.sh MODDIR: the modules built for another flavour of a target
# kernel (make flavours: build/flavours/KVER/), in a guest booting that
# flavour: they load, a flow over loopback runs with hpcc and one with
# ldcp (each answered in the modules' counters), and they unload.  The
# runner (tools/vm/run) fails the boot on any kernel report in the
# guest's log.  Debian's cloud flavour has no 9p: the runner shares the
# host's root and the checkout over virtiofs there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/modpkg.sh"

dir=${1:?usage: smoke.sh MODDIR}
mods="tcp_csig_opt tcp_hpcc tcp_ldcp"
for m in $mods; do
	[ -f "$dir/$m.ko" ] || { echo "Bail out! no $dir/$m.ko (make flavours)"; exit 1; }
done
command -v iperf3 > /dev/null || { echo "Bail out! iperf3 missing (make deps)"; exit 1; }

ktap_plan 7
ns=smoke-t$$
pidfile=/tmp/smoke-iperf3.pid
cleanup()
{
	[ -s $pidfile ] && kill "$(cat $pidfile)" 2> /dev/null
	ip netns del "$ns" 2> /dev/null
	for m in tcp_hpcc tcp_ldcp tcp_csig_opt; do
		rmmod "$m" 2> /dev/null
	done
}
trap cleanup EXIT

ktap_expect "the guest runs $(uname -r), the modules' kernel" \
	"\"$(modinfo -F vermagic "$dir/tcp_hpcc.ko" | cut -d' ' -f1)\" == \"$(uname -r)\""
# ss -ti (modpkg_flows) needs tcp_diag
modprobe tcp_diag
for m in $mods; do
	ktap_run "insmod $m" insmod "$dir/$m.ko"
done
ip netns add "$ns" && ip -n "$ns" link set lo up ||
	{ echo "Bail out! cannot make a network namespace"; exit 1; }
modpkg_flows "$ns" "$pidfile"
ip netns del "$ns"
ktap_run "rmmod tcp_hpcc tcp_ldcp tcp_csig_opt" rmmod tcp_hpcc tcp_ldcp tcp_csig_opt
ktap_finished
