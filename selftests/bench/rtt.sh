#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: senders of different round trips.  Three long flows on the
# dumbbell whose base delays are 1, 2 and 4 times the profile's
# (RTT_MULTS), the second 3 s after the first and the longest one, the
# late joiner, 3 s after that; each congestion control with its own
# bottleneck (selftests/lib/cc.sh), whose parameters (hpcc's T, dctcp's
# K, ldcp's IW and thresholds) are those of the shortest path.  Jain's
# index is the round trips' fairness; the convergence time the late,
# long flow's first 0.5 s at 80% of its share.  Records in $RESULTS
# (selftests/lib/longflows.sh).
SCENARIO=rtt
NFLOWS=3
LATE=${LATE:-3}
SECS=${SECS:-16}
RTT_MULTS=${RTT_MULTS:-1 2 4}
. "$(dirname "$0")/../lib/longflows.sh"
exit $rc
