#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [ROUNDS=N] [CCS=LIST] [TRACE=0|1] [RATES=LIST] [PROFILE=dc|small|all]
# [LOADS=LIST] [FANINS=LIST] [BENCH...]:
# inside the VM (make bench), run each selftests/bench/*.sh (except this
# one, ackcost.sh, which wants a guest of its own with one vCPU, and
# native.sh, which runs on the host before the guests boot) or
# the named ones (a path or a name: make bench BENCH="hpcc csig_opt");
# each one's output goes to the console and to $VT_OUT/NAME.txt.  The
# scenarios on selftests/lib/cc.sh's path run at both of its profiles
# (PROFILE=all, the default; NAME-dc.txt, NAME-small.txt) or at the one
# PROFILE names.  Under PROFILE=all the small profile is the premise's
# check (Documentation/results.rst): unless CCS or the benchmarks are
# named, hpcc, ldcp and dctcp under the two mixes, whose flow times at
# 13 packets of BDP are what the dc profile was built to move away
# from.  That fits both profiles into the hour make bench is allowed;
# hpcc.sh and ldcp.sh hold the long-flow cases and the other baselines
# on that path, and PROFILE=small runs all of its scenarios.  Unless CCS
# is named, the dc profile's dumbbell and convergence run paced (cc.sh)
# beside the five: hpcc's utilisation goal is a ratio to it in the same
# run (Documentation/results.rst).
# Each benchmark loads the project's modules with parameters of its own
# and insmod refuses a module already loaded, so they are unloaded after
# each.  The namespaces' sockets, which hold the modules, go a little
# after the namespaces: retry for up to 10 s.  So is the BPF flavour
# (selftests/lib/cc.sh), should a scenario have left it: the CSIG host
# path's sock_ops program on the cgroup root (its pinned link) and
# hpcc_bpf and ldcp_bpf.
unload()
{
	local i m left bpf=

	rm -f /sys/fs/bpf/tcp-dcc/csig_host_sockops_*
	if grep -qwE 'hpcc_bpf|ldcp_bpf' /proc/sys/net/ipv4/tcp_available_congestion_control; then
		"$here/../../build/bin/dccbpf" unload > /dev/null || bpf=" hpcc_bpf/ldcp_bpf"
	fi
	for ((i = 0; i < 20; i++)); do
		left=
		for m in tcp_hpcc tcp_ldcp tcp_csig_opt; do
			grep -q "^$m " /proc/modules || continue
			rmmod "$m" 2> /dev/null || left+=" $m"
		done
		[ -z "$left" ] && break
		sleep 0.5
	done
	left+=$bpf
	[ -z "$left" ] && return 0
	echo "run.sh: could not unload$left" >&2
	return 1
}

here=$(cd "$(dirname "$0")" && pwd)
# the guest gets no environment from the host: settings come as
# arguments (make bench ROUNDS=5), for every benchmark; CCS, the
# algorithms of the benchmarks that take a list (hpcc.sh); TRACE, the
# hpcc benchmark's events (hpcc.sh); RATES, its bottlenecks (hpcc.sh);
# PROFILE, the path's scale for the scenarios on selftests/lib/cc.sh
# (dc, small or all); LOADS, the web-search mix's loads (websearch.sh);
# FANINS, incast's numbers of senders (incast.sh)
while [[ $# -gt 0 && ( $1 == ROUNDS=* || $1 == CCS=* || $1 == TRACE=* ||
			$1 == RATES=* || $1 == PROFILE=* || $1 == LOADS=* ||
			$1 == FANINS=* ) ]]; do
	if [[ $1 == FANINS=* && ! $1 =~ ^FANINS=[1-9][0-9]{0,2}(\ [1-9][0-9]{0,2})*$ ]]; then
		echo "run.sh: FANINS is a list of numbers of senders, not '${1#FANINS=}'" >&2
		exit 2
	fi
	if [[ $1 == LOADS=* && ! $1 =~ ^LOADS=[1-9][0-9]?(\ [1-9][0-9]?)*$ ]]; then
		echo "run.sh: LOADS is a list of per cent loads, not '${1#LOADS=}'" >&2
		exit 2
	fi
	if [[ $1 == PROFILE=* && ! $1 =~ ^PROFILE=(small|dc|all)$ ]]; then
		echo "run.sh: PROFILE is dc, small or all, not '${1#PROFILE=}'" >&2
		exit 2
	fi
	if [[ $1 == TRACE=* && ! $1 =~ ^TRACE=[01]$ ]]; then
		echo "run.sh: TRACE is 0 or 1, not '${1#TRACE=}'" >&2
		exit 2
	fi
	if [[ $1 == ROUNDS=* && ! $1 =~ ^ROUNDS=[1-9][0-9]*$ ]]; then
		echo "run.sh: ROUNDS must be a positive number, not '${1#ROUNDS=}'" >&2
		exit 2
	fi
	if [[ $1 == CCS=* && ! $1 =~ ^CCS=[a-z0-9_,=\ ]+$ ]]; then
		echo "run.sh: CCS is a list of names (hpcc,KEY=VAL ...), not '${1#CCS=}'" >&2
		exit 2
	fi
	if [[ $1 == RATES=* && ! $1 =~ ^RATES=[1-9][0-9]*(\ [1-9][0-9]*)*$ ]]; then
		echo "run.sh: RATES is a list of Mbit/s, not '${1#RATES=}'" >&2
		exit 2
	fi
	export "$1"
	shift
done
named=$#
[ $# -gt 0 ] || set -- $(ls "$here"/*.sh | grep -vE '/(run|ackcost|native)\.sh$')
# the scenarios on selftests/lib/cc.sh's path run at the profile
# PROFILE names, or at both (all, the default); the other benchmarks
# have paths of their own
PROFILE=${PROFILE:-all}
scenarios=" dumbbell convergence rtt parking websearch hadoop incast "
small_premise=" websearch hadoop "
long_paced=" dumbbell convergence "
rc=0
for b in "$@"; do
	[ -f "$b" ] || b=$here/$b.sh
	n=$(basename "$b" .sh)
	profiles=$PROFILE
	[ "$profiles" = all ] && profiles="dc small"
	[[ $scenarios == *" $n "* ]] || profiles=-
	for p in $profiles; do
		ccs=${CCS:-}
		# paced, hpcc's ceiling on this emulator (cc.sh), beside
		# the five where hpcc's long-flow goals are read
		[ -z "$ccs" ] && [[ $long_paced == *" $n "* ]] && [ "$p" != small ] &&
			ccs="hpcc paced ldcp dctcp cubic bbr"
		if [ "$PROFILE-$p" = all-small ]; then
			[ "$named" -gt 0 ] || [[ $small_premise == *" $n "* ]] || continue
			ccs=${CCS:-hpcc ldcp dctcp}
		fi
		label=$([ "$p" = - ] || echo " PROFILE=$p")
		out=${VT_OUT:-/tmp}/$n.txt
		[ "$p" = - ] || [ "$PROFILE" != all ] || out=${VT_OUT:-/tmp}/$n-$p.txt
		echo "== $n ($(uname -r))$label" | tee "$out"
		t0=$SECONDS
		# "-": the benchmark's own path, PROFILE as given but all
		# (cc.sh takes an empty one for small)
		CCS=$ccs PROFILE=${p/#-/${PROFILE/#all/}} bash "$b" 2>&1 | tee -a "$out"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
		unload || rc=1
		echo "== $n$label: $((SECONDS - t0)) s" | tee -a "$out"
	done
done
echo "== all: $SECONDS s, exit $rc"
exit $rc
