/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The accessors of include/dcc_ctl.h for the BPF congestion controls
 * (tcp_hpcc.bpf.c, tcp_ldcp.bpf.c), over the kernel's struct tcp_sock
 * as bpf_tcp_ca.h declares it: those the modules share,
 * include/dcc_ctl_tcp.h, and BPF's own below.  A program includes it
 * before its controller.
 */
#ifndef _DCC_CTL_BPF_H
#define _DCC_CTL_BPF_H

#include "bpf_tcp_ca.h"

/*
 * The kernel's Reno, which a congestion control may call (6.1 and
 * later): kfuncs, whose declarations are extern without the word.
 */
void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
__u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

static __always_inline __u8 dcc_ca_state(struct sock *sk)
{
	return icsk_ca_state(sk);
}

static __always_inline void dcc_set_pacing_rate(struct sock *sk, __u64 rate)
{
	sk->sk_pacing_rate = min_t(__u64, rate, sk->sk_max_pacing_rate);
}

#include "dcc_ctl_tcp.h"

#endif /* _DCC_CTL_BPF_H */
