#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install from Debian's archive everything that building, testing, linting,
# packaging (make deb: debhelper, dh-dkms, lintian), benchmarking and the
# demo need.  Idempotent: when every package is already
# there it only checks and returns (about a second).
#
# Kernels: Debian's 6.1 LTS (linux-image-amd64) and the newest 6.12 LTS found
# in bookworm-security.  The 6.12 version moves with security updates, so it
# is looked up, not hard-coded; SETUP_K612=<version> pins one.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

PKGS="build-essential make gcc kmod cpio gzip xz-utils bc flex bison
	libelf-dev zlib1g-dev pkg-config gcc-multilib libc6-dev-i386
	qemu-system-x86 busybox-static
	linux-image-amd64 linux-headers-amd64
	clang llvm libbpf-dev bpftool libclang-rt-14-dev
	iproute2 iperf3 ethtool sparse linux-source iputils-ping jq bc nftables dkms
	debhelper dh-dkms lintian
	python3 python3-matplotlib
	libns3-dev valgrind tshark"

need=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed' || need="$need $p"
done

k612=${SETUP_K612:-}
if [ -z "$k612" ]; then
	# An installed 6.12 image is good enough; do not chase updates.
	k612=$(ls /lib/modules 2>/dev/null | grep -E '^6\.12\..*-amd64$' |
		grep -v -e cloud -e rt | sort -V | tail -1 || true)
fi
if [ -z "$k612" ] || [ ! -e "/lib/modules/$k612/build/Makefile" ]; then
	updated=1
	apt-get update -qq
	if [ -z "$k612" ]; then
		k612=$(apt-cache search --names-only \
			'^linux-image-6\.12\.[0-9]+\+deb12-amd64$' |
			awk '{print $1}' | sed 's/^linux-image-//' |
			sort -V | tail -1)
	fi
	[ -n "$k612" ] || { echo "setup: no 6.12 kernel in the archive" >&2; exit 1; }
	need="$need linux-image-$k612 linux-headers-$k612"
fi

# the cloud and rt flavours' headers of that 6.12, and the cloud one's
# image, which make flavours boots (cloud VMs run it)
for f in cloud rt; do
	h=linux-headers-${k612%-amd64}-$f-amd64
	[ -e "/lib/modules/${k612%-amd64}-$f-amd64/build/Makefile" ] || need="$need $h"
done
[ -e "/boot/vmlinuz-${k612%-amd64}-cloud-amd64" ] ||
	need="$need linux-image-${k612%-amd64}-cloud-amd64"

if [ -n "$need" ]; then
	echo "setup: installing:$need"
	[ -n "${updated:-}" ] || apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

# linux-source's tarball also gives the native benchmark the kernel's BPF
# DCTCP (tools/testing/selftests/bpf/progs/bpf_dctcp.c), which the
# Makefile extracts and builds into build/ when the benchmark needs it.
#
# checkpatch.pl is shipped only inside linux-source's tarball: extract the
# script and the data files it reads next to it.
cp_dir=/usr/src/linux-checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.* | sort -V | tail -1)
	top=$(basename "$tarball" | sed 's/\.tar\..*//')
	mkdir -p "$cp_dir"
	tar -xf "$tarball" -C "$cp_dir" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" \
		"$top/scripts/get_maintainer.pl" 2>/dev/null ||
	tar -xf "$tarball" -C "$cp_dir" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	chmod +x "$cp_dir/scripts/checkpatch.pl"
fi

echo "setup: ok (kernels: $(ls /lib/modules | sort -V | tr '\n' ' '))"
