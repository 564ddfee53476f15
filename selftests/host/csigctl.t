#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# csigctl on the host kernel: bad arguments get a message and exit status
# 2 without touching anything; a port role attaches to a veth in a
# namespace of its own, shows, reconfigures and detaches.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
C=$top/build/bin/csigctl
ns=csigctl-t$$

[ -x "$C" ] || { echo "Bail out! build/bin/csigctl missing (make)"; exit 1; }
if [ "$(id -u)" != 0 ] || ! ip netns add "$ns" 2> /dev/null; then
	ktap_skip_all "needs root and network namespaces"
fi
trap 'ip netns del "$ns" 2> /dev/null' EXIT
ip -n "$ns" link add va type veth peer name vb
ip -n "$ns" link set va up
ip -n "$ns" link set vb up

bad=(
	"attach va bogus|unknown role"
	"attach va transit --capacity 5|bad rate unit"
	"attach va transit --capacity 0.5mbit|out of range"
	"attach va transit --t 10s|out of range"
	"attach va transit --types abw,foo|unknown signal type"
	"attach va transit --tpid 0x8100,0x88b6|TPIDs must differ"
	"attach va transit --tpid 0x88b5,0x88b5|TPIDs must differ"
	"attach va transit --lm 70000|bad locator"
	"attach va transit --bounds pd=1,2,3|31 needed"
	"attach va transit --bounds u=$(seq -s, 31 -1 1)|quantisation rejected"
	"attach va transit --quantum abw=0|quantisation rejected"
	"attach va transit --wred 15000,45000|--wred KMIN,KMAX,PMAX"
	"attach va transit --wred 1,2,0.2,3,4|--wred KMIN,KMAX,PMAX"
	"attach va transit --wred 0,45000,0.2|0 < K"
	"attach va transit --wred 45000,15000,0.2|need 0 < KMAX, KMIN <= KMAX"
	"attach va transit --wred 0,0,0.2|need 0 < KMAX"
	"attach va transit --wred 15000,45000,0|bad --wred PMAX"
	"attach va transit --wred 15000,45000,1.5|bad --wred PMAX"
	"attach va transit --wred 15k,45000,0.2|bad --wred KMIN"
	"attach va insert --format huge|bad --format"
	"attach va insert --select some|bad --select"
	"attach nosuchdev transit|no device"
	"attach va|attach DEV ROLE"
	"detach va|nothing attached"
	"set va --capacity 1gbit|nothing attached"
	"show --prog 999999999|not a CSIG program"
	"flow add --pid 1|--pid and --fd are required"
	"frobnicate|unknown command"
	"--bogus show|unknown option"
)
ktap_plan $((${#bad[@]} + 6))
for b in "${bad[@]}"; do
	args=${b%%|*}
	want=${b#*|}
	# shellcheck disable=SC2086
	err=$("$C" -n "$ns" $args 2>&1 > /dev/null)
	rc=$?
	if [ $rc = 2 ] && grep -qF -- "$want" <<< "$err"; then
		ktap_ok "csigctl $args: exit 2, '$want'"
	else
		ktap_fail "csigctl $args: exit 2, '$want'"
		ktap_diag "exit $rc: $err"
	fi
done
ktap_expect "no program was attached by the bad commands" \
	"$(tc -n "$ns" filter show dev va egress 2> /dev/null | grep -c bpf) == 0"

ktap_run "attach a transit role with a configuration" \
	"$C" -n "$ns" attach va transit --capacity 200mbit --t 1ms --lm 9 --types pd,u
out=$("$C" -n "$ns" --json show va)
ktap_expect "show --json reports it" \
	"$(jq '.[0] | (.role == "transit" and .config.capacity_kbps == 200000 and .config.lm == 9 and .config.types == 132) | if . then 1 else 0 end' <<< "$out") == 1"
ktap_run "set changes it in place" "$C" -n "$ns" set va --capacity 1gbit --lm ifindex \
	--wred 15000,45000,0.2
ktap_expect "... as show reports" \
	"$("$C" -n "$ns" --json show va | jq '.[0].config | (.capacity_kbps == 1000000 and .lm_ifindex and .wred.kmin == 15000 and .wred.kmax == 45000 and .wred.pmax == 0.2 and .wred.k_not_ect == 15000) | if . then 1 else 0 end') == 1"
ktap_run "detach removes it" "$C" -n "$ns" detach va
ktap_finished
