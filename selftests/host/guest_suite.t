#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/guest-suite.sh, the guest's side of the suite, run here on
# the host: a test's exit status reaches NAME.rc as it was (selftests/run
# replays it, and a kselftest skip, 4, is told from a pass by it), its
# results' times NAME.times, from a start line through one line per
# result to an end line.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"

ktap_plan 3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat > "$d/exit7.sh" <<EOS
. "$top/selftests/lib/ktap.sh"
ktap_plan 2
ktap_ok one
ktap_ok two
exit 7
EOS
cat > "$d/skip.sh" <<EOS
. "$top/selftests/lib/ktap.sh"
ktap_skip_all "nothing to do"
EOS
VT_OUT=$d/out "$top/selftests/guest-suite.sh" "$d/exit7.sh" "$d/skip.sh" > /dev/null 2>&1
ktap_expect "a test's exit status reaches NAME.rc (7)" \
	"\"$(cat "$d/out/tap/exit7.rc" 2>/dev/null)\" == \"7\""
ktap_expect "... and a skip's (4, KSFT_SKIP)" "\"$(cat "$d/out/tap/skip.rc" 2>/dev/null)\" == \"4\""
ktap_expect "NAME.times: a start, one line per result, an end" \
	"\"$(awk '{ print $2 }' "$d/out/tap/exit7.times" 2>/dev/null | xargs)\" == \"0 1 2 end\""
ktap_finished
