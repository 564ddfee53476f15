// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_ldcp: LDCP (draft-dai-tsvwg-pfc-free-congestion-control-01) as a
 * TCP congestion control, for networks whose switches mark ECN on the
 * instantaneous queue (WRED/ECN) and carry no telemetry.
 *
 * The algorithm is include/ldcp.h and its controller include/ldcp_ctl.h,
 * the same code the BPF flavour and the userspace unit tests run; this
 * file is their glue (parameters, counters, the tracepoint, get_info and
 * fast start's netfilter hook; the socket's accessors are shared:
 * include/dcc_ctl_kern.h with tcp_hpcc.c, include/ldcp_ctl_tcp.h with
 * the BPF flavour).  Every ACK of n
 * packets adjusts cw by
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
 * Documentation/tcp_ldcp.rst.  The hooks are registered only while
 * fs_not_ect is 1, so that by default no local packet runs them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/inet_diag.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/tcp.h>
#include <net/inet_ecn.h>

#include "dcc_ctl_kern.h"
#include "dcc_pernet.h"
#include "gso_cap.h"
#include "ldcp.h"
#include "ldcp_ctl_tcp.h"
#include "range_param.h"

#define CREATE_TRACE_POINTS
#include "tcp_ldcp_trace.h"

/*
 * Parameters (include/range_param.h): a write outside a parameter's
 * range is refused with a message and leaves the old value.  What the
 * controller takes from them per ACK is worked out at each write
 * (ldcp_derive()); fs_not_ect registers and unregisters fast start's
 * netfilter hooks (ldcp_nf_sync()).
 */
static void ldcp_derive(void);

/* A range parameter whose write also updates the derived values. */
#define DEFINE_LDCP_PARAM_OPS(name, lo, hi)				\
	static int name##_set(const char *val, const struct kernel_param *kp) \
	{								\
		int err = range_param_set(val, kp, lo, hi);		\
									\
		if (!err)						\
			ldcp_derive();					\
		return err;						\
	}								\
	static const struct kernel_param_ops name##_ops = {		\
		.set = name##_set,					\
		.get = param_get_uint,					\
	}

static unsigned int alpha_milli = 1000;
DEFINE_LDCP_PARAM_OPS(alpha_milli, 1, 1000);
module_param_cb(alpha_milli, &alpha_milli_ops, &alpha_milli, 0644);
MODULE_PARM_DESC(alpha_milli,
		 "alpha, the increase per window of unmarked ACKs, 1/1000 packet (1..1000, default 1000)");
static unsigned int beta_milli = 500;
DEFINE_LDCP_PARAM_OPS(beta_milli, 1, 1000);
module_param_cb(beta_milli, &beta_milli_ops, &beta_milli, 0644);
MODULE_PARM_DESC(beta_milli,
		 "beta, the decrease per marked packet, 1/1000 packet (1..1000, default 500)");
static unsigned int gamma_div = 8;
DEFINE_LDCP_PARAM_OPS(gamma_div, 4, 16);
module_param_cb(gamma_div, &gamma_div_ops, &gamma_div, 0644);
MODULE_PARM_DESC(gamma_div,
		 "gamma = 1/gamma_div packet: the step and floor of cw below one packet (4..16, default 8)");
