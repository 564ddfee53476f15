/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks of include/ldcp_ctl.h for the ECN state of the receiver's
 * echo (section 2.2), over the kernel's struct tcp_sock: the same for
 * the module (tcp_ldcp.c) and the BPF congestion control
 * (tools/bpf/tcp_ldcp.bpf.c), which may write ecn_flags and
 * icsk_ack.pending.  ldcp_ctl_send_ack() is each one's own (the module
 * calls __tcp_send_ack(), BPF bpf_tcp_send_ack()).
 *
 * The flavour has the kernel's struct tcp_sock and its constants
 * before: <net/tcp.h> in the module, tools/bpf/bpf_tcp_ca.h in BPF.
 */
#ifndef _LDCP_CTL_TCP_H
#define _LDCP_CTL_TCP_H

static __always_inline int ldcp_ctl_ecn_ok(struct sock *sk)
{
	return tcp_sk(sk)->ecn_flags & TCP_ECN_OK;
}

/*
 * DCTCP's receiver (net/ipv4/tcp_dctcp.h, not in the headers a module
 * builds against): TCP_ECN_DEMAND_CWR holds ECE while the state is CE.
 */
static __always_inline void ldcp_ctl_demand_cwr(struct sock *sk, int on)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (on)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

static __always_inline __u32 ldcp_ctl_rcv_nxt(struct sock *sk)
{
	return tcp_sk(sk)->rcv_nxt;
}

static __always_inline int ldcp_ctl_ack_timer(struct sock *sk)
{
	return inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER;
}

static __always_inline int ldcp_ctl_ack_now(struct sock *sk)
{
	return inet_csk(sk)->icsk_ack.pending & ICSK_ACK_NOW;
}

static __always_inline void ldcp_ctl_set_ack_now(struct sock *sk)
{
	inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
}

#endif /* _LDCP_CTL_TCP_H */
