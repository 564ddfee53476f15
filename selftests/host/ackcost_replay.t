#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The recorded ACK traces of make bench-ackcost-sim
# (selftests/data/ackcost-*.trace, from the ns-3 model) replayed through
# the shared controllers (build/ackcost/ackcost, tools/ackcost.c): every
# call must leave cwnd, ssthresh and the pacing rate as recorded.  A
# change to what hpcc_ctl.h or ldcp_ctl.h decides fails here until the
# traces are recorded again (make bench-ackcost-sim ACKCOST_RECORD=1),
# and the instruction counts of results.rst are then taken again too.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"

AC=$top/build/ackcost/ackcost
[ -x "$AC" ] || { echo "Bail out! $AC missing (make $AC)"; exit 1; }
ktap_plan 4
for cc in hpcc ldcp; do
	trace=$top/selftests/data/ackcost-$cc.trace
	out=$("$AC" "$trace" ctl 2>&1)
	rc=$?
	ktap_diag "$cc: $(tail -n 3 <<< "$out" | tr '\n' ' ')"
	ktap_expect "$cc: the controller replays its recorded trace, every call as recorded" \
		"$rc == 0 && $(grep -c 'ACKs' <<< "$out") == 1"
	out=$("$AC" "$trace" dctcp 2>&1)
	rc=$?
	ktap_expect "$cc: DCTCP's replay of the same ACKs runs" \
		"$rc == 0 && $(grep -c 'cong_avoid' <<< "$out") == 1"
done
ktap_finished