static unsigned int bw_mbps = 10000;
DEFINE_LDCP_PARAM_OPS(bw_mbps, 1, 4000000);
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
static int fs_not_ect_set(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops fs_not_ect_ops = {
	.set = fs_not_ect_set,
	.get = param_get_uint,
};
module_param_cb(fs_not_ect, &fs_not_ect_ops, &fs_not_ect, 0644);
MODULE_PARM_DESC(fs_not_ect,
		 "1: fast start's packets before the IW-th leave not-ECN-capable (section 3.1), by netfilter hooks registered only while it is 1; 0: all ECT (default 0)");
static unsigned int below_one_inc = 1;
DEFINE_LDCP_PARAM_OPS(below_one_inc, 0, 1);
module_param_cb(below_one_inc, &below_one_inc_ops, &below_one_inc, 0644);
MODULE_PARM_DESC(below_one_inc,
		 "below one packet, the increase per unmarked ACK: 0: gamma (section 2.2); 1: alpha, one equilibrium with PAWA above one packet (default 1)");
static unsigned int ack_every = 1;
DEFINE_RANGE_PARAM_OPS(ack_every, 0, 1);
module_param_cb(ack_every, &ack_every_ops, &ack_every, 0644);
MODULE_PARM_DESC(ack_every,
		 "receiver: 1: an ACK for every data segment (section 2.2); 0: TCP's delayed ACK (default 1)");

/* The controller's parameters, from ldcp_derive() */
static struct ldcp_params ldcp_p __read_mostly;
static u64 ldcp_fs_rate_bps __read_mostly;

static void ldcp_derive(void)
{
	struct ldcp_params p;

	ldcp_params_derive(&p, READ_ONCE(alpha_milli), READ_ONCE(beta_milli),
			   READ_ONCE(gamma_div), READ_ONCE(below_one_inc));
	WRITE_ONCE(ldcp_p.alpha, p.alpha);
	WRITE_ONCE(ldcp_p.beta, p.beta);
	WRITE_ONCE(ldcp_p.gamma, p.gamma);
	WRITE_ONCE(ldcp_p.inc, p.inc);
	WRITE_ONCE(ldcp_fs_rate_bps, (u64)READ_ONCE(bw_mbps) * 125000);
}

/* Per-namespace counters: /proc/net/tcp_ldcp, include/ldcp.h's LDCP_C_*. */
static const char * const ldcp_ctr_names[LDCP_C_NR] = LDCP_COUNTER_NAMES;

/*
 * Per-socket state: the controller's, and fast start's ECN field per
 * packet.
 */
struct ldcp_sk {
	struct ldcp ca;
	struct gso_cap gso;	/* fast start's cap on sk_gso_max_segs */
	u8	fs_ect;		/* fast start sets the ECN field per packet */
};

static inline struct ldcp_sk *ldcp_sk(const struct sock *sk)
{
	return inet_csk_ca(sk);
}

/* include/ldcp_ctl.h's hooks */
static inline struct ldcp *ldcp_ctl_ca(struct sock *sk)
{
	return &ldcp_sk(sk)->ca;
}

static inline void ldcp_ctl_params(struct sock *sk, struct ldcp_params *p)
{
	p->alpha = READ_ONCE(ldcp_p.alpha);
	p->beta = READ_ONCE(ldcp_p.beta);
	p->gamma = READ_ONCE(ldcp_p.gamma);
	p->inc = READ_ONCE(ldcp_p.inc);
	p->iw = 0;
}

/* IW = bw * base RTT, in packets of the socket's MSS */
static inline u32 ldcp_ctl_iw(struct sock *sk)
{
	return ldcp_iw_bdp(READ_ONCE(bw_mbps), READ_ONCE(base_rtt_us),
			   tcp_sk(sk)->mss_cache);
}

static inline int ldcp_ctl_fast_start(struct sock *sk)
{
	return READ_ONCE(fast_start);
}

static inline u64 ldcp_ctl_fs_rate(struct sock *sk)
{
	return READ_ONCE(ldcp_fs_rate_bps);
}

static inline int ldcp_ctl_ack_every(struct sock *sk)
{
	return READ_ONCE(ack_every);
}

static inline void ldcp_ctl_count(struct sock *sk, int i)
{
	dcc_count(sock_net(sk), i);
}

static inline void ldcp_ctl_trace(struct sock *sk, const struct ldcp *ca,
				  u32 cw_old, u32 n, const char *event)
{
	trace_ldcp_update(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
			  cw_old, ca->st.cw, n, ca->ece, ca->st.phase,
			  tcp_snd_cwnd(tcp_sk(sk)), READ_ONCE(sk->sk_pacing_rate),
			  event);
}

/*
 * Fast start with fs_not_ect=1 on a connection with ECN: one packet per
 * skb until it ends, so that the LOCAL_OUT hook can set each packet's
 * ECN field.
 */
static inline void ldcp_ctl_fs_start(struct sock *sk, struct ldcp *ca)
{
	struct ldcp_sk *ls = ldcp_sk(sk);

	if ((tcp_sk(sk)->ecn_flags & TCP_ECN_OK) && READ_ONCE(fs_not_ect)) {
		ls->fs_ect = 1;
		gso_cap_init(&ls->gso, sk->sk_gso_max_segs);
		sk_gso_cap(sk, &ls->gso, 1);
	}
}

/*
 * Fast start ended: TSO as the device allows, every packet ECT from now
 * on.  A new route during fast start (sk_setup_caps()) has already given
 * the socket its device's limit, which stays.
 */
static inline void ldcp_ctl_fs_end(struct sock *sk, struct ldcp *ca)
{
	struct ldcp_sk *ls = ldcp_sk(sk);

	if (ls->fs_ect) {
		ls->fs_ect = 0;
		sk_gso_cap(sk, &ls->gso, 0);
	}
}

static inline void ldcp_ctl_send_ack(struct sock *sk, u32 rcv_nxt)
{
#ifdef LDCP_SEND_ACK_FLAGS
	__tcp_send_ack(sk, rcv_nxt, 0);
#else
	__tcp_send_ack(sk, rcv_nxt);
#endif
}

#include "ldcp_ctl.h"

static void ldcp_init(struct sock *sk)
{
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
	ldcp_ctl_init(sk);
}

#ifdef LDCP_CONG_CONTROL_ACK
static void ldcp_cong_control(struct sock *sk, u32 ack, int flag,
			      const struct rate_sample *rs)
{
	ldcp_ctl_cong_control(sk, rs->acked_sacked, rs->losses);
}
#else
static void ldcp_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	ldcp_ctl_cong_control(sk, rs->acked_sacked, rs->losses);
}
#endif

