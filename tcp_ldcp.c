// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_ldcp: LDCP (draft-dai-tsvwg-pfc-free-congestion-control-01) as a
 * TCP congestion control, for networks whose switches mark ECN on the
 * instantaneous queue (WRED/ECN) and carry no telemetry.
 *
 * The algorithm is include/ldcp.h, the same code the userspace unit
 * tests run.  This file feeds it: every ACK of n packets adjusts cw by
 * PAWA with the ACK's ECE (section 2.2); below one packet the flow sends
 * one packet every RTT / cw, by TCP's internal pacing; a flow starts with
 * cw = IW = the BDP of the configured bandwidth and base RTT and leaves
 * fast start when the whole IW is acknowledged (cw = BDP) or on a loss
 * (cw = what was acknowledged before it), section 3.1.
 *
 * ECN: TCP_CONG_NEEDS_ECN.  As a receiver, ldcp echoes CE as DCTCP does,
 * an ACK at each change of the CE state, so that each ACK's ECE says
 * whether the packets it acknowledges were marked (section 2.2's
 * receiver).  A stock receiver (RFC 3168) holds ECE from the first CE
 * until the sender's CWR instead: Documentation/tcp_ldcp.rst.
 *
 * With fs_not_ect=1, fast start's packets other than the IW-th (and a
 * last one) leave not-ECN-capable, so that a WRED/ECN queue over its
 * threshold drops them rather than marking (sections 2.3 and 3.1); by
 * default they leave ECT, as TCP recovers a first window's drops a round
 * trip or an RTO late (Documentation/tcp_ldcp.rst, "Departures from the
 * draft").  TCP sets the ECN field per socket, so a netfilter LOCAL_OUT
 * hook clears ECT on those segments (ldcp_fs_ect()), and fast start sends
 * one packet per skb so that no TSO burst straddles the IW-th packet:
 * Documentation/tcp_ldcp.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/inet_diag.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/tcp.h>
#include <net/inet_ecn.h>

#include "dcc_pernet.h"
#include "gso_cap.h"
#include "ldcp.h"
#include "range_param.h"

#define CREATE_TRACE_POINTS
#include "tcp_ldcp_trace.h"

/*
 * Parameters (include/range_param.h): a write outside a parameter's
 * range is refused with a message and leaves the old value.
 */
static unsigned int alpha_milli = 1000;
DEFINE_RANGE_PARAM_OPS(alpha_milli, 1, 1000);
module_param_cb(alpha_milli, &alpha_milli_ops, &alpha_milli, 0644);
MODULE_PARM_DESC(alpha_milli,
		 "alpha, the increase per window of unmarked ACKs, 1/1000 packet (1..1000, default 1000)");
static unsigned int beta_milli = 500;
DEFINE_RANGE_PARAM_OPS(beta_milli, 1, 1000);
module_param_cb(beta_milli, &beta_milli_ops, &beta_milli, 0644);
MODULE_PARM_DESC(beta_milli,
		 "beta, the decrease per marked packet, 1/1000 packet (1..1000, default 500)");
static unsigned int gamma_div = 8;
DEFINE_RANGE_PARAM_OPS(gamma_div, 4, 16);
module_param_cb(gamma_div, &gamma_div_ops, &gamma_div, 0644);
MODULE_PARM_DESC(gamma_div,
		 "gamma = 1/gamma_div packet: the step and floor of cw below one packet (4..16, default 8)");
static unsigned int bw_mbps = 10000;
DEFINE_RANGE_PARAM_OPS(bw_mbps, 1, 4000000);
module_param_cb(bw_mbps, &bw_mbps_ops, &bw_mbps, 0644);
MODULE_PARM_DESC(bw_mbps,
		 "bandwidth of the initial window IW = bw * base RTT, Mbit/s (1..4000000, default 10000)");
static unsigned int base_rtt_us = 100;
DEFINE_RANGE_PARAM_OPS(base_rtt_us, 1, 1000000);
module_param_cb(base_rtt_us, &base_rtt_us_ops, &base_rtt_us, 0644);
MODULE_PARM_DESC(base_rtt_us,
		 "base RTT of the initial window, us (1..1000000, default 100)");
static unsigned int fast_start = 1;
DEFINE_RANGE_PARAM_OPS(fast_start, 0, 1);
module_param_cb(fast_start, &fast_start_ops, &fast_start, 0644);
MODULE_PARM_DESC(fast_start,
		 "1: start at IW in fast start (section 2.3); 0: TCP's initial window, PAWA from the start (default 1)");
static unsigned int fs_not_ect;
DEFINE_RANGE_PARAM_OPS(fs_not_ect, 0, 1);
module_param_cb(fs_not_ect, &fs_not_ect_ops, &fs_not_ect, 0644);
MODULE_PARM_DESC(fs_not_ect,
		 "1: fast start's packets before the IW-th leave not-ECN-capable (section 3.1); 0: all ECT (default 0)");
static unsigned int below_one_inc = 1;
DEFINE_RANGE_PARAM_OPS(below_one_inc, 0, 1);
module_param_cb(below_one_inc, &below_one_inc_ops, &below_one_inc, 0644);
MODULE_PARM_DESC(below_one_inc,
		 "below one packet, the increase per unmarked ACK: 0: gamma (section 2.2); 1: alpha, one equilibrium with PAWA above one packet (default 1)");
static unsigned int ack_every = 1;
DEFINE_RANGE_PARAM_OPS(ack_every, 0, 1);
module_param_cb(ack_every, &ack_every_ops, &ack_every, 0644);
MODULE_PARM_DESC(ack_every,
		 "receiver: 1: an ACK for every data segment (section 2.2); 0: TCP's delayed ACK (default 1)");

/* Per-namespace counters: /proc/net/tcp_ldcp. */
enum {
	C_FLOWS,		/* flows started */
	C_FLOWS_NO_ECN,		/* ... without ECN negotiated: no ECE to act on */
	C_FLOWS_FAST_START,	/* ... in fast start */
	C_FS_IW,		/* fast start ended: the whole IW acknowledged */
	C_FS_LOSS,		/* fast start ended: a loss */
	C_ACKS,			/* ACKs taken by PAWA */
	C_ECE_ACKS,		/* ... with ECE */
	C_BELOW_ONE,		/* ... with cw below one packet */
	C_LOSSES,		/* loss episodes in the stable stage: cw halved */
	C_CE_CHANGES,		/* receiver: changes of the CE state echoed */
	C_FS_NOT_ECT,		/* fast-start packets sent not-ECN-capable */
	C_ACKS_NOW,		/* receiver: data segments ACKed at once */
	C_UNDOS,		/* loss episodes found spurious: cw restored */
	C_NR,
};

static const char * const ldcp_ctr_names[C_NR] = {
	"flows", "flows_no_ecn", "flows_fast_start", "fs_iw", "fs_loss", "acks", "ece_acks",
	"below_one", "losses", "ce_changes", "fs_not_ect", "acks_now", "undos",
};

static void ldcp_count_n(const struct sock *sk, int i, u32 n)
{
	dcc_count_n(sock_net(sk), i, n);
}

static void ldcp_count(const struct sock *sk, int i)
{
	dcc_count(sock_net(sk), i);
}

struct ldcp {
	struct ldcp_state st;
	u32	iw;		/* this flow's IW, LDCP_FRAC packets */
	u32	isn;		/* snd_una when it started */
	u32	prior_rcv_nxt;	/* receiver: rcv_nxt at the last CE event */
	u32	acks;
	u32	ece_acks;
	u32	loss_cw;	/* cw before the last loss, for undo */
	struct gso_cap gso;	/* fast start's cap on sk_gso_max_segs */
	u8	ece;		/* the ACK being processed had ECE */
	u8	ce_state;	/* receiver: the last segment had CE */
	u8	in_loss;	/* in a loss episode (its response taken) */
	u8	fs_ect;		/* fast start sets the ECN field per packet */
};

static void ldcp_params(struct ldcp_params *p, const struct ldcp *ca)
{
	p->alpha = div_u64((u64)READ_ONCE(alpha_milli) << LDCP_FRAC_SHIFT, 1000);
	p->beta = div_u64((u64)READ_ONCE(beta_milli) << LDCP_FRAC_SHIFT, 1000);
	p->gamma = LDCP_ONE / READ_ONCE(gamma_div);
	p->iw = ca->iw;
	p->inc = READ_ONCE(below_one_inc) ? p->alpha : 0;
}

/* IW = bw * base RTT, in packets of @mss */
static u32 ldcp_iw(u32 mss)
{
	return ldcp_iw_bdp(READ_ONCE(bw_mbps), READ_ONCE(base_rtt_us), mss);
}

/*
 * cw onto the socket: snd_cwnd is cw in whole packets, at least one;
 * after an RTO (TCP_CA_Loss) snd_cwnd grows from TCP's loss window by the
 * @acked packets, up to cw, as TCP's slow start would after it;
 * below one packet the pacing rate spaces them RTT / cw apart.  Fast
 * start sends its IW at bw_mbps, the line rate the IW was computed for
 * (a NIC's rate in the draft's setting); the stable stage paces at TCP's
 * rate for congestion avoidance, 120% of cwnd per srtt.  Returns the
 * rate.
 */
static u64 ldcp_apply(struct sock *sk, const struct ldcp *ca, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = max(ca->st.cw >> LDCP_FRAC_SHIFT, 1U);
	u64 srtt = max(tp->srtt_us >> 3, 1U), rate;

	cwnd = min(cwnd, tp->snd_cwnd_clamp);
	tp->snd_ssthresh = cwnd;
	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		cwnd = min(cwnd, tcp_snd_cwnd(tp) + acked);
	tcp_snd_cwnd_set(tp, cwnd);
	if (ca->st.phase == LDCP_FAST_START)
		rate = (u64)READ_ONCE(bw_mbps) * 125000;
	else if (!tp->srtt_us)
		rate = ~0ULL;
	else if (ca->st.cw < LDCP_ONE)
		/* one packet every RTT / cw (2.2) */
		rate = div64_u64((u64)tp->mss_cache * NSEC_PER_SEC,
				 max_t(u64, ldcp_gap_ns(ca->st.cw, srtt * NSEC_PER_USEC), 1));
	else
		rate = div64_u64((u64)cwnd * tp->mss_cache * USEC_PER_SEC * 6, srtt * 5);
	rate = min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate));
	WRITE_ONCE(sk->sk_pacing_rate, rate);
	return rate;
}

