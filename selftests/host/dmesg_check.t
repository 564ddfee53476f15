#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/dmesg-check, on kernel logs written here: a clean log passes,
# every kind of report it promises to catch fails it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

clean='[    1.234] virtio_net virtio0: ...
[    2.000] tcp_dctcp: loading out-of-tree module taints kernel.
[    2.001] module verification failed: signature and/or required key missing - tainting kernel
[    3.100] br0: port 1(sw-r) entered forwarding state'

reports=(
	"WARNING: CPU: 1 PID: 212 at net/ipv4/tcp.c:123 tcp_foo+0x1/0x2"
	"------------[ cut here ]------------"
	"BUG: kernel NULL pointer dereference, address: 0000000000000008"
	"kernel BUG at net/core/skbuff.c:120!"
	"Oops: 0000 [#1] PREEMPT SMP NOPTI"
	"general protection fault, probably for non-canonical address 0xdead"
	" Call Trace:"
	"refcount_t: underflow; use-after-free."
	"list_add corruption. prev->next should be next"
	"BUG: KASAN: slab-out-of-bounds in foo+0x10/0x20"
	"UBSAN: shift-out-of-bounds in net/ipv4/tcp_foo.c:10:3"
	"unreferenced object 0xffff888003e1a000 (size 64):"
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [iperf3:300]"
	"INFO: task iperf3:300 blocked for more than 120 seconds."
	"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
	"Kernel panic - not syncing: Fatal exception in interrupt"
	"WARNING: possible circular locking dependency detected"
)

ktap_plan $((1 + ${#reports[@]}))
printf '%s\n' "$clean" > "$d/clean"
ktap_run "a clean log passes" "$top/tools/vm/dmesg-check" "$d/clean"
i=0
for r in "${reports[@]}"; do
	i=$((i + 1))
	printf '%s\n%s\n' "$clean" "[   9.9] $r" > "$d/r$i"
	if out=$("$top/tools/vm/dmesg-check" "$d/r$i"); then
		ktap_fail "caught: $r"
	elif printf '%s' "$out" | grep -qF -- "$r"; then
		ktap_ok "caught: $r"
	else
		ktap_fail "caught, but not quoted: $r"
	fi
done
ktap_finished
