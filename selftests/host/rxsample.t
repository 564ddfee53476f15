#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/rxsample on the host kernel, and selftests/lib/iperf.sh's
# rxsample_settle, which reads its output for the hpcc benchmark's
# late-flow figure: bad arguments exit 2; in a namespace of its own, a
# connection that appears during the sampling is found by its 4-tuple
# (-1 before it, then its bytes, ending at exactly what was sent), at
# the interval asked; rxsample_settle finds a step in synthetic samples
# to a sample and answers 99 for a flow that never holds its share.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/lib/iperf.sh"
R=$top/build/bin/rxsample
ns=rxsample-t$$

[ -x "$R" ] || { echo "Bail out! build/bin/rxsample missing (make)"; exit 1; }
if [ "$(id -u)" != 0 ] || ! ip netns add "$ns" 2> /dev/null; then
	ktap_skip_all "needs root and network namespaces"
fi
tmp=$(mktemp -d)
trap 'ip netns del "$ns" 2> /dev/null; rm -rf "$tmp"' EXIT
ip -n "$ns" link set lo up

ktap_plan 7

bad=0
for args in "" "127.0.0.1 5201 127.0.0.1 5300 10000" \
	"127.0.0.1 0 127.0.0.1 5300 10000 5" "127.0.0.1 5201 127.0.0.1 70000 10000 5" \
	"::1 5201 127.0.0.1 5300 10000 5" "127.0.0.1 5201 127.0.0.1 5300 0 5" \
	"127.0.0.1 5201 127.0.0.1 5300 10000 x"; do
	# shellcheck disable=SC2086
	"$R" $args > /dev/null 2> "$tmp/err"
	[ $? = 2 ] && grep -q usage "$tmp/err" || { ktap_diag "accepted: $args"; bad=$((bad + 1)); }
done
ktap_expect "bad arguments: usage and exit status 2" "$bad == 0"

# a server that reads all, a client from port 5300 that connects at
# 0.3 s, sends 1 MB and holds the connection open to 1.8 s
cat > "$tmp/flow.py" << 'EOF'
import socket, sys, time
if sys.argv[1] == "server":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 5201))
    s.listen(1)
    print("ready", flush=True)
    c, _ = s.accept()
    while c.recv(65536):
        pass
else:
    time.sleep(0.3)
    c = socket.socket()
    c.bind(("127.0.0.1", 5300))
    c.connect(("127.0.0.1", 5201))
    for i in range(100):
        c.sendall(b"x" * 10000)
        time.sleep(0.005)
    time.sleep(1.0)
    c.close()
EOF
ip netns exec "$ns" python3 "$tmp/flow.py" server > "$tmp/srv" &
srv=$!
for i in $(seq 50); do grep -q ready "$tmp/srv" && break; sleep 0.1; done
ip netns exec "$ns" "$R" 127.0.0.1 5201 127.0.0.1 5300 10000 150 > "$tmp/rx" &
rxp=$!
ip netns exec "$ns" python3 "$tmp/flow.py" client
wait $rxp
rc=$?
wait $srv
ktap_diag "$(awk '$2 >= 0 { n++ } END { print NR " samples, " n " with the connection" }' "$tmp/rx")"
ktap_expect "150 samples, exit 0" "$rc == 0 && $(wc -l < "$tmp/rx") == 150"
ktap_expect "-1 before the connection, then found" \
	"$(head -n 1 "$tmp/rx" | cut -d' ' -f2) == -1 && $(awk '$2 >= 0' "$tmp/rx" | wc -l) >= 50"
ktap_expect "its bytes never fall, and end at the 1000000 sent" \
	"$(awk '$2 >= 0 { if ($2 < p) bad = 1; p = $2 } END { print bad + 0 }' "$tmp/rx") == 0 &&
	 $(awk '$2 >= 0 { b = $2 } END { print b }' "$tmp/rx") == 1000000"
# absolute deadlines: 149 intervals of 10 ms take 1.49 s, give or take
# a late last wakeup
ktap_expect "samples 10 ms apart: the 150th at 1.49 s (within 50 ms)" \
	"$(tail -n 1 "$tmp/rx" | awk '{ d = $1 - 1490000; print (d < 0 ? -d : d) <= 50000 }') == 1"

# synthetic: no connection to 0.3 s, nothing to 0.35 s, then 40 Mbit/s
# (5 bytes per us) to 3 s
awk 'BEGIN { for (t = 0; t <= 3000000; t += 10000) {
	b = t < 300000 ? -1 : t < 350000 ? 0 : (t - 350000) * 5
	print t, b } }' > "$tmp/step"
# counted from the last sample without it (0.29 s): the step is at
# 0.06 s, and a window that starts up to 0.02 s before it may pass
v=$(rxsample_settle "$tmp/step" 47.5 0.8 1 0.1)
ktap_diag "step 0.06 s after the last sample without the connection: $v s"
ktap_expect "rxsample_settle: that step reads 0.04..0.06 s" \
	"$(echo "$v >= 0.04 && $v <= 0.06" | bc) == 1"
# the same flow at 30 Mbit/s, under 0.8 of 47.5
awk 'BEGIN { for (t = 0; t <= 3000000; t += 10000) {
	b = t < 300000 ? -1 : t < 350000 ? 0 : (t - 350000) * 3.75
	print t, b } }' > "$tmp/low"
ktap_expect "rxsample_settle: 99 for a flow under its share throughout" \
	"$(rxsample_settle "$tmp/low" 47.5 0.8 1 0.1) == 99"
