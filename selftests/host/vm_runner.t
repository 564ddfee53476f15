#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner must be able to fail.  On each kernel in $KVERS: a guest
# script that plants a kernel warning (selftests/kmod/vt_warn.ko) and then
# exits 0 must make tools/vm/run fail, naming the warning.  On the first
# kernel: a script's exit status comes back through the runner, and a
# script that hangs is killed at the runner's timeout.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
KVERS=${KVERS:-$("$top/tools/kvers.sh")}
d=$(mktemp -d "$top/build/vm-runner-test.XXXXXX")
trap 'rm -rf "$d"' EXIT
set -- $KVERS
ktap_plan $(($# * 2 + 2))

cat > "$d/warn.sh" <<EOS
insmod "$top/build/\$VT_KVER/kmod/vt_warn.ko" || exit 3
echo planted
exit 0
EOS
for k in $KVERS; do
	if [ ! -f "$top/build/$k/kmod/vt_warn.ko" ]; then
		ktap_fail "$k: vt_warn.ko is built (run make)"
		ktap_fail "$k: a planted WARN fails the run"
		continue
	fi
	ktap_ok "$k: vt_warn.ko is built"
	out=$("$top/tools/vm/run" -k "$k" -o "$d/w-$k" -t 300 "$d/warn.sh" 2>&1)
	rc=$?
	if [ $rc = 126 ] && grep -q 'planted' "$d/w-$k/console.log" &&
	   printf '%s' "$out" | grep -q 'WARNING.*vt_warn\|vt_warn: planted warning'; then
		ktap_ok "$k: a planted WARN fails the run (status 126, reported)"
	else
		ktap_fail "$k: a planted WARN fails the run"
		ktap_diag "runner status $rc after $(cat "$d/w-$k/seconds" 2>/dev/null) s; its output, then the console's tail:"
		printf '%s\n' "$out" | head -n 10 | sed 's/^/#   /'
		tail -n 8 "$d/w-$k/console.log" 2>/dev/null | sed 's/^/#   /'
	fi
done

k=$1
echo 'exit 7' > "$d/exit7.sh"
"$top/tools/vm/run" -k "$k" -o "$d/e" -t 300 "$d/exit7.sh" > /dev/null 2>&1
ktap_expect "$k: the script's exit status comes back (7)" "$? == 7"

echo 'echo started; sleep 600' > "$d/hang.sh"
start=$(date +%s)
"$top/tools/vm/run" -k "$k" -o "$d/h" -t 30 "$d/hang.sh" > /dev/null 2>&1
rc=$?
el=$(($(date +%s) - start))
ktap_expect "$k: a hanging script is stopped at the timeout (status 124, ${el}s)" \
	"$rc == 124 && $el < 60"
ktap_finished
