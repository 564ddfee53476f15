// SPDX-License-Identifier: GPL-2.0
/*
 * ldcp_bpf: tcp_ldcp (LDCP, draft-dai-tsvwg-pfc-free-congestion-control-01)
 * as a BPF struct_ops congestion control, for hosts that load no modules.
 *
 * The algorithm is include/ldcp.h and its controller include/ldcp_ctl.h,
 * the code tcp_ldcp.c and the unit tests run; this file is its glue: the
 * parameters (cfg), the counters and the socket iterator (the socket's
 * accessors are dcc_ctl_bpf.h's, which hpcc_bpf shares, and
 * include/ldcp_ctl_tcp.h's, which the module shares).  PAWA on every ACK with its ECE,
 * fast start at IW = the BDP of bw_mbps and base_rtt_us, DCTCP's receiver
 * with an ACK per data segment (bpf_tcp_send_ack() for an ACK delayed
 * across a change of the CE state).
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
#include "dcc_ctl_bpf.h"
#include "ldcp_ctl_tcp.h"

char LICENSE[] SEC("license") = "GPL";

/* tcp_ldcp's parameters, with its defaults; dccbpf load may set them */
struct ldcp_bpf_cfg cfg = LDCP_BPF_CFG_INIT;

DCC_BPF_COUNTERS_MAP(ldcp_bpf_cnt);

/*
 * The controller's parameters from cfg, worked out when a socket starts
 * (the same for every socket: cfg is fixed once the object is loaded),
 * not per ACK.
 */
struct ldcp_params ldcp_p;

/* include/ldcp_ctl.h's hooks */
static __always_inline struct ldcp *ldcp_ctl_ca(struct sock *sk)
{
	return inet_csk_ca(sk);
}

static __always_inline void ldcp_ctl_params(struct sock *sk, struct ldcp_params *p)
{
	*p = ldcp_p;
}

static __always_inline __u32 ldcp_ctl_iw(struct sock *sk)
{
	return ldcp_iw_bdp(cfg.bw_mbps, cfg.base_rtt_us, tcp_sk(sk)->mss_cache);
}

static __always_inline int ldcp_ctl_fast_start(struct sock *sk)
{
	return cfg.fast_start;
}

static __always_inline __u64 ldcp_ctl_fs_rate(struct sock *sk)
{
	return (__u64)cfg.bw_mbps * 125000;
}

static __always_inline int ldcp_ctl_ack_every(struct sock *sk)
{
	return cfg.ack_every;
}

static __always_inline void ldcp_ctl_count(struct sock *sk, int i)
{
	dcc_bpf_count(&ldcp_bpf_cnt, i);
}

/* no tracepoint */
static __always_inline void ldcp_ctl_trace(struct sock *sk, const struct ldcp *ca,
					   __u32 cw_old, __u32 n, const char *event)
{
}

/*
 * Fast start's packets all leave ECN-capable (no fs_not_ect): nothing to
 * start or end.
 */
static __always_inline void ldcp_ctl_fs_start(struct sock *sk, struct ldcp *ca)
{
}

static __always_inline void ldcp_ctl_fs_end(struct sock *sk, struct ldcp *ca)
{
}

static __always_inline void ldcp_ctl_send_ack(struct sock *sk, __u32 rcv_nxt)
{
	bpf_tcp_send_ack(tcp_sk(sk), rcv_nxt);
}

#include "ldcp_ctl.h"

SEC("struct_ops/ldcp_init")
void BPF_PROG(ldcp_init, struct sock *sk)
{
	BUILD_BUG_ON(sizeof(struct ldcp) > sizeof(inet_csk(sk)->icsk_ca_priv));
	ldcp_params_derive(&ldcp_p, cfg.alpha_milli, cfg.beta_milli,
			   cfg.gamma_div, cfg.below_one_inc);
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	ldcp_ctl_init(sk);
}

/* (sk, rs) before 6.10, (sk, ack, flag, rs) since: bpf_cc_rs() */
SEC("struct_ops/ldcp_cong_control")
void ldcp_cong_control(__u64 *ctx)
{
	const struct rate_sample *rs = bpf_cc_rs(ctx);

	ldcp_ctl_cong_control((struct sock *)ctx[0], rs->acked_sacked, rs->losses);
}

SEC("struct_ops/ldcp_in_ack_event")
void BPF_PROG(ldcp_in_ack_event, struct sock *sk, __u32 flags)
{
	ldcp_ctl_in_ack_event(sk, flags & CA_ACK_ECE);
}

SEC("struct_ops/ldcp_set_state")
void BPF_PROG(ldcp_set_state, struct sock *sk, __u8 new_state)
{
	ldcp_ctl_set_state(sk, new_state);
}

SEC("struct_ops/ldcp_cwnd_event")
void BPF_PROG(ldcp_cwnd_event, struct sock *sk, int ev)
{
	ldcp_ctl_cwnd_event(sk, ev);
}

SEC("struct_ops/ldcp_ssthresh")
__u32 BPF_PROG(ldcp_ssthresh, struct sock *sk)
{
	return ldcp_ctl_ssthresh(sk);
}

SEC("struct_ops/ldcp_undo_cwnd")
__u32 BPF_PROG(ldcp_undo_cwnd, struct sock *sk)
{
	return ldcp_ctl_undo_cwnd(sk);
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
