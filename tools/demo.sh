#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: runs in the VM (make demo).  Two bulk flows share a 100 Mbit/s
# bottleneck with 1 ms of base delay, once per congestion control, each
# on the path it is meant for (selftests/lib/cc.sh):
#
#   hpcc         the CSIG data plane: U from the bottleneck port's model
#   ldcp, dctcp  ECN marking at the bottleneck (the drafts' WRED profile,
#                DCTCP's step at K)
#   cubic, bbr   a 1000-packet fifo
#
# It is the benchmark's dumbbell scenario (selftests/bench/dumbbell.sh),
# one short round: utilisation, the bottleneck's queue, the probes' RTT,
# fairness between the two flows and the guest's CPU, per algorithm.
top=$(cd "$(dirname "$0")/.." && pwd)
res=$(mktemp -d)
secs=${DEMO_SECONDS:-6}

exec > >(tee "${VT_OUT:-/tmp}/demo.txt")
echo "# two flows for $secs s each through a 100 Mbit/s bottleneck, 1 ms base delay ($(uname -r))"
ROUNDS=1 NFLOWS=2 SECS=$secs CCS="hpcc ldcp dctcp cubic bbr" RESULTS=$res \
	bash "$top/selftests/bench/dumbbell.sh" 2>&1 | grep -E '^dumbbell +r1 ' |
	sed 's/^dumbbell *r1 //; s/  conv - s//'
rc=${PIPESTATUS[0]}
cat <<'EOF'
# What to look at: the queue (in us of the link's time).  hpcc keeps it
# lowest, from the port's telemetry; ldcp and dctcp near their marking
# thresholds; cubic and bbr fill a fifo.  Utilisation here is what the
# emulated hosts' CPU allows (the cpu column), not the link: hpcc's small
# bursts cost it the most.  make bench runs the full evaluation
# (Documentation/results.rst).
EOF
exit "$rc"
