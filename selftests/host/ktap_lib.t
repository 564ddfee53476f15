#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/lib/ktap.sh's ktap_best_of_two, the one retry policy of the
# VM tests' rate checks: a run that meets its goals is not repeated; one
# short of them is, and the variables of the better run are kept, first
# or second.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"

ktap_plan 4

# fake RUN: run number n sets tput=run<n> and score from the list $scores
fake()
{
	n=$((n + 1))
	tput=run$n
	score=$(echo "$scores" | cut -d' ' -f$n)
}

try()	# try "SCORES": sets out, "RUNS TPUT SCORE" after ktap_best_of_two
{
	local diag

	n=0 scores=$1
	diag=$(ktap_best_of_two fake tput; echo "= $n $tput $score")
	out=${diag##*= }
	ndiag=$(echo "$diag" | grep -c '^# fake: short of its goals')
}

try "1.2 0.1"
ktap_expect "a run that meets its goals runs once" "\"$out\" == \"1 run1 1.2\" && $ndiag == 0" "$out"
try "0.9 0.5"
ktap_expect "short of its goals, it runs once more and the better first run is kept" \
	"\"$out\" == \"2 run1 0.9\" && $ndiag == 1" "$out"
try "0.5 0.9"
ktap_expect "... and a better second run is kept" "\"$out\" == \"2 run2 0.9\"" "$out"
try "0.5 0.5"
ktap_expect "... and at equal scores, the second" "\"$out\" == \"2 run2 0.5\"" "$out"
ktap_finished
