#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS package (dkms.conf) on the running kernel, as README.md has a
# user install it: dkms add, build and install for this kernel, modprobe
# of each module by name (the DKMS copy, not the checkout's build/), a
# short flow over loopback with each congestion control answered in the
# module's counters, then modprobe -r and dkms remove, which must leave
# nothing behind.  The checkout is read-only in the guest: its tracked
# files are copied to a tmpfs first, and dkms add copies them into
# /usr/src, on the guest's overlay, as it would from a checkout.
#
# Under TCG, depmod -a takes 100-140 s on 6.12 (4230 xz-compressed
# modules) and dkms runs it on install and on remove: here it indexes
# updates/ alone, and the kernel's own modules.* files are put back at the
# end (selftests/lib/modpkg.sh).
#
# Under TCG compiling the package took 150-190 s: selftests/run builds it
# on the host before the VM boots (dkms.prep: dkms add, build and
# mktarball for this kernel, natively), and the guest loads that archive
# with dkms ldtarball, DKMS's way to install what another machine built.
# Run without it (by hand in a VM), the test adds and builds in the guest.
# The package is the same source for every kernel: the suite runs it on
# its 6.1 target only.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"
. "$here/../lib/modpkg.sh"

k=$(uname -r)
case $k in
6.1.*) ;;
*) ktap_skip_all "the DKMS package is tested on the 6.1 target (its install's depmod takes 100-140 s of TCG here)" ;;
esac
mods="tcp_csig_opt tcp_hpcc tcp_ldcp"
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
src=/tmp/dkms-src/$name
prep=$top/build/check/prep/$k/dkms
tarball=$prep/$name.tar.gz

command -v dkms > /dev/null || { echo "Bail out! dkms missing (make deps)"; exit 1; }
[ -n "$name" ] && [ -n "$ver" ] ||
	{ echo "Bail out! no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf"; exit 1; }
for m in $mods; do
	[ -d /sys/module/$m ] && { echo "Bail out! $m is loaded already"; exit 1; }
done
[ -e "/usr/src/$name-$ver" ] && { echo "Bail out! /usr/src/$name-$ver exists"; exit 1; }

if [ -f "$prep/prep.log" ]; then
	ktap_plan 17
else
	ktap_plan 18
fi

