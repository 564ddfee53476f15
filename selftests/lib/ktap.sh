#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP output for the project's shell selftests, in the style of the kernel's
# kselftest helpers: a plan, one "ok"/"not ok" line per case with a name,
# "# " diagnostics, and "# SKIP" only for a missing feature, never a failure.

. "$(dirname "${BASH_SOURCE[0]}")/stat.sh"

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_n=0
ktap_failed=0

ktap_plan()
{
	echo "TAP version 13"
	echo "1..$1"
}

# ktap_skip_all REASON: the whole test needs a feature this kernel lacks.
ktap_skip_all()
{
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

ktap_diag()
{
	echo "# $*"
}

# With KTAP_TIMES set (selftests/guest-suite.sh sets it), each result
# appends "EPOCH N" to that file: where a test's time goes, by check.
ktap_time()
{
	[ -n "${KTAP_TIMES:-}" ] && echo "$EPOCHREALTIME $ktap_n" >> "$KTAP_TIMES"
	return 0
}

ktap_ok()
{
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $*"
	ktap_time
}

ktap_fail()
{
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $*"
	ktap_time
}

ktap_skip()
{
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP $2"
	ktap_time
}

# ktap_expect NAME EXPR [DIAG...]: pass when the awk expression EXPR holds
# (numbers may be floats), e.g. ktap_expect "tput" "$tput >= 0.8 * $rate".
ktap_expect()
{
	local name=$1 expr=$2
	shift 2
	if awk "BEGIN { exit !($expr) }" < /dev/null; then
		ktap_ok "$name"
	else
		ktap_fail "$name"
		ktap_diag "failed: $expr"
	fi
	[ $# -gt 0 ] && ktap_diag "$*"
	return 0
}

# ktap_best_of_two RUN VAR...: runs the function RUN, which sets the
# variables VAR... and score (1 or more where the run met its goals);
# short of them, RUN runs once more and the variables of the run with the
# higher score are kept.  Under TCG a stall of the machine under the VM
# takes a share of one run that a regression would take of both
# (Documentation/testing.rst, "What a guest's commands cost").
ktap_best_of_two()
{
	local run=$1 v
	local -A first

	shift
	"$run"
	awk "BEGIN { exit !(${score:-0} < 1) }" < /dev/null || return 0
	ktap_diag "$run: short of its goals (score $score); measured once more"
	for v in score "$@"; do
		first[$v]=${!v}
	done
	"$run"
	awk "BEGIN { exit !(${score:-0} < ${first[score]:-0}) }" < /dev/null || return 0
	for v in score "$@"; do
		printf -v "$v" '%s' "${first[$v]}"
	done
	return 0
}

# ktap_run NAME CMD...: pass when CMD succeeds; its output becomes diagnostics.
ktap_run()
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name"
		ktap_diag "'$*' exited $rc"
		[ -n "$out" ] && printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	fi
	return 0
}

# ktap_finished: exit with kselftest's status for what was reported.
ktap_finished()
{
	[ $ktap_failed -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# ktap_trace SUBSYSTEM 0|1: enable or disable a subsystem's trace events,
# with tracefs mounted at $KTAP_T and the trace cleared on enabling.
# Enabling any event also turns on the recording of task names, which
# hooks sched_switch: a static key in __schedule(), patched while the
# other vCPUs run it.  Under TCG that has left a stale int3 there (an
# oops in __schedule on 6.12), so the recording is turned off first and
# only our own events' keys change; do it between flows, for the same
# reason.
KTAP_T=/sys/kernel/tracing
ktap_trace()
{
	[ -d $KTAP_T/events ] || mount -t tracefs nodev $KTAP_T 2> /dev/null
	echo 0 > $KTAP_T/options/record-cmd 2> /dev/null
	echo 0 > $KTAP_T/options/record-tgid 2> /dev/null
	[ "$2" = 1 ] && echo > $KTAP_T/trace 2> /dev/null
	echo "$2" > "$KTAP_T/events/$1/enable" 2> /dev/null
}
