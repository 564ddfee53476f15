#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The setting of the host tests of the CSIG host path
# (selftests/host/csig_host.t and the tests around its flows): hosts that
# are network namespaces, each with a cgroup of its own, built with
# selftests/lib/topo.sh, in a private mount namespace with a BPF
# filesystem of its own, so that the host's pins (another loader's, at
# /sys/fs/bpf/tcp-dcc) are never touched.  Sourced after
# selftests/lib/ktap.sh, with $top the checkout.

# csig_hostns PREFIX COMMAND...: bail out without csighost or csigctl
# (H and C, their paths); skip the test without root, kernel BTF, one of
# the COMMANDs or a cgroup v2 hierarchy; run the test again in a mount
# namespace of its own with a BPF filesystem of its own (the rest of the
# current run does not happen); then source topo.sh with TOPO=PREFIX<pid>-.
csig_hostns()
{
	local prefix=$1 self c missing=

	shift
	H=$top/build/bin/csighost
	C=$top/build/bin/csigctl
	self=$top/selftests/host/$(basename "$0")
	[ -x "$H" ] && [ -x "$C" ] || { echo "Bail out! build/bin/csighost or csigctl missing (make tools)"; exit 1; }
	[ "$(id -u)" = 0 ] || ktap_skip_all "needs root"
	[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "needs a kernel with BTF"
	for c; do
		command -v "$c" > /dev/null || missing=1
	done
	[ -z "$missing" ] || ktap_skip_all "needs $(csig_hostns_list "$@")"

	if [ "$CSIG_HOSTNS_PRIVATE" != "$self" ]; then
		CSIG_HOSTNS_PRIVATE=$self exec unshare -m --propagation private \
			sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$self"
	fi

	TOPO=$prefix$$-
	. "$top/selftests/lib/topo.sh"
	[ -n "$TOPO_CGROOT" ] || ktap_skip_all "needs a cgroup v2 hierarchy"
}

# csig_hostns_list A B C: "A, B and C"
csig_hostns_list()
{
	local out=$1

	shift
	while [ $# -gt 1 ]; do
		out="$out, $1"
		shift
	done
	[ $# = 0 ] || out="$out and $1"
	echo "$out"
}