ns=dkms-t$$
pidfile=/tmp/dkms-iperf3.pid
mok=$([ -e /var/lib/dkms/mok.key ] && echo keep)
cleanup()
{
	[ -s $pidfile ] && kill "$(cat $pidfile)" 2> /dev/null
	ip netns del "$ns" 2> /dev/null
	for m in tcp_hpcc tcp_ldcp tcp_csig_opt; do
		modprobe -r "$m" 2> /dev/null
	done
	dkms remove -m "$name" -v "$ver" --all --no-depmod > /dev/null 2>&1
	modpkg_depmod_end
	[ -n "$mok" ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	rm -rf "/usr/src/$name-$ver" "${src%/*}"
}
trap cleanup EXIT
# ss -ti (modpkg_flows) needs tcp_diag, which modprobe cannot find later
modpkg_depmod_begin inet_diag tcp_diag ||
	{ echo "Bail out! cannot save /lib/modules/*/modules.* or keep depmod to updates/"; exit 1; }
ip netns add "$ns" && ip -n "$ns" link set lo up ||
	{ echo "Bail out! cannot make a network namespace"; exit 1; }

# step NAME CMD...: a timed ktap_run; the log of a failing step is shown
step()
{
	local name=$1 t0=$SECONDS
	shift
	ktap_run "$name" "$@"
	ktap_diag "$name: $((SECONDS - t0)) s"
}

if [ -f "$prep/prep.log" ]; then
	# built on the host for this kernel (dkms.prep)
	ktap_expect "dkms.prep built the package for $k on the host and archived it" \
		"$([ -s "$tarball" ] && echo 1 || echo 0) == 1" \
		"$(tail -n 1 "$prep/prep.log")"
	[ -s "$tarball" ] || sed 's/^/#   prep.log: /' "$prep/prep.log" | tail -n 20
	step "dkms ldtarball $tarball" dkms ldtarball "$tarball"
	st=$(dkms status -m "$name" -v "$ver" -k "$k" 2>&1)
	ktap_expect "dkms status: $name/$ver built for $k, from the archive" \
		"$(grep -c "^$name/$ver, $k, .*: built" <<< "$st") == 1" "$st"
else
	# the files a checkout has, without build/ and editor leftovers
	mkdir -p "$src"
	git -c safe.directory='*' -C "$top" ls-files -z |
		(cd "$top" && xargs -0 cp --parents -t "$src" 2> /dev/null)
	ktap_expect "the checkout's files copied for dkms add" \
		"$([ -f "$src/dkms.conf" ] && [ -f "$src/Kbuild" ] && echo 1 || echo 0) == 1"

	step "dkms add $src" dkms add "$src"
	st=$(dkms status -m "$name" -v "$ver" 2>&1)
	ktap_expect "dkms status: $name/$ver added" \
		"$(grep -c "^$name/$ver: added" <<< "$st") == 1" "$st"

	step "dkms build for $k" dkms build -m "$name" -v "$ver" -k "$k"
	[ "${ktap_failed}" = 0 ] ||
		sed 's/^/#   make.log: /' /var/lib/dkms/"$name/$ver/build/make.log" 2> /dev/null | tail -n 20
fi
step "dkms install for $k" dkms install -m "$name" -v "$ver" -k "$k"
st=$(dkms status -m "$name" -v "$ver" -k "$k" 2>&1)
ktap_expect "dkms status: installed for $k" \
	"$(grep -c "^$name/$ver, $k, .*: installed" <<< "$st") == 1" "$st"

# modprobe finds each one under updates/dkms (depmod ran)
paths=
for m in $mods; do
	paths="$paths $(modinfo -n "$m" 2> /dev/null)"
done
ktap_expect "modinfo -n: all three modules in /lib/modules/$k/updates/dkms" \
	"$(tr ' ' '\n' <<< "$paths" | grep -c "^/lib/modules/$k/updates/dkms/tcp_[a-z_]*\.ko") == 3" \
	"$paths"

# by name; tcp_hpcc needs tcp_csig_opt's symbols: modprobe loads it too
step "modprobe tcp_hpcc" modprobe tcp_hpcc
ktap_expect "tcp_hpcc and the tcp_csig_opt it depends on are loaded" \
	"$([ -d /sys/module/tcp_hpcc ] && [ -d /sys/module/tcp_csig_opt ] && echo 1 || echo 0) == 1"
step "modprobe tcp_ldcp and tcp_csig_opt" \
	sh -c 'modprobe tcp_ldcp && modprobe tcp_csig_opt'
deps=$(modprobe --show-depends tcp_hpcc 2>&1)
ktap_expect "modprobe resolves tcp_hpcc and its dependency to DKMS's files" \
	"$(grep -cF -e "insmod /lib/modules/$k/updates/dkms/tcp_csig_opt.ko" \
		-e "insmod /lib/modules/$k/updates/dkms/tcp_hpcc.ko" <<< "$deps") == 2" \
	"$(tr '\n' ' ' <<< "$deps")"

modpkg_flows "$ns" "$pidfile"

step "modprobe -r tcp_hpcc tcp_ldcp tcp_csig_opt" \
	modprobe -r tcp_hpcc tcp_ldcp tcp_csig_opt
left=
for m in $mods; do
	[ -d /sys/module/$m ] && left="$left $m"
done
ktap_expect "none of them is loaded any more" "\"$left\" == \"\"" "left:$left"

step "dkms remove --all" dkms remove -m "$name" -v "$ver" --all
modpkg_depmod_end
left=$(ls /lib/modules/"$k"/updates/dkms/tcp_* 2> /dev/null)
ktap_expect "the modules are gone from /lib/modules/$k and modprobe no longer finds them" \
	"$([ -z "$left" ] && ! modinfo -n tcp_hpcc > /dev/null 2>&1 && echo 1 || echo 0) == 1" \
	"left: $left"
st=$(dkms status -m "$name" 2>&1)
ktap_expect "dkms status: $name is not known any more" \
	"$(grep -c "^$name/" <<< "$st") == 0" "$st"

ktap_finished
