# SPDX-License-Identifier: GPL-2.0
#
# What the tests of the packaged modules share (deb.sh): a
# depmod that costs no time under TCG, and a short flow with each
# congestion control, answered in the modules' counters.  Needs ktap.sh.
#
# depmod: DKMS runs "depmod -a KVER" for each kernel on every install and
# removal.  It reads every module of the kernel, 4230 xz-compressed ones
# on 6.12: 100-140 s of TCG each time (5 s natively).  Between
# modpkg_depmod_begin and modpkg_depmod_end a depmod.d(5) "exclude kernel"
# keeps it out of /lib/modules/KVER/kernel: it indexes updates/ alone, in
# a fraction of a second, and that is all modprobe needs for the
# project's modules, which depend on each other and the built-in kernel
# only.  Meanwhile modprobe finds none of the kernel's own modules: the
# test names those it needs to modprobe_depmod_begin, which loads them
# first.  modpkg_depmod_end puts back each kernel's modules.* as they
# were, so that later tests find the kernel's modules and not the
# package's.

modpkg_depmod_conf=/etc/depmod.d/zz-selftests-updates-only.conf
modpkg_depmod_saved=/tmp/modpkg-depmod.$$
modpkg_depmod_mkdir=

# modpkg_depmod_begin [MODULE...]: load the MODULEs, save every kernel's
# modules.*, and keep depmod to updates/; non-zero if any step failed
modpkg_depmod_begin()
{
	local d k

	[ $# = 0 ] || modprobe -a "$@" || return 1
	for d in /lib/modules/*/; do
		k=$(basename "$d")
		[ -f "$d/modules.dep" ] || continue
		mkdir -p "$modpkg_depmod_saved/$k" &&
			cp -a "$d"/modules.* "$modpkg_depmod_saved/$k/" || return 1
	done
	if [ ! -d /etc/depmod.d ]; then
		mkdir /etc/depmod.d || return 1
		modpkg_depmod_mkdir=1
	fi
	echo "exclude kernel" > "$modpkg_depmod_conf"
}

# modpkg_depmod_end: depmod as before, each kernel's modules.* as
# modpkg_depmod_begin found them (again: a no-op)
modpkg_depmod_end()
{
	local d k

	rm -f "$modpkg_depmod_conf"
	if [ -n "$modpkg_depmod_mkdir" ]; then
		rmdir /etc/depmod.d 2> /dev/null
		modpkg_depmod_mkdir=
	fi
	[ -d "$modpkg_depmod_saved" ] || return 0
	for d in "$modpkg_depmod_saved"/*/; do
		[ -d "$d" ] || continue
		k=$(basename "$d")
		cp -a "$d"/modules.* "/lib/modules/$k/"
	done
	rm -rf "$modpkg_depmod_saved"
}

# modpkg_ctr NS FILE KEY: counter KEY of /proc/net/FILE in namespace NS
modpkg_ctr()
{
	ip netns exec "$1" awk -v k="$3" '$1 == k { print $2 }' "/proc/net/$2"
}

# modpkg_flow NS PIDFILE CC: a 3 s flow over NS's loopback with congestion
# control CC; prints CC if ss -ti showed it on the flow while it ran
modpkg_flow()
{
	local ns=$1 pidfile=$2 cc=$3 pid

	ip netns exec "$ns" iperf3 -s -D -1 -B 127.0.0.1 -I "$pidfile" > /dev/null 2>&1
	sleep 0.5
	ip netns exec "$ns" iperf3 -c 127.0.0.1 -t 3 -C "$cc" > /dev/null 2>&1 &
	pid=$!
	# until the client is done: its first start in a boot can be slow
	while kill -0 $pid 2> /dev/null; do
		ip netns exec "$ns" ss -tinH dst 127.0.0.1:5201 |
			grep -qE "(^|[[:space:]])$cc([[:space:]]|$)" && { echo "$cc"; break; }
		sleep 0.2
	done
	wait $pid
}

# modpkg_flows NS PIDFILE: two checks: a flow with hpcc moves tcp_hpcc's
# and tcp_csig_opt's counters, one with ldcp tcp_ldcp's
modpkg_flows()
{
	local ns=$1 pidfile=$2 h0 n0 o0 l0 a0 seen rc

	h0=$(modpkg_ctr "$ns" tcp_hpcc flows)
	n0=$(modpkg_ctr "$ns" tcp_hpcc flows_no_csig)
	o0=$(modpkg_ctr "$ns" csig_opt negotiated)
	seen=$(modpkg_flow "$ns" "$pidfile" hpcc)
	rc=$?
	ktap_expect "hpcc: a flow over loopback ran with it (ss: '$seen'), its counters and tcp_csig_opt's moved" \
		"$rc == 0 && \"$seen\" == \"hpcc\" && $(modpkg_ctr "$ns" tcp_hpcc flows) + $(modpkg_ctr "$ns" tcp_hpcc flows_no_csig) > $h0 + $n0 && $(modpkg_ctr "$ns" csig_opt negotiated) > $o0" \
		"hpcc flows $(modpkg_ctr "$ns" tcp_hpcc flows) (was $h0), without CSIG $(modpkg_ctr "$ns" tcp_hpcc flows_no_csig) (was $n0); csig_opt negotiated $(modpkg_ctr "$ns" csig_opt negotiated) (was $o0)"
	l0=$(modpkg_ctr "$ns" tcp_ldcp flows)
	a0=$(modpkg_ctr "$ns" tcp_ldcp acks)
	seen=$(modpkg_flow "$ns" "$pidfile" ldcp)
	rc=$?
	ktap_expect "ldcp: a flow over loopback ran with it (ss: '$seen'), its counters moved" \
		"$rc == 0 && \"$seen\" == \"ldcp\" && $(modpkg_ctr "$ns" tcp_ldcp flows) > $l0 && $(modpkg_ctr "$ns" tcp_ldcp acks) > $a0" \
		"ldcp flows $(modpkg_ctr "$ns" tcp_ldcp flows) (was $l0), acks $(modpkg_ctr "$ns" tcp_ldcp acks) (was $a0)"
}