static void ldcp_trace(struct sock *sk, const struct ldcp *ca, u32 cw_old,
		       u32 n, u64 rate, const char *event)
{
	trace_ldcp_update(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
			  cw_old, ca->st.cw, n, ca->ece, ca->st.phase,
			  tcp_snd_cwnd(tcp_sk(sk)), rate, event);
}

static void ldcp_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ldcp *ca = inet_csk_ca(sk);
	struct ldcp_params p;

	memset(ca, 0, sizeof(*ca));
	ca->iw = ldcp_iw(tp->mss_cache);
	ca->isn = tp->snd_una;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ldcp_params(&p, ca);
	ldcp_count(sk, C_FLOWS);
	if (!(tp->ecn_flags & TCP_ECN_OK))
		ldcp_count(sk, C_FLOWS_NO_ECN);
	if (READ_ONCE(fast_start)) {
		ldcp_state_init(&ca->st, &p);
		ldcp_count(sk, C_FLOWS_FAST_START);
		/*
		 * One packet per skb until fast start ends, so that the
		 * LOCAL_OUT hook can set each packet's ECN field.
		 */
		if ((tp->ecn_flags & TCP_ECN_OK) && READ_ONCE(fs_not_ect)) {
			ca->fs_ect = 1;
			gso_cap_init(&ca->gso, sk->sk_gso_max_segs);
			sk_gso_cap(sk, &ca->gso, 1);
		}
	} else {
		ca->st.cw = ldcp_clamp((u64)tcp_snd_cwnd(tp) << LDCP_FRAC_SHIFT, LDCP_ONE);
		ca->st.phase = LDCP_STABLE;
	}
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
	ldcp_apply(sk, ca, 0);
}

