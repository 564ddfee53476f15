#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc_bpf and ldcp_bpf against the target kernels' BTF, without booting
# them: for each installed 6.1 and 6.12 image (/boot/vmlinuz-*), its
# vmlinux and BTF are taken out of the image; every CO-RE relocation of
# both objects must resolve against that BTF, the kernel must have
# struct_ops congestion controls, the Reno functions hpcc_bpf calls and
# the TCP socket iterator, and its cong_control must take the arguments
# the loader reads for it (2 before 6.10, 4 since).  A negative control
# first: against a BTF without the kernel's types, relocations fail.
#
# This checks what libbpf does with the object on those kernels, not
# their verifiers (selftests/vm/hpcc_bpf.sh and ldcp_bpf.sh load the
# objects there).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
C=$top/build/selftests/core_check
B=$top/build/bpf

[ -x "$C" ] || { echo "Bail out! build/selftests/core_check missing (make unit)"; exit 1; }
[ -f "$B/tcp_hpcc.bpf.o" ] || { echo "Bail out! build/bpf/tcp_hpcc.bpf.o missing (make tools)"; exit 1; }
[ "$(id -u)" = 0 ] || ktap_skip_all "needs root (the images are root's, libbpf loads)"
images=$(ls /boot/vmlinuz-6.1.* /boot/vmlinuz-6.12.* 2> /dev/null)
[ -n "$images" ] || ktap_skip_all "no 6.1 or 6.12 image in /boot"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# vmlinux IMAGE OUT: the ELF inside a bzImage (xz or zstd, Debian's)
vmlinux()
{
	local off

	off=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$1" | head -n 1 | cut -d: -f1)
	if [ -n "$off" ]; then
		tail -c +$((off + 1)) "$1" | xz -dc > "$2" 2> /dev/null
	else
		off=$(LC_ALL=C grep -abo $'\x28\xb5\x2f\xfd' "$1" | head -n 1 | cut -d: -f1)
		[ -n "$off" ] && tail -c +$((off + 1)) "$1" | zstd -dcq > "$2" 2> /dev/null
	fi
	[ "$(head -c 4 "$2" 2> /dev/null)" = $'\x7fELF' ]
}

n=$(wc -w <<< "$images")
ktap_plan $((1 + n * 5))

r=$("$C" "$B/tcp_ldcp.bpf.o" "$B/csig_port.bpf.o" 2> /dev/null)
ktap_expect "negative control: against a BTF without the kernel's types, relocations fail ($r)" \
	"$(awk '{ print $4 + $6 }' <<< "$r") + 0 > 0"

for img in $images; do
	k=${img#/boot/vmlinuz-}
	if ! vmlinux "$img" "$tmp/vmlinux"; then
		for i in 1 2 3 4 5; do
			ktap_fail "$k: no vmlinux out of $img"
		done
		continue
	fi
	bpftool btf dump file "$tmp/vmlinux" > "$tmp/raw" 2> /dev/null
	bpftool btf dump file "$tmp/vmlinux" format c > "$tmp/c" 2> /dev/null
	for o in tcp_hpcc tcp_ldcp; do
		r=$("$C" "$B/$o.bpf.o" "$tmp/vmlinux" 2> "$tmp/err")
		d=$(head -n 3 "$tmp/err")
		ktap_expect "$k: $o's CO-RE relocations resolve ($r)" \
			"$(awk '{ print $2 }' <<< "$r") + 0 > 100 && $(awk '{ print $4 }' <<< "$r") + 0 == 0" \
			${d:+"$d"}
	done
	ktap_expect "$k: struct_ops congestion controls" \
		"$(grep -c "STRUCT 'bpf_struct_ops_tcp_congestion_ops'" "$tmp/raw") == 1"
	ktap_expect "$k: tcp_reno_cong_avoid, tcp_reno_undo_cwnd and the TCP iterator" \
		"$(grep -cE "FUNC '(tcp_reno_cong_avoid|tcp_reno_undo_cwnd|bpf_iter_tcp)'" "$tmp/raw") == 3"
	# the loader's reading (dccbpf.c, cong_control_ack()) of this kernel
	args=$(awk '/^struct tcp_congestion_ops \{/ { f = 1 } f && /\(\*cong_control\)/ {
		sub(/.*\(\*cong_control\)\(/, ""); print split($0, a, ","); exit }' "$tmp/c")
	case $k in
	6.1.*) want=2;;
	*) want=4;;
	esac
	ktap_expect "$k: cong_control takes $want arguments (has ${args:-?})" "${args:-0} == $want"
done
ktap_finished
