#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dccbpf show on the host kernel: its JSON (--json, before or after -N),
# the same content as the text, read with jq while a flow of each
# algorithm runs over a namespace's loopback; and its check that
# hpcc_bpf and the host path (csighost) use one csig_sk: none attached
# (nothing to compare), csighost attached under the same BPF filesystem
# (shared, exit status 0), and under a BPF filesystem of another mount
# namespace (different maps, said so, exit status 1).
#
# Root, kernel BTF and struct_ops congestion controls are needed; the
# test skips without them.  It runs in a private mount namespace with a
# BPF filesystem of its own.
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/selftests/host/$(basename "$0")
. "$top/selftests/lib/ktap.sh"
D=$top/build/bin/dccbpf
H=$top/build/bin/csighost
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control

[ -x "$D" ] && [ -x "$H" ] || { echo "Bail out! build/bin/dccbpf or csighost missing (make tools)"; exit 1; }
[ "$(id -u)" = 0 ] || ktap_skip_all "needs root"
[ -r /sys/kernel/btf/vmlinux ] || ktap_skip_all "no kernel BTF (/sys/kernel/btf/vmlinux)"
bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	grep -q "STRUCT 'bpf_struct_ops_tcp_congestion_ops'" ||
	ktap_skip_all "the kernel has no struct_ops congestion controls"
for cc in hpcc_bpf ldcp_bpf; do
	grep -qw "$cc" "$AVAIL" && ktap_skip_all "$cc is registered already (by whom?)"
done
command -v iperf3 > /dev/null && command -v jq > /dev/null ||
	ktap_skip_all "needs iperf3 and jq"
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CGROOT" ] || ktap_skip_all "needs a cgroup v2 hierarchy"
if [ -z "$DCCBPF_SHOW_T_PRIVATE" ]; then
	DCCBPF_SHOW_T_PRIVATE=1 exec unshare -m --propagation private \
		sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$self"
fi

