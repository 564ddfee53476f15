/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The accessors of include/dcc_ctl.h over the ns-3 flavour's socket
 * (sim/dcc_sim.h): included by sim/hpcc_glue.c and sim/ldcp_glue.c, C
 * translation units, after they define struct sock with a struct
 * dcc_sim_io named io.
 */
#ifndef _DCC_GLUE_COMMON_H
#define _DCC_GLUE_COMMON_H

#include "dcc_reno.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline __u32 dcc_cwnd(struct sock *sk) { return sk->io.cwnd; }
static inline void dcc_set_cwnd(struct sock *sk, __u32 v) { sk->io.cwnd = v; }
static inline __u32 dcc_ssthresh(struct sock *sk) { return sk->io.ssthresh; }
static inline void dcc_set_ssthresh(struct sock *sk, __u32 v) { sk->io.ssthresh = v; }
static inline __u32 dcc_cwnd_clamp(struct sock *sk) { return sk->io.clamp; }
static inline __u32 dcc_mss(struct sock *sk) { return sk->io.mss ? sk->io.mss : 1; }
static inline __u32 dcc_srtt_us(struct sock *sk) { return sk->io.srtt_us; }
static inline __u32 dcc_min_rtt_us(struct sock *sk) { return sk->io.min_rtt_us; }
static inline __u32 dcc_delivered(struct sock *sk) { return sk->io.delivered; }
static inline __u32 dcc_packets_out(struct sock *sk) { return sk->io.packets_out; }
static inline __u32 dcc_snd_una(struct sock *sk) { return sk->io.snd_una; }
static inline __u32 dcc_snd_nxt(struct sock *sk) { return sk->io.snd_nxt; }
static inline __u8 dcc_ca_state(struct sock *sk) { return sk->io.ca_state; }
static inline __u64 dcc_now_ns(struct sock *sk) { return sk->io.now_ns; }
/* tcp_mstamp: the ACK's time in whole us, as the kernel's */
static inline __u64 dcc_now_us(struct sock *sk) { return sk->io.now_ns / 1000; }

/* clamped to sk_max_pacing_rate (ns-3's TcpSocketState::m_maxPacingRate) */
static inline void dcc_set_pacing_rate(struct sock *sk, __u64 rate)
{
	sk->io.pacing = rate < sk->io.max_pacing ? rate : sk->io.max_pacing;
}

/* tcp_reno_cong_avoid() */
static inline void dcc_reno_cong_avoid(struct sock *sk, __u32 acked)
{
	dcc_reno_ai(&sk->io.cwnd, &sk->io.cwnd_cnt, sk->io.ssthresh,
		    sk->io.clamp, acked);
}

/* tcp_reno_undo_cwnd(): the cwnd before the reduction */
static inline __u32 dcc_reno_undo_cwnd(struct sock *sk)
{
	return sk->io.cwnd > sk->io.prior_cwnd ? sk->io.cwnd : sk->io.prior_cwnd;
}

#endif /* _DCC_GLUE_COMMON_H */