/* Packets acknowledged in order since the flow started. */
static u32 ldcp_acked(const struct sock *sk, const struct ldcp *ca)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return (tp->snd_una - ca->isn) / max(tp->mss_cache, 1U);
}

/*
 * Fast start ended: TSO as the device allows, every packet ECT from now
 * on.  A new route during fast start (sk_setup_caps()) has already given
 * the socket its device's limit, which stays.
 */
static void ldcp_fs_end(struct sock *sk, struct ldcp *ca)
{
	if (ca->fs_ect) {
		ca->fs_ect = 0;
		sk_gso_cap(sk, &ca->gso, 0);
	}
}

static void ldcp_update(struct sock *sk, const struct rate_sample *rs)
{
	struct ldcp *ca = inet_csk_ca(sk);
	u32 n = rs->acked_sacked > 0 ? rs->acked_sacked : 0, old = ca->st.cw;
	const char *event = NULL;
	struct ldcp_params p;
	u64 rate;

	/*
	 * The ACK of an active open's SYN reaches cong_control before
	 * tcp_init_transfer() calls init (tcp_rcv_synsent_state_process()):
	 * the state is still zero then (ldcp_init() sets iw >= 1 packet).
	 */
	if (!ca->iw)
		return;
	ldcp_params(&p, ca);
	if (ca->st.phase == LDCP_FAST_START) {
		if (rs->losses > 0 || inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery) {
			ldcp_fs_loss(&ca->st, ldcp_acked(sk, ca));
			ldcp_fs_end(sk, ca);
			ldcp_count(sk, C_FS_LOSS);
			event = "fs_loss";
		} else if (ldcp_fs_ack(&ca->st, &p, ldcp_acked(sk, ca))) {
			ldcp_fs_end(sk, ca);
			ldcp_count(sk, C_FS_IW);
			event = "fs_iw";
		}
	} else if (n && inet_csk(sk)->icsk_ca_state < TCP_CA_Recovery) {
		if (ca->st.cw < LDCP_ONE)
			ldcp_count(sk, C_BELOW_ONE);
		ldcp_pawa(&ca->st, &p, n, ca->ece);
		ca->acks++;
		ldcp_count(sk, C_ACKS);
		if (ca->ece) {
			ca->ece_acks++;
			ldcp_count(sk, C_ECE_ACKS);
		}
		event = "pawa";
	} else if (n && inet_csk(sk)->icsk_ca_state == TCP_CA_Loss) {
		event = "rto";
	}
	rate = ldcp_apply(sk, ca, n);
	if (event)
		ldcp_trace(sk, ca, old, n, rate, event);
	ca->ece = 0;
}

