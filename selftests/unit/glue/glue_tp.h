/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct dcc_sim_io to and from the kernel's struct tcp_sock, for the
 * wrappers of the module's glue (kshim's struct tcp_sock) and of the BPF
 * program's (tools/bpf/bpf_tcp_ca.h's): the same field names in both.
 * What each socket keeps that the other's lacks (snd_cwnd_cnt,
 * prior_cwnd) its wrapper copies itself.
 */
#ifndef _GLUE_TP_H
#define _GLUE_TP_H

static inline void glue_tp_in(struct sock *sk, const struct dcc_sim_io *io)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_cwnd = io->cwnd;
	tp->snd_ssthresh = io->ssthresh;
	tp->snd_cwnd_clamp = io->clamp;
	tp->mss_cache = io->mss;
	/* the kernel keeps 8 times the smoothed RTT */
	tp->srtt_us = io->srtt_us << 3;
	tp->rtt_min.s[0].v = io->min_rtt_us;
	tp->delivered = io->delivered;
	tp->packets_out = io->packets_out;
	tp->snd_una = io->snd_una;
	tp->snd_nxt = io->snd_nxt;
	tp->rcv_nxt = io->rcv_nxt;
	tp->inet_conn.icsk_ca_state = io->ca_state;
	tp->ecn_flags = (tp->ecn_flags & ~TCP_ECN_OK) |
			(io->ecn_ok ? TCP_ECN_OK : 0);
	/* tcp_mstamp: the ACK's time in us */
	tp->tcp_mstamp = io->now_ns / 1000;
	sk->sk_max_pacing_rate = io->max_pacing;
	sk->sk_pacing_rate = io->pacing;
	tp->inet_conn.icsk_ack.pending = glue_ack_pending;
}

static inline void glue_tp_out(struct sock *sk, struct dcc_sim_io *io)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	io->cwnd = tp->snd_cwnd;
	io->ssthresh = tp->snd_ssthresh;
	io->pacing = sk->sk_pacing_rate;
	io->demand_cwr = !!(tp->ecn_flags & TCP_ECN_DEMAND_CWR);
}

#endif /* _GLUE_TP_H */
