#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The evaluation's harness, in small (make bench runs it in full): the
# dumbbell scenario (selftests/bench/dumbbell.sh) with two flows for
# 5 s, one round of hpcc, ldcp and cubic, each with its own bottleneck
# (selftests/lib/cc.sh), and the web-search mix (websearch.sh) at 30%
# for 3 s with hpcc and cubic; then tools/bench_report.py's tables from
# the records.  Checks that each run left a record with readings
# (utilisation, the port model's queue histogram, RTTs, both flows'
# series, the qdisc's backlog samples, the CPU time; for the mix, every
# flow completed and timed), that the report has a row per congestion
# control, the ratios and the slowdown per size, and that the modules
# unload afterwards.  The plots are selftests/host/bench_pipeline.t's:
# under TCG matplotlib's import and drawing took 36 s of this test's
# 137.  Not a benchmark: no figure is
# compared.  The harness is the same userspace on every kernel, and
# hpcc.sh and ldcp.sh run the algorithms on each: it runs on the 6.1
# target only, to keep the suite's time.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/ktap.sh"

case $(uname -r) in
6.1.*) ;;
*) ktap_skip_all "the benchmark harness is tested on the 6.1 target (the algorithms are tested on every kernel by hpcc.sh and ldcp.sh)" ;;
esac

ktap_plan 9
allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
res=$(mktemp -d)
out=$(ROUNDS=1 NFLOWS=2 SECS=5 CCS="hpcc ldcp cubic" RESULTS=$res \
	bash "$top/selftests/bench/dumbbell.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
ktap_expect "dumbbell scenario: exit 0, a progress line and a record per run" \
	"$rc == 0 && $(printf '%s\n' "$out" | grep -c '^dumbbell  *r1 ') == 3 && $(ls "$res"/dumbbell-*-r1.json | wc -l) == 3"
good=0
for cc in hpcc ldcp cubic; do
	# traffic crossed the link; how much is make bench's to say (under
	# TCG hpcc's small super-packets make it 0.3-0.9, by the machine)
	jq -e '.metrics.util > 0.1 and .metrics.queue_packets > 0 and
		.metrics.rtt_p50_ms > 0 and .metrics.jain_min > 0 and
		(.series.flows | length) == 2 and
		([.series.flows[].mbit | length] | min) >= 8 and
		(.series.backlog | length) >= 10 and
		.metrics.cpu_busy > 0 and .metrics.cpu_busy <= 1 and
		.metrics.mbit_per_cpu_s > 0' "$res/dumbbell-$cc-r1.json" > /dev/null &&
		good=$((good + 1))
done
ktap_expect "each record has its readings: utilisation, queue histogram, RTT, flows, backlog, CPU" "$good == 3"
out=$(ROUNDS=1 LOADS=30 SECS=3 NSENDERS=2 CCS="hpcc cubic" RESULTS=$res \
	bash "$top/selftests/bench/websearch.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
ktap_expect "web-search mix: exit 0, a progress line and a record per run" \
	"$rc == 0 && $(printf '%s\n' "$out" | grep -c '^websearch30  *r1 ') == 2 && $(ls "$res"/websearch30-*-r1.json | wc -l) == 2"
good=0
for cc in hpcc cubic; do
	# the same seeds: the same flows for both
	jq -e '.metrics.flows >= 5 and .metrics.unfinished == 0 and
		.metrics.errors == 0 and .metrics.slowdown_p50 >= 0.5 and
		.metrics.queue_packets > 0 and .rtt0_ms > 0 and
		(.series.fct | length) == .metrics.flows and
		([.series.fct[][1]] | min) > 0' "$res/websearch30-$cc-r1.json" > /dev/null &&
		good=$((good + 1))
done
[ "$(jq -c '[.series.fct[][0]] | sort' "$res/websearch30-hpcc-r1.json")" = \
	"$(jq -c '[.series.fct[][0]] | sort' "$res/websearch30-cubic-r1.json")" ] || good=0
ktap_expect "each mix record has its flows, all completed, the same sizes for both" "$good == 2"
rep=$(python3 "$top/tools/bench_report.py" "$res")
rrc=$?
printf '%s\n' "$rep" | sed 's/^/# /'
# rows: the long flows' table (3), the mix's (2), its slowdown by flow
# size (2) and its flows pooled over the rounds (2)
ktap_expect "bench_report.py: a table row per congestion control" \
	"$rrc == 0 && $(printf '%s\n' "$rep" | grep -cE '^\| (hpcc|ldcp|cubic) \| [0-9]')== 3 + 2 + 2 + 2"
ktap_expect "... and hpcc's and ldcp's ratios to cubic" \
	"$(printf '%s\n' "$rep" | grep -cE '^- (hpcc|ldcp) / cubic: util [0-9.]+, queue p99 [0-9.]+')== 2"
ktap_expect "... and the web-search mix's slowdown per flow size" \
	"$(printf '%s\n' "$rep" | grep -cE '^\| (hpcc|cubic) \| ([0-9.]+ \[[0-9.]+-[0-9.]+\] / [0-9.]+ .*\(n=[0-9]+\)|-) \|')== 2"
ktap_expect "... and its flows pooled, with bootstrap intervals" \
	"$(printf '%s\n' "$rep" | grep -cE '^\| (hpcc|cubic) \| [0-9]+ \| [0-9.]+ \[[0-9.]+-[0-9.]+\] \|')== 2"
rm -rf "$res"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed"
sleep 1
ktap_run "the modules unload" rmmod tcp_hpcc tcp_ldcp tcp_csig_opt
ktap_finished
