#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the target kernels installed on this machine, one per line: Debian's
# 6.1 and 6.12 amd64 flavours whose headers are present (the build needs
# /lib/modules/K/build) and whose image can be booted (/boot/vmlinuz-K).
# With more than one of a series installed, the newest wins.
for series in 6.1 6.12; do
	ls /lib/modules 2>/dev/null |
		grep -E "^${series}\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64\$" |
		while read -r k; do
			[ -e "/lib/modules/$k/build/Makefile" ] &&
				[ -e "/boot/vmlinuz-$k" ] && echo "$k"
		done | sort -V | tail -n 1
done