NS=dshow$$
tmp=$(mktemp -d)
other=
cleanup()
{
	[ -n "$other" ] && kill "$other" 2> /dev/null && wait "$other" 2> /dev/null
	ip netns pids "$NS" 2> /dev/null | xargs -r kill 2> /dev/null
	sleep 0.2
	"$D" unload > /dev/null 2>&1
	ip netns del "$NS" 2> /dev/null
	rmdir "$CGROOT/$NS-a" "$CGROOT/$NS-b" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 10

ip netns add "$NS" && ip -n "$NS" link set lo up &&
ip -n "$NS" link add a0 type veth peer name a1 && ip -n "$NS" link set a0 up &&
ip -n "$NS" link add b0 type veth peer name b1 && ip -n "$NS" link set b0 up &&
mkdir "$CGROOT/$NS-a" "$CGROOT/$NS-b" || { echo "Bail out! setup"; exit 1; }
ktap_run "dccbpf load" "$D" load

# a flow of each over the namespace's loopback, 4 s
ip netns exec "$NS" iperf3 -s -D -p 5201 > /dev/null 2>&1
ip netns exec "$NS" iperf3 -s -D -p 5202 > /dev/null 2>&1
# nconn N STATE: wait (up to 20 s) for N TCP sockets of ports 5201 and
# 5202 in STATE (under load, iperf3 takes its time to listen and connect)
nconn()
{
	local i

	for i in $(seq 200); do
		[ "$(ip netns exec "$NS" ss -Htn state "$2" \
			'( sport = :5201 or sport = :5202 or dport = :5201 or dport = :5202 )' |
			wc -l)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
nconn 2 listening
ip netns exec "$NS" iperf3 -c 127.0.0.1 -p 5201 -t 4 -b 50M -C hpcc_bpf > /dev/null 2>&1 &
ip netns exec "$NS" iperf3 -c 127.0.0.1 -p 5202 -t 4 -b 50M -C ldcp_bpf > /dev/null 2>&1 &
# a control and a data connection each, both ends
nconn 8 established
sleep 1
"$D" show -N "$NS" > "$tmp/text"
"$D" show -N "$NS" --json > "$tmp/after" 2> "$tmp/err"
"$D" show --json -N "$NS" > "$tmp/before" 2>> "$tmp/err"
wait
ktap_diag "$(jq -c '{algorithms: (.algorithms | map_values(.registered)), sockets: (.sockets | map_values(length)), ss: (.ss | length), csig_sk}' "$tmp/after" 2>&1 | head -c 600) $(head -c 300 "$tmp/err")"
ktap_expect "show -N NS --json and show --json -N NS are JSON" \
	"$(jq '.algorithms | type == "object"' "$tmp/after" 2> /dev/null | grep -c true) == 1 && $(jq '.algorithms | type == "object"' "$tmp/before" 2> /dev/null | grep -c true) == 1"
# the text's counter names, in order, against the JSON's
tnames=$(awk '/^(hpcc|ldcp)_bpf: / { cc = $1 } /^  [a-z_]+ [0-9]+$/ { print cc $1 }' "$tmp/text" | tr -d : | tr '\n' ' ')
jnames=$(jq -r '.algorithms | to_entries[] | .key as $k | .value.counters | keys_unsorted[] | "\($k)\(.)"' "$tmp/after" | tr '\n' ' ')
ktap_expect "both registered, with the text's counters in its order" \
	"$(jq '[.algorithms[] | select(.registered)] | length' "$tmp/after") == 2 && \"$tnames\" == \"$jnames\" && $(wc -w <<< "$tnames") >= 10"
ktap_expect "the sockets of each, with their state as fields" \
	"$(jq '[.sockets.hpcc_bpf[] | select(.remote == "127.0.0.1:5201" and .input == "none" and .cwnd > 0)] | length' "$tmp/after") >= 1 && $(jq '[.sockets.ldcp_bpf[] | select(.remote == "127.0.0.1:5202" and .phase != null and .cw >= 0)] | length' "$tmp/after") >= 1"
ktap_expect "ss's lines, of both" \
	"$(jq '[.ss[] | select(test("hpcc_bpf"))] | length' "$tmp/after") >= 1 && $(jq '[.ss[] | select(test("ldcp_bpf"))] | length' "$tmp/after") >= 1"

# --- csig_sk, hpcc_bpf's and the host path's ----------------------------
"$D" show --json > "$tmp/none"
rc=$?
# (another test's csighost, elsewhere on this machine, would be a host
# path with another map: that hpcc_bpf does not read, rightly)
if [ "$(jq '.csig_sk.host_path | length' "$tmp/none")" = 0 ]; then
	ktap_expect "no host path: nothing to compare, exit status 0 ($rc)" \
		"$rc == 0 && \"$(jq -c .csig_sk.shared "$tmp/none")\" == \"null\" && $(jq '.csig_sk.hpcc_bpf | length' "$tmp/none") == 1"
else
	ktap_skip "no host path: nothing to compare" "another host path runs on this machine: $(jq -c .csig_sk "$tmp/none")"
fi

"$H" -n "$NS" attach a0 --cgroup "$CGROOT/$NS-a" > /dev/null
"$D" show > "$tmp/same"
rc=$?
"$D" show --json > "$tmp/same.json"
ktap_diag "$(grep csig_sk "$tmp/same")"
ktap_expect "csighost under the same BPF filesystem: shared, one map id, exit status 0 ($rc)" \
	"$rc == 0 && \"$(jq -c .csig_sk.shared "$tmp/same.json")\" == \"true\" && $(jq '.csig_sk as $c | if $c.hpcc_bpf == [$c.pinned] and ($c.host_path | index($c.pinned)) != null then 1 else 0 end' "$tmp/same.json") == 1 && $(grep -c 'csig_sk: shared' "$tmp/same") == 1"
"$H" -n "$NS" detach a0 --cgroup "$CGROOT/$NS-a" > /dev/null

# another mount namespace with a BPF filesystem of its own, held open
unshare -m --propagation private sh -c \
	'mount -t bpf bpf /sys/fs/bpf && "$0" -n "$1" attach b0 --cgroup "$2" > /dev/null && echo up && exec sleep 60' \
	"$H" "$NS" "$CGROOT/$NS-b" > "$tmp/other" 2>&1 &
other=$!
for _ in $(seq 50); do
	grep -q up "$tmp/other" && break
	sleep 0.1
done
"$D" show > "$tmp/diff"
rc=$?
"$D" show --json > "$tmp/diff.json"
rcj=$?
ktap_diag "$(cat "$tmp/other") $(grep -A2 csig_sk "$tmp/diff")"
ktap_expect "csighost under another mount namespace's BPF filesystem: different maps, said so" \
	"\"$(jq -c .csig_sk.shared "$tmp/diff.json")\" == \"false\" && $(jq '.csig_sk as $c | if ($c.host_path | length) >= 1 and ($c.host_path | index($c.hpcc_bpf[0])) == null then 1 else 0 end' "$tmp/diff.json") == 1 && $(grep -c 'DIFFERENT maps' "$tmp/diff") == 1"
ktap_expect "... and exit status 1, text and JSON ($rc $rcj)" "$rc == 1 && $rcj == 1"
kill "$other"
wait "$other" 2> /dev/null
other=

ktap_run "dccbpf unload" "$D" unload
ktap_finished