static void ldcp_in_ack_event(struct sock *sk, u32 flags)
{
	ldcp_ctl_in_ack_event(sk, flags & CA_ACK_ECE);
}

static void ldcp_set_state(struct sock *sk, u8 new_state)
{
	ldcp_ctl_set_state(sk, new_state);
}

static void ldcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	ldcp_ctl_cwnd_event(sk, ev);
}

static void ldcp_release(struct sock *sk)
{
	ldcp_ctl_release(sk);
}

static u32 ldcp_ssthresh(struct sock *sk)
{
	return ldcp_ctl_ssthresh(sk);
}

static u32 ldcp_undo_cwnd(struct sock *sk)
{
	return ldcp_ctl_undo_cwnd(sk);
}

static size_t ldcp_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct ldcp *ca = &ldcp_sk(sk)->ca;
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
	struct ldcp_params p = {};
	struct sock *sk = skb->sk;
	const struct tcp_sock *tp;
	const struct tcphdr *th;
	struct ldcp_sk *ls;
	u32 seq, len, mss;
	int v4;

	if (!sk || !sk_fullsock(sk) || sk->sk_type != SOCK_STREAM ||
	    sk->sk_protocol != IPPROTO_TCP ||
	    inet_csk(sk)->icsk_ca_ops != &tcp_ldcp)
		return NF_ACCEPT;
	ls = ldcp_sk(sk);
	if (!ls->fs_ect || ls->ca.st.phase != LDCP_FAST_START)
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
	p.iw = ls->ca.iw;
	if (ldcp_fs_ect(&p, (u32)(seq + len - 1 - ls->ca.isn) / mss, th->psh || th->fin))
		return NF_ACCEPT;
	if (skb_ensure_writable(skb, skb_transport_offset(skb)))
		return NF_ACCEPT;
	if (v4)
		ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK, 0);
	else
		ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK, 0);
	dcc_count_n(sock_net(sk), LDCP_C_FS_NOT_ECT, max_t(u32, skb_shinfo(skb)->gso_segs, 1));
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

