/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LDCP's controller, once for every flavour: the module (tcp_ldcp.c),
 * the BPF congestion control (tools/bpf/tcp_ldcp.bpf.c), the unit tests'
 * harness (selftests/unit/test_ldcp_ctl.c) and the ns-3 model.  It is
 * the code around include/ldcp.h's arithmetic: fast start at IW and its
 * end, PAWA on each ACK with its ECE, loss episodes and undo, the
 * receiver's CE echo, and cw onto snd_cwnd and the pacing rate (below
 * one packet, one packet every RTT / cw).  Documentation/tcp_ldcp.rst.
 *
 * A flavour includes it after it has defined the accessors of
 * include/dcc_ctl.h over its struct sock, and these, as static inline
 * functions or macros:
 *
 *   struct ldcp *ldcp_ctl_ca(sk)      the socket's struct ldcp (ldcp.h),
 *                                     in icsk_ca_priv or the flavour's
 *                                     own state around it
 *   void ldcp_ctl_params(sk, struct ldcp_params *p)
 *                                     alpha, beta, gamma and inc as
 *                                     ldcp_params_derive() gives them,
 *                                     worked out when a parameter is
 *                                     written or the flavour loads, not
 *                                     per ACK (p->iw is the socket's)
 *   u32  ldcp_ctl_iw(sk)              the IW of a socket that starts, for
 *                                     its dcc_mss(): ldcp_iw_bdp() of the
 *                                     bw_mbps and base_rtt_us parameters
 *   int  ldcp_ctl_fast_start(sk)      the fast_start parameter
 *   u64  ldcp_ctl_fs_rate(sk)         fast start's pacing rate, bytes/s:
 *                                     bw_mbps * 125000
 *   int  ldcp_ctl_ack_every(sk)       the ack_every parameter
 *   void ldcp_ctl_count(sk, int i)    add one to counter LDCP_C_i
 *                                     (include/ldcp.h: the order and names
 *                                     of /proc/net/tcp_ldcp)
 *   void ldcp_ctl_trace(sk, ca, u32 cw_old, u32 n, const char *event)
 *                                     a change of cw: the module's
 *                                     tracepoint, a no-op elsewhere
 *   void ldcp_ctl_fs_start(sk, ca)    fast start begins, the flavour's
 *   void ldcp_ctl_fs_end(sk, ca)      ... and ends: the module's not-ECT
 *                                     packets (TSO capped meanwhile); may
 *                                     be no-ops
 * and the ECN state of the receiver's echo (section 2.2):
 *   int  ldcp_ctl_ecn_ok(sk)          ecn_flags & TCP_ECN_OK
 *   void ldcp_ctl_demand_cwr(sk, int on)
 *                                     set or clear TCP_ECN_DEMAND_CWR
 *   u32  ldcp_ctl_rcv_nxt(sk)
 *   int  ldcp_ctl_ack_timer(sk)       a delayed ACK is pending
 *                                     (icsk_ack.pending & ICSK_ACK_TIMER)
 *   int  ldcp_ctl_ack_now(sk)         ... & ICSK_ACK_NOW
 *   void ldcp_ctl_set_ack_now(sk)     icsk_ack.pending |= ICSK_ACK_NOW
 *   void ldcp_ctl_send_ack(sk, u32 rcv_nxt)
 *                                     an ACK of @rcv_nxt now, with the
 *                                     ECE that demand_cwr says
 *
 * The flavour's callbacks call ldcp_ctl_init(), ldcp_ctl_cong_control()
 * (with the rate sample's acked_sacked and losses), ldcp_ctl_in_ack_event()
 * (with the ACK's CA_ACK_ECE), ldcp_ctl_set_state(), ldcp_ctl_cwnd_event(),
 * ldcp_ctl_ssthresh(), ldcp_ctl_undo_cwnd() and ldcp_ctl_release().
 *
 * Per ACK the controller reads no clock, and divides only where PAWA
 * divides by cw and, when cwnd, cw below one packet, srtt or the MSS
 * changed, for the pacing rate (cached in struct ldcp otherwise).
 */
#ifndef _LDCP_CTL_H
#define _LDCP_CTL_H

#include "dcc_ctl.h"
#include "ldcp.h"

/* The pacing rate of cw below one packet or of cwnd packets. */
static inline __u64 ldcp_ctl_rate(const struct ldcp *ca, __u32 cwnd,
				  __u32 mss, __u32 srtt)
{
	__u64 gap;

	if (ca->st.cw < LDCP_ONE) {
		/* one packet every RTT / cw (2.2) */
		gap = ldcp_gap_ns(ca->st.cw, (__u64)srtt * NSEC_PER_USEC);
		return div64_u64((__u64)mss * NSEC_PER_SEC, gap ? gap : 1);
	}
	return div64_u64((__u64)cwnd * mss * USEC_PER_SEC * 6, (__u64)srtt * 5);
}

/*
 * cw onto the socket: snd_cwnd is cw in whole packets, at least one;
 * after an RTO (TCP_CA_Loss) snd_cwnd grows from TCP's loss window by the
 * @acked packets, up to cw, as TCP's slow start would after it;
 * below one packet the pacing rate spaces them RTT / cw apart.  Fast
 * start sends its IW at bw_mbps, the line rate the IW was computed for
 * (a NIC's rate in the draft's setting); the stable stage paces at TCP's
 * rate for congestion avoidance, 120% of cwnd per srtt.  The rate is
 * worked out again only when its inputs changed.
 */
static inline void ldcp_ctl_apply(struct sock *sk, struct ldcp *ca, __u32 acked)
{
	__u32 cwnd = dcc_max32(ca->st.cw >> LDCP_FRAC_SHIFT, 1);
	__u32 srtt, mss, key;
	__u64 rate;

	cwnd = dcc_min32(cwnd, dcc_cwnd_clamp(sk));
	dcc_set_ssthresh(sk, cwnd);
	if (dcc_ca_state(sk) == TCP_CA_Loss)
		cwnd = dcc_min32(cwnd, dcc_cwnd(sk) + acked);
	dcc_set_cwnd(sk, cwnd);
	srtt = dcc_srtt_us(sk);
	if (ca->st.phase == LDCP_FAST_START) {
		rate = ldcp_ctl_fs_rate(sk);
	} else if (!srtt) {
		rate = ~0ULL;
	} else {
		mss = dcc_mss(sk);
		key = ca->st.cw < LDCP_ONE ? ca->st.cw : cwnd << LDCP_FRAC_SHIFT;
		if (key == ca->pace_key && srtt == ca->pace_srtt &&
		    mss == ca->pace_mss) {
			rate = ca->pace_rate;
		} else {
			rate = ldcp_ctl_rate(ca, cwnd, mss, srtt);
			ca->pace_key = key;
			ca->pace_srtt = srtt;
			ca->pace_mss = mss;
			ca->pace_rate = rate;
		}
	}
	dcc_set_pacing_rate(sk, rate);
}

/* Packets acknowledged in order since the flow started. */
static inline __u32 ldcp_ctl_acked(struct sock *sk, const struct ldcp *ca)
{
	return (dcc_snd_una(sk) - ca->isn) / dcc_mss(sk);
}

/* Fast start ended: the flavour's part (TSO, the ECN field). */
static inline void ldcp_ctl_end_fs(struct sock *sk, struct ldcp *ca, int loss)
{
	ldcp_ctl_fs_end(sk, ca);
	ldcp_ctl_count(sk, loss ? LDCP_C_FS_LOSS : LDCP_C_FS_IW);
}

static inline void ldcp_ctl_init(struct sock *sk)
{
	struct ldcp *ca = ldcp_ctl_ca(sk);
	struct ldcp_params p;
	__u32 ss = dcc_ssthresh(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->iw = ldcp_ctl_iw(sk);
	/*
	 * A departure from the draft: the IW is at most the ssthresh the
	 * kernel remembers for the destination (DCC_INFINITE_SSTHRESH where
	 * it has none), so that the destination's last flow, which lost its
	 * way into an incast, tells the next how much fits.
	 */
	if (ss < DCC_INFINITE_SSTHRESH && ss < (ca->iw >> LDCP_FRAC_SHIFT)) {
		ca->iw = dcc_max32(ss, 1) << LDCP_FRAC_SHIFT;
		ldcp_ctl_count(sk, LDCP_C_IW_REMEMBERED);
	}
	ca->isn = dcc_snd_una(sk);
	ca->prior_rcv_nxt = ldcp_ctl_rcv_nxt(sk);
	ldcp_ctl_count(sk, LDCP_C_FLOWS);
	if (!ldcp_ctl_ecn_ok(sk))
		ldcp_ctl_count(sk, LDCP_C_FLOWS_NO_ECN);
	if (ldcp_ctl_fast_start(sk)) {
		ldcp_ctl_params(sk, &p);
		p.iw = ca->iw;
		ldcp_state_init(&ca->st, &p);
		ldcp_ctl_count(sk, LDCP_C_FLOWS_FAST_START);
		ldcp_ctl_fs_start(sk, ca);
	} else {
		ca->st.cw = ldcp_clamp((__u64)dcc_cwnd(sk) << LDCP_FRAC_SHIFT, LDCP_ONE);
		ca->st.phase = LDCP_STABLE;
	}
	ldcp_ctl_apply(sk, ca, 0);
}

/*
 * An ACK of @acked_sacked packets (the rate sample's) that found @losses
 * lost: in fast start, its end (a loss, or the whole IW acknowledged);
 * in the stable stage outside recovery, PAWA with the ACK's ECE.
 */
static inline void ldcp_ctl_cong_control(struct sock *sk, int acked_sacked,
					 int losses)
{
	struct ldcp *ca = ldcp_ctl_ca(sk);
	__u32 n = acked_sacked > 0 ? acked_sacked : 0, old = ca->st.cw;
	__u8 state = dcc_ca_state(sk);
	const char *event = NULL;
	struct ldcp_params p;

	/*
	 * The ACK of an active open's SYN reaches cong_control before
	 * tcp_init_transfer() calls init (tcp_rcv_synsent_state_process()):
	 * the state is still zero then (ldcp_ctl_init() sets iw >= 1 packet).
	 */
	if (!ca->iw)
		return;
	if (ca->st.phase == LDCP_FAST_START) {
		if (losses > 0 || state >= TCP_CA_Recovery) {
			ldcp_fs_loss(&ca->st, ldcp_ctl_acked(sk, ca));
			ldcp_ctl_end_fs(sk, ca, 1);
			event = "fs_loss";
		} else {
			ldcp_ctl_params(sk, &p);
			p.iw = ca->iw;
			if (ldcp_fs_ack(&ca->st, &p, ldcp_ctl_acked(sk, ca))) {
				ldcp_ctl_end_fs(sk, ca, 0);
				event = "fs_iw";
			}
		}
	} else if (n && state < TCP_CA_Recovery) {
		if (ca->st.cw < LDCP_ONE)
			ldcp_ctl_count(sk, LDCP_C_BELOW_ONE);
		ldcp_ctl_params(sk, &p);
		ldcp_pawa(&ca->st, &p, n, ca->ece);
		ca->acks++;
		ldcp_ctl_count(sk, LDCP_C_ACKS);
		if (ca->ece) {
			ca->ece_acks++;
			ldcp_ctl_count(sk, LDCP_C_ECE_ACKS);
		}
		event = "pawa";
	} else if (n && state == TCP_CA_Loss) {
		event = "rto";
	}
	ldcp_ctl_apply(sk, ca, n);
	if (event)
		ldcp_ctl_trace(sk, ca, old, n, event);
	ca->ece = 0;
}

/* The ACK's ECE, before cong_control sees the ACK. */
static inline void ldcp_ctl_in_ack_event(struct sock *sk, int ece)
{
	ldcp_ctl_ca(sk)->ece = !!ece;
}

/*
 * A loss episode, once: entering fast recovery or the loss state (an
 * RTO).  tcp_dctcp.c counts an RTO only when TCP counts it as a new
 * reduction (CA_EVENT_LOSS), which an RTO in CWR is not; ldcp counts
 * that one too, as CWR, which TCP enters at an ECE, does not touch cw
 * (ldcp_ctl_set_state()).  In fast start it ends it (cw = what was
 * acknowledged); in the stable stage, where WRED/ECN should leave none,
 * cw halves (a departure: the draft does not say, and a TCP must
 * respond).  After an RTO, ldcp_ctl_apply() lets snd_cwnd grow back from
 * TCP's loss window to cw.
 */
static inline void ldcp_ctl_react_to_loss(struct sock *sk)
{
	struct ldcp *ca = ldcp_ctl_ca(sk);
	__u32 old = ca->st.cw;
	struct ldcp_params p;

	if (!ca->iw || ca->in_loss)
		return;
	ca->in_loss = 1;
	if (ca->st.phase == LDCP_FAST_START) {
		ldcp_fs_loss(&ca->st, ldcp_ctl_acked(sk, ca));
		ldcp_ctl_end_fs(sk, ca, 1);
		ldcp_ctl_apply(sk, ca, 0);
		ldcp_ctl_trace(sk, ca, old, 0, "fs_loss");
		return;
	}
	ldcp_ctl_params(sk, &p);
	ca->loss_cw = ca->st.cw;
	ca->st.cw = ldcp_clamp(ca->st.cw >> 1, p.gamma);
	ldcp_ctl_count(sk, LDCP_C_LOSSES);
	ldcp_ctl_apply(sk, ca, 0);
	ldcp_ctl_trace(sk, ca, old, 0, "loss");
}

/*
 * An episode starts when TCP enters recovery or the loss state, and ends
 * when it leaves them; one that TCP entered again within it (an RTO in
 * fast recovery, a timer that backs off) is the same episode.  An RTO
 * that TCP counts as a new reduction reaches ldcp_ctl_cwnd_event() first
 * (tcp_enter_loss() sends CA_EVENT_LOSS before it sets the state) and
 * starts a new one; one in CWR only comes here.
 */
static inline void ldcp_ctl_set_state(struct sock *sk, __u8 new_state)
{
	if (new_state < TCP_CA_Recovery)
		ldcp_ctl_ca(sk)->in_loss = 0;
	else if (new_state != dcc_ca_state(sk))
		ldcp_ctl_react_to_loss(sk);
}

/*
 * The receiver's echo (section 2.2): an ACK at each change of the CE
 * state, so that each ACK's ECE covers packets that all had, or all did
 * not have, CE; an ACK delayed across the change goes out first with the
 * old state.  TCP_ECN_DEMAND_CWR holds ECE while the state is CE.  This
 * is DCTCP's receiver (net/ipv4/tcp_dctcp.h).  Per-packet ACK (section
 * 2.2, ack_every): every ECT data segment, so that a flow with one
 * packet in flight (cw below two) is not held by the delayed-ACK timer,
 * at least 40 ms, which would be its RTT.
 */
static inline void ldcp_ctl_cwnd_event(struct sock *sk, int ev)
{
	struct ldcp *ca = ldcp_ctl_ca(sk);
	__u8 ce = ev == CA_EVENT_ECN_IS_CE;

	if (ev == CA_EVENT_LOSS) {
		ca->in_loss = 0;
		ldcp_ctl_react_to_loss(sk);
	}
	if (ev != CA_EVENT_ECN_IS_CE && ev != CA_EVENT_ECN_NO_CE)
		return;
	if (ca->ce_state != ce) {
		if (ldcp_ctl_ack_timer(sk)) {
			ldcp_ctl_demand_cwr(sk, ca->ce_state);
			ldcp_ctl_send_ack(sk, ca->prior_rcv_nxt);
		}
		ldcp_ctl_set_ack_now(sk);
		ldcp_ctl_count(sk, LDCP_C_CE_CHANGES);
	}
	ca->prior_rcv_nxt = ldcp_ctl_rcv_nxt(sk);
	ca->ce_state = ce;
	ldcp_ctl_demand_cwr(sk, ce);
	if (ldcp_ctl_ack_every(sk) && !ldcp_ctl_ack_now(sk)) {
		ldcp_ctl_set_ack_now(sk);
		ldcp_ctl_count(sk, LDCP_C_ACKS_NOW);
	}
}

/* Another algorithm takes over, or the socket closes. */
static inline void ldcp_ctl_release(struct sock *sk)
{
	ldcp_ctl_fs_end(sk, ldcp_ctl_ca(sk));
}

/* cw is the window; TCP's own reductions would only be overwritten. */
static inline __u32 ldcp_ctl_ssthresh(struct sock *sk)
{
	return dcc_max32(dcc_cwnd(sk), 2);
}

/* A loss found spurious: cw as before it (tcp_dctcp.c's undo). */
static inline __u32 ldcp_ctl_undo_cwnd(struct sock *sk)
{
	struct ldcp *ca = ldcp_ctl_ca(sk);

	if (ca->loss_cw) {
		ca->st.cw = dcc_max32(ca->st.cw, ca->loss_cw);
		ca->loss_cw = 0;
		ldcp_ctl_count(sk, LDCP_C_UNDOS);
	}
	return dcc_max32(dcc_cwnd(sk), ca->st.cw >> LDCP_FRAC_SHIFT);
}

#endif /* _LDCP_CTL_H */
