// SPDX-License-Identifier: GPL-2.0
/*
 * ldcp_bpf: tcp_ldcp (LDCP, draft-dai-tsvwg-pfc-free-congestion-control-01)
 * as a BPF struct_ops congestion control, for hosts that load no modules.
 *
 * The algorithm is include/ldcp.h, the code tcp_ldcp.c and the unit tests
 * run; this file is the adapter tcp_ldcp.c is for the module, and follows
 * it function by function: PAWA on every ACK with its ECE, fast start at
 * IW = the BDP of bw_mbps and base_rtt_us, DCTCP's receiver with an ACK
 * per data segment (bpf_tcp_send_ack() for an ACK delayed across a change
 * of the CE state).
 *
 * What it cannot do the same way (Documentation/bpf.rst): fast start's
 * packets all leave ECN-capable, as the module's do by default, with no
 * fs_not_ect=1 (the module clears ECT per packet in a netfilter hook, on
 * packets it keeps one per skb by capping sk_gso_max_segs; a struct_ops
 * program can do neither); no get_info and no tracepoint; parameters
 * fixed when the loader loads it; counters for the whole host.
 */
#include <linux/bpf.h>

#include "bpf_tcp_ca.h"
#include "dcc_bpf.h"
#include "ldcp.h"

char LICENSE[] SEC("license") = "GPL";

/* tcp_ldcp's parameters, with its defaults; dccbpf load may set them */
struct ldcp_bpf_cfg cfg = LDCP_BPF_CFG_INIT;

DCC_BPF_COUNTERS_MAP(ldcp_bpf_cnt);

static __always_inline void count(int i)
{
	dcc_bpf_count(&ldcp_bpf_cnt, i);
}

/* Per-socket state, in icsk_ca_priv: tcp_ldcp.c's less fast start's ECN. */
struct ldcp {
	struct ldcp_state st;
	__u32	iw;		/* this flow's IW, LDCP_FRAC packets */
	__u32	isn;		/* snd_una when it started */
	__u32	prior_rcv_nxt;	/* receiver: rcv_nxt at the last CE event */
	__u32	acks;
	__u32	ece_acks;
	__u32	loss_cw;	/* cw before the last loss, for undo */
	__u8	ece;		/* the ACK being processed had ECE */
	__u8	ce_state;	/* receiver: the last segment had CE */
	__u8	in_loss;	/* in a loss episode (its response taken) */
};

static void ldcp_params(struct ldcp_params *p, const struct ldcp *ca)
{
	__u32 g = cfg.gamma_div ? cfg.gamma_div : 1;

	p->alpha = div_u64((__u64)cfg.alpha_milli << LDCP_FRAC_SHIFT, 1000);
	p->beta = div_u64((__u64)cfg.beta_milli << LDCP_FRAC_SHIFT, 1000);
	p->gamma = LDCP_ONE / g;
	p->iw = ca->iw;
	p->inc = cfg.below_one_inc ? p->alpha : 0;
}

/*
 * cw onto the socket: snd_cwnd is cw in whole packets, at least one
 * (after an RTO grown from TCP's loss window by @acked); the pacing rate
 * bw_mbps in fast start, one packet per RTT / cw below one packet,
 * TCP's 120% of cwnd per srtt otherwise (tcp_ldcp.c's ldcp_apply()).
 */
static __u64 ldcp_apply(struct sock *sk, const struct ldcp *ca, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = max(ca->st.cw >> LDCP_FRAC_SHIFT, 1U);
	__u64 srtt = max(tp->srtt_us >> 3, 1U), rate, gap;

	cwnd = min(cwnd, tp->snd_cwnd_clamp);
	tp->snd_ssthresh = cwnd;
	if (icsk_ca_state(sk) == TCP_CA_Loss)
		cwnd = min(cwnd, tp->snd_cwnd + acked);
	tp->snd_cwnd = cwnd;
	if (ca->st.phase == LDCP_FAST_START) {
		rate = (__u64)cfg.bw_mbps * 125000;
	} else if (!tp->srtt_us) {
		rate = ~0ULL;
	} else if (ca->st.cw < LDCP_ONE) {
		/* one packet every RTT / cw (2.2) */
		gap = max_t(__u64, ldcp_gap_ns(ca->st.cw, srtt * NSEC_PER_USEC), 1);
		rate = div64_u64((__u64)tp->mss_cache * NSEC_PER_SEC, gap);
	} else {
		rate = div64_u64((__u64)cwnd * tp->mss_cache * USEC_PER_SEC * 6,
				 srtt * 5);
	}
	rate = min_t(__u64, rate, sk->sk_max_pacing_rate);
	sk->sk_pacing_rate = rate;
	return rate;
}

