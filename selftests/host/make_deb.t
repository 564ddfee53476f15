#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb on the host, into a directory of this test's own: both packages
# build and lintian finds no error in them (make deb fails otherwise);
# tcp-dcc-dkms holds exactly what DKMS builds the modules from, in
# /usr/src/NAME-VERSION as dkms.conf names it (Kbuild, each module's
# source and headers, include/), with the checkout's dkms.conf, and
# maintainer scripts that have DKMS install and remove the modules;
# tcp-dcc-tools holds the tools, their manual pages and the BPF object.
# Installing them is the VM's part (selftests/vm/deb.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"

for c in dpkg-buildpackage dh_dkms clang bpftool; do
	command -v $c > /dev/null || ktap_skip_all "needs $c (make deps)"
done
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

ktap_plan 6

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
log=$out/make.log
make -C "$top" --no-print-directory deb DEB_DIR="$out/deb" > "$log" 2>&1
rc=$?
d=$([ $rc = 0 ] || tail -n 20 "$log" | tr '\n' '|')
ktap_expect "make deb: both packages built, lintian found no error" "$rc == 0" ${d:+"$d"}
dkms_deb=$(ls "$out"/deb/"$name"-dkms_"$ver"_all.deb 2> /dev/null)
tools_deb=
for f in "$out"/deb/"$name"-tools_"$ver"_*.deb; do
	[ -f "$f" ] && tools_deb=$f
done

# the files of a package, without directories, as "path" or "path -> target"
files()
{
	dpkg-deb -c "$1" 2> /dev/null | awk '$1 !~ /^d/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +\.\//, ""); print }' | sort
}

src=usr/src/$name-$ver
want=$( (cd "$top" && git -c safe.directory='*' ls-files Kbuild dkms.conf 'tcp_*.c' 'tcp_*.h' 'include/*.h') |
	sed "s|^|$src/|"; echo "usr/share/doc/$name-dkms/changelog.gz"; echo "usr/share/doc/$name-dkms/copyright")
got=$(files "$dkms_deb")
d=$(diff <(sort <<< "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')
ktap_expect "$name-dkms: Kbuild, dkms.conf, the modules' sources and include/ in /$src, and nothing else" \
	"$([ -n "$got" ] && [ "$got" = "$(sort <<< "$want")" ] && echo 1 || echo 0) == 1" ${d:+"$d"}
conf=$(dpkg-deb --fsys-tarfile "$dkms_deb" 2> /dev/null | tar -xO "./$src/dkms.conf" 2> /dev/null)
ktap_expect "$name-dkms: its dkms.conf is the checkout's" \
	"$([ -n "$conf" ] && [ "$conf" = "$(cat "$top/dkms.conf")" ] && echo 1 || echo 0) == 1"
ctl=$out/ctl
dpkg-deb -e "$dkms_deb" "$ctl" 2> /dev/null
ktap_expect "$name-dkms: depends on dkms; its postinst runs DKMS's common.postinst for $name $ver, its prerm dkms remove" \
	"$(dpkg-deb -f "$dkms_deb" Depends 2> /dev/null | grep -c '^dkms') == 1 && $(grep -c 'common.postinst' "$ctl/postinst" 2> /dev/null) >= 1 && $(grep -c "^DKMS_NAME=$name\$" "$ctl/postinst" "$ctl/prerm" 2> /dev/null | grep -c ':1$') == 2 && $(grep -c 'dkms remove' "$ctl/prerm" 2> /dev/null) == 1"
got=$(files "$tools_deb")
want="usr/lib/csig/csig_port.bpf.o
usr/sbin/ccstat
usr/sbin/csigctl
usr/sbin/csighost
usr/sbin/hpccstat -> ccstat
usr/share/doc/$name-tools/changelog.gz
usr/share/doc/$name-tools/copyright
usr/share/lintian/overrides/$name-tools
usr/share/man/man8/ccstat.8.gz
usr/share/man/man8/csigctl.8.gz
usr/share/man/man8/hpccstat.8.gz -> ccstat.8.gz
usr/share/tcp-dcc/wireshark/csig.lua"
d=$(diff <(sort <<< "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')
ktap_expect "$name-tools: csigctl, csighost, ccstat and hpccstat, manual pages, the BPF object, the Wireshark dissector" \
	"$([ "$got" = "$(sort <<< "$want")" ] && echo 1 || echo 0) == 1" ${d:+"$d"}
x=$out/x
dpkg-deb -x "$tools_deb" "$x" 2> /dev/null
ktap_expect "$name-tools: csigctl and csighost run and depend on libbpf; the BPF object is eBPF" \
	"$("$x/usr/sbin/csigctl" --help 2>&1 | grep -c '^usage: csigctl') == 1 && $("$x/usr/sbin/csighost" --help 2>&1 | grep -c '^usage: csighost') == 1 && $(dpkg-deb -f "$tools_deb" Depends 2> /dev/null | grep -c 'libbpf') == 1 && $(readelf -h "$x/usr/lib/csig/csig_port.bpf.o" 2> /dev/null | grep -c 'Linux BPF') == 1"

ktap_finished
