#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-suite.sh [TEST...]: runs inside the VM (tools/vm/run).  Runs each
# selftests/vm/*.sh (or the named ones) and leaves, in $VT_OUT/tap/:
#   NAME.tap   the test's TAP output      NAME.rc    its exit status
#   NAME.err   its stderr                 NAME.dmesg kernel log lines it caused
#   NAME.seconds its run time             NAME.times when each result came
# The host turns these into prove test files (selftests/run).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=${VT_OUT:?}/tap
mkdir -p "$out"
[ $# -gt 0 ] || set -- selftests/vm/*.sh
for t in "$@"; do
	n=$(basename "$t" .sh)
	echo "vt-suite: $n"
	before=$(dmesg | wc -l)
	start=$(date +%s)
	echo "$EPOCHREALTIME 0" > "$out/$n.times"
	KTAP_TIMES=$out/$n.times timeout -k 5 "${VT_TEST_TIMEOUT:-600}" bash "$t" \
		> "$out/$n.tap" 2> "$out/$n.err"
	echo $? > "$out/$n.rc"
	echo "$EPOCHREALTIME end" >> "$out/$n.times"
	echo "$(($(date +%s) - start))" > "$out/$n.seconds"
	dmesg | tail -n +"$((before + 1))" > "$out/$n.dmesg"
done
