#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages (make deb) as a user installs them: dpkg -i of
# tcp-dcc-dkms and tcp-dcc-tools, whose postinst has DKMS install the
# modules for the running kernel; modprobe of each module by name (DKMS's
# copy in updates/dkms), a short flow over loopback with each congestion
# control answered in the modules' counters, the tools from the package;
# then modprobe -r and dpkg --purge, which must leave nothing behind:
# no package, no DKMS state, no file in /usr/src, /usr/share, /usr/sbin,
# /usr/lib or /lib/modules.
#
# Built on the host before the VM boots (deb.prep, natively: under TCG
# the packages' build and DKMS's compile would take minutes): the .debs,
# and DKMS's archive of the modules built for this kernel from the
# package's own sources.  The archive goes where the package's postinst
# (DKMS's common.postinst) looks for one, /usr/share/tcp-dcc-dkms, which
# it then loads with dkms ldtarball instead of building: Debian's way to
# ship modules built elsewhere with a DKMS package.  Without deb.prep's
# results the test bails out.
#
# The postinst installs for the running kernel and the newest in /boot
# (DKMS's common.postinst).  On an older kernel (6.1 here, beside 6.12)
# the test makes the machine one that has this kernel alone: it hides
# the newer kernels' /boot/config-* under /dev/null for its run (the
# postinst skips what is not a regular file), so that the postinst
# installs for this kernel, from deb.prep's archive for it.  DKMS's
# depmod on install and removal indexes updates/ alone while the test
# runs (selftests/lib/modpkg.sh): a whole one costs 100-140 s of TCG on
# 6.12.  man-db's trigger would update its database for the tools'
# manual pages, 1.2 s natively and half a minute of TCG: the test turns
# its auto-update off (man-db/auto-update, a user's setting) while it
# runs.  The checkout is read-only in the guest; the archive and the
# packages' files go to the guest's overlay.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/modpkg.sh"

k=$(uname -r)
mods="tcp_csig_opt tcp_hpcc tcp_ldcp"
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
pkgs="$name-dkms $name-tools"
prep=$top/build/check/prep/$k/deb
archive=$prep/$name-$ver.dkms.tar.gz
share=/usr/share/$name-dkms

for c in dpkg dkms iperf3; do
	command -v $c > /dev/null || { echo "Bail out! $c missing (make deps)"; exit 1; }
done
[ -n "$name" ] && [ -n "$ver" ] ||
	{ echo "Bail out! no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf"; exit 1; }
debs=$(ls "$prep"/deb/"$name"-dkms_*_all.deb "$prep"/deb/"$name"-tools_*.deb 2> /dev/null)
if [ "$(wc -w <<< "$debs")" != 2 ] || [ ! -s "$archive" ]; then
	echo "Bail out! no packages or DKMS archive from deb.prep in $prep ($(tail -n 1 "$prep/prep.log" 2> /dev/null))"
	exit 1
fi
for m in $mods; do
	[ -d /sys/module/$m ] && { echo "Bail out! $m is loaded already"; exit 1; }
done
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'installed$' &&
		{ echo "Bail out! $p is installed already"; exit 1; }
done
[ -e "/usr/src/$name-$ver" ] || [ -e "/var/lib/dkms/$name" ] || [ -e "$share" ] &&
	{ echo "Bail out! /usr/src/$name-$ver, /var/lib/dkms/$name or $share exists"; exit 1; }

ktap_plan 17

