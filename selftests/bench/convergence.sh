#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: a late-joining flow.  Two long flows on the 100 Mbit/s
# dumbbell (1 ms of base delay), the second 3 s after the first; each
# congestion control with its own bottleneck (selftests/lib/cc.sh).
# Convergence time: the late flow's first 0.5 s at 80% of its fair share.
# Records in $RESULTS (selftests/lib/longflows.sh); tools/bench_report.py
# makes the tables and plots.
SCENARIO=convergence
NFLOWS=2
LATE=${LATE:-3}
SECS=${SECS:-12}
. "$(dirname "$0")/../lib/longflows.sh"
exit $rc
