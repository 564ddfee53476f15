#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The instructions per ACK of hpcc's and ldcp's shared controllers and of
# DCTCP's sender-side per-ACK work, counted by valgrind's callgrind on a
# recorded ACK stream (make bench-ackcost-sim; Documentation/results.rst,
# "Instructions per ACK"):
#
#   ackcost_sim.sh           the counts, from selftests/data/ackcost-*.trace
#   ackcost_sim.sh record    those traces again, from the ns-3 model
#                            (build/sim/dccsim, make sim): four long
#                            flows through a 1 Gbit/s dumbbell with a
#                            24 KB port (ECN at 8 KB) for 50 ms, the
#                            senders' calls only
#
# build/ackcost/ackcost (tools/ackcost.c) replays a trace through the
# controller it was recorded from (ctl) and through DCTCP (dctcp) on the
# same ACKs; callgrind counts only inside the per-ACK functions
# (--toggle-collect): hpcc's cong_control, ldcp's in_ack_event and
# cong_control, DCTCP's in_ack_event (dctcp_update_alpha) and
# cong_avoid (tcp_reno_cong_avoid).  The count is exact and the same on
# every run of the same build.
set -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
AC=$top/build/ackcost/ackcost
SIM=$top/build/sim/dccsim
DATA=$top/selftests/data

record()
{
	local cc w

	[ -x "$SIM" ] || { echo "ackcost_sim: $SIM missing (make sim)" >&2; exit 1; }
	w=$(mktemp -d)
	for cc in hpcc ldcp; do
		DCCSIM_ACKTRACE=$w/$cc.trace "$SIM" --topo=dumbbell --workload=long \
			--senders=4 --flows=4 --secs=0.05 --rate=1Gbps --buffer=24000 \
			--k=8000 --cc=$cc > "$w/$cc.out" || exit 1
		# the senders: the sockets with an ACK of data
		awk 'NR == FNR { if (($2 == "update" || $2 == "cong_control") && $3 > 0)
				s[$1] = 1; next }
			FNR == 1 || ($1 in s)' "$w/$cc.trace" "$w/$cc.trace" \
			> "$DATA/ackcost-$cc.trace"
		echo "ackcost_sim: $DATA/ackcost-$cc.trace: $(grep -c . "$DATA/ackcost-$cc.trace") lines"
		sed -n 3p "$w/$cc.out"
	done
	rm -rf "$w"
}

# count TRACE MODE FUNCS...: instructions in FUNCS, and the ACKs
count()
{
	local trace=$1 mode=$2 out args=() f
	shift 2

	out=$(mktemp)
	for f in "$@"; do
		args+=("--toggle-collect=$f")
	done
	acks=$(valgrind -q --tool=callgrind --callgrind-out-file="$out" "${args[@]}" \
		"$AC" "$trace" "$mode" | sed -n 's/.*: \([0-9]*\) ACKs.*/\1/p') || return 1
	ir=$(awk '$1 == "totals:" { print $2 }' "$out")
	rm -f "$out"
	[ -n "$acks" ] && [ "$acks" -gt 0 ] && [ -n "$ir" ]
}

[ "${1:-}" = record ] && { record; exit 0; }
command -v valgrind > /dev/null || { echo "ackcost_sim: needs valgrind (make deps)" >&2; exit 1; }
[ -x "$AC" ] || { echo "ackcost_sim: $AC missing (make $AC)" >&2; exit 1; }
echo "ackcost_sim: instructions per ACK (callgrind, $(valgrind --version)), $(gcc -dumpfullversion 2>/dev/null || echo cc)"
printf '%-6s %-7s %8s %10s %10s %11s %8s\n' trace algo ACKs Ir Ir/ACK "dctcp Ir/ACK" ratio
rc=0
for cc in hpcc ldcp; do
	trace=$DATA/ackcost-$cc.trace
	case $cc in
	hpcc)	funcs=(dcc_sim_hpcc_update) ;;
	ldcp)	funcs=(dcc_sim_ldcp_in_ack_event dcc_sim_ldcp_cong_control) ;;
	esac
	count "$trace" ctl "${funcs[@]}" || { echo "ackcost_sim: $cc: the replay failed" >&2; rc=1; continue; }
	c_acks=$acks c_ir=$ir
	count "$trace" dctcp dctcp_update_alpha tcp_reno_cong_avoid ||
		{ echo "ackcost_sim: $cc: dctcp's replay failed" >&2; rc=1; continue; }
	[ "$acks" = "$c_acks" ] || { echo "ackcost_sim: $cc: $acks ACKs for dctcp, $c_acks" >&2; rc=1; }
	awk -v cc="$cc" -v a="$c_acks" -v ir="$c_ir" -v dir="$ir" 'BEGIN {
		r = ir / a; d = dir / a
		printf "%-6s %-7s %8d %10d %10.1f %11.1f %8.2f\n", cc, cc, a, ir, r, d, r / d }'
done
echo "(dctcp: dctcp_update_alpha and tcp_reno_cong_avoid on the same ACKs; goal: ratio <= 1.25)"
exit $rc