SEC("struct_ops/ldcp_init")
void BPF_PROG(ldcp_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ldcp *ca = inet_csk_ca(sk);
	struct ldcp_params p;

	BUILD_BUG_ON(sizeof(*ca) > sizeof(inet_csk(sk)->icsk_ca_priv));
	__builtin_memset(ca, 0, sizeof(*ca));
	ca->iw = ldcp_iw_bdp(cfg.bw_mbps, cfg.base_rtt_us, tp->mss_cache);
	ca->isn = tp->snd_una;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ldcp_params(&p, ca);
	count(LDCP_C_FLOWS);
	if (!(tp->ecn_flags & TCP_ECN_OK))
		count(LDCP_C_FLOWS_NO_ECN);
	if (cfg.fast_start) {
		ldcp_state_init(&ca->st, &p);
		count(LDCP_C_FLOWS_FAST_START);
	} else {
		ca->st.cw = ldcp_clamp((__u64)tp->snd_cwnd << LDCP_FRAC_SHIFT,
				       LDCP_ONE);
		ca->st.phase = LDCP_STABLE;
	}
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	ldcp_apply(sk, ca, 0);
}

/* Packets acknowledged in order since the flow started. */
static __always_inline __u32 ldcp_acked(const struct tcp_sock *tp,
					const struct ldcp *ca)
{
	return (tp->snd_una - ca->isn) / max(tp->mss_cache, 1U);
}

static void ldcp_update(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ldcp *ca = inet_csk_ca(sk);
	int acked = rs->acked_sacked, losses = rs->losses;
	__u32 n = acked > 0 ? acked : 0;
	__u8 state = icsk_ca_state(sk);
	struct ldcp_params p;

	/* the ACK of an active open's SYN comes before init */
	if (!ca->iw)
		return;
	ldcp_params(&p, ca);
	if (ca->st.phase == LDCP_FAST_START) {
		if (losses > 0 || state >= TCP_CA_Recovery) {
			ldcp_fs_loss(&ca->st, ldcp_acked(tp, ca));
			count(LDCP_C_FS_LOSS);
		} else if (ldcp_fs_ack(&ca->st, &p, ldcp_acked(tp, ca))) {
			count(LDCP_C_FS_IW);
		}
	} else if (n && state < TCP_CA_Recovery) {
		if (ca->st.cw < LDCP_ONE)
			count(LDCP_C_BELOW_ONE);
		ldcp_pawa(&ca->st, &p, n, ca->ece);
		ca->acks++;
		count(LDCP_C_ACKS);
		if (ca->ece) {
			ca->ece_acks++;
			count(LDCP_C_ECE_ACKS);
		}
	}
	ldcp_apply(sk, ca, n);
	ca->ece = 0;
}

/* (sk, rs) before 6.10, (sk, ack, flag, rs) since: bpf_cc_rs() */
SEC("struct_ops/ldcp_cong_control")
void ldcp_cong_control(__u64 *ctx)
{
	ldcp_update((struct sock *)ctx[0], bpf_cc_rs(ctx));
}

/* The ACK's ECE, before cong_control sees the ACK. */
SEC("struct_ops/ldcp_in_ack_event")
void BPF_PROG(ldcp_in_ack_event, struct sock *sk, __u32 flags)
{
	struct ldcp *ca = inet_csk_ca(sk);

	ca->ece = !!(flags & CA_ACK_ECE);
}

/* A loss episode, once (tcp_ldcp.c's ldcp_react_to_loss()). */
static void ldcp_react_to_loss(struct sock *sk)
{
	struct ldcp *ca = inet_csk_ca(sk);
	struct ldcp_params p;

	if (!ca->iw || ca->in_loss)
		return;
	ca->in_loss = 1;
	if (ca->st.phase == LDCP_FAST_START) {
		ldcp_fs_loss(&ca->st, ldcp_acked(tcp_sk(sk), ca));
		count(LDCP_C_FS_LOSS);
		ldcp_apply(sk, ca, 0);
		return;
	}
	ldcp_params(&p, ca);
	ca->loss_cw = ca->st.cw;
	ca->st.cw = ldcp_clamp(ca->st.cw / 2, p.gamma);
	count(LDCP_C_LOSSES);
	ldcp_apply(sk, ca, 0);
}

SEC("struct_ops/ldcp_set_state")
void BPF_PROG(ldcp_set_state, struct sock *sk, __u8 new_state)
{
	struct ldcp *ca = inet_csk_ca(sk);

	if (new_state < TCP_CA_Recovery)
		ca->in_loss = 0;
	else if (new_state != icsk_ca_state(sk))
		ldcp_react_to_loss(sk);
}

