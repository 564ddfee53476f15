#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: N long flows (NFLOWS, 8) from N senders on the 100 Mbit/s
# dumbbell (1 ms of base delay), all at once, for 10 s; each congestion
# control with its own bottleneck (selftests/lib/cc.sh).  Records in
# $RESULTS (selftests/lib/longflows.sh); tools/bench_report.py makes the
# tables and plots.
SCENARIO=dumbbell
NFLOWS=${NFLOWS:-8}
LATE=0
SECS=${SECS:-10}
. "$(dirname "$0")/../lib/longflows.sh"
exit $rc
