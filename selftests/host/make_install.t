#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install, as README.md has a user run it, for each target kernel,
# staged under a directory of this test's own (INSTALL_MOD_PATH and
# DESTDIR): the three modules land in /lib/modules/KVER/updates, built
# for KVER (modinfo's vermagic), the tools and the BPF object where the
# README says; depmod over the staged tree (with the kernel's own
# modules.order and modules.builtin next to them) then resolves each
# module by name, tcp_hpcc and tcp_ldcp with the tcp_csig_opt they
# depend on.  The host's own /lib/modules and /usr/local must stay as
# they were.
# Loading the installed modules is the VM's part (selftests/vm/deb.sh
# does it for the Debian package, which installs the same files).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"

command -v depmod > /dev/null && command -v modprobe > /dev/null ||
	ktap_skip_all "needs kmod's depmod and modprobe"
kvers=$("$top/tools/kvers.sh")
[ -n "$kvers" ] || ktap_skip_all "no target kernel (make deps)"
mods="tcp_csig_opt tcp_hpcc tcp_ldcp"

ktap_plan $(($(wc -w <<< "$kvers") * 4 + 1))

# the host's trees make install would write to, as ls sees them
host_state()
{
	local k

	for k in $kvers; do
		ls -l --time-style=full-iso "/lib/modules/$k/updates" 2> /dev/null
	done
	ls -l --time-style=full-iso /usr/local/sbin /usr/local/lib/csig 2> /dev/null
}
before=$(host_state)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for k in $kvers; do
	d=$stage/$k
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" -s install \
		KVER="$k" INSTALL_MOD_PATH="$d" DESTDIR="$d" 2>&1)
	rc=$?
	got=0 vm=0
	for m in $mods; do
		f=$(ls "$d/lib/modules/$k/updates/$m.ko"* 2> /dev/null | head -n 1)
		[ -n "$f" ] && got=$((got + 1))
		[ -n "$f" ] && [ "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" = "$k" ] &&
			vm=$((vm + 1))
	done
	ktap_expect "$k: make install exits 0, the three modules in /lib/modules/$k/updates" \
		"$rc == 0 && $got == 3" "exit $rc; $(tail -n 3 <<< "$out" | tr '\n' ' ')"
	ktap_expect "$k: ... built for $k (vermagic)" "$vm == 3"
	tools=0
	for f in usr/local/sbin/csigctl usr/local/sbin/csighost usr/local/sbin/ccstat \
		 usr/local/sbin/hpccstat usr/local/lib/csig/csig_port.bpf.o \
		 usr/local/share/tcp-dcc/wireshark/csig.lua; do
		[ -e "$d/$f" ] && tools=$((tools + 1))
	done
	ktap_expect "$k: csigctl, csighost, ccstat, hpccstat, csig_port.bpf.o and the Wireshark dissector installed" \
		"$tools == 6"

	# depmod over the staged tree, with the kernel's own lists beside it
	cp /lib/modules/"$k"/modules.order /lib/modules/"$k"/modules.builtin* \
		"$d/lib/modules/$k/" 2> /dev/null
	depmod -b "$d" "$k" 2> /dev/null
	res=0
	for m in $mods; do
		modprobe -d "$d" -S "$k" --show-depends "$m" 2> /dev/null |
			grep -q "updates/$m.ko" && res=$((res + 1))
	done
	dep=$(modprobe -d "$d" -S "$k" --show-depends tcp_hpcc 2> /dev/null | tr '\n' ' ')
	ktap_expect "$k: depmod resolves all three by name, tcp_hpcc with tcp_csig_opt" \
		"$res == 3 && $(grep -c 'updates/tcp_csig_opt.ko' <<< "$dep") == 1" "$dep"
done
# nothing outside the stage: the host's own trees as they were
same=0
[ "$(host_state)" = "$before" ] && same=1
ktap_expect "the host's /lib/modules/*/updates and /usr/local untouched" "$same == 1"
ktap_finished
