/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's Reno increase (net/ipv4/tcp_cong.c: tcp_reno_cong_avoid()
 * without its cwnd-limited test, as a congestion control's fallback
 * calls it: tcp_slow_start(), then tcp_cong_avoid_ai()) over plain
 * fields, for the flavours that run outside the kernel: the ns-3 model
 * (sim/dcc_glue_common.h) and the userspace harness of the modules' and
 * the BPF programs' glue (selftests/unit/glue/), so that the fallbacks
 * of all three compare.
 */
#ifndef _DCC_RENO_H
#define _DCC_RENO_H

#include <linux/types.h>

static inline void dcc_reno_ai(__u32 *cwnd, __u32 *cnt, __u32 ssthresh,
			       __u32 clamp, __u32 acked)
{
	if (*cwnd < ssthresh) {
		__u32 c = *cwnd + acked;

		c = c < ssthresh ? c : ssthresh;
		acked -= c - *cwnd;
		*cwnd = c;
		if (!acked)
			return;
	}
	if (*cnt >= *cwnd) {
		*cnt = 0;
		(*cwnd)++;
	}
	*cnt += acked;
	if (*cnt >= *cwnd) {
		__u32 delta = *cnt / *cwnd;

		*cnt -= delta * *cwnd;
		*cwnd += delta;
	}
	if (*cwnd > clamp)
		*cwnd = clamp;
}

#endif /* _DCC_RENO_H */