/* The receiver's echo (section 2.2), as tcp_ldcp.c's. */
static __always_inline void ldcp_ece_ack_cwr(struct tcp_sock *tp, __u32 ce)
{
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

SEC("struct_ops/ldcp_cwnd_event")
void BPF_PROG(ldcp_cwnd_event, struct sock *sk, int ev)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct ldcp *ca = inet_csk_ca(sk);
	__u32 ce = ev == CA_EVENT_ECN_IS_CE;

	if (ev == CA_EVENT_LOSS)
		ldcp_react_to_loss(sk);
	if (ev != CA_EVENT_ECN_IS_CE && ev != CA_EVENT_ECN_NO_CE)
		return;
	if (ca->ce_state != ce) {
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			ldcp_ece_ack_cwr(tp, ca->ce_state);
			bpf_tcp_send_ack(tp, ca->prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
		count(LDCP_C_CE_CHANGES);
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = ce;
	ldcp_ece_ack_cwr(tp, ce);
	/* per-packet ACK (section 2.2) */
	if (cfg.ack_every && !(icsk->icsk_ack.pending & ICSK_ACK_NOW)) {
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
		count(LDCP_C_ACKS_NOW);
	}
}

/* cw is the window; TCP's own reductions would only be overwritten. */
SEC("struct_ops/ldcp_ssthresh")
__u32 BPF_PROG(ldcp_ssthresh, struct sock *sk)
{
	return max(tcp_sk(sk)->snd_cwnd, 2U);
}

/* A loss found spurious: cw as before it. */
SEC("struct_ops/ldcp_undo_cwnd")
__u32 BPF_PROG(ldcp_undo_cwnd, struct sock *sk)
{
	struct ldcp *ca = inet_csk_ca(sk);

	if (ca->loss_cw) {
		ca->st.cw = max(ca->st.cw, ca->loss_cw);
		ca->loss_cw = 0;
		count(LDCP_C_UNDOS);
	}
	return max(tcp_sk(sk)->snd_cwnd, ca->st.cw >> LDCP_FRAC_SHIFT);
}

/*
 * Each ldcp_bpf socket's state, what tcp_ldcp's get_info gives ccstat:
 * dccbpf pins this iterator as /sys/fs/bpf/tcp-dcc/ldcp_bpf_socks, and a
 * read of it lists the sockets of the reader's network namespace.
 */
SEC("iter/tcp")
int ldcp_socks(struct bpf_iter__tcp *ctx)
{
	static const char name[] = LDCP_BPF_NAME;
	struct seq_file *seq = ctx->meta->seq;
	struct tcp_sock *tp;
	struct ldcp ca;

	tp = bpf_iter_cc_sock(ctx, name, sizeof(name));
	if (!tp)
		return 0;
	bpf_probe_read_kernel(&ca, sizeof(ca), tp->inet_conn.icsk_ca_priv);
	BPF_SEQ_PRINTF(seq, " phase %s cw %u.%03u iw %u.%03u acks %u ece_acks %u",
		       ca.st.phase == LDCP_FAST_START ? "fast_start" : "stable",
		       ca.st.cw >> LDCP_FRAC_SHIFT,
		       ((ca.st.cw & 0xffff) * 1000) >> LDCP_FRAC_SHIFT,
		       ca.iw >> LDCP_FRAC_SHIFT,
		       ((ca.iw & 0xffff) * 1000) >> LDCP_FRAC_SHIFT,
		       ca.acks, ca.ece_acks);
	BPF_SEQ_PRINTF(seq, " exit %s ce %u cwnd %u pacing %lu\n",
		       ca.st.exit == LDCP_EXIT_IW ? "iw" :
		       ca.st.exit == LDCP_EXIT_LOSS ? "loss" : "-",
		       ca.ce_state, tp->snd_cwnd,
		       ((struct sock *)tp)->sk_pacing_rate);
	return 0;
}

SEC(".struct_ops")
struct tcp_congestion_ops ldcp_bpf = {
	.init		= (void *)ldcp_init,
	.in_ack_event	= (void *)ldcp_in_ack_event,
	.cong_control	= (void *)ldcp_cong_control,
	.cwnd_event	= (void *)ldcp_cwnd_event,
	.set_state	= (void *)ldcp_set_state,
	.ssthresh	= (void *)ldcp_ssthresh,
	.undo_cwnd	= (void *)ldcp_undo_cwnd,
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= LDCP_BPF_NAME,
};