#ifdef LDCP_CONG_CONTROL_ACK
static void ldcp_cong_control(struct sock *sk, u32 ack, int flag,
			      const struct rate_sample *rs)
{
	ldcp_update(sk, rs);
}
#else
static void ldcp_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	ldcp_update(sk, rs);
}
#endif

/* The ACK's ECE, before cong_control sees the ACK. */
static void ldcp_in_ack_event(struct sock *sk, u32 flags)
{
	struct ldcp *ca = inet_csk_ca(sk);

	ca->ece = !!(flags & CA_ACK_ECE);
}

/*
 * A loss episode, once: entering fast recovery or the loss state (an
 * RTO).  tcp_dctcp.c counts an RTO only when TCP counts it as a new
 * reduction (CA_EVENT_LOSS), which an RTO in CWR is not; ldcp counts
 * that one too, as CWR, which TCP enters at an ECE, does not touch cw
 * (ldcp_set_state()).  In fast start it ends it (cw = what was
 * acknowledged); in the stable stage,
 * where WRED/ECN should leave none, cw halves (a departure: the draft
 * does not say, and a TCP must respond).  After an RTO, ldcp_apply()
 * lets snd_cwnd grow back from TCP's loss window to cw.
 */
static void ldcp_react_to_loss(struct sock *sk)
{
	struct ldcp *ca = inet_csk_ca(sk);
	u32 old = ca->st.cw;
	struct ldcp_params p;

	if (!ca->iw || ca->in_loss)
		return;
	ca->in_loss = 1;
	if (ca->st.phase == LDCP_FAST_START) {
		ldcp_fs_loss(&ca->st, ldcp_acked(sk, ca));
		ldcp_fs_end(sk, ca);
		ldcp_count(sk, C_FS_LOSS);
		ldcp_trace(sk, ca, old, 0, ldcp_apply(sk, ca, 0), "fs_loss");
		return;
	}
	ldcp_params(&p, ca);
	ca->loss_cw = ca->st.cw;
	ca->st.cw = ldcp_clamp(ca->st.cw / 2, p.gamma);
	ldcp_count(sk, C_LOSSES);
	ldcp_trace(sk, ca, old, 0, ldcp_apply(sk, ca, 0), "loss");
}

