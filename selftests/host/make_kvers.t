#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check and make lint are for both target kernels: with one of them
# hidden (a tmpfs over its /lib/modules directory, in a mount namespace of
# this test's own) they must stop at once and name the missing one, while
# KVER= or KVERS= still chooses a single kernel.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"

if [ "$(id -u)" != 0 ] || ! unshare -m true 2> /dev/null; then
	ktap_skip_all "needs root and mount namespaces"
fi
kvers=$("$top/tools/kvers.sh")
k61=$(grep '^6\.1\.' <<< "$kvers")
k612=$(grep '^6\.12\.' <<< "$kvers")

# hidden SERIES CMD...: run CMD with every kernel of SERIES hidden.  The
# outer make's MAKEFLAGS (KVER=... on its command line) must not leak in.
hidden()
{
	local series=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KVER -u KVERS \
		unshare -m --propagation private bash -c '
		for d in /lib/modules/"$0".*; do
			[ -d "$d" ] && { mount -t tmpfs none "$d" || exit 99; }
		done
		exec timeout 300 "$@"' "$series" "$@" 2>&1
}

ktap_plan 6

# a goal that needs both, one series hidden: exit 2, the series named
gate()	# gate SERIES GOAL
{
	local other=6.1 out rc missing

	[ "$1" = 6.1 ] && other=6.12
	out=$(hidden "$1" make -C "$top" -n "$2")
	rc=$?
	missing=$(sed -n 's/.*needs both target kernels.*missing:\(.*\) tools\/kvers.sh found.*/\1/p' <<< "$out")
	if [ $rc = 2 ] && grep -qF "make $2 needs" <<< "$out" &&
	   grep -qF " $1 (" <<< "$missing" && ! grep -qF " $other (" <<< "$missing"; then
		ktap_ok "make $2 without a $1 kernel: exit 2, names $1 (only) as missing"
	else
		ktap_fail "make $2 without a $1 kernel: exit 2, names $1 (only) as missing"
		ktap_diag "exit $rc"
		head -n 5 <<< "$out" | sed 's/^/#   /'
	fi
}
gate 6.12 check
gate 6.1 check
gate 6.12 lint

if [ -n "$k61" ]; then
	out=$(hidden 6.12 make -C "$top" -s kvers KVER="$k61")
	rc=$?
	ktap_expect "make kvers KVER=$k61 without a 6.12 kernel: that kernel alone" \
		"$rc == 0 && \"$out\" == \"$k61\"" "exit $rc, printed '$out'"
	out=$(hidden 6.12 make -C "$top" -s kvers KVERS="$k61")
	rc=$?
	ktap_expect "make kvers KVERS=$k61 without a 6.12 kernel: that kernel alone" \
		"$rc == 0 && \"$out\" == \"$k61\"" "exit $rc, printed '$out'"
else
	ktap_skip "make kvers KVER=<6.1> without a 6.12 kernel" "no 6.1 kernel installed"
	ktap_skip "make kvers KVERS=<6.1> without a 6.12 kernel" "no 6.1 kernel installed"
fi

if [ -n "$k61" ] && [ -n "$k612" ]; then
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KVER -u KVERS \
		make -C "$top" -s kvers 2>&1)
	rc=$?
	ktap_expect "make kvers with both installed: both" \
		"$rc == 0 && \"$out\" == \"$k61 $k612\"" "exit $rc, printed '$out'"
else
	ktap_skip "make kvers with both installed" "only '$kvers' installed"
fi
ktap_finished
