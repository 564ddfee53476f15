#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [BENCH...]: inside the VM (make bench), run each
# selftests/bench/*.sh (except this one, and ackcost.sh, which wants a
# guest of its own with one vCPU) or the named ones (a path or a name:
# make bench BENCH="hpcc csig_opt"); each one's output goes to the
# console and to $VT_OUT/NAME.txt.
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- $(ls "$here"/*.sh | grep -vE '/(run|ackcost)\.sh$')
rc=0
for b in "$@"; do
	[ -f "$b" ] || b=$here/$b.sh
	n=$(basename "$b" .sh)
	echo "== $n ($(uname -r))" | tee "${VT_OUT:-/tmp}/$n.txt"
	bash "$b" 2>&1 | tee -a "${VT_OUT:-/tmp}/$n.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
exit $rc