/*
 * An episode starts when TCP enters recovery or the loss state, and ends
 * when it leaves them; one that TCP entered again within it (an RTO in
 * fast recovery, a timer that backs off) is the same episode.  An RTO
 * that TCP counts reaches ldcp_cwnd_event() first (tcp_enter_loss()
 * sends CA_EVENT_LOSS before it sets the state); one in CWR only comes
 * here.
 */
static void ldcp_set_state(struct sock *sk, u8 new_state)
{
	struct ldcp *ca = inet_csk_ca(sk);

	if (new_state < TCP_CA_Recovery)
		ca->in_loss = 0;
	else if (new_state != inet_csk(sk)->icsk_ca_state)
		ldcp_react_to_loss(sk);
}

/*
 * The receiver's echo (section 2.2): an ACK at each change of the CE
 * state, so that each ACK's ECE covers packets that all had, or all did
 * not have, CE; an ACK delayed across the change goes out first with the
 * old state.  TCP_ECN_DEMAND_CWR holds ECE while the state is CE.  This
 * is DCTCP's receiver (net/ipv4/tcp_dctcp.h, not in the headers a module
 * builds against).
 */
static void ldcp_ece_ack_cwr(struct sock *sk, u32 ce_state)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ce_state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

static void ldcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct ldcp *ca = inet_csk_ca(sk);
	u32 ce = ev == CA_EVENT_ECN_IS_CE;

	if (ev == CA_EVENT_LOSS)
		ldcp_react_to_loss(sk);
	if (ev != CA_EVENT_ECN_IS_CE && ev != CA_EVENT_ECN_NO_CE)
		return;
	if (ca->ce_state != ce) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			ldcp_ece_ack_cwr(sk, ca->ce_state);
#ifdef LDCP_SEND_ACK_FLAGS
			__tcp_send_ack(sk, ca->prior_rcv_nxt, 0);
#else
			__tcp_send_ack(sk, ca->prior_rcv_nxt);
#endif
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
		ldcp_count(sk, C_CE_CHANGES);
	}
	ca->prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	ca->ce_state = ce;
	ldcp_ece_ack_cwr(sk, ce);
	/*
	 * Per-packet ACK (section 2.2): every ECT data segment, so that a
	 * flow with one packet in flight (cw below two) is not held by the
	 * delayed-ACK timer, at least 40 ms, which would be its RTT.
	 */
	if (READ_ONCE(ack_every) &&
	    !(inet_csk(sk)->icsk_ack.pending & ICSK_ACK_NOW)) {
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
		ldcp_count(sk, C_ACKS_NOW);
	}
}

