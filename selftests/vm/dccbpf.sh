#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc_bpf and ldcp_bpf on the target kernels: the host test
# selftests/host/dccbpf.t (load, both registered, two flows each of
# cubic, hpcc_bpf and ldcp_bpf through a dumbbell, the algorithm in use
# and counting, unload leaves nothing), on this VM's kernel, where it
# checks the one object's load on 6.1 (cong_control of two arguments)
# and 6.12 (of four).  The bottleneck is 200 Mbit/s, what the emulated
# hosts carry.
#
# selftests: alone
here=$(cd "$(dirname "$0")" && pwd)
DCCBPF_RATE=${DCCBPF_RATE:-200} exec bash "$here/../host/dccbpf.t"