/*
 * The hooks are registered only while fs_not_ect is 1, in every
 * namespace: by their own pernet operations, which
 * register_pernet_subsys() runs for each namespace there is and then for
 * each new one, and unregister_pernet_subsys() undoes in each (both
 * under pernet_ops_rwsem, which a namespace's creation and cleanup take
 * too, so that none is missed or left with hooks).  ldcp_nf_mutex
 * serialises the parameter's writes with the module's init and exit;
 * ldcp_nf_live says the module is between them (parameters given to
 * insmod are written before init, and a write can come after exit,
 * before the parameter's file goes).
 */
static int __net_init ldcp_nf_net_init(struct net *net)
{
	return nf_register_net_hooks(net, ldcp_nf_ops, ARRAY_SIZE(ldcp_nf_ops));
}

static void __net_exit ldcp_nf_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, ldcp_nf_ops, ARRAY_SIZE(ldcp_nf_ops));
}

static struct pernet_operations ldcp_nf_net_ops = {
	.init = ldcp_nf_net_init,
	.exit = ldcp_nf_net_exit,
};

static DEFINE_MUTEX(ldcp_nf_mutex);
static bool ldcp_nf_live;	/* between init and exit */
static bool ldcp_nf_on;		/* ldcp_nf_net_ops registered */

/* The hooks as fs_not_ect says, under ldcp_nf_mutex. */
static int ldcp_nf_sync(void)
{
	bool want = ldcp_nf_live && READ_ONCE(fs_not_ect);
	int err = 0;

	lockdep_assert_held(&ldcp_nf_mutex);
	if (want == ldcp_nf_on)
		return 0;
	if (want)
		err = register_pernet_subsys(&ldcp_nf_net_ops);
	else
		unregister_pernet_subsys(&ldcp_nf_net_ops);
	if (!err)
		ldcp_nf_on = want;
	return err;
}

static int fs_not_ect_set(const char *val, const struct kernel_param *kp)
{
	unsigned int old;
	int err;

	mutex_lock(&ldcp_nf_mutex);
	old = fs_not_ect;
	err = range_param_set(val, kp, 0, 1);
	if (!err) {
		err = ldcp_nf_sync();
		if (err)
			WRITE_ONCE(fs_not_ect, old);
	}
	mutex_unlock(&ldcp_nf_mutex);
	return err;
}

static struct dcc_pernet ldcp_pernet = {
	.proc_name = "tcp_ldcp",
	.ctr_names = ldcp_ctr_names,
	.nctrs = LDCP_C_NR,
	.ops = DCC_PERNET_OPS(ldcp_pernet, struct dcc_net),
};

static int __init ldcp_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct ldcp_sk) > ICSK_CA_PRIV_SIZE);
	ldcp_derive();
	err = dcc_pernet_register(&ldcp_pernet);
	if (err)
		return err;
	mutex_lock(&ldcp_nf_mutex);
	ldcp_nf_live = true;
	err = ldcp_nf_sync();
	if (err)
		ldcp_nf_live = false;
	mutex_unlock(&ldcp_nf_mutex);
	if (err)
		goto out_pernet;
	err = tcp_register_congestion_control(&tcp_ldcp);
	if (err)
		goto out_nf;
	return 0;
out_nf:
	mutex_lock(&ldcp_nf_mutex);
	ldcp_nf_live = false;
	ldcp_nf_sync();
	mutex_unlock(&ldcp_nf_mutex);
out_pernet:
	dcc_pernet_unregister(&ldcp_pernet);
	return err;
}

static void __exit ldcp_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_ldcp);
	mutex_lock(&ldcp_nf_mutex);
	ldcp_nf_live = false;
	ldcp_nf_sync();
	mutex_unlock(&ldcp_nf_mutex);
	dcc_pernet_unregister(&ldcp_pernet);
}

module_init(ldcp_register);
module_exit(ldcp_unregister);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LDCP congestion control: per-ACK window adjustment from ECN");