/* Another algorithm takes over, or the socket closes. */
static void ldcp_release(struct sock *sk)
{
	ldcp_fs_end(sk, inet_csk_ca(sk));
}

/* cw is the window; TCP's own reductions would only be overwritten. */
static u32 ldcp_ssthresh(struct sock *sk)
{
	return max(tcp_snd_cwnd(tcp_sk(sk)), 2U);
}

/* A loss found spurious: cw as before it (tcp_dctcp.c's undo). */
static u32 ldcp_undo_cwnd(struct sock *sk)
{
	struct ldcp *ca = inet_csk_ca(sk);

	if (ca->loss_cw) {
		ca->st.cw = max(ca->st.cw, ca->loss_cw);
		ca->loss_cw = 0;
		ldcp_count(sk, C_UNDOS);
	}
	return max(tcp_snd_cwnd(tcp_sk(sk)), ca->st.cw >> LDCP_FRAC_SHIFT);
}

static size_t ldcp_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct ldcp *ca = inet_csk_ca(sk);
	struct ldcp_diag_info *li = (struct ldcp_diag_info *)info;

	BUILD_BUG_ON(sizeof(*li) > sizeof(*info));
	if (!(ext & (1 << (INET_DIAG_INFO - 1)) ||
	      ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(li, 0, sizeof(*li));
	li->cw = ca->st.cw;
	li->iw = ca->iw;
	li->acks = ca->acks;
	li->ece_acks = ca->ece_acks;
	li->phase = ca->st.phase;
	li->exit = ca->st.exit;
	li->flags = ca->ce_state ? LDCP_DIAG_F_CE : 0;
	*attr = LDCP_DIAG_ATTR;
	return sizeof(*li);
}

static struct tcp_congestion_ops tcp_ldcp __read_mostly = {
	.init		= ldcp_init,
	.release	= ldcp_release,
	.in_ack_event	= ldcp_in_ack_event,
	.cong_control	= ldcp_cong_control,
	.cwnd_event	= ldcp_cwnd_event,
	.set_state	= ldcp_set_state,
	.ssthresh	= ldcp_ssthresh,
	.undo_cwnd	= ldcp_undo_cwnd,
	.get_info	= ldcp_get_info,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "ldcp",
};

/*
 * Fast start's ECN field, per packet (section 3.1): TCP has made the
 * segment ECT (the socket's ECN field, which with TCP_CONG_NEEDS_ECN
 * covers retransmissions and pure ACKs too; pure ACKs pass untouched);
 * clear it on a data segment unless ldcp_fs_ect() wants it ECN-capable.
 * The segment is a single packet while fast start lasts (ldcp_init()
 * caps sk_gso_max_segs); a larger one is decided by its last packet.
 * The draft's "last packet of a message" is, in a byte stream, a segment
 * with PSH (the end of a write, of what the send buffer held, or TCP's
 * push every half of the peer's largest window) or FIN.  The hook runs
 * in the socket's transmit path: the socket is locked.
 */
static unsigned int ldcp_fs_out(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct sock *sk = skb->sk;
	const struct tcp_sock *tp;
	const struct tcphdr *th;
	struct ldcp_params p;
	struct ldcp *ca;
	u32 seq, len, mss;
	int v4;

	if (!sk || !sk_fullsock(sk) || sk->sk_type != SOCK_STREAM ||
	    sk->sk_protocol != IPPROTO_TCP ||
	    inet_csk(sk)->icsk_ca_ops != &tcp_ldcp)
		return NF_ACCEPT;
	ca = inet_csk_ca(sk);
	if (!ca->fs_ect || ca->st.phase != LDCP_FAST_START)
		return NF_ACCEPT;
	v4 = state->pf == NFPROTO_IPV4;
	/*
	 * skb->sk stays the TCP socket through encapsulation: only the
	 * socket's own segment is ours, not a tunnel's outer packet (its
	 * protocol is not TCP, or its transport header is not right behind
	 * it), whose ECN field is the tunnel's (RFC 6040).
	 */
	if (v4 && (ip_hdr(skb)->protocol != IPPROTO_TCP ||
		   skb_transport_offset(skb) != skb_network_offset(skb) + ip_hdrlen(skb)))
		return NF_ACCEPT;
	if (!v4 && (ipv6_hdr(skb)->nexthdr != IPPROTO_TCP ||
		    skb_transport_offset(skb) !=
		    skb_network_offset(skb) + sizeof(struct ipv6hdr)))
		return NF_ACCEPT;
	if (v4 ? INET_ECN_is_not_ect(ip_hdr(skb)->tos) :
	    INET_ECN_is_not_ect(ipv6_get_dsfield(ipv6_hdr(skb))))
		return NF_ACCEPT;
	if (skb_transport_offset(skb) <= 0 ||
	    !pskb_may_pull(skb, skb_transport_offset(skb) + sizeof(*th)))
		return NF_ACCEPT;
	th = tcp_hdr(skb);
	if (th->source != inet_sk(sk)->inet_sport || th->dest != inet_sk(sk)->inet_dport)
		return NF_ACCEPT;
	len = skb->len - skb_transport_offset(skb);
	if (th->doff < 5 || th->syn || len <= th->doff * 4)
		return NF_ACCEPT;
	len -= th->doff * 4;
	tp = tcp_sk(sk);
	seq = ntohl(th->seq);
	mss = max(tp->mss_cache, 1U);
	ldcp_params(&p, ca);
	if (ldcp_fs_ect(&p, (u32)(seq + len - 1 - ca->isn) / mss, th->psh || th->fin))
		return NF_ACCEPT;
	if (skb_ensure_writable(skb, skb_transport_offset(skb)))
		return NF_ACCEPT;
	if (v4)
		ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK, 0);
	else
		ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK, 0);
	ldcp_count_n(sk, C_FS_NOT_ECT, max_t(u32, skb_shinfo(skb)->gso_segs, 1));
	return NF_ACCEPT;
}

