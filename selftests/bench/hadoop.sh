#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: the Hadoop mix, mostly small flows (selftests/lib/hadoop.cdf),
# with the web-search mix's arrivals, loads and records
# (selftests/bench/websearch.sh): hadoopLOAD-CC-rROUND.json.
MIX=hadoop
. "$(dirname "$0")/websearch.sh"
