/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The accessors of include/dcc_ctl.h over the kernel's struct tcp_sock,
 * written once for the two flavours that run on one: the modules
 * (tcp_hpcc.c, tcp_ldcp.c) and the BPF congestion controls
 * (tools/bpf/tcp_hpcc.bpf.c, tools/bpf/tcp_ldcp.bpf.c).  Neither includes
 * it directly: include/dcc_ctl_kern.h (the modules) and
 * tools/bpf/dcc_ctl_bpf.h (BPF) do, after what is not the same in both:
 *
 *   u8   dcc_ca_state(sk)       icsk_ca_state, a bitfield BPF reads
 *                               through CO-RE
 *   void dcc_set_pacing_rate(sk, u64 rate)
 *                               the module's READ_ONCE()/WRITE_ONCE() of
 *                               the rates, BPF's plain accesses
 *
 * Before them, the flavour has the kernel's struct tcp_sock and the
 * helpers used here: <net/tcp.h> in a module; in BPF, the declarations
 * of tools/bpf/bpf_tcp_ca.h (tcp_sk(), tcp_snd_cwnd(), tcp_min_rtt(),
 * max(), ...) and the kernel's Reno as kfuncs.
 */
#ifndef _DCC_CTL_TCP_H
#define _DCC_CTL_TCP_H

static __always_inline __u32 dcc_cwnd(struct sock *sk)
{
	return tcp_snd_cwnd(tcp_sk(sk));
}

static __always_inline void dcc_set_cwnd(struct sock *sk, __u32 v)
{
	tcp_snd_cwnd_set(tcp_sk(sk), v);
}

static __always_inline __u32 dcc_ssthresh(struct sock *sk)
{
	return tcp_sk(sk)->snd_ssthresh;
}

static __always_inline void dcc_set_ssthresh(struct sock *sk, __u32 v)
{
	tcp_sk(sk)->snd_ssthresh = v;
}

static __always_inline __u32 dcc_cwnd_clamp(struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd_clamp;
}

/* at least 1, as include/dcc_ctl.h promises: the controllers divide by it */
static __always_inline __u32 dcc_mss(struct sock *sk)
{
	return max(tcp_sk(sk)->mss_cache, 1U);
}

static __always_inline __u32 dcc_srtt_us(struct sock *sk)
{
	return tcp_sk(sk)->srtt_us >> 3;
}

static __always_inline __u32 dcc_min_rtt_us(struct sock *sk)
{
	return tcp_min_rtt(tcp_sk(sk));
}

static __always_inline __u32 dcc_delivered(struct sock *sk)
{
	return tcp_sk(sk)->delivered;
}

static __always_inline __u32 dcc_packets_out(struct sock *sk)
{
	return tcp_sk(sk)->packets_out;
}

static __always_inline __u32 dcc_snd_una(struct sock *sk)
{
	return tcp_sk(sk)->snd_una;
}

static __always_inline __u32 dcc_snd_nxt(struct sock *sk)
{
	return tcp_sk(sk)->snd_nxt;
}

static __always_inline __u64 dcc_now_us(struct sock *sk)
{
	return tcp_sk(sk)->tcp_mstamp;
}

static __always_inline __u64 dcc_now_ns(struct sock *sk)
{
	return tcp_sk(sk)->tcp_mstamp * NSEC_PER_USEC;
}

static __always_inline void dcc_reno_cong_avoid(struct sock *sk, __u32 acked)
{
	tcp_reno_cong_avoid(sk, tcp_sk(sk)->snd_una, acked);
}

static __always_inline __u32 dcc_reno_undo_cwnd(struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

#endif /* _DCC_CTL_TCP_H */