static const struct nf_hook_ops ldcp_nf_ops[] = {
	{ .hook = ldcp_fs_out, .pf = NFPROTO_IPV4, .hooknum = NF_INET_LOCAL_OUT,
	  .priority = NF_IP_PRI_MANGLE + 1 },
#if IS_ENABLED(CONFIG_IPV6)
	{ .hook = ldcp_fs_out, .pf = NFPROTO_IPV6, .hooknum = NF_INET_LOCAL_OUT,
	  .priority = NF_IP6_PRI_MANGLE + 1 },
#endif
};

/* The namespace's fast-start hook (its counters are dcc_pernet's). */
static int __net_init ldcp_net_init(struct net *net)
{
	return nf_register_net_hooks(net, ldcp_nf_ops, ARRAY_SIZE(ldcp_nf_ops));
}

static void __net_exit ldcp_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, ldcp_nf_ops, ARRAY_SIZE(ldcp_nf_ops));
}

static struct dcc_pernet ldcp_pernet = {
	.proc_name = "tcp_ldcp",
	.ctr_names = ldcp_ctr_names,
	.nctrs = C_NR,
	.init = ldcp_net_init,
	.exit = ldcp_net_exit,
	.ops = DCC_PERNET_OPS(ldcp_pernet, struct dcc_net),
};

static int __init ldcp_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct ldcp) > ICSK_CA_PRIV_SIZE);
	err = dcc_pernet_register(&ldcp_pernet);
	if (err)
		return err;
	err = tcp_register_congestion_control(&tcp_ldcp);
	if (err)
		dcc_pernet_unregister(&ldcp_pernet);
	return err;
}

static void __exit ldcp_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_ldcp);
	dcc_pernet_unregister(&ldcp_pernet);
}

module_init(ldcp_register);
module_exit(ldcp_unregister);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LDCP congestion control: per-ACK window adjustment from ECN");