ns=deb-t$$
pidfile=/tmp/deb-iperf3.pid
mok=$([ -e /var/lib/dkms/mok.key ] && echo keep)
mandb=/var/lib/man-db/auto-update
mandb_was=$([ -e $mandb ] && echo on)
cleanup()
{
	[ -s $pidfile ] && kill "$(cat $pidfile)" 2> /dev/null
	ip netns del "$ns" 2> /dev/null
	for m in tcp_hpcc tcp_ldcp tcp_csig_opt; do
		modprobe -r "$m" 2> /dev/null
	done
	rm -f "$share/$name-$ver.dkms.tar.gz"
	dpkg --purge $pkgs > /dev/null 2>&1
	dkms remove -m "$name" -v "$ver" --all --no-depmod > /dev/null 2>&1
	modpkg_depmod_end
	[ -n "$mok" ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	rm -rf "/usr/src/$name-$ver" "/var/lib/dkms/$name" "$share"
	[ -z "$mandb_was" ] || touch $mandb
	for c in $hidden; do
		umount "$c"
	done
}
hidden=
trap cleanup EXIT
rm -f $mandb
for c in /boot/config-*; do
	v=${c#/boot/config-}
	[ "$v" != "$k" ] && [ "$(printf '%s\n' "$v" "$k" | sort -V | tail -n 1)" = "$v" ] ||
		continue
	mount --bind /dev/null "$c" ||
		{ echo "Bail out! cannot hide $c from the postinst"; exit 1; }
	hidden="$hidden $c"
done
[ -z "$hidden" ] || ktap_diag "hidden from the postinst, a newer kernel:$hidden"
# ss -ti (modpkg_flows) needs tcp_diag, which modprobe cannot find later
modpkg_depmod_begin inet_diag tcp_diag ||
	{ echo "Bail out! cannot save /lib/modules/*/modules.* or keep depmod to updates/"; exit 1; }
ip netns add "$ns" && ip -n "$ns" link set lo up ||
	{ echo "Bail out! cannot make a network namespace"; exit 1; }

# step NAME CMD...: a timed ktap_run
step()
{
	local name=$1 t0=$SECONDS
	shift
	ktap_run "$name" "$@"
	ktap_diag "$name: $((SECONDS - t0)) s"
}

# dpkg_log ARGS...: dpkg with its output in $log, the end of it shown
# when it fails
log=/tmp/deb-dpkg.log
dpkg_log()
{
	local rc

	dpkg "$@" > $log 2>&1
	rc=$?
	[ $rc = 0 ] || tail -n 20 $log
	return $rc
}

# the modules built for this kernel on the host, where the postinst loads
# them from
mkdir -p "$share" && cp "$archive" "$share/" ||
	{ echo "Bail out! cannot copy the DKMS archive to $share"; exit 1; }
# shellcheck disable=SC2086
step "dpkg -i $(basename -a $debs | paste -sd ' ')" dpkg_log -i $debs
st=
for p in $pkgs; do
	st="$st $(dpkg-query -W -f='${Package}=${Status}' "$p" 2> /dev/null)"
done
ktap_expect "dpkg: both packages installed" \
	"$(grep -o '=install ok installed' <<< "$st" | wc -l) == 2" "$st"
ktap_expect "the postinst loaded the archive and built nothing" \
	"$(grep -c "Loading tarball for $name-$ver" $log) == 1 && $(grep -c 'Building initial module' $log) == 0" \
	"$(grep -iE 'tarball|building|skipped' $log | tr '\n' ' ')"
st=$(dkms status -m "$name" -v "$ver" 2> /dev/null)
ktap_expect "dkms status: $name/$ver installed for $k, and for no other kernel" \
	"$(grep -c "^$name/$ver, $k, .*: installed" <<< "$st") == 1 && $(grep -c "^$name/$ver, " <<< "$st") == 1" \
	"$st"

paths=
for m in $mods; do
	paths="$paths $(modinfo -n "$m" 2> /dev/null)"
done
ktap_expect "modinfo -n: all three modules in /lib/modules/$k/updates/dkms" \
	"$(tr ' ' '\n' <<< "$paths" | grep -c "^/lib/modules/$k/updates/dkms/tcp_[a-z_]*\.ko") == 3" \
	"$paths"

# by name; tcp_hpcc needs tcp_csig_opt's symbols: modprobe loads it too
step "modprobe tcp_hpcc" modprobe tcp_hpcc
step "modprobe tcp_ldcp" modprobe tcp_ldcp
ktap_expect "all three are loaded, tcp_csig_opt as tcp_hpcc's dependency" \
	"$([ -d /sys/module/tcp_hpcc ] && [ -d /sys/module/tcp_ldcp ] && [ -d /sys/module/tcp_csig_opt ] && echo 1 || echo 0) == 1"

modpkg_flows "$ns" "$pidfile"

# the tools: ccstat reads INET_DIAG, csigctl links libbpf
out=$(/usr/sbin/ccstat --json hpcc 2>&1)
rc=$?
ktap_expect "tcp-dcc-tools: ccstat --json hpcc runs, csigctl knows its commands, hpccstat and the BPF object are there" \
	"$rc == 0 && $(/usr/sbin/csigctl --help 2>&1 | grep -c '^usage: csigctl') == 1 && $([ -L /usr/sbin/hpccstat ] && [ -s /usr/lib/csig/csig_port.bpf.o ] && echo 1 || echo 0) == 1" \
	"ccstat exited $rc: $(head -c 200 <<< "$out")"

step "modprobe -r tcp_hpcc tcp_ldcp tcp_csig_opt" \
	modprobe -r tcp_hpcc tcp_ldcp tcp_csig_opt
left=
for m in $mods; do
	[ -d /sys/module/$m ] && left="$left $m"
done
ktap_expect "none of them is loaded any more" "\"$left\" == \"\"" "left:$left"

# the test's archive is no file of the package, nor its directory:
# dpkg would leave both behind
rm -f "$share/$name-$ver.dkms.tar.gz"
rmdir "$share"
# shellcheck disable=SC2086
step "dpkg --purge $pkgs" dpkg_log --purge $pkgs
modpkg_depmod_end

st=
for p in $pkgs; do
	st="$st $(dpkg-query -W -f='${Package}=${Status}' "$p" 2> /dev/null)"
done
ktap_expect "dpkg: neither package is installed or configured" \
	"$(grep -cE '=[a-z]+ ok (installed|config-files|half)' <<< "$st") == 0" "$st"
st=$(dkms status -m "$name" 2> /dev/null)
ktap_expect "dkms status: $name is not known any more, /var/lib/dkms/$name is gone" \
	"$(grep -c "^$name/" <<< "$st") == 0 && $([ -e "/var/lib/dkms/$name" ] && echo 1 || echo 0) == 0" "$st"
left=$(ls -d "/usr/src/$name-$ver" "$share" /usr/share/doc/"$name"-* \
	/usr/sbin/csigctl /usr/sbin/ccstat /usr/sbin/hpccstat /usr/lib/csig \
	/usr/share/man/man8/csigctl.8.gz /lib/modules/*/updates/dkms/tcp_* 2> /dev/null)
ktap_expect "no file of theirs is left, and modprobe no longer finds the modules" \
	"$([ -z "$left" ] && ! modinfo -n tcp_hpcc > /dev/null 2>&1 && echo 1 || echo 0) == 1" \
	"left: $(tr '\n' ' ' <<< "$left")"

ktap_finished
